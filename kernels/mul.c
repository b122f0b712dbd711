/* mul.c - element-wise MUL of every requantization kind, and QuantLib's
   integer Add: one broadcasting loop (htc__ew_core) combining the two
   operands exactly (a + a_off) * (b + b_off) (or +, QuantLib), then the
   epilogue of the layer's kind (htc.h htc__epi). Entry points: htc__mul_s8
   (TFLite reference_integer_ops::Mul / BroadcastMul6DSlow: the product
   through MultiplyByQuantizedMultiplier, + out_zp, clamped), htc__qmul_s8
   (onnxruntime's QLinearMul, HTC__EPI_FLOAT_MUL), htc__ql_binary (QuantLib's
   Add / Mul with RequantShift). TFLite's ADD and onnxruntime's QLinearAdd
   rescale each operand before the sum (kernels/add.c, ort_eltwise.c). */

/* Six dimensions of the output (s), element strides of a and b (0 on a
   broadcast dimension); operands int8 (+ off) or int32 (a_i32, b_i32);
   the requant channel of output element i is (i / rq_inner) % rq_nch. */
typedef struct {
    int32_t s[6], as[6], bs[6];
    int32_t a_off, b_off, a_i32, b_i32;
    int32_t add;                            /* 1: a + b (QuantLib's Add), 0: a * b */
    int32_t rq_inner, rq_nch;
    size_t first;                           /* index of out[0] in the whole output (a core's share) */
} htc__ewg;

static HTC__UNUSED void htc__ew_core(const htc__ewg *g, const htc__epi *e, const void *a, const void *b, void *out)
{
    const int32_t n5 = g->s[5], as5 = g->as[5], bs5 = g->bs[5];
    int32_t idx[5] = {0, 0, 0, 0, 0};
    int32_t c = HTC__CAST(int32_t, g->first / HTC__CAST(size_t, g->rq_inner) % HTC__CAST(size_t, g->rq_nch));
    int32_t ci = HTC__CAST(int32_t, g->first % HTC__CAST(size_t, g->rq_inner));
    size_t total = 1, o = 0, ai = 0, bi = 0;
    int d;
    for (d = 0; d < 5; d++) total *= HTC__CAST(size_t, g->s[d]);
    while (total--) {
        size_t ak = ai, bk = bi;
        int32_t i5;
        for (i5 = 0; i5 < n5; i5++, o++, ak += HTC__CAST(size_t, as5), bk += HTC__CAST(size_t, bs5)) {
            const int64_t va = htc__ql_ld(a, ak, g->a_i32, g->a_off), vb = htc__ql_ld(b, bk, g->b_i32, g->b_off);
            const int64_t v = g->add ? va + vb : va * vb;
            if (e->kind == HTC__EPI_INT32) HTC__CAST(int32_t *, out)[o] = HTC__CAST(int32_t, v);
            else HTC__CAST(int8_t *, out)[o] = HTC__CAST(int8_t, htc__epi_value(e, c, v));
            if (++ci == g->rq_inner) {      /* channel (o / rq_inner) % rq_nch, without dividing */
                ci = 0;
                if (++c == g->rq_nch) c = 0;
            }
        }
        htc__walk(idx, g->s, g->as, g->bs, 5, &ai, &bi);
    }
}

#ifdef HTC__MVE
/* Helium path of TFLite's MUL without broadcast: four lanes, (a + a_off) *
   (b + b_off) (exact in int32), htc__mve_rq1 (MultiplyByQuantizedMultiplier,
   bit-exact), + out_zp, clamped; the last n % 4 predicated. */
static HTC__NOINLINE void htc__mul_mve(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int32_t n)
{
    const int32_t ao = p->a_offset, bo = p->b_offset, m = p->out_mult, zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int sh = p->out_shift;
    int32_t i;
#define HTC__MUL_MVE(XA, XB) htc__mve_out(htc__mve_rq1(vmulq_s32(vaddq_n_s32(XA, ao), vaddq_n_s32(XB, bo)), m, sh), zp, lo, hi)
    for (i = 0; i + 4 <= n; i += 4) vstrbq_s32(out + i, HTC__MUL_MVE(vldrbq_s32(a + i), vldrbq_s32(b + i)));
    if (i < n) {
        const mve_pred16_t pr = vctp32q(HTC__CAST(uint32_t, n - i));
        vstrbq_p_s32(out + i, HTC__MUL_MVE(vldrbq_z_s32(a + i, pr), vldrbq_z_s32(b + i, pr)), pr);
    }
#undef HTC__MUL_MVE
}
#endif

/* Multi-core (htc.h HTC_PAR_RUN): core's share of the outermost dimension
   longer than 1, as a smaller loop (operands of esize_a / esize_b bytes,
   output elements of esize_o); 0 when core has nothing to do. */
static HTC__UNUSED int htc__ewg_share(htc__ewg *g, size_t esize_a, size_t esize_b, size_t esize_o, const void **a,
                                      const void **b, void **out, int core, int ncores)
{
    int32_t lo, hi, d = 0, k;
    size_t inner = 1;
    while (d < 5 && g->s[d] == 1) d++;
    for (k = d + 1; k < 6; k++) inner *= HTC__CAST(size_t, g->s[k]);
    htc__share(g->s[d], core, ncores, &lo, &hi);
    if (hi <= lo) return 0;
    g->s[d] = hi - lo;
    g->first = HTC__CAST(size_t, lo) * inner;
    *a = HTC__CAST(const char *, *a) + HTC__CAST(size_t, lo) * HTC__CAST(size_t, g->as[d]) * esize_a;
    *b = HTC__CAST(const char *, *b) + HTC__CAST(size_t, lo) * HTC__CAST(size_t, g->bs[d]) * esize_b;
    *out = HTC__CAST(char *, *out) + g->first * esize_o;
    return 1;
}

static HTC__UNUSED void htc__mul_s8_run(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int core,
                                        int ncores)
{
    htc__ewg g;
    htc__epi e;
    const int32_t m = p->out_mult;
    const int8_t sh = p->out_shift;
    int d;
#ifdef HTC__MVE
    if (!p->broadcast) {
        int32_t lo, hi;
        htc__share(p->out_shape[0] * p->out_shape[1] * p->out_shape[2] * p->out_shape[3], core, ncores, &lo, &hi);
        if (hi > lo) htc__mul_mve(p, a + lo, b + lo, out + lo, hi - lo);
        return;
    }
#endif
    memset(&g, 0, sizeof g);
    memset(&e, 0, sizeof e);
    for (d = 0; d < 6; d++) g.s[d] = 1;
    if (!p->broadcast) {
        g.s[5] = p->out_shape[0] * p->out_shape[1] * p->out_shape[2] * p->out_shape[3];
        g.as[5] = g.bs[5] = 1;
    } else {
        for (d = 0; d < 4; d++) {
            g.s[2 + d] = p->out_shape[d];
            g.as[2 + d] = p->a_stride[d];
            g.bs[2 + d] = p->b_stride[d];
        }
    }
    g.a_off = p->a_offset; g.b_off = p->b_offset;
    g.rq_inner = 1; g.rq_nch = 1;
    e.kind = HTC__EPI_TFLITE;
    e.mult = &m; e.shift = &sh;
    e.out_zp = p->out_zp; e.lo = p->act_min; e.hi = p->act_max;
    {
        const void *pa = a, *pb = b;
        void *po = out;
        if (htc__ewg_share(&g, 1, 1, 1, &pa, &pb, &po, core, ncores)) htc__ew_core(&g, &e, pa, pb, po);
    }
}

static HTC__UNUSED void htc__mul_s8(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    htc__mul_s8_run(p, a, b, out, 0, 1);
}

static HTC__UNUSED void htc__mul_s8_par(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int split,
                                        int core, int ncores)
{
    (void)split;
    htc__mul_s8_run(p, a, b, out, core, ncores);
}

static HTC__UNUSED void htc__qmul_s8_run(const htc__qbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int core,
                                         int ncores)
{
    htc__ewg g;
    htc__epi e;
    int d;
    memset(&g, 0, sizeof g);
    memset(&e, 0, sizeof e);
    for (d = 0; d < 6; d++) g.s[d] = 1;
    g.s[5] = p->size;
    g.as[5] = p->a_scalar ? 0 : 1;
    g.bs[5] = p->b_scalar ? 0 : 1;
    g.a_off = -p->a_zp; g.b_off = -p->b_zp;
    g.rq_inner = 1; g.rq_nch = 1;
    e.kind = HTC__EPI_FLOAT_MUL;
    e.scale = &p->ra; e.ffixed = p->fixed;
    e.lo = p->qmin; e.hi = p->qmax; e.out_zp = -p->out_off;
    {
        const void *pa = a, *pb = b;
        void *po = out;
        if (htc__ewg_share(&g, 1, 1, 1, &pa, &pb, &po, core, ncores)) htc__ew_core(&g, &e, pa, pb, po);
    }
}

static HTC__UNUSED void htc__qmul_s8(const htc__qbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    htc__qmul_s8_run(p, a, b, out, 0, 1);
}

static HTC__UNUSED void htc__qmul_s8_par(const htc__qbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int split,
                                         int core, int ncores)
{
    (void)split;
    htc__qmul_s8_run(p, a, b, out, core, ncores);
}

/* QuantLib's Add / Mul on int8 operands to int8 with one RequantShift
   (per tensor): the generic loop's arithmetic without its per-element
   dispatch. v = (a + a_off) op (b + b_off) is exact in int32; clip((v * mul
   + add + 2^(shift-1)) >> shift) in int32 when no v of the operands' ranges
   can leave it (checked once, in 64 bits), else in 64 bits as htc__ql_rq. */
static HTC__UNUSED void htc__ql_ew_fast(const htc__ewg *g, const htc__ql_binary_params *p, int32_t m, int32_t ad,
                                        const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t n5 = g->s[5], as5 = g->as[5], bs5 = g->bs[5], ao = g->a_off, bo = g->b_off, add = g->add;
    const int32_t sh = p->shift, lo = p->lo, hi = p->hi, zp = -p->out_off;
    const int32_t rnd = sh > 0 && sh < 32 ? HTC__CAST(int32_t, 1) << (sh - 1) : 0;
    int32_t idx[5] = {0, 0, 0, 0, 0};
    size_t total = 1, ai = 0, bi = 0;
    int64_t vmax, big;
    int fits, d;
    for (d = 0; d < 5; d++) total *= HTC__CAST(size_t, g->s[d]);
    {   /* the largest |v| over the operands' ranges: at a corner of them */
        const int64_t a0 = -128 + ao, a1 = 127 + ao, b0 = -128 + bo, b1 = 127 + bo;
        const int64_t c[4] = {add ? a0 + b0 : a0 * b0, add ? a1 + b1 : a0 * b1, add ? a0 + b0 : a1 * b0, add ? a1 + b1 : a1 * b1};
        int k;
        vmax = 0;
        for (k = 0; k < 4; k++) {
            const int64_t v = c[k] < 0 ? -c[k] : c[k];
            vmax = v > vmax ? v : vmax;
        }
        big = vmax * (m < 0 ? -HTC__CAST(int64_t, m) : m) + (ad < 0 ? -HTC__CAST(int64_t, ad) : ad) + rnd;
        fits = big <= 0x7fffffffLL && sh < 32;
    }
    while (total--) {
        const int8_t *pa = a + ai, *pb = b + bi;
        int32_t i;
        if (fits) {
            for (i = 0; i < n5; i++, pa += as5, pb += bs5) {
                const int32_t va = *pa + ao, vb = *pb + bo;
                int32_t v = (add ? va + vb : va * vb) * m + ad;
                if (sh > 0) v = (v + rnd) >> sh;
                v = v < lo ? lo : v > hi ? hi : v;
                out[i] = HTC__CAST(int8_t, v + zp);
            }
        } else {
            for (i = 0; i < n5; i++, pa += as5, pb += bs5) {
                const int32_t va = *pa + ao, vb = *pb + bo;
                out[i] = HTC__CAST(int8_t, htc__ql_rq(add ? va + vb : va * vb, m, ad, sh, lo, hi) + zp);
            }
        }
        out += n5;
        htc__walk(idx, g->s, g->as, g->bs, 5, &ai, &bi);
    }
}

/* The loop of g (htc__ql_ew_fast when it applies, else htc__ew_core). */
static HTC__UNUSED void htc__ql_binary_rows(const htc__ql_binary_params *p, const htc__ewg *g, const htc__epi *e,
                                            const void *a, const void *b, void *out)
{
    if (p->rq && p->rq_nch == 1 && !p->a_i32 && !p->b_i32)
        htc__ql_ew_fast(g, p, e->mult[0], e->add[0], HTC__CAST(const int8_t *, a), HTC__CAST(const int8_t *, b),
                        HTC__CAST(int8_t *, out));
    else
        htc__ew_core(g, e, a, b, out);
}

/* ins: a, b, mul, add. split HTC_SPLIT_CHANNELS: core's share of the last
   dimension in every row (one loop per row), else of the outermost
   dimension longer than 1 (htc__ewg_share). */
static HTC__UNUSED void htc__ql_binary_run(const htc__ql_binary_params *p, const void *const *ins, void *out, int split,
                                           int core, int ncores)
{
    htc__ewg g;
    htc__epi e;
    memset(&g, 0, sizeof g);
    memset(&e, 0, sizeof e);
    g.s[0] = p->s0; g.s[1] = p->s1; g.s[2] = p->s2; g.s[3] = p->s3; g.s[4] = p->s4; g.s[5] = p->s5;
    g.as[0] = p->a0; g.as[1] = p->a1; g.as[2] = p->a2; g.as[3] = p->a3; g.as[4] = p->a4; g.as[5] = p->a5;
    g.bs[0] = p->b0; g.bs[1] = p->b1; g.bs[2] = p->b2; g.bs[3] = p->b3; g.bs[4] = p->b4; g.bs[5] = p->b5;
    g.a_off = p->a_off; g.b_off = p->b_off; g.a_i32 = p->a_i32; g.b_i32 = p->b_i32;
    g.add = p->op == 0;
    g.rq_inner = p->rq ? p->rq_inner : 1; g.rq_nch = p->rq ? p->rq_nch : 1;
    e.kind = p->rq ? HTC__EPI_QUANTLIB : HTC__EPI_INT32;
    e.per_channel = 1;
    e.mult = HTC__CAST(const int32_t *, ins[2]);
    e.add = HTC__CAST(const int32_t *, ins[3]);
    e.ql_shift = p->shift;
    e.lo = p->lo; e.hi = p->hi; e.out_zp = -p->out_off;
    if (split == HTC_SPLIT_CHANNELS) {
        const size_t ea = p->a_i32 ? 4 : 1, eb = p->b_i32 ? 4 : 1, eo = p->rq ? 1 : 4, n5 = HTC__CAST(size_t, g.s[5]);
        const htc__ewg whole = g;
        int32_t idx[5] = {0, 0, 0, 0, 0}, lo, hi;
        size_t rows = 1, r, ai = 0, bi = 0;
        int d;
        htc__share(g.s[5], core, ncores, &lo, &hi);
        if (hi <= lo) return;
        for (d = 0; d < 5; d++) {
            rows *= HTC__CAST(size_t, g.s[d]);
            g.s[d] = 1;
        }
        g.s[5] = hi - lo;
        for (r = 0; r < rows; r++) {
            const void *pa = HTC__CAST(const char *, ins[0]) + (ai + HTC__CAST(size_t, lo) * HTC__CAST(size_t, g.as[5])) * ea;
            const void *pb = HTC__CAST(const char *, ins[1]) + (bi + HTC__CAST(size_t, lo) * HTC__CAST(size_t, g.bs[5])) * eb;
            void *po = HTC__CAST(char *, out) + (r * n5 + HTC__CAST(size_t, lo)) * eo;
            g.first = r * n5 + HTC__CAST(size_t, lo);
            htc__ql_binary_rows(p, &g, &e, pa, pb, po);
            htc__walk(idx, whole.s, whole.as, whole.bs, 5, &ai, &bi);
        }
        return;
    }
    {
        const void *pa = ins[0], *pb = ins[1];
        void *po = out;
        if (htc__ewg_share(&g, p->a_i32 ? 4 : 1, p->b_i32 ? 4 : 1, p->rq ? 1 : 4, &pa, &pb, &po, core, ncores))
            htc__ql_binary_rows(p, &g, &e, pa, pb, po);
    }
}

static HTC__UNUSED void htc__ql_binary(const htc__ql_binary_params *p, const void *const *ins, void *out)
{
    htc__ql_binary_run(p, ins, out, HTC_SPLIT_ROWS, 0, 1);
}

static HTC__UNUSED void htc__ql_binary_par(const htc__ql_binary_params *p, const void *const *ins, void *out, int split,
                                           int core, int ncores)
{
    htc__ql_binary_run(p, ins, out, split, core, ncores);
}

/* QuantLib's Add through its tables in final form (gen/dispatch.c xq2
   names this kernel where quant_qladd found them exact; no broadcasting):
   ins: a, b, mul, add, the tables (htc.h htc__xadd_run). Multi-core: the
   core's share of the elements, whatever the split. */
static HTC__UNUSED void htc__ql_xadd_par(const htc__ql_binary_params *p, const void *const *ins, void *out, int split,
                                         int core, int ncores)
{
    int32_t lo, hi;
    (void)split;
    htc__share(p->s0 * p->s1 * p->s2 * p->s3 * p->s4 * p->s5, core, ncores, &lo, &hi);
    if (hi > lo)
        htc__xadd_run(HTC__CAST(const int32_t *, ins[4]), p->lo - p->out_off, p->hi - p->out_off,
                      HTC__CAST(const int8_t *, ins[0]) + lo, HTC__CAST(const int8_t *, ins[1]) + lo,
                      HTC__CAST(int8_t *, out) + lo, hi - lo);
}

static HTC__UNUSED void htc__ql_xadd(const htc__ql_binary_params *p, const void *const *ins, void *out)
{
    htc__ql_xadd_par(p, ins, out, HTC_SPLIT_ROWS, 0, 1);
}
