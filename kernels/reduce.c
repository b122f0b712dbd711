/* reduce.c - int8 reductions over any axes and L2 normalization,
   bit-exact with TFLite Micro: MEAN and SUM (reduce_common.cc ->
   reference_ops::QuantizedMeanOrSum), REDUCE_MAX / REDUCE_MIN
   (ReduceGeneric), ARG_MAX / ARG_MIN (reference_ops::ArgMinMax) and
   L2_NORMALIZATION (reference_integer_ops::L2Normalization). */

/* For each output element (the kept axes in order), walk the reduced axes:
   the int32 sum (or the maximum) of its inputs. */
static HTC__UNUSED void htc__reduce_s8(const htc__reduce_params *p, const int8_t *in, int8_t *out)
{
    int32_t oidx[6] = {0, 0, 0, 0, 0, 0}, ridx[6];
    size_t stride[6], nout = 1, nred = 1, o, r;
    int d;
    int32_t mult = p->mult, shift = p->shift;
    for (d = 5; d >= 0; d--) {
        stride[d] = d == 5 ? 1 : stride[d + 1] * HTC__CAST(size_t, p->in_shape[d + 1]);
        if (p->red[d]) nred *= HTC__CAST(size_t, p->in_shape[d]);
        else nout *= HTC__CAST(size_t, p->in_shape[d]);
    }
    if (p->mode == 0 && nred > 0) {     /* MEAN: 1/count folded into the multiplier */
        int32_t s = 0;
        while ((HTC__CAST(uint64_t, nred) >> (s + 1)) != 0) s++;
        if (s > 32) s = 32;
        if (s > 31 + shift) s = 31 + shift;
        mult = HTC__CAST(int32_t, (HTC__CAST(int64_t, mult) * (HTC__CAST(int64_t, 1) << s)) / HTC__CAST(int64_t, nred));
        shift -= s;
    }
    for (o = 0; o < nout; o++) {
        size_t base = 0;
        int32_t acc = p->mode == 2 ? -128 : p->mode == 3 ? 127 : 0;
        for (d = 0; d < 6; d++) {
            base += HTC__CAST(size_t, oidx[d]) * stride[d];
            ridx[d] = 0;
        }
        for (r = 0; r < nred; r++) {
            size_t at = base;
            for (d = 0; d < 6; d++) at += HTC__CAST(size_t, ridx[d]) * stride[d];
            if (p->mode == 2) acc = in[at] > acc ? in[at] : acc;
            else if (p->mode == 3) acc = in[at] < acc ? in[at] : acc;
            else acc += in[at];
            for (d = 5; d >= 0; d--) {
                if (!p->red[d]) continue;
                if (++ridx[d] < p->in_shape[d]) break;
                ridx[d] = 0;
            }
        }
        if (p->mode >= 2) {
            out[o] = HTC__CAST(int8_t, acc);
        } else {
            const int32_t s = HTC__CAST(int32_t, acc - HTC__CAST(int64_t, p->in_zp) * HTC__CAST(int64_t, nred));
            out[o] = HTC__CAST(int8_t, htc__clamp(htc__mulq(s, mult, shift) + p->out_zp, -128, 127));
        }
        for (d = 5; d >= 0; d--) {
            if (p->red[d]) continue;
            if (++oidx[d] < p->in_shape[d]) break;
            oidx[d] = 0;
        }
    }
}

static HTC__UNUSED void htc__l2norm_s8(const htc__l2norm_params *p, const int8_t *in, int8_t *out)
{
    int32_t o, i;
    for (o = 0; o < p->outer; o++) {
        const int8_t *x = in + HTC__CAST(size_t, o) * p->depth;
        int32_t acc = 0, m;
        int s;
        for (i = 0; i < p->depth; i++) acc += (x[i] - p->in_zp) * (x[i] - p->in_zp);
        htc__inv_sqrt(acc, &m, &s);
        for (i = 0; i < p->depth; i++)
            *out++ = HTC__CAST(int8_t, htc__clamp(htc__mulq(x[i] - p->in_zp, m, s + 7), -128, 127));
    }
}

/* LiteRT's uint8 L2_NORMALIZATION (reference_ops::L2Normalization on
   uint8, stored as int8): MultiplyByQuantizedMultiplierSmallerThanOneExp(128
   * diff), one rounding after the high product, not htc__mulq's shift by
   s + 7; 128 + that, clamped to [0, 255], is the int8 value + 128. */
static HTC__UNUSED void htc__l2norm_s8_u8(const htc__l2norm_params *p, const int8_t *in, int8_t *out)
{
    int32_t o, i;
    for (o = 0; o < p->outer; o++) {
        const int8_t *x = in + HTC__CAST(size_t, o) * p->depth;
        int32_t acc = 0, m;
        int s;
        for (i = 0; i < p->depth; i++) acc += (x[i] - p->in_zp) * (x[i] - p->in_zp);
        htc__inv_sqrt(acc, &m, &s);
        for (i = 0; i < p->depth; i++)
            *out++ = HTC__CAST(int8_t, htc__clamp(htc__rdivpot(htc__srdhm(128 * (x[i] - p->in_zp), m), s < 0 ? -s : 0),
                                                  -128, 127));
    }
}

/* the first index holding the largest (smallest) value: a later equal
   value does not replace it (std::greater / std::less) */
static HTC__UNUSED void htc__argminmax_s8(const htc__argminmax_params *p, const int8_t *in, void *out)
{
    int32_t o, i, k;
    size_t n = 0;
    for (o = 0; o < p->outer; o++)
        for (i = 0; i < p->inner; i++) {
            const int8_t *x = in + HTC__CAST(size_t, o) * p->axis_size * p->inner + i;
            int8_t best = x[0];
            int32_t at = 0;
            for (k = 1; k < p->axis_size; k++) {
                const int8_t v = x[HTC__CAST(size_t, k) * p->inner];
                if (p->is_min ? v < best : v > best) {
                    best = v;
                    at = k;
                }
            }
            if (p->out64) HTC__CAST(int64_t *, out)[n++] = at;
            else HTC__CAST(int32_t *, out)[n++] = at;
        }
}
