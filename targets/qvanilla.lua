-- targets/qvanilla.lua: MLonMCU's "QVanilla" experiment (TVM UMA): the
-- vanilla Conv2D + bias unit of targets/vanilla.lua (same memories,
-- parameters and device model, kernels/vanilla.c: int32 accumulators in a
-- 16 kB scratchpad) with the host requantizing its accumulators with
-- TFLite's fixed-point multipliers and shifts, so the .tflite MLPerf Tiny
-- models offload their plain convolutions bit-exactly (bench/bench_uma.py).
-- The template brackets the accelerator's own work (DMA loads and the
-- array) with HTC_ACCEL_BEGIN() / HTC_ACCEL_END(), which a firmware may
-- define to leave it out of an instruction count, as MLonMCU's ETISS
-- plugin does.

local t = include "vanilla.lua"     -- this file is vanilla.lua with three changes:

t.name = "qvanilla"
t.description = "QVanilla (MLonMCU / UMA): Conv2D + bias, 16 kB scratchpad, TFLite requantization on the host"
t.cpu.requant = { "tflite", "float", "fp32" }
-- the host requantizes the accumulators as TFLite does (its template)
t.engines.vanilla.requant = { "tflite" }
t.engines.vanilla.ops.conv2d.template = "templates/qvanilla/conv2d.c.in"

return t
