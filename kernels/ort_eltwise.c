/* ort_eltwise.c - QLinearAdd, QLinearGlobalAveragePool, table lookups,
   QuantizeLinear and DequantizeLinear with onnxruntime's arithmetic.
   Activations are int8 storage (uint8 tensors stored as value - 128). */

/* The operand folded into `fixed` when the other is a single element */
static inline float htc__qadd_fixed(const htc__qbinary_params *p, const int8_t *a, const int8_t *b)
{
    float fixed = p->fixed;
    if (p->a_scalar) {
        volatile float t = HTC__CAST(float, a[0] + p->a_off) * p->ra;
        fixed = fixed + t;
    } else if (p->b_scalar) {
        volatile float t = HTC__CAST(float, b[0] + p->b_off) * p->rb;
        fixed = fixed + t;
    }
    return fixed;
}

static HTC__UNUSED void htc__qadd_s8_fp(const htc__qbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t i;
    const float fixed = htc__qadd_fixed(p, a, b);
    for (i = 0; i < p->size; i++) {
        float c;
        if (p->a_scalar) c = htc__fmaf(HTC__CAST(float, b[i] + p->b_off), p->rb, fixed);
        else if (p->b_scalar) c = htc__fmaf(HTC__CAST(float, a[i] + p->a_off), p->ra, fixed);
        else c = htc__fmaf(HTC__CAST(float, a[i] + p->a_off), p->ra,
                           htc__fmaf(HTC__CAST(float, b[i] + p->b_off), p->rb, fixed));
        {
            const float lo = HTC__CAST(float, p->qmin), hi = HTC__CAST(float, p->qmax);
            c = c < lo ? lo : (c > hi ? hi : c);
            out[i] = HTC__CAST(int8_t, htc__rne(c) - p->out_off);
        }
    }
}

/* A float whose products with 8-bit values and sums with other such
   floats stay normal and finite: 0, or 2^-102 <= |f| < 2^100 (then every
   exact sum is a multiple of 2^-125 and below 2^110) */
static inline int htc__f_tame(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u &= 0x7fffffffu;
    return u == 0 || (u >= (25u << 23) && u < (227u << 23));
}

/* QLinearAdd without float operations (HTC_SOFT_FLOAT_EXACT): each fused
   multiply-add is the exact sum of an integer times the scale's mantissa
   and the addend's mantissa, rounded once to 24 bits (htc__add24); the
   same bits as htc__qadd_s8_fp whenever ra, rb and fixed are tame (else
   that is run) */
static HTC__UNUSED void htc__qadd_s8_ix(const htc__qbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    const float fixed = htc__qadd_fixed(p, a, b);
    int32_t i, era, erb, ef;
    int32_t mra, mrb, mf;
    if (!htc__f_tame(p->ra) || !htc__f_tame(p->rb) || !htc__f_tame(fixed)) {
        htc__qadd_s8_fp(p, a, b, out);
        return;
    }
    mra = htc__fsplit(p->ra, &era);
    mrb = htc__fsplit(p->rb, &erb);
    mf = htc__fsplit(fixed, &ef);
    for (i = 0; i < p->size; i++) {
        int32_t e;
        int64_t m;
        if (p->a_scalar) {
            m = htc__add24(HTC__CAST(int64_t, b[i] + p->b_off) * mrb, erb, mf, ef, &e);
        } else if (p->b_scalar) {
            m = htc__add24(HTC__CAST(int64_t, a[i] + p->a_off) * mra, era, mf, ef, &e);
        } else {
            int32_t et;
            const int64_t t = htc__add24(HTC__CAST(int64_t, b[i] + p->b_off) * mrb, erb, mf, ef, &et);
            m = htc__add24(HTC__CAST(int64_t, a[i] + p->a_off) * mra, era, t, et, &e);
        }
        out[i] = HTC__CAST(int8_t, htc__rint24(m, e, p->qmin, p->qmax, NULL) - p->out_off);
    }
}

/* QLinearAdd whose float arithmetic is exact: ra, rb and fixed integer
   multiples of 2^-m (m <= 24) and |(a + a_off) ra| + |(b + b_off) rb| +
   |fixed| below 2^(24 - m) for every int8 a, b (gen/dispatch.c
   find_exact_shift's condition for DIANA's add). Then both fused
   multiply-adds are exact, and c = v 2^-m with the integer v = (a + a_off)
   RA + (b + b_off) RB + FX; rounding v at bit m half to even and clamping
   gives htc__qadd_s8_fp's bits (clamping before or after rounding to
   integer bounds is the same). HTVM's residual adds (every scale 1) are
   v = a + b. Returns 0, having written nothing, for any other add. */
static int htc__qadd_s8_int(const htc__qbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    const float lim = 16777216.0f;
    const int64_t amax = 128 + (p->a_off < 0 ? -p->a_off : p->a_off), bmax = 128 + (p->b_off < 0 ? -p->b_off : p->b_off);
    float s = 1.0f;
    int32_t m, i;
    if (p->a_scalar || p->b_scalar || !htc__f_tame(p->ra) || !htc__f_tame(p->rb) || !htc__f_tame(p->fixed)) return 0;
    for (m = 0; m <= 24; m++, s *= 2.0f) {
        const float fa = p->ra * s, fb = p->rb * s, ff = p->fixed * s;     /* exact: tame values times 2^m */
        int32_t ra, rb, fx;
        if (!(fa > -lim && fa < lim && fb > -lim && fb < lim && ff > -lim && ff < lim)) return 0;
        ra = HTC__CAST(int32_t, fa);
        rb = HTC__CAST(int32_t, fb);
        fx = HTC__CAST(int32_t, ff);
        if (HTC__CAST(float, ra) != fa || HTC__CAST(float, rb) != fb || HTC__CAST(float, fx) != ff) continue;
        if (amax * (ra < 0 ? -ra : ra) + bmax * (rb < 0 ? -rb : rb) + (fx < 0 ? -fx : fx) >= 16777216) return 0;
        {
            /* in locals: the int8 stores may alias *p for the compiler */
            const int32_t n = p->size, qmin = p->qmin, qmax = p->qmax, ooff = p->out_off;
            const int32_t fix = fx + p->a_off * ra + p->b_off * rb;
#ifdef HTC__XP
            /* XpulpV2 (htc.h HTC__XP): four elements per word of each
               operand, element k's products as pv.sdotsp.b with ra / rb in
               byte k only, the clamp by p.max / p.min, out_off folded in */
            if (m == 0 && ra >= -128 && ra <= 127 && rb >= -128 && rb <= 127) {
                const uint32_t ua = HTC__CAST(uint8_t, ra), ub = HTC__CAST(uint8_t, rb);
                const int32_t f = fix - ooff, lo = qmin - ooff, hi = qmax - ooff;
                for (i = 0; i + 4 <= n; i += 4) {
                    const uint32_t wa = htc__xp_ld4(a + i), wb = htc__xp_ld4(b + i);
                    out[i] = HTC__CAST(int8_t, htc__xp_clamp(htc__xp_sdot4(htc__xp_sdot4(f, wa, ua), wb, ub), lo, hi));
                    out[i + 1] = HTC__CAST(int8_t, htc__xp_clamp(htc__xp_sdot4(htc__xp_sdot4(f, wa, ua << 8), wb, ub << 8), lo, hi));
                    out[i + 2] = HTC__CAST(int8_t, htc__xp_clamp(htc__xp_sdot4(htc__xp_sdot4(f, wa, ua << 16), wb, ub << 16), lo, hi));
                    out[i + 3] = HTC__CAST(int8_t, htc__xp_clamp(htc__xp_sdot4(htc__xp_sdot4(f, wa, ua << 24), wb, ub << 24), lo, hi));
                }
                for (; i < n; i++) out[i] = HTC__CAST(int8_t, htc__xp_clamp(a[i] * ra + b[i] * rb + f, lo, hi));
                return 1;
            }
#endif
            if (m == 0)
                for (i = 0; i < n; i++) {
                    const int32_t q = a[i] * ra + b[i] * rb + fix;
                    out[i] = HTC__CAST(int8_t, (q < qmin ? qmin : (q > qmax ? qmax : q)) - ooff);
                }
            else
                for (i = 0; i < n; i++) {
                    const int32_t v = a[i] * ra + b[i] * rb + fix;
                    const int32_t half = HTC__CAST(int32_t, 1) << (m - 1), r = v & ((half << 1) - 1);
                    const int32_t q = (v >> m) + (r > half || (r == half && ((v >> m) & 1)));
                    out[i] = HTC__CAST(int8_t, (q < qmin ? qmin : (q > qmax ? qmax : q)) - ooff);
                }
        }
        return 1;
    }
    return 0;
}

static HTC__UNUSED void htc__qadd_s8(const htc__qbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    if (htc__qadd_s8_int(p, a, b, out)) return;
#if HTC_SOFT_FLOAT_EXACT
    htc__qadd_s8_ix(p, a, b, out);
#else
    htc__qadd_s8_fp(p, a, b, out);
#endif
}

static HTC__UNUSED void htc__qgap_s8(const htc__qgap_params *p, const int8_t *in, int8_t *out)
{
    const float lo = HTC__CAST(float, p->qmin - p->out_zp), hi = HTC__CAST(float, p->qmax - p->out_zp);
    int32_t b, i, c;
    int32_t acc[64];
    for (b = 0; b < p->batches; b++) {
        const int8_t *x = in + (size_t)b * p->hw * p->c;
        int32_t c0;
        for (c0 = 0; c0 < p->c; c0 += 64) {
            const int32_t n = p->c - c0 < 64 ? p->c - c0 : 64;
            for (c = 0; c < n; c++) acc[c] = p->bias;
            for (i = 0; i < p->hw; i++) {
                const int8_t *px = x + (size_t)i * p->c + c0;
                for (c = 0; c < n; c++) acc[c] += px[c];
            }
            for (c = 0; c < n; c++) out[c0 + c] = HTC__CAST(int8_t, htc__rq_float(acc[c], p->scale, lo, hi, p->out_zp));
        }
        out += p->c;
    }
}

static HTC__UNUSED void htc__qlinear_quantize_fp(const htc__qlinear_params *p, const float *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const int32_t c = p->channels > 1 ? (i / p->inner) % p->channels : 0;
        const int32_t zp = p->zp[c];
        const float lo = HTC__CAST(float, p->qmin - zp), hi = HTC__CAST(float, p->qmax - zp);
        volatile float v = in[i] / p->scale[c];
        float t = v;
        t = t > lo ? t : lo;
        t = t < hi ? t : hi;
        out[i] = HTC__CAST(int8_t, htc__rne(t) + zp);
    }
}

/* x / scale rounded half to even to an integer, clamped to [lo, hi], as
   htc__qlinear_quantize_fp computes it, in 32-bit integers: the quotient
   of the mantissas to 26 fraction bits by four 32-bit divisions, rounded
   to odd (a remainder sets the last bit), then half to even to 24 bits
   (the float quotient), then to an integer (htc__rint_q24). NaN gives lo,
   +-inf hi / lo (the float clamps). scale: positive and finite, non-zero. */
static inline int32_t htc__quantize_int(float x, float scale, int32_t lo, int32_t hi)
{
    uint32_t u, mx, ms, r, q, rem, half;
    int32_t ex, es, bx, e, k, t;
    memcpy(&u, &x, sizeof u);
    bx = HTC__CAST(int32_t, (u >> 23) & 0xffu);
    mx = u & 0x7fffffu;
    if (bx == 255) return mx || (u >> 31) ? lo : hi;
    if (bx) { mx |= 0x800000u; ex = bx - 150; } else ex = -149;
    if (!mx) return 0 < lo ? lo : (0 > hi ? hi : 0);
    while (mx < 0x800000u) { mx <<= 1; ex--; }
    ms = HTC__CAST(uint32_t, htc__fsplit(scale, &es));
    while (ms < 0x800000u) { ms <<= 1; es--; }
    q = mx / ms;                                /* 0 or 1 */
    r = mx - q * ms;
    for (k = 0; k < 4; k++) {                   /* 8, 8, 8 and 2 more bits */
        const int32_t b = k < 3 ? 8 : 2;
        const uint32_t rr = r << b, d = rr / ms;
        r = rr - d * ms;
        q = q << b | d;
    }
    q |= r ? 1u : 0u;                           /* in [2^25, 2^27) */
    t = 2 + HTC__CAST(int32_t, q >> 26);        /* bits beyond 24 */
    rem = q & ((1u << t) - 1u);
    half = 1u << (t - 1);
    q >>= t;
    q += (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;
    e = ex - es - 26 + t;
    return htc__rint_q24(q, e, HTC__CAST(int, u >> 31), lo, hi);
}

/* htc__qlinear_quantize_fp without float operations (HTC_SOFT_FLOAT_EXACT);
   a scale that is not a positive finite float: the float code */
static HTC__UNUSED void htc__qlinear_quantize_ix(const htc__qlinear_params *p, const float *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->channels; i++) {
        uint32_t u;
        memcpy(&u, &p->scale[i], sizeof u);
        if (u == 0 || u >= 0x7f800000u) {
            htc__qlinear_quantize_fp(p, in, out);
            return;
        }
    }
    for (i = 0; i < p->size; i++) {
        const int32_t c = p->channels > 1 ? (i / p->inner) % p->channels : 0;
        const int32_t zp = p->zp[c];
        out[i] = HTC__CAST(int8_t, htc__quantize_int(in[i], p->scale[c], p->qmin - zp, p->qmax - zp) + zp);
    }
}

static HTC__UNUSED void htc__qlinear_quantize(const htc__qlinear_params *p, const float *in, int8_t *out)
{
#if HTC_SOFT_FLOAT_EXACT
    htc__qlinear_quantize_ix(p, in, out);
#else
    htc__qlinear_quantize_fp(p, in, out);
#endif
}

static HTC__UNUSED void htc__qlinear_dequantize(const htc__qlinear_params *p, const int8_t *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const int32_t c = p->channels > 1 ? (i / p->inner) % p->channels : 0;
        out[i] = HTC__CAST(float, in[i] - p->zp[c]) * p->scale[c];
    }
}

static HTC__UNUSED void htc__qavgpool_s8(const htc__qavgpool_params *p, const int8_t *in, int8_t *out)
{
    const int32_t c = p->c, row = p->in_w * p->c;
    const float lo = HTC__CAST(float, p->qmin - 1), hi = HTC__CAST(float, p->qmax + 1);
    const float qlo = HTC__CAST(float, p->qmin - p->out_zp), qhi = HTC__CAST(float, p->qmax - p->out_zp);
    float acc[64];
    int32_t b, oy, ox;
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * p->in_h * row;
        for (oy = 0; oy < p->out_h; oy++) {
            int32_t y0 = oy * p->stride_h - p->pad_top, y1 = y0 + p->k_h;
            y1 = y1 < p->in_h ? y1 : p->in_h;
            y0 = y0 > 0 ? y0 : 0;
            for (ox = 0; ox < p->out_w; ox++) {
                int32_t x0 = ox * p->stride_w - p->pad_left, x1 = x0 + p->k_w, c0;
                x1 = x1 < p->in_w ? x1 : p->in_w;
                x0 = x0 > 0 ? x0 : 0;
                {
                    const int32_t cnt = p->count_include_pad ? p->k_h * p->k_w : (y1 - y0) * (x1 - x0);
                    const float fc = HTC__CAST(float, cnt);
                    for (c0 = 0; c0 < c; c0 += 64) {
                        const int32_t n = c - c0 < 64 ? c - c0 : 64;
                        int32_t y, x, j;
                        for (j = 0; j < n; j++) acc[j] = 0.0f;
                        for (y = y0; y < y1; y++)
                            for (x = x0; x < x1; x++) {
                                const int8_t *px = in_b + y * row + x * c + c0;
                                for (j = 0; j < n; j++) acc[j] += p->deq[HTC__CAST(uint8_t, px[j])];
                            }
                        for (j = 0; j < n; j++) {
                            volatile float v = acc[j] / fc;
                            volatile float t = v / p->out_scale;
                            int32_t q;
                            if (p->quantize_linear) {       /* MlasQuantizeLinear */
                                float u = t < qlo ? qlo : (t > qhi ? qhi : t);
                                q = htc__rne(u) + p->out_zp;
                            } else {
                                float u = t + HTC__CAST(float, p->out_zp);
                                u = u < lo ? lo : (u > hi ? hi : u);
                                q = htc__rne(u);
                                q = q < p->qmin ? p->qmin : (q > p->qmax ? p->qmax : q);
                            }
                            out[c0 + j] = HTC__CAST(int8_t, q - p->out_off);
                        }
                    }
                }
                out += c;
            }
        }
    }
}

static HTC__UNUSED void htc__qsoftmax_s8(const htc__qsoftmax_params *p, const int8_t *in, int8_t *out)
{
    int32_t r, i;
    for (r = 0; r < p->outer; r++) {
        const int8_t *x = in + (size_t)r * p->depth;
        int8_t *y = out + (size_t)r * p->depth;
        int32_t xmax = x[0];
        float sum = 0.0f;
        for (i = 1; i < p->depth; i++) xmax = x[i] > xmax ? x[i] : xmax;
        for (i = 0; i < p->depth; i++) sum += p->table[255 + x[i] - xmax];
        if (sum == 0.0f) continue;
        for (i = 0; i < p->depth; i++) {
            volatile float num = p->table[255 + x[i] - xmax] * p->y_scale;
            volatile float v = num / sum;
            const int32_t vq = htc__rne(v) + p->out_zp;
            if (p->is_signed) {
                y[i] = HTC__CAST(int8_t, vq > 127 ? 127 : vq);      /* vq >= out_zp >= -128 */
            } else {
                const uint32_t u = vq > 255 ? 255u : (HTC__CAST(uint32_t, vq) & 0xffu);
                y[i] = HTC__CAST(int8_t, HTC__CAST(uint8_t, u ^ 0x80u));
            }
        }
    }
}
