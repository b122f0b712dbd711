-- targets/cpus/xpulpv2.lua: one RI5CY-class core with XpulpV2 (DIANA's host:
-- RV32IMCFXpulpV2, HTVM paper sec. IV) running htc's kernels built with
-- -DHTC_XPULPV2: the XpulpV2 paths (4-way int8 dot products, hardware
-- loops, post-increment loads) for convolutions, depthwise convolutions and
-- fully connected layers of TFLite's arithmetic or of onnxruntime's when it
-- is exactly a power-of-two shift (op.requant "shift"), the portable code
-- elsewhere.
--   local xp = include "cpus/xpulpv2.lua"
--   cpu = xp { name = "riscv", memory = "L2", requant = { "tflite", "float", "fp32" } },
-- The cycles of a call are terms for what those kernels do (the features
-- below), each coefficient a least-squares fit on GVSoC's per-layer cycles
-- of HTVM's four networks (tests/zoo/htvm_nets.py, int8, CPU only) on one
-- cluster core of its Siracusa model with every operand in L1 (one-cycle
-- loads, as DIANA's host loads its L2): bench/diana/fit_xpulpv2.py prints
-- the data and the fit. Within +-6.6% on 58 of the 61 layers fitted; the
-- worst: DS-CNN's 5x7 first layer on one input channel -16%, the 64 -> 12
-- and 128 -> 8 FCs -8% / +26% (a few thousand cycles). Three layers whose
-- weights GVSoC's 256 KiB L1 could not hold (MobileNet's last two
-- pointwise, ToyAdmos's last FC) ran from L2 at 3.5-4.4x these figures and
-- are left out.
local common = include "common.lua"
local by_arith = common.by_arith

local K_ = {
  -- dense convolution (htc__conv2d_xp_run): per call, per weight summed
  -- into the start values, per block of 2 pixels x 4 channels, per word of
  -- a block's dot products, per receptive-field byte and row copied
  conv_call = 1000, conv_wsum = 1.216, conv_block = 148.5, conv_word = 13.47, conv_field = 2.317, conv_frow = 75.42,
  -- depthwise (htc__dwconv2d_xp: channel planes of lines along the longer
  -- output dimension): per channel (group of four), per input byte copied
  -- into the planes, per output, per output line of a channel
  dw_group = 2096, dw_px = 4.05, dw_out = 38.1, dw_line = 12.13,
  -- fully connected (htc__fc_xp_run): per call, per block of 4 outputs,
  -- per word of its dot products, per output
  fc_call = 810.9, fc_block = 19.15, fc_word = 13.21, fc_out = 76.6,
  -- average pool (onnxruntime's, the scale in soft float): per call, per
  -- input byte, per output
  pool_call = 12100, pool_in = 7.976, pool_out = 116,
  -- QLinearAdd in integers (kernels/ort_eltwise.c, its XpulpV2 loop):
  -- per call, per element
  add_call = 3115, add_elem = 8.036,
}

local function c4(x) return (x + 3) // 4 end

-- the XpulpV2 paths take it? (TFLite's arithmetic, or onnxruntime's exact shift)
local function xp(op) return op.requant == "tflite" or op.requant == "shift" end

local function conv_cycles(op, s)
  if not xp(op) or op.weight_zp ~= 0 then return nil end
  local C, OH, OW = op.in_shape[4], s.rows, s.cols
  local kh, kw, sh, sw = op.kernel_h, op.kernel_w, op.stride_h, op.stride_w
  if op.depthwise == 1 then
    -- htc__dwconv2d_xp_ok: lines along the output's longer dimension
    -- (columns when taller than wide and they fit), kernels up to 4 taps
    -- along a line and 8 lines across
    local function fits(tr)
      local ka, kl = tr and kh or kw, tr and kw or kh
      local da, dl = tr and op.dilation_h or op.dilation_w, tr and op.dilation_w or op.dilation_h
      local na, sa = tr and op.out_shape[2] or op.out_shape[3], tr and sh or sw
      local L = ((na - 1) * sa + 4 + 3) // 4 * 4
      return ka <= 4 and da == 1 and kl <= 8 and (kl - 1) * dl + 1 <= 2048 // L
    end
    local tr = op.out_shape[2] > op.out_shape[3] and fits(true)
    if op.depth_multiplier ~= 1 or not (tr or fits(false)) then return nil end
    local C4 = s.channels % 4 == 0 and s.channels // 4 or s.channels
    return K_.dw_group * C4 + K_.dw_px * s.channels * op.in_shape[2] * op.in_shape[3]
           + K_.dw_out * OH * OW * s.channels + K_.dw_line * s.channels * (tr and OW or OH)
  end
  if op.groups ~= 1 then return nil end
  local K = kh * kw * C
  local pw = kh == 1 and kw == 1 and sh == 1 and sw == 1 and op.in_shape[2] == op.out_shape[2]
             and op.in_shape[3] == op.out_shape[3]
  if not pw and c4(K) * 4 > 576 then return nil end
  local K4 = pw and K or c4(K) * 4
  local P = OH * OW
  local blocks = (P + 1) // 2 * c4(s.channels)
  return K_.conv_call + K_.conv_wsum * s.channels * K + K_.conv_block * blocks + K_.conv_word * blocks * (K4 // 4)
         + (pw and 0 or K_.conv_field * P * K + K_.conv_frow * P * kh)
end

local function fc_cycles(op, s)
  if not xp(op) or op.weight_zp ~= 0 or op.weight_batches ~= 1 then return nil end
  local blocks = s.rows * c4(s.channels)
  return K_.fc_call + K_.fc_block * blocks + K_.fc_word * blocks * c4(op.in_shape[#op.in_shape])
         + K_.fc_out * s.rows * s.channels
end

local function pool_cycles(op, s)
  if op.global ~= 1 or op.requant ~= "float" then return nil end
  return K_.pool_call + K_.pool_in * s.in_rows * op.in_shape[3] * s.channels + K_.pool_out * s.rows * s.cols * s.channels
end

local function add_cycles(op, s)
  if op.requant ~= "float" and op.requant ~= "shift" then return nil end
  return K_.add_call + K_.add_elem * s.rows * s.channels
end

return common.cpu {
  isa = { "xpulpv2" },   -- the XpulpV2 paths (HTC__XP, -DHTC_XPULPV2) in its headers
  -- the portable code's costs (targets/cpus/rv32imc.lua) where no cycles
  -- function describes the call
  conv2d = { cycles_per_mac = by_arith(9, 9, 6, 11), cycles = conv_cycles },
  fc = { cycles_per_mac = 8, cycles = fc_cycles },
  maxpool = 4, mean = 4,
  avgpool = { cycles_per_mac = function(op) return (op.requant == "tflite" or op.global == 1) and 4 or 6 end,
              cycles = pool_cycles },
  add = { cycles_per_elem = by_arith(20, 40, 12), cycles = add_cycles },
  mul = by_arith(20, 30, 12), softmax = by_arith(100, 40),
  table = by_arith(60, 6),
  -- soft float on GVSoC's core (DIANA's has the F extension: fewer)
  quantize = by_arith(12, 30), dequantize = 90, requantize = 12,
  -- the NCHW input's transpose: 8.1 a byte on GVSoC
  pad = 2, concat = 2, transpose = 8.1, reshape = 0,
}
