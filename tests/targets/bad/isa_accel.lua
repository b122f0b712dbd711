-- only the cpu names instruction sets
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 }, L1 = { size = 4096 } },
  cpu = { memory = "L2", requant = { "tflite" }, ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
  engines = {
    npu = {
      memory = "L1", requant = { "tflite" },
      isa = { "arm-dsp" },
      ops = { conv2d = { kernel = "kernels/npu.c", fn = "htc__npu_conv" } },
    },
  },
}
