-- partial_sums is for the ops that sum over C (conv2d, fc)
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024 }, L1 = { size = 8 * 1024 } },
  cpu = { memory = "L2", requant = { "float" }, ops = { conv2d = {}, transpose = {}, reshape = {} } },
  engines = {
    acc = {
      memory = "L1", requant = { "float" },
      ops = {
        add = {
          kernel = "kernels/diana.c", fn = "htc__dev_add", template = "templates/diana/add.c.in",
          partial_sums = true,
          tile = function(t, op) return { maximize = t.l1_bytes } end,
        },
      },
    },
  },
}
