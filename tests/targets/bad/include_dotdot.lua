-- include cannot leave its directory with ..
local x = include "inc/../../direct/direct.lua"
return target "t" { clock_mhz = 100, memory = { L2 = { size = 65536 } }, cpu = { memory = "L2", ops = {} } }
