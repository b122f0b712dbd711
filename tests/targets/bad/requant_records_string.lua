-- requant_records takes true, false or "depthwise", not another string

return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024, alignment = 16, dma = { bytes_per_cycle = 4 } } },
  cpu = {
    memory = "L2", requant = { "tflite" }, isa = { "xpulpv2" }, requant_records = "dense",
    ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} },
  },
}
