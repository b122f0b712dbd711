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
