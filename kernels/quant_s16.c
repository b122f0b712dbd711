/* quant_s16.c - QUANTIZE float->int16, int8/int16/int32 requantization to
   and from int16, DEQUANTIZE int16->float (TFLite Micro's quantize/dequantize). */

/* AffineQuantize: round half away from zero of x / scale, plus the zero
   point, saturated; a quotient outside int32 (or NaN) becomes INT32_MIN
   first, as the x86 conversion TFLM runs on. */
static HTC__UNUSED int32_t htc__s16_quantize_one(const htc__quant_params *p, float x)
{
    const float q = x / p->scale;
    float r;
    int32_t v;
    if (!(q > -2147483648.0f && q < 2147483648.0f)) {
        v = INT32_MIN;
    } else {
        r = HTC__CAST(float, HTC__CAST(int32_t, q));
        if (q - r >= 0.5f) r += 1.0f;
        else if (r - q >= 0.5f) r -= 1.0f;
        v = r < 2147483648.0f ? HTC__CAST(int32_t, r) : INT32_MIN;
    }
    v = HTC__CAST(int32_t, HTC__CAST(uint32_t, v) + HTC__CAST(uint32_t, p->out_zp));
    return htc__clamp(v, p->qmin, p->qmax);
}

static HTC__UNUSED void htc__quantize_f32_s16(const htc__quant_params *p, const float *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = HTC__CAST(int16_t, htc__s16_quantize_one(p, in[i]));
}

/* Requantize: mulq(x - in_zp) + out_zp, clamped to the output type. */
static HTC__UNUSED void htc__requantize_s8_s16(const htc__quant_params *p, const int8_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++)
        out[i] = HTC__CAST(int16_t, htc__clamp(htc__mulq(in[i] - p->in_zp, p->mult, p->shift) + p->out_zp, p->qmin, p->qmax));
}

static HTC__UNUSED void htc__requantize_s16_s8(const htc__quant_params *p, const int16_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++)
        out[i] = HTC__CAST(int8_t, htc__clamp(htc__mulq(in[i] - p->in_zp, p->mult, p->shift) + p->out_zp, p->qmin, p->qmax));
}

static HTC__UNUSED void htc__requantize_s16_s16(const htc__quant_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++)
        out[i] = HTC__CAST(int16_t, htc__clamp(htc__mulq(in[i] - p->in_zp, p->mult, p->shift) + p->out_zp, p->qmin, p->qmax));
}

/* int16 <-> int32 (TFLM's Requantize<int16_t, int32_t> and <int32_t,
   int16_t>): the int32 differences and sums wrap as TFLM's int32 arithmetic
   does on its targets (no undefined behaviour here). */
static HTC__UNUSED void htc__requantize_s16_s32(const htc__quant_params *p, const int16_t *in, int32_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++)
        out[i] = HTC__CAST(int32_t, HTC__CAST(uint32_t, htc__mulq(in[i] - p->in_zp, p->mult, p->shift)) + HTC__CAST(uint32_t, p->out_zp));
}

static HTC__UNUSED void htc__requantize_s32_s16(const htc__quant_params *p, const int32_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) {
        const int32_t x = HTC__CAST(int32_t, HTC__CAST(uint32_t, in[i]) - HTC__CAST(uint32_t, p->in_zp));
        const int32_t v = HTC__CAST(int32_t, HTC__CAST(uint32_t, htc__mulq(x, p->mult, p->shift)) + HTC__CAST(uint32_t, p->out_zp));
        out[i] = HTC__CAST(int16_t, htc__clamp(v, p->qmin, p->qmax));
    }
}

/* Dequantize: (float)(scale * (x - zp)) in double. */
static HTC__UNUSED void htc__dequantize_s16_f32(const htc__quant_params *p, const int16_t *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = HTC__CAST(float, p->dscale * HTC__CAST(double, in[i] - p->in_zp));
}
