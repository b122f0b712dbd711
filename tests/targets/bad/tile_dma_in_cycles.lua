-- t.dma_bytes is the whole layer's: not inside one tile's cycles
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
    minimize = t.dma_bytes,
    cycles = t.K * t.OY + t.dma_bytes / 1000,
  }
end)
