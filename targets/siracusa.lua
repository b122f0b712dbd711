-- targets/siracusa.lua: Siracusa (PULP), the SoC of the Deeploy paper,
-- without its N-EUREKA engine: a fabric controller and a cluster of 8
-- RV32IMC cores (RI5CY class; XpulpV2 with -DHTC_XPULPV2) sharing a
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

-- ---- energy (gen/energy.c; docs/targets.md, "Energy") ---------------------
-- GVSoC's Siracusa power models (github.com/gvsoc/gvsoc-pulp, commit
-- c309b6c, pulp/chips/siracusa/power_models; every figure at 25 C, 1.2 V,
-- the only corner the files give; bench/check_energy_gvsoc.py reads them
-- from a checkout and compares them with these):
--   core/riscy.json   4.98 pJ an instruction (both instruction groups),
--                     35.5 uW leakage a core; 9 cores (cluster.json nb_pe)
--   l1/l1.json        2.124280487 pJ a bank access (8, 16 or 32 bits, read
--                     or write), 5.2 uW leakage a bank; 16 banks
--                     (l1_subsystem.py: 1 << log2(9 PEs x banking factor 2))
--   cluster.json      2.84 mW background dynamic + 1.1045 mW leakage
--   mchan.json        0.187 mW while the DMA moves data, 0.100 mW
--                     background, 0.0128 mW leakage
-- (GVSoC's chip configuration instantiates riscy.json and l1.json only;
-- cluster.json and mchan.json are in the same directory, unused by it,
-- and counted here as the cluster's and the DMA's.) htc's model: a busy
-- core-cycle costs one instruction (4.98 pJ; stalls counted as
-- instructions, an upper bound), a byte in L1 a quarter of a 32-bit bank
-- access (0.531 pJ), a DMA byte the DMA's active power over 8 bytes a
-- cycle. Not in GVSoC: L2 (taken as L1's 0.531 pJ a byte, an assumption;
-- no leakage), N-EUREKA: 0.4525 pJ a MAC, its peak 8.84 TOp/J (2 Op a
-- MAC; Prasad et al., "Siracusa", IEEE JSSC 59(7), 2024, abstract: the
-- engine with its weight memory, so WMEM has no figure of its own).
local GV_INSN_PJ, GV_CORE_LEAK_MW, GV_PES = 4.98, 0.0355, 9
local GV_L1_ACCESS_PJ, GV_L1_BANK_LEAK_MW, GV_L1_BANKS = 2.124280487, 0.0052, 16
local GV_CLUSTER_MW = 2.84 + 1.1045
local GV_DMA_ACTIVE_MW, GV_DMA_IDLE_MW = 0.187, 0.100 + 0.0128
local NEU_PJ_PER_MAC = 2 / 8.84

-- a cost by arithmetic (targets/cpus/common.lua)
local by_arith = include("cpus/common.lua").by_arith

-- ---- N-EUREKA (kernels/neureka.c; ../shared/gvsoc.md) ---------------------
-- Siracusa's neural engine: 3x3, 1x1 and depthwise 3x3 convolution, stride
-- 1 (stride 2 as a stride-1 job, every other pixel copied out), linear
-- layers as 1x1 of one pixel, int8 weights stored w + 128 in bit planes
-- (its weight memory), int8 or uint8 input, int8 output, acc * scale[k] +
-- bias[k] modulo 2^32, >> shift without a rounding term. -D engines=cluster (default: today's
-- cluster-only code), neureka (every layer it accepts) or both (the fewer
-- estimated cycles).
local ENGINES = param "engines" { default = "cluster", values = { "cluster", "neureka", "both" },
                                  description = "cluster only, N-EUREKA for every layer it accepts, or both by estimated cycles" }
local WMEM_KIB = param "wmem_kib" { default = 4096, min = 1, max = 8192,
                                    description = "N-EUREKA's weight memory (SRAM) in KiB" }
-- per step of one 6x6 x 32 output subtile and input-channel group: a
-- least-squares fit of 27 jobs driven through the registers on GVSoC
-- (tests/neureka/gvsoc_jobs.txt and 11 more), confirmed by the jobs of
-- Deeploy's KWS timed from trigger to idle (its 20x5 64->64 pointwise, 16
-- steps: 2,158 cycles; its 20x5x64 depthwise, 12 steps: 4,057): 112 per
-- 1x1 step, 271 per 3x3 step, 314 per depthwise step.
local NEU_STEP = { ["1x1"] = 112, ["3x3"] = 271, dw = 314 }
-- A dense 3x3 step costs by its outputs: 47 + 10 per output channel of
-- its group of 32 (relative least squares over the six 3x3 jobs of
-- tests/neureka/gvsoc_jobs.txt and miniMobileNet's 7x7 3->32 job, 3,728
-- cycles: all within 3.1%, intercept 2,199 as NEU_SETUP + NEU_CONV's job
-- part; 271 a step was 11-18% off on the jobs of 5, 8 and 9 outputs and
-- -17.5% on miniMobileNet's). (The device model keeps NEU_STEP.)
local NEU_3X3_STEP, NEU_3X3_K = 47.1, 10.0
-- A depthwise step likewise by its channels: 217.7 + 5.64 per channel of
-- its group of 28, solved from KWS's 20x5x64 job (12 steps of 64
-- channels, 4,057 cycles of steps) and Conv_DW_2D_RQ's 16x16x5 (9 steps
-- of 5 channels, 2,213; 314 a step said 2,826).
local NEU_DW_STEP, NEU_DW_K = 217.7, 5.64
local function neu_dw(k)
  return cdiv(k, 28) * NEU_DW_STEP + k * NEU_DW_K
end
local function neu_3x3(k)
  return cdiv(k, 32) * NEU_3X3_STEP + k * NEU_3X3_K
end
-- The rest of a layer is core 0's, refitted by least squares on GVSoC's
-- layers with N-EUREKA (8 cores, tests/neureka/gvsoc_nets.py ENGINES=both
-- --input: KWS's 20x5x64 pointwise 7,050 and depthwise 21,200,
-- miniMobileNet's four convolutions, Conv_DW_2D_RQ's 16x16x5 depthwise
-- 5,826): per conv job 2,360 (the 24 registers, trigger and wait, the
-- scale and bias into L1, the template's loop: NEU_SETUP + NEU_CONV);
-- 4.75 bytes a cycle for the copies between the arena and the engine's
-- tiles (blocking cluster DMA); a padded layer with a zero point stores
-- its padding below / right with the core (kernels/neureka.c
-- htc__neu_dma_in_pad: the rows in two DMAs, the border filled a word at
-- a time), 1.86 cycles per byte of (rows + columns + 3) x channels
-- (relative least squares on KWS's depthwise, 12,558-12,715 on GVSoC,
-- and Conv_DW_2D_RQ's, 5,134). Errors (bench/bench_neureka.py,
-- engines=both): every N-EUREKA layer of KWS, miniMobileNet and
-- Conv_DW_2D_RQ within 12.2% (KWS's first depthwise, its code cold),
-- totals within 1.7%.
local NEU_SETUP, NEU_CONV, NEU_BPC, NEU_PAD_BYTE = 900, 1460, 4.75, 1.86
-- A stride-2 tile copies its output out a row at a time (every other
-- pixel: one 2-D DMA per row, L1 to L1 through the SoC, blocking): 351
-- cycles per row beyond the first (relative least squares on
-- miniMobileNet's two stride-2 layers: the 3->32 3x3 with 4 rows, 5,348
-- on GVSoC, 1,218 above the estimate without it; the 2x2x64 depthwise
-- 3,689, 118 above; the scale and bias loads, two such DMAs, take 547)
local NEU_S2_ROW = 351
-- The first convolution job of a network (op.code_age -1: the driver's
-- code never run before) 300 more: GVSoC, the first N-EUREKA layer of KWS
-- (its first depthwise, 14,215 / 14,251 cycles on 1 / 8 cores, -12.5% /
-- -12.7% without it), miniMobileNet (5,601 / 5,591, -8.5% / -8.4%) and
-- Conv_DW_2D_RQ (5,175 / 5,168, +5.1% / +5.2%): -10.3% / -10.6%, -3.2% /
-- -3.0%, +10.9% / +11.0% with it; KWS's total with N-EUREKA at 8 cores
-- -5.1% -> -4.9%
local NEU_COLD = 300
-- The cluster's instruction cache: a layer whose kernel function ran within
-- the last CODE_WARM layers that ran code (op.code_age, gen/dispatch.c)
-- finds its code there; else (further back, or never before) its call
-- fetches it from L2 first. GVSoC, MicroLlama's last token: the same
-- 16 x 4 x 4 matmul 1,785-1,930 cycles at code age 5, 2,495-2,594 at age 14
-- or first; its 4 x 4 transpose 869-996 at age 5, 1,040-1,124 at 14; no
-- layer measured between ages 5 and 10 with a kernel whose code differs
-- that much (the limit: 7, between them)
-- (warm: another limit for a kernel whose code stays longer, e.g. the
-- table Add's QLX_WARM)
local CODE_WARM = 7
local function cold(op, warm)
  local a = rawget(op, "code_age")
  return a == nil or a < 0 or a > (warm or CODE_WARM)
end
-- the part of a kernel's code fetched again from L2: each layer run since
-- its last call evicts some of its lines (the cache replaces at random),
-- all of them past CODE_WARM (QuantLib's table: its 64-element layers on
-- one core 505-531 cycles at code age 1, 520-595 at 3, 566-666 at 5)
local function refetch(op, warm)
  if cold(op, warm) then return 1 end
  return op.code_age / ((warm or CODE_WARM) + 1)
end

-- A linear layer's job (one pixel, 1x1 mode; templates/neureka/fc.c.in's
-- direct job on L1) as GVSoC times it, the layer's cycles: NEU_FC_BASE +
-- NEU_FC_CGROUP per group of 32 inputs + NEU_FC_K64 per group of 64
-- outputs + NEU_FC_REFETCH x the part of the driver's code
-- (htc__neu_fc_direct, htc__neu_job_at, the wait) fetched again from L2:
-- op.code_age counts the layers run since the last linear job (the
-- engine op's fn), refetch() above: age / (CODE_WARM + 1) of it, all of
-- it past CODE_WARM or with none earlier, as the cluster's kernels. GVSoC, MicroLlama's last token at 8 cores (-DPLATFORM_PERF):
-- its 32 64->64 jobs 964-1,246 cycles, their instruction-miss stalls
-- 200-484 with the rest alike (~430 instructions); by code age 3: 964-1,133,
-- 5: 1,037-1,179, 8: 1,139-1,246. bench/fit_siracusa.py --neureka-fc-jobs
-- (relative least squares, each configuration of inputs, outputs and code
-- age weighing alike) on its NEU_FC_JOBS: MicroLlama's 56 jobs (64->64,
-- 64->256, 256->64) and the one-shot networks' first (cold) jobs, KWS's
-- 64->12 and miniMobileNet's 256->10 at 1 and 8 cores: each within 11.7%.
-- The fixed part replaces NEU_SETUP (the engine's startup, counted per
-- tile by htc). (choose() below: no code age known yet, all of it)
local NEU_FC_BASE, NEU_FC_CGROUP, NEU_FC_K64, NEU_FC_REFETCH = 244.3, 161.3, 463.4, 123.9
-- Its scale and bias not in L1 (mem=l2 or tile: constants in L2) the
-- direct job does not apply: the template's copies (the input and the
-- output by DMA, the weights into the weight memory, the scale and bias
-- into L1) around the same job, 240 more (GVSoC, CCT_Int_ICCT's classifier
-- 128 -> 10 with mem=l2: 1,664 cycles on one core, 1,769-1,785 on 8, 187 /
-- 292-308 above the direct job's figures). Set once mem is known (below).
local NEU_FC_COPY = 240
local neu_fc_copies = 0
local function neu_fc(op, C, K)
  return NEU_FC_BASE + cdiv(C, 32) * NEU_FC_CGROUP + cdiv(K, 64) * NEU_FC_K64 + NEU_FC_REFETCH * refetch(op) + neu_fc_copies
end

local function neu_mode(op)
  if op.kind == "fc" then return "1x1" end
  if op.depthwise == 1 then return "dw" end
  return op.kernel_h == 1 and "1x1" or "3x3"
end

-- pixels of a shape: every dimension but the channels
local function pixels(shape)
  local n = 1
  for i = 1, #shape - 1 do n = n * shape[i] end
  return n
end

-- compute cycles of a job of oy x ox pixels, k outputs (c inputs)
local function neu_steps(mode, oy, ox, k, c)
  local sub = cdiv(oy, 6) * cdiv(ox, 6)
  if mode == "dw" then return sub * neu_dw(k) end
  if mode == "1x1" then return sub * cdiv(k, 32) * cdiv(c, 32) * NEU_STEP["1x1"] end
  return sub * cdiv(c, 28) * neu_3x3(k)
end

-- weight bytes of one output channel (depthwise: of the k channels)
local function neu_wbytes(mode, c)
  if mode == "1x1" then return 32 * cdiv(c, 32) end
  return 256 * cdiv(c, 28)
end

-- The layer exactly as N-EUREKA computes it? QuantLib's RequantShift
-- clip((acc * mul + add + 2^(s-1)) >> s, lo, hi) - off becomes scale = mul,
-- bias = mul * (b - in_zp * sum w) + add + 2^(s-1) - off * 2^s, shift = s,
-- clip int8: exact when every int32 sum fits.
local function neu_accepts(op)
  if ENGINES == "cluster" then return false, "not in use (engines=cluster)" end
  if op.requant ~= "quantlib" then
    return false, op.requant .. " requantization (N-EUREKA reproduces QuantLib's RequantShift only)"
  end
  -- (the op table is strict: the QuantLib fields exist only for a RequantShift
  -- with a multiplier, not one dispatch found to be a plain shift)
  if not rawget(op, "ql_shift") then return false, "RequantShift without a multiplier (a plain shift)" end
  if op.batches ~= 1 then return false, "batch > 1" end
  if op.weight_bits ~= 8 or op.weight_zp ~= 0 then return false, "weights not int8 without zero point" end
  if op.int32_out ~= 0 then return false, "int32 output" end
  if op.in_type ~= "int8" or op.out_type ~= "int8" then return false, "not 8-bit in and out" end
  local KH, KW, G = 1, 1, 1
  if op.kind == "fc" then
    -- a linear layer: a 1x1 convolution of one pixel (one row)
    if op.weight_const ~= 1 or op.weight_batches ~= 1 then return false, "weights not one constant matrix" end
    if pixels(op.in_shape) ~= 1 then return false, "more than one row" end
  else
    if op.dilation ~= 1 then return false, "dilation > 1" end
    if op.stride_h ~= op.stride_w or op.stride > 2 then return false, "stride not 1 or 2" end
    if op.kernel_h ~= op.kernel_w or (op.kernel_h ~= 1 and op.kernel_h ~= 3) then return false, "kernel not 1x1 or 3x3" end
    if op.groups ~= 1 and not (op.depthwise == 1 and op.depth_multiplier == 1 and op.kernel_h == 3) then
      return false, "grouped (N-EUREKA: dense or depthwise 3x3)"
    end
    KH, KW, G = op.kernel_h, op.kernel_w, op.groups > 0 and op.groups or 1
    -- its padding registers take 0..2 a side (kernels/neureka.c
    -- htc__neu_job_at: CCT_Int_ICCT's 3x3 stride-2 conv, 32 -> 18, pads 3)
    local pb = (op.out_shape[2] - 1) * op.stride + KH - op.in_shape[2] - op.pad_top
    local pr = (op.out_shape[3] - 1) * op.stride + KW - op.in_shape[3] - op.pad_left
    if op.pad_top > 2 or op.pad_left > 2 or pb > 2 or pr > 2 then return false, "padding > 2 on a side" end
  end
  -- its ReLU clips to [0, 255] (uint8 out): only the int8 clip is exact
  if op.qmax ~= 127 or op.qmin ~= -128 then
    return false, ("clip [%d, %d] is not int8 (N-EUREKA's ReLU clips to [0, 255])"):format(op.qmin, op.qmax)
  end
  -- GVSoC's N-EUREKA pads below and right of the input with 0 whatever the
  -- padding value: a padded layer with a zero point stores that padding in
  -- its input tile (templates/neureka/conv2d.c.in; checked on GVSoC with 0
  -- and -128, the zero points QuantLib's graphs have)
  local padded = op.kind == "conv2d" and
                 ((op.out_shape[2] - 1) * op.stride - op.in_shape[2] + KH) + ((op.out_shape[3] - 1) * op.stride - op.in_shape[3] + KW) > 0
  if op.in_zp ~= 0 and op.in_zp ~= -128 and padded then
    return false, "padded with an input zero point other than 0 / -128 (N-EUREKA pads below / right with 0)"
  end
  if op.ql_shift < 0 or op.ql_shift > 31 then return false, "shift outside 0..31" end
  local C = op.in_shape[#op.in_shape] // G
  local wabs = math.max(-op.weight_min, op.weight_max, 0)
  local xabs = op.in_zp == -128 and 255 or 128     -- (the signed mode reads -128..127: a bound)
  local acc = (xabs * wabs) * C * KH * KW
  local s = op.ql_shift
  local bias = op.ql_mul_absmax * (op.bias_absmax + (128 * wabs) * C * KH * KW)
               + op.ql_add_absmax + (s > 0 and (1 << (s - 1)) or 0) + 128 * (1 << s)
  if op.ql_mul_absmax * acc + bias > 2147483647 then
    return false, "int32 overflow possible in scale * acc + bias (not bit-exact)"
  end
  return true
end

-- core 0's cycles of one conv job beyond NEU_SETUP: its copies (bytes in
-- and out) and its stored padding (bytes)
local function neu_copies(in_b, out_b, pad_b)
  return NEU_CONV + (in_b + out_b) / NEU_BPC + pad_b * NEU_PAD_BYTE
end

local function neu_tile(t, op)
  local mode = neu_mode(op)
  local C = op.in_shape[#op.in_shape]
  local w = mode == "dw" and neu_wbytes(mode, op.K) or t.K * neu_wbytes(mode, C)
  -- stride 2: a stride-1 job of (2 OY - 1) x (2 OX - 1) pixels into L1
  -- after the scale and bias, every other pixel copied out
  local s2 = op.kind == "conv2d" and op.stride == 2
  local jy, jx = t.OY, t.OX
  if s2 then jy, jx = 2 * t.OY - 1, 2 * t.OX - 1 end
  local steps, dma
  if op.kind == "fc" then
    steps = neu_fc(op, C, t.K) - NEU_SETUP
    dma = 0
  else
    if mode == "dw" then steps = cdiv(jy, 6) * cdiv(jx, 6) * neu_dw(t.K)
    elseif mode == "1x1" then steps = cdiv(jy, 6) * cdiv(jx, 6) * cdiv(t.K, 32) * (cdiv(C, 32) * NEU_STEP["1x1"])
    else steps = cdiv(jy, 6) * cdiv(jx, 6) * cdiv(C, 28) * neu_3x3(t.K) end
    local cin = mode == "dw" and t.K or C
    -- (the stored padding counted on every tile of such a layer: an upper bound)
    local zpad = mode ~= "1x1" and op.in_zp ~= 0
    dma = neu_copies(t.l1_in, t.l1_out, zpad and (jy + jx + 3) * cin or 0) + (s2 and (t.OY - 1) * NEU_S2_ROW or 0)
  end
  local tiles = cdiv(op.OY, t.OY) * cdiv(op.OX, t.OX)
  -- a network's first convolution job: the driver's code (htc__neu_job,
  -- the copies' helpers) fetched cold, NEU_COLD over the layer's tiles
  if op.kind == "conv2d" and rawget(op, "code_age") == -1 then steps = steps + NEU_COLD / (tiles * cdiv(op.K, t.K)) end
  -- (the scale and bias into L1 in NEU_CONV / NEU_SETUP; the weights stay in the weight memory)
  local wdma = 0
  local cin = mode == "dw" and t.K or C
  local pin = (mode ~= "1x1" and op.in_zp ~= 0) and (jy + 2) * (jx + 2) * cin or 0
  return {
    -- a padded 3x3 / depthwise layer with a zero point: a tile of its input
    -- with the padding below / right stored (the template's pin)
    l1_bytes = t.l1_in + t.l1_out + 3 + 8 * t.K + (s2 and jy * jx * t.K or 0) + pin,
    w_bytes = w + 4 * t.K,    -- (room the core counts for the biases)
    minimize = cdiv(op.K, t.K) * (wdma + tiles * (NEU_SETUP + steps + dma)),
    cycles = steps,
    dma_cycles = dma,
    w_dma_cycles = wdma,
    constraints = mode == "dw" and { eq(t.K, op.K) } or nil,
  }
end

-- the layer's weights in bit planes (w + 128), scale = mul and the folded bias
local function neu_constants(op, d)
  local mode = neu_mode(op)
  local K, C = d.K, d.C
  local s = op.ql_shift
  local off = -op.out_zp
  -- signed input, the zero point in the bias (a padded layer's padding
  -- below / right stored in its tile: templates/neureka/conv2d.c.in)
  local zp = op.in_zp
  local bytes, scale, bias = {}, {}, {}
  local function u(k, c, y, x) return d.w(k, c, y, x) + 128 end
  if mode == "1x1" then
    local G = cdiv(C, 32)
    for k = 0, K - 1 do
      for g = 0, G - 1 do
        local row = {}
        for i = 0, 31 do row[i] = 0 end
        for m = 0, 31 do
          local c = g * 32 + m
          if c < C then
            local v = u(k, c, 0, 0)
            for b = 0, 7 do
              local bit = (m // 4) * 32 + b * 4 + m % 4
              if (v >> b) & 1 == 1 then row[bit >> 3] = row[bit >> 3] | (1 << (bit & 7)) end
            end
          end
        end
        for i = 0, 31 do bytes[#bytes + 1] = row[i] end
      end
    end
  else
    -- 3x3 dense: rows per (k, group, bit); depthwise: one output channel over the K channels
    local KO, CI = K, C
    if mode == "dw" then KO, CI = 1, K end
    local G = cdiv(CI, 28)
    for k = 0, KO - 1 do
      for g = 0, G - 1 do
        for b = 0, 7 do
          local row = {}
          for i = 0, 31 do row[i] = 0 end
          for sp = 0, 8 do
            for m = 0, 27 do
              local c = g * 28 + m
              if c < CI then
                local v = mode == "dw" and u(c, 0, sp // 3, sp % 3) or u(k, c, sp // 3, sp % 3)
                local bit = sp * 28 + m
                if (v >> b) & 1 == 1 then row[bit >> 3] = row[bit >> 3] | (1 << (bit & 7)) end
              end
            end
          end
          for i = 0, 31 do bytes[#bytes + 1] = row[i] end
        end
      end
    end
  end
  for k = 0, K - 1 do
    local sumw = 0
    for c = 0, C - 1 do
      for y = 0, d.KH - 1 do
        for x = 0, d.KW - 1 do sumw = sumw + d.w(k, c, y, x) end
      end
    end
    local m = d.qmul(k)
    scale[k + 1] = m
    bias[k + 1] = m * (d.bias(k) - zp * sumw) + d.qadd(k) + (s > 0 and (1 << (s - 1)) or 0) - off * (1 << s)
  end
  return { w = { type = "uint8", values = bytes }, scale = { type = "int32", values = scale }, b = { type = "int32", values = bias } }
end

-- The cluster's QuantLib conv / fc layers as GVSoC measured them with 8
-- cores on the XpulpV2 paths (tests/neureka/gvsoc_nets.py; wall cycles of
-- the layer, fork and join included): ~5,000 + 0.1 per MAC (KWS's 1x1
-- 20x5x64x64: 44,500; its 10x4 first layer 47,300 for 256,000 MACs) or +
-- 0.39 per MAC (depthwise: KWS's 20x5x64 3x3, 27,300); a one-row fc as
-- measured before its XpulpV2 path (MicroLlama's 64x64 14,315-15,277,
-- 64x256 46,033-51,782: + 2.3 per MAC; not measured since, so its
-- layers stay on N-EUREKA and their weights in its weight memory)
local QL_FIXED, QL_MAC, QL_MAC_DW, QL_MAC_FC = 5000, 0.1, 0.39, 2.3

-- QuantLib's element-wise layers on one cluster core (kernels/mul.c
-- htc__ql_ew_fast, qlib_norm.c, qlib_eltwise.c, transpose.c), cycles per
-- output element as GVSoC measured MicroLlama's (64 / 128 / 256 elements,
-- constants in L1, the code cold in L2): Mul 10,125 / 256, Add ~3,500 / 64,
-- iRMSNorm ~9,700 / 64 (a division an element), transpose 3,700 / 128
-- (the estimates; each runs on every core when it divides); table: its
-- loop's (QL_ELEM1 below).
local QL_ELEM = { mul = 40, add = 55, norm = 150, table = 6.3, transpose = 29 }
local function ql_elem(kind, other)
  return function(op)
    if op.requant == "quantlib" then return QL_ELEM[kind] end
    return type(other) == "function" and other(op) or other
  end
end

-- cluster or N-EUREKA: engines=neureka takes every layer it accepts; both
-- compares estimated cycles (the cluster's measured QuantLib layers above,
-- scaled from 8 cores; N-EUREKA's subtile steps, set-up and DMA, untiled)
local function choose(op, cand)
  local neu = false
  for _, n in ipairs(cand) do neu = neu or n == "neureka" end
  if not neu then return cand[1], "only the cluster accepts it" end
  if ENGINES == "neureka" then return "neureka", "engines=neureka" end
  local mode = neu_mode(op)
  local K, C = op.out_shape[#op.out_shape], op.in_shape[#op.in_shape]
  local OY, OX = 1, pixels(op.out_shape)
  if op.kind == "conv2d" then OY, OX = op.out_shape[2], op.out_shape[3] end
  if op.kind == "conv2d" and op.stride == 2 then OY, OX = 2 * OY - 1, 2 * OX - 1 end
  local ne
  if op.kind == "fc" then
    ne = neu_fc(op, C, K)
  else
    local cin = mode == "dw" and K or C
    local zpad = mode ~= "1x1" and op.in_zp ~= 0
    ne = NEU_SETUP + neu_steps(mode, OY, OX, K, C)
         + neu_copies(pixels(op.in_shape) * C, op.out_shape[2] * op.out_shape[3] * K,
                      zpad and (op.in_shape[2] + op.in_shape[3] + 1) * cin or 0)
         + (op.stride == 2 and (op.out_shape[2] - 1) * NEU_S2_ROW or 0)
  end
  local cl = QL_FIXED + op.macs * (op.kind == "fc" and QL_MAC_FC or mode == "dw" and QL_MAC_DW or QL_MAC) * 8 / CORES
  if ne < cl then
    return "neureka", ("N-EUREKA ~%d cycles < cluster ~%d"):format(math.floor(ne), math.floor(cl))
  end
  return "cluster", ("cluster ~%d cycles <= N-EUREKA ~%d"):format(math.floor(cl), math.floor(ne))
end

-- ---- the cluster's cost model (fitted to GVSoC) ----------------------------
-- Where the firmware puts the arena and the weights (examples/siracusa
-- SIR_MEM): tile = both in L2, every layer with a band kernel computing
-- from L1 bands the cluster DMA fills (the default); l1 = both in L1 (a
-- model that fits: no L1 tiles); l2 = the weights in L2, the arena in L1.
local MEM = param "mem" { default = "tile", values = { "tile", "l1", "l2" },
                          description = "arena and weights: tile (L2, layers in L1 tiles), l1 (both in L1), l2 (weights in L2, arena in L1)" }
-- With N-EUREKA (engines neureka / both) mem=l1 or l2 says the same of the
-- firmware (examples/siracusa netrun.c, examples/llama SIR_MEM=l1 / l2: the
-- arena in L1, the cluster's layers without L1 tiles); the plan still
-- counts the arena apart from L1, where N-EUREKA's tiles are planned
local ARENA_PLAN = (MEM == "tile" or ENGINES ~= "cluster") and "L2" or "L1"
neu_fc_copies = MEM ~= "l1" and NEU_FC_COPY or 0

-- The estimate of a layer (gen/dispatch.c, gen/tile.c): cpu.overhead +
-- (when divided over the cores) cpu.fork + the slowest core's call; a layer
-- in L1 bands: the weights' and first band's DMA, then per band the larger
-- of (fork + slowest core's call on the band) and the DMA overlapping it.
-- One call's cycles are terms for what the XpulpV2 kernels do, each
-- coefficient a least-squares fit on GVSoC's per-layer cycles of the four
-- MLPerf Tiny models at 1 and 8 cores (bench/fit_siracusa.py, from
-- bench/bench_gvsoc.py's output; its features are these functions').
local K_ = {
  -- conv2d (htc__conv2d_xp_run): per call (the band's parameters, the
  -- output-channel chunk), per output channel's start value (a sum over its
  -- K weights, htc__xp_sum4: per weight), per 2x4 block (two pixels x four
  -- channels, htc__xp_blk2x4: the requantization and stores of its 8
  -- outputs in registers), per partial block of fewer than four channels
  -- (the generic block loop: 411 as fitted when every block took it, no
  -- measured share has one now), per word of a block's dot products (6
  -- loads, 8 pv.sdotsp.b), per output of a channel htc__xrq cannot take
  -- (the portable store; 61 as fitted when MobileNet's layers took it), per
  -- receptive-field byte and row copied
  conv_call = 5415, conv_wsum = 1.137, conv_block = 223.7, conv_block_ql = 112.7, conv_pblock = 411, conv_word = 13.81, conv_out = 0,
  -- per aligned word of a block's weights in L2 (four L2 loads: the FC's
  -- fc_word_l2 - fc_word_l1)
  conv_word_l2 = 55.41,
  -- a pointwise call's pixel pair (the pair loop of htc__conv2d_xp_body
  -- outside its blocks: the two input pointers, the block bounds, the
  -- loops' set-up; the other paths' pairs carry it in their field or
  -- in-place pair terms). Least squares on Deeploy's KWS pointwise layers
  -- (50 pairs a call of 16 / 2 blocks at 1 / 8 cores, QuantLib's epilogue:
  -- -0.7% / +7.3% off GVSoC with the block alone) gives 75 a pair and
  -- conv_block_ql 7.2 lower; the .tflite DS-CNN's pointwise layers (63
  -- pairs, records) give the same 75 (+1.5% / -5.8% without it)
  conv_pwpair = 75,
  -- a 2x4 block with TFLite's requantization in final form (op.xq2: a
  -- dense layer's three-product records (op.xq3, htc__xq3_apply: 7 words a
  -- channel, 3 p.mac and no 64-bit product an output; the two-product
  -- form where a channel has no such record is not told apart); no weight
  -- sums, folded at compile time; u's clamp one p.clipur an output: 14
  -- fewer than with p.max and p.min, GVSoC ResNet's conv layers at 8 cores
  -- 1,180,502 -> 1,159,942 cycles in all)
  conv_block_x2 = 162.5,
  -- the same without a fused ReLU (op.xq3u, form 4: a compare, shift and
  -- subtract more an output)
  conv_block_x4 = 184.6,
  -- four pixels of one output row by four channels (htc__xp_dot4x4b, the
  -- final-form records only, fields in place or copied K4 apart): per
  -- quad (its pointers and the pair loop's step), per block (the asm
  -- block's set-up, the 16 sums stored and reloaded, htc__xp_quad's 16
  -- requantizations), per block without a fused ReLU (form 4: a compare,
  -- shift and subtract more an output), per word (8 loads, 16
  -- pv.sdotsp.b: 24 instructions; GVSoC, ResNet's layer 1 with the word
  -- count doubled: 24.0 cycles a word), per run (the loop between runs:
  -- 8 instructions). conv_quad and conv_qblock: least squares of the
  -- relative errors with every other term held, on ResNet's 16 layers with
  -- quads at 1 and 8 cores (bench/fit_siracusa.py holds them)
  conv_quad = 214.2, conv_qblock = 323.4, conv_qblock_x4 = 48, conv_qword = 24, conv_qrun = 8,
  -- a 4x4 block with QuantLib's requantization (htc__xp_quad, ql 1: a
  -- multiply, add, shift and clamp an output): Deeploy's KWS's pointwise
  -- layers at 8 cores (25 quads of 2 blocks a core), the other terms held
  conv_qblock_ql = 223,
  -- a pixel pair reading its fields in place (htc__xp_dot2x4r): per pair,
  -- per run of a block (the outer hardware loop)
  conv_ipair = 238.5, conv_irun = 3.553,
  -- (the fields copied: htc__xp_rows, nested hardware loops, a word a step;
  -- padded ones by htc__xp_im2col: conv_field and conv_frow refitted, the
  -- other terms held, on the conv layers of ResNet, DS-CNN in both forms
  -- and MobileNetV1 at 1 and 8 cores. Rows shorter than 8 bytes (DS-CNN's
  -- first conv, 4 bytes) keep the terms fitted when they took
  -- htc__xp_copy's word / byte loop)
  conv_out_slow = 61, conv_field = 1.267, conv_frow = 75.06, conv_field_s = 2.164, conv_frow_s = 68.92,
  -- fields across the image's border (htc__xp_im2col: a fill and a copy
  -- call a row, byte loops for pieces of a few bytes), beside their field
  -- and row terms: per row, and per call that has any (the function's code
  -- fetched from L2: it runs nowhere else); per weight row copied K4 apart
  -- (K % 4 ~= 0: htc__xp_copy and htc__xp_fill, every call). GVSoC, the
  -- border fields knocked out of the kernel: ResNet's first conv (3x3x3,
  -- 124 of 1,024 fields; 38 on the slowest of 8 cores) 50,722 / 12,346
  -- cycles at 1 / 8 cores, miniMobileNet's 3x3x3 stride-2 conv (7 of 16)
  -- 4,258 / 3,783: per border field 397 / 276 and per call 1,478 / 1,851
  -- (the means taken); its weight copies knocked out: 94 / 72 a 27-byte
  -- row. (Rows shorter than 8 bytes: in conv_field_s / conv_frow_s, fitted
  -- on DS-CNN's first conv, whose fields are half across the border)
  conv_brow = 26, conv_bcall = 1660, conv_wrow = 85,
  -- depthwise (htc__dwconv2d_xp_body, feat_dw): per call, per channel,
  -- per padding word written at the start (the lines' padding columns),
  -- per input pixel copied into four planes / one (hardware loops,
  -- htc__dw_xp_spread4 / htc__dw_xp_gather1), per word of a plane line
  -- outside the input, per output line and per chunk of a channel, per
  -- output (TFLite's / QuantLib's epilogue / the slow store), per misaligned
  -- window word (bench/fit_siracusa.py --only dw_ on GVSoC's DS-CNN,
  -- MobileNetV1 and Deeploy's three depthwise networks at 1 and 8 cores,
  -- every TFLite layer with records, their start values folded, the
  -- tap words of four channels from one load a tap, a channel's lines in
  -- one asm block). dw_out (TFLite's requantization, no record) held at
  -- the last fit's 8.1 above dw_out_x2: no measured layer has it now
  dw_call = 3087, dw_chan = 429.9, dw_fill = 6.752, dw_px4 = 17.12, dw_px1 = 4.991, dw_padw = 0, dw_line = 37.4,
  dw_chunk = 73.04, dw_out = 9.5, dw_out_ql = 0, dw_out_slow = 61, dw_mis = 5.416,
  -- per output with TFLite's requantization in final form (op.xq2)
  dw_out_x2 = 1.393,
  -- per output computed in a pair (beside its dw_out and dw_mis share)
  dw_pair = 6.552,
  -- fully connected (htc__fc_xp): per call, per block of 4 outputs when one
  -- undivided core reads the parameter block in L2, per block and per word
  -- of its dot products (5 loads, 8 dot products) with the weights in L1 /
  -- in L2 (the word in L1: 14, from the instructions; the measured FCs in
  -- L1 have K = 64 only, where a block and a word are not told apart), per
  -- word with the input in L2 (mem=tile), per output (its requantization:
  -- 100, from ToyAdmos's 128 -> 8 layer at 2, 4 and 8 cores, one block of
  -- 4, 2, 1 outputs a core), per slow output (the convolution's)
  fc_call = 219.9, fc_pl2 = 313.3, fc_xl2 = 19.41, fc_block_l1 = 228.3, fc_block_l2 = 175.7, fc_word_l1 = 14,
  fc_word_l2 = 69.41, fc_out = 100, fc_out_ql = 101.2, fc_out_slow = 61,
  -- average pool (feat_pool): per call, per output (its division), per tap
  -- of eight / four channels (10 / 6 cycles: the loop's instructions, the
  -- load-use stall of the single word), per hardware-loop run, per byte
  -- summed one by one (the last fit's per input byte), per output more
  -- with mem=tile (fitted, cause not measured). GVSoC, the global pools at
  -- 1 / 8 cores: DS-CNN's 25x5x64 14,505 / 4,790 cycles, ResNet's 8x8x64
  -- 9,889 / 4,003 (both mem=l1), MobileNetV1's 3x3x256 (mem=tile, one
  -- band) 25,245 / 7,030
  pool_call = 1248, pool_out = 47.8, pool_w8 = 9.5, pool_w4 = 6, pool_run = 30, pool_in = 10.07,
  pool_out_t = 24,
  -- max pool (htc__maxpool_xp): per call, per output pixel, per pair of
  -- words (two of four channels; an odd last word a pair alone: the
  -- set-up, the clamps and stores), per window row of a pair (the outer
  -- hardware loop's step) and per tap of a pair (two p.lw, two pv.max.b)
  -- from the instructions, per tap of a channel past the last word (the
  -- scalar loop: no network has one, from its instructions); call and pair
  -- fitted (bench/fit_siracusa.py --only mp_) on GVSoC: CCT_Int_ICCT's
  -- 18x18x128 3x3/2 (mem=l2) 69,281 / 11,357 cycles at 1 / 8 cores,
  -- Deeploy's KWS's global 20x5x64 3,940 / 1,869 (fit +5.4 / -7.7%,
  -- +3.0 / -0.3%)
  mp_call = 433.3, mp_px = 0, mp_pair = 31.91, mp_row = 1, mp_tap = 4, mp_byte = 8,
  -- add (htc__add_xp): per call (its two 256-entry tables), per element
  -- (two table reads, htc__xrq_apply, the clamp; fitted on ResNet's three
  -- adds at 8 cores: 81,523 / 47,507 / 30,649 cycles)
  add_call = 12100, add_elem = 33.2,
  -- with the tables in final form in the header (op.xq2, htc__xadd_run): per
  -- call, per element (two byte and two table loads, the sum, a shift,
  -- the clamp: one p.clip when the range is [-hi - 1, hi], else p.max and
  -- p.min). GVSoC, ResNet's three adds (16,384 / 8,192 / 4,096 elements):
  -- 164,111 / 82,165 / 41,201 cycles on one core, 22,081 / 11,553 / 6,619
  -- on 8; 11 an element with p.max and p.min (180,475 / 90,331 / 45,295)
  add_call_x = 245, add_elem_x = 10, add_elem_xm = 11,
  -- softmax (kernels/softmax.c, the exponentials looked up in the layer's
  -- compile-time table; compiled -O2 since, no longer HTC__COLD's -Os):
  -- per call (the reciprocal, the code's first fetch), per element (the
  -- entries at or above diff_min cost more, data-dependent). GVSoC, one
  -- core / 8: DS-CNN 3 of 12 taken -/1,564 cycles (-Os: 1,877), ResNet 7
  -- of 10 1,672/1,654 (2,121/2,158), MobileNetV1 2 of 2 1,397/1,397
  -- (1,598/1,630); by hand, each within 8%
  sm_call = 1260, sm_elem = 28,
  -- per band (tile = 1): the DMA starts and waits on core 0 around the fork
  band = 685.6,
  -- the byte lookup (htc__lut8, a uint8 graph input's table): per call, per
  -- byte of the core's share of the elements; its fork below. GVSoC, Deeploy's
  -- KWS / miniMobileNet / Conv_DW_2D_RQ (637, 192, 1,280 bytes): 6,457 /
  -- 2,003 / 12,863 cycles on one core, 1,880 / 1,295 / 2,692 on 8 (first
  -- runs: on 8 cores the fork of code not in the instruction cache,
  -- FORK_TABLE + tab_fork_cold)
  -- (Softmax_Regular's output table, 192 bytes after the softmax: 1,984 /
  -- 1,982 / 1,156 / 908 cycles at 1 / 2 / 4 / 8 cores, +44.8% at 8; three
  -- runs in one program 890 / 812 / 756, against miniMobileNet's 192-byte
  -- input table's 1,294 / 1,128 / 1,064: the same code and count, ~350
  -- apart warm: the data (the 8 cores' table loads in L1's banks?), not
  -- the code's first fetch; not modelled yet)
  tab_call = 79, tab_elem = 9.98, tab_fork_cold = 0,
  -- its 256-byte table in L2 (mem=l2 or tile: a constant), per element:
  -- GVSoC, CCT_Int_ICCT's 10-byte output (mem=l2) 282 cycles on one core
  -- and on 8, 96 above the figures in L1 (the QuantLib table's L2 term,
  -- QL_TABLE_L2, is 11.9)
  tab_l2 = 9.6,
  -- transpose (htc__transpose_rows): per call, per output row (the outer
  -- index walk), per element (a strided load and a store); GVSoC, the same
  -- networks' layout transposes (256 rows of 5, 80 of 16, 64 of 3, 128 of 2:
  -- 17,052 / 11,679 / 3,885 / 7,029 cycles on one core, 3,718 / 2,846 /
  -- 1,832 / 2,407 on 8) and MicroLlama's (4 rows of 4 on one core:
  -- 930-1,124, 1,030 taken; 64 rows of 2 on 8: 1,757-1,861), least squares
  -- of the relative errors; all of them with the code cold (tp_cold, see
  -- cold() below), a warm call 150 fewer (MicroLlama's 4 x 4 on one core,
  -- code age 5: 869-996 cycles, age 14: 1,040-1,095); the element 6.295 ->
  -- 6.5 for the longer rows of Deeploy's networks (CCT_Int_ICCT's 192 rows
  -- of 64: 97,531 cycles on one core, 13,549 on 8, -13.5% / -15.0% with
  -- 6.295, -10.9% / -12.7% now; every other transpose of the kernel
  -- networks, KWS, miniMobileNet and Conv_DW_2D_RQ -5.7..+8.9%)
  tp_call = 640.5, tp_cold = 150, tp_row = 33.01, tp_elem = 6.5,
  -- a row read contiguously (op.inner_stride 1, htc__xp_copy): per word
  -- (the row's term as above), fitted on GVSoC's CCT_Int_ICCT 8 x 8 x 128
  -- H <-> W (64 rows of 128 bytes, code cold: 9,119 cycles on one core,
  -- 2,471 on 8; 61,901 / 9,916 byte by byte) and Kernel_Integer_
  -- Attention's three 128 rows of 8 (one core 5,781 cold, 5,393 / 5,605
  -- warm; 8 cores 1,916 / 1,477 / 1,640; 11,539 / 11,165 / 11,323 and
  -- 2,691 / 2,279 / 2,345 byte by byte); a graph input's element read
  -- from L2 (mem=l2 or tile; CCT_Int_ICCT's input 3 x 32 x 32 -> 32 x 32
  -- x 3: 124,051 / 17,594 cycles, 23.2 / 25.4 an element above the
  -- figures in L1)
  tp_word = 3.05, tp_l2 = 24,
  -- the contiguous rows' own code (htc__transpose_xp_rows and htc__xp_copy,
  -- a function of their own since 4dfbf9c) fetched cold beside the call's:
  -- GVSoC, Kernel_Integer_Attention's first 128 rows of 8 (16 x 8 x 8 ->
  -- 8 x 16 x 8) 5,944 cycles on one core, 2,210 on 8, its later ones (the
  -- code warm) 5,410 / 1,560; CCT_Int_ICCT's 64 rows of 128 9,356 / 2,721:
  -- 140-199 above the estimate without it on one core, 375-467 on 8;
  -- relative least squares on the four
  tp_wcold = 385,
  -- (at 8 cores the cores' strided loads and stores meet in L1's banks by
  -- the permutation: Conv_Regular_2D_RQ's 2 x 2048 -> 2048 x 2 (loads
  -- 2,048 bytes apart, the cores 256 bytes: all eight in one bank) and
  -- 59 x 27 x 4 -> 4 x 59 x 27, CCT_Int_ICCT's 64 x 192 -> 192 x 64 (the
  -- cores' stores 1,536 bytes apart: one bank) 1.5-4.4 an element above
  -- 1/8 of one core, MatMul_Regular_RQ's 2 x 48 x 64 -> 2 x 64 x 48 ~0.
  -- Rows of 64 bytes or more now start at a per-core element (htc__
  -- transpose_rows_at): CCT's 192 x 64 on 8 cores 14,985 -> 13,469, -16%
  -- from the estimate, was -23%; not modelled further)
}
-- the fork/join of the kernels with no parameter block to set up per core
-- (the cpu's fork, 952, is the convolutions'): fitted with the calls above
-- (the transposes' median); a table's with its code in the instruction
-- cache (MicroLlama's 8-core tables, QL_ELEM1 and refetch() below: 16
-- elements a core at code age 1 809-1,019 cycles, 32 at age 3 973-1,124),
-- a byte lookup's first run 213 more (tab_fork_cold: Deeploy's networks').
-- htc__share in 32-bit arithmetic (no libgcc 64-bit division per core, its
-- code cold in a network's first layer): the cpu's fork 1,352 -> 952 (every
-- 8-core layer of DS-CNN, ResNet, MobileNetV1 ~400 faster), the table's
-- 757 -> 459 (MicroLlama's tables' mean), tab_fork_cold 213 -> 0 (KWS's
-- first table 1,876 -> 1,302)
-- After htc__share's change the transposes' fork 692 -> 392 (GVSoC, 8
-- cores: miniMobileNet's two 1,622 / 2,085 cycles, Conv_DW_2D_RQ's 3,442 /
-- 2,556, MicroLlama's 1,670-1,804, each 130-480 below the old estimate)
-- and QuantLib's tables (htc__ql_table) 559 (MicroLlama's 8-core tables
-- 610-807 against 602 / 736 estimated with the byte lookup's 459; below)
-- QuantLib's tables and Adds (htc__ql_table, htc__ql_xadd) divided fork
-- in FORK_QL_TABLE / QLX_FORK with the arena in L1, QL_FORK_L2 more with
-- it in L2 (ARENA_PLAN: every core's loads and stores of the layer's
-- input and output through the cluster's one port to L2). GVSoC, 8 cores,
-- the cycles less the estimate without the fork (bench/fit_siracusa.py
-- --ql-fork, relative least squares): Deeploy's networks (arena in L1)
-- tables 270-484, Adds 179-199; MicroLlama's (N-EUREKA: arena in L2)
-- tables 406-608, Adds 344-502, whether the layer before forked or not
-- (after a one-core layer or an N-EUREKA job 406-608, after an 8-core one
-- 417-485), and whatever the code age of the last divided run (tables
-- run divided 1-3 layers before cost 620-720 as well)
local FORK_TABLE, FORK_TRANSPOSE, FORK_QL_TABLE, QL_FORK_L2 = 459, 392, 376, 136
-- the byte lookup's fork after an earlier divided layer (op.par_before > 0:
-- the fork's own code, sir_par_run and the workers' wake-up, already run),
-- FORK_TABLE being its first in a program (every network's input table it
-- was fitted on). GVSoC, 8 cores, the output table of single-softmax
-- networks built from Deeploy's Softmax_Regular, 32 to 2,048 bytes: 383 /
-- 612 / 636 / 890 / 2,982 cycles, 238-322 of fork (FORK_TABLE's first
-- tables: KWS's, miniMobileNet's, Conv_DW_2D_RQ's 395-412)
local FORK_TABLE_NEXT = 285
-- the cpu's fork (cpu.fork below): the convolutions'
local CPU_FORK = 952

-- the features of one call: { name = count }, cycles = sum K_[name] * count
local function conv_geometry(op)
  local C, OY, OX, K = op.in_shape[4], op.out_shape[2], op.out_shape[3], op.out_shape[4]
  return C, OY, OX, K, op.pointwise
end

-- htc.h htc__prq_ok (the FC's check) from the largest |bias| (TFLite's
-- multipliers are >= 0 and its shifts of scales below 1/2 within -31..-1)
local function rq_fast(op, taps)
  return taps < 32768 and op.bias_absmax < (1 << 30) - taps * 32640
end

-- The depthwise kernel's plane geometry for a call of `rows` x `cols`
-- outputs (htc__dwxg_make): lines along the longer output dimension
-- (input columns when the output is taller than wide and they fit)
local function dw_geom(op, rows, cols)
  -- the padding before (the op table has the total only by the shapes:
  -- half of it, as SAME puts it)
  local function before(o, st, k, dl, i)
    local t = (o - 1) * st + (k - 1) * dl + 1 - i
    return t > 0 and t // 2 or 0
  end
  local pt = rawget(op, "pad_top") or before(op.out_shape[2], op.stride_h, op.kernel_h, op.dilation_h, op.in_shape[2])
  local pl = rawget(op, "pad_left") or before(op.out_shape[3], op.stride_w, op.kernel_w, op.dilation_w, op.in_shape[3])
  local function g(tr)
    local r = {}
    if tr then
      r.na, r.nl, r.sa, r.sl, r.dl, r.da = rows, cols, op.stride_h, op.stride_w, op.dilation_w, op.dilation_h
      r.ka, r.kl, r.pa, r.ina = op.kernel_h, op.kernel_w, pt, op.in_shape[2]
      r.pl, r.inl = pl, op.in_shape[3]
    else
      r.na, r.nl, r.sa, r.sl, r.dl, r.da = cols, rows, op.stride_w, op.stride_h, op.dilation_h, op.dilation_w
      r.ka, r.kl, r.pa, r.ina = op.kernel_w, op.kernel_h, pl, op.in_shape[3]
      r.pl, r.inl = pt, op.in_shape[2]
    end
    r.L = ((r.na - 1) * r.sa + 4 + 3) // 4 * 4
    r.span = (r.kl - 1) * r.dl + 1
    r.fits = r.ka <= 4 and r.da == 1 and r.kl <= 8 and r.span <= 2048 // r.L
    return r
  end
  local t = g(true)
  if rows > cols and t.fits then return t end
  return g(false)
end

-- the features of one depthwise call (htc__dwconv2d_xp_body) on `channels`
-- channels of `rows` x `cols` outputs: per call, per channel (constants),
-- the padding words written once, per input pixel copied into four planes
-- (one word load) or one, per word of a line outside the input, per output
-- line of a channel (a hardware loop), per output (TFLite's or QuantLib's
-- epilogue), per misaligned window word (outputs not 4 bytes apart)
local function feat_dw(op, rows, cols, channels, ql, x2)
  local d = dw_geom(op, rows, cols)
  local C = op.in_shape[4]
  local grp = C % 4 == 0 and d.span <= 512 // d.L
  local PL = grp and 512 or 2048
  local n4 = grp and channels // 4 or 0
  local n1 = channels - 4 * n4
  local lines = PL // d.L
  local all = (d.nl - 1) * d.sl + d.span
  local j0 = math.min(d.pa, d.L)
  local j1 = math.max(j0, math.min(d.pa + d.ina, d.L))
  -- the padding words of each line: columns [0, j0) and [j1, L)
  local fill = math.min(lines, all) * ((j0 + 3) // 4 + (d.L - j1 // 4 * 4) // 4) * (grp and 4 or 1)
  local ny = (PL // d.L - d.span) // d.sl + 1
  if ny < 1 then ny = 1 end
  local inside, outside, chunks, y0 = 0, 0, 0, 0
  while y0 < d.nl do
    local y1 = math.min(d.nl, y0 + ny)
    local nrows, il0 = (y1 - 1 - y0) * d.sl + d.span, y0 * d.sl - d.pl
    for r = 0, nrows - 1 do
      local il = il0 + r
      if il < 0 or il >= d.inl then outside = outside + 1 else inside = inside + 1 end
    end
    chunks = chunks + 1
    y0 = y1
  end
  local n = rows * cols * channels
  local mis = ({ [1] = 3, [2] = 2, [3] = 3 })[d.sa] or 0
  -- outputs in pairs (htc__dw_xp_lines3p_*: stride 1, 3 x 3 taps or
  -- fewer along, lines of HTC__XP_DWPAIR = 12 or more): one word a line
  -- for two, half of them misaligned
  local np = (d.sa == 1 and d.na >= 12 and d.ka <= 3 and d.kl == 3) and d.na // 2 * 2 * d.nl * channels or 0
  return { dw_call = 1, dw_chan = channels, dw_fill = fill, dw_px4 = n4 * inside * (j1 - j0),
           dw_px1 = n1 * inside * (j1 - j0), dw_padw = (n4 * 4 + n1) * outside * d.L // 4,
           dw_line = channels * d.nl, dw_chunk = channels * chunks,
           dw_out = (ql or x2) and 0 or n, dw_out_ql = ql and n or 0, dw_out_x2 = x2 and n or 0,
           dw_mis = ((n - np) * mis + np) * d.kl // 4, dw_pair = np }
end

-- the padding before an output dimension (the op table has none: half of
-- the total, as SAME puts it)
local function pad_before(o, st, k, dl, i)
  local t = (o - 1) * st + (k - 1) * dl + 1 - i
  return t > 0 and t // 2 or 0
end

-- the pixel pairs of pixels [qa, qb) of an image that read their two
-- fields in place (kernels/conv2d.c htc__conv2d_xp_body, dr: pairs from
-- qa on, both pixels in one output row, both fields inside the image)
local function conv_inplace(op, qa, qb)
  local IH, IW, OX = op.in_shape[2], op.in_shape[3], op.out_shape[3]
  local kh, kw, sh, sw = op.kernel_h, op.kernel_w, op.stride_h, op.stride_w
  local pt = rawget(op, "pad_top") or pad_before(op.out_shape[2], sh, kh, 1, IH)
  local pl = rawget(op, "pad_left") or pad_before(OX, sw, kw, 1, IW)
  local n = 0
  for q = qa, qb - 2, 2 do
    local oy, ox = q // OX, q % OX
    local iy, ix = oy * sh - pt, ox * sw - pl
    if ox + 1 < OX and iy >= 0 and iy + kh <= IH and ix >= 0 and ix + sw + kw <= IW then n = n + 1 end
  end
  return n
end

-- kernels/conv2d.c htc__conv2d_xp_body's walk over pixels [qa, qb) of an
-- image: with quads (the records, every field row whole words, full
-- blocks), four pixels of one output row take a 4x4 block, their fields
-- in place when all are inside the image, else copied K4 apart when four
-- fit the column buffer (4 K4 <= 2304: htc__conv2d_xp_sel4's above 1152); the other pixels go by pairs,
-- in place when both fields are inside. Counts { quads in place, quads
-- copied, pairs, pairs in place } as one number each by w
local function conv_walk(op, qa, qb, quads, K4, w)
  local IH, IW, OX = op.in_shape[2], op.in_shape[3], op.out_shape[3]
  local kh, kw, sh, sw = op.kernel_h, op.kernel_w, op.stride_h, op.stride_w
  local pt = rawget(op, "pad_top") or pad_before(op.out_shape[2], sh, kh, 1, IH)
  local pl = rawget(op, "pad_left") or pad_before(OX, sw, kw, 1, IW)
  local n, q = 0, qa
  while q < qb do
    local oy, ox = q // OX, q % OX
    local iy, ix = oy * sh - pt, ox * sw - pl
    local rows = iy >= 0 and iy + kh <= IH
    if quads and q + 3 < qb and ox + 3 < OX and ((rows and ix >= 0 and ix + 3 * sw + kw <= IW) or 4 * K4 <= 2304) then
      n = n + ((rows and ix >= 0 and ix + 3 * sw + kw <= IW) and w[1] or w[2])
      q = q + 4
    else
      n = n + w[3]
      if q + 1 < qb and ox + 1 < OX and rows and ix >= 0 and ix + sw + kw <= IW then n = n + w[4] end
      q = q + 2
    end
  end
  return n
end

-- the fields of pixels [qa, qb) of an image that lie across its border
-- (kernels/conv2d.c htc__xp_field: htc__xp_im2col, a fill and a copy call
-- a row) or need it for their dilation: every field then
local function conv_border(op, qa, qb)
  if op.dilation_h ~= 1 or op.dilation_w ~= 1 then return qb - qa end
  local IH, IW, OX = op.in_shape[2], op.in_shape[3], op.out_shape[3]
  local kh, kw, sh, sw = op.kernel_h, op.kernel_w, op.stride_h, op.stride_w
  local pt = rawget(op, "pad_top") or pad_before(op.out_shape[2], sh, kh, 1, IH)
  local pl = rawget(op, "pad_left") or pad_before(OX, sw, kw, 1, IW)
  local n = 0
  for q = qa, qb - 1 do
    local oy, ox = q // OX, q % OX
    local iy, ix = oy * sh - pt, ox * sw - pl
    if iy < 0 or iy + kh > IH or ix < 0 or ix + kw > IW then n = n + 1 end
  end
  return n
end

-- kernels/conv2d.c htc__xp_paircost: nin pixel pairs reading their fields
-- in place, ncp copying them (the same integers)
local function xp_paircost(op, nin, ncp)
  local K, nb = op.kernel_h * op.kernel_w * op.in_shape[4], (op.out_shape[4] + 3) // 4
  local base = nb * (180 + 14 * ((K + 3) // 4))
  return nin * (base + 240 + 4 * nb * op.kernel_h) + ncp * (base + 2 * (K + K // 4 + 75 * op.kernel_h))
end

-- kernels/conv2d.c htc__xp_split: core's pixels [qa, qb) of a one-image
-- layer divided by pixel pairs (by their cost where the cores holding the
-- rows that copy every field would be busier by rows than the average by
-- more than a pair, rows of 16 pairs or more; evenly where the rows divide
-- unevenly over the cores), or nil (by rows)
local function xp_split(op, core, cores)
  local IH, IW, C = op.in_shape[2], op.in_shape[3], op.in_shape[4]
  local OH, OX, OC = op.out_shape[2], op.out_shape[3], op.out_shape[4]
  local kh, kw, sh, sw = op.kernel_h, op.kernel_w, op.stride_h, op.stride_w
  local pt = rawget(op, "pad_top") or pad_before(OH, sh, kh, 1, IH)
  local pl = rawget(op, "pad_left") or pad_before(OX, sw, kw, 1, IW)
  local npix, hw, nin, tb, bb = OH * OX, OX // 2, 0, 0, 0
  if cores > 1 and OX >= 32 and OX % 2 == 0 and op.dilation_h == 1 and op.dilation_w == 1 and (kw * C) % 4 == 0
     and OC % 4 == 0 then
    for j = 0, hw - 1 do
      local ix0 = 2 * j * sw - pl
      if ix0 >= 0 and ix0 + sw + kw <= IW then nin = nin + 1 end
    end
  end
  while nin > 0 and tb < OH and tb * sh - pt < 0 do tb = tb + 1 end
  while nin > 0 and bb < OH - tb and (OH - 1 - bb) * sh - pt + kh > IH do bb = bb + 1 end
  if nin > 0 and OH % cores == 0 and tb + bb > 0 then
    local rin, rcp = xp_paircost(op, nin, hw - nin), xp_paircost(op, 0, hw)
    local r = OH // cores
    local t0, b0 = math.min(tb, r), math.min(bb, r)
    local tot = (tb + bb) * rcp + (OH - tb - bb) * rin
    local c0, c1 = t0 * rcp + (r - t0) * rin, b0 * rcp + (r - b0) * rin
    if math.max(c0, c1) * cores - tot > xp_paircost(op, 0, 1) * cores then
      local function bound(t)
        local a = 0
        for oy = 0, OH - 1 do
          local rc = (oy < tb or oy >= OH - bb) and rcp or rin
          if a + rc > t then return 2 * (oy * hw + ((t - a) * hw + rc // 2) // rc) end
          a = a + rc
        end
        return npix
      end
      return bound(tot * core // cores), bound(tot * (core + 1) // cores)
    end
  end
  if OH % cores == 0 then return nil end
  local pr = (npix + 1) // 2
  local lo, hi = pr * core // cores, pr * (core + 1) // cores
  return 2 * lo, math.min(2 * hi, npix)
end

-- count(op, a, b) over the pixels of one call: [qa, qb) when the core's
-- pixel pairs were divided (xp_split), else the rows of its core (gen/
-- dispatch.c share) in every image, the whole images, or for an L1 band
-- (its position not known) the image's share of its P pixels
local function call_count(count, op, s, qa, qb, P)
  local OH, OX = op.out_shape[2], op.out_shape[3]
  if qa then return count(op, qa, qb) end
  if s.tile == 0 and s.cores > 1 and s.channels == op.out_shape[4] then
    local lo, hi = OH * s.core // s.cores, OH * (s.core + 1) // s.cores
    return op.batches * count(op, lo * OX, hi * OX)
  end
  if s.tile == 0 then return op.batches * count(op, 0, OH * OX) end
  return count(op, 0, OH * OX) * P // (OH * OX)
end

local function feat_conv(op, s)
  local C, _, OX, _, pw = conv_geometry(op)
  local ql = op.requant == "quantlib"
  local x2 = op.xq2 == 1
  local x4 = x2 and op.xq3u == 1
  if op.depthwise == 1 then
    local f = feat_dw(op, s.rows, s.cols, s.channels, ql, x2)
    f.band = s.tile
    return f
  end
  local K = op.kernel_h * op.kernel_w * C
  local K4 = pw and K or (K + 3) // 4 * 4
  local P = s.rows * s.cols
  -- one image divided by rows that do not divide evenly over the cores,
  -- or whose border rows would make their cores the busiest by more than
  -- a pixel pair (plain calls, htc__conv_rows_par): the XpulpV2 path
  -- divides its pixel pairs instead (htc__conv2d_xp_px, xp_split)
  local OH = op.out_shape[2]
  local qa, qb      -- (its pixels, when divided so)
  if not pw and s.tile == 0 and s.cores > 1 and s.channels == op.out_shape[4] and op.batches == 1 and K4 <= 576 then
    qa, qb = xp_split(op, s.core, s.cores)
    if qa then P = qb - qa end
  end
  local pairs = (P + 1) // 2
  -- full blocks of four channels (htc__xp_blk2x4) and a last partial one
  local full, part = s.channels // 4, s.channels % 4 > 0 and 1 or 0
  -- the requantization is checked per channel (htc__xrq_ok: it refuses
  -- only a multiplier or shift out of range, or h + c overflowing, which
  -- TFLite's layers do not reach; not known here): fast below 32768 taps
  local q = K < 32768
  -- pixel pairs reading their fields in place (htc__xp_dot2x4r: k_h runs of
  -- kernel_w * C bytes, whole words; every block a full one): no field
  -- copies; per block and run a pointer step and the outer hardware loop.
  -- The call's pixels: the rows or pixel pairs of its core (gen/dispatch.c
  -- share); an L1 band's position is not known: the image's share
  local ip, qin, qcp = 0, 0, 0
  -- a pointwise layer's four consecutive pixels (kernels/conv2d.c
  -- htc__conv2d_xp_quads: with records or QuantLib's requantization, K
  -- whole words of 16 bytes or more, full blocks, nb (85 - K) < 196 (98
  -- for QuantLib's) for the nb blocks of a 64-channel chunk): quads read
  -- in place, the pairs what they leave
  local nbq = math.min(s.channels, 64) // 4
  if pw and q and (x2 or ql) and K % 4 == 0 and K >= 16 and part == 0 and nbq * (85 - K) < (ql and 98 or 196) then
    local function pwq(o, a, b) return (b - a) // 4 end
    local function pwp(o, a, b) return ((b - a) % 4 + 1) // 2 end
    -- (an L1 band: its P pixels in one run)
    qin = s.tile == 0 and call_count(pwq, op, s, qa, qb, P) or pwq(op, 0, P)
    pairs = s.tile == 0 and call_count(pwp, op, s, qa, qb, P) or pwp(op, 0, P)
  end
  if not pw and q and op.dilation_h == 1 and op.dilation_w == 1 and (op.kernel_w * C) % 4 == 0 and part == 0 then
    if (x2 or ql) and op.kernel_w * C >= 16 then
      -- 4x4 blocks first (conv_walk; field rows of 16 bytes or more,
      -- kernels/conv2d.c htc__conv2d_xp_quads): the pairs are what they leave
      local function walk(w) return function(o, a, b) return conv_walk(o, a, b, true, K4, w) end end
      qin = call_count(walk({ 1, 0, 0, 0 }), op, s, qa, qb, P)
      qcp = call_count(walk({ 0, 1, 0, 0 }), op, s, qa, qb, P)
      pairs = call_count(walk({ 0, 0, 1, 0 }), op, s, qa, qb, P)
      ip = call_count(walk({ 0, 0, 0, 1 }), op, s, qa, qb, P)
    else
      ip = call_count(conv_inplace, op, s, qa, qb, P)
    end
  end
  local F = P - 4 * qin - 2 * ip
  -- the copied fields across the image's border (htc__xp_im2col), counted
  -- as the pairs in place above
  local B = 0
  if not pw then B = call_count(conv_border, op, s, qa, qb, P) end
  -- the weight rows copied K4 apart (K not a multiple of 4, a chunk of up
  -- to HTC__XP_OC = 64 channels fitting the column buffer after the two
  -- fields: htc__xp_copy and htc__xp_fill a row, every call)
  local wrows = 0
  if not pw and K4 > K then
    for c = 0, s.channels - 1, 64 do
      local n = math.min(64, s.channels - c)
      if (2 + n) * K4 <= 1152 then wrows = wrows + n end
    end
  end
  -- a receptive-field row shorter than 8 bytes: copied without the hardware loop
  local short = op.kernel_w * C < 8
  -- mem=l2 (no L1 tiles): a block's four weight rows read from L2 in
  -- place, one L2 load a row and word (rows not 4 bytes apart: misaligned,
  -- two); GVSoC, CCT_Int_ICCT's 3x3 conv of 3 channels (K = 27, 128
  -- channels, weights in L2): 5,061,539 cycles on one core, 707,592 on 8,
  -- against 1,188,150 / 165,690 with them in L1: 107 / 115 a word more
  local wl2 = 0
  if MEM == "l2" and wrows == 0 then wl2 = pairs * (full + part) * (K4 // 4) * (K4 > K and 2 or 1) end
  return { conv_word_l2 = wl2, conv_call = 1, conv_wsum = x2 and 0 or s.channels * K, conv_block = (ql or x2) and 0 or pairs * full,
           conv_block_ql = ql and pairs * full or 0, conv_block_x2 = (x2 and not x4) and pairs * full or 0,
           conv_block_x4 = x4 and pairs * full or 0, conv_pblock = pairs * part, conv_pwpair = pw and pairs or 0,
           conv_word = pairs * (full + part) * (K4 // 4), conv_out = q and P * s.channels or 0,
           conv_out_slow = q and 0 or P * s.channels, conv_field = (pw or short) and 0 or F * K,
           conv_frow = (pw or short) and 0 or F * op.kernel_h, conv_field_s = (short and not pw) and F * K or 0,
           conv_frow_s = (short and not pw) and F * op.kernel_h or 0, conv_ipair = ip, conv_irun = ip * full * op.kernel_h,
           conv_brow = (short or pw) and 0 or B * op.kernel_h, conv_bcall = (B > 0 and not short and not pw) and 1 or 0, conv_wrow = wrows,
           conv_quad = qin + qcp, conv_qblock = ql and 0 or (qin + qcp) * full, conv_qblock_ql = ql and (qin + qcp) * full or 0, conv_qblock_x4 = x4 and (qin + qcp) * full or 0,
           conv_qword = (qin + qcp) * full * (K4 // 4), conv_qrun = (qin * op.kernel_h + qcp) * full, band = s.tile }
end

local function feat_fc(op, s)
  local K = op.in_shape[#op.in_shape]
  local blocks = s.rows * ((s.channels + 3) // 4)
  local words = blocks * ((K + 3) // 4)
  local wl1 = MEM == "l1"     -- an FC has no L1 tiles: its weights are in L1 with mem=l1 only
  local n = s.rows * s.channels
  local q = rq_fast(op, K)
  local ql = op.requant == "quantlib"
  -- one core, undivided: the kernel reads its parameter block where the
  -- header keeps it (L2 unless mem=l1); divided, each core's copy on its
  -- stack. mem=tile: the input row is in L2 too (one more L2 load a word)
  return { fc_call = 1, fc_pl2 = (s.cores == 1 and not wl1) and blocks or 0, fc_xl2 = MEM == "tile" and words or 0,
           fc_block_l1 = wl1 and blocks or 0, fc_block_l2 = wl1 and 0 or blocks,
           fc_word_l1 = wl1 and words or 0, fc_word_l2 = wl1 and 0 or words, fc_out = (q and not ql) and n or 0,
           fc_out_ql = ql and n or 0, fc_out_slow = (q or ql) and 0 or n }
end

-- average pool (kernels/pool.c htc__avgpool_ch): per call, per output,
-- per window tap of a step of eight channels / of four (htc__avg_xp_sum:
-- two / one word loads and four pv.sdotsp.b a word), per run of taps in
-- one hardware loop (a window row, or the whole window when it spans the
-- input's rows), per tap of a channel summed byte by byte (not word-
-- aligned: C % 4 ~= 0, or the ends of a core's channel share); channels
-- in blocks of 64 from the core's first (htc__share); with mem=tile (an
-- L1 band), per output more
local function feat_pool(op, s)
  local IH, IW, C = op.in_shape[2], op.in_shape[3], op.in_shape[4]
  local px = s.rows * s.cols
  local kh, kw = math.min(op.kernel_h, IH), math.min(op.kernel_w, IW)
  local taps, runs = kh * kw, kw == IW and 1 or kh
  local lo = s.channels == C and 0 or C * s.core // s.cores
  local w8, w4, nb = 0, 0, 0
  local c0 = lo
  while c0 < lo + s.channels do
    local n = math.min(64, lo + s.channels - c0)
    local ja, jb = 0, 0
    if C % 4 == 0 then
      ja = math.min((4 - c0 % 4) % 4, n)
      jb = ja + (n - ja) // 4 * 4
    end
    w8 = w8 + (jb - ja) // 8
    w4 = w4 + (jb - ja) % 8 // 4
    nb = nb + n - (jb - ja)
    c0 = c0 + 64
  end
  return { pool_call = 1, pool_out = px * s.channels, pool_w8 = px * taps * w8, pool_w4 = px * taps * w4,
           pool_run = px * runs * (w8 + w4), pool_in = px * taps * nb,
           pool_out_t = MEM == "tile" and px * s.channels or 0, band = s.tile }
end

-- max pooling (htc__maxpool_xp): per call, per output pixel, per pair of
-- words of four channels (an odd last word one more), per window row and
-- per window tap of a pair, per tap of a channel past the last whole word
-- (the scalar loop)
local function feat_maxpool(op, s)
  local px = s.rows * s.cols
  local pairs, tail = (s.channels // 4 + 1) // 2, s.channels % 4
  local taps = op.kernel_h * op.kernel_w
  return { mp_call = 1, mp_px = px, mp_pair = px * pairs, mp_row = px * pairs * op.kernel_h,
           mp_tap = px * pairs * taps, mp_byte = px * tail * taps, band = s.tile }
end

local function feat_add(op, s)
  local n = s.rows * s.channels
  if op.xq2 == 1 then
    local clip = op.qmin == -op.qmax - 1
    return { add_call_x = 1, add_elem_x = clip and n or 0, add_elem_xm = clip and 0 or n }
  end
  return { add_call = 1, add_elem = n }
end

-- htc__lut8_par divides the elements (not rows) over the cores
local function feat_table(op, s)
  local n = 1
  for i = 1, #op.out_shape do n = n * op.out_shape[i] end
  local share = n * (s.core + 1) // s.cores - n * s.core // s.cores
  return { tab_call = 1, tab_elem = share, tab_l2 = MEM ~= "l1" and share or 0,
           tab_fork_cold = s.cores > 1 and cold(op) and 1 or 0 }
end

-- its code is cold too when a convolution ran on the cluster since its last
-- call (op.code_conv: the XpulpV2 convolutions' code displaces it, whatever
-- the code age; GVSoC, miniMobileNet's 128 x 2 transpose after four
-- convolutions, code age 4: 2,463 cycles on 8 cores after cluster
-- convolutions, 2,111 after N-EUREKA's jobs; 7,049 / 6,939 on one core)
local function tp_cold(op)
  return cold(op) or (rawget(op, "code_conv") or 0) > 0
end

-- a row of bytes read contiguously (op.inner_stride 1): copied by words
-- (htc__xp_copy), its last n % 4 bytes per element; a graph input's
-- elements read from L2 unless mem=l1 (op.in_graph: the caller's buffer)
local function feat_transpose(op, s)
  local n = s.rows * s.channels
  local bytes = op.out_type == "int8" or op.out_type == "uint8"
  local contig = bytes and rawget(op, "inner_stride") == 1
  local words = contig and s.rows * (s.channels // 4) or 0
  return { tp_call = 1, tp_cold = tp_cold(op) and 1 or 0, tp_wcold = (contig and tp_cold(op)) and 1 or 0,
           tp_row = s.rows, tp_elem = n - 4 * words, tp_word = words,
           tp_l2 = (rawget(op, "in_graph") == 1 and MEM ~= "l1") and n or 0 }
end

local function feat_softmax(op, s)
  return { sm_call = 1, sm_elem = s.rows * s.channels }
end

-- which calls the features describe: TFLite's arithmetic (the XpulpV2
-- paths; a convolution's receptive field up to HTC__XP_COLS = 576 bytes, a
-- depthwise kernel up to 4 wide, 8 high, depth multiplier 1)
local function tflite(op) return op.requant == "tflite" end
-- QuantLib's layers with RequantShift take the same paths (kernels/conv2d.c
-- htc__ql_conv_xp: dense or depthwise; fc.c htc__ql_fc_xp: alpha 1)
local function xp_arith(op)
  return op.requant == "tflite" or (op.requant == "quantlib" and op.int32_out == 0 and rawget(op, "ql_shift") ~= nil)
end
local function xp_conv(op)
  if not xp_arith(op) then return false end
  local C, OY, OX, _, pw = conv_geometry(op)
  if op.depthwise == 1 then
    return op.depth_multiplier == 1 and dw_geom(op, OY, OX).fits
  end
  if op.requant == "quantlib" and op.groups ~= 1 then return false end
  return pw or (op.kernel_h * op.kernel_w * C + 3) // 4 * 4 <= 576
end
local function xp_fc(op)
  return op.requant == "tflite" or (xp_arith(op) and op.weight_batches == 1)
end
local function xp_pool(op) return true end

-- the output elements of a shape
local function numel(shape)
  local n = 1
  for i = 1, #shape do n = n * shape[i] end
  return n
end

local conv_float = by_arith(2.5, 3.0, 8, 4.0)
local function conv_per_mac(op)
  if op.requant ~= "tflite" then return conv_float(op) end
  return op.depthwise == 1 and 4.0 or 1.0
end

-- cycles of one call from its features; a call the features do not
-- describe (other arithmetic: the generic loops) costs its share of the
-- outputs times the layer's per-MAC and per-element figures (the op entry's)
local function call_cycles(feat, fits)
  return function(op, s)
    if not fits(op) then return nil end
    local f = feat(op, s)
    -- summed in the order of the names: pairs' order follows the string
    -- hashes, whose seed depends on the heap, and float sums round by order
    local ks = {}
    for k in pairs(f) do ks[#ks + 1] = k end
    table.sort(ks)
    local c = 0
    for _, k in ipairs(ks) do c = c + K_[k] * f[k] end
    return c
  end
end

-- QuantLib's matmuls with k, n <= 16 (kernels/fc.c htc__ql_fc_small, by
-- rows: MicroLlama's per-head attention matmuls of two activations and
-- its 16 x 4 x 4 one of constant weights): per output (a word of k at a
-- time), per output and byte of k past its last word, and per call with
-- its code cold (cold() above). GVSoC, MicroLlama's last token at 8 cores
-- (constants in L1; the fork 1,352 and overhead 26 on top): 16 x 4 x 4
-- 1,785-1,930 warm, 2,495-2,594 cold; 16 heads x 1 x 4 -> 2 warm
-- 1,478-1,622; 16 x 1 x 2 -> 4 cold 2,413-2,509; on one core (cold)
-- 16 x 1 x 4 -> 2 2,592, 16 x 1 x 2 -> 4 5,040 (the tail's figure between
-- the one-core and 8-core runs)
-- Refitted with Deeploy's Kernel_Integer_Attention on one core (its
-- q.k^T, 128 rows of 16 outputs, k = 8: 78,651 cycles; attention.V with
-- the softmax's offset a_off = 128, 128 rows of 8, k = 16: 241,024) and
-- MicroLlama's one-core figures above: per row (the batch and row index,
-- the pointers), per output, per word of k (a pv.sdotsp.b and two loads)
-- when neither operand has an offset, else per byte of k (the scalar loop
-- with the offsets added, every byte; op.ql_fc_offs, gen/target_call.c)
-- A warm call (code age up to CODE_WARM) fetches again the part of its
-- code that the layers run since evicted (refetch() above; QL_MM_REFETCH
-- all of it): GVSoC, MicroLlama's last token at 8 cores, its 16 x 4 x 4 at
-- code age 5 over five code layouts (this build, -falign-functions=32 / 64,
-- -falign-loops=32, htc__ql_requant 16 bytes shorter): 1,734-2,186, mean
-- 1,953 (without the term estimated 1,733: -11.3% on the mean, down to
-- -20.7%); at code age 0 1,436-1,854, mean 1,600 (estimate 1,609)
local QL_MM_ROW, QL_MM_OUT, QL_MM_WORD, QL_MM_TAIL, QL_MM_COLD, QL_MM_REFETCH = 53.5, 27, 4, 13.4, 742, 352
-- QuantLib's MatMul / Gemm on htc__ql_fc_xp (op.ql_fc_xp): per call, per
-- column of the core's share when the exactness check passes
-- (htc__ql_fc_xp_exact: 64-bit products a column; when it fails it stops
-- at the first), per row (the batch / row division, b_off's row sum), per
-- block of 4 columns (the pointers, the accumulators at the bias, the call
-- of htc__xp_dot1x4w), per word of its loop (5 loads, 8 pv.sdotsp.b: the
-- dot products and the weight sums; weights in L2 fc_word_l2's extra),
-- per output (a_off times the weight sum, htc__xql_make's 64-bit constant
-- and htc__xql_apply, the clamp, the store) or per output by htc__ql_rq
-- (64-bit) when not exact. GVSoC, Deeploy's Kernel_Integer_Attention at 1
-- and 8 cores (16 rows x 64 -> 64: 161,266-162,164 / 25,153-25,328 cycles;
-- 16 x 128 -> 64, a_off 128: 214,419 / 31,917; 16 x 64 -> 128 not exact:
-- 383,782 / 50,366)
local QLX_CALL, QLX_COL, QLX_ROW, QLX_BLOCK, QLX_WORD, QLX_OUT, QLX_OUT_SLOW = 300, 60, 50, 70, 12.8, 84.6, 118.6
-- mem=l2: per output its column's constants (bias, mul, add) loaded from
-- L2; GVSoC, CCT_Int_ICCT's eight MatMuls on one core (12,288 outputs of
-- k = 128: 9,053,913 cycles; 8,192 of 192, 4,096 of 192 and 12,288 of 64
-- of two activations, 32,768 of 128, 8,192 of 512): 82-157 an output
-- above the figures with them in L1, 88 the median (91 at 8 cores)
local QLX_OUT_L2 = 90
-- constant weights in L2 (mem=l2 or tile), per column of the share: its
-- row of weights' first loads from L2 (one row of activations hides none
-- of them: GVSoC, CCT_Int_ICCT's classifier 1 x 128 -> 10, 11,193 cycles on
-- one core, 4,822 on 8, 1,731 / 772 above the estimate without it; its
-- 64-row MatMuls (0.1-0.4% of theirs) within 3% either way)
local QLX_COL_L2 = 173
local function ql_fc_exact(op, K)
  local s = op.ql_shift
  local c = op.ql_add_absmax + (s > 0 and (1 << (s - 1)) or 0) + math.abs(op.out_zp) * (1 << s)
  return (op.bias_absmax + K * 255 * 255) * op.ql_mul_absmax + c <= 2147483647
end
-- QuantLib's MatMul / Gemm the XpulpV2 paths do not take (alpha ~= 1, a
-- bias or requantization per row, an int32 output: htc__fc_core's C loop,
-- htc__dot4_s8_c, four columns a pass): per MAC, per int32 output, per
-- output through the generic QuantLib epilogue (htc__epi_put: the row's
-- bias, 64-bit RequantShift). GVSoC, 8 cores (8 / 4 rows a core, k = 48):
-- Deeploy's MatMul_Regular_RQ (int32 out, 64 columns) 183,977 cycles, its
-- GEMM_Regular_RQPerRow (alpha 2, per-row bias and requantization)
-- 132,896; 1,026,687 on one core. The MAC / output split assumed (one k
-- measured): 20 an int32 store
local QLG_MAC, QLG_OUT32, QLG_OUT = 7.0, 20, 177
-- htc__fc_xp divided over the cores with its code cold (its first call):
-- the cores fetch the same lines from L2 together. GVSoC, 8 cores, the
-- one FC of DS-CNN (64 -> 12) 2,187-2,249 and ResNet (64 -> 10) 2,110-
-- 2,155 against 1,851 without it (the features' sum, which holds at one
-- core: +5.8% / +3.5%); fitted on those two, the cause not measured apart
local FC_COLD_PAR = 350
local fc_xp_cycles = call_cycles(feat_fc, xp_fc)
local function fc_cycles(op, s)
  local K, N = op.in_shape[#op.in_shape], op.out_shape[#op.out_shape]
  local xp = rawget(op, "ql_fc_xp")
  if op.requant == "quantlib" and xp == 0 then
    local n = s.rows * s.channels
    return n * (QLG_MAC * K + (op.int32_out == 1 and QLG_OUT32 or QLG_OUT))
  end
  if xp_arith(op) and op.requant == "quantlib" and K <= 16 and N <= 16 and s.channels == N then
    local k4 = rawget(op, "ql_fc_offs") == 1 and 0 or K // 4 * 4
    return QL_MM_ROW * s.rows + (QL_MM_OUT + QL_MM_WORD * k4 // 4 + QL_MM_TAIL * (K - k4)) * s.rows * s.channels
           + (cold(op) and QL_MM_COLD or QL_MM_REFETCH * refetch(op))
  end
  if xp == 1 and xp_arith(op) then
    local fast = ql_fc_exact(op, K)
    local blocks = s.rows * ((s.channels + 3) // 4)
    -- (the L2 loads: mem=tile, or mem=l2's constant weights; a matmul of
    -- two activations with mem=l2, e.g. CCT_Int_ICCT's attention, reads
    -- both from the arena in L1)
    local wl2 = MEM == "tile" or (MEM == "l2" and op.weight_const == 1)
    local word = QLX_WORD + (wl2 and K_.fc_word_l2 - K_.fc_word_l1 or 0)
    local out = (fast and QLX_OUT or QLX_OUT_SLOW) + (MEM == "l2" and QLX_OUT_L2 or 0)
    return QLX_CALL + (fast and s.channels or 1) * QLX_COL + (wl2 and QLX_COL_L2 * s.channels or 0) + QLX_ROW * s.rows + QLX_BLOCK * blocks
           + word * blocks * ((K + 3) // 4) + out * s.rows * s.channels
  end
  return fc_xp_cycles(op, s) + ((s.cores > 1 and cold(op)) and FC_COLD_PAR or 0)
end

-- QuantLib's iSoftmax in 32 bits (kernels/qlib_norm.c htc__ql_softmax32,
-- its checks and z's divisor in final form at compile time): per row of
-- the core's share and per element (the max, the exponential, a division
-- by the row's sum), and its code's first fetch (refetch()); a kernel that
-- one layer alone calls (op.code_sites 1) is inlined there and specialised
-- to its depth and coefficients by the compiler (its loops unrolled: rows
-- of 2 cheaper an element than rows of 64), else the generic code. GVSoC,
-- relative least squares, each within 7%: alone (Deeploy's
-- Softmax_Regular 24 rows of 8, 10,583 cycles on one core, 1,937 on 8;
-- Attention's 128 of 16, 116,498 / 15,172; networks of one softmax built
-- from Softmax_Regular's, 16 rows of 2, 6 of 64, 48 of 4, 8 of 32, with
-- and without a folded table: 1,452-20,153 / 732-3,990); generic (two
-- softmaxes in a row with different coefficients, 24 of 8, 16 of 2, 6 of
-- 64, 128 of 16: the first 3,074-145,680 / 1,407-19,166 (cold, a table),
-- the second 2,328-125,141 / 658-16,034; MicroLlama's eight at 8 cores,
-- 1,388-1,474). The fork (softmax's fork() below) of each fitted with them.
local QL_SM_SPEC = { row = -19.5, elem = 56.5, fork = 586 }
local QL_SM_GEN = { row = 21.6, elem = 59.3, fork = 388, cold = 713 }
-- the folded RequantShift's byte table (op.ql_sm_tab, gen/qlib.c) per
-- element of the share (GVSoC, one core: 24 rows of 8 12,376 with it,
-- 10,583 without; 16 of 2 1,791 / 1,476)
local QL_SM_TAB_ELEM = 9.3
local sm_xp_cycles = call_cycles(feat_softmax, tflite)
-- QuantLib's ITAMax (htc__ql_softmax kind 1: powers of two, the
-- reciprocal once a row, a 64-bit shift an element): per row and element;
-- GVSoC, CCT_Int_ICCT's 64 rows of 64 (weights in L2): 188,158 cycles on
-- one core, 24,291 on 8
local QL_ITA_ROW, QL_ITA_ELEM = 60, 44.5
local function ql_isoftmax(op)
  return op.requant == "quantlib" and op.source ~= "ITAMax"
end
local function sm_cycles(op, s)
  if op.requant == "quantlib" and op.source == "ITAMax" then
    return s.rows * (QL_ITA_ROW + QL_ITA_ELEM * s.channels)
  end
  if ql_isoftmax(op) then
    local n = s.rows * s.channels
    local tab = rawget(op, "ql_sm_tab") == 1 and QL_SM_TAB_ELEM * n or 0
    if rawget(op, "code_sites") == 1 then return QL_SM_SPEC.row * s.rows + QL_SM_SPEC.elem * n + tab end
    return QL_SM_GEN.cold * refetch(op) + QL_SM_GEN.row * s.rows + QL_SM_GEN.elem * n + tab
  end
  return sm_xp_cycles(op, s)
end
local function sm_fork(op)
  if not ql_isoftmax(op) then return 1352 end
  return rawget(op, "code_sites") == 1 and QL_SM_SPEC.fork or QL_SM_GEN.fork
end

-- QuantLib's small element-wise layers (MicroLlama's 2 to 256 elements):
-- per call the code's first run from L2 (instruction-cache misses) and the
-- parameter set-up, then per element of the core's share. GVSoC, one core
-- / 8 cores, less the fork (1,352) and the layer's overhead (26, mem=l1):
-- Add 64 elements ~3,474 / 1,295 (8 a core), Mul 256 ~10,099 / 2,376;
-- iRMSNorm 64 ~9,674 / 2,947 (its call also the row's statistics on every
-- core: a 64-bit square an element of the whole row and the isqrt; per
-- output a 64-bit division); Requantize of 2 elements 771; concat
-- (htc__concat) 16 rows of 2 pieces of 4 bytes 1,631 (per piece the loop
-- and a word copy).
-- The Add's terms, with its code cold (cold() above) 579 more: relative
-- least squares on MicroLlama's last token at 8 cores (64 elements at code
-- age 2: 2,309-2,521; age 10: 3,113-3,296; the mask add, 16 rows of 2 at
-- age 13: 2,837-3,103) and the one-core runs above (first runs, cold):
-- each within 7%.
-- The table (htc__ql_table: four lookups, then their four stores; 5.75
-- instructions an element), with its code fetched again by its code age
-- (refetch() above; 140 all of it): relative least squares on MicroLlama's
-- last token on one core (64 elements at code ages 1 to 5 and the first
-- call, 32 at ages 3 and 4: 335-415 cycles), each within 13.1%; on 8 cores
-- the fork covers its call (FORK_TABLE), per element of a core's share and
-- the refetch the same (each within 11.7%). The spread at one code age:
-- the call site's and the kernel's instruction-cache misses (GVSoC's
-- counter: 78-250 cycles for the same 64-element layer). Its table in L2
-- (mem=tile / l2; examples/llama SIR_MEM=l2) 11.9 more an element (GVSoC,
-- MicroLlama's tables with constants in L2: each layer within 11.4%).
-- An int32 output (a table of no RequantShift after it: its loop one
-- element at a time) 4.1 more (GVSoC, Deeploy's Hardswish_Regular, 1,000
-- elements: 11,066 cycles on one core, 1,891 on 8 (130 a core, its code
-- cold), 4.6 / 3.8 apart; 4.1 puts both the layer and the network's total
-- within 5%).
local QL_TABLE_L2 = MEM == "l1" and 0 or 11.9
-- A RequantShift alone (htc__ql_requant, one core: htc__ql_requant_span
-- on every element): per element 36.2 (htc__ql_rq's 64-bit product, shift
-- and clamp: GVSoC, Deeploy's TrueIntegerDiv 1,024 int32 elements 38,064
-- cycles on one core, MatMul_Regular_RQ's 4,096 147,852; 39,110 / 188,664
-- with a channel index, a division and a remainder, an element), per
-- call on one core 689 (MicroLlama's 2 elements ~790 with the overhead; on
-- 8 cores the fork covers it). On more cores each core's share of the
-- elements, whatever its channel periods (htc__ql_requant_span: a channel's
-- constants once a run of it, the parameters in locals): per element 34.2
-- (GVSoC at 8 cores, 128 / 512 elements a core: TrueIntegerDiv 5,853,
-- MatMul_Regular_RQ 18,840, each within 2%; shares of whole periods ran
-- MatMul_Regular_RQ's one period of 2 x 2,048 on one core: 193,314)
local QL_REQUANT_PAR = 34.2
-- The generic Add (htc__ql_binary: broadcasting, or its constants in L2
-- where htc__ql_xadd's tables are not written) refitted per element on a
-- large layer, its call from the small ones: GVSoC, Deeploy's CCT_Int_ICCT
-- (mem=l2) two Adds of 8,192 elements 209,149-209,715 cycles on one core,
-- 28,729-29,094 on 8 (25.5 an element); MicroLlama's 64 elements ~3,474 on
-- one core (a call of 1,236) and 2,309-2,521 at 8 cores (830: the fork
-- covers part of it), its mask add (16 rows of 2) 2,837-3,190
-- (the table's call 83.6: MicroLlama's one-core 32-element tables after
-- its softmax, 428-449, took it to 113.6 while they were layers; folded
-- into the softmax (op.ql_sm_tab) the others, 335-419, are left)
local QL_CALL = { add = 1236, mul = 1273, norm = 1986, table = 83.6, requantize = 689 }
local QL_CALL_PAR = { add = 830 }
local QL_ELEM1 = { add = 25.5, mul = 34.5, norm = 120, table = 6.19, requantize = 36.2 }
local function table_elem(op)
  return QL_ELEM1.table + QL_TABLE_L2 + (rawget(op, "out_type") == "int32" and 4.1 or 0)
end
-- the generic Add / Mul's code (htc__ql_binary_run) fetched from L2 when
-- cold: MicroLlama's rotary Mul at 8 cores, its last use 20 layers back
-- (the residual Adds run htc__ql_xadd), 4,298-4,435 cycles against 3,709-
-- 4,010 while those Adds ran the same code
local QL_COLD = { add = 579, mul = 579 }
local QL_EW32_CALL, QL_EW32_ELEM = 259.6, 16.94
local QL_REFETCH = { table = 140 }
local QL_BCAST_ROW = { add = 111, mul = 126 }
local CONCAT_CALL, CONCAT_PIECE, CONCAT_BYTE = 863, 20, 1
-- QuantLib's Add through its tables in final form (op.xq2, kernels/mul.c
-- htc__ql_xadd: htc__xadd_run, the TFLite ADD's loop): per call and
-- element the ADD's terms (add_call_x, add_elem_x / add_elem_xm), QLX_COLD
-- more with its code cold (the part refetched, refetch()); divided, a fork of QLX_FORK in place of the
-- cpu's (no parameter block copied per core: add_fork). GVSoC, Deeploy's
-- Add_Regular_RQ (16,384 elements): 164,134 cycles on one core, 21,350 on
-- 8; Attention's two of 1,024 (cold, warm) 10,516 / 10,420 on one core,
-- 2,112 / 2,005 on 8; MicroLlama's of 64 on one core 911-1,097, on 8
-- 1,024-1,225. The fork these gave: 430-470 in Deeploy's Add networks,
-- 650-770 in MicroLlama's (the workers fetching the code from L2 after
-- N-EUREKA's layers); with htc__share in 32-bit arithmetic Attention's
-- 1,938 / 1,785 and Add_Regular_RQ's 21,136 at 8 cores: 160-260,
-- MicroLlama's 64 elements at 8 cores 823-1,016: 400 fits each within 15%
-- (now QLX_FORK 279 with the arena in L1, + QL_FORK_L2 in L2: above)
-- Its code (htc__xadd_run, short) stays longer than CODE_WARM layers: the
-- part refetched is age / (QLX_WARM + 1), all of it past QLX_WARM or with
-- none earlier. GVSoC, MicroLlama's last token at 8 cores: its residual
-- Adds after the MLP (code age 7) 761-863 cycles, after the attention
-- (cold, 37 layers) 905-1,016; QLX_COLD by relative least squares on them
-- and Deeploy's Attention (cold / age 4: 10,516 / 10,420 on one core,
-- 1,938 / 1,785 on 8) and Add_Regular_RQ (cold: 164,134 / 21,136), the
-- other terms kept: each within 12.1% (with CODE_WARM and 110: MicroLlama's
-- cold Adds down to -15.3%)
local QLX_COLD, QLX_FORK, QLX_WARM = 201.3, 279, 15
local function qlx_cycles(op, s)
  local n = s.rows * s.cols * s.channels
  local c = K_.add_call_x + (op.qmin == -op.qmax - 1 and K_.add_elem_x or K_.add_elem_xm) * n
  return c + QLX_COLD * refetch(op, QLX_WARM)
end
local function add_fork(op)
  return (op.requant == "quantlib" and op.xq2 == 1) and QLX_FORK + (ARENA_PLAN == "L2" and QL_FORK_L2 or 0) or CPU_FORK
end

local function ql_cycles(kind, other)
  return function(op, s)
    if op.requant ~= "quantlib" then return other and other(op, s) or nil end
    if kind == "table" and s.cores > 1 then   -- the core's share + FORK_TABLE
      return table_elem(op) * s.rows * s.cols * s.channels + QL_REFETCH.table * refetch(op)
    end
    -- a broadcasting Add / Mul (htc__ql_ew_fast): per row of the last
    -- dimension the index walk (MicroLlama's mask add, 16 rows of 2 on one
    -- core 4,246: 111 a row past the elements, the Add's fit; Mul's 126,
    -- the fit before it)
    if kind == "add" and op.xq2 == 1 then return qlx_cycles(op, s) end
    local walk = (kind == "add" or kind == "mul") and rawget(op, "broadcast") == 1 and QL_BCAST_ROW[kind] * s.rows or 0
    local fetch = QL_COLD[kind] and cold(op) and QL_COLD[kind] or 0
    if QL_REFETCH[kind] then fetch = QL_REFETCH[kind] * refetch(op) end
    -- an Add / Mul to int32, no RequantShift (the generic htc__ew_core,
    -- one element a pass): per call and element; GVSoC, Deeploy's
    -- Kernel_Integer_Add_Regular (125 elements: 2,385 cycles on one core,
    -- 1,577 on 8 since htc__share's 32-bit arithmetic, 20 a core; the
    -- cpu's fork kept: each exact, the network's totals -1.5% / +1.9%;
    -- 395 + 15.9 an element, fitted on 2,171 at 8 cores, gave +7.2%)
    if (kind == "add" or kind == "mul") and rawget(op, "out_type") == "int32" then
      return QL_EW32_CALL + QL_EW32_ELEM * s.rows * s.cols * s.channels
    end
    local elem = kind == "table" and table_elem(op) or QL_ELEM1[kind]
    if kind == "requantize" and s.cores > 1 then elem = QL_REQUANT_PAR end
    local call = (kind == "requantize" and s.cores > 1) and 0 or QL_CALL[kind]
    if s.cores > 1 and QL_CALL_PAR[kind] then call = QL_CALL_PAR[kind] end
    return call + elem * s.rows * s.cols * s.channels + walk + fetch
  end
end
-- QuantLib's norms (kernels/qlib_norm.c htc__ql_norm_cols): iRMSNorm /
-- iLayerNorm per call, per row of the core's share its statistics over the
-- whole row (a 64-bit square an element, the isqrt), per output of the
-- share (a 32-bit division by the deviation, the shift, the clamp);
-- iNoNorm (op.source, no statistics: split by elements) per output (two
-- 64-bit products). GVSoC, Deeploy's Kernel_Integer_RMSNorm (16 rows of
-- 64: 94,957 cycles on one core, 13,310 on 8, 2 rows a core) and
-- MicroLlama's iRMSNorm at 8 cores (64 by channels, 8 outputs a core:
-- ~2,947 less the fork); Kernel_Integer_iNoNorm 16,384 elements 983,144 on one core.
-- (MicroLlama's one-core norms, first runs with the code cold, ~9,674:
-- 38% above this)
-- iLayerNorm (op.source; kind 0: a mean pass over the row, the bias added
-- per output, c * w / sd quotients of ~20 bits with its weights of ~2^18)
-- per output 100.5: GVSoC, CCT_Int_ICCT's first iLayerNorm (64 rows of
-- 128) alone with w and b in L1, 1,116,188 cycles on one core; w and b in
-- L2 (mem=l2 / tile: CCT_Int_ICCT's) 24.1 more per output and vector
-- read, 1,511,646 / 757,364 / 190,770 cycles at 1 / 2 / 8 cores (after
-- htc__ql_norm_cols took its parameters into locals: one core read them
-- from L2 an element, 2,241,187)
local QLN_CALL, QLN_ROW, QLN_STAT, QLN_OUT, QLN_NONORM = 72, 300, 33.4, 54.6, 60
local QLN_OUT_LN, QLN_W_L2 = 100.5, MEM == "l1" and 0 or 24.1
local function norm_cycles(op, s)
  if op.requant ~= "quantlib" then return nil end
  if op.source == "iNoNorm" then return QLN_NONORM * s.rows * s.cols * s.channels end
  local depth = op.out_shape[#op.out_shape]
  local ln = op.source == "iLayerNorm"
  local out = (ln and QLN_OUT_LN or QLN_OUT) + (ln and 2 or 1) * QLN_W_L2
  return QLN_CALL + s.rows * s.cols * (QLN_ROW + QLN_STAT * depth + out * s.channels)
end

-- QuantLib's means (htc__ql_mean_range, the outputs divided over the
-- cores): per output a 64-bit floor division (100, assumed) and per input
-- element summed (htc__ql_ld, a 64-bit add); GVSoC, Deeploy's
-- Kernel_Integer_ReduceMean (1,536 outputs of 32: 604,602 cycles on one core)
local QLM_OUT, QLM_IN = 100, 9.2
local function mean_cycles(op, s)
  if op.requant ~= "quantlib" then return nil end
  local red = numel(op.in_shape) // math.max(1, numel(op.out_shape))
  return s.rows * s.cols * s.channels * (QLM_OUT + QLM_IN * red)
end

local function concat_cycles(op, s)
  local ins, outs, outer, n = op.in_shape, op.out_shape, 1, 1
  local numel = function(t) local k = 1 for _, d in ipairs(t) do k = k * d end return k end
  for i = 1, #outs do
    if ins[i] ~= outs[i] then break end
    outer = outer * outs[i]
  end
  n = math.max(1, numel(outs) // math.max(1, numel(ins)))
  return CONCAT_CALL + CONCAT_PIECE * outer * n + CONCAT_BYTE * numel(outs)
end

return target "siracusa" {
  description = "Siracusa: fabric controller + 8-core RV32 cluster, 256 KiB L1 (16 banks), 2 MiB L2, cluster DMA",
  clock_mhz = CLOCK,

  memory = {
    L2 = { size = L2_KIB * KiB, alignment = 16, energy = { pj_per_byte = GV_L1_ACCESS_PJ / 4 } },
    -- the cluster's TCDM; the DMA figures are GVSoC's (16 KiB L2 -> L1 in
    -- 2,125 cycles: ~8 bytes per cycle)
    L1 = { size = L1_KIB * KiB, alignment = 16,
           dma = { bytes_per_cycle = 8, setup = 80, pj_per_byte = GV_DMA_ACTIVE_MW * 1e3 / (8 * CLOCK) },
           energy = { pj_per_byte = GV_L1_ACCESS_PJ / 4,
                      static_mw = GV_L1_BANKS * GV_L1_BANK_LEAK_MW + GV_DMA_IDLE_MW } },
    WMEM = { size = WMEM_KIB * KiB, alignment = 16, dma = { bytes_per_cycle = 8, setup = 80 } },
  },

  cpu = {
    name = "cluster",
    isa = { "xpulpv2" },   -- the kernels' XpulpV2 paths (-DHTC_XPULPV2 in the firmware's build)
    -- a busy core-cycle: one instruction; the cores' leakage and the cluster's background
    energy = { pj_per_cycle = GV_INSN_PJ, static_mw = GV_PES * GV_CORE_LEAK_MW + GV_CLUSTER_MW },
    -- the arena: in L2 with L1 tiles (mem=tile), else in L1 (no tiles;
    -- planned apart from L1 with N-EUREKA, whose tiles the plan puts there)
    memory = ARENA_PLAN,
    cores = CORES,
    -- the XpulpV2 paths' compile-time constants in the header (TFLite's
    -- requantization in final form, htc.h htc__xq2_apply, 28 bytes an
    -- output channel) where
    -- the constants are in L1; from L2 (mem=tile, l2) the kernels' reads of
    -- them cost more than they save (GVSoC, MobileNetV1 mem=tile:
    -- 1,861,546 cycles without, 2,094,578 with: its pointwise layers 2 and
    -- 6 read the records per pixel pair, 166,623 -> 337,011 cycles), but
    -- for depthwise layers, whose kernel reads a channel's record once
    -- (htc__dwconv2d_xp_body; MobileNetV1 mem=tile, 8 cores: depthwise
    -- layers 559,639 -> 472,888 cycles, no MULHSU an output); with L1
    -- tiles ("tiled") the dense layers' records too, moved into L1 with
    -- their weights (gen/tile.c band_model, the layer's L1 bytes; the
    -- conv_block_x2 / _x4 terms, fitted with records in L1, hold:
    -- MobileNetV1 mem=tile, 8 cores, its five dense layers with records
    -- 615,482 -> 509,101 cycles, the network 1,636,924 -> 1,529,510)
    requant_records = MEM == "l1" or (MEM == "tile" and "tiled" or "depthwise"),
    l1 = MEM == "tile" and "L1" or nil,
    -- one fork/join through the event unit, with each core's entry into the
    -- layer's parallel function (fitted with the calls, K_)
    fork = CPU_FORK,
    -- every layer: the call and the run function's bookkeeping (in L2 with
    -- mem=tile), more with the other cores started
    overhead = (MEM == "tile" and 118.3 or 7.663) + (CORES > 1 and 18.73 or 0),
    -- one inference: the run function's entry and checks around its layers
    -- (GVSoC, Deeploy's one-layer networks, the total less the layer:
    -- Add_Regular 269 / 234 cycles on 1 / 8 cores, Hardswish_Regular 193 /
    -- 234, Hardswish_Regular_RQ 192 / 211)
    call = 230,
    -- depthwise convolutions by channels (the XpulpV2 kernel copies each
    -- channel's plane: by rows every core would copy the rows its band
    -- shares with the next); other convolutions with a receptive field to
    -- copy by rows while there are rows for every core (by channels each
    -- core would copy every pixel's); pointwise ones with 8 or more output
    -- channels a core by channels; the rest: the default, the split
    -- whose largest share is smallest (rows on a tie: output rows, pixels
    -- when pointwise; channels when there are few, e.g. a global pool)
    split = function(op)
      if op.kind ~= "conv2d" then return nil end
      if op.depthwise == 1 then return "channels" end
      local pointwise = op.pointwise
      if not pointwise and op.out_shape[2] >= CORES then return "rows" end
      -- pointwise with 8 or more output channels a core: by channels (by
      -- pixels every core computes every channel's weight sums and
      -- requantization constants for the few pixels an L1 band gives it;
      -- GVSoC, MobileNetV1's 64 -> 64 at 12x12: 10% fewer cycles)
      if pointwise and CORES > 1 and op.out_shape[4] >= 8 * CORES then return "channels" end
      return nil
    end,
    requant = { "tflite", "float", "fp32", "quantlib" },
    ops = {
      conv2d     = { cycles_per_mac = conv_per_mac, cycles = call_cycles(feat_conv, xp_conv) },
      fc         = { cycles_per_mac = by_arith(4.33, 3.0), cycles_per_elem = by_arith(217, 0),
                     cycles = fc_cycles },
      add        = { cycles_per_elem = ql_elem("add", by_arith(47.5, 30, 14)), cycles = ql_cycles("add", call_cycles(feat_add, tflite)),
                     fork = add_fork },
      mul        = { cycles_per_elem = ql_elem("mul", by_arith(12, 14, 14)), cycles = ql_cycles("mul") },
      avgpool    = { cycles_per_mac = 10.6, cycles = call_cycles(feat_pool, tflite) },
      maxpool    = { cycles_per_mac = 2, cycles = call_cycles(feat_maxpool, xp_pool) },
      mean       = { cycles_per_mac = 2, cycles = mean_cycles },
      pad        = { cycles_per_elem = 1 },
      concat     = { cycles_per_elem = 1, cycles = concat_cycles },
      reshape    = { cycles_per_elem = 0, cycles = function() return 0 end },   -- moves nothing: the overhead
      transpose  = { cycles_per_elem = QL_ELEM.transpose, fork = FORK_TRANSPOSE,
                     cycles = call_cycles(feat_transpose, function() return true end) },
      -- (the fork before htc__share's 32-bit arithmetic for TFLite's and
      -- ITAMax; QuantLib's iSoftmax its own, sm_fork)
      softmax    = { cycles_per_elem = 20, cycles = sm_cycles, fork = sm_fork },
      -- (a table of no arithmetic kind: the byte lookup htc__lut8, e.g. a
      -- uint8 graph input's; GVSoC: KWS's 637 bytes, 6,457 cycles on one core, 1,878 on 8)
      table      = { cycles_per_elem = ql_elem("table", function(op) return op.requant == "none" and 8.7 or by_arith(40, 3)(op) end),
                     cycles = ql_cycles("table", call_cycles(feat_table, function(op) return op.requant == "none" end)),
                     fork = function(op)
                       if op.requant == "quantlib" then return FORK_QL_TABLE + (ARENA_PLAN == "L2" and QL_FORK_L2 or 0) end
                       return (rawget(op, "par_before") or 0) > 0 and FORK_TABLE_NEXT or FORK_TABLE end },
      quantize   = { cycles_per_elem = by_arith(8, 20) },
      dequantize = { cycles_per_elem = 8 },
      requantize = { cycles_per_elem = 8, cycles = ql_cycles("requantize") },
      norm       = { cycles_per_elem = ql_elem("norm", 12), cycles = norm_cycles },
      -- (htc__ql_gather: a memcpy a row, picolibc's byte loop; GVSoC,
      -- CCT_Int_ICCT's 12,288 bytes: 110,664 cycles, one core)
      gather     = { cycles_per_elem = 9.0 },
    },
  },

  -- N-EUREKA's weight memory (SRAM of its 8 MiB window; weights enter by DMA)
  engines = {
    neureka = {
      memory = "L1",
      weights = "WMEM",
      startup = NEU_SETUP,
      array = { rows = 32, cols = 28 },
      energy = { pj_per_mac = NEU_PJ_PER_MAC },
      device = { STEP_1X1 = NEU_STEP["1x1"], STEP_3X3 = NEU_STEP["3x3"], STEP_DW = NEU_STEP.dw,
                 CORES = CORES, FORK = 200 },   -- the cluster layers in the device model's count
      requant = { "quantlib" },
      ops = {
        conv2d = {
          kernel = "kernels/neureka.c", fn = "htc__neu_job",
          template = "templates/neureka/conv2d.c.in",
          macs_per_cycle = 182,
          accepts = neu_accepts,
          tile = neu_tile,
          constants = neu_constants,
        },
        -- linear layers (constant weights, one row) as a 1x1 convolution
        -- (fn: the one its direct job calls, op.code_age counted by it)
        fc = {
          kernel = "kernels/neureka.c", fn = "htc__neu_fc_direct",
          template = "templates/neureka/fc.c.in",
          macs_per_cycle = 48,
          accepts = neu_accepts,
          tile = neu_tile,
          constants = neu_constants,
        },
      },
    },
  },
  dispatch = choose,
}
