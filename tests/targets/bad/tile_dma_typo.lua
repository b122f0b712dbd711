-- a typo in a derived tile variable names what t has
local function npu(tile)
  return target "t" {
    clock_mhz = 100,
    memory = { L2 = { size = 65536 }, SRAM = { size = 65536 }, WSRAM = { size = 16384 } },
    cpu = { memory = "L2", requant = { "tflite" }, ops = { avgpool = {}, reshape = {}, fc = {}, softmax = {} } },
    engines = {
      npu = {
        memory = "SRAM", weights = "WSRAM", requant = { "tflite" }, array = { rows = 8, cols = 8 },
        ops = {
          conv2d = { kernel = "kernels/npu.c", fn = "htc__npu_conv", template = "templates/npu/conv2d.c.in",
                     tile = tile },
        },
      },
    },
  }
end

return npu(function(t, op)
  return {
    minimize = t.dma_byte,
  }
end)
