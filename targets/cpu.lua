-- targets/cpu.lua: the portable-C CPU target.
-- Every op runs on the host CPU with the int8 kernels in kernels/. An op of
-- a `cpu` table that names no `kernel`/`fn` runs htc's own kernel for it
-- (gen/target.c, cpu_kernels); the table lists the ops this CPU runs and
-- their costs: cycles on an in-order MCU without SIMD (Cortex-M4 class),
-- for the report's estimate. An entry may name another kernel and fn.

local KiB = 1024
-- memory sizes are parameters (-D l2_kib=4096 for a model whose arena needs more)
local L2_KIB = param "l2_kib" { default = 512, min = 1, max = 1048576,
                                description = "main RAM in KiB: the CPU's arena (every intermediate tensor)" }

local m4 = include "cpus/cortex-m4.lua"   -- the CPU: its kernels and their costs
local E = include "parts/energy.lua"      -- energy figures and their sources (stand-ins)

return target "cpu" {
  description = "portable C99 kernels, any 32-bit MCU",
  clock_mhz = 100,

  memory = {
    -- main RAM: holds the arena with every intermediate tensor
    L2 = { size = L2_KIB * KiB, alignment = 16, energy = { pj_per_byte = E.sram_pj_per_byte } },
  },

  -- every op runs htc's own kernel for its operation and arithmetic; what
  -- each costs (Cortex-M4 class, no SIMD) is in targets/cpus/cortex-m4.lua
  cpu = m4 {
    name = "cpu",
    memory = "L2",
    energy = { pj_per_cycle = E.core_pj_per_cycle },
    requant = { "tflite", "float", "fp32", "quantlib" },  -- TFLite fixed-point multiplier + shift; onnxruntime float scale; QuantLib RequantShift
  },
}
