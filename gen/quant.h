/* quant.h - compile-time quantization arithmetic (the "Prepare" step).
   Turns float scales into the integer parameters the kernels use, exactly
   as TFLite Micro computes them, so results match bit for bit. */
#ifndef HTC_QUANT_H
#define HTC_QUANT_H

#include <stdint.h>
#include "ir.h"
#include "../htc.h"

/* TFLite QuantizeMultiplier: real = mult * 2^(shift-31), mult in [2^30,2^31).
   real == 0 gives mult = 0, shift = 0. */
void quant_multiplier(double real, int32_t *mult, int *shift);

/* CalculateActivationRangeQuantized: clamp bounds for a fused activation on
   an output with (scale, zp) and storage range [qmin, qmax]. */
void quant_act_range(Activation act, float scale, int32_t zp, int32_t qmin,
                     int32_t qmax, int32_t *lo, int32_t *hi);

/* Conv / depthwise / FC per-channel (nw > 1) or per-tensor (nw == 1)
   multipliers: real[c] = in_scale * w_scale[c] / out_scale, with TFLite's
   float/double evaluation order. Writes nw entries. */
void quant_conv_multipliers(float in_scale, const float *w_scale, int nw,
                            float out_scale, int32_t *mult, int8_t *shift);

/* FULLY_CONNECTED: per-channel as above; per-tensor (nw == 1) TFLite uses
   GetQuantizedConvolutionMultipler, double(float(in_scale * w_scale)) /
   double(out_scale), which differs from the conv formula in the low bits. */
void quant_fc_multipliers(float in_scale, const float *w_scale, int nw,
                          float out_scale, int32_t *mult, int8_t *shift);

/* ADD (and SUB) parameters as TFLite's Prepare computes them
   (left_shift = 20 for int8). Fills multipliers, shifts, offsets, out_zp. */
void quant_add_params(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp,
                      float out_scale, int32_t out_zp, htc__binary_params *p);

/* MUL: out = mulq((a - a_zp)*(b - b_zp), mult, shift) + out_zp. */
void quant_mul_params(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp,
                      float out_scale, int32_t out_zp, htc__binary_params *p);

/* SOFTMAX int8 (beta, input scale) -> multiplier, left shift, diff_min. */
void quant_softmax_params(float beta, float in_scale, htc__softmax_params *p);
int quant_softmax_exp_table(const htc__softmax_params *p, int32_t *tab);   /* entries written (<= 256) */

/* Element-wise int8 tables, lut[(uint8_t)x] = TFLite Micro's int8 kernel
   (its Prepare, then its Eval arithmetic) applied to x. LOGISTIC: output
   scale 1/256, zero point -128; TANH: output Q0.7. */
void quant_table_logistic(float in_scale, int32_t in_zp, int8_t *lut);
void quant_table_tanh(float in_scale, int32_t in_zp, int8_t *lut);
/* 0 when TFLM's Prepare refuses the scales (output multiplier above 1). */
int quant_table_hard_swish(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t *lut);
void quant_table_relu(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t *lut);
void quant_table_relu6(float in_scale, int32_t in_zp, int8_t *lut);
void quant_table_relux(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float lo_f, float hi_f,
                       int8_t *lut);
void quant_table_leaky_relu(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float alpha,
                            int8_t *lut);
void quant_table_abs(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t *lut);
void quant_table_rsqrt(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t *lut);
/* TFLite's LUTPopulate<int8_t>: f evaluated in float on each dequantized
   input (GELU, which TFLite Micro lacks: ai-edge-litert's table). */
void quant_table_float(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float (*f)(float),
                       int8_t *lut);

/* MEAN over H,W: multiplier/shift from in_scale/out_scale. */
void quant_mean_params(float in_scale, int32_t in_zp, float out_scale,
                       int32_t out_zp, htc__mean_params *p);

/* REQUANTIZE (TFLite QUANTIZE int8->int8/uint8): in_scale/out_scale. */
void quant_requant_params(float in_scale, int32_t in_zp, float out_scale,
                          int32_t out_zp, htc__quant_params *p);

/* TFLite's LUTPopulate<int16_t> (513 entries, float arithmetic) of the int16
   softmax: which 0 = exp over [-10, 0], 1 = 1 / (1 + x) over [0, 1]. */
void quant_softmax_lut16(int which, int32_t lut[513]);

/* TFLite's sigmoid_table_uint16 (int16 LOGISTIC, TANH, LSTM gates):
   t[i] = sigmoid(i / 24) in 0.16, biased by half the interpolation error
   (the formula in gen/quant.c); quant_sigmoid16_tensor: the table as one
   shared constant int16 [256] tensor of g (its index; created once), the
   last input of kernels that call htc.h's htc__sigmoid16 / htc__tanh16
   (defined in gen/lower.c: it adds to the graph, and quant.c links alone
   into tests/kernels). */
void quant_sigmoid16_table(uint16_t t[256]);
int quant_sigmoid16_tensor(Graph *g);

/* TFLite's CheckedLog2: *log2_result = round(log2 x); 1 when x is a power
   of two within 1e-3 in the exponent. */
int quant_checked_log2(float x, int *log2_result);

/* The XpulpV2 kernels' final-form TFLite requantization records (htc.h
   htc__xq2_apply) of an int8 convolution (dw: depthwise), rec: out_c *
   HTC__XQ2_N words: how many channels are exact (the others: w = -1). */
int quant_xq2(const htc__conv_params *p, const int8_t *w, int dw, int32_t *rec);
/* A dense convolution's three-product records (htc.h htc__xq3_apply),
   HTC__XQ3_N words a channel: how many channels are exact; *two: some
   channel needs the form without a fused ReLU (htc__xq3_apply's two). */
int quant_xq3(const htc__conv_params *p, const int8_t *w, int32_t *rec, int *two);
/* An int8 ADD's tables in final form (htc.h HTC__XADD_*, kernels/add.c
   htc__xadd_run), rec: HTC__XADD_N words; checked on every pair of bytes:
   the shift f (> 0), or 0 when no such form is exact. */
int quant_xadd(const htc__binary_params *p, int32_t *rec);
/* A QuantLib Add's tables in the same form (the RequantShift's per-tensor
   mul m and add ad): 1 when exact on every pair of bytes, else 0. */
int quant_qladd(const htc__ql_binary_params *p, int32_t m, int32_t ad, int32_t *rec);

#endif
