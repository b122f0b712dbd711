/* softmax.c - int8 SOFTMAX over the last dimension, output int8 (scale 1/256,
   zp -128) or int16 (scale 1/65536, zp -32768). Bit-exact with TFLite
   reference_ops::Softmax (gemmlowp fixed point). */

/* Per row: diff = x - max; entries with diff < diff_min contribute nothing
   and output -128. Otherwise diff * beta is rescaled to Q5.26, exponentiated
   with gemmlowp's exp_on_negative_values, summed in Q12.19, and each output
   is exp * (1 / sum) rounded by 2^(bits_over_unit + 23), offset by -128. */

static HTC__UNUSED int32_t htc__softmax_exp(const htc__softmax_params *p, int32_t diff)
{
    /* the compile-time table (gen/quant.c quant_softmax_exp_table): the same values */
    if (-diff < p->n_exp) return p->exp_tab[-diff];
    /* MultiplyByQuantizedMultiplierGreaterThanOne: shift >= 0 */
    const int32_t scaled = htc__srdhm(HTC__CAST(int32_t, HTC__CAST(uint32_t, diff) << p->input_left_shift), p->input_multiplier);
    return htc__exp_neg(scaled, 5);
}

/* One row loop for both output types: out8 (scale 1/256, offset -128) or
   out16 (TFLM's int8 -> int16 softmax: scale 1/65536, offset -32768, the
   same reference_ops::Softmax with OutputT = int16_t, exponent
   bits_over_unit + 31 - 16). */
static HTC__UNUSED void htc__softmax_row8(const htc__softmax_params *p, const int8_t *in, int8_t *out8,
                                                    int16_t *out16)
{
    const int32_t depth = p->depth, diff_min = p->diff_min;
    const int32_t lo = out16 ? -32768 : -128, hi = out16 ? 32767 : 127;
    int32_t c, mx = -128, sum = 0, headroom, bits_over_unit, scale, expo;
    for (c = 0; c < depth; c++) mx = in[c] > mx ? in[c] : mx;
    for (c = 0; c < depth; c++) {
        const int32_t diff = in[c] - mx;
        if (diff >= diff_min) sum += htc__rdivpot(htc__softmax_exp(p, diff), 12);  /* Q0 -> Q12 */
    }
    /* GetReciprocal(sum, 12): 1 / sum via one_over_one_plus_x */
    headroom = htc__clz32(HTC__CAST(uint32_t, sum));
    bits_over_unit = 12 - headroom;
    scale = htc__one_over_one_plus_x(HTC__CAST(int32_t, (HTC__CAST(uint32_t, sum) << headroom) - 0x80000000u));
    expo = bits_over_unit + 31 - (out16 ? 16 : 8);
    /* An int8 row whose sum of exponentials reaches 512 (>= 512 entries
       near the maximum) has expo >= 32: TFLite's RoundingDivideByPOT then
       shifts an int32 by 32 or more, undefined in C++ (TFLite Micro gives
       127 on x86, where the shift count wraps, and -127 on Arm). The
       quotient itself, exp / sum / 2^expo with exp / sum < 2^31, is below
       1/2 and rounds to 0: every output is the offset, -128, the nearest
       int8 to a probability below 1/512 (the row's outputs are all -128). */
    for (c = 0; c < depth; c++) {
        const int32_t diff = in[c] - mx;
        int32_t v = lo;
        if (diff >= diff_min && expo <= 31) {
            v = htc__rdivpot(htc__srdhm(scale, htc__softmax_exp(p, diff)), expo) + lo;
            v = v > hi ? hi : (v < lo ? lo : v);
        }
        if (out16)
            out16[c] = HTC__CAST(int16_t, v);
        else
            out8[c] = HTC__CAST(int8_t, v);
    }
}

#ifdef HTC__MVE
/* Helium path: the same arithmetic on four lanes. SaturatingRounding-
   DoublingHighMul is VQRDMULH; RoundingDivideByPOT is htc__mve_rq's VRSHL
   with the negative fix-up (htc__mve_rdiv); gemmlowp's SelectUsingMask is
   VPSEL on a compare. Rows whose output exponent exceeds 31 (sums of more
   than 2^28 / 2^19 entries near the maximum) take the scalar loop. */

/* x / 2^e rounded half away from zero, r = -e (<= 0) */
static HTC__INLINE int32x4_t htc__mve_rdiv(int32x4_t x, int32x4_t r)
{
    return vrshlq_s32(vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, r), 31)), r);
}

/* htc__exp_quarter_q0 */
static HTC__INLINE int32x4_t htc__mve_exp_quarter(int32x4_t a)
{
    const int32_t c_exp_m1_8 = 1895147668, c_1_3 = 715827883;
    const int32x4_t x = vaddq_n_s32(a, HTC__CAST(int32_t, 1) << 28);
    const int32x4_t x2 = vqrdmulhq_s32(x, x), x3 = vqrdmulhq_s32(x2, x), x4 = vqrdmulhq_s32(x2, x2);
    const int32x4_t x4_4 = htc__mve_rdiv(x4, vdupq_n_s32(-2));
    const int32x4_t poly = htc__mve_rdiv(vaddq_s32(vqrdmulhq_n_s32(vaddq_s32(x4_4, x3), c_1_3), x2), vdupq_n_s32(-1));
    return vaddq_n_s32(vqrdmulhq_n_s32(vaddq_s32(x, poly), c_exp_m1_8), c_exp_m1_8);
}

/* htc__softmax_exp on four diffs (x - max) */
static HTC__INLINE int32x4_t htc__mve_softmax_exp(const htc__softmax_params *p, int32x4_t diff)
{
    const int32x4_t a = vqrdmulhq_n_s32(vshlq_r_s32(diff, p->input_left_shift), p->input_multiplier);
    const int32_t quarter = HTC__CAST(int32_t, 1) << 24;       /* Q5.26 */
    const int32x4_t amq = vsubq_n_s32(vandq_s32(a, vdupq_n_s32(quarter - 1)), quarter);
    const int32x4_t rem = vsubq_s32(amq, a);
    int32x4_t r = htc__mve_exp_quarter(vqshlq_n_s32(amq, 5));
    /* barrel shifter: times exp(-2^(K-2)) where bit 24 + K of rem is set (shifted to the sign) */
#define HTC__MVE_EXP_BIT(K, M) r = vpselq_s32(vqrdmulhq_n_s32(r, M), r, vcmpltq_n_s32(vshlq_n_s32(rem, 7 - (K)), 0))
    HTC__MVE_EXP_BIT(0, 1672461947);
    HTC__MVE_EXP_BIT(1, 1302514674);
    HTC__MVE_EXP_BIT(2, 790015084);
    HTC__MVE_EXP_BIT(3, 290630308);
    HTC__MVE_EXP_BIT(4, 39332535);
    HTC__MVE_EXP_BIT(5, 720401);
    HTC__MVE_EXP_BIT(6, 242);
#undef HTC__MVE_EXP_BIT
    return vpselq_s32(vdupq_n_s32(INT32_MAX), r, vcmpeqq_n_s32(a, 0));
}

/* htc__softmax_row8; 0 when the row needs the scalar loop */
static HTC__NOINLINE int htc__softmax_row_mve(const htc__softmax_params *p, const int8_t *in, int8_t *out8, int16_t *out16)
{
    const int32_t depth = p->depth, diff_min = p->diff_min;
    const int32_t lo = out16 ? -32768 : -128, hi = out16 ? 32767 : 127;
    int32_t c, mx = -128, sum = 0, headroom, scale, expo;
    for (c = 0; c < depth; c += 16)
        mx = vmaxvq_p_s8(HTC__CAST(int8_t, mx), vldrbq_z_s8(in + c, vctp8q(HTC__CAST(uint32_t, depth - c))),
                         vctp8q(HTC__CAST(uint32_t, depth - c)));
    for (c = 0; c < depth; c += 4) {
        const mve_pred16_t pr = vctp32q(HTC__CAST(uint32_t, depth - c));
        const int32x4_t diff = vsubq_n_s32(vldrbq_z_s32(in + c, pr), mx);
        const int32x4_t e = htc__mve_rdiv(htc__mve_softmax_exp(p, diff), vdupq_n_s32(-12));
        sum = vaddvaq_p_s32(sum, e, vcmpgeq_m_n_s32(diff, diff_min, pr));
    }
    headroom = htc__clz32(HTC__CAST(uint32_t, sum));
    expo = 12 - headroom + 31 - (out16 ? 16 : 8);
    if (expo > 31) return 0;
    scale = htc__one_over_one_plus_x(HTC__CAST(int32_t, (HTC__CAST(uint32_t, sum) << headroom) - 0x80000000u));
    for (c = 0; c < depth; c += 4) {
        const mve_pred16_t pr = vctp32q(HTC__CAST(uint32_t, depth - c));
        const int32x4_t diff = vsubq_n_s32(vldrbq_z_s32(in + c, pr), mx);
        int32x4_t v = htc__mve_rdiv(vqrdmulhq_n_s32(htc__mve_softmax_exp(p, diff), scale), vdupq_n_s32(-expo));
        v = vminq_s32(vmaxq_s32(vaddq_n_s32(v, lo), vdupq_n_s32(lo)), vdupq_n_s32(hi));
        v = vpselq_s32(v, vdupq_n_s32(lo), vcmpgeq_n_s32(diff, diff_min));
        if (out16)
            vstrhq_p_s32(out16 + c, v, pr);
        else
            vstrbq_p_s32(out8 + c, v, pr);
    }
    return 1;
}
#endif

static HTC__NOINLINE HTC__UNUSED void htc__softmax_s8(const htc__softmax_params *p, const int8_t *in, int8_t *out);

/* Multi-core (htc.h HTC_PAR_RUN): core's rows; split is rows. */
static HTC__UNUSED void htc__softmax_s8_par(const htc__softmax_params *p, const int8_t *in, int8_t *out, int split, int core,
                                            int ncores)
{
    htc__softmax_params v = *p;
    int32_t lo, hi;
    (void)split;
    htc__share(p->outer, core, ncores, &lo, &hi);
    if (hi <= lo) return;
    v.outer = hi - lo;
    htc__softmax_s8(&v, in + HTC__CAST(size_t, lo) * p->depth, out + HTC__CAST(size_t, lo) * p->depth);
}

static HTC__NOINLINE HTC__UNUSED void htc__softmax_s8(const htc__softmax_params *p, const int8_t *in, int8_t *out)
{
    int32_t r;
    for (r = 0; r < p->outer; r++, in += p->depth, out += p->depth) {
#ifdef HTC__MVE
        if (htc__softmax_row_mve(p, in, out, 0)) continue;
#endif
        htc__softmax_row8(p, in, out, 0);
    }
}

static HTC__NOINLINE HTC__COLD HTC__UNUSED void htc__softmax_s8_s16(const htc__softmax_params *p, const int8_t *in,
                                                                     int16_t *out)
{
    int32_t r;
    for (r = 0; r < p->outer; r++, in += p->depth, out += p->depth) {
#ifdef HTC__MVE
        if (htc__softmax_row_mve(p, in, 0, out)) continue;
#endif
        htc__softmax_row8(p, in, 0, out);
    }
}
