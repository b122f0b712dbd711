-- targets/vanilla.lua: a deliberately small UMA-style accelerator that only
-- does Conv2D + bias, next to a plain CPU. It shows what a new accelerator
-- takes: this file, templates/vanilla/conv2d.c.in and the device model
-- kernels/vanilla.c -- nothing in the compiler.
--
-- Unlike DIANA it has no weight memory (weights and biases share the one
-- 16 kB scratchpad with the activations), keeps int32 accumulators there
-- (4 bytes per output), no double buffering, stores tiles y-x-C, and leaves
-- requantisation to the host (exact power-of-two shifts, or QuantLib's
-- RequantShift: acc * mul + add, shifted, clipped). Its tile
-- function therefore states its own scratchpad use (l1_bytes).


-- memory sizes are parameters (-D l2_kib=4096 for a model whose arena needs more)
local m4 = include "cpus/cortex-m4.lua"
local accel = include "parts/accel.lua"   -- the usual refusal checks
local E = include "parts/energy.lua"      -- energy figures and their sources
local L2_KIB = param "l2_kib" { default = 512, min = 1, max = 1048576,
                                description = "main RAM in KiB: the CPU's arena (every intermediate tensor)" }
local L1_KIB = param "l1_kib" { default = 16, min = 1, max = 1024,
                                description = "the accelerator's scratchpad in KiB (activations, weights, int32 accumulators)" }
local ROWS, COLS = 8, 8         -- output x input channels per step
local STARTUP, HOST_RQ = 20, 6  -- cycles to start the array; host cycles per requantised output

return target "vanilla" {
  description = "UMA-style vanilla accelerator: Conv2D + bias, 16 kB scratchpad",
  clock_mhz = 100,

  memory = {
    L2 = { size = L2_KIB * KiB, alignment = 16, energy = { pj_per_byte = E.sram_pj_per_byte } },
    L1 = { size = L1_KIB * KiB, alignment = 4, dma = { bytes_per_cycle = 4, setup = 20 }, energy = { pj_per_byte = E.sram_pj_per_byte } },
  },

  -- the host: a Cortex-M4 class MCU (targets/cpus/cortex-m4.lua: htc's own kernels and their costs)
  cpu = m4 { name = "cpu", memory = "L2", requant = { "tflite", "float", "fp32", "quantlib" },
             energy = { pj_per_cycle = E.core_pj_per_cycle } },

  engines = {
    vanilla = {
      memory = "L1",              -- everything: input tile, accumulators, weights
      startup = STARTUP,
      array = { rows = ROWS, cols = COLS },
      energy = { pj_per_mac = E.int8_array_pj_per_mac },
      device = { HOST_RQ = HOST_RQ },   -- HTC_DEV_HOST_RQ in kernels/vanilla.c
      requant = { "shift", "quantlib" },  -- done by the host on the accumulators
      ops = {
        conv2d = {
          kernel = "kernels/vanilla.c", fn = "htc__van_conv",
          template = "templates/vanilla/conv2d.c.in",
          macs_per_cycle = ROWS * COLS,
          accepts = accel.accepts {
            function(op) return op.groups == 1, "grouped or depthwise (vanilla: plain conv only)" end,
            "no_dilation", "int8_weights", "no_weight_zp", "int8_out", "batch1",
          },
          tile = function(t, op)
            -- scratchpad: int8 input tile, int32 accumulators (aligned),
            -- int8 weights of the K tile, int32 biases (aligned)
            local l1 = t.C * t.IY * t.IX + 3 + 4 * (t.K * t.OY * t.OX)
                     + t.K * (op.C * op.kernel_h * op.kernel_w) + 3 + 4 * t.K
            return {
              l1_bytes = l1,
              -- whole K first (the input is loaded once per K tile), then
              -- the biggest tile (fewest start-ups and DMA set-ups)
              maximize = 4096 * t.K + l1,
              cycles = STARTUP + t.OY * t.OX * (op.kernel_h * op.kernel_w) * cdiv(t.K, ROWS) * cdiv(op.C, COLS)
                       + HOST_RQ * t.K * t.OY * t.OX,
            }
          end,
        },
      },
    },
  },
}
