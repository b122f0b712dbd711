-- the DMA's energy per byte is a number
return target "t" {
  clock_mhz = 100,
  memory = {
    L2 = { size = 65536 },
    L1 = { size = 4096, dma = { bytes_per_cycle = 8,
                                pj_per_byte = "low" } },
  },
  cpu = { memory = "L2", requant = { "tflite" }, ops = { conv2d = {} } },
}
