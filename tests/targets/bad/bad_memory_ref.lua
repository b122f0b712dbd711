return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 1024 } },
  cpu = {
    memory = "SRAM", requant = { "tflite" }, ops = {},
  },
}
