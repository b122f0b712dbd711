-- 1 KiB of RAM cannot hold KWS's activations
return target "tiny" {
  clock_mhz = 100,
  memory = { L2 = { size = 1024 } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d   = { kernel = "kernels/conv2d.c",   fn = "htc__conv2d_s8" },
      dwconv2d = { kernel = "kernels/dwconv2d.c", fn = "htc__dwconv2d_s8" },
      avgpool  = { kernel = "kernels/pool.c",     fn = "htc__avgpool_s8" },
      fc       = { kernel = "kernels/fc.c",       fn = "htc__fc_s8" },
      softmax  = { kernel = "kernels/softmax.c",  fn = "htc__softmax_s8" },
      reshape  = {},
    },
  },
}
