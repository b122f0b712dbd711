-- tests/targets/folded/folded.lua: an engine that wants its data its own
-- way, computed once at compile time by `constants` (no work on the host
-- at run time): the weights transposed to [C][K] (replacing {{w}}), the
-- input zero point folded into the biases (replacing {{b}}:
-- b'[k] = b[k] - in_zp * sum_c w[k][c]), and per-channel multipliers and
-- shifts of its own (`m`, `s`). Its FC template (plain C, no device) then
-- needs no zero point: acc = b'[k] + sum_c x[c] * w[c][k].
-- tests/test_templates.py runs the AD model on it, bit-exact with TFLM.
return target "folded" {
  description = "test: engine-owned constants (transposed weights, folded bias)",
  clock_mhz = 100,
  memory = {
    RAM = { size = 512 * KiB, alignment = 16 },
    LOC = { size = 64 * KiB, alignment = 16, dma = { bytes_per_cycle = 4, setup = 10 } },
    WLOC = { size = 512 * KiB, alignment = 16, dma = { bytes_per_cycle = 4, setup = 10 } },
  },
  cpu = { name = "host", memory = "RAM", requant = { "tflite" }, ops = { } },
  engines = {
    folded = {
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
          constants = function(op, d)
            local w, b, m, s = {}, {}, {}, {}
            for c = 0, d.C - 1 do
              for k = 0, d.K - 1 do w[c * d.K + k + 1] = d.w(k, c, 0, 0) end
            end
            for k = 0, d.K - 1 do
              local sum = 0
              for c = 0, d.C - 1 do sum = sum + d.w(k, c, 0, 0) end
              b[k + 1] = d.bias(k) - op.in_zp * sum
              m[k + 1], s[k + 1] = d.mult(k), d.shift(k)
            end
            return {
              w = { type = "int8", values = w },
              b = { type = "int32", values = b },
              m = { type = "int32", values = m },
              s = { type = "int32", values = s },
              -- the other element types, read by the template only to show they are stored
              f = { type = "float", values = { 0.5, -1.25, 3e-8 } },
              u = { type = "uint32", values = { 4294967295, 0, d.K } },
              h = { type = "int16", values = { -32768, 32767 } },
            }
          end,
        },
      },
    },
  },
}
