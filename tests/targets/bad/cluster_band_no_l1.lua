-- cpu.band chooses the L1 band height: a cpu without l1 has no bands
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = { memory = "L2", requant = { "tflite" }, cores = 2,
          band = function(b, op) return { minimize = b.dma_bytes } end,
          ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
