/* quant.c - TFLite Micro's Prepare-time arithmetic at compile time: float
   scales to the integer multipliers, shifts, bounds and tables the kernels use. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "quant.h"

/* Every function below follows the runtime's own evaluation order: float
   products stay float where it multiplies floats, doubles where it converts
   first, so the quantized multipliers come out bit-identical. The runtime is
   TensorFlow Lite Micro (tflite-micro 0.dev20261023182759, the tests'
   oracle): tensorflow/lite/micro/kernels/{conv,depthwise_conv,
   fully_connected,add,mul,logistic,softmax,reduce,quantize}_common.cc and the
   shared kernel_util.cc / quantization_util.cc. Where the desktop interpreter
   (ai-edge-litert) differs -- FC, MUL, LOGISTIC -- the function says so. */

void quant_multiplier(double real, int32_t *mult, int *shift)
{
    int e = 0;
    double q;
    int64_t qf;
    if (real == 0.0 || !(real == real)) {
        *mult = 0;
        *shift = 0;
        return;
    }
    q = frexp(real, &e);                    /* real = q * 2^e, |q| in [0.5, 1) */
    qf = (int64_t)round(q * 2147483648.0);  /* half away from zero, like TfLiteRound */
    if (qf == ((int64_t)1 << 31)) {         /* q rounded up to 1.0 */
        qf /= 2;
        e++;
    }
    if (e < -31) {                          /* everything would shift out: flush to 0 */
        e = 0;
        qf = 0;
    }
    *mult = (int32_t)qf;
    *shift = e;
}

/* TFLite Quantize() inside CalculateActivationRangeQuantizedImpl:
   zp + (int32)round(f / scale), the division and rounding in float. */
static int32_t quantize_bound(float f, float scale, int32_t zp)
{
    float t = roundf(f / scale);
    if (t >= 2147483647.0f) return INT32_MAX;      /* TFLite rejects these; saturate */
    if (t <= -2147483648.0f) return INT32_MIN;
    int64_t v = (int64_t)zp + (int64_t)t;
    if (v > INT32_MAX) return INT32_MAX;
    if (v < INT32_MIN) return INT32_MIN;
    return (int32_t)v;
}

void quant_act_range(Activation act, float scale, int32_t zp, int32_t qmin,
                     int32_t qmax, int32_t *lo, int32_t *hi)
{
    int32_t a = qmin, b = qmax;
    switch (act) {
    case ACT_RELU:
        a = quantize_bound(0.0f, scale, zp);
        break;
    case ACT_RELU6:
        a = quantize_bound(0.0f, scale, zp);
        b = quantize_bound(6.0f, scale, zp);
        break;
    case ACT_RELU_N1_TO_1:
        a = quantize_bound(-1.0f, scale, zp);
        b = quantize_bound(1.0f, scale, zp);
        break;
    case ACT_NONE:
        break;
    }
    *lo = a > qmin ? a : qmin;
    *hi = b < qmax ? b : qmax;
}

static void put(double real, int32_t *mult, int8_t *shift)
{
    int s;
    quant_multiplier(real, mult, &s);
    *shift = (int8_t)s;
}

/* PopulateConvolutionQuantizationParams (conv, depthwise; FC per channel):
   double(input_scale) * double(filter_scale) / double(output_scale). A single
   filter scale is broadcast, exactly as the int8 per-channel kernels get it. */
void quant_conv_multipliers(float in_scale, const float *w_scale, int nw,
                            float out_scale, int32_t *mult, int8_t *shift)
{
    for (int c = 0; c < nw; c++)
        put((double)in_scale * (double)w_scale[c] / (double)out_scale, &mult[c], &shift[c]);
}

/* fully_connected_common.cc: per-channel filters as above; a per-tensor filter goes
   through GetQuantizedConvolutionMultipler, whose input*filter product is a
   float product converted to double afterwards. */
void quant_fc_multipliers(float in_scale, const float *w_scale, int nw,
                          float out_scale, int32_t *mult, int8_t *shift)
{
    if (nw > 1) {
        quant_conv_multipliers(in_scale, w_scale, nw, out_scale, mult, shift);
        return;
    }
    volatile float prod = in_scale * w_scale[0];    /* rounded to float, as in TFLite */
    put((double)prod / (double)out_scale, &mult[0], &shift[0]);
}

/* add_common.cc CalculateOpDataAdd, int8 (left_shift 20). */
void quant_add_params(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp,
                      float out_scale, int32_t out_zp, htc__binary_params *p)
{
    const int left_shift = 20;
    double twice_max = 2 * (double)(a_scale > b_scale ? a_scale : b_scale);
    double ra = (double)a_scale / twice_max;
    double rb = (double)b_scale / twice_max;
    double ro = twice_max / ((double)(1 << left_shift) * (double)out_scale);
    int32_t m;
    int s;
    p->a_offset = -a_zp;
    p->b_offset = -b_zp;
    p->out_zp = out_zp;
    p->left_shift = left_shift;
    quant_multiplier(ra, &m, &s);
    p->a_mult = m;
    p->a_shift = (int8_t)s;
    quant_multiplier(rb, &m, &s);
    p->b_mult = m;
    p->b_shift = (int8_t)s;
    quant_multiplier(ro, &m, &s);
    p->out_mult = m;
    p->out_shift = (int8_t)s;
}

/* TFLite Micro's mul_common.cc CalculateOpDataMul: double(input1_scale) *
   double(input2_scale) / double(output_scale). (ai-edge-litert's mul.cc
   multiplies the floats first, float(in1 * in2) / out, and differs on a few
   products for some scales.) */
void quant_mul_params(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp,
                      float out_scale, int32_t out_zp, htc__binary_params *p)
{
    const double real = (double)a_scale * (double)b_scale / (double)out_scale;
    int32_t m;
    int s;
    p->a_offset = -a_zp;
    p->b_offset = -b_zp;
    p->out_zp = out_zp;
    p->left_shift = 0;
    p->a_mult = p->b_mult = 0;
    p->a_shift = p->b_shift = 0;
    quant_multiplier(real, &m, &s);
    p->out_mult = m;
    p->out_shift = (int8_t)s;
}

/* CalculateInputRadius(input_integer_bits, input_left_shift, 31), the
   floating-point variant TFLite builds by default. */
static int32_t input_radius(int int_bits, int left_shift, int total_bits)
{
    double r = 1.0 * (double)((1 << int_bits) - 1) * (double)((int64_t)1 << (total_bits - int_bits)) /
               (double)((int64_t)1 << left_shift);
    return (int32_t)floor(r);
}

/* softmax_common.cc CalculateSoftmaxParams, int8: PreprocessSoftmaxScaling
   with kScaledDiffIntegerBits = 5 and diff_min = -CalculateInputRadius(5, s). */
void quant_softmax_params(float beta, float in_scale, htc__softmax_params *p)
{
    const int int_bits = 5;
    double real = (double)beta * (double)in_scale * (double)(1 << (31 - int_bits));
    double cap = (double)(((int64_t)1 << 31) - 1);
    int32_t m;
    int s;
    if (real > cap) real = cap;
    quant_multiplier(real, &m, &s);
    p->input_multiplier = m;
    p->input_left_shift = s;
    p->diff_min = (int32_t)(-1.0 * input_radius(int_bits, s, 31));
    p->n_exp = 0;
    p->exp_tab = NULL;
}

/* The int8 softmax's exponentials (kernels/softmax.c htc__softmax_exp:
   gemmlowp's exp_on_negative_values of diff * beta in Q5.26) for every
   diff = x - max the kernel computes one of, -i for i = 0 .. n - 1: n =
   1 - diff_min up to 256 (an int8 difference is at least -255). The
   kernel looks them up instead of evaluating them twice an entry. */
int quant_softmax_exp_table(const htc__softmax_params *p, int32_t *tab)
{
    int n = 1 - p->diff_min < 256 ? 1 - p->diff_min : 256;
    for (int i = 0; i < n; i++) {
        const int32_t scaled = htc__srdhm((int32_t)((uint32_t)-i << p->input_left_shift), p->input_multiplier);
        tab[i] = htc__exp_neg(scaled, 5);
    }
    return n;
}

/* TFLite Micro's int8 LOGISTIC (logistic_common.cc Prepare +
   reference_integer_ops::Logistic): the input minus its zero point, zero
   below -radius, saturated above radius, else MultiplyByQuantizedMultiplier
   into Q4.27, gemmlowp's fixed-point logistic (exp_on_negative_values,
   one_over_one_plus_x_for_x_in_0_1) to Q0.31, RoundingDivideByPOT by 23,
   -128. An int8 input has 256 values, so the whole kernel is evaluated
   here, with htc.h's gemmlowp primitives, into the 256-entry table the
   run-time kernel looks up (lut[(uint8_t)x]). The parameters are those of
   Prepare: multiplier = round(frexp(in_scale * 2^27) * 2^31) (no
   renormalisation if that rounds to 2^31: the cast wraps, as TFLM's does),
   radius = floor(15 * 2^27 / 2^shift) in double (CalculateInputRadius).
   Output scale 1/256, zero point -128 (lower.c checks them).
   ai-edge-litert instead fills the table with float 1/(1+exp(-x)) rounded
   (LUTPopulate), which differs by one on rare inputs. */
void quant_table_logistic(float in_scale, int32_t in_zp, int8_t *lut)
{
    const int int_bits = 4;
    int shift = 0;
    double q = frexp((double)in_scale * (double)(1 << (31 - int_bits)), &shift);
    int64_t qf = (int64_t)round(q * 2147483648.0);
    int32_t mult = (int32_t)(uint32_t)(uint64_t)qf;
    int32_t radius = (int32_t)floor(ldexp(15.0 * (double)((int64_t)1 << (31 - int_bits)), -shift));
    for (int32_t v = -128; v <= 127; v++) {
        const int32_t x = v - in_zp;
        int32_t y;
        if (x <= -radius) {
            y = -128;
        } else if (x >= radius) {
            y = 127;
        } else {
            const int32_t a = htc__mulq(x, mult, shift);           /* Q4.27 */
            int32_t r;                                              /* Q0.31 */
            if (a == 0) {
                r = 1 << 30;
            } else {
                const int32_t abs_a = a > 0 ? a : -a;
                const int32_t pos = htc__one_over_one_plus_x(htc__exp_neg(-abs_a, int_bits));
                r = a > 0 ? pos : INT32_MAX - pos;
            }
            y = htc__rdivpot(r, 31 - 8) - 128;
            if (y < -128) y = -128;
            if (y > 127) y = 127;
        }
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
}

/* reduce_common.cc PrepareMeanOrSumHelper: double(input_scale) / double(output_scale).
   The kernel folds 1/num_elements in at run time as QuantizedMeanOrSum does. */
void quant_mean_params(float in_scale, int32_t in_zp, float out_scale,
                       int32_t out_zp, htc__mean_params *p)
{
    int32_t m;
    int s;
    quant_multiplier((double)in_scale / (double)out_scale, &m, &s);
    p->in_zp = in_zp;
    p->out_zp = out_zp;
    p->mult = m;
    p->shift = s;
}

/* quantize_common.cc PrepareQuantizeReference (requantize):
   double(input_scale) / double(output_scale). */
void quant_requant_params(float in_scale, int32_t in_zp, float out_scale,
                          int32_t out_zp, htc__quant_params *p)
{
    int32_t m;
    int s;
    quant_multiplier((double)in_scale / (double)out_scale, &m, &s);
    p->in_zp = in_zp;
    p->out_zp = out_zp;
    p->mult = m;
    p->shift = s;
}

/* ---- element-wise int8 tables -------------------------------------------------
   An int8 element-wise op of one input is a function of one byte: each
   function below runs TFLite Micro's integer kernel (Prepare's parameters,
   then the Eval arithmetic) on the 256 inputs into lut[(uint8_t)x]. */

/* CalculateInputRadius (the double form TFLite builds by default), for any
   shift: floor(((2^int_bits - 1) * 2^(31 - int_bits)) / 2^shift). */
static int32_t radius_of(int int_bits, int shift)
{
    double r = (double)((1 << int_bits) - 1) * (double)((int64_t)1 << (31 - int_bits));
    return (int32_t)floor(ldexp(r, -shift));
}

/* Prepare of TANH / LOGISTIC int8: multiplier of in_scale * 2^27 as
   round(frexp * 2^31) cast to int32 (the cast wraps at 2^31 as TFLM's does). */
static void q4_input(float in_scale, int32_t *mult, int *shift, int32_t *radius)
{
    double q = frexp((double)in_scale * (double)(1 << 27), shift);
    int64_t qf = (int64_t)round(q * 2147483648.0);
    *mult = (int32_t)(uint32_t)(uint64_t)qf;
    *radius = radius_of(4, *shift);
}

/* gemmlowp one_minus_x_over_one_plus_x_for_x_in_0_1: Q0.31 in and out. */
static int32_t one_minus_x_over_one_plus_x(int32_t a)
{
    const int32_t c48_17 = 1515870810, cm32_17 = -1010580540;   /* Q2.29 */
    const int32_t one_q2 = (int32_t)1 << 29;
    int32_t half_den = htc__rhalfsum(a, INT32_MAX);
    int32_t x = c48_17 + htc__srdhm(half_den, cm32_17);
    for (int i = 0; i < 3; i++) {
        int32_t one_minus = one_q2 - htc__srdhm(half_den, x);
        x = x + htc__sat_shl(htc__srdhm(x, one_minus), 2);
    }
    return htc__sat_shl(x - one_q2, 2);
}

/* gemmlowp tanh of a Q4.27 value -> Q0.31: -tanh(-|a|) from exp(-2|a|). */
static int32_t gemmlowp_tanh_q4(int32_t a)
{
    if (a == 0) return 0;
    int32_t n = a < 0 ? a : -a;                         /* -|a|, still Q4.27 */
    int32_t t = one_minus_x_over_one_plus_x(htc__exp_neg(n, 5));   /* ExactMulByPot<1>: Q5.26 */
    return a < 0 ? -t : t;
}

/* TFLM tanh.cc + reference_integer_ops::Tanh (int8): output Q0.7 (scale
   1/128, zero point 0; TFLM reads neither from the output tensor). */
void quant_table_tanh(float in_scale, int32_t in_zp, int8_t *lut)
{
    int32_t mult, radius;
    int shift;
    q4_input(in_scale, &mult, &shift, &radius);
    for (int32_t v = -128; v <= 127; v++) {
        const int32_t x = v - in_zp;
        int32_t y;
        if (x <= -radius) y = -128;
        else if (x >= radius) y = 127;
        else {
            y = htc__rdivpot(gemmlowp_tanh_q4(htc__mulq(x, mult, shift)), 31 - 7);
            y = y < -128 ? -128 : (y > 127 ? 127 : y);
        }
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
}

/* ---- int16 fixed point of reference_ops::HardSwish ---- */
static int16_t srdhm16(int16_t a, int16_t b)          /* gemmlowp, int16 */
{
    if (a == b && a == INT16_MIN) return INT16_MAX;
    int32_t ab = (int32_t)a * (int32_t)b;
    int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return (int16_t)((ab + nudge) / (1 << 15));
}
static int16_t sdhm16(int16_t a, int16_t b)           /* SaturatingDoublingHighMul: truncating */
{
    if (a == b && a == INT16_MIN) return INT16_MAX;
    return (int16_t)(((int32_t)a * (int32_t)b) / (1 << 15));
}
static int16_t rdivpot16(int16_t x, int e)
{
    int32_t mask = (1 << e) - 1, rem = x & mask, thr = (mask >> 1) + (x < 0 ? 1 : 0);
    return (int16_t)((x >> e) + (rem > thr ? 1 : 0));
}
static int16_t satshl16(int16_t v, int amount)
{
    int64_t r = (int64_t)v * ((int64_t)1 << amount);
    return (int16_t)(r > INT16_MAX ? INT16_MAX : (r < INT16_MIN ? INT16_MIN : r));
}
static int16_t down16(int32_t m)                       /* DownScaleInt32ToInt16Multiplier */
{
    if (m >= INT32_MAX - (1 << 15)) return INT16_MAX;
    return (int16_t)((m + (1 << 15)) >> 16);
}

/* TFLM hard_swish_common.cc Prepare (float products, then double) and
   reference_ops::HardSwish<int8_t>. Returns 0 when TFLM's Prepare refuses
   the scales (output multiplier exponent above 0). */
int quant_table_hard_swish(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t *lut)
{
    volatile float hires = (1.0f / 128.0f) * in_scale;
    volatile float reluish_scale = 3.0f / 32768.0f;
    volatile float om = hires / out_scale, rm = hires / reluish_scale;
    int32_t m32;
    int out_exp, rel_exp;
    quant_multiplier((double)om, &m32, &out_exp);
    int16_t out_m = down16(m32);
    if (out_exp > 0) return 0;
    quant_multiplier((double)rm, &m32, &rel_exp);
    int16_t rel_m = down16(m32);
    for (int32_t v = -128; v <= 127; v++) {
        int16_t x = (int16_t)(v - in_zp);
        int16_t hi = (int16_t)(x * (1 << 7));
        int16_t pre = srdhm16(hi, out_m);
        int16_t r = hi;
        if (rel_exp > 0) r = satshl16(r, rel_exp - 1);
        r = srdhm16(r, rel_m);
        if (rel_exp > 0) r = satshl16(r, 1);
        if (rel_exp < 0) r = rdivpot16(r, -rel_exp);
        r = (int16_t)((r + (1 << 15)) >> 1);
        int16_t po = sdhm16(r, pre);
        int32_t y = rdivpot16(po, -out_exp) + out_zp;
        y = y > 127 ? 127 : (y < -128 ? -128 : y);
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
    return 1;
}

/* TFLM activations_common.cc CalculateReluOpData + ReluQuantized: the
   multiplier double(float(in_scale / out_scale)), clamp [zp + round(0/s), 127]. */
void quant_table_relu(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t *lut)
{
    volatile float r = in_scale / out_scale;
    int32_t m;
    int s;
    quant_multiplier((double)r, &m, &s);
    int32_t lo = out_zp + (int32_t)roundf(0.0f / out_scale);
    if (lo < -128) lo = -128;
    for (int32_t v = -128; v <= 127; v++) {
        int32_t y = out_zp + htc__mulq(v - in_zp, m, s);
        y = y < lo ? lo : (y > 127 ? 127 : y);
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
}

/* LiteRT activations.cc QuantizedReluX (RELU, RELU6, RELU_N1_TO_1,
   RELU_0_TO_1 on uint8, stored as int8): the multiplier
   double(float(in_scale / out_scale)), clamp [max(min, zp + roundf(lo /
   out_scale)), min(max, zp + roundf(hi / out_scale))], no upper bound when
   hi is infinite (RELU). */
void quant_table_relux(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float lo_f, float hi_f,
                       int8_t *lut)
{
    volatile float r = in_scale / out_scale;
    volatile float ql = lo_f / out_scale, qh = hi_f / out_scale;
    int32_t m;
    int s;
    quant_multiplier((double)r, &m, &s);
    int32_t lo = out_zp + (int32_t)roundf(ql), hi = 127;
    if (lo < -128) lo = -128;
    if (!isinf(hi_f)) {
        hi = out_zp + (int32_t)roundf(qh);
        if (hi > 127) hi = 127;
    }
    for (int32_t v = -128; v <= 127; v++) {
        int32_t y = out_zp + htc__mulq(v - in_zp, m, s);
        y = y < lo ? lo : y;
        y = y > hi ? hi : y;
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
}

/* TFLM RELU6 int8: clamp to [in_zp, six] with six = FloatToQuantizedType(6,
   in_scale, in_zp) (round(6 / scale) + zp, saturated); the output's
   quantization is not read. */
void quant_table_relu6(float in_scale, int32_t in_zp, int8_t *lut)
{
    volatile float q = 6.0f / in_scale;
    float rq = roundf(q) + (float)in_zp;
    int32_t six = rq >= 127.0f ? 127 : (rq <= -128.0f ? -128 : (int32_t)rq);
    for (int32_t v = -128; v <= 127; v++) {
        int32_t y = v > six ? six : (v < in_zp ? in_zp : v);
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
}

/* TFLM leaky_relu_common.cc (alpha and identity multipliers of
   double(in_scale * alpha / out_scale) in float, then double) +
   reference_ops::QuantizeLeakyRelu. */
void quant_table_leaky_relu(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float alpha,
                            int8_t *lut)
{
    volatile float a = in_scale * alpha / out_scale, id = in_scale / out_scale;
    int32_t ma, mi;
    int sa, si;
    quant_multiplier((double)a, &ma, &sa);
    quant_multiplier((double)id, &mi, &si);
    const int neg = ma < 0;                 /* a negative alpha: the kernel negates */
    if (neg) ma = -ma;
    for (int32_t v = -128; v <= 127; v++) {
        int32_t x = v - in_zp, y;
        if (x >= 0) y = htc__mulq(x, mi, si) + out_zp;
        else y = (neg ? -htc__mulq(x, ma, sa) : htc__mulq(x, ma, sa)) + out_zp;
        y = y > 127 ? 127 : (y < -128 ? -128 : y);
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
}

/* TFLM elementwise.cc ABS int8: |x - in_zp|, rescaled by
   double(float(in_scale / out_scale)) when the scales differ. */
void quant_table_abs(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t *lut)
{
    volatile float r = in_scale / out_scale;
    int32_t m = 0;
    int s = 0;
    int rescale = in_scale != out_scale;
    if (rescale) quant_multiplier((double)r, &m, &s);
    for (int32_t v = -128; v <= 127; v++) {
        int32_t x = v - in_zp, y;
        x = x < 0 ? -x : x;
        y = (rescale ? htc__mulq(x, m, s) : x) + out_zp;
        y = y > 127 ? 127 : (y < -128 ? -128 : y);
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
}

/* TFLM elementwise.cc RSQRT int8: the multiplier 1 / double(sqrt(in_scale) *
   out_scale) (float sqrt and product), then per value
   mulq(mulq(1, inv_sqrt(x - zp), shift + 20), mult, out_shift - 20) + out_zp.
   x == zp gives 127; x < zp makes TFLM fail the inference ("Rsqrt is only
   defined for positive values"): the table holds 127 there too. */
void quant_table_rsqrt(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t *lut)
{
    volatile float sq = sqrtf(in_scale);
    volatile float den = sq * out_scale;
    int32_t m;
    int s;
    quant_multiplier(1.0 / (double)den, &m, &s);
    for (int32_t v = -128; v <= 127; v++) {
        int32_t x = v - in_zp, y;
        if (x <= 0) y = 127;
        else {
            int32_t im;
            int is;
            htc__inv_sqrt(x, &im, &is);
            int32_t d = htc__mulq(1, im, is + 20);
            y = htc__mulq(d, m, s - 20) + out_zp;
            y = y > 127 ? 127 : (y < -128 ? -128 : y);
        }
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
}

/* LUTPopulate<int8_t> of TFLite's kernels/internal/common.h (GELU, ELU in
   TFLite's kernels): dequantize in float, f, round(f / out_scale) + zp in
   float, saturated. */
void quant_table_float(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float (*f)(float),
                       int8_t *lut)
{
    volatile float inv = 1.0f / out_scale;
    for (int32_t v = -128; v <= 127; v++) {
        volatile float x = in_scale * (float)(v - in_zp);
        volatile float t = f(x);
        volatile float r = roundf(t * inv);
        float q = r + (float)out_zp;
        /* static_cast<int32_t> of a float out of range: x86's cvttss2si gives
           INT32_MIN (the hosts ai-edge-litert runs on), then saturated */
        int32_t y = !(q > -2147483648.0f && q < 2147483648.0f) ? -128
                    : q >= 127.0f ? 127 : (q <= -128.0f ? -128 : (int32_t)q);
        lut[(uint8_t)(int8_t)v] = (int8_t)y;
    }
}

/* LUTPopulate<int16_t> as TFLite computes it in float: 512 samples of the
   function over the input range, each corrected by half the error of the
   linear interpolation at the midpoint, and the end point. */
static float lut16_fn(int which, float x)
{
    return which == 0 ? expf(x) : 1.0f / (1.0f + x);
}

void quant_softmax_lut16(int which, int32_t lut[513])
{
    const int32_t range = 32767 - (-32768);
    volatile float in_scale = which == 0 ? 10.0f / (float)range : 1.0f / (float)range;
    const int32_t in_zp = which == 0 ? 32767 : -32768;
    volatile float out_scale = 2.0f / (float)range;
    volatile float in_min = in_scale * (float)(-32768 - in_zp), in_max = in_scale * (float)(32767 - in_zp);
    volatile float out_min = out_scale * (float)(-32768), out_max = out_scale * (float)32767;
    volatile float step = (in_max - in_min) / 512.0f, half = step / 2.0f;
    volatile float inv = 65536.0f / (out_max - out_min);
    for (int i = 0; i < 512; i++) {
        volatile float x0 = in_min + (float)i * step, xm = x0 + half, x1 = in_min + (float)(i + 1) * step;
        volatile float v = lut16_fn(which, x0), vm = lut16_fn(which, xm), vn = lut16_fn(which, x1);
        volatile float sample = roundf(v * inv);
        volatile float interp = roundf((vn * inv + roundf(v * inv)) / 2.0f);
        volatile float mid = roundf(vm * inv);
        volatile float bias = roundf((interp - mid) / 2.0f);
        float r = sample - bias;
        lut[i] = (int32_t)(r < -32768.0f ? -32768.0f : (r > 32767.0f ? 32767.0f : r));
    }
    volatile float e = roundf(lut16_fn(which, in_max) * inv);
    lut[512] = (int32_t)(e < -32768.0f ? -32768.0f : (e > 32767.0f ? 32767.0f : e));
}

/* TFLite's sigmoid_table_uint16 (int16 LOGISTIC, TANH and LSTM gates):
   sigmoid(i / 24) in 0.16 fixed point, each entry lowered by half the
   linear-interpolation error at the midpoint of its segment (the table
   is biased so that interpolation errs on both sides), clamped to 65535;
   entry 255 is 65535. Reproduces all 256 of TFLM's entries
   (tests/test_ops.py test_s16_sigmoid_every_input). */
static double sig(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

void quant_sigmoid16_table(uint16_t t[256])
{
    for (int i = 0; i < 255; i++) {
        double val = 65536.0 * sig(i / 24.0), mid = 65536.0 * sig((i + 0.5) / 24.0);
        double nxt = 65536.0 * sig((i + 1) / 24.0);
        double err = (val + nxt) / 2.0 - mid;
        double v = floor(val - err / 2.0 + 0.5);
        t[i] = (uint16_t)(v > 65535.0 ? 65535.0 : v);
    }
    t[255] = 65535;
}

/* TFLite's CheckedLog2: log2(x) rounded, and whether x is within 1e-3 (in
   the exponent) of that power of two; float arithmetic as TFLite's. */
int quant_checked_log2(float x, int *log2_result)
{
    volatile float inv = 1.0f / logf(2.0f);
    volatile float l = logf(x) * inv;
    volatile float r = roundf(l);
    volatile float frac = l - r;
    *log2_result = (int)r;
    return fabsf(frac) < 1e-3f;
}

/* The XpulpV2 kernels' final-form requantization records (htc.h
   htc__xq2_apply, HTC__XQ2_N words per output channel) of TFLite int8
   convolutions. The second rounding of TFLite's (RoundingDivideByPOT) is
   half away from zero; the record rounds half up, which equals it where
   the output moves: act_min - out_zp >= 0 (a fused ReLU) puts every output
   step at acc > 0. Exactness is then checked, not assumed: at both sides of
   every output step the record gives htc__requant's output, and both are
   non-decreasing in acc. One channel: 1 and r filled, else 0. */
/* A depthwise channel's record in one product (mh = 0, s <= 9: the
   kernel's htc__dw_xp_lines3*_x1, its shifts by 15 and s one by s + 15):
   the outputs' steps t_j over u in [0, w] (the first u of output lo + j,
   by bisection on htc__requant) met by floor((R + u * M) / 2^(15+s)),
   for each M near m * 2^(15+s) / 2^(31+e) the R that every step allows
   (R + u * M below 2^32, the value before the shift by s within int32).
   A is the window's first acc. 1 with ml = M, mh = 0, rlo = R, rhi =
   lo * 2^s, s written over r's two-product form, else 0 (r unchanged). */
static int xq1_channel(int32_t m, int e, int32_t zp, int32_t lo, int32_t hi, int64_t A, int32_t *r)
{
    const int64_t W = r[HTC__XQ2_W];
    int64_t t[257];
    int G = 0;
    if (W < 1 || htc__requant((int32_t)A, m, -e, zp, lo, hi) != lo) return 0;
    G = htc__requant((int32_t)(A + W), m, -e, zp, lo, hi) - lo;
    if (G < 1 || G > 255) return 0;
    for (int j = 1; j <= G; j++) {          /* the first u whose output is lo + j or more */
        int64_t a = 0, b = W;
        while (a < b) {
            const int64_t c = (a + b) / 2;
            if (htc__requant((int32_t)(A + c), m, -e, zp, lo, hi) - lo >= j) b = c;
            else a = c + 1;
        }
        t[j] = a;
    }
    for (int s = 9; s >= 1; s--) {
        const int S1 = 15 + s;
        const int64_t P = (int64_t)1 << S1;
        if ((int64_t)(lo < 0 ? -lo : lo + 1) * P > ((int64_t)1 << 31) || (int64_t)(hi + 1) * P > ((int64_t)1 << 31)) continue;
        const int64_t M0 = ((int64_t)m << S1) >> (31 + e);     /* m < 2^31, S1 <= 24 */
        for (int64_t M = M0 - 3; M <= M0 + 4; M++) {
            int64_t rl = 0, rh = P - 1;
            if (M < 0 || M > 0xffffffffLL) continue;
            for (int j = 1; j <= G; j++) {
                const int64_t a = j * P - t[j] * M, b = j * P - (t[j] - 1) * M - 1;
                rl = a > rl ? a : rl;
                rh = b < rh ? b : rh;
            }
            if (rh > (G + 1) * P - 1 - W * M) rh = (G + 1) * P - 1 - W * M;
            if (rh > ((int64_t)1 << 32) - 1 - W * M) rh = ((int64_t)1 << 32) - 1 - W * M;
            if (rl > rh) continue;
            int32_t q[HTC__XQ2_N];
            memcpy(q, r, sizeof q);
            q[HTC__XQ2_ML] = (int32_t)(uint32_t)M;
            q[HTC__XQ2_MH] = 0;
            q[HTC__XQ2_RLO] = (int32_t)rl;
            q[HTC__XQ2_RHI] = (int32_t)((int64_t)lo * ((int64_t)1 << s));
            q[HTC__XQ2_S] = s;
            /* the record's arithmetic (htc__xq2_apply) at both sides of every step */
            int ok = 1;
            for (int j = 1; j <= G && ok; j++)
                for (int64_t u = t[j] - 1; u <= t[j]; u++) {
                    const uint64_t v = (uint64_t)rl + (uint64_t)u * (uint64_t)M;
                    const int64_t y = (int64_t)(v >> 15) + q[HTC__XQ2_RHI];
                    if (v >= ((uint64_t)1 << 32) || ((y >> s) != htc__requant((int32_t)(A + u), m, -e, zp, lo, hi))) ok = 0;
                }
            if (!ok) continue;
            memcpy(r, q, sizeof q);
            return 1;
        }
    }
    return 0;
}

static int xq2_channel(int32_t m, int e, int64_t f, int32_t K, int32_t zp, int32_t lo, int32_t hi, int32_t *r, int dw)
{
    const int32_t L = lo - zp, H = hi - zp;
    memset(r, 0, sizeof(int32_t) * HTC__XQ2_N);
    if (m == 0) {               /* a dead channel: out_zp clamped, for every acc (depthwise: in one product, s 1) */
        const int32_t o = zp < lo ? lo : zp > hi ? hi : zp;
        r[HTC__XQ2_S] = dw ? 1 : 16;
        r[HTC__XQ2_RHI] = (int32_t)((uint32_t)o << (dw ? 1 : 16));
        return 1;
    }
    if (m < 0 || e < 1 || e > 8 || L < 0 || H <= L) return 0;
    const int D = 31 + e, S = D - 15;
    const int64_t Kc = ((int64_t)1 << 30) + ((int64_t)1 << (30 + e));
    const int64_t nA = ((int64_t)(L + 1) << D) - Kc, nB = ((int64_t)H << D) - Kc;
    const int64_t A = (nA + m - 1) / m - 1, B = (nB + m - 1) / m;     /* both numerators > 0 */
    if (B - A < 1 || B - A >= ((int64_t)1 << 17)) return 0;
    const int64_t V = A * m + Kc, Q = V >> D, R = V - (Q << D);
    if (Q != L) return 0;
    f -= A;
    /* every accumulator in int32 after the offset: |f| + K * 128 * 128 */
    if ((f < 0 ? -f : f) + (int64_t)K * 16384 >= ((int64_t)1 << 31)) return 0;
    r[HTC__XQ2_F] = (int32_t)f;
    r[HTC__XQ2_W] = (int32_t)(B - A);
    r[HTC__XQ2_ML] = m & 0x7fff;
    r[HTC__XQ2_MH] = m >> 15;
    r[HTC__XQ2_RLO] = (int32_t)(R & 0x7fff);
    r[HTC__XQ2_RHI] = (int32_t)((R >> 15) + (int64_t)(Q + zp) * ((int64_t)1 << S));
    r[HTC__XQ2_S] = S;
    /* the kernel's arithmetic (32-bit words) at both sides of every step */
    for (int32_t j = L + 1; j <= H; j++) {
        const int64_t T = ((((int64_t)j << D) - Kc) + m - 1) / m;     /* the first acc of output j */
        for (int64_t a = T - 1; a <= T; a++) {
            const uint32_t u = (uint32_t)(a - A < 0 ? 0 : a - A > B - A ? B - A : a - A);
            const uint32_t t = ((uint32_t)r[HTC__XQ2_RLO] + u * (uint32_t)r[HTC__XQ2_ML]) >> 15;
            const uint64_t s64 = (uint64_t)t + (uint64_t)u * (uint32_t)r[HTC__XQ2_MH] + (uint64_t)(uint32_t)(R >> 15);
            const uint32_t s = t + u * (uint32_t)r[HTC__XQ2_MH] + (uint32_t)r[HTC__XQ2_RHI];
            if (a < INT32_MIN || a > INT32_MAX || s64 >= ((uint64_t)1 << 32) ||
                ((int32_t)s >> S) != htc__requant((int32_t)a, m, -e, zp, lo, hi))
                return 0;
        }
    }
    if (dw) xq1_channel(m, e, zp, lo, hi, A, r);
    return 1;
}

/* ceil(n / m), m > 0, any sign of n */
static int64_t cdiv(int64_t n, int64_t m)
{
    return n >= 0 ? (n + m - 1) / m : -((-n) / m);
}

/* xq3_channel's check of its record at acc a: within [A, B], the
   record's 32-bit arithmetic (each product sum below 2^32, the last value
   within int32) gives htc__requant's output; an a outside is not checked
   (the caller's window ends are). 1 when it does. */
static int xq3_check(int64_t a, int64_t A, int64_t B, int32_t m, int e, int32_t zp, int32_t lo, int32_t hi, uint32_t r0,
                     uint32_t m0, uint32_t m1, uint32_t m2, int64_t rh, int64_t U0, int S)
{
    if (a < A || a > B) return 1;
    const uint64_t u = (uint64_t)(a - A);
    const uint64_t s1 = r0 + u * m0, s2 = (s1 >> 11) + u * m1;
    const int64_t v = (int64_t)((s2 >> 11) + u * m2) + rh - ((int64_t)u < U0 ? 512 : 0);
    return a >= INT32_MIN && a <= INT32_MAX && s1 < ((uint64_t)1 << 32) && s2 < ((uint64_t)1 << 32) &&
           (s2 >> 11) + u * m2 < ((uint64_t)1 << 31) && v >= INT32_MIN && v <= INT32_MAX &&
           ((int32_t)v >> S) == htc__requant((int32_t)a, m, -e, zp, lo, hi);
}

/* The three-product record of a dense convolution's channel (htc.h
   htc__xq3_apply, HTC__XQ3_N words): the window, f and TFLite's constants
   as xq2_channel's, u * m in parts of 11 bits (u < 2^20: each product
   below 2^31), so right shifts up to 11 (ResNet's 8-11) fit where the
   window is below 2^20. Without a fused ReLU (act_min - out_zp < 0) the
   outputs up to out_zp round their ties down (TFLite's half away from
   zero): their steps come 2^31 later in acc * m, which the record's u0
   (the first u of output out_zp + 1) applies (form 4; *two set). Checked
   as xq2_channel's: at both sides of every output step (of either
   rounding) the record's 32-bit arithmetic (each product sum below 2^32,
   the last value within int32) gives htc__requant's output. A window of
   2^20 steps or more is cut to [alo, ahi], the accumulators the channel's
   int8 inputs and weights reach (MobileNetV1's layers 20, 22, 24: shifts
   of 12 and more). 1 and r filled, else 0. */
static int xq3_channel(int32_t m, int e, int64_t f, int32_t K, int32_t zp, int32_t lo, int32_t hi, int64_t alo, int64_t ahi,
                       int32_t *r, int *two)
{
    const int32_t L = lo - zp, H = hi - zp;
    memset(r, 0, sizeof(int32_t) * HTC__XQ3_N);
    if (m == 0) {               /* a dead channel: out_zp clamped, for every acc */
        r[HTC__XQ3_S] = 16;
        r[HTC__XQ3_RH] = (int32_t)((uint32_t)(zp < lo ? lo : zp > hi ? hi : zp) << 16);
        return 1;
    }
    if (m < 0 || e < 1 || e > 22 || H <= L || H < 1) return 0;
    const int D = 31 + e, S = D - 22;
    const int64_t Kc = ((int64_t)1 << 30) + ((int64_t)1 << (30 + e)), half = (int64_t)1 << 31;
    /* the first acc of output j (its tie rounded down when j <= 0) */
#define HTC__XQ3_T(j) cdiv((int64_t)(j) * ((int64_t)1 << D) - Kc + ((j) <= 0 ? half : 0), m)
    int64_t A = HTC__XQ3_T(L + 1) - 1, B = HTC__XQ3_T(H);
    if (B - A >= ((int64_t)1 << 20)) {
        /* a window of 2^20 steps or more: its part that [alo, ahi] (the
           accumulators the int8 inputs and weights reach) meets. An acc
           below A gives lo and above B hi, as u's clamp does; within
           [alo, ahi] the record starts at A = max(A, alo) and ends at
           B = min(B, ahi), and the checks below cover both ends */
        A = A > alo ? A : alo;
        B = B < ahi ? B : ahi;
        if (B <= A) {
            /* [alo, ahi] meets the window in one acc at most: one output
               for every reachable acc (htc__requant is monotonic), the
               dead channel's record with it (u = 0, v = rh) */
            if (alo > ahi || alo < INT32_MIN || ahi > INT32_MAX) return 0;
            const int32_t o = htc__requant((int32_t)alo, m, -e, zp, lo, hi);
            if (o != htc__requant((int32_t)ahi, m, -e, zp, lo, hi)) return 0;
            r[HTC__XQ3_S] = 16;
            r[HTC__XQ3_RH] = (int32_t)((uint32_t)o << 16);
            return 1;
        }
    }
    if (B - A < 1 || B - A >= ((int64_t)1 << 20)) return 0;
    const int64_t V = A * m + Kc, Q = V >> D, R = V - Q * ((int64_t)1 << D);
    int64_t U0 = L + 1 <= 0 ? HTC__XQ3_T(1) - A : 0;
    U0 = U0 < 0 ? 0 : U0 > B - A + 1 ? B - A + 1 : U0;     /* a cut window: before or after output out_zp + 1 */
    f -= A;
    /* every accumulator in int32 after the offset: |f| + K * 128 * 128 */
    if ((f < 0 ? -f : f) + (int64_t)K * 16384 >= ((int64_t)1 << 31)) return 0;
    const uint32_t m0 = (uint32_t)m & 0x7ffu, m1 = ((uint32_t)m >> 11) & 0x7ffu, m2 = (uint32_t)m >> 22;
    const uint32_t r0 = (uint32_t)(R & 0x3fffff);
    const int64_t rh = (R >> 22) + (Q + zp) * ((int64_t)1 << S);
    r[HTC__XQ3_F] = (int32_t)f;
    r[HTC__XQ3_W] = (int32_t)(B - A);
    r[HTC__XQ3_M0] = (int32_t)m0;
    r[HTC__XQ3_M1] = (int32_t)m1;
    r[HTC__XQ3_M2] = (int32_t)m2;
    r[HTC__XQ3_R] = (int32_t)r0;
    r[HTC__XQ3_RH] = (int32_t)(uint32_t)(uint64_t)rh;     /* the kernel's sums are modulo 2^32 */
    r[HTC__XQ3_S] = S;
    r[HTC__XQ3_U] = (int32_t)U0;
    /* the kernel's arithmetic at both sides of every step of either rounding */
    for (int32_t j = L + 1; j <= H; j++) {
        for (int k = 0; k < 2; k++) {
            const int64_t T = cdiv((int64_t)j * ((int64_t)1 << D) - Kc + (k ? half : 0), m);
            for (int64_t a = T - 1; a <= T; a++) {
                if (!xq3_check(a, A, B, m, e, zp, lo, hi, r0, m0, m1, m2, rh, U0, S)) return 0;
            }
        }
    }
    /* the window's ends (a window cut to [alo, ahi] may start or end
       between steps) */
    if (!xq3_check(A, A, B, m, e, zp, lo, hi, r0, m0, m1, m2, rh, U0, S) ||
        !xq3_check(B, A, B, m, e, zp, lo, hi, r0, m0, m1, m2, rh, U0, S))
        return 0;
#undef HTC__XQ3_T
    if (U0 > 0) *two = 1;
    return 1;
}

/* p's records of xq3_channel (a dense convolution, OHWI weights w): how
   many channels have one (the others: w = -1); *two set when a channel
   needs form 4 (no fused ReLU) */
int quant_xq3(const htc__conv_params *p, const int8_t *w, int32_t *rec, int *two)
{
    const int32_t K = p->k_h * p->k_w * p->in_c;
    int n = 0;
    *two = 0;
    if (!w || p->w_zp != 0 || K >= 32768) return 0;
    for (int32_t c = 0; c < p->out_c; c++) {
        int32_t *r = rec + (size_t)c * HTC__XQ3_N;
        int64_t f = p->bias ? p->bias[c] : 0;
        int32_t nz = 0;
        int64_t lo = 0, hi = 0;         /* sum w * x over x in [-128, 127]: its least and greatest */
        for (int32_t i = 0; i < K; i++) {
            const int32_t wi = w[(size_t)c * K + i];
            f -= (int64_t)p->in_zp * wi, nz |= wi;
            lo += wi > 0 ? -128 * wi : 127 * wi;
            hi += wi > 0 ? 127 * wi : -128 * wi;
        }
        const int32_t m = p->mult[p->per_channel ? c : 0];
        if (!nz && m > 0 && f >= INT32_MIN && f <= INT32_MAX) {
            /* every weight 0 (a pruned channel; its window may be any
               size): the accumulator is f, the output one constant, the
               dead channel's record with it (u = 0, v = rh) */
            memset(r, 0, sizeof(int32_t) * HTC__XQ3_N);
            r[HTC__XQ3_S] = 16;
            r[HTC__XQ3_RH] = (int32_t)((uint32_t)htc__requant((int32_t)f, m, p->shift[p->per_channel ? c : 0], p->out_zp,
                                                              p->act_min, p->act_max) << 16);
            n++;
        } else if (xq3_channel(m, -p->shift[p->per_channel ? c : 0], f, K, p->out_zp, p->act_min, p->act_max, f + lo, f + hi,
                               r, two))
            n++;
        else
            r[HTC__XQ3_W] = -1;
    }
    return n;
}

/* p with weights w (OHWI, or depthwise [k_h][k_w][C] with one multiplier
   per channel): how many channels have a record in rec. A convolution's
   kernel takes the records only when every channel has one; a depthwise
   channel without one is marked w = -1 (its kernel falls back per channel). */
int quant_xq2(const htc__conv_params *p, const int8_t *w, int dw, int32_t *rec)
{
    const int32_t nch = p->out_c, K = dw ? p->k_h * p->k_w : p->k_h * p->k_w * p->in_c;
    int n = 0;
    if (!w || (dw && p->depth_mult != 1) || p->w_zp != 0 || K >= 32768) return 0;
    for (int32_t c = 0; c < nch; c++) {
        int32_t *r = rec + (size_t)c * HTC__XQ2_N;
        int64_t f = p->bias ? p->bias[c] : 0;
        for (int32_t i = 0; i < K; i++) f -= (int64_t)p->in_zp * w[dw ? (size_t)i * nch + c : (size_t)c * K + i];
        if (xq2_channel(p->mult[p->per_channel ? c : 0], -p->shift[p->per_channel ? c : 0], f, K, p->out_zp, p->act_min,
                        p->act_max, r, dw))
            n++;
        else
            r[HTC__XQ2_W] = -1;
    }
    return n;
}

/* The XpulpV2 ADD's tables in final form (htc.h HTC__XADD_*, kernels/add.c
   htc__xadd_run) of a TFLite int8 ADD. Each input's rescaled term (TFLite's
   first two steps, htc__add_one: sa[x], sb[x]) depends on its byte alone.
   For s = sa[a] + sb[b] >= 0 the output's rescaling (SaturatingRounding-
   DoublingHighMul, then RoundingDivideByPOT by e: both round half up
   there) is floor((s * m + 2^30 + 2^(30+e)) / 2^(31+e)) (2^30 alone when
   e = 0): each input's term times m, divided by 2^(31+e-f) (rounded to
   nearest, down or up; the constants and out_zp folded into a's), summed
   and shifted right by f gives it wherever the two divisions' errors
   cross no output step; below zero TFLite rounds half away from zero,
   which the form may miss. So exactness is checked, not assumed: every
   one of the 65,536 pairs of bytes against htc__add_one's arithmetic, the
   largest f whose terms stay below 2^30 in magnitude (their sum fits
   int32) first. f (> 0) with rec's HTC__XADD_N words filled, else 0. */
static int xadd_form(const htc__binary_params *p, const int32_t *sa, const int32_t *sb, int f, int mode, int32_t *rec)
{
    const int e = -p->out_shift, E = 31 + e, sh = E - f;
    const int64_t rnd = mode == 0 ? (sh ? (int64_t)1 << (sh - 1) : 0) : mode == 1 ? 0 : ((int64_t)1 << sh) - 1;
    const int64_t c = ((int64_t)1 << 30) + (e ? (int64_t)1 << (E - 1) : 0) + (int64_t)p->out_zp * ((int64_t)1 << E);
    const int64_t lim = (int64_t)1 << 30;
    for (int i = 0; i < 256; i++) {
        /* floor division by 2^sh of a value below 2^62 in magnitude */
        const int64_t xa = (int64_t)sa[i] * p->out_mult + c + rnd, xb = (int64_t)sb[i] * p->out_mult + rnd;
        const int64_t ua = xa >= 0 ? xa >> sh : -((-xa + ((int64_t)1 << sh) - 1) >> sh);
        const int64_t ub = xb >= 0 ? xb >> sh : -((-xb + ((int64_t)1 << sh) - 1) >> sh);
        if (ua >= lim || ua <= -lim || ub >= lim || ub <= -lim) return 0;
        rec[HTC__XADD_A + i] = (int32_t)ua;
        rec[HTC__XADD_B + i] = (int32_t)ub;
    }
    for (int a = 0; a < 256; a++)
        for (int b = 0; b < 256; b++) {
            const int32_t want = htc__clamp(htc__mulq(sa[a] + sb[b], p->out_mult, p->out_shift) + p->out_zp, p->act_min, p->act_max);
            /* the kernel's arithmetic shift, as floor division */
            const int32_t v = rec[HTC__XADD_A + a] + rec[HTC__XADD_B + b];
            const int32_t got = v >= 0 ? v >> f : -(int32_t)(((uint32_t)-v + ((1u << f) - 1)) >> f);
            if (htc__clamp(got, p->act_min, p->act_max) != want) return 0;
        }
    rec[HTC__XADD_F] = f;
    return f;
}

int quant_xadd(const htc__binary_params *p, int32_t *rec)
{
    int32_t sa[256], sb[256];
    const int ls = p->left_shift, e = -p->out_shift;
    /* kernels/add.c's XpulpV2 conditions (htc__add_port_ok), every term below
       2^29 in magnitude: (x + offset) << left_shift below 383 * 2^20 */
    if (p->broadcast || p->a_mult < 0 || p->b_mult < 0 || p->out_mult < 0 || p->a_shift > 0 || p->b_shift > 0 ||
        p->out_shift > 0 || ls < 0 || ls > 20 || e > 22 || p->a_offset < -255 || p->a_offset > 255 ||
        p->b_offset < -255 || p->b_offset > 255 || p->out_zp < -255 || p->out_zp > 255 || p->act_min > p->act_max)
        return 0;
    for (int i = 0; i < 256; i++) {
        sa[i] = htc__rdivpot(htc__srdhm((i - 128 + p->a_offset) * (1 << ls), p->a_mult), -p->a_shift);
        sb[i] = htc__rdivpot(htc__srdhm((i - 128 + p->b_offset) * (1 << ls), p->b_mult), -p->b_shift);
    }
    for (int f = 30 < 31 + e ? 30 : 31 + e; f >= 1; f--)
        for (int mode = 0; mode < 3; mode++)
            if (xadd_form(p, sa, sb, f, mode, rec)) return f;
    return 0;
}

/* QuantLib's Add with one RequantShift (htc.h htc__ql_rq): out =
   clamp(((a + a_off + b + b_off) * m + ad + 2^(sh-1)) >> sh, lo, hi) +
   out_zp. The product distributes over the sum, so each operand's byte
   gives one term (the constants, the rounding and out_zp * 2^sh folded
   into a's) and the kernel's clamp((ta[a] + tb[b]) >> sh, lo + out_zp,
   hi + out_zp) is the same integer while the terms stay below 2^30 in
   magnitude (their sum fits int32); checked on every pair of bytes all
   the same. */
int quant_qladd(const htc__ql_binary_params *p, int32_t m, int32_t ad, int32_t *rec)
{
    const int sh = p->shift, zp = -p->out_off;
    const int64_t lim = (int64_t)1 << 30;
    if (p->op != 0 || !p->rq || p->rq_nch != 1 || p->a_i32 || p->b_i32 || sh < 0 || sh > 30 || p->lo > p->hi)
        return 0;
    const int64_t c = (int64_t)ad + (sh > 0 ? (int64_t)1 << (sh - 1) : 0) + (int64_t)zp * ((int64_t)1 << sh);
    for (int i = 0; i < 256; i++) {
        const int64_t ta = (int64_t)(i - 128 + p->a_off) * m + c, tb = (int64_t)(i - 128 + p->b_off) * m;
        if (ta >= lim || ta <= -lim || tb >= lim || tb <= -lim) return 0;
        rec[HTC__XADD_A + i] = (int32_t)ta;
        rec[HTC__XADD_B + i] = (int32_t)tb;
    }
    rec[HTC__XADD_F] = sh;
    for (int a = 0; a < 256; a++)
        for (int b = 0; b < 256; b++) {
            const int32_t want = htc__ql_rq((int64_t)(a - 128 + p->a_off) + (b - 128 + p->b_off), m, ad, sh, p->lo, p->hi) + zp;
            /* the kernel's arithmetic shift, as floor division */
            const int32_t v = rec[HTC__XADD_A + a] + rec[HTC__XADD_B + b];
            const int32_t got = v >= 0 ? v >> sh : -(int32_t)(((uint32_t)-v + ((1u << sh) - 1)) >> sh);
            if (htc__clamp(got, p->lo + zp, p->hi + zp) != want) return 0;
        }
    return 1;
}
