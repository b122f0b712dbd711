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

/* LOGISTIC int8 -> the 256-entry table of TFLite Micro's fixed-point kernel
   (output scale 1/256, zero point -128), plus its Prepare parameters. */
void quant_logistic_params(float in_scale, int32_t in_zp, htc__logistic_params *p);

/* MEAN over H,W: multiplier/shift from in_scale/out_scale. */
void quant_mean_params(float in_scale, int32_t in_zp, float out_scale,
                       int32_t out_zp, htc__mean_params *p);

/* REQUANTIZE (TFLite QUANTIZE int8->int8/uint8): in_scale/out_scale. */
void quant_requant_params(float in_scale, int32_t in_zp, float out_scale,
                          int32_t out_zp, htc__quant_params *p);

#endif
