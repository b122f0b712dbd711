-- targets/cpus/cortex-m4.lua: a 32-bit in-order MCU core without SIMD
-- (Cortex-M4 class) running htc's own kernels: cycles per MAC or element of
-- each operation by arithmetic (common.lua says which the operation counts),
-- for the report's estimate and cost-based dispatch. Every operation htc
-- has a kernel for is listed.
--   local m4 = include "cpus/cortex-m4.lua"
--   cpu = m4 { name = "cpu", memory = "L2", requant = { "tflite", "float", "fp32", "quantlib" } },
local common = include "common.lua"
local by_arith = common.by_arith

return common.cpu {
  isa = { "arm-dsp" },   -- the DSP extension's paths (SMLAD: HTC__DSP) in its headers
  conv2d     = by_arith(2.0, 2.5, 6, 3.0),
  fc         = 1.5,
  add        = by_arith(12, 30, 12),
  mul        = by_arith(10, 12, 12),
  avgpool    = function(op)    -- onnxruntime's windowed pool sums floats
                 return (op.requant == "tflite" or op.global == 1) and 1.5 or 3 end,
  maxpool    = 1.5,
  mean       = 1.5,
  pad        = 1,
  concat     = 1,
  reshape    = 0,  -- an alias: no kernel, no copy
  transpose  = 4,
  softmax    = by_arith(60, 20),
  table      = by_arith(40, 3),  -- logistic, relu, ...: a byte table
  quantize   = by_arith(8, 20),
  dequantize = 8,
  requantize = 8,
  norm       = 12,  -- QuantLib's integer layer / RMS norms
  gather     = 1,
  sub        = 12,
  squared_difference = 12,
  maximum    = 2,
  minimum    = 2,
  prelu      = 10,
  batch_matmul = 1.5,
  transpose_conv = 2.0,
  resize     = 6,
  tile       = 1,
  slice      = 2,
  space_to_batch = 2,
  batch_to_space = 2,
  sum        = 1.5,
  reduce_max = 1.0,
  l2norm     = 3,
  neg        = 1,  -- float islands
  reduce_min = 1.0,
  argmax     = 1.0,
  argmin     = 1.0,
  mirror_pad = 4,
  lstm       = 2.0,
  -- TFLite Micro parity (int8 graphs)
  compare    = 4,
  logical    = 2,
  select     = 3,
  cast       = 2,
  fill       = 1,
  gather_nd  = 1,
  update_slice = 1,
  add_n      = 12,
  div        = 40,
  cumsum     = 12,
  reduce_all = 1.0,
  svdf       = 2.0,
  log_softmax = 80,
  -- TFLite Micro's signal library (audio front ends: custom Signal* operators)
  window     = 3,
  fft_autoscale = 4,
  rfft       = { cycles_per_mac = 6 },         -- per sample and radix stage
  energy     = 3,
  filter_bank = { cycles_per_mac = 6 },        -- two uint64 multiply-adds per weight
  filter_bank_sqrt = 120,
  spectral_subtraction = 20,
  pcan       = 40,
  filter_bank_log = 40,
  delay      = 2,
  overlap_add = 4,
  -- SSD post-processing (custom TFLite_Detection_PostProcess): float decoding and sorting, per output value
  detection_postprocess = 200,
}
