/* reduce_s16.c - int16 MEAN and SUM over any axes, bit-exact with TFLite
   Micro's QuantizedMeanOrSum<int16_t> (reduce_common.cc): the int32 sum of
   each output's inputs minus count * zero point, MEAN with 1/count folded
   into the multiplier at run time as TFLM does, saturated to int16. */

static HTC__UNUSED void htc__reduce_s16(const htc__reduce_params *p, const int16_t *in, int16_t *out)
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
        int32_t acc = 0;
        for (d = 0; d < 6; d++) {
            base += HTC__CAST(size_t, oidx[d]) * stride[d];
            ridx[d] = 0;
        }
        for (r = 0; r < nred; r++) {
            size_t at = base;
            for (d = 0; d < 6; d++) at += HTC__CAST(size_t, ridx[d]) * stride[d];
            acc += in[at];
            for (d = 5; d >= 0; d--) {
                if (!p->red[d]) continue;
                if (++ridx[d] < p->in_shape[d]) break;
                ridx[d] = 0;
            }
        }
        {
            const int32_t s = HTC__CAST(int32_t, acc - HTC__CAST(int64_t, p->in_zp) * HTC__CAST(int64_t, nred));
            out[o] = HTC__CAST(int16_t, htc__clamp(htc__mulq(s, mult, shift) + p->out_zp, -32768, 32767));
        }
        for (d = 5; d >= 0; d--) {
            if (p->red[d]) continue;
            if (++oidx[d] < p->in_shape[d]) break;
            oidx[d] = 0;
        }
    }
}
