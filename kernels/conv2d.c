/* conv2d.c - int8 2-D convolution, NHWC input/output, OHWI weights.
   Bit-exact with TFLite reference_integer_ops::ConvPerChannel. */

/* TFLite's int8 per-channel convolution ignores the filter zero point (int8
   filters are symmetric); so does this kernel. Taps outside the input are
   skipped, which equals reading in_zp there. The loops run over blocks of
   four output channels, then over output pixels: the block's weights stay in
   cache and its requantization constants in registers. Per pixel the valid
   kernel window is found once (interior pixels without any search); every
   kernel row of it is one contiguous run of (kx_hi - kx_lo) * in_c bytes in
   both the input and the OHWI weights when dil_w == 1, so the inner loop is
   a plain dot product over that run (htc__dot4_s8: four output channels per
   input load, SSE2 on x86). */

/* Valid taps [lo, hi) of a kernel of k taps, dilation dil, starting at
   input coordinate origin, over an input of `size`. */
static inline void htc__conv_taps(int32_t origin, int32_t dil, int32_t k, int32_t size, int32_t *lo, int32_t *hi)
{
    int32_t a = 0, b = k;
    if (origin < 0)
        while (a < k && origin + a * dil < 0) a++;
    if (origin + (k - 1) * dil >= size)
        while (b > 0 && origin + (b - 1) * dil >= size) b--;
    *lo = a;
    *hi = b;
}

#ifdef HTC__SSE2
/* Two horizontally adjacent interior output pixels x four output channels,
   dil_w == 1: every kernel row is one run of k_w * in_c bytes for both
   pixels and all four weight rows; the widened weights serve both pixels.
   Sums x * w without the input offset (the caller adds off * sum(w), exact
   since all taps are inside): *r0 / *r1 get the four channel sums of each
   pixel. */
static HTC__UNUSED void htc__conv_pair4_sse2(const int8_t *x0, int32_t xstep, int32_t row_stride, int32_t dil_h,
                                             const int8_t *w, int32_t wstride, int32_t k_h, int32_t run,
                                             __m128i *r0, __m128i *r1)
{
    const __m128i z = _mm_setzero_si128();
    __m128i a0 = z, a1 = z, a2 = z, a3 = z, b0 = z, b1 = z, b2 = z, b3 = z;
    int32_t t0[4] = {0, 0, 0, 0}, t1[4] = {0, 0, 0, 0}, tail = 0;
    int32_t ky;
    for (ky = 0; ky < k_h; ky++) {
        const int8_t *p0 = x0 + ky * dil_h * row_stride, *p1 = p0 + xstep;
        const int8_t *q0 = w + ky * run, *q1 = q0 + wstride, *q2 = q1 + wstride, *q3 = q2 + wstride;
        int32_t i = 0;
        for (; i + 16 <= run; i += 16) {
            const __m128i u = HTC__LD128(p0 + i), v = HTC__LD128(p1 + i);
            const __m128i ul = HTC__LO16(u), uh = HTC__HI16(u), vl = HTC__LO16(v), vh = HTC__HI16(v);
            __m128i c, cl, ch;
#define HTC__PAIR_STEP(q, A, B)                                                              \
            c = HTC__LD128((q) + i); cl = HTC__LO16(c); ch = HTC__HI16(c);                     \
            A = _mm_add_epi32(A, _mm_add_epi32(_mm_madd_epi16(ul, cl), _mm_madd_epi16(uh, ch))); \
            B = _mm_add_epi32(B, _mm_add_epi32(_mm_madd_epi16(vl, cl), _mm_madd_epi16(vh, ch)));
            HTC__PAIR_STEP(q0, a0, b0)
            HTC__PAIR_STEP(q1, a1, b1)
            HTC__PAIR_STEP(q2, a2, b2)
            HTC__PAIR_STEP(q3, a3, b3)
#undef HTC__PAIR_STEP
        }
        if (i + 8 <= run) {
            const __m128i ul = HTC__LO16(HTC__LD64(p0 + i)), vl = HTC__LO16(HTC__LD64(p1 + i));
            __m128i cl;
            cl = HTC__LO16(HTC__LD64(q0 + i)); a0 = _mm_add_epi32(a0, _mm_madd_epi16(ul, cl)); b0 = _mm_add_epi32(b0, _mm_madd_epi16(vl, cl));
            cl = HTC__LO16(HTC__LD64(q1 + i)); a1 = _mm_add_epi32(a1, _mm_madd_epi16(ul, cl)); b1 = _mm_add_epi32(b1, _mm_madd_epi16(vl, cl));
            cl = HTC__LO16(HTC__LD64(q2 + i)); a2 = _mm_add_epi32(a2, _mm_madd_epi16(ul, cl)); b2 = _mm_add_epi32(b2, _mm_madd_epi16(vl, cl));
            cl = HTC__LO16(HTC__LD64(q3 + i)); a3 = _mm_add_epi32(a3, _mm_madd_epi16(ul, cl)); b3 = _mm_add_epi32(b3, _mm_madd_epi16(vl, cl));
            i += 8;
        }
        for (; i < run; i++) {
            const int32_t u = p0[i], v = p1[i];
            t0[0] += u * q0[i]; t0[1] += u * q1[i]; t0[2] += u * q2[i]; t0[3] += u * q3[i];
            t1[0] += v * q0[i]; t1[1] += v * q1[i]; t1[2] += v * q2[i]; t1[3] += v * q3[i];
            tail = 1;
        }
    }
    *r0 = htc__hsum4v(a0, a1, a2, a3);
    *r1 = htc__hsum4v(b0, b1, b2, b3);
    if (tail) {
        *r0 = _mm_add_epi32(*r0, HTC__LD128(t0));
        *r1 = _mm_add_epi32(*r1, HTC__LD128(t1));
    }
}

#ifdef HTC__AVX2
/* The same as htc__conv_pair4_sse2, 16 taps per step in 256-bit registers. */
static HTC__UNUSED HTC__AVX2_FN void htc__conv_pair4_avx2(const int8_t *x0, int32_t xstep, int32_t row_stride, int32_t dil_h,
                                                          const int8_t *w, int32_t wstride, int32_t k_h, int32_t run,
                                                          __m128i *r0, __m128i *r1)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    __m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0, t0 = s0, t1 = s0, t2 = s0, t3 = s0;
    int32_t e0[4] = {0, 0, 0, 0}, e1[4] = {0, 0, 0, 0}, tail = 0;
    int32_t ky;
    for (ky = 0; ky < k_h; ky++) {
        const int8_t *p0 = x0 + ky * dil_h * row_stride, *p1 = p0 + xstep;
        const int8_t *q0 = w + ky * run, *q1 = q0 + wstride, *q2 = q1 + wstride, *q3 = q2 + wstride;
        int32_t i = 0;
        for (; i + 16 <= run; i += 16) {
            const __m256i u = _mm256_cvtepi8_epi16(HTC__LD128(p0 + i)), v = _mm256_cvtepi8_epi16(HTC__LD128(p1 + i));
            __m256i c;
            c = _mm256_cvtepi8_epi16(HTC__LD128(q0 + i));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(u, c)); b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(v, c));
            c = _mm256_cvtepi8_epi16(HTC__LD128(q1 + i));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(u, c)); b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(v, c));
            c = _mm256_cvtepi8_epi16(HTC__LD128(q2 + i));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(u, c)); b2 = _mm256_add_epi32(b2, _mm256_madd_epi16(v, c));
            c = _mm256_cvtepi8_epi16(HTC__LD128(q3 + i));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(u, c)); b3 = _mm256_add_epi32(b3, _mm256_madd_epi16(v, c));
        }
        if (i + 8 <= run) {
            const __m128i u = _mm_cvtepi8_epi16(HTC__LD64(p0 + i)), v = _mm_cvtepi8_epi16(HTC__LD64(p1 + i));
            __m128i c;
            c = _mm_cvtepi8_epi16(HTC__LD64(q0 + i)); s0 = _mm_add_epi32(s0, _mm_madd_epi16(u, c)); t0 = _mm_add_epi32(t0, _mm_madd_epi16(v, c));
            c = _mm_cvtepi8_epi16(HTC__LD64(q1 + i)); s1 = _mm_add_epi32(s1, _mm_madd_epi16(u, c)); t1 = _mm_add_epi32(t1, _mm_madd_epi16(v, c));
            c = _mm_cvtepi8_epi16(HTC__LD64(q2 + i)); s2 = _mm_add_epi32(s2, _mm_madd_epi16(u, c)); t2 = _mm_add_epi32(t2, _mm_madd_epi16(v, c));
            c = _mm_cvtepi8_epi16(HTC__LD64(q3 + i)); s3 = _mm_add_epi32(s3, _mm_madd_epi16(u, c)); t3 = _mm_add_epi32(t3, _mm_madd_epi16(v, c));
            i += 8;
        }
        for (; i < run; i++) {
            const int32_t u = p0[i], v = p1[i];
            e0[0] += u * q0[i]; e0[1] += u * q1[i]; e0[2] += u * q2[i]; e0[3] += u * q3[i];
            e1[0] += v * q0[i]; e1[1] += v * q1[i]; e1[2] += v * q2[i]; e1[3] += v * q3[i];
            tail = 1;
        }
    }
#define HTC__FOLD(y, x) _mm_add_epi32(x, _mm_add_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1)))
    *r0 = htc__hsum4v(HTC__FOLD(a0, s0), HTC__FOLD(a1, s1), HTC__FOLD(a2, s2), HTC__FOLD(a3, s3));
    *r1 = htc__hsum4v(HTC__FOLD(b0, t0), HTC__FOLD(b1, t1), HTC__FOLD(b2, t2), HTC__FOLD(b3, t3));
#undef HTC__FOLD
    if (tail) {
        *r0 = _mm_add_epi32(*r0, HTC__LD128(e0));
        *r1 = _mm_add_epi32(*r1, HTC__LD128(e1));
    }
}
#endif

/* two pixels x four channels: AVX2 when the CPU has it */
static inline void htc__conv_pair4(int avx2, const int8_t *x0, int32_t xstep, int32_t row_stride, int32_t dil_h,
                                   const int8_t *w, int32_t wstride, int32_t k_h, int32_t run, __m128i *r0, __m128i *r1)
{
#ifdef HTC__AVX2
    if (avx2) {
        htc__conv_pair4_avx2(x0, xstep, row_stride, dil_h, w, wstride, k_h, run, r0, r1);
        return;
    }
#endif
    (void)avx2;
    htc__conv_pair4_sse2(x0, xstep, row_stride, dil_h, w, wstride, k_h, run, r0, r1);
}

#define HTC__C1_MAXK 256

/* 1x1 convolution, stride 1, no padding, out_c a multiple of 16, in_c a
   multiple of 8 up to HTC__C1_MAXK: output channels in the vector lanes.
   For each block of 16 output channels the weights are transposed once into
   (channel pair, output channel) order as int16 pairs, so that pmaddwd of a
   broadcast input pair (x[c], x[c+1]) with them adds x[c]*w[o][c] +
   x[c+1]*w[o][c+1] to output channel o's lane; no horizontal sums, two
   pixels share every weight load. The start value bias + off * sum(w) takes
   care of the input zero point (no padding, so it is exact). */
static HTC__UNUSED void htc__conv1x1_sse2(const htc__conv_params *p, const int8_t *in_b, int8_t *out_b, int32_t npix)
{
    const int32_t K = p->in_c, out_c = p->out_c;
    const int32_t off = -p->in_zp, mstep = p->per_channel ? 1 : 0;
    const int32_t out_zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    int16_t wt[HTC__C1_MAXK * 16];
    int32_t full[16];
    htc__rq4 q[4];
    int32_t ob;
    for (ob = 0; ob < out_c; ob += 16) {
        int32_t j, o, px, use4 = 1;
        for (o = 0; o < 16; o++) {
            const int8_t *w = p->weights + (size_t)(ob + o) * K;
            int32_t c, sw = 0;
            for (c = 0; c < K; c += 2) {
                wt[c * 16 + 2 * o] = w[c];
                wt[c * 16 + 2 * o + 1] = w[c + 1];
                sw += w[c] + w[c + 1];
            }
            full[o] = (p->bias ? p->bias[ob + o] : 0) + off * sw;
        }
        memset(q, 0, sizeof q);
        for (j = 0; j < 4; j++) use4 &= htc__rq4_make(&q[j], p->mult + (ob + 4 * j) * mstep, p->shift + (ob + 4 * j) * mstep, mstep);
        for (px = 0; px < npix; px += 2) {
            const int two = px + 1 < npix;
            const int8_t *x0 = in_b + (size_t)px * K, *x1 = two ? x0 + K : x0;
            int8_t *o0 = out_b + (size_t)px * out_c + ob;
            __m128i a0 = HTC__LD128(full), a1 = HTC__LD128(full + 4), a2 = HTC__LD128(full + 8), a3 = HTC__LD128(full + 12);
            __m128i b0 = a0, b1 = a1, b2 = a2, b3 = a3;
            int32_t c;
            for (c = 0; c < K; c += 8) {
                const __m128i u = HTC__LO16(HTC__LD64(x0 + c)), v = HTC__LO16(HTC__LD64(x1 + c));
                const int16_t *w = wt + c * 16;
                __m128i bu, bv, wv;
#define HTC__C1_STEP(IMM, OFS)                                                                              \
                bu = _mm_shuffle_epi32(u, IMM); bv = _mm_shuffle_epi32(v, IMM);                             \
                wv = HTC__LD128(w + (OFS)); a0 = _mm_add_epi32(a0, _mm_madd_epi16(bu, wv)); b0 = _mm_add_epi32(b0, _mm_madd_epi16(bv, wv)); \
                wv = HTC__LD128(w + (OFS) + 8); a1 = _mm_add_epi32(a1, _mm_madd_epi16(bu, wv)); b1 = _mm_add_epi32(b1, _mm_madd_epi16(bv, wv)); \
                wv = HTC__LD128(w + (OFS) + 16); a2 = _mm_add_epi32(a2, _mm_madd_epi16(bu, wv)); b2 = _mm_add_epi32(b2, _mm_madd_epi16(bv, wv)); \
                wv = HTC__LD128(w + (OFS) + 24); a3 = _mm_add_epi32(a3, _mm_madd_epi16(bu, wv)); b3 = _mm_add_epi32(b3, _mm_madd_epi16(bv, wv));
                HTC__C1_STEP(0x00, 0)
                HTC__C1_STEP(0x55, 32)
                HTC__C1_STEP(0xAA, 64)
                HTC__C1_STEP(0xFF, 96)
#undef HTC__C1_STEP
            }
            if (use4) {
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, o0)),
                                 _mm_unpacklo_epi64(htc__rq4_pack(htc__rq4_apply(&q[0], a0), htc__rq4_apply(&q[1], a1), out_zp, lo, hi),
                                                    htc__rq4_pack(htc__rq4_apply(&q[2], a2), htc__rq4_apply(&q[3], a3), out_zp, lo, hi)));
                if (two)
                    _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, o0 + out_c)),
                                     _mm_unpacklo_epi64(htc__rq4_pack(htc__rq4_apply(&q[0], b0), htc__rq4_apply(&q[1], b1), out_zp, lo, hi),
                                                        htc__rq4_pack(htc__rq4_apply(&q[2], b2), htc__rq4_apply(&q[3], b3), out_zp, lo, hi)));
            } else {
                int32_t acc[32], k;
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc)), a0);
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 4)), a1);
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 8)), a2);
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 12)), a3);
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 16)), b0);
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 20)), b1);
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 24)), b2);
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, acc + 28)), b3);
                for (k = 0; k < 16; k++) {
                    const int32_t m = p->mult[(ob + k) * mstep], sh = p->shift[(ob + k) * mstep];
                    o0[k] = HTC__CAST(int8_t, htc__requant(acc[k], m, sh, out_zp, lo, hi));
                    if (two) o0[out_c + k] = HTC__CAST(int8_t, htc__requant(acc[16 + k], m, sh, out_zp, lo, hi));
                }
            }
        }
    }
}

#ifdef HTC__AVX2
/* htc__conv1x1_sse2 for AVX2 CPUs: eight output channels per register, the
   input pair broadcast from a widened copy of the pixel. */
static HTC__UNUSED HTC__AVX2_FN void htc__conv1x1_avx2(const htc__conv_params *p, const int8_t *in_b, int8_t *out_b, int32_t npix)
{
    const int32_t K = p->in_c, out_c = p->out_c;
    const int32_t off = -p->in_zp, mstep = p->per_channel ? 1 : 0;
    const int32_t out_zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    int16_t wt[HTC__C1_MAXK * 16];
    int16_t xw[2][HTC__C1_MAXK];
    int32_t full[16];
    htc__rq4 q[4];
    int32_t ob;
    for (ob = 0; ob < out_c; ob += 16) {
        int32_t j, o, px, use4 = 1;
        for (o = 0; o < 16; o++) {
            const int8_t *w = p->weights + (size_t)(ob + o) * K;
            int32_t c, sw = 0;
            for (c = 0; c < K; c += 2) {
                wt[c * 16 + 2 * o] = w[c];
                wt[c * 16 + 2 * o + 1] = w[c + 1];
                sw += w[c] + w[c + 1];
            }
            full[o] = (p->bias ? p->bias[ob + o] : 0) + off * sw;
        }
        memset(q, 0, sizeof q);
        for (j = 0; j < 4; j++) use4 &= htc__rq4_make(&q[j], p->mult + (ob + 4 * j) * mstep, p->shift + (ob + 4 * j) * mstep, mstep);
        for (px = 0; px < npix; px += 2) {
            const int two = px + 1 < npix;
            const int8_t *x0 = in_b + (size_t)px * K, *x1 = two ? x0 + K : x0;
            int8_t *o0 = out_b + (size_t)px * out_c + ob;
            __m256i a0 = _mm256_loadu_si256(HTC__CAST(const __m256i *, HTC__CAST(const void *, full)));
            __m256i a1 = _mm256_loadu_si256(HTC__CAST(const __m256i *, HTC__CAST(const void *, full + 8)));
            __m256i b0 = a0, b1 = a1;
            __m128i r0, r1, r2, r3;
            int32_t c;
            for (c = 0; c < K; c += 8) {
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, xw[0] + c)), _mm_cvtepi8_epi16(HTC__LD64(x0 + c)));
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, xw[1] + c)), _mm_cvtepi8_epi16(HTC__LD64(x1 + c)));
            }
            for (c = 0; c < K; c += 2) {
                int32_t pu, pv;
                __m256i bu, bv, w0, w1;
                memcpy(&pu, xw[0] + c, 4);
                memcpy(&pv, xw[1] + c, 4);
                bu = _mm256_set1_epi32(pu);
                bv = _mm256_set1_epi32(pv);
                w0 = _mm256_loadu_si256(HTC__CAST(const __m256i *, HTC__CAST(const void *, wt + c * 16)));
                w1 = _mm256_loadu_si256(HTC__CAST(const __m256i *, HTC__CAST(const void *, wt + c * 16 + 16)));
                a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(bu, w0));
                a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(bu, w1));
                b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(bv, w0));
                b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(bv, w1));
            }
            if (use4) {
                r0 = htc__rq4_apply(&q[0], _mm256_castsi256_si128(a0));
                r1 = htc__rq4_apply(&q[1], _mm256_extracti128_si256(a0, 1));
                r2 = htc__rq4_apply(&q[2], _mm256_castsi256_si128(a1));
                r3 = htc__rq4_apply(&q[3], _mm256_extracti128_si256(a1, 1));
                _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, o0)),
                                 _mm_unpacklo_epi64(htc__rq4_pack(r0, r1, out_zp, lo, hi), htc__rq4_pack(r2, r3, out_zp, lo, hi)));
                if (two) {
                    r0 = htc__rq4_apply(&q[0], _mm256_castsi256_si128(b0));
                    r1 = htc__rq4_apply(&q[1], _mm256_extracti128_si256(b0, 1));
                    r2 = htc__rq4_apply(&q[2], _mm256_castsi256_si128(b1));
                    r3 = htc__rq4_apply(&q[3], _mm256_extracti128_si256(b1, 1));
                    _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, o0 + out_c)),
                                     _mm_unpacklo_epi64(htc__rq4_pack(r0, r1, out_zp, lo, hi), htc__rq4_pack(r2, r3, out_zp, lo, hi)));
                }
            } else {
                int32_t acc[32], k;
                _mm256_storeu_si256(HTC__CAST(__m256i *, HTC__CAST(void *, acc)), a0);
                _mm256_storeu_si256(HTC__CAST(__m256i *, HTC__CAST(void *, acc + 8)), a1);
                _mm256_storeu_si256(HTC__CAST(__m256i *, HTC__CAST(void *, acc + 16)), b0);
                _mm256_storeu_si256(HTC__CAST(__m256i *, HTC__CAST(void *, acc + 24)), b1);
                for (k = 0; k < 16; k++) {
                    const int32_t m = p->mult[(ob + k) * mstep], sh = p->shift[(ob + k) * mstep];
                    o0[k] = HTC__CAST(int8_t, htc__requant(acc[k], m, sh, out_zp, lo, hi));
                    if (two) o0[out_c + k] = HTC__CAST(int8_t, htc__requant(acc[16 + k], m, sh, out_zp, lo, hi));
                }
            }
        }
    }
}
#endif

#define HTC__CONV_GATHER 512
#define HTC__CONV_GATHER_OC 256
#define HTC__CONV_BORDER 4608

/* short copies and fills: 8 bytes at a time (constant-size memcpy compiles
   to one move), then the tail */
static inline void htc__copy8(int8_t *d, const int8_t *s, int32_t n)
{
    for (; n >= 8; n -= 8, d += 8, s += 8) memcpy(d, s, 8);
    for (; n > 0; n--) *d++ = *s++;
}

static inline void htc__fill8(int8_t *d, int8_t v, int32_t n)
{
    for (; n > 0; n--) *d++ = v;
}

/* Copy the receptive field of the output pixel whose window starts at input
   (iy0, ix0) into dst (OHWI order, k_h * k_w * in_c bytes), writing in_zp for
   taps outside the input. */
static HTC__UNUSED void htc__conv_gather(const htc__conv_params *p, const int8_t *in_b, int32_t iy0, int32_t ix0, int8_t *dst)
{
    const int32_t in_c = p->in_c, k_w = p->k_w, rowb = k_w * in_c;
    const int8_t zp = HTC__CAST(int8_t, p->in_zp);
    int32_t ky, kx;
    for (ky = 0; ky < p->k_h; ky++, dst += rowb) {
        const int32_t iy = iy0 + ky * p->dil_h;
        if (iy < 0 || iy >= p->in_h) {
            htc__fill8(dst, zp, rowb);
        } else if (p->dil_w == 1 && ix0 >= 0 && ix0 + k_w <= p->in_w) {
            htc__copy8(dst, in_b + ((size_t)iy * p->in_w + ix0) * in_c, rowb);
        } else {
            for (kx = 0; kx < k_w; kx++) {
                const int32_t ix = ix0 + kx * p->dil_w;
                if (ix < 0 || ix >= p->in_w) htc__fill8(dst + kx * in_c, zp, in_c);
                else htc__copy8(dst + kx * in_c, in_b + ((size_t)iy * p->in_w + ix) * in_c, in_c);
            }
        }
    }
}

/* Short kernel rows (few input channels) or dilation: each output pixel's
   receptive field is copied once (zero point for padding taps) and every
   output channel block runs one dot product over all k_h * k_w * in_c taps,
   two pixels at a time; bias + off * sum(w) per channel is the start value,
   exact because padded taps hold in_zp. Needs wstride <= HTC__CONV_GATHER and
   out_c <= HTC__CONV_GATHER_OC (the per-channel constants live on the stack). */
static HTC__UNUSED void htc__conv2d_gather_sse2(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t out_h = p->out_h, out_w = p->out_w, out_c = p->out_c;
    const int32_t wstride = p->k_h * p->k_w * p->in_c;
    const int32_t off = -p->in_zp, mstep = p->per_channel ? 1 : 0;
    const int32_t out_zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    /* the dot products run over runp = wstride rounded up to 8: the
       gathered pixels are zero beyond wstride, so whatever weight bytes sit
       there add nothing; the last block's rows get a zero-padded copy so
       that nothing past the weight array is read */
    const int32_t runp = (wstride + 7) & ~7;
    int8_t buf[2 * (HTC__CONV_GATHER + 8)];
#ifdef HTC__AVX2
    const int avx2 = htc__have_avx2();
#else
    const int avx2 = 0;
#endif
    int8_t wlast[4 * (HTC__CONV_GATHER + 8)];
    int32_t full[HTC__CONV_GATHER_OC];
    htc__rq4 q4[HTC__CONV_GATHER_OC / 4];
    int use4[HTC__CONV_GATHER_OC / 4];
    int32_t b, oc, oy, ox;
    for (oc = 0; oc < out_c; oc++) {
        const int8_t *w = p->weights + (size_t)oc * wstride;
        int32_t i, sw = 0;
        for (i = 0; i < wstride; i++) sw += w[i];
        full[oc] = (p->bias ? p->bias[oc] : 0) + off * sw;
    }
    memset(q4, 0, sizeof q4);
    memset(buf, 0, sizeof buf);
    memset(wlast, 0, sizeof wlast);
    if (out_c >= 4)
        for (oc = 0; oc < 4; oc++)
            memcpy(wlast + oc * runp, p->weights + (size_t)(out_c / 4 * 4 - 4 + oc) * wstride, (size_t)wstride);
    for (oc = 0; oc + 4 <= out_c; oc += 4)
        use4[oc / 4] = htc__rq4_make(&q4[oc / 4], p->mult + oc * mstep, p->shift + oc * mstep, mstep);
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * p->in_w * p->in_c;
        int8_t *o = out + (size_t)b * out_h * out_w * out_c;
        for (oy = 0; oy < out_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            for (ox = 0; ox < out_w; ox += 2) {
                const int two = ox + 1 < out_w;
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                int8_t *o1 = o + out_c;
                htc__conv_gather(p, in_b, iy0, ix0, buf);
                if (two) htc__conv_gather(p, in_b, iy0, ix0 + p->stride_w, buf + runp);
                else memcpy(buf + runp, buf, (size_t)wstride);
                for (oc = 0; oc + 4 <= out_c; oc += 4) {
                    __m128i v0, v1;
                    if (oc + 4 < out_c || runp == wstride)
                        htc__conv_pair4(avx2, buf, runp, 0, 0, p->weights + (size_t)oc * wstride, wstride, 1, runp, &v0, &v1);
                    else
                        htc__conv_pair4(avx2, buf, runp, 0, 0, wlast, runp, 1, runp, &v0, &v1);
                    v0 = _mm_add_epi32(v0, HTC__LD128(full + oc));
                    v1 = _mm_add_epi32(v1, HTC__LD128(full + oc));
                    if (use4[oc / 4]) {
                        const __m128i r = htc__rq4_pack(htc__rq4_apply(&q4[oc / 4], v0), htc__rq4_apply(&q4[oc / 4], v1), out_zp, lo, hi);
                        htc__st32(o + oc, r);
                        if (two) htc__st32(o1 + oc, _mm_srli_si128(r, 4));
                    } else {
                        int32_t a[8], k;
                        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, a)), v0);
                        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, a + 4)), v1);
                        for (k = 0; k < 4; k++) {
                            o[oc + k] = HTC__CAST(int8_t, htc__requant(a[k], p->mult[(oc + k) * mstep], p->shift[(oc + k) * mstep], out_zp, lo, hi));
                            if (two) o1[oc + k] = HTC__CAST(int8_t, htc__requant(a[4 + k], p->mult[(oc + k) * mstep], p->shift[(oc + k) * mstep], out_zp, lo, hi));
                        }
                    }
                }
                /* explicit start: "for (; oc" makes gcc -O3 warn "iteration 192 invokes UB" */
                for (oc = out_c - out_c % 4; oc < out_c; oc++) {
                    const int8_t *w = p->weights + (size_t)oc * wstride;
                    const int32_t m = p->mult[oc * mstep], sh = p->shift[oc * mstep];
                    o[oc] = HTC__CAST(int8_t, htc__requant(full[oc] + htc__dot1_s8(buf, w, wstride, 0), m, sh, out_zp, lo, hi));
                    if (two) o1[oc] = HTC__CAST(int8_t, htc__requant(full[oc] + htc__dot1_s8(buf + runp, w, wstride, 0), m, sh, out_zp, lo, hi));
                }
                o += two ? 2 * out_c : out_c;
            }
        }
    }
}
#endif

static HTC__UNUSED void htc__conv2d_s8(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, in_c = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w, out_c = p->out_c;
    const int32_t k_h = p->k_h, k_w = p->k_w;
    const int32_t dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t off = -p->in_zp;
    const int32_t out_zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t mstep = p->per_channel ? 1 : 0;
    const int32_t wstride = k_h * k_w * in_c;         /* weight bytes per output channel */
    const int32_t row_stride = in_w * in_c;
    int32_t b, oc0;
#ifdef HTC__AVX2
    const int avx2 = htc__have_avx2();
#elif defined(HTC__SSE2)
    const int avx2 = 0;
#endif
#ifdef HTC__SSE2
    const int c1x1 = k_h == 1 && k_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 &&
                     p->pad_left == 0 && out_h == in_h && out_w == in_w && out_c % 16 == 0 && in_c % 8 == 0 &&
                     in_c <= HTC__C1_MAXK;
    if (!c1x1 && (k_w * in_c < 16 || dil_w != 1) && wstride <= HTC__CONV_GATHER && out_c <= HTC__CONV_GATHER_OC) {
        htc__conv2d_gather_sse2(p, in, out);
        return;
    }
#endif

    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * in_h * row_stride;
        int8_t *out_b = out + (size_t)b * out_h * out_w * out_c;
#ifdef HTC__SSE2
        if (c1x1) {
#ifdef HTC__AVX2
            if (avx2) htc__conv1x1_avx2(p, in_b, out_b, out_h * out_w);
            else
#endif
                htc__conv1x1_sse2(p, in_b, out_b, out_h * out_w);
            continue;
        }
#endif
        for (oc0 = 0; oc0 < out_c; oc0 += 4) {
            const int32_t nb = out_c - oc0 < 4 ? out_c - oc0 : 4;     /* channels in this block */
            htc__rq q[4];
            int32_t bias[4] = {0, 0, 0, 0};
#ifdef HTC__SSE2
            int32_t full[4] = {0, 0, 0, 0};
            htc__rq4 q4;
            int use4;
            memset(&q4, 0, sizeof q4);
#endif
            int32_t oy, k;
            for (k = 0; k < nb; k++) {
                q[k] = htc__rq_make(p->mult[(oc0 + k) * mstep], p->shift[(oc0 + k) * mstep]);
                if (p->bias) bias[k] = p->bias[oc0 + k];
            }
#ifdef HTC__SSE2
            use4 = nb == 4 && htc__rq4_make(&q4, p->mult + oc0 * mstep, p->shift + oc0 * mstep, mstep);
            /* interior pixels: bias + off * sum(w) is a per-channel constant */
            if (nb == 4) {
                for (k = 0; k < 4; k++) {
                    const int8_t *w = p->weights + (size_t)(oc0 + k) * wstride;
                    int32_t i, sw = 0;
                    for (i = 0; i < wstride; i++) sw += w[i];
                    full[k] = bias[k] + off * sw;
                }
            }
#endif
#ifdef HTC__SSE2
            /* 1x1, stride 1, no padding: the pixels of the batch are one flat
               sequence, taken two at a time */
            if (nb == 4 && k_h == 1 && k_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 &&
                p->pad_left == 0 && out_h == in_h && out_w == in_w) {
                const int32_t npix = out_h * out_w;
                int32_t px;
                int8_t *o = out_b + oc0;
                for (px = 0; px < npix; px += 2, o += 2 * out_c) {
                    const int two = px + 1 < npix;
                    __m128i v0, v1;
                    htc__conv_pair4(avx2, in_b + (size_t)px * in_c, two ? in_c : 0, 0, 0,
                                    p->weights + (size_t)oc0 * wstride, wstride, 1, in_c, &v0, &v1);
                    v0 = _mm_add_epi32(v0, HTC__LD128(full));
                    v1 = _mm_add_epi32(v1, HTC__LD128(full));
                    if (use4) {
                        const __m128i r = htc__rq4_pack(htc__rq4_apply(&q4, v0), htc__rq4_apply(&q4, v1), out_zp, lo, hi);
                        htc__st32(o, r);
                        if (two) htc__st32(o + out_c, _mm_srli_si128(r, 4));
                    } else {
                        int32_t a[8];
                        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, a)), v0);
                        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, a + 4)), v1);
                        for (k = 0; k < 4; k++) o[k] = HTC__CAST(int8_t, htc__rq_apply(&q[k], a[k], out_zp, lo, hi));
                        if (two)
                            for (k = 0; k < 4; k++) o[out_c + k] = HTC__CAST(int8_t, htc__rq_apply(&q[k], a[4 + k], out_zp, lo, hi));
                    }
                }
                continue;
            }
            /* every pixel through the two-pixel dot product: interior pairs
               read the input in place, pairs touching the border (and a last
               odd pixel, computed twice) read a copy of their receptive
               fields with in_zp in the padding */
            if (nb == 4 && dil_w == 1 && wstride <= HTC__CONV_BORDER) {
                int8_t buf[2 * HTC__CONV_BORDER];
                const int32_t rowb = k_w * in_c;
                for (oy = 0; oy < out_h; oy++) {
                    const int32_t iy0 = oy * p->stride_h - p->pad_top;
                    const int rows_in = iy0 >= 0 && iy0 + (k_h - 1) * dil_h < in_h;
                    int8_t *o = out_b + (size_t)oy * out_w * out_c + oc0;
                    int32_t ox;
                    for (ox = 0; ox < out_w; ox += 2) {
                        const int two = ox + 1 < out_w;
                        const int32_t ix0 = ox * p->stride_w - p->pad_left;
                        __m128i v0, v1;
                        if (two && rows_in && ix0 >= 0 && ix0 + p->stride_w + k_w <= in_w) {
                            htc__conv_pair4(avx2, in_b + (size_t)iy0 * row_stride + ix0 * in_c, p->stride_w * in_c, row_stride,
                                                 dil_h, p->weights + (size_t)oc0 * wstride, wstride, k_h, rowb, &v0, &v1);
                        } else {
                            htc__conv_gather(p, in_b, iy0, ix0, buf);
                            htc__conv_gather(p, in_b, iy0, two ? ix0 + p->stride_w : ix0, buf + wstride);
                            htc__conv_pair4(avx2, buf, wstride, rowb, 1, p->weights + (size_t)oc0 * wstride, wstride, k_h, rowb,
                                                 &v0, &v1);
                        }
                        v0 = _mm_add_epi32(v0, HTC__LD128(full));
                        v1 = _mm_add_epi32(v1, HTC__LD128(full));
                        if (use4) {
                            const __m128i r = htc__rq4_pack(htc__rq4_apply(&q4, v0), htc__rq4_apply(&q4, v1), out_zp, lo, hi);
                            htc__st32(o, r);
                            if (two) htc__st32(o + out_c, _mm_srli_si128(r, 4));
                        } else {
                            int32_t a[8];
                            _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, a)), v0);
                            _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, a + 4)), v1);
                            for (k = 0; k < 4; k++) o[k] = HTC__CAST(int8_t, htc__rq_apply(&q[k], a[k], out_zp, lo, hi));
                            if (two)
                                for (k = 0; k < 4; k++) o[out_c + k] = HTC__CAST(int8_t, htc__rq_apply(&q[k], a[4 + k], out_zp, lo, hi));
                        }
                        o += 2 * out_c;
                    }
                }
                continue;
            }
#endif
            for (oy = 0; oy < out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                int32_t ky_lo, ky_hi, ox;
                int8_t *o = out_b + (size_t)oy * out_w * out_c + oc0;
                htc__conv_taps(iy0, dil_h, k_h, in_h, &ky_lo, &ky_hi);
                for (ox = 0; ox < out_w; ox++, o += out_c) {
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    int32_t kx_lo, kx_hi, run, nruns, ky;
                    const int8_t *in_px;
                    const int8_t *w_px;
                    int32_t acc[4];
                    htc__conv_taps(ix0, dil_w, k_w, in_w, &kx_lo, &kx_hi);
                    /* contiguous run per kernel row when dil_w == 1 */
                    run = dil_w == 1 ? (kx_hi - kx_lo) * in_c : in_c;
                    nruns = kx_hi <= kx_lo ? 0 : (dil_w == 1 ? 1 : kx_hi - kx_lo);
                    in_px = in_b + (ix0 + kx_lo * dil_w) * in_c;
                    w_px = p->weights + (size_t)oc0 * wstride + kx_lo * in_c;
                    acc[0] = bias[0]; acc[1] = bias[1]; acc[2] = bias[2]; acc[3] = bias[3];
                    if (nb == 4) {
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *xr = in_px + (iy0 + ky * dil_h) * row_stride;
                            const int8_t *wr = w_px + ky * k_w * in_c;
                            int32_t r;
                            for (r = 0; r < nruns; r++)
                                htc__dot4_s8(xr + r * dil_w * in_c, wr + r * in_c, wstride, run, off, acc);
                        }
#ifdef HTC__SSE2
                        if (use4) {
                            const __m128i v = htc__rq4_apply(&q4, HTC__LD128(acc));
                            htc__st32(o, htc__rq4_pack(v, v, out_zp, lo, hi));
                            continue;
                        }
#endif
                        o[0] = HTC__CAST(int8_t, htc__rq_apply(&q[0], acc[0], out_zp, lo, hi));
                        o[1] = HTC__CAST(int8_t, htc__rq_apply(&q[1], acc[1], out_zp, lo, hi));
                        o[2] = HTC__CAST(int8_t, htc__rq_apply(&q[2], acc[2], out_zp, lo, hi));
                        o[3] = HTC__CAST(int8_t, htc__rq_apply(&q[3], acc[3], out_zp, lo, hi));
                    } else {
                        for (k = 0; k < nb; k++) {
                            for (ky = ky_lo; ky < ky_hi; ky++) {
                                const int8_t *xr = in_px + (iy0 + ky * dil_h) * row_stride;
                                const int8_t *wr = w_px + (size_t)k * wstride + ky * k_w * in_c;
                                int32_t r;
                                for (r = 0; r < nruns; r++)
                                    acc[k] += htc__dot1_s8(xr + r * dil_w * in_c, wr + r * in_c, run, off);
                            }
                            o[k] = HTC__CAST(int8_t, htc__rq_apply(&q[k], acc[k], out_zp, lo, hi));
                        }
                    }
                }
            }
        }
    }
}
