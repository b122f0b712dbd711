-- isa is a list, not one name
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = { memory = "L2", requant = { "tflite" }, isa = "arm-dsp",
          ops = { conv2d = {}, fc = {}, avgpool = {}, reshape = {}, softmax = {} } },
}
