-- banks.access is the fraction of a core's cycles that access the memory
return target "t" {
  clock_mhz = 100,
  memory = { SRAM = { size = 262144,
                      banks = { count = 4, access = 1.5 } } },
  cpu = { memory = "SRAM", requant = { "tflite" }, cores = 2,
          ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
