-- targets/diana.lua: the DIANA SoC (ISSCC'22, HTVM paper) with its digital
-- accelerator. RISC-V host at 260 MHz; a 16x16 PE array doing 256 int8
-- MACs per cycle (Conv2D: K on the rows, OX on the columns; FC: C x K;
-- depthwise on one PE row, 3.75 MACs/cycle), power-of-two shift
-- requantisation and ReLU at its output; activations in a 256 kB L1 shared
-- with the analog core, weights in a 64 kB weight memory, DMA from the
-- 512 kB L2 in C-y-x layout. The device model is kernels/diana.c.

-- Tiling heuristics of the HTVM paper (eq. 1-5), maximised by the tiler:
--   eq. 1  alpha * (L1 bytes used)             memory utilisation
--   eq. 3  (rows_t - 1) % 16                   PE rows busy
--   eq. 4  (cols_t - 1) % 16                   PE columns busy
--   eq. 5  iy_t                                long contiguous DMA rows, few halos
-- On this array Conv2D puts K on the rows and OX on the columns (FC: C x K),
-- so eq. 3-4 are written over those tile sizes (the paper's C_t and ix_t
-- are its array's mapping). Weights: the PE terms count 4 per unit; the
-- memory term (alpha = 2 / L1 size, at most 2) and the DMA term (iy_t over
-- the input height, at most 1) are tie-breakers among tilings that keep
-- the array busy -- never a reason to starve it (with a raw iy_t and
-- alpha = 1e-3, eq. 3-5 chose OX = 1 tiles at small budgets and lost to no
-- heuristics). bench/bench_diana.py: never worse than eq. 1 alone, up to
-- 4.6x fewer cycles at a 4 kB L1 (conv 32->64, 32x32, 3x3).
local HEURISTICS = param "heuristics" { default = "3-5", values = { "none", "3-4", "3-5" },
                                        description = "tiling objective: HTVM eq. 1 only, + eq. 3-4, + eq. 3-5" }
local L1_SIZE = param "l1_kib" { default = 256, min = 1, max = 256,
                                 description = "L1 (activation memory) in KiB, shared with the analog core" } * KiB

local function objective(t, op, rows, cols)
  local obj = 2 * t.l1_bytes / L1_SIZE                   -- eq. 1, in [0, 2]
  if HEURISTICS ~= "none" and rows then
    obj = obj + 4 * ((rows - 1) % 16 + (cols - 1) % 16)  -- eq. 3, 4
  end
  if HEURISTICS == "3-5" then obj = obj + t.IY / op.IY end       -- eq. 5, in (0, 1]
  return obj
end

-- the hardware (the device model kernels/diana.c gets these through the
-- array, startup, memory and device fields: this file is their one source)
local ROWS, COLS = 16, 16       -- PE array
local DW_MACS_X4 = 15           -- depthwise: 3.75 MACs per cycle on one PE row
local LANES = 16                -- element-wise add and pool lanes
local STARTUP = 50              -- cycles to program and start the array

local function kernel_ok(k) return k == 1 or k == 3 or k == 5 or k == 7 end

-- A cost by arithmetic: tflite (depthwise: tflite_dw), float/shift, fp32.
local function by_arith(tflite, float, fp32, tflite_dw)
  return function(op)
    if op.requant == "fp32" then return fp32 or float end
    if op.requant ~= "tflite" then return float end
    return (op.kind == "conv2d" and op.depthwise == 1) and tflite_dw or tflite
  end
end

return target "diana" {
  description = "DIANA SoC: RISC-V host + 16x16 PE digital accelerator",
  clock_mhz = 260,

  memory = {
    L2 = { size = 512 * KiB, alignment = 16 },
    L1 = { size = L1_SIZE, alignment = 16, dma = { bytes_per_cycle = 8, setup = 40 } },
    WD = { size = 64 * KiB, alignment = 16, dma = { bytes_per_cycle = 8, setup = 40 } },
  },

  -- the RISC-V host runs what the accelerator cannot (cycles per MAC or
  -- element of the portable kernels, RV32IMC without SIMD)
  cpu = {
    name = "riscv",
    memory = "L2",
    requant = { "tflite", "float", "fp32" },
    ops = {
      -- one entry per operation; what it costs depends on the arithmetic
      -- (kernels differ): TFLite's fixed point, onnxruntime's float scale
      -- ("float", or "shift" when that is exactly a power of two) and the
      -- float groups of --float-fallback ("fp32")
      conv2d     = { cycles_per_mac = by_arith(9, 9, 6, 11) },
      fc         = { cycles_per_mac = 8 },
      add        = { cycles_per_elem = by_arith(20, 40, 12) },
      mul        = { cycles_per_elem = by_arith(20, 30, 12) },
      avgpool    = { cycles_per_mac = function(op)    -- onnxruntime's windowed pool sums floats
                       return (op.requant == "tflite" or op.global == 1) and 4 or 6 end },
      maxpool    = { cycles_per_mac = 4 },
      mean       = { cycles_per_mac = 4 },
      pad        = { cycles_per_elem = 2 },
      concat     = { cycles_per_elem = 2 },
      reshape    = { cycles_per_elem = 0 },  -- an alias: no kernel, no copy
      transpose  = { cycles_per_elem = 6 },
      softmax    = { cycles_per_elem = by_arith(100, 40) },
      table      = { cycles_per_elem = by_arith(60, 6) },  -- logistic, relu, ...: a byte table
      quantize   = { cycles_per_elem = by_arith(12, 30) },
      dequantize = { cycles_per_elem = 12 },
      requantize = { cycles_per_elem = 12 },
    },
  },

  engines = {
    digital = {
      memory = "L1",            -- activations (input and output tiles)
      weights = "WD",           -- weights and biases
      startup = STARTUP,        -- cycles to program and start the array
      array = { rows = ROWS, cols = COLS },   -- K (conv) or C (fc) on the rows, OX or K on the columns
      -- the device model's other constants (HTC_DEV_<NAME> in kernels/diana.c)
      device = { DW_MACS_X4 = DW_MACS_X4, ADD_LANES = LANES, ISSUE = 10 },
      -- power-of-two shift (conv, FC, add), rounded half to even
      -- (onnxruntime's float scale 2^-s) or as TFLite rounds a multiplier
      -- of 2^30 (.tflite models whose scales are powers of two)
      requant = { "shift", "shift:tflite" },
      ops = {
        conv2d = {
          kernel = "kernels/diana.c", fn = "htc__dev_conv",
          template = "templates/diana/conv2d.c.in",
          macs_per_cycle = 256,   -- depthwise: 3.75, stated by the tile function
          double_buffer = true,
          accepts = function(op)
            if op.weight_bits ~= 8 then return false, "weights are not int8" end
            if op.dilation ~= 1 then return false, "dilation > 1" end
            if op.stride > 2 then return false, "stride > 2" end
            if not kernel_ok(op.kernel_h) or not kernel_ok(op.kernel_w) then
              return false, ("kernel %dx%d (accepts 1, 3, 5, 7)"):format(op.kernel_h, op.kernel_w)
            end
            if op.groups ~= 1 and (op.depthwise == 0 or op.depth_multiplier ~= 1) then
              return false, "grouped, not depthwise"
            end
            if op.weight_zp ~= 0 then return false, "weight zero point" end
            if op.int32_out ~= 0 then return false, "int32 output" end
            if op.batches ~= 1 then return false, "batch > 1" end
            return true
          end,
          tile = function(t, op)
            local work
            if op.depthwise == 1 then
              work = t.K * t.OY * t.OX * (op.kernel_h * op.kernel_w) * 4 / DW_MACS_X4
            else
              work = t.OY * cdiv(t.OX, COLS) * cdiv(t.K, ROWS) * (op.C * op.kernel_h * op.kernel_w)
            end
            if op.depthwise == 1 then     -- one PE row: no array to fill
              return { maximize = objective(t, op), cycles = STARTUP + work, macs_per_cycle = DW_MACS_X4 / 4 }
            end
            return { maximize = objective(t, op, t.K, t.OX), cycles = 50 + work }
          end,
        },
        fc = {
          kernel = "kernels/diana.c", fn = "htc__dev_fc",
          template = "templates/diana/fc.c.in",
          macs_per_cycle = 256,
          double_buffer = true,
          accepts = function(op)
            if op.batches ~= 1 then return false, "batch > 1" end
            if op.weight_zp ~= 0 then return false, "weight zero point" end
            if op.int32_out ~= 0 then return false, "int32 output" end
            if op.weight_batches ~= 1 then return false, "batched weights" end
            return true
          end,
          tile = function(t, op)
            return { maximize = objective(t, op, t.C, t.K), cycles = STARTUP + cdiv(t.C, ROWS) * cdiv(t.K, COLS) }
          end,
        },
        add = {
          kernel = "kernels/diana.c", fn = "htc__dev_add",
          template = "templates/diana/add.c.in",
          double_buffer = true,
          accepts = function(op)
            if op.broadcast ~= 0 then return false, "broadcast operand" end
            return true
          end,
          tile = function(t, op)
            return { maximize = t.l1_bytes / L1_SIZE + t.OY, cycles = STARTUP + cdiv(t.C * t.OY * t.OX, LANES) }
          end,
        },
        -- global average pool: tiles over C (and output rows), the whole
        -- window in L1; 16 channel lanes, one window element per cycle
        avgpool = {
          -- the pool unit applies onnxruntime's float scale of the average
          -- (1 / window is rarely a power of two)
          requant = { "float" },
          kernel = "kernels/diana.c", fn = "htc__dev_pool",
          template = "templates/diana/pool.c.in",
          macs_per_cycle = LANES,
          double_buffer = true,
          accepts = function(op)
            if op.global ~= 1 then return false, "not a global average pool" end
            if op.in_shape[1] ~= 1 then return false, "batch > 1" end
            if #op.in_shape ~= 4 then return false, "input rank is not 4" end
            return true
          end,
          tile = function(t, op)
            local l1 = (t.C * t.IY * t.IX + t.C * t.OY) * (2)
            return { maximize = 2 * l1 / L1_SIZE, l1_bytes = l1, w_bytes = 20,
                     cycles = STARTUP + cdiv(t.C, LANES) * (op.IY * op.IX) }
          end,
        },
      },
    },
  },
}
