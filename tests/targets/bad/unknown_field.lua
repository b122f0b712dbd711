return target "t" {
  clock_mhz = 100,
  memory = {
    L2 = { size = 1024, alignement = 16 },
  },
  cpu = { memory = "L2", requant = { "tflite" }, ops = {} },
}
