-- a table that grows without end stops at the Lua memory limit, naming the line
local t = {} for i = 1, 1e10 do t[i] = i end
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024, alignment = 16, dma = { bytes_per_cycle = 4 } } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { accepts = function(op) return true end },
      fc = {}, avgpool = {}, reshape = {}, softmax = {},
    },
  },
}
