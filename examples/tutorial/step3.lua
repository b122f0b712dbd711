-- examples/tutorial/step3.lua: step 3 of docs/accelerator-tutorial.md.
-- The step-2 chip, its fully connected unit now given the data it wants at
-- compile time: the input zero point folded into the biases
-- (b'[k] = b[k] - in_zp * sum_c w[k][c], replacing {{b}}), so the array
-- subtracts nothing at run time (its template passes zero point 0).
-- A target file is Lua: this one includes step 2 and changes one op.
local t = include "step2.lua"
local fc = t.engines.fcu.ops.fc
fc.template = "fc_folded.c.in"
fc.constants = function(op, d)
  local b = {}
  for k = 0, d.K - 1 do
    local sum = 0
    for c = 0, d.C - 1 do sum = sum + d.w(k, c, 0, 0) end
    b[k + 1] = d.bias(k) - op.in_zp * sum
  end
  return { b = { type = "int32", values = b } }
end
t.description = "tutorial step 3: host CPU + fully connected unit, zero point folded at compile time"
return t
