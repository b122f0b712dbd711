-- an unknown element type of a constant array
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 }, SRAM = { size = 65536 }, WSRAM = { size = 16384 } },
  cpu = { memory = "L2", requant = { "tflite" }, ops = { avgpool = {}, reshape = {}, fc = {}, softmax = {} } },
  engines = {
    npu = {
      memory = "SRAM", weights = "WSRAM", requant = { "tflite" },
      ops = {
        conv2d = {
          kernel = "kernels/npu.c", fn = "htc__npu_conv", template = "template_if.c.in",
          tile = function(t, op)
            return { maximize = t.K }
          end,
          constants = function(op, d)
            return { m = { type = "int64", values = { 1 } } }
          end,
        },
      },
    },
  },
}
