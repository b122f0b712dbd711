-- a predicate that fails at run time: the error names this file and line
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024 } },
  cpu = {
    memory = "L2", requant = { "tflite" },
    ops = {
      conv2d = {
        kernel = "kernels/conv2d.c", fn = "htc__conv2d_s8",
        accepts = function(op) return op.kernel_h.size > 1 end,
      },
    },
  },
}
