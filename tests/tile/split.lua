-- tests/tile/split.lua: tiny.lua with the tile buffers in two local memories:
-- inputs and weights in one scratchpad SP (SP_SIZE), the output tiles as int32
-- partial sums in an accumulator ACC (ACC_SIZE). Tiling only (htc report):
-- the capacity rows and the no-fit messages of gen/tile.c; with PARTIAL =
-- true C may be tiled too (int32 partial sums kept in ACC).
local KiB = 1024
return target "tiny" {
  clock_mhz = 100,
  memory = {
    L2 = { size = 512 * KiB },
    SP = { size = SP_SIZE, dma = { bytes_per_cycle = 8, setup = 40 } },
    ACC = { size = ACC_SIZE, dma = { bytes_per_cycle = 16, setup = 20 } },
  },
  cpu = {
    name = "host", memory = "L2", requant = { "float" },
    ops = {
      conv2d = { kernel = "kernels/conv2d.c", fn = "htc__qconv2d", cycles_per_mac = 2 },
      transpose = { kernel = "kernels/transpose.c", fn = "htc__transpose", cycles_per_elem = 4 },
      reshape = { cycles_per_elem = 0 },
    },
  },
  engines = {
    acc = {
      memory = "SP", weights = "SP", outputs = "ACC", requant = { "shift" }, startup = 50,
      array = { rows = 16, cols = 16 }, device = { DW_MACS_X4 = 15, ADD_LANES = 16, ISSUE = 10 },
      ops = {
        conv2d = {
          kernel = "kernels/diana.c", fn = "htc__dev_conv", template = "templates/diana/conv2d.c.in",
          double_buffer = false, partial_sums = PARTIAL,
          tile = function(t, op)
            return {
              maximize = 1e-3 * t.l1_bytes + (t.K - 1) % 4 + (t.IX - 1) % 8 + t.IY
                         + max(t.OY, 2 * t.OX) - min(t.K, 3) + 0.01 * t.OY * t.OX,
              constraints = { le(t.OX * t.K, 64) },
              out_bytes = 4 * t.K * t.OY * t.OX,
            }
          end,
        },
      },
    },
  },
}
