-- a typo in a tile variable (t.l1_byte) is an error at the user's line
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 }, SRAM = { size = 65536 }, WSRAM = { size = 16384 } },
  cpu = { memory = "L2", requant = { "tflite" }, ops = { avgpool = {}, reshape = {}, fc = {}, softmax = {} } },
  engines = {
    npu = {
      memory = "SRAM", weights = "WSRAM", requant = { "tflite" },
      ops = {
        conv2d = {
          kernel = "kernels/npu.c", fn = "htc__npu_conv", template = "templates/npu/conv2d.c.in",
          tile = function(t, op)
            return { maximize = t.l1_byte }
          end,
        },
      },
    },
  },
}
