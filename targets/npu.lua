-- targets/npu.lua: a small NPU-like accelerator next to a Cortex-M class
-- host. Its requantization unit implements TFLite's fixed-point
-- arithmetic (Q31 multiplier and shift per output channel, TFLite Micro's
-- rounding), so the int8 convolutions and fully connected layers of a
-- .tflite model run on it bit-exactly -- the most common real input.
--
-- Hardware (the device model kernels/npu.c reads every constant below
-- from the defines htc generates: this file is their one source):
--   a PE array of ROWS x COLS int8 MACs (output channels x input channels;
--   depthwise: channels on every PE), 128 kB activation SRAM, 64 kB
--   weight SRAM (weights, biases, multipliers, shifts), one DMA engine,
--   no double buffering (DMA and array take turns).
local ROWS, COLS = 8, 8
local STARTUP = 30

-- conv / depthwise: one output pixel, one tap per step, ROWS output and
-- COLS input channels at a time (depthwise: ROWS * COLS channels)
local function conv_cycles(t, op)
  if op.depthwise == 1 then
    return STARTUP + t.OY * t.OX * (op.kernel_h * op.kernel_w) * cdiv(t.K, ROWS * COLS)
  end
  return STARTUP + t.OY * t.OX * (op.kernel_h * op.kernel_w) * cdiv(t.K, ROWS) * cdiv(op.C, COLS)
end

local function tflite_only(op)
  if op.requant ~= "tflite" then return false, "the requantization unit implements TFLite's arithmetic only" end
  if op.weight_bits ~= 8 then return false, "weights are not int8" end
  if op.weight_zp ~= 0 then return false, "weight zero point" end
  if op.batches ~= 1 then return false, "batch > 1" end
  return true
end

return target "npu" {
  description = "NPU-like accelerator (TFLite requantization) + Cortex-M class host",
  clock_mhz = 200,

  memory = {
    L2 = { size = 512 * KiB, alignment = 16 },
    SRAM = { size = 128 * KiB, alignment = 16, dma = { bytes_per_cycle = 8, setup = 24 } },
    WSRAM = { size = 64 * KiB, alignment = 16, dma = { bytes_per_cycle = 8, setup = 24 } },
  },

  cpu = {
    name = "mcu",
    memory = "L2",
    requant = { "tflite", "float", "fp32" },
    ops = {
      conv2d     = { cycles_per_mac = function(op) return op.depthwise == 1 and 3.0 or 2.0 end },
      fc         = { cycles_per_mac = 1.5 },
      add        = { cycles_per_elem = 12 },
      mul        = { cycles_per_elem = 10 },
      avgpool    = { cycles_per_mac = 1.5 },
      maxpool    = { cycles_per_mac = 1.5 },
      mean       = { cycles_per_mac = 1.5 },
      pad        = { cycles_per_elem = 1 },
      concat     = { cycles_per_elem = 1 },
      reshape    = { cycles_per_elem = 0 },
      transpose  = { cycles_per_elem = 4 },
      softmax    = { cycles_per_elem = 60 },
      table      = { cycles_per_elem = 4 },
      quantize   = { cycles_per_elem = 8 },
      dequantize = { cycles_per_elem = 8 },
      requantize = { cycles_per_elem = 8 },
    },
  },

  engines = {
    npu = {
      memory = "SRAM",            -- input and output tiles
      weights = "WSRAM",          -- weights, biases, multipliers, shifts of one K tile
      startup = STARTUP,          -- cycles to program and start the array
      array = { rows = ROWS, cols = COLS },
      requant = { "tflite" },
      ops = {
        conv2d = {
          kernel = "kernels/npu.c", fn = "htc__npu_conv",
          template = "templates/npu/conv2d.c.in",
          macs_per_cycle = ROWS * COLS,
          accepts = function(op)
            local ok, why = tflite_only(op)
            if not ok then return false, why end
            if op.dilation ~= 1 then return false, "dilation > 1" end
            if op.groups ~= 1 and (op.depthwise == 0 or op.depth_multiplier ~= 1) then
              return false, "grouped convolution (plain and depthwise only)"
            end
            return true
          end,
          tile = function(t, op)
            return {
              -- weights stay for a whole K tile: the whole K first (the
              -- input tile is loaded once per K tile), then the biggest
              -- output tile (fewest start-ups and DMA set-ups)
              maximize = 65536 * t.K + t.OY * t.OX,
              cycles = conv_cycles(t, op),
              w_bytes = t.w_bytes + 3 + 8 * t.K,   -- + multipliers and shifts
              macs_per_cycle = op.depthwise == 1 and ROWS * COLS or nil,
            }
          end,
        },
        fc = {
          kernel = "kernels/npu.c", fn = "htc__npu_fc",
          template = "templates/npu/fc.c.in",
          macs_per_cycle = ROWS * COLS,
          accepts = tflite_only,
          tile = function(t, op)
            return {
              maximize = t.K,
              cycles = STARTUP + cdiv(t.K, ROWS) * cdiv(op.C, COLS),
              w_bytes = t.w_bytes + 3 + 8 * t.K,
            }
          end,
        },
      },
    },
  },
}
