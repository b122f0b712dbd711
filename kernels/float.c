/* float.c - float32 element-wise ops the TFLite converter leaves in float
   between int8 ops (float islands), as TFLite Micro computes them: NEG. */

static HTC__UNUSED void htc__neg_f32(const htc__funary_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; i++) out[i] = -in[i];
}
