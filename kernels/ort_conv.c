/* ort_conv.c - QLinearConv / ConvInteger and QLinearMatMul / QGemm /
   MatMulInteger with onnxruntime's arithmetic (NHWC activations, int8
   storage). Exact int32 accumulation, then htc__rq_float (float scale,
   round half to even, saturation) or the raw int32 accumulator. */

/* Non-zero weight zero points: sum (x - xzp)(w - wzp) is computed as
   sum (x - xzp) w - wzp * sum (x - xzp), the second sum once per pixel and
   group. Taps outside the input are skipped: onnxruntime pads with the input
   zero point, whose contribution is zero. */

#define HTC__QCONV_DW_BLOCK 64

static HTC__UNUSED int32_t htc__qconv_lo(int32_t origin, int32_t dil, int32_t k)
{
    int32_t t = 0;
    while (t < k && origin + t * dil < 0) t++;
    return t;
}

static HTC__UNUSED int32_t htc__qconv_hi(int32_t origin, int32_t dil, int32_t k, int32_t size)
{
    int32_t t = k;
    while (t > 0 && origin + (t - 1) * dil >= size) t--;
    return t;
}

static HTC__UNUSED void htc__qconv_store(const htc__qconv_params *p, int32_t oc, int32_t acc, int8_t *o8, int32_t *o32)
{
    if (p->bias) acc += p->bias[oc];
    if (o32) {
        o32[oc] = acc;
    } else {
        const int32_t c = p->per_channel ? oc : 0;
        const float lo = HTC__CAST(float, p->qmin - p->out_zp), hi = HTC__CAST(float, p->qmax - p->out_zp);
        o8[oc] = HTC__CAST(int8_t, htc__rq_float(acc, p->scale[c], lo, hi, p->out_zp));
    }
}

static HTC__UNUSED void htc__qconv_core(const htc__qconv_params *p, const int8_t *in, int8_t *o8, int32_t *o32)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, in_c = p->in_c;
    const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t gi = p->group_in, go = p->group_out, out_c = p->out_c;
    const int32_t off = -p->in_zp;
    const int32_t wstride = k_h * k_w * gi;
    const int32_t row = in_w * in_c;
    int32_t b, oy, ox;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * in_h * row;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t ky_lo = htc__qconv_lo(iy0, dil_h, k_h), ky_hi = htc__qconv_hi(iy0, dil_h, k_h, in_h);
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t kx_lo = htc__qconv_lo(ix0, dil_w, k_w), kx_hi = htc__qconv_hi(ix0, dil_w, k_w, in_w);
                int32_t g, ky, kx, i, oc = 0;
                if (gi == 1 && in_c > 1) {
                    /* depthwise: output channel oc reads input channel oc / go;
                       blocks of channels, taps outside, channels inside */
                    const int32_t khkw = k_h * k_w;
                    int32_t acc[HTC__QCONV_DW_BLOCK], sum[HTC__QCONV_DW_BLOCK], c0, j;
                    for (c0 = 0; c0 < out_c; c0 += HTC__QCONV_DW_BLOCK) {
                        const int32_t n = out_c - c0 < HTC__QCONV_DW_BLOCK ? out_c - c0 : HTC__QCONV_DW_BLOCK;
                        const int8_t *wb = p->weights + (size_t)c0 * khkw;
                        for (j = 0; j < n; j++) acc[j] = sum[j] = 0;
                        for (ky = ky_lo; ky < ky_hi; ky++)
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const int8_t *x = in_b + (iy0 + ky * dil_h) * row + (ix0 + kx * dil_w) * in_c;
                                const int8_t *w = wb + ky * k_w + kx;
                                if (go == 1) {
                                    const int8_t *xc = x + c0;
                                    for (j = 0; j < n; j++) {
                                        const int32_t v = xc[j] + off;
                                        acc[j] += v * w[j * khkw];
                                        sum[j] += v;
                                    }
                                } else {
                                    for (j = 0; j < n; j++) {
                                        const int32_t v = x[(c0 + j) / go] + off;
                                        acc[j] += v * w[j * khkw];
                                        sum[j] += v;
                                    }
                                }
                            }
                        for (j = 0; j < n; j++) {
                            const int32_t zc = p->w_zp ? p->w_zp[p->per_channel ? c0 + j : 0] : 0;
                            htc__qconv_store(p, c0 + j, acc[j] - zc * sum[j], o8, o32);
                        }
                    }
                    if (o8) o8 += out_c;
                    if (o32) o32 += out_c;
                    continue;
                }
                for (g = 0; g * go < out_c; g++) {
                    const int32_t ic0 = g * gi;
                    int32_t sum = 0;
                    if (p->w_zp) {
                        for (ky = ky_lo; ky < ky_hi; ky++)
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const int8_t *x = in_b + (iy0 + ky * dil_h) * row + (ix0 + kx * dil_w) * in_c + ic0;
                                for (i = 0; i < gi; i++) sum += x[i] + off;
                            }
                    }
                    if (gi == in_c && dil_w == 1) {
                        /* one group: each kernel row is one contiguous run in
                           the input and in the [oc][ky][kx][ic] weights */
                        const int32_t run = (kx_hi - kx_lo) * in_c;
                        const int8_t *in_px = in_b + (ix0 + kx_lo) * in_c;
                        for (; oc + 4 <= go; oc += 4) {
                            int32_t acc[4] = {0, 0, 0, 0}, j;
                            const int8_t *w0 = p->weights + (size_t)oc * wstride + kx_lo * in_c;
                            if (run > 0)
                                for (ky = ky_lo; ky < ky_hi; ky++)
                                    htc__dot4_s8(in_px + (iy0 + ky * dil_h) * row, w0 + ky * k_w * in_c, wstride, run, off, acc);
                            for (j = 0; j < 4; j++) {
                                const int32_t zc = p->w_zp ? p->w_zp[p->per_channel ? oc + j : 0] : 0;
                                htc__qconv_store(p, oc + j, acc[j] - zc * sum, o8, o32);
                            }
                        }
                        for (; oc < go; oc++) {
                            int32_t acc = 0;
                            const int8_t *w0 = p->weights + (size_t)oc * wstride + kx_lo * in_c;
                            if (run > 0)
                                for (ky = ky_lo; ky < ky_hi; ky++)
                                    acc += htc__dot1_s8(in_px + (iy0 + ky * dil_h) * row, w0 + ky * k_w * in_c, run, off);
                            htc__qconv_store(p, oc, acc - (p->w_zp ? p->w_zp[p->per_channel ? oc : 0] : 0) * sum, o8, o32);
                        }
                    } else {
                        const int32_t oc_end = oc + go;
                        for (; oc < oc_end; oc++) {
                            const int8_t *w0 = p->weights + (size_t)oc * wstride;
                            int32_t acc = 0;
                            for (ky = ky_lo; ky < ky_hi; ky++) {
                                const int8_t *xr = in_b + (iy0 + ky * dil_h) * row + ic0;
                                const int8_t *wr = w0 + ky * k_w * gi;
                                for (kx = kx_lo; kx < kx_hi; kx++) {
                                    const int8_t *x = xr + (ix0 + kx * dil_w) * in_c;
                                    const int8_t *w = wr + kx * gi;
                                    for (i = 0; i < gi; i++) acc += (x[i] + off) * w[i];
                                }
                            }
                            htc__qconv_store(p, oc, acc - (p->w_zp ? p->w_zp[p->per_channel ? oc : 0] : 0) * sum, o8, o32);
                        }
                    }
                }
                if (o8) o8 += out_c;
                if (o32) o32 += out_c;
            }
        }
    }
}

static HTC__UNUSED void htc__qconv2d_s8(const htc__qconv_params *p, const int8_t *in, int8_t *out)
{
    htc__qconv_core(p, in, out, HTC__CAST(int32_t *, 0));
}

static HTC__UNUSED void htc__qconv2d_s32(const htc__qconv_params *p, const int8_t *in, int32_t *out)
{
    htc__qconv_core(p, in, HTC__CAST(int8_t *, 0), out);
}

static HTC__UNUSED void htc__qfc_store(const htc__qfc_params *p, int32_t n, int32_t acc, int32_t xsum, int8_t *o8, int32_t *o32)
{
    if (p->w_zp) acc -= p->w_zp[p->per_channel ? n : 0] * xsum;
    if (p->bias) acc += p->bias[n];
    if (o32) {
        o32[n] = acc;
    } else {
        const float lo = HTC__CAST(float, p->qmin - p->out_zp), hi = HTC__CAST(float, p->qmax - p->out_zp);
        o8[n] = HTC__CAST(int8_t, htc__rq_float(acc, p->scale[p->per_channel ? n : 0], lo, hi, p->out_zp));
    }
}

static HTC__UNUSED void htc__qfc_core(const htc__qfc_params *p, const int8_t *in, int8_t *o8, int32_t *o32)
{
    const int32_t k = p->in_features, nout = p->out_features, off = -p->in_zp;
    int32_t b, r, n, i;
    for (b = 0; b < p->batches; b++) {
        const int8_t *wb = p->weights + (p->w_batches > 1 ? (size_t)b * nout * k : 0);
        for (r = 0; r < p->rows; r++) {
            const int8_t *x = in + ((size_t)b * p->rows + r) * k;
            int32_t xsum = 0;
            if (p->w_zp)
                for (i = 0; i < k; i++) xsum += x[i] + off;
            for (n = 0; n + 4 <= nout; n += 4) {
                int32_t acc[4] = {0, 0, 0, 0}, j;
                htc__dot4_s8(x, wb + (size_t)n * k, k, k, off, acc);
                for (j = 0; j < 4; j++) htc__qfc_store(p, n + j, acc[j], xsum, o8, o32);
            }
            for (n = nout - nout % 4; n < nout; n++)
                htc__qfc_store(p, n, htc__dot1_s8(x, wb + (size_t)n * k, k, off), xsum, o8, o32);
            if (o8) o8 += nout;
            if (o32) o32 += nout;
        }
    }
}

static HTC__UNUSED void htc__qfc_s8(const htc__qfc_params *p, const int8_t *in, int8_t *out)
{
    htc__qfc_core(p, in, out, HTC__CAST(int32_t *, 0));
}

static HTC__UNUSED void htc__qfc_s32(const htc__qfc_params *p, const int8_t *in, int32_t *out)
{
    htc__qfc_core(p, in, HTC__CAST(int8_t *, 0), out);
}
