/* binary_s16.c - int16 ADD, SUB, MUL, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE,
   PRELU (int8 alpha) of two broadcast
   inputs (rank <= 6), bit-exact with TFLite Micro's int16 kernels. */

/* Advance the output index (rank 6, innermost last) and both input offsets. */
static inline void htc__ew16_next(const htc__ew_params *p, int32_t *idx, size_t *ia, size_t *ib)
{
    int d;
    for (d = 5; d >= 0; d--) {
        *ia += HTC__CAST(size_t, p->a_stride[d]);
        *ib += HTC__CAST(size_t, p->b_stride[d]);
        if (++idx[d] < p->out_shape[d]) return;
        *ia -= HTC__CAST(size_t, p->a_stride[d]) * HTC__CAST(size_t, p->out_shape[d]);
        *ib -= HTC__CAST(size_t, p->b_stride[d]) * HTC__CAST(size_t, p->out_shape[d]);
        idx[d] = 0;
    }
}

static inline size_t htc__ew16_size(const htc__ew_params *p)
{
    size_t n = 1;
    int d;
    for (d = 0; d < 6; d++) n *= HTC__CAST(size_t, p->out_shape[d]);
    return n;
}

/* ADD / SUB: reference_ops AddElementwise / SubElementwise with left_shift
   15 (both inputs to a common scale, summed, scaled to the output). */
static HTC__UNUSED void htc__addsub_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out,
                                        int sub)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew16_size(p);
    for (i = 0; i < n; i++) {
        const int32_t x = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->a_offset + a[ia]) << p->left_shift);
        const int32_t y = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->b_offset + b[ib]) << p->left_shift);
        const int32_t sx = htc__mulq(x, p->a_mult, p->a_shift), sy = htc__mulq(y, p->b_mult, p->b_shift);
        const int32_t r = sub ? sx - sy : sx + sy;
        out[i] = HTC__CAST(int16_t, htc__clamp(htc__mulq(r, p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max));
        htc__ew16_next(p, idx, &ia, &ib);
    }
}

static HTC__UNUSED void htc__add_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    htc__addsub_s16(p, a, b, out, 0);
}

static HTC__UNUSED void htc__sub_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    htc__addsub_s16(p, a, b, out, 1);
}

/* MUL: reference_integer_ops MulElementwise (zero points 0 for int16). */
static HTC__UNUSED void htc__mul_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew16_size(p);
    for (i = 0; i < n; i++) {
        const int32_t x = p->a_offset + a[ia], y = p->b_offset + b[ib];
        const int32_t prod = HTC__CAST(int32_t, HTC__CAST(uint32_t, x) * HTC__CAST(uint32_t, y));
        out[i] = HTC__CAST(int16_t, htc__clamp(htc__mulq(prod, p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max));
        htc__ew16_next(p, idx, &ia, &ib);
    }
}

static HTC__UNUSED void htc__maximum_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew16_size(p);
    for (i = 0; i < n; i++) {
        out[i] = a[ia] > b[ib] ? a[ia] : b[ib];
        htc__ew16_next(p, idx, &ia, &ib);
    }
}

static HTC__UNUSED void htc__minimum_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew16_size(p);
    for (i = 0; i < n; i++) {
        out[i] = a[ia] < b[ib] ? a[ia] : b[ib];
        htc__ew16_next(p, idx, &ia, &ib);
    }
}

/* SQUARED_DIFFERENCE: both inputs to a common scale (left_shift 0), the
   difference squared in int32, scaled to the output. */
static HTC__UNUSED void htc__sqdiff_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew16_size(p);
    for (i = 0; i < n; i++) {
        const int32_t x = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->a_offset + a[ia]) << p->left_shift);
        const int32_t y = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->b_offset + b[ib]) << p->left_shift);
        const int32_t d = htc__mulq(x, p->a_mult, p->a_shift) - htc__mulq(y, p->b_mult, p->b_shift);
        const int32_t sq = HTC__CAST(int32_t, HTC__CAST(uint32_t, d) * HTC__CAST(uint32_t, d));
        out[i] = HTC__CAST(int16_t, htc__clamp(htc__mulq(sq, p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max));
        htc__ew16_next(p, idx, &ia, &ib);
    }
}

/* PRELU (reference_ops::BroadcastPrelu4DSlow): x >= 0 scaled by (a_mult,
   a_shift), else x * alpha by (b_mult, b_shift); saturated to int16. */
static HTC__UNUSED void htc__prelu_s16(const htc__ew_params *p, const int16_t *a, const int8_t *b, int16_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew16_size(p);
    for (i = 0; i < n; i++) {
        const int32_t x = p->a_offset + a[ia];
        int32_t y;
        if (x >= 0) y = htc__mulq(x, p->a_mult, p->a_shift);
        else y = htc__mulq(x * (p->b_offset + b[ib]), p->b_mult, p->b_shift);
        out[i] = HTC__CAST(int16_t, htc__clamp(y + p->out_zp, -32768, 32767));
        htc__ew16_next(p, idx, &ia, &ib);
    }
}
