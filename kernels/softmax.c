/* softmax.c - int8 SOFTMAX over the last dimension, output int8 (scale 1/256,
   zp -128) or int16 (scale 1/65536, zp -32768). Bit-exact with TFLite
   reference_ops::Softmax (gemmlowp fixed point). */

/* Per row: diff = x - max; entries with diff < diff_min contribute nothing
   and output -128. Otherwise diff * beta is rescaled to Q5.26, exponentiated
   with gemmlowp's exp_on_negative_values, summed in Q12.19, and each output
   is exp * (1 / sum) rounded by 2^(bits_over_unit + 23), offset by -128. */

static HTC__UNUSED HTC__COLD int32_t htc__softmax_exp(const htc__softmax_params *p, int32_t diff)
{
    /* MultiplyByQuantizedMultiplierGreaterThanOne: shift >= 0 */
    const int32_t scaled = htc__srdhm(HTC__CAST(int32_t, HTC__CAST(uint32_t, diff) << p->input_left_shift), p->input_multiplier);
    return htc__exp_neg(scaled, 5);
}

/* One row loop for both output types: out8 (scale 1/256, offset -128) or
   out16 (TFLM's int8 -> int16 softmax: scale 1/65536, offset -32768, the
   same reference_ops::Softmax with OutputT = int16_t, exponent
   bits_over_unit + 31 - 16). */
static HTC__UNUSED HTC__COLD void htc__softmax_row8(const htc__softmax_params *p, const int8_t *in, int8_t *out8,
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
    for (c = 0; c < depth; c++) {
        const int32_t diff = in[c] - mx;
        int32_t v = lo;
        if (diff >= diff_min) {
            v = htc__rdivpot(htc__srdhm(scale, htc__softmax_exp(p, diff)), expo) + lo;
            v = v > hi ? hi : (v < lo ? lo : v);
        }
        if (out16)
            out16[c] = HTC__CAST(int16_t, v);
        else
            out8[c] = HTC__CAST(int8_t, v);
    }
}

static HTC__NOINLINE HTC__COLD HTC__UNUSED void htc__softmax_s8(const htc__softmax_params *p, const int8_t *in, int8_t *out);

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

static HTC__NOINLINE HTC__COLD HTC__UNUSED void htc__softmax_s8(const htc__softmax_params *p, const int8_t *in, int8_t *out)
{
    int32_t r;
    for (r = 0; r < p->outer; r++, in += p->depth, out += p->depth) htc__softmax_row8(p, in, out, 0);
}

static HTC__NOINLINE HTC__COLD HTC__UNUSED void htc__softmax_s8_s16(const htc__softmax_params *p, const int8_t *in,
                                                                     int16_t *out)
{
    int32_t r;
    for (r = 0; r < p->outer; r++, in += p->depth, out += p->depth) htc__softmax_row8(p, in, 0, out);
}
