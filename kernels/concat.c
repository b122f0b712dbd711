/* concat.c - CONCATENATION of same-type, same-quantization inputs.
   Bit-exact with TFLite reference_ops::Concatenation (a byte copy). */

/* For each of the `outer` slices, copy each input's slice in input order. */

static HTC__UNUSED void htc__concat(const htc__concat_params *p, const void *const *ins, void *out)
{
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    int32_t o, i;
    for (o = 0; o < p->outer; o++) {
        for (i = 0; i < p->n; i++) {
            const size_t nb = HTC__CAST(size_t, p->axis_bytes[i]);
            memcpy(dst, HTC__CAST(const uint8_t *, ins[i]) + HTC__CAST(size_t, o) * nb, nb);
            dst += nb;
        }
    }
}
