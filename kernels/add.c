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

#ifdef HTC__SSE2
/* int8 lanes 4k..4k+3 of v sign-extended to int32 */
static inline __m128i htc__s8_to_s32(__m128i v16, int hi)
{
    const __m128i w = hi ? _mm_unpackhi_epi16(v16, v16) : _mm_unpacklo_epi16(v16, v16);
    return _mm_srai_epi32(w, 16);
}

/* 16 elements: the same arithmetic as htc__add_one, four lanes at a time
   (all three multipliers are below one, so every step is a SaturatingRounding-
   DoublingHighMul followed by a rounding right shift: htc__rq4_apply) */
static HTC__UNUSED int htc__add16_sse2(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out, int32_t n)
{
    htc__rq4 qa, qb, qo;
    const int8_t sa = p->a_shift, sb = p->b_shift, so = p->out_shift;
    const __m128i oa = _mm_set1_epi32(p->a_offset), ob = _mm_set1_epi32(p->b_offset);
    const __m128i ls = _mm_cvtsi32_si128(p->left_shift);
    int32_t i;
    if (!htc__rq4_make(&qa, &p->a_mult, &sa, 0) || !htc__rq4_make(&qb, &p->b_mult, &sb, 0) ||
        !htc__rq4_make(&qo, &p->out_mult, &so, 0) || p->left_shift < 0 || p->left_shift > 23)
        return 0;
    for (i = 0; i + 16 <= n; i += 16) {
        const __m128i va = HTC__LD128(a + i), vb = HTC__LD128(b + i);
        const __m128i al = HTC__LO16(va), ah = HTC__HI16(va), bl = HTC__LO16(vb), bh = HTC__HI16(vb);
        __m128i r[4];
        int k;
        for (k = 0; k < 4; k++) {
            const __m128i x = htc__s8_to_s32(k < 2 ? al : ah, k & 1);
            const __m128i y = htc__s8_to_s32(k < 2 ? bl : bh, k & 1);
            const __m128i xs = _mm_sll_epi32(_mm_add_epi32(x, oa), ls);
            const __m128i ys = _mm_sll_epi32(_mm_add_epi32(y, ob), ls);
            r[k] = htc__rq4_apply(&qo, _mm_add_epi32(htc__rq4_apply(&qa, xs), htc__rq4_apply(&qb, ys)));
        }
        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, out + i)),
                         _mm_unpacklo_epi64(htc__rq4_pack(r[0], r[1], p->out_zp, p->act_min, p->act_max),
                                            htc__rq4_pack(r[2], r[3], p->out_zp, p->act_min, p->act_max)));
    }
    return 1;
}
#endif

static HTC__UNUSED void htc__add_s8(const htc__binary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t n0 = p->out_shape[0], n1 = p->out_shape[1], n2 = p->out_shape[2], n3 = p->out_shape[3];
    if (!p->broadcast) {
        const int32_t n = n0 * n1 * n2 * n3;
        int32_t i = 0;
#ifdef HTC__SSE2
        if (htc__add16_sse2(p, a, b, out, n)) i = n / 16 * 16;
#endif
        for (; i < n; i++) out[i] = htc__add_one(p, a[i], b[i]);
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
