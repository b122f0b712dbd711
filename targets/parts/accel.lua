-- targets/parts/accel.lua: what the bundled accelerator descriptions share:
-- the usual reasons an engine refuses an op, as named checks.
--   local accel = include "parts/accel.lua"
--   accepts = accel.accepts { "int8_weights", "no_weight_zp", "batch1" },
--   accepts = accel.accepts { function(op) return op.stride <= 2, "stride > 2" end, "batch1" },
local M = {}

-- Each check: true when the engine can take the op, and the reason it
-- gives (the report's) when not.
M.checks = {
  int8_weights     = function(op) return op.weight_bits == 8, "weights are not int8" end,
  ternary_weights  = function(op) return op.weight_min >= -1 and op.weight_max <= 1, "weights are not ternary" end,
  no_weight_zp     = function(op) return op.weight_zp == 0, "weight zero point" end,
  one_weight_batch = function(op) return op.weight_batches == 1, "batched weights" end,
  int8_in          = function(op) return op.in_type == "int8", "input is not int8" end,
  int8_out         = function(op) return op.int32_out == 0, "int32 output" end,
  batch1           = function(op) return op.batches == 1, "batch > 1" end,
  no_dilation      = function(op) return op.dilation == 1, "dilation > 1" end,
  ungrouped        = function(op) return op.groups == 1, "grouped or depthwise" end,
}

local function names()
  local n = {}
  for k in pairs(M.checks) do n[#n + 1] = k end
  table.sort(n)
  return table.concat(n, ", ")
end

-- An accepts predicate: the checks in order, each a name of M.checks or a
-- function of the same form; the first that fails gives the reason.
function M.accepts(list)
  local fs = {}
  for i, c in ipairs(list) do
    fs[i] = type(c) == "function" and c or M.checks[c]
    if not fs[i] then error(("accepts: no check '%s' (parts/accel.lua has: %s)"):format(tostring(c), names()), 2) end
  end
  return function(op)
    for _, f in ipairs(fs) do
      local ok, why = f(op)
      if not ok then return false, why end
    end
    return true
  end
end

return M
