-- targets/cpus/rv32imc.lua: a small RV32IMC core (DIANA's RISC-V host class:
-- no SIMD, no hardware loops) running htc's own kernels: cycles per MAC or
-- element (common.lua says which) for the operations an accelerator chip's
-- host typically keeps.
--   local rv32 = include "cpus/rv32imc.lua"
--   cpu = rv32 { name = "riscv", memory = "L2", requant = { "tflite", "float", "fp32" } },
local common = include "common.lua"
local by_arith = common.by_arith

return common.cpu {
  isa = { "portable" },  -- no SIMD: the portable C paths only
  -- the MAC-bound layers
  conv2d = by_arith(9, 9, 6, 11), fc = 8, maxpool = 4, mean = 4,
  avgpool = function(op)    -- onnxruntime's windowed pool sums floats
              return (op.requant == "tflite" or op.global == 1) and 4 or 6 end,
  -- element-wise, by arithmetic
  add = by_arith(20, 40, 12), mul = by_arith(20, 30, 12), softmax = by_arith(100, 40),
  table = by_arith(60, 6),     -- logistic, relu, ...: a byte table
  quantize = by_arith(12, 30), dequantize = 12, requantize = 12,
  -- data movement (reshape: an alias, no kernel, no copy)
  pad = 2, concat = 2, transpose = 6, reshape = 0,
}
