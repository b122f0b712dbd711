/* ort_conv.c - QLinearMatMul / QGemm / MatMulInteger with onnxruntime's
   arithmetic (int8 storage). Exact int32 accumulation, then htc__rq_float
   (float scale, round half to even, saturation) or the raw int32
   accumulator. (Convolutions: kernels/conv2d.c.) */

static HTC__UNUSED void htc__qfc_store(const htc__qfc_params *p, int32_t n, int32_t acc, int32_t xsum, int8_t *o8, int32_t *o32)
{
    if (p->w_zp) acc -= p->w_zp[p->per_channel ? n : 0] * xsum;
    if (p->bias) acc += p->bias[n];
    if (o32) {
        o32[n] = acc;
    } else {
        const float lo = HTC__CAST(float, p->qmin - p->out_zp), hi = HTC__CAST(float, p->qmax - p->out_zp);
        o8[n] = HTC__CAST(int8_t, htc__rq_float(acc, p->scale[p->per_channel ? n : 0], lo, hi, p->out_zp));
    }
}

static HTC__UNUSED void htc__qfc_core(const htc__qfc_params *p, const int8_t *in, int8_t *o8, int32_t *o32)
{
    const int32_t k = p->in_features, nout = p->out_features, off = -p->in_zp;
    int32_t b, r, n, i;
    for (b = 0; b < p->batches; b++) {
        const int8_t *wb = p->weights + (p->w_batches > 1 ? (size_t)b * nout * k : 0);
        for (r = 0; r < p->rows; r++) {
            const int8_t *x = in + ((size_t)b * p->rows + r) * k;
            int32_t xsum = 0;
            if (p->w_zp)
                for (i = 0; i < k; i++) xsum += x[i] + off;
            for (n = 0; n + 4 <= nout; n += 4) {
                int32_t acc[4] = {0, 0, 0, 0}, j;
                htc__dot4_s8(x, wb + (size_t)n * k, k, k, off, acc);
                for (j = 0; j < 4; j++) htc__qfc_store(p, n + j, acc[j], xsum, o8, o32);
            }
            for (n = nout - nout % 4; n < nout; n++)
                htc__qfc_store(p, n, htc__dot1_s8(x, wb + (size_t)n * k, k, off), xsum, o8, o32);
            if (o8) o8 += nout;
            if (o32) o32 += nout;
        }
    }
}

static HTC__UNUSED void htc__qfc_s8(const htc__qfc_params *p, const int8_t *in, int8_t *out)
{
    htc__qfc_core(p, in, out, HTC__CAST(int32_t *, 0));
}

static HTC__UNUSED void htc__qfc_s32(const htc__qfc_params *p, const int8_t *in, int32_t *out)
{
    htc__qfc_core(p, in, HTC__CAST(int8_t *, 0), out);
}
