-- an include must be a regular file, not a link
local x = include "inc/symlink.lua"
return target "t" { clock_mhz = 100, memory = { L2 = { size = 65536 } }, cpu = { memory = "L2", ops = {} } }
