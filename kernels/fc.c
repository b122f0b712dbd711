/* fc.c - int8 fully connected layer, weights [out_features][in_features].
   Bit-exact with TFLite reference_integer_ops::FullyConnected (+PerChannel). */

/* acc = bias[o] + sum_i (x[i] - in_zp) * (w[o][i] - w_zp), requantized once.
   Four output rows at a time share each input load and its offset add; a
   non-zero weight zero point (legal for FULLY_CONNECTED) takes a separate
   loop so the common case carries no extra add. */

static HTC__UNUSED int8_t htc__fc_out(int32_t acc, const htc__fc_params *p, int32_t o)
{
    const int32_t c = p->per_channel ? o : 0;
    return HTC__CAST(int8_t, htc__clamp(htc__mulq(acc, p->mult[c], p->shift[c]) + p->out_zp, p->act_min, p->act_max));
}

static HTC__UNUSED void htc__fc_s8(const htc__fc_params *p, const int8_t *in, int8_t *out)
{
    const int32_t n = p->in_features, nout = p->out_features;
    const int32_t off = -p->in_zp, woff = -p->w_zp;
    const int32_t *bias = p->bias;
    int32_t b;
    for (b = 0; b < p->batches; b++) {
        const int8_t *x = in + (size_t)b * n;
        int32_t o = 0;
        if (woff == 0) {
            for (; o + 4 <= nout; o += 4) {
                const int8_t *w0 = p->weights + (size_t)o * n;
                const int8_t *w1 = w0 + n, *w2 = w1 + n, *w3 = w2 + n;
                int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, i;
                for (i = 0; i < n; i++) {
                    const int32_t v = x[i] + off;
                    a0 += v * w0[i];
                    a1 += v * w1[i];
                    a2 += v * w2[i];
                    a3 += v * w3[i];
                }
                if (bias) {
                    a0 += bias[o]; a1 += bias[o + 1]; a2 += bias[o + 2]; a3 += bias[o + 3];
                }
                out[o] = htc__fc_out(a0, p, o);
                out[o + 1] = htc__fc_out(a1, p, o + 1);
                out[o + 2] = htc__fc_out(a2, p, o + 2);
                out[o + 3] = htc__fc_out(a3, p, o + 3);
            }
        }
        /* explicit start: with "for (; o < nout" GCC 12 -O2 on 32-bit targets
           warns "iteration 1073741823 invokes undefined behavior" */
        for (o = woff == 0 ? nout - nout % 4 : 0; o < nout; o++) {
            const int8_t *w0 = p->weights + (size_t)o * n;
            int32_t a0 = bias ? bias[o] : 0, i;
            for (i = 0; i < n; i++) a0 += (x[i] + off) * (w0[i] + woff);
            out[o] = htc__fc_out(a0, p, o);
        }
        out += nout;
    }
}
