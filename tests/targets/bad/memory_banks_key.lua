-- a typo inside banks is an error, not a default
return target "t" {
  clock_mhz = 100,
  memory = { SRAM = { size = 262144,
                      banks = { count = 4, acess = 0.5 } } },
  cpu = { memory = "SRAM", requant = { "tflite" }, cores = 2,
          ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
