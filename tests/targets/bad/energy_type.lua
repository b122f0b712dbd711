-- a memory's energy is a table
return target "t" {
  clock_mhz = 100,
  memory = {
    L2 = { size = 65536,
           energy = 0.5 },
  },
  cpu = { memory = "L2", requant = { "tflite" }, ops = { conv2d = {} } },
}
