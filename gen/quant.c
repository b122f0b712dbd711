/* quant.c - TFLite's Prepare-time arithmetic at compile time: float scales
   to the integer multipliers, shifts, bounds and tables the kernels use. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "quant.h"

/* Every function below follows the interpreter's own evaluation order:
   float products stay float where TFLite multiplies floats, doubles where it
   converts first, so the quantized multipliers come out bit-identical. The
   source checked against is LiteRT (ai-edge-litert 2.3.0, BUILTIN_REF):
   kernel_util.cc, quantization_util.cc, fully_connected.cc, add.cc, mul.cc,
   activations.cc, reduce.cc, quantize.cc. */

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

/* fully_connected.cc: per-channel filters as above; a per-tensor filter goes
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

/* add.cc Prepare, 8-bit general path. */
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

/* mul.cc Prepare: input1_scale * input2_scale / output_scale evaluated in
   float (all three are floats), then widened to double. */
void quant_mul_params(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp,
                      float out_scale, int32_t out_zp, htc__binary_params *p)
{
    volatile float prod = a_scale * b_scale;
    volatile float real = prod / out_scale;
    int32_t m;
    int s;
    p->a_offset = -a_zp;
    p->b_offset = -b_zp;
    p->out_zp = out_zp;
    p->left_shift = 0;
    p->a_mult = p->b_mult = 0;
    p->a_shift = p->b_shift = 0;
    quant_multiplier((double)real, &m, &s);
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

/* activations.cc SoftmaxPrepare, kReference, int8: PreprocessSoftmaxScaling
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

/* activations.cc SigmoidPrepare, kReference, int8: the kernel is a 256-entry
   table (LUTPopulate<int8_t>) of 1 / (1 + exp(-x)) computed in float with the
   output fixed at scale 1/256, zero point -128. The table is indexed by the
   input byte reinterpreted as uint8. The gemmlowp parameters of the
   fixed-point variant are filled in too, for reference only. */
void quant_logistic_params(float in_scale, int32_t in_zp, htc__logistic_params *p)
{
    const float out_scale = 1.0f / 256;
    const int32_t out_zp = -128;
    volatile float inverse_scale = 1 / out_scale;
    for (int32_t v = -128; v <= 127; v++) {
        volatile float deq = in_scale * (float)(v - in_zp);
        volatile float e = expf(-deq);
        volatile float den = 1.0f + e;
        volatile float tr = 1.0f / den;
        volatile float scaled = tr * inverse_scale;
        float rescaled = roundf(scaled);
        volatile float sum = rescaled + (float)out_zp;
        int32_t q;
        if (sum != sum) q = INT32_MIN;                     /* cannot happen: tr in [0, 1] */
        else q = (int32_t)sum;
        if (q > 127) q = 127;
        if (q < -128) q = -128;
        p->lut[(uint8_t)(int8_t)v] = (int8_t)q;
    }
    /* fixed-point variant (kFixedPointOptimized), informational */
    {
        const int int_bits = 4;
        int e = 0;
        double real = (double)in_scale * (double)(1 << (15 - int_bits));
        double q = frexp(real, &e);
        p->in_zp = in_zp;
        p->input_multiplier = (int32_t)(int16_t)(int32_t)round(q * (double)(1 << 15));
        p->input_left_shift = e;
        p->input_range_radius = (int32_t)(int16_t)input_radius(int_bits, e, 15);
    }
}

/* reduce.cc PrepareMeanOrSum: double(input_scale) / double(output_scale).
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

/* quantize.cc Prepare (requantize): double(input_scale) / double(output_scale). */
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
