-- outputs names a second memory of the engine, not its `memory`
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024 }, L1 = { size = 8 * 1024 } },
  cpu = { memory = "L2", requant = { "float" }, ops = { conv2d = {}, transpose = {}, reshape = {} } },
  engines = {
    acc = {
      memory = "L1", outputs = "L1", requant = { "float" },
      ops = {},
    },
  },
}
