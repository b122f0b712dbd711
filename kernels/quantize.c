/* quantize.c - QUANTIZE float->int8/uint8, int8/uint8 requantization, DEQUANTIZE.
   Bit-exact with TFLite reference_ops::AffineQuantize, Requantize, Dequantize. */

/* QUANTIZE: q = (int32)round(x / scale) + zp, the division in float (never a
   reciprocal multiply), rounding half away from zero, saturated to the type.
   A quotient outside int32 converts like x86's cvttss2si (INT32_MIN), which
   is what the interpreter does there. REQUANTIZE: mulq(x - in_zp) + out_zp.
   DEQUANTIZE: (float)(double(scale) * (x - zp)). */

static HTC__UNUSED int32_t htc__quantize_one(const htc__quant_params *p, float x)
{
    const float q = x / p->scale;
    float r;
    int32_t v;
    /* round half away from zero without libm: truncate, then adjust */
    if (!(q > -2147483648.0f && q < 2147483648.0f)) {
        v = INT32_MIN;                                  /* NaN or out of range */
    } else {
        r = HTC__CAST(float, HTC__CAST(int32_t, q));   /* trunc, exact for |q| < 2^31 */
        if (q - r >= 0.5f) r += 1.0f;
        else if (r - q >= 0.5f) r -= 1.0f;
        if (!(r < 2147483648.0f)) v = INT32_MIN;
        else v = HTC__CAST(int32_t, r);
    }
    v = HTC__CAST(int32_t, HTC__CAST(uint32_t, v) + HTC__CAST(uint32_t, p->out_zp));
    return htc__clamp(v, p->qmin, p->qmax);
}

static HTC__UNUSED void htc__quantize_f32_s8(const htc__quant_params *p, const float *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = HTC__CAST(int8_t, htc__quantize_one(p, in[i]));
}

static HTC__UNUSED void htc__quantize_f32_u8(const htc__quant_params *p, const float *in, uint8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = HTC__CAST(uint8_t, htc__quantize_one(p, in[i]));
}

static HTC__UNUSED int32_t htc__requant_one(const htc__quant_params *p, int32_t x)
{
    return htc__clamp(htc__mulq(x - p->in_zp, p->mult, p->shift) + p->out_zp, p->qmin, p->qmax);
}

static HTC__UNUSED void htc__requantize_s8_s8(const htc__quant_params *p, const int8_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = HTC__CAST(int8_t, htc__requant_one(p, in[i]));
}

static HTC__UNUSED void htc__requantize_s8_u8(const htc__quant_params *p, const int8_t *in, uint8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = HTC__CAST(uint8_t, htc__requant_one(p, in[i]));
}

static HTC__UNUSED void htc__requantize_u8_s8(const htc__quant_params *p, const uint8_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = HTC__CAST(int8_t, htc__requant_one(p, in[i]));
}

static HTC__UNUSED void htc__dequantize_s8_f32(const htc__quant_params *p, const int8_t *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = HTC__CAST(float, p->dscale * HTC__CAST(double, in[i] - p->in_zp));
}

static HTC__UNUSED void htc__dequantize_u8_f32(const htc__quant_params *p, const uint8_t *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = HTC__CAST(float, p->dscale * HTC__CAST(double, in[i] - p->in_zp));
}
