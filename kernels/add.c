/* add.c - int8 element-wise ADD with broadcasting (up to 4-D).
   Bit-exact with TFLite reference_integer_ops::Add / BroadcastAdd6DSlow. */

/* TFLite's 8-bit ADD: both inputs offset by -zero_point, shifted left by
   left_shift (20), scaled to a common scale (multipliers < 1, so the shift
   is a rounding right shift), summed, scaled to the output, clamped. */

static HTC__UNUSED int8_t htc__add_one(const htc__binary_params *p, int32_t a, int32_t b)
{
    const int32_t sa = htc__rdivpot(htc__srdhm((a + p->a_offset) * (HTC__CAST(int32_t, 1) << p->left_shift), p->a_mult), -p->a_shift);
    const int32_t sb = htc__rdivpot(htc__srdhm((b + p->b_offset) * (HTC__CAST(int32_t, 1) << p->left_shift), p->b_mult), -p->b_shift);
    const int32_t r = htc__mulq(sa + sb, p->out_mult, p->out_shift) + p->out_zp;
    return HTC__CAST(int8_t, htc__clamp(r, p->act_min, p->act_max));
}

#ifdef HTC__SSE2
/* int8 lanes 4k..4k+3 of v sign-extended to int32 */
static inline __m128i htc__s8_to_s32(__m128i v16, int hi)
{
    const __m128i w = hi ? _mm_unpackhi_epi16(v16, v16) : _mm_unpacklo_epi16(v16, v16);
    return _mm_srai_epi32(w, 16);
}

/* 16 elements: the same arithmetic as htc__add_one, four lanes at a time
   (all three multipliers are below one, so every step is a SaturatingRounding-
   DoublingHighMul followed by a rounding right shift: htc__rq4_apply) */
static HTC__UNUSED int htc__add16_sse2(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int32_t n)
{
    htc__rq4 qa, qb, qo;
    const int8_t sa = p->a_shift, sb = p->b_shift, so = p->out_shift;
    const __m128i oa = _mm_set1_epi32(p->a_offset), ob = _mm_set1_epi32(p->b_offset);
    const __m128i ls = _mm_cvtsi32_si128(p->left_shift);
    int32_t i;
    if (!htc__rq4_make(&qa, &p->a_mult, &sa, 0) || !htc__rq4_make(&qb, &p->b_mult, &sb, 0) ||
        !htc__rq4_make(&qo, &p->out_mult, &so, 0) || p->left_shift < 0 || p->left_shift > 23)
        return 0;
    for (i = 0; i + 16 <= n; i += 16) {
        const __m128i va = HTC__LD128(a + i), vb = HTC__LD128(b + i);
        const __m128i al = HTC__LO16(va), ah = HTC__HI16(va), bl = HTC__LO16(vb), bh = HTC__HI16(vb);
        __m128i r[4];
        int k;
        for (k = 0; k < 4; k++) {
            const __m128i x = htc__s8_to_s32(k < 2 ? al : ah, k & 1);
            const __m128i y = htc__s8_to_s32(k < 2 ? bl : bh, k & 1);
            const __m128i xs = _mm_sll_epi32(_mm_add_epi32(x, oa), ls);
            const __m128i ys = _mm_sll_epi32(_mm_add_epi32(y, ob), ls);
            r[k] = htc__rq4_apply(&qo, _mm_add_epi32(htc__rq4_apply(&qa, xs), htc__rq4_apply(&qb, ys)));
        }
        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, out + i)),
                         _mm_unpacklo_epi64(htc__rq4_pack(r[0], r[1], p->out_zp, p->act_min, p->act_max),
                                            htc__rq4_pack(r[2], r[3], p->out_zp, p->act_min, p->act_max)));
    }
    return 1;
}
#endif

#ifdef HTC__DSP
/* Arm DSP path (no broadcasting, multipliers in [2^30, 2^31), left shift <=
   23): each rescaling step is htc__dsprq's SMMLAR, and the rounding shift
   (h + 2^(e-1) - (h < 0 and e > 0)) >> e needs no saturation here: the
   values stay below 2^29 in magnitude. */
typedef struct {
    int32_t m2, c, mk, e;
} htc__add_rq;

static inline htc__add_rq htc__add_rq_make(int32_t m, int shift)
{
    htc__add_rq q;
    q.m2 = HTC__CAST(int32_t, HTC__CAST(uint32_t, m) << 1);
    q.e = -shift;
    q.c = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << q.e) >> 1);
    q.mk = q.e ? -1 : 0;
    return q;
}

static inline int32_t htc__add_rq_apply(htc__add_rq q, int32_t x)
{
    const int32_t h = htc__smmlar(x, q.m2, x);
    return (h + q.c + ((h >> 31) & q.mk)) >> q.e;
}

/* the common case: input b's multiplier is exactly 1/2 (2^30, shift 0: the
   input with the larger scale), so its term is (b + b_offset) << 19 with no
   rounding; left shift 20, output range all of int8, the output zero point
   folded into the last rounding constant (|h| < 2^29, e <= 23: no overflow) */
static HTC__NOINLINE HTC__DSP_NOSCHED void htc__add_dsp_half(const htc__add_rq qa, int32_t ao, int32_t bo, htc__add_rq qo,
                                                             const int8_t *a, const int8_t *b, int8_t *out, int32_t n)
{
    const int8_t *end = a + n;
    while (a != end) {
        const int32_t x = ao + *a++ * (HTC__CAST(int32_t, 1) << 20);
        int32_t h = htc__smmlar(x, qa.m2, x);
        h = (h + qa.c + ((h >> 31) & qa.mk)) >> qa.e;
        h += (*b++ + bo) * (HTC__CAST(int32_t, 1) << 19);
        h = htc__smmlar(h, qo.m2, h);
        *out++ = HTC__CAST(int8_t, htc__ssat8((h + qo.c + (h >> 31)) >> qo.e));
    }
}

/* the half case's set-up: b (half = 1) or a (half = 0) is the input with
   multiplier 1/2 */
static HTC__NOINLINE HTC__COLD void htc__add_dsp_h(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out,
                                                   int32_t n, int half_b)
{
    htc__add_rq q = htc__add_rq_make(p->out_mult, p->out_shift);
    q.c += p->out_zp * (HTC__CAST(int32_t, 1) << q.e);
    if (half_b)
        htc__add_dsp_half(htc__add_rq_make(p->a_mult, p->a_shift), p->a_offset * (HTC__CAST(int32_t, 1) << 20), p->b_offset, q, a,
                          b, out, n);
    else
        htc__add_dsp_half(htc__add_rq_make(p->b_mult, p->b_shift), p->b_offset * (HTC__CAST(int32_t, 1) << 20), p->a_offset, q, b,
                          a, out, n);
}

/* 1 if input b (1) or a (0) suits htc__add_dsp_half, else -1 */
static inline int htc__add_dsp_half_ok(const htc__binary_params *p)
{
    const int32_t half = HTC__CAST(int32_t, 1) << 30;
    if (p->left_shift != 20 || p->act_min != -128 || p->act_max != 127 || p->out_shift > -1 || p->out_shift < -23) return -1;
    if (p->b_mult == half && p->b_shift == 0) return 1;
    if (p->a_mult == half && p->a_shift == 0) return 0;
    return -1;
}

static HTC__NOINLINE HTC__COLD HTC__DSP_NOSCHED void htc__add_dsp(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out,
                                                        int32_t n)
{
    const htc__add_rq qa = htc__add_rq_make(p->a_mult, p->a_shift), qb = htc__add_rq_make(p->b_mult, p->b_shift);
    const htc__add_rq qo = htc__add_rq_make(p->out_mult, p->out_shift);
    const int32_t ls = p->left_shift, ao = p->a_offset * (HTC__CAST(int32_t, 1) << ls), bo = p->b_offset * (HTC__CAST(int32_t, 1) << ls);
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    int32_t i;
    for (i = 0; i < n; i++) {
        const int32_t x = a[i] * (HTC__CAST(int32_t, 1) << ls) + ao, y = b[i] * (HTC__CAST(int32_t, 1) << ls) + bo;
        const int32_t v = htc__add_rq_apply(qo, htc__add_rq_apply(qa, x) + htc__add_rq_apply(qb, y)) + zp;
        out[i] = HTC__CAST(int8_t, htc__dsp_clamp(v, lo, hi));
    }
}

static inline int htc__add_dsp_ok(const htc__binary_params *p)
{
    const int32_t m30 = HTC__CAST(int32_t, 1) << 30;
    return p->a_mult >= m30 && p->b_mult >= m30 && p->out_mult >= m30 && p->a_shift <= 0 && p->b_shift <= 0 &&
           p->out_shift <= 0 && p->left_shift >= 0 && p->left_shift <= 23;
}
#endif

#if (!defined(HTC__SSE2) && !defined(HTC__DSP)) || defined(HTC__XP)
/* Portable path (no broadcasting, multipliers in [0, 2^31), right shifts,
   left shift <= 23): the same steps in 32-bit arithmetic around one
   32x32->64 multiply each (MUL and MULH on RV32): the values stay below 2^29
   in magnitude, so the rounding shift is (h + 2^(e-1) - (h < 0 and e > 0)) >> e
   without overflow; an input whose multiplier is exactly 1/2 (shift 0) is
   the exact shift (x + offset) << (left_shift - 1). */
static inline int32_t htc__add_srdhm(int32_t x, int32_t m)
{
    return HTC__CAST(int32_t, (HTC__CAST(int64_t, x) * m + (HTC__CAST(int64_t, 1) << 30)) >> 31);
}

static inline int32_t htc__add_rdiv(int32_t h, int32_t c, int32_t mk, int32_t e)
{
    return (h + c + ((h >> 31) & mk)) >> e;
}

static inline int htc__add_port_ok(const htc__binary_params *p)
{
    return p->a_mult >= 0 && p->b_mult >= 0 && p->out_mult >= 0 && p->a_shift <= 0 && p->b_shift <= 0 &&
           p->out_shift <= 0 && p->left_shift >= 0 && p->left_shift <= 23;
}
#endif

#if !defined(HTC__SSE2) && !defined(HTC__DSP)
static HTC__NOINLINE HTC__NOSCHED void htc__add_port(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out,
                                                     int32_t n)
{
    const int32_t half = HTC__CAST(int32_t, 1) << 30, ls = p->left_shift;
    const int32_t ea = -p->a_shift, eb = -p->b_shift, eo = -p->out_shift;
    const int32_t ca = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << ea) >> 1), cb = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << eb) >> 1);
    const int32_t co = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << eo) >> 1);
    const int32_t ma = ea ? -1 : 0, mb = eb ? -1 : 0, mo = eo ? -1 : 0;
    const int32_t ao = p->a_offset, bo = p->b_offset, am = p->a_mult, bm = p->b_mult, om = p->out_mult;
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t sc = HTC__CAST(int32_t, 1) << ls;
    const int bhalf = bm == half && eb == 0 && ls > 0, ahalf = am == half && ea == 0 && ls > 0;
    int32_t i;
    if (bhalf || ahalf) {
        /* the half input as b */
        const int8_t *x = bhalf ? a : b, *y = bhalf ? b : a;
        const int32_t xo = bhalf ? ao : bo, yo = bhalf ? bo : ao, xm = bhalf ? am : bm;
        const int32_t xc = bhalf ? ca : cb, xk = bhalf ? ma : mb, xe = bhalf ? ea : eb;
        const int32_t hs = sc >> 1;
        for (i = 0; i < n; i++) {
            const int32_t s = htc__add_rdiv(htc__add_srdhm((x[i] + xo) * sc, xm), xc, xk, xe) + (y[i] + yo) * hs;
            int32_t v = htc__add_rdiv(htc__add_srdhm(s, om), co, mo, eo) + zp;
            v = v < lo ? lo : (v > hi ? hi : v);
            out[i] = HTC__CAST(int8_t, v);
        }
        return;
    }
    for (i = 0; i < n; i++) {
        const int32_t s = htc__add_rdiv(htc__add_srdhm((a[i] + ao) * sc, am), ca, ma, ea) +
                          htc__add_rdiv(htc__add_srdhm((b[i] + bo) * sc, bm), cb, mb, eb);
        int32_t v = htc__add_rdiv(htc__add_srdhm(s, om), co, mo, eo) + zp;
        v = v < lo ? lo : (v > hi ? hi : v);
        out[i] = HTC__CAST(int8_t, v);
    }
}

#endif

#ifdef HTC__XP
/* XpulpV2 path (HTC__XP; the portable path's conditions, n >= 512): each
   input's rescaled value depends on its byte alone, so the 256 values of
   each input are computed once (htc__add_port's first two steps, 2 KiB of
   stack) and each element is two table reads, the output's rescaling and
   the clamp (p.max, p.min) */
#define HTC__ADD_XP_MIN 512
static HTC__NOINLINE void htc__add_xp(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int32_t n)
{
    const int32_t ls = p->left_shift, ea = -p->a_shift, eb = -p->b_shift, eo = -p->out_shift;
    const int32_t ca = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << ea) >> 1), cb = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << eb) >> 1);
    const int32_t co = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << eo) >> 1);
    const int32_t ma = ea ? -1 : 0, mb = eb ? -1 : 0, mo = eo ? -1 : 0;
    const int32_t om = p->out_mult, zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t sc = HTC__CAST(int32_t, 1) << ls;
    int32_t ta[256], tb[256], i;
    const int32_t *pa = ta + 128, *pb = tb + 128;
    for (i = 0; i < 256; i++) {
        ta[i] = htc__add_rdiv(htc__add_srdhm((i - 128 + p->a_offset) * sc, p->a_mult), ca, ma, ea);
        tb[i] = htc__add_rdiv(htc__add_srdhm((i - 128 + p->b_offset) * sc, p->b_mult), cb, mb, eb);
    }
    if (om >= 0 && eo >= 1 && eo <= 31) {
        /* the output's rescaling as htc__xrq_apply (one MULHSU, no 64-bit
           sum): the same value while |s| < 2^29 (htc__add_port_ok's
           bounds), h + c within int32; the tables indexed by the signed byte */
        const htc__xrq q = htc__xrq_make(om, -eo);
#ifdef HTC__XP_ASM
        /* the tables' addresses held in registers (GCC would rebuild each
           from the stack pointer per element) */
        __asm__("" : "+r"(pa), "+r"(pb));
#endif
        for (i = 0; i < n; i++) {
            const int32_t s = pa[a[i]] + pb[b[i]];
            out[i] = HTC__CAST(int8_t, htc__xp_clamp(htc__xrq_apply(q, s) + zp, lo, hi));
        }
        return;
    }
    for (i = 0; i < n; i++) {
        const int32_t s = pa[a[i]] + pb[b[i]];
        out[i] = HTC__CAST(int8_t, htc__xp_clamp(htc__add_rdiv(htc__add_srdhm(s, om), co, mo, eo) + zp, lo, hi));
    }
}

#endif

static HTC__NOINLINE HTC__COLD HTC__UNUSED void htc__add_gen(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t n0 = p->out_shape[0], n1 = p->out_shape[1], n2 = p->out_shape[2], n3 = p->out_shape[3];
    if (!p->broadcast) {
        const int32_t n = n0 * n1 * n2 * n3;
        int32_t i = 0;
#ifdef HTC__SSE2
        if (htc__add16_sse2(p, a, b, out, n)) i = n / 16 * 16;
#endif
        for (; i < n; i++) out[i] = htc__add_one(p, a[i], b[i]);
    } else {
        const int32_t as3 = p->a_stride[3], bs3 = p->b_stride[3];
        int32_t i0, i1, i2, i3;
        for (i0 = 0; i0 < n0; i0++)
            for (i1 = 0; i1 < n1; i1++)
                for (i2 = 0; i2 < n2; i2++) {
                    const int8_t *pa = a + i0 * p->a_stride[0] + i1 * p->a_stride[1] + i2 * p->a_stride[2];
                    const int8_t *pb = b + i0 * p->b_stride[0] + i1 * p->b_stride[1] + i2 * p->b_stride[2];
                    for (i3 = 0; i3 < n3; i3++) {
                        *out++ = htc__add_one(p, *pa, *pb);
                        pa += as3;
                        pb += bs3;
                    }
                }
    }
}

#ifdef HTC__MVE
/* Helium path (no broadcast; input shifts <= 0, as TFLite's Prepare makes
   them): four elements per vector, each step of htc__add_one on the lanes:
   (x + offset) << left_shift (VSHL), the rounding multiply and divide by a
   power of two (htc__mve_rq1: the same double rounding), the sum, the
   output requantization, + out_zp, clamped; a last step of n % 4 elements
   predicated. */
static HTC__NOINLINE void htc__add_mve(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int32_t n)
{
    const int32_t ao = p->a_offset, bo = p->b_offset, ls = p->left_shift, am = p->a_mult, bm = p->b_mult, om = p->out_mult;
    const int as = p->a_shift, bs = p->b_shift, os = p->out_shift;
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    int32_t i;
#define HTC__ADD_MVE(XA, XB)                                                                                      \
    htc__mve_out(htc__mve_rq1(vaddq_s32(htc__mve_rq1r(vshlq_r_s32(vaddq_n_s32(XA, ao), ls), am, as),                \
                                        htc__mve_rq1r(vshlq_r_s32(vaddq_n_s32(XB, bo), ls), bm, bs)),               \
                              om, os),                                                                            \
                 zp, lo, hi)
    for (i = 0; i + 4 <= n; i += 4) vstrbq_s32(out + i, HTC__ADD_MVE(vldrbq_s32(a + i), vldrbq_s32(b + i)));
    if (i < n) {
        const mve_pred16_t pr = vctp32q(HTC__CAST(uint32_t, n - i));
        vstrbq_p_s32(out + i, HTC__ADD_MVE(vldrbq_z_s32(a + i, pr), vldrbq_z_s32(b + i, pr)), pr);
    }
#undef HTC__ADD_MVE
}
#endif

/* The path is chosen from the layer's constant parameters: with the call
   inlined the compiler folds the choice and links only the paths used. */
static HTC__INLINE HTC__UNUSED void htc__add_s8(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t n = p->out_shape[0] * p->out_shape[1] * p->out_shape[2] * p->out_shape[3];
#ifdef HTC__XP
    if (!p->broadcast && p->xq) {
        htc__xadd_run(p->xq, p->act_min, p->act_max, a, b, out, n);
        return;
    }
    if (!p->broadcast && htc__add_port_ok(p) && n >= HTC__ADD_XP_MIN) {
        htc__add_xp(p, a, b, out, n);
        return;
    }
#endif
#ifdef HTC__MVE
    if (!p->broadcast && p->a_shift <= 0 && p->b_shift <= 0) {
        htc__add_mve(p, a, b, out, n);
        return;
    }
#endif
#ifdef HTC__DSP
    if (!p->broadcast && htc__add_dsp_ok(p)) {
        const int h = htc__add_dsp_half_ok(p);
        if (h >= 0) htc__add_dsp_h(p, a, b, out, n, h);
        else htc__add_dsp(p, a, b, out, n);
        return;
    }
#elif !defined(HTC__SSE2)
    if (!p->broadcast && htc__add_port_ok(p)) {
        htc__add_port(p, a, b, out, n);
        return;
    }
#endif
    (void)n;
    htc__add_gen(p, a, b, out);
}

/* Multi-core (htc.h HTC_PAR_RUN): core's share of the elements (without
   broadcasting) or of the outermost dimension longer than 1; split is rows. */
static HTC__UNUSED void htc__add_s8_par(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int split,
                                        int core, int ncores)
{
    htc__binary_params v = *p;
    int32_t lo, hi, d = 0, k;
    size_t inner = 1;
    (void)split;
    if (!p->broadcast) {
        htc__share(p->out_shape[0] * p->out_shape[1] * p->out_shape[2] * p->out_shape[3], core, ncores, &lo, &hi);
        if (hi <= lo) return;
        v.out_shape[0] = v.out_shape[1] = v.out_shape[2] = 1;
        v.out_shape[3] = hi - lo;
        htc__add_s8(&v, a + lo, b + lo, out + lo);
        return;
    }
    while (d < 3 && p->out_shape[d] == 1) d++;
    for (k = d + 1; k < 4; k++) inner *= HTC__CAST(size_t, p->out_shape[k]);
    htc__share(p->out_shape[d], core, ncores, &lo, &hi);
    if (hi <= lo) return;
    v.out_shape[d] = hi - lo;
    htc__add_s8(&v, a + HTC__CAST(size_t, lo) * p->a_stride[d], b + HTC__CAST(size_t, lo) * p->b_stride[d],
                out + HTC__CAST(size_t, lo) * inner);
}
