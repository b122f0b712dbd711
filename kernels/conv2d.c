/* conv2d.c - int8 2-D convolution, NHWC input/output, OHWI weights.
   Bit-exact with TFLite reference_integer_ops::ConvPerChannel. */

/* TFLite's int8 per-channel convolution ignores the filter zero point (int8
   filters are symmetric); so does this kernel. Taps outside the input are
   skipped, which equals reading in_zp there. Per output pixel the valid
   kernel window is computed once; every (ky) row of it is one contiguous run
   of (kx_hi - kx_lo) * in_c bytes in both the input and the OHWI weights when
   dil_w == 1, so the inner loop is a plain dot product over that run, four
   output channels at a time (the input byte and its zero-point offset are
   loaded once for four multiply-accumulates). */

/* First valid tap index: smallest k >= 0 with 0 <= origin + k*dil. */
static HTC__UNUSED int32_t htc__conv_lo(int32_t origin, int32_t dil, int32_t k)
{
    int32_t t = 0;
    while (t < k && origin + t * dil < 0) t++;
    return t;
}

/* One past the last valid tap: origin + k*dil < size. */
static HTC__UNUSED int32_t htc__conv_hi(int32_t origin, int32_t dil, int32_t k, int32_t size)
{
    int32_t t = k;
    while (t > 0 && origin + (t - 1) * dil >= size) t--;
    return t;
}

static HTC__UNUSED void htc__conv2d_s8(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, in_c = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w, out_c = p->out_c;
    const int32_t k_h = p->k_h, k_w = p->k_w;
    const int32_t dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t off = -p->in_zp;
    const int32_t out_zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t mstep = p->per_channel ? 1 : 0;
    const int32_t wstride = k_h * k_w * in_c;         /* bytes per output channel */
    const int32_t row_stride = in_w * in_c;
    const int32_t *bias = p->bias;
    int32_t b, oy, ox;

    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * in_h * row_stride;
        for (oy = 0; oy < out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t ky_lo = htc__conv_lo(iy0, dil_h, k_h);
            const int32_t ky_hi = htc__conv_hi(iy0, dil_h, k_h, in_h);
            for (ox = 0; ox < out_w; ox++) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t kx_lo = htc__conv_lo(ix0, dil_w, k_w);
                const int32_t kx_hi = htc__conv_hi(ix0, dil_w, k_w, in_w);
                /* contiguous run per kernel row when dil_w == 1 */
                const int32_t run = dil_w == 1 ? (kx_hi - kx_lo) * in_c : in_c;
                const int32_t nruns = dil_w == 1 ? (kx_hi > kx_lo ? 1 : 0) : (kx_hi > kx_lo ? kx_hi - kx_lo : 0);
                /* input and weight offsets of the first tap of the window */
                const int8_t *in_px = in_b + (ix0 + kx_lo * dil_w) * in_c;
                const int32_t w_first = kx_lo * in_c;
                int32_t oc = 0;
                for (; oc + 4 <= out_c; oc += 4) {
                    const int8_t *w0 = p->weights + (size_t)oc * wstride;
                    int32_t acc[4] = {0, 0, 0, 0};
                    int32_t ky;
                    for (ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *xr = in_px + (iy0 + ky * dil_h) * row_stride;
                        const int8_t *wr = w0 + ky * k_w * in_c + w_first;
                        int32_t r;
                        for (r = 0; r < nruns; r++)
                            htc__dot4_s8(xr + r * dil_w * in_c, wr + r * in_c, wstride, run, off, acc);
                    }
                    if (bias) {
                        acc[0] += bias[oc]; acc[1] += bias[oc + 1]; acc[2] += bias[oc + 2]; acc[3] += bias[oc + 3];
                    }
                    {
                        const int32_t *m = p->mult + oc * mstep;
                        const int8_t *s = p->shift + oc * mstep;
                        int8_t *o = out + oc;
                        o[0] = HTC__CAST(int8_t, htc__clamp(htc__mulq(acc[0], m[0], s[0]) + out_zp, lo, hi));
                        o[1] = HTC__CAST(int8_t, htc__clamp(htc__mulq(acc[1], m[mstep], s[mstep]) + out_zp, lo, hi));
                        o[2] = HTC__CAST(int8_t, htc__clamp(htc__mulq(acc[2], m[2 * mstep], s[2 * mstep]) + out_zp, lo, hi));
                        o[3] = HTC__CAST(int8_t, htc__clamp(htc__mulq(acc[3], m[3 * mstep], s[3 * mstep]) + out_zp, lo, hi));
                    }
                }
                for (; oc < out_c; oc++) {
                    const int8_t *w0 = p->weights + (size_t)oc * wstride;
                    int32_t a0 = 0;
                    int32_t ky;
                    for (ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *xr = in_px + (iy0 + ky * dil_h) * row_stride;
                        const int8_t *wr = w0 + ky * k_w * in_c + w_first;
                        int32_t r;
                        for (r = 0; r < nruns; r++) a0 += htc__dot1_s8(xr + r * dil_w * in_c, wr + r * in_c, run, off);
                    }
                    if (bias) a0 += bias[oc];
                    out[oc] = HTC__CAST(int8_t, htc__clamp(htc__mulq(a0, p->mult[oc * mstep], p->shift[oc * mstep]) + out_zp, lo, hi));
                }
                out += out_c;
            }
        }
    }
}
