-- the cluster's local memory must be a memory of the target
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = { memory = "L2", requant = { "tflite" }, cores = 2,
          l1 = "TCDM", ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
