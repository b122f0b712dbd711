-- a predicate reading a field the op does not have (a typo) is an error,
-- not nil
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { accepts = function(op) return op.depthwize == 1 end },
      avgpool = {}, reshape = {}, fc = {}, softmax = {},
    },
  },
}
