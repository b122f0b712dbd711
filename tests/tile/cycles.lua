-- tests/tile/cycles.lua: the DIANA digital engine (device model and
-- templates) with a small L1 (L1_SIZE substituted by the test) and an
-- objective that minimises the layer's modelled cycles: tile counts as
-- cdiv(full, tile) -- a division by a tile variable -- times the cycles of
-- one tile, plus a term divided by a tile expression (a / b).
local KiB = 1024
return target "cycles" {
  clock_mhz = 100,
  memory = {
    L2 = { size = 512 * KiB },
    L1 = { size = L1_SIZE, dma = { bytes_per_cycle = 8, setup = 40 } },
    WD = { size = 4096, dma = { bytes_per_cycle = 8, setup = 40 } },
  },
  cpu = {
    name = "host", memory = "L2", requant = { "float" },
    ops = {
      conv2d = { cycles_per_mac = 2 },
      transpose = { cycles_per_elem = 4 },
      reshape = { cycles_per_elem = 0 },
    },
  },
  engines = {
    acc = {
      memory = "L1", weights = "WD", requant = { "shift" }, startup = 50,
      array = { rows = 16, cols = 16 }, device = { DW_MACS_X4 = 15, ADD_LANES = 16, ISSUE = 10 },
      ops = {
        conv2d = {
          kernel = "kernels/diana.c", fn = "htc__dev_conv", template = "templates/diana/conv2d.c.in",
          double_buffer = true,
          tile = function(t, op)
            local compute = t.OY * cdiv(t.OX, 4) * cdiv(t.K, 4) * (op.C * op.kernel_h * op.kernel_w)
            local dma = 80 + (t.l1_in + t.l1_out) / 8
            return {
              minimize = cdiv(op.K, t.K) * (40 + t.w_bytes / 8
                                             + cdiv(op.OY, t.OY) * cdiv(op.OX, t.OX) * (50 + max(compute, dma)))
                         + t.l1_bytes / t.K,
              cycles = compute,
              dma_cycles = dma,
            }
          end,
        },
      },
    },
  },
}
