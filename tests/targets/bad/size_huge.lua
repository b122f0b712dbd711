-- size = 2^63 (overflowed into a message blaming the model)

return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 2^63, alignment = 16, dma = { bytes_per_cycle = 4 } } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { accepts = function(op) return true end },
      fc = {}, avgpool = {}, reshape = {}, softmax = {},
    },
  },
}
