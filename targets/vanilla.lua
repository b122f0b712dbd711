-- targets/vanilla.lua: a deliberately small UMA-style accelerator that only
-- does Conv2D + bias, next to a plain CPU. It shows what a new accelerator
-- takes: this file, templates/vanilla/conv2d.c.in and the device model
-- kernels/vanilla.c -- nothing in the compiler.
--
-- Unlike DIANA it has no weight memory (weights and biases share the one
-- 16 kB scratchpad with the activations), keeps int32 accumulators there
-- (4 bytes per output), no double buffering, stores tiles y-x-C, and leaves
-- requantisation to the host (exact power-of-two shifts only). Its tile
-- function therefore states its own scratchpad use (l1_bytes).

return target "vanilla" {
  description = "UMA-style vanilla accelerator: Conv2D + bias, 16 kB scratchpad",
  clock_mhz = 100,

  memory = {
    L2 = { size = 512 * KiB, alignment = 16 },
    L1 = { size = 16 * KiB, alignment = 4, dma = { bytes_per_cycle = 4, setup = 20 } },
  },

  cpu = {
    name = "cpu",
    memory = "L2",
    requant = { "tflite", "float" },
    ops = {
      conv2d     = { cycles_per_mac = 2.0 },
      dwconv2d   = { cycles_per_mac = 3.0 },
      fc         = { cycles_per_mac = 1.5 },
      add        = { cycles_per_elem = 12 },
      avgpool    = { cycles_per_mac = 1.5 },
      maxpool    = { cycles_per_mac = 1.5 },
      mean       = { cycles_per_mac = 1.5 },
      pad        = { cycles_per_elem = 1 },
      concat     = { cycles_per_elem = 1 },
      reshape    = { cycles_per_elem = 0 },
      softmax    = { cycles_per_elem = 60 },
      logistic   = { cycles_per_elem = 40 },
      quantize   = { cycles_per_elem = 8 },
      dequantize = { cycles_per_elem = 8 },
      requantize = { cycles_per_elem = 8 },
      qconv2d     = { cycles_per_mac = 2.5 },
      qfc         = { cycles_per_mac = 1.5 },
      qadd        = { cycles_per_elem = 30 },
      qgap        = { cycles_per_mac = 1.5 },
      lut         = { cycles_per_elem = 3 },
      qquantize   = { cycles_per_elem = 20 },
      qdequantize = { cycles_per_elem = 8 },
      transpose   = { cycles_per_elem = 4 },
      qmul        = { cycles_per_elem = 12 },
      qavgpool    = { cycles_per_mac = 3 },
      qsoftmax    = { cycles_per_elem = 20 },
      -- --float-fallback: QDQ groups onnxruntime leaves in float, in float
      fconv2d     = { cycles_per_mac = 6 },
      fadd        = { cycles_per_elem = 12 },
      fmul        = { cycles_per_elem = 12 },
    },
  },

  engines = {
    vanilla = {
      memory = "L1",              -- everything: input tile, accumulators, weights
      startup = 20,
      requant = { "shift" },      -- done by the host on the accumulators
      ops = {
        qconv2d = {
          kernel = "kernels/vanilla.c", fn = "htc__van_conv",
          template = "templates/vanilla/conv2d.c.in",
          macs_per_cycle = 64,    -- 8 output x 8 input channels
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
              cycles = 20 + t.OY * t.OX * (op.kernel_h * op.kernel_w) * cdiv(t.K, 8) * cdiv(op.C, 8)
                       + 6 * t.K * t.OY * t.OX,
            }
          end,
        },
      },
    },
  },
}
