-- a field the core does not use is rejected, not ignored: the cpu runs
-- whole layers, so double_buffer would mean nothing there
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { cycles_per_mac = 2, double_buffer = true },
      avgpool = {}, reshape = {}, fc = {}, softmax = {},
    },
  },
}
