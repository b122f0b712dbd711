/* test_kernels.c - unit tests of the fixed-point helpers (htc.h), the
   Prepare arithmetic (gen/quant.c) and small kernel cases, against values
   worked out by hand from TFLite's and gemmlowp's definitions. Bit-exactness
   against the interpreter itself is tested end to end (tests/test_ops.py). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../gen/quant.h"

#include "../../kernels/conv2d.c"
#include "../../kernels/fc.c"
#include "../../kernels/add.c"
#include "../../kernels/mul.c"
#include "../../kernels/pool.c"
#include "../../kernels/mean.c"
#include "../../kernels/pad.c"
#include "../../kernels/concat.c"
#include "../../kernels/softmax.c"
#include "../../kernels/table.c"
#include "../../kernels/quantize.c"
#include "../../kernels/ort_eltwise.c"
#include "../../kernels/qlib_eltwise.c"

static int npass, nfail;

#define EQ(what, got, want)                                                                        \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        if (g_ == w_) npass++;                                                                     \
        else { nfail++; printf("FAIL %s:%d %s: got %lld, want %lld\n", __FILE__, __LINE__, what, g_, w_); } \
    } while (0)

#define NEAR(what, got, want, tol)                                                                 \
    do {                                                                                           \
        double g_ = (double)(got), w_ = (double)(want);                                            \
        if (fabs(g_ - w_) <= (tol)) npass++;                                                       \
        else { nfail++; printf("FAIL %s:%d %s: got %.1f, want %.1f +- %g\n", __FILE__, __LINE__, what, g_, w_, (double)(tol)); } \
    } while (0)

static void test_srdhm(void)
{
    EQ("srdhm min*min saturates", htc__srdhm(INT32_MIN, INT32_MIN), INT32_MAX);
    EQ("srdhm min*max", htc__srdhm(INT32_MIN, INT32_MAX), -INT32_MAX);
    EQ("srdhm 2^30*2^30", htc__srdhm(1 << 30, 1 << 30), 1 << 29);
    EQ("srdhm +0.5 rounds up", htc__srdhm(1, 1 << 30), 1);
    EQ("srdhm -0.5 rounds up (to 0)", htc__srdhm(-1, 1 << 30), 0);
    EQ("srdhm -1.5 rounds up (to -1)", htc__srdhm(-3, 1 << 30), -1);
    EQ("srdhm +1.5 rounds up (to 2)", htc__srdhm(3, 1 << 30), 2);
    EQ("srdhm x*0", htc__srdhm(123456, 0), 0);
    EQ("srdhm x*max", htc__srdhm(1000, INT32_MAX), 1000);
}

static void test_rdivpot(void)
{
    EQ("rdivpot 5/2", htc__rdivpot(5, 1), 3);
    EQ("rdivpot -5/2 away from zero", htc__rdivpot(-5, 1), -3);
    EQ("rdivpot -4/2", htc__rdivpot(-4, 1), -2);
    EQ("rdivpot 6/4", htc__rdivpot(6, 2), 2);
    EQ("rdivpot -6/4", htc__rdivpot(-6, 2), -2);
    EQ("rdivpot -5/4", htc__rdivpot(-5, 2), -1);
    EQ("rdivpot -7/4", htc__rdivpot(-7, 2), -2);
    EQ("rdivpot exponent 0", htc__rdivpot(-3, 0), -3);
    EQ("rdivpot min >> 31", htc__rdivpot(INT32_MIN, 31), -1);
    EQ("rdivpot max >> 31", htc__rdivpot(INT32_MAX, 31), 1);
    EQ("rdivpot 2^30 >> 31", htc__rdivpot(1 << 30, 31), 1);
    EQ("rdivpot 2^30-1 >> 31", htc__rdivpot((1 << 30) - 1, 31), 0);
    EQ("rdivpot -2^30 >> 31", htc__rdivpot(-(1 << 30), 31), -1);
}

static void test_mulq(void)
{
    EQ("mulq x*0.5", htc__mulq(100, 1 << 30, 0), 50);
    EQ("mulq x*1.0 (shift 1)", htc__mulq(100, 1 << 30, 1), 100);
    EQ("mulq x*2^10", htc__mulq(3, 1 << 30, 11), 3 << 10);
    EQ("mulq min*min saturates", htc__mulq(INT32_MIN, INT32_MIN, 0), INT32_MAX);
    /* double rounding: 5 * 0.25 = 1.25; srdhm gives 2.5 -> 3, then 3/2 -> 2 */
    EQ("mulq double rounding +", htc__mulq(5, 1 << 30, -1), 2);
    /* -5 * 0.25: srdhm -2.5 -> -2 (half up), then -2/2 -> -1 */
    EQ("mulq double rounding -", htc__mulq(-5, 1 << 30, -1), -1);
    EQ("mulq -3*0.25", htc__mulq(-3, 1 << 30, -1), -1);
    EQ("mulq shift -31", htc__mulq(INT32_MAX, INT32_MAX, -31), 1);
    EQ("mulq shift -31 small", htc__mulq(1 << 29, 1 << 30, -31), 0);
    EQ("mulq negative acc", htc__mulq(-1000, 1518500250, -3), -88);   /* -1000*0.70710678/8 = -88.39 */
    EQ("mulq zero multiplier", htc__mulq(77777, 0, 0), 0);
}

static void test_quant_multiplier(void)
{
    int32_t m;
    int s;
    quant_multiplier(0.0, &m, &s);
    EQ("qm(0) mult", m, 0); EQ("qm(0) shift", s, 0);
    quant_multiplier(0.5, &m, &s);
    EQ("qm(0.5) mult", m, 1 << 30); EQ("qm(0.5) shift", s, 0);
    quant_multiplier(1.0, &m, &s);
    EQ("qm(1) mult", m, 1 << 30); EQ("qm(1) shift", s, 1);
    quant_multiplier(0.75, &m, &s);
    EQ("qm(0.75) mult", m, 3 << 29); EQ("qm(0.75) shift", s, 0);
    quant_multiplier(3.0, &m, &s);
    EQ("qm(3) mult", m, 3 << 29); EQ("qm(3) shift", s, 2);
    quant_multiplier(ldexp(1.0, -31), &m, &s);
    EQ("qm(2^-31) mult", m, 1 << 30); EQ("qm(2^-31) shift", s, -30);
    quant_multiplier(ldexp(1.0, -32), &m, &s);
    EQ("qm(2^-32) mult", m, 1 << 30); EQ("qm(2^-32) shift", s, -31);
    quant_multiplier(ldexp(1.0, -33), &m, &s);       /* shift -32 < -31: flushed */
    EQ("qm(2^-33) mult", m, 0); EQ("qm(2^-33) shift", s, 0);
    quant_multiplier(1e-12, &m, &s);
    EQ("qm(tiny) mult", m, 0); EQ("qm(tiny) shift", s, 0);
    /* q * 2^31 rounds up to 2^31: halved, shift + 1 */
    quant_multiplier(1.0 - ldexp(1.0, -33), &m, &s);
    EQ("qm(1-2^-33) mult", m, 1 << 30); EQ("qm(1-2^-33) shift", s, 1);
    quant_multiplier(ldexp(1.0 - ldexp(1.0, -34), -7), &m, &s);
    EQ("qm((1-2^-34)/128) mult", m, 1 << 30); EQ("qm((1-2^-34)/128) shift", s, -6);
    /* just below the edge stays: (2^31 - 1)/2^31 */
    quant_multiplier(1.0 - ldexp(1.0, -31), &m, &s);
    EQ("qm(1-2^-31) mult", m, INT32_MAX); EQ("qm(1-2^-31) shift", s, 0);
    /* rounding half away from zero: q*2^31 = 2^30 + 0.5 */
    quant_multiplier(0.5 + ldexp(1.0, -32), &m, &s);
    EQ("qm half rounds up", m, (1 << 30) + 1); EQ("qm half shift", s, 0);
    quant_multiplier(0.1, &m, &s);
    EQ("qm(0.1) mult", m, 1717986918); EQ("qm(0.1) shift", s, -3);
}

static void test_act_range(void)
{
    int32_t lo, hi;
    quant_act_range(ACT_NONE, 0.1f, 3, -128, 127, &lo, &hi);
    EQ("none lo", lo, -128); EQ("none hi", hi, 127);
    quant_act_range(ACT_RELU, 0.1f, -128, -128, 127, &lo, &hi);
    EQ("relu zp=-128 lo", lo, -128); EQ("relu zp=-128 hi", hi, 127);
    quant_act_range(ACT_RELU, 0.1f, 5, -128, 127, &lo, &hi);
    EQ("relu lo", lo, 5); EQ("relu hi", hi, 127);
    quant_act_range(ACT_RELU6, 0.1f, -20, -128, 127, &lo, &hi);
    EQ("relu6 lo", lo, -20); EQ("relu6 hi", hi, 40);
    quant_act_range(ACT_RELU6, 0.05f, 10, -128, 127, &lo, &hi);
    EQ("relu6 clipped hi", hi, 127);
    quant_act_range(ACT_RELU6, 4.0f, 0, -128, 127, &lo, &hi);      /* 6/4 = 1.5 -> 2 */
    EQ("relu6 half rounds away", hi, 2);
    quant_act_range(ACT_RELU_N1_TO_1, 2.0f, 0, -128, 127, &lo, &hi);   /* +-0.5 -> +-1 */
    EQ("relu1 lo half away", lo, -1); EQ("relu1 hi half away", hi, 1);
    quant_act_range(ACT_RELU_N1_TO_1, 0.01f, 0, -128, 127, &lo, &hi);
    EQ("relu1 lo", lo, -100); EQ("relu1 hi", hi, 100);
    quant_act_range(ACT_RELU6, 0.1f, 200, 0, 255, &lo, &hi);
    EQ("relu6 uint8 lo", lo, 200); EQ("relu6 uint8 hi", hi, 255);
    quant_act_range(ACT_RELU6, 1e-30f, 0, -128, 127, &lo, &hi);   /* 6/scale overflows int32 */
    EQ("relu6 tiny scale hi", hi, 127);
}

static void test_layer_params(void)
{
    htc__binary_params b;
    htc__softmax_params sp;
    htc__mean_params mp;
    int32_t m[2];
    int8_t s[2];
    float w[2] = {0.5f, 0.25f};
    memset(&b, 0, sizeof b);
    quant_add_params(0.5f, 3, 0.25f, -4, 1.0f, 7, &b);
    EQ("add left shift", b.left_shift, 20);
    EQ("add a offset", b.a_offset, -3); EQ("add b offset", b.b_offset, 4); EQ("add out zp", b.out_zp, 7);
    EQ("add a mult (0.5)", b.a_mult, 1 << 30); EQ("add a shift", b.a_shift, 0);
    EQ("add b mult (0.25)", b.b_mult, 1 << 30); EQ("add b shift", b.b_shift, -1);
    EQ("add out mult (2^-20)", b.out_mult, 1 << 30); EQ("add out shift", b.out_shift, -19);
    quant_mul_params(0.5f, 1, 0.25f, 2, 0.5f, 3, &b);
    EQ("mul out mult (0.25)", b.out_mult, 1 << 30); EQ("mul out shift", b.out_shift, -1);
    quant_conv_multipliers(0.5f, w, 2, 0.125f, m, s);
    EQ("conv pc mult 0", m[0], 1 << 30); EQ("conv pc shift 0", s[0], 2);
    EQ("conv pc mult 1", m[1], 1 << 30); EQ("conv pc shift 1", s[1], 1);
    quant_fc_multipliers(0.5f, w, 1, 0.125f, m, s);
    EQ("fc pt mult", m[0], 1 << 30); EQ("fc pt shift", s[0], 2);
    /* softmax: beta * scale * 2^26 = 2^26/16 -> mult 2^30, shift 23; radius
       31 * 2^26 / 2^23 = 248 */
    quant_softmax_params(1.0f, 1.0f / 16, &sp);
    EQ("softmax mult", sp.input_multiplier, 1 << 30); EQ("softmax shift", sp.input_left_shift, 23);
    EQ("softmax diff_min", sp.diff_min, -248);
    quant_softmax_params(1.0f, 100.0f, &sp);                 /* capped at 2^31 - 1 */
    EQ("softmax capped mult", sp.input_multiplier, INT32_MAX); EQ("softmax capped shift", sp.input_left_shift, 31);
    /* CalculateInputRadius(5, 31) = floor(31 * 2^26 / 2^31) = 0 */
    EQ("softmax capped diff_min", sp.diff_min, 0);
    quant_mean_params(0.5f, 3, 0.25f, -2, &mp);
    EQ("mean mult", mp.mult, 1 << 30); EQ("mean shift", mp.shift, 2);
    EQ("mean zps", mp.in_zp * 1000 + mp.out_zp, 2998);
}

static void test_fixedpoint(void)
{
    int32_t prev = INT32_MAX, k;
    int mono = 1;
    EQ("exp(0)", htc__exp_neg(0, 5), INT32_MAX);
    /* gemmlowp's polynomial + barrel shifter is good to ~3e-7 relative */
    NEAR("exp(-1/4)", htc__exp_neg(-(1 << 24), 5), exp(-0.25) * 2147483648.0, 1000);
    NEAR("exp(-1)", htc__exp_neg(-(1 << 26), 5), exp(-1.0) * 2147483648.0, 1000);
    NEAR("exp(-5.3)", htc__exp_neg(-(int32_t)(5.3 * (1 << 26)), 5), exp(-5.3) * 2147483648.0, 1000);
    NEAR("exp(-31.9)", htc__exp_neg(-(int32_t)(31.9 * (1 << 26)), 5), 0, 1);
    NEAR("exp(-1) Q4.27", htc__exp_neg(-(1 << 27), 4), exp(-1.0) * 2147483648.0, 1000);
    /* exact structure: exp(-1/4) is the polynomial alone (value pinned from
       the end-to-end softmax tests); exp(-1) = exp(-1/4) * exp(-1/4) * exp(-1/2)
       through the barrel shifter's constants for bits -2 and -1 */
    EQ("exp(-1/4) exact", htc__exp_neg(-(1 << 24), 5), 1672462419);
    EQ("exp(-1) exact", htc__exp_neg(-(1 << 26), 5),
       htc__srdhm(htc__srdhm(1672462419, 1672461947), 1302514674));
    for (k = 0; k < 2000 && mono; k++) {
        int32_t v = htc__exp_neg(-k * 100003, 5);
        if (v > prev) mono = 0;
        prev = v;
    }
    EQ("exp monotone", mono, 1);
    NEAR("1/(1+0)", htc__one_over_one_plus_x(0), 2147483647.0, 4);
    NEAR("1/(1+1)", htc__one_over_one_plus_x(INT32_MAX), 1073741824.0, 4);
    NEAR("1/(1+0.5)", htc__one_over_one_plus_x(1 << 30), 2147483648.0 / 1.5, 4);
    EQ("clz 0", htc__clz32(0), 32); EQ("clz 1", htc__clz32(1), 31); EQ("clz top", htc__clz32(0x80000000u), 0);
    EQ("sat_shl sat +", htc__sat_shl(1 << 27, 5), INT32_MAX);
    EQ("sat_shl sat -", htc__sat_shl(-(1 << 27), 5), INT32_MIN);
    EQ("sat_shl", htc__sat_shl(-5, 2), -20);
    EQ("halfsum", htc__rhalfsum(3, 4), 4); EQ("halfsum -", htc__rhalfsum(-3, -4), -4);
}

static void test_kernels(void)
{
    /* average pool: rounding half away from zero over the valid taps only */
    {
        const int8_t in[4] = {1, 2, -1, -2};      /* 1x2x2x1 */
        int8_t out[4];
        htc__pool_params p;
        memset(&p, 0, sizeof p);
        p.batches = 1; p.in_h = 2; p.in_w = 2; p.c = 1; p.out_h = 2; p.out_w = 2;
        p.k_h = 1; p.k_w = 2; p.stride_h = 1; p.stride_w = 1; p.pad_left = 0;
        p.act_min = -128; p.act_max = 127;
        p.out_w = 1;
        htc__avgpool_s8(&p, in, out);
        EQ("avg (1+2)/2", out[0], 2); EQ("avg (-1-2)/2", out[1], -2);
        p.k_h = 2; p.k_w = 2; p.out_h = 2; p.out_w = 2;   /* SAME-like: windows clipped at the border */
        htc__avgpool_s8(&p, in, out);
        EQ("avg 4 taps 0/4", out[0], 0); EQ("avg 2 taps (2-2)/2", out[1], 0);
        EQ("avg 2 taps (-1-2)/2", out[2], -2); EQ("avg 1 tap", out[3], -2);
        htc__maxpool_s8(&p, in, out);
        EQ("max 4 taps", out[0], 2); EQ("max 1 tap", out[3], -2);
    }
    /* conv: taps outside the input are skipped (== reading in_zp) */
    {
        const int8_t in[4] = {10, 20, 30, 40};    /* 1x2x2x1, in_zp 10 */
        const int8_t w[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
        const int32_t mult = 1 << 30;
        const int8_t shift = 1;                   /* x 1.0 */
        int8_t out[4];
        htc__conv_params p;
        memset(&p, 0, sizeof p);
        p.batches = 1; p.in_h = 2; p.in_w = 2; p.in_c = 1; p.out_h = 2; p.out_w = 2; p.out_c = 1;
        p.k_h = 3; p.k_w = 3; p.stride_h = 1; p.stride_w = 1; p.dil_h = 1; p.dil_w = 1;
        p.pad_top = 1; p.pad_left = 1; p.depth_mult = 1; p.in_zp = 10; p.out_zp = -5;
        p.act_min = -128; p.act_max = 127; p.mult = &mult; p.shift = &shift; p.weights = w;
        htc__conv2d_s8(&p, in, out);
        EQ("conv padded sum", out[0], 0 + 10 + 20 + 30 - 5);
        htc__dwconv2d_s8(&p, in, out);
        EQ("dwconv padded sum", out[3], 60 - 5);
    }
    /* mean: 1/count folded into the multiplier: count 3, mult 2^30 shift 1 (x1.0)
       -> shift 1 - 1, mult (2^30 << 1) / 3 = 715827882 */
    {
        const int8_t in[3] = {1, 2, 4};
        int8_t out[1];
        htc__mean_params p;
        memset(&p, 0, sizeof p);
        p.batches = 1; p.in_h = 1; p.in_w = 3; p.c = 1; p.mult = 1 << 30; p.shift = 1;
        p.act_min = -128; p.act_max = 127;
        htc__mean_s8(&p, in, out);
        EQ("mean 7/3", out[0], 2);
    }
    /* softmax of equal logits: 1/n, output zero point -128 */
    {
        int8_t in[4] = {5, 5, 5, 5}, out[4];
        htc__softmax_params p;
        quant_softmax_params(1.0f, 0.1f, &p);
        p.outer = 1; p.depth = 4; p.out_zp = -128;
        htc__softmax_s8(&p, in, out);
        EQ("softmax 1/4", out[0], 64 - 128); EQ("softmax 1/4 last", out[3], 64 - 128);
        in[0] = 127; in[1] = in[2] = in[3] = -128;
        htc__softmax_s8(&p, in, out);
        EQ("softmax peak", out[0], 127); EQ("softmax below diff_min", out[1], -128);
    }
    /* logistic table: sigmoid(0) = 0.5 -> 128 - 128 */
    {
        htc__lut_params p;
        int8_t in[3] = {7, 127, -128}, out[3];
        quant_table_logistic(0.1f, 7, (int8_t *)p.lut);
        p.size = 3;
        htc__lut8(&p, in, out);
        EQ("sigmoid(0)", out[0], 0); EQ("sigmoid(12) saturates", out[1], 127);
        EQ("sigmoid(-13.5)", out[2], -128);
    }
    /* quantize: division and half-away rounding, saturation, NaN */
    {
        htc__quant_params p;
        float in[7] = {0.05f, -0.05f, 0.25f, 1e20f, -1e20f, 12.7f, 0.0f};
        int8_t out[7];
        memset(&p, 0, sizeof p);
        p.size = 7; p.scale = 0.1f; p.out_zp = 0; p.qmin = -128; p.qmax = 127;
        in[6] = in[6] / in[6] * 0.0f;             /* NaN without <math.h> macros */
        htc__quantize_f32_s8(&p, in, out);
        EQ("q 0.5 -> 1", out[0], 1); EQ("q -0.5 -> -1", out[1], -1); EQ("q 2.5 -> 3", out[2], 3);
        EQ("q +huge (x86 cvt: INT32_MIN)", out[3], -128); EQ("q -huge", out[4], -128);
        EQ("q 127", out[5], 127); EQ("q NaN", out[6], -128);
    }
    /* requantize and dequantize */
    {
        htc__quant_params p;
        int8_t in[3] = {-128, 0, 127}, o8[3];
        uint8_t ou[3];
        float of[3];
        memset(&p, 0, sizeof p);
        quant_requant_params(0.1f, 0, 0.1f, 0, &p);
        p.size = 3; p.qmin = -128; p.qmax = 127;
        htc__requantize_s8_s8(&p, in, o8);
        EQ("requant identity", o8[0] + o8[1] * 1000 + o8[2], -128 + 127);
        quant_requant_params(0.1f, 0, 0.1f, 128, &p);
        p.size = 3; p.qmin = 0; p.qmax = 255;
        htc__requantize_s8_u8(&p, in, ou);
        EQ("requant s8->u8 lo", ou[0], 0); EQ("requant s8->u8 hi", ou[2], 255);
        p.dscale = 0.1f; p.in_zp = 1; p.size = 3;
        htc__dequantize_s8_f32(&p, in, of);
        EQ("dequant", of[2] == (float)((double)0.1f * 126), 1);
    }
}

/* onnxruntime's QLinearConv / QGemm whose scales are 2^-e (exact_shift set,
   as gen/dispatch.c find_exact_shift proves it): with -DHTC_XPULPV2 the
   XpulpV2 paths' shift rounding half to even (htc__qconv2d_xp,
   htc__qfc_xp), elsewhere the float epilogue; both must equal the float
   epilogue of the same block with exact_shift 0, byte for byte. Ties are
   frequent (small shifts), weights small enough for |acc| < 2^24. */
static uint32_t qs_rng = 12345u;
static int32_t qs_rand(int32_t lo, int32_t hi)
{
    qs_rng = qs_rng * 1103515245u + 12345u;
    return lo + (int32_t)((qs_rng >> 8) % (uint32_t)(hi - lo + 1));
}

static void test_qshift(void)
{
    /* in_c, out_c, k, stride, pad, hw, depthwise (per layer: per-tensor, then per-channel) */
    static const int32_t L[][7] = {{8, 12, 3, 1, 1, 7, 0}, {3, 8, 3, 2, 1, 9, 0}, {16, 20, 1, 1, 0, 5, 0},
                                   {6, 5, 1, 1, 0, 4, 0}, {12, 12, 3, 1, 1, 6, 1}, {8, 8, 3, 2, 1, 7, 1},
                                   {64, 8, 3, 1, 1, 4, 0}, {1, 16, 5, 2, 2, 11, 0}};
    static int8_t in[16 * 16 * 64], w[64 * 64 * 9], o1[16 * 16 * 64], o2[16 * 16 * 64];
    static int32_t bias[64];
    static float scale[64];
    int li, pc, i, same = 1, n = 0;
    for (li = 0; li < (int)(sizeof L / sizeof L[0]); li++) {
        for (pc = 0; pc < 2; pc++) {
            const int32_t C = L[li][0], K = L[li][1], k = L[li][2], st = L[li][3], pad = L[li][4], hw = L[li][5], dw = L[li][6];
            const int32_t oc = dw ? C : K, ohw = (hw + 2 * pad - k) / st + 1, nw = oc * k * k * (dw ? 1 : C);
            htc__qconv_params p;
            memset(&p, 0, sizeof p);
            p.batches = 1; p.in_h = p.in_w = hw; p.in_c = C; p.out_h = p.out_w = ohw; p.out_c = oc;
            p.k_h = p.k_w = k; p.stride_h = p.stride_w = st; p.dil_h = p.dil_w = 1; p.pad_top = p.pad_left = pad;
            p.group_in = dw ? 1 : C; p.group_out = dw ? 1 : oc;
            p.in_zp = qs_rand(-20, 20); p.out_zp = qs_rand(-10, 10); p.qmin = li == 2 ? p.out_zp : -128; p.qmax = 127;
            p.per_channel = pc; p.scale = scale; p.weights = w; p.bias = bias;
            for (i = 0; i < hw * hw * C; i++) in[i] = (int8_t)qs_rand(-128, 127);
            for (i = 0; i < nw; i++) w[i] = (int8_t)qs_rand(-20, 20);
            for (i = 0; i < oc; i++) {
                bias[i] = qs_rand(-3000, 3000);
                scale[i] = ldexpf(1.0f, -qs_rand(1, 7));
            }
            p.exact_shift = 0;
            htc__qconv2d_s8(&p, in, o1);
            p.exact_shift = 1;
            htc__qconv2d_s8(&p, in, o2);
            for (i = 0; i < ohw * ohw * oc; i++, n++) same &= o1[i] == o2[i];
            EQ("qconv exact shift = float epilogue", memcmp(o1, o2, (size_t)(ohw * ohw * oc)), 0);
        }
    }
    for (pc = 0; pc < 2; pc++) {
        htc__qfc_params f;
        memset(&f, 0, sizeof f);
        f.batches = 1; f.rows = 3; f.in_features = 37; f.out_features = 11; f.w_batches = 1;
        f.in_zp = -7; f.out_zp = 3; f.qmin = -128; f.qmax = 127; f.per_channel = pc;
        f.scale = scale; f.weights = w; f.bias = bias;
        for (i = 0; i < 3 * 37; i++) in[i] = (int8_t)qs_rand(-128, 127);
        for (i = 0; i < 11 * 37; i++) w[i] = (int8_t)qs_rand(-60, 60);
        for (i = 0; i < 11; i++) {
            bias[i] = qs_rand(-3000, 3000);
            scale[i] = ldexpf(1.0f, -qs_rand(1, 7));
        }
        f.exact_shift = 0;
        htc__qfc_s8(&f, in, o1);
        f.exact_shift = 1;
        htc__qfc_s8(&f, in, o2);
        EQ("qfc exact shift = float epilogue", memcmp(o1, o2, 33), 0);
    }
    EQ("qconv outputs compared", n > 1000 && same, 1);
    /* QLinearAdd in integers (HTVM's residual adds: scales 1; and small
       integer scales) = onnxruntime's float formula, odd lengths */
    {
        static const float r[][3] = {{1, 1, 0}, {3, -2, 5}, {1, 1, -40}, {127, 1, 0}, {-128, 2, 0}};
        htc__qbinary_params q;
        int k;
        for (k = 0; k < (int)(sizeof r / sizeof r[0]); k++) {
            memset(&q, 0, sizeof q);
            q.size = 4 * 37 + (k & 3); q.ra = r[k][0]; q.rb = r[k][1]; q.fixed = r[k][2];
            q.a_off = qs_rand(-9, 9); q.b_off = qs_rand(-9, 9); q.out_off = qs_rand(-9, 9);
            q.qmin = -128 + q.out_off; q.qmax = 127 + q.out_off;
            for (i = 0; i < q.size; i++) {
                in[i] = (int8_t)qs_rand(-128, 127);
                w[i] = (int8_t)qs_rand(-128, 127);
            }
            htc__qadd_s8_fp(&q, in, w, o1);  /* the float formula */
            htc__qadd_s8(&q, in, w, o2);
            EQ("qadd integer = float formula", memcmp(o1, o2, (size_t)q.size), 0);
        }
    }
}

/* gen/quant.c quant_xq2: the final-form record (htc.h htc__xq2_apply,
   written out here so every build runs it) equals htc__requant for every
   accumulator within 2^20 of the output window, and for the extremes, on
   random channels of e = 1..8 with a fused ReLU; channels it refuses are
   counted (some must be accepted), never wrong. Depthwise records (dw 1)
   also through the depthwise kernel's folded arithmetic (kernels/conv2d.c
   htc__dw_xp_fold, htc__dw_xp_fout: the sum without f, one product where
   the record is in one, gen/quant.c xq1_channel; some must be) */
static void test_xq2(void)
{
    uint32_t x = 12345u;
    int accepted = 0, tried = 0, bad = 0, badf = 0, one = 0;
    for (int n = 0; n < 90; n++) {
        const int dw = n >= 60;
        int32_t m, b;
        int8_t sh;
        int32_t rec[HTC__XQ2_N];
        int8_t w = 1;
        htc__conv_params p;
        x = x * 1664525u + 1013904223u;
        m = (int32_t)((1u << 30) + (x >> 2) % (1u << 30));
        x = x * 1664525u + 1013904223u;
        sh = (int8_t)-(1 + (int)(x >> 8) % 8);
        b = (int32_t)(x % 200001u) - 100000;
        memset(&p, 0, sizeof p);
        p.batches = p.in_h = p.in_w = p.in_c = p.out_h = p.out_w = p.out_c = p.k_h = p.k_w = p.depth_mult = 1;
        p.in_zp = -128 + (int32_t)(x >> 20) % 50;
        p.out_zp = n % 3 == 0 ? -128 : -128 + (int32_t)(x >> 12) % 100;
        p.act_min = n % 3 == 0 ? -128 : p.out_zp;
        p.act_max = n % 5 == 0 ? 100 : 127;
        p.mult = &m;
        p.shift = &sh;
        p.bias = &b;
        tried++;
        if (quant_xq2(&p, &w, dw, rec) != 1) continue;
        accepted++;
        const int x1 = rec[HTC__XQ2_MH] == 0 && rec[HTC__XQ2_S] >= 1 && rec[HTC__XQ2_S] <= 9;
        const uint32_t uf = (uint32_t)rec[HTC__XQ2_F], ml = (uint32_t)rec[HTC__XQ2_ML], mh = (uint32_t)rec[HTC__XQ2_MH];
        const uint32_t c1 = x1 ? (uint32_t)rec[HTC__XQ2_RLO] + ((uint32_t)rec[HTC__XQ2_RHI] << 15) + uf * ml
                               : (uint32_t)rec[HTC__XQ2_RLO] + uf * ml;
        const uint32_t c2 = (uint32_t)rec[HTC__XQ2_RHI] + uf * mh;
        one += x1;
        const int32_t f = rec[HTC__XQ2_F], a = b - p.in_zp * w - f;   /* the window's start */
        for (int64_t acc = (int64_t)a - (1 << 20); acc <= (int64_t)a + (1 << 20) + 2; acc++) {
            const int64_t v = acc + f - b + p.in_zp * w;   /* acc as the kernel holds it: acc - a */
            const uint32_t u = (uint32_t)(v < 0 ? 0 : v > rec[HTC__XQ2_W] ? rec[HTC__XQ2_W] : v);
            const uint32_t t = ((uint32_t)rec[HTC__XQ2_RLO] + u * (uint32_t)rec[HTC__XQ2_ML]) >> 15;
            const int32_t got = (int32_t)(t + u * (uint32_t)rec[HTC__XQ2_MH] + (uint32_t)rec[HTC__XQ2_RHI]) >> rec[HTC__XQ2_S];
            const int32_t want = htc__requant((int32_t)acc, m, sh, p.out_zp, p.act_min, p.act_max);
            bad += got != want;
            if (dw) {       /* the sum without f, clamped to [-f, w - f] */
                const int64_t sv = v - rec[HTC__XQ2_F], lo = -(int64_t)rec[HTC__XQ2_F], hi = rec[HTC__XQ2_W] - (int64_t)rec[HTC__XQ2_F];
                const uint32_t uu = (uint32_t)(int32_t)(sv < lo ? lo : sv > hi ? hi : sv);
                const int32_t g2 = x1 ? (int32_t)(uu * ml + c1) >> (rec[HTC__XQ2_S] + 15)
                                      : (int32_t)(((c1 + uu * ml) >> 15) + uu * mh + c2) >> rec[HTC__XQ2_S];
                badf += g2 != want;
            }
        }
    }
    EQ("xq2 records equal htc__requant", bad, 0);
    EQ("xq2 depthwise records: the folded arithmetic equals htc__requant", badf, 0);
    EQ("xq2 depthwise records: some in one product", one > 0, 1);
    EQ("xq2 records: some channels accepted", accepted > tried / 2, 1);
}

/* a three-product record's output (htc.h htc__xq3_apply's arithmetic,
   written for any build) at v accumulator steps from its window's start,
   v clamped to the window */
static int32_t xq3_out(const int32_t *rec, int64_t v)
{
    const uint32_t u = (uint32_t)(v < 0 ? 0 : v > rec[HTC__XQ3_W] ? rec[HTC__XQ3_W] : v);
    uint32_t t = ((uint32_t)rec[HTC__XQ3_R] + u * (uint32_t)rec[HTC__XQ3_M0]) >> 11;
    t = (t + u * (uint32_t)rec[HTC__XQ3_M1]) >> 11;
    t = t + (uint32_t)rec[HTC__XQ3_RH] - ((uint32_t)(u < (uint32_t)rec[HTC__XQ3_U]) << 9) + u * (uint32_t)rec[HTC__XQ3_M2];
    return (int32_t)t >> rec[HTC__XQ3_S];
}

/* gen/quant.c quant_xq3: the three-product record (htc.h htc__xq3_apply,
   written out here so every build runs it) equals htc__requant
   for every accumulator within 2^20 of the output window, on random
   channels of right shift 1..11 (ResNet's 8..11 among them), with a fused
   ReLU and without (form 4: u0) */
static void test_xq3(void)
{
    uint32_t x = 777u;
    int accepted = 0, tried = 0, bad = 0, big = 0, twos = 0;
    for (int n = 0; n < 60; n++) {
        int32_t m, b;
        int8_t sh;
        int32_t rec[HTC__XQ3_N];
        int8_t w = 1;
        htc__conv_params p;
        x = x * 1664525u + 1013904223u;
        m = (int32_t)((1u << 30) + (x >> 2) % (1u << 30));
        x = x * 1664525u + 1013904223u;
        sh = (int8_t)-(1 + (int)(x >> 8) % 11);
        b = (int32_t)(x % 200001u) - 100000;
        memset(&p, 0, sizeof p);
        p.batches = p.in_h = p.in_w = p.in_c = p.out_h = p.out_w = p.out_c = p.k_h = p.k_w = 1;
        p.in_zp = -128 + (int32_t)(x >> 20) % 50;
        p.out_zp = n % 3 == 0 ? -128 : -128 + (int32_t)(x >> 12) % 100;
        p.act_min = n % 3 == 0 ? -128 : n % 3 == 1 ? -128 : p.out_zp;   /* n % 3 == 1: no ReLU (out_zp > -128) */
        p.act_max = n % 5 == 0 ? 100 : 127;
        p.mult = &m;
        p.shift = &sh;
        p.bias = &b;
        tried++;
        int two = 0;
        if (quant_xq3(&p, &w, rec, &two) != 1) continue;
        accepted++;
        twos += two;
        big += sh <= -9;
        const int32_t f = rec[HTC__XQ3_F], a = b - p.in_zp * w - f;   /* the window's start */
        for (int64_t acc = (int64_t)a - (1 << 20); acc <= (int64_t)a + (1 << 21) + 2; acc++) {
            const int64_t v = acc + f - b + p.in_zp * w;   /* acc as the kernel holds it: acc - a */
            bad += xq3_out(rec, v) != htc__requant((int32_t)acc, m, sh, p.out_zp, p.act_min, p.act_max);
        }
    }
    EQ("xq3 records equal htc__requant", bad, 0);
    EQ("xq3 records: most channels accepted", accepted > tried * 9 / 10, 1);
    EQ("xq3 records: shifts 9..11 accepted", big > 5, 1);
    EQ("xq3 records: layers without a fused ReLU accepted (form 4)", twos > 5, 1);
    /* a pruned channel (every weight 0; MobileNetV1's deep pointwise
       layers have hundreds): a constant record, whatever its window, the
       output htc__requant(bias) for every input (the kernel's sum is 0) */
    int zbad = 0, zacc = 0;
    for (int n = 0; n < 40; n++) {
        int32_t m, b, rec[HTC__XQ3_N];
        int8_t sh, w = 0;
        htc__conv_params p;
        x = x * 1664525u + 1013904223u;
        m = (int32_t)((1u << 30) + (x >> 2) % (1u << 30));
        x = x * 1664525u + 1013904223u;
        sh = (int8_t)(n % 4 == 0 ? 1 : -(1 + (int)(x >> 8) % 30));     /* windows up to 2^40 and more */
        b = (int32_t)(x % 2000001u) - 1000000;
        memset(&p, 0, sizeof p);
        p.batches = p.in_h = p.in_w = p.in_c = p.out_h = p.out_w = p.out_c = p.k_h = p.k_w = 1;
        p.in_zp = -128 + (int32_t)(x >> 20) % 50;
        p.out_zp = -128 + (int32_t)(x >> 12) % 100;
        p.act_min = n % 2 ? -128 : p.out_zp;
        p.act_max = 127;
        p.mult = &m;
        p.shift = &sh;
        p.bias = &b;
        int two = 0;
        if (quant_xq3(&p, &w, rec, &two) != 1) continue;
        zacc++;
        zbad += xq3_out(rec, rec[HTC__XQ3_F]) != htc__requant(b, m, sh, p.out_zp, p.act_min, p.act_max);
    }
    EQ("xq3 records: pruned channels (weights 0) accepted", zacc, 40);
    EQ("xq3 records: a pruned channel's constant equals htc__requant(bias)", zbad, 0);
    /* a window of 2^20 steps or more (right shifts 12..16; MobileNetV1's
       layers 20, 22, 24) cut to the accumulators int8 inputs and the
       channel's weights reach (sum w * x, x in [-128, 127], plus bias and
       the weight sums times in_zp): the record equals htc__requant on
       every one of them */
    int cbad = 0, cacc = 0, cwide = 0;
    for (int n = 0; n < 40; n++) {
        int32_t m, b, rec[HTC__XQ3_N];
        int8_t sh, w[4];
        htc__conv_params p;
        int64_t slo = 0, shi = 0, zs = 0;
        x = x * 1664525u + 1013904223u;
        m = (int32_t)((1u << 30) + (x >> 2) % (1u << 30));
        x = x * 1664525u + 1013904223u;
        sh = (int8_t)-(12 + (int)(x >> 8) % 5);
        b = (int32_t)(x % 200001u) - 100000;
        for (int i = 0; i < 4; i++) {
            x = x * 1664525u + 1013904223u;
            w[i] = (int8_t)((int)(x >> 16) % 255 - 127);
            slo += w[i] > 0 ? -128 * w[i] : 127 * w[i];
            shi += w[i] > 0 ? 127 * w[i] : -128 * w[i];
            zs += w[i];
        }
        memset(&p, 0, sizeof p);
        p.batches = p.in_h = p.in_w = p.out_h = p.out_w = p.out_c = p.k_h = p.k_w = 1;
        p.in_c = 4;
        p.in_zp = -128 + (int32_t)(x >> 20) % 50;
        p.out_zp = -128 + (int32_t)(x >> 12) % 100;
        p.act_min = n % 2 ? -128 : p.out_zp;
        p.act_max = 127;
        p.mult = &m;
        p.shift = &sh;
        p.bias = &b;
        /* the uncut window: the outputs act_min + 1 .. act_max, 2^(31 - sh) / m accs each */
        cwide += (double)(p.act_max - p.act_min) * ldexp(1.0, 31 - sh) / m >= (double)(1 << 20);
        int two = 0;
        if (quant_xq3(&p, w, rec, &two) != 1) continue;
        cacc++;
        const int64_t f0 = b - (int64_t)p.in_zp * zs;          /* the accumulator of x = 0 */
        const int64_t a = f0 - rec[HTC__XQ3_F];                 /* the window's start */
        for (int64_t acc = f0 + slo; acc <= f0 + shi; acc++) {
            cbad += xq3_out(rec, acc - a) != htc__requant((int32_t)acc, m, sh, p.out_zp, p.act_min, p.act_max);
        }
    }
    EQ("xq3 records: windows of 2^20 and more among the channels", cwide > 20, 1);
    EQ("xq3 records: windows cut to the reachable accumulators accepted", cacc > 30, 1);
    EQ("xq3 records cut to the reachable accumulators equal htc__requant", cbad, 0);
}

/* gen/quant.c quant_xadd: an ADD's tables in final form. ResNet's three
   ADDs (their blocks as gen/lower.c builds them) take it; on random TFLite
   ADDs (quant_add_params, with and without a fused ReLU) most do, and each
   accepted one gives htc__add_one's output for every pair of bytes, by the
   form written out and through htc__add_s8 with the tables (htc__xadd_run on
   the XpulpV2 build) */
static void test_xadd(void)
{
    static int8_t xa[65536], xb[65536], xo[65536];
    static const int32_t resnet[3][6] = {{128, -4, 1623821475, 1098017566, -17, 21},
                                         {17, -4, 1699529983, 1140768826, -17, 21},
                                         {-38, 2, 1657902019, 1835721671, -18, 22}};
    int32_t rec[HTC__XADD_N];
    uint32_t x = 4242u;
    int accepted = 0, tried = 0, bad = 0, norelu = 0;
    for (int i = 0; i < 65536; i++) {
        xa[i] = (int8_t)(i >> 8);
        xb[i] = (int8_t)i;
    }
    for (int r = 0; r < 3; r++) {
        htc__binary_params p;
        memset(&p, 0, sizeof p);
        p.a_offset = resnet[r][0], p.b_offset = resnet[r][1], p.left_shift = 20;
        p.a_mult = resnet[r][2], p.b_mult = 1 << 30, p.out_mult = resnet[r][3];
        p.a_shift = -2, p.b_shift = 0, p.out_shift = (int8_t)resnet[r][4];
        p.out_zp = -128, p.act_min = -128, p.act_max = 127;
        EQ("xadd: ResNet's ADD's shift", quant_xadd(&p, rec), resnet[r][5]);
    }
    for (int n = 0; n < 40; n++) {
        htc__binary_params p;
        float sc[3];
        int32_t zp[3];
        for (int k = 0; k < 3; k++) {
            x = x * 1664525u + 1013904223u;
            sc[k] = (1.0f + (float)(x >> 16) / 65536.0f) / (float)(1 << (1 + (x >> 4) % 8));
            zp[k] = -128 + (int32_t)((x >> 8) % 256);
        }
        memset(&p, 0, sizeof p);
        quant_add_params(sc[0], zp[0], sc[1], zp[1], sc[2], zp[2], &p);
        p.act_min = n % 2 ? zp[2] : -128;          /* odd: a fused ReLU */
        p.act_max = n % 5 == 0 ? 100 : 127;
        if (p.act_min > p.act_max) p.act_min = p.act_max;
        p.out_shape[0] = p.out_shape[1] = p.out_shape[2] = 1;
        p.out_shape[3] = 65536;
        p.a_stride[3] = p.b_stride[3] = 1;
        tried++;
        const int f = quant_xadd(&p, rec);
        if (f <= 0) continue;
        accepted++;
        norelu += n % 2 == 0;
        p.xq = rec;
        htc__add_s8(&p, xa, xb, xo);
        for (int i = 0; i < 65536; i++) {
            const int32_t v = (rec[HTC__XADD_A + 128 + xa[i]] + rec[HTC__XADD_B + 128 + xb[i]]) >> f;
            const int8_t want = htc__add_one(&p, xa[i], xb[i]);
            bad += htc__clamp(v, p.act_min, p.act_max) != want;
            bad += xo[i] != want;
        }
    }
    EQ("xadd tables equal htc__add_one", bad, 0);
    EQ("xadd: most ADDs accepted", accepted > tried * 9 / 10, 1);
    EQ("xadd: ADDs without a fused ReLU accepted", norelu > 5, 1);
}

/* QuantLib's RequantShift on 1 to 8 cores (htc__ql_requant_par: shares of
   the elements, whatever the channel periods) equal to one core's
   htc__ql_requant: per-channel along inner dimensions and along the last,
   one period shorter than the cores' count (MatMul_Regular_RQ's 2 x 2,048),
   int8 and int32 in and out */
static void test_ql_requant_par(void)
{
    static int32_t xin[4096], mul[64], add[64];
    static int32_t want[4096], got[4096];
    static const int32_t shapes[][3] = {{4096, 2048, 2}, {4096, 1, 64}, {1000, 7, 3}, {1024, 1024, 1}, {37, 5, 8}, {5, 1, 1}, {130, 13, 10}};
    uint32_t x = 77u;
    int bad = 0, runs = 0;
    for (int i = 0; i < 4096; i++) {
        x = x * 1664525u + 1013904223u;
        xin[i] = (int32_t)(x >> 8) - (1 << 23);
    }
    for (int c = 0; c < 64; c++) {
        x = x * 1664525u + 1013904223u;
        mul[c] = (int32_t)(x >> 20) - 2048;
        add[c] = (int32_t)(x % 100000u) - 50000;
    }
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int io = 0; io < 4; io++) {
            htc__ql_requant_params p;
            const void *ins[3];
            memset(&p, 0, sizeof p);
            p.n = shapes[s][0], p.inner = shapes[s][1], p.nch = shapes[s][2];
            p.in_i32 = io & 1, p.out_i32 = io >> 1;
            p.in_off = p.in_i32 ? 0 : 128;
            p.shift = p.in_i32 ? 24 : 10;
            p.lo = p.out_i32 ? -100000 : 0, p.hi = p.out_i32 ? 100000 : 255, p.out_off = p.out_i32 ? 0 : 128;
            ins[0] = p.in_i32 ? (const void *)xin : (const void *)((const int8_t *)xin + 1);
            ins[1] = mul, ins[2] = add;
            memset(want, 0x55, sizeof want);
            htc__ql_requant(&p, ins, want);
            for (int nc = 1; nc <= 8; nc++) {
                memset(got, 0x55, sizeof got);
                for (int core = 0; core < nc; core++) htc__ql_requant_par(&p, ins, got, 0, core, nc);
                bad += memcmp(got, want, sizeof got) != 0;
                runs++;
            }
        }
    EQ("ql_requant_par: every core count equals one core", bad, 0);
    EQ("ql_requant_par: runs", runs, 7 * 4 * 8);
}

int main(void)
{
    test_srdhm();
    test_rdivpot();
    test_mulq();
    test_quant_multiplier();
    test_act_range();
    test_layer_params();
    test_fixedpoint();
    test_kernels();
    test_qshift();
    test_xq2();
    test_xq3();
    test_xadd();
    test_ql_requant_par();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
