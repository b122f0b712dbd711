/* mul.c - int8 element-wise MUL with broadcasting (up to 4-D).
   Bit-exact with TFLite reference_integer_ops::Mul / BroadcastMul6DSlow. */

/* out = clamp(mulq((a - a_zp) * (b - b_zp), out_mult, out_shift) + out_zp). */

static HTC__UNUSED int8_t htc__mul_one(const htc__binary_params *p, int32_t a, int32_t b)
{
    const int32_t r = htc__mulq((a + p->a_offset) * (b + p->b_offset), p->out_mult, p->out_shift) + p->out_zp;
    return HTC__CAST(int8_t, htc__clamp(r, p->act_min, p->act_max));
}

static HTC__UNUSED void htc__mul_s8(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t n0 = p->out_shape[0], n1 = p->out_shape[1], n2 = p->out_shape[2], n3 = p->out_shape[3];
    if (!p->broadcast) {
        const int32_t n = n0 * n1 * n2 * n3;
        int32_t i;
        for (i = 0; i < n; i++) out[i] = htc__mul_one(p, a[i], b[i]);
    } else {
        const int32_t as3 = p->a_stride[3], bs3 = p->b_stride[3];
        int32_t i0, i1, i2, i3;
        for (i0 = 0; i0 < n0; i0++)
            for (i1 = 0; i1 < n1; i1++)
                for (i2 = 0; i2 < n2; i2++) {
                    const int8_t *pa = a + i0 * p->a_stride[0] + i1 * p->a_stride[1] + i2 * p->a_stride[2];
                    const int8_t *pb = b + i0 * p->b_stride[0] + i1 * p->b_stride[1] + i2 * p->b_stride[2];
                    for (i3 = 0; i3 < n3; i3++) {
                        *out++ = htc__mul_one(p, *pa, *pb);
                        pa += as3;
                        pb += bs3;
                    }
                }
    }
}
