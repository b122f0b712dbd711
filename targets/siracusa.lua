-- targets/siracusa.lua: Siracusa (PULP), the SoC of the Deeploy paper,
-- without its N-EUREKA engine: a fabric controller and a cluster of 8
-- RV32IMC cores (RI5CY class; XpulpV2 not used by these kernels) sharing a
-- 256 KiB L1 of 16 banks, a cluster DMA from the 2 MiB L2
-- (../shared/gvsoc.md). Every layer with a parallel kernel is divided over
-- the cluster's cores (htc.h HTC_PAR_RUN; examples/cluster binds it for host
-- threads); the header gives the same bytes for any core count. The costs
-- are cycles of one core (the estimate is the largest share plus a fork).

local KiB = 1024

local CORES = param "cores" { default = 8, min = 1, max = 8,
                              description = "cluster cores the layers are divided over" }
local CLOCK = param "clock_mhz" { default = 360, min = 1, max = 1000,
                                  description = "cluster clock in MHz (for the report's ms)" }
-- memory sizes are parameters (defaults: the chip's)
local L2_KIB = param "l2_kib" { default = 2048, min = 1, max = 1048576,
                                description = "L2 in KiB: the arena (every intermediate tensor)" }
local L1_KIB = param "l1_kib" { default = 256, min = 1, max = 1048576,
                                description = "the cluster's shared L1 (TCDM) in KiB" }

-- A cost by arithmetic: tflite (depthwise: tflite_dw), float/shift, fp32.
local function by_arith(tflite, float, fp32, tflite_dw)
  return function(op)
    if op.requant == "fp32" then return fp32 or float end
    if op.requant ~= "tflite" then return float end
    return (op.kind == "conv2d" and op.depthwise == 1) and tflite_dw or tflite
  end
end

return target "siracusa" {
  description = "Siracusa: fabric controller + 8-core RV32 cluster, 256 KiB L1 (16 banks), 2 MiB L2, cluster DMA",
  clock_mhz = CLOCK,

  memory = {
    L2 = { size = L2_KIB * KiB, alignment = 16 },
    -- the cluster's TCDM; the DMA figures are GVSoC's (16 KiB L2 -> L1 in
    -- 2,125 cycles: ~8 bytes per cycle)
    L1 = { size = L1_KIB * KiB, alignment = 16, dma = { bytes_per_cycle = 8, setup = 80 } },
  },

  cpu = {
    name = "cluster",
    memory = "L2",
    cores = CORES,
    l1 = "L1",
    fork = 200,                 -- cycles of one fork/join through the event unit
    -- convolutions and pools by output rows (pixels when pointwise), fully
    -- connected layers by output features unless there are many rows: the
    -- default (the split whose largest share is smallest) says the same
    requant = { "tflite", "float", "fp32", "quantlib" },
    ops = {
      conv2d     = { cycles_per_mac = by_arith(2.5, 3.0, 8, 4.0) },
      fc         = { cycles_per_mac = 3.0 },
      add        = { cycles_per_elem = by_arith(14, 30, 14) },
      mul        = { cycles_per_elem = by_arith(12, 14, 14) },
      avgpool    = { cycles_per_mac = 2 },
      maxpool    = { cycles_per_mac = 2 },
      mean       = { cycles_per_mac = 2 },
      pad        = { cycles_per_elem = 1 },
      concat     = { cycles_per_elem = 1 },
      reshape    = { cycles_per_elem = 0 },
      transpose  = { cycles_per_elem = 4 },
      softmax    = { cycles_per_elem = by_arith(60, 20) },
      table      = { cycles_per_elem = by_arith(40, 3) },
      quantize   = { cycles_per_elem = by_arith(8, 20) },
      dequantize = { cycles_per_elem = 8 },
      requantize = { cycles_per_elem = 8 },
      norm       = { cycles_per_elem = 12 },
      gather     = { cycles_per_elem = 1 },
    },
  },
}
