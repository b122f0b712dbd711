-- examples/tutorial/step1.lua: step 1 of docs/accelerator-tutorial.md.
-- A chip with only its CPU: one RAM holds every tensor, and the CPU runs
-- htc's own kernels with the costs of a Cortex-M4 class core.
local m4 = include "cpus/cortex-m4.lua"

return target "tutorial" {
  description = "tutorial step 1: the host CPU alone",
  clock_mhz = 100,
  memory = {
    RAM = { size = 256 * KiB, alignment = 16 },
  },
  cpu = m4 { name = "host", memory = "RAM", requant = { "tflite" } },
}
