/* binary_s16.c - int16 ADD, SUB, MUL, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE,
   PRELU (int8 alpha) of two broadcast
   inputs (rank <= 6), bit-exact with TFLite Micro's int16 kernels. */

/* Every kernel below walks the output as the element-wise loop of
   kernels/mul.c does: its five outer dimensions stepped by htc__walk
   (htc.h), the innermost as a run of out_shape[5] elements, the operands
   advancing by a_stride[5] / b_stride[5] (0 where broadcast). */

/* ADD / SUB: reference_ops AddElementwise / SubElementwise with left_shift
   15 (both inputs to a common scale, summed, scaled to the output). */
static HTC__UNUSED void htc__addsub_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out,
                                        int sub)
{
    int32_t idx[5] = {0, 0, 0, 0, 0}, j;
    size_t ia = 0, ib = 0;
    do {
        const int16_t *pa = a + ia, *pb = b + ib;
        for (j = 0; j < p->out_shape[5]; j++, pa += p->a_stride[5], pb += p->b_stride[5]) {
            const int32_t x = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->a_offset + *pa) << p->left_shift);
            const int32_t y = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->b_offset + *pb) << p->left_shift);
            const int32_t sx = htc__mulq(x, p->a_mult, p->a_shift), sy = htc__mulq(y, p->b_mult, p->b_shift);
            const int32_t r = sub ? sx - sy : sx + sy;
            *out++ = HTC__CAST(int16_t, htc__clamp(htc__mulq(r, p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max));
        }
    } while (htc__walk(idx, p->out_shape, p->a_stride, p->b_stride, 5, &ia, &ib));
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
    int32_t idx[5] = {0, 0, 0, 0, 0}, j;
    size_t ia = 0, ib = 0;
    do {
        const int16_t *pa = a + ia, *pb = b + ib;
        for (j = 0; j < p->out_shape[5]; j++, pa += p->a_stride[5], pb += p->b_stride[5]) {
            const int32_t x = p->a_offset + *pa, y = p->b_offset + *pb;
            const int32_t prod = HTC__CAST(int32_t, HTC__CAST(uint32_t, x) * HTC__CAST(uint32_t, y));
            *out++ = HTC__CAST(int16_t, htc__clamp(htc__mulq(prod, p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max));
        }
    } while (htc__walk(idx, p->out_shape, p->a_stride, p->b_stride, 5, &ia, &ib));
}

/* MAXIMUM / MINIMUM: the stored values compared (TFLM's int16 kernel). */
static HTC__UNUSED void htc__minmax_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out, int max)
{
    int32_t idx[5] = {0, 0, 0, 0, 0}, j;
    size_t ia = 0, ib = 0;
    do {
        const int16_t *pa = a + ia, *pb = b + ib;
        for (j = 0; j < p->out_shape[5]; j++, pa += p->a_stride[5], pb += p->b_stride[5])
            *out++ = (max ? *pa > *pb : *pa < *pb) ? *pa : *pb;
    } while (htc__walk(idx, p->out_shape, p->a_stride, p->b_stride, 5, &ia, &ib));
}

static HTC__UNUSED void htc__maximum_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    htc__minmax_s16(p, a, b, out, 1);
}

static HTC__UNUSED void htc__minimum_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    htc__minmax_s16(p, a, b, out, 0);
}

/* SQUARED_DIFFERENCE: both inputs to a common scale (left_shift 0), the
   difference squared in int32, scaled to the output. */
static HTC__UNUSED void htc__sqdiff_s16(const htc__ew_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    int32_t idx[5] = {0, 0, 0, 0, 0}, j;
    size_t ia = 0, ib = 0;
    do {
        const int16_t *pa = a + ia, *pb = b + ib;
        for (j = 0; j < p->out_shape[5]; j++, pa += p->a_stride[5], pb += p->b_stride[5]) {
            const int32_t x = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->a_offset + *pa) << p->left_shift);
            const int32_t y = HTC__CAST(int32_t, HTC__CAST(uint32_t, p->b_offset + *pb) << p->left_shift);
            const int32_t d = htc__mulq(x, p->a_mult, p->a_shift) - htc__mulq(y, p->b_mult, p->b_shift);
            const int32_t sq = HTC__CAST(int32_t, HTC__CAST(uint32_t, d) * HTC__CAST(uint32_t, d));
            *out++ = HTC__CAST(int16_t, htc__clamp(htc__mulq(sq, p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max));
        }
    } while (htc__walk(idx, p->out_shape, p->a_stride, p->b_stride, 5, &ia, &ib));
}

/* PRELU (reference_ops::BroadcastPrelu4DSlow): x >= 0 scaled by (a_mult,
   a_shift), else x * alpha by (b_mult, b_shift); saturated to int16. */
static HTC__UNUSED void htc__prelu_s16(const htc__ew_params *p, const int16_t *a, const int8_t *b, int16_t *out)
{
    int32_t idx[5] = {0, 0, 0, 0, 0}, j;
    size_t ia = 0, ib = 0;
    do {
        const int16_t *pa = a + ia;
        const int8_t *pb = b + ib;
        for (j = 0; j < p->out_shape[5]; j++, pa += p->a_stride[5], pb += p->b_stride[5]) {
            const int32_t x = p->a_offset + *pa;
            int32_t y;
            if (x >= 0) y = htc__mulq(x, p->a_mult, p->a_shift);
            else y = htc__mulq(x * (p->b_offset + *pb), p->b_mult, p->b_shift);
            *out++ = HTC__CAST(int16_t, htc__clamp(y + p->out_zp, -32768, 32767));
        }
    } while (htc__walk(idx, p->out_shape, p->a_stride, p->b_stride, 5, &ia, &ib));
}
