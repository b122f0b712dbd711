/* svdf.c - SVDF with int8 input and output and an int16 or int8
   activation state (and time weights of the same type), bit-exact with
   TFLite Micro's EvalIntegerSvdfReference. */

static inline int32_t htc__svdf_ld(const void *a, size_t i, int s16)
{
    return s16 ? HTC__CAST(const int16_t *, a)[i] : HTC__CAST(const int8_t *, a)[i];
}

/* state [batches][filters][memory] is shifted left by one element (the
   whole buffer, as TFLM does), each filter's newest entry is the feature
   product requantized into the state (clamped to its type, then its zero
   point added), the time weights reduce each filter's memory (int32),
   rank filters sum into a unit with the bias, requantized to int8.
   scratch: int32 [batches * filters + batches * units]. */
static void htc__svdf_core(const htc__svdf_params *p, const int8_t *x, const int8_t *wf, const void *wt,
                           const int32_t *bias, int8_t *out, void *state, int32_t *scratch, int s16)
{
    const int32_t n = p->batches * p->filters * p->memory, lo = s16 ? -32768 : -128, hi = s16 ? 32767 : 127;
    int32_t *filt = scratch, *acc = scratch + p->batches * p->filters;
    int32_t b, r, i, j;
    if (s16) memmove(state, HTC__CAST(int16_t *, state) + 1, HTC__CAST(size_t, n - 1) * 2);
    else memmove(state, HTC__CAST(int8_t *, state) + 1, HTC__CAST(size_t, n - 1));
    for (b = 0; b < p->batches; b++)
        for (r = 0; r < p->filters; r++) {
            const int8_t *w = wf + HTC__CAST(size_t, r) * p->in_dim, *xb = x + HTC__CAST(size_t, b) * p->in_dim;
            const size_t at = (HTC__CAST(size_t, b) * p->filters + r) * p->memory + p->memory - 1;
            int32_t d = 0;
            for (i = 0; i < p->in_dim; i++) d += w[i] * (xb[i] - p->in_zp);
            d = htc__clamp(htc__mulq(d, p->m1, p->s1), lo, hi) + p->state_zp;
            if (s16) HTC__CAST(int16_t *, state)[at] = HTC__CAST(int16_t, d);
            else HTC__CAST(int8_t *, state)[at] = HTC__CAST(int8_t, d);
        }
    for (b = 0; b < p->batches; b++)
        for (r = 0; r < p->filters; r++) {
            const size_t base = (HTC__CAST(size_t, b) * p->filters + r) * p->memory;
            int32_t s = 0;
            for (j = 0; j < p->memory; j++)
                s += htc__svdf_ld(wt, HTC__CAST(size_t, r) * p->memory + j, s16) *
                     (htc__svdf_ld(state, base + j, s16) - p->state_zp);
            filt[b * p->filters + r] = s;
        }
    for (b = 0; b < p->batches; b++)
        for (i = 0; i < p->units; i++) {
            int32_t s = p->has_bias ? bias[i] : 0;
            for (j = 0; j < p->rank; j++) s += filt[b * p->filters + i * p->rank + j];
            acc[b * p->units + i] = s;
            out[b * p->units + i] = HTC__CAST(int8_t, htc__clamp(htc__mulq(s, p->m2, p->s2) + p->out_zp, -128, 127));
        }
}

/* int16 state and time weights (EvalInt16SvdfReference) */
static HTC__UNUSED void htc__svdf_s16(const htc__svdf_params *p, const int8_t *x, const int8_t *wf, const int16_t *wt,
                                      const int32_t *bias, int8_t *out, int16_t *state, int32_t *scratch)
{
    htc__svdf_core(p, x, wf, wt, bias, out, state, scratch, 1);
}

/* int8 state and time weights (EvalInt8SvdfReference) */
static HTC__UNUSED void htc__svdf_s8(const htc__svdf_params *p, const int8_t *x, const int8_t *wf, const int8_t *wt,
                                     const int32_t *bias, int8_t *out, int8_t *state, int32_t *scratch)
{
    htc__svdf_core(p, x, wf, wt, bias, out, state, scratch, 0);
}
