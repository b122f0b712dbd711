/* add.c - int8 element-wise ADD with broadcasting (up to 4-D).
   Bit-exact with TFLite reference_integer_ops::Add / BroadcastAdd6DSlow. */

/* TFLite's 8-bit ADD: both inputs offset by -zero_point, shifted left by
   left_shift (20), scaled to a common scale (multipliers < 1, so the shift
   is a rounding right shift), summed, scaled to the output, clamped. */

static HTC__UNUSED int8_t htc__add_one(const htc__binary_params *p, int32_t a, int32_t b)
{
    const int32_t sa = htc__rdivpot(htc__srdhm((a + p->a_offset) * (HTC__CAST(int32_t, 1) << p->left_shift), p->a_mult), -p->a_shift);
    const int32_t sb = htc__rdivpot(htc__srdhm((b + p->b_offset) * (HTC__CAST(int32_t, 1) << p->left_shift), p->b_mult), -p->b_shift);
    const int32_t r = htc__mulq(sa + sb, p->out_mult, p->out_shift) + p->out_zp;
    return HTC__CAST(int8_t, htc__clamp(r, p->act_min, p->act_max));
}

static HTC__UNUSED void htc__add_s8(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t n0 = p->out_shape[0], n1 = p->out_shape[1], n2 = p->out_shape[2], n3 = p->out_shape[3];
    if (!p->broadcast) {
        const int32_t n = n0 * n1 * n2 * n3;
        int32_t i;
        for (i = 0; i < n; i++) out[i] = htc__add_one(p, a[i], b[i]);
    } else {
        const int32_t as3 = p->a_stride[3], bs3 = p->b_stride[3];
        int32_t i0, i1, i2, i3;
        for (i0 = 0; i0 < n0; i0++)
            for (i1 = 0; i1 < n1; i1++)
                for (i2 = 0; i2 < n2; i2++) {
                    const int8_t *pa = a + i0 * p->a_stride[0] + i1 * p->a_stride[1] + i2 * p->a_stride[2];
                    const int8_t *pb = b + i0 * p->b_stride[0] + i1 * p->b_stride[1] + i2 * p->b_stride[2];
                    for (i3 = 0; i3 < n3; i3++) {
                        *out++ = htc__add_one(p, *pa, *pb);
                        pa += as3;
                        pb += bs3;
                    }
                }
    }
}
