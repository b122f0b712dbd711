-- targets/diana.lua: the DIANA SoC (ISSCC'22, HTVM paper) with its digital and analog
-- accelerators (the analog one: below, ANA_*). RISC-V host at 260 MHz; a 16x16 PE array doing 256 int8
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
local rv32 = include "cpus/rv32imc.lua"
local xpulpv2 = include "cpus/xpulpv2.lua"
local HOST = param "host" { default = "xpulpv2", values = { "xpulpv2", "rv32imc" },
                            description = "host core's kernels and cost model: XpulpV2 (-DHTC_XPULPV2 in the firmware) or portable RV32IMC" }
local accel = include "parts/accel.lua"   -- the usual refusal checks
local E = include "parts/energy.lua"      -- energy figures and their sources (DIANA's: JSSC 2023)
local HEURISTICS = param "heuristics" { default = "3-5", values = { "none", "3-4", "3-5" },
                                        description = "tiling objective: HTVM eq. 1 only, + eq. 3-4, + eq. 3-5" }
local L1_SIZE = param "l1_kib" { default = 256, min = 1, max = 256,
                                 description = "L1 (activation memory) in KiB, shared with the analog core" } * KiB

-- memory sizes are parameters (-D l2_kib=4096 for a model whose arena needs more)
local L2_KIB = param "l2_kib" { default = 512, min = 1, max = 1048576,
                                description = "main RAM in KiB: the CPU's arena (every intermediate tensor)" }
local WD_KIB = param "wd_kib" { default = 64, min = 1, max = 1024,
                               description = "digital accelerator's weight memory (WD) in KiB" }

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

-- The analog in-memory-compute core (HTVM paper sec. IV; DIANA ISSCC'22):
--   ANA_ROWS x ANA_COLS = 1152 x 512 ternary SRAM cells      paper, sec. IV
--   7-bit inputs, ternary weights (-1, 0, +1)                  paper, sec. IV
--   144 kB weight memory = 1152 * 512 cells at 2 bits          paper, sec. IV
--   one array activation (all 1152 x 512 MACs) per cycle       paper: "500k MAC/cycle"
--   ANA_PROG_ROWS = 1 array row programmed per cycle           assumption (not in the paper)
--   ANA_STARTUP = 50 cycles, as the digital core's STARTUP     assumption
--   weight DMA at the L2 DMA's 8 B/cycle = 32 cells/cycle      L2 DMA rate (below) at 2 bits/cell
-- The device model keeps one byte per cell (WA counts cells, plus the
-- int32 biases of 512 columns), so the weights of an RV32 build take 4x the
-- silicon's L2 bytes (not packed to 2 bits: stated in bench_diana.py).
-- 8-bit activations: u = x + 128 split into its low 7 bits and its top bit,
-- two array activations per output pixel (one when no input of the tile
-- has the top bit), recombined exactly at the output (kernels/diana.c,
-- htc__dev_aconv): bit-exact, never clipped.
-- Layers larger than the array: K is tiled over the 512 columns (the
-- tiler, t.K <= ANA_COLS); C*kh*kw over 1152 rows runs in
-- ceil(rows / 1152) passes over the same input tile, the array
-- reprogrammed from the weight memory for each pass (which holds every row
-- of the K tile: the tiler keeps K tile x rows within it). Hardware
-- assumption (not in the paper): the output unit adds each pass's raw int32
-- sums to accumulators it keeps in L1 (4 bytes per output of the tile,
-- counted in l1_bytes) and applies the shift requantisation once, after the
-- last pass -- the integer sum is the same, so the result is bit-exact. The
-- cost: per tile and pass a startup, one or two activations per pixel, and
-- the pass's rows programmed (ANA_PROG_ROWS per cycle).
-- The array's size is a parameter for what-if studies and for tests that
-- need many row passes and column (K) tiles from small layers; the weight
-- memory follows it (one array's cells plus the int32 biases of its columns).
local ANA_ROWS = param "ana_rows" { default = 1152, min = 16, max = 1152,
                                    description = "analog array rows (C*kh*kw per pass); DIANA: 1152" }
local ANA_COLS = param "ana_cols" { default = 512, min = 1, max = 512,
                                    description = "analog array columns (output channels per K tile); DIANA: 512" }
local ANA_STARTUP, ANA_PROG_ROWS, ANA_W_BPC = 50, 1, 32

-- which accelerators exist (Table I's configurations) and how a layer both
-- accept is given to one of them
local ENGINES = param "engines" { default = "both", values = { "both", "digital", "analog", "none" },
                                  description = "accelerators in use: Table I's CPU + digital / analog / both / CPU only" }
-- "mixed" is the HTVM paper's mixed configuration (sec. V): "the first and
-- last accelerator-eligible layers and all DWConv2D layers are executed
-- digitally, remaining Conv2D's are executed on the analog core" (FC counts
-- as a Conv2D, as the analog core maps it). "Eligible" is htc's generic
-- op.eligible_index / op.eligible_count: the conv2d/fc layers some
-- accelerator accepts, numbered in execution order. A layer the preferred
-- core refuses goes to the other one (the reason says so).
local DISPATCH = param "dispatch" { default = "cost", values = { "cost", "bits", "mixed" },
                                    description = "cost: fewer estimated cycles (incl. weight loading); bits: HTVM's rule, ternary weights to analog, 8-bit to digital; mixed: the paper's mixed configuration, first/last eligible layers and depthwise on digital, other Conv2D/FC on analog" }
local use_digital = ENGINES == "both" or ENGINES == "digital"
-- HTVM runs average pooling with TVM on the RISC-V (its Table I networks,
-- bench/bench_diana.py htvm): -D pool=cpu keeps it there
local POOL = param "pool" { default = "digital", values = { "digital", "cpu" },
                            description = "global average pool: on the digital core, or on the CPU as HTVM runs it" }
local use_analog = ENGINES == "both" or ENGINES == "analog"
-- a core not in use refuses every op (the first check of its accepts)
local function digital_on() return use_digital, "not in use (engines=" .. ENGINES .. ")" end
local function analog_on() return use_analog, "not in use (engines=" .. ENGINES .. ")" end

-- The digital core's kernel sizes: 1, 3, 5, 7 (HTVM's pattern rule; its
-- authors' commit 46d6d80, Jan 2023: "Supported conv2d kernels are actually
-- based on a combination of kernel and padding size, such that the output
-- feature map is the same. Other combinations are not supported in
-- hardware."). So DS-CNN's 10x4 input layer stays on the CPU (or analog
-- when ternary): it cannot be split into supported kernels either, as the
-- digital core writes requantized int8, never the int32 partial sums two
-- sub-kernels would have to add. (The check was off in HTVM from Nov 2022,
-- commit 95081dd, to Jan 2023: Table I's DS-CNN digital latency implies the
-- layer was offloaded then.) htc does not enforce the "same" padding part:
-- the device model pads any border exactly.
local function kernel_ok(k) return k == 1 or k == 3 or k == 5 or k == 7 end


-- Which core runs a layer (-D dispatch); cost: the estimated cycles of a
-- conv on each core (weights loaded once, no tiling overheads). The reason
-- lands in the report.
local function choose(op, cand)
  local has = {}
  for _, n in ipairs(cand) do has[n] = true end
  if DISPATCH == "mixed" and (has.digital or has.analog) then
    local want, why
    if op.kind == "conv2d" and op.depthwise == 1 then
      want, why = "digital", "depthwise"
    elseif op.eligible_index == 1 or op.eligible_index == op.eligible_count then
      want, why = "digital", ("%s eligible layer (%d of %d)"):format(op.eligible_index == 1 and "first" or "last",
                                                                     op.eligible_index, op.eligible_count)
    elseif op.eligible_index > 0 then
      want, why = "analog", ("eligible layer %d of %d, not first or last"):format(op.eligible_index, op.eligible_count)
    else
      want, why = "digital", "not a Conv2D/FC layer"
    end
    if has[want] then return want, ("mixed: %s -> %s"):format(why, want) end
    local other = want == "digital" and "analog" or "digital"
    return other, ("mixed: %s -> %s, which does not accept it; %s does"):format(why, want, other)
  end
  if not (has.digital and has.analog) then
    return cand[1], cand[1] == "riscv" and "cpu is the only candidate" or ("only %s accepts it"):format(cand[1])
  end
  local ternary = op.weight_min >= -1 and op.weight_max <= 1
  if DISPATCH == "bits" then
    if ternary then return "analog", "bits: ternary weights go to analog (HTVM's rule)" end
    return "digital", "bits: 8-bit weights go to digital (HTVM's rule)"
  end
  local K, OY, OX, rows, dig
  if op.kind == "fc" then
    K, OY, OX, rows = op.out_shape[#op.out_shape], 1, 1, op.in_shape[#op.in_shape]
    dig = STARTUP + 40 + cdiv(K * rows, 8) + cdiv(rows, ROWS) * cdiv(K, COLS)
  else
    K, OY, OX = op.out_shape[4], op.out_shape[2], op.out_shape[3]
    rows = op.kernel_h * op.kernel_w * op.in_shape[4]
    dig = STARTUP + 40 + cdiv(K * rows, 8) + OY * cdiv(OX, COLS) * cdiv(K, ROWS) * rows
  end
  local passes = cdiv(rows, ANA_ROWS)
  local ana = ANA_STARTUP * passes + 40 + cdiv(K * rows, ANA_W_BPC) + cdiv(rows, ANA_PROG_ROWS) * cdiv(K, ANA_COLS)
              + 2 * OY * OX * cdiv(K, ANA_COLS) * passes
  if ana < dig then return "analog", ("cost: analog ~%d cycles < digital ~%d"):format(ana, dig) end
  return "digital", ("cost: digital ~%d cycles <= analog ~%d"):format(dig, ana)
end

return target "diana" {
  description = "DIANA SoC: RISC-V host + 16x16 PE digital accelerator + 1152x512 ternary analog in-memory-compute core",
  clock_mhz = 260,

  memory = {
    L2 = { size = L2_KIB * KiB, alignment = 16, energy = { pj_per_byte = E.sram_pj_per_byte } },
    L1 = { size = L1_SIZE, alignment = 16, dma = { bytes_per_cycle = 8, setup = 40 }, energy = { pj_per_byte = E.sram_pj_per_byte } },
    WD = { size = WD_KIB * KiB, alignment = 16, dma = { bytes_per_cycle = 8, setup = 40 }, energy = { pj_per_byte = E.sram_pj_per_byte } },
    WA = { size = ANA_ROWS * ANA_COLS + 4 * ANA_COLS, alignment = 16, dma = { bytes_per_cycle = ANA_W_BPC, setup = 40 }, energy = { pj_per_byte = E.sram_pj_per_byte } },
  },

  -- choose's engine and reason, plus a multi-pass analog layer's passes
  dispatch = function(op, cand)
    local engine, why = choose(op, cand)
    local rows = op.kind == "fc" and op.in_shape[#op.in_shape] or op.kind == "conv2d" and op.kernel_h * op.kernel_w * op.in_shape[4]
    if engine == "analog" and rows > ANA_ROWS then     -- the row passes, in the report
      why = ("%s; %d rows: %d passes over the %d-row array, int32 partial sums in L1"):format(why, rows, cdiv(rows, ANA_ROWS), ANA_ROWS)
    end
    return engine, why
  end,

  -- the RISC-V host runs what the accelerators cannot: DIANA's
  -- RV32IMCFXpulpV2 core with htc's XpulpV2 kernels (the firmware builds
  -- with -DHTC_XPULPV2; targets/cpus/xpulpv2.lua: their costs, fitted on
  -- GVSoC), or -D host=rv32imc: the portable kernels (cpus/rv32imc.lua)
  cpu = (HOST == "xpulpv2" and xpulpv2 or rv32) { name = "riscv", memory = "L2", requant = { "tflite", "float", "fp32" },
                                                  energy = { pj_per_cycle = E.core_pj_per_cycle } },

  engines = {
    digital = {
      memory = "L1",            -- activations (input and output tiles)
      weights = "WD",           -- weights and biases
      energy = { pj_per_mac = E.diana_digital_pj_per_mac },
      startup = STARTUP,        -- cycles to program and start the array
      array = { rows = ROWS, cols = COLS },   -- K (conv) or C (fc) on the rows, OX or K on the columns
      -- the device model's other constants (HTC_DEV_DIGITAL_<NAME> in kernels/diana.c)
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
          accepts = accel.accepts { digital_on, "int8_weights", "no_dilation",
            function(op)
              if op.stride > 2 then return false, "stride > 2" end
              if not kernel_ok(op.kernel_h) or not kernel_ok(op.kernel_w) then
                return false, ("kernel %dx%d (accepts 1, 3, 5, 7: other sizes are not supported in hardware, HTVM)"):format(op.kernel_h, op.kernel_w)
              end
              return op.groups == 1 or (op.depthwise == 1 and op.depth_multiplier == 1), "grouped, not depthwise"
            end,
            "no_weight_zp", "int8_out", "batch1",
          },
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
          accepts = accel.accepts { digital_on, "batch1", "no_weight_zp", "int8_out", "one_weight_batch" },
          tile = function(t, op)
            return { maximize = objective(t, op, t.C, t.K), cycles = STARTUP + cdiv(t.C, ROWS) * cdiv(t.K, COLS) }
          end,
        },
        add = {
          kernel = "kernels/diana.c", fn = "htc__dev_add",
          template = "templates/diana/add.c.in",
          double_buffer = true,
          accepts = accel.accepts { digital_on, function(op) return op.broadcast == 0, "broadcast operand" end },
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
          accepts = accel.accepts { digital_on,
            function(op)
              if POOL == "cpu" then return false, "pool=cpu (HTVM's placement)" end
              if op.global ~= 1 then return false, "not a global average pool" end
              if op.in_shape[1] ~= 1 then return false, "batch > 1" end
              return #op.in_shape == 4, "input rank is not 4"
            end,
          },
          tile = function(t, op)
            local l1 = (t.C * t.IY * t.IX + t.C * t.OY) * (2)
            return { maximize = 2 * l1 / L1_SIZE, l1_bytes = l1, w_bytes = 20,
                     cycles = STARTUP + cdiv(t.C, LANES) * (op.IY * op.IX) }
          end,
        },
      },
    },

    analog = {
      memory = "L1",            -- shares the 256 kB L1 with the digital core
      weights = "WA",
      energy = { pj_per_mac = E.diana_analog_pj_per_mac },
      startup = ANA_STARTUP,
      array = { rows = ANA_ROWS, cols = ANA_COLS },   -- C*kh*kw on the rows, K on the columns
      -- HTC_DEV_ANALOG_<NAME> in kernels/diana.c (its array, memory WA and
      -- startup come from the fields above, as HTC_DEV_ANALOG_ROWS ...)
      device = { PROG_ROWS = ANA_PROG_ROWS },
      requant = { "shift", "shift:tflite" },
      ops = {
        conv2d = {
          kernel = "kernels/diana.c", fn = "htc__dev_aconv",
          template = "templates/diana/aconv.c.in",
          macs_per_cycle = ANA_ROWS * ANA_COLS,
          double_buffer = true,
          accepts = accel.accepts { analog_on, "ternary_weights", "ungrouped", "no_dilation", "no_weight_zp",
                                    "int8_out", "batch1", "int8_in" },
          tile = function(t, op)
            local rows = op.kernel_h * op.kernel_w * op.C
            local passes = cdiv(rows, ANA_ROWS)
            local work = 2 * t.OY * t.OX
            if passes == 1 then
              return { maximize = 4 * t.K / op.K + 2 * t.l1_bytes / L1_SIZE + t.IY / op.IY,
                       constraints = { le(t.K, ANA_COLS) },
                       cycles = ANA_STARTUP + work + cdiv(rows, ANA_PROG_ROWS) }
            end
            -- several passes: int32 partial sums of the tile in L1
            local l1 = t.l1_bytes + 4 * t.K * t.OY * t.OX
            return { maximize = 4 * t.K / op.K + 2 * l1 / L1_SIZE + t.IY / op.IY, l1_bytes = l1,
                     constraints = { le(t.K, ANA_COLS) },
                     cycles = ANA_STARTUP * passes + work * passes + cdiv(rows, ANA_PROG_ROWS) }
          end,
        },
        -- FC mapped as a 1x1 Conv2D (the paper): C on the rows, K on the columns
        fc = {
          kernel = "kernels/diana.c", fn = "htc__dev_aconv",
          template = "templates/diana/afc.c.in",
          macs_per_cycle = ANA_ROWS * ANA_COLS,
          double_buffer = true,
          accepts = accel.accepts { analog_on, "ternary_weights", "batch1", "no_weight_zp", "int8_out",
                                    "one_weight_batch", "int8_in" },
          tile = function(t, op)
            local passes = cdiv(op.C, ANA_ROWS)
            if passes == 1 then
              return { maximize = 4 * t.K / op.K + 2 * t.l1_bytes / L1_SIZE, constraints = { le(t.K, ANA_COLS) },
                       cycles = ANA_STARTUP + 2 + cdiv(op.C, ANA_PROG_ROWS) }
            end
            local l1 = t.l1_bytes + 4 * t.K         -- int32 partial sums between passes
            return { maximize = 4 * t.K / op.K + 2 * l1 / L1_SIZE, l1_bytes = l1, constraints = { le(t.K, ANA_COLS) },
                     cycles = (ANA_STARTUP + 2) * passes + cdiv(op.C, ANA_PROG_ROWS) }
          end,
        },
      },
    },
  },
}
