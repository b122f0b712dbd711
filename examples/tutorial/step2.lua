-- examples/tutorial/step2.lua: step 2 of docs/accelerator-tutorial.md.
-- The chip gains "fcu", a fully connected unit: ROWS x COLS int8 MACs
-- (output x input features), an activation memory LOC for the input vector
-- and the outputs, a weight memory WLOC for one K tile's weights, biases and
-- TFLite multipliers and shifts, and one DMA engine. Its requantization unit
-- implements TFLite's fixed point, so it takes only ops of that kind.
-- Its device model is fcu.c, its per-layer C is fc.c.in.
local m4 = include "cpus/cortex-m4.lua"

local LOC_KIB = param "loc_kib" { default = 4, min = 1, max = 256,
                                  description = "activation memory in KiB (input vector + outputs)" }
local WLOC_KIB = param "wloc_kib" { default = 16, min = 1, max = 1024,
                                    description = "weight memory in KiB (one K tile)" }
local ROWS, COLS, STARTUP = 8, 8, 10
local BPC, SETUP = 4, 12

-- DMA cycles of one K tile's weights, biases, multipliers, shifts (4 transfers)
local function weight_dma(w_bytes) return 4 * SETUP + w_bytes / BPC end

return target "tutorial" {
  description = "tutorial step 2: host CPU + fully connected unit",
  clock_mhz = 100,
  memory = {
    RAM = { size = 256 * KiB, alignment = 16 },
    LOC = { size = LOC_KIB * KiB, alignment = 16, dma = { bytes_per_cycle = BPC, setup = SETUP } },
    WLOC = { size = WLOC_KIB * KiB, alignment = 16, dma = { bytes_per_cycle = BPC, setup = SETUP } },
  },
  cpu = m4 { name = "host", memory = "RAM", requant = { "tflite" } },
  engines = {
    fcu = {
      memory = "LOC", weights = "WLOC", startup = STARTUP,
      array = { rows = ROWS, cols = COLS },
      requant = { "tflite" },
      ops = {
        fc = {
          kernel = "fcu.c", fn = "htc__fcu_fc", template = "fc.c.in",
          macs_per_cycle = ROWS * COLS,
          accepts = function(op)
            if op.weight_zp ~= 0 then return false, "weight zero point" end
            if op.batches ~= 1 then return false, "batch > 1" end
            return true
          end,
          -- the tile sizes: K tiles whose weights fit WLOC; the objective is
          -- the layer's cycles as the device model counts them
          tile = function(t, op)
            local w = t.w_bytes + 8 * t.K           -- + multipliers and shifts
            return {
              minimize = cdiv(op.K, t.K) * (weight_dma(w) + STARTUP + cdiv(t.K, ROWS) * cdiv(op.C, COLS)),
              cycles = cdiv(t.K, ROWS) * cdiv(op.C, COLS),
              w_dma_cycles = weight_dma(w),
              w_bytes = w,
            }
          end,
        },
      },
    },
  },
}
