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

/* reference_ops::CumSum<float> (a float island: the converter leaves CUMSUM
   in float between DEQUANTIZE and QUANTIZE): float additions in TFLM's order */
static HTC__UNUSED void htc__cumsum_f32(const htc__addn_params *p, const float *in, float *out)
{
    int32_t a, b, k;
    int excl = p->mode & 1, rev = (p->mode >> 1) & 1;
    for (a = 0; a < p->pre; a++) {
        for (b = 0; b < p->post; b++) {
            float acc = 0.0f;
            for (k = 0; k < p->depth; k++) {
                int32_t kk = rev ? p->depth - 1 - k : k;
                size_t ix = (HTC__CAST(size_t, a) * HTC__CAST(size_t, p->depth) + HTC__CAST(size_t, kk)) * HTC__CAST(size_t, p->post) + HTC__CAST(size_t, b);
                if (excl) {
                    out[ix] = acc;
                    acc += in[ix];
                } else {
                    acc += in[ix];
                    out[ix] = acc;
                }
            }
        }
    }
}

/* TFLite's SaturatingRoundingMultiplyByPOTParam for exponents >= 0: x * 2^e
   saturated (x may be negative) */
static inline int32_t htc__srmpot(int32_t x, int e)
{
    int32_t thr;
    if (e == 0) return x;
    thr = HTC__CAST(int32_t, (HTC__CAST(int64_t, 1) << (31 - e)) - 1);
    if (x > thr) return INT32_MAX;
    if (x < -thr) return INT32_MIN;
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, x) << e);
}

static inline int32_t htc__sat32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : (v < INT32_MIN ? INT32_MIN : HTC__CAST(int32_t, v));
}

static inline int32_t htc__wrap_add(int32_t a, int32_t b)
{
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, a) + HTC__CAST(uint32_t, b));
}

/* log_x_for_x_greater_than_or_equal_to_1_impl<5, 12> (TFLite common.h):
   log of a Q12.19 value >= 1 as Q5.26, gemmlowp fixed point (accumulator
   Q6.25) */
static inline int32_t htc__log_q12_to_q5(int32_t z_a)
{
    const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
    const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
    const int32_t shifted_quarter = htc__rdivpot(536870912, 6);
    int ha = htc__clz32(HTC__CAST(uint32_t, z_a)), hb;
    int32_t r_a_tmp = htc__srmpot(z_a, ha - 1);
    int32_t r_a = htc__srmpot(htc__srdhm(r_a_tmp, sqrt_half), 1);
    int32_t za_adj = htc__sat32(HTC__CAST(int64_t, htc__srmpot(12 - ha, 25)) + shifted_quarter);
    int32_t z_b = htc__srdhm(z_a, sqrt_half), r_b, zb_adj, r, zpow, p, q, csq, num, den, rd, num_s, acc;
    hb = htc__clz32(HTC__CAST(uint32_t, z_b)) - 1;
    r_b = htc__srmpot(z_a, hb);
    zb_adj = htc__sat32(HTC__CAST(int64_t, htc__srmpot(12 - hb, 25)) - shifted_quarter);
    r = r_a < r_b ? r_a : r_b;
    zpow = za_adj > zb_adj ? za_adj : zb_adj;
    p = htc__rhalfsum(r, sqrt_sqrt_half);
    q = htc__wrap_add(r, -sqrt_sqrt_half);
    q = htc__wrap_add(q, q);
    csq = htc__srdhm(q, q);
    num = htc__wrap_add(htc__srdhm(q, r), htc__srdhm(htc__srdhm(q, csq), alpha_n));
    den = htc__wrap_add(htc__srdhm(p, htc__wrap_add(htc__wrap_add(alpha_i, q), htc__srdhm(alpha_d, csq))),
                        htc__srdhm(alpha_f, q));
    rd = htc__one_over_one_plus_x(den);
    num_s = htc__rdivpot(num, 6);
    acc = htc__wrap_add(htc__srdhm(zpow, log_2), htc__srdhm(num_s, rd));
    return htc__sat_shl(acc, 1);
}

/* reference_ops::LogSoftmaxQuantized<int8_t> */
static HTC__UNUSED void htc__log_softmax_s8(const htc__logsm_params *p, const int8_t *in, int8_t *out)
{
    int32_t o, k;
    for (o = 0; o < p->outer; o++) {
        const int8_t *x = in + HTC__CAST(size_t, o) * HTC__CAST(size_t, p->depth);
        int8_t *y = out + HTC__CAST(size_t, o) * HTC__CAST(size_t, p->depth);
        int32_t mx = -128, sum = 0, logsum, adj, lim;
        for (k = 0; k < p->depth; k++) mx = x[k] > mx ? x[k] : mx;
        for (k = 0; k < p->depth; k++) {
            int32_t d = x[k] - mx;
            if (d >= p->diff_min)
                sum = htc__wrap_add(sum, htc__rdivpot(htc__exp_neg(htc__mulq(d, p->mult, p->left_shift), 5), 12));
        }
        logsum = htc__log_q12_to_q5(sum);
        adj = htc__mulq(htc__wrap_add(logsum, INT32_MIN), p->rev_mult, p->rev_shift);
        lim = p->diff_min - 1 > adj ? p->diff_min - 1 : adj;
        for (k = 0; k < p->depth; k++) {
            int32_t d = x[k] - mx;
            if (d > lim) {
                int32_t v = htc__rdivpot(htc__mulq(d, p->mult, p->left_shift) - logsum, 22) + 127;
                y[k] = HTC__CAST(int8_t, v > 127 ? 127 : (v < -128 ? -128 : v));
            } else {
                y[k] = -128;
            }
        }
    }
}

/* CountLeadingSignBits of an int32 (__builtin_clrsb; 31 for 0) */
static inline int htc__clrsb32(int32_t x)
{
    return htc__clz32(HTC__CAST(uint32_t, x < 0 ? ~x : x)) - 1;
}

/* DIV int8 (div.h DivElementwise): the quotient (x - x_zp) / (y - y_zp)
   times the output multiplier, rounded half away from zero. div.h reaches
   it through gemmlowp's reciprocal of the divisor and a final
   RoundingDivideByPOT by e = recip_shift + headroom - out_shift bits; the
   tflite-micro interpreter's results equal the exactly rounded quotient
   whenever e < 32, computed here in 64-bit integers. For e >= 32 (small
   dividends) div.h's shifts are undefined in C; the interpreter's x86
   results are reproduced: the 64-bit mask (1 << e) - 1 truncated to 32
   bits, the 32-bit arithmetic shift by e mod 32. */
static inline int8_t htc__div1(const htc__div_params *p, int32_t a, int32_t b)
{
    int32_t x = p->a_offset + a, y = p->b_offset + b, res;
    int lz, rs, head, e;
    if (y < 0) {
        x = -x;
        y = -y;
    }
    lz = htc__clz32(HTC__CAST(uint32_t, y));
    rs = 31 - lz;
    head = htc__clrsb32(x);
    e = rs + head - p->out_shift;
    if (e < 32 && y != 0) {
        int64_t n = HTC__CAST(int64_t, x) * p->out_mult;
        int64_t d = HTC__CAST(int64_t, y) << (31 - p->out_shift);
        int64_t q = n >= 0 ? (2 * n + d) / (2 * d) : -((-2 * n + d) / (2 * d));
        res = HTC__CAST(int32_t, q > 255 ? 255 : (q < -256 ? -256 : q));
    } else {                            /* (y == 0: division by the zero point, undefined in TFLM) */
        uint32_t sh = lz < 32 ? HTC__CAST(uint32_t, y) << lz : 0u;
        int32_t inv = htc__one_over_one_plus_x(HTC__CAST(int32_t, sh - 0x80000000u));
        int32_t q = htc__srdhm(HTC__CAST(int32_t, HTC__CAST(uint32_t, x) << head), inv);
        int32_t v = htc__srdhm(q, p->out_mult), mask, thr;
        e = e < 0 ? 0 : (e > 63 ? 63 : e);
        mask = HTC__CAST(int32_t, HTC__CAST(uint32_t, (HTC__CAST(uint64_t, 1) << e) - 1u));
        thr = (mask >> 1) + (v < 0 ? 1 : 0);
        res = (v >> (e & 31)) + ((v & mask) > thr ? 1 : 0);
    }
    res = p->out_zp + res;
    return HTC__CAST(int8_t, htc__clamp(res, p->act_min, p->act_max));
}

static HTC__UNUSED void htc__div_s8(const htc__div_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    int32_t idx[6] = {0, 0, 0, 0, 0, 0};
    size_t ia = 0, ib = 0, i, n = 1;
    int d;
    for (d = 0; d < 6; d++) n *= HTC__CAST(size_t, p->out_shape[d]);
    for (i = 0; i < n; i++) {
        out[i] = htc__div1(p, a[ia], b[ib]);
        for (d = 5; d >= 0; d--) {
            ia += HTC__CAST(size_t, p->a_stride[d]);
            ib += HTC__CAST(size_t, p->b_stride[d]);
            if (++idx[d] < p->out_shape[d]) break;
            ia -= HTC__CAST(size_t, p->a_stride[d]) * HTC__CAST(size_t, p->out_shape[d]);
            ib -= HTC__CAST(size_t, p->b_stride[d]) * HTC__CAST(size_t, p->out_shape[d]);
            idx[d] = 0;
        }
    }
}
