-- a C error in a template names the template's file and line (#line
-- directives in the generated code), in one htc line (htc run)
return target "t" {
  clock_mhz = 100,
  memory = {
    L2 = { size = 65536 },
    SRAM = { size = 65536, dma = { bytes_per_cycle = 8, setup = 24 } },
    WSRAM = { size = 16384, dma = { bytes_per_cycle = 8, setup = 24 } },
  },
  cpu = { memory = "L2", requant = { "tflite" }, ops = { avgpool = {}, reshape = {}, fc = {}, softmax = {} } },
  engines = {
    npu = {
      memory = "SRAM", weights = "WSRAM", requant = { "tflite" }, array = { rows = 8, cols = 8 },
      ops = {
        conv2d = {
          kernel = "kernels/npu.c", fn = "htc__npu_conv", template = "template_cerror.c.in",
          tile = function(t, op)
            return { maximize = t.K }
          end,
        },
      },
    },
  },
}
