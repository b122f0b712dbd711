/* qlib_eltwise.c - QuantLib's integer element-wise ops: RequantShift alone,
   256-entry tables, Gather. (Add / Mul: kernels/mul.c.) */

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

/* Elements [lo, hi) of the tensor, each with its channel (i / inner) %
   nch: per run of one channel its multiplier and offset once, the
   parameters in locals (an int8 store may alias *p: read through p they
   are reloaded every element, and the cores' loads of one mul[c] meet in
   one L1 bank: GVSoC, MatMul_Regular_RQ's 4,096 on 8 cores 40,320 cycles
   with htc__ql_requant's loop on each core's share) */
static HTC__UNUSED void htc__ql_requant_span(const htc__ql_requant_params *p, const void *const *ins, void *out, int32_t lo,
                                             int32_t hi)
{
    const int32_t *mul = HTC__CAST(const int32_t *, ins[1]);
    const int32_t *add = HTC__CAST(const int32_t *, ins[2]);
    const int32_t inner = p->inner, nch = p->nch, in_i32 = p->in_i32, in_off = p->in_off, out_i32 = p->out_i32;
    const int32_t shift = p->shift, qlo = p->lo, qhi = p->hi, off = p->out_off;
    int32_t i = lo;
    while (i < hi) {
        /* one channel (nch 1): the whole span one run, no index arithmetic */
        const int32_t run = nch > 1 ? i / inner : 0, c = nch > 1 ? run % nch : 0, m = mul[c], a = add[c];
        const int32_t end = nch == 1 || hi - i < inner - (i - run * inner) ? hi : (run + 1) * inner;
        if (out_i32) {
            int32_t *y = HTC__CAST(int32_t *, out);
            for (; i < end; i++) y[i] = htc__ql_rq(htc__ql_ld(ins[0], HTC__CAST(size_t, i), in_i32, in_off), m, a, shift, qlo, qhi) - off;
        } else {
            int8_t *y = HTC__CAST(int8_t *, out);
            for (; i < end; i++)
                y[i] = HTC__CAST(int8_t, htc__ql_rq(htc__ql_ld(ins[0], HTC__CAST(size_t, i), in_i32, in_off), m, a, shift, qlo, qhi) - off);
        }
    }
}

/* One core: every element, a channel's constants once a run of it (a
   loop taking each element's channel, a division and a remainder, with
   the parameters read through p: GVSoC, Deeploy's MatMul_Regular_RQ 4,096
   elements 188,684 cycles, 147,852 this way; TrueIntegerDiv's 1,024
   39,110 / 38,064) */
static HTC__UNUSED void htc__ql_requant(const htc__ql_requant_params *p, const void *const *ins, void *out)
{
    htc__ql_requant_span(p, ins, out, 0, p->n);
}

/* Multi-core (htc.h HTC_PAR_RUN): the core's share of the elements,
   whatever the channel periods (inner * nch elements; Deeploy's
   MatMul_Regular_RQ has one period of 4,096: shares of whole periods ran
   it on one core, 193,314 cycles at 8). split is rows (a table: rows or
   channels, either way a share of the elements, no larger than the
   split's). */
static HTC__UNUSED void htc__ql_requant_par(const htc__ql_requant_params *p, const void *const *ins, void *out, int split,
                                            int core, int ncores)
{
    int32_t lo, hi;
    (void)split;
    htc__share(p->n, core, ncores, &lo, &hi);
    if (hi > lo) htc__ql_requant_span(p, ins, out, lo, hi);
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
