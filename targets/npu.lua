-- targets/npu.lua: a small NPU-like accelerator next to a Cortex-M class
-- host. Its requantization unit implements TFLite's fixed-point
-- arithmetic (Q31 multiplier and shift per output channel, TFLite Micro's
-- rounding), so the int8 convolutions and fully connected layers of a
-- .tflite model run on it bit-exactly -- the most common real input.
--
-- Hardware (the device model kernels/npu.c reads every constant below
-- from the defines htc generates: this file is their one source):
--   a PE array of ROWS x COLS int8 MACs (output channels x input channels;
--   depthwise: channels on every PE), an activation SRAM, a weight SRAM
--   (weights, biases, multipliers, shifts), one DMA engine, no double
--   buffering (DMA and array take turns).
-- Parameters: htc targets targets/npu.lua lists them; set with -D, e.g.
--   htc run model.tflite -t targets/npu.lua -D pes=128 -D sram_kib=32 ...
local m4 = include "cpus/cortex-m4.lua"
local accel = include "parts/accel.lua"   -- the usual refusal checks
local E = include "parts/energy.lua"      -- energy figures and their sources
local PES = param "pes" { default = 64, values = { 64, 128 },
                          description = "int8 MACs per cycle: 8x8 or 16x8 PEs (output x input channels)" }
local SRAM_KIB = param "sram_kib" { default = 128, min = 4, max = 1024,
                                    description = "activation SRAM in KiB (input and output tiles)" }
local WSRAM_KIB = param "wsram_kib" { default = 64, min = 4, max = 1024,
                                      description = "weight SRAM in KiB (one K tile's weights, biases, multipliers)" }
-- memory sizes are parameters (-D l2_kib=4096 for a model whose arena needs more)
local L2_KIB = param "l2_kib" { default = 512, min = 1, max = 1048576,
                                description = "main RAM in KiB: the CPU's arena (every intermediate tensor)" }
local ROWS, COLS = PES // 8, 8
local STARTUP = 30

local DMA_BPC, DMA_SETUP = 8, 24

-- One tile on the array (the core adds `startup` per tile): conv2d one
-- output pixel and one tap per step, ROWS output and COLS input channels
-- at a time; depthwise ROWS * COLS channels at a time.
local function compute(t, op)
  if op.depthwise == 1 then
    return t.OY * t.OX * (op.kernel_h * op.kernel_w) * cdiv(t.K, ROWS * COLS)
  end
  return t.OY * t.OX * (op.kernel_h * op.kernel_w) * cdiv(t.K, ROWS) * cdiv(op.C, COLS)
end

-- DMA cycles of one tile: its input and its output, one transfer each (a
-- tile at a padded border moves fewer rows; the objective counts the most)
local function tile_dma(t) return 2 * DMA_SETUP + (t.l1_in + t.l1_out) / DMA_BPC end

-- DMA cycles of one K tile's weights, biases, multipliers and shifts:
-- four transfers
local function weight_dma(w_bytes) return 4 * DMA_SETUP + w_bytes / DMA_BPC end

-- The objective: the layer's modelled cycles, as the device model counts
-- them (DMA and array take turns): per K tile its weights, per tile
-- start-up, DMA and compute. cdiv(op.K, t.K) divides by a tile variable
-- (exact in the MILP).
local function layer_cycles(t, op, w_bytes)
  local tiles = cdiv(op.OY, t.OY) * cdiv(op.OX, t.OX)
  return cdiv(op.K, t.K) * (weight_dma(w_bytes) + tiles * (STARTUP + compute(t, op) + tile_dma(t)))
end

-- (the core sends only ops with TFLite's arithmetic: requant below)
local supported = { "int8_weights", "no_weight_zp", "batch1" }

return target "npu" {
  description = "NPU-like accelerator (TFLite requantization) + Cortex-M class host",
  clock_mhz = 200,

  memory = {
    L2 = { size = L2_KIB * KiB, alignment = 16, energy = { pj_per_byte = E.sram_pj_per_byte } },
    SRAM = { size = SRAM_KIB * KiB, alignment = 16, dma = { bytes_per_cycle = DMA_BPC, setup = DMA_SETUP }, energy = { pj_per_byte = E.sram_pj_per_byte } },
    WSRAM = { size = WSRAM_KIB * KiB, alignment = 16, dma = { bytes_per_cycle = DMA_BPC, setup = DMA_SETUP }, energy = { pj_per_byte = E.sram_pj_per_byte } },
  },

  -- the host: a Cortex-M4 class MCU (targets/cpus/cortex-m4.lua: htc's own kernels and their costs)
  cpu = m4 { name = "mcu", memory = "L2", requant = { "tflite", "float", "fp32" },
             energy = { pj_per_cycle = E.core_pj_per_cycle } },

  engines = {
    npu = {
      memory = "SRAM",            -- input and output tiles
      weights = "WSRAM",          -- weights, biases, multipliers, shifts of one K tile
      startup = STARTUP,          -- cycles to program and start the array
      array = { rows = ROWS, cols = COLS },
      energy = { pj_per_mac = E.int8_array_pj_per_mac },
      requant = { "tflite" },
      ops = {
        conv2d = {
          kernel = "kernels/npu.c", fn = "htc__npu_conv",
          template = "templates/npu/conv2d.c.in",
          macs_per_cycle = ROWS * COLS,
          accepts = accel.accepts { supported[1], supported[2], supported[3], "no_dilation",
            function(op)
              return op.groups == 1 or (op.depthwise == 1 and op.depth_multiplier == 1),
                     "grouped convolution (plain and depthwise only)"
            end,
          },
          tile = function(t, op)
            local w = t.w_bytes + 3 + 8 * t.K   -- + multipliers and shifts
            return {
              minimize = layer_cycles(t, op, w),
              cycles = compute(t, op),      -- the core adds the tile's DMA (its real, clipped bytes)
              w_dma_cycles = weight_dma(w),
              w_bytes = w,
              macs_per_cycle = op.depthwise == 1 and ROWS * COLS or nil,
            }
          end,
        },
        fc = {
          kernel = "kernels/npu.c", fn = "htc__npu_fc",
          template = "templates/npu/fc.c.in",
          macs_per_cycle = ROWS * COLS,
          accepts = accel.accepts(supported),
          tile = function(t, op)
            local w = t.w_bytes + 3 + 8 * t.K
            return {
              minimize = cdiv(op.K, t.K) * (weight_dma(w) + STARTUP + cdiv(t.K, ROWS) * cdiv(op.C, COLS)),
              cycles = cdiv(t.K, ROWS) * cdiv(op.C, COLS),
              w_dma_cycles = weight_dma(w),
              w_bytes = w,
            }
          end,
        },
      },
    },
  },
}
