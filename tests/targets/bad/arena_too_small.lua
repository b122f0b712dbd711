-- 1 KiB of RAM cannot hold KWS's activations
return target "tiny" {
  clock_mhz = 100,
  memory = { L2 = { size = 1024 } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = {}, avgpool = {}, fc = {}, softmax = {}, reshape = {},   -- htc's own kernels
    },
  },
}
