-- op.weight_min / weight_max: the range of the stored weight integers
-- (the first conv of KWS; the expected values were read from the .tflite
-- with numpy, not from htc)

return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024, alignment = 16, dma = { bytes_per_cycle = 4 } } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { accepts = function(op)
                   return false, ("weights in [%d, %d]"):format(op.weight_min, op.weight_max) end },
      fc = {}, avgpool = {}, reshape = {}, softmax = {},
    },
  },
}
