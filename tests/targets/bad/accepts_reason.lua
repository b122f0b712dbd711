-- the reason accepts gives must be a string

return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024, alignment = 16, dma = { bytes_per_cycle = 4 } } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { accepts = function(op) return false, 42 < 1 end },
      fc = {}, avgpool = {}, reshape = {}, softmax = {},
    },
  },
}
