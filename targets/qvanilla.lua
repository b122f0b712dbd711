-- targets/qvanilla.lua: MLonMCU's "QVanilla" experiment (TVM UMA): the
-- vanilla Conv2D + bias unit of targets/vanilla.lua (same device model,
-- kernels/vanilla.c: int32 accumulators in a 16 kB scratchpad) with the
-- host requantizing its accumulators with TFLite's fixed-point multipliers
-- and shifts, so the .tflite MLPerf Tiny models offload their plain
-- convolutions bit-exactly (bench/bench_uma.py). The template brackets the
-- accelerator's own work (DMA loads and the array) with
-- HTC_ACCEL_BEGIN() / HTC_ACCEL_END(), which a firmware may define to
-- leave it out of an instruction count, as MLonMCU's ETISS plugin does.


-- memory sizes are parameters (-D l2_kib=4096 for a model whose arena needs more)
local m4 = include "cpus/cortex-m4.lua"
local L2_KIB = param "l2_kib" { default = 512, min = 1, max = 1048576,
                                description = "main RAM in KiB: the CPU's arena (every intermediate tensor)" }
local L1_KIB = param "l1_kib" { default = 16, min = 1, max = 1024,
                                description = "the accelerator's scratchpad in KiB (activations, weights, int32 accumulators)" }
local ROWS, COLS = 8, 8         -- output x input channels per step
local STARTUP, HOST_RQ = 20, 6  -- cycles to start the array; host cycles per requantised output

return target "qvanilla" {
  description = "QVanilla (MLonMCU / UMA): Conv2D + bias, 16 kB scratchpad, TFLite requantization on the host",
  clock_mhz = 100,

  memory = {
    L2 = { size = L2_KIB * KiB, alignment = 16 },
    L1 = { size = L1_KIB * KiB, alignment = 4, dma = { bytes_per_cycle = 4, setup = 20 } },
  },

  -- the host: a Cortex-M4 class MCU (targets/cpus/cortex-m4.lua: htc's own kernels and their costs)
  cpu = m4 { name = "cpu", memory = "L2", requant = { "tflite", "float", "fp32" } },

  engines = {
    vanilla = {
      memory = "L1",              -- everything: input tile, accumulators, weights
      startup = STARTUP,
      array = { rows = ROWS, cols = COLS },
      device = { HOST_RQ = HOST_RQ },   -- HTC_DEV_HOST_RQ in kernels/vanilla.c
      requant = { "tflite" },     -- done by the host on the accumulators
      ops = {
        conv2d = {
          kernel = "kernels/vanilla.c", fn = "htc__van_conv",
          template = "templates/qvanilla/conv2d.c.in",
          macs_per_cycle = ROWS * COLS,
          accepts = function(op)
            if op.groups ~= 1 then return false, "grouped or depthwise (vanilla: plain conv only)" end
            if op.dilation ~= 1 then return false, "dilation > 1" end
            if op.weight_bits ~= 8 then return false, "weights are not int8" end
            if op.weight_zp ~= 0 then return false, "weight zero point" end
            if op.int32_out ~= 0 then return false, "int32 output" end
            if op.batches ~= 1 then return false, "batch > 1" end
            return true
          end,
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
