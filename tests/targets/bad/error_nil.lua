-- error(nil) while loading: a message with file:line, not (null)
error(nil)
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024, alignment = 16, dma = { bytes_per_cycle = 4 } } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { accepts = function(op) return true end },
      fc = {}, avgpool = {}, reshape = {}, softmax = {},
    },
  },
}
