-- a target table whose __index raises: reading the target once called it
-- outside any protection (a Lua panic: abort); fields are read raw now
local t = target "t" {
  clock_mhz = 100,
  cpu = { memory = "L2", requant = { "tflite" }, ops = {} },
}
return setmetatable(t, { __index = function(_, k) error("no field " .. k) end })
