-- targets/cpus/common.lua: what the CPU descriptions in targets/cpus share.
-- A target includes a CPU description, not this file:
--   local m4 = include "cpus/cortex-m4.lua"
--   cpu = m4 { name = "cpu", memory = "L2", requant = { "tflite", "float" } },
local M = {}

-- A cost that depends on the arithmetic (the kernels differ): TFLite's fixed
-- point (depthwise convolutions: tflite_dw), onnxruntime's float scale
-- ("float", or "shift" when that is exactly a power of two) and the float
-- groups of --float-fallback ("fp32", default: float).
function M.by_arith(tflite, float, fp32, tflite_dw)
  return function(op)
    if op.requant == "fp32" then return fp32 or float end
    if op.requant ~= "tflite" then return float end
    return (op.kind == "conv2d" and op.depthwise == 1) and tflite_dw or tflite
  end
end

-- What an operation's cost counts: cycles per multiply-accumulate (the
-- report's macs: window or reduction work) or per output element.
local PER_MAC = {}
for _, k in ipairs { "conv2d", "fc", "avgpool", "maxpool", "mean", "batch_matmul", "transpose_conv", "sum",
                     "reduce_max", "reduce_min", "reduce_all", "argmax", "argmin", "l2norm", "lstm", "svdf" } do
  PER_MAC[k] = true
end

-- An ops entry from a cost: a number or function(op) becomes
-- { cycles_per_mac = c } or { cycles_per_elem = c } by the operation; a
-- table (e.g. another kernel: { kernel = ..., fn = ..., cycles_per_mac = c })
-- stays as it is.
local function entry(kind, c)
  if type(c) == "table" then return c end
  return PER_MAC[kind] and { cycles_per_mac = c } or { cycles_per_elem = c }
end

-- A CPU description as a function of the target's own fields: the engine
-- table is those fields (name, memory, requant, cores, ...) with `ops` =
-- the description's costs (op = cycles, see entry), entries of the
-- target's `ops` added or replacing (e.g. another kernel for one op), and
-- `isa` = the description's `isa` (the core's instruction sets: the fast
-- paths its headers keep) unless the target states its own.
function M.cpu(costs)
  return function(fields)
    local e, o = { isa = costs.isa }, {}
    for k, v in pairs(fields) do e[k] = v end
    for k, v in pairs(costs) do
      if k ~= "isa" then o[k] = entry(k, v) end
    end
    for k, v in pairs(fields.ops or {}) do o[k] = entry(k, v) end
    e.ops = o
    return e
  end
end

return M
