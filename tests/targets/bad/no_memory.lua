return target "t" {
  clock_mhz = 100,
  cpu = { memory = "L2", requant = { "tflite" }, ops = {} },
}
