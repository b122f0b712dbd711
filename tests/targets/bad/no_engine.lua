-- the CPU lacks a kernel the model needs: the error names the operator
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 512 * 1024 } },
  cpu = { memory = "L2", requant = { "tflite" }, ops = {} },
}
