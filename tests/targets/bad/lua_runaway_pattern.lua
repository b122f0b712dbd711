-- a string pattern that backtracks for ever runs in C, out of the instruction count: the CPU limit stops it
local s = string.rep("a", 300)
local n = string.find(s, ".-.-.-.-b")
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
