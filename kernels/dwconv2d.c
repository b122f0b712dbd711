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

/* valid taps [lo, hi) of a window of k taps starting at origin */
static inline void htc__dw_taps(int32_t origin, int32_t dil, int32_t k, int32_t size, int32_t *lo, int32_t *hi)
{
    *lo = origin >= 0 ? 0 : htc__dw_lo(origin, dil, k);
    *hi = origin + (k - 1) * dil < size ? k : htc__dw_hi(origin, dil, k, size);
}

#ifdef HTC__SSE2
#define HTC__DW_MAXPAIRS 32

#ifdef HTC__AVX2
/* AVX2 inner loop of htc__dwconv2d_sse2 (16 channels): w2 holds, per tap
   pair, the two weight rows widened and interleaved within 128-bit lanes
   (channels 0-3 | 8-11, then 4-7 | 12-15), made by htc__dw_w16_avx2. */
static HTC__UNUSED HTC__AVX2_FN void htc__dw_w16_avx2(const int8_t *wa, const int8_t *wb, int16_t *w2)
{
    const __m256i a = _mm256_cvtepi8_epi16(HTC__LD128(wa)), b = _mm256_cvtepi8_epi16(HTC__LD128(wb));
    _mm256_storeu_si256(HTC__CAST(__m256i *, HTC__CAST(void *, w2)), _mm256_unpacklo_epi16(a, b));
    _mm256_storeu_si256(HTC__CAST(__m256i *, HTC__CAST(void *, w2 + 16)), _mm256_unpackhi_epi16(a, b));
}

static HTC__UNUSED HTC__AVX2_FN void htc__dw16_avx2(const int8_t *const *xp, int32_t npairs, const int16_t *w2, __m128i *acc)
{
    __m256i lo = _mm256_setzero_si256(), hi = lo;
    int32_t t;
    for (t = 0; t < npairs; t++, w2 += 32) {
        const __m256i u = _mm256_cvtepi8_epi16(HTC__LD128(xp[2 * t])), v = _mm256_cvtepi8_epi16(HTC__LD128(xp[2 * t + 1]));
        lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(u, v),
                                                     _mm256_loadu_si256(HTC__CAST(const __m256i *, HTC__CAST(const void *, w2)))));
        hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(u, v),
                                                     _mm256_loadu_si256(HTC__CAST(const __m256i *, HTC__CAST(const void *, w2 + 16)))));
    }
    acc[0] = _mm_add_epi32(acc[0], _mm256_castsi256_si128(lo));
    acc[1] = _mm_add_epi32(acc[1], _mm256_castsi256_si128(hi));
    acc[2] = _mm_add_epi32(acc[2], _mm256_extracti128_si256(lo, 1));
    acc[3] = _mm_add_epi32(acc[3], _mm256_extracti128_si256(hi, 1));
}
#endif

/* SSE2, depth_mult 1, up to 64 taps: 16 channels at a time, channel block
   outermost. For the block the weights of tap pairs are widened and
   interleaved once (so pmaddwd computes x_a*w_a + x_b*w_b per channel), and
   bias + off * sum(w) is folded into the starting accumulators: every pixel
   then sums x * w over all taps, a tap outside the input reading a vector of
   in_zp, whose term cancels exactly against its share of off * sum(w). */
static HTC__NOINLINE HTC__UNUSED void htc__dwconv2d_sse2(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, C = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w;
    const int32_t k_h = p->k_h, k_w = p->k_w, ntaps = k_h * k_w, npairs = (ntaps + 1) / 2;
    const int32_t off = -p->in_zp;
    const int32_t mstep = p->per_channel ? 1 : 0;
    const int32_t out_zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    __m128i W[HTC__DW_MAXPAIRS][4];
#ifdef HTC__AVX2
    int16_t w2[HTC__DW_MAXPAIRS * 32];
    const int avx2 = htc__have_avx2();
#endif
    int8_t zpv[16];
    int32_t toff[2 * HTC__DW_MAXPAIRS];
    const int8_t *xp[2 * HTC__DW_MAXPAIRS];
    int32_t b, c0, t;
    memset(zpv, p->in_zp & 0xff, sizeof zpv);
    for (t = 0; t < ntaps; t++) toff[t] = ((t / k_w) * p->dil_h * in_w + (t % k_w) * p->dil_w) * C;
    for (c0 = 0; c0 < C; c0 += 16) {
        const int32_t n = C - c0 < 16 ? C - c0 : 16;
        int32_t init[16];
        int8_t wt[2][16];
        htc__rq4 q[4];
        int usev = 1, usev8 = 1, j;
        /* weights of the block, per tap pair, widened and interleaved */
        for (j = 0; j < 16; j++) init[j] = 0;
        for (t = 0; t < npairs; t++) {
            __m128i a, c, al, ah, cl, ch;
            int k;
            for (k = 0; k < 2; k++) {
                const int32_t tap = 2 * t + k;
                for (j = 0; j < 16; j++) {
                    wt[k][j] = (tap < ntaps && j < n) ? p->weights[(size_t)tap * C + c0 + j] : 0;
                    init[j] += wt[k][j];
                }
            }
            a = HTC__LD128(wt[0]);
            c = HTC__LD128(wt[1]);
            al = HTC__LO16(a); ah = HTC__HI16(a); cl = HTC__LO16(c); ch = HTC__HI16(c);
            W[t][0] = _mm_unpacklo_epi16(al, cl);
            W[t][1] = _mm_unpackhi_epi16(al, cl);
            W[t][2] = _mm_unpacklo_epi16(ah, ch);
            W[t][3] = _mm_unpackhi_epi16(ah, ch);
#ifdef HTC__AVX2
            if (avx2) htc__dw_w16_avx2(wt[0], wt[1], w2 + 32 * t);
#endif
        }
        for (j = 0; j < 16; j++) init[j] = init[j] * off + (p->bias && j < n ? p->bias[c0 + j] : 0);
        memset(q, 0, sizeof q);
        for (j = 0; j < 4; j++) {
            if (c0 + 4 * j + 4 <= C) {
                const int ok = htc__rq4_make(&q[j], p->mult + (c0 + 4 * j) * mstep, p->shift + (c0 + 4 * j) * mstep, mstep);
                usev &= ok;
                if (j < 2) usev8 &= ok;
            } else {
                usev = 0;
                if (j < 2) usev8 = 0;
            }
        }
        for (b = 0; b < p->batches; b++) {
            const int8_t *in_b = in + (size_t)b * in_h * in_w * C + c0;
            int8_t *o = out + (size_t)b * out_h * out_w * C + c0;
            int32_t oy, ox;
            for (oy = 0; oy < out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                const int rows_in = iy0 >= 0 && iy0 + (k_h - 1) * p->dil_h < in_h;
                for (ox = 0; ox < out_w; ox++, o += C) {
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    const int8_t *base = in_b + ((size_t)iy0 * in_w + ix0) * C;
                    __m128i a0 = HTC__LD128(init), a1 = HTC__LD128(init + 4), a2 = HTC__LD128(init + 8), a3 = HTC__LD128(init + 12);
                    if (rows_in && ix0 >= 0 && ix0 + (k_w - 1) * p->dil_w < in_w) {
                        for (t = 0; t < ntaps; t++) xp[t] = base + toff[t];
                    } else {
                        int32_t ky, kx;
                        for (t = 0, ky = 0; ky < k_h; ky++) {
                            const int32_t iy = iy0 + ky * p->dil_h;
                            const int row_ok = iy >= 0 && iy < in_h;
                            for (kx = 0; kx < k_w; kx++, t++) {
                                const int32_t ix = ix0 + kx * p->dil_w;
                                xp[t] = (row_ok && ix >= 0 && ix < in_w) ? base + toff[t] : zpv;
                            }
                        }
                    }
                    if (ntaps & 1) xp[ntaps] = zpv;
#ifdef HTC__AVX2
                    if (n == 16 && avx2) {
                        __m128i acc[4];
                        acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;
                        htc__dw16_avx2(xp, npairs, w2, acc);
                        a0 = acc[0]; a1 = acc[1]; a2 = acc[2]; a3 = acc[3];
                    } else
#endif
                    if (n == 16) {
                        for (t = 0; t < npairs; t++) {
                            const __m128i u = HTC__LD128(xp[2 * t]), v = HTC__LD128(xp[2 * t + 1]);
                            const __m128i ul = HTC__LO16(u), uh = HTC__HI16(u), vl = HTC__LO16(v), vh = HTC__HI16(v);
                            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(ul, vl), W[t][0]));
                            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(ul, vl), W[t][1]));
                            a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_unpacklo_epi16(uh, vh), W[t][2]));
                            a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_unpackhi_epi16(uh, vh), W[t][3]));
                        }
                    } else if (n == 8) {
                        for (t = 0; t < npairs; t++) {
                            const __m128i ul = HTC__LO16(HTC__LD64(xp[2 * t])), vl = HTC__LO16(HTC__LD64(xp[2 * t + 1]));
                            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(ul, vl), W[t][0]));
                            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(ul, vl), W[t][1]));
                        }
                    } else {
                        /* partial block: gather the channels into full vectors */
                        int8_t xu[16], xv[16];
                        for (t = 0; t < npairs; t++) {
                            __m128i u, v, ul, uh, vl, vh;
                            memset(xu, 0, 16);
                            memset(xv, 0, 16);
                            memcpy(xu, xp[2 * t], (size_t)n);
                            memcpy(xv, xp[2 * t + 1], (size_t)n);
                            u = HTC__LD128(xu); v = HTC__LD128(xv);
                            ul = HTC__LO16(u); uh = HTC__HI16(u); vl = HTC__LO16(v); vh = HTC__HI16(v);
                            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(ul, vl), W[t][0]));
                            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(ul, vl), W[t][1]));
                            a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_unpacklo_epi16(uh, vh), W[t][2]));
                            a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_unpackhi_epi16(uh, vh), W[t][3]));
                        }
                    }
                    if (usev8 && n == 8) {
                        const __m128i r01 = htc__rq4_pack(htc__rq4_apply(&q[0], a0), htc__rq4_apply(&q[1], a1), out_zp, lo, hi);
                        _mm_storel_epi64(HTC__CAST(__m128i *, HTC__CAST(void *, o)), r01);
                    } else if (usev) {
                        const __m128i r01 = htc__rq4_pack(htc__rq4_apply(&q[0], a0), htc__rq4_apply(&q[1], a1), out_zp, lo, hi);
                        const __m128i r23 = htc__rq4_pack(htc__rq4_apply(&q[2], a2), htc__rq4_apply(&q[3], a3), out_zp, lo, hi);
                        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, o)), _mm_unpacklo_epi64(r01, r23));
                    } else {
                        int32_t acc[16];
                        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc)), a0);
                        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 4)), a1);
                        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 8)), a2);
                        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 12)), a3);
                        for (j = 0; j < n; j++)
                            o[j] = HTC__CAST(int8_t, htc__requant(acc[j], p->mult[(c0 + j) * mstep], p->shift[(c0 + j) * mstep], out_zp, lo, hi));
                    }
                }
            }
        }
    }
}
#endif

/* acc[0..3] += sum over n taps of (x[k] + off) * w[k], four channels, taps
   xstep / wstep bytes apart */
static inline void htc__dw4_taps(const int8_t *x, const int8_t *w, int32_t n, int32_t xstep, int32_t wstep,
                                                   int32_t off, int32_t *acc)
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (; n > 0; n--, x += xstep, w += wstep) {
        a0 += (x[0] + off) * w[0];
        a1 += (x[1] + off) * w[1];
        a2 += (x[2] + off) * w[2];
        a3 += (x[3] + off) * w[3];
    }
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;
}

/* Portable path for depth_mult 1: four channels at a time, outermost, so
   their accumulators stay in registers over all taps of a pixel and their
   requantization constants over all pixels. */
static HTC__NOINLINE HTC__UNUSED void htc__dwconv2d_dm1(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, C = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w;
    const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t off = -p->in_zp, mstep = p->per_channel ? 1 : 0;
    const int32_t out_zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t row_stride = in_w * C, wrow = k_w * C;
    int32_t b, c0;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * in_h * row_stride;
        int8_t *out_b = out + (size_t)b * out_h * out_w * C;
        for (c0 = 0; c0 < C; c0 += 4) {
            const int32_t nc = C - c0 < 4 ? C - c0 : 4;
            htc__rq q[4];
            int32_t bias[4] = {0, 0, 0, 0};
            int32_t k, oy, ox;
            for (k = 0; k < nc; k++) {
                q[k] = htc__rq_make(p->mult[(c0 + k) * mstep], p->shift[(c0 + k) * mstep]);
                if (p->bias) bias[k] = p->bias[c0 + k];
            }
            for (oy = 0; oy < out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                const int32_t ky_lo = htc__dw_lo(iy0, dil_h, k_h), ky_hi = htc__dw_hi(iy0, dil_h, k_h, in_h);
                int8_t *o = out_b + (size_t)oy * out_w * C + c0;
                for (ox = 0; ox < out_w; ox++, o += C) {
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    const int32_t kx_lo = htc__dw_lo(ix0, dil_w, k_w), kx_hi = htc__dw_hi(ix0, dil_w, k_w, in_w);
                    int32_t acc[4], a0, a1, a2, a3, ky, kx;
                    acc[0] = bias[0]; acc[1] = bias[1]; acc[2] = bias[2]; acc[3] = bias[3];
                    if (nc == 4) {
                        for (ky = ky_lo; ky < ky_hi; ky++)
                            htc__dw4_taps(in_b + (iy0 + ky * dil_h) * row_stride + (ix0 + kx_lo * dil_w) * C + c0,
                                          p->weights + ky * wrow + kx_lo * C + c0, kx_hi - kx_lo, dil_w * C, C, off, acc);
                    }
                    a0 = acc[0]; a1 = acc[1]; a2 = acc[2]; a3 = acc[3];
                    for (ky = ky_lo; ky < ky_hi && nc < 4; ky++) {
                        const int8_t *x = in_b + (iy0 + ky * dil_h) * row_stride + (ix0 + kx_lo * dil_w) * C + c0;
                        const int8_t *w = p->weights + ky * wrow + kx_lo * C + c0;
                        {
                            for (kx = kx_lo; kx < kx_hi; kx++, x += dil_w * C, w += C) {
                                a0 += (x[0] + off) * w[0];
                                if (nc > 1) a1 += (x[1] + off) * w[1];
                                if (nc > 2) a2 += (x[2] + off) * w[2];
                            }
                        }
                    }
                    o[0] = HTC__CAST(int8_t, htc__rq_apply(&q[0], a0, out_zp, lo, hi));
                    if (nc > 1) o[1] = HTC__CAST(int8_t, htc__rq_apply(&q[1], a1, out_zp, lo, hi));
                    if (nc > 2) o[2] = HTC__CAST(int8_t, htc__rq_apply(&q[2], a2, out_zp, lo, hi));
                    if (nc > 3) o[3] = HTC__CAST(int8_t, htc__rq_apply(&q[3], a3, out_zp, lo, hi));
                }
            }
        }
    }
}

#ifdef HTC__DSP
/* Arm DSP path, depth_mult 1, up to HTC__DSP_DWTAPS taps: blocks of four
   channels, outermost. The block's weights are sign-extended once into a
   table on the stack, per tap the halves (c0, c2) and (c1, c3); per pixel
   and valid tap one word of the input (the four channels) becomes
   x - in_zp in the same halves by SXTAB16, and SMLABB / SMLATT add the
   four products to four accumulators. Taps outside the input are skipped.
   Channels past the last multiple of four take a plain loop. */
#ifndef HTC__DSP_DWTAPS
#define HTC__DSP_DWTAPS 25
#endif

/* n interior output pixels of a 3x3 depthwise layer, four channels: x is the
   window's top-left input word of the first pixel, step the input bytes
   from one pixel to the next, rs the row stride and cs the channel stride
   (dil_w * C) in bytes; tbl the block's 9 x 2 weight halves, q the four
   channels' requantization (htc__dsprq), bias the four start values. */
static HTC__NOINLINE HTC__DSP_NOSCHED void htc__dw3x3_dsp_row(const int8_t *x, int32_t step, int32_t rs, int32_t cs,
                                                              const int32_t *tbl, const htc__dsprq *q, const int32_t *bias,
                                                              int32_t o2, int32_t zp, int32_t lo, int32_t hi,
                                                              int8_t *o, int32_t ostep, int32_t n)
{
    const int full = lo == -128 && hi == 127;
    for (; n > 0; n--, x += step, o += ostep) {
        int32_t a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3], v0, v1, v2, v3;
        const int8_t *r = x;
        int32_t v, e, u;
#define HTC__DW_TAP(R, W)                                                   \
        v = htc__ld32(R);                                                   \
        e = htc__sxtab16(o2, v);                                            \
        u = htc__sxtab16_r8(o2, v);                                         \
        a0 = htc__smlabb(e, (W)[0], a0); a2 = htc__smlatt(e, (W)[0], a2);   \
        a1 = htc__smlabb(u, (W)[1], a1); a3 = htc__smlatt(u, (W)[1], a3);
        HTC__DW_TAP(r, tbl)
        HTC__DW_TAP(r + cs, tbl + 2)
        HTC__DW_TAP(r + 2 * cs, tbl + 4)
        r += rs;
        HTC__DW_TAP(r, tbl + 6)
        HTC__DW_TAP(r + cs, tbl + 8)
        HTC__DW_TAP(r + 2 * cs, tbl + 10)
        r += rs;
        HTC__DW_TAP(r, tbl + 12)
        HTC__DW_TAP(r + cs, tbl + 14)
        HTC__DW_TAP(r + 2 * cs, tbl + 16)
#undef HTC__DW_TAP
        v0 = htc__dsprq_apply(q[0], a0) + zp;
        v1 = htc__dsprq_apply(q[1], a1) + zp;
        v2 = htc__dsprq_apply(q[2], a2) + zp;
        v3 = htc__dsprq_apply(q[3], a3) + zp;
        if (full) {
            v0 = htc__ssat8(v0); v1 = htc__ssat8(v1); v2 = htc__ssat8(v2); v3 = htc__ssat8(v3);
        } else {
            v0 = htc__dsp_clamp(v0, lo, hi); v1 = htc__dsp_clamp(v1, lo, hi);
            v2 = htc__dsp_clamp(v2, lo, hi); v3 = htc__dsp_clamp(v3, lo, hi);
        }
        o[0] = HTC__CAST(int8_t, v0);
        o[1] = HTC__CAST(int8_t, v1);
        o[2] = HTC__CAST(int8_t, v2);
        o[3] = HTC__CAST(int8_t, v3);
    }
}

static HTC__NOINLINE void htc__dwconv2d_dsp(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, C = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w;
    const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, dil_w = p->dil_w, ntaps = k_h * k_w;
    const int32_t off = -p->in_zp, o2 = htc__dup16(off), mstep = p->per_channel ? 1 : 0;
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t row_stride = in_w * C, xstep = dil_w * C;
    const int fast = htc__dsp_rq_ok(p->mult, p->shift, p->per_channel ? C : 1, p->bias, C, ntaps);
    const int full = lo == -128 && hi == 127;
    int32_t tbl[2 * HTC__DSP_DWTAPS];
    int row3;
    int32_t b, c0, t;
    for (c0 = 0; c0 < C; c0 += 4) {
        const int32_t nc = C - c0 < 4 ? C - c0 : 4;
        htc__dsprq q[4];
        htc__rq r[4];
        int32_t bias[4] = {0, 0, 0, 0}, k;
        for (k = 0; k < nc; k++) {
            const int32_t m = p->mult[(c0 + k) * mstep], sh = p->shift[(c0 + k) * mstep];
            if (fast) q[k] = htc__dsprq_make(m, sh);
            else r[k] = htc__rq_make(m, sh);
            if (p->bias) bias[k] = p->bias[c0 + k];
        }
        row3 = nc == 4 && fast && k_h == 3 && k_w == 3;
        if (nc == 4)
            for (t = 0; t < ntaps; t++) {
                const int32_t w = htc__ld32(p->weights + (size_t)t * C + c0);
                tbl[2 * t] = htc__sxtb16(w);
                tbl[2 * t + 1] = htc__sxtb16_r8(w);
            }
        for (b = 0; b < p->batches; b++) {
            const int8_t *in_b = in + (size_t)b * in_h * row_stride + c0;
            int8_t *o = out + (size_t)b * out_h * out_w * C + c0;
            int32_t oy, ox;
            for (oy = 0; oy < out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                int32_t ky_lo, ky_hi;
                htc__dw_taps(iy0, dil_h, k_h, in_h, &ky_lo, &ky_hi);
                for (ox = 0; ox < out_w; ox++, o += C) {
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    int32_t kx_lo, kx_hi, ky, a[4];
                    if (row3 && ky_lo == 0 && ky_hi == 3 && ix0 >= 0 && ix0 + 2 * dil_w < in_w) {
                        /* the run of interior pixels from here */
                        int32_t n = (in_w - 1 - 2 * dil_w - ix0) / p->stride_w + 1;
                        n = n < out_w - ox ? n : out_w - ox;
                        if (n > 0) {
                            htc__dw3x3_dsp_row(in_b + (size_t)iy0 * row_stride + ix0 * C, p->stride_w * C, dil_h * row_stride, xstep,
                                               tbl, q, bias, o2, zp, lo, hi, o, C, n);
                            ox += n - 1;
                            o += (n - 1) * C;
                            continue;
                        }
                    }
                    htc__dw_taps(ix0, dil_w, k_w, in_w, &kx_lo, &kx_hi);
                    a[0] = bias[0]; a[1] = bias[1]; a[2] = bias[2]; a[3] = bias[3];
                    if (nc == 4) {
                        int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *x = in_b + (size_t)(iy0 + ky * dil_h) * row_stride + (ix0 + kx_lo * dil_w) * C;
                            const int32_t *w = tbl + 2 * (ky * k_w + kx_lo), *wend = tbl + 2 * (ky * k_w + kx_hi);
                            for (; w != wend; w += 2, x += xstep) {
                                const int32_t v = htc__ld32(x), e = htc__sxtab16(o2, v), u = htc__sxtab16_r8(o2, v);
                                const int32_t we = w[0], wo = w[1];
                                a0 = htc__smlabb(e, we, a0);
                                a2 = htc__smlatt(e, we, a2);
                                a1 = htc__smlabb(u, wo, a1);
                                a3 = htc__smlatt(u, wo, a3);
                            }
                        }
                        a[0] = a0; a[1] = a1; a[2] = a2; a[3] = a3;
                    } else {
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            int32_t kx;
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const int8_t *x = in_b + (size_t)(iy0 + ky * dil_h) * row_stride + (ix0 + kx * dil_w) * C;
                                const int8_t *w = p->weights + (size_t)(ky * k_w + kx) * C + c0;
                                for (k = 0; k < nc; k++) a[k] += (x[k] + off) * w[k];
                            }
                        }
                    }
                    for (k = 0; k < nc; k++) {
                        int32_t v;
                        if (fast) {
                            v = htc__dsprq_apply(q[k], a[k]) + zp;
                            v = full ? htc__ssat8(v) : htc__dsp_clamp(v, lo, hi);
                        } else {
                            v = htc__rq_apply(&r[k], a[k], zp, lo, hi);
                        }
                        o[k] = HTC__CAST(int8_t, v);
                    }
                }
            }
        }
    }
}
#endif

#if !defined(HTC__SSE2) && !defined(HTC__DSP)
/* Portable path, depth_mult 1, at least four channels, up to
   HTC__PORT_DWTAPS taps: blocks of four channels (the last block moved back
   to end at C, recomputing a few channels with the same result); per tap
   four input bytes and four weights (a table on the stack) feed four
   multiply-adds. Interior pixels read every tap with the input offset
   folded into the start value bias + off * sum(w); border pixels add the
   offset per valid tap. */
#ifndef HTC__PORT_DWTAPS
#define HTC__PORT_DWTAPS 25
#endif

/* requantize four accumulators into o */
static inline void htc__dw_port_out(const int32_t *a, const htc__prq *q, int32_t zp, int32_t lo, int32_t hi, int8_t *o)
{
    int32_t k;
    for (k = 0; k < 4; k++) {
        int32_t u = htc__prq_apply(q[k], a[k]) + zp;
        u = u < lo ? lo : (u > hi ? hi : u);
        o[k] = HTC__CAST(int8_t, u);
    }
}

/* n pixels of four channels: tap t of the first pixel at tp[t] (a window
   inside the input, or for a border pixel n == 1 and taps outside pointing
   at four in_zp bytes), the next pixel step bytes on; wt[4t + k] weights,
   f[k] start values (bias + off * sum(w)) */
static HTC__NOINLINE HTC__NOSCHED void htc__dw_port_run(const int8_t *const *tp, int32_t step, int32_t ntaps,
                                                        const int8_t *wt, const int32_t *f, const htc__prq *q, int32_t zp,
                                                        int32_t lo, int32_t hi, int8_t *o, int32_t ostep, int32_t n)
{
    int32_t d = 0;
    for (; n > 0; n--, d += step, o += ostep) {
        int32_t a[4], t;
        int32_t a0 = f[0], a1 = f[1], a2 = f[2], a3 = f[3];
        const int8_t *w = wt;
        for (t = 0; t < ntaps; t++, w += 4) {
            const int8_t *y = tp[t] + d;
            a0 += y[0] * w[0];
            a1 += y[1] * w[1];
            a2 += y[2] * w[2];
            a3 += y[3] * w[3];
        }
        a[0] = a0; a[1] = a1; a[2] = a2; a[3] = a3;
        htc__dw_port_out(a, q, zp, lo, hi, o);
    }
}

/* the same for 3x3 windows of interior pixels, unrolled: x the first tap,
   rs / cs the row and column strides of the taps */
static HTC__NOINLINE HTC__NOSCHED void htc__dw_port_run3(const int8_t *x, int32_t step, int32_t rs, int32_t cs,
                                                         const int8_t *wt, const int32_t *f, const htc__prq *q, int32_t zp,
                                                         int32_t lo, int32_t hi, int8_t *o, int32_t ostep, int32_t n)
{
    for (; n > 0; n--, x += step, o += ostep) {
        int32_t a[4];
        int32_t a0 = f[0], a1 = f[1], a2 = f[2], a3 = f[3];
        const int8_t *r = x, *y;
#define HTC__DWP(Y, W)                                                                      \
        y = (Y);                                                                            \
        a0 += y[0] * wt[4 * (W)]; a1 += y[1] * wt[4 * (W) + 1];                             \
        a2 += y[2] * wt[4 * (W) + 2]; a3 += y[3] * wt[4 * (W) + 3];
        HTC__DWP(r, 0) HTC__DWP(r + cs, 1) HTC__DWP(y + cs, 2)
        r += rs;
        HTC__DWP(r, 3) HTC__DWP(r + cs, 4) HTC__DWP(y + cs, 5)
        r += rs;
        HTC__DWP(r, 6) HTC__DWP(r + cs, 7) HTC__DWP(y + cs, 8)
#undef HTC__DWP
        a[0] = a0; a[1] = a1; a[2] = a2; a[3] = a3;
        htc__dw_port_out(a, q, zp, lo, hi, o);
    }
}

static HTC__NOINLINE void htc__dwconv2d_port(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, C = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w;
    const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, dil_w = p->dil_w, ntaps = k_h * k_w;
    const int32_t off = -p->in_zp, mstep = p->per_channel ? 1 : 0;
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t row_stride = in_w * C;
    const int fast = htc__prq_ok(p->mult, p->shift, p->per_channel ? C : 1, p->bias, C, ntaps);
    int8_t wt[4 * HTC__PORT_DWTAPS], zpv[4];
    int32_t toff[HTC__PORT_DWTAPS];
    const int8_t *tp[HTC__PORT_DWTAPS];
    int32_t b, c0, t, k;
    for (t = 0; t < ntaps; t++) toff[t] = ((t / k_w) * dil_h * in_w + (t % k_w) * dil_w) * C;
    memset(zpv, p->in_zp & 0xff, sizeof zpv);
    for (c0 = 0; c0 < C; c0 += 4) {
        const int32_t c = c0 + 4 <= C ? c0 : C - 4;     /* the last block ends at C */
        htc__prq q[4];
        int32_t bias[4], f[4];
        for (k = 0; k < 4; k++) {
            bias[k] = p->bias ? p->bias[c + k] : 0;
            f[k] = bias[k];
            q[k] = htc__prq_make(p->mult[(c + k) * mstep], p->shift[(c + k) * mstep]);
        }
        for (t = 0; t < ntaps; t++)
            for (k = 0; k < 4; k++) {
                wt[4 * t + k] = p->weights[(size_t)t * C + c + k];
                f[k] += off * wt[4 * t + k];
            }
        for (b = 0; b < p->batches; b++) {
            const int8_t *in_b = in + (size_t)b * in_h * row_stride + c;
            int8_t *o = out + (size_t)b * out_h * out_w * C + c;
            int32_t oy, ox;
            for (oy = 0; oy < out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                int32_t ky_lo, ky_hi;
                htc__dw_taps(iy0, dil_h, k_h, in_h, &ky_lo, &ky_hi);
                for (ox = 0; ox < out_w; ox++, o += C) {
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    const int8_t *x = in_b + (size_t)iy0 * row_stride + ix0 * C;
                    int32_t kx_lo, kx_hi, ky, kx, a[4];
                    htc__dw_taps(ix0, dil_w, k_w, in_w, &kx_lo, &kx_hi);
                    if (fast && ky_lo == 0 && ky_hi == k_h && kx_lo == 0 && kx_hi == k_w) {
                        /* the run of interior pixels from here */
                        int32_t n = (in_w - 1 - (k_w - 1) * dil_w - ix0) / p->stride_w + 1;
                        n = n < out_w - ox ? n : out_w - ox;
                        if (k_h == 3 && k_w == 3) {
                            htc__dw_port_run3(x, p->stride_w * C, dil_h * row_stride, dil_w * C, wt, f, q, zp, lo, hi, o, C, n);
                        } else {
                            for (t = 0; t < ntaps; t++) tp[t] = x + toff[t];
                            htc__dw_port_run(tp, p->stride_w * C, ntaps, wt, f, q, zp, lo, hi, o, C, n);
                        }
                        ox += n - 1;
                        o += (n - 1) * C;
                        continue;
                    }
                    if (fast) {
                        /* taps outside the input read in_zp, which the folded offset cancels */
                        for (ky = 0, t = 0; ky < k_h; ky++)
                            for (kx = 0; kx < k_w; kx++, t++)
                                tp[t] = ky >= ky_lo && ky < ky_hi && kx >= kx_lo && kx < kx_hi ? x + toff[t] : zpv;
                        htc__dw_port_run(tp, 0, ntaps, wt, f, q, zp, lo, hi, o, C, 1);
                        continue;
                    }
                    for (k = 0; k < 4; k++) a[k] = bias[k];
                    for (ky = ky_lo; ky < ky_hi; ky++)
                        for (kx = kx_lo; kx < kx_hi; kx++) {
                            const int8_t *y = in_b + (size_t)(iy0 + ky * dil_h) * row_stride + (ix0 + kx * dil_w) * C;
                            const int8_t *w = wt + 4 * (ky * k_w + kx);
                            for (k = 0; k < 4; k++) a[k] += (y[k] + off) * w[k];
                        }
                    for (k = 0; k < 4; k++)
                        o[k] = HTC__CAST(int8_t, htc__requant(a[k], p->mult[(c + k) * mstep], p->shift[(c + k) * mstep], zp, lo, hi));
                }
            }
        }
    }
}
#endif

/* any depth multiplier: blocks of output channels, plain loops */
static HTC__NOINLINE HTC__COLD HTC__UNUSED void htc__dwconv2d_gen(const htc__conv_params *p, const int8_t *in, int8_t *out)
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

/* The path is chosen from the layer's constant parameters: with the call
   inlined the compiler folds the choice and links only the paths used. */
static HTC__INLINE HTC__UNUSED void htc__dwconv2d_s8(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
#ifdef HTC__SSE2
    if (p->depth_mult == 1 && p->k_h * p->k_w <= 2 * HTC__DW_MAXPAIRS) {
        htc__dwconv2d_sse2(p, in, out);
        return;
    }
#endif
#ifdef HTC__DSP
    if (p->depth_mult == 1 && p->k_h * p->k_w <= HTC__DSP_DWTAPS) {
        htc__dwconv2d_dsp(p, in, out);
        return;
    }
#else
#ifndef HTC__SSE2
    if (p->depth_mult == 1 && p->in_c >= 4 && p->k_h * p->k_w <= HTC__PORT_DWTAPS) {
        htc__dwconv2d_port(p, in, out);
        return;
    }
#endif
    if (p->depth_mult == 1) {
        htc__dwconv2d_dm1(p, in, out);
        return;
    }
#endif
    htc__dwconv2d_gen(p, in, out);
}
