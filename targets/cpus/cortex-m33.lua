-- targets/cpus/cortex-m33.lua: an Armv8-M Mainline core (Cortex-M33:
-- RP2350, STM32U5, nRF5340, LPC55S69) running htc's own portable kernels
-- (built -mcpu=cortex-m33+nodsp: QEMU's M33 has no DSP extension), for the
-- report's estimate and cost-based dispatch; a target with several M33
-- cores says so with cores / fork in its cpu table (targets/dual-m33.lua).
--   local m33 = include "cpus/cortex-m33.lua"
--   cpu = m33 { name = "cpu", memory = "SRAM", cores = 2, fork = 150, requant = { "tflite" } },
--
-- Calibrated for TFLite arithmetic from exact instruction counts (one
-- instruction taken as one cycle: the M33 issues about one a cycle from
-- zero-wait SRAM) of every layer of the four MLPerf Tiny models on one
-- core of examples/dual-m33 (qemu-system-arm -M mps2-an521,
-- arm-none-eabi-gcc -O2, the insncount plugin's regions around
-- HTC_PROFILE_BEGIN/END), least squares per class (layers; each layer's
-- estimate / count):
--   depthwise  6.857 per MAC + 0.7619 per output + 214.4 per output row
--              and channel (17: 0.91..1.07)
--   pointwise  2.857 per MAC + 56.54 per output (17: 0.81..1.05)
--   other conv 2.550 per MAC + 101.5 per output (11: 0.91..1.40)
--   fc         2.687 per MAC + 73.71 per output (13: 0.52..1.09; VWW's
--              2-output FC the 0.52)
--   add 41.99 per element (3), avgpool 6.652 per MAC (3), softmax 157.0
--   per element (3: 0.46..1.62)
-- Whole models on one core (estimate / measured instructions): KWS
-- 12.07 M, VWW 36.02 M, ResNet-8 41.24 M, AD 0.833 M (docs/targets.md,
-- "A dual-core MCU on qemu"). Other operations and other arithmetic keep
-- the Cortex-M4 description's costs (not measured on the M33). A real M33
-- with the DSP extension runs the SMLAD paths (HTC__DSP), faster than this.
local common = include "common.lua"
local m4 = include "cortex-m4.lua"

local base = m4 { ops = {} }.ops       -- the M4's entries, op kind -> { cycles_per_mac / _elem }
local function m4_cost(kind, field)
  local c = base[kind][field]
  return function(op) if type(c) == "function" then return c(op) end return c end
end

local function kind(op)
  if op.depthwise == 1 then return "dw" end
  if op.kernel_h == 1 and op.kernel_w == 1 and op.stride == 1 then return "pw" end
  return "conv"
end

local conv_mac = m4_cost("conv2d", "cycles_per_mac")
local PER_MAC = { dw = 6.857, pw = 2.857, conv = 2.550 }
local function tfl(f, m4f)
  return function(op) if op.requant == "tflite" then return f(op) end return m4f(op) end
end
local zero = function() return 0 end

local costs = {}
for k, v in pairs(base) do costs[k] = v end
costs.conv2d = {
  cycles_per_mac = tfl(function(op) return PER_MAC[kind(op)] end, conv_mac),
  cycles_per_elem = tfl(function(op)
    local k = kind(op)
    if k == "dw" then return 0.7619 + 214.4 / op.out_shape[3] end   -- per row and channel: / width
    return k == "pw" and 56.54 or 101.5
  end, zero),
}
costs.fc = { cycles_per_mac = tfl(function() return 2.687 end, m4_cost("fc", "cycles_per_mac")),
             cycles_per_elem = tfl(function() return 73.71 end, zero) }
costs.add = { cycles_per_elem = tfl(function() return 41.99 end, m4_cost("add", "cycles_per_elem")) }
costs.avgpool = { cycles_per_mac = tfl(function() return 6.652 end, m4_cost("avgpool", "cycles_per_mac")) }
costs.softmax = { cycles_per_elem = tfl(function() return 157.0 end, m4_cost("softmax", "cycles_per_elem")) }

-- its headers keep the DSP paths (compiled where the compiler has the
-- extension, __ARM_FEATURE_DSP; +nodsp builds take the portable C)
costs.isa = { "arm-dsp" }

return common.cpu(costs)
