/* conv2d.c - the convolution (regular, grouped, depthwise), int8 NHWC in,
   int8 or int32 out, every requantization kind: one accumulation loop
   (htc__conv_core) with the epilogue of the layer's kind (htc.h htc__epi),
   and fast paths of the TFLite kind (SSE2/AVX2, Arm DSP, RV32) that apply
   the same TFLite arithmetic in precomputed forms.
   Entry points: htc__conv2d_s8 and htc__dwconv2d_s8 (TFLite, bit-exact with
   reference_integer_ops::ConvPerChannel / DepthwiseConvPerChannel),
   htc__qconv2d_s8 / _s32 (onnxruntime's QLinearConv / ConvInteger),
   htc__ql_conv2d (QuantLib's Conv with RequantShift). */

/* TFLite's int8 per-channel convolution ignores the filter zero point (int8
   filters are symmetric); so do its fast paths. Taps outside the input are
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

/* ---- The accumulation loop of every requantization kind --------------------
   htc__conv_core computes acc = bias[o] + sum over valid taps and the
   group's input channels of (x + in_off) * (w - w_zp[o]) for output
   channels [oc_lo, oc_hi) of every pixel, and hands each accumulator to the
   layer's epilogue (htc.h htc__epi_put). TFLite convolutions take it where
   their fast paths below do not apply; onnxruntime's QLinearConv /
   ConvInteger and QuantLib's Conv take it always. Output channel o belongs
   to group o / group_out and reads input channels [g * group_in, (g + 1) *
   group_in); depthwise is group_in == 1. Weight of (o, tap t, channel i) is
   weights[o * w_oc + t * w_tap + i]: OHWI per group ([out_c][k_h][k_w]
   [group_in]: w_oc = k_h * k_w * group_in, w_tap = group_in) or TFLite's
   depthwise [k_h][k_w][out_c] (w_oc = 1, w_tap = out_c). Taps outside the
   input are skipped (the padding value is the input zero point, which adds
   nothing). Non-zero weight zero points: sum (x + off)(w - wzp) is computed
   as sum (x + off) w - wzp * sum (x + off), the second sum once per pixel
   and group. */
typedef struct {
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
    int32_t group_in, group_out;
    int32_t in_off;                         /* -input zero point */
    int32_t w_oc, w_tap;                    /* weight strides */
    int32_t w_zp_pc;                        /* w_zp has out_c entries */
    const int8_t *weights;
    const int32_t *bias;                    /* [out_c] or NULL */
    const int32_t *w_zp;                    /* or NULL */
} htc__convg;

#define HTC__CONVG_DW_BLOCK 32
#define HTC__CONVG_DW_TAPS 25
#define HTC__CONVG_GATHER 256

static inline int32_t htc__convg_wzp(const htc__convg *g, int32_t oc)
{
    return g->w_zp ? g->w_zp[g->w_zp_pc ? oc : 0] : 0;
}

static inline void htc__convg_put(const htc__convg *g, const htc__epi *e, void *out, size_t px, int32_t oc, int32_t acc)
{
    if (g->bias) acc += g->bias[oc];
    htc__epi_put(e, out, px + HTC__CAST(size_t, oc), oc, acc);
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
static HTC__NOINLINE HTC__UNUSED void htc__convg_dw(const htc__convg *g, const htc__epi *e, const int8_t *in, void *out,
                                                    int32_t oc_lo, int32_t oc_hi)
{
    const int32_t in_h = g->in_h, in_w = g->in_w, c = g->in_c, khkw = g->k_h * g->k_w;
    const int32_t off = g->in_off, row = in_w * c;
    int8_t wt[HTC__CONVG_DW_TAPS * HTC__CONVG_DW_BLOCK];
    int32_t acc[HTC__CONVG_DW_BLOCK], sum[HTC__CONVG_DW_BLOCK];
    int32_t b, c0, oy, ox, ky, kx, j, t;
    for (c0 = oc_lo; c0 < oc_hi; c0 += HTC__CONVG_DW_BLOCK) {
        const int32_t n = oc_hi - c0 < HTC__CONVG_DW_BLOCK ? oc_hi - c0 : HTC__CONVG_DW_BLOCK;
        for (t = 0; t < khkw; t++)
            for (j = 0; j < n; j++) wt[t * HTC__CONVG_DW_BLOCK + j] = g->weights[HTC__CAST(size_t, c0 + j) * g->w_oc + t * g->w_tap];
        for (b = 0; b < g->batches; b++) {
            const int8_t *in_b = in + HTC__CAST(size_t, b) * in_h * row;
            for (oy = 0; oy < g->out_h; oy++) {
                const int32_t iy0 = oy * g->stride_h - g->pad_top;
                int32_t ky_lo, ky_hi;
                htc__conv_taps(iy0, g->dil_h, g->k_h, in_h, &ky_lo, &ky_hi);
                for (ox = 0; ox < g->out_w; ox++) {
                    const int32_t ix0 = ox * g->stride_w - g->pad_left;
                    const size_t opx = ((HTC__CAST(size_t, b) * g->out_h + oy) * g->out_w + ox) * HTC__CAST(size_t, c);
                    int32_t kx_lo, kx_hi;
                    htc__conv_taps(ix0, g->dil_w, g->k_w, in_w, &kx_lo, &kx_hi);
                    for (j = 0; j < n; j++) acc[j] = 0;
                    for (ky = ky_lo; ky < ky_hi; ky++)
                        for (kx = kx_lo; kx < kx_hi; kx++) {
                            const int8_t *x = in_b + (iy0 + ky * g->dil_h) * row + (ix0 + kx * g->dil_w) * c + c0;
                            htc__mac_s8(acc, x, wt + (ky * g->k_w + kx) * HTC__CONVG_DW_BLOCK, n, off);
                        }
                    if (g->w_zp) {
                        for (j = 0; j < n; j++) sum[j] = 0;
                        for (ky = ky_lo; ky < ky_hi; ky++)
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const int8_t *x = in_b + (iy0 + ky * g->dil_h) * row + (ix0 + kx * g->dil_w) * c + c0;
                                for (j = 0; j < n; j++) sum[j] += x[j] + off;
                            }
                        for (j = 0; j < n; j++) acc[j] -= htc__convg_wzp(g, c0 + j) * sum[j];
                    }
                    for (j = 0; j < n; j++) htc__convg_put(g, e, out, opx, c0 + j, acc[j]);
                }
            }
        }
    }
}

static HTC__NOINLINE HTC__UNUSED void htc__conv_core(const htc__convg *g, const htc__epi *e, const int8_t *in, void *out,
                                                     int32_t oc_lo, int32_t oc_hi)
{
    const int32_t in_h = g->in_h, in_w = g->in_w, in_c = g->in_c;
    const int32_t k_h = g->k_h, k_w = g->k_w, dil_h = g->dil_h, dil_w = g->dil_w;
    const int32_t gi = g->group_in, go = g->group_out, out_c = g->out_c;
    const int32_t off = g->in_off;
    const int32_t wstride = k_h * k_w * gi;
    const int32_t row = in_w * in_c;
    /* OHWI with one group: each kernel row is one contiguous run */
    const int ohwi = g->w_oc == wstride && g->w_tap == gi && gi == in_c;
    int32_t b, oy, ox;
    if (gi == 1 && go == 1 && k_h * k_w <= HTC__CONVG_DW_TAPS) {
        htc__convg_dw(g, e, in, out, oc_lo, oc_hi);
        return;
    }
    for (b = 0; b < g->batches; b++) {
        const int8_t *in_b = in + HTC__CAST(size_t, b) * in_h * row;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            htc__conv_taps(iy0, dil_h, k_h, in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                const size_t opx = ((HTC__CAST(size_t, b) * g->out_h + oy) * g->out_w + ox) * HTC__CAST(size_t, out_c);
                int32_t gr, ky, kx, i, kx_lo, kx_hi;
                htc__conv_taps(ix0, dil_w, k_w, in_w, &kx_lo, &kx_hi);
                for (gr = oc_lo / go; gr * go < oc_hi; gr++) {
                    const int32_t ic0 = gr * gi;
                    const int32_t oc_end = (gr + 1) * go < oc_hi ? (gr + 1) * go : oc_hi;
                    int32_t oc = gr * go > oc_lo ? gr * go : oc_lo;
                    int32_t sum = 0;
                    if (g->w_zp) {
                        for (ky = ky_lo; ky < ky_hi; ky++)
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const int8_t *x = in_b + (iy0 + ky * dil_h) * row + (ix0 + kx * dil_w) * in_c + ic0;
                                for (i = 0; i < gi; i++) sum += x[i] + off;
                            }
                    }
                    if (ohwi && in_c * k_w < 16 && wstride <= HTC__CONVG_GATHER) {
                        /* short kernel rows (few input channels): gather the
                           receptive field once, taps outside the input as the
                           zero point (they add nothing), then one dot product
                           of wstride bytes per output channel */
                        int8_t buf[HTC__CONVG_GATHER];
                        const int8_t zpv = HTC__CAST(int8_t, -off);
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
                        for (; oc + 4 <= oc_end; oc += 4) {
                            int32_t acc[4] = {0, 0, 0, 0}, j;
                            htc__dot4_s8(buf, g->weights + HTC__CAST(size_t, oc) * wstride, wstride, wstride, off, acc);
                            for (j = 0; j < 4; j++) htc__convg_put(g, e, out, opx, oc + j, acc[j] - htc__convg_wzp(g, oc + j) * sum);
                        }
                        for (; oc < oc_end; oc++) {
                            const int32_t acc = htc__dot1_s8(buf, g->weights + HTC__CAST(size_t, oc) * wstride, wstride, off);
                            htc__convg_put(g, e, out, opx, oc, acc - htc__convg_wzp(g, oc) * sum);
                        }
                    } else if (ohwi && dil_w == 1) {
                        /* one group: each kernel row is one contiguous run in
                           the input and in the [oc][ky][kx][ic] weights */
                        const int32_t run = (kx_hi - kx_lo) * in_c;
                        const int8_t *in_px = in_b + (ix0 + kx_lo) * in_c;
                        for (; oc + 4 <= oc_end; oc += 4) {
                            int32_t acc[4] = {0, 0, 0, 0}, j;
                            const int8_t *w0 = g->weights + HTC__CAST(size_t, oc) * wstride + kx_lo * in_c;
                            if (run > 0)
                                for (ky = ky_lo; ky < ky_hi; ky++)
                                    htc__dot4_s8(in_px + (iy0 + ky * dil_h) * row, w0 + ky * k_w * in_c, wstride, run, off, acc);
                            for (j = 0; j < 4; j++) htc__convg_put(g, e, out, opx, oc + j, acc[j] - htc__convg_wzp(g, oc + j) * sum);
                        }
                        for (; oc < oc_end; oc++) {
                            int32_t acc = 0;
                            const int8_t *w0 = g->weights + HTC__CAST(size_t, oc) * wstride + kx_lo * in_c;
                            if (run > 0)
                                for (ky = ky_lo; ky < ky_hi; ky++)
                                    acc += htc__dot1_s8(in_px + (iy0 + ky * dil_h) * row, w0 + ky * k_w * in_c, run, off);
                            htc__convg_put(g, e, out, opx, oc, acc - htc__convg_wzp(g, oc) * sum);
                        }
                    } else {
                        for (; oc < oc_end; oc++) {
                            const int8_t *w0 = g->weights + HTC__CAST(size_t, oc) * g->w_oc;
                            int32_t acc = 0;
                            for (ky = ky_lo; ky < ky_hi; ky++) {
                                const int8_t *xr = in_b + (iy0 + ky * dil_h) * row + ic0;
                                for (kx = kx_lo; kx < kx_hi; kx++) {
                                    const int8_t *x = xr + (ix0 + kx * dil_w) * in_c;
                                    const int8_t *w = w0 + (ky * k_w + kx) * g->w_tap;
                                    for (i = 0; i < gi; i++) acc += (x[i] + off) * w[i];
                                }
                            }
                            htc__convg_put(g, e, out, opx, oc, acc - htc__convg_wzp(g, oc) * sum);
                        }
                    }
                }
            }
        }
    }
}

/* The loop's description of a TFLite convolution (weights OHWI, or TFLite's
   depthwise layout when depth_mult > 1 or in_c > 1 with one group per
   input channel) and its TFLite epilogue. */
static HTC__COLD HTC__UNUSED void htc__conv_tflite(const htc__conv_params *p, int depthwise, htc__convg *g, htc__epi *e)
{
    memset(g, 0, sizeof *g);
    memset(e, 0, sizeof *e);
    g->batches = p->batches;
    g->in_h = p->in_h; g->in_w = p->in_w; g->in_c = p->in_c;
    g->out_h = p->out_h; g->out_w = p->out_w; g->out_c = p->out_c;
    g->k_h = p->k_h; g->k_w = p->k_w; g->stride_h = p->stride_h; g->stride_w = p->stride_w;
    g->dil_h = p->dil_h; g->dil_w = p->dil_w; g->pad_top = p->pad_top; g->pad_left = p->pad_left;
    g->in_off = -p->in_zp;
    g->weights = p->weights;
    g->bias = p->bias;
    g->w_zp = p->w_zp ? &p->w_zp : 0;  /* one zero point: uint8 weights */
    if (depthwise) {
        g->group_in = 1; g->group_out = p->depth_mult;
        g->w_oc = 1; g->w_tap = p->out_c;
    } else {
        g->group_in = p->in_c; g->group_out = p->out_c;
        g->w_oc = p->k_h * p->k_w * p->in_c; g->w_tap = p->in_c;
    }
    e->kind = HTC__EPI_TFLITE;
    e->per_channel = p->per_channel;
    e->mult = p->mult; e->shift = p->shift;
    e->out_zp = p->out_zp; e->lo = p->act_min; e->hi = p->act_max;
}

/* A TFLite convolution's output channels [oc_lo, oc_hi) through the loop */
static HTC__NOINLINE HTC__COLD HTC__UNUSED void htc__conv_tflite_gen(const htc__conv_params *p, int depthwise, const int8_t *in,
                                                                     int8_t *out, int32_t oc_lo, int32_t oc_hi)
{
    htc__convg g;
    htc__epi e;
    htc__conv_tflite(p, depthwise, &g, &e);
    htc__conv_core(&g, &e, in, out, oc_lo, oc_hi);
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

#ifdef HTC__DSP
/* ---- Arm DSP path (HTC__DSP) ----------------------------------------------
   Two output pixels x two output channels per block, the four accumulators
   in registers: per 4 taps the two weight words are sign-extended once
   (SXTB16: taps 0,2 and 1,3) and each feeds two SMLADs, one per pixel. The
   input side comes in one of these ways:
   A  receptive fields of up to HTC__DSP_COLS taps: the two pixels' windows
      are copied once (im2col) into a column buffer on the stack (two
      sizes, so small layers use a small one) as int16 x - in_zp, zero for
      padding taps, laid out per 4 taps as
      [p0 taps 0,2][p0 taps 1,3][p1 taps 0,2][p1 taps 1,3], so the inner
      loop loads the input with two LDRDs and no conversion; every output
      channel pair then runs over it.
   Q  (Thumb-2 asm builds, K % 8 == 0 or few weights, K <= 2 * HTC__DSP_COLS (less when
      in_c % 4 != 0: the window as bytes goes behind the columns),
      htc__dsprq multipliers) four pixels x one output channel instead,
      below;
   C  otherwise: output channel pairs outermost; runs of pixel pairs whose
      windows are both inside the input in x read their kernel rows in
      place, converted by SXTB16, the input offset folded into the start
      value (bias + off * sum of the weights of the valid kernel rows);
      any other pixel is computed alone over its valid taps with the
      offset added by SXTAB16.
   Requantization: htc__dsprq (SMMLAR, QADD, shifts) when every channel's
   multiplier suits it, else htc__rq_apply. The dispatcher is inlined at
   each call with the layer's constant parameters, so a model links only
   the paths its layers take. */

#ifndef HTC__DSP_COLS
#define HTC__DSP_COLS 128   /* path A for receptive fields up to this many taps: 4 bytes of stack per tap */
#endif
#ifndef HTC__DSP_COLS_S
#define HTC__DSP_COLS_S 64  /* the smaller column buffer */
#endif

/* One output channel pair's requantization constants and the block's four
   outputs (p0 c0, p0 c1, p1 c0, p1 c1) to int8. */
typedef struct {
    const int32_t *mult;
    const int8_t *shift;
    int32_t mstep, zp, lo, hi;
    int fast, full;             /* htc__dsprq usable; [lo, hi] is all of int8 */
} htc__dsp_out;

static HTC__NOINLINE HTC__COLD void htc__dsp_out_init(htc__dsp_out *d, const htc__conv_params *p)
{
    const int32_t nq = p->per_channel ? p->out_c : 1;
    d->mult = p->mult;
    d->shift = p->shift;
    d->mstep = p->per_channel ? 1 : 0;
    d->zp = p->out_zp;
    d->lo = p->act_min;
    d->hi = p->act_max;
    d->fast = htc__dsp_rq_okr(p->rq, p->mult, p->shift, nq, p->bias, p->out_c, p->k_h * p->k_w * p->in_c);
    d->full = p->act_min == -128 && p->act_max == 127;
}

/* the block's outputs through htc__rq_apply (multipliers htc__dsprq cannot take) */
static HTC__NOINLINE HTC__COLD void htc__dsp_out_slow(const htc__dsp_out *d, int32_t oc, int32_t nc, int np, int32_t a00, int32_t a01,
                                            int32_t a10, int32_t a11, int8_t *o0, int8_t *o1)
{
    const int32_t zp = d->zp, lo = d->lo, hi = d->hi;
    int32_t k;
    for (k = 0; k < nc; k++) {
        const htc__rq q = htc__rq_make(d->mult[(oc + k) * d->mstep], d->shift[(oc + k) * d->mstep]);
        o0[k] = HTC__CAST(int8_t, htc__rq_apply(&q, k ? a01 : a00, zp, lo, hi));
        if (np > 1) o1[k] = HTC__CAST(int8_t, htc__rq_apply(&q, k ? a11 : a10, zp, lo, hi));
    }
}

/* Requantize and store the block (p0 c0, p0 c1, p1 c0, p1 c1) for output
   channel oc: nc channels (1 or 2), np pixels at o0, o1. The fields of d
   are copied first: stores through int8_t * could alias them. */
static HTC__INLINE void htc__dsp_out_block(const htc__dsp_out *d, int32_t oc, int32_t nc, int np, int32_t a00, int32_t a01,
                                           int32_t a10, int32_t a11, int8_t *o0, int8_t *o1)
{
    const int32_t zp = d->zp, lo = d->lo, hi = d->hi, mstep = d->mstep;
    if (d->fast) {
        const htc__dsprq q0 = htc__dsprq_make(d->mult[oc * mstep], d->shift[oc * mstep]);
        const htc__dsprq q1 = htc__dsprq_make(d->mult[(oc + nc - 1) * mstep], d->shift[(oc + nc - 1) * mstep]);
        int32_t v00 = htc__dsprq_apply(q0, a00) + zp, v01 = htc__dsprq_apply(q1, a01) + zp;
        int32_t v10 = htc__dsprq_apply(q0, a10) + zp, v11 = htc__dsprq_apply(q1, a11) + zp;
        if (d->full) {
            v00 = htc__ssat8(v00); v01 = htc__ssat8(v01); v10 = htc__ssat8(v10); v11 = htc__ssat8(v11);
        } else {
            v00 = htc__dsp_clamp(v00, lo, hi); v01 = htc__dsp_clamp(v01, lo, hi);
            v10 = htc__dsp_clamp(v10, lo, hi); v11 = htc__dsp_clamp(v11, lo, hi);
        }
        o0[0] = HTC__CAST(int8_t, v00);
        if (nc > 1) o0[1] = HTC__CAST(int8_t, v01);
        if (np > 1) {
            o1[0] = HTC__CAST(int8_t, v10);
            if (nc > 1) o1[1] = HTC__CAST(int8_t, v11);
        }
    } else {
        htc__dsp_out_slow(d, oc, nc, np, a00, a01, a10, a11, o0, o1);
    }
}

/* htc__dsp_out_block out of line, for the paths' rarer blocks */
static HTC__NOINLINE HTC__COLD void htc__dsp_out_block_n(const htc__dsp_out *d, int32_t oc, int32_t nc, int np, int32_t a00, int32_t a01,
                                               int32_t a10, int32_t a11, int8_t *o0, int8_t *o1)
{
    htc__dsp_out_block(d, oc, nc, np, a00, a01, a10, a11, o0, o1);
}

/* Path A inner part: output channels [oc, oc + 2 * npairs) of the two
   pixels whose columns are in xb (K taps), outputs to o0 and o1 (the same
   pixel twice when there is one). */
static HTC__NOINLINE HTC__DSP_NOSCHED void htc__dsp_cols_run(const htc__conv_params *p, const htc__dsp_out *d, int32_t oc,
                                                             int32_t npairs, const int32_t *xb, int8_t *o0, int8_t *o1,
                                                             const htc__dsprq *rq)
{
    const int32_t K = p->k_h * p->k_w * p->in_c, n8 = K >> 3;
    const int32_t mstep = d->mstep, zp = d->zp, lo = d->lo, hi = d->hi, full = d->full;
    const int8_t *w0 = p->weights + (size_t)oc * K;
    const int32_t *bias = p->bias ? p->bias + oc : NULL;
    const int32_t *mult = d->mult + oc * mstep;
    const int8_t *shift = d->shift + oc * mstep;
    const int32_t *xend = xb + 8 * n8;
    o0 += oc;
    o1 += oc;
    for (; npairs > 0; npairs--) {
        const int8_t *w1 = w0 + K;
        const int32_t *x = xb;
        int32_t a00 = 0, a01 = 0, a10, a11, k;
        if (bias) {
            a00 = bias[0];
            a01 = bias[1];
            bias += 2;
        }
        a10 = a00;
        a11 = a01;
        while (x != xend) {
            int32_t x0e = x[0], x0o = x[1], x1e = x[2], x1o = x[3], w, t;
            w = htc__ld32(w0);
            t = htc__sxtb16(w);
            a00 = htc__smlad(t, x0e, a00);
            a10 = htc__smlad(t, x1e, a10);
            t = htc__sxtb16_r8(w);
            a00 = htc__smlad(t, x0o, a00);
            a10 = htc__smlad(t, x1o, a10);
            w = htc__ld32(w1);
            t = htc__sxtb16(w);
            a01 = htc__smlad(t, x0e, a01);
            a11 = htc__smlad(t, x1e, a11);
            t = htc__sxtb16_r8(w);
            a01 = htc__smlad(t, x0o, a01);
            a11 = htc__smlad(t, x1o, a11);
            x0e = x[4]; x0o = x[5]; x1e = x[6]; x1o = x[7];
            x += 8;
            w = htc__ld32(w0 + 4);
            w0 += 8;
            t = htc__sxtb16(w);
            a00 = htc__smlad(t, x0e, a00);
            a10 = htc__smlad(t, x1e, a10);
            t = htc__sxtb16_r8(w);
            a00 = htc__smlad(t, x0o, a00);
            a10 = htc__smlad(t, x1o, a10);
            w = htc__ld32(w1 + 4);
            w1 += 8;
            t = htc__sxtb16(w);
            a01 = htc__smlad(t, x0e, a01);
            a11 = htc__smlad(t, x1e, a11);
            t = htc__sxtb16_r8(w);
            a01 = htc__smlad(t, x0o, a01);
            a11 = htc__smlad(t, x1o, a11);
        }
        for (k = 8 * n8; k < K; k++) {
            /* tap k: half (k & 2) / 2 of word 4 * (k / 4) + (k & 1), p1 two words on */
            const int16_t *h = HTC__CAST(const int16_t *, HTC__CAST(const void *, xb)) + 8 * (k >> 2) + 2 * (k & 1) + ((k >> 1) & 1);
            const int32_t e0 = *w0++, e1 = *w1++;
            a00 += h[0] * e0; a01 += h[0] * e1;
            a10 += h[4] * e0; a11 += h[4] * e1;
        }
        w0 = w1;
        if (d->fast) {
            const htc__dsprq q0 = rq ? rq[0] : htc__dsprq_make(mult[0], shift[0]);
            const htc__dsprq q1 = rq ? rq[1] : htc__dsprq_make(mult[mstep], shift[mstep]);
            int32_t v00 = htc__dsprq_apply(q0, a00) + zp, v01 = htc__dsprq_apply(q1, a01) + zp;
            int32_t v10 = htc__dsprq_apply(q0, a10) + zp, v11 = htc__dsprq_apply(q1, a11) + zp;
            if (full) {
                v00 = htc__ssat8(v00); v01 = htc__ssat8(v01); v10 = htc__ssat8(v10); v11 = htc__ssat8(v11);
            } else {
                v00 = htc__dsp_clamp(v00, lo, hi); v01 = htc__dsp_clamp(v01, lo, hi);
                v10 = htc__dsp_clamp(v10, lo, hi); v11 = htc__dsp_clamp(v11, lo, hi);
            }
            o0[0] = HTC__CAST(int8_t, v00);
            o0[1] = HTC__CAST(int8_t, v01);
            o1[0] = HTC__CAST(int8_t, v10);
            o1[1] = HTC__CAST(int8_t, v11);
        } else {
            htc__dsp_out_slow(d, oc, 2, 2, a00, a01, a10, a11, o0, o1);
        }
        mult += 2 * mstep;
        shift += 2 * mstep;
        rq += rq ? 2 : 0;
        oc += 2;
        o0 += 2;
        o1 += 2;
    }
}

/* acc[0..1] += (x + off).w0, (x + off).w1 over n bytes */
static HTC__NOINLINE HTC__DSP_NOSCHED void htc__dsp_dot1x2(const int8_t *x, const int8_t *w0, const int8_t *w1,
                                                           int32_t n, int32_t off, int32_t *acc)
{
    int32_t a0 = acc[0], a1 = acc[1];
    const int8_t *end = x + (n & ~3);
    const int32_t o2 = htc__dup16(off);
    while (x != end) {
        const int32_t u = htc__ld32(x);
        const int32_t ue = htc__sxtab16(o2, u), uo = htc__sxtab16_r8(o2, u);
        int32_t w;
        x += 4;
        w = htc__ld32(w0);
        w0 += 4;
        a0 = htc__smlad(htc__sxtb16(w), ue, a0);
        a0 = htc__smlad(htc__sxtb16_r8(w), uo, a0);
        w = htc__ld32(w1);
        w1 += 4;
        a1 = htc__smlad(htc__sxtb16(w), ue, a1);
        a1 = htc__smlad(htc__sxtb16_r8(w), uo, a1);
    }
    for (n &= 3; n > 0; n--) {
        const int32_t u = *x++ + off;
        a0 += u * *w0++;
        a1 += u * *w1++;
    }
    acc[0] = a0; acc[1] = a1;
}

/* n bytes from s to d, a word at a time (unaligned words are fine on the
   cores with the DSP extension) */
static inline void htc__dsp_copy(int8_t *d, const int8_t *s, int32_t n)
{
    for (; n >= 4; n -= 4, d += 4, s += 4) htc__st32w(d, htc__ld32(s));
    for (; n > 0; n--) *d++ = *s++;
}

static inline void htc__dsp_fill(int8_t *d, int8_t v, int32_t n)
{
    for (; n > 0; n--) *d++ = v;
}

/* Path A: the column of the pixel whose window starts at input (iy0, ix0)
   into slot s (of ns: 2, or 4 for path Q) of the column buffer xb (n4
   groups of 4 taps). With
   in_c a multiple of 4 every (ky, kx) is whole groups, converted straight
   from the input; otherwise the window is first copied as bytes (in_zp in
   the padding and up to the multiple of 4) to tmp. Out of line: gcc
   inlines it into path Q when path A is not linked, and that copy costs
   ResNet-8 0.6% more instructions on the M4 (path Q also hides its ns
   from gcc, whose copy specialized for ns 4 is slower too). */
static HTC__NOINLINE HTC__UNUSED void htc__dsp_im2col(const htc__conv_params *p, const int8_t *in_b, int32_t iy0, int32_t ix0,
                                        int32_t *xb, int s, int ns, int32_t n4, int8_t *tmp)
{
    const int32_t in_c = p->in_c, k_h = p->k_h, k_w = p->k_w, off = -p->in_zp, o2 = htc__dup16(off);
    int32_t *d = xb + 2 * s;
    int32_t ky, kx, j;
    if ((in_c & 3) == 0) {
        const int32_t g = in_c >> 2;
        for (ky = 0; ky < k_h; ky++) {
            const int32_t iy = iy0 + ky * p->dil_h;
            for (kx = 0; kx < k_w; kx++) {
                const int32_t ix = ix0 + kx * p->dil_w;
                if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
                    for (j = 0; j < g; j++, d += 2 * ns) d[0] = d[1] = 0;
                } else {
                    const int8_t *src = in_b + ((size_t)iy * p->in_w + ix) * in_c;
                    for (j = 0; j < g; j++, d += 2 * ns, src += 4) {
                        const int32_t v = htc__ld32(src);
                        d[0] = htc__sxtab16(o2, v);
                        d[1] = htc__sxtab16_r8(o2, v);
                    }
                }
            }
        }
    } else {
        const int8_t zp = HTC__CAST(int8_t, p->in_zp);
        const int32_t rowb = k_w * in_c;
        int8_t *t = tmp;
        for (ky = 0; ky < k_h; ky++, t += rowb) {
            const int32_t iy = iy0 + ky * p->dil_h;
            if (iy < 0 || iy >= p->in_h) {
                htc__dsp_fill(t, zp, rowb);
            } else if (p->dil_w == 1 && ix0 >= 0 && ix0 + k_w <= p->in_w) {
                htc__dsp_copy(t, in_b + ((size_t)iy * p->in_w + ix0) * in_c, rowb);
            } else {
                for (kx = 0; kx < k_w; kx++) {
                    const int32_t ix = ix0 + kx * p->dil_w;
                    if (ix < 0 || ix >= p->in_w) htc__dsp_fill(t + kx * in_c, zp, in_c);
                    else htc__dsp_copy(t + kx * in_c, in_b + ((size_t)iy * p->in_w + ix) * in_c, in_c);
                }
            }
        }
        htc__dsp_fill(t, zp, 4 * n4 - k_h * rowb);
        for (j = 0; j < n4; j++, d += 2 * ns) {
            const int32_t v = htc__ld32(tmp + 4 * j);
            d[0] = htc__sxtab16(o2, v);
            d[1] = htc__sxtab16_r8(o2, v);
        }
    }
}

/* Path Q (Thumb-2 asm builds; K = k_h * k_w * in_c up to 2 * HTC__DSP_COLS
   taps, a multiple of 8, or at least 24 with the weights rounded up to 8
   per row in HTC__DSP_QW bytes, copied per call; the htc__dsprq
   multipliers):
   four output pixels x one output channel per block. The four columns are
   im2col'ed into one buffer, per 4 taps [p0 taps 0,2][p0 1,3] .. [p3 1,3];
   per 4 taps one weight word is sign-extended (two SXTB16) and feeds eight
   SMLADs, each pixel's pair by one LDRD. A last group of fewer pixels
   repeats its last pixel and stores only its own. */
#ifdef HTC__DSP_ASM
#ifndef HTC__DSP_QW
#define HTC__DSP_QW 512     /* path Q: weights of K % 8 != 0 layers (out_c x K rounded up to 8) padded on the stack */
#endif
#define HTC__Q4_PIX(A)                                                                                         \
    "ldrd %[xe], %[xo], [%[x]], #8\n\t"                                                                        \
    "smlad %[" A "], %[xe], %[we], %[" A "]\n\t"                                                               \
    "smlad %[" A "], %[xo], %[wo], %[" A "]\n\t"
/* 4 taps: one weight word, eight SMLADs */
#define HTC__Q4_STEP                                                                                           \
    "ldr %[we], [%[w]], #4\n\t"                                                                                \
    "sxtb16 %[wo], %[we], ror #8\n\t"                                                                          \
    "sxtb16 %[we], %[we]\n\t" HTC__Q4_PIX("a0") HTC__Q4_PIX("a1") HTC__Q4_PIX("a2") HTC__Q4_PIX("a3")
#define HTC__Q4_REGS                                                                                           \
    register int32_t r_a0 __asm__("r0") = b, r_a1 __asm__("r1") = b, r_a2 __asm__("r2") = b, r_a3 __asm__("r3") = b; \
    register const int32_t *r_x __asm__("r4") = xb;                                                            \
    register const int8_t *r_w __asm__("r5") = w;                                                              \
    register const int32_t *r_end __asm__("r6") = xb + 16 * n8;                                                \
    register int32_t r_we __asm__("r8"), r_wo __asm__("r9"), r_xe __asm__("r10"), r_xo __asm__("r11")
#define HTC__Q4_OPS                                                                                            \
    [a0] "+r"(r_a0), [a1] "+r"(r_a1), [a2] "+r"(r_a2), [a3] "+r"(r_a3), [x] "+r"(r_x), [w] "+r"(r_w),          \
        [we] "=&r"(r_we), [wo] "=&r"(r_wo), [xe] "=&r"(r_xe), [xo] "=&r"(r_xo)

/* acc[0..3] = b + the 4 pixels' columns xb . w over n8 steps of 8 taps */
static HTC__INLINE void htc__dsp_q4(const int32_t *xb, const int8_t *w, int32_t n8, int32_t b, int32_t *acc)
{
    HTC__Q4_REGS;
    __asm__ volatile("1:\n\t" HTC__Q4_STEP HTC__Q4_STEP
                     "cmp %[x], %[end]\n\t"
                     "bne 1b\n\t"
                     : HTC__Q4_OPS
                     : [end] "r"(r_end)
                     : "cc", "memory");
    acc[0] = r_a0;
    acc[1] = r_a1;
    acc[2] = r_a2;
    acc[3] = r_a3;
}

/* Every output channel of 4 pixels (the full int8 range): per channel the
   bias, the columns . the weight row (rows follow each other), then
   htc__dsprq_apply + zp on the four, stored out_c apart. tb: the
   requantization constants and their steps, bias and its step (a zero
   word and 0 without bias), the output, out_c, zp, channels left, xb;
   read and advanced through r12. htc__dsp_q4_all: tb[0..3] multipliers,
   shifts and their steps (bytes: 0 per-tensor), htc__dsprq made per
   channel (11 instructions); htc__dsp_q4_allr: tb[0..1] records
   {e, c, m2} of htc__dsprq made once per call and their step (12 bytes,
   0 per-tensor), loaded by one LDM (4 instructions). */
#define HTC__Q4_RQ(A)                                                                                          \
    "smmlar %[we], %[" A "], %[t], %[" A "]\n\t"                                                               \
    "qadd %[" A "], %[we], %[xo]\n\t"                                                                          \
    "add %[" A "], %[" A "], %[we], asr #31\n\t"                                                               \
    "asr %[" A "], %[" A "], %[xe]\n\t"                                                                        \
    "add %[" A "], %[" A "], %[wo]\n\t"                                                                        \
    "ssat %[" A "], #8, %[" A "]\n\t"
#define HTC__Q4_ALL(NAME, CONSTS)                                                            \
static HTC__NOINLINE HTC__UNUSED void NAME(int32_t *tb, const int32_t *xb, const int8_t *w, int32_t n8) \
{                                                                                            \
    const int32_t b = 0;                                                                     \
    HTC__Q4_REGS;                                                                            \
    register int32_t *r_tb __asm__("r12") = tb;                                              \
    register int32_t r_t __asm__("lr");                                                      \
    __asm__ volatile("0:\n\t"                                                                \
                     "ldrd %[t], %[we], [%[tb], #16]\n\t"                                    \
                     "ldr %[a0], [%[t]]\n\t"                                                 \
                     "add %[t], %[t], %[we]\n\t"                                             \
                     "str %[t], [%[tb], #16]\n\t"                                            \
                     "mov %[a1], %[a0]\n\t"                                                  \
                     "mov %[a2], %[a0]\n\t"                                                  \
                     "mov %[a3], %[a0]\n\t"                                                  \
                     "ldr %[x], [%[tb], #40]\n\t"                                            \
                     "1:\n\t" HTC__Q4_STEP HTC__Q4_STEP                                      \
                     "cmp %[x], %[end]\n\t"                                                  \
                     "bne 1b\n\t"                                                            \
                     CONSTS                                                                  \
                     "ldr %[wo], [%[tb], #32]\n\t"                                           \
                     HTC__Q4_RQ("a0") HTC__Q4_RQ("a1") HTC__Q4_RQ("a2") HTC__Q4_RQ("a3")     \
                     "ldrd %[we], %[wo], [%[tb], #24]\n\t"                                   \
                     "strb %[a0], [%[we]]\n\t"                                               \
                     "strb %[a1], [%[we], %[wo]]\n\t"                                        \
                     "add %[xe], %[we], %[wo], lsl #1\n\t"                                   \
                     "strb %[a2], [%[xe]]\n\t"                                               \
                     "strb %[a3], [%[xe], %[wo]]\n\t"                                        \
                     "add %[we], %[we], #1\n\t"                                              \
                     "str %[we], [%[tb], #24]\n\t"                                           \
                     "ldr %[we], [%[tb], #36]\n\t"                                           \
                     "subs %[we], %[we], #1\n\t"                                             \
                     "str %[we], [%[tb], #36]\n\t"                                           \
                     "bne 0b\n\t"                                                            \
                     : HTC__Q4_OPS, [t] "=&r"(r_t)                                           \
                     : [end] "r"(r_end), [tb] "r"(r_tb)                                      \
                     : "cc", "memory");                                                      \
}
#define HTC__Q4_CMAKE                                                                                   \
    "ldm %[tb], {r8, r9, r10, r11}\n\t"                                                                         \
    "ldr %[t], [%[we]]\n\t"                                                                                    \
    "add %[we], %[we], %[xe]\n\t"                                                                              \
    "ldrsb %[xe], [%[wo]]\n\t"                                                                                 \
    "add %[wo], %[wo], %[xo]\n\t"                                                                              \
    "stm %[tb], {r8, r9}\n\t"                                                                                  \
    "lsl %[t], %[t], #1\n\t"                                                                                   \
    "rsb %[xe], %[xe], #0\n\t"                                                                                 \
    "mov %[xo], #1\n\t"                                                                                        \
    "lsl %[xo], %[xo], %[xe]\n\t"                                                                              \
    "lsr %[xo], %[xo], #1\n\t"
#define HTC__Q4_CREC                                                                                    \
    "ldm %[tb], {r8, r9}\n\t"                                                                                  \
    "ldm r8, {r10, r11, lr}\n\t"                                                                               \
    "add r8, r8, r9\n\t"                                                                                       \
    "str r8, [%[tb]]\n\t"
HTC__Q4_ALL(htc__dsp_q4_all, HTC__Q4_CMAKE)
HTC__Q4_ALL(htc__dsp_q4_allr, HTC__Q4_CREC)
#undef HTC__Q4_CREC
#undef HTC__Q4_CMAKE
#undef HTC__Q4_ALL
#undef HTC__Q4_RQ
#undef HTC__Q4_OPS
#undef HTC__Q4_REGS
#undef HTC__Q4_STEP
#undef HTC__Q4_PIX

static HTC__NOINLINE void htc__conv2d_dsp_q(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t out_w = p->out_w, out_c = p->out_c, npix = p->out_h * out_w;
    const int32_t K = p->k_h * p->k_w * p->in_c, K8 = (K + 7) & ~7, n4 = K8 >> 2, n8 = K8 >> 3, mstep = p->per_channel ? 1 : 0;
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max, full = lo == -128 && hi == 127;
    const htc__dsprq qt = htc__dsprq_make(p->mult[0], p->shift[0]);
    int32_t xb[4 * HTC__DSP_COLS];
    int8_t *tmp = HTC__CAST(int8_t *, HTC__CAST(void *, xb + 8 * n4));   /* one window as bytes when in_c % 4 != 0 */
    int8_t wpad[HTC__DSP_QW];
    const int8_t *wt = p->weights;
    /* the requantization records of htc__dsp_q4_allr behind the columns (and the window
       bytes), when they fit there: no stack of their own */
    const int32_t nrec = mstep ? out_c : 1, used = 8 * n4 + ((p->in_c & 3) ? n4 : 0);
    int32_t *rec = xb + used;
    const int recs = full && 3 * nrec <= 4 * HTC__DSP_COLS - used;
    int32_t b, q, i, oc;
    int ns = 4;
    __asm__("" : "+r"(ns));     /* see htc__dsp_im2col */
    for (oc = 0; recs && oc < nrec; oc++) {
        const htc__dsprq r = htc__dsprq_make(p->mult[oc], p->shift[oc]);
        rec[3 * oc] = r.e;
        rec[3 * oc + 1] = r.c;
        rec[3 * oc + 2] = r.m2;
    }
    if (K8 != K) {
        /* rows of K8 bytes, zeros after the K weights (the columns' padding taps are 0 too) */
        for (oc = 0; oc < out_c; oc++)
            for (i = 0; i < K8; i++) wpad[oc * K8 + i] = HTC__CAST(int8_t, i < K ? p->weights[oc * K + i] : 0);
        wt = wpad;
    }
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * p->in_w * p->in_c;
        int8_t *out_b = out + (size_t)b * npix * out_c;
        for (q = 0; q < npix; q += 4) {
            const int32_t np = npix - q < 4 ? npix - q : 4;
            const int8_t *w = wt;
            int8_t *o = out_b + (size_t)q * out_c;
            for (i = 0; i < 4; i++) {
                const int32_t k = q + (i < np ? i : np - 1), oy = k / out_w, ox = k - oy * out_w;
                htc__dsp_im2col(p, in_b, oy * p->stride_h - p->pad_top, ox * p->stride_w - p->pad_left, xb, i, ns, n4, tmp);
                if ((K & 7) == 4 && (p->in_c & 3) == 0) xb[8 * (n4 - 1) + 2 * i] = xb[8 * (n4 - 1) + 2 * i + 1] = 0;
            }
            if (full && np == 4) {
                /* addresses: 32 bits on Thumb-2 */
                const int32_t zero = 0, *bias = p->bias ? p->bias : &zero;
                const int32_t *x0 = xb;
                int32_t tb[11];
                if (recs) {
                    memcpy(&tb[0], &rec, 4);
                    tb[1] = 12 * mstep;
                } else {
                    memcpy(&tb[0], &p->mult, 4);
                    memcpy(&tb[1], &p->shift, 4);
                    tb[2] = 4 * mstep;
                    tb[3] = mstep;
                }
                memcpy(&tb[4], &bias, 4);
                tb[5] = p->bias ? 4 : 0;
                memcpy(&tb[6], &o, 4);
                tb[7] = out_c;
                tb[8] = zp;
                tb[9] = out_c;
                memcpy(&tb[10], &x0, 4);
                if (recs) htc__dsp_q4_allr(tb, xb, w, n8);
                else htc__dsp_q4_all(tb, xb, w, n8);
                continue;
            }
            for (oc = 0; oc < out_c; oc++, w += K8, o++) {
                const htc__dsprq rq = mstep ? htc__dsprq_make(p->mult[oc], p->shift[oc]) : qt;
                int32_t a[4];
                htc__dsp_q4(xb, w, n8, p->bias ? p->bias[oc] : 0, a);
                for (i = 0; i < np; i++) {
                    const int32_t v = htc__dsprq_apply(rq, a[i]) + zp;
                    o[i * out_c] = HTC__CAST(int8_t, full ? htc__ssat8(v) : htc__dsp_clamp(v, lo, hi));
                }
            }
        }
    }
}
#endif

#ifndef HTC__DSP_RQ
#define HTC__DSP_RQ 64      /* path A makes the htc__dsprq of up to this many channels once per call (12 bytes of stack each) */
#endif

/* Path A, an odd last output channel of the two pixels in xb */
static HTC__NOINLINE HTC__COLD void htc__dsp_cols_last(const htc__conv_params *p, const htc__dsp_out *d, const int32_t *xb,
                                                       int8_t *o0, int8_t *o1)
{
    const int32_t K = p->k_h * p->k_w * p->in_c, oc = p->out_c - 1;
    const int8_t *w = p->weights + (size_t)oc * K;
    const int16_t *h = HTC__CAST(const int16_t *, HTC__CAST(const void *, xb));
    int32_t a0 = p->bias ? p->bias[oc] : 0, a1 = a0, k;
    for (k = 0; k < K; k++) {
        const int32_t j = 8 * (k >> 2) + 2 * (k & 1) + ((k >> 1) & 1);
        a0 += h[j] * w[k];
        a1 += h[j + 4] * w[k];
    }
    htc__dsp_out_slow(d, oc, 1, 2, a0, 0, a1, 0, o0, o1);
}

static HTC__NOINLINE HTC__COLD void htc__conv2d_dsp_cols(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t *xb)
{
    const int32_t out_w = p->out_w, out_c = p->out_c, npix = p->out_h * out_w;
    const int32_t K = p->k_h * p->k_w * p->in_c, n4 = (K + 3) >> 2;
    int8_t *tmp = HTC__CAST(int8_t *, HTC__CAST(void *, xb + 4 * n4));   /* one window as bytes when in_c % 4 != 0 */
    htc__dsp_out d;
    htc__dsprq rq[HTC__DSP_RQ];
    int32_t b, q, oc, recs;
    htc__dsp_out_init(&d, p);
    /* path A runs every channel of a pixel pair before the next pair: the
       constants of up to HTC__DSP_RQ channels made once per call */
    recs = d.fast && out_c <= HTC__DSP_RQ;
    for (oc = 0; recs && oc < out_c; oc++) rq[oc] = htc__dsprq_make(p->mult[oc * d.mstep], p->shift[oc * d.mstep]);
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * p->in_w * p->in_c;
        int8_t *out_b = out + (size_t)b * npix * out_c;
        for (q = 0; q < npix; q += 2) {
            const int32_t q1 = q + 1 < npix ? q + 1 : q;
            const int32_t oy0 = q / out_w, ox0 = q - oy0 * out_w, oy1 = q1 / out_w, ox1 = q1 - oy1 * out_w;
            int8_t *o0 = out_b + (size_t)q * out_c, *o1 = out_b + (size_t)q1 * out_c;
            htc__dsp_im2col(p, in_b, oy0 * p->stride_h - p->pad_top, ox0 * p->stride_w - p->pad_left, xb, 0, 2, n4, tmp);
            htc__dsp_im2col(p, in_b, oy1 * p->stride_h - p->pad_top, ox1 * p->stride_w - p->pad_left, xb, 1, 2, n4, tmp);
            htc__dsp_cols_run(p, &d, 0, out_c >> 1, xb, o0, o1, recs ? rq : NULL);
            if (out_c & 1) htc__dsp_cols_last(p, &d, xb, o0 + out_c - 1, o1 + out_c - 1);
        }
    }
}

/* the column buffer on the stack, in two sizes so that layers with small
   receptive fields do not pay the larger one's stack */
static HTC__NOINLINE void htc__conv2d_dsp_cols_s(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    int32_t xb[HTC__DSP_COLS_S];
    htc__conv2d_dsp_cols(p, in, out, xb);
}

static HTC__NOINLINE void htc__conv2d_dsp_cols_l(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    int32_t xb[HTC__DSP_COLS];
    htc__conv2d_dsp_cols(p, in, out, xb);
}

/* sum of n int8 weights */
static HTC__UNUSED int32_t htc__dsp_wsum(const int8_t *w, int32_t n)
{
    const int32_t ones = 0x00010001;
    int32_t s = 0;
    for (; n >= 4; n -= 4, w += 4) {
        const int32_t v = htc__ld32(w);
        s = htc__smlad(htc__sxtb16(v), ones, s);
        s = htc__smlad(htc__sxtb16_r8(v), ones, s);
    }
    for (; n > 0; n--) s += *w++;
    return s;
}

/* Requantization constants of one output channel pair (fast layers only) */
typedef struct {
    htc__dsprq q0, q1;
    int32_t zp, lo, hi, full, nc;
    const htc__dsp_out *slow;   /* non-NULL: requantize through htc__dsp_out_slow (channel oc) */
    int32_t oc;
} htc__dsp_pair;

/* Path C, inside the input: output channels c, c + 1 (weight rows w0
   and w0 + K; nc == 1: w0 twice, one stored) of npairs pixel pairs. Pair j
   reads nrows kernel rows of rowb bytes, row r at x + j * pstep + r * rs for
   its first pixel and xstep bytes on for the second, the input offset
   folded into the start values f0, f1; outputs at o + 2 j ostep and
   ostep bytes on. */
static HTC__NOINLINE HTC__DSP_NOSCHED void htc__dsp_direct_run(const int8_t *x, int32_t xstep, int32_t pstep, int32_t rs,
                                                               int32_t nrows, int32_t rowb, const int8_t *w0, int32_t K,
                                                               int32_t npairs, int32_t f0, int32_t f1, const htc__dsp_pair *d,
                                                               int8_t *o, int32_t ostep)
{
    const int8_t *w1 = w0 + (d->nc - 1) * K;
    for (; npairs > 0; npairs--, x += pstep, o += 2 * ostep) {
        int32_t a00 = f0, a01 = f1, a10 = f0, a11 = f1, r, v00, v01, v10, v11;
        for (r = 0; r < nrows; r++) {
            const int8_t *u = x + r * rs, *wa = w0 + r * rowb, *wb = w1 + r * rowb, *end = u + (rowb & ~3);
            int32_t i;
            while (u != end) {
                const int32_t xa = htc__ld32(u), xb = htc__ld32(u + xstep);
                const int32_t ue = htc__sxtb16(xa), uo = htc__sxtb16_r8(xa), ve = htc__sxtb16(xb), vo = htc__sxtb16_r8(xb);
                int32_t w, t;
                u += 4;
                w = htc__ld32(wa);
                wa += 4;
                t = htc__sxtb16(w);
                a00 = htc__smlad(t, ue, a00);
                a10 = htc__smlad(t, ve, a10);
                t = htc__sxtb16_r8(w);
                a00 = htc__smlad(t, uo, a00);
                a10 = htc__smlad(t, vo, a10);
                w = htc__ld32(wb);
                wb += 4;
                t = htc__sxtb16(w);
                a01 = htc__smlad(t, ue, a01);
                a11 = htc__smlad(t, ve, a11);
                t = htc__sxtb16_r8(w);
                a01 = htc__smlad(t, uo, a01);
                a11 = htc__smlad(t, vo, a11);
            }
            for (i = 0; i < (rowb & 3); i++) {
                const int32_t p0 = u[i], p1 = u[xstep + i], c0 = wa[i], c1 = wb[i];
                a00 += p0 * c0; a01 += p0 * c1; a10 += p1 * c0; a11 += p1 * c1;
            }
        }
        if (d->slow) {
            htc__dsp_out_slow(d->slow, d->oc, d->nc, 2, a00, a01, a10, a11, o, o + ostep);
            continue;
        }
        v00 = htc__dsprq_apply(d->q0, a00) + d->zp;
        v01 = htc__dsprq_apply(d->q1, a01) + d->zp;
        v10 = htc__dsprq_apply(d->q0, a10) + d->zp;
        v11 = htc__dsprq_apply(d->q1, a11) + d->zp;
        if (d->full) {
            v00 = htc__ssat8(v00); v01 = htc__ssat8(v01); v10 = htc__ssat8(v10); v11 = htc__ssat8(v11);
        } else {
            v00 = htc__dsp_clamp(v00, d->lo, d->hi); v01 = htc__dsp_clamp(v01, d->lo, d->hi);
            v10 = htc__dsp_clamp(v10, d->lo, d->hi); v11 = htc__dsp_clamp(v11, d->lo, d->hi);
        }
        o[0] = HTC__CAST(int8_t, v00);
        o[ostep] = HTC__CAST(int8_t, v10);
        if (d->nc > 1) {
            o[1] = HTC__CAST(int8_t, v01);
            o[ostep + 1] = HTC__CAST(int8_t, v11);
        }
    }
}

static inline void htc__dsp_pair_init(htc__dsp_pair *d, const htc__dsp_out *o, int32_t oc, int32_t nc)
{
    d->slow = o->fast ? NULL : o;
    d->oc = oc;
    if (o->fast) {
        d->q0 = htc__dsprq_make(o->mult[oc * o->mstep], o->shift[oc * o->mstep]);
        d->q1 = htc__dsprq_make(o->mult[(oc + nc - 1) * o->mstep], o->shift[(oc + nc - 1) * o->mstep]);
    }
    d->zp = o->zp;
    d->lo = o->lo;
    d->hi = o->hi;
    d->full = o->full;
    d->nc = nc;
}

#ifndef HTC__DSP_KH
#define HTC__DSP_KH 16      /* path C keeps per-kernel-row weight sums for up to this many rows */
#endif

/* Path C: general convolution, input read in place */
/* Path C for 1x1, stride 1, no padding: the pixels of all batches are one
   row of pixel pairs read in place */
static HTC__NOINLINE HTC__COLD void htc__conv2d_dsp_flat(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    htc__dsp_out d;
    const int32_t out_c = p->out_c, K = p->in_c, npix = p->batches * p->out_h * p->out_w, off = -p->in_zp;
    int32_t oc;
    htc__dsp_out_init(&d, p);
    for (oc = 0; oc < out_c; oc += 2) {
        const int32_t nc = oc + 1 < out_c ? 2 : 1;
        const int8_t *w0 = p->weights + (size_t)oc * K, *w1 = w0 + (nc - 1) * K;
        const int32_t b0 = p->bias ? p->bias[oc] : 0, b1 = p->bias ? p->bias[oc + nc - 1] : 0;
        htc__dsp_pair pr;
        htc__dsp_pair_init(&pr, &d, oc, nc);
        htc__dsp_direct_run(in, K, 2 * K, 0, 1, K, w0, K, npix >> 1, b0 + (off ? off * htc__dsp_wsum(w0, K) : 0),
                            b1 + (off ? off * htc__dsp_wsum(w1, K) : 0), &pr, out + oc, out_c);
        if (npix & 1) {
            int32_t acc[2];
            acc[0] = b0;
            acc[1] = b1;
            htc__dsp_dot1x2(in + (size_t)(npix - 1) * K, w0, w1, K, off, acc);
            htc__dsp_out_block_n(&d, oc, nc, 1, acc[0], acc[1], 0, 0, out + (size_t)(npix - 1) * out_c + oc, out);
        }
    }
}

static HTC__NOINLINE HTC__COLD void htc__conv2d_dsp_direct(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    htc__dsp_out d;
    const int32_t in_h = p->in_h, in_w = p->in_w, in_c = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w, out_c = p->out_c;
    const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t K = k_h * k_w * in_c, rowb = k_w * in_c, row_stride = in_w * in_c;
    const int32_t off = -p->in_zp, xstep = p->stride_w * in_c;
    const int pairs = k_h <= HTC__DSP_KH;     /* else every pixel alone */
    int32_t rs0[HTC__DSP_KH], rs1[HTC__DSP_KH];
    int32_t oc, b, oy, ox, ky, kx;
    htc__dsp_out_init(&d, p);
    for (oc = 0; oc < out_c; oc += 2) {
        const int32_t nc = oc + 1 < out_c ? 2 : 1;
        const int8_t *w0 = p->weights + (size_t)oc * K, *w1 = w0 + (nc - 1) * K;
        const int32_t b0 = p->bias ? p->bias[oc] : 0, b1 = p->bias ? p->bias[oc + nc - 1] : 0;
        const int32_t *r0 = rs0, *r1 = rs1;
        htc__dsp_pair pr;
        htc__dsp_pair_init(&pr, &d, oc, nc);
        if (p->rsum) {      /* made at compile time (gen/emit.c emit_rsum) */
            r0 = p->rsum + oc * k_h;
            r1 = p->rsum + (oc + nc - 1) * k_h;
        } else {
            for (ky = 0; ky < k_h && pairs; ky++) {
                rs0[ky] = off ? off * htc__dsp_wsum(w0 + ky * rowb, rowb) : 0;
                rs1[ky] = off ? off * htc__dsp_wsum(w1 + ky * rowb, rowb) : 0;
            }
        }
        for (b = 0; b < p->batches; b++) {
            const int8_t *in_b = in + (size_t)b * in_h * row_stride;
            int8_t *out_b = out + (size_t)b * out_h * out_w * out_c;
            for (oy = 0; oy < out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                int32_t ky_lo, ky_hi, f0 = b0, f1 = b1;
                htc__conv_taps(iy0, dil_h, k_h, in_h, &ky_lo, &ky_hi);
                for (ky = ky_lo; ky < ky_hi && pairs; ky++) {
                    f0 += r0[ky];
                    f1 += r1[ky];
                }
                for (ox = 0; ox < out_w;) {
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    int8_t *o = out_b + ((size_t)oy * out_w + ox) * out_c + oc;
                    int32_t acc[4];
                    if (pairs && dil_w == 1 && ox + 1 < out_w && ix0 >= 0 && ix0 + p->stride_w + (k_w - 1) < in_w) {
                        /* the pairs of interior columns from here */
                        int32_t n = ((in_w - k_w - ix0) / p->stride_w + 1) >> 1;
                        n = n < (out_w - ox) >> 1 ? n : (out_w - ox) >> 1;
                        htc__dsp_direct_run(in_b + (size_t)(iy0 + ky_lo * dil_h) * row_stride + ix0 * in_c, xstep, 2 * xstep,
                                            dil_h * row_stride, ky_hi - ky_lo, rowb, w0 + ky_lo * rowb, K, n, f0, f1, &pr, o,
                                            out_c);
                        ox += 2 * n;
                        continue;
                    }
                    {
                        /* one pixel over its valid taps, offset added per tap */
                        int32_t kx_lo, kx_hi;
                        htc__conv_taps(ix0, dil_w, k_w, in_w, &kx_lo, &kx_hi);
                        acc[0] = b0;
                        acc[1] = b1;
                        for (ky = ky_lo; ky < ky_hi && kx_lo < kx_hi; ky++) {
                            const int8_t *x = in_b + (size_t)(iy0 + ky * dil_h) * row_stride + (ix0 + kx_lo * dil_w) * in_c;
                            const int8_t *u0 = w0 + ky * rowb + kx_lo * in_c, *u1 = w1 + ky * rowb + kx_lo * in_c;
                            if (dil_w == 1) {
                                htc__dsp_dot1x2(x, u0, u1, (kx_hi - kx_lo) * in_c, off, acc);
                            } else {
                                for (kx = kx_lo; kx < kx_hi; kx++, x += dil_w * in_c, u0 += in_c, u1 += in_c)
                                    htc__dsp_dot1x2(x, u0, u1, in_c, off, acc);
                            }
                        }
                        htc__dsp_out_block_n(&d, oc, nc, 1, acc[0], acc[1], 0, 0, o, o);
                        ox += 1;
                    }
                }
            }
        }
    }
}

/* The path is chosen from the layer's constant parameters: with the call
   inlined the compiler folds the choice, and a model links only the paths
   its layers use. */
static HTC__INLINE void htc__conv2d_dsp(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t K = p->k_h * p->k_w * p->in_c;
    /* path A when the two columns (and, for in_c % 4 != 0, one window as
       bytes behind them) fit a column buffer */
    const int32_t n4 = (K + 3) >> 2, need = (p->in_c & 3) ? 5 * n4 : 4 * n4;
#ifdef HTC__DSP_ASM
    if (((K & 7) == 0 || (K >= 24 && p->out_c * ((K + 7) & ~7) <= HTC__DSP_QW)) && ((p->in_c & 3) ? 9 : 8) * ((K + 7) >> 3) * 2 <= 4 * HTC__DSP_COLS &&
        htc__dsp_rq_okr(p->rq, p->mult, p->shift, p->per_channel ? p->out_c : 1, p->bias, p->out_c, K)) {
        htc__conv2d_dsp_q(p, in, out);
        return;
    }
#endif
    if (need <= HTC__DSP_COLS_S)
        htc__conv2d_dsp_cols_s(p, in, out);
    else if (need <= HTC__DSP_COLS)
        htc__conv2d_dsp_cols_l(p, in, out);
    else if (p->k_h == 1 && p->k_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 && p->pad_left == 0 &&
             p->out_h == p->in_h && p->out_w == p->in_w)
        htc__conv2d_dsp_flat(p, in, out);
    else
        htc__conv2d_dsp_direct(p, in, out);
}
#endif

#if (!defined(HTC__SSE2) && !defined(HTC__DSP)) || defined(HTC__XP)
/* ---- Portable path (RV32 and any core without SIMD) ----------------------
   Two output pixels x four output channels per block: per tap two input
   values and four weight bytes feed eight multiply-adds, the loads shared
   (a core without SIMD spends a multiply and an add per MAC). The input
   comes as on the DSP path: A  receptive fields up to HTC__PORT_COLS taps
   are copied per pixel pair into an int16 column buffer on the stack,
   x - in_zp with zeros for padding, taps interleaved by pixel; B  1x1,
   stride 1, no padding: read in place, the input offset folded into the
   start value bias + off * sum(w); C  otherwise channel blocks outermost,
   pixel pairs inside the input in x read in place (start value with the
   offset times the weights of the valid kernel rows), other pixels alone
   with the offset added per tap (htc__dot4_s8_c). */

#ifndef HTC__PORT_COLS
#define HTC__PORT_COLS 128   /* path A for receptive fields up to this many taps: 4 bytes of stack per tap */
#endif
#ifndef HTC__PORT_COLS_S
#define HTC__PORT_COLS_S 64  /* the smaller column buffer */
#endif

/* Requantize the block's accumulators acc[0..3] (pixel 0) and acc[4..7]
   (pixel 1) of channels oc.. (nb of them) and store them at o0 / o1. */
static HTC__UNUSED void htc__port_store(const htc__conv_params *p, int fast, int32_t oc, int32_t nb, int np,
                                        const int32_t *acc, int8_t *o0, int8_t *o1)
{
    const int32_t mstep = p->per_channel ? 1 : 0, zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t *mult = p->mult + oc * mstep;
    const int8_t *shift = p->shift + oc * mstep;
    int32_t k;
    if (fast) {
        for (k = 0; k < nb; k++, mult += mstep, shift += mstep) {
            const htc__prq q = htc__prq_make(*mult, *shift);
            int32_t v = htc__prq_apply(q, acc[k]) + zp;
            o0[k] = HTC__CAST(int8_t, v < lo ? lo : (v > hi ? hi : v));
            if (np > 1) {
                v = htc__prq_apply(q, acc[4 + k]) + zp;
                o1[k] = HTC__CAST(int8_t, v < lo ? lo : (v > hi ? hi : v));
            }
        }
        return;
    }
    for (k = 0; k < nb; k++, mult += mstep, shift += mstep) {
        o0[k] = HTC__CAST(int8_t, htc__requant(acc[k], *mult, *shift, zp, lo, hi));
        if (np > 1) o1[k] = HTC__CAST(int8_t, htc__requant(acc[4 + k], *mult, *shift, zp, lo, hi));
    }
}

/* htc__prq of output channels oc.. (the last one repeated when fewer than
   four remain), made once per block of channels by the paths that run
   every pixel of a block before the next (B, C) */
static inline void htc__port_prq4(const htc__conv_params *p, int32_t oc, htc__prq *q)
{
    const int32_t mstep = p->per_channel ? 1 : 0;
    int32_t k;
    for (k = 0; k < 4; k++) {
        const int32_t c = (oc + k < p->out_c ? oc + k : p->out_c - 1) * mstep;
        q[k] = htc__prq_make(p->mult[c], p->shift[c]);
    }
}

/* htc__port_store's fast form with the constants q of htc__port_prq4 */
static inline void htc__port_store_q(const htc__conv_params *p, const htc__prq *q, int32_t nb, int np, const int32_t *acc,
                                     int8_t *o0, int8_t *o1)
{
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    int32_t k;
    for (k = 0; k < nb; k++) {
        int32_t v = htc__prq_apply(q[k], acc[k]) + zp;
        o0[k] = HTC__CAST(int8_t, v < lo ? lo : (v > hi ? hi : v));
        if (np > 1) {
            v = htc__prq_apply(q[k], acc[4 + k]) + zp;
            o1[k] = HTC__CAST(int8_t, v < lo ? lo : (v > hi ? hi : v));
        }
    }
}

/* the block's outputs: fast, with q4 made by htc__port_prq4, else htc__port_store */
static inline void htc__port_store_f(const htc__conv_params *p, int fast, const htc__prq *q4, int32_t oc, int32_t nb, int np,
                                     const int32_t *acc, int8_t *o0, int8_t *o1)
{
    if (fast) htc__port_store_q(p, q4, nb, np, acc, o0, o1);
    else htc__port_store(p, 0, oc, nb, np, acc, o0, o1);
}

/* the four weight rows of output channels oc.. (the last one repeated when
   fewer than four remain), rows ws bytes apart */
static inline void htc__port_rows(const int8_t *w, int32_t ws, int32_t oc, int32_t out_c, const int8_t **r)
{
    int32_t j;
    for (j = 0; j < 4; j++) r[j] = w + (size_t)(oc + j < out_c ? oc + j : out_c - 1) * ws;
}

/* acc[0..3] += x0 . rows r[0..3]; acc[4..7] the same for x1; n bytes of int8
   input read in place (offset folded by the caller) */
static HTC__NOINLINE HTC__NOSCHED void htc__port_dot2x4(const int8_t *x0, const int8_t *x1, const int8_t *const *r, int32_t n, int32_t *acc)
{
    const int8_t *w = r[0], *w1 = r[1], *w2 = r[2], *w3 = r[3], *end = x0 + (n & ~3);
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], b0 = acc[4], b1 = acc[5], b2 = acc[6], b3 = acc[7];
    int32_t u, v, c;
#define HTC__P24(I)                                                     \
    u = x0[I]; v = x1[I];                                               \
    c = w[I]; a0 += u * c; b0 += v * c;                                 \
    c = w1[I]; a1 += u * c; b1 += v * c;                                \
    c = w2[I]; a2 += u * c; b2 += v * c;                                \
    c = w3[I]; a3 += u * c; b3 += v * c;
    while (x0 != end) {
        HTC__P24(0) HTC__P24(1) HTC__P24(2) HTC__P24(3)
        x0 += 4; x1 += 4; w += 4; w1 += 4; w2 += 4; w3 += 4;
    }
    for (n &= 3; n > 0; n--) {
        HTC__P24(0)
        x0++; x1++; w++; w1++; w2++; w3++;
    }
#undef HTC__P24
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3; acc[4] = b0; acc[5] = b1; acc[6] = b2; acc[7] = b3;
}

/* the same over an int16 column buffer xb: tap k of pixel j at xb[2k + j] */
static HTC__NOINLINE HTC__NOSCHED void htc__port_col2x4(const int16_t *xb, const int8_t *const *r, int32_t n, int32_t *acc)
{
    const int8_t *w = r[0], *w1 = r[1], *w2 = r[2], *w3 = r[3];
    const int16_t *end = xb + 2 * (n & ~3);
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], b0 = acc[4], b1 = acc[5], b2 = acc[6], b3 = acc[7];
    int32_t u, v, c;
#define HTC__P24(I)                                                     \
    u = xb[2 * (I)]; v = xb[2 * (I) + 1];                               \
    c = w[I]; a0 += u * c; b0 += v * c;                                 \
    c = w1[I]; a1 += u * c; b1 += v * c;                                \
    c = w2[I]; a2 += u * c; b2 += v * c;                                \
    c = w3[I]; a3 += u * c; b3 += v * c;
    while (xb != end) {
        HTC__P24(0) HTC__P24(1) HTC__P24(2) HTC__P24(3)
        xb += 8; w += 4; w1 += 4; w2 += 4; w3 += 4;
    }
    for (n &= 3; n > 0; n--) {
        HTC__P24(0)
        xb += 2; w++; w1++; w2++; w3++;
    }
#undef HTC__P24
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3; acc[4] = b0; acc[5] = b1; acc[6] = b2; acc[7] = b3;
}

/* Path A: the window of the pixel at input (iy0, ix0) into column slot j */
static HTC__UNUSED void htc__port_im2col(const htc__conv_params *p, const int8_t *in_b, int32_t iy0, int32_t ix0,
                                         int16_t *xb, int j)
{
    const int32_t in_c = p->in_c, off = -p->in_zp;
    int16_t *d = xb + j;
    int32_t ky, kx, c;
    for (ky = 0; ky < p->k_h; ky++) {
        const int32_t iy = iy0 + ky * p->dil_h;
        for (kx = 0; kx < p->k_w; kx++) {
            const int32_t ix = ix0 + kx * p->dil_w;
            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
                for (c = 0; c < in_c; c++, d += 2) d[0] = 0;
            } else {
                const int8_t *s = in_b + ((size_t)iy * p->in_w + ix) * in_c;
                for (c = 0; c < in_c; c++, d += 2) d[0] = HTC__CAST(int16_t, s[c] + off);
            }
        }
    }
}

#ifndef HTC__PORT_RQ
#ifdef HTC__XP
#define HTC__PORT_RQ 0       /* the cluster cores' small stacks: made per block */
#else
#define HTC__PORT_RQ 64      /* path A makes the htc__prq of up to this many channels once per call (12 bytes of stack each) */
#endif
#endif

static HTC__NOINLINE void htc__conv2d_port_cols(const htc__conv_params *p, const int8_t *in, int8_t *out, int fast, int16_t *xb)
{
    const int32_t out_w = p->out_w, out_c = p->out_c, npix = p->out_h * out_w;
    const int32_t K = p->k_h * p->k_w * p->in_c, mstep = p->per_channel ? 1 : 0;
    const int recs = fast && out_c <= HTC__PORT_RQ;
    htc__prq rq[HTC__PORT_RQ + 3];
    int32_t b, q, oc;
    /* path A runs every channel of a pixel pair before the next pair: the
       constants of every channel made once per call (the last one repeated
       up to a multiple of four) */
    for (oc = 0; recs && oc < ((out_c + 3) & ~3); oc++) {
        const int32_t c = (oc < out_c ? oc : out_c - 1) * mstep;
        rq[oc] = htc__prq_make(p->mult[c], p->shift[c]);
    }
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * p->in_w * p->in_c;
        int8_t *out_b = out + (size_t)b * npix * out_c;
        for (q = 0; q < npix; q += 2) {
            const int np = q + 1 < npix ? 2 : 1;
            const int32_t q1 = q + np - 1;
            const int32_t oy0 = q / out_w, ox0 = q - oy0 * out_w, oy1 = q1 / out_w, ox1 = q1 - oy1 * out_w;
            htc__port_im2col(p, in_b, oy0 * p->stride_h - p->pad_top, ox0 * p->stride_w - p->pad_left, xb, 0);
            htc__port_im2col(p, in_b, oy1 * p->stride_h - p->pad_top, ox1 * p->stride_w - p->pad_left, xb, 1);
            for (oc = 0; oc < out_c; oc += 4) {
                const int32_t nb = out_c - oc < 4 ? out_c - oc : 4;
                const int8_t *r[4];
                int32_t acc[8], k;
                htc__port_rows(p->weights, K, oc, out_c, r);
                for (k = 0; k < 4; k++) acc[k] = acc[4 + k] = p->bias ? p->bias[oc + k < out_c ? oc + k : out_c - 1] : 0;
                htc__port_col2x4(xb, r, K, acc);
                if (recs) htc__port_store_q(p, rq + oc, nb, np, acc, out_b + (size_t)q * out_c + oc, out_b + (size_t)q1 * out_c + oc);
                else htc__port_store(p, fast, oc, nb, np, acc, out_b + (size_t)q * out_c + oc, out_b + (size_t)q1 * out_c + oc);
            }
        }
    }
}

/* the column buffer in two sizes, so that small layers use the small one */
static HTC__NOINLINE void htc__conv2d_port_cols_s(const htc__conv_params *p, const int8_t *in, int8_t *out, int fast)
{
    int16_t xb[2 * HTC__PORT_COLS_S];
    htc__conv2d_port_cols(p, in, out, fast, xb);
}

static HTC__NOINLINE void htc__conv2d_port_cols_l(const htc__conv_params *p, const int8_t *in, int8_t *out, int fast)
{
    int16_t xb[2 * HTC__PORT_COLS];
    htc__conv2d_port_cols(p, in, out, fast, xb);
}

/* acc[0..3] += (x + off) . rows r[0..3] over n bytes (one pixel) */
static HTC__NOINLINE HTC__NOSCHED void htc__port_dot1x4(const int8_t *x, const int8_t *const *r, int32_t n, int32_t off, int32_t *acc)
{
    const int8_t *w = r[0], *w1 = r[1], *w2 = r[2], *w3 = r[3], *end = x + n;
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    while (x != end) {
        const int32_t u = *x++ + off;
        a0 += u * *w++;
        a1 += u * *w1++;
        a2 += u * *w2++;
        a3 += u * *w3++;
    }
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;
}

/* row pointers r moved by d bytes */
static inline void htc__port_rows_at(const int8_t *const *r, int32_t d, const int8_t **t)
{
    t[0] = r[0] + d; t[1] = r[1] + d; t[2] = r[2] + d; t[3] = r[3] + d;
}

static HTC__UNUSED int32_t htc__port_wsum(const int8_t *w, int32_t n)
{
    int32_t s = 0;
    for (; n > 0; n--) s += *w++;
    return s;
}

/* Path B: 1x1, stride 1, no padding */
static HTC__NOINLINE void htc__conv2d_port_1x1(const htc__conv_params *p, const int8_t *in, int8_t *out, int fast)
{
    const int32_t out_c = p->out_c, K = p->in_c, npix = p->batches * p->out_h * p->out_w, off = -p->in_zp;
    int32_t oc, q, k;
    for (oc = 0; oc < out_c; oc += 4) {
        const int32_t nb = out_c - oc < 4 ? out_c - oc : 4;
        const int8_t *r[4];
        htc__prq q4[4];
        int32_t s0[4];
        htc__port_rows(p->weights, K, oc, out_c, r);
        if (fast) htc__port_prq4(p, oc, q4);
        for (k = 0; k < 4; k++)
            s0[k] = (p->bias ? p->bias[oc + k < out_c ? oc + k : out_c - 1] : 0) + (off ? off * htc__port_wsum(r[k], K) : 0);
        for (q = 0; q < npix; q += 2) {
            const int np = q + 1 < npix ? 2 : 1;
            const int8_t *x0 = in + (size_t)q * K;
            int32_t acc[8];
            for (k = 0; k < 4; k++) acc[k] = acc[4 + k] = s0[k];
            htc__port_dot2x4(x0, x0 + (np - 1) * K, r, K, acc);
            htc__port_store_f(p, fast, q4, oc, nb, np, acc, out + (size_t)q * out_c + oc, out + (size_t)(q + np - 1) * out_c + oc);
        }
    }
}

#ifndef HTC__PORT_KH
#define HTC__PORT_KH 16     /* path C keeps per-kernel-row weight sums for up to this many rows */
#endif

/* Path C: general convolution, input read in place */
static HTC__NOINLINE void htc__conv2d_port_direct(const htc__conv_params *p, const int8_t *in, int8_t *out, int fast)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, in_c = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w, out_c = p->out_c;
    const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t K = k_h * k_w * in_c, rowb = k_w * in_c, row_stride = in_w * in_c;
    const int32_t off = -p->in_zp, xstep = p->stride_w * in_c;
    const int pairs = k_h <= HTC__PORT_KH;
    int32_t rs[4][HTC__PORT_KH];
    int32_t oc, b, oy, ox, ky, kx, k;
    for (oc = 0; oc < out_c; oc += 4) {
        const int32_t nb = out_c - oc < 4 ? out_c - oc : 4;
        const int8_t *r[4], *t[4];
        const int32_t *rk[4];
        htc__prq q4[4];
        int32_t b0[4];
        htc__port_rows(p->weights, K, oc, out_c, r);
        if (fast) htc__port_prq4(p, oc, q4);
        for (k = 0; k < 4; k++) {
            const int32_t c = oc + k < out_c ? oc + k : out_c - 1;
            b0[k] = p->bias ? p->bias[c] : 0;
            if (p->rsum) {  /* made at compile time (gen/emit.c emit_rsum) */
                rk[k] = p->rsum + c * k_h;
                continue;
            }
            rk[k] = rs[k];
            for (ky = 0; ky < k_h && pairs; ky++) rs[k][ky] = off * htc__port_wsum(r[k] + ky * rowb, rowb);
        }
        for (b = 0; b < p->batches; b++) {
            const int8_t *in_b = in + (size_t)b * in_h * row_stride;
            int8_t *out_b = out + (size_t)b * out_h * out_w * out_c;
            for (oy = 0; oy < out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                int32_t ky_lo, ky_hi, f[4];
                htc__conv_taps(iy0, dil_h, k_h, in_h, &ky_lo, &ky_hi);
                for (k = 0; k < 4; k++) {
                    f[k] = b0[k];
                    for (ky = ky_lo; ky < ky_hi && pairs; ky++) f[k] += rk[k][ky];
                }
                for (ox = 0; ox < out_w;) {
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    int8_t *o = out_b + ((size_t)oy * out_w + ox) * out_c + oc;
                    int32_t acc[8];
                    if (pairs && ox + 1 < out_w && ix0 >= 0 && ix0 + p->stride_w + (k_w - 1) * dil_w < in_w) {
                        for (k = 0; k < 4; k++) acc[k] = acc[4 + k] = f[k];
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *x = in_b + (size_t)(iy0 + ky * dil_h) * row_stride + ix0 * in_c;
                            if (dil_w == 1) {
                                htc__port_rows_at(r, ky * rowb, t);
                                htc__port_dot2x4(x, x + xstep, t, rowb, acc);
                            } else {
                                for (kx = 0; kx < k_w; kx++) {
                                    htc__port_rows_at(r, ky * rowb + kx * in_c, t);
                                    htc__port_dot2x4(x + kx * dil_w * in_c, x + kx * dil_w * in_c + xstep, t, in_c, acc);
                                }
                            }
                        }
                        htc__port_store_f(p, fast, q4, oc, nb, 2, acc, o, o + out_c);
                        ox += 2;
                    } else {
                        int32_t kx_lo, kx_hi;
                        htc__conv_taps(ix0, dil_w, k_w, in_w, &kx_lo, &kx_hi);
                        for (k = 0; k < 4; k++) acc[k] = b0[k];
                        for (ky = ky_lo; ky < ky_hi && kx_lo < kx_hi; ky++) {
                            const int8_t *x = in_b + (size_t)(iy0 + ky * dil_h) * row_stride + (ix0 + kx_lo * dil_w) * in_c;
                            if (dil_w == 1) {
                                htc__port_rows_at(r, ky * rowb + kx_lo * in_c, t);
                                htc__port_dot1x4(x, t, (kx_hi - kx_lo) * in_c, off, acc);
                            } else {
                                for (kx = kx_lo; kx < kx_hi; kx++, x += dil_w * in_c) {
                                    htc__port_rows_at(r, ky * rowb + kx * in_c, t);
                                    htc__port_dot1x4(x, t, in_c, off, acc);
                                }
                            }
                        }
                        htc__port_store_f(p, fast, q4, oc, nb, 1, acc, o, o);
                        ox += 1;
                    }
                }
            }
        }
    }
}

static HTC__INLINE void htc__conv2d_port(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t K = p->k_h * p->k_w * p->in_c;
    const int fast = htc__prq_okr(p->rq, p->mult, p->shift, p->per_channel ? p->out_c : 1, p->bias, p->out_c, K);
    if (K <= HTC__PORT_COLS_S)
        htc__conv2d_port_cols_s(p, in, out, fast);
    else if (K <= HTC__PORT_COLS)
        htc__conv2d_port_cols_l(p, in, out, fast);
    else if (p->k_h == 1 && p->k_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 && p->pad_left == 0 &&
             p->out_h == p->in_h && p->out_w == p->in_w)
        htc__conv2d_port_1x1(p, in, out, fast);
    else
        htc__conv2d_port_direct(p, in, out, fast);
}
#endif

#ifdef HTC__MVE
/* ---- Helium (MVE) path -----------------------------------------------------
   Blocks of four output pixels x two output channels: per 16 bytes of the
   receptive field (K = k_h * k_w * in_c bytes) two weight loads, four input
   loads and eight VMLADAVA (16 multiply-accumulates each, into a scalar);
   the last step is predicated (VCTP) on the weights when K % 16 != 0, so
   no load runs past a weight row. The four pixels' windows are packed once
   per block into a stack buffer, interleaved per 16 bytes (pixel i's bytes
   k..k+15 at (k / 16) * 64 + 16 i, zero past K), so one pointer with small
   offsets reads them; 1x1 stride-1 unpadded layers pack their input rows,
   the others their windows (im2col, padding = in_zp). The input offset
   enters once per channel: a padding tap holds in_zp (x - in_zp = 0
   there), so sum (x - in_zp) w = sum x w - in_zp * sum w over the whole
   window, and the second term goes into the bias (cb, per block of
   HTC__MVE_OC channels on the stack). The four accumulators of a channel
   are requantized as one vector (htc__mve_rq1) and stored by one scatter
   store (byte offsets 0, out_c, 2 out_c, 3 out_c; a last block of fewer
   pixels repeats its last pixel, written twice with the same value). */
#ifndef HTC__MVE_OC
#define HTC__MVE_OC 64          /* channels per table chunk (16 bytes of stack each) */
#endif

#ifndef HTC__MVE_COLS
#define HTC__MVE_COLS 576       /* windows of K up to this (5 K bytes of stack) */
#endif
#ifndef HTC__MVE_COLS_S
#define HTC__MVE_COLS_S 64      /* the smaller buffers, for K up to this */
#endif

/* Two output channels (weight rows u0, u1) over the four packed pixels:
   the eight accumulators, pixel i's pair (a_i for u0, b_i for u1) moved
   into lanes LA (a_i) and LB (b_i) of v_i, the other lanes kept. In asm
   (HTC__MVE implies GNU C): gcc 12 does not keep eight VMLADAVA
   accumulators (even registers, "Te") and the pointers in registers. The
   last step (pt != 0: K % 16 bytes; pt read from memory, a register too
   many) loads the weights predicated; the
   packed inputs are zero there. The asm reads only the weights (constant)
   and xb, written before the caller ran, so it needs no "memory" clobber
   (which would make gcc reload every parameter). */
#define HTC__MVE_LOOP                                                                                             \
    "1:\n\t"                                                                                                 \
    "vldrb.u8 q0, [%[u0]], #16\n\t"                                                                          \
    "vldrb.u8 q1, [%[u1]], #16\n\t"                                                                          \
    "vldrb.u8 q2, [%[x]], #64\n\t"                                                                           \
    "vmladava.s8 %[a0], q2, q0\n\t"                                                                          \
    "vmladava.s8 %[b0], q2, q1\n\t"                                                                          \
    "vldrb.u8 q3, [%[x], #-48]\n\t"                                                                          \
    "vmladava.s8 %[a1], q3, q0\n\t"                                                                          \
    "vmladava.s8 %[b1], q3, q1\n\t"                                                                          \
    "vldrb.u8 q2, [%[x], #-32]\n\t"                                                                          \
    "vmladava.s8 %[a2], q2, q0\n\t"                                                                          \
    "vmladava.s8 %[b2], q2, q1\n\t"                                                                          \
    "vldrb.u8 q3, [%[x], #-16]\n\t"                                                                          \
    "vmladava.s8 %[a3], q3, q0\n\t"                                                                          \
    "vmladava.s8 %[b3], q3, q1\n\t"                                                                          \
    "subs %[n], %[n], #1\n\t"                                                                                \
    "bne 1b"
#define HTC__MVE_TAIL                                                                                             \
    "vmsr p0, %[pt]\n\t"                                                                                     \
    "vpstt\n\t"                                                                                              \
    "vldrbt.u8 q0, [%[u0]]\n\t"                                                                              \
    "vldrbt.u8 q1, [%[u1]]\n\t"                                                                              \
    "vldrb.u8 q2, [%[x]]\n\t"                                                                                \
    "vmladava.s8 %[a0], q2, q0\n\t"                                                                          \
    "vmladava.s8 %[b0], q2, q1\n\t"                                                                          \
    "vldrb.u8 q3, [%[x], #16]\n\t"                                                                           \
    "vmladava.s8 %[a1], q3, q0\n\t"                                                                          \
    "vmladava.s8 %[b1], q3, q1\n\t"                                                                          \
    "vldrb.u8 q2, [%[x], #32]\n\t"                                                                           \
    "vmladava.s8 %[a2], q2, q0\n\t"                                                                          \
    "vmladava.s8 %[b2], q2, q1\n\t"                                                                          \
    "vldrb.u8 q3, [%[x], #48]\n\t"                                                                           \
    "vmladava.s8 %[a3], q3, q0\n\t"                                                                          \
    "vmladava.s8 %[b3], q3, q1"
#define HTC__MVE_ACC                                                                                              \
    [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [b0] "+Te"(b0), [b1] "+Te"(b1), [b2] "+Te"(b2), \
        [b3] "+Te"(b3)
#define HTC__MVE_CLOB "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7"

/* Two output channels (weight rows u0, u1) over the four packed pixels,
   nf steps of 16 bytes and, when pt != 0 (K % 16 bytes left), one step
   with the weights loaded predicated (the packed inputs are zero there):
   the eight accumulators a_i (u0), b_i (u1) of pixel i. In asm (HTC__MVE
   implies GNU C): gcc 12 does not keep eight VMLADAVA accumulators (even
   registers, "Te") and the pointers in registers. The asm reads only the
   weights (constant) and xb, written before the caller ran, so it needs no
   "memory" clobber (which would make gcc reload every parameter). */
#if defined(__OPTIMIZE__)
#define HTC__MVE_DOT4X2(U0, U1, CA, CB)                                                                           \
    do {                                                                                                          \
        const int8_t *u0 = (U0), *u1 = (U1), *x = xb;                                                             \
        int32_t n = nf;                                                                                           \
        a0 = a1 = a2 = a3 = (CA);                                                                                 \
        b0 = b1 = b2 = b3 = (CB);                                                                                 \
        if (n > 0)                                                                                                \
            __asm__(HTC__MVE_LOOP : HTC__MVE_ACC, [u0] "+r"(u0), [u1] "+r"(u1), [x] "+r"(x), [n] "+r"(n)          \
                    : : HTC__MVE_CLOB, "cc");                                                                     \
        if (pt)                                                                                                   \
            __asm__(HTC__MVE_TAIL : HTC__MVE_ACC : [u0] "r"(u0), [u1] "r"(u1), [x] "r"(x), [pt] "r"(pt)           \
                    : HTC__MVE_CLOB);                                                                             \
    } while (0)
#else
/* -O0 keeps a frame pointer: too few registers for the asm */
#define HTC__MVE_DOT4X2(U0, U1, CA, CB)                                                                           \
    do {                                                                                                          \
        const int8_t *u0 = (U0), *u1 = (U1);                                                                      \
        int32_t k;                                                                                                \
        (void)nf;                                                                                                 \
        (void)pt;                                                                                                 \
        a0 = a1 = a2 = a3 = (CA);                                                                                 \
        b0 = b1 = b2 = b3 = (CB);                                                                                 \
        for (k = 0; k < K; k += 16) {                                                                             \
            const mve_pred16_t pk = vctp8q(HTC__CAST(uint32_t, K - k));                                           \
            const int8x16_t w0 = vldrbq_z_s8(u0 + k, pk), w1 = vldrbq_z_s8(u1 + k, pk);                          \
            const int8_t *x = xb + 4 * k;                                                                         \
            a0 = vmladavaq_s8(a0, vldrbq_s8(x), w0);                                                              \
            b0 = vmladavaq_s8(b0, vldrbq_s8(x), w1);                                                              \
            a1 = vmladavaq_s8(a1, vldrbq_s8(x + 16), w0);                                                         \
            b1 = vmladavaq_s8(b1, vldrbq_s8(x + 16), w1);                                                         \
            a2 = vmladavaq_s8(a2, vldrbq_s8(x + 32), w0);                                                         \
            b2 = vmladavaq_s8(b2, vldrbq_s8(x + 32), w1);                                                         \
            a3 = vmladavaq_s8(a3, vldrbq_s8(x + 48), w0);                                                         \
            b3 = vmladavaq_s8(b3, vldrbq_s8(x + 48), w1);                                                         \
        }                                                                                                         \
    } while (0)
#endif

/* output channels [oc, oc + noc) of the four pixels packed in xb (K bytes
   each, interleaved), to out (pixel i at out + i * out_c, the np first);
   tb: per block of four channels its table of 16 words (htc__conv2d_mve) */
static HTC__NOINLINE void htc__mve_conv_px4(const htc__conv_params *p, const int8_t *xb, int32_t K, const int32_t *tb, int32_t oc,
                                            int32_t noc, int32_t np, int8_t *out)
{
    const int32_t nf = K >> 4, out_c = p->out_c, zp = p->out_zp;
    const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
    const uint32_t pt = K & 15 ? HTC__CAST(uint32_t, vctp8q(HTC__CAST(uint32_t, K & 15))) : 0u;
    const uint32_t pm[4] = {0, 2, 1, 3};
    const uint32x4_t perm = vldrwq_u32(pm);
    int32_t c;
    out += oc;
    for (c = 0; c < noc; c += 4, tb += 16) {
        /* the lanes are channels c, c + 2, c + 1, c + 3 (clamped to the last) */
        const int32_t last = noc - 1 - c;
        const int8_t *w = p->weights + (size_t)(oc + c) * K;
        const uint32x4_t so = vminq_u32(perm, vdupq_n_u32(HTC__CAST(uint32_t, last < 3 ? last : 3)));
        int32_t a0, a1, a2, a3, b0, b1, b2, b3;
        int32x4_t v0, v1, v2, v3, m, l, r;
        HTC__MVE_DOT4X2(w, w + (last >= 1 ? K : 0), tb[0], tb[2]);
        /* lanes 0 and 2: channels c and c + 1 */
        v0 = vsetq_lane_s32(b0, vdupq_n_s32(a0), 2);
        v1 = vsetq_lane_s32(b1, vdupq_n_s32(a1), 2);
        v2 = vsetq_lane_s32(b2, vdupq_n_s32(a2), 2);
        v3 = vsetq_lane_s32(b3, vdupq_n_s32(a3), 2);
        HTC__MVE_DOT4X2(w + (size_t)(last >= 2 ? 2 : last) * K, w + (size_t)(last >= 3 ? 3 : last) * K, tb[1], tb[3]);
        /* lanes 1 and 3: channels c + 2 and c + 3 */
        v0 = vsetq_lane_s32(b0, vsetq_lane_s32(a0, v0, 1), 3);
        v1 = vsetq_lane_s32(b1, vsetq_lane_s32(a1, v1, 1), 3);
        v2 = vsetq_lane_s32(b2, vsetq_lane_s32(a2, v2, 1), 3);
        v3 = vsetq_lane_s32(b3, vsetq_lane_s32(a3, v3, 1), 3);
        m = vldrwq_s32(tb + 4);
        l = vldrwq_s32(tb + 8);
        r = vldrwq_s32(tb + 12);
#define HTC__MVE_PUT(V, I)                                                                                        \
        vstrbq_scatter_offset_s32(out + (size_t)(I) * out_c + c, so,                                                \
                                  vminq_s32(vmaxq_s32(vaddq_n_s32(htc__mve_rq(V, m, l, r), zp), lo), hi))
        HTC__MVE_PUT(v0, 0);
        if (np > 1) HTC__MVE_PUT(v1, 1);
        if (np > 2) HTC__MVE_PUT(v2, 2);
        if (np > 3) HTC__MVE_PUT(v3, 3);
#undef HTC__MVE_PUT
    }
}
#undef HTC__MVE_DOT4X2
#undef HTC__MVE_LOOP
#undef HTC__MVE_TAIL
#undef HTC__MVE_ACC
#undef HTC__MVE_CLOB

/* pixel i's K bytes from s into the interleaved buffer, zero up to K16 */
static HTC__UNUSED void htc__mve_pack(int8_t *xb, int32_t i, const int8_t *s, int32_t K)
{
    int8_t *d = xb + 16 * i;
    for (; K > 0; K -= 16, s += 16, d += 64) vstrbq_s8(d, vldrbq_z_s8(s, vctp8q(HTC__CAST(uint32_t, K))));
}

/* the window of output pixel (iy0, ix0) as K bytes, padding = in_zp */
static HTC__UNUSED void htc__mve_im2col(const htc__conv_params *p, const int8_t *in_b, int32_t iy0, int32_t ix0, int8_t *dst)
{
    const int32_t in_c = p->in_c, rowb = p->k_w * in_c, row_stride = p->in_w * in_c;
    const int8_t zp = HTC__CAST(int8_t, p->in_zp);
    int32_t ky, kx, ky_lo, ky_hi, kx_lo, kx_hi;
    htc__conv_taps(iy0, p->dil_h, p->k_h, p->in_h, &ky_lo, &ky_hi);
    htc__conv_taps(ix0, p->dil_w, p->k_w, p->in_w, &kx_lo, &kx_hi);
    if (p->dil_w == 1 && rowb <= 16) {
        /* each kernel row: in_zp over the row, then its valid taps */
        const int8x16_t z = vdupq_n_s8(zp);
        const mve_pred16_t pr = vctp8q(HTC__CAST(uint32_t, rowb));
        const mve_pred16_t pv = vctp8q(HTC__CAST(uint32_t, kx_hi > kx_lo ? (kx_hi - kx_lo) * in_c : 0));
        for (ky = 0; ky < p->k_h; ky++, dst += rowb) {
            vstrbq_p_s8(dst, z, pr);
            if (ky >= ky_lo && ky < ky_hi) {
                const int8_t *x = in_b + (size_t)(iy0 + ky * p->dil_h) * row_stride + (ix0 + kx_lo) * in_c;
                vstrbq_p_s8(dst + kx_lo * in_c, vldrbq_z_s8(x, pv), pv);
            }
        }
        return;
    }
    for (ky = 0; ky < p->k_h; ky++, dst += rowb) {
        const int8_t *x = in_b + (size_t)(iy0 + ky * p->dil_h) * row_stride;
        if (ky < ky_lo || ky >= ky_hi || kx_lo >= kx_hi) {
            htc__mve_fill(dst, zp, rowb);
        } else if (p->dil_w == 1) {
            htc__mve_fill(dst, zp, kx_lo * in_c);
            htc__mve_copy(dst + kx_lo * in_c, x + (ix0 + kx_lo) * in_c, (kx_hi - kx_lo) * in_c);
            htc__mve_fill(dst + kx_hi * in_c, zp, (p->k_w - kx_hi) * in_c);
        } else {
            for (kx = 0; kx < p->k_w; kx++) {
                if (kx < kx_lo || kx >= kx_hi) htc__mve_fill(dst + kx * in_c, zp, in_c);
                else htc__mve_copy(dst + kx * in_c, x + (ix0 + kx * p->dil_w) * in_c, in_c);
            }
        }
    }
}

/* 1 if the MVE path takes the layer */
static HTC__UNUSED int htc__conv2d_mve_ok(const htc__conv_params *p)
{
    return p->w_zp == 0 && p->k_h * p->k_w * p->in_c <= HTC__MVE_COLS;
}

static HTC__INLINE void htc__conv2d_mve_buf(const htc__conv_params *p, const int8_t *in, int8_t *out, int8_t *xb, int8_t *col)
{
    const int32_t K = p->k_h * p->k_w * p->in_c, out_c = p->out_c, off = -p->in_zp;
    const int32_t npix = p->out_h * p->out_w, out_w = p->out_w;
    const int flat = p->k_h == 1 && p->k_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 &&
                     p->pad_left == 0 && p->out_h == p->in_h && p->out_w == p->in_w;
    const int32_t rowb = p->k_w * p->in_c, mstep = p->per_channel ? 1 : 0;
    const int rows16 = p->dil_w == 1 && (rowb & 15) == 0;
    const mve_pred16_t prow = vctp8q(HTC__CAST(uint32_t, rowb < 16 ? rowb : 16));
    int32_t tb[4 * HTC__MVE_OC];
    int32_t oc, b, px, c, i;
    for (oc = 0; oc < out_c; oc += HTC__MVE_OC) {
        const int32_t noc = out_c - oc < HTC__MVE_OC ? out_c - oc : HTC__MVE_OC;
        /* per block of four channels: bias + off * sum of the weights, the
           multipliers, left shifts, -right shifts, in the lane order of
           htc__mve_conv_px4 (channels c, c + 2, c + 1, c + 3, clamped) */
        for (c = 0; c < noc; c += 4)
            for (i = 0; i < 4; i++) {
                const int32_t j = c + (i == 1 ? 2 : (i == 2 ? 1 : i)), ch = oc + (j < noc ? j : noc - 1);
                const int32_t sh = p->shift[ch * mstep];
                tb[4 * c + i] = (p->bias ? p->bias[ch] : 0) + (off ? off * htc__mve_sum8(p->weights + (size_t)ch * K, K) : 0);
                tb[4 * c + 4 + i] = p->mult[ch * mstep];
                tb[4 * c + 8 + i] = sh > 0 ? sh : 0;
                tb[4 * c + 12 + i] = sh > 0 ? 0 : sh;
            }
        for (b = 0; b < p->batches; b++) {
            const int8_t *in_b = in + (size_t)b * p->in_h * p->in_w * p->in_c;
            int8_t *out_b = out + (size_t)b * npix * out_c;
            for (px = 0; px < npix; px += 4) {
                const int32_t np = npix - px < 4 ? npix - px : 4;
                for (i = 0; i < 4; i++) {
                    const int32_t q = px + (i < np ? i : np - 1);
                    if (flat) {
                        htc__mve_pack(xb, i, in_b + (size_t)q * K, K);
                    } else {
                        const int32_t oy = q / out_w, ox = q - oy * out_w;
                        const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
                        if (p->dil_w == 1 && iy0 >= 0 && iy0 + (p->k_h - 1) * p->dil_h < p->in_h && ix0 >= 0 &&
                            ix0 + p->k_w <= p->in_w) {
                            /* a window inside the input: its kernel rows are runs of rowb bytes, packed in
                               place when rowb is a multiple of 16, else copied in a row and packed */
                            const int8_t *x = in_b + ((size_t)iy0 * p->in_w + ix0) * p->in_c;
                            const size_t rs = (size_t)p->dil_h * p->in_w * p->in_c;
                            int32_t ky, j;
                            if (rows16) {
                                int8_t *d = xb + 16 * i;
                                for (ky = 0; ky < p->k_h; ky++, x += rs)
                                    for (j = 0; j < rowb; j += 16, d += 64) vstrbq_s8(d, vldrbq_s8(x + j));
                            } else if (rowb <= 16) {
                                for (ky = 0; ky < p->k_h; ky++, x += rs) vstrbq_p_s8(col + ky * rowb, vldrbq_z_s8(x, prow), prow);
                                htc__mve_pack(xb, i, col, K);
                            } else {
                                for (ky = 0; ky < p->k_h; ky++, x += rs) htc__mve_copy(col + ky * rowb, x, rowb);
                                htc__mve_pack(xb, i, col, K);
                            }
                        } else {
                            htc__mve_im2col(p, in_b, iy0, ix0, col);
                            htc__mve_pack(xb, i, col, K);
                        }
                    }
                }
                htc__mve_conv_px4(p, xb, K, tb, oc, noc, np, out_b + (size_t)px * out_c);
            }
        }
    }
}

/* the packing buffers on the stack, two sizes (the dispatcher is inlined
   with the layer's constant parameters, so a model links the sizes its
   layers use): small layers keep a small stack */
static HTC__NOINLINE void htc__conv2d_mve_s(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    int8_t xb[4 * (HTC__MVE_COLS_S + 16)], col[HTC__MVE_COLS_S];
    htc__conv2d_mve_buf(p, in, out, xb, col);
}

static HTC__NOINLINE void htc__conv2d_mve_l(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    int8_t xb[4 * (HTC__MVE_COLS + 16)], col[HTC__MVE_COLS];
    htc__conv2d_mve_buf(p, in, out, xb, col);
}
#endif

/* QuantLib's RequantShift constants of a layer on the XpulpV2 paths
   (htc__xql_make; the type outside HTC__XP for the parallel entry points) */
typedef struct {
    const int32_t *mul, *add;               /* [out_c] when per_channel, else [1] */
    int32_t shift;
    const int8_t *rne;                      /* onnxruntime's exact shifts instead (kind 2) */
} htc__xql;

#ifdef HTC__XP
/* ---- XpulpV2 path (HTC__XP, htc.h) ---------------------------------------
   The input offset folded into the start value, bias - in_zp * sum(w), so
   the dot products run on the stored bytes four at a time (pv.sdotsp.b),
   two pixels by four output channels per step (htc__xp_dot2x4, the layer
   computed pixel pair by pixel pair, every channel block of a pair before
   the next pair). Pointwise layers (1x1, stride 1, no padding) read the
   input in place; the others copy each pixel's receptive field into a
   column buffer on the stack, kernel row by kernel row, with in_zp in the
   padding (which the folded offset cancels); when K is not a multiple of
   4 (a first layer: 3x3x3) and the rows fit the column buffer beside the
   two pixels, the weight rows are copied there K4 apart with zeros after
   each (whole aligned words, no byte tail). The start values (the weight
   sums four rows per loop, htc__xp_sum4) and the requantizations
   (htc__xrq) of up to HTC__XP_OC channels are computed once per call
   (channel chunks beyond that); each full block of four channels keeps
   its accumulators in registers from the dot products to the stores
   (htc__xp_blk2x4). Receptive fields above HTC__XP_COLS bytes take the
   portable path. When a channel's arithmetic is beyond htc__xrq
   (htc__xrq_ok), the store is the portable path's. */
#ifndef HTC__XP_COLS
#define HTC__XP_COLS 576    /* column buffer: 2 x this many bytes of stack */
#endif
#ifndef HTC__XP_OC
#define HTC__XP_OC 64       /* start values and requantizations: 16 x this many bytes of stack */
#endif

/* the receptive field of the pixel at input (iy0, ix0), in_zp outside */
static HTC__UNUSED void htc__xp_im2col(const htc__conv_params *p, const int8_t *in_b, int32_t iy0, int32_t ix0, int8_t *d)
{
    const int32_t in_c = p->in_c, rowb = p->k_w * in_c;
    const int8_t zp = HTC__CAST(int8_t, p->in_zp);
    int32_t ky, kx;
    for (ky = 0; ky < p->k_h; ky++, d += rowb) {
        const int32_t iy = iy0 + ky * p->dil_h;
        if (iy < 0 || iy >= p->in_h) {
            htc__xp_fill(d, zp, rowb);
        } else if (p->dil_w == 1) {
            /* taps [a, e) inside the row: one copy, the padding filled */
            const int32_t a = ix0 >= 0 ? 0 : -ix0 < p->k_w ? -ix0 : p->k_w;
            const int32_t e = p->in_w - ix0 >= p->k_w ? p->k_w : p->in_w - ix0 > a ? p->in_w - ix0 : a;
            if (a > 0) htc__xp_fill(d, zp, a * in_c);
            if (e > a) htc__xp_copy(d + a * in_c, in_b + (HTC__CAST(size_t, iy) * p->in_w + ix0 + a) * in_c, (e - a) * in_c);
            if (e < p->k_w) htc__xp_fill(d + e * in_c, zp, (p->k_w - e) * in_c);
        } else {
            for (kx = 0; kx < p->k_w; kx++) {
                const int32_t ix = ix0 + kx * p->dil_w;
                if (ix < 0 || ix >= p->in_w) htc__xp_fill(d + kx * in_c, zp, in_c);
                else htc__xp_copy(d + kx * in_c, in_b + (HTC__CAST(size_t, iy) * p->in_w + ix) * in_c, in_c);
            }
        }
    }
}

/* htc__xp_im2col inlined for a field inside the image (no dilation): k_h
   runs of k_w * in_c bytes, in_w * in_c apart; the call only at borders */
static HTC__INLINE HTC__UNUSED void htc__xp_field(const htc__conv_params *p, const int8_t *in_b, int32_t iy0, int32_t ix0, int8_t *d)
{
    if (p->dil_h == 1 && p->dil_w == 1 && iy0 >= 0 && ix0 >= 0 && iy0 + p->k_h <= p->in_h && ix0 + p->k_w <= p->in_w) {
        const int32_t rowb = p->k_w * p->in_c, row = p->in_w * p->in_c;
        const int8_t *s = in_b + HTC__CAST(size_t, iy0 * p->in_w + ix0) * p->in_c;
        int32_t ky;
        if (rowb >= 4) htc__xp_rows(d, s, rowb, row - rowb, p->k_h);
        else for (ky = 0; ky < p->k_h; ky++, d += rowb, s += row) htc__xp_copy(d, s, rowb);
    } else {
        htc__xp_im2col(p, in_b, iy0, ix0, d);
    }
}

/* Exact for output channels [lo, hi) of the layer? h is exact for every
   int32 acc (acc * 2m in 64 bits); only h + c may overflow. Per channel:
   multiplier 0, or m > 0 with a right shift of 1..31 and the largest h
   (from |bias| + taps * 255 * 128, at most INT32_MAX) plus c within int32.
   (Layers whose dead channels carry a bias near 2^30 pass: htc__prq_ok
   refuses them.) */
static HTC__UNUSED int htc__xrq_ok(const htc__conv_params *p, int32_t taps, int32_t lo, int32_t hi)
{
    int32_t i;
    if (taps >= 32768) return 0;
    for (i = lo; i < hi; i++) {
        const int32_t j = p->per_channel ? i : 0, m = p->mult[j], e = -p->shift[j];
        const int32_t b = p->bias ? p->bias[i] : 0, t = taps * 32640;
        int64_t a;
        if (m == 0) continue;
        if (m < 0 || e < 1 || e > 31) return 0;
        /* |acc| < 2^29: h <= 2^29 + 1, c <= 2^30 (no 64-bit arithmetic) */
        if (b < (1 << 29) - t && b > t - (1 << 29)) continue;
        a = (b < 0 ? -HTC__CAST(int64_t, b) : b) + t;
        if (a > 2147483647) a = 2147483647;
        if (((a * m + (HTC__CAST(int64_t, 1) << 30)) >> 31) > 2147483647 - (HTC__CAST(int64_t, 1) << (e - 1))) return 0;
    }
    return 1;
}

/* channels [lo, hi) exact in 32 bits? |acc| <= |bias| + taps * (128 +
   |in_zp|) * 128 (the int8 input plus its offset, int8 weights) */
static HTC__UNUSED int htc__xql_ok(const htc__conv_params *p, const htc__xql *xq, int32_t taps, int32_t lo, int32_t hi)
{
    const int64_t t = HTC__CAST(int64_t, taps) * (128 + (p->in_zp < 0 ? -HTC__CAST(int64_t, p->in_zp) : p->in_zp)) * 128;
    int32_t i;
    if (xq->shift < 0 || xq->shift > 30 || taps >= 32768) return 0;
    for (i = lo; i < hi; i++) {
        const int32_t j = p->per_channel ? i : 0;
        const int64_t b = p->bias ? p->bias[i] : 0, m = xq->mul[j];
        const int64_t c = HTC__CAST(int64_t, xq->add[j]) + (xq->shift > 0 ? HTC__CAST(int64_t, 1) << (xq->shift - 1) : 0) +
                          HTC__CAST(int64_t, p->out_zp) * (HTC__CAST(int64_t, 1) << xq->shift);
        if (((b < 0 ? -b : b) + t) * (m < 0 ? -m : m) + (c < 0 ? -c : c) > 2147483647) return 0;
    }
    return 1;
}

/* the exact value of one output otherwise (htc__ql_rq, 64-bit product) */
static HTC__UNUSED int8_t htc__xql_slow(const htc__conv_params *p, const htc__xql *xq, int32_t oc, int32_t acc)
{
    const int32_t j = p->per_channel ? oc : 0, off = -p->out_zp;
    return HTC__CAST(int8_t, htc__ql_rq(acc, xq->mul[j], xq->add[j], xq->shift, p->act_min + off, p->act_max + off) - off);
}

/* s[j] = the sum of the n signed bytes of row j (w + j * ws), j = 0..3:
   a dot product of each word with 0x01010101 (four rows per hardware
   loop: 2 instructions a word) */
static HTC__NOINLINE void htc__xp_sum4(const int8_t *w, int32_t ws, int32_t n, int32_t *s)
{
    const int8_t *w0 = w, *w1 = w + ws, *w2 = w1 + ws, *w3 = w2 + ws;
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, i;
    const int32_t n4 = n >> 2;
    const uint32_t ones = 0x01010101u;
#ifdef HTC__XP_ASM
    if (n4 > 0) {
        uint32_t t0, t1, t2, t3;
        __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                         ".insn i 0x7b, 4, x0, %[n], 16\n\t"
                         ".insn i 0x0b, 2, %[t0], 4(%[w0])\n\t"
                         ".insn i 0x0b, 2, %[t1], 4(%[w1])\n\t"
                         ".insn i 0x0b, 2, %[t2], 4(%[w2])\n\t"
                         ".insn i 0x0b, 2, %[t3], 4(%[w3])\n\t"
                         ".insn r 0x57, 1, 0x5c, %[s0], %[t0], %[one]\n\t"
                         ".insn r 0x57, 1, 0x5c, %[s1], %[t1], %[one]\n\t"
                         ".insn r 0x57, 1, 0x5c, %[s2], %[t2], %[one]\n\t"
                         ".insn r 0x57, 1, 0x5c, %[s3], %[t3], %[one]\n\t"
                         ".option pop"
                         : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [w0] "+r"(w0), [w1] "+r"(w1),
                           [w2] "+r"(w2), [w3] "+r"(w3), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
                         : [n] "r"(n4), [one] "r"(ones)
                         : "memory");
    }
#else
    for (i = 0; i < n4; i++, w0 += 4, w1 += 4, w2 += 4, w3 += 4) {
        s0 = htc__xp_sdot4(s0, htc__xp_ld4(w0), ones);
        s1 = htc__xp_sdot4(s1, htc__xp_ld4(w1), ones);
        s2 = htc__xp_sdot4(s2, htc__xp_ld4(w2), ones);
        s3 = htc__xp_sdot4(s3, htc__xp_ld4(w3), ones);
    }
#endif
    for (i = 0; i < (n & 3); i++) {
        s0 += w0[i]; s1 += w1[i]; s2 += w2[i]; s3 += w3[i];
    }
    s[0] = s0; s[1] = s1; s[2] = s2; s[3] = s3;
}

/* one output of requantization kind ql (HTC__XQ_APPLY's; 3, 4: the
   layer's final-form record x2, htc__xq2_apply / htc__xq3_apply: zp and
   the clamp in it) */
static HTC__INLINE int32_t htc__xp_out(int ql, const htc__xrq *q, const int32_t *x2, int32_t acc, int32_t zp, int32_t lo,
                                       int32_t hi)
{
    if (ql == 3) return htc__xq2_apply(x2, acc);
    if (ql >= 4) return htc__xq3_apply(x2, acc, ql == 5);
    return htc__xp_clamp(HTC__XQ_APPLY(ql, *q, acc) + zp, lo, hi);
}

/* One block of four output channels by two pixels with the fast
   requantization: start values s[0..3], the dot products of x0 and x1 with
   the weight rows w, w + ws, w + 2 ws, w + 3 ws over n bytes
   (htc__xp_dot2x4; tail 0: n is a multiple of 4, so no byte loop in the
   code), each requantized by q[k] to o0[k] / o1[k]. Every value
   a named variable (no array on the stack between the dot products and
   the requantization). ql: the requantization's kind (HTC__XQ_APPLY:
   TFLite's, QuantLib's with zp 0, folded into q, or onnxruntime's exact
   shift), a constant of each inlined loop. */
static HTC__INLINE void htc__xp_blk2x4(const int8_t *x0, const int8_t *x1, const int8_t *w, int32_t ws, int32_t n, int tail,
                                       const int32_t *s, const htc__xrq *q, const int32_t *x2, int8_t *o0, int8_t *o1,
                                       int32_t zp, int32_t lo, int32_t hi, int ql, int32_t nr, int32_t skip)
{
    const int8_t *r[4];
    int32_t acc[8];
    r[0] = w;
    r[1] = w + ws;
    r[2] = w + 2 * ws;
    r[3] = w + 3 * ws;
    acc[0] = acc[4] = s[0];
    acc[1] = acc[5] = s[1];
    acc[2] = acc[6] = s[2];
    acc[3] = acc[7] = s[3];
    if (nr) htc__xp_dot2x4r(x0, HTC__CAST(int32_t, x1 - x0), r, n >> 2, nr, skip, acc);    /* nr runs of n bytes, read in place */
    else htc__xp_dot2x4(x0, x1, r, tail ? n : n & ~3, acc);
#define HTC__XB(K)                                                                                   \
    if (ql == 3) {                                                                                   \
        htc__xq2_pair(x2 + (K) * HTC__XQ2_N, acc[K], acc[4 + K], o0 + (K), o1 + (K));                \
    } else if (ql >= 4) {                                                                            \
        htc__xq3_pair(x2 + (K) * HTC__XQ3_N, acc[K], acc[4 + K], o0 + (K), o1 + (K), ql == 5);       \
    } else {                                                                                         \
        o0[K] = HTC__CAST(int8_t, htc__xp_clamp(HTC__XQ_APPLY(ql, q[K], acc[K]) + zp, lo, hi));      \
        o1[K] = HTC__CAST(int8_t, htc__xp_clamp(HTC__XQ_APPLY(ql, q[K], acc[4 + K]) + zp, lo, hi));  \
    }
    HTC__XB(0) HTC__XB(1) HTC__XB(2) HTC__XB(3)
#undef HTC__XB
}

/* Four pixels' outputs o, o + oc, o + 2 oc, o + 3 oc of one channel's
   record r from the sums a[0], a[4], a[8], a[12] (ql 3: htc__xq2_apply,
   4 and 5: htc__xq3_apply, 5 with two = 1), the record's words loaded
   once; ql 1: QuantLib's requantization q (htc__xql_make: its output
   offset folded in), clamped to [lo, hi] */
static HTC__INLINE void htc__xp_quad(int ql, const int32_t *r, const htc__xrq *q, const int32_t *a, int8_t *o, int32_t oc,
                                     int32_t lo, int32_t hi)
{
    if (ql == 1) {
        const int32_t v0 = htc__xp_out(1, q, r, a[0], 0, lo, hi), v1 = htc__xp_out(1, q, r, a[4], 0, lo, hi);
        const int32_t v2 = htc__xp_out(1, q, r, a[8], 0, lo, hi), v3 = htc__xp_out(1, q, r, a[12], 0, lo, hi);
        o[0] = HTC__CAST(int8_t, v0);
        o[oc] = HTC__CAST(int8_t, v1);
        o[2 * oc] = HTC__CAST(int8_t, v2);
        o[3 * oc] = HTC__CAST(int8_t, v3);
    } else if (ql == 3) {
        const int32_t w = r[HTC__XQ2_W], s = r[HTC__XQ2_S];
        const uint32_t ml = HTC__CAST(uint32_t, r[HTC__XQ2_ML]), mh = HTC__CAST(uint32_t, r[HTC__XQ2_MH]);
        const uint32_t rlo = HTC__CAST(uint32_t, r[HTC__XQ2_RLO]), rhi = HTC__CAST(uint32_t, r[HTC__XQ2_RHI]);
        const int32_t v0 = htc__xq2_run(HTC__CAST(uint32_t, htc__xp_clipu(a[0], w)), rlo, ml, mh, rhi, s);
        const int32_t v1 = htc__xq2_run(HTC__CAST(uint32_t, htc__xp_clipu(a[4], w)), rlo, ml, mh, rhi, s);
        const int32_t v2 = htc__xq2_run(HTC__CAST(uint32_t, htc__xp_clipu(a[8], w)), rlo, ml, mh, rhi, s);
        const int32_t v3 = htc__xq2_run(HTC__CAST(uint32_t, htc__xp_clipu(a[12], w)), rlo, ml, mh, rhi, s);
        o[0] = HTC__CAST(int8_t, v0);
        o[oc] = HTC__CAST(int8_t, v1);
        o[2 * oc] = HTC__CAST(int8_t, v2);
        o[3 * oc] = HTC__CAST(int8_t, v3);
    } else {
        const int32_t w = r[HTC__XQ3_W], s = r[HTC__XQ3_S];
        const uint32_t m0 = HTC__CAST(uint32_t, r[HTC__XQ3_M0]), m1 = HTC__CAST(uint32_t, r[HTC__XQ3_M1]);
        const uint32_t m2 = HTC__CAST(uint32_t, r[HTC__XQ3_M2]), r0 = HTC__CAST(uint32_t, r[HTC__XQ3_R]);
        const uint32_t rh = HTC__CAST(uint32_t, r[HTC__XQ3_RH]), uu = HTC__CAST(uint32_t, r[HTC__XQ3_U]);
        const uint32_t u0 = HTC__CAST(uint32_t, htc__xp_clipu(a[0], w)), u1 = HTC__CAST(uint32_t, htc__xp_clipu(a[4], w));
        const uint32_t u2 = HTC__CAST(uint32_t, htc__xp_clipu(a[8], w)), u3 = HTC__CAST(uint32_t, htc__xp_clipu(a[12], w));
        const int two = ql == 5;
        const int32_t v0 = htc__xq3_run(u0, r0, m0, m1, m2, rh - (HTC__CAST(uint32_t, two && u0 < uu) << 9), s);
        const int32_t v1 = htc__xq3_run(u1, r0, m0, m1, m2, rh - (HTC__CAST(uint32_t, two && u1 < uu) << 9), s);
        const int32_t v2 = htc__xq3_run(u2, r0, m0, m1, m2, rh - (HTC__CAST(uint32_t, two && u2 < uu) << 9), s);
        const int32_t v3 = htc__xq3_run(u3, r0, m0, m1, m2, rh - (HTC__CAST(uint32_t, two && u3 < uu) << 9), s);
        o[0] = HTC__CAST(int8_t, v0);
        o[oc] = HTC__CAST(int8_t, v1);
        o[2 * oc] = HTC__CAST(int8_t, v2);
        o[3 * oc] = HTC__CAST(int8_t, v3);
    }
}

/* nb blocks of four channels by the four pixels of b (htc__xp_dot4x4b:
   b's pixel fields set), channel block i's weight rows from w + 4 i ws,
   start values s + 4 i, records x2 + (4 i + k) xn (ql 3..5) or
   requantizations q + 4 i + k (ql 1), outputs o + 4 i + k (o + j oc for
   pixel j; htc__xp_quad). */
static HTC__INLINE void htc__xp_quads_k(htc__xp4x4 *b, int ql, const int32_t *s, const int8_t *w, int32_t ws, int32_t nb,
                                        const int32_t *x2, int32_t xn, const htc__xrq *q, int8_t *o, int32_t oc, int32_t lo,
                                        int32_t hi)
{
    int32_t i, k;
    for (i = 0; i < nb; i++, s += 4, w += 4 * ws, x2 += 4 * xn, q += 4, o += 4) {
        b->s = s;
        b->wa = w;
        b->wb = w + 2 * ws;
        htc__xp_dot4x4b(b);
        for (k = 0; k < 4; k++) htc__xp_quad(ql, x2 + k * xn, q + k, b->acc + k, o + k, oc, lo, hi);
    }
}

/* The layer's output channels [oc_lo, oc_hi) of pixels [q_lo, q_hi), the
   requantization of kind ql (HTC__XQ_APPLY: 0 TFLite's, 1 QuantLib's
   (xq), 2 onnxruntime's exact shift (xq->rne), 3..5 the final-form
   records); fast: htc__xrq_ok / htc__xql_ok (1 for the shift); qd: the
   column buffer's bytes for 4x4 blocks (htc__xp_dot4x4b) of a layer with
   receptive fields, 0 for none; qp (a constant): a pointwise layer's 4x4
   blocks (kinds 3..5). */
static HTC__INLINE void htc__conv2d_xp_body(const htc__conv_params *p, const htc__xql *xq, const int ql, const int8_t *in,
                                            int8_t *out, int fast, int8_t *xb, int32_t oc_lo, int32_t oc_hi, int32_t q_lo,
                                            int32_t q_hi, const int32_t qd, const int qp)
{
    const int32_t out_w = p->out_w, out_c = p->out_c, npix = p->out_h * out_w;
    const int32_t K = p->k_h * p->k_w * p->in_c, in_img = p->in_h * p->in_w * p->in_c;
    const int pw = p->k_h == 1 && p->k_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 &&
                   p->pad_left == 0 && p->out_h == p->in_h && p->out_w == p->in_w;
    /* QuantLib's output offset is in its constants (htc__xql_make) */
    const int32_t zp = ql == 1 ? 0 : p->out_zp, lo = p->act_min, hi = p->act_max;
    /* the column buffer's pixels K4 bytes apart, zeros after each field:
       a block whose four weight rows all have a row after them (in the
       array) then takes the last K % 4 taps as one more word (products
       with zero: the same sums) instead of byte by byte */
    const int32_t K4 = pw ? K : (K + 3) & ~3;
    /* kinds 3..5: the records after the word naming their form (else unused) */
    const int32_t *x2 = ql >= 3 ? p->xq2 + 1 : p->xq2;
    const int32_t xn = ql >= 4 ? HTC__CAST(int32_t, HTC__XQ3_N) : HTC__CAST(int32_t, HTC__XQ2_N);
    /* a pair of pixels inside the image, in one output row, reads its two
       fields in place (htc__xp_dot2x4r: k_h runs of rowb bytes, rskip
       apart) where rowb is whole words and every block is a full one */
    const int32_t rowb = p->k_w * p->in_c, rskip = (p->in_w - p->k_w) * p->in_c;
    const int dr = !pw && fast && p->dil_h == 1 && p->dil_w == 1 && (rowb & 3) == 0 && ((oc_hi - oc_lo) & 3) == 0;
    int32_t s0[HTC__XP_OC];
    htc__xrq rq[HTC__XP_OC];
    int32_t c0, b, q, oc, k;
    htc__xp4x4 qb;                      /* the 4x4 blocks' fields (htc__xp_dot4x4b) */
    if (!pw && K4 > K) {
        memset(xb + K, 0, HTC__CAST(size_t, K4 - K));
        memset(xb + K4 + K, 0, HTC__CAST(size_t, K4 - K));
    }
    for (c0 = oc_lo; c0 < oc_hi; c0 += HTC__XP_OC) {
        const int32_t c1 = oc_hi - c0 < HTC__XP_OC ? oc_hi : c0 + HTC__XP_OC;
        /* the weight rows: in place, or (K not a multiple of 4, the chunk's
           rows fitting the column buffer after the two pixels) copied K4
           apart with zeros after each, so every block's dot products run
           K4 bytes of word-aligned rows, no byte tail (a word at a time:
           picolibc's memcpy copies byte by byte, 254 against 94 cycles a
           27-byte row on GVSoC) */
        const int8_t *wr = p->weights;
        int32_t ws = K, wo = 0;
        if (!pw && K4 > K && (2 + c1 - c0) * K4 <= 2 * HTC__XP_COLS) {
            int8_t *wb = xb + 2 * K4;
            for (oc = c0; oc < c1; oc++) {
                htc__xp_copy(wb + (oc - c0) * K4, p->weights + HTC__CAST(size_t, oc) * K, K);
                htc__xp_fill(wb + (oc - c0) * K4 + K, 0, K4 - K);
            }
            wr = wb;
            ws = K4;
            wo = c0;
        }
        /* the weight sums four rows at a time (the last group ending at c1;
           kind 3: folded into the records' start values at compile time) */
        for (oc = c0; oc < c1 && ql < 3; oc += 4) {
            const int32_t g = c1 - oc < 4 ? c1 - 4 : oc;
            if (g >= c0) htc__xp_sum4(p->weights + HTC__CAST(size_t, g) * K, K, K, s0 + (g - c0));
            else for (k = oc; k < c1; k++) s0[k - c0] = htc__xp_sum(p->weights + HTC__CAST(size_t, k) * K, K);
        }
        for (oc = c0; oc < c1; oc++) {
            if (ql >= 3) {
                s0[oc - c0] = x2[HTC__CAST(size_t, oc) * xn + HTC__XQ2_F];
                continue;
            }
            s0[oc - c0] = (p->bias ? p->bias[oc] : 0) - p->in_zp * s0[oc - c0];
            if (ql == 2)
                rq[oc - c0] = htc__xrq_rne_make(xq->rne[p->per_channel ? oc : 0]);
            else if (fast && ql)
                rq[oc - c0] = htc__xql_make(xq->mul[p->per_channel ? oc : 0], xq->add[p->per_channel ? oc : 0], xq->shift, p->out_zp);
            else if (fast)
                rq[oc - c0] = htc__xrq_make(p->mult[p->per_channel ? oc : 0], p->shift[p->per_channel ? oc : 0]);
        }
        qb.wm = ws - 4;
        for (b = 0; b < p->batches; b++) {
            const int8_t *in_b = in + HTC__CAST(size_t, b) * in_img;
            int8_t *out_b = out + HTC__CAST(size_t, b) * npix * out_c;
            /* (oy0, ox0): pixel q's output coordinates, counted (no division) */
            int32_t oy0 = q_lo / out_w, ox0 = q_lo - oy0 * out_w;
            for (q = q_lo; q < q_hi; q += 2) {
                const int np = q + 1 < q_hi ? 2 : 1;
                /* four pixels of one output row (qd: the quads' column
                   buffer's bytes, 0 for none): their fields read in place
                   when inside the image, else copied into the column
                   buffer K4 apart (when four fit), four channels a
                   block (htc__xp_dot4x4b, htc__xp_quad; the final-form
                   records only) */
                if (qp && q + 3 < q_hi) {
                    /* pointwise: four consecutive pixels, K bytes apart */
                    qb.xa = in_b + HTC__CAST(size_t, q) * K;
                    qb.xb = qb.xa + 2 * K;
                    qb.dm = K - 4;
                    qb.skip = 0;
                    qb.n4 = K >> 2;
                    qb.nr = 1;
                    htc__xp_quads_k(&qb, ql, s0, wr + HTC__CAST(size_t, c0 - wo) * ws, ws, (c1 - c0) >> 2,
                                    x2 + HTC__CAST(size_t, c0) * xn, xn, rq, out_b + HTC__CAST(size_t, q) * out_c + c0, out_c, lo, hi);
                    q += 2;
                    continue;
                }
                if (qd && (ql >= 3 || ql == 1) && dr && q + 3 < q_hi && ox0 + 3 < out_w) {
                    const int32_t iy0 = oy0 * p->stride_h - p->pad_top, ix0 = ox0 * p->stride_w - p->pad_left;
                    const int in4 = iy0 >= 0 && iy0 + p->k_h <= p->in_h && ix0 >= 0 && ix0 + 3 * p->stride_w + p->k_w <= p->in_w;
                    if (in4 || 4 * K4 <= qd) {
                        int8_t *o = out_b + HTC__CAST(size_t, q) * out_c;
                        int32_t d = p->stride_w * p->in_c;
                        if (in4) {
                            qb.xa = in_b + HTC__CAST(size_t, iy0 * p->in_w + ix0) * p->in_c;
                            qb.skip = rskip;
                            qb.n4 = rowb >> 2;
                            qb.nr = p->k_h;
                        } else {
                            for (k = 0; k < 4; k++) htc__xp_field(p, in_b, iy0, ix0 + k * p->stride_w, xb + k * K4);
                            d = K4;
                            qb.xa = xb;
                            qb.skip = 0;
                            qb.n4 = K4 >> 2;
                            qb.nr = 1;
                        }
                        qb.xb = qb.xa + 2 * d;
                        qb.dm = d - 4;
                        htc__xp_quads_k(&qb, ql, s0, wr + HTC__CAST(size_t, c0 - wo) * ws, ws, (c1 - c0) >> 2,
                                        x2 + HTC__CAST(size_t, c0) * xn, xn, rq, o + c0, out_c, lo, hi);
                        ox0 += 4;
                        if (ox0 == out_w) {
                            ox0 = 0;
                            oy0++;
                        }
                        q += 2;
                        continue;
                    }
                }
                const int32_t q1 = q + np - 1;
                const int8_t *x0, *x1;
                int32_t nr = 0;         /* the fields read in place: k_h runs of rowb bytes */
                if (pw) {
                    x0 = in_b + HTC__CAST(size_t, q) * K;
                    x1 = in_b + HTC__CAST(size_t, q1) * K;
                } else {
                    int32_t oy1 = oy0, ox1 = ox0 + 1;
                    if (ox1 == out_w) {
                        ox1 = 0;
                        oy1++;
                    }
                    const int32_t iy0 = oy0 * p->stride_h - p->pad_top, ix0 = ox0 * p->stride_w - p->pad_left;
                    const int32_t ix1 = ox1 * p->stride_w - p->pad_left;
                    if (dr && np > 1 && oy1 == oy0 && iy0 >= 0 && iy0 + p->k_h <= p->in_h && ix0 >= 0 && ix1 + p->k_w <= p->in_w) {
                        x0 = in_b + HTC__CAST(size_t, iy0 * p->in_w + ix0) * p->in_c;
                        x1 = in_b + HTC__CAST(size_t, iy0 * p->in_w + ix1) * p->in_c;
                        nr = p->k_h;
                    } else {
                        htc__xp_field(p, in_b, iy0, ix0, xb);
                        if (np > 1) htc__xp_field(p, in_b, oy1 * p->stride_h - p->pad_top, ix1, xb + K4);
                        x0 = xb;
                        x1 = xb + (np - 1) * K4;
                    }
                    oy0 = oy1;
                    ox0 = ox1 + 1;
                    if (ox0 == out_w) {
                        ox0 = 0;
                        oy0++;
                    }
                }
                /* full blocks of four channels with the fast requantization
                   and whole words (the rest, e.g. the array's last rows
                   read in place with a byte tail, below) */
                oc = c0;
                if (fast && (K4 & 3) == 0) {
                    const int32_t ce = ws == K4 || c1 < out_c || K4 == K ? c1 : c1 - 4;
                    /* (two loops: each block's code has only its own dot products) */
                    if (nr) {
                        for (; oc + 4 <= ce; oc += 4)
                            htc__xp_blk2x4(x0, x1, wr + HTC__CAST(size_t, oc - wo) * ws, ws, rowb, 0, s0 + (oc - c0), rq + (oc - c0),
                                           x2 + HTC__CAST(size_t, oc) * xn, out_b + HTC__CAST(size_t, q) * out_c + oc, out_b + HTC__CAST(size_t, q1) * out_c + oc, zp, lo, hi, ql,
                                           nr, rskip);
                    } else {
                        for (; oc + 4 <= ce; oc += 4)
                            htc__xp_blk2x4(x0, x1, wr + HTC__CAST(size_t, oc - wo) * ws, ws, K4, 0, s0 + (oc - c0), rq + (oc - c0),
                                           x2 + HTC__CAST(size_t, oc) * xn, out_b + HTC__CAST(size_t, q) * out_c + oc, out_b + HTC__CAST(size_t, q1) * out_c + oc, zp, lo, hi, ql,
                                           0, 0);
                    }
                } else if (fast) {
                    /* pointwise with K % 4 != 0: the same with the byte tail */
                    for (; oc + 4 <= c1; oc += 4)
                        htc__xp_blk2x4(x0, x1, wr + HTC__CAST(size_t, oc - wo) * ws, ws, K, 1, s0 + (oc - c0), rq + (oc - c0),
                                       x2 + HTC__CAST(size_t, oc) * xn, out_b + HTC__CAST(size_t, q) * out_c + oc, out_b + HTC__CAST(size_t, q1) * out_c + oc, zp, lo, hi, ql,
                                       0, 0);
                }
                for (; oc < c1; oc += 4) {
                    const int32_t nb = c1 - oc < 4 ? c1 - oc : 4;
                    const int8_t *r[4];
                    int32_t acc[8];
                    htc__port_rows(wr, ws, oc - wo, c1 - wo, r);
                    for (k = 0; k < 4; k++) acc[k] = acc[4 + k] = s0[(oc + k < c1 ? oc + k : c1 - 1) - c0];
                    htc__xp_dot2x4(x0, x1, r, ws == K4 || oc + 4 < out_c ? K4 : K, acc);
                    if (fast) {
                        /* the precomputed requantization of each channel */
                        int8_t *o0 = out_b + HTC__CAST(size_t, q) * out_c + oc, *o1 = out_b + HTC__CAST(size_t, q1) * out_c + oc;
                        const htc__xrq *qk = rq + (oc - c0);
                        const int32_t *xk = x2 + HTC__CAST(size_t, oc) * xn;
                        if (nb == 4) {
                            for (k = 0; k < 4; k++) {
                                o0[k] = HTC__CAST(int8_t, htc__xp_out(ql, qk + k, xk + k * xn, acc[k], zp, lo, hi));
                                o1[k] = HTC__CAST(int8_t, htc__xp_out(ql, qk + k, xk + k * xn, acc[4 + k], zp, lo, hi));
                            }
                        } else {
                            for (k = 0; k < nb; k++) {
                                o0[k] = HTC__CAST(int8_t, htc__xp_out(ql, qk + k, xk + k * xn, acc[k], zp, lo, hi));
                                o1[k] = HTC__CAST(int8_t, htc__xp_out(ql, qk + k, xk + k * xn, acc[4 + k], zp, lo, hi));
                            }
                        }
                    } else if (ql) {
                        /* beyond 32 bits: htc__ql_rq's 64-bit product */
                        int8_t *o0 = out_b + HTC__CAST(size_t, q) * out_c + oc, *o1 = out_b + HTC__CAST(size_t, q1) * out_c + oc;
                        for (k = 0; k < nb; k++) {
                            o0[k] = htc__xql_slow(p, xq, oc + k, acc[k]);
                            o1[k] = htc__xql_slow(p, xq, oc + k, acc[4 + k]);
                        }
                    } else {
                        htc__port_store(p, 0, oc, nb, np, acc, out_b + HTC__CAST(size_t, q) * out_c + oc,
                                        out_b + HTC__CAST(size_t, q1) * out_c + oc);
                    }
                }
            }
        }
    }
}

static HTC__NOINLINE void htc__conv2d_xp_run(const htc__conv_params *p, const int8_t *in, int8_t *out, int fast, int8_t *xb,
                                             int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 0, in, out, fast, xb, oc_lo, oc_hi, q_lo, q_hi, 0, 0);
}

/* TFLite's requantization in final form (p->xq2, every channel exact: a
   word naming the records' form, 2 (htc__xq2_apply), 3 or 4 (htc__xq3_apply,
   4 with two = 1), then the records; gen/dispatch.c xq2) */
static HTC__NOINLINE void htc__conv2d_xp_run_x2(const htc__conv_params *p, const int8_t *in, int8_t *out, int8_t *xb, int32_t oc_lo,
                                                int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 3, in, out, 1, xb, oc_lo, oc_hi, q_lo, q_hi, 0, 0);
}

static HTC__NOINLINE void htc__conv2d_xp_run_x3(const htc__conv_params *p, const int8_t *in, int8_t *out, int8_t *xb, int32_t oc_lo,
                                                int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 4, in, out, 1, xb, oc_lo, oc_hi, q_lo, q_hi, 0, 0);
}

/* the same with 4x4 blocks (htc__conv2d_xp_quads: the layer takes them;
   xcap: the column buffer's bytes at xb):
   functions of their own, so that the pair loop of the layers without
   them keeps its code and registers (DS-CNN's and MobileNetV1's
   pointwise layers 1% slower with the quads' code among theirs) */
static HTC__NOINLINE void htc__conv2d_xp_run_x2q(const htc__conv_params *p, const int8_t *in, int8_t *out, int8_t *xb, int32_t xcap,
                                                 int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 3, in, out, 1, xb, oc_lo, oc_hi, q_lo, q_hi, xcap, 0);
}

static HTC__NOINLINE void htc__conv2d_xp_run_x3q(const htc__conv_params *p, const int8_t *in, int8_t *out, int8_t *xb, int32_t xcap,
                                                 int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 4, in, out, 1, xb, oc_lo, oc_hi, q_lo, q_hi, xcap, 0);
}

static HTC__NOINLINE void htc__conv2d_xp_run_x4q(const htc__conv_params *p, const int8_t *in, int8_t *out, int8_t *xb, int32_t xcap,
                                                 int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 5, in, out, 1, xb, oc_lo, oc_hi, q_lo, q_hi, xcap, 0);
}

/* a pointwise layer's 4x4 blocks (four consecutive pixels read in
   place): functions of their own, so that the quads of the other layers
   keep their code (ResNet's 3x3 layers 0.3% slower with this branch in
   their loop) */
static HTC__NOINLINE void htc__conv2d_xp_run_x2p(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t oc_lo,
                                                 int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 3, in, out, 1, 0, oc_lo, oc_hi, q_lo, q_hi, 0, 1);
}

static HTC__NOINLINE void htc__conv2d_xp_run_x3p(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t oc_lo,
                                                 int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 4, in, out, 1, 0, oc_lo, oc_hi, q_lo, q_hi, 0, 1);
}

static HTC__NOINLINE void htc__conv2d_xp_run_x4p(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t oc_lo,
                                                 int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 5, in, out, 1, 0, oc_lo, oc_hi, q_lo, q_hi, 0, 1);
}

/* form 4: the three-product records of a layer without a fused ReLU */
static HTC__NOINLINE void htc__conv2d_xp_run_x4(const htc__conv_params *p, const int8_t *in, int8_t *out, int8_t *xb, int32_t oc_lo,
                                                int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 5, in, out, 1, xb, oc_lo, oc_hi, q_lo, q_hi, 0, 0);
}

static HTC__NOINLINE void htc__conv2d_xp_run_ql(const htc__conv_params *p, const htc__xql *xq, const int8_t *in, int8_t *out,
                                                int fast, int8_t *xb, int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, xq, 1, in, out, fast, xb, oc_lo, oc_hi, q_lo, q_hi, 0, 0);
}

/* QuantLib's with 4x4 blocks (fast: htc__xql_ok holds for the channels):
   a layer with receptive fields (xcap: the column buffer's bytes at xb),
   a pointwise one */
static HTC__NOINLINE void htc__conv2d_xp_run_qlq(const htc__conv_params *p, const htc__xql *xq, const int8_t *in, int8_t *out,
                                                 int8_t *xb, int32_t xcap, int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, xq, 1, in, out, 1, xb, oc_lo, oc_hi, q_lo, q_hi, xcap, 0);
}

static HTC__NOINLINE void htc__conv2d_xp_run_qlp(const htc__conv_params *p, const htc__xql *xq, const int8_t *in, int8_t *out,
                                                 int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, xq, 1, in, out, 1, 0, oc_lo, oc_hi, q_lo, q_hi, 0, 1);
}

static HTC__NOINLINE void htc__conv2d_xp_run_rne(const htc__conv_params *p, const htc__xql *xq, const int8_t *in, int8_t *out,
                                                 int8_t *xb, int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    htc__conv2d_xp_body(p, xq, 2, in, out, 1, xb, oc_lo, oc_hi, q_lo, q_hi, 0, 0);
}

/* the layer as the XP path takes it: pointwise (read in place) or with a
   receptive field of at most HTC__XP_COLS bytes */
static inline int htc__conv2d_xp_pw(const htc__conv_params *p)
{
    return p->k_h == 1 && p->k_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 && p->pad_left == 0 &&
           p->out_h == p->in_h && p->out_w == p->in_w;
}

/* 4x4 blocks for channels [oc_lo, oc_hi) of a layer with records: fields
   whose rows are whole words of at least 4 (shorter ones, DS-CNN's first
   conv's 4 bytes: the pairs' nested loops run them at less cost), no
   dilation, full blocks of four channels. A pointwise layer's four
   pixels save ~196 cycles of pair overhead, and each of its nb blocks
   (a chunk's channels / 4) costs ~85 more to set up and requantize than
   two 2x4 blocks (the sums stored and reloaded) and ~1 less per byte of
   K (24 instructions a word against 28): quads where nb (85 - K) < 196.
   GVSoC, at 1 / 8 cores: DS-CNN's 64 -> 64 (nb 16 / 2) +1.6% / -5.7%
   with quads, MobileNetV1's 128 -> 128 (16 / 4) -4.3% / -6.3%, its
   64 -> 64 (16 / 2) +1.2% / -7.8%, 16 -> 32 (8 / 8) +10% / +10%.
   QuantLib's requantization (4 instructions an output against the
   records' 9) leaves the quads half that gain (ql: 98): Deeploy's KWS
   64 -> 64 at 8 cores (nb 2) 44,100 -> 41,800 cycles with quads,
   miniMobileNet's 32 -> 64 (nb 2) 9,234 -> 9,822 (now pairs). */
static inline int htc__conv2d_xp_quads(const htc__conv_params *p, int32_t oc_lo, int32_t oc_hi, int ql)
{
    const int32_t rowb = p->k_w * p->in_c;
    const int32_t nb = (oc_hi - oc_lo < HTC__XP_OC ? oc_hi - oc_lo : HTC__XP_OC) >> 2;
    return p->dil_h == 1 && p->dil_w == 1 && (rowb & 3) == 0 && rowb >= 16 && ((oc_hi - oc_lo) & 3) == 0 &&
           (!htc__conv2d_xp_pw(p) || nb * (85 - rowb) < (ql ? 98 : 196));
}

static inline int htc__conv2d_xp_fits(const htc__conv_params *p)
{
    return htc__conv2d_xp_pw(p) || ((p->k_h * p->k_w * p->in_c + 3) & ~3) <= HTC__XP_COLS;
}

/* 4x4 blocks whose four fields copied need more than the column buffer of
   htc__conv2d_xp_sel (4 K4 > 2 HTC__XP_COLS: ResNet's 3x3x64 layer, whose
   8 x 8 rows, 1 a core at 8 cores, would otherwise take pixel pairs at the
   border rows, 152,045 -> 133,813 cycles at 8 cores): a buffer of 4
   HTC__XP_COLS in a frame of its own, in place of sel's, chosen by its
   callers (a worker's stack, 4 KiB in examples/siracusa: about 3.6 KiB
   deep on this path) */
static HTC__NOINLINE void htc__conv2d_xp_sel4(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t oc_lo, int32_t oc_hi,
                                              int32_t q_lo, int32_t q_hi)
{
    int8_t xb[4 * HTC__XP_COLS];
    if (p->xq2[0] == 4) htc__conv2d_xp_run_x4q(p, in, out, xb, 4 * HTC__XP_COLS, oc_lo, oc_hi, q_lo, q_hi);
    else if (p->xq2[0] == 3) htc__conv2d_xp_run_x3q(p, in, out, xb, 4 * HTC__XP_COLS, oc_lo, oc_hi, q_lo, q_hi);
    else htc__conv2d_xp_run_x2q(p, in, out, xb, 4 * HTC__XP_COLS, oc_lo, oc_hi, q_lo, q_hi);
}

/* Output channels [oc_lo, oc_hi) of pixels [q_lo, q_hi) (a core's share
   when the cluster divides the layer by channels or pixel pairs), TFLite's
   requantization (htc__conv2d_xp_sel) or QuantLib's (_ql); 0 when the
   layer is not the XP path's (receptive field above HTC__XP_COLS bytes).
   (Each its own frame with the column buffer: a worker core has 4 KiB.) */
static HTC__NOINLINE int htc__conv2d_xp_sel(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t oc_lo, int32_t oc_hi,
                                            int32_t q_lo, int32_t q_hi)
{
    int8_t xb[2 * HTC__XP_COLS];
    const int quads = htc__conv2d_xp_quads(p, oc_lo, oc_hi, 0), pw = htc__conv2d_xp_pw(p);
    if (!htc__conv2d_xp_fits(p)) return 0;
    if (p->xq2 && p->xq2[0] == 4) {
        if (quads && pw) htc__conv2d_xp_run_x4p(p, in, out, oc_lo, oc_hi, q_lo, q_hi);
        else if (quads) htc__conv2d_xp_run_x4q(p, in, out, xb, 2 * HTC__XP_COLS, oc_lo, oc_hi, q_lo, q_hi);
        else htc__conv2d_xp_run_x4(p, in, out, pw ? 0 : xb, oc_lo, oc_hi, q_lo, q_hi);
        return 1;
    }
    if (p->xq2 && p->xq2[0] == 3) {
        if (quads && pw) htc__conv2d_xp_run_x3p(p, in, out, oc_lo, oc_hi, q_lo, q_hi);
        else if (quads) htc__conv2d_xp_run_x3q(p, in, out, xb, 2 * HTC__XP_COLS, oc_lo, oc_hi, q_lo, q_hi);
        else htc__conv2d_xp_run_x3(p, in, out, pw ? 0 : xb, oc_lo, oc_hi, q_lo, q_hi);
        return 1;
    }
    if (p->xq2) {
        if (quads && pw) htc__conv2d_xp_run_x2p(p, in, out, oc_lo, oc_hi, q_lo, q_hi);
        else if (quads) htc__conv2d_xp_run_x2q(p, in, out, xb, 2 * HTC__XP_COLS, oc_lo, oc_hi, q_lo, q_hi);
        else htc__conv2d_xp_run_x2(p, in, out, pw ? 0 : xb, oc_lo, oc_hi, q_lo, q_hi);
        return 1;
    }
    htc__conv2d_xp_run(p, in, out, htc__xrq_ok(p, p->k_h * p->k_w * p->in_c, oc_lo, oc_hi), pw ? 0 : xb, oc_lo,
                       oc_hi, q_lo, q_hi);
    return 1;
}

static HTC__NOINLINE int htc__conv2d_xp_sel_ql(const htc__conv_params *p, const htc__xql *xq, const int8_t *in, int8_t *out,
                                               int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    int8_t xb[2 * HTC__XP_COLS];
    int fast, quads;
    if (!htc__conv2d_xp_fits(p)) return 0;
    fast = htc__xql_ok(p, xq, p->k_h * p->k_w * p->in_c, oc_lo, oc_hi);
    quads = fast && htc__conv2d_xp_quads(p, oc_lo, oc_hi, 1);
    if (quads && htc__conv2d_xp_pw(p))
        htc__conv2d_xp_run_qlp(p, xq, in, out, oc_lo, oc_hi, q_lo, q_hi);
    else if (quads)
        htc__conv2d_xp_run_qlq(p, xq, in, out, xb, 2 * HTC__XP_COLS, oc_lo, oc_hi, q_lo, q_hi);
    else
        htc__conv2d_xp_run_ql(p, xq, in, out, fast, htc__conv2d_xp_pw(p) ? 0 : xb, oc_lo, oc_hi, q_lo, q_hi);
    return 1;
}

/* htc__conv2d_xp_sel4's layers (checked where sel is called: a function
   between them, its code fetched cold every layer, cost DS-CNN's and
   MobileNetV1's pointwise layers ~400 cycles each at 8 cores) */
static inline int htc__conv2d_xp_big4(const htc__conv_params *p, int32_t oc_lo, int32_t oc_hi)
{
    const int32_t K4 = (p->k_h * p->k_w * p->in_c + 3) & ~3;
    return p->xq2 && !htc__conv2d_xp_pw(p) && 4 * K4 > 2 * HTC__XP_COLS && K4 <= HTC__XP_COLS &&
           htc__conv2d_xp_quads(p, oc_lo, oc_hi, 0);
}

/* either (xq a constant NULL where inlined: only the TFLite one linked) */
static HTC__INLINE int htc__conv2d_xp_selx(const htc__conv_params *p, const htc__xql *xq, const int8_t *in, int8_t *out,
                                           int32_t oc_lo, int32_t oc_hi, int32_t q_lo, int32_t q_hi)
{
    if (xq) return htc__conv2d_xp_sel_ql(p, xq, in, out, oc_lo, oc_hi, q_lo, q_hi);
    if (htc__conv2d_xp_big4(p, oc_lo, oc_hi)) {
        htc__conv2d_xp_sel4(p, in, out, oc_lo, oc_hi, q_lo, q_hi);
        return 1;
    }
    return htc__conv2d_xp_sel(p, in, out, oc_lo, oc_hi, q_lo, q_hi);
}

static HTC__UNUSED int htc__conv2d_xp_ch(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t oc_lo, int32_t oc_hi)
{
    if (htc__conv2d_xp_big4(p, oc_lo, oc_hi)) {
        htc__conv2d_xp_sel4(p, in, out, oc_lo, oc_hi, 0, p->out_h * p->out_w);
        return 1;
    }
    return htc__conv2d_xp_sel(p, in, out, oc_lo, oc_hi, 0, p->out_h * p->out_w);
}

/* Output pixels [q_lo, q_hi) of a one-image layer, every channel (a core's
   share when the rows divide unevenly over the cores); 0, computing
   nothing, when the layer is not the XP path's. */
static HTC__INLINE HTC__UNUSED int htc__conv2d_xp_px(const htc__conv_params *p, const htc__xql *xq, const int8_t *in, int8_t *out, int32_t q_lo,
                                         int32_t q_hi)
{
    if (!htc__conv2d_xp_fits(p)) return 0;
    if (q_hi > q_lo) htc__conv2d_xp_selx(p, xq, in, out, 0, p->out_c, q_lo, q_hi);
    return 1;
}

static HTC__NOINLINE void htc__conv2d_xp(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    if (!htc__conv2d_xp_ch(p, in, out, 0, p->out_c)) htc__conv2d_port(p, in, out);
}
#endif

#if defined(HTC__XP)
static HTC__INLINE HTC__UNUSED void htc__conv2d_s8(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    if (p->w_zp) {                      /* uint8 weights (TFLite's legacy quantization): the loop */
        htc__conv_tflite_gen(p, 0, in, out, 0, p->out_c);
        return;
    }
    htc__conv2d_xp(p, in, out);
}
#elif defined(HTC__DSP)
static HTC__INLINE HTC__UNUSED void htc__conv2d_s8(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    if (p->w_zp) {                      /* uint8 weights (TFLite's legacy quantization): the loop */
        htc__conv_tflite_gen(p, 0, in, out, 0, p->out_c);
        return;
    }
#ifdef HTC__MVE
    if (htc__conv2d_mve_ok(p)) {
        if (p->k_h * p->k_w * p->in_c <= HTC__MVE_COLS_S) htc__conv2d_mve_s(p, in, out);
        else htc__conv2d_mve_l(p, in, out);
        return;
    }
#endif
    htc__conv2d_dsp(p, in, out);
}
#elif !defined(HTC__SSE2)
static HTC__INLINE HTC__UNUSED void htc__conv2d_s8(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    if (p->w_zp) {                      /* uint8 weights (TFLite's legacy quantization): the loop */
        htc__conv_tflite_gen(p, 0, in, out, 0, p->out_c);
        return;
    }
    htc__conv2d_port(p, in, out);
}
#else
static HTC__UNUSED void htc__conv2d_s8(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    if (p->w_zp) {                      /* uint8 weights (TFLite's legacy quantization): the loop */
        htc__conv_tflite_gen(p, 0, in, out, 0, p->out_c);
        return;
    }
    const int32_t in_h = p->in_h, in_w = p->in_w, in_c = p->in_c;
    const int32_t out_h = p->out_h, out_w = p->out_w, out_c = p->out_c;
    const int32_t k_h = p->k_h, k_w = p->k_w;
    const int32_t dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t off = -p->in_zp;
    const int32_t out_zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t mstep = p->per_channel ? 1 : 0;
    const int32_t wstride = k_h * k_w * in_c;         /* weight bytes per output channel */
    const int32_t row_stride = in_w * in_c;
    int32_t b, oc0, fast_end = 0;
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

    /* the fast paths take blocks of four output channels; the other
       channels (or the whole layer) go through the loop of every kind */
    if (c1x1 || (k_h == 1 && k_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 && p->pad_left == 0 &&
                 out_h == in_h && out_w == in_w) || (dil_w == 1 && wstride <= HTC__CONV_BORDER))
        fast_end = out_c - out_c % 4;
    if (fast_end == 0) {
        htc__conv_tflite_gen(p, 0, in, out, 0, out_c);
        return;
    }
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
        for (oc0 = 0; oc0 < fast_end; oc0 += 4) {
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
        }
    }
    if (fast_end < out_c) htc__conv_tflite_gen(p, 0, in, out, fast_end, out_c);
}
#endif

/* ---- TFLite depthwise fast paths: weights [1][kh][kw][out_c] ------------
   (reference_integer_ops::DepthwiseConvPerChannel) */

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

/* Path P (3x3 windows, dilation 1, depth_mult 1, layers htc__dsprq
   requantizes; one stride 1 or 2): channel by channel. A band of the
   channel's input lines is copied as int16 into a plane on the stack, padded
   with in_zp: lines of pw halfwords (even) from input column -pad_left, so
   output column ox's taps start at halfword ox * stride_w and a word holds
   two neighbouring columns. With the input offset folded into the start
   value (bias + off * sum(w), so the padding's products vanish), a kernel row
   adds its three products to an output by two instructions, from the line's
   words A = (x0, x1), B = (x2, x3) and the weight pairs W01 = (w0, w1),
   W12 = (w1, w2):
     output ox       SMLAD(A, W01) + SMLABT(B, W12)
     output ox + 1   SMLATB(A, W01) + SMLAD(B, W12)    (stride 1; stride 2:
                     SMLAD(B, W01) + SMLABT(C, W12), C the next word)
   The plane's lines are the input's rows, or its columns when the output is
   taller than wide (and the vertical stride is 1 or 2): the longer lines
   cost less per pixel. Bands of output lines keep the plane within
   HTC__DSP_DWPLANE halfwords; the padding is written once per band, each
   channel's lines over it. */
#ifndef HTC__DSP_DWPLANE
#define HTC__DSP_DWPLANE 512
#endif

/* one channel of path P. The Thumb-2 loop reads the fields around w by
   fixed offsets from it: keep the order. */
typedef struct {
    int32_t row[4];         /* per line: input bytes to skip, output bytes to skip, end step (bytes), lines left */
    int32_t q[4];           /* m2, c + (zp << e), e, output pixel stride (htc__dw3p_asm) */
    int32_t w[3];           /* W01, W12 of kernel row 0, a0 = bias + off * sum(w) */
    int32_t w2[4];          /* W01, W12 of kernel rows 1, 2 */
    int32_t odd;            /* a last single pixel per line */
    htc__dsprq rq;
    int32_t zp, lo, hi, full;
} htc__dw3p;

/* the layer's geometry along the plane's lines (v) and across them (u) */
typedef struct {
    int32_t in_u, in_v, out_u, out_v, s_u, s_v, pad_u, pad_v;
    int32_t iu, iv, ou, ov; /* byte strides of a step in u, v: input, output */
    int32_t ku, kv;         /* weight index strides (taps) of a step in u, v */
} htc__dw3g;

static HTC__UNUSED void htc__dw3p_geom(const htc__conv_params *p, htc__dw3g *g)
{
    const int32_t C = p->in_c;
    const int tr = p->out_h > p->out_w && (p->stride_h == 1 || p->stride_h == 2);
    g->in_u = tr ? p->in_w : p->in_h;
    g->in_v = tr ? p->in_h : p->in_w;
    g->out_u = tr ? p->out_w : p->out_h;
    g->out_v = tr ? p->out_h : p->out_w;
    g->s_u = tr ? p->stride_w : p->stride_h;
    g->s_v = tr ? p->stride_h : p->stride_w;
    g->pad_u = tr ? p->pad_left : p->pad_top;
    g->pad_v = tr ? p->pad_top : p->pad_left;
    g->iu = tr ? C : p->in_w * C;
    g->iv = tr ? p->in_w * C : C;
    g->ou = tr ? C : p->out_w * C;
    g->ov = tr ? p->out_w * C : C;
    g->ku = tr ? 1 : 3;
    g->kv = tr ? 3 : 1;
}

/* plane line stride (halfwords): output pixel out_v - 1 reads up to
   halfword (out_v - 1) * s_v + 3 */
static inline int32_t htc__dw3p_pw(const htc__dw3g *g) { return ((g->out_v - 1) * g->s_v + 5) & ~1; }

static HTC__UNUSED int htc__dw3p_ok(const htc__conv_params *p, int fast)
{
    htc__dw3g g;
    if (!fast || p->depth_mult != 1 || p->k_h != 3 || p->k_w != 3 || p->dil_h != 1 || p->dil_w != 1 || p->pad_left < 0 ||
        p->pad_top < 0)
        return 0;
    htc__dw3p_geom(p, &g);
    return (g.s_v == 1 || g.s_v == 2) && 3 * htc__dw3p_pw(&g) <= HTC__DSP_DWPLANE;
}

/* one output pixel from its window's first word y (line pitch pw) */
static HTC__INLINE int32_t htc__dw3p_one(const htc__dw3p *c, const int16_t *y, int32_t pw)
{
    int32_t s = htc__smlad(htc__ld32(y), c->w[0], c->w[2]);
    s = htc__smlabt(htc__ld32(y + 2), c->w[1], s);
    s = htc__smlad(htc__ld32(y + pw), c->w2[0], s);
    s = htc__smlabt(htc__ld32(y + pw + 2), c->w2[1], s);
    s = htc__smlad(htc__ld32(y + 2 * pw), c->w2[2], s);
    s = htc__smlabt(htc__ld32(y + 2 * pw + 2), c->w2[3], s);
    s = htc__dsprq_apply(c->rq, s) + c->zp;
    return c->full ? htc__ssat8(s) : htc__dsp_clamp(s, c->lo, c->hi);
}

/* the lines of a band in C: n lines from the plane x (rstep halfwords from
   one output line's windows to the next), sw the stride along the line; o
   the first output byte, ostep / orow bytes between pixels / lines */
static HTC__NOINLINE HTC__DSP_NOSCHED void htc__dw3p_rows(const htc__dw3p *c, const int16_t *x, int32_t pw, int32_t rstep,
                                                          int32_t sw, int8_t *o, int32_t ostep, int32_t orow, int32_t out_w,
                                                          int32_t n)
{
    for (; n > 0; n--, x += rstep, o += orow) {
        const int16_t *y = x;
        int8_t *d = o;
        int32_t k;
        for (k = 0; k < out_w; k++, y += sw, d += ostep) d[0] = HTC__CAST(int8_t, htc__dw3p_one(c, y, pw));
    }
}

/* Thumb-2 loops of path P (the full int8 range, e <= 23): the band's lines,
   pixels in pairs (then the odd one), from the plane y (y + pw, y + 2 pw:
   the kernel's rows 1, 2) to the output d; end: the first line's end of
   pairs. htc__dsprq_apply + zp is qadd(h + (h >> 31), c + (zp << e)) >> e
   here, h = SMMLAR(acc, m2, acc): the same value where the sum does not
   saturate; where it does, e <= 23 puts both beyond +-255, clamped to the
   same int8. The thirteen registers are named for LDM's register order. */
#ifdef HTC__DSP_ASM
#define HTC__DW3P_PAIR1                                                                                        \
    "ldrd %[a], %[b], [%[y0]], #4\n\t"                                                                         \
    "ldm %[tb], {r9, r10, lr}\n\t"                                                                             \
    "smlad %[s], %[a], %[wa], %[a0]\n\t"                                                                       \
    "smlatb %[t], %[a], %[wa], %[a0]\n\t"                                                                      \
    "smlabt %[s], %[b], %[wb], %[s]\n\t"                                                                       \
    "smlad %[t], %[b], %[wb], %[t]\n\t"                                                                        \
    "ldrd %[a], %[b], [%[y1]], #4\n\t"                                                                         \
    "ldrd %[wa], %[wb], [%[tb], #12]\n\t"                                                                      \
    "smlad %[s], %[a], %[wa], %[s]\n\t"                                                                        \
    "smlatb %[t], %[a], %[wa], %[t]\n\t"                                                                       \
    "smlabt %[s], %[b], %[wb], %[s]\n\t"                                                                       \
    "smlad %[t], %[b], %[wb], %[t]\n\t"                                                                        \
    "ldrd %[a], %[b], [%[y2]], #4\n\t"                                                                         \
    "ldrd %[wa], %[wb], [%[tb], #20]\n\t"                                                                      \
    "smlad %[s], %[a], %[wa], %[s]\n\t"                                                                        \
    "smlatb %[t], %[a], %[wa], %[t]\n\t"                                                                       \
    "smlabt %[s], %[b], %[wb], %[s]\n\t"                                                                       \
    "smlad %[t], %[b], %[wb], %[t]\n\t"
#define HTC__DW3P_PAIR2                                                                                        \
    "ldrd %[a], %[b], [%[y0]], #8\n\t"                                                                         \
    "ldm %[tb], {r9, r10, lr}\n\t"                                                                             \
    "smlad %[s], %[a], %[wa], %[a0]\n\t"                                                                       \
    "smlad %[t], %[b], %[wa], %[a0]\n\t"                                                                       \
    "smlabt %[s], %[b], %[wb], %[s]\n\t"                                                                       \
    "ldr %[a], [%[y0]]\n\t"                                                                                    \
    "smlabt %[t], %[a], %[wb], %[t]\n\t"                                                                       \
    "ldrd %[a], %[b], [%[y1]], #8\n\t"                                                                         \
    "ldrd %[wa], %[wb], [%[tb], #12]\n\t"                                                                      \
    "smlad %[s], %[a], %[wa], %[s]\n\t"                                                                        \
    "smlad %[t], %[b], %[wa], %[t]\n\t"                                                                        \
    "smlabt %[s], %[b], %[wb], %[s]\n\t"                                                                       \
    "ldr %[a], [%[y1]]\n\t"                                                                                    \
    "smlabt %[t], %[a], %[wb], %[t]\n\t"                                                                       \
    "ldrd %[a], %[b], [%[y2]], #8\n\t"                                                                         \
    "ldrd %[wa], %[wb], [%[tb], #20]\n\t"                                                                      \
    "smlad %[s], %[a], %[wa], %[s]\n\t"                                                                        \
    "smlad %[t], %[b], %[wa], %[t]\n\t"                                                                        \
    "smlabt %[s], %[b], %[wb], %[s]\n\t"                                                                       \
    "ldr %[a], [%[y2]]\n\t"                                                                                    \
    "smlabt %[t], %[a], %[wb], %[t]\n\t"
/* requantize s, t, store them ostep apart, next pair; then the odd pixel
   and the next line */
#define HTC__DW3P_TAIL                                                                                         \
    "ldmdb %[tb], {r6, r8, r9, r10}\n\t"                                                                       \
    "smmlar %[s], %[s], %[a], %[s]\n\t"                                                                        \
    "smmlar %[t], %[t], %[a], %[t]\n\t"                                                                        \
    "add %[s], %[s], %[s], asr #31\n\t"                                                                        \
    "add %[t], %[t], %[t], asr #31\n\t"                                                                        \
    "qadd %[s], %[s], %[b]\n\t"                                                                                \
    "qadd %[t], %[t], %[b]\n\t"                                                                                \
    "asr %[s], %[s], %[wa]\n\t"                                                                                \
    "asr %[t], %[t], %[wa]\n\t"                                                                                \
    "ssat %[s], #8, %[s]\n\t"                                                                                  \
    "ssat %[t], #8, %[t]\n\t"                                                                                  \
    "strb %[s], [%[d]]\n\t"                                                                                    \
    "strb %[t], [%[d], %[wb]]\n\t"                                                                             \
    "add %[d], %[d], %[wb], lsl #1\n\t"                                                                        \
    "cmp %[y0], %[end]\n\t"                                                                                    \
    "bne 1b\n\t"                                                                                               \
    "ldr %[a], [%[tb], #28]\n\t"                                                                               \
    "cbz %[a], 2f\n\t"                                                                                         \
    "ldrd %[a], %[b], [%[y0]]\n\t"                                                                             \
    "ldm %[tb], {r9, r10, lr}\n\t"                                                                             \
    "smlad %[s], %[a], %[wa], %[a0]\n\t"                                                                       \
    "smlabt %[s], %[b], %[wb], %[s]\n\t"                                                                       \
    "ldrd %[a], %[b], [%[y1]]\n\t"                                                                             \
    "ldrd %[wa], %[wb], [%[tb], #12]\n\t"                                                                      \
    "smlad %[s], %[a], %[wa], %[s]\n\t"                                                                        \
    "smlabt %[s], %[b], %[wb], %[s]\n\t"                                                                       \
    "ldrd %[a], %[b], [%[y2]]\n\t"                                                                             \
    "ldrd %[wa], %[wb], [%[tb], #20]\n\t"                                                                      \
    "smlad %[s], %[a], %[wa], %[s]\n\t"                                                                        \
    "smlabt %[s], %[b], %[wb], %[s]\n\t"                                                                       \
    "ldmdb %[tb], {r6, r8, r9, r10}\n\t"                                                                       \
    "smmlar %[s], %[s], %[a], %[s]\n\t"                                                                        \
    "add %[s], %[s], %[s], asr #31\n\t"                                                                        \
    "qadd %[s], %[s], %[b]\n\t"                                                                                \
    "asr %[s], %[s], %[wa]\n\t"                                                                                \
    "ssat %[s], #8, %[s]\n\t"                                                                                  \
    "strb %[s], [%[d]]\n\t"                                                                                    \
    "2:\n\t"                                                                                                   \
    "ldrd %[a], %[b], [%[tb], #-32]\n\t"                                                                       \
    "ldrd %[wa], %[wb], [%[tb], #-24]\n\t"                                                                     \
    "add %[y0], %[y0], %[a]\n\t"                                                                               \
    "add %[y1], %[y1], %[a]\n\t"                                                                               \
    "add %[y2], %[y2], %[a]\n\t"                                                                               \
    "add %[d], %[d], %[b]\n\t"                                                                                 \
    "add %[end], %[end], %[wa]\n\t"                                                                            \
    "subs %[wb], %[wb], #1\n\t"                                                                                \
    "str %[wb], [%[tb], #-20]\n\t"                                                                             \
    "bne 1b\n\t"
static HTC__NOINLINE void htc__dw3p_asm(htc__dw3p *c, const int16_t *y, int32_t pw, int8_t *d, const int16_t *end, int s2)
{
    register const int16_t *r_y0 __asm__("r0") = y;
    register const int16_t *r_y1 __asm__("r1") = y + pw;
    register const int16_t *r_y2 __asm__("r2") = y + 2 * pw;
    register int8_t *r_d __asm__("r3") = d;
    register int32_t r_s __asm__("r4"), r_t __asm__("r5"), r_a __asm__("r6"), r_b __asm__("r8");
    register int32_t r_wa __asm__("r9"), r_wb __asm__("r10"), r_a0 __asm__("lr");
    register const int16_t *r_end __asm__("r11") = end;
    register int32_t *r_tb __asm__("r12") = c->w;
#define HTC__DW3P_OPS                                                                                          \
    : [y0] "+r"(r_y0), [y1] "+r"(r_y1), [y2] "+r"(r_y2), [d] "+r"(r_d), [s] "=&r"(r_s), [t] "=&r"(r_t),        \
      [a] "=&r"(r_a), [b] "=&r"(r_b), [wa] "=&r"(r_wa), [wb] "=&r"(r_wb), [a0] "=&r"(r_a0), [end] "+r"(r_end)  \
    : [tb] "r"(r_tb)                                                                                           \
    : "cc", "memory"
    if (s2)
        __asm__ volatile("1:\n\t" HTC__DW3P_PAIR2 HTC__DW3P_TAIL HTC__DW3P_OPS);
    else
        __asm__ volatile("1:\n\t" HTC__DW3P_PAIR1 HTC__DW3P_TAIL HTC__DW3P_OPS);
#undef HTC__DW3P_OPS
}
#endif

/* n bytes sv apart to int16 at d, d + 1 ... (d odd: not word-aligned);
   d's words by PKHBT */
static HTC__INLINE void htc__dw3p_copy(int16_t *d, int odd, const int8_t *s, int32_t sv, int32_t n)
{
    if (n > 0 && odd) {
        *d++ = *s;
        s += sv;
        n--;
    }
    for (; n >= 4; n -= 4, d += 4, s += 4 * sv) {
        htc__st32w(d, htc__pack16(s[0], s[sv]));
        htc__st32w(d + 2, htc__pack16(s[2 * sv], s[3 * sv]));
    }
    for (; n > 0; n--, s += sv) *d++ = *s;
}

static HTC__NOINLINE void htc__dwconv2d_dsp3p(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    htc__dw3g g;
    int32_t pw, band, lp, ncopy, b, ou0, ch, t;
    const int32_t C = p->in_c, off = -p->in_zp, mstep = p->per_channel ? 1 : 0;
    union {
        int16_t h[HTC__DSP_DWPLANE];
        int32_t align;
    } buf;
    htc__dw3p c;
    htc__dw3p_geom(p, &g);
    pw = htc__dw3p_pw(&g);
    band = (HTC__DSP_DWPLANE / pw - 3) / g.s_u + 1;
    lp = g.pad_v < pw ? g.pad_v : pw;
    ncopy = g.in_v < pw - lp ? g.in_v : pw - lp;
    c.zp = p->out_zp;
    c.lo = p->act_min;
    c.hi = p->act_max;
    c.full = c.lo == -128 && c.hi == 127;
    c.q[3] = g.ov;
    c.odd = g.out_v & 1;
    c.row[0] = 2 * (g.s_u * pw - 2 * g.s_v * (g.out_v >> 1));
    c.row[1] = g.ou - 2 * (g.out_v >> 1) * g.ov;
    c.row[2] = 2 * g.s_u * pw;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * p->in_w * C;
        for (ou0 = 0; ou0 < g.out_u; ou0 += band) {
            const int32_t nb = g.out_u - ou0 < band ? g.out_u - ou0 : band, ph = (nb - 1) * g.s_u + 3, iu0 = ou0 * g.s_u - g.pad_u;
            const int32_t j0 = iu0 < 0 ? -iu0 : 0, j1 = g.in_u - iu0 < ph ? g.in_u - iu0 : ph;  /* plane lines from the input */
            int8_t *o = out + (size_t)b * p->out_h * p->out_w * C + (size_t)ou0 * g.ou;
            for (t = 0; t < ph * pw; t++) buf.h[t] = HTC__CAST(int16_t, p->in_zp);
            for (ch = 0; ch < C; ch++, o++) {
                const int8_t *w = p->weights + ch;
                int32_t j, sum = 0;
                for (t = 0; t < 9; t++) sum += w[t * C];
                for (t = 0; t < 3; t++) {
                    const int32_t u0 = w[t * g.ku * C], u1 = w[(t * g.ku + g.kv) * C], u2 = w[(t * g.ku + 2 * g.kv) * C];
                    int32_t *wp = t ? c.w2 + 2 * (t - 1) : c.w;
                    wp[0] = htc__pack16(u0, u1);
                    wp[1] = htc__pack16(u1, u2);
                }
                c.w[2] = HTC__CAST(int32_t, (p->bias ? HTC__CAST(uint32_t, p->bias[ch]) : 0u) + HTC__CAST(uint32_t, off * sum));
                c.rq = htc__dsprq_make(p->mult[ch * mstep], p->shift[ch * mstep]);
                for (j = j0; j < j1; j++)
                    htc__dw3p_copy(buf.h + j * pw + lp, lp & 1, in_b + (size_t)(iu0 + j) * g.iu + ch, g.iv, ncopy);
#ifdef HTC__DSP_ASM
                if (c.full && c.rq.e <= 23 && g.out_v >= 2) {
                    c.q[0] = c.rq.m2;
                    c.q[1] = c.rq.c + HTC__CAST(int32_t, HTC__CAST(uint32_t, c.zp) << c.rq.e);
                    c.q[2] = c.rq.e;
                    c.row[3] = nb;
                    htc__dw3p_asm(&c, buf.h, pw, o, buf.h + 2 * g.s_v * (g.out_v >> 1), g.s_v == 2);
                    continue;
                }
#endif
                htc__dw3p_rows(&c, buf.h, pw, g.s_u * pw, g.s_v, o, g.ov, g.ou, g.out_v, nb);
            }
        }
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
    const int fast = htc__dsp_rq_okr(p->rq, p->mult, p->shift, p->per_channel ? C : 1, p->bias, C, ntaps);
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
    const int fast = htc__prq_okr(p->rq, p->mult, p->shift, p->per_channel ? C : 1, p->bias, C, ntaps);
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

#ifdef HTC__MVE
/* Helium path, depth_mult 1, channels a multiple of 4, up to 25 taps. The
   lanes of an int32 vector are four channels (a block); per pixel and tap
   the block's four inputs and weights are loaded widened (VLDRB.S32),
   multiplied and added (MVE has no vector-by-vector multiply-accumulate).
   Channels go in chunks of up to 16 blocks. Per chunk, each input row the
   layer reads is copied once into a ring of rows padded with in_zp to the
   width the output rows read (rows above or below the input: a slot of
   in_zp), one word per column and block, block-major; so every window is
   whole and the input offset is folded into each block's start value
   (bias + off * sum of its weights over all taps). A table on the stack
   holds per block the start values, the requantization vectors and the
   taps' weight words, so one pointer with small offsets reads them, and
   the row pointers step by one block's row. Then per output row: pixel
   pairs outermost (3x3 with dilation 1: the pair shares its weight loads
   and, at stride 1, its input columns), the chunk's blocks inside,
   requantized per vector (htc__mve_rq). */
#ifndef HTC__MVE_DWRING
#define HTC__MVE_DWRING 1024    /* words of the row ring */
#endif
#define HTC__MVE_DWTBL 656      /* words of the block table: 16 blocks x (16 + 25 taps) */
#define HTC__MVE_DWROWS 16      /* kernel rows (k_h) at most */

typedef struct {
    int32x4_t lo, hi;
    int32_t zp;
} htc__dw_mve_out;

/* the block's vector s (its table at tb: init, m, -right, left) to o */
static HTC__INLINE void htc__dw_mve_put(const int32_t *tb, int32x4_t s, const htc__dw_mve_out *q, int8_t *o)
{
    s = htc__mve_rq(s, vldrwq_s32(tb + 4), vldrwq_s32(tb + 12), vldrwq_s32(tb + 8));
    vstrbq_s32(o, vminq_s32(vmaxq_s32(vaddq_n_s32(s, q->zp), q->lo), q->hi));
}

/* 3x3, dilation 1: the pixel pair at words r0, r1, r2 of the kernel rows in
   the first block (stride st words: 1 or 2), nb blocks bs words apart, to
   o and o + C (the second only when two) */
static HTC__INLINE void htc__dw3x3_mve_pair(const uint32_t *r0, const uint32_t *r1, const uint32_t *r2, int32_t bs, const int32_t *tb,
                                            int32_t nb, const int st, const htc__dw_mve_out *q, int8_t *o, int32_t C, int two)
{
    for (; nb > 0; nb--, r0 += bs, r1 += bs, r2 += bs, tb += 25, o += 4) {
        int32x4_t s0 = vldrwq_s32(tb), s1 = s0;
#if defined(__OPTIMIZE__)
        /* in asm (gcc 12 spills the vectors of this block): per kernel row
           the three weight vectors, then the input columns, each once */
#define HTC__DW3_W(R, U)                                                     \
            "vldrb.s32 q0, [%[" R "]]\n\t"                                  \
            "vldrb.s32 q1, [%[tb], #" U "]\n\t"                            \
            "vldrb.s32 q2, [%[tb], #" U "+4]\n\t"                          \
            "vldrb.s32 q3, [%[tb], #" U "+8]\n\t"                          \
            "vmul.i32 q4, q0, q1\n\t"                                      \
            "vadd.i32 %q[s0], %q[s0], q4\n\t"
#define HTC__DW3_S1(R)                                                       \
            "vldrb.s32 q0, [%[" R "], #4]\n\t"                              \
            "vmul.i32 q4, q0, q2\n\t"                                      \
            "vadd.i32 %q[s0], %q[s0], q4\n\t"                              \
            "vmul.i32 q4, q0, q1\n\t"                                      \
            "vadd.i32 %q[s1], %q[s1], q4\n\t"                              \
            "vldrb.s32 q0, [%[" R "], #8]\n\t"                              \
            "vmul.i32 q4, q0, q3\n\t"                                      \
            "vadd.i32 %q[s0], %q[s0], q4\n\t"                              \
            "vmul.i32 q4, q0, q2\n\t"                                      \
            "vadd.i32 %q[s1], %q[s1], q4\n\t"                              \
            "vldrb.s32 q0, [%[" R "], #12]\n\t"                             \
            "vmul.i32 q4, q0, q3\n\t"                                      \
            "vadd.i32 %q[s1], %q[s1], q4\n\t"
#define HTC__DW3_S2(R)                                                       \
            "vldrb.s32 q0, [%[" R "], #4]\n\t"                              \
            "vmul.i32 q4, q0, q2\n\t"                                      \
            "vadd.i32 %q[s0], %q[s0], q4\n\t"                              \
            "vldrb.s32 q0, [%[" R "], #8]\n\t"                              \
            "vmul.i32 q4, q0, q3\n\t"                                      \
            "vadd.i32 %q[s0], %q[s0], q4\n\t"                              \
            "vmul.i32 q4, q0, q1\n\t"                                      \
            "vadd.i32 %q[s1], %q[s1], q4\n\t"                              \
            "vldrb.s32 q0, [%[" R "], #12]\n\t"                             \
            "vmul.i32 q4, q0, q2\n\t"                                      \
            "vadd.i32 %q[s1], %q[s1], q4\n\t"                              \
            "vldrb.s32 q0, [%[" R "], #16]\n\t"                             \
            "vmul.i32 q4, q0, q3\n\t"                                      \
            "vadd.i32 %q[s1], %q[s1], q4\n\t"
#define HTC__DW3_ONE(R)                                                      \
            "vldrb.s32 q0, [%[" R "], #4]\n\t"                              \
            "vmul.i32 q4, q0, q2\n\t"                                      \
            "vadd.i32 %q[s0], %q[s0], q4\n\t"                              \
            "vldrb.s32 q0, [%[" R "], #8]\n\t"                              \
            "vmul.i32 q4, q0, q3\n\t"                                      \
            "vadd.i32 %q[s0], %q[s0], q4\n\t"
        if (!two)   /* the last pixel of an odd row alone */
            __asm__(HTC__DW3_W("r0", "64") HTC__DW3_ONE("r0") HTC__DW3_W("r1", "76") HTC__DW3_ONE("r1")
                    HTC__DW3_W("r2", "88") HTC__DW3_ONE("r2")
                    : [s0] "+w"(s0)
                    : [r0] "r"(r0), [r1] "r"(r1), [r2] "r"(r2), [tb] "r"(tb)
                    : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9");
        else if (st == 1)
            __asm__(HTC__DW3_W("r0", "64") HTC__DW3_S1("r0") HTC__DW3_W("r1", "76") HTC__DW3_S1("r1")
                    HTC__DW3_W("r2", "88") HTC__DW3_S1("r2")
                    : [s0] "+w"(s0), [s1] "+w"(s1)
                    : [r0] "r"(r0), [r1] "r"(r1), [r2] "r"(r2), [tb] "r"(tb)
                    : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9");
        else
            __asm__(HTC__DW3_W("r0", "64") HTC__DW3_S2("r0") HTC__DW3_W("r1", "76") HTC__DW3_S2("r1")
                    HTC__DW3_W("r2", "88") HTC__DW3_S2("r2")
                    : [s0] "+w"(s0), [s1] "+w"(s1)
                    : [r0] "r"(r0), [r1] "r"(r1), [r2] "r"(r2), [tb] "r"(tb)
                    : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9");
#undef HTC__DW3_W
#undef HTC__DW3_S1
#undef HTC__DW3_S2
#undef HTC__DW3_ONE
#else
        {
            int32_t ky;
            for (ky = 0; ky < 3; ky++) {
                const int8_t *r = HTC__CAST(const int8_t *, HTC__CAST(const void *, ky == 0 ? r0 : (ky == 1 ? r1 : r2)));
                const int8_t *u = HTC__CAST(const int8_t *, HTC__CAST(const void *, tb + 16 + 3 * ky));
                const int32x4_t w0 = vldrbq_s32(u), w1 = vldrbq_s32(u + 4), w2 = vldrbq_s32(u + 8);
                int32x4_t v = vldrbq_s32(r);
                s0 = vaddq_s32(s0, vmulq_s32(v, w0));
                v = vldrbq_s32(r + 4);
                s0 = vaddq_s32(s0, vmulq_s32(v, w1));
                if (st == 1) s1 = vaddq_s32(s1, vmulq_s32(v, w0));
                v = vldrbq_s32(r + 8);
                s0 = vaddq_s32(s0, vmulq_s32(v, w2));
                s1 = vaddq_s32(s1, vmulq_s32(v, st == 1 ? w1 : w0));
                v = vldrbq_s32(r + 12);
                s1 = vaddq_s32(s1, vmulq_s32(v, st == 1 ? w2 : w1));
                if (st == 2) s1 = vaddq_s32(s1, vmulq_s32(vldrbq_s32(r + 16), w2));
            }
        }
#endif
        htc__dw_mve_put(tb, s0, q, o);
        if (two) htc__dw_mve_put(tb, s1, q, o + C);
    }
}

/* one output row of a 3x3 dilation-1 layer at stride st (1 or 2) */
static HTC__INLINE void htc__dw3x3_mve_row(const uint32_t *const *rows, int32_t bs, const int32_t *tb, int32_t nb, const int st,
                                           const htc__dw_mve_out *q, int8_t *o, int32_t C, int32_t out_w)
{
    int32_t ox;
    for (ox = 0; ox < out_w; ox += 2, o += 2 * C)
        htc__dw3x3_mve_pair(rows[0] + ox * st, rows[1] + ox * st, rows[2] + ox * st, bs, tb, nb, st, q, o, C, ox + 1 < out_w);
}

static HTC__NOINLINE void htc__dw3x3_mve_s1(const uint32_t *const *rows, int32_t bs, const int32_t *tb, int32_t nb,
                                            const htc__dw_mve_out *q, int8_t *o, int32_t C, int32_t out_w)
{
    htc__dw3x3_mve_row(rows, bs, tb, nb, 1, q, o, C, out_w);
}

static HTC__NOINLINE void htc__dw3x3_mve_s2(const uint32_t *const *rows, int32_t bs, const int32_t *tb, int32_t nb,
                                            const htc__dw_mve_out *q, int8_t *o, int32_t C, int32_t out_w)
{
    htc__dw3x3_mve_row(rows, bs, tb, nb, 2, q, o, C, out_w);
}

/* one output row of any kernel shape: pixels stride st words apart, taps
   cs words apart, table entries tw words per block */
static HTC__NOINLINE void htc__dw_mve_row(const uint32_t *const *rows, int32_t bs, const int32_t *tb, int32_t nb, int32_t st,
                                          int32_t cs, int32_t k_h, int32_t k_w, const htc__dw_mve_out *q, int8_t *o, int32_t C,
                                          int32_t out_w)
{
    const int32_t tw = 16 + k_h * k_w;
    int32_t ox, j, ky, kx;
    for (ox = 0; ox < out_w; ox++, o += C) {
        const int32_t *t = tb;
        for (j = 0; j < nb; j++, t += tw) {
            int32x4_t s = vldrwq_s32(t);
            const int8_t *u = HTC__CAST(const int8_t *, HTC__CAST(const void *, t + 16));
            for (ky = 0; ky < k_h; ky++) {
                const int8_t *r = HTC__CAST(const int8_t *, HTC__CAST(const void *, rows[ky] + j * bs + ox * st));
                for (kx = 0; kx < k_w; kx++, r += 4 * cs, u += 4) s = vaddq_s32(s, vmulq_s32(vldrbq_s32(r), vldrbq_s32(u)));
            }
            htc__dw_mve_put(t, s, q, o + 4 * j);
        }
    }
}

/* blocks per chunk: 0 if the layer does not fit the ring and the table */
static HTC__UNUSED int32_t htc__dw_mve_nb(const htc__conv_params *p)
{
    const int32_t wp = (p->out_w - 1) * p->stride_w + (p->k_w - 1) * p->dil_w + 1 + 4;
    const int32_t span = (p->k_h - 1) * p->dil_h + 1, taps = p->k_h * p->k_w;
    int32_t nb = p->in_c / 4 < 16 ? p->in_c / 4 : 16;
    if (p->depth_mult != 1 || (p->in_c & 3) || taps > 25 || p->k_h > HTC__MVE_DWROWS) return 0;
    while (nb > 0 && ((span + 1) * nb * wp > HTC__MVE_DWRING || nb * (16 + taps) > HTC__MVE_DWTBL)) nb--;
    return nb;
}

/* 1 if the MVE path takes the depthwise layer */
static HTC__UNUSED int htc__dwconv2d_mve_ok(const htc__conv_params *p) { return htc__dw_mve_nb(p) > 0; }

static HTC__NOINLINE void htc__dwconv2d_mve(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    const int32_t in_h = p->in_h, in_w = p->in_w, C = p->in_c, out_h = p->out_h, out_w = p->out_w;
    const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, ntaps = k_h * k_w, tw = 16 + ntaps;
    const int32_t row_stride = in_w * C, off = -p->in_zp, pl = p->pad_left;
    /* the padded row width, + 4 words of slack that a last single pixel of a pair may read */
    const int32_t wp = (out_w - 1) * p->stride_w + (k_w - 1) * p->dil_w + 1, bs = wp + 4;
    const int32_t span = (k_h - 1) * dil_h + 1, nbmax = htc__dw_mve_nb(p);
    const int32_t lpad = pl < wp ? pl : wp, mid_end = in_w + pl < wp ? in_w + pl : wp;
    const uint32_t zp4 = (HTC__CAST(uint32_t, p->in_zp) & 0xffu) * 0x01010101u;
    const int k3 = k_h == 3 && k_w == 3 && p->dil_w == 1 && (p->stride_w == 1 || p->stride_w == 2);
    uint32_t ring[HTC__MVE_DWRING];
    int32_t tbl[HTC__MVE_DWTBL];
    const uint32_t *rows[HTC__MVE_DWROWS];
    int32_t have[HTC__MVE_DWROWS + 1];
    const uint32x4_t boff = vmulq_n_u32(vidupq_n_u32(0, 1), HTC__CAST(uint32_t, bs));   /* words between blocks */
    htc__dw_mve_out q;
    int32_t c0, b, t, j, k;
    q.zp = p->out_zp;
    q.lo = vdupq_n_s32(p->act_min);
    q.hi = vdupq_n_s32(p->act_max);
    for (c0 = 0; c0 < C; c0 += 4 * nbmax) {
        const int32_t nb = (C - c0) / 4 < nbmax ? (C - c0) / 4 : nbmax, ss = nb * bs;
        uint32_t *const zslot = ring + span * ss;
        /* the table */
        for (j = 0; j < nb; j++) {
            const int32_t c = c0 + 4 * j;
            int32_t *tb = tbl + j * tw;
            int32x4_t ws = vdupq_n_s32(0), sh, bias;
            for (t = 0; t < ntaps; t++) {
                const int8_t *w = p->weights + (size_t)t * C + c;
                memcpy(tb + 16 + t, w, 4);
                ws = vaddq_s32(ws, vldrbq_s32(w));
            }
            bias = p->bias ? vldrwq_s32(p->bias + c) : vdupq_n_s32(0);
            sh = p->per_channel ? vldrbq_s32(p->shift + c) : vdupq_n_s32(p->shift[0]);
            vstrwq_s32(tb, vaddq_s32(bias, vmulq_n_s32(ws, off)));
            vstrwq_s32(tb + 4, p->per_channel ? vldrwq_s32(p->mult + c) : vdupq_n_s32(p->mult[0]));
            vstrwq_s32(tb + 8, vminq_s32(sh, vdupq_n_s32(0)));
            vstrwq_s32(tb + 12, vmaxq_s32(sh, vdupq_n_s32(0)));
        }
        for (j = 0; j < ss; j++) zslot[j] = zp4;
        for (b = 0; b < p->batches; b++) {
            const int8_t *in_b = in + (size_t)b * in_h * row_stride + c0;
            int8_t *o = out + (size_t)b * out_h * out_w * C + c0;
            int32_t oy, ky;
            for (j = 0; j < span; j++) have[j] = -1;
            for (oy = 0; oy < out_h; oy++, o += (size_t)out_w * C) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                for (ky = 0; ky < k_h; ky++) {
                    const int32_t iy = iy0 + ky * dil_h, slot = iy < 0 ? 0 : iy % span;
                    uint32_t *d = ring + slot * ss;
                    if (iy < 0 || iy >= in_h) {
                        rows[ky] = zslot;
                        continue;
                    }
                    rows[ky] = d;
                    if (have[slot] != iy) {
                        /* the row's columns, block-major, padded: per column the words of
                           four blocks by one load and one scatter store */
                        const int8_t *x = in_b + (size_t)iy * row_stride + (lpad - pl) * C;
                        have[slot] = iy;
                        if (nb & 3) {
                            /* block by block */
                            for (k = 0; k < nb; k++, d += bs) {
                                const int8_t *xk = x + 4 * k;
                                uint32_t *e = d;
                                for (j = 0; j < lpad; j++) *e++ = zp4;
                                for (; j < mid_end; j++, xk += C) memcpy(e++, xk, 4);
                                for (; j < bs; j++) *e++ = zp4;
                            }
                        } else {
                            for (k = 0; k < nb; k++) {
                                for (j = 0; j < lpad; j++) d[k * bs + j] = zp4;
                                for (j = mid_end; j < bs; j++) d[k * bs + j] = zp4;
                            }
                            for (j = lpad; j < mid_end; j++, x += C)
                                for (k = 0; k < nb; k += 4)
                                    vstrwq_scatter_shifted_offset_u32(d + k * bs + j, boff,
                                                                      vreinterpretq_u32_s8(vldrbq_s8(x + 4 * k)));
                        }
                    }
                }
                if (k3 && p->stride_w == 1)
                    htc__dw3x3_mve_s1(rows, bs, tbl, nb, &q, o, C, out_w);
                else if (k3)
                    htc__dw3x3_mve_s2(rows, bs, tbl, nb, &q, o, C, out_w);
                else
                    htc__dw_mve_row(rows, bs, tbl, nb, p->stride_w, p->dil_w, k_h, k_w, &q, o, C, out_w);
            }
        }
    }
}
#endif

/* The path is chosen from the layer's constant parameters: with the call
   inlined the compiler folds the choice and links only the paths used. */
#ifdef HTC__XP
/* XpulpV2 path (HTC__XP), depth multiplier 1, channel-planar: each channel
   of the core's share is copied into a plane on the stack (HTC__XP_DWBUF
   bytes; four channels' planes from one word load per input pixel when C %
   4 == 0), lines of L bytes with in_zp in the padding, so that each
   kernel line of an output is one word load and one pv.sdotsp.b with that
   line's taps (zero past the fourth). The lines run along the longer
   output dimension: input rows, or input columns when the output is taller
   than wide (DS-CNN's 25x5 / 20x5: five rows of 25 or 20 outputs instead
   of 25 rows of 5), kernels up to 4 taps along a line (dilation 1 there)
   and 8 across. The padding is written once per call (it stays where it
   is: only the lines' interiors and lines outside the input are written
   again), the input offset is folded into the start value bias - in_zp *
   sum(w), and a channel's constants stay in registers over its plane:
   3-line kernels with the exact 32-bit requantization run a hardware loop
   of three post-increment loads, three dot products and the epilogue per
   output (htc__dw_xp_line3). Output lines in chunks when a plane does not
   hold them all. */
#ifndef HTC__XP_DWBUF
#define HTC__XP_DWBUF 2048
#endif
/* the shortest line whose outputs go in pairs (htc__dw_xp_lines3p_*) */
#ifndef HTC__XP_DWPAIR
#define HTC__XP_DWPAIR 12
#endif

/* the plane geometry: "along" a line and "across" lines */
typedef struct {
    int32_t na, nl;             /* outputs along a line, output lines */
    int32_t sa, sl, dl;         /* strides along / across, dilation across */
    int32_t ka, kl;             /* kernel taps along (<= 4) / across (<= 8) */
    int32_t pa, pl;             /* padding before, along / across */
    int32_t ina, inl;           /* input extent along / across */
    int32_t ea, el;             /* input bytes from one element to the next along / across */
    int32_t oa, ol;             /* output bytes along / across */
    int32_t L, span;            /* plane line bytes (multiple of 4), input lines a window spans */
    int tr;                     /* lines are input columns */
} htc__dwxg;

static inline void htc__dwxg_make(const htc__conv_params *p, int tr, htc__dwxg *g)
{
    const int32_t C = p->in_c;
    g->tr = tr;
    if (tr) {
        g->na = p->out_h; g->nl = p->out_w; g->sa = p->stride_h; g->sl = p->stride_w; g->dl = p->dil_w;
        g->ka = p->k_h; g->kl = p->k_w; g->pa = p->pad_top; g->pl = p->pad_left; g->ina = p->in_h; g->inl = p->in_w;
        g->ea = p->in_w * C; g->el = C; g->oa = p->out_w * C; g->ol = C;
    } else {
        g->na = p->out_w; g->nl = p->out_h; g->sa = p->stride_w; g->sl = p->stride_h; g->dl = p->dil_h;
        g->ka = p->k_w; g->kl = p->k_h; g->pa = p->pad_left; g->pl = p->pad_top; g->ina = p->in_w; g->inl = p->in_h;
        g->ea = C; g->el = p->in_w * C; g->oa = C; g->ol = p->out_w * C;
    }
    g->L = ((g->na - 1) * g->sa + 4 + 3) & ~3;
    g->span = (g->kl - 1) * g->dl + 1;
}

/* the plane geometry of orientation tr fits one channel's plane? */
static inline int htc__dwxg_fits(const htc__conv_params *p, int tr)
{
    const int32_t ka = tr ? p->k_h : p->k_w, kl = tr ? p->k_w : p->k_h, da = tr ? p->dil_h : p->dil_w;
    const int32_t dl = tr ? p->dil_w : p->dil_h, na = tr ? p->out_h : p->out_w, sa = tr ? p->stride_h : p->stride_w;
    const int32_t L = ((na - 1) * sa + 4 + 3) & ~3;
    return ka <= 4 && da == 1 && kl <= 8 && (kl - 1) * dl + 1 <= HTC__XP_DWBUF / L;
}

/* the orientation: columns when the output is taller than wide and they fit */
static inline int htc__dwxg_tr(const htc__conv_params *p)
{
    return p->out_h > p->out_w && htc__dwxg_fits(p, 1);
}

static inline int htc__dwconv2d_xp_ok(const htc__conv_params *p)
{
    return p->depth_mult == 1 && (htc__dwxg_tr(p) || htc__dwxg_fits(p, 0));
}

/* One channel's constants for a 3-line kernel: the start value, the taps
   of each line (one word), the exact requantization (zp added, then
   clamped to [lo, hi]; QuantLib's: zp 0, in q, and f folded into q.c:
   its lines start from the dot products alone). Kinds 3 and 4 (the
   channel's final-form record, htc__xq2_apply) start from the dot
   products alone (pv.dotsp.b, no start value): the record's f folded
   into its constants (htc__dw_xp_fold), the sum clamped to [clo, chi]
   = [-f, w - f]; kind 3 then ((c1 + u * ml) >> 15) + u * mh + c2) >> s,
   kind 4 (a record in one product, mh = 0: gen/quant.c xq1_channel)
   (u * ml + c1) >> s, every sum modulo 2^32 (the same words as the
   record's for u + f). */
typedef struct {
    int32_t f;
    uint32_t w0, w1, w2;
    htc__xrq q;
    int32_t zp, lo, hi;
    int32_t clo, chi, s;
    uint32_t ml, mh, c1, c2;
} htc__dw3k;

/* k's kind 3 or 4 constants from the record r (4 when it is in one
   product: mh 0, s 1..9; a two-product record's s is 17 or more) */
static HTC__INLINE int htc__dw_xp_fold(const int32_t *r, htc__dw3k *k)
{
    const int32_t f = r[HTC__XQ2_F];
    const uint32_t uf = HTC__CAST(uint32_t, f);
    k->clo = -f;
    k->chi = r[HTC__XQ2_W] - f;
    k->ml = HTC__CAST(uint32_t, r[HTC__XQ2_ML]);
    k->mh = HTC__CAST(uint32_t, r[HTC__XQ2_MH]);
    if (k->mh == 0 && r[HTC__XQ2_S] >= 1 && r[HTC__XQ2_S] <= 9) {
        k->c1 = HTC__CAST(uint32_t, r[HTC__XQ2_RLO]) + (HTC__CAST(uint32_t, r[HTC__XQ2_RHI]) << 15) + uf * k->ml;
        k->c2 = 0;
        k->s = r[HTC__XQ2_S] + 15;
        return 4;
    }
    k->c1 = HTC__CAST(uint32_t, r[HTC__XQ2_RLO]) + uf * k->ml;
    k->c2 = HTC__CAST(uint32_t, r[HTC__XQ2_RHI]) + uf * k->mh;
    k->s = r[HTC__XQ2_S];
    return 3;
}

/* kind 3 / 4's output of the dot products' sum a (htc__dw3k) */
static HTC__INLINE int32_t htc__dw_xp_fout(const htc__dw3k *k, int ql, int32_t a)
{
    const uint32_t u = HTC__CAST(uint32_t, htc__xp_clamp(a, k->clo, k->chi));
    if (ql == 4) return HTC__CAST(int32_t, u * k->ml + k->c1) >> k->s;
    return HTC__CAST(int32_t, ((k->c1 + u * k->ml) >> 15) + u * k->mh + k->c2) >> k->s;
}

/* Fragments shared by the depthwise lines' asm loops (one string each):
   HTC__DW_ASM_TFL(R) requantizes the accumulator operand R as
   htc__xrq_apply (MULHSU, rounding, shift), adds the zero point, clamps and
   stores a byte through %[d] (p.sb, post-increment %[os]); HTC__DW_ASM_XQ2(R, T)
   does the same by the two-p.mac record (htc__xq2_apply) in scratch T;
   HTC__DW_ASM_PAIR starts two outputs from the bias %[f] and takes the three
   line words t0-t2 with the taps and the taps shifted a byte;
   HTC__DW_ASM_PAIR0 the same from zero (pv.dotsp.b, kinds 3 and 4, whose
   constants hold the start value); HTC__DW_ASM_X1(R) kind 4's
   requantization (clamp, one product, shift) and store. */
#define HTC__DW_ASM_TFL(R) \
    "mulhsu t0, " R ", %[m]\n\t" \
    "mul t1, " R ", %[m]\n\t" \
    "srli t1, t1, 31\n\tadd t0, t0, t1\n\tsrai t1, t0, 31\n\tadd t0, t0, %[c]\n\tadd t0, t0, t1\n\t" \
    "sra t0, t0, %[e]\n\tadd t0, t0, %[zp]\n\t" \
    ".insn r 0x33, 6, 0x02, t0, t0, %[lo]\n\t.insn r 0x33, 4, 0x02, t0, t0, %[hi]\n\t" \
    ".insn r 0x2b, 4, 0x00, %[os], %[d], t0\n\t"
#define HTC__DW_ASM_XQ2(R, T) \
    ".insn r 0x33, 6, 0x02, " R ", " R ", %[clo]\n\t.insn r 0x33, 4, 0x02, " R ", " R ", %[chi]\n\t" \
    "mv " T ", %[rlo]\n\t.insn r 0x33, 0, 0x21, " T ", " R ", %[ml]\n\tsrli " T ", " T ", 15\n\t" \
    ".insn r 0x33, 0, 0x21, " T ", " R ", %[mh]\n\tadd " T ", " T ", %[rhi]\n\tsra " T ", " T ", %[s]\n\t" \
    ".insn r 0x2b, 4, 0x00, %[os], %[d], " T "\n\t"
#define HTC__DW_ASM_PAIR \
    "mv %[acc], %[f]\n\tmv %[a1], %[f]\n\t" \
    ".insn r 0x57, 1, 0x5c, %[acc], t0, %[w0]\n\t.insn r 0x57, 1, 0x5c, %[a1], t0, %[w0s]\n\t" \
    ".insn r 0x57, 1, 0x5c, %[acc], t1, %[w1]\n\t.insn r 0x57, 1, 0x5c, %[a1], t1, %[w1s]\n\t" \
    ".insn r 0x57, 1, 0x5c, %[acc], t2, %[w2]\n\t.insn r 0x57, 1, 0x5c, %[a1], t2, %[w2s]\n\t"
#define HTC__DW_ASM_PAIR0 \
    ".insn r 0x57, 1, 0x4c, %[acc], t0, %[w0]\n\t.insn r 0x57, 1, 0x4c, %[a1], t0, %[w0s]\n\t" \
    ".insn r 0x57, 1, 0x5c, %[acc], t1, %[w1]\n\t.insn r 0x57, 1, 0x5c, %[a1], t1, %[w1s]\n\t" \
    ".insn r 0x57, 1, 0x5c, %[acc], t2, %[w2]\n\t.insn r 0x57, 1, 0x5c, %[a1], t2, %[w2s]\n\t"
#define HTC__DW_ASM_X1(R) \
    ".insn r 0x33, 6, 0x02, " R ", " R ", %[clo]\n\t.insn r 0x33, 4, 0x02, " R ", " R ", %[chi]\n\t" \
    "mul " R ", " R ", %[ml]\n\tadd " R ", " R ", %[c1]\n\tsra " R ", " R ", %[s]\n\t" \
    ".insn r 0x2b, 4, 0x00, %[os], %[d], " R "\n\t"

/* nl output lines of na outputs of one channel's plane, a 3-line kernel:
   x the first output's window on the first plane line; plane lines dl
   bytes apart within a window, lstep bytes from one output line to the
   next, sa bytes from one output to the next along; o the first output,
   oa bytes apart along, ol from one line to the next. ql: QuantLib's
   requantization (htc__xql_apply), 2: onnxruntime's exact shift
   (htc__xrq_rne), else TFLite's (htc__xrq_apply). With the instructions
   (HTC__XP_ASM) each line of the first two is one hardware loop of three
   post-increment loads (p.lw rd, rs(rs1!)), three pv.sdotsp.b, the
   requantization, the clamp (p.max, p.min) and a post-increment store. */
static HTC__INLINE void htc__dw_xp_lines3(const int8_t *x, int32_t dl, int32_t lstep, int32_t sa, int32_t na, int32_t nl, int8_t *o,
                                          int32_t oa, int32_t ol, const htc__dw3k *k, const int ql, const int pair)
{
    /* the constants in locals: the asm's memory clobber would reload them from *k every line */
    const int32_t f = k->f, m2 = HTC__CAST(int32_t, k->q.m2), qc = k->q.c, qe = k->q.e, zp = k->zp, lo = k->lo, hi = k->hi;
    const uint32_t w0 = k->w0, w1 = k->w1, w2 = k->w2;
    const int32_t clo = k->clo, chi = k->chi, rs = k->s;
    const uint32_t rml = k->ml, rmh = k->mh, rlo = k->c1, rhi = k->c2;
    /* stride 1 and three taps a line: outputs in pairs, both from one
       word load a line (the second with the taps shifted up a byte) */
    const uint32_t w0s = w0 << 8, w1s = w1 << 8, w2s = w2 << 8;
    const int32_t np = pair ? na >> 1 : 0;
    int32_t l;
    (void)f; (void)m2; (void)qc; (void)qe; (void)zp; (void)lo; (void)hi; (void)w0; (void)w1; (void)w2;
    (void)clo; (void)chi; (void)rlo; (void)rml; (void)rmh; (void)rhi; (void)rs; (void)w0s; (void)w1s; (void)w2s; (void)np;
#ifdef HTC__XP_ASM
    if (pair && na >= 2 && (ql == 1 || ql == 3 || ql == 4)) {
        /* the pairs of every line in one asm block (nested hardware loops
           as below), then the last output of lines of odd length by the
           single-output block on that column */
        const int8_t *x0 = x, *x1 = x + dl, *x2 = x1 + dl;
        int8_t *d = o;
        const int32_t dx = lstep - 2 * np, dd = ol - 2 * np * oa;
        int32_t acc, a1;
        if (ql == 4)
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x1, %[nl], 52\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 42\n\t"
                             ".insn i 0x0b, 2, t0, 2(%[x0])\n\t"
                             ".insn i 0x0b, 2, t1, 2(%[x1])\n\t"
                             ".insn i 0x0b, 2, t2, 2(%[x2])\n\t"
                             HTC__DW_ASM_PAIR0
                             HTC__DW_ASM_X1("%[acc]")
                             HTC__DW_ASM_X1("%[a1]")
                             "add %[x0], %[x0], %[dx]\n\t"
                             "add %[x1], %[x1], %[dx]\n\t"
                             "add %[x2], %[x2], %[dx]\n\t"
                             "add %[d], %[d], %[dd]\n\t"
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc), [a1] "=&r"(a1)
                             : [nl] "r"(nl), [n] "r"(np), [os] "r"(oa), [dx] "r"(dx), [dd] "r"(dd), [w0] "r"(w0), [w1] "r"(w1),
                               [w2] "r"(w2), [w0s] "r"(w0s), [w1s] "r"(w1s), [w2s] "r"(w2s), [clo] "r"(clo), [chi] "r"(chi),
                               [ml] "r"(rml), [c1] "r"(rlo), [s] "r"(rs)
                             : "t0", "t1", "t2", "memory");
        else if (ql == 3)
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x1, %[nl], 64\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 54\n\t"
                             ".insn i 0x0b, 2, t0, 2(%[x0])\n\t"
                             ".insn i 0x0b, 2, t1, 2(%[x1])\n\t"
                             ".insn i 0x0b, 2, t2, 2(%[x2])\n\t"
                             HTC__DW_ASM_PAIR0
                             HTC__DW_ASM_XQ2("%[acc]", "t0")
                             HTC__DW_ASM_XQ2("%[a1]", "t1")
                             "add %[x0], %[x0], %[dx]\n\t"
                             "add %[x1], %[x1], %[dx]\n\t"
                             "add %[x2], %[x2], %[dx]\n\t"
                             "add %[d], %[d], %[dd]\n\t"
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc), [a1] "=&r"(a1)
                             : [nl] "r"(nl), [n] "r"(np), [os] "r"(oa), [dx] "r"(dx), [dd] "r"(dd), [w0] "r"(w0), [w1] "r"(w1),
                               [w2] "r"(w2), [w0s] "r"(w0s), [w1s] "r"(w1s), [w2s] "r"(w2s), [clo] "r"(clo), [chi] "r"(chi),
                               [rlo] "r"(rlo), [ml] "r"(rml), [mh] "r"(rmh), [rhi] "r"(rhi), [s] "r"(rs)
                             : "t0", "t1", "t2", "memory");
        else
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x1, %[nl], 52\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 42\n\t"
                             ".insn i 0x0b, 2, t0, 2(%[x0])\n\t"
                             ".insn i 0x0b, 2, t1, 2(%[x1])\n\t"
                             ".insn i 0x0b, 2, t2, 2(%[x2])\n\t"
                             HTC__DW_ASM_PAIR0
                             "mul %[acc], %[acc], %[m]\n\tmul %[a1], %[a1], %[m]\n\t"
                             "add %[acc], %[acc], %[c]\n\tadd %[a1], %[a1], %[c]\n\t"
                             "sra %[acc], %[acc], %[e]\n\tsra %[a1], %[a1], %[e]\n\t"
                             ".insn r 0x33, 6, 0x02, %[acc], %[acc], %[lo]\n\t.insn r 0x33, 6, 0x02, %[a1], %[a1], %[lo]\n\t"
                             ".insn r 0x33, 4, 0x02, %[acc], %[acc], %[hi]\n\t.insn r 0x33, 4, 0x02, %[a1], %[a1], %[hi]\n\t"
                             ".insn r 0x2b, 4, 0x00, %[os], %[d], %[acc]\n\t.insn r 0x2b, 4, 0x00, %[os], %[d], %[a1]\n\t"
                             "add %[x0], %[x0], %[dx]\n\t"
                             "add %[x1], %[x1], %[dx]\n\t"
                             "add %[x2], %[x2], %[dx]\n\t"
                             "add %[d], %[d], %[dd]\n\t"
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc), [a1] "=&r"(a1)
                             : [nl] "r"(nl), [n] "r"(np), [os] "r"(oa), [dx] "r"(dx), [dd] "r"(dd), [w0] "r"(w0), [w1] "r"(w1),
                               [w2] "r"(w2), [w0s] "r"(w0s), [w1s] "r"(w1s), [w2s] "r"(w2s), [m] "r"(m2), [c] "r"(qc), [e] "r"(qe),
                               [lo] "r"(lo), [hi] "r"(hi)
                             : "t0", "t1", "t2", "memory");
        if (!(na & 1)) return;
        x += 2 * np;
        o += 2 * np * oa;
        na = 1;
    }
    if ((!pair || na == 1) && (ql == 1 || ql == 3 || ql == 4)) {
        /* single outputs: every line in one asm block, nested hardware
           loops (loop 1 over the lines, loop 0 along them; the window and
           output pointers stepped to the next line after loop 0's na
           steps) */
        const int8_t *x0 = x, *x1 = x + dl, *x2 = x1 + dl;
        int8_t *d = o;
        const int32_t dx = lstep - na * sa, dd = ol - na * oa;
        int32_t acc;
        if (ql == 1)
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x1, %[nl], 34\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 24\n\t"
                             ".insn r 0x0b, 7, 0x10, t0, %[x0], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t1, %[x1], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t2, %[x2], %[sa]\n\t"
                             ".insn r 0x57, 1, 0x4c, %[acc], t0, %[w0]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t1, %[w1]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t2, %[w2]\n\t"
                             "mul %[acc], %[acc], %[m]\n\tadd %[acc], %[acc], %[c]\n\tsra %[acc], %[acc], %[e]\n\t"
                             ".insn r 0x33, 6, 0x02, %[acc], %[acc], %[lo]\n\t.insn r 0x33, 4, 0x02, %[acc], %[acc], %[hi]\n\t"
                             ".insn r 0x2b, 4, 0x00, %[os], %[d], %[acc]\n\t"
                             "add %[x0], %[x0], %[dx]\n\t"
                             "add %[x1], %[x1], %[dx]\n\t"
                             "add %[x2], %[x2], %[dx]\n\t"
                             "add %[d], %[d], %[dd]\n\t"
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc)
                             : [nl] "r"(nl), [n] "r"(na), [sa] "r"(sa), [os] "r"(oa), [dx] "r"(dx), [dd] "r"(dd), [w0] "r"(w0),
                               [w1] "r"(w1), [w2] "r"(w2), [m] "r"(m2), [c] "r"(qc), [e] "r"(qe), [lo] "r"(lo), [hi] "r"(hi)
                             : "t0", "t1", "t2", "memory");
        else if (ql == 4)
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x1, %[nl], 34\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 24\n\t"
                             ".insn r 0x0b, 7, 0x10, t0, %[x0], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t1, %[x1], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t2, %[x2], %[sa]\n\t"
                             ".insn r 0x57, 1, 0x4c, %[acc], t0, %[w0]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t1, %[w1]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t2, %[w2]\n\t"
                             HTC__DW_ASM_X1("%[acc]")
                             "add %[x0], %[x0], %[dx]\n\t"
                             "add %[x1], %[x1], %[dx]\n\t"
                             "add %[x2], %[x2], %[dx]\n\t"
                             "add %[d], %[d], %[dd]\n\t"
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc)
                             : [nl] "r"(nl), [n] "r"(na), [sa] "r"(sa), [os] "r"(oa), [dx] "r"(dx), [dd] "r"(dd), [w0] "r"(w0),
                               [w1] "r"(w1), [w2] "r"(w2), [clo] "r"(clo), [chi] "r"(chi), [ml] "r"(rml), [c1] "r"(rlo), [s] "r"(rs)
                             : "t0", "t1", "t2", "memory");
        else
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x1, %[nl], 40\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 30\n\t"
                             ".insn r 0x0b, 7, 0x10, t0, %[x0], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t1, %[x1], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t2, %[x2], %[sa]\n\t"
                             ".insn r 0x57, 1, 0x4c, %[acc], t0, %[w0]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t1, %[w1]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t2, %[w2]\n\t"
                             HTC__DW_ASM_XQ2("%[acc]", "t0")
                             "add %[x0], %[x0], %[dx]\n\t"
                             "add %[x1], %[x1], %[dx]\n\t"
                             "add %[x2], %[x2], %[dx]\n\t"
                             "add %[d], %[d], %[dd]\n\t"
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc)
                             : [nl] "r"(nl), [n] "r"(na), [sa] "r"(sa), [os] "r"(oa), [dx] "r"(dx), [dd] "r"(dd), [w0] "r"(w0),
                               [w1] "r"(w1), [w2] "r"(w2), [clo] "r"(clo), [chi] "r"(chi), [rlo] "r"(rlo), [ml] "r"(rml),
                               [mh] "r"(rmh), [rhi] "r"(rhi), [s] "r"(rs)
                             : "t0", "t1", "t2", "memory");
        return;
    }
#endif
    for (l = 0; l < nl; l++, x += lstep, o += ol) {
        const int8_t *x0 = x, *x1 = x + dl, *x2 = x1 + dl;
        int8_t *d = o;
#ifdef HTC__XP_ASM
        int32_t acc, i, a1, nr = na;
        if (np && ql != 2) {
            nr = na - 2 * np;
            if (ql == 4) {
                __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                                 ".insn i 0x7b, 4, x0, %[n], 42\n\t"
                                 ".insn i 0x0b, 2, t0, 2(%[x0])\n\t"
                                 ".insn i 0x0b, 2, t1, 2(%[x1])\n\t"
                                 ".insn i 0x0b, 2, t2, 2(%[x2])\n\t"
                                 HTC__DW_ASM_PAIR0
                                 HTC__DW_ASM_X1("%[acc]")
                                 HTC__DW_ASM_X1("%[a1]")
                                 ".option pop"
                                 : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc), [a1] "=&r"(a1)
                                 : [n] "r"(np), [os] "r"(oa), [w0] "r"(w0), [w1] "r"(w1), [w2] "r"(w2),
                                   [w0s] "r"(w0s), [w1s] "r"(w1s), [w2s] "r"(w2s), [clo] "r"(clo), [chi] "r"(chi), [ml] "r"(rml),
                                   [c1] "r"(rlo), [s] "r"(rs)
                                 : "t0", "t1", "t2", "memory");
            } else if (ql == 3) {
                __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                                 ".insn i 0x7b, 4, x0, %[n], 54\n\t"
                                 ".insn i 0x0b, 2, t0, 2(%[x0])\n\t"
                                 ".insn i 0x0b, 2, t1, 2(%[x1])\n\t"
                                 ".insn i 0x0b, 2, t2, 2(%[x2])\n\t"
                                 HTC__DW_ASM_PAIR0
                                 HTC__DW_ASM_XQ2("%[acc]", "t0")
                                 HTC__DW_ASM_XQ2("%[a1]", "t1")
                                 ".option pop"
                                 : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc), [a1] "=&r"(a1)
                                 : [n] "r"(np), [os] "r"(oa), [w0] "r"(w0), [w1] "r"(w1), [w2] "r"(w2),
                                   [w0s] "r"(w0s), [w1s] "r"(w1s), [w2s] "r"(w2s), [clo] "r"(clo), [chi] "r"(chi), [rlo] "r"(rlo),
                                   [ml] "r"(rml), [mh] "r"(rmh), [rhi] "r"(rhi), [s] "r"(rs)
                                 : "t0", "t1", "t2", "memory");
            } else if (ql) {
                __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                                 ".insn i 0x7b, 4, x0, %[n], 42\n\t"
                                 ".insn i 0x0b, 2, t0, 2(%[x0])\n\t"
                                 ".insn i 0x0b, 2, t1, 2(%[x1])\n\t"
                                 ".insn i 0x0b, 2, t2, 2(%[x2])\n\t"
                                 HTC__DW_ASM_PAIR0
                                 "mul %[acc], %[acc], %[m]\n\t"
                                 "mul %[a1], %[a1], %[m]\n\t"
                                 "add %[acc], %[acc], %[c]\n\t"
                                 "add %[a1], %[a1], %[c]\n\t"
                                 "sra %[acc], %[acc], %[e]\n\t"
                                 "sra %[a1], %[a1], %[e]\n\t"
                                 ".insn r 0x33, 6, 0x02, %[acc], %[acc], %[lo]\n\t"
                                 ".insn r 0x33, 6, 0x02, %[a1], %[a1], %[lo]\n\t"
                                 ".insn r 0x33, 4, 0x02, %[acc], %[acc], %[hi]\n\t"
                                 ".insn r 0x33, 4, 0x02, %[a1], %[a1], %[hi]\n\t"
                                 ".insn r 0x2b, 4, 0x00, %[os], %[d], %[acc]\n\t"
                                 ".insn r 0x2b, 4, 0x00, %[os], %[d], %[a1]\n\t"
                                 ".option pop"
                                 : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc), [a1] "=&r"(a1)
                                 : [n] "r"(np), [os] "r"(oa), [w0] "r"(w0), [w1] "r"(w1), [w2] "r"(w2),
                                   [w0s] "r"(w0s), [w1s] "r"(w1s), [w2s] "r"(w2s), [m] "r"(m2), [c] "r"(qc), [e] "r"(qe),
                                   [lo] "r"(lo), [hi] "r"(hi)
                                 : "t0", "t1", "t2", "memory");
            } else {
                __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                                 ".insn i 0x7b, 4, x0, %[n], 70\n\t"
                                 ".insn i 0x0b, 2, t0, 2(%[x0])\n\t"
                                 ".insn i 0x0b, 2, t1, 2(%[x1])\n\t"
                                 ".insn i 0x0b, 2, t2, 2(%[x2])\n\t"
                                 HTC__DW_ASM_PAIR
                                 HTC__DW_ASM_TFL("%[acc]")
                                 HTC__DW_ASM_TFL("%[a1]")
                                 ".option pop"
                                 : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc), [a1] "=&r"(a1)
                                 : [n] "r"(np), [os] "r"(oa), [f] "r"(f), [w0] "r"(w0), [w1] "r"(w1), [w2] "r"(w2),
                                   [w0s] "r"(w0s), [w1s] "r"(w1s), [w2s] "r"(w2s), [m] "r"(m2), [c] "r"(qc), [e] "r"(qe),
                                   [zp] "r"(zp), [lo] "r"(lo), [hi] "r"(hi)
                                 : "t0", "t1", "t2", "memory");
            }
            if (nr == 0) continue;
        }
        if (ql == 2) {
            for (i = 0; i < nr; i++, x0 += sa, x1 += sa, x2 += sa, d += oa) {
                acc = htc__xp_sdot4(k->f, htc__xp_ld4(x0), k->w0);
                acc = htc__xp_sdot4(acc, htc__xp_ld4(x1), k->w1);
                acc = htc__xp_sdot4(acc, htc__xp_ld4(x2), k->w2);
                *d = HTC__CAST(int8_t, htc__xp_clamp(htc__xrq_rne(k->q, acc) + k->zp, k->lo, k->hi));
            }
        } else if (ql == 4) {
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 24\n\t"
                             ".insn r 0x0b, 7, 0x10, t0, %[x0], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t1, %[x1], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t2, %[x2], %[sa]\n\t"
                             ".insn r 0x57, 1, 0x4c, %[acc], t0, %[w0]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t1, %[w1]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t2, %[w2]\n\t"
                             HTC__DW_ASM_X1("%[acc]")
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc)
                             : [n] "r"(nr), [sa] "r"(sa), [os] "r"(oa), [w0] "r"(w0), [w1] "r"(w1),
                               [w2] "r"(w2), [clo] "r"(clo), [chi] "r"(chi), [ml] "r"(rml), [c1] "r"(rlo), [s] "r"(rs)
                             : "t0", "t1", "t2", "memory");
        } else if (ql == 3) {
            /* htc__xq2_apply: the clamp of u (p.max, p.min), two p.mac
               (rD += rs1 * rs2) around the shift by 15 */
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 30\n\t"
                             ".insn r 0x0b, 7, 0x10, t0, %[x0], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t1, %[x1], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t2, %[x2], %[sa]\n\t"
                             ".insn r 0x57, 1, 0x4c, %[acc], t0, %[w0]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t1, %[w1]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t2, %[w2]\n\t"
                             HTC__DW_ASM_XQ2("%[acc]", "t0")
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc)
                             : [n] "r"(nr), [sa] "r"(sa), [os] "r"(oa), [w0] "r"(w0), [w1] "r"(w1),
                               [w2] "r"(w2), [clo] "r"(clo), [chi] "r"(chi), [rlo] "r"(rlo),
                               [ml] "r"(rml), [mh] "r"(rmh), [rhi] "r"(rhi),
                               [s] "r"(rs)
                             : "t0", "t1", "t2", "memory");
        } else if (ql) {
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 24\n\t"
                             ".insn r 0x0b, 7, 0x10, t0, %[x0], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t1, %[x1], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t2, %[x2], %[sa]\n\t"
                             ".insn r 0x57, 1, 0x4c, %[acc], t0, %[w0]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t1, %[w1]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t2, %[w2]\n\t"
                             "mul %[acc], %[acc], %[m]\n\t"
                             "add %[acc], %[acc], %[c]\n\t"
                             "sra %[acc], %[acc], %[e]\n\t"
                             ".insn r 0x33, 6, 0x02, %[acc], %[acc], %[lo]\n\t"
                             ".insn r 0x33, 4, 0x02, %[acc], %[acc], %[hi]\n\t"
                             ".insn r 0x2b, 4, 0x00, %[os], %[d], %[acc]\n\t"
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc)
                             : [n] "r"(nr), [sa] "r"(sa), [os] "r"(oa), [w0] "r"(w0), [w1] "r"(w1),
                               [w2] "r"(w2), [m] "r"(m2), [c] "r"(qc), [e] "r"(qe), [lo] "r"(lo),
                               [hi] "r"(hi)
                             : "t0", "t1", "t2", "memory");
        } else {
            __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                             ".insn i 0x7b, 4, x0, %[n], 38\n\t"
                             ".insn r 0x0b, 7, 0x10, t0, %[x0], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t1, %[x1], %[sa]\n\t"
                             ".insn r 0x0b, 7, 0x10, t2, %[x2], %[sa]\n\t"
                             "mv %[acc], %[f]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t0, %[w0]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t1, %[w1]\n\t"
                             ".insn r 0x57, 1, 0x5c, %[acc], t2, %[w2]\n\t"
                             HTC__DW_ASM_TFL("%[acc]")
                             ".option pop"
                             : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [d] "+r"(d), [acc] "=&r"(acc)
                             : [n] "r"(nr), [sa] "r"(sa), [os] "r"(oa), [f] "r"(f), [w0] "r"(w0), [w1] "r"(w1),
                               [w2] "r"(w2), [m] "r"(m2), [c] "r"(qc), [e] "r"(qe), [zp] "r"(zp),
                               [lo] "r"(lo), [hi] "r"(hi)
                             : "t0", "t1", "t2", "memory");
        }
#else
        int32_t i, acc;
        for (i = 0; i < na; i++, x0 += sa, x1 += sa, x2 += sa, d += oa) {
            acc = htc__xp_sdot4(ql == 1 || ql >= 3 ? 0 : k->f, htc__xp_ld4(x0), k->w0);
            acc = htc__xp_sdot4(acc, htc__xp_ld4(x1), k->w1);
            acc = htc__xp_sdot4(acc, htc__xp_ld4(x2), k->w2);
            *d = HTC__CAST(int8_t, ql >= 3 ? htc__dw_xp_fout(k, ql, acc) : htc__xp_out(ql, &k->q, HTC__CAST(const int32_t *, 0), acc, k->zp, k->lo, k->hi));
        }
#endif
    }
}

static HTC__NOINLINE void htc__dw_xp_lines3_tfl(const int8_t *x, int32_t dl, int32_t lstep, int32_t sa, int32_t na, int32_t nl,
                                                int8_t *o, int32_t oa, int32_t ol, const htc__dw3k *k)
{
    htc__dw_xp_lines3(x, dl, lstep, sa, na, nl, o, oa, ol, k, 0, 0);
}

static HTC__NOINLINE void htc__dw_xp_lines3p_tfl(const int8_t *x, int32_t dl, int32_t lstep, int32_t na, int32_t nl, int8_t *o,
                                                int32_t oa, int32_t ol, const htc__dw3k *k)
{
    htc__dw_xp_lines3(x, dl, lstep, 1, na, nl, o, oa, ol, k, 0, 1);
}

static HTC__NOINLINE void htc__dw_xp_lines3_x2(const int8_t *x, int32_t dl, int32_t lstep, int32_t sa, int32_t na, int32_t nl,
                                               int8_t *o, int32_t oa, int32_t ol, const htc__dw3k *k)
{
    htc__dw_xp_lines3(x, dl, lstep, sa, na, nl, o, oa, ol, k, 3, 0);
}

static HTC__NOINLINE void htc__dw_xp_lines3p_x2(const int8_t *x, int32_t dl, int32_t lstep, int32_t na, int32_t nl, int8_t *o,
                                                int32_t oa, int32_t ol, const htc__dw3k *k)
{
    htc__dw_xp_lines3(x, dl, lstep, 1, na, nl, o, oa, ol, k, 3, 1);
}

static HTC__NOINLINE void htc__dw_xp_lines3_x1(const int8_t *x, int32_t dl, int32_t lstep, int32_t sa, int32_t na, int32_t nl,
                                               int8_t *o, int32_t oa, int32_t ol, const htc__dw3k *k)
{
    htc__dw_xp_lines3(x, dl, lstep, sa, na, nl, o, oa, ol, k, 4, 0);
}

static HTC__NOINLINE void htc__dw_xp_lines3p_x1(const int8_t *x, int32_t dl, int32_t lstep, int32_t na, int32_t nl, int8_t *o,
                                                int32_t oa, int32_t ol, const htc__dw3k *k)
{
    htc__dw_xp_lines3(x, dl, lstep, 1, na, nl, o, oa, ol, k, 4, 1);
}

static HTC__NOINLINE void htc__dw_xp_lines3_ql(const int8_t *x, int32_t dl, int32_t lstep, int32_t sa, int32_t na, int32_t nl,
                                               int8_t *o, int32_t oa, int32_t ol, const htc__dw3k *k)
{
    htc__dw_xp_lines3(x, dl, lstep, sa, na, nl, o, oa, ol, k, 1, 0);
}

static HTC__NOINLINE void htc__dw_xp_lines3p_ql(const int8_t *x, int32_t dl, int32_t lstep, int32_t na, int32_t nl, int8_t *o,
                                                int32_t oa, int32_t ol, const htc__dw3k *k)
{
    htc__dw_xp_lines3(x, dl, lstep, 1, na, nl, o, oa, ol, k, 1, 1);
}

static HTC__NOINLINE void htc__dw_xp_lines3_rne(const int8_t *x, int32_t dl, int32_t lstep, int32_t sa, int32_t na, int32_t nl,
                                                int8_t *o, int32_t oa, int32_t ol, const htc__dw3k *k)
{
    htc__dw_xp_lines3(x, dl, lstep, sa, na, nl, o, oa, ol, k, 2, 0);
}

/* n input pixels ea bytes apart, four channels each (one word), into
   four planes HTC__XP_DWBUF / 4 bytes apart at d. With the instructions:
   a hardware loop of a post-increment word load, three shifts and four
   post-increment byte stores (9 cycles a pixel on GVSoC, 20 for the C
   loop). */
static HTC__INLINE void htc__dw_xp_spread4(const int8_t *src, int32_t ea, int8_t *d, int32_t n)
{
#ifdef HTC__XP_ASM
    if (n > 0) {
        int8_t *d1 = d + HTC__XP_DWBUF / 4, *d2 = d + 2 * (HTC__XP_DWBUF / 4), *d3 = d + 3 * (HTC__XP_DWBUF / 4);
        uint32_t t0, t1, t2;
        __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                         ".insn i 0x7b, 4, x0, %[n], 16\n\t"
                         ".insn r 0x0b, 7, 0x10, %[t0], %[s], %[ea]\n\t"
                         "srli %[t1], %[t0], 8\n\t"
                         ".insn s 0x2b, 0, %[t0], 1(%[d0])\n\t"
                         "srli %[t2], %[t0], 16\n\t"
                         ".insn s 0x2b, 0, %[t1], 1(%[d1])\n\t"
                         "srli %[t0], %[t0], 24\n\t"
                         ".insn s 0x2b, 0, %[t2], 1(%[d2])\n\t"
                         ".insn s 0x2b, 0, %[t0], 1(%[d3])\n\t"
                         ".option pop"
                         : [s] "+r"(src), [d0] "+r"(d), [d1] "+r"(d1), [d2] "+r"(d2), [d3] "+r"(d3), [t0] "=&r"(t0),
                           [t1] "=&r"(t1), [t2] "=&r"(t2)
                         : [n] "r"(n), [ea] "r"(ea)
                         : "memory");
    }
#else
    int32_t j;
    for (j = 0; j < n; j++, src += ea) {
        const uint32_t u = htc__xp_ld4(src);
        d[j] = HTC__CAST(int8_t, u & 0xffu);
        d[HTC__XP_DWBUF / 4 + j] = HTC__CAST(int8_t, (u >> 8) & 0xffu);
        d[2 * (HTC__XP_DWBUF / 4) + j] = HTC__CAST(int8_t, (u >> 16) & 0xffu);
        d[3 * (HTC__XP_DWBUF / 4) + j] = HTC__CAST(int8_t, u >> 24);
    }
#endif
}

/* n input bytes ea apart into one plane line at d. With the instructions:
   two post-increment byte loads and stores a hardware-loop step (2 cycles
   a byte on GVSoC, 9 for the C loop). */
static HTC__INLINE void htc__dw_xp_gather1(const int8_t *src, int32_t ea, int8_t *d, int32_t n)
{
#ifdef HTC__XP_ASM
    if (n >= 2) {
        uint32_t t0, t1;
        __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                         ".insn i 0x7b, 4, x0, %[n], 8\n\t"
                         ".insn r 0x0b, 7, 0x00, %[t0], %[s], %[ea]\n\t"
                         ".insn r 0x0b, 7, 0x00, %[t1], %[s], %[ea]\n\t"
                         ".insn s 0x2b, 0, %[t0], 1(%[d])\n\t"
                         ".insn s 0x2b, 0, %[t1], 1(%[d])\n\t"
                         ".option pop"
                         : [s] "+r"(src), [d] "+r"(d), [t0] "=&r"(t0), [t1] "=&r"(t1)
                         : [n] "r"(n >> 1), [ea] "r"(ea)
                         : "memory");
    }
    if (n & 1) *d = *src;
#else
    int32_t j;
    for (j = 0; j < n; j++, src += ea) d[j] = *src;
#endif
}

/* Channels [c_lo, c_hi) of every output pixel (a core's share when the
   cluster divides the layer by channels: each core builds the planes of
   its own channels only). */
static HTC__INLINE void htc__dwconv2d_xp_body(const htc__conv_params *p, const htc__xql *xq, const int ql, const int8_t *in,
                                              int8_t *out, int32_t c_lo, int32_t c_hi)
{
    const int32_t C = p->in_c, k_w = p->k_w, lo = p->act_min, hi = p->act_max;
    const int32_t zp = ql == 1 ? 0 : p->out_zp;              /* QuantLib's: in its constants */
    /* weight (channel c, tap t): TFLite's [k_h][k_w][C] (kinds 0, 3), QuantLib's and onnxruntime's [C][k_h][k_w] */
    const int32_t w_c = ql == 1 || ql == 2 ? p->k_h * k_w : 1, w_t = ql == 1 || ql == 2 ? 1 : C;
    const int fast = ql >= 2 || (ql ? htc__xql_ok(p, xq, p->k_h * k_w, c_lo, c_hi) : htc__xrq_ok(p, p->k_h * k_w, c_lo, c_hi));
    const int8_t izp = HTC__CAST(int8_t, p->in_zp);
    const uint32_t zp4 = 0x01010101u * HTC__CAST(uint8_t, izp);
    htc__dwxg g;
    /* columns j of a plane line: padding [0, j0), the input [j0, j1), padding */
    int32_t j0, j1, grp, b, c, nc, y0, ol, k, a, l, j, st_a, st_l, PL, ny, pairs;
    int8_t plane[HTC__XP_DWBUF] HTC__ALIGN(4);
    htc__dwxg_make(p, htc__dwxg_tr(p), &g);
    /* bytes from one tap to the next along / across a line */
    st_a = (g.tr ? k_w : 1) * w_t;
    st_l = (g.tr ? 1 : k_w) * w_t;
    j0 = g.pa < g.L ? g.pa : g.L;
    j1 = g.pa + g.ina < g.L ? g.pa + g.ina : g.L;
    grp = C % 4 == 0 && g.span <= HTC__XP_DWBUF / 4 / g.L;
    /* four channels' planes PL bytes apart, or one; output lines per chunk */
    PL = grp ? HTC__XP_DWBUF / 4 : HTC__XP_DWBUF;
    ny = (PL / g.L - g.span) / g.sl + 1;
    pairs = g.sa == 1 && g.na >= HTC__XP_DWPAIR && g.ka <= 3;
    {
        /* the padding (in_zp) of every plane line a chunk uses, once: the
           words of columns [0, j0) and [j1, L) (the interiors are written
           by every chunk, lines outside the input whole) */
        const int32_t lines = (grp ? HTC__XP_DWBUF / 4 : HTC__XP_DWBUF) / g.L, all = (g.nl - 1) * g.sl + g.span;
        const int32_t n = (lines < all ? lines : all) * g.L, a0 = (j0 + 3) & ~3, a1 = j1 & ~3;
        for (k = 0; k < (grp ? 4 : 1); k++) {
            int8_t *pk = plane + k * (HTC__XP_DWBUF / 4);
            for (l = 0; l < n; l += g.L) {
                for (j = 0; j < a0; j += 4) htc__xp_st4(pk + l + j, zp4);
                for (j = a1; j < g.L; j += 4) htc__xp_st4(pk + l + j, zp4);
            }
        }
    }
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + HTC__CAST(size_t, b) * p->in_h * p->in_w * C;
        int8_t *out_b = out + HTC__CAST(size_t, b) * p->out_h * p->out_w * C;
        for (c = c_lo; c < c_hi; c += nc) {
            /* four channels whose planes are PL bytes apart, or one (in
               the first of the four when the layer has groups of four) */
            htc__xrq qs[4];
            int32_t fs[4], ms[4], ss[4];
            /* kind 3, per channel: its record (x3 1), or (a channel the
               generator found inexact, w < 0) TFLite's htc__xrq, fast
               when htc__xrq_ok (ok3) */
            int x3[4], ok3[4], w4;
            uint32_t wr[4][8];
            nc = grp && c % 4 == 0 && c + 4 <= c_hi ? 4 : 1;
            /* four channels in TFLite's layout, 3 x 3 taps: a tap's word
               of the four loaded once, its bytes spread to the channels'
               line words (three word loads a line for the four, not
               twelve byte loads) */
            w4 = nc == 4 && w_t == C && g.ka == 3 && g.kl == 3;
            if (w4) {
                const int8_t *wl = p->weights + c;
                for (l = 0; l < 3; l++, wl += st_l) {
                    uint32_t u0 = htc__xp_ld4(wl), u1 = htc__xp_ld4(wl + st_a), u2 = htc__xp_ld4(wl + 2 * st_a);
                    for (k = 0; k < 4; k++, u0 >>= 8, u1 >>= 8, u2 >>= 8)
                        wr[k][l] = (u0 & 0xffu) | ((u1 & 0xffu) << 8) | ((u2 & 0xffu) << 16);
                }
            }
            for (k = 0; k < nc; k++) {
                const int32_t ck = c + k;
                x3[k] = ql == 3 && p->xq2[HTC__CAST(size_t, ck) * HTC__XQ2_N + HTC__XQ2_W] >= 0;
                ok3[k] = x3[k] || (ql == 3 && htc__xrq_ok(p, p->k_h * k_w, ck, ck + 1));
                if (ql == 2) {
                    qs[k] = htc__xrq_rne_make(xq->rne[p->per_channel ? ck : 0]);
                    ms[k] = ss[k] = 0;
                } else if (ql == 1) {
                    qs[k] = htc__xql_make(xq->mul[p->per_channel ? ck : 0], xq->add[p->per_channel ? ck : 0], xq->shift, p->out_zp);
                    ms[k] = ss[k] = 0;
                } else if (x3[k]) {
                    ms[k] = ss[k] = 0;
                    qs[k] = htc__xrq_rne_make(1);       /* unused */
                } else {
                    ms[k] = p->mult[p->per_channel ? ck : 0];
                    ss[k] = p->shift[p->per_channel ? ck : 0];
                    qs[k] = htc__xrq_make(ms[k], ss[k]);
                }
                /* kind 3: bias - in_zp * the weight sums folded at compile time */
                fs[k] = x3[k] ? p->xq2[HTC__CAST(size_t, ck) * HTC__XQ2_N + HTC__XQ2_F] : p->bias ? p->bias[ck] : 0;
                /* line l's taps a = 0..ka-1 in one word (tap steps st_a, st_l) */
                if (w4) {
                    if (!x3[k])
                        fs[k] -= p->in_zp * htc__xp_sdot4(htc__xp_sdot4(htc__xp_sdot4(0, wr[k][0], 0x01010101u), wr[k][1], 0x01010101u),
                                                          wr[k][2], 0x01010101u);
                } else {
                    const int8_t *wl = p->weights + HTC__CAST(size_t, ck) * w_c;
                    int32_t sw = 0;
                    for (l = 0; l < g.kl; l++, wl += st_l) {
                        const int8_t *wa = wl;
                        uint32_t w = 0;
                        for (a = 0; a < g.ka; a++, wa += st_a) {
                            w |= HTC__CAST(uint32_t, HTC__CAST(uint8_t, *wa)) << (8 * a);
                            sw += *wa;
                        }
                        wr[k][l] = w;
                    }
                    if (!x3[k]) fs[k] -= p->in_zp * sw;
                }
            }
            for (y0 = 0; y0 < g.nl; y0 += ny) {
                const int32_t y1 = g.nl - y0 < ny ? g.nl : y0 + ny;
                const int32_t rows = (y1 - 1 - y0) * g.sl + g.span, il0 = y0 * g.sl - g.pl;
                int32_t r;
                for (r = 0; r < rows; r++) {
                    const int32_t il = il0 + r;
                    int8_t *d = plane + r * g.L;
                    if (il < 0 || il >= g.inl) {
                        for (k = 0; k < nc; k++)
                            for (j = 0; j < g.L; j += 4) htc__xp_st4(d + k * PL + j, zp4);
                    } else {
                        const int8_t *src = in_b + HTC__CAST(size_t, il) * g.el + HTC__CAST(size_t, j0 - g.pa) * g.ea + c;
                        if (nc == 4) htc__dw_xp_spread4(src, g.ea, d + j0, j1 - j0);
                        else htc__dw_xp_gather1(src, g.ea, d + j0, j1 - j0);
                    }
                }
                for (k = 0; k < nc; k++) {
                    const htc__xrq q = qs[k];
                    const int32_t f = fs[k];
                    if (g.kl == 3 && (ql == 3 ? ok3[k] : fast)) {
                        htc__dw3k kc;
                        kc.f = f;
                        kc.w0 = wr[k][0];
                        kc.w1 = wr[k][1];
                        kc.w2 = wr[k][2];
                        kc.q = q;
                        /* QuantLib's: the start value in the constant, (acc * mul + c) modulo 2^32 */
                        if (ql == 1) kc.q.c = HTC__CAST(int32_t, HTC__CAST(uint32_t, q.c) + HTC__CAST(uint32_t, f) * q.m2);
                        kc.zp = zp;
                        kc.lo = lo;
                        kc.hi = hi;
                        kc.clo = kc.chi = kc.s = 0;
                        kc.ml = kc.mh = kc.c1 = kc.c2 = 0;
                        const int x1 = x3[k] && htc__dw_xp_fold(p->xq2 + HTC__CAST(size_t, c + k) * HTC__XQ2_N, &kc) == 4;
                        /* outputs in pairs (stride 1, three taps a line,
                           lines of 12 or more: GVSoC, fewer cycles from 12 on) */
                        const int pr = pairs;
                        int8_t *ok = out_b + HTC__CAST(size_t, y0) * g.ol + c + k;
                        if (pr && x1)
                            htc__dw_xp_lines3p_x1(plane + k * PL, g.dl * g.L, g.sl * g.L, g.na, y1 - y0, ok, g.oa, g.ol, &kc);
                        else if (pr && ql == 3 && x3[k])
                            htc__dw_xp_lines3p_x2(plane + k * PL, g.dl * g.L, g.sl * g.L, g.na, y1 - y0, ok, g.oa, g.ol, &kc);
                        else if (pr && ql == 1)
                            htc__dw_xp_lines3p_ql(plane + k * PL, g.dl * g.L, g.sl * g.L, g.na, y1 - y0, ok, g.oa, g.ol, &kc);
                        else if (pr && ql == 0)
                            htc__dw_xp_lines3p_tfl(plane + k * PL, g.dl * g.L, g.sl * g.L, g.na, y1 - y0, ok, g.oa, g.ol, &kc);
                        else if (x1)
                            htc__dw_xp_lines3_x1(plane + k * PL, g.dl * g.L, g.sl * g.L, g.sa, g.na, y1 - y0, ok, g.oa, g.ol, &kc);
                        else if (ql == 3 && x3[k])
                            htc__dw_xp_lines3_x2(plane + k * PL, g.dl * g.L, g.sl * g.L, g.sa, g.na, y1 - y0,
                                                 out_b + HTC__CAST(size_t, y0) * g.ol + c + k, g.oa, g.ol, &kc);
                        else if (ql == 2)
                            htc__dw_xp_lines3_rne(plane + k * PL, g.dl * g.L, g.sl * g.L, g.sa, g.na, y1 - y0,
                                                  out_b + HTC__CAST(size_t, y0) * g.ol + c + k, g.oa, g.ol, &kc);
                        else if (ql == 1)
                            htc__dw_xp_lines3_ql(plane + k * PL, g.dl * g.L, g.sl * g.L, g.sa, g.na, y1 - y0,
                                                 out_b + HTC__CAST(size_t, y0) * g.ol + c + k, g.oa, g.ol, &kc);
                        else
                            htc__dw_xp_lines3_tfl(plane + k * PL, g.dl * g.L, g.sl * g.L, g.sa, g.na, y1 - y0,
                                                  out_b + HTC__CAST(size_t, y0) * g.ol + c + k, g.oa, g.ol, &kc);
                        continue;
                    }
                    for (ol = y0; ol < y1; ol++) {
                        const int8_t *line = plane + k * PL + (ol - y0) * g.sl * g.L;
                        int8_t *o = out_b + HTC__CAST(size_t, ol) * g.ol + c + k;
                        for (a = 0; a < g.na; a++, o += g.oa) {
                            const int8_t *x = line + a * g.sa;
                            int32_t acc = f, v;
                            for (l = 0; l < g.kl; l++) acc = htc__xp_sdot4(acc, htc__xp_ld4(x + l * g.dl * g.L), wr[k][l]);
                            if (x3[k]) {
                                v = htc__xq2_apply(p->xq2 + HTC__CAST(size_t, c + k) * HTC__XQ2_N, acc);
                            } else if (ql == 3 ? ok3[k] : fast) {
                                v = HTC__XQ_APPLY(ql, q, acc) + zp;
                                v = v < lo ? lo : (v > hi ? hi : v);
                            } else if (ql == 1) {
                                v = htc__xql_slow(p, xq, c + k, acc);
                            } else {
                                v = htc__requant(acc, ms[k], ss[k], zp, lo, hi);
                            }
                            *o = HTC__CAST(int8_t, v);
                        }
                    }
                }
            }
        }
    }
}

/* TFLite's requantization in final form (p->xq2) */
static HTC__NOINLINE void htc__dwconv2d_xp_ch_x2(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t c_lo, int32_t c_hi)
{
    htc__dwconv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 3, in, out, c_lo, c_hi);
}

static HTC__NOINLINE void htc__dwconv2d_xp_ch(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t c_lo, int32_t c_hi)
{
    if (p->xq2) htc__dwconv2d_xp_ch_x2(p, in, out, c_lo, c_hi);
    else htc__dwconv2d_xp_body(p, HTC__CAST(const htc__xql *, 0), 0, in, out, c_lo, c_hi);
}

static HTC__NOINLINE void htc__dwconv2d_xp_ch_ql(const htc__conv_params *p, const htc__xql *xq, const int8_t *in, int8_t *out,
                                                 int32_t c_lo, int32_t c_hi)
{
    htc__dwconv2d_xp_body(p, xq, 1, in, out, c_lo, c_hi);
}

static HTC__NOINLINE void htc__dwconv2d_xp_ch_rne(const htc__conv_params *p, const htc__xql *xq, const int8_t *in, int8_t *out,
                                                  int32_t c_lo, int32_t c_hi)
{
    htc__dwconv2d_xp_body(p, xq, 2, in, out, c_lo, c_hi);
}

static HTC__NOINLINE void htc__dwconv2d_xp(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    htc__dwconv2d_xp_ch(p, in, out, 0, p->in_c);
}
#endif

static HTC__INLINE HTC__UNUSED void htc__dwconv2d_s8(const htc__conv_params *p, const int8_t *in, int8_t *out)
{
    if (p->w_zp) {                      /* uint8 weights (TFLite's legacy quantization): the loop */
        htc__conv_tflite_gen(p, 1, in, out, 0, p->out_c);
        return;
    }
#ifdef HTC__XP
    if (htc__dwconv2d_xp_ok(p)) {
        htc__dwconv2d_xp(p, in, out);
        return;
    }
#endif
#ifdef HTC__SSE2
    if (p->depth_mult == 1 && p->k_h * p->k_w <= 2 * HTC__DW_MAXPAIRS) {
        htc__dwconv2d_sse2(p, in, out);
        return;
    }
#endif
#ifdef HTC__MVE
    if (htc__dwconv2d_mve_ok(p)) {
        htc__dwconv2d_mve(p, in, out);
        return;
    }
#endif
#ifdef HTC__DSP
    if (p->depth_mult == 1 && p->k_h == 3 && p->k_w == 3 &&
        htc__dw3p_ok(p, htc__dsp_rq_okr(p->rq, p->mult, p->shift, p->per_channel ? p->in_c : 1, p->bias, p->in_c, 9))) {
        htc__dwconv2d_dsp3p(p, in, out);
        return;
    }
    if (p->depth_mult == 1 && p->k_h * p->k_w <= HTC__DSP_DWTAPS) {
        htc__dwconv2d_dsp(p, in, out);
        return;
    }
#endif
#if !defined(HTC__SSE2) && !defined(HTC__DSP)
    if (p->depth_mult == 1 && p->in_c >= 4 && p->k_h * p->k_w <= HTC__PORT_DWTAPS) {
        htc__dwconv2d_port(p, in, out);
        return;
    }
#endif
    htc__conv_tflite_gen(p, 1, in, out, 0, p->out_c);
}

/* ---- onnxruntime's QLinearConv / ConvInteger (float requantization or the
   int32 accumulator) and QuantLib's Conv (RequantShift): the loop above with
   their epilogues */
static HTC__COLD HTC__UNUSED void htc__qconv_desc(const htc__qconv_params *p, int int32_out, htc__convg *g, htc__epi *e)
{
    memset(g, 0, sizeof *g);
    memset(e, 0, sizeof *e);
    g->batches = p->batches;
    g->in_h = p->in_h; g->in_w = p->in_w; g->in_c = p->in_c;
    g->out_h = p->out_h; g->out_w = p->out_w; g->out_c = p->out_c;
    g->k_h = p->k_h; g->k_w = p->k_w; g->stride_h = p->stride_h; g->stride_w = p->stride_w;
    g->dil_h = p->dil_h; g->dil_w = p->dil_w; g->pad_top = p->pad_top; g->pad_left = p->pad_left;
    g->group_in = p->group_in; g->group_out = p->group_out;
    g->w_oc = p->k_h * p->k_w * p->group_in; g->w_tap = p->group_in;
    g->in_off = -p->in_zp;
    g->weights = p->weights; g->bias = p->bias;
    g->w_zp = p->w_zp; g->w_zp_pc = p->per_channel;
    e->kind = int32_out ? HTC__EPI_INT32 : HTC__EPI_FLOAT;
    e->per_channel = p->per_channel;
    e->scale = p->scale;
    e->out_zp = p->out_zp;
    e->flo = HTC__CAST(float, p->qmin - p->out_zp);
    e->fhi = HTC__CAST(float, p->qmax - p->out_zp);
}

#ifdef HTC__XP
/* onnxruntime's QLinearConv on the XpulpV2 paths when its requantization is
   exactly a shift (exact_shift: every scale 2^-e, 1 <= e <= 30, |acc| <
   2^24, so round(float(acc) * scale) is acc rounded half to even at bit e)
   and its weights have no zero point: a dense layer on the convolution's
   path, a depthwise one on the depthwise path (weights [C][k_h][k_w]). The
   shifts of up to HTC__XP_QC channels on the stack. 0, computing nothing,
   when the layer is not theirs. */
#ifndef HTC__XP_QC
#define HTC__XP_QC 1024
#endif
static HTC__NOINLINE int htc__qconv2d_xp(const htc__qconv_params *q, const int8_t *in, int8_t *out)
{
    const int32_t nch = q->per_channel ? q->out_c : 1, K = q->k_h * q->k_w * q->in_c;
    const int dense = q->group_in == q->in_c && q->group_out == q->out_c;
    const int dw = !dense && q->group_in == 1 && q->group_out == 1;
    htc__conv_params v;
    htc__xql xq;
    int8_t sh[HTC__XP_QC];
    int32_t c;
    if (!q->exact_shift || q->w_zp || !q->scale || nch > HTC__XP_QC || !(dense || dw)) return 0;
    for (c = 0; c < nch; c++) {
        uint32_t u;
        int32_t e;
        memcpy(&u, &q->scale[c], sizeof u);
        e = 127 - HTC__CAST(int32_t, u >> 23);      /* scale = 2^-e: sign 0, mantissa 0 */
        if ((u & 0x807fffffu) || e < 1 || e > 30) return 0;
        sh[c] = HTC__CAST(int8_t, e);
    }
    memset(&v, 0, sizeof v);
    v.batches = q->batches;
    v.in_h = q->in_h; v.in_w = q->in_w; v.in_c = q->in_c;
    v.out_h = q->out_h; v.out_w = q->out_w; v.out_c = q->out_c;
    v.k_h = q->k_h; v.k_w = q->k_w; v.stride_h = q->stride_h; v.stride_w = q->stride_w;
    v.dil_h = q->dil_h; v.dil_w = q->dil_w; v.pad_top = q->pad_top; v.pad_left = q->pad_left;
    v.depth_mult = 1;
    v.in_zp = q->in_zp; v.out_zp = q->out_zp; v.act_min = q->qmin; v.act_max = q->qmax;
    v.per_channel = q->per_channel;
    v.weights = q->weights; v.bias = q->bias;
    memset(&xq, 0, sizeof xq);
    xq.rne = sh;
    if (dw) {
        if (!htc__dwconv2d_xp_ok(&v)) return 0;
        htc__dwconv2d_xp_ch_rne(&v, &xq, in, out, 0, v.in_c);
    } else if (htc__conv2d_xp_pw(&v)) {
        htc__conv2d_xp_run_rne(&v, &xq, in, out, 0, 0, v.out_c, 0, v.out_h * v.out_w);
    } else if (((K + 3) & ~3) <= HTC__XP_COLS) {
        int8_t xb[2 * HTC__XP_COLS];
        htc__conv2d_xp_run_rne(&v, &xq, in, out, xb, 0, v.out_c, 0, v.out_h * v.out_w);
    } else {
        return 0;
    }
    return 1;
}
#endif

static HTC__UNUSED void htc__qconv2d_s8(const htc__qconv_params *p, const int8_t *in, int8_t *out)
{
    htc__convg g;
    htc__epi e;
#ifdef HTC__XP
    if (htc__qconv2d_xp(p, in, out)) return;
#endif
    htc__qconv_desc(p, 0, &g, &e);
    htc__conv_core(&g, &e, in, out, 0, p->out_c);
}

static HTC__UNUSED void htc__qconv2d_s32(const htc__qconv_params *p, const int8_t *in, int32_t *out)
{
    htc__convg g;
    htc__epi e;
    htc__qconv_desc(p, 1, &g, &e);
    htc__conv_core(&g, &e, in, out, 0, p->out_c);
}

/* ins: x, w, bias (or NULL), mul, add */
static HTC__COLD HTC__UNUSED void htc__ql_conv_desc(const htc__ql_conv_params *p, const void *const *ins, htc__convg *gp, htc__epi *ep)
{
    htc__convg g;
    htc__epi e;
    memset(&g, 0, sizeof g);
    memset(&e, 0, sizeof e);
    g.batches = p->batches;
    g.in_h = p->in_h; g.in_w = p->in_w; g.in_c = p->in_c;
    g.out_h = p->out_h; g.out_w = p->out_w; g.out_c = p->out_c;
    g.k_h = p->k_h; g.k_w = p->k_w; g.stride_h = p->stride_h; g.stride_w = p->stride_w;
    g.dil_h = p->dil_h; g.dil_w = p->dil_w; g.pad_top = p->pad_top; g.pad_left = p->pad_left;
    g.group_in = p->in_c / p->groups; g.group_out = p->out_c / p->groups;
    g.w_oc = p->k_h * p->k_w * g.group_in; g.w_tap = g.group_in;
    g.in_off = p->in_off;
    g.weights = HTC__CAST(const int8_t *, ins[1]);
    g.bias = HTC__CAST(const int32_t *, ins[2]);
    e.kind = p->rq ? HTC__EPI_QUANTLIB : HTC__EPI_INT32;
    e.per_channel = p->per_channel;
    e.mult = HTC__CAST(const int32_t *, ins[3]);
    e.add = HTC__CAST(const int32_t *, ins[4]);
    e.ql_shift = p->shift;
    e.lo = p->lo; e.hi = p->hi; e.out_zp = -p->out_off;
    *gp = g;
    *ep = e;
}

#ifdef HTC__XP
/* QuantLib's Conv on the XpulpV2 paths, the same kernels as TFLite's with
   QuantLib's epilogue (htc__xql): the layer as their parameter block (in_zp
   = -in_off, out_zp = -out_off, the clip [lo, hi] - out_off, mult the
   RequantShift multipliers, no shift array) and xq. Returns 1 (dense), 2
   (depthwise) or 0 when they do not take it: the int32 accumulator out,
   grouped, a receptive field above HTC__XP_COLS bytes, a depthwise kernel
   beyond htc__dwconv2d_xp_ok. */
static HTC__UNUSED int htc__ql_conv_xp(const htc__ql_conv_params *p, const void *const *ins, htc__conv_params *v, htc__xql *xq)
{
    const int64_t lo = HTC__CAST(int64_t, p->lo) - p->out_off, hi = HTC__CAST(int64_t, p->hi) - p->out_off;
    if (!p->rq || lo < -2147483647 || hi > 2147483647 || p->in_off < -128 || p->in_off > 128) return 0;
    memset(v, 0, sizeof *v);
    v->batches = p->batches;
    v->in_h = p->in_h; v->in_w = p->in_w; v->in_c = p->in_c;
    v->out_h = p->out_h; v->out_w = p->out_w; v->out_c = p->out_c;
    v->k_h = p->k_h; v->k_w = p->k_w; v->stride_h = p->stride_h; v->stride_w = p->stride_w;
    v->dil_h = p->dil_h; v->dil_w = p->dil_w; v->pad_top = p->pad_top; v->pad_left = p->pad_left;
    v->depth_mult = 1;
    v->in_zp = -p->in_off;
    v->out_zp = -p->out_off;
    v->act_min = HTC__CAST(int32_t, lo);
    v->act_max = HTC__CAST(int32_t, hi);
    v->per_channel = p->per_channel;
    v->mult = HTC__CAST(const int32_t *, ins[3]);
    v->weights = HTC__CAST(const int8_t *, ins[1]);
    v->bias = HTC__CAST(const int32_t *, ins[2]);
    xq->mul = HTC__CAST(const int32_t *, ins[3]);
    xq->add = HTC__CAST(const int32_t *, ins[4]);
    xq->shift = p->shift;
    xq->rne = HTC__CAST(const int8_t *, 0);
    if (p->groups == 1) return htc__conv2d_xp_fits(v) ? 1 : 0;
    if (p->groups == p->in_c && p->out_c == p->in_c) return htc__dwconv2d_xp_ok(v) ? 2 : 0;
    return 0;
}
#endif

static HTC__UNUSED void htc__ql_conv2d(const htc__ql_conv_params *p, const void *const *ins, void *out)
{
    htc__convg g;
    htc__epi e;
#ifdef HTC__XP
    htc__conv_params v;
    htc__xql xq;
    const int kind = htc__ql_conv_xp(p, ins, &v, &xq);
    if (kind) {
        if (kind == 2) htc__dwconv2d_xp_ch_ql(&v, &xq, HTC__CAST(const int8_t *, ins[0]), HTC__CAST(int8_t *, out), 0, v.in_c);
        else htc__conv2d_xp_sel_ql(&v, &xq, HTC__CAST(const int8_t *, ins[0]), HTC__CAST(int8_t *, out), 0, v.out_c, 0, v.out_h * v.out_w);
        return;
    }
#endif
    htc__ql_conv_desc(p, ins, &g, &e);
    htc__conv_core(&g, &e, HTC__CAST(const int8_t *, ins[0]), out, 0, p->out_c);
}

/* ---- Parallel entry points (multi-core clusters, htc.h HTC_PAR_RUN):
   the same arguments, then split, core and ncores; core computes its share
   of the output, the same bytes as the serial entry point for any ncores.
   Rows: each image's output rows [y0, y1) as a smaller layer (htc.h
   htc__rows_view), so every fast path runs unchanged; a pointwise layer
   (1x1, stride 1, no padding) is one row of batches * h * w pixels and is
   divided by pixels, and on the XpulpV2 path so is (by pixel pairs) a
   one-image convolution whose rows divide unevenly over the cores. Channels: output channels [lo, hi) of the loop. */
static inline int htc__conv_pointwise(int32_t k_h, int32_t k_w, int32_t s_h, int32_t s_w, int32_t pt, int32_t pl,
                                      int32_t in_h, int32_t in_w, int32_t out_h, int32_t out_w)
{
    return k_h == 1 && k_w == 1 && s_h == 1 && s_w == 1 && pt == 0 && pl == 0 && out_h == in_h && out_w == in_w;
}

/* One call on the whole (view of the) layer p: TFLite's kernels, or (xq)
   the XpulpV2 path htc__ql_conv_xp chose for QuantLib's layer. */
static HTC__INLINE void htc__conv_leaf(const htc__conv_params *p, const htc__xql *xq, int dw, const int8_t *in, int8_t *out)
{
    (void)xq;
#ifdef HTC__XP
    if (xq) {
        if (dw) htc__dwconv2d_xp_ch_ql(p, xq, in, out, 0, p->in_c);
        else htc__conv2d_xp_sel_ql(p, xq, in, out, 0, p->out_c, 0, p->out_h * p->out_w);
        return;
    }
#endif
    if (dw) htc__dwconv2d_s8(p, in, out);
    else htc__conv2d_s8(p, in, out);
}

/* Output channels [lo, hi) of every pixel: the XpulpV2 paths take a
   channel range (a depthwise core then copies only its own channels'
   planes, and a layer of few pixels still keeps every core busy); the
   other builds run the loop of htc__conv_core on the range. xq: a
   QuantLib layer on the XpulpV2 paths (htc__ql_conv_xp). */
static HTC__INLINE void htc__conv_ch_par_x(const htc__conv_params *p, const htc__xql *xq, int dw, const int8_t *in, int8_t *out,
                                           int core, int ncores)
{
    int32_t lo, hi;
    (void)xq;
    htc__share(p->out_c, core, ncores, &lo, &hi);
    if (hi <= lo) return;
#ifdef HTC__XP
    if (xq) {
        if (dw) htc__dwconv2d_xp_ch_ql(p, xq, in, out, lo, hi);
        else htc__conv2d_xp_sel_ql(p, xq, in, out, lo, hi, 0, p->out_h * p->out_w);
        return;
    }
    if (dw && !p->w_zp && htc__dwconv2d_xp_ok(p)) {
        htc__dwconv2d_xp_ch(p, in, out, lo, hi);
        return;
    }
    if (!dw && !p->w_zp && htc__conv2d_xp_ch(p, in, out, lo, hi)) return;
#endif
    htc__conv_tflite_gen(p, dw, in, out, lo, hi);
}

static HTC__UNUSED void htc__conv_ch_par(const htc__conv_params *p, int dw, const int8_t *in, int8_t *out, int core, int ncores)
{
    htc__conv_ch_par_x(p, HTC__CAST(const htc__xql *, 0), dw, in, out, core, ncores);
}

/* Output rows [y0, y1) of an image (p->batches is 1): in is the input band
   from htc__rows_view(y0, y1)'s first row, out the output from row y0;
   core computes its share of the band's rows (pixels when pointwise). The
   cluster's L1 tiles (gen/tile.c tile_cluster) run it on bands in L1. */
static HTC__UNUSED void htc__conv_band(const htc__conv_params *p, int dw, const int8_t *in, int8_t *out, int32_t y0, int32_t y1,
                                       int split, int core, int ncores)
{
    htc__conv_params v = *p;
    int32_t a, b, biy0, bh, bpad, iy0;
    v.batches = 1;
    if (split == HTC_SPLIT_CHANNELS) {
        /* the whole band, core's share of the channels */
        htc__rows_view(p->in_h, p->k_h, p->stride_h, p->dil_h, p->pad_top, y0, y1, &biy0, &v.in_h, &v.pad_top);
        v.out_h = y1 - y0;
        htc__conv_ch_par(&v, dw, in, out, core, ncores);
        return;
    }
    if (htc__conv_pointwise(p->k_h, p->k_w, p->stride_h, p->stride_w, p->pad_top, p->pad_left, p->in_h, p->in_w, p->out_h,
                            p->out_w)) {
        htc__share((y1 - y0) * p->out_w, core, ncores, &a, &b);
        if (b <= a) return;
        v.in_h = v.out_h = 1;
        v.in_w = v.out_w = b - a;
        in += HTC__CAST(size_t, a) * p->in_c;
        out += HTC__CAST(size_t, a) * p->out_c;
    } else {
        htc__share(y1 - y0, core, ncores, &a, &b);
        if (b <= a) return;
        htc__rows_view(p->in_h, p->k_h, p->stride_h, p->dil_h, p->pad_top, y0, y1, &biy0, &bh, &bpad);
        htc__rows_view(p->in_h, p->k_h, p->stride_h, p->dil_h, p->pad_top, y0 + a, y0 + b, &iy0, &v.in_h, &v.pad_top);
        v.out_h = b - a;
        in += HTC__CAST(size_t, iy0 - biy0) * p->in_w * p->in_c;
        out += HTC__CAST(size_t, a) * p->out_w * p->out_c;
    }
    if (dw) htc__dwconv2d_s8(&v, in, out);
    else htc__conv2d_s8(&v, in, out);
}

static HTC__UNUSED void htc__conv2d_s8_band(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t y0, int32_t y1,
                                            int split, int core, int ncores)
{
    htc__conv_band(p, 0, in, out, y0, y1, split, core, ncores);
}

static HTC__UNUSED void htc__dwconv2d_s8_band(const htc__conv_params *p, const int8_t *in, int8_t *out, int32_t y0, int32_t y1,
                                              int split, int core, int ncores)
{
    htc__conv_band(p, 1, in, out, y0, y1, split, core, ncores);
}

#ifdef HTC__XP
/* The cost of nin pixel pairs reading their fields in place and ncp
   copying them (htc__conv2d_xp_body): per pair its blocks of four
   channels (requantization, K4 / 4 words of dot products), per pair in
   place its set-up and per block the runs, per copied field its bytes and
   rows (targets/siracusa.lua's conv terms, rounded; the same integers in
   its xp_split) */
static int64_t htc__xp_paircost(const htc__conv_params *p, int32_t nin, int32_t ncp)
{
    const int32_t K = p->k_h * p->k_w * p->in_c, nb = (p->out_c + 3) / 4;
    const int64_t base = HTC__CAST(int64_t, nb) * (180 + 14 * (((K + 3) & ~3) >> 2));
    return nin * (base + 240 + 4 * nb * p->k_h) + ncp * (base + 2 * (K + (K >> 2) + 75 * p->k_h));
}

/* Core's share [qa, qb) of a one-image XpulpV2 convolution's pixels as
   pixel pairs, 1; 0 for the split by rows. The pairs of an interior
   output row read their fields in place except at its ends, the rows
   with taps above or below the image copy every field: where by rows the
   core holding those is busier than the average by more than a pair, the
   pairs are divided by their cost (a row's pairs taken alike; GVSoC,
   ResNet's 32 x 32 x 16 3x3 layers at 8 cores: 204,499 -> 199,873 and
   216,240 -> 210,285 cycles; its 16 x 16 and 8 x 8 ones, a pair's cost
   above that difference, are slower so); else, when the rows divide
   unevenly over the cores, evenly. */
static HTC__UNUSED int htc__xp_split(const htc__conv_params *p, int core, int ncores, int32_t *qa, int32_t *qb)
{
    const int32_t ow = p->out_w, oh = p->out_h, npix = oh * ow, hw = ow / 2;
    int32_t nin = 0, j, oy, tb = 0, bb = 0;
    if (p->w_zp || htc__conv2d_xp_pw(p) || !htc__conv2d_xp_fits(p)) return 0;
    /* (rows of fewer than 16 pairs not tried: there a pair costs more than
       the difference, and the check's own cycles, its code cold, were
       1,500-2,000 a call on ResNet's 16 x 16 and 8 x 8 layers) */
    if (ncores > 1 && ow >= 32 && (ow & 1) == 0 && p->dil_h == 1 && p->dil_w == 1 && ((p->k_w * p->in_c) & 3) == 0 && (p->out_c & 3) == 0)
        for (j = 0; j < hw; j++) {
            const int32_t ix0 = 2 * j * p->stride_w - p->pad_left;
            nin += ix0 >= 0 && ix0 + p->stride_w + p->k_w <= p->in_w;
        }
    /* the rows copying every field: tb at the top, bb at the bottom */
    while (nin > 0 && tb < oh && tb * p->stride_h - p->pad_top < 0) tb++;
    while (nin > 0 && bb < oh - tb && (oh - 1 - bb) * p->stride_h - p->pad_top + p->k_h > p->in_h) bb++;
    if (nin > 0 && oh % ncores == 0 && tb + bb > 0) {
        const int64_t rin = htc__xp_paircost(p, nin, hw - nin), rcp = htc__xp_paircost(p, 0, hw);
        const int32_t r = oh / ncores, t0 = tb < r ? tb : r, b0 = bb < r ? bb : r;
        const int64_t tot = (tb + bb) * rcp + (oh - tb - bb) * rin;
        const int64_t c0 = t0 * rcp + (r - t0) * rin, c1 = b0 * rcp + (r - b0) * rin;
        if ((c0 > c1 ? c0 : c1) * ncores - tot > htc__xp_paircost(p, 0, 1) * ncores) {
            int64_t t[2], a;
            int32_t *q[2], i;
            t[0] = tot * core / ncores;
            t[1] = tot * (core + 1) / ncores;
            q[0] = qa;
            q[1] = qb;
            for (i = 0; i < 2; i++) {
                *q[i] = npix;
                for (oy = 0, a = 0; oy < oh; oy++) {
                    const int64_t rc = oy < tb || oy >= oh - bb ? rcp : rin;
                    if (a + rc > t[i]) {
                        *q[i] = 2 * (oy * hw + HTC__CAST(int32_t, ((t[i] - a) * hw + rc / 2) / rc));
                        break;
                    }
                    a += rc;
                }
            }
            return 1;
        }
    }
    if (oh % ncores == 0) return 0;
    htc__share((npix + 1) / 2, core, ncores, qa, qb);
    *qa *= 2;
    *qb = 2 * *qb < npix ? 2 * *qb : npix;
    return 1;
}
#endif

static HTC__INLINE void htc__conv_rows_par_x(const htc__conv_params *p, const htc__xql *xq, int dw, const int8_t *in,
                                             int8_t *out, int core, int ncores)
{
    htc__conv_params v = *p;
    const size_t in_img = HTC__CAST(size_t, p->in_h) * p->in_w * p->in_c, out_img = HTC__CAST(size_t, p->out_h) * p->out_w * p->out_c;
    int32_t b, y0, y1, iy0;
    if (htc__conv_pointwise(p->k_h, p->k_w, p->stride_h, p->stride_w, p->pad_top, p->pad_left, p->in_h, p->in_w, p->out_h,
                            p->out_w)) {
        htc__share(p->batches * p->out_h * p->out_w, core, ncores, &y0, &y1);
        if (y1 <= y0) return;
        v.batches = 1;
        v.in_h = v.out_h = 1;
        v.in_w = v.out_w = y1 - y0;
        in += HTC__CAST(size_t, y0) * p->in_c;
        out += HTC__CAST(size_t, y0) * p->out_c;
        htc__conv_leaf(&v, xq, dw, in, out);
        return;
    }
#ifdef HTC__XP
    /* rows that divide unevenly over the cores (DS-CNN's first layer: 25
       rows, 4 on the busiest of 8), or the cores holding the rows whose
       fields are copied busier than the others by more than a pixel pair:
       pixel pairs instead, the same bytes (htc__xp_split) */
    if (!dw && p->batches == 1 && htc__xp_split(p, core, ncores, &y0, &y1)) {
        if (htc__conv2d_xp_px(p, xq, in, out, y0, y1)) return;
    }
#endif
    htc__share(p->out_h, core, ncores, &y0, &y1);
    if (y1 <= y0) return;
    htc__rows_view(p->in_h, p->k_h, p->stride_h, p->dil_h, p->pad_top, y0, y1, &iy0, &v.in_h, &v.pad_top);
    v.batches = 1;
    v.out_h = y1 - y0;
    for (b = 0; b < p->batches; b++) {
        const int8_t *ib = in + b * in_img + HTC__CAST(size_t, iy0) * p->in_w * p->in_c;
        int8_t *ob = out + b * out_img + HTC__CAST(size_t, y0) * p->out_w * p->out_c;
        htc__conv_leaf(&v, xq, dw, ib, ob);
    }
}

static HTC__UNUSED void htc__conv_rows_par(const htc__conv_params *p, int dw, const int8_t *in, int8_t *out, int core,
                                           int ncores)
{
    htc__conv_rows_par_x(p, HTC__CAST(const htc__xql *, 0), dw, in, out, core, ncores);
}

static HTC__UNUSED void htc__conv2d_s8_par(const htc__conv_params *p, const int8_t *in, int8_t *out, int split, int core,
                                           int ncores)
{
    if (split == HTC_SPLIT_CHANNELS) htc__conv_ch_par(p, 0, in, out, core, ncores);
    else htc__conv_rows_par(p, 0, in, out, core, ncores);
}

static HTC__UNUSED void htc__dwconv2d_s8_par(const htc__conv_params *p, const int8_t *in, int8_t *out, int split, int core,
                                             int ncores)
{
    if (split == HTC_SPLIT_CHANNELS) htc__conv_ch_par(p, 1, in, out, core, ncores);
    else htc__conv_rows_par(p, 1, in, out, core, ncores);
}

/* The loop's layer g: core's share by rows (a smaller layer per image) or
   by output channels. */
static HTC__UNUSED void htc__convg_par(const htc__convg *g, const htc__epi *e, const int8_t *in, void *out, int split,
                                       int core, int ncores)
{
    const size_t esz = e->kind == HTC__EPI_INT32 ? 4 : 1;
    const size_t in_img = HTC__CAST(size_t, g->in_h) * g->in_w * g->in_c, out_img = HTC__CAST(size_t, g->out_h) * g->out_w * g->out_c;
    htc__convg v = *g;
    int32_t b, y0, y1, iy0;
    if (split == HTC_SPLIT_CHANNELS) {
        htc__share(g->out_c, core, ncores, &y0, &y1);
        if (y1 > y0) htc__conv_core(g, e, in, out, y0, y1);
        return;
    }
    if (htc__conv_pointwise(g->k_h, g->k_w, g->stride_h, g->stride_w, g->pad_top, g->pad_left, g->in_h, g->in_w, g->out_h,
                            g->out_w)) {
        htc__share(g->batches * g->out_h * g->out_w, core, ncores, &y0, &y1);
        if (y1 <= y0) return;
        v.batches = 1;
        v.in_h = v.out_h = 1;
        v.in_w = v.out_w = y1 - y0;
        htc__conv_core(&v, e, in + HTC__CAST(size_t, y0) * g->in_c,
                       HTC__CAST(char *, out) + HTC__CAST(size_t, y0) * g->out_c * esz, 0, g->out_c);
        return;
    }
    htc__share(g->out_h, core, ncores, &y0, &y1);
    if (y1 <= y0) return;
    htc__rows_view(g->in_h, g->k_h, g->stride_h, g->dil_h, g->pad_top, y0, y1, &iy0, &v.in_h, &v.pad_top);
    v.batches = 1;
    v.out_h = y1 - y0;
    for (b = 0; b < g->batches; b++)
        htc__conv_core(&v, e, in + b * in_img + HTC__CAST(size_t, iy0) * g->in_w * g->in_c,
                       HTC__CAST(char *, out) + (b * out_img + HTC__CAST(size_t, y0) * g->out_w * g->out_c) * esz, 0, g->out_c);
}

static HTC__UNUSED void htc__qconv2d_s8_par(const htc__qconv_params *p, const int8_t *in, int8_t *out, int split, int core,
                                            int ncores)
{
    htc__convg g;
    htc__epi e;
    htc__qconv_desc(p, 0, &g, &e);
    htc__convg_par(&g, &e, in, out, split, core, ncores);
}

static HTC__UNUSED void htc__qconv2d_s32_par(const htc__qconv_params *p, const int8_t *in, int32_t *out, int split, int core,
                                             int ncores)
{
    htc__convg g;
    htc__epi e;
    htc__qconv_desc(p, 1, &g, &e);
    htc__convg_par(&g, &e, in, out, split, core, ncores);
}

static HTC__UNUSED void htc__ql_conv2d_par(const htc__ql_conv_params *p, const void *const *ins, void *out, int split, int core,
                                           int ncores)
{
    htc__convg g;
    htc__epi e;
#ifdef HTC__XP
    htc__conv_params v;
    htc__xql xq;
    const int kind = htc__ql_conv_xp(p, ins, &v, &xq);
    if (kind) {
        if (split == HTC_SPLIT_CHANNELS)
            htc__conv_ch_par_x(&v, &xq, kind == 2, HTC__CAST(const int8_t *, ins[0]), HTC__CAST(int8_t *, out), core, ncores);
        else
            htc__conv_rows_par_x(&v, &xq, kind == 2, HTC__CAST(const int8_t *, ins[0]), HTC__CAST(int8_t *, out), core, ncores);
        return;
    }
#endif
    htc__ql_conv_desc(p, ins, &g, &e);
    htc__convg_par(&g, &e, HTC__CAST(const int8_t *, ins[0]), out, split, core, ncores);
}
