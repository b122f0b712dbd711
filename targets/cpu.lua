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

-- which fast paths the header keeps beside the portable C (the cpu's isa):
-- a header for one processor carries that processor's code only
local ISAS = { portable = { "portable" }, x86 = { "x86" }, ["arm-dsp"] = { "arm-dsp" }, mve = { "mve" },
               xpulpv2 = { "xpulpv2" }, all = { "x86", "arm-dsp", "mve", "xpulpv2" } }
local ISA = param "isa" { default = "portable", values = { "portable", "x86", "arm-dsp", "mve", "xpulpv2", "all" },
                          description = "fast paths beside the portable C: x86 (SSE2/AVX2), arm-dsp (Cortex-M4/M33), " ..
                                        "mve (Cortex-M55 Helium, with arm-dsp), xpulpv2 (PULP), all" }

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
    isa = ISAS[ISA],
    memory = "L2",
    energy = { pj_per_cycle = E.core_pj_per_cycle },
    requant = { "tflite", "float", "fp32", "quantlib" },  -- TFLite fixed-point multiplier + shift; onnxruntime float scale; QuantLib RequantShift
  },
}
