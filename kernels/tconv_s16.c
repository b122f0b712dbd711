/* tconv_s16.c - 16x8 TRANSPOSE_CONV (int16 NHWC input, int8 OHWI weights,
   int64 bias), bit-exact with TFLite Micro's int16
   reference_integer_ops::TransposeConv. */

/* TFLM scatters every input pixel into an int64 buffer of the output's
   size; the same sums are formed here per output pixel: output (oy, ox)
   gathers input (iy, ix) through tap (ky, kx) when oy = iy * stride -
   pad_top + ky. No offsets (zero points are 0); then the bias, the 64-bit
   MultiplyByQuantizedMultiplier per channel, the clamp. */
static HTC__UNUSED void htc__tconv_s16(const htc__tconv_params *p, const int16_t *in, const int8_t *w, const int64_t *bias,
                                       int16_t *out)
{
    int32_t b, oy, ox, oc, ky, kx, c;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (oc = 0; oc < p->out_c; oc++) {
                    int64_t acc = 0;
                    const int q = p->per_channel ? oc : 0;
                    for (ky = 0; ky < p->k_h; ky++)
                        for (kx = 0; kx < p->k_w; kx++) {
                            const long at = htc__tconv_tap(p, b, oy, ox, ky, kx);
                            const int16_t *x;
                            const int8_t *f;
                            if (at < 0) continue;
                            x = in + at;
                            f = w + ((HTC__CAST(size_t, oc) * p->k_h + ky) * p->k_w + kx) * p->in_c;
                            for (c = 0; c < p->in_c; c++) acc += HTC__CAST(int32_t, x[c]) * f[c];
                        }
                    if (bias) acc += bias[oc];
                    *out++ = HTC__CAST(int16_t, htc__clamp(htc__mulq64(acc, p->mult[q], p->shift[q]), p->act_min, p->act_max));
                }
}
