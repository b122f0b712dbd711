/* logistic.c - int8 LOGISTIC (sigmoid), output scale 1/256, zero point -128.
   Bit-exact with TFLite Micro's int8 kernel: a 256-entry table lookup. */

/* gen/quant.c evaluates TFLite Micro's fixed-point kernel
   (reference_integer_ops::Logistic) on every int8 input at compile time. */

static HTC__UNUSED void htc__logistic_s8(const htc__logistic_params *p, const int8_t *in, int8_t *out)
{
    const int8_t *lut = p->lut;
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = lut[HTC__CAST(uint8_t, in[i])];
}
