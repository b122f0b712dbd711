/* cpu_kernels.c - htc's own CPU kernels (kernels/): which one an op runs
   and which have a parallel entry point; the same for every target. */
#include <string.h>

#include "ir.h"

const char *const split_names[SPLIT_COUNT] = {"rows", "channels"};

/* htc's CPU kernels (kernels/), one table: what an op of the cpu engine
   runs when its entry names neither `kernel` nor `fn`, chosen by the
   operation, its requantization kind and an attribute. The first row that
   matches wins; RQ_COUNT matches any kind. A target gives only the costs
   of its CPU; accelerator ops always name their kernel (a device model). */
enum { K_ANY, K_DW, K_GLOBAL, K_INT32, K_S16, K_F32 };
static const struct {
    OpKind kind;
    RequantKind rq;
    int when;
    const char *file, *fn;
} cpu_kernels[] = {
    /* float32 models: TFLite Micro's float reference kernels, instead of every integer kernel */
    {OP_FC, RQ_COUNT, K_F32, "kernels/float.c", "htc__fc_f32"},
    {OP_SOFTMAX, RQ_COUNT, K_F32, "kernels/float.c", "htc__softmax_f32"},
    {OP_LSTM, RQ_COUNT, K_F32, "kernels/float.c", "htc__lstm_f32"},
    {OP_ADD, RQ_COUNT, K_F32, "kernels/float.c", "htc__binary_f32"},
    {OP_MUL, RQ_COUNT, K_F32, "kernels/float.c", "htc__binary_f32"},
    {OP_TABLE, RQ_COUNT, K_F32, "kernels/float.c", "htc__unary_f32"},
    /* int32 element-wise arithmetic (TFLM's audio front ends), before the int8 kernels */
    {OP_ADD, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_SUB, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_MUL, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_DIV, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_MAXIMUM, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    {OP_MINIMUM, RQ_NONE, K_INT32, "kernels/signal.c", "htc__binary_s32"},
    /* int16 activations (16x8), before and instead of every int8 kernel */
    {OP_CONV2D, RQ_TFLITE, K_S16, "kernels/conv_s16.c", "htc__conv2d_s16"},
    {OP_FC, RQ_TFLITE, K_S16, "kernels/conv_s16.c", "htc__conv2d_s16"},
    {OP_QUANTIZE, RQ_TFLITE, K_S16, "kernels/quant_s16.c", "htc__quantize"},
    {OP_REQUANTIZE, RQ_TFLITE, K_S16, "kernels/quant_s16.c", "htc__requantize"},
    {OP_DEQUANTIZE, RQ_TFLITE, K_S16, "kernels/quant_s16.c", "htc__dequantize"},
    {OP_ADD, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__add_s16"},
    {OP_SOFTMAX, RQ_TFLITE, K_S16, "kernels/softmax_s16.c", "htc__softmax_s16"},
    {OP_MEAN, RQ_TFLITE, K_S16, "kernels/reduce_s16.c", "htc__reduce_s16"},
    {OP_SUM, RQ_TFLITE, K_S16, "kernels/reduce_s16.c", "htc__reduce_s16"},
    {OP_TABLE, RQ_COUNT, K_S16, "kernels/act_s16.c", "htc__act_s16"},
    {OP_AVGPOOL, RQ_TFLITE, K_S16, "kernels/pool_s16.c", "htc__avgpool_s16"},
    {OP_MAXPOOL, RQ_COUNT, K_S16, "kernels/pool_s16.c", "htc__maxpool_s16"},
    {OP_SUB, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__sub_s16"},
    {OP_MUL, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__mul_s16"},
    {OP_SQDIFF, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__sqdiff_s16"},
    {OP_PRELU, RQ_TFLITE, K_S16, "kernels/binary_s16.c", "htc__prelu_s16"},
    {OP_MAXIMUM, RQ_NONE, K_S16, "kernels/binary_s16.c", "htc__maximum_s16"},
    {OP_MINIMUM, RQ_NONE, K_S16, "kernels/binary_s16.c", "htc__minimum_s16"},
    {OP_MATMUL, RQ_TFLITE, K_S16, "kernels/matmul_s16.c", "htc__matmul_s16"},
    {OP_TRANSPOSE_CONV, RQ_TFLITE, K_S16, "kernels/tconv_s16.c", "htc__tconv_s16"},
    {OP_CONV2D, RQ_TFLITE, K_DW, "kernels/conv2d.c", "htc__dwconv2d_s8"},
    {OP_CONV2D, RQ_TFLITE, K_ANY, "kernels/conv2d.c", "htc__conv2d_s8"},
    {OP_CONV2D, RQ_FLOAT, K_ANY, "kernels/conv2d.c", "htc__qconv2d"},
    {OP_CONV2D, RQ_NONE, K_INT32, "kernels/conv2d.c", "htc__qconv2d"},
    {OP_CONV2D, RQ_FP32, K_ANY, "kernels/ort_float.c", "htc__fconv2d"},
    {OP_FC, RQ_TFLITE, K_ANY, "kernels/fc.c", "htc__fc_s8"},
    {OP_FC, RQ_FLOAT, K_ANY, "kernels/fc.c", "htc__qfc"},
    {OP_FC, RQ_NONE, K_INT32, "kernels/fc.c", "htc__qfc"},
    {OP_ADD, RQ_TFLITE, K_ANY, "kernels/add.c", "htc__add_s8"},
    {OP_ADD, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qadd_s8"},
    {OP_ADD, RQ_FP32, K_ANY, "kernels/ort_float.c", "htc__fadd"},
    {OP_MUL, RQ_TFLITE, K_ANY, "kernels/mul.c", "htc__mul_s8"},
    {OP_MUL, RQ_FLOAT, K_ANY, "kernels/mul.c", "htc__qmul_s8"},
    {OP_MUL, RQ_FP32, K_ANY, "kernels/ort_float.c", "htc__fmul"},
    {OP_AVGPOOL, RQ_TFLITE, K_ANY, "kernels/pool.c", "htc__avgpool_s8"},
    {OP_AVGPOOL, RQ_FLOAT, K_GLOBAL, "kernels/ort_eltwise.c", "htc__qgap_s8"},
    {OP_AVGPOOL, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qavgpool_s8"},
    {OP_MAXPOOL, RQ_COUNT, K_ANY, "kernels/pool.c", "htc__maxpool_s8"},
    {OP_MEAN, RQ_TFLITE, K_GLOBAL, "kernels/mean.c", "htc__mean_s8"},
    {OP_PAD, RQ_COUNT, K_ANY, "kernels/pad.c", "htc__pad"},
    {OP_CONCAT, RQ_COUNT, K_ANY, "kernels/concat.c", "htc__concat"},
    {OP_TRANSPOSE, RQ_COUNT, K_ANY, "kernels/transpose.c", "htc__transpose"},
    {OP_SOFTMAX, RQ_TFLITE, K_ANY, "kernels/softmax.c", "htc__softmax_s8"},
    {OP_SOFTMAX, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qsoftmax_s8"},
    {OP_SOFTMAX, RQ_FP32, K_ANY, "kernels/ort_float.c", "htc__fsoftmax_s8"},
    {OP_TABLE, RQ_QUANTLIB, K_ANY, "kernels/qlib_eltwise.c", "htc__ql_table"},
    {OP_TABLE, RQ_COUNT, K_ANY, "kernels/table.c", "htc__lut8"},
    {OP_QUANTIZE, RQ_TFLITE, K_ANY, "kernels/quantize.c", "htc__quantize"},
    {OP_QUANTIZE, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qlinear_quantize"},
    {OP_DEQUANTIZE, RQ_TFLITE, K_ANY, "kernels/quantize.c", "htc__dequantize"},
    {OP_DEQUANTIZE, RQ_FLOAT, K_ANY, "kernels/ort_eltwise.c", "htc__qlinear_dequantize"},
    {OP_REQUANTIZE, RQ_TFLITE, K_ANY, "kernels/quantize.c", "htc__requantize"},
    /* QuantLib's integer graphs (gen/qlib.c): RequantShift as every op's epilogue */
    {OP_CONV2D, RQ_QUANTLIB, K_ANY, "kernels/conv2d.c", "htc__ql_conv2d"},
    {OP_FC, RQ_QUANTLIB, K_ANY, "kernels/fc.c", "htc__ql_matmul"},
    {OP_ADD, RQ_QUANTLIB, K_ANY, "kernels/mul.c", "htc__ql_binary"},
    {OP_MUL, RQ_QUANTLIB, K_ANY, "kernels/mul.c", "htc__ql_binary"},
    {OP_REQUANTIZE, RQ_QUANTLIB, K_ANY, "kernels/qlib_eltwise.c", "htc__ql_requant"},
    {OP_GATHER, RQ_COUNT, K_ANY, "kernels/qlib_eltwise.c", "htc__ql_gather"},
    {OP_SOFTMAX, RQ_QUANTLIB, K_ANY, "kernels/qlib_norm.c", "htc__ql_softmax"},
    {OP_NORM, RQ_QUANTLIB, K_ANY, "kernels/qlib_norm.c", "htc__ql_norm"},
    {OP_MEAN, RQ_QUANTLIB, K_ANY, "kernels/qlib_norm.c", "htc__ql_mean"},
    {OP_SUB, RQ_TFLITE, K_ANY, "kernels/binary.c", "htc__sub_s8"},
    {OP_SQDIFF, RQ_TFLITE, K_ANY, "kernels/binary.c", "htc__sqdiff_s8"},
    {OP_MAXIMUM, RQ_NONE, K_ANY, "kernels/binary.c", "htc__maximum"},
    {OP_MINIMUM, RQ_NONE, K_ANY, "kernels/binary.c", "htc__minimum"},
    {OP_PRELU, RQ_TFLITE, K_ANY, "kernels/binary.c", "htc__prelu_s8"},
    {OP_MATMUL, RQ_TFLITE, K_ANY, "kernels/fc.c", "htc__matmul_s8"},
    {OP_TRANSPOSE_CONV, RQ_TFLITE, K_ANY, "kernels/transpose_conv.c", "htc__tconv_s8"},
    {OP_RESIZE, RQ_COUNT, K_ANY, "kernels/resize.c", "htc__resize"},
    {OP_TILE, RQ_COUNT, K_ANY, "kernels/move.c", "htc__tile"},
    {OP_SLICE, RQ_COUNT, K_ANY, "kernels/move.c", "htc__slice"},
    {OP_SPACE_TO_BATCH, RQ_COUNT, K_ANY, "kernels/move.c", "htc__space_to_batch"},
    {OP_BATCH_TO_SPACE, RQ_COUNT, K_ANY, "kernels/move.c", "htc__batch_to_space"},
    {OP_MEAN, RQ_TFLITE, K_ANY, "kernels/reduce.c", "htc__reduce_s8"},
    {OP_SUM, RQ_TFLITE, K_ANY, "kernels/reduce.c", "htc__reduce_s8"},
    {OP_REDUCE_MAX, RQ_NONE, K_ANY, "kernels/reduce.c", "htc__reduce_s8"},
    {OP_L2NORM, RQ_TFLITE, K_ANY, "kernels/reduce.c", "htc__l2norm_s8"},
    {OP_NEG, RQ_NONE, K_ANY, "kernels/float.c", "htc__neg"},
    {OP_REDUCE_MIN, RQ_NONE, K_ANY, "kernels/reduce.c", "htc__reduce_s8"},
    {OP_ARGMAX, RQ_NONE, K_ANY, "kernels/reduce.c", "htc__argminmax_s8"},
    {OP_ARGMIN, RQ_NONE, K_ANY, "kernels/reduce.c", "htc__argminmax_s8"},
    {OP_MIRROR_PAD, RQ_COUNT, K_ANY, "kernels/move.c", "htc__mirror_pad"},
    {OP_LSTM, RQ_TFLITE, K_ANY, "kernels/lstm.c", "htc__lstm"},
    /* TFLite Micro parity, int8 graphs (issue 13) */
    {OP_COMPARE, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__compare"},
    {OP_LOGICAL, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__logical"},
    {OP_SELECT, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__select"},
    {OP_CAST, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__cast"},
    {OP_FILL, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__fill"},
    {OP_GATHER_ND, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__gather_nd"},
    {OP_UPDATE_SLICE, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__update_slice"},
    {OP_ADD_N, RQ_TFLITE, K_ANY, "kernels/arith8.c", "htc__add_n_s8"},
    {OP_CUMSUM, RQ_TFLITE, K_ANY, "kernels/arith8.c", "htc__cumsum_s8"},
    {OP_CUMSUM, RQ_NONE, K_ANY, "kernels/arith8.c", "htc__cumsum"},
    {OP_REDUCE_ALL, RQ_COUNT, K_ANY, "kernels/logic.c", "htc__reduce_all"},
    {OP_SVDF, RQ_TFLITE, K_ANY, "kernels/svdf.c", "htc__svdf"},
    {OP_LOG_SOFTMAX, RQ_TFLITE, K_ANY, "kernels/arith8.c", "htc__log_softmax_s8"},
    {OP_DIV, RQ_TFLITE, K_ANY, "kernels/arith8.c", "htc__div_s8"},
    /* TFLite Micro's signal library (custom Signal* operators) */
    {OP_WINDOW, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__window"},
    {OP_FFT_AUTOSCALE, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__fft_autoscale"},
    {OP_RFFT, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__rfft"},
    {OP_ENERGY, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__energy"},
    {OP_FILTER_BANK, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__filter_bank"},
    {OP_FB_SQRT, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__fb_sqrt"},
    {OP_SPECTRAL_SUB, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__spectral_sub"},
    {OP_PCAN, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__pcan"},
    {OP_FB_LOG, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__fb_log"},
    {OP_DELAY, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__delay"},
    {OP_OVERLAP_ADD, RQ_COUNT, K_ANY, "kernels/signal.c", "htc__overlap_add"},
    {OP_DETECT_PP, RQ_COUNT, K_ANY, "kernels/detect.c", "htc__detection_pp"},
};

int cpu_kernel(const Op *op, const char **file, const char **fn)
{
    for (size_t i = 0; i < sizeof cpu_kernels / sizeof cpu_kernels[0]; i++) {
        if (cpu_kernels[i].kind != op->kind) continue;
        if (cpu_kernels[i].rq != RQ_COUNT && cpu_kernels[i].rq != op->rq) continue;
        int w = cpu_kernels[i].when;
        if ((w == K_S16) != (op->s16 != 0) || (w == K_F32) != (op->f32 != 0)) continue;
        if ((w == K_DW && !op->depthwise) || (w == K_GLOBAL && !op->global) ||
            (w == K_INT32 && !op->int32_out))
            continue;
        *file = cpu_kernels[i].file;
        *fn = cpu_kernels[i].fn;
        return 1;
    }
    return 0;
}

/* The CPU kernels (function name and variant) with a parallel entry point: fn<variant>_par(the same
   arguments..., split, core, ncores) computes core's share of the output
   (HTC_SPLIT_* of htc.h), the bytes identical for every ncores. */
#define S_R (1 << SPLIT_ROWS)
#define S_C (1 << SPLIT_CHANNELS)
static const struct {
    const char *fn;
    int splits;
} par_kernels[] = {
    {"htc__conv2d_s8", S_R | S_C | SPLIT_BAND},
    {"htc__dwconv2d_s8", S_R | S_C | SPLIT_BAND},
    {"htc__qconv2d_s8", S_R | S_C},
    {"htc__qconv2d_s32", S_R | S_C},
    {"htc__ql_conv2d", S_R | S_C},
    {"htc__fc_s8", S_R | S_C},
    {"htc__qfc_s8", S_R | S_C},
    {"htc__qfc_s32", S_R | S_C},
    {"htc__ql_matmul", S_R | S_C},
    {"htc__avgpool_s8", S_R | S_C | SPLIT_BAND},
    {"htc__maxpool_s8", S_R | S_C | SPLIT_BAND},
    {"htc__add_s8", S_R},
    {"htc__mul_s8", S_R},
    {"htc__qmul_s8", S_R},
    {"htc__ql_binary", S_R | S_C},
    {"htc__ql_xadd", S_R | S_C},
    {"htc__softmax_s8", S_R},
    {"htc__ql_softmax", S_R},
    {"htc__ql_norm", S_R | S_C},
    {"htc__ql_mean", S_R},
    {"htc__ql_requant", S_R},
    {"htc__ql_table", S_R | S_C},
    {"htc__transpose", S_R},
    {"htc__lut8", S_R},
};
#undef S_R
#undef S_C

int cpu_kernel_splits(const char *fn, const char *variant)
{
    size_t n = fn ? strlen(fn) : 0;
    for (size_t i = 0; fn && i < sizeof par_kernels / sizeof par_kernels[0]; i++)
        if (strncmp(par_kernels[i].fn, fn, n) == 0 && strcmp(par_kernels[i].fn + n, variant ? variant : "") == 0)
            return par_kernels[i].splits;
    return 0;
}
