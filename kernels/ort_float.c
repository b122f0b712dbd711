/* ort_float.c - QDQ groups that onnxruntime evaluates in float, reproduced
   operation by operation (htc --float-fallback): Conv, Add, Mul. */

/* One output value of a float group: clip, x / scale, round half to even,
   + zp, saturate (MlasQuantizeLinear: divide, clamp to [qmin - zp,
   qmax - zp], convert with rounding to nearest even, add zp). */
static inline int8_t htc__fq_out(float y, float clip_lo, float clip_hi, float scale, int32_t zp, int32_t qmin,
                                 int32_t qmax)
{
    HTC__FLT_VOLATILE float v;
    float lo = HTC__CAST(float, qmin - zp), hi = HTC__CAST(float, qmax - zp);
    y = y < clip_lo ? clip_lo : y;
    y = y > clip_hi ? clip_hi : y;
    v = y / scale;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return HTC__CAST(int8_t, htc__rne(v) + zp);
}

/* The taps are walked in ONNX's weight order (channel, ky, kx), the order
   of MLAS's im2col rows; taps in the padding are skipped (their product is
   +-0, which leaves every partial sum unchanged up to the sign of a zero,
   and the quantized result equal). */
static HTC__UNUSED void htc__fconv2d(const htc__fconv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t khkw = p->k_h * p->k_w, kb = p->k_block;
    int32_t b, oy, ox, m, c, ky, kx;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
                int8_t *o = out + ((size_t)(b * p->out_h + oy) * p->out_w + ox) * p->out_c;
                for (m = 0; m < p->out_c; m++) {
                    const int32_t g = m / p->group_out, ch = p->per_channel ? m : 0;
                    const int8_t *w = p->weights + (size_t)m * khkw * p->group_in;
                    const int32_t wzp = p->w_zp ? p->w_zp[ch] : 0;
                    const float ws = p->w_scale[ch];
                    float total = 0.0f, part = 0.0f;
                    int32_t k = 0, first = 1;
                    for (c = 0; c < p->group_in; c++)
                        for (ky = 0; ky < p->k_h; ky++)
                            for (kx = 0; kx < p->k_w; kx++, k++) {
                                const int32_t iy = iy0 + ky * p->dil_h, ix = ix0 + kx * p->dil_w;
                                if (k > 0 && k % kb == 0) {
                                    total = first ? part : total + part;
                                    first = 0;
                                    part = 0.0f;
                                }
                                if (iy >= 0 && iy < p->in_h && ix >= 0 && ix < p->in_w) {
                                    const int8_t xv = in[((size_t)(b * p->in_h + iy) * p->in_w + ix) * p->in_c +
                                                         g * p->group_in + c];
                                    HTC__FLT_VOLATILE float wv =
                                        HTC__CAST(float, w[(ky * p->k_w + kx) * p->group_in + c] - wzp) * ws;
                                    part = htc__fmaf(p->x_deq[HTC__CAST(uint8_t, xv)], wv, part);
                                }
                            }
                    total = first ? part : total + part;
                    if (p->bias) total = total + p->bias[m];
                    o[m] = htc__fq_out(total, p->clip_lo, p->clip_hi, p->out_scale, p->out_zp, p->qmin, p->qmax);
                }
            }
}

static HTC__UNUSED void htc__fadd_s8(const htc__fbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const float x = p->a_deq[HTC__CAST(uint8_t, a[p->a_scalar ? 0 : i])];
        const float y = p->b_deq[HTC__CAST(uint8_t, b[p->b_scalar ? 0 : i])];
        out[i] = htc__fq_out(x + y, p->clip_lo, p->clip_hi, p->out_scale, p->out_zp, p->qmin, p->qmax);
    }
}

static HTC__UNUSED void htc__fmul_s8(const htc__fbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const float x = p->a_deq[HTC__CAST(uint8_t, a[p->a_scalar ? 0 : i])];
        const float y = p->b_deq[HTC__CAST(uint8_t, b[p->b_scalar ? 0 : i])];
        HTC__FLT_VOLATILE float v = x * y;
        out[i] = htc__fq_out(v, p->clip_lo, p->clip_hi, p->out_scale, p->out_zp, p->qmin, p->qmax);
    }
}
