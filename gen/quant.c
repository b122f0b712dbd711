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
   ai-edge-litert instead fills the table with float 1/(1+exp(-x)) rounded
   (LUTPopulate), which differs by one on rare inputs. */
void quant_logistic_params(float in_scale, int32_t in_zp, htc__logistic_params *p)
{
    const int int_bits = 4;
    int shift = 0;
    double q = frexp((double)in_scale * (double)(1 << (31 - int_bits)), &shift);
    int64_t qf = (int64_t)round(q * 2147483648.0);
    int32_t mult = (int32_t)(uint32_t)(uint64_t)qf;
    int32_t radius = (int32_t)floor(ldexp(15.0 * (double)((int64_t)1 << (31 - int_bits)), -shift));
    p->in_zp = in_zp;
    p->input_multiplier = mult;
    p->input_left_shift = shift;
    p->input_range_radius = radius;
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
        p->lut[(uint8_t)(int8_t)v] = (int8_t)y;
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
