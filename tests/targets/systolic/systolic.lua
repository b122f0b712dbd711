-- tests/targets/systolic/systolic.lua: a test target for a DIM x DIM
-- weight-stationary systolic array next to a Cortex-M class host, with
-- the tile buffers in two local memories and C tiled where they force it:
--   SP   scratchpad (sp_kib): the input tile, the weight tile and the
--        output channels' multipliers and shifts;
--   ACC  accumulator (acc_kib): the int32 partial sums of one output tile.
-- The weights are stored HWIO ([kh][kw][C][K]) and the biases with the
-- input zero point folded in (b - in_zp * sum w), both computed once at
-- compile time by `constants`: the host regathers and refolds nothing at
-- run time. K tiles are at least DIM channels wide (the array's columns),
-- so ResNet's 3x3 64->64 layers and AD's 640-wide FC do not fit the
-- scratchpad with C whole: their C is tiled, the partial sums stay in ACC
-- and the last C tile requantizes (TFLite's arithmetic).
-- Device model: systolic.c (every hardware constant from this file).
-- tests/test_systolic.py runs the four MLPerf Tiny models through
-- `htc verify`, bit-exact on every layer.
local m4 = include "cpus/cortex-m4.lua"
local DIM = param "dim" { default = 8, values = { 4, 8, 16 }, description = "the array: DIM x DIM int8 MACs" }
local SP_KIB = param "sp_kib" { default = 4, min = 1, max = 1024, description = "scratchpad in KiB" }
local ACC_KIB = param "acc_kib" { default = 8, min = 1, max = 1024, description = "accumulator in KiB (int32)" }
local STARTUP = 16
local SP_BPC, SP_SETUP = 8, 20         -- DMA L2 <-> scratchpad
local ACC_BPC, ACC_SETUP = 16, 10      -- bias in, mvout (requantize) out

-- the layer's cycles as the device model counts them (the objective):
-- per K tile its multipliers and shifts; per output tile and C tile the
-- input channels in and a job on the array; the weights once per K tile
-- when C is whole, else per output tile and C tile; per output tile the
-- bias in and the requantized output out
local function layer_cycles(t, op, taps)
  local nk, nsp, nc = cdiv(op.K, t.K), cdiv(op.OY, t.OY) * cdiv(op.OX, t.OX), cdiv(op.C, t.C)
  local job = STARTUP + taps * cdiv(t.C, DIM) * cdiv(t.K, DIM) * (t.OY * t.OX + DIM)
  local input = SP_SETUP + t.l1_in / SP_BPC
  local weights = SP_SETUP + taps * t.C * t.K / SP_BPC
  local out = 2 * ACC_SETUP + (t.K * t.OY * t.OX + 4 * t.K) / ACC_BPC
  local loads = 1 + (nsp - 1) * min(1, nc - 1)       -- weight loads per K tile
  return nk * (2 * (SP_SETUP + 4 * t.K / SP_BPC) + loads * weights + nsp * (nc * (job + input) + out))
end

local function tile(taps)
  return function(t, op)
    return {
      minimize = layer_cycles(t, op, taps(op)),
      cycles = STARTUP + taps(op) * cdiv(t.C, DIM) * cdiv(t.K, DIM) * (t.OY * t.OX + DIM),
      w_bytes = t.w_bytes + 8 * t.K,              -- + the multipliers and shifts
      w_dma_cycles = SP_SETUP + taps(op) * t.C * t.K / SP_BPC,   -- the weights (the rest once per K tile)
      out_bytes = 4 * t.K * t.OY * t.OX,          -- int32 partial sums
      -- whole output rows (one DMA row per input row), K tiles as wide as the array
      constraints = { eq(t.OX, op.OX), ge(t.K, min(DIM, op.K)) },
    }
  end
end

-- HWIO weights and the folded biases, once at compile time
local function constants(op, d)
  local w, b = {}, {}
  for y = 0, d.KH - 1 do
    for x = 0, d.KW - 1 do
      for c = 0, d.C - 1 do
        local base = ((y * d.KW + x) * d.C + c) * d.K
        for k = 0, d.K - 1 do w[base + k + 1] = d.w(k, c, y, x) end
      end
    end
  end
  for k = 0, d.K - 1 do
    local sum = 0
    for y = 0, d.KH - 1 do
      for x = 0, d.KW - 1 do
        for c = 0, d.C - 1 do sum = sum + d.w(k, c, y, x) end
      end
    end
    b[k + 1] = d.bias(k) - op.in_zp * sum
  end
  return { w = { type = "int8", values = w }, b = { type = "int32", values = b } }
end

local function plain(op)
  if op.weight_bits ~= 8 or op.weight_zp ~= 0 then return false, "weights are not int8 without zero point" end
  if op.batches ~= 1 or op.int32_out ~= 0 then return false, "batch > 1 or int32 output" end
  return true
end

return target "systolic" {
  description = "test: DIM x DIM weight-stationary systolic array, scratchpad + int32 accumulator, HWIO weights",
  clock_mhz = 200,
  memory = {
    L2 = { size = 512 * KiB, alignment = 16 },
    SP = { size = SP_KIB * KiB, alignment = 16, dma = { bytes_per_cycle = SP_BPC, setup = SP_SETUP } },
    ACC = { size = ACC_KIB * KiB, alignment = 16, dma = { bytes_per_cycle = ACC_BPC, setup = ACC_SETUP } },
  },
  cpu = m4 { name = "mcu", memory = "L2", requant = { "tflite" } },
  engines = {
    sa = {
      memory = "SP", weights = "SP", outputs = "ACC",
      startup = STARTUP,
      array = { rows = DIM, cols = DIM },
      requant = { "tflite" },
      ops = {
        conv2d = {
          kernel = "systolic.c", fn = "htc__sa_compute", template = "layer.c.in",
          macs_per_cycle = DIM * DIM, partial_sums = true,
          accepts = function(op)
            local ok, why = plain(op)
            if not ok then return false, why end
            if op.groups ~= 1 then return false, "grouped or depthwise (the array reduces over C)" end
            if op.dilation ~= 1 then return false, "dilation > 1" end
            return true
          end,
          tile = tile(function(op) return op.kernel_h * op.kernel_w end),
          constants = constants,
        },
        fc = {
          kernel = "systolic.c", fn = "htc__sa_compute", template = "layer.c.in",
          macs_per_cycle = DIM * DIM, partial_sums = true,
          accepts = function(op)
            local ok, why = plain(op)
            if not ok then return false, why end
            if op.weight_batches ~= 1 then return false, "batched weights" end
            return true
          end,
          tile = tile(function() return 1 end),
          constants = constants,
        },
      },
    },
  },
}
