-- alignment = 1e300 (was undefined behaviour converting to int)

return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024, alignment = 1e300, dma = { bytes_per_cycle = 4 } } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { accepts = function(op) return true end },
      fc = {}, avgpool = {}, reshape = {}, softmax = {},
    },
  },
}
