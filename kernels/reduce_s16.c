/* reduce_s16.c - int16 MEAN and SUM over any axes, bit-exact with TFLite
   Micro's QuantizedMeanOrSum<int16_t> (reduce_common.cc): the int32 sum of
   each output's inputs minus count * zero point, MEAN with 1/count folded
   into the multiplier at run time as TFLM does, saturated to int16. */

/* Two walks (htc.h htc__walk) over the input's six dimensions: the kept
   ones give each output's first input, the reduced ones its inputs. */
static HTC__UNUSED void htc__reduce_s16(const htc__reduce_params *p, const int16_t *in, int16_t *out)
{
    int32_t oidx[6] = {0, 0, 0, 0, 0, 0}, os[6], rs[6], ost[6], rst[6];
    size_t nred = 1, base = 0, ob = 0;
    int d;
    int32_t mult = p->mult, shift = p->shift, st = 1;
    for (d = 5; d >= 0; d--) {
        os[d] = p->red[d] ? 1 : p->in_shape[d];
        rs[d] = p->red[d] ? p->in_shape[d] : 1;
        ost[d] = p->red[d] ? 0 : st;
        rst[d] = p->red[d] ? st : 0;
        if (p->red[d]) nred *= HTC__CAST(size_t, p->in_shape[d]);
        st *= p->in_shape[d];
    }
    if (p->mode == 0 && nred > 0) {     /* MEAN: 1/count folded into the multiplier */
        int32_t s = 0;
        while ((HTC__CAST(uint64_t, nred) >> (s + 1)) != 0) s++;
        if (s > 32) s = 32;
        if (s > 31 + shift) s = 31 + shift;
        mult = HTC__CAST(int32_t, (HTC__CAST(int64_t, mult) * (HTC__CAST(int64_t, 1) << s)) / HTC__CAST(int64_t, nred));
        shift -= s;
    }
    do {
        int32_t ridx[6] = {0, 0, 0, 0, 0, 0}, acc = 0, v;
        size_t r = 0, rb = 0;
        do {
            acc += in[base + r];
        } while (htc__walk(ridx, rs, rst, rst, 6, &r, &rb));
        v = HTC__CAST(int32_t, acc - HTC__CAST(int64_t, p->in_zp) * HTC__CAST(int64_t, nred));
        *out++ = HTC__CAST(int16_t, htc__clamp(htc__mulq(v, mult, shift) + p->out_zp, -32768, 32767));
    } while (htc__walk(oidx, os, ost, ost, 6, &base, &ob));
}
