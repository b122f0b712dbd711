return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 1024 } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = { kernel = "kernels/no_such_kernel.c", fn = "htc__conv2d_s8" },
    },
  },
}
