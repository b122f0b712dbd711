-- targets/cpu.lua: the portable-C CPU target.
-- Every op runs on the host CPU with the int8 kernels in kernels/; this is
-- also the fallback engine other targets copy. Costs are cycles on an
-- in-order MCU without SIMD (Cortex-M4 class), for the report's estimate.

local KiB = 1024

return target "cpu" {
  description = "portable C99 kernels, any 32-bit MCU",
  clock_mhz = 100,

  memory = {
    -- main RAM: holds the arena with every intermediate tensor
    L2 = { size = 512 * KiB, alignment = 16 },
  },

  cpu = {
    name = "cpu",
    memory = "L2",
    requant = { "tflite", "float" },  -- TFLite fixed-point multiplier + shift; onnxruntime float scale
    ops = {
      conv2d     = { kernel = "kernels/conv2d.c",   fn = "htc__conv2d_s8",   cycles_per_mac = 2.0 },
      dwconv2d   = { kernel = "kernels/dwconv2d.c", fn = "htc__dwconv2d_s8", cycles_per_mac = 3.0 },
      fc         = { kernel = "kernels/fc.c",       fn = "htc__fc_s8",       cycles_per_mac = 1.5 },
      add        = { kernel = "kernels/add.c",      fn = "htc__add_s8",      cycles_per_elem = 12 },
      mul        = { kernel = "kernels/mul.c",      fn = "htc__mul_s8",      cycles_per_elem = 10 },
      avgpool    = { kernel = "kernels/pool.c",     fn = "htc__avgpool_s8",  cycles_per_mac = 1.5 },
      maxpool    = { kernel = "kernels/pool.c",     fn = "htc__maxpool_s8",  cycles_per_mac = 1.5 },
      mean       = { kernel = "kernels/mean.c",     fn = "htc__mean_s8",     cycles_per_mac = 1.5 },
      pad        = { kernel = "kernels/pad.c",      fn = "htc__pad",         cycles_per_elem = 1 },
      concat     = { kernel = "kernels/concat.c",   fn = "htc__concat",      cycles_per_elem = 1 },
      reshape    = { cycles_per_elem = 0 },  -- an alias: no kernel, no copy
      softmax    = { kernel = "kernels/softmax.c",  fn = "htc__softmax_s8",  cycles_per_elem = 60 },
      logistic   = { kernel = "kernels/logistic.c", fn = "htc__logistic_s8", cycles_per_elem = 40 },
      quantize   = { kernel = "kernels/quantize.c", fn = "htc__quantize",    cycles_per_elem = 8 },
      dequantize = { kernel = "kernels/quantize.c", fn = "htc__dequantize",  cycles_per_elem = 8 },
      requantize = { kernel = "kernels/quantize.c", fn = "htc__requantize",  cycles_per_elem = 8 },
      -- ONNX models: onnxruntime's arithmetic (float scale, round half to even)
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
}
