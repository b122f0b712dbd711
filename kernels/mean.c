/* mean.c - int8 MEAN over the spatial axes (1, 2) of an NHWC tensor.
   Bit-exact with TFLite reference_ops::QuantizedMeanOrSum (compute_sum off). */

/* This is the path TFLite's reference resolver runs for int8 MEAN (reduce.cc
   EvalMean, kReference -> EvalQuantizedMean; the 4-D integer_ops::Mean is
   only used by the optimized kernel). The sum is exact in int32; the
   Prepare-time multiplier (in_scale / out_scale) absorbs 1/count once per
   call: shift = min(floor(log2 count), 32, 31 + shift0), multiplier =
   (mult0 << shift) / count, then
   out = clamp(mulq(sum - in_zp * count, multiplier, shift0 - shift) + out_zp). */

#define HTC__MEAN_BLOCK 64

static HTC__NOINLINE HTC__UNUSED void htc__mean_s8(const htc__mean_params *p, const int8_t *in, int8_t *out)
{
    const int32_t c = p->c, npix = p->in_h * p->in_w;
    const int64_t count = npix;
    int32_t mult = p->mult, shift = p->shift;
    int32_t acc[HTC__MEAN_BLOCK];
    int32_t b;
    if (count <= 0) return;
    {
        int32_t s = 0;
        while ((count >> (s + 1)) != 0) s++;        /* floor(log2(count)) */
        if (s > 32) s = 32;
        if (s > 31 + shift) s = 31 + shift;
        mult = HTC__CAST(int32_t, (HTC__CAST(int64_t, mult) * (HTC__CAST(int64_t, 1) << s)) / count);
        shift -= s;
    }
    for (b = 0; b < p->batches; b++) {
        const int8_t *in_b = in + (size_t)b * npix * c;
        int32_t c0;
        for (c0 = 0; c0 < c; c0 += HTC__MEAN_BLOCK) {
            const int32_t n = c - c0 < HTC__MEAN_BLOCK ? c - c0 : HTC__MEAN_BLOCK;
            const int8_t *px = in_b + c0;
            int32_t i, j;
            for (j = 0; j < n; j++) acc[j] = 0;
            for (i = 0; i < npix; i++, px += c)
                for (j = 0; j < n; j++) acc[j] += px[j];
            for (j = 0; j < n; j++) {
                const int32_t s = HTC__CAST(int32_t, acc[j] - HTC__CAST(int64_t, p->in_zp) * count);
                out[c0 + j] = HTC__CAST(int8_t, htc__clamp(htc__mulq(s, mult, shift) + p->out_zp, p->act_min, p->act_max));
            }
        }
        out += c;
    }
}
