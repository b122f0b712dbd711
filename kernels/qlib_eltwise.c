/* qlib_eltwise.c - QuantLib's integer element-wise ops: RequantShift alone,
   256-entry tables, Gather. (Add / Mul: kernels/mul.c.) */

static HTC__UNUSED void htc__ql_requant(const htc__ql_requant_params *p, const void *const *ins, void *out)
{
    const int32_t *mul = HTC__CAST(const int32_t *, ins[1]);
    const int32_t *add = HTC__CAST(const int32_t *, ins[2]);
    int32_t i;
    for (i = 0; i < p->n; i++) {
        const int32_t c = (i / p->inner) % p->nch;
        const int32_t v = htc__ql_rq(htc__ql_ld(ins[0], HTC__CAST(size_t, i), p->in_i32, p->in_off), mul[c], add[c],
                                     p->shift, p->lo, p->hi) - p->out_off;
        if (p->out_i32) HTC__CAST(int32_t *, out)[i] = v;
        else HTC__CAST(int8_t *, out)[i] = HTC__CAST(int8_t, v);
    }
}

/* n in a local and four lookups before their stores: an int8 store may
   alias *p, so a loop bound read through p is reloaded every element, and
   whether the compiler inlines a call (p constant) or not then decides the
   speed (GVSoC, MicroLlama's 64-element tables: 502 instructions inlined,
   709 called) */
static HTC__UNUSED void htc__ql_table(const htc__ql_table_params *p, const void *const *ins, void *out)
{
    const uint8_t *x = HTC__CAST(const uint8_t *, ins[0]);
    const int32_t *t = HTC__CAST(const int32_t *, ins[1]);
    const int32_t n = p->n;
    int32_t i = 0;
    if (p->out_i32) {
        int32_t *y = HTC__CAST(int32_t *, out);
        for (; i < n; i++) y[i] = t[x[i]];
        return;
    }
    {
        int8_t *y = HTC__CAST(int8_t *, out);
        for (; i + 4 <= n; i += 4) {
            const int32_t a = t[x[i]], b = t[x[i + 1]], c = t[x[i + 2]], d = t[x[i + 3]];
            y[i] = HTC__CAST(int8_t, a);
            y[i + 1] = HTC__CAST(int8_t, b);
            y[i + 2] = HTC__CAST(int8_t, c);
            y[i + 3] = HTC__CAST(int8_t, d);
        }
        for (; i < n; i++) y[i] = HTC__CAST(int8_t, t[x[i]]);
    }
}

static HTC__UNUSED void htc__ql_gather(const htc__ql_gather_params *p, const void *const *ins, void *out)
{
    const uint8_t *x = HTC__CAST(const uint8_t *, ins[0]);
    const int32_t *idx = HTC__CAST(const int32_t *, ins[1]);
    uint8_t *y = HTC__CAST(uint8_t *, out);
    const size_t row = HTC__CAST(size_t, p->inner) * HTC__CAST(size_t, p->elem);
    int32_t o, j;
    for (o = 0; o < p->outer; o++)
        for (j = 0; j < p->nidx; j++, y += row)
            memcpy(y, x + (HTC__CAST(size_t, o) * HTC__CAST(size_t, p->axis) + HTC__CAST(size_t, idx[j])) * row, row);
}

/* Multi-core (htc.h HTC_PAR_RUN): core's elements; a requantization's
   shares start on a whole period of its channels (inner * nch elements),
   so every element keeps its channel. split is rows (a table: rows or
   channels, either way a share of the elements, no larger than the
   split's). */
static HTC__UNUSED void htc__ql_requant_par(const htc__ql_requant_params *p, const void *const *ins, void *out, int split,
                                            int core, int ncores)
{
    htc__ql_requant_params v = *p;
    const int32_t period = p->inner * p->nch, blocks = (p->n + period - 1) / period;
    const void *in[3];
    int32_t lo, hi;
    (void)split;
    htc__share(blocks, core, ncores, &lo, &hi);
    lo *= period;
    hi = hi * period < p->n ? hi * period : p->n;
    if (hi <= lo) return;
    v.n = hi - lo;
    in[0] = HTC__CAST(const char *, ins[0]) + HTC__CAST(size_t, lo) * (p->in_i32 ? 4 : 1);
    in[1] = ins[1];
    in[2] = ins[2];
    htc__ql_requant(&v, in, HTC__CAST(char *, out) + HTC__CAST(size_t, lo) * (p->out_i32 ? 4 : 1));
}

static HTC__UNUSED void htc__ql_table_par(const htc__ql_table_params *p, const void *const *ins, void *out, int split, int core,
                                          int ncores)
{
    htc__ql_table_params v = *p;
    const void *in[2];
    int32_t lo, hi;
    (void)split;
    htc__share(p->n, core, ncores, &lo, &hi);
    if (hi <= lo) return;
    v.n = hi - lo;
    in[0] = HTC__CAST(const uint8_t *, ins[0]) + lo;
    in[1] = ins[1];
    htc__ql_table(&v, in, HTC__CAST(char *, out) + HTC__CAST(size_t, lo) * (p->out_i32 ? 4 : 1));
}
