-- target files cannot reach io or os
local f = io.open("/etc/passwd")
return target "t" { clock_mhz = 1, memory = { L2 = { size = 1 } }, cpu = {} }
