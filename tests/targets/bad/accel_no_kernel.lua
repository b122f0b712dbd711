return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 }, L1 = { size = 4096 } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = { conv2d = { cycles_per_mac = 2 } },   -- htc's own CPU kernel
  },
  engines = {
    npu = {
      memory = "L1", requant = { "tflite" },
      ops = {
        conv2d = { cycles_per_mac = 0.1 },
      },
    },
  },
}
