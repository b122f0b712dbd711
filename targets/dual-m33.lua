-- targets/dual-m33.lua: a dual-core Cortex-M33 MCU (RP2350 class: two M33s
-- at 150 MHz sharing 520 KiB of SRAM, the model's constants in flash).
-- Every layer whose kernel has a parallel entry point is divided over the
-- two cores (docs/targets.md, "Multi-core clusters"): the header's
-- HTC_PAR_RUN hook runs one share on each. examples/dual-m33 binds it on
-- both cores of qemu-system-arm -M mps2-an521 (a mailbox in the shared
-- SRAM, SEV / WFE) and counts each core's instructions:
--   htc compile kws.tflite -t targets/dual-m33.lua -o kws.h             (2 cores)
--   htc compile kws.tflite -t targets/dual-m33.lua -D cores=1 -o kws.h  (1 core)
local KiB = 1024
local CORES = param "cores" { default = 2, min = 1, max = 2,
                              description = "Cortex-M33 cores the layers are divided over" }
local SRAM_KIB = param "sram_kib" { default = 520, min = 1, max = 65536,
                                    description = "SRAM for the model's buffers, in KiB" }
local SPLIT = param "split" { default = "auto", values = { "auto", "rows", "channels" },
                              description = "how divided layers split: auto (the rule below), rows or channels" }

local m33 = include "cpus/cortex-m33.lua"

return target "dual-m33" {
  description = "two Cortex-M33 cores sharing SRAM (RP2350 class)",
  clock_mhz = 150,
  memory = {
    SRAM = { size = SRAM_KIB * KiB, alignment = 16 },
  },
  cpu = m33 {
    name = "cpu",
    memory = "SRAM",
    cores = CORES,
    -- one fork/join through a mailbox in SRAM: core 0 writes the layer's
    -- function and context and a generation, SEV; core 1 wakes from WFE,
    -- runs its share, posts the generation, SEV; core 0 waits in WFE.
    -- examples/dual-m33 on qemu: ~30 instructions on core 0 and ~15 on
    -- core 1 per fork (the rest is the wake-up latency of a real chip)
    fork = 60,
    -- Convolutions and pools by output rows (pixels for a pointwise
    -- convolution) whenever those divide evenly over the cores or give each
    -- core 8 or more: by channels each core walks every pixel, reading its
    -- input and computing its offsets again (the portable kernels on qemu:
    -- KWS's pointwise layers 1.68x faster on two cores by channels, 1.98x
    -- by pixels). The rest: htc's default (the split whose largest share is
    -- smallest), e.g. a 3x3 output's 3 rows go by channels.
    split = function(op)
      if SPLIT ~= "auto" then return SPLIT end
      if op.kind ~= "conv2d" and op.kind ~= "avgpool" and op.kind ~= "maxpool" then return nil end
      local pointwise = op.kind == "conv2d" and op.kernel_h == 1 and op.kernel_w == 1 and op.stride == 1
      local rows = pointwise and op.out_shape[2] * op.out_shape[3] or op.out_shape[2]
      if rows % CORES == 0 or rows >= 8 * CORES then return "rows" end
      return nil
    end,
    requant = { "tflite", "float", "fp32", "quantlib" },
  },
}
