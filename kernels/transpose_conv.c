/* transpose_conv.c - int8 TRANSPOSE_CONV (NHWC, weights OHWI), bit-exact
   with TFLite Micro's reference_integer_ops::TransposeConv. TFLM scatters
   every input pixel into an int32 buffer of the output's size; the same
   int32 sums are formed here per output pixel (no buffer): output (oy, ox)
   gathers input (iy, ix) through tap (ky, kx) when oy = iy * stride -
   pad_top + ky. Then bias, per-channel multiplier, zero point, clamp.
   uint8 models (stored as int8) subtract the weights' zero point too, as
   LiteRT's uint8 reference_ops::TransposeConv does. */

static HTC__UNUSED void htc__tconv_s8(const htc__tconv_params *p, const int8_t *in, const int8_t *w,
                                      const int32_t *bias, int8_t *out)
{
    int32_t b, oy, ox, oc, ky, kx, c;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (oc = 0; oc < p->out_c; oc++) {
                    int32_t acc = 0;
                    const int q = p->per_channel ? oc : 0;
                    for (ky = 0; ky < p->k_h; ky++)
                        for (kx = 0; kx < p->k_w; kx++) {
                            const long at = htc__tconv_tap(p, b, oy, ox, ky, kx);
                            const int8_t *x;
                            const int8_t *f;
                            if (at < 0) continue;
                            x = in + at;
                            f = w + ((HTC__CAST(size_t, oc) * p->k_h + ky) * p->k_w + kx) * p->in_c;
                            for (c = 0; c < p->in_c; c++) acc += (x[c] - p->in_zp) * (f[c] - p->w_zp);
                        }
                    if (bias) acc += bias[oc];
                    *out++ = HTC__CAST(int8_t, htc__clamp(htc__mulq(acc, p->mult[q], p->shift[q]) + p->out_zp,
                                                          p->act_min, p->act_max));
                }
}
