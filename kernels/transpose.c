/* transpose.c - permutation of the axes of a tensor (rank <= 6, elements of
   1, 2, 4 or 8 bytes): the output is written in order, the input read
   through per-dimension strides. Layout changes (NCHW <-> NHWC) and ONNX
   Transpose. */

static HTC__UNUSED void htc__transpose(const htc__transpose_params *p, const void *in, void *out)
{
    const uint8_t *src = HTC__CAST(const uint8_t *, in);
    uint8_t *dst = HTC__CAST(uint8_t *, out);
    const size_t es = HTC__CAST(size_t, p->elem);
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t total = 1, n, pos = 0;
    int d;
    for (d = 0; d < p->rank; d++) total *= HTC__CAST(size_t, p->shape[d]);
    for (n = 0; n < total; n++) {
        memcpy(dst, src + pos * es, es);
        dst += es;
        for (d = p->rank - 1; d >= 0; d--) {
            pos += HTC__CAST(size_t, p->stride[d]);
            if (++idx[d] < p->shape[d]) break;
            pos -= HTC__CAST(size_t, p->stride[d]) * HTC__CAST(size_t, p->shape[d]);
            idx[d] = 0;
        }
    }
}
