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

-- A CPU description as a function of the target's own fields: the engine
-- table is those fields (name, memory, requant, cores, ...) with `ops` =
-- the description's cost table, entries of the target's `ops` added or
-- replacing (e.g. another kernel for one op).
function M.cpu(ops)
  return function(fields)
    local e, o = {}, {}
    for k, v in pairs(fields) do e[k] = v end
    for k, v in pairs(ops) do o[k] = v end
    for k, v in pairs(fields.ops or {}) do o[k] = v end
    e.ops = o
    return e
  end
end

return M
