/* pad.c - PAD / PADV2 of any element size, rank <= 5 (shapes padded in front).
   Bit-exact with TFLite reference_ops::Pad (constant mode). */

/* Output rows along the last dimension are written with one fill, one
   memcpy and one fill; rows that lie entirely in the padding of an outer
   dimension are filled whole. pad_value is the element written (int8/uint8:
   low byte, int16: low half, 4 bytes: all 32 bits, wider: zero bytes). */

static HTC__UNUSED void htc__pad_fill(void *dst, int32_t n, int32_t elem, int32_t v)
{
    if (n <= 0) return;
    if (elem == 1) {
        memset(dst, v & 0xff, HTC__CAST(size_t, n));
    } else if (elem == 2) {
        int16_t *d = HTC__CAST(int16_t *, dst);
        int32_t i;
        for (i = 0; i < n; i++) d[i] = HTC__CAST(int16_t, v);
    } else if (elem == 4) {
        int32_t *d = HTC__CAST(int32_t *, dst);
        int32_t i;
        for (i = 0; i < n; i++) d[i] = v;
    } else {
        memset(dst, 0, HTC__CAST(size_t, n) * HTC__CAST(size_t, elem));
    }
}

static HTC__UNUSED void htc__pad(const htc__pad_params *p, const void *in, void *out)
{
    const int32_t es = p->elem_size;
    int32_t os[5], i0, i1, i2, i3;
    const uint8_t *src = HTC__CAST(const uint8_t *, in);
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    int d;
    for (d = 0; d < 5; d++) os[d] = p->before[d] + p->in_shape[d] + p->after[d];
    {
        const size_t row_out = HTC__CAST(size_t, os[4]) * HTC__CAST(size_t, es);
        const size_t row_in = HTC__CAST(size_t, p->in_shape[4]) * HTC__CAST(size_t, es);
        for (i0 = 0; i0 < os[0]; i0++) {
            const int in0 = i0 >= p->before[0] && i0 < p->before[0] + p->in_shape[0];
            for (i1 = 0; i1 < os[1]; i1++) {
                const int in1 = in0 && i1 >= p->before[1] && i1 < p->before[1] + p->in_shape[1];
                for (i2 = 0; i2 < os[2]; i2++) {
                    const int in2 = in1 && i2 >= p->before[2] && i2 < p->before[2] + p->in_shape[2];
                    for (i3 = 0; i3 < os[3]; i3++) {
                        const int in3 = in2 && i3 >= p->before[3] && i3 < p->before[3] + p->in_shape[3];
                        if (in3) {
                            htc__pad_fill(dst, p->before[4], es, p->pad_value);
                            memcpy(dst + HTC__CAST(size_t, p->before[4]) * HTC__CAST(size_t, es), src, row_in);
                            htc__pad_fill(dst + HTC__CAST(size_t, p->before[4]) * HTC__CAST(size_t, es) + row_in,
                                          p->after[4], es, p->pad_value);
                            src += row_in;
                        } else {
                            htc__pad_fill(dst, os[4], es, p->pad_value);
                        }
                        dst += row_out;
                    }
                }
            }
        }
    }
}
