/* qlib_matmul.c - QuantLib's integer MatMul / Gemm, batched with broadcast,
   the second operand transposed (rows of k), RequantShift as its epilogue. */

static HTC__UNUSED void htc__ql_matmul(const htc__ql_matmul_params *p, const void *const *ins, void *out)
{
    const int8_t *a = HTC__CAST(const int8_t *, ins[0]);
    const int8_t *bm = HTC__CAST(const int8_t *, ins[1]);
    const int32_t *bias = HTC__CAST(const int32_t *, ins[2]);
    const int32_t *mul = HTC__CAST(const int32_t *, ins[3]);
    const int32_t *add = HTC__CAST(const int32_t *, ins[4]);
    int8_t *y8 = HTC__CAST(int8_t *, out);
    int32_t *y32 = HTC__CAST(int32_t *, out);
    int32_t bt, i, j, k;
    size_t o = 0;
    for (bt = 0; bt < p->batches; bt++) {
        const int8_t *ab = a + HTC__CAST(size_t, bt) * HTC__CAST(size_t, p->a_bstride);
        const int8_t *bb = bm + HTC__CAST(size_t, bt) * HTC__CAST(size_t, p->b_bstride);
        for (i = 0; i < p->m; i++) {
            const int8_t *ar = ab + HTC__CAST(size_t, i) * HTC__CAST(size_t, p->k);
            for (j = 0; j < p->n; j++, o++) {
                const int8_t *br = bb + HTC__CAST(size_t, j) * HTC__CAST(size_t, p->k);
                int32_t acc = 0;
                if (p->a_off == 0 && p->b_off == 0)
                    for (k = 0; k < p->k; k++) acc += ar[k] * br[k];
                else
                    for (k = 0; k < p->k; k++) acc += (ar[k] + p->a_off) * (br[k] + p->b_off);
                acc *= p->alpha;
                if (p->bias_mode == 1) acc += bias[j];
                else if (p->bias_mode == 2) acc += bias[i * p->n + j];
                if (p->rq) {
                    const int32_t c = p->rq_mode == 1 ? j : p->rq_mode == 2 ? i : 0;
                    y8[o] = HTC__CAST(int8_t, htc__ql_rq(acc, mul[c], add[c], p->shift, p->lo, p->hi) - p->out_off);
                } else {
                    y32[o] = acc;
                }
            }
        }
    }
}
