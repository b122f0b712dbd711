-- an op's fork = function(op) returns a number >= 0
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = { memory = "L2", requant = { "tflite" }, cores = 2,
          ops = { conv2d = { fork = function(op) return op.depthwise == 1 and -5 or 10 end },
                  fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
