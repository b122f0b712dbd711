-- out_bytes from an engine whose output tiles are in its own memory only
return target "t" {
  clock_mhz = 100,
  memory = {
    L2 = { size = 512 * 1024 },
    L1 = { size = 8 * 1024, dma = { bytes_per_cycle = 8, setup = 40 } },
    WD = { size = 4 * 1024, dma = { bytes_per_cycle = 8, setup = 40 } },
  },
  cpu = {
    memory = "L2", requant = { "float" },
    ops = { conv2d = {}, transpose = {}, reshape = {} },
  },
  engines = {
    acc = {
      memory = "L1", weights = "WD", requant = { "float" },
      ops = {
        conv2d = {
          kernel = "kernels/diana.c", fn = "htc__dev_conv", template = "templates/diana/conv2d.c.in",
          double_buffer = true,
          tile = function(t, op)
            return { maximize = t.l1_bytes, out_bytes = 2000 }
          end,
        },
      },
    },
  },
}
