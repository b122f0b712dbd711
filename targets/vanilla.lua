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

-- A cost by arithmetic: tflite (depthwise: tflite_dw), float/shift, fp32.
local function by_arith(tflite, float, fp32, tflite_dw)
  return function(op)
    if op.requant == "fp32" then return fp32 or float end
    if op.requant ~= "tflite" then return float end
    return (op.kind == "conv2d" and op.depthwise == 1) and tflite_dw or tflite
  end
end

-- memory sizes are parameters (-D l2_kib=4096 for a model whose arena needs more)
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
    L2 = { size = L2_KIB * KiB, alignment = 16 },
    L1 = { size = L1_KIB * KiB, alignment = 4, dma = { bytes_per_cycle = 4, setup = 20 } },
  },

  cpu = {
    name = "cpu",
    memory = "L2",
    requant = { "tflite", "float", "fp32", "quantlib" },
    ops = {
      -- one entry per operation; what it costs depends on the arithmetic
      -- (kernels differ): TFLite's fixed point, onnxruntime's float scale
      -- ("float", or "shift" when that is exactly a power of two) and the
      -- float groups of --float-fallback ("fp32")
      conv2d     = { cycles_per_mac = by_arith(2.0, 2.5, 6, 3.0) },
      fc         = { cycles_per_mac = 1.5 },
      add        = { cycles_per_elem = by_arith(12, 30, 12) },
      mul        = { cycles_per_elem = by_arith(10, 12, 12) },
      avgpool    = { cycles_per_mac = function(op)    -- onnxruntime's windowed pool sums floats
                       return (op.requant == "tflite" or op.global == 1) and 1.5 or 3 end },
      maxpool    = { cycles_per_mac = 1.5 },
      mean       = { cycles_per_mac = 1.5 },
      pad        = { cycles_per_elem = 1 },
      concat     = { cycles_per_elem = 1 },
      reshape    = { cycles_per_elem = 0 },  -- an alias: no kernel, no copy
      transpose  = { cycles_per_elem = 4 },
      softmax    = { cycles_per_elem = by_arith(60, 20) },
      table      = { cycles_per_elem = by_arith(40, 3) },  -- logistic, relu, ...: a byte table
      quantize   = { cycles_per_elem = by_arith(8, 20) },
      dequantize = { cycles_per_elem = 8 },
      requantize = { cycles_per_elem = 8 },
      norm       = { cycles_per_elem = 12 },  -- QuantLib's integer layer / RMS norms
      gather     = { cycles_per_elem = 1 },
    },
  },

  engines = {
    vanilla = {
      memory = "L1",              -- everything: input tile, accumulators, weights
      startup = STARTUP,
      array = { rows = ROWS, cols = COLS },
      device = { HOST_RQ = HOST_RQ },   -- HTC_DEV_HOST_RQ in kernels/vanilla.c
      requant = { "shift", "quantlib" },  -- done by the host on the accumulators
      ops = {
        conv2d = {
          kernel = "kernels/vanilla.c", fn = "htc__van_conv",
          template = "templates/vanilla/conv2d.c.in",
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
