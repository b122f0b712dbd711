/* matmul_s16.c - 16x8 BATCH_MATMUL (two int16 activations), bit-exact with
   TFLite Micro's reference_ops::BatchMatMul<int16_t, int64_t>. */

/* out[b][i][j] = clamp(mulq64(sum_k lhs[b][i][k] * rhs[b][k][j])): the sum
   in int64 (zero points are 0), TFLite's 64-bit MultiplyByQuantizedMultiplier;
   the operands' strides as in htc__matmul_params (adj_x / adj_y, broadcast
   batch dimensions with stride 0). */
static HTC__UNUSED void htc__matmul_s16(const htc__matmul_params *p, const int16_t *lhs, const int16_t *rhs, int16_t *out)
{
    int32_t b0, b1, b2, b3, i, j, k;
    for (b0 = 0; b0 < p->batch[0]; b0++)
        for (b1 = 0; b1 < p->batch[1]; b1++)
            for (b2 = 0; b2 < p->batch[2]; b2++)
                for (b3 = 0; b3 < p->batch[3]; b3++) {
                    const int16_t *a = lhs + HTC__CAST(size_t, b0) * p->lhs_bstride[0] + HTC__CAST(size_t, b1) * p->lhs_bstride[1] +
                                       HTC__CAST(size_t, b2) * p->lhs_bstride[2] + HTC__CAST(size_t, b3) * p->lhs_bstride[3];
                    const int16_t *w = rhs + HTC__CAST(size_t, b0) * p->rhs_bstride[0] + HTC__CAST(size_t, b1) * p->rhs_bstride[1] +
                                       HTC__CAST(size_t, b2) * p->rhs_bstride[2] + HTC__CAST(size_t, b3) * p->rhs_bstride[3];
                    for (i = 0; i < p->m; i++)
                        for (j = 0; j < p->n; j++) {
                            const int16_t *x = a + HTC__CAST(size_t, i) * p->lhs_rs, *y = w + HTC__CAST(size_t, j) * p->rhs_cs;
                            int64_t acc = 0;
                            for (k = 0; k < p->k; k++)
                                acc += HTC__CAST(int32_t, x[HTC__CAST(size_t, k) * p->lhs_cs]) * y[HTC__CAST(size_t, k) * p->rhs_rs];
                            *out++ = HTC__CAST(int16_t, htc__clamp(htc__mulq64(acc, p->mult, p->shift), p->act_min, p->act_max));
                        }
                }
}
