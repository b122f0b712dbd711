/* concat.c - CONCATENATION of same-type, same-quantization inputs.
   Bit-exact with TFLite reference_ops::Concatenation (a byte copy). */

/* For each of the `outer` slices, copy each input's slice in input order
   (slices under 32 bytes inline, by words when aligned: a KV cache's rows
   are a few bytes, where a call of memcpy costs more than the copy). */

static HTC__UNUSED void htc__concat(const htc__concat_params *p, const void *const *ins, void *out)
{
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    int32_t o, i;
    for (o = 0; o < p->outer; o++) {
        for (i = 0; i < p->n; i++) {
            const size_t nb = HTC__CAST(size_t, p->axis_bytes[i]);
            const uint8_t *src = HTC__CAST(const uint8_t *, ins[i]) + HTC__CAST(size_t, o) * nb;
            size_t k;
            if (nb >= 32)
                memcpy(dst, src, nb);
            else if (!((HTC__ADDR(dst) | HTC__ADDR(src) | nb) & 3u))
                for (k = 0; k < nb; k += 4)
                    *HTC__CAST(uint32_t *, HTC__CAST(void *, dst + k)) = *HTC__CAST(const uint32_t *, HTC__CAST(const void *, src + k));
            else
                for (k = 0; k < nb; k++) dst[k] = src[k];
            dst += nb;
        }
    }
}
