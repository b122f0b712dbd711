/* qlib_eltwise.c - QuantLib's integer element-wise ops: Add / Mul with
   broadcasting, RequantShift alone, 256-entry tables, Gather. */

static HTC__UNUSED void htc__ql_binary(const htc__ql_binary_params *p, const void *const *ins, void *out)
{
    const int32_t s[6] = {p->s0, p->s1, p->s2, p->s3, p->s4, p->s5};
    const int32_t as[6] = {p->a0, p->a1, p->a2, p->a3, p->a4, p->a5};
    const int32_t bs[6] = {p->b0, p->b1, p->b2, p->b3, p->b4, p->b5};
    const int32_t *mul = HTC__CAST(const int32_t *, ins[2]);
    const int32_t *add = HTC__CAST(const int32_t *, ins[3]);
    int8_t *y8 = HTC__CAST(int8_t *, out);
    int32_t *y32 = HTC__CAST(int32_t *, out);
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t total = 1, n, ai = 0, bi = 0;
    int d;
    for (d = 0; d < 6; d++) total *= HTC__CAST(size_t, s[d]);
    for (n = 0; n < total; n++) {
        const int32_t va = htc__ql_ld(ins[0], ai, p->a_i32, p->a_off), vb = htc__ql_ld(ins[1], bi, p->b_i32, p->b_off);
        const int64_t v = p->op ? HTC__CAST(int64_t, va) * vb : HTC__CAST(int64_t, va) + vb;
        if (p->rq) {
            const size_t c = (n / HTC__CAST(size_t, p->rq_inner)) % HTC__CAST(size_t, p->rq_nch);
            y8[n] = HTC__CAST(int8_t, htc__ql_rq(v, mul[c], add[c], p->shift, p->lo, p->hi) - p->out_off);
        } else {
            y32[n] = HTC__CAST(int32_t, v);
        }
        for (d = 5; d >= 0; d--) {
            ai += HTC__CAST(size_t, as[d]);
            bi += HTC__CAST(size_t, bs[d]);
            if (++idx[d] < s[d]) break;
            ai -= HTC__CAST(size_t, as[d]) * HTC__CAST(size_t, s[d]);
            bi -= HTC__CAST(size_t, bs[d]) * HTC__CAST(size_t, s[d]);
            idx[d] = 0;
        }
    }
}

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

static HTC__UNUSED void htc__ql_table(const htc__ql_table_params *p, const void *const *ins, void *out)
{
    const uint8_t *x = HTC__CAST(const uint8_t *, ins[0]);
    const int32_t *t = HTC__CAST(const int32_t *, ins[1]);
    int32_t i;
    if (p->out_i32)
        for (i = 0; i < p->n; i++) HTC__CAST(int32_t *, out)[i] = t[x[i]];
    else
        for (i = 0; i < p->n; i++) HTC__CAST(int8_t *, out)[i] = HTC__CAST(int8_t, t[x[i]]);
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
