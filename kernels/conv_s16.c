/* conv_s16.c - 16x8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: int16
   activations, int8 weights (TFLite Micro's reference integer kernels). */

/* One output value from its accumulator: TFLM's MultiplyByQuantizedMultiplier
   of the accumulator's type (int64: the 16-bit multiplier form; int32: the
   int8 kernels' double rounding), the output zero point (FC only: conv
   writes zero-point-0 outputs), the activation clamp. */
static HTC__UNUSED int16_t htc__s16_out(const htc__conv16_params *p, int64_t acc, int c)
{
    int32_t v;
    if (p->acc64) v = htc__mulq64(acc, p->mult[c], p->shift[c]);
    else v = htc__mulq(HTC__CAST(int32_t, acc), p->mult[c], p->shift[c]);
    v += p->out_zp;
    return HTC__CAST(int16_t, htc__clamp(v, p->act_min, p->act_max));
}

/* Conv (groups of filter_in_c input channels) or depthwise (weights
   [kh][kw][out_c], depth_mult outputs per input channel), NHWC; points
   outside the image are skipped (zero padding, input zero point 0).
   An int32 accumulator wraps as TFLM's does on two's complement hardware. */
static HTC__UNUSED void htc__conv2d_s16(const htc__conv16_params *p, const int16_t *in, const int8_t *w,
                                        const void *bias, int16_t *out)
{
    const int64_t *b64 = HTC__CAST(const int64_t *, bias);
    const int32_t *b32 = HTC__CAST(const int32_t *, bias);
    int32_t n, oy, ox, oc, ky, kx, ic;
    const int32_t per_group = p->dw ? 1 : p->out_c / (p->in_c / p->filter_in_c);
    for (n = 0; n < p->batches; n++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (oc = 0; oc < p->out_c; oc++) {
                    int64_t acc = 0;
                    uint32_t acc32 = 0;
                    const int32_t first = p->dw ? oc / p->depth_mult : (oc / per_group) * p->filter_in_c;
                    const int32_t nic = p->dw ? 1 : p->filter_in_c;
                    for (ky = 0; ky < p->k_h; ky++) {
                        const int32_t iy = oy * p->stride_h - p->pad_top + ky * p->dil_h;
                        if (iy < 0 || iy >= p->in_h) continue;
                        for (kx = 0; kx < p->k_w; kx++) {
                            const int32_t ix = ox * p->stride_w - p->pad_left + kx * p->dil_w;
                            const int16_t *src;
                            if (ix < 0 || ix >= p->in_w) continue;
                            src = in + ((HTC__CAST(int64_t, n) * p->in_h + iy) * p->in_w + ix) * p->in_c + first;
                            for (ic = 0; ic < nic; ic++) {
                                const int32_t wv = p->dw ? w[(ky * p->k_w + kx) * p->out_c + oc]
                                                         : w[((HTC__CAST(int64_t, oc) * p->k_h + ky) * p->k_w + kx) * nic + ic];
                                const int32_t prod = wv * src[ic];
                                acc += prod;
                                acc32 += HTC__CAST(uint32_t, prod);
                            }
                        }
                    }
                    if (p->acc64) {
                        if (bias) acc += p->bias64 ? b64[oc] : b32[oc];
                    } else {
                        if (bias) acc32 += HTC__CAST(uint32_t, p->bias64 ? HTC__CAST(int32_t, b64[oc]) : b32[oc]);
                        acc = HTC__CAST(int32_t, acc32);
                    }
                    out[((HTC__CAST(int64_t, n) * p->out_h + oy) * p->out_w + ox) * p->out_c + oc] = htc__s16_out(p, acc, oc);
                }
}
