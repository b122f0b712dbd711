-- a target file that never returns is stopped, naming the line
local n = 0
while true do n = n + 1 end
return target "t" {}
