/* dwconv2d.c - int8 depthwise convolution, NHWC, weights [1][kh][kw][out_c].
   Bit-exact with TFLite reference_integer_ops::DepthwiseConvPerChannel. */

/* out channel oc = ic * depth_mult + m reads input channel ic. As in TFLite's
   int8 kernel the filter zero point is ignored and taps outside the input are
   skipped. Output channels are processed in blocks of HTC__DW_BLOCK with one
   int32 accumulator each (a fixed-size local array, no VLA): for every valid
   tap the block is one contiguous multiply-accumulate over channels in both
   the input pixel and the weight row, so no index is recomputed per MAC. */

#define HTC__DW_BLOCK 64

static HTC__UNUSED int32_t htc__dw_lo(int32_t origin, int32_t dil, int32_t k)
{
    int32_t t = 0;
    while (t < k && origin + t * dil < 0) t++;
    return t;
}

static HTC__UNUSED int32_t htc__dw_hi(int32_t origin, int32_t dil, int32_t k, int32_t size)
{
    int32_t t = k;
    while (t > 0 && origin + (t - 1) * dil >= size) t--;
    return t;
}

static HTC__UNUSED void htc__dwconv2d_s8(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, in_c = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w, out_c = p->out_c;
    const int32_t k_h = p->k_h, k_w = p->k_w, dm = p->depth_mult;
    const int32_t dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t off = -p->in_zp;
    const int32_t out_zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t mstep = p->per_channel ? 1 : 0;
    const int32_t row_stride = in_w * in_c;
    const int32_t wrow = k_w * out_c;                   /* weight bytes per kernel row */
    int32_t acc[HTC__DW_BLOCK];
    int32_t b, oy, ox;

    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * in_h * row_stride;
        int8_t *out_b = out + (size_t)b * out_h * out_w * out_c;
        for (oy = 0; oy < out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t ky_lo = htc__dw_lo(iy0, dil_h, k_h);
            const int32_t ky_hi = htc__dw_hi(iy0, dil_h, k_h, in_h);
            for (ox = 0; ox < out_w; ox++) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t kx_lo = htc__dw_lo(ix0, dil_w, k_w);
                const int32_t kx_hi = htc__dw_hi(ix0, dil_w, k_w, in_w);
                int8_t *o = out_b + ((size_t)oy * out_w + ox) * out_c;
                int32_t c0;
                for (c0 = 0; c0 < out_c; c0 += HTC__DW_BLOCK) {
                    const int32_t n = out_c - c0 < HTC__DW_BLOCK ? out_c - c0 : HTC__DW_BLOCK;
                    const int32_t ic0 = dm == 1 ? c0 : c0 / dm, m0 = c0 - ic0 * dm;
                    int32_t ky, j;
                    if (p->bias) {
                        for (j = 0; j < n; j++) acc[j] = p->bias[c0 + j];
                    } else {
                        for (j = 0; j < n; j++) acc[j] = 0;
                    }
                    for (ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *xr = in_b + (iy0 + ky * dil_h) * row_stride;
                        const int8_t *wr = p->weights + ky * wrow + c0;
                        int32_t kx;
                        for (kx = kx_lo; kx < kx_hi; kx++) {
                            const int8_t *x = xr + (ix0 + kx * dil_w) * in_c;
                            const int8_t *w = wr + kx * out_c;
                            if (dm == 1) {
                                const int8_t *xc = x + c0;
                                for (j = 0; j < n; j++) acc[j] += (xc[j] + off) * w[j];
                            } else {
                                /* walk (ic, m) pairs of the block without dividing */
                                int32_t ic = ic0, m = m0;
                                int32_t v = x[ic] + off;
                                for (j = 0; j < n; j++) {
                                    acc[j] += v * w[j];
                                    if (++m == dm) {
                                        m = 0;
                                        ic++;
                                        if (j + 1 < n) v = x[ic] + off;
                                    }
                                }
                            }
                        }
                    }
                    {
                        const int32_t *mm = p->mult + c0 * mstep;
                        const int8_t *ss = p->shift + c0 * mstep;
                        for (j = 0; j < n; j++) {
                            o[c0 + j] = HTC__CAST(int8_t, htc__clamp(htc__mulq(acc[j], *mm, *ss) + out_zp, lo, hi));
                            mm += mstep;
                            ss += mstep;
                        }
                    }
                }
            }
        }
    }
}
