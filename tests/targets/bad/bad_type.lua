return target "t" {
  clock_mhz = "fast",
  memory = { L2 = { size = 1024 } },
  cpu = { memory = "L2", requant = { "tflite" }, ops = {} },
}
