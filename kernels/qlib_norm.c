/* qlib_norm.c - QuantLib's integer softmaxes (iSoftmax, ITAMax), norms
   (iLayerNorm, iRMSNorm, iNoNorm) and means (IntegerMean, ReduceMean:
   floor(mean + 1/2)). */

static HTC__UNUSED int64_t htc__ql_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* a / b truncated (C), in 32 bits when both fit (RV32: one div instead of
   __divdi3) */
static inline int64_t htc__ql_div(int64_t a, int64_t b)
{
    if (a == HTC__CAST(int32_t, a) && b == HTC__CAST(int32_t, b) && a != -0x7fffffffLL - 1)
        return HTC__CAST(int32_t, a) / HTC__CAST(int32_t, b);
    return a / b;
}

/* floor(sqrt(v)), v >= 0 (in 32 bits below 2^32) */
static HTC__UNUSED int64_t htc__ql_isqrt(int64_t v)
{
    if (v <= 0xffffffffLL) {
        uint32_t x = HTC__CAST(uint32_t, v), r = 0, bit = 1u << 30;
        while (bit > x) bit >>= 2;
        while (bit) {
            if (x >= r + bit) {
                x -= r + bit;
                r = (r >> 1) + bit;
            } else {
                r >>= 1;
            }
            bit >>= 2;
        }
        return r;
    }
    uint64_t x = HTC__CAST(uint64_t, v), r = 0, bit = HTC__CAST(uint64_t, 1) << 62;
    while (bit > x) bit >>= 2;
    while (bit) {
        if (x >= r + bit) {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return HTC__CAST(int64_t, r);
}

/* iSoftmax in 32 bits (RV32: no 64-bit products, shifts or __divdi3) when
   p->s32 says every value fits (gen/qlib.c softmax32_ok, once at compile
   time): the same values as the 64-bit loop (a row of at most 64 values; e
   computed once each); z = -xt / log2 a multiply and a shift (p->zmul,
   gen/qlib.c softmax_zmul). Returns 0 when it does not apply. */
static HTC__UNUSED int htc__ql_softmax32(const htc__ql_softmax_params *p, const int8_t *x, int8_t *y)
{
    const int32_t d = p->depth, l2 = p->log2, a = p->a, b = p->b, c = p->c, nl = p->n_levels - 1, zm = p->zmul;
    int32_t r, i, eb[64];
    if (!p->s32 || zm < 0 || d > 64 || d < 1) return 0;
    for (r = 0; r < p->outer; r++, x += d, y += d) {
        int32_t mx = x[0], sum = 0;
        for (i = 1; i < d; i++) mx = x[i] > mx ? x[i] : mx;
        for (i = 0; i < d; i++) {
            const int32_t xt = x[i] - mx;
            int32_t z = (-xt * zm) >> 16, qq;
            z = z > 31 ? 31 : z;
            qq = xt + z * l2 + b;
            eb[i] = (a * qq * qq + c) >> z;
            sum += eb[i];
        }
        for (i = 0; i < d; i++) y[i] = HTC__CAST(int8_t, (eb[i] * nl) / sum - p->out_off);
    }
    return 1;
}

static HTC__UNUSED void htc__ql_softmax_rows(const htc__ql_softmax_params *p, const int8_t *x, int8_t *y)
{
    int32_t r, i;
    if (htc__ql_softmax32(p, x, y)) return;
    for (r = 0; r < p->outer; r++, x += p->depth, y += p->depth) {
        int32_t mx = x[0];
        int64_t sum = 0;
        for (i = 1; i < p->depth; i++) mx = x[i] > mx ? x[i] : mx;
        if (p->kind == 0) {         /* iSoftmax: e = (a (p + b)^2 + c) >> z */
            for (i = 0; i < p->depth; i++) {
                const int32_t xt = x[i] - mx;
                int32_t z = -xt / p->log2;
                int64_t q, e;
                z = z > 31 ? 31 : z;
                q = xt + z * p->log2 + p->b;
                e = (p->a * q * q + p->c) >> z;
                sum += e;
            }
            for (i = 0; i < p->depth; i++) {
                const int32_t xt = x[i] - mx;
                int32_t z = -xt / p->log2;
                int64_t q, e;
                z = z > 31 ? 31 : z;
                q = xt + z * p->log2 + p->b;
                e = (p->a * q * q + p->c) >> z;
                y[i] = HTC__CAST(int8_t, htc__ql_div(e * (p->n_levels - 1), sum) - p->out_off);
            }
        } else if (p->kind == 2) {  /* ITAPartialMax: ITAMax streamed over groups of group_width
                                       columns; the running sum shifts right when the max grows */
            const int32_t g = p->group_width, groups = p->depth / p->group_width;
            int32_t gmax = -128, k;
            uint32_t part = 0;
            for (k = 0; k < groups; k++) {
                int32_t cmax = -128, sh = 0;
                uint32_t s = 0;
                for (i = k * g; i < (k + 1) * g; i++) cmax = x[i] > cmax ? x[i] : cmax;
                if (cmax > gmax) {
                    sh = (cmax - gmax + 16) >> 5;
                    gmax = cmax;
                }
                for (i = k * g; i < (k + 1) * g; i++) s += 256u >> ((gmax - x[i] + 16) >> 5);
                part = (part >> sh) + s;
            }
            for (i = 0; i < p->depth; i++) {
                const uint32_t v = part ? HTC__CAST(uint32_t, p->n_levels / 2 - 1) * 256u / part : 0;
                y[i] = HTC__CAST(int8_t, HTC__CAST(int32_t, v >> ((gmax - x[i] + 16) >> 5)) - p->out_off);
            }
        } else {                    /* ITAMax: powers of two, s = (max - x + 16) >> 5 */
            for (i = 0; i < p->depth; i++) {
                const int32_t s = (mx - x[i] + 16) >> 5;
                sum += s > 30 ? 0 : 256 >> s;
            }
            for (i = 0; i < p->depth; i++) {
                const int32_t s = (mx - x[i] + 16) >> 5;
                const int64_t v = HTC__CAST(int64_t, p->n_levels - 1) * 256 / sum;
                y[i] = HTC__CAST(int8_t, (s > 62 ? 0 : v >> s) - p->out_off);
            }
        }
    }
}

/* ins: x (and the folded RequantShift's byte table when p->tab) */
static HTC__UNUSED void htc__ql_softmax(const htc__ql_softmax_params *p, const void *const *ins, void *out)
{
    int8_t *y = HTC__CAST(int8_t *, out);
    htc__ql_softmax_rows(p, HTC__CAST(const int8_t *, ins[0]), y);
    if (p->tab) {
        const int8_t *t = HTC__CAST(const int8_t *, ins[1]);
        const int32_t n = p->outer * p->depth;
        int32_t i;
        for (i = 0; i < n; i++) y[i] = t[HTC__CAST(uint8_t, y[i])];
    }
}

/* Output elements [i0, i1) of each of the rows (the statistics over the
   whole row: a core's share of the channels computes them again). */
static HTC__UNUSED void htc__ql_norm_cols(const htc__ql_norm_params *p, const void *const *ins, void *out, int32_t i0,
                                          int32_t i1)
{
    const int8_t *x = HTC__CAST(const int8_t *, ins[0]);
    const int32_t *w = HTC__CAST(const int32_t *, ins[1]);
    const int32_t *b = HTC__CAST(const int32_t *, ins[2]);
    int8_t *y = HTC__CAST(int8_t *, out);
    /* the parameters in locals: the int8 stores may alias *p, which the
       loops would read again an element (from L2 when the parameters are
       there: GVSoC, CCT_Int_ICCT's iLayerNorm on one core 2x slower) */
    const int32_t n = p->depth, outer = p->outer, kind = p->kind, in_off = p->in_off, log2d = p->log2d;
    const int32_t lo = p->lo, hi = p->hi, out_off = p->out_off, mul = p->mul;
    int32_t r, i;
    for (r = 0; r < outer; r++, x += n, y += n) {
        if (kind == 2) {            /* iNoNorm: wraps to int8 */
            for (i = i0; i < i1; i++) {
                const int64_t v = ((HTC__CAST(int64_t, x[i] + in_off) * w[i] + b[i]) * mul) >> log2d;
                y[i] = HTC__CAST(int8_t, HTC__CAST(uint8_t, v & 0xff));
            }
            continue;
        }
        int64_t mean = 0, var = 0, sd;
        if (kind == 0) {
            for (i = 0; i < n; i++) mean += x[i] + in_off;
            mean = htc__ql_div(mean, n);    /* C division */
        }
        for (i = 0; i < n; i++) {
            const int64_t c = x[i] + in_off - mean;
            var += c * c;
        }
        sd = htc__ql_isqrt(htc__ql_div(var, n) + 1);
        for (i = i0; i < i1; i++) {
            const int64_t c = x[i] + in_off - mean;
            int64_t v = htc__ql_div(c * w[i], sd);
            if (kind == 0) v += b[i];
            v >>= log2d;
            v = v < lo ? lo : v > hi ? hi : v;
            y[i] = HTC__CAST(int8_t, v - out_off);
        }
    }
}

static HTC__UNUSED void htc__ql_norm(const htc__ql_norm_params *p, const void *const *ins, void *out)
{
    htc__ql_norm_cols(p, ins, out, 0, p->depth);
}

/* outputs [k0, k1) of outer x inner */
static HTC__UNUSED void htc__ql_mean_range(const htc__ql_mean_params *p, const void *const *ins, void *out, size_t k0,
                                           size_t k1)
{
    int32_t o = HTC__CAST(int32_t, k0 / HTC__CAST(size_t, p->inner));
    int32_t j = HTC__CAST(int32_t, k0 % HTC__CAST(size_t, p->inner)), r;
    size_t k;
    for (k = k0; k < k1; k++) {
        int64_t s = 0, v;
        for (r = 0; r < p->red; r++)
            s += htc__ql_ld(ins[0], (HTC__CAST(size_t, o) * p->red + r) * p->inner + j, p->in_i32, p->in_off);
        v = htc__ql_floordiv(2 * s + p->red, 2 * HTC__CAST(int64_t, p->red));
        if (p->out_i32) {
            HTC__CAST(int32_t *, out)[k] = HTC__CAST(int32_t, v);
        } else {
            v = v < p->lo ? p->lo : v > p->hi ? p->hi : v;
            HTC__CAST(int8_t *, out)[k] = HTC__CAST(int8_t, v - p->out_off);
        }
        if (++j == p->inner) {
            j = 0;
            o++;
        }
    }
}

static HTC__UNUSED void htc__ql_mean(const htc__ql_mean_params *p, const void *const *ins, void *out)
{
    htc__ql_mean_range(p, ins, out, 0, HTC__CAST(size_t, p->outer) * HTC__CAST(size_t, p->inner));
}

/* Multi-core (htc.h HTC_PAR_RUN): core's rows (outer), as a smaller layer;
   split is rows (a norm: or channels, the elements of every row). */
static HTC__UNUSED void htc__ql_softmax_par(const htc__ql_softmax_params *p, const void *const *ins, void *out, int split,
                                            int core, int ncores)
{
    htc__ql_softmax_params v = *p;
    const void *in[2];
    int32_t lo, hi;
    (void)split;
    htc__share(p->outer, core, ncores, &lo, &hi);
    if (hi <= lo) return;
    v.outer = hi - lo;
    in[0] = HTC__CAST(const int8_t *, ins[0]) + HTC__CAST(size_t, lo) * p->depth;
    in[1] = p->tab ? ins[1] : NULL;
    htc__ql_softmax(&v, in, HTC__CAST(int8_t *, out) + HTC__CAST(size_t, lo) * p->depth);
}

static HTC__UNUSED void htc__ql_norm_par(const htc__ql_norm_params *p, const void *const *ins, void *out, int split, int core,
                                         int ncores)
{
    htc__ql_norm_params v = *p;
    const void *in[3];
    int32_t lo, hi;
    /* every row, core's share of its elements (iNoNorm, no statistics:
       always, its rows may be one, e.g. Deeploy's 1 x 16384) */
    if (split == HTC_SPLIT_CHANNELS || p->kind == 2) {
        htc__share(p->depth, core, ncores, &lo, &hi);
        if (hi > lo) htc__ql_norm_cols(p, ins, out, lo, hi);
        return;
    }
    htc__share(p->outer, core, ncores, &lo, &hi);
    if (hi <= lo) return;
    v.outer = hi - lo;
    in[0] = HTC__CAST(const int8_t *, ins[0]) + HTC__CAST(size_t, lo) * p->depth;
    in[1] = ins[1];
    in[2] = ins[2];
    htc__ql_norm(&v, in, HTC__CAST(int8_t *, out) + HTC__CAST(size_t, lo) * p->depth);
}

static HTC__UNUSED void htc__ql_mean_par(const htc__ql_mean_params *p, const void *const *ins, void *out, int split, int core,
                                         int ncores)
{
    int32_t lo, hi;
    (void)split;
    /* core's share of the outputs (outer x inner: Deeploy's ReduceMean has
       one outer row of 1,536) */
    htc__share(p->outer * p->inner, core, ncores, &lo, &hi);
    if (hi > lo) htc__ql_mean_range(p, ins, out, HTC__CAST(size_t, lo), HTC__CAST(size_t, hi));
}
