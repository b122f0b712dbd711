-- targets/cpus/rv32imc.lua: a small RV32IMC core (DIANA's RISC-V host class:
-- no SIMD, no hardware loops) running htc's own kernels: cycles per MAC or
-- element for the operations an accelerator chip's host typically keeps.
--   local rv32 = include "cpus/rv32imc.lua"
--   cpu = rv32 { name = "riscv", memory = "L2", requant = { "tflite", "float", "fp32" } },
local common = include "common.lua"
local by_arith = common.by_arith

return common.cpu {
  conv2d     = { cycles_per_mac = by_arith(9, 9, 6, 11) },
  fc         = { cycles_per_mac = 8 },
  add        = { cycles_per_elem = by_arith(20, 40, 12) },
  mul        = { cycles_per_elem = by_arith(20, 30, 12) },
  avgpool    = { cycles_per_mac = function(op)    -- onnxruntime's windowed pool sums floats
                   return (op.requant == "tflite" or op.global == 1) and 4 or 6 end },
  maxpool    = { cycles_per_mac = 4 },
  mean       = { cycles_per_mac = 4 },
  pad        = { cycles_per_elem = 2 },
  concat     = { cycles_per_elem = 2 },
  reshape    = { cycles_per_elem = 0 },  -- an alias: no kernel, no copy
  transpose  = { cycles_per_elem = 6 },
  softmax    = { cycles_per_elem = by_arith(100, 40) },
  table      = { cycles_per_elem = by_arith(60, 6) },  -- logistic, relu, ...: a byte table
  quantize   = { cycles_per_elem = by_arith(12, 30) },
  dequantize = { cycles_per_elem = 12 },
  requantize = { cycles_per_elem = 12 },
}
