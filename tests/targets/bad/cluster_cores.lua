-- a cluster has at least one core
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = { memory = "L2", requant = { "tflite" }, cores = 0, ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
