-- an accelerator is named by its key; a name field would be ignored
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 }, L1 = { size = 4096 } },
  cpu = { memory = "L2", requant = { "tflite" }, ops = { conv2d = {} } },
  engines = {
    npu = {
      name = "my-npu",
      memory = "L1", requant = { "tflite" },
      ops = { conv2d = { kernel = "kernels/npu.c", fn = "htc__npu_conv" } },
    },
  },
}
