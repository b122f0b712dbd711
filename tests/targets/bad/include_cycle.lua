-- a file that includes itself while it loads
local x = include "inc/cycle.lua"
return target "t" { clock_mhz = 100, memory = { L2 = { size = 65536 } }, cpu = { memory = "L2", ops = {} } }
