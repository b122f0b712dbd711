-- an argument error in a string function the sandbox wraps (for its CPU
-- limit) names the function, not '?'
local bar = ("="):rep("x")
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = { memory = "L2", requant = { "tflite" } },
}
