-- targets/cpu.lua: the portable-C CPU target.
-- Every op runs on the host CPU with the int8 kernels in kernels/. An op of
-- a `cpu` table that names no `kernel`/`fn` runs htc's own kernel for it
-- (gen/target.c, cpu_kernels); the table lists the ops this CPU runs and
-- their costs: cycles on an in-order MCU without SIMD (Cortex-M4 class),
-- for the report's estimate. An entry may name another kernel and fn.

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
      conv2d     = { cycles_per_mac = 2.0 },
      dwconv2d   = { cycles_per_mac = 3.0 },
      fc         = { cycles_per_mac = 1.5 },
      add        = { cycles_per_elem = 12 },
      mul        = { cycles_per_elem = 10 },
      avgpool    = { cycles_per_mac = 1.5 },
      maxpool    = { cycles_per_mac = 1.5 },
      mean       = { cycles_per_mac = 1.5 },
      pad        = { cycles_per_elem = 1 },
      concat     = { cycles_per_elem = 1 },
      reshape    = { cycles_per_elem = 0 },  -- an alias: no kernel, no copy
      softmax    = { cycles_per_elem = 60 },
      logistic   = { cycles_per_elem = 40 },
      quantize   = { cycles_per_elem = 8 },
      dequantize = { cycles_per_elem = 8 },
      requantize = { cycles_per_elem = 8 },
      -- ONNX models: onnxruntime's arithmetic (float scale, round half to even)
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
}
