/* ort_conv.c - QLinearConv / ConvInteger and QLinearMatMul / QGemm /
   MatMulInteger with onnxruntime's arithmetic (NHWC activations, int8
   storage). Exact int32 accumulation, then htc__rq_float (float scale,
   round half to even, saturation) or the raw int32 accumulator. */

/* Non-zero weight zero points: sum (x - xzp)(w - wzp) is computed as
   sum (x - xzp) w - wzp * sum (x - xzp), the second sum once per pixel and
   group. Taps outside the input are skipped: onnxruntime pads with the input
   zero point, whose contribution is zero. */

#define HTC__QCONV_DW_BLOCK 32
#define HTC__QCONV_GATHER 256

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

static inline void htc__qconv_store(const htc__qconv_params *p, int32_t oc, int32_t acc, int8_t *o8, int32_t *o32)
{
    if (p->bias) acc += p->bias[oc];
    if (o32) {
        o32[oc] = acc;
    } else {
        const float lo = HTC__CAST(float, p->qmin - p->out_zp), hi = HTC__CAST(float, p->qmax - p->out_zp);
        o8[oc] = HTC__CAST(int8_t, htc__rq_float(acc, p->scale[p->per_channel ? oc : 0], lo, hi, p->out_zp));
    }
}

/* acc[j] += (x[j] + off) * w[j], j < n: (x + off) * w fits int16 exactly
   (|x + off| <= 255, |w| <= 128), so SSE2 multiplies 8 lanes in int16 and
   widens the products to the int32 accumulators. */
static inline void htc__mac_s8(int32_t *acc, const int8_t *x, const int8_t *w, int32_t n, int32_t off)
{
    int32_t j = 0;
#ifdef HTC__SSE2
    const __m128i vo = _mm_set1_epi16(HTC__CAST(short, off));
    for (; j + 8 <= n; j += 8) {
        const __m128i xv = _mm_add_epi16(HTC__LO16(HTC__LD64(x + j)), vo);
        const __m128i pr = _mm_mullo_epi16(xv, HTC__LO16(HTC__LD64(w + j)));
        __m128i *a = HTC__CAST(__m128i *, HTC__CAST(void *, acc + j));
        _mm_storeu_si128(a, _mm_add_epi32(_mm_loadu_si128(a), _mm_srai_epi32(_mm_unpacklo_epi16(pr, pr), 16)));
        _mm_storeu_si128(a + 1, _mm_add_epi32(_mm_loadu_si128(a + 1), _mm_srai_epi32(_mm_unpackhi_epi16(pr, pr), 16)));
    }
#endif
    for (; j < n; j++) acc[j] += (x[j] + off) * w[j];
}

/* Depthwise, multiplier 1: per block of channels the weights are gathered
   once into tap-major order, then every output pixel is a few contiguous
   multiply-accumulates per tap. */
#define HTC__QCONV_DW_TAPS 25

static HTC__UNUSED void htc__qconv_dw(const htc__qconv_params *p, const int8_t *in, int8_t *o8, int32_t *o32)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, c = p->in_c, khkw = p->k_h * p->k_w;
    const int32_t off = -p->in_zp, row = in_w * c;
    int8_t wt[HTC__QCONV_DW_TAPS * HTC__QCONV_DW_BLOCK];
    int32_t acc[HTC__QCONV_DW_BLOCK], sum[HTC__QCONV_DW_BLOCK];
    int32_t b, c0, oy, ox, ky, kx, j, t;
    for (c0 = 0; c0 < c; c0 += HTC__QCONV_DW_BLOCK) {
        const int32_t n = c - c0 < HTC__QCONV_DW_BLOCK ? c - c0 : HTC__QCONV_DW_BLOCK;
        for (t = 0; t < khkw; t++)
            for (j = 0; j < n; j++) wt[t * HTC__QCONV_DW_BLOCK + j] = p->weights[(size_t)(c0 + j) * khkw + t];
        for (b = 0; b < p->batches; b++) {
            const int8_t *in_b = in + (size_t)b * in_h * row;
            for (oy = 0; oy < p->out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                const int32_t ky_lo = htc__qconv_lo(iy0, p->dil_h, p->k_h), ky_hi = htc__qconv_hi(iy0, p->dil_h, p->k_h, in_h);
                for (ox = 0; ox < p->out_w; ox++) {
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    const int32_t kx_lo = htc__qconv_lo(ix0, p->dil_w, p->k_w), kx_hi = htc__qconv_hi(ix0, p->dil_w, p->k_w, in_w);
                    const size_t opx = (((size_t)b * p->out_h + oy) * p->out_w + ox) * c;
                    for (j = 0; j < n; j++) acc[j] = 0;
                    for (ky = ky_lo; ky < ky_hi; ky++)
                        for (kx = kx_lo; kx < kx_hi; kx++) {
                            const int8_t *x = in_b + (iy0 + ky * p->dil_h) * row + (ix0 + kx * p->dil_w) * c + c0;
                            htc__mac_s8(acc, x, wt + (ky * p->k_w + kx) * HTC__QCONV_DW_BLOCK, n, off);
                        }
                    if (p->w_zp) {
                        for (j = 0; j < n; j++) sum[j] = 0;
                        for (ky = ky_lo; ky < ky_hi; ky++)
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const int8_t *x = in_b + (iy0 + ky * p->dil_h) * row + (ix0 + kx * p->dil_w) * c + c0;
                                for (j = 0; j < n; j++) sum[j] += x[j] + off;
                            }
                        for (j = 0; j < n; j++) acc[j] -= p->w_zp[p->per_channel ? c0 + j : 0] * sum[j];
                    }
                    for (j = 0; j < n; j++)
                        htc__qconv_store(p, c0 + j, acc[j], o8 ? o8 + opx : o8, o32 ? o32 + opx : o32);
                }
            }
        }
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
    if (gi == 1 && go == 1 && k_h * k_w <= HTC__QCONV_DW_TAPS) {
        htc__qconv_dw(p, in, o8, o32);
        return;
    }
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * in_h * row;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            const int32_t ky_lo = htc__qconv_lo(iy0, dil_h, k_h), ky_hi = htc__qconv_hi(iy0, dil_h, k_h, in_h);
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                const int32_t kx_lo = htc__qconv_lo(ix0, dil_w, k_w), kx_hi = htc__qconv_hi(ix0, dil_w, k_w, in_w);
                int32_t g, ky, kx, i, oc = 0;
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
                    if (gi == in_c && in_c * k_w < 16 && wstride <= HTC__QCONV_GATHER) {
                        /* short kernel rows (few input channels): gather the
                           receptive field once, taps outside the input as the
                           zero point (they add nothing), then one dot product
                           of wstride bytes per output channel */
                        int8_t buf[HTC__QCONV_GATHER];
                        const int8_t zpv = HTC__CAST(int8_t, p->in_zp);
                        for (ky = 0; ky < k_h; ky++) {
                            const int32_t iy = iy0 + ky * dil_h;
                            for (kx = 0; kx < k_w; kx++) {
                                const int32_t ix = ix0 + kx * dil_w;
                                int8_t *d = buf + (ky * k_w + kx) * in_c;
                                if (iy < 0 || iy >= in_h || ix < 0 || ix >= in_w) {
                                    for (i = 0; i < in_c; i++) d[i] = zpv;
                                } else {
                                    const int8_t *x = in_b + iy * row + ix * in_c;
                                    for (i = 0; i < in_c; i++) d[i] = x[i];
                                }
                            }
                        }
                        for (; oc + 4 <= go; oc += 4) {
                            int32_t acc[4] = {0, 0, 0, 0}, j;
                            htc__dot4_s8(buf, p->weights + (size_t)oc * wstride, wstride, wstride, off, acc);
                            for (j = 0; j < 4; j++) {
                                const int32_t zc = p->w_zp ? p->w_zp[p->per_channel ? oc + j : 0] : 0;
                                htc__qconv_store(p, oc + j, acc[j] - zc * sum, o8, o32);
                            }
                        }
                        for (; oc < go; oc++) {
                            const int32_t acc = htc__dot1_s8(buf, p->weights + (size_t)oc * wstride, wstride, off);
                            htc__qconv_store(p, oc, acc - (p->w_zp ? p->w_zp[p->per_channel ? oc : 0] : 0) * sum, o8, o32);
                        }
                    } else if (gi == in_c && dil_w == 1) {
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
