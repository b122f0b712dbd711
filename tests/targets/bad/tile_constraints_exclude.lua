-- constraints that exclude every tile: the error names the first constraint
-- that, with those before it, leaves no tile (its file:line), not a memory
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
    maximize = t.K * t.OY,
    constraints = {
      le(t.K, 8),
      ge(t.K * t.OY, 9 * op.OY),
    },
  }
end)
