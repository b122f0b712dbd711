-- only the cpu engine is a cluster of cores
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 }, L1 = { size = 4096 } },
  cpu = { memory = "L2", requant = { "tflite" }, ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
  engines = {
    npu = {
      memory = "L1", requant = { "tflite" },
      cores = 4,
      ops = { conv2d = { kernel = "kernels/npu.c", fn = "htc__npu_conv" } },
    },
  },
}
