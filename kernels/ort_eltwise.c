/* ort_eltwise.c - QLinearAdd, QLinearGlobalAveragePool, table lookups,
   QuantizeLinear and DequantizeLinear with onnxruntime's arithmetic.
   Activations are int8 storage (uint8 tensors stored as value - 128). */

/* fmaf without libm or an FMA unit: the product of two floats is exact in
   double; the sum is rounded to odd (TwoSum gives the error, a non-zero
   error forces the last bit to 1), and rounding that double to float is
   then the correctly rounded fused multiply-add (53 >= 2 * 24 + 2). */
static HTC__UNUSED float htc__fmaf(float a, float b, float c)
{
    volatile double p = HTC__CAST(double, a) * HTC__CAST(double, b);
    volatile double s = p + HTC__CAST(double, c);
    const double bb = s - p;
    const double err = (p - (s - bb)) + (HTC__CAST(double, c) - bb);
    double r = s;
    if (err != 0) {
        uint64_t u;
        memcpy(&u, &r, sizeof u);
        if (!(u & 1)) {
            if ((err > 0) == (r > 0)) u++;
            else u--;
            memcpy(&r, &u, sizeof u);
        }
    }
    return HTC__CAST(float, r);
}

static HTC__UNUSED void htc__qadd_s8(const htc__qbinary_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t i;
    float fixed = p->fixed;
    if (p->a_scalar) {
        volatile float t = HTC__CAST(float, a[0] + p->a_off) * p->ra;
        fixed = fixed + t;
    } else if (p->b_scalar) {
        volatile float t = HTC__CAST(float, b[0] + p->b_off) * p->rb;
        fixed = fixed + t;
    }
    for (i = 0; i < p->size; i++) {
        float c;
        if (p->a_scalar) c = htc__fmaf(HTC__CAST(float, b[i] + p->b_off), p->rb, fixed);
        else if (p->b_scalar) c = htc__fmaf(HTC__CAST(float, a[i] + p->a_off), p->ra, fixed);
        else c = htc__fmaf(HTC__CAST(float, a[i] + p->a_off), p->ra,
                           htc__fmaf(HTC__CAST(float, b[i] + p->b_off), p->rb, fixed));
        {
            const float lo = HTC__CAST(float, p->qmin), hi = HTC__CAST(float, p->qmax);
            c = c < lo ? lo : (c > hi ? hi : c);
            out[i] = HTC__CAST(int8_t, htc__rne(c) - p->out_off);
        }
    }
}

static HTC__UNUSED void htc__qgap_s8(const htc__qgap_params *p, const int8_t *in, int8_t *out)
{
    const float lo = HTC__CAST(float, p->qmin - p->out_zp), hi = HTC__CAST(float, p->qmax - p->out_zp);
    int32_t b, i, c;
    int32_t acc[64];
    for (b = 0; b < p->batches; b++) {
        const int8_t *x = in + (size_t)b * p->hw * p->c;
        int32_t c0;
        for (c0 = 0; c0 < p->c; c0 += 64) {
            const int32_t n = p->c - c0 < 64 ? p->c - c0 : 64;
            for (c = 0; c < n; c++) acc[c] = p->bias;
            for (i = 0; i < p->hw; i++) {
                const int8_t *px = x + (size_t)i * p->c + c0;
                for (c = 0; c < n; c++) acc[c] += px[c];
            }
            for (c = 0; c < n; c++) out[c0 + c] = HTC__CAST(int8_t, htc__rq_float(acc[c], p->scale, lo, hi, p->out_zp));
        }
        out += p->c;
    }
}

static HTC__UNUSED void htc__lut8(const htc__lut_params *p, const void *in, void *out)
{
    const uint8_t *x = HTC__CAST(const uint8_t *, in);
    uint8_t *y = HTC__CAST(uint8_t *, out);
    int32_t i;
    for (i = 0; i < p->size; i++) y[i] = p->lut[x[i]];
}

static HTC__UNUSED void htc__qlinear_quantize(const htc__qlinear_params *p, const float *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const int32_t c = p->channels > 1 ? (i / p->inner) % p->channels : 0;
        const int32_t zp = p->zp[c];
        const float lo = HTC__CAST(float, p->qmin - zp), hi = HTC__CAST(float, p->qmax - zp);
        volatile float v = in[i] / p->scale[c];
        float t = v;
        t = t > lo ? t : lo;
        t = t < hi ? t : hi;
        out[i] = HTC__CAST(int8_t, htc__rne(t) + zp);
    }
}

static HTC__UNUSED void htc__qlinear_dequantize(const htc__qlinear_params *p, const int8_t *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const int32_t c = p->channels > 1 ? (i / p->inner) % p->channels : 0;
        out[i] = HTC__CAST(float, in[i] - p->zp[c]) * p->scale[c];
    }
}
