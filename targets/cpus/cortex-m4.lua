-- targets/cpus/cortex-m4.lua: a 32-bit in-order MCU core without SIMD
-- (Cortex-M4 class) running htc's own kernels: cycles per MAC or element of
-- each operation by arithmetic, for the report's estimate and cost-based
-- dispatch. Every operation htc has a kernel for is listed.
--   local m4 = include "cpus/cortex-m4.lua"
--   cpu = m4 { name = "cpu", memory = "L2", requant = { "tflite", "float", "fp32", "quantlib" } },
local common = include "common.lua"
local by_arith = common.by_arith

return common.cpu {
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
  sub        = { cycles_per_elem = 12 },
  squared_difference = { cycles_per_elem = 12 },
  maximum    = { cycles_per_elem = 2 },
  minimum    = { cycles_per_elem = 2 },
  prelu      = { cycles_per_elem = 10 },
  batch_matmul = { cycles_per_mac = 1.5 },
  transpose_conv = { cycles_per_mac = 2.0 },
  resize     = { cycles_per_elem = 6 },
  tile       = { cycles_per_elem = 1 },
  slice      = { cycles_per_elem = 2 },
  space_to_batch = { cycles_per_elem = 2 },
  batch_to_space = { cycles_per_elem = 2 },
  sum        = { cycles_per_mac = 1.5 },
  reduce_max = { cycles_per_mac = 1.0 },
  l2norm     = { cycles_per_mac = 3 },
  neg        = { cycles_per_elem = 1 },  -- float islands
  reduce_min = { cycles_per_mac = 1.0 },
  argmax     = { cycles_per_mac = 1.0 },
  argmin     = { cycles_per_mac = 1.0 },
  mirror_pad = { cycles_per_elem = 4 },
  lstm       = { cycles_per_mac = 2.0 },
  -- TFLite Micro parity (int8 graphs)
  compare    = { cycles_per_elem = 4 },
  logical    = { cycles_per_elem = 2 },
  select     = { cycles_per_elem = 3 },
  cast       = { cycles_per_elem = 2 },
  fill       = { cycles_per_elem = 1 },
  gather_nd  = { cycles_per_elem = 1 },
  update_slice = { cycles_per_elem = 1 },
  add_n      = { cycles_per_elem = 12 },
  div        = { cycles_per_elem = 40 },
  cumsum     = { cycles_per_elem = 12 },
  reduce_all = { cycles_per_mac = 1.0 },
  svdf       = { cycles_per_mac = 2.0 },
  log_softmax = { cycles_per_elem = 80 },
}
