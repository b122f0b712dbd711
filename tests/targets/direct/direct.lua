-- tests/targets/direct/direct.lua: an "engine" without a device whose
-- fully connected template computes in plain C, indexing the layer's
-- tensors through the placeholders ({{in}}[c], {{out}}[k], {{w}}, {{b}},
-- {{mult}}, {{shift}}): tests/test_templates.py checks that the
-- placeholders are whole expressions and the result equals TFLite Micro.
return target "direct" {
  description = "test: FC by a template in plain C (no device)",
  clock_mhz = 100,
  memory = {
    RAM = { size = 512 * KiB, alignment = 16 },
    LOC = { size = 64 * KiB, alignment = 16, dma = { bytes_per_cycle = 4, setup = 10 } },
    WLOC = { size = 512 * KiB, alignment = 16, dma = { bytes_per_cycle = 4, setup = 10 } },
  },
  cpu = { name = "host", memory = "RAM", requant = { "tflite" }, ops = { } },
  engines = {
    direct = {
      memory = "LOC", weights = "WLOC", startup = 1,
      array = { rows = 1, cols = 1 },
      requant = { "tflite" },
      ops = {
        fc = {
          kernel = "kernels/nodevice.c", fn = "htc__dev_sync",
          template = "fc.c.in",
          macs_per_cycle = 1,
          accepts = function(op)
            if op.weight_zp ~= 0 or op.batches ~= 1 then return false, "weight zero point or batch" end
            return true
          end,
          tile = function(t, op)
            return { minimize = cdiv(op.K, t.K), cycles = t.K * op.C, w_bytes = t.w_bytes + 8 * t.K }
          end,
        },
      },
    },
  },
}
