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
      conv2d     = { kernel = "kernels/conv2d.c",   fn = "htc__conv2d_s8",   cycles_per_mac = 2.0 },
      dwconv2d   = { kernel = "kernels/dwconv2d.c", fn = "htc__dwconv2d_s8", cycles_per_mac = 3.0 },
      fc         = { kernel = "kernels/fc.c",       fn = "htc__fc_s8",       cycles_per_mac = 1.5 },
      add        = { kernel = "kernels/add.c",      fn = "htc__add_s8",      cycles_per_elem = 12 },
      avgpool    = { kernel = "kernels/pool.c",     fn = "htc__avgpool_s8",  cycles_per_mac = 1.5 },
      maxpool    = { kernel = "kernels/pool.c",     fn = "htc__maxpool_s8",  cycles_per_mac = 1.5 },
      mean       = { kernel = "kernels/mean.c",     fn = "htc__mean_s8",     cycles_per_mac = 1.5 },
      pad        = { kernel = "kernels/pad.c",      fn = "htc__pad",         cycles_per_elem = 1 },
      concat     = { kernel = "kernels/concat.c",   fn = "htc__concat",      cycles_per_elem = 1 },
      reshape    = { cycles_per_elem = 0 },
      softmax    = { kernel = "kernels/softmax.c",  fn = "htc__softmax_s8",  cycles_per_elem = 60 },
      logistic   = { kernel = "kernels/logistic.c", fn = "htc__logistic_s8", cycles_per_elem = 40 },
      quantize   = { kernel = "kernels/quantize.c", fn = "htc__quantize",    cycles_per_elem = 8 },
      dequantize = { kernel = "kernels/quantize.c", fn = "htc__dequantize",  cycles_per_elem = 8 },
      requantize = { kernel = "kernels/quantize.c", fn = "htc__requantize",  cycles_per_elem = 8 },
      qconv2d     = { kernel = "kernels/ort_conv.c",    fn = "htc__qconv2d",           cycles_per_mac = 2.5 },
      qfc         = { kernel = "kernels/ort_conv.c",    fn = "htc__qfc",               cycles_per_mac = 1.5 },
      qadd        = { kernel = "kernels/ort_eltwise.c", fn = "htc__qadd_s8",           cycles_per_elem = 30 },
      qgap        = { kernel = "kernels/ort_eltwise.c", fn = "htc__qgap_s8",           cycles_per_mac = 1.5 },
      lut         = { kernel = "kernels/ort_eltwise.c", fn = "htc__lut8",              cycles_per_elem = 3 },
      qquantize   = { kernel = "kernels/ort_eltwise.c", fn = "htc__qlinear_quantize",  cycles_per_elem = 20 },
      qdequantize = { kernel = "kernels/ort_eltwise.c", fn = "htc__qlinear_dequantize", cycles_per_elem = 8 },
      transpose   = { kernel = "kernels/transpose.c",   fn = "htc__transpose",         cycles_per_elem = 4 },
      qmul        = { kernel = "kernels/ort_eltwise.c", fn = "htc__qmul_s8",           cycles_per_elem = 12 },
      qavgpool    = { kernel = "kernels/ort_eltwise.c", fn = "htc__qavgpool_s8",       cycles_per_mac = 3 },
      qsoftmax    = { kernel = "kernels/ort_eltwise.c", fn = "htc__qsoftmax_s8",       cycles_per_elem = 20 },
      -- --float-fallback: QDQ groups onnxruntime leaves in float, in float
      fconv2d     = { kernel = "kernels/ort_float.c",   fn = "htc__fconv2d",           cycles_per_mac = 6 },
      fadd        = { kernel = "kernels/ort_float.c",   fn = "htc__fadd",              cycles_per_elem = 12 },
      fmul        = { kernel = "kernels/ort_float.c",   fn = "htc__fmul",              cycles_per_elem = 12 },
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
