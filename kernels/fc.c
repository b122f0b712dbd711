/* fc.c - int8 fully connected layer, weights [out_features][in_features].
   Bit-exact with TFLite Micro's reference_integer_ops::FullyConnected[PerChannel]
   (fixed-point multiplier and shift; = CMSIS-NN's arm_fully_connected_s8). */

/* acc = bias[o] + sum_i (x[i] - in_zp) * (w[o][i] - w_zp); four output rows
   at a time share each input load (htc__dot4_s8, SSE2 on x86). A non-zero
   weight zero point (legal for per-tensor FULLY_CONNECTED; per-channel
   TFLite ignores it) takes a plain loop. Rescaling, once per output, is
   TFLite Micro's: MultiplyByQuantizedMultiplier with the fixed-point
   multiplier mult[c] and shift[c] (double rounding), + out_zp, clamped. */

static HTC__UNUSED int32_t htc__fc_out(const htc__fc_params *p, int32_t acc, int32_t o)
{
    const int32_t c = p->per_channel ? o : 0;
    return htc__requant(acc, p->mult[c], p->shift[c], p->out_zp, p->act_min, p->act_max);
}

static HTC__UNUSED void htc__fc_s8(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    const int32_t n = p->in_features, nout = p->out_features;
    const int32_t off = -p->in_zp;
    /* per-channel weights are symmetric in TFLite: zero point not applied */
    const int32_t woff = p->per_channel ? 0 : -p->w_zp;
    const int32_t *bias = p->bias;
#ifdef HTC__AVX2
    const int avx2 = htc__have_avx2();
#endif
    int32_t b;
    for (b = 0; b < p->batches; b++) {
        const int8_t *x = in + (size_t)b * n;
        int32_t o = 0;
        if (woff == 0) {
            for (; o + 4 <= nout; o += 4) {
                int32_t acc[4] = {0, 0, 0, 0};
                if (bias) {
                    acc[0] = bias[o]; acc[1] = bias[o + 1]; acc[2] = bias[o + 2]; acc[3] = bias[o + 3];
                }
#ifdef HTC__AVX2
                if (avx2) htc__dot4_s8_avx2(x, p->weights + (size_t)o * n, n, n, off, acc);
                else
#endif
                    htc__dot4_s8(x, p->weights + (size_t)o * n, n, n, off, acc);
                out[o] = HTC__CAST(int8_t, htc__fc_out(p, acc[0], o));
                out[o + 1] = HTC__CAST(int8_t, htc__fc_out(p, acc[1], o + 1));
                out[o + 2] = HTC__CAST(int8_t, htc__fc_out(p, acc[2], o + 2));
                out[o + 3] = HTC__CAST(int8_t, htc__fc_out(p, acc[3], o + 3));
            }
            /* explicit start: with "for (; o < nout" GCC 12 -O2 on 32-bit
               targets warns "iteration 1073741823 invokes undefined behavior" */
            for (o = nout - nout % 4; o < nout; o++) {
                const int32_t a = (bias ? bias[o] : 0) + htc__dot1_s8(x, p->weights + (size_t)o * n, n, off);
                out[o] = HTC__CAST(int8_t, htc__fc_out(p, a, o));
            }
        } else {
            for (; o < nout; o++) {
                const int8_t *w = p->weights + (size_t)o * n;
                int32_t a = bias ? bias[o] : 0, i;
                for (i = 0; i < n; i++) a += (x[i] + off) * (w[i] + woff);
                out[o] = HTC__CAST(int8_t, htc__fc_out(p, a, o));
            }
        }
        out += nout;
    }
}
