/* arith8.c - int8 ADD_N and CUMSUM, bit-exact with TFLite Micro's
   reference kernels (add_n.h, cumsum.h). */

/* MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0) */
static inline int32_t htc__mq_lt1(int32_t x, int32_t m, int32_t shift)
{
    return htc__rdivpot(htc__srdhm(x, m), -shift);
}

/* an input value shifted left and scaled to the common scale */
static inline int32_t htc__an_scale(const htc__addn_params *p, int32_t v)
{
    return htc__mq_lt1(HTC__CAST(int32_t, HTC__CAST(uint32_t, p->in_offset + v) << p->left_shift), p->in_mult, p->in_shift);
}

static inline int8_t htc__an_out(const htc__addn_params *p, int32_t acc)
{
    return HTC__CAST(int8_t, htc__clamp(htc__mq_lt1(acc, p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max));
}

/* reference_ops::AddN<int8>: the sum starts from the scaled input offset */
static HTC__UNUSED void htc__add_n_s8(const htc__addn_params *p, const int8_t *const *ins, int8_t *out)
{
    int32_t i, j, base = htc__an_scale(p, 0);
    for (i = 0; i < p->n; i++) {
        int32_t acc = base;
        for (j = 0; j < p->ninputs; j++) acc += htc__an_scale(p, ins[j][i]);
        out[i] = htc__an_out(p, acc);
    }
}

/* reference_ops::CumSum<int8> over [pre][depth][post], exclusive / reverse */
static HTC__UNUSED void htc__cumsum_s8(const htc__addn_params *p, const int8_t *in, int8_t *out)
{
    int32_t a, b, k, base = htc__an_scale(p, 0);
    int excl = p->mode & 1, rev = (p->mode >> 1) & 1;
    for (a = 0; a < p->pre; a++) {
        for (b = 0; b < p->post; b++) {
            int32_t acc = base;
            for (k = 0; k < p->depth; k++) {
                int32_t kk = rev ? p->depth - 1 - k : k;
                size_t ix = (HTC__CAST(size_t, a) * HTC__CAST(size_t, p->depth) + HTC__CAST(size_t, kk)) * HTC__CAST(size_t, p->post) + HTC__CAST(size_t, b);
                int32_t y = htc__an_scale(p, in[ix]), o;
                if (excl) {
                    o = acc;
                    acc += y;
                } else {
                    acc += y;
                    o = acc;
                }
                out[ix] = htc__an_out(p, o);
            }
        }
    }
}
