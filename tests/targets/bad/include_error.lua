-- an error inside an included file names that file's line
local x = include "inc/err.lua"
return target "t" { clock_mhz = 100, memory = { L2 = { size = 65536 } }, cpu = { memory = "L2", ops = {} } }
