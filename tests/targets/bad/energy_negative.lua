-- energy figures are numbers >= 0
return target "t" {
  clock_mhz = 100,
  memory = {
    L2 = { size = 65536,
           energy = { pj_per_byte = -0.5 } },
  },
  cpu = { memory = "L2", requant = { "tflite" }, ops = { conv2d = {} } },
}
