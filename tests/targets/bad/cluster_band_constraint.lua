-- a band constraint is le / ge / eq, not a number
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 262144 }, L1 = { size = 65536, dma = { bytes_per_cycle = 8, setup = 20 } } },
  cpu = { memory = "L2", requant = { "tflite" }, cores = 2, l1 = "L1",
          band = function(b, op)
            return {
              minimize = b.dma_bytes,
              constraints = { b.l1_bytes - 1000 },
            }
          end,
          ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
