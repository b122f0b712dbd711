-- banks is a table { count, access }, not a number
return target "t" {
  clock_mhz = 100,
  memory = { SRAM = { size = 262144,
                      banks = 4 } },
  cpu = { memory = "SRAM", requant = { "tflite" }, cores = 2,
          ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
