/* matmul.c - int8 BATCH_MATMUL of two activations, bit-exact with TFLite
   Micro (batch_matmul.cc, reference_ops::BatchMatMul<int8_t, int32_t>):
   the int32 sum of (lhs - lhs_zp) * (rhs - rhs_zp), MultiplyByQuantizedMultiplier,
   + out_zp, clamped. */

static HTC__UNUSED void htc__matmul_s8(const htc__matmul_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out)
{
    int32_t b0, b1, b2, b3, i, j, k;
    for (b0 = 0; b0 < p->batch[0]; b0++)
        for (b1 = 0; b1 < p->batch[1]; b1++)
            for (b2 = 0; b2 < p->batch[2]; b2++)
                for (b3 = 0; b3 < p->batch[3]; b3++) {
                    const int8_t *l = lhs + HTC__CAST(size_t, b0 * p->lhs_bstride[0] + b1 * p->lhs_bstride[1] +
                                                              b2 * p->lhs_bstride[2] + b3 * p->lhs_bstride[3]);
                    const int8_t *r = rhs + HTC__CAST(size_t, b0 * p->rhs_bstride[0] + b1 * p->rhs_bstride[1] +
                                                              b2 * p->rhs_bstride[2] + b3 * p->rhs_bstride[3]);
                    for (i = 0; i < p->m; i++)
                        for (j = 0; j < p->n; j++) {
                            int32_t acc = 0;
                            for (k = 0; k < p->k; k++)
                                acc += (l[i * p->lhs_rs + k * p->lhs_cs] - p->lhs_zp) *
                                       (r[k * p->rhs_rs + j * p->rhs_cs] - p->rhs_zp);
                            *out++ = HTC__CAST(int8_t, htc__clamp(htc__mulq(acc, p->mult, p->shift) + p->out_zp,
                                                                  p->act_min, p->act_max));
                        }
                }
}
