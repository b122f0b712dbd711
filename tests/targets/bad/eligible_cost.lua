-- a cost function sees op.eligible_index / eligible_count (no accelerator
-- here, so no layer is eligible: 0 of 0)

return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024, alignment = 16, dma = { bytes_per_cycle = 4 } } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { cycles_per_mac = function(op)
                   error(("eligible %d of %d"):format(op.eligible_index, op.eligible_count)) end },
      fc = {}, avgpool = {}, reshape = {}, softmax = {},
    },
  },
}
