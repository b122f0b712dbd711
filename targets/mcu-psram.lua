-- targets/mcu-psram.lua: a Cortex-M4 class MCU with a small internal SRAM
-- and an external PSRAM (octal SPI, memory-mapped through a cache), as on
-- ESP32-S3 or STM32 boards with an APS6404-class chip. The CPU's data live
-- in both: htc places each arena buffer in SRAM or PSRAM so that the bytes
-- read and written times the memory's cost are least (gen/plan.c), and the
-- header has one arena per memory (NAME_ARENA_SRAM_SIZE, NAME_ARENA_PSRAM_SIZE).

local KiB = 1024
local SRAM_KIB = param "sram_kib" { default = 32, min = 1, max = 4096,
                                    description = "internal SRAM left to the model's buffers, in KiB" }
local PSRAM_KIB = param "psram_kib" { default = 8192, min = 0, max = 65536,
                                      description = "external PSRAM for the model's buffers, in KiB (0: none)" }
local PSRAM_COST = param "psram_cost" { default = 4, min = 1, max = 100,
                                        description = "cycles per byte of a PSRAM access (SRAM: 1)" }

local m4 = include "cpus/cortex-m4.lua"

local memory = { SRAM = { size = SRAM_KIB * KiB, alignment = 16, cost = 1 } }
local data = { "SRAM" }
if PSRAM_KIB > 0 then
  memory.PSRAM = { size = PSRAM_KIB * KiB, alignment = 16, cost = PSRAM_COST }
  data = { "SRAM", "PSRAM" }
end

return target "mcu-psram" {
  description = "Cortex-M4 class MCU, internal SRAM + external PSRAM",
  clock_mhz = 160,
  memory = memory,
  cpu = m4 {
    name = "cpu",
    memory = data,          -- data memories: one arena each, in this order
    requant = { "tflite", "float", "fp32", "quantlib" },
  },
}
