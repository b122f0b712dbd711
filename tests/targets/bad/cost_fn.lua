-- a cost function must return a number of cycles
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { cycles_per_mac = function(op) return op.depthwise == 1 and "slow" or 2 end },
      avgpool = {}, reshape = {}, fc = {}, softmax = {},
    },
  },
}
