-- targets/parts/energy.lua: energy figures the bundled targets share
-- (gen/energy.c; docs/targets.md, "Energy"), each with where it comes from.
-- None of ../shared/seeds gives energy per operation (the Deeploy slides
-- give MicroLlama's 490 uJ a token on Siracusa, a whole-chip measure; the
-- HTVM paper cites DIANA's chip paper without its figures), so these come
-- from the chips' own papers or GVSoC, and where a target models no real
-- chip (npu, dla, vanilla, cpu) a figure of a comparable circuit stands in,
-- said as such. Every figure is a dynamic energy; static power is given
-- only where a source gives it (targets/siracusa.lua, GVSoC).
--   local E = include "parts/energy.lua"
local M = {}

-- An in-order RV32 MCU core, per busy cycle: GVSoC's RI5CY model of
-- Siracusa's cluster cores, 4.98 pJ an instruction (gvsoc-pulp c309b6c,
-- pulp/chips/siracusa/power_models/core/riscy.json, 25 C, 1.2 V), one
-- instruction a cycle. DIANA's host is such a core (22 nm, not 16 nm);
-- for a Cortex-M4 class host (targets/cpus/cortex-m4.lua) it stands in.
M.core_pj_per_cycle = 4.98

-- On-chip SRAM, per byte read or written: GVSoC's Siracusa L1 bank, 2.124
-- pJ a 32-bit access (power_models/l1/l1.json), a quarter a byte. Stands in
-- for every bundled target's on-chip SRAM (L1, L2, weight memories).
M.sram_pj_per_byte = 2.124280487 / 4

-- DIANA's digital accelerator (16x16 PEs, int8): 14 TOp/s/W peak at 8-bit
-- inputs, weights and outputs; DIANA's analog in-memory core: 600 TOp/s/W
-- peak (7-bit inputs, 1.5-bit weights, 6-bit outputs). Houshmand et al.,
-- "DIANA: An End-to-End Hybrid DIgital and ANAlog Neural Network SoC for
-- the Edge", IEEE JSSC 58(1), 2023 (abstract; 22 nm; the ISSCC 2022 paper
-- of ../shared/seeds/000's ref. [2]). 2 Op a MAC. The chip's end-to-end
-- figures are 7.02 (CIFAR-10) and 5.56 (ImageNet) TOp/s/W.
M.diana_digital_pj_per_mac = 2 / 14
M.diana_analog_pj_per_mac = 2 / 600

-- An int8 MAC array of the npu / dla / vanilla kind (no chip of their own):
-- DIANA's digital core stands in.
M.int8_array_pj_per_mac = M.diana_digital_pj_per_mac

return M
