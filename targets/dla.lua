-- targets/dla.lua: the deep learning accelerator of Sponner et al. (TVM
-- BYOC for a custom DLA ISA; ../shared/seeds/003, Table 2 and Fig. 4) next
-- to a host CPU. A coarse-grained ISA: OP_CONV / OP_CONV_RELU (Conv2D with
-- the requantization and the clamp in the instruction), OP_DEPTH_CONV,
-- OP_MAT_MUL, OP_DMA_READ / OP_DMA_WRITE; the layer's parameters sit in a
-- register file the CPU writes. Here the requantization is TFLite's
-- (Q31 multiplier and shift per output channel), so .tflite int8 models
-- -- and power-of-two ones, whose multipliers are 2^30 with a shift --
-- run on it bit-exactly. OP_POOL, OP_E_ADD and the activations run on the
-- CPU in this model (htc fuses ReLU into the convolution's clamp).
--
-- Hardware (kernels/dla.c reads every constant below from the HTC_DEV_*
-- defines htc writes; this file is their one source):
--   a vector ALU of `pes` int8 MACs that works either input-parallel (the
--   PEs split the input channels of one output channel) or output-parallel
--   (the PEs split the output channels, one input channel per step); one
--   device SRAM of `sram_kib` holding the layer's input and output tiles
--   and one K tile's weights, biases, multipliers and shifts; one DMA
--   engine; DMA and ALU take turns.
--   depthwise: none (on the CPU), conv (OP_CONV one filter at a time: one
--   PE busy, one instruction per channel) or native (OP_DEPTH_CONV: the
--   channels on the PEs).
--   tiling: "channels" splits only the output channels, as the paper's
--   runtime does; "any" lets htc split rows and columns too.
-- Parameters: htc targets targets/dla.lua; -D pes=128 -D sram_kib=1024 ...
local PES = param "pes" { default = 64, min = 32, max = 256,
                          description = "int8 MACs of the vector ALU" }
local SRAM_KIB = param "sram_kib" { default = 512, min = 32, max = 262144,
                                    description = "device SRAM in KiB (tiles and one K tile's weights together)" }
local PARALLEL = param "parallel" { default = "output", values = { "input", "output" },
                                    description = "what the PEs split: input or output channels" }
local DEPTHWISE = param "depthwise" { default = "native", values = { "none", "conv", "native" },
                                      description = "depthwise conv: on the CPU, as OP_CONV per filter, or OP_DEPTH_CONV" }
local TILING = param "tiling" { default = "channels", values = { "channels", "any" },
                                description = "tile splits: output channels only (the paper's runtime) or rows and columns too" }
-- memory sizes are parameters (-D l2_kib=4096 for a model whose arena needs more)
local L2_KIB = param "l2_kib" { default = 524288, min = 1, max = 1048576,
                                description = "main RAM in KiB: the CPU's arena (every intermediate tensor)" }
local SRAM = SRAM_KIB * KiB
local OUTPUT_PAR = PARALLEL == "output"
local STARTUP = 40          -- cycles to issue one instruction after its register file writes
local ISSUE = 16            -- depthwise as OP_CONV: reprogramming per filter
local DMA_BPC, DMA_SETUP = 8, 24

-- ALU steps of one tile (the core adds STARTUP per tile); each step is one
-- output pixel, one kernel tap and up to PES MACs
local function compute(t, op)
  local taps = t.OY * t.OX * (op.kernel_h * op.kernel_w)
  if op.depthwise == 1 then
    if DEPTHWISE == "conv" then return t.K * (ISSUE + taps) end
    return taps * cdiv(t.K, PES)
  end
  if OUTPUT_PAR then return taps * op.C * cdiv(t.K, PES) end
  return taps * t.K * cdiv(op.C, PES)
end

local function tile_dma(t) return 2 * DMA_SETUP + (t.l1_in + t.l1_out) / DMA_BPC end
-- one K tile's weights, biases and requantization registers: four
-- transfers (Q31 multipliers and shifts), three in power-of-two mode
local function weight_dma(w_bytes, op)
  return (op.requant == "shift" and 3 or 4) * DMA_SETUP + w_bytes / DMA_BPC
end

-- the K tile's weight SRAM bytes: weights and biases (the core's t.w_bytes)
-- and the requantization registers: multiplier and shift per channel, or
-- in power-of-two mode one shift per channel (or one for the layer)
local function w_total(t, op)
  if op.requant == "shift" then return t.w_bytes + 3 + (op.per_channel == 1 and 4 * t.K or 4) end
  return t.w_bytes + 3 + 8 * t.K
end

-- the layer's modelled cycles (the device model counts the same)
local function layer_cycles(t, op, w_bytes)
  local tiles = cdiv(op.OY, t.OY) * cdiv(op.OX, t.OX)
  return cdiv(op.K, t.K) * (weight_dma(w_bytes, op) + tiles * (STARTUP + compute(t, op) + tile_dma(t)))
end

local accel = include "parts/accel.lua"   -- the usual refusal checks
local supported = { "int8_weights", "no_weight_zp", "batch1" }

local m4 = include "cpus/cortex-m4.lua"   -- the host CPU
local E = include "parts/energy.lua"      -- energy figures and their sources

return target "dla" {
  description = "DLA of Sponner et al. (coarse-grained ISA, one device SRAM) + host CPU",
  clock_mhz = 200,

  memory = {
    L2 = { size = L2_KIB * KiB, alignment = 16, energy = { pj_per_byte = E.sram_pj_per_byte } },
    -- one SRAM: activations from its bottom, the K tile's weights from its
    -- top (two views, their sum bounded by the tile constraint below)
    SRAM = { size = SRAM, alignment = 16, dma = { bytes_per_cycle = DMA_BPC, setup = DMA_SETUP }, energy = { pj_per_byte = E.sram_pj_per_byte } },
    WSRAM = { size = SRAM, alignment = 16, dma = { bytes_per_cycle = DMA_BPC, setup = DMA_SETUP }, energy = { pj_per_byte = E.sram_pj_per_byte } },
  },

  -- the host: a Cortex-M4 class MCU (targets/cpus/cortex-m4.lua: htc's own kernels and their costs)
  cpu = m4 { name = "host", memory = "L2", requant = { "tflite", "float", "fp32" },
             energy = { pj_per_cycle = E.core_pj_per_cycle } },

  engines = {
    dla = {
      memory = "SRAM",
      energy = { pj_per_mac = E.int8_array_pj_per_mac },
      weights = "WSRAM",
      startup = STARTUP,
      requant = { "tflite" },
      device = { PES = PES, OUTPUT_PAR = OUTPUT_PAR and 1 or 0, DW_AS_CONV = DEPTHWISE == "conv" and 1 or 0,
                 ISSUE = ISSUE },
      ops = {
        conv2d = {
          kernel = "kernels/dla.c", fn = "htc__dla_conv",
          template = "templates/dla/conv2d.c.in",
          macs_per_cycle = PES,
          accepts = accel.accepts { supported[1], supported[2], supported[3], "no_dilation",
            function(op)
              if op.depthwise == 1 then
                if op.depth_multiplier ~= 1 then return false, "depth multiplier > 1" end
                if DEPTHWISE == "none" then return false, "depthwise runs on the CPU (depthwise=none)" end
              elseif op.groups ~= 1 then
                return false, "grouped convolution"
              end
              return true
            end,
          },
          tile = function(t, op)
            local w = w_total(t, op)
            local cons = { le(t.l1_bytes + w, SRAM) }
            if TILING == "channels" then
              cons[2] = eq(t.OY, op.OY)
              cons[3] = eq(t.OX, op.OX)
            end
            return {
              minimize = layer_cycles(t, op, w),
              cycles = compute(t, op),
              w_dma_cycles = weight_dma(w, op),
              w_bytes = w,
              constraints = cons,
              macs_per_cycle = (op.depthwise == 1 and DEPTHWISE == "conv") and 1 or nil,
            }
          end,
        },
        fc = {
          kernel = "kernels/dla.c", fn = "htc__dla_fc",
          template = "templates/dla/fc.c.in",
          macs_per_cycle = PES,
          accepts = accel.accepts(supported),
          tile = function(t, op)
            local w = w_total(t, op)
            local steps = OUTPUT_PAR and op.C * cdiv(t.K, PES) or t.K * cdiv(op.C, PES)
            return {
              minimize = cdiv(op.K, t.K) * (weight_dma(w, op) + STARTUP + steps),
              cycles = steps,
              w_dma_cycles = weight_dma(w, op),
              w_bytes = w,
              constraints = { le(t.l1_bytes + w, SRAM) },
            }
          end,
        },
      },
    },
  },
}
