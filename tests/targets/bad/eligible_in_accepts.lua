-- op.eligible_index / eligible_count are numbered from the predicates'
-- answers, so a predicate cannot read them (dispatch, costs and tile
-- functions can): reading one in accepts is an error, not nil

return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024, alignment = 16, dma = { bytes_per_cycle = 4 } } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { accepts = function(op) return op.eligible_index ~= 1 end },
      fc = {}, avgpool = {}, reshape = {}, softmax = {},
    },
  },
}
