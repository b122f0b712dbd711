-- a typo in what cpu.band returns is an error at its line, not a default
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 262144 }, L1 = { size = 65536, dma = { bytes_per_cycle = 8, setup = 20 } } },
  cpu = { memory = "L2", requant = { "tflite" }, cores = 2, l1 = "L1",
          band = function(b, op)
            return {
              minimise = b.dma_bytes,
            }
          end,
          ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
