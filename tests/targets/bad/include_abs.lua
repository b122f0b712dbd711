-- include takes a relative path only: an absolute one could read any file
local x = include "/etc/passwd"
return target "t" { clock_mhz = 100, memory = { L2 = { size = 65536 } }, cpu = { memory = "L2", ops = {} } }
