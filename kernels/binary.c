/* binary.c - int8 element-wise ops of two broadcast inputs, bit-exact with
   TFLite Micro: SUB (sub.cc), SQUARED_DIFFERENCE (squared_difference.cc),
   MAXIMUM / MINIMUM (maximum_minimum.cc), PRELU (prelu.cc). */

/* Advance the output index (rank 6, innermost last) and both input offsets. */
static inline void htc__ew_next(const htc__ew_params *p, int32_t *idx, size_t *ia, size_t *ib)
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

static inline size_t htc__ew_size(const htc__ew_params *p)
{
    size_t n = 1;
    int d;
    for (d = 0; d < 6; d++) n *= HTC__CAST(size_t, p->out_shape[d]);
    return n;
}

/* reference_ops::SubElementwise / BroadcastQuantSubSlow */
static HTC__UNUSED void htc__sub_s8(const htc__ew_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew_size(p);
    for (i = 0; i < n; i++) {
        const int32_t x = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->a_offset + a[ia]) << p->left_shift);
        const int32_t y = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->b_offset + b[ib]) << p->left_shift);
        const int32_t d = htc__mulq(x, p->a_mult, p->a_shift) - htc__mulq(y, p->b_mult, p->b_shift);
        out[i] = HTC__CAST(int8_t, htc__clamp(htc__mulq(d, p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max));
        htc__ew_next(p, idx, &ia, &ib);
    }
}

/* squared_difference.cc SquaredDifference<int8_t> (left_shift 7) */
static HTC__UNUSED void htc__sqdiff_s8(const htc__ew_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew_size(p);
    for (i = 0; i < n; i++) {
        const int32_t x = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->a_offset + a[ia]) << p->left_shift);
        const int32_t y = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->b_offset + b[ib]) << p->left_shift);
        const int32_t d = htc__mulq(x, p->a_mult, p->a_shift) - htc__mulq(y, p->b_mult, p->b_shift);
        const int32_t sq = HTC__CAST(int32_t, HTC__CAST(uint32_t, d) * HTC__CAST(uint32_t, d));
        out[i] = HTC__CAST(int8_t, htc__clamp(htc__mulq(sq, p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max));
        htc__ew_next(p, idx, &ia, &ib);
    }
}

static HTC__UNUSED void htc__maximum_s8(const htc__ew_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew_size(p);
    for (i = 0; i < n; i++) {
        out[i] = a[ia] > b[ib] ? a[ia] : b[ib];
        htc__ew_next(p, idx, &ia, &ib);
    }
}

static HTC__UNUSED void htc__minimum_s8(const htc__ew_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew_size(p);
    for (i = 0; i < n; i++) {
        out[i] = a[ia] < b[ib] ? a[ia] : b[ib];
        htc__ew_next(p, idx, &ia, &ib);
    }
}

/* reference_ops::BroadcastPrelu4DSlow: x >= 0 scaled by (a_mult, a_shift),
   else x * alpha scaled by (b_mult, b_shift) */
static HTC__UNUSED void htc__prelu_s8(const htc__ew_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = htc__ew_size(p);
    for (i = 0; i < n; i++) {
        const int32_t x = p->a_offset + a[ia];
        int32_t y;
        if (x >= 0) y = htc__mulq(x, p->a_mult, p->a_shift);
        else y = htc__mulq(x * (p->b_offset + b[ib]), p->b_mult, p->b_shift);
        out[i] = HTC__CAST(int8_t, htc__clamp(y + p->out_zp, -128, 127));
        htc__ew_next(p, idx, &ia, &ib);
    }
}
