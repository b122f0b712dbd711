/* lower.c - source-level ops -> canonical integer ops with explicit
   requantization: padding, clamp bounds and kernel parameter blocks. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "ir.h"
#include "quant.h"

/* What fail() names: the model and the operator being lowered (set by
   lower() and lower_op(), read by fail() alone). */
static struct {
    const char *path;
    const Op *op;
} lowering;

/* One-line error naming the model and the operator being lowered. */
static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const Op *op = lowering.op;
    refuse(lowering.path, op->src_index, "operator %d (%s): %s", op->src_index, op->src_name, msg);
}

static Tensor *T(Graph *g, int i) { return i >= 0 ? &g->tensors[i] : NULL; }

static Tensor *need(Graph *g, const Op *op, int slot, const char *what)
{
    if (slot >= op->nin || op->in[slot] < 0) fail("missing %s input", what);
    return &g->tensors[op->in[slot]];
}

static void need_type(const Tensor *t, DType ty, const char *what)
{
    if (t->type != ty)
        fail("%s '%s' is %s, expected %s", what, t->name, dtype_name(t->type), dtype_name(ty));
}

static void need_rank(const Tensor *t, int rank, const char *what)
{
    if (t->rank != rank) fail("%s '%s' has rank %d, expected %d", what, t->name, t->rank, rank);
}

static void need_const(const Tensor *t, const char *what)
{
    if (!t->data) fail("%s '%s' must be a constant", what, t->name);
}

/* Per-tensor quantization of an activation; returns zero point. */
static int32_t qzp(const Tensor *t, const char *what)
{
    if (t->q.n != 1) fail("%s '%s' must be quantized per tensor (has %d scales)", what, t->name, t->q.n);
    if (!(t->q.scale[0] > 0)) fail("%s '%s' has a non-positive scale", what, t->name);
    return (int32_t)t->q.zero_point[0];
}

static void qrange(DType t, int32_t *lo, int32_t *hi)
{
    if (t == DT_UINT8) { *lo = 0; *hi = 255; }
    else if (t == DT_INT16) { *lo = -32768; *hi = 32767; }
    else { *lo = -128; *hi = 127; }
}

/* TFLite ComputePaddingWithOffset: total padding split, the extra pixel at
   the bottom/right. Checks the output size the model states. */
static void pad_1d(Padding p, int in, int k, int stride, int dil, int out, int *before, int *after, const char *dim)
{
    int eff = (k - 1) * dil + 1;
    int expect = p == PAD_SAME ? (in + stride - 1) / stride : (in - eff + stride) / stride;
    if (stride < 1 || dil < 1) fail("stride and dilation must be >= 1");
    if (expect != out) fail("output %s is %d, but %s padding gives %d", dim, out, p == PAD_SAME ? "SAME" : "VALID", expect);
    int total = (out - 1) * stride + eff - in;
    if (total < 0) total = 0;
    *before = p == PAD_VALID ? 0 : total / 2;
    *after = p == PAD_VALID ? 0 : total - total / 2;
}

static int64_t bias_check(Graph *g, Op *op, int slot, int n)
{
    if (slot >= op->nin || op->in[slot] < 0) return 0;
    Tensor *b = &g->tensors[op->in[slot]];
    need_type(b, DT_INT32, "bias");
    need_const(b, "bias");
    if (tensor_numel(b) != n) fail("bias '%s' has %lld elements, expected %d", b->name, (long long)tensor_numel(b), n);
    return 1;
}

/* Conv/depthwise/FC requantization: per-channel or per-tensor weights. */
/* A uint8 layer (TFLite's legacy quantization): input, weights and output
   all uint8 (LiteRT refuses the mixtures), the weights per tensor. */
static void u8_check(const Op *op, const Tensor *in, const Tensor *w, const Tensor *out)
{
    if (in->u8 != w->u8)
        fail("weights '%s' are %s but input '%s' is %s (TFLite runs uint8 weights with uint8 inputs only)", w->name,
             w->u8 ? "uint8" : "int8", in->name, in->u8 ? "uint8" : "int8");
    if (in->u8 != out->u8)
        fail("input '%s' is %s but output '%s' is %s", in->name, in->u8 ? "uint8" : "int8", out->name,
             out->u8 ? "uint8" : "int8");
    if (op->u8 && w->q.n != 1) fail("uint8 weights '%s' have %d scales (TFLite quantizes uint8 per tensor)", w->name, w->q.n);
}

static void weights_quant(Op *op, const Tensor *in, const Tensor *w, const Tensor *out, int nout_ch, int ch_axis)
{
    if (w->q.n > 1 && (w->q.axis < 0 || w->q.axis >= w->rank))
        fail("weights '%s': quantized_dimension %d out of range for rank %d", w->name, w->q.axis, w->rank);
    if (w->q.n > 1 && w->q.n != w->shape[w->q.axis])
        fail("weights '%s': %d quantization scales for %d channels", w->name, w->q.n, w->shape[w->q.axis]);
    if (w->q.n != 1 && w->q.n != nout_ch)
        fail("weights '%s' have %d scales for %d output channels", w->name, w->q.n, nout_ch);
    if (w->q.n > 1 && w->q.axis != ch_axis)
        fail("weights '%s' are quantized along axis %d, expected %d", w->name, w->q.axis, ch_axis);
    for (int i = 0; i < w->q.n; i++)
        if (w->q.zero_point[i] != w->q.zero_point[0])
            fail("weights '%s' have differing zero points per channel", w->name);
    op->rq = RQ_TFLITE;
    op->nch = w->q.n;
    op->mult = arena_alloc(sizeof(int32_t) * (size_t)op->nch);
    op->shift = arena_alloc((size_t)op->nch);
    /* LiteRT's uint8 conv, depthwise and FC (GetQuantizedConvolutionMultipler:
       float(in_scale * w_scale) / out_scale in double) are TFLM's FC formula */
    if (op->kind == OP_FC || op->u8)
        quant_fc_multipliers(in->q.scale[0], w->q.scale, w->q.n, out->q.scale[0], op->mult, op->shift);
    else
        quant_conv_multipliers(in->q.scale[0], w->q.scale, w->q.n, out->q.scale[0], op->mult, op->shift);
}

static void act_range(Op *op, const Tensor *out)
{
    int32_t lo, hi;
    qrange(out->type, &lo, &hi);
    quant_act_range(op->act, out->q.scale[0], (int32_t)out->q.zero_point[0], lo, hi, &op->act_min, &op->act_max);
}

static void *params(Op *op, size_t size, const char *type)
{
    op->params = arena_alloc(size);
    op->params_size = size;
    op->params_type = type;
    return op->params;
}

/* A TFLite depthwise filter [1][kh][kw][out_c] as the canonical conv2d
   weights [out_c][kh][kw][1] (a new constant; the original stays the CPU
   kernel's, which reads it in that layout). */
static int dw_canonical(Graph *g, int wi)
{
    int t = graph_add_tensor(g);
    Tensor *w = &g->tensors[wi], *c = &g->tensors[t];
    int kh = w->shape[1], kw = w->shape[2], oc = w->shape[3];
    int8_t *d = arena_alloc((size_t)oc * kh * kw);
    for (int y = 0; y < kh; y++)
        for (int x = 0; x < kw; x++)
            for (int o = 0; o < oc; o++) d[((size_t)o * kh + y) * kw + x] = (int8_t)w->data[((size_t)y * kw + x) * oc + o];
    c->name = arena_printf("%s.ohwi", w->name);
    c->type = DT_INT8;
    c->rank = 4;
    c->shape[0] = oc; c->shape[1] = kh; c->shape[2] = kw; c->shape[3] = 1;
    c->q = w->q;
    if (c->q.n > 1) c->q.axis = 0;
    c->data = (const uint8_t *)d;
    c->nbytes = (size_t)oc * kh * kw;
    return t;
}

/* The input offset folded into the bias once, at compile time: fbias[c] =
   bias[c] - in_zp * sum of channel c's K weights (rows of K bytes in the
   weight tensor wi), the accumulator of sum x * w started there instead of
   sum (x - in_zp) * w from the bias (equal in integers). Only when the
   weights have no zero point and every partial sum of fbias[c] and up to
   K products x * w (|x * w| <= 2^14) fits int32, so no path can overflow;
   else (and when in_zp is 0: fbias would be the bias) op->fbias stays
   NULL. Set for FCs and for convolutions without padding (no tap outside
   the input, where the offset is not to be added); their blocks are
   written with it as the bias and in_zp 0 (gen/emit.c emit_fbias), so
   every CPU path takes it. */
static void fold_bias(Graph *g, Op *op, int wi, int bi, int32_t in_zp, int32_t w_zp, int nch)
{
    const Tensor *w = &g->tensors[wi], *b = bi >= 0 ? &g->tensors[bi] : NULL;
    op->fbias = NULL;
    if (!in_zp || w_zp || !w->data || w->type != DT_INT8 || nch <= 0 || (b && (!b->data || b->type != DT_INT32))) return;
    int64_t n = tensor_numel(w), K = n / nch;
    if (K <= 0 || K * nch != n || K > (1 << 16)) return;
    int32_t *fb = arena_alloc(sizeof(int32_t) * (size_t)nch);
    for (int c = 0; c < nch; c++) {
        int64_t s = 0, v = 0;
        for (int64_t k = 0; k < K; k++) s += (int8_t)w->data[c * K + k];
        if (b) {
            int32_t bv;
            memcpy(&bv, b->data + 4 * (size_t)c, 4);
            v = bv;
        }
        v -= (int64_t)in_zp * s;
        if ((v < 0 ? -v : v) + K * 16384 >= ((int64_t)1 << 31)) return;
        fb[c] = (int32_t)v;
    }
    op->fbias = fb;
}

static void lower_conv(Graph *g, Op *op)
{
    int dw = op->depthwise;
    Tensor *in = need(g, op, 0, "data"), *w = need(g, op, 1, "weights"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    need_type(w, DT_INT8, "weights");
    need_type(out, DT_INT8, "output");
    need_rank(in, 4, "input");
    need_rank(w, 4, "weights");
    need_rank(out, 4, "output");
    need_const(w, "weights");
    u8_check(op, in, w, out);
    qzp(in, "input");
    qzp(out, "output");
    int oc = out->shape[3];
    if (in->shape[0] != out->shape[0]) fail("batch of input and output differ");
    if (dw) {
        if (w->shape[0] != 1 || w->shape[3] != oc) fail("depthwise weights '%s' must be [1,kh,kw,%d]", w->name, oc);
        if (oc % in->shape[3]) fail("output channels %d are not a multiple of input channels %d", oc, in->shape[3]);
    } else {
        if (w->shape[0] != oc) fail("weights '%s' have %d filters for %d output channels", w->name, w->shape[0], oc);
        if (w->shape[3] != in->shape[3])
            fail("grouped convolution (input channels %d, filter depth %d) is not supported", in->shape[3], w->shape[3]);
    }
    int kh = w->shape[1], kw = w->shape[2];
    pad_1d(op->padding, in->shape[1], kh, op->stride_h, op->dil_h, out->shape[1], &op->pad_top, &op->pad_bottom, "height");
    pad_1d(op->padding, in->shape[2], kw, op->stride_w, op->dil_w, out->shape[2], &op->pad_left, &op->pad_right, "width");
    int has_bias = (int)bias_check(g, op, 2, oc);
    weights_quant(op, in, w, out, oc, dw ? 3 : 0);
    act_range(op, out);

    htc__conv_params *p = params(op, sizeof *p, "htc__conv_params");
    p->batches = in->shape[0];
    p->in_h = in->shape[1]; p->in_w = in->shape[2]; p->in_c = in->shape[3];
    p->out_h = out->shape[1]; p->out_w = out->shape[2]; p->out_c = oc;
    p->k_h = kh; p->k_w = kw;
    p->stride_h = op->stride_h; p->stride_w = op->stride_w;
    p->dil_h = op->dil_h; p->dil_w = op->dil_w;
    p->pad_top = op->pad_top; p->pad_left = op->pad_left;
    p->depth_mult = dw ? oc / in->shape[3] : 1;
    p->in_zp = qzp(in, "input");
    p->w_zp = (int32_t)w->q.zero_point[0];
    p->out_zp = qzp(out, "output");
    p->act_min = op->act_min; p->act_max = op->act_max;
    p->per_channel = op->nch > 1;
    (void)has_bias;
    op->k_h = kh; op->k_w = kw;
    op->depth_mult = p->depth_mult;
    op->macs = (int64_t)p->batches * p->out_h * p->out_w * oc * kh * kw * (dw ? 1 : p->in_c);
    op->batches = p->batches;
    op->in_h = p->in_h; op->in_w = p->in_w; op->in_c = p->in_c;
    op->out_h = p->out_h; op->out_w = p->out_w; op->out_c = oc;
    op->groups = dw ? p->in_c : 1;
    op->in_zp = p->in_zp;
    op->out_zp = p->out_zp;
    op->has_w_zp = p->w_zp != 0;
    if (dw) {
        int wi = op->in[1];
        op->in[1] = dw_canonical(g, wi);
        if (op->groups > 1) op->kernel_weights = wi;    /* htc__dwconv2d_s8 reads [kh][kw][out_c] */
        else p->depth_mult = 1;                         /* one input channel: a plain conv (conv2d.c) */
    }
    op->depthwise = op->groups > 1 && op->groups == op->in_c;
    /* no padding: every tap of every output reads the input, so the offset folds as an FC's */
    if (!op->pad_top && !op->pad_left && !op->pad_bottom && !op->pad_right)
        fold_bias(g, op, op->in[1], op->nin > 2 ? op->in[2] : -1, p->in_zp, p->w_zp, oc);
}

static void lower_fc(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *w = need(g, op, 1, "weights"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    need_type(w, DT_INT8, "weights");
    need_type(out, DT_INT8, "output");
    need_rank(w, 2, "weights");
    need_const(w, "weights");
    u8_check(op, in, w, out);
    int n_out = w->shape[0], depth = w->shape[1];
    int64_t nin = tensor_numel(in);
    if (depth <= 0 || nin % depth) fail("input '%s' (%lld elements) is not a multiple of the weights' depth %d", in->name, (long long)nin, depth);
    int batches = (int)(nin / depth);
    if (tensor_numel(out) != (int64_t)batches * n_out)
        fail("output '%s' has %lld elements, expected %d x %d", out->name, (long long)tensor_numel(out), batches, n_out);
    qzp(in, "input");
    qzp(out, "output");
    bias_check(g, op, 2, n_out);
    weights_quant(op, in, w, out, n_out, 0);
    act_range(op, out);
    htc__fc_params *p = params(op, sizeof *p, "htc__fc_params");
    p->batches = batches; p->in_features = depth; p->out_features = n_out;
    p->in_zp = qzp(in, "input");
    p->w_zp = (int32_t)w->q.zero_point[0];
    p->out_zp = qzp(out, "output");
    p->act_min = op->act_min; p->act_max = op->act_max;
    p->per_channel = op->nch > 1;
    op->macs = (int64_t)batches * n_out * depth;
    op->batches = batches;
    op->in_c = depth;
    op->out_c = n_out;
    op->w_batches = 1;
    op->in_zp = p->in_zp;
    op->out_zp = p->out_zp;
    op->has_w_zp = p->w_zp != 0;
    fold_bias(g, op, op->in[1], op->nin > 2 ? op->in[2] : -1, p->in_zp, p->w_zp, n_out);
}

/* Right-align a shape to 4 dims. */
static void shape4(const Tensor *t, int32_t s[4])
{
    if (t->rank > 4) fail("tensor '%s' has rank %d; element-wise ops support rank <= 4", t->name, t->rank);
    for (int i = 0; i < 4; i++) s[i] = 1;
    for (int i = 0; i < t->rank; i++) s[4 - t->rank + i] = t->shape[i];
}

static void lower_binary(Graph *g, Op *op)
{
    Tensor *a = need(g, op, 0, "first"), *b = need(g, op, 1, "second"), *out = T(g, op->out[0]);
    need_type(a, DT_INT8, "input");
    need_type(b, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    int32_t azp = qzp(a, "input"), bzp = qzp(b, "input"), ozp = qzp(out, "output");
    htc__binary_params *p = params(op, sizeof *p, "htc__binary_params");
    if (op->kind == OP_ADD)
        quant_add_params(a->q.scale[0], azp, b->q.scale[0], bzp, out->q.scale[0], ozp, p);
    else
        quant_mul_params(a->q.scale[0], azp, b->q.scale[0], bzp, out->q.scale[0], ozp, p);
    if (op->kind == OP_MUL && op->u8) {   /* LiteRT's mul.cc: the real multiplier in float */
        volatile float ab = a->q.scale[0] * b->q.scale[0];
        volatile float r = ab / out->q.scale[0];
        int32_t m;
        int sh;
        quant_multiplier((double)r, &m, &sh);
        p->out_mult = m;
        p->out_shift = (int8_t)sh;
    }
    op->rq = RQ_TFLITE;
    op->nch = 1;
    act_range(op, out);
    p->act_min = op->act_min;
    p->act_max = op->act_max;
    int32_t sa[4], sb[4], so[4];
    shape4(a, sa);
    shape4(b, sb);
    shape4(out, so);
    int32_t stra = 1, strb = 1;
    p->broadcast = 0;
    for (int i = 3; i >= 0; i--) {
        if ((sa[i] != so[i] && sa[i] != 1) || (sb[i] != so[i] && sb[i] != 1))
            fail("shapes of '%s' and '%s' do not broadcast to '%s'", a->name, b->name, out->name);
        p->out_shape[i] = so[i];
        p->a_stride[i] = sa[i] == 1 && so[i] != 1 ? 0 : stra;
        p->b_stride[i] = sb[i] == 1 && so[i] != 1 ? 0 : strb;
        if (sa[i] != so[i] || sb[i] != so[i]) p->broadcast = 1;
        stra *= sa[i];
        strb *= sb[i];
    }
    op->broadcast = p->broadcast;
    op->in_zp = azp;
    op->out_zp = ozp;
    op->macs = 0;
}

static void lower_pool(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    op->s16 = in->type == DT_INT16;     /* kernels/pool_s16.c */
    need_type(in, op->s16 ? DT_INT16 : DT_INT8, "input");
    need_type(out, in->type, "output");
    need_rank(in, 4, "input");
    need_rank(out, 4, "output");
    int32_t izp = qzp(in, "input"), ozp = qzp(out, "output");
    if (izp != ozp || in->q.scale[0] != out->q.scale[0])
        fail("input and output quantization differ (TFLite requires them equal for int8 pooling)");
    if (in->shape[3] != out->shape[3] || in->shape[0] != out->shape[0]) fail("pooling changes batch or channels");
    if (op->k_h < 1 || op->k_w < 1) fail("filter size must be >= 1");
    pad_1d(op->padding, in->shape[1], op->k_h, op->stride_h, 1, out->shape[1], &op->pad_top, &op->pad_bottom, "height");
    pad_1d(op->padding, in->shape[2], op->k_w, op->stride_w, 1, out->shape[2], &op->pad_left, &op->pad_right, "width");
    act_range(op, out);
    htc__pool_params *p = params(op, sizeof *p, "htc__pool_params");
    p->batches = in->shape[0]; p->in_h = in->shape[1]; p->in_w = in->shape[2]; p->c = in->shape[3];
    p->out_h = out->shape[1]; p->out_w = out->shape[2];
    p->k_h = op->k_h; p->k_w = op->k_w; p->stride_h = op->stride_h; p->stride_w = op->stride_w;
    p->pad_top = op->pad_top; p->pad_left = op->pad_left;
    p->act_min = op->act_min; p->act_max = op->act_max;
    op->macs = (int64_t)p->batches * p->out_h * p->out_w * p->c * p->k_h * p->k_w;
    op->batches = p->batches;
    op->in_h = p->in_h; op->in_w = p->in_w; op->in_c = op->out_c = p->c;
    op->out_h = p->out_h; op->out_w = p->out_w;
    op->in_zp = op->out_zp = izp;
    op->rq = op->kind == OP_AVGPOOL ? RQ_TFLITE : RQ_NONE;    /* TFLite's rounding of the average */
    if (op->kind == OP_AVGPOOL && op->u8) op->variant = "_u8";  /* the sum of uint8 values rounded up */
    op->nch = op->kind == OP_AVGPOOL;
}

static void lower_mean(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    need_rank(in, 4, "input");
    int a1 = 0, a2 = 0;
    for (int i = 0; i < op->naxes; i++) {
        if (op->axes[i] == 1) a1 = 1;
        else if (op->axes[i] == 2) a2 = 1;
        else a1 = a2 = -100;
    }
    if (a1 != 1 || a2 != 1) fail("MEAN is supported over the spatial axes [1, 2] of a 4-D tensor only");
    htc__mean_params *p = params(op, sizeof *p, "htc__mean_params");
    quant_mean_params(in->q.scale[0], qzp(in, "input"), out->q.scale[0], qzp(out, "output"), p);
    p->batches = in->shape[0]; p->in_h = in->shape[1]; p->in_w = in->shape[2]; p->c = in->shape[3];
    p->act_min = -128;
    p->act_max = 127;
    op->rq = RQ_TFLITE;
    op->nch = 1;
    op->global = 1;                     /* over the whole image: kernels/mean.c */
    op->macs = tensor_numel(in);
}

static void lower_pad(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *pads = need(g, op, 1, "paddings"), *out = T(g, op->out[0]);
    need_const(pads, "paddings");
    if (in->type != out->type) fail("input and output types differ");
    if (in->rank > 5) fail("PAD supports rank <= 5");
    if (tensor_numel(pads) != 2 * in->rank) fail("paddings '%s' must be [%d, 2]", pads->name, in->rank);
    htc__pad_params *p = params(op, sizeof *p, "htc__pad_params");
    p->rank = 5;
    p->elem_size = (int32_t)dtype_size(in->type);
    int off = 5 - in->rank;
    for (int i = 0; i < 5; i++) p->in_shape[i] = 1;
    for (int i = 0; i < in->rank; i++) {
        int64_t b, a;
        if (pads->type == DT_INT32) {
            int32_t v[2];
            memcpy(v, pads->data + 8 * i, 8);
            b = v[0]; a = v[1];
        } else if (pads->type == DT_INT64) {
            int64_t v[2];
            memcpy(v, pads->data + 16 * i, 16);
            b = v[0]; a = v[1];
        } else fail("paddings must be int32 or int64");
        if (b < 0 || a < 0) fail("negative padding is not supported");
        if (in->shape[i] + b + a != out->shape[i]) fail("padded size of dimension %d does not match the output", i);
        p->in_shape[off + i] = in->shape[i];
        p->before[off + i] = (int32_t)b;
        p->after[off + i] = (int32_t)a;
    }
    /* int8 pads with the output zero point unless PADV2 gives a value */
    p->pad_value = out->q.n ? (int32_t)out->q.zero_point[0] : 0;
    if (op->nin > 2 && op->in[2] >= 0) {
        Tensor *cv = &g->tensors[op->in[2]];
        need_const(cv, "constant_values");
        if (cv->type != in->type) fail("constant_values type differs from the input");
        if (cv->type == DT_INT8) p->pad_value = (int8_t)cv->data[0];
        else if (cv->type == DT_UINT8) p->pad_value = cv->data[0];
        else if (cv->type == DT_INT16) { int16_t v; memcpy(&v, cv->data, 2); p->pad_value = v; }
        else if (cv->type == DT_INT32) memcpy(&p->pad_value, cv->data, 4);
        else fail("PAD of %s tensors is not supported", dtype_name(cv->type));
    }
    if (in->q.n && out->q.n && (in->q.scale[0] != out->q.scale[0] || in->q.zero_point[0] != out->q.zero_point[0]))
        fail("input and output quantization differ");
}

static void lower_concat(Graph *g, Op *op)
{
    Tensor *out = T(g, op->out[0]);
    if (op->act != ACT_NONE) fail("fused activation on CONCATENATION is not supported");
    int axis = op->axis;
    if (axis < 0 || axis >= out->rank) fail("axis %d out of range", axis);
    int64_t outer = 1, inner = (int64_t)dtype_size(out->type);
    for (int i = 0; i < axis; i++) outer *= out->shape[i];
    for (int i = axis + 1; i < out->rank; i++) inner *= out->shape[i];
    htc__concat_params *p = params(op, sizeof *p, "htc__concat_params");
    int32_t *ab = arena_alloc(sizeof(int32_t) * (size_t)op->nin);
    int64_t sum = 0;
    for (int i = 0; i < op->nin; i++) {
        Tensor *t = need(g, op, i, "data");
        if (t->type != out->type) fail("input '%s' type differs from the output", t->name);
        if (op->mode == 1) {            /* PACK: each input is one index along the new axis */
            if (t->rank != out->rank - 1) fail("input '%s' rank is not the output's minus one", t->name);
            for (int d = 0; d < t->rank; d++)
                if (t->shape[d] != out->shape[d < axis ? d : d + 1]) fail("input '%s' shape differs from the others", t->name);
        } else {
            if (t->rank != out->rank) fail("input '%s' rank differs from the output", t->name);
            for (int d = 0; d < t->rank; d++)
                if (d != axis && t->shape[d] != out->shape[d]) fail("input '%s' shape differs off the axis", t->name);
        }
        if (out->q.n && (t->q.n != 1 || t->q.scale[0] != out->q.scale[0] || t->q.zero_point[0] != out->q.zero_point[0]))
            fail("input '%s' quantization differs from the output (requantizing concat is not supported)", t->name);
        ab[i] = (int32_t)((op->mode == 1 ? 1 : t->shape[axis]) * inner);
        sum += ab[i];
    }
    if (sum != out->shape[axis] * inner) fail("inputs do not add up to the output along axis %d", axis);
    p->outer = (int32_t)outer;
    p->out_axis_bytes = (int32_t)sum;
    p->n = op->nin;
    p->axis_bytes = ab;
}

static void lower_softmax(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    int o16 = out->type == DT_INT16;
    if (!o16) need_type(out, DT_INT8, "output");
    qzp(in, "input");
    if (in->rank < 1 || tensor_numel(in) != tensor_numel(out)) fail("input and output sizes differ");
    /* softmax_common.cc CalculateSoftmaxParams: the output checks of each type */
    if (o16 && (qzp(out, "output") != -32768 || fabsf(out->q.scale[0] - 1.0f / 65536) > 0.001f * 1.0f / 65536))
        fail("int8 -> int16 softmax output must have scale 1/65536 and zero point -32768");
    if (!o16 && (qzp(out, "output") != -128 || out->q.scale[0] != 1.0f / 256))
        fail("int8 softmax output must have scale 1/256 and zero point -128");
    htc__softmax_params *p = params(op, sizeof *p, "htc__softmax_params");
    quant_softmax_params(op->beta, in->q.scale[0], p);
    if (p->diff_min <= 0) {     /* (else no entry is ever computed) */
        int32_t *tab = arena_alloc(256 * sizeof *tab);
        p->n_exp = quant_softmax_exp_table(p, tab);
        p->exp_tab = tab;
    }
    p->depth = in->shape[in->rank - 1];
    p->outer = (int32_t)(tensor_numel(in) / p->depth);
    p->out_zp = o16 ? -32768 : -128;
    op->variant = o16 ? "_s16" : "";    /* htc__softmax_s8_s16: TFLM's int8 -> int16 */
    op->rq = RQ_TFLITE;
    op->nch = 1;
}

/* TFLite's GELU in float (reference_ops::GeluTransform, the erf form, and
   the tanh approximation), for ai-edge-litert's LUTPopulate table. */
static float gelu_erf(float x)
{
    return 0.5f * x * erfcf(x * -0.70710678118654752440f);
}
static float gelu_tanh(float x)
{
    const float k = (float)(1.12837916709551257390 * 0.70710678118654752440);
    return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}
static float elu(float x) { return x < 0.0f ? expf(x) - 1.0f : x; }   /* TFLM elu.cc */
static float logistic_f(float x) { return 1.0f / (1.0f + expf(-x)); }  /* LiteRT's activations.cc tables */
static float tanh_f(float x) { return tanhf(x); }

/* Every int8 element-wise op of one input is a 256-entry table: TFLite
   Micro's integer kernel evaluated at compile time (gen/quant.c). */
static void lower_table(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    if (tensor_numel(in) != tensor_numel(out)) fail("input and output sizes differ");
    float is = in->q.scale[0], os;
    int32_t iz = qzp(in, "input"), oz = qzp(out, "output");
    os = out->q.scale[0];
    htc__lut_params *p = params(op, sizeof *p, "htc__lut_params");
    int8_t *lut = (int8_t *)p->lut;
    const char *n = op->src_name;
    p->size = (int32_t)tensor_numel(in);
    if (op->u8 && (!strcmp(n, "LOGISTIC") || !strcmp(n, "TANH"))) {
        /* LiteRT's uint8 LOGISTIC / TANH: its float table (LUTPopulate) */
        quant_table_float(is, iz, os, oz, n[0] == 'L' ? logistic_f : tanh_f, lut);
    } else if (op->u8 && !strncmp(n, "RELU", 4)) {
        /* LiteRT's uint8 RELU family (QuantizedReluX): rescaled, then clamped */
        float lo = !strcmp(n, "RELU_N1_TO_1") ? -1.0f : 0.0f;
        float hi = !strcmp(n, "RELU6") ? 6.0f : (!strcmp(n, "RELU") ? INFINITY : 1.0f);
        quant_table_relux(is, iz, os, oz, lo, hi, lut);
    } else if (!strcmp(n, "LOGISTIC")) {
        if (oz != -128 || os != 1.0f / 256) fail("int8 logistic output must have scale 1/256 and zero point -128");
        quant_table_logistic(is, iz, lut);
    } else if (!strcmp(n, "TANH")) {
        quant_table_tanh(is, iz, lut);
    } else if (!strcmp(n, "HARD_SWISH")) {
        if (!quant_table_hard_swish(is, iz, os, oz, lut))
            fail("output scale below input scale / 128 (TFLite Micro's HARD_SWISH refuses it)");
    } else if (!strcmp(n, "RELU")) {
        quant_table_relu(is, iz, os, oz, lut);
    } else if (!strcmp(n, "RELU6")) {
        quant_table_relu6(is, iz, lut);
    } else if (!strcmp(n, "LEAKY_RELU")) {
        quant_table_leaky_relu(is, iz, os, oz, op->alpha, lut);
    } else if (!strcmp(n, "ABS")) {
        quant_table_abs(is, iz, os, oz, lut);
    } else if (!strcmp(n, "RSQRT")) {
        quant_table_rsqrt(is, iz, os, oz, lut);
    } else if (!strcmp(n, "GELU")) {
        quant_table_float(is, iz, os, oz, op->mode ? gelu_tanh : gelu_erf, lut);
    } else if (!strcmp(n, "ELU")) {
        quant_table_float(is, iz, os, oz, elu, lut);
    } else {
        fail("int8 %s is not supported (TFLite Micro has no int8 kernel for it)", n);
    }
    op->rq = RQ_TFLITE;
    op->nch = 1;
}

static const char *tsuffix(DType t)
{
    switch (t) {
    case DT_INT8: return "s8";
    case DT_UINT8: return "u8";
    case DT_FLOAT32: return "f32";
    default: fail("type %s is not supported here", dtype_name(t));
    }
}

static void lower_quant(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    htc__quant_params *p = params(op, sizeof *p, "htc__quant_params");
    p->size = (int32_t)tensor_numel(in);
    if (op->kind == OP_DEQUANTIZE) {
        if (out->type != DT_FLOAT32 || (in->type != DT_INT8 && in->type != DT_UINT8))
            fail("DEQUANTIZE from %s to %s is not supported", dtype_name(in->type), dtype_name(out->type));
        p->in_zp = qzp(in, "input");
        p->scale = in->q.scale[0];
        p->dscale = in->q.scale[0];
    } else if (in->type == DT_FLOAT32) {
        if (out->type != DT_INT8 && out->type != DT_UINT8) fail("QUANTIZE to %s is not supported", dtype_name(out->type));
        p->out_zp = qzp(out, "output");
        p->scale = out->q.scale[0];
        p->dscale = out->q.scale[0];
        qrange(out->type, &p->qmin, &p->qmax);
    } else {
        if ((in->type != DT_INT8 && in->type != DT_UINT8) || (out->type != DT_INT8 && out->type != DT_UINT8))
            fail("QUANTIZE from %s to %s is not supported", dtype_name(in->type), dtype_name(out->type));
        if (in->type == DT_UINT8 && out->type == DT_UINT8) fail("QUANTIZE uint8 -> uint8 is not supported");
        op->kind = OP_REQUANTIZE;
        quant_requant_params(in->q.scale[0], qzp(in, "input"), out->q.scale[0], qzp(out, "output"), p);
        qrange(out->type, &p->qmin, &p->qmax);
        op->rq = RQ_TFLITE;
        op->nch = 1;
    }
    p->size = (int32_t)tensor_numel(in);
    if (op->rq == RQ_NONE) {            /* float <-> int8: TFLite's rounding */
        op->rq = RQ_TFLITE;
        op->nch = 1;
    }
    op->variant = arena_printf("_%s_%s", tsuffix(in->type), tsuffix(out->type));
}

static void lower_reshape(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    if (tensor_numel(in) != tensor_numel(out)) fail("reshape changes the number of elements");
    if (in->type != out->type) fail("reshape changes the type");
    if (in->q.n && out->q.n && (in->q.scale[0] != out->q.scale[0] || in->q.zero_point[0] != out->q.zero_point[0]))
        fail("reshape changes the quantization");
}

/* ---- TFLite operators beyond the convolutional core ------------------------ */

/* Generic parameter block: its field list for emit.c (see Op.params_fmt). */
static void *gparams(Op *op, size_t size, const char *type, const char *fmt)
{
    void *p = params(op, size, type);
    op->params_fmt = fmt;
    return p;
}

/* A shape right-aligned into 6 dims (1s in front). */
static void shape6(const Tensor *t, int32_t s[6])
{
    if (t->rank > 6) fail("tensor '%s' has rank %d; at most 6 is supported", t->name, t->rank);
    for (int i = 0; i < 6; i++) s[i] = 1;
    for (int i = 0; i < t->rank; i++) s[6 - t->rank + i] = t->shape[i];
}

/* Broadcast strides of a and b against out (6 dims). */
static void broadcast6(const Tensor *a, const Tensor *b, const Tensor *out, int32_t *os, int32_t *as, int32_t *bs)
{
    int32_t sa[6], sb[6];
    shape6(a, sa);
    shape6(b, sb);
    shape6(out, os);
    int32_t stra = 1, strb = 1;
    for (int i = 5; i >= 0; i--) {
        if ((sa[i] != os[i] && sa[i] != 1) || (sb[i] != os[i] && sb[i] != 1))
            fail("shapes of '%s' and '%s' do not broadcast to '%s'", a->name, b->name, out->name);
        as[i] = sa[i] == 1 && os[i] != 1 ? 0 : stra;
        bs[i] = sb[i] == 1 && os[i] != 1 ? 0 : strb;
        stra *= sa[i];
        strb *= sb[i];
    }
}

static void qmul(double real, int32_t *m, int32_t *s)
{
    int sh;
    quant_multiplier(real, m, &sh);
    *s = sh;
}

/* SUB, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, PRELU: int8, broadcasting. */
static void lower_ew(Graph *g, Op *op)
{
    Tensor *a = need(g, op, 0, "first"), *b = need(g, op, 1, "second"), *out = T(g, op->out[0]);
    need_type(a, DT_INT8, "input");
    need_type(b, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    htc__ew_params *p = gparams(op, sizeof *p, "htc__ew_params", "a6a6a6iiiiiiiiiiii");
    broadcast6(a, b, out, p->out_shape, p->a_stride, p->b_stride);
    p->act_min = -128;
    p->act_max = 127;
    op->rq = RQ_TFLITE;
    op->nch = 1;
    if (op->kind == OP_MAXIMUM || op->kind == OP_MINIMUM) {
        op->rq = RQ_NONE;               /* TFLM compares the stored values */
        op->nch = 0;
        op->variant = "_s8";
        return;
    }
    float as = a->q.scale[0], bs = b->q.scale[0], os = out->q.scale[0];
    int32_t az = qzp(a, "input"), bz = op->kind == OP_PRELU ? (int32_t)b->q.zero_point[0] : qzp(b, "input");
    int32_t oz = qzp(out, "output");
    p->a_offset = -az;
    p->b_offset = -bz;
    p->out_zp = oz;
    if (op->kind == OP_SUB && op->u8) {
        /* LiteRT's sub.cc PrepareGeneralSubOp: double arithmetic (ADD's) */
        htc__binary_params q;
        quant_add_params(as, az, bs, bz, os, oz, &q);
        p->left_shift = q.left_shift;
        p->a_mult = q.a_mult, p->a_shift = q.a_shift;
        p->b_mult = q.b_mult, p->b_shift = q.b_shift;
        p->out_mult = q.out_mult, p->out_shift = q.out_shift;
        act_range(op, out);
        p->act_min = op->act_min;
        p->act_max = op->act_max;
    } else if (op->kind == OP_SUB) {
        /* sub_common.cc CalculateOpDataSub: float arithmetic, then double */
        volatile float twice = 2 * (as > bs ? as : bs);
        volatile float ra = as / twice, rb = bs / twice;
        volatile float ro = twice / ((float)(1 << 20) * os);
        p->left_shift = 20;
        qmul((double)ra, &p->a_mult, &p->a_shift);
        qmul((double)rb, &p->b_mult, &p->b_shift);
        qmul((double)ro, &p->out_mult, &p->out_shift);
        act_range(op, out);
        p->act_min = op->act_min;
        p->act_max = op->act_max;
    } else if (op->kind == OP_SQDIFF) {
        /* squared_difference.cc PrepareQuantized, left_shift 7 */
        double twice = 2.0 * (double)(as > bs ? as : bs);
        volatile float den = (float)(1 << 14) * os;
        p->left_shift = 7;
        qmul((double)as / twice, &p->a_mult, &p->a_shift);
        qmul((double)bs / twice, &p->b_mult, &p->b_shift);
        qmul(twice * twice / (double)den, &p->out_mult, &p->out_shift);
    } else {                            /* PRELU: prelu_common.cc CalculatePreluParams */
        if (b->q.n != 1) fail("alpha '%s' must be quantized per tensor", b->name);
        qmul((double)as / (double)os, &p->a_mult, &p->a_shift);
        qmul((double)as * (double)bs / (double)os, &p->b_mult, &p->b_shift);
    }
    op->broadcast = 0;
    for (int i = 0; i < 6; i++) op->broadcast |= p->a_stride[i] != p->b_stride[i];
}

/* BATCH_MATMUL int8: batch_matmul.cc (GetQuantizedConvolutionMultipler:
   double(float(lhs_scale * rhs_scale)) / double(out_scale)). int16 (16x8,
   kernels/matmul_s16.c): the same multiplier, zero points 0 (TFLM checks
   them), an int64 sum, the int16 range as the clamp. */
static void lower_matmul(Graph *g, Op *op)
{
    Tensor *a = need(g, op, 0, "lhs"), *b = need(g, op, 1, "rhs"), *out = T(g, op->out[0]);
    DType dt = a->type == DT_INT16 ? DT_INT16 : DT_INT8;
    need_type(a, dt, "lhs");
    need_type(b, dt, "rhs");
    need_type(out, dt, "output");
    if (a->rank < 2 || b->rank < 2 || a->rank > 5 || b->rank > 5) fail("operands must have rank 2 to 5");
    htc__matmul_params *p = gparams(op, sizeof *p, "htc__matmul_params", "a4a4a4iiiiiiiiiiiiii");
    int ra = a->rank, rb = b->rank;
    int m = a->shape[ra - (op->adj_x ? 1 : 2)], k = a->shape[ra - (op->adj_x ? 2 : 1)];
    int kb = b->shape[rb - (op->adj_y ? 1 : 2)], n = b->shape[rb - (op->adj_y ? 2 : 1)];
    if (k != kb) fail("inner dimensions %d and %d differ", k, kb);
    /* batch dims right-aligned into 4 */
    int32_t sa = m * k, sb = k * n;
    for (int i = 3; i >= 0; i--) {
        int ia = ra - 2 - (4 - i), ib = rb - 2 - (4 - i);
        int da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1) fail("batch dimensions of '%s' and '%s' do not broadcast", a->name, b->name);
        p->batch[i] = da > db ? da : db;
        p->lhs_bstride[i] = da == 1 ? 0 : sa;
        p->rhs_bstride[i] = db == 1 ? 0 : sb;
        sa *= da;
        sb *= db;
    }
    int64_t nb = (int64_t)p->batch[0] * p->batch[1] * p->batch[2] * p->batch[3];
    if (tensor_numel(out) != nb * m * n) fail("output '%s' has %lld elements, expected %lld", out->name,
                                              (long long)tensor_numel(out), (long long)(nb * m * n));
    p->m = m; p->k = k; p->n = n;
    p->lhs_rs = op->adj_x ? 1 : k;
    p->lhs_cs = op->adj_x ? m : 1;
    p->rhs_rs = op->adj_y ? 1 : n;
    p->rhs_cs = op->adj_y ? k : 1;
    p->lhs_zp = qzp(a, "lhs");
    p->rhs_zp = qzp(b, "rhs");
    p->out_zp = qzp(out, "output");
    volatile float prod = a->q.scale[0] * b->q.scale[0];
    qmul((double)prod / (double)out->q.scale[0], &p->mult, &p->shift);
    qrange(dt, &p->act_min, &p->act_max);
    if (dt == DT_INT16) {
        if (p->lhs_zp || p->rhs_zp || p->out_zp) fail("int16 BATCH_MATMUL needs zero points 0 (TFLite Micro checks it)");
        if (p->shift >= 15) fail("int16 BATCH_MATMUL: output scale too small for TFLite's 64-bit requantization (shift %d)", p->shift);
        op->s16 = 1;
    }
    op->rq = RQ_TFLITE;
    op->nch = 1;
    op->macs = nb * m * n * k;
}

/* 16x8 TRANSPOSE_CONV (kernels/tconv_s16.c): TFLM's int16 kernel adds no
   input, filter or output offset (all must be 0 here) and sums in int64;
   its bias is int64, or int16 widened to int64 before the sum (done here,
   at compile time: a new int64 constant). An int32 bias, which TFLM would
   read as int64, is refused. */
static void tconv_s16(Graph *g, Op *op, const Tensor *w, int oc)
{
    htc__tconv_params *p = op->params;
    if (p->in_zp || p->out_zp) fail("int16 TRANSPOSE_CONV needs zero points 0 (TFLite Micro ignores them)");
    for (int i = 0; i < w->q.n; i++)
        if (w->q.zero_point[i] != 0) fail("weights '%s' have a non-zero zero point (16x8 needs 0)", w->name);
    for (int c = 0; c < op->nch; c++)
        if (op->shift[c] >= 15) fail("output scale too small for TFLite's 64-bit requantization (shift %d)", op->shift[c]);
    op->s16 = 1;
    if (op->nin <= 2 || op->in[2] < 0) return;
    Tensor *b = T(g, op->in[2]);
    need_const(b, "bias");
    if (tensor_numel(b) != oc) fail("bias '%s' has %lld elements, expected %d", b->name, (long long)tensor_numel(b), oc);
    if (b->type == DT_INT64) return;
    if (b->type != DT_INT16) fail("bias '%s' is %s: TFLite Micro's 16x8 TRANSPOSE_CONV reads int64 or int16", b->name,
                                  dtype_name(b->type));
    int64_t *wide = arena_alloc(sizeof(int64_t) * (size_t)oc);
    for (int c = 0; c < oc; c++) {
        int16_t v;
        memcpy(&v, b->data + 2 * (size_t)c, 2);
        wide[c] = v;
    }
    const int32_t shape[1] = {oc};
    const char *name = arena_printf("%s.int64", b->name);
    int t = graph_const_tensor(g, name, DT_INT64, 1, shape, wide, sizeof(int64_t) * (size_t)oc);
    g->tensors[t].src_index = -1;
    op->in[2] = t;
}

/* TRANSPOSE_CONV int8: transpose_conv.cc (padding from the output size as a
   forward convolution's input, PopulateConvolutionQuantizationParams). */
static void lower_tconv(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *w = need(g, op, 1, "weights"), *out = T(g, op->out[0]);
    int s16 = in->type == DT_INT16;
    need_type(in, s16 ? DT_INT16 : DT_INT8, "input");
    need_type(w, DT_INT8, "weights");
    need_type(out, s16 ? DT_INT16 : DT_INT8, "output");
    need_rank(in, 4, "input");
    need_rank(w, 4, "weights");
    need_rank(out, 4, "output");
    need_const(w, "weights");
    qzp(in, "input");
    qzp(out, "output");
    int oc = out->shape[3], kh = w->shape[1], kw = w->shape[2];
    if (w->shape[0] != oc || w->shape[3] != in->shape[3]) fail("weights '%s' must be [%d,kh,kw,%d]", w->name, oc, in->shape[3]);
    if (in->shape[0] != out->shape[0]) fail("batch of input and output differ");
    if (w->q.n > 1 && w->q.axis != 0) fail("weights '%s' must be quantized along axis 0", w->name);
    if (!s16) bias_check(g, op, 2, oc);
    /* ComputePaddingHeightWidth(stride, 1, out_h, out_w, k): the output seen as
       a forward convolution's input */
    int fh = op->padding == PAD_SAME ? (out->shape[1] + op->stride_h - 1) / op->stride_h
                                     : (out->shape[1] - kh + op->stride_h) / op->stride_h;
    int fw = op->padding == PAD_SAME ? (out->shape[2] + op->stride_w - 1) / op->stride_w
                                     : (out->shape[2] - kw + op->stride_w) / op->stride_w;
    int th = (fh - 1) * op->stride_h + kh - out->shape[1], tw = (fw - 1) * op->stride_w + kw - out->shape[2];
    weights_quant(op, in, w, out, oc, 0);
    act_range(op, out);
    htc__tconv_params *p = gparams(op, sizeof *p, "htc__tconv_params", "iiiiiiiiiiiiiiiiiiims");
    p->batches = in->shape[0];
    p->in_h = in->shape[1]; p->in_w = in->shape[2]; p->in_c = in->shape[3];
    p->out_h = out->shape[1]; p->out_w = out->shape[2]; p->out_c = oc;
    p->k_h = kh; p->k_w = kw;
    p->stride_h = op->stride_h; p->stride_w = op->stride_w;
    p->pad_top = op->pad_top = th > 0 ? th / 2 : 0;
    p->pad_left = op->pad_left = tw > 0 ? tw / 2 : 0;
    p->in_zp = qzp(in, "input");
    p->w_zp = op->u8 ? (int32_t)w->q.zero_point[0] : 0;     /* TFLM's int8 / 16x8 kernels add no filter offset */
    if (op->u8 && w->q.n > 1) fail("uint8 weights '%s' have %d scales (LiteRT's uint8 kernel takes one)", w->name, w->q.n);
    p->out_zp = qzp(out, "output");
    p->act_min = op->act_min; p->act_max = op->act_max;
    p->per_channel = op->nch > 1;
    op->has_w_zp = p->w_zp != 0;
    op->k_h = kh; op->k_w = kw;
    op->batches = p->batches;
    op->in_h = p->in_h; op->in_w = p->in_w; op->in_c = p->in_c;
    op->out_h = p->out_h; op->out_w = p->out_w; op->out_c = oc;
    op->groups = 1;
    op->in_zp = p->in_zp;
    op->out_zp = p->out_zp;
    op->macs = (int64_t)p->batches * p->in_h * p->in_w * p->in_c * kh * kw * oc;
    if (s16) tconv_s16(g, op, w, oc);
}

/* A recurrent op's state tensor (a TFLite variable the op reads and
   writes): its own, used by no other operator, not a graph input or
   output and no other operand of this op. */
static void own_state(Graph *g, const Op *op, int t, const char *what)
{
    const Tensor *s = T(g, t);
    if (!s->variable) fail("%s '%s' is not a variable tensor (TFLite Micro requires one)", what, s->name);
    if (s->is_input || s->is_output) fail("%s '%s' is a graph input or output", what, s->name);
    int uses = 0;
    for (int i = 0; i < g->nops; i++) {
        const Op *o = &g->ops[i];
        for (int k = 0; k < o->nin; k++) uses += o->in[k] == t;
        for (int k = 0; k < o->nout; k++) uses += o->out[k] == t;
    }
    if (uses != 1) fail("%s '%s' is also used by another operand or operator", what, s->name);
    (void)op;
}

/* An LSTM's shapes, int8, 16x8 and float alike: input [B][T][I] (time
   major: [T][B][I]), hidden and cell state B x S values, output as the
   input with S features. */
static void lstm_shapes(const Op *op, const Tensor *x, const Tensor *h, const Tensor *c, const Tensor *out, int *B,
                        int *Tn, int *I, int *S)
{
    need_rank(x, 3, "input");
    need_rank(out, 3, "output");
    int tm = op->axis;
    *B = x->shape[tm ? 1 : 0], *Tn = x->shape[tm ? 0 : 1], *I = x->shape[2];
    if (h->rank < 1) fail("hidden state '%s' is a scalar", h->name);
    *S = h->shape[h->rank - 1];
    if (tensor_numel(h) != (int64_t)*B * *S || tensor_numel(c) != (int64_t)*B * *S)
        fail("hidden and cell state must have %d x %d values", *B, *S);
    if (out->shape[0] != x->shape[0] || out->shape[1] != x->shape[1] || out->shape[2] != *S)
        fail("output '%s' must be [%d, %d, %d]", out->name, x->shape[0], x->shape[1], *S);
}

/* UNIDIRECTIONAL_SEQUENCE_LSTM, int8 activations and weights, int16 cell
   state (kernels/lstm.c), TFLM's PrepareGateParametersInteger: each gate's
   input and recurrent FULLY_CONNECTED to Q3.12 (CalculateOpDataFullyConnected
   with an int16 output of scale 2^-12: the per-tensor FC multiplier),
   CreateInterGateMulParams for the three products (double(s1) * double(s2)
   / double(out)), the cell state's tanh shift from CheckedLog2(cell scale),
   the quantized cell clip. The op gets the shared sigmoid table as its last
   input and a scratch tensor (four int16 vectors of one step) as its last
   output. */
static void lower_lstm(Graph *g, Op *op)
{
    Tensor *x = need(g, op, 0, "data"), *out = T(g, op->out[0]), *h = T(g, op->out[1]), *c = T(g, op->out[2]);
    own_state(g, op, op->out[1], "hidden state");
    own_state(g, op, op->out[2], "cell state");
    int s16 = x->type == DT_INT16;      /* 16x8: int16 activations, int64 biases */
    DType at = s16 ? DT_INT16 : DT_INT8;
    need_type(x, at, "input");
    need_type(out, at, "output");
    need_type(h, at, "hidden state");
    need_type(c, DT_INT16, "cell state");
    int tm = op->axis, B, Tn, I, S;
    lstm_shapes(op, x, h, c, out, &B, &Tn, &I, &S);
    int32_t x_zp = qzp(x, "input"), h_zp = qzp(h, "hidden state");
    qzp(out, "output");
    qzp(c, "cell state");
    if (s16 && (x_zp || h_zp)) fail("int16 input and hidden state need zero point 0 (TFLite Micro checks it)");
    /* the output may be quantized differently from the hidden state (the
       converter's Keras Bidirectional): TFLM copies the hidden state's
       values into it unchanged, and so does the kernel */
    htc__lstm_params *p = gparams(op, sizeof *p, "htc__lstm_params", "iiiiiiia4a4a4a4iiiiiiiii");
    p->batches = B; p->steps = Tn; p->in_dim = I; p->state = S; p->time_major = tm;
    p->x_zp = x_zp; p->h_zp = h_zp;
    const float gate_scale = 1.0f / 4096.0f, act_scale = 1.0f / 32768.0f, cs = c->q.scale[0];
    static const char *const gate[4] = {"input", "forget", "cell", "output"};
    for (int k = 0; k < 8; k++) {
        Tensor *w = need(g, op, 1 + k, arena_printf("%s %s weights", k < 4 ? "input" : "recurrent", gate[k % 4]));
        const Tensor *a = k < 4 ? x : h;
        need_type(w, DT_INT8, "weights");
        need_const(w, "weights");
        need_rank(w, 2, "weights");
        if (w->shape[0] != S || w->shape[1] != (k < 4 ? I : S))
            fail("weights '%s' must be [%d, %d]", w->name, S, k < 4 ? I : S);
        if (w->q.n != 1 || w->q.zero_point[0] != 0)
            fail("weights '%s' must be quantized per tensor with zero point 0", w->name);
        int8_t sh;
        quant_fc_multipliers(a->q.scale[0], w->q.scale, 1, gate_scale, k < 4 ? &p->in_mult[k] : &p->rec_mult[k - 4], &sh);
        (k < 4 ? p->in_shift : p->rec_shift)[k % 4] = sh;
    }
    for (int k = 0; k < 4; k++) {
        Tensor *b = need(g, op, 9 + k, "bias");
        need_type(b, s16 ? DT_INT64 : DT_INT32, "bias");
        need_const(b, "bias");
        if (tensor_numel(b) != S) fail("bias '%s' has %lld elements, expected %d", b->name, (long long)tensor_numel(b), S);
    }
    qmul((double)act_scale * (double)cs / (double)cs, &p->fc_mult, &p->fc_shift);
    qmul((double)act_scale * (double)act_scale / (double)cs, &p->ic_mult, &p->ic_shift);
    qmul((double)act_scale * (double)act_scale / (double)h->q.scale[0], &p->out_mult, &p->out_shift);
    int pw;
    quant_checked_log2(cs, &pw);        /* TFLM ignores whether it is a power of two */
    p->tanh_shift = 15 + pw - 3;
    p->tanh_mult = 0;
    if (p->tanh_shift < 0) {
        p->tanh_shift = -p->tanh_shift;
        p->tanh_mult = 3;
    }
    if (p->tanh_mult == 0 && p->tanh_shift > 16)
        fail("cell state scale %g is too large for TFLite Micro's int16 tanh", (double)cs);
    if (op->alpha > 0) {
        double q = (double)op->alpha / (double)cs;
        p->clip = (int32_t)(int16_t)(q < -32768.0 ? -32768.0 : (q > 32767.0 ? 32767.0 : q));
    } else {
        p->clip = -1;
    }
    h->variable = c->variable = 1;      /* TFLM's ResetTensorData: int8 to the zero point, else 0 */
    h->reset_byte = s16 ? 0 : (uint8_t)h_zp;
    c->reset_byte = 0;
    int nb = tm ? B : 1;
    if (4LL * nb * S > (1LL << 28)) fail("state of %d x %d values is too large", nb, S);
    const int32_t sshape[1] = {4 * nb * S};
    op->out[3] = graph_new_tensor(g, arena_printf("%s.lstm_scratch", out->name), DT_INT16, 1, sshape);
    g->tensors[op->out[3]].src_index = -1;
    op->nout = 4;
    op->variant = s16 ? "_s16" : "_s8";
    op->in[13] = quant_sigmoid16_tensor(g);
    op->nin = 14;
    op->rq = RQ_TFLITE;
    op->nch = 0;
    op->batches = B;
    op->in_c = I;
    op->out_c = S;
    op->in_zp = x_zp;
    op->out_zp = h_zp;
    op->macs = (int64_t)B * Tn * 4 * S * (I + S);
}

/* SVDF, int8 input and output, int16 or int8 state and time weights
   (kernels/svdf.c), TFLM's PrepareSvdf: the two effective scales in float
   (input * feature / state, state * time / output) then QuantizeMultiplier;
   the bias scale must be state * time within 1e-5 (TFLM checks it, and
   reads the bias: required). TFLM's integer kernels apply no fused
   activation, and neither does htc's. The state is a variable tensor
   (int8: reset to its zero point, int16: to 0); a scratch tensor of int32
   sums is the last output. */
static void lower_svdf(Graph *g, Op *op)
{
    Tensor *x = need(g, op, 0, "data"), *wf = need(g, op, 1, "feature weights"), *wt = need(g, op, 2, "time weights");
    Tensor *out = T(g, op->out[0]), *st = T(g, op->out[1]);
    if (op->nin < 4 || op->in[3] < 0) fail("an int8 SVDF needs a bias (TFLite Micro reads its scale)");
    Tensor *b = T(g, op->in[3]);
    need_type(x, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    own_state(g, op, op->out[1], "activation state");
    need_type(wf, DT_INT8, "feature weights");
    if (wt->type != DT_INT16 && wt->type != DT_INT8) fail("time weights '%s' must be int16 or int8", wt->name);
    if (st->type != wt->type)
        fail("activation state '%s' must have the time weights' type %s (TFLite Micro reads both as one type)", st->name,
             dtype_name(wt->type));
    need_type(b, DT_INT32, "bias");
    need_const(wf, "feature weights");
    need_const(wt, "time weights");
    need_const(b, "bias");
    need_rank(x, 2, "input");
    need_rank(out, 2, "output");
    need_rank(wf, 2, "feature weights");
    need_rank(wt, 2, "time weights");
    need_rank(st, 2, "activation state");
    int B = x->shape[0], I = x->shape[1], F = wf->shape[0], M = wt->shape[1], rank = op->mode;
    if (F % rank) fail("%d filters are not a multiple of rank %d", F, rank);
    int U = F / rank;
    if (wf->shape[1] != I || wt->shape[0] != F) fail("weights must be [%d, %d] and [%d, memory]", F, I, F);
    if (out->shape[0] != B || out->shape[1] != U) fail("output '%s' must be [%d, %d]", out->name, B, U);
    if (st->shape[0] != B || st->shape[1] != F * M) fail("activation state '%s' must be [%d, %d]", st->name, B, F * M);
    if (tensor_numel(b) != U) fail("bias '%s' has %lld elements, expected %d", b->name, (long long)tensor_numel(b), U);
    htc__svdf_params *p = gparams(op, sizeof *p, "htc__svdf_params", "iiiiiiiiiiiiii");
    p->batches = B; p->in_dim = I; p->filters = F; p->units = U; p->rank = rank; p->memory = M;
    p->in_zp = qzp(x, "input");
    p->state_zp = qzp(st, "activation state");
    p->out_zp = qzp(out, "output");
    qzp(wf, "feature weights");
    qzp(wt, "time weights");
    if (b->q.n < 1) fail("bias '%s' is not quantized", b->name);
    volatile float e1 = x->q.scale[0] * wf->q.scale[0];
    e1 = e1 / st->q.scale[0];
    volatile float e2 = st->q.scale[0] * wt->q.scale[0];
    volatile float bs = e2;
    e2 = e2 / out->q.scale[0];
    if (fabs((double)b->q.scale[0] - (double)bs) >= 1e-5)
        fail("bias scale %g differs from activation state x time weights scale %g (TFLite Micro refuses it)",
             (double)b->q.scale[0], (double)bs);
    qmul((double)e1, &p->m1, &p->s1);
    qmul((double)e2, &p->m2, &p->s2);
    p->has_bias = 1;
    st->variable = 1;
    st->reset_byte = st->type == DT_INT8 ? (uint8_t)p->state_zp : 0;
    if ((int64_t)B * (F + U) > (1LL << 28)) fail("%d batches of %d filters are too many", B, F);
    const int32_t sshape[1] = {B * F + B * U};
    op->out[2] = graph_new_tensor(g, arena_printf("%s.svdf_scratch", out->name), DT_INT32, 1, sshape);
    g->tensors[op->out[2]].src_index = -1;
    op->nout = 3;
    op->variant = st->type == DT_INT16 ? "_s16" : "_s8";
    op->rq = RQ_TFLITE;
    op->nch = 0;
    op->batches = B;
    op->in_c = I;
    op->out_c = U;
    op->in_zp = p->in_zp;
    op->out_zp = p->out_zp;
    op->macs = (int64_t)B * F * (I + M);
}

/* ---- TFLite Micro's signal library (custom Signal* operators) -------------- */

/* A rank-1 tensor of type ty; its element count. */
static int32_t vec1(const Tensor *t, DType ty, const char *what)
{
    need_type(t, ty, what);
    need_rank(t, 1, what);
    return t->shape[0];
}

static void same_count(const Tensor *a, const Tensor *b)
{
    if (tensor_numel(a) != tensor_numel(b))
        fail("'%s' has %lld elements, '%s' %lld (TFLite Micro would read or write past one of them)", b->name,
             (long long)tensor_numel(b), a->name, (long long)tensor_numel(a));
}

/* The value of element i of a constant int16 tensor. */
static int32_t c16(const Tensor *t, int64_t i)
{
    int16_t v;
    memcpy(&v, t->data + 2 * i, 2);
    return v;
}

/* kiss_fft's kf_factor: radix 4 first, then 2, then odd primes; pairs
   (radix, remaining length). Returns the number of pairs. */
static int kiss_factor(int n, int32_t *f)
{
    int p = 4, k = 0;
    double floor_sqrt = floor(sqrt((double)n));
    do {
        while (n % p) {
            p = p == 4 ? 2 : p == 2 ? 3 : p + 2;
            if (p > floor_sqrt) p = n;
        }
        n /= p;
        f[2 * k] = p;
        f[2 * k + 1] = n;
        k++;
    } while (n > 1);
    return k;
}

/* kiss_fft's fixed-point twiddle: floor(0.5 + 32767 * cos / sin (phase)). */
static void twiddle(int16_t *tw, double phase)
{
    tw[0] = (int16_t)floor(.5 + 32767 * cos(phase));
    tw[1] = (int16_t)floor(.5 + 32767 * sin(phase));
}

static void lower_signal(Graph *g, Op *op)
{
    const int32_t *s = op->sig;
    Tensor *x = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    switch (op->kind) {
    case OP_WINDOW: {       /* window.cc: the weights applied to each run of weight_size elements */
        Tensor *w = need(g, op, 1, "weights");
        need_type(x, DT_INT16, "input");
        need_type(out, DT_INT16, "output");
        int32_t size = vec1(w, DT_INT16, "weights");
        if (x->rank != out->rank) fail("output '%s' has rank %d, the input %d", out->name, out->rank, x->rank);
        same_count(x, out);
        if (size < 1 || tensor_numel(x) % size)
            fail("%lld input elements are not a multiple of the %d weights", (long long)tensor_numel(x), size);
        htc__window_params *p = gparams(op, sizeof *p, "htc__window_params", "iii");
        p->n = (int32_t)tensor_numel(x);
        p->size = size;
        p->shift = s[0];
        break;
    }
    case OP_FFT_AUTOSCALE: {
        Tensor *sh = T(g, op->out[1]);
        int32_t n = vec1(x, DT_INT16, "input");
        vec1(out, DT_INT16, "output");
        need_type(sh, DT_INT32, "scale bits");
        need_rank(sh, 0, "scale bits");
        same_count(x, out);
        htc__signal_n_params *p = gparams(op, sizeof *p, "htc__signal_n_params", "i");
        p->n = n;
        break;
    }
    case OP_RFFT: {         /* rfft.cc + kiss_fftr (FIXED_POINT 16): frames along the last axis */
        need_type(x, DT_INT16, "input");
        need_type(out, DT_INT16, "output");
        if (x->rank < 1 || x->rank != out->rank) fail("input and output must have one rank, at least 1");
        int32_t len = s[0], in_len = x->shape[x->rank - 1], ncfft = len / 2;
        if (len % 2) fail("fft_length %d is odd (kiss_fftr needs an even length)", len);
        if (in_len > len) fail("frames of %d samples are longer than fft_length %d", in_len, len);
        if (out->shape[out->rank - 1] != 2 * (ncfft + 1))
            fail("output '%s' frames have %d values, expected %d (fft_length / 2 + 1 complex)", out->name,
                 out->shape[out->rank - 1], 2 * (ncfft + 1));
        int64_t frames = tensor_numel(x) / in_len;
        if (tensor_numel(out) != frames * 2 * (ncfft + 1)) fail("output '%s' must hold %lld frames", out->name, (long long)frames);
        htc__rfft_params *p = gparams(op, sizeof *p, "htc__rfft_params", "iiiia64");
        int nf = kiss_factor(ncfft, p->factors);
        for (int k = 0; k < nf; k++)
            if (p->factors[2 * k] > 5)
                fail("fft_length %d has the factor %d: TFLite Micro's kiss_fft has no scratch memory for radices "
                     "above 5 (it cannot run it)", len, p->factors[2 * k]);
        p->frames = (int32_t)frames;
        p->in_len = in_len;
        p->fft_len = len;
        p->nfactors = nf;
        /* kiss_fft_alloc's twiddles (ncfft), then kiss_fftr_alloc's super twiddles (ncfft / 2) */
        int32_t ntw = ncfft + ncfft / 2, shape[1] = {2 * ntw};
        int16_t *tw = arena_alloc(sizeof(int16_t) * 2 * (size_t)ntw);
        const double pi = 3.141592653589793238462643383279502884197169399375105820974944;
        for (int i = 0; i < ncfft; i++) twiddle(tw + 2 * i, -2 * pi * i / ncfft);
        for (int i = 0; i < ncfft / 2; i++)
            twiddle(tw + 2 * (ncfft + i), -3.14159265358979323846264338327 * ((double)(i + 1) / ncfft + .5));
        const char *nm = arena_printf("%s.twiddles", out->name), *wn = arena_printf("%s.rfft_work", out->name);
        int t = graph_const_tensor(g, nm, DT_INT16, 1, shape, tw, sizeof(int16_t) * 2 * (size_t)ntw);
        shape[0] = len;
        int w = graph_new_tensor(g, wn, DT_INT16, 1, shape);
        g->tensors[t].src_index = g->tensors[w].src_index = -1;
        op->in[op->nin++] = t;
        op->out[op->nout++] = w;
        op->macs = frames * (int64_t)len * nf;
        break;
    }
    case OP_ENERGY: {       /* energy.cc: bins [start, end) of complex int16 */
        int32_t n = vec1(x, DT_INT16, "input"), m = vec1(out, DT_UINT32, "output");
        if (s[0] > s[1] || s[1] > n / 2 || s[1] > m)
            fail("bins [%d, %d) out of range (%d complex inputs, %d outputs)", s[0], s[1], n / 2, m);
        htc__energy_params *p = gparams(op, sizeof *p, "htc__energy_params", "iii");
        p->n = m;
        p->start = s[0];
        p->end = s[1];
        break;
    }
    case OP_FILTER_BANK: {  /* filter_bank.cc: channel 0 is scratch, channels 1..num_channels the output */
        int32_t n = vec1(x, DT_UINT32, "input"), C = s[0];
        int32_t nw = vec1(need(g, op, 1, "weights"), DT_INT16, "weights");
        static const char *const what[5] = {"weights", "unweights", "channel frequency starts", "channel weight starts",
                                            "channel widths"};
        Tensor *a[5];
        for (int k = 0; k < 5; k++) {
            a[k] = need(g, op, 1 + k, what[k]);
            int32_t m = vec1(a[k], DT_INT16, what[k]);
            if (k == 1 && m != nw) fail("%d unweights for %d weights", m, nw);
            if (k >= 2) {
                need_const(a[k], what[k]);
                if (m < C + 1) fail("%s '%s' has %d elements, num_channels + 1 = %d needed", what[k], a[k]->name, m, C + 1);
            }
        }
        if (vec1(out, DT_UINT64, "output") != C) fail("output '%s' must have num_channels = %d elements", out->name, C);
        for (int i = 0; i <= C; i++) {
            int32_t f = c16(a[2], i), w = c16(a[3], i), wd = c16(a[4], i);
            if (f < 0 || w < 0 || wd < 0 || f + wd > n || w + wd > nw)
                fail("channel %d (frequency start %d, weight start %d, width %d) reads outside the input (%d) or the "
                     "weights (%d)", i, f, w, wd, n, nw);
        }
        htc__signal_n_params *p = gparams(op, sizeof *p, "htc__signal_n_params", "i");
        p->n = C;
        op->macs = 2LL * nw;
        break;
    }
    case OP_FB_SQRT: {
        int32_t n = vec1(x, DT_UINT64, "input");
        Tensor *b = need(g, op, 1, "scale bits");
        need_type(b, DT_INT32, "scale bits");
        need_rank(b, 0, "scale bits");
        vec1(out, DT_UINT32, "output");
        same_count(x, out);
        htc__signal_n_params *p = gparams(op, sizeof *p, "htc__signal_n_params", "i");
        p->n = n;
        break;
    }
    case OP_SPECTRAL_SUB: {
        int32_t C = s[SIG_SS_CHANNELS];
        if (vec1(x, DT_UINT32, "input") != C || vec1(out, DT_UINT32, "output") != C ||
            vec1(T(g, op->out[1]), DT_UINT32, "noise estimate") != C)
            fail("input, output and noise estimate must have num_channels = %d elements", C);
        /* the noise estimate TFLM keeps from one Invoke to the next (zeros after
           Prepare and Reset): a variable tensor, the op's third output */
        const int32_t shape[1] = {C};
        int t = graph_new_tensor(g, arena_printf("%s.noise_state", out->name), DT_UINT32, 1, shape);
        g->tensors[t].src_index = -1;
        g->tensors[t].variable = 1;
        g->tensors[t].reset_byte = 0;
        op->out[op->nout++] = t;
        htc__spectral_sub_params *p = gparams(op, sizeof *p, "htc__spectral_sub_params", "iiiiiiiii");
        p->n = C;
        p->smoothing = s[SIG_SS_SMOOTHING];
        p->one_minus = s[SIG_SS_ONE_MINUS];
        p->alt_smoothing = s[SIG_SS_ALT_SMOOTHING];
        p->alt_one_minus = s[SIG_SS_ALT_ONE_MINUS];
        p->min_remaining = s[SIG_SS_MIN_REMAINING];
        p->smoothing_bits = s[SIG_SS_SMOOTHING_BITS];
        p->bits = s[SIG_SS_BITS];
        p->clamping = s[SIG_SS_CLAMPING];
        break;
    }
    case OP_PCAN: {         /* pcan.cc: the gain table read up to index 124 (inputs up to 2^32 - 1) */
        int32_t n = vec1(x, DT_UINT32, "input");
        if (vec1(need(g, op, 1, "noise estimate"), DT_UINT32, "noise estimate") < n)
            fail("the noise estimate has fewer than %d channels", n);
        if (vec1(need(g, op, 2, "gain table"), DT_INT16, "gain table") < 125)
            fail("the gain table has fewer than 125 entries (TFLite Micro reads up to entry 124)");
        vec1(out, DT_UINT32, "output");
        same_count(x, out);
        htc__pcan_params *p = gparams(op, sizeof *p, "htc__pcan_params", "ii");
        p->n = n;
        p->snr_shift = s[0];
        break;
    }
    case OP_FB_LOG: {       /* filter_bank_log.cc, log.cc: the 129-point log2 correction table as a constant */
        int32_t n = vec1(x, DT_UINT32, "input");
        vec1(out, DT_INT16, "output");
        same_count(x, out);
        htc__fb_log_params *p = gparams(op, sizeof *p, "htc__fb_log_params", "iii");
        p->n = n;
        p->correction_bits = s[0];
        p->output_scale = s[1];
        int16_t lut[130];
        for (int k = 0; k <= 128; k++)  /* log2(1 + k/128) - k/128 in 1/65536 (log.cc's kLogLut, to the unit) */
            lut[k] = (int16_t)floor(65536.0 * (log2(1.0 + k / 128.0) - k / 128.0) + 0.5);
        lut[129] = 0;
        const int32_t shape[1] = {130};
        int t = graph_const_tensor(g, arena_printf("%s.log_table", out->name), DT_INT16, 1, shape, lut, sizeof lut);
        g->tensors[t].src_index = -1;
        op->in[op->nin++] = t;
        break;
    }
    case OP_DELAY: {        /* delay.cc: a circular buffer per row, delay_length zeros after Prepare and Reset */
        need_type(x, DT_INT16, "input");
        need_type(out, DT_INT16, "output");
        if (x->rank < 1 || x->rank != out->rank) fail("input and output must have one rank, at least 1");
        same_count(x, out);
        int32_t frame = x->shape[x->rank - 1];
        int64_t rows = tensor_numel(x) / frame;
        if (rows * (int64_t)s[0] > (1 << 24)) fail("%lld rows of delay %d: the delay lines are too large", (long long)rows, s[0]);
        htc__delay_params *p = gparams(op, sizeof *p, "htc__delay_params", "iii");
        p->rows = (int32_t)rows;
        p->frame = frame;
        p->delay = s[0];
        /* the last delay_length samples of each row (one unused element for delay 0):
           a variable tensor, the second output */
        const int32_t shape[1] = {s[0] ? (int32_t)(rows * s[0]) : 1};
        int t = graph_new_tensor(g, arena_printf("%s.delay_state", out->name), DT_INT16, 1, shape);
        g->tensors[t].src_index = -1;
        g->tensors[t].variable = 1;
        g->tensors[t].reset_byte = 0;
        op->out[op->nout++] = t;
        break;
    }
    case OP_OVERLAP_ADD: {  /* overlap_add.cc: [..., frames, frame_size] -> [..., frames * frame_step] */
        DType ty = s[1] == 0 ? DT_FLOAT32 : DT_INT16;
        need_type(x, ty, "input");
        need_type(out, ty, "output");
        if (x->rank < 2 || out->rank != x->rank - 1) fail("input must have rank 2 or more, the output one less");
        int32_t size = x->shape[x->rank - 1], frames = x->shape[x->rank - 2], step = s[0];
        if (step > size) fail("frame_step %d is larger than the frames (%d samples)", step, size);
        int64_t rows = tensor_numel(x) / ((int64_t)size * frames);
        if (tensor_numel(out) != rows * frames * step)
            fail("output '%s' must have %lld elements (frames x frame_step per row)", out->name, (long long)(rows * frames * step));
        if (rows * (int64_t)size > (1 << 24)) fail("%lld rows of %d samples: the buffers are too large", (long long)rows, size);
        htc__overlap_add_params *p = gparams(op, sizeof *p, "htc__overlap_add_params", "iiii");
        p->rows = (int32_t)rows;
        p->frames = frames;
        p->size = size;
        p->step = step;
        op->variant = ty == DT_FLOAT32 ? "_f32" : "_s16";
        /* each row's running sum (zeros after Prepare and Reset): a variable tensor, the second output */
        const int32_t shape[1] = {(int32_t)(rows * size)};
        int t = graph_new_tensor(g, arena_printf("%s.overlap_state", out->name), ty, 1, shape);
        g->tensors[t].src_index = -1;
        g->tensors[t].variable = 1;
        g->tensors[t].reset_byte = 0;
        op->out[op->nout++] = t;
        break;
    }
    default: fail("no lowering for %s", op_name(op->kind));
    }
}

/* TFLite's GetNearestNeighbor (float scale and offset, floor or round). */
static int32_t nearest(int v, int in_size, int out_size, int align, int half)
{
    volatile float scale = (align && out_size > 1) ? (float)(in_size - 1) / (float)(out_size - 1)
                                                   : (float)in_size / (float)out_size;
    volatile float offset = half ? 0.5f : 0.0f;
    volatile float x = ((float)v + offset) * scale;
    int32_t r = align ? (int32_t)roundf(x) : (int32_t)floorf(x);
    if (r > in_size - 1) r = in_size - 1;
    if (half && r < 0) r = 0;
    return r;
}

/* RESIZE_NEAREST_NEIGHBOR (any type) and RESIZE_BILINEAR (int8), NHWC. */
static void lower_resize(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    int64_t sz[2];
    Tensor *st = need(g, op, 1, "size");
    need_const(st, "size");
    if (st->type != DT_INT32 || tensor_numel(st) != 2) fail("size '%s' must be 2 int32 values", st->name);
    for (int k = 0; k < 2; k++) {
        int32_t v;
        memcpy(&v, st->data + 4 * k, 4);
        sz[k] = v;
    }
    need_rank(in, 4, "input");
    need_rank(out, 4, "output");
    if (in->type != out->type) fail("input and output types differ");
    if (out->shape[1] != sz[0] || out->shape[2] != sz[1] || out->shape[0] != in->shape[0] || out->shape[3] != in->shape[3])
        fail("output '%s' is not the input resized to %lldx%lld", out->name, (long long)sz[0], (long long)sz[1]);
    if (op->align_corners && op->half_pixel) fail("align_corners and half_pixel_centers are both set");
    if (in->q.n && out->q.n && (in->q.scale[0] != out->q.scale[0] || in->q.zero_point[0] != out->q.zero_point[0]))
        fail("input and output quantization differ");
    htc__resize_params *p = gparams(op, sizeof *p, "htc__resize_params", "iiiiiiiiiii");
    p->batches = in->shape[0]; p->in_h = in->shape[1]; p->in_w = in->shape[2]; p->c = in->shape[3];
    p->out_h = out->shape[1]; p->out_w = out->shape[2];
    p->mode = op->mode;
    p->half_pixel = op->half_pixel;
    p->elem = (int32_t)dtype_size(in->type);
    if (op->mode == 1) {
        need_type(in, DT_INT8, "input");
        p->h_scale10 = ((1 << 10) * p->in_h + p->out_h / 2) / p->out_h;
        p->w_scale10 = ((1 << 10) * p->in_w + p->out_w / 2) / p->out_w;
        if (op->align_corners && p->out_h > 1) p->h_scale10 = ((1 << 10) * (p->in_h - 1) + (p->out_h - 1) / 2) / (p->out_h - 1);
        if (op->align_corners && p->out_w > 1) p->w_scale10 = ((1 << 10) * (p->in_w - 1) + (p->out_w - 1) / 2) / (p->out_w - 1);
        op->in[1] = -1;                 /* the kernel's map argument: NULL */
        op->nin = 2;
        op->variant = "_bilinear_s8";
        if (op->u8) {                   /* LiteRT's uint8 kernel: float weights (kernels/resize.c) */
            p->h_scale10 = op->align_corners;
            p->w_scale10 = 0;
            op->variant = "_bilinear_u8";
        }
    } else {
        /* the source row/column tables as a constant input */
        int t = graph_add_tensor(g);   /* may move g->tensors: no Tensor pointer is used after it */
        Tensor *mt = &g->tensors[t];
        int32_t *map = arena_alloc(sizeof(int32_t) * (size_t)(p->out_h + p->out_w));
        for (int y = 0; y < p->out_h; y++) map[y] = nearest(y, p->in_h, p->out_h, op->align_corners, op->half_pixel);
        for (int x = 0; x < p->out_w; x++) map[p->out_h + x] = nearest(x, p->in_w, p->out_w, op->align_corners, op->half_pixel);
        mt->name = arena_printf("%s.map", g->tensors[op->out[0]].name);
        mt->type = DT_INT32;
        mt->rank = 1;
        mt->shape[0] = p->out_h + p->out_w;
        mt->data = (const uint8_t *)map;
        mt->nbytes = sizeof(int32_t) * (size_t)(p->out_h + p->out_w);
        mt->src_index = -1;
        op->in[1] = t;
        op->nin = 2;
        op->variant = "_nearest";
    }
}

/* Same quantization on input and output (data movement ops). */
static void same_quant(const Tensor *in, const Tensor *out)
{
    if (in->type != out->type) fail("input and output types differ");
    if (in->q.n && out->q.n && (in->q.scale[0] != out->q.scale[0] || in->q.zero_point[0] != out->q.zero_point[0]))
        fail("input and output quantization differ");
}

/* Bytes of one element; the kernels move any type. */
static int32_t elem_of(const Tensor *t)
{
    if (t->type == DT_BOOL || t->type == DT_INT64) return (int32_t)dtype_size(t->type);
    return (int32_t)dtype_size(t->type);
}

/* TILE: multiples from the constant second input. */
static void lower_tile(Graph *g, Op *op)
{
    if (op->mode == 1) {                /* BROADCAST_TO: every dimension of 1 repeated to the output's */
        Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
        same_quant(in, out);
        if (in->rank > out->rank) fail("input rank %d exceeds the output's %d", in->rank, out->rank);
        htc__tile_params *p = gparams(op, sizeof *p, "htc__tile_params", "iia6a6");
        int32_t si[6], so[6];
        shape6(in, si);
        shape6(out, so);
        p->rank = out->rank;
        p->elem = elem_of(in);
        for (int i = 0; i < 6; i++) {
            if (si[i] != so[i] && si[i] != 1) fail("input '%s' does not broadcast to '%s'", in->name, out->name);
            p->in_shape[i] = si[i];
            p->mult[i] = so[i] / si[i];
        }
        return;
    }
    Tensor *in = need(g, op, 0, "data"), *m = need(g, op, 1, "multiples"), *out = T(g, op->out[0]);
    need_const(m, "multiples");
    same_quant(in, out);
    if (tensor_numel(m) != in->rank) fail("multiples '%s' must have %d values", m->name, in->rank);
    htc__tile_params *p = gparams(op, sizeof *p, "htc__tile_params", "iia6a6");
    int32_t s[6];
    shape6(in, s);
    p->rank = in->rank;
    p->elem = elem_of(in);
    for (int i = 0; i < 6; i++) { p->in_shape[i] = s[i]; p->mult[i] = 1; }
    for (int i = 0; i < in->rank; i++) {
        int64_t v;
        if (m->type == DT_INT32) { int32_t x; memcpy(&x, m->data + 4 * i, 4); v = x; }
        else if (m->type == DT_INT64) memcpy(&v, m->data + 8 * i, 8);
        else fail("multiples must be int32 or int64");
        if (v < 0 || (int64_t)in->shape[i] * v != out->shape[i]) fail("output '%s' is not the input tiled", out->name);
        p->mult[6 - in->rank + i] = (int32_t)v;
    }
    op->nin = 1;
    op->in[1] = -1;
}

/* SLICE / STRIDED_SLICE / SPLIT / SPLIT_V / UNPACK (tflite.c computed the
   first index, stride and count per input axis). */
static void lower_slice(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    same_quant(in, out);
    htc__slice_params *p = gparams(op, sizeof *p, "htc__slice_params", "iia6a6a6a6");
    int32_t s[6];
    shape6(in, s);
    int64_t n = 1;
    p->rank = in->rank;
    p->elem = elem_of(in);
    for (int i = 0; i < 6; i++) {
        int a = i - (6 - in->rank);
        p->in_shape[i] = s[i];
        p->begin[i] = a >= 0 ? op->begin[a] : 0;
        p->step[i] = a >= 0 ? op->step[a] : 1;
        p->count[i] = a >= 0 ? op->count[a] : 1;
        if (a >= 0 && op->count[a] > 0) {
            int64_t last = (int64_t)op->begin[a] + (int64_t)(op->count[a] - 1) * op->step[a];
            if (op->begin[a] < 0 || op->begin[a] >= in->shape[a] || last < 0 || last >= in->shape[a])
                fail("slice reads outside axis %d", a);
        }
        n *= p->count[i];
    }
    if (n != tensor_numel(out)) fail("the slice has %lld elements, the output '%s' %lld", (long long)n, out->name,
                                     (long long)tensor_numel(out));
}

static void lower_gather_rt(Graph *g, Op *op);

/* GATHER along an axis with constant indices: the gather kernel QuantLib's
   graphs brought (kernels/qlib_eltwise.c htc__ql_gather), indices as int32.
   Indices computed at run time and batch_dims go to lower_gather_rt. */
static void lower_gather(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *ix = need(g, op, 1, "indices"), *out = T(g, op->out[0]);
    same_quant(in, out);
    if (ix->type != DT_INT32 && ix->type != DT_INT64) fail("indices '%s' must be int32 or int64", ix->name);
    if (!ix->data || op->mode) {        /* run-time indices, batch_dims: the GATHER_ND kernel */
        lower_gather_rt(g, op);
        return;
    }
    int axis = op->axis;
    int64_t n = tensor_numel(ix);
    htc__ql_gather_params *p = params(op, sizeof *p, "htc__ql_gather_params");
    p->outer = p->inner = 1;
    for (int i = 0; i < axis; i++) p->outer *= in->shape[i];
    for (int i = axis + 1; i < in->rank; i++) p->inner *= in->shape[i];
    p->axis = in->shape[axis];
    p->elem = elem_of(in);
    p->nidx = (int32_t)n;
    if ((int64_t)p->outer * n * p->inner != tensor_numel(out))
        fail("output '%s' has %lld elements", out->name, (long long)tensor_numel(out));
    int32_t *idx = arena_alloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    for (int64_t k = 0; k < n; k++) {
        int64_t v;
        if (ix->type == DT_INT64) memcpy(&v, ix->data + 8 * k, 8);
        else { int32_t x; memcpy(&x, ix->data + 4 * k, 4); v = x; }
        if (v < 0 || v >= p->axis) fail("index %lld out of range [0, %d)", (long long)v, p->axis);
        idx[k] = (int32_t)v;
    }
    if (ix->type == DT_INT64) {         /* the kernel reads int32 indices */
        int t = graph_add_tensor(g);    /* may move g->tensors: no Tensor pointer is used after it */
        Tensor *c = &g->tensors[t];
        c->name = arena_printf("%s.i32", g->tensors[op->in[1]].name);
        c->type = DT_INT32;
        c->rank = 1;
        c->shape[0] = (int32_t)n;
        c->data = (const uint8_t *)idx;
        c->nbytes = sizeof(int32_t) * (size_t)n;
        c->src_index = -1;
        op->in[1] = t;
    }
    op->rq = RQ_NONE;
}

/* SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND, 3-D ([b][h][c]) or 4-D NHWC. */
static void lower_s2b(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *bs = need(g, op, 1, "block_shape"), *pd = need(g, op, 2, "paddings"),
           *out = T(g, op->out[0]);
    int s2b = op->kind == OP_SPACE_TO_BATCH;
    need_const(bs, "block_shape");
    need_const(pd, "paddings");
    same_quant(in, out);
    if (in->rank != 3 && in->rank != 4) fail("input '%s' must have rank 3 or 4", in->name);
    if (out->rank != in->rank) fail("output rank differs from the input's");
    int ns = in->rank - 2;
    if (bs->type != DT_INT32 || pd->type != DT_INT32 || tensor_numel(bs) != ns || tensor_numel(pd) != 2 * ns)
        fail("block_shape and paddings must be int32 [%d] and [%d, 2]", ns, ns);
    int32_t b[2] = {1, 1}, q[4] = {0, 0, 0, 0};
    memcpy(b, bs->data, 4 * (size_t)ns);
    memcpy(q, pd->data, 8 * (size_t)ns);
    htc__s2b_params *p = gparams(op, sizeof *p, "htc__s2b_params", "iiiiiiiiiiiii");
    const Tensor *big = s2b ? out : in, *small = s2b ? in : out;      /* the batched side, the spatial side */
    p->in_b = in->shape[0]; p->in_h = in->shape[1]; p->in_w = in->rank == 4 ? in->shape[2] : 1;
    p->c = in->shape[in->rank - 1];
    p->out_b = out->shape[0]; p->out_h = out->shape[1]; p->out_w = out->rank == 4 ? out->shape[2] : 1;
    p->block_h = b[0];
    p->block_w = ns == 2 ? b[1] : 1;
    p->pad_top = q[0];
    p->pad_left = ns == 2 ? q[2] : 0;
    p->elem = elem_of(in);
    /* the padding holds the output zero point (real 0), as TFLite's
       space_to_batch_nd.cc writes it; TFLite Micro's kernel reads
       SpaceToBatchParams.output_offset from a buffer it never sets */
    p->pad_value = out->q.n ? (int32_t)out->q.zero_point[0] : 0;
    if (p->block_h < 1 || p->block_w < 1 || q[0] < 0 || q[1] < 0 || q[2] < 0 || q[3] < 0) fail("negative block or padding");
    if (big->shape[0] != small->shape[0] * p->block_h * p->block_w || out->shape[out->rank - 1] != p->c ||
        (int64_t)(s2b ? p->out_h : p->in_h) * p->block_h != (int64_t)(s2b ? p->in_h : p->out_h) + q[0] + q[1] ||
        (int64_t)(s2b ? p->out_w : p->in_w) * p->block_w != (int64_t)(s2b ? p->in_w : p->out_w) + q[2] + q[3])
        fail("shapes of '%s' and '%s' do not match the block and paddings", in->name, out->name);
    op->nin = 1;
    op->in[1] = op->in[2] = -1;
}

/* MEAN / SUM / REDUCE_MAX over any axes (reduce_common.cc). MEAN over H, W of
   a 4-D tensor keeps the dedicated kernel (kernels/mean.c). */
static void lower_reduce(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    op->s16 = in->type == DT_INT16;     /* MEAN / SUM: kernels/reduce_s16.c */
    if (op->s16 && op->kind != OP_MEAN && op->kind != OP_SUM) fail("int16 %s is not supported", op->src_name);
    need_type(in, op->s16 ? DT_INT16 : DT_INT8, "input");
    need_type(out, in->type, "output");
    int red[MAX_RANK] = {0};
    for (int i = 0; i < op->naxes; i++) red[op->axes[i]] = 1;
    int64_t kept = 1;
    for (int d = 0; d < in->rank; d++) kept *= red[d] ? 1 : in->shape[d];
    if (kept != tensor_numel(out)) fail("output '%s' has %lld elements, the reduction %lld", out->name,
                                        (long long)tensor_numel(out), (long long)kept);
    if (op->kind == OP_MEAN && in->rank == 4 && red[1] && red[2] && !red[0] && !red[3] && !op->s16) {
        lower_mean(g, op);
        return;
    }
    htc__reduce_params *p = gparams(op, sizeof *p, "htc__reduce_params", "iia6a6iiii");
    int32_t s[6];
    shape6(in, s);
    p->rank = in->rank;
    p->mode = op->kind == OP_MEAN ? 0 : op->kind == OP_SUM ? 1 : op->kind == OP_REDUCE_MAX ? 2 : 3;
    for (int i = 0; i < 6; i++) {
        int a = i - (6 - in->rank);
        p->in_shape[i] = s[i];
        p->red[i] = a >= 0 && red[a];
    }
    p->in_zp = qzp(in, "input");
    p->out_zp = qzp(out, "output");
    if (p->mode >= 2) {
        if (in->q.scale[0] != out->q.scale[0] || p->in_zp != p->out_zp)
            fail("int8 %s needs equal input and output quantization (TFLite Micro checks it)", op->src_name);
        op->rq = RQ_NONE;
    } else {
        qmul((double)in->q.scale[0] / (double)out->q.scale[0], &p->mult, &p->shift);
        op->rq = RQ_TFLITE;
        op->nch = 1;
    }
    op->macs = tensor_numel(in);
}

/* L2_NORMALIZATION int8 over the last axis (output Q0.7). */
static void lower_l2norm(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    if (in->rank > 4) fail("input '%s' has rank %d, at most 4", in->name, in->rank);
    if (op->act != ACT_NONE) fail("fused activation is not supported (TFLite Micro refuses it)");
    if (op->u8 && (out->q.scale[0] != 1.0f / 128 || qzp(out, "output") != 0))
        fail("uint8 output '%s' must have scale 1/128 and zero point 128 (LiteRT's L2_NORMALIZATION refuses others)",
             out->name);
    htc__l2norm_params *p = gparams(op, sizeof *p, "htc__l2norm_params", "iii");
    p->depth = in->shape[in->rank - 1];
    p->outer = (int32_t)(tensor_numel(in) / p->depth);
    p->in_zp = qzp(in, "input");
    if (op->u8) op->variant = "_u8";    /* LiteRT's uint8 rounding (kernels/reduce.c) */
    op->rq = RQ_TFLITE;
    op->nch = 1;
    op->macs = tensor_numel(in);
}

/* TRANSPOSE with a constant permutation (kernels/transpose.c, any type). */
/* DEPTH_TO_SPACE / SPACE_TO_DEPTH (NHWC, block b) as a rank-6 transpose:
   the output viewed as [n][h][b][w][b][c'] (depth to space) or
   [n][h'][w'][b][b][c] (space to depth), read through the input's strides. */
static void lower_d2s(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    same_quant(in, out);
    need_rank(in, 4, "input");
    need_rank(out, 4, "output");
    int b = op->stride_h, n = in->shape[0], ih = in->shape[1], iw = in->shape[2], ic = in->shape[3];
    htc__transpose_params *p = params(op, sizeof *p, "htc__transpose_params");
    p->rank = 6;
    p->elem = elem_of(in);
    if (op->mode == 1) {
        int oc = ic / (b * b);
        if (ic % (b * b) || out->shape[1] != ih * b || out->shape[2] != iw * b || out->shape[3] != oc || out->shape[0] != n)
            fail("output '%s' is not the input's depth moved to space in blocks of %d", out->name, b);
        int32_t sh[6] = {n, ih, b, iw, b, oc}, st[6] = {ih * iw * ic, iw * ic, b * oc, ic, oc, 1};
        memcpy(p->shape, sh, sizeof sh);
        memcpy(p->stride, st, sizeof st);
    } else {
        if (ih % b || iw % b || out->shape[1] != ih / b || out->shape[2] != iw / b || out->shape[3] != ic * b * b ||
            out->shape[0] != n)
            fail("output '%s' is not the input's space moved to depth in blocks of %d", out->name, b);
        int32_t sh[6] = {n, ih / b, iw / b, b, b, ic}, st[6] = {ih * iw * ic, b * iw * ic, b * ic, iw * ic, ic, 1};
        memcpy(p->shape, sh, sizeof sh);
        memcpy(p->stride, st, sizeof st);
    }
}

static void lower_transpose(Graph *g, Op *op)
{
    if (op->mode) {
        lower_d2s(g, op);
        return;
    }
    Tensor *in = need(g, op, 0, "data"), *pm = need(g, op, 1, "perm"), *out = T(g, op->out[0]);
    need_const(pm, "perm");
    same_quant(in, out);
    if (in->rank > 6) fail("rank %d, at most 6", in->rank);
    if (tensor_numel(pm) != in->rank || (pm->type != DT_INT32 && pm->type != DT_INT64))
        fail("perm '%s' must have %d int32 values", pm->name, in->rank);
    htc__transpose_params *p = params(op, sizeof *p, "htc__transpose_params");
    int32_t stride[6], used[6] = {0};
    p->rank = in->rank;
    p->elem = elem_of(in);
    for (int d = in->rank - 1, s = 1; d >= 0; d--) { stride[d] = s; s *= in->shape[d]; }
    for (int d = 0; d < in->rank; d++) {
        int64_t v;
        if (pm->type == DT_INT32) { int32_t x; memcpy(&x, pm->data + 4 * d, 4); v = x; }
        else memcpy(&v, pm->data + 8 * d, 8);
        if (v < 0 || v >= in->rank || used[v]) fail("perm is not a permutation of 0..%d", in->rank - 1);
        used[v] = 1;
        if (out->shape[d] != in->shape[v]) fail("output '%s' is not the input permuted", out->name);
        p->shape[d] = in->shape[v];
        p->stride[d] = stride[v];
    }
    op->nin = 1;
    op->in[1] = -1;
}

/* NEG of a float32 tensor (a float island: TFLM's NEG is float only). */
static void lower_neg(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_FLOAT32, "input");
    need_type(out, DT_FLOAT32, "output");
    htc__funary_params *p = gparams(op, sizeof *p, "htc__funary_params", "i");
    p->size = (int32_t)tensor_numel(in);
    op->variant = "_f32";
}

/* ARG_MAX / ARG_MIN of an int8 tensor along a constant axis. */
static void lower_argminmax(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    if (out->type != DT_INT32 && out->type != DT_INT64) fail("output '%s' must be int32 or int64", out->name);
    htc__argminmax_params *p = gparams(op, sizeof *p, "htc__argminmax_params", "iiiii");
    p->outer = p->inner = 1;
    for (int d = 0; d < op->axis; d++) p->outer *= in->shape[d];
    for (int d = op->axis + 1; d < in->rank; d++) p->inner *= in->shape[d];
    p->axis_size = in->shape[op->axis];
    p->is_min = op->kind == OP_ARGMIN;
    op->macs = tensor_numel(in);
    p->out64 = out->type == DT_INT64;
    if ((int64_t)p->outer * p->inner != tensor_numel(out)) fail("output '%s' has %lld elements", out->name,
                                                                 (long long)tensor_numel(out));
}

/* MIRROR_PAD: TFLM's GetInputDimension per output coordinate, at compile
   time, into a table the kernel reads (its second input). */
static void lower_mirror_pad(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *pads = need(g, op, 1, "paddings"), *out = T(g, op->out[0]);
    need_const(pads, "paddings");
    same_quant(in, out);
    if (in->rank > 6) fail("rank %d, at most 6", in->rank);
    if (tensor_numel(pads) != 2 * in->rank || (pads->type != DT_INT32 && pads->type != DT_INT64))
        fail("paddings '%s' must be [%d, 2] int32", pads->name, in->rank);
    int offset = op->mode;              /* REFLECT 1, SYMMETRIC 0 */
    htc__mirror_pad_params *p = gparams(op, sizeof *p, "htc__mirror_pad_params", "a6a6a6i");
    int32_t total = 0, si[6], so[6];
    shape6(in, si);
    shape6(out, so);
    for (int d = 0; d < 6; d++) total += so[d];
    int32_t *map = arena_alloc(sizeof(int32_t) * (size_t)total);
    int32_t off = 0, stride = 1;
    for (int d = 5; d >= 0; d--) {
        p->in_stride[d] = stride;
        stride *= si[d];
    }
    for (int d = 0; d < 6; d++) {
        int a = d - (6 - in->rank);
        int64_t lp = 0, rp = 0;
        if (a >= 0) {
            if (pads->type == DT_INT32) {
                int32_t v[2];
                memcpy(v, pads->data + 8 * a, 8);
                lp = v[0]; rp = v[1];
            } else {
                memcpy(&lp, pads->data + 16 * a, 8);
                memcpy(&rp, pads->data + 16 * a + 8, 8);
            }
        }
        if (lp < 0 || rp < 0 || lp > si[d] - offset || rp > si[d] - offset)
            fail("padding of dimension %d exceeds what %s mode allows", a, offset ? "REFLECT" : "SYMMETRIC");
        if (si[d] + lp + rp != so[d]) fail("output '%s' is not the input padded", out->name);
        p->out_shape[d] = so[d];
        p->map_off[d] = off;
        for (int32_t o = 0; o < so[d]; o++) {
            int32_t pd = o, v;
            if (pd < lp) {
                int32_t orig = (int32_t)lp + offset - 1;
                v = orig - (pd < orig - offset ? pd : orig - offset);
            } else {
                pd -= (int32_t)lp;
                if (pd >= si[d]) {
                    pd -= si[d];
                    int32_t orig = si[d] - (1 + offset);
                    v = orig - (pd < orig ? pd : orig);
                } else {
                    v = pd;
                }
            }
            map[off + o] = v;
        }
        off += so[d];
    }
    p->elem = elem_of(in);
    int t = graph_add_tensor(g);        /* may move g->tensors: no Tensor pointer is used after it */
    Tensor *mt = &g->tensors[t];
    mt->name = arena_printf("%s.map", g->tensors[op->out[0]].name);
    mt->type = DT_INT32;
    mt->rank = 1;
    mt->shape[0] = total;
    mt->data = (const uint8_t *)map;
    mt->nbytes = sizeof(int32_t) * (size_t)total;
    mt->src_index = -1;
    op->in[1] = t;
    op->nin = 2;
}

/* ---- TFLite Micro parity, int8 graphs (kernels/logic.c, kernels/arith8.c) -- */

/* Strides of t broadcast against the 6-D output shape os (0 on a broadcast axis). */
static void bstride6(const Tensor *t, const int32_t *os, int32_t *st, const Tensor *out)
{
    int32_t s[6], str = 1;
    shape6(t, s);
    for (int i = 5; i >= 0; i--) {
        if (s[i] != os[i] && s[i] != 1) fail("'%s' does not broadcast to '%s'", t->name, out->name);
        st[i] = s[i] == 1 && os[i] != 1 ? 0 : str;
        str *= s[i];
    }
}

/* QuantizeMultiplierSmallerThanOneExp: TFLite Micro aborts unless 0 < real < 1. */
static void qmul_below_one(double real, int32_t *m, int32_t *s, const char *what)
{
    if (!(real > 0.0 && real < 1.0)) fail("%s multiplier %g is not in (0, 1) (TFLite Micro refuses it)", what, real);
    qmul(real, m, s);
}

/* EQUAL .. GREATER_EQUAL: int8 (rescaled), int32, int64, bool (EQUAL / NOT_EQUAL). */
static void lower_compare(Graph *g, Op *op)
{
    Tensor *a = need(g, op, 0, "first"), *b = need(g, op, 1, "second"), *out = T(g, op->out[0]);
    need_type(out, DT_BOOL, "output");
    if (a->type != b->type) fail("inputs '%s' and '%s' have different types", a->name, b->name);
    htc__logic_params *p = gparams(op, sizeof *p, "htc__logic_params", "a6a6a6a6iiiiiiiiii");
    shape6(out, p->out_shape);
    bstride6(a, p->out_shape, p->a_stride, out);
    bstride6(b, p->out_shape, p->b_stride, out);
    p->mode = op->mode;
    switch (a->type) {
    case DT_INT8:
        /* comparisons.cc ComparisonsPrepare */
        p->scaled = 1;
        p->a_offset = -qzp(a, "input");
        p->b_offset = -qzp(b, "input");
        p->left_shift = 8;
        qmul_below_one((double)a->q.scale[0], &p->a_mult, &p->a_shift, "first input's");
        qmul_below_one((double)b->q.scale[0], &p->b_mult, &p->b_shift, "second input's");
        op->variant = "_s8";
        break;
    case DT_INT32: op->variant = "_s32"; break;
    case DT_INT64: op->variant = "_s64"; break;
    case DT_BOOL:
        if (op->mode > 1) fail("bool operands: TFLite Micro compares them only with EQUAL and NOT_EQUAL");
        op->variant = "_b";
        break;
    case DT_INT16:
        fail("int16 inputs are not supported: TFLite Micro compares int16 only in GREATER, with rescaling parameters "
             "its Prepare never sets (undefined results)");
    default:
        fail("%s inputs are not supported (int8, int32, int64, bool)", dtype_name(a->type));
    }
    op->macs = 0;
}

/* LOGICAL_AND / LOGICAL_OR / LOGICAL_NOT of bools (logical.cc). */
static void lower_logical(Graph *g, Op *op)
{
    Tensor *a = need(g, op, 0, "first"), *out = T(g, op->out[0]);
    need_type(a, DT_BOOL, "input");
    need_type(out, DT_BOOL, "output");
    htc__logic_params *p = gparams(op, sizeof *p, "htc__logic_params", "a6a6a6a6iiiiiiiiii");
    shape6(out, p->out_shape);
    bstride6(a, p->out_shape, p->a_stride, out);
    p->mode = op->mode;
    if (op->mode == 2) {
        if (tensor_numel(a) != tensor_numel(out)) fail("output '%s' is not the input's shape", out->name);
        op->variant = "_not";
        return;
    }
    Tensor *b = need(g, op, 1, "second");
    need_type(b, DT_BOOL, "input");
    bstride6(b, p->out_shape, p->b_stride, out);
}

/* SELECT_V2 (select.cc): bool condition, int8 / int16 / float32 values
   moved as they are (TFLite Micro does not rescale), three-way broadcast. */
static void lower_select(Graph *g, Op *op)
{
    Tensor *c = need(g, op, 0, "condition"), *x = need(g, op, 1, "x"), *y = need(g, op, 2, "y"), *out = T(g, op->out[0]);
    need_type(c, DT_BOOL, "condition");
    if (x->type != DT_INT8 && x->type != DT_INT16 && x->type != DT_FLOAT32)
        fail("%s values are not supported (TFLite Micro: int8, int16, float32)", dtype_name(x->type));
    need_type(y, x->type, "y");
    need_type(out, x->type, "output");
    htc__logic_params *p = gparams(op, sizeof *p, "htc__logic_params", "a6a6a6a6iiiiiiiiii");
    shape6(out, p->out_shape);
    bstride6(c, p->out_shape, p->a_stride, out);
    bstride6(x, p->out_shape, p->b_stride, out);
    bstride6(y, p->out_shape, p->c_stride, out);
    p->elem = elem_of(x);
}

/* CAST kinds of kernels/logic.c; -1 for a type it does not convert. */
static int cast_kind(DType t)
{
    switch (t) {
    case DT_INT8: return 0;
    case DT_INT16: return 2;
    case DT_INT32: return 3;
    case DT_FLOAT32: return 4;
    case DT_BOOL: return 5;
    case DT_UINT32: return 6;
    default: return -1;
    }
}

/* CAST (cast.cc): static_cast element by element; TFLite Micro converts
   int8, int16, int32, uint32, float32 and bool to int8, int16, int32, uint32
   and float32. */
static void lower_cast(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    int from = cast_kind(in->type), to = cast_kind(out->type);
    if (from < 0 || to < 0 || to == 5)
        fail("%s to %s is not supported (TFLite Micro casts int8, int16, int32, uint32, float32, bool to int8, int16, "
             "int32, uint32, float32)", dtype_name(in->type), dtype_name(out->type));
    if (tensor_numel(in) != tensor_numel(out)) fail("output '%s' has %lld elements, the input %lld", out->name,
                                                    (long long)tensor_numel(out), (long long)tensor_numel(in));
    htc__cast_params *p = gparams(op, sizeof *p, "htc__cast_params", "iii");
    p->n = (int32_t)tensor_numel(in);
    p->from = from;
    p->to = to;
}

/* FILL (a scalar value, any TFLM type) and ZEROS_LIKE (mode 1: a constant
   zero of the output's type takes the input's place). */
static void lower_fill(Graph *g, Op *op)
{
    DType ty = T(g, op->out[0])->type;
    if (op->mode == 1) {
        Tensor *in = need(g, op, 0, "data");
        if (ty != in->type) fail("output type %s differs from the input's %s", dtype_name(ty), dtype_name(in->type));
        if (ty != DT_INT8 && ty != DT_INT32 && ty != DT_INT64 && ty != DT_FLOAT32)
            fail("%s is not supported (TFLite Micro: int8, int32, int64, float32)", dtype_name(ty));
        const char *nm = arena_printf("%s.zero", in->name);
        int t = graph_add_tensor(g);    /* may move g->tensors */
        Tensor *z = &g->tensors[t];
        z->name = (char *)nm;
        z->type = ty == DT_FLOAT32 ? DT_INT32 : ty;    /* the same zero bytes */
        z->rank = 0;
        z->nbytes = dtype_size(ty);
        z->data = arena_alloc(8);
        z->src_index = -1;
        op->in[0] = t;
    }
    Tensor *v = need(g, op, 0, "value"), *out = T(g, op->out[0]);
    if (op->mode == 0) {
        if (v->rank != 0) fail("value '%s' must be a scalar", v->name);
        need_type(out, v->type, "output");
        if (v->type != DT_INT8 && v->type != DT_INT32 && v->type != DT_FLOAT32)
            fail("%s is not supported (TFLite Micro: int8, int32, float32)", dtype_name(v->type));
    }
    htc__fill_params *p = gparams(op, sizeof *p, "htc__fill_params", "ii");
    p->n = (int32_t)tensor_numel(out);
    p->elem = elem_of(out);
}

/* GATHER_ND (int8 / float32 params, int32 indices) and EMBEDDING_LOOKUP
   (mode 1: rows of an int8 / float32 table, same type out), indices at run time. */
static void lower_gather_nd(Graph *g, Op *op)
{
    Tensor *x = need(g, op, 0, "params"), *ix = need(g, op, 1, "indices"), *out = T(g, op->out[0]);
    if (x->type != DT_INT8 && x->type != DT_FLOAT32)
        fail("%s values are not supported (TFLite Micro: int8, float32)", dtype_name(x->type));
    int hybrid = op->mode && x->type == DT_INT8 && out->type == DT_FLOAT32;
    if (out->type != x->type && !hybrid)
        fail("output '%s' is %s, values %s", out->name, dtype_name(out->type), dtype_name(x->type));
    if (hybrid && (x->q.n != 1 || x->q.zero_point[0] != 0))
        fail("int8 table '%s' must be quantized per tensor with zero point 0 (TFLite Micro checks it)", x->name);
    need_type(ix, DT_INT32, "indices");
    if (x->rank < 1 || ix->rank < 1) fail("params and indices must have rank >= 1");
    int depth = op->mode ? 1 : ix->shape[ix->rank - 1];
    if (op->mode && ix->rank != 1) fail("lookup '%s' must be 1-D", ix->name);
    if (depth < 1 || depth > x->rank) fail("index depth %d for params of rank %d", depth, x->rank);
    htc__gather_nd_params *p = gparams(op, sizeof *p, "htc__gather_nd_params", "iiiia6a6fiiiii");
    p->batch = p->outer = 1;
    if (hybrid) {
        p->scale = x->q.scale[0];
        op->variant = "_f32";
    }
    p->depth = depth;
    p->nidx = (int32_t)(tensor_numel(ix) / depth);
    p->elem = elem_of(x);
    p->slice = 1;
    for (int d = depth; d < x->rank; d++) p->slice *= x->shape[d];
    int64_t st = p->slice;
    for (int d = depth - 1; d >= 0; d--) {
        p->dim[d] = x->shape[d];
        p->stride[d] = (int32_t)st;
        st *= x->shape[d];
    }
    if ((int64_t)p->nidx * p->slice != tensor_numel(out))
        fail("output '%s' has %lld elements, expected %lld", out->name, (long long)tensor_numel(out),
             (long long)p->nidx * p->slice);
}

/* GATHER whose indices are computed at run time, or with batch_dims
   (gather.cc): int8 / float32 values, int32 indices; the GATHER_ND kernel
   over [batch][outer][axis][inner] blocks. */
static void lower_gather_rt(Graph *g, Op *op)
{
    Tensor *x = need(g, op, 0, "data"), *ix = need(g, op, 1, "indices"), *out = T(g, op->out[0]);
    if (x->type != DT_INT8 && x->type != DT_FLOAT32)
        fail("%s values with run-time indices are not supported (TFLite Micro: int8, float32)", dtype_name(x->type));
    need_type(ix, DT_INT32, "indices");
    need_type(out, x->type, "output");
    int axis = op->axis, bd = op->mode < 0 ? op->mode + ix->rank : op->mode;
    if (bd < 0 || bd > axis || bd > ix->rank) fail("batch_dims %d is out of range", op->mode);
    for (int d = 0; d < bd; d++)
        if (x->shape[d] != ix->shape[d]) fail("batch dimension %d differs between data and indices", d);
    htc__gather_nd_params *p = gparams(op, sizeof *p, "htc__gather_nd_params", "iiiia6a6fiiiii");
    p->batch = p->outer = p->slice = 1;
    for (int d = 0; d < bd; d++) p->batch *= x->shape[d];
    for (int d = bd; d < axis; d++) p->outer *= x->shape[d];
    for (int d = axis + 1; d < x->rank; d++) p->slice *= x->shape[d];
    p->depth = 1;
    p->nidx = (int32_t)(tensor_numel(ix) / (p->batch ? p->batch : 1));
    p->dim[0] = x->shape[axis];
    p->stride[0] = p->slice;
    p->ostride = x->shape[axis] * p->slice;
    p->bstride = p->outer * p->ostride;
    p->elem = elem_of(x);
    p->per_axis = 1;
    if ((int64_t)p->batch * p->outer * p->nidx * p->slice != tensor_numel(out))
        fail("output '%s' has %lld elements", out->name, (long long)tensor_numel(out));
    op->kind = OP_GATHER_ND;            /* slices picked by run-time indices */
    op->rq = RQ_NONE;
}

/* DYNAMIC_UPDATE_SLICE: float32 / int8 / int16 / int32 operand, start
   indices (int32 / int64) read at run time. */
static void lower_update_slice(Graph *g, Op *op)
{
    Tensor *x = need(g, op, 0, "operand"), *u = need(g, op, 1, "update"), *st = need(g, op, 2, "start indices"),
           *out = T(g, op->out[0]);
    if (x->type != DT_INT8 && x->type != DT_INT16 && x->type != DT_INT32 && x->type != DT_FLOAT32)
        fail("%s is not supported (TFLite Micro: int8, int16, int32, float32)", dtype_name(x->type));
    need_type(u, x->type, "update");
    need_type(out, x->type, "output");
    if (st->type != DT_INT32 && st->type != DT_INT64) fail("start indices '%s' must be int32 or int64", st->name);
    if (x->rank < 1 || u->rank != x->rank || tensor_numel(st) != x->rank || out->rank != x->rank)
        fail("operand, update, start indices and output ranks do not agree");
    htc__update_slice_params *p = gparams(op, sizeof *p, "htc__update_slice_params", "iiia6a6");
    p->rank = x->rank;
    p->elem = elem_of(x);
    p->idx64 = st->type == DT_INT64;
    for (int d = 0; d < x->rank; d++) {
        if (u->shape[d] > x->shape[d] || out->shape[d] != x->shape[d])
            fail("update '%s' does not fit the operand along axis %d", u->name, d);
        p->op_shape[d] = x->shape[d];
        p->up_shape[d] = u->shape[d];
    }
}

/* REDUCE_ALL of bools over constant axes (kernels/logic.c). */
static void lower_reduce_all(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_BOOL, "input");
    need_type(out, DT_BOOL, "output");
    int red[MAX_RANK] = {0};
    for (int i = 0; i < op->naxes; i++) red[op->axes[i]] = 1;
    int64_t kept = 1;
    for (int d = 0; d < in->rank; d++) kept *= red[d] ? 1 : in->shape[d];
    if (kept != tensor_numel(out)) fail("output '%s' has %lld elements, the reduction %lld", out->name,
                                        (long long)tensor_numel(out), (long long)kept);
    htc__reduce_params *p = gparams(op, sizeof *p, "htc__reduce_params", "iia6a6iiii");
    int32_t s[6];
    shape6(in, s);
    p->rank = in->rank;
    for (int i = 0; i < 6; i++) {
        int a = i - (6 - in->rank);
        p->in_shape[i] = s[i];
        p->red[i] = a >= 0 && red[a];
    }
}

/* DIV int8 (div.cc): real = double(in1_scale / (in2_scale * out_scale)) in
   float, QuantizeMultiplier. */
static void lower_div(Graph *g, Op *op)
{
    Tensor *a = need(g, op, 0, "first"), *b = need(g, op, 1, "second"), *out = T(g, op->out[0]);
    if (op->mode) fail("%s of %s is not supported (int32 only)", op->src_name, dtype_name(a->type));
    need_type(a, DT_INT8, "input");
    need_type(b, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    htc__div_params *p = gparams(op, sizeof *p, "htc__div_params", "a6a6a6iiiiiii");
    shape6(out, p->out_shape);
    bstride6(a, p->out_shape, p->a_stride, out);
    bstride6(b, p->out_shape, p->b_stride, out);
    p->a_offset = -qzp(a, "input");
    p->b_offset = -qzp(b, "input");
    p->out_zp = qzp(out, "output");
    volatile float den = b->q.scale[0] * out->q.scale[0];
    volatile float real = a->q.scale[0] / den;
    qmul((double)real, &p->out_mult, &p->out_shift);
    /* the quotient's total shift stays a right shift of 0..63 bits (div.h) */
    if (p->out_shift > 22 || p->out_shift < -25)
        fail("output multiplier %g is outside [2^-26, 2^22) (div.h's shifts would leave 0..63 bits)", (double)real);
    act_range(op, out);
    p->act_min = op->act_min;
    p->act_max = op->act_max;
    op->rq = RQ_TFLITE;
    op->nch = 1;
    op->broadcast = 0;
    for (int i = 0; i < 6; i++) op->broadcast |= p->a_stride[i] != p->b_stride[i];
}

/* LOG_SOFTMAX int8 (log_softmax.cc CalculateOpData): beta 1, 5 integer bits,
   output scale 16/256 and zero point 127 (TFLM checks both). */
static void lower_log_softmax(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    qzp(in, "input");
    if (qzp(out, "output") != 127 || out->q.scale[0] != 16.0f / 256)
        fail("output '%s' must have scale 16/256 and zero point 127 (TFLite Micro checks it)", out->name);
    if (in->rank < 1 || tensor_numel(in) != tensor_numel(out)) fail("input and output shapes differ");
    htc__softmax_params sp;
    quant_softmax_params(1.0f, in->q.scale[0], &sp);
    if (sp.input_left_shift < 1) fail("input scale %g is too small (TFLite Micro refuses it)", (double)in->q.scale[0]);
    htc__logsm_params *p = gparams(op, sizeof *p, "htc__logsm_params", "iiiiiii");
    p->depth = in->shape[in->rank - 1];
    p->outer = (int32_t)(tensor_numel(in) / (p->depth ? p->depth : 1));
    p->mult = sp.input_multiplier;
    p->left_shift = sp.input_left_shift;
    p->diff_min = sp.diff_min;
    /* PreprocessLogSoftmaxScalingExp: (1 << (31 - left_shift)) / multiplier below one */
    double rev = (double)(1 << (31 - p->left_shift)) / (double)p->mult;
    qmul_below_one(rev, &p->rev_mult, &p->rev_shift, "reverse scaling");
    op->rq = RQ_TFLITE;
    op->nch = 1;
}

/* ADD_N (add_n.cc) and CUMSUM (cumsum.cc), int8: left shift 20, the input
   scale over twice itself (1/2) and 2 in_scale / (2^20 out_scale), both
   QuantizeMultiplierSmallerThanOneExp, in double. */
static void lower_addn(Graph *g, Op *op)
{
    Tensor *a = need(g, op, 0, "first"), *out = T(g, op->out[0]);
    if (op->kind == OP_CUMSUM && a->type == DT_FLOAT32) {      /* a float island */
        need_type(out, DT_FLOAT32, "output");
        if (tensor_numel(out) != tensor_numel(a)) fail("output '%s' is not the input's shape", out->name);
        htc__addn_params *p = gparams(op, sizeof *p, "htc__addn_params", "iiiiiiiiiiiiiii");
        p->n = (int32_t)tensor_numel(a);
        p->pre = p->depth = p->post = 1;
        for (int d = 0; d < a->rank; d++) {
            if (d < op->axis) p->pre *= a->shape[d];
            else if (d > op->axis) p->post *= a->shape[d];
            else p->depth = a->shape[d];
        }
        p->mode = op->mode;
        op->variant = "_f32";
        return;
    }
    need_type(a, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    if (op->kind == OP_ADD_N && op->nin < 2) fail("%d input (TFLite Micro requires at least 2)", op->nin);
    int32_t zp = qzp(a, "input");
    for (int k = 1; k < op->nin; k++) {
        Tensor *b = need(g, op, k, "input");
        need_type(b, DT_INT8, "input");
        if (b->rank != a->rank || memcmp(b->shape, a->shape, sizeof(int32_t) * (size_t)a->rank))
            fail("input '%s' differs in shape from '%s'", b->name, a->name);
        if (qzp(b, "input") != zp || b->q.scale[0] != a->q.scale[0])
            fail("input '%s' differs in quantization from '%s' (TFLite Micro requires equal ones)", b->name, a->name);
    }
    if (tensor_numel(out) != tensor_numel(a)) fail("output '%s' is not the inputs' shape", out->name);
    htc__addn_params *p = gparams(op, sizeof *p, "htc__addn_params", "iiiiiiiiiiiiiii");
    p->n = (int32_t)tensor_numel(a);
    p->ninputs = op->nin;
    p->pre = p->depth = p->post = 1;
    if (op->kind == OP_CUMSUM) {
        for (int d = 0; d < a->rank; d++) {
            if (d < op->axis) p->pre *= a->shape[d];
            else if (d > op->axis) p->post *= a->shape[d];
            else p->depth = a->shape[d];
        }
        p->mode = op->mode;
    }
    p->in_offset = -zp;
    p->left_shift = 20;
    p->out_zp = qzp(out, "output");
    double twice = 2 * (double)a->q.scale[0];
    qmul_below_one((double)a->q.scale[0] / twice, &p->in_mult, &p->in_shift, "input");
    qmul_below_one(twice / ((1 << 20) * (double)out->q.scale[0]), &p->out_mult, &p->out_shift, "output");
    op->act = ACT_NONE;
    act_range(op, out);
    p->act_min = op->act_min;
    p->act_max = op->act_max;
    op->rq = RQ_TFLITE;
    op->nch = 1;
}

/* ---- int16 activations (16x8 quantization) -------------------------------- */

/* A 16x8 CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED (kernels/conv_s16.c):
   TFLM's Prepare (the int8 ops' per-channel multipliers), zero input and
   weight zero points (TFLM's int16 kernels add no input or filter offset),
   the accumulator as wide as the bias: int64, or int32 where TFLM accepts an
   int32 bias (conv, FC; no bias: int64, the converter's default). */
static void lower_conv_s16(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *w = need(g, op, 1, "weights"), *out = T(g, op->out[0]);
    Tensor *b = op->nin > 2 && op->in[2] >= 0 ? T(g, op->in[2]) : NULL;
    int fc = op->kind == OP_FC, dw = op->depthwise;
    need_type(w, DT_INT8, "weights");
    need_type(out, DT_INT16, "output");
    need_const(w, "weights");
    if (qzp(in, "input") != 0) fail("int16 input '%s' has zero point %d (16x8 needs 0)", in->name, (int)in->q.zero_point[0]);
    if (qzp(out, "output") != 0 && !fc) fail("int16 output '%s' has zero point %d (16x8 needs 0)", out->name, (int)out->q.zero_point[0]);
    for (int i = 0; i < w->q.n; i++)
        if (w->q.zero_point[i] != 0) fail("weights '%s' have a non-zero zero point (16x8 needs 0)", w->name);
    htc__conv16_params *p = gparams(op, sizeof *p, "htc__conv16_params", "iiiiiiiiiiiiiiiiiiiiiiims");
    if (fc) {
        need_rank(w, 2, "weights");
        int n_out = w->shape[0], depth = w->shape[1];
        int64_t nin = tensor_numel(in);
        if (depth <= 0 || nin % depth) fail("input '%s' (%lld elements) is not a multiple of the weights' depth %d", in->name, (long long)nin, depth);
        p->batches = (int32_t)(nin / depth);
        if (tensor_numel(out) != (int64_t)p->batches * n_out)
            fail("output '%s' has %lld elements, expected %d x %d", out->name, (long long)tensor_numel(out), p->batches, n_out);
        p->in_h = p->in_w = p->out_h = p->out_w = p->k_h = p->k_w = 1;
        p->in_c = p->filter_in_c = depth;
        p->out_c = n_out;
        weights_quant(op, in, w, out, n_out, 0);
    } else {
        need_rank(in, 4, "input");
        need_rank(w, 4, "weights");
        need_rank(out, 4, "output");
        int oc = out->shape[3];
        if (in->shape[0] != out->shape[0]) fail("batch of input and output differ");
        if (dw) {
            if (w->shape[0] != 1 || w->shape[3] != oc) fail("depthwise weights '%s' must be [1,kh,kw,%d]", w->name, oc);
            if (oc % in->shape[3]) fail("output channels %d are not a multiple of input channels %d", oc, in->shape[3]);
            if (b && b->type != DT_INT64) fail("bias '%s' is %s: TFLite Micro's 16x8 depthwise reads int64", b->name, dtype_name(b->type));
        } else {
            if (w->shape[0] != oc) fail("weights '%s' have %d filters for %d output channels", w->name, w->shape[0], oc);
            if (w->shape[3] <= 0 || in->shape[3] % w->shape[3] || oc % (in->shape[3] / w->shape[3]))
                fail("filter depth %d does not divide input channels %d into groups", w->shape[3], in->shape[3]);
        }
        p->batches = in->shape[0];
        p->in_h = in->shape[1]; p->in_w = in->shape[2]; p->in_c = in->shape[3];
        p->out_h = out->shape[1]; p->out_w = out->shape[2]; p->out_c = oc;
        p->k_h = w->shape[1]; p->k_w = w->shape[2];
        pad_1d(op->padding, p->in_h, p->k_h, op->stride_h, op->dil_h, p->out_h, &op->pad_top, &op->pad_bottom, "height");
        pad_1d(op->padding, p->in_w, p->k_w, op->stride_w, op->dil_w, p->out_w, &op->pad_left, &op->pad_right, "width");
        p->dw = dw;
        p->depth_mult = dw ? oc / p->in_c : 1;
        p->filter_in_c = dw ? 1 : w->shape[3];
        weights_quant(op, in, w, out, oc, dw ? 3 : 0);
    }
    p->stride_h = fc ? 1 : op->stride_h; p->stride_w = fc ? 1 : op->stride_w;
    p->dil_h = fc ? 1 : op->dil_h; p->dil_w = fc ? 1 : op->dil_w;
    p->pad_top = op->pad_top; p->pad_left = op->pad_left;
    if (b) {
        if (b->type != DT_INT64 && b->type != DT_INT32) fail("bias '%s' is %s, expected int64 or int32", b->name, dtype_name(b->type));
        need_const(b, "bias");
        if (tensor_numel(b) != p->out_c) fail("bias '%s' has %lld elements, expected %d", b->name, (long long)tensor_numel(b), p->out_c);
    }
    p->bias64 = b && b->type == DT_INT64;
    p->acc64 = dw || !b || p->bias64;
    p->out_zp = fc ? (int32_t)out->q.zero_point[0] : 0;
    act_range(op, out);
    p->act_min = op->act_min; p->act_max = op->act_max;
    if (op->nch == 1 && p->out_c > 1) {             /* per tensor: one multiplier for every channel */
        int32_t *m = arena_alloc(sizeof(int32_t) * (size_t)p->out_c);
        int8_t *sh = arena_alloc((size_t)p->out_c);
        for (int c = 0; c < p->out_c; c++) { m[c] = op->mult[0]; sh[c] = op->shift[0]; }
        op->mult = m; op->shift = sh; op->nch = p->out_c;
    }
    op->s16 = 1;
    op->k_h = p->k_h; op->k_w = p->k_w;
    op->batches = p->batches;
    op->in_h = p->in_h; op->in_w = p->in_w; op->in_c = p->in_c;
    op->out_h = p->out_h; op->out_w = p->out_w; op->out_c = p->out_c;
    op->macs = (int64_t)p->batches * p->out_h * p->out_w * p->out_c * p->k_h * p->k_w * p->filter_in_c;
}

static const char *qsuffix(DType t)
{
    return t == DT_INT16 ? "s16" : t == DT_INT32 ? "s32" : tsuffix(t);
}

/* QUANTIZE / DEQUANTIZE with an int16 side (kernels/quant_s16.c): float
   <-> int16 and int8/int16 -> int8/int16 requantization (TFLM's Prepare:
   QuantizeMultiplier(in_scale / out_scale)). */
static void lower_quant_s16(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    htc__quant_params *p = params(op, sizeof *p, "htc__quant_params");
    p->size = (int32_t)tensor_numel(in);
    if (tensor_numel(out) != p->size) fail("output '%s' has %lld elements, expected %d", out->name, (long long)tensor_numel(out), p->size);
    if (op->kind == OP_DEQUANTIZE || out->type == DT_FLOAT32) {
        if (out->type != DT_FLOAT32) fail("DEQUANTIZE to %s is not supported", dtype_name(out->type));
        op->kind = OP_DEQUANTIZE;
        p->in_zp = qzp(in, "input");
        p->scale = in->q.scale[0];
        p->dscale = in->q.scale[0];
    } else if (in->type == DT_FLOAT32) {
        p->out_zp = qzp(out, "output");
        p->scale = out->q.scale[0];
        p->dscale = out->q.scale[0];
        qrange(out->type, &p->qmin, &p->qmax);
    } else {
        /* int8 / int16 / int32 (TFLM: int16 <-> int32 too, the int32 side quantized) */
        int i32 = in->type == DT_INT32 || out->type == DT_INT32;
        if ((in->type != DT_INT8 && in->type != DT_INT16 && in->type != DT_INT32) ||
            (out->type != DT_INT8 && out->type != DT_INT16 && out->type != DT_INT32) || (i32 && in->type == out->type))
            fail("QUANTIZE from %s to %s is not supported", dtype_name(in->type), dtype_name(out->type));
        if (i32 && (in->type == DT_INT8 || out->type == DT_INT8))
            fail("QUANTIZE from %s to %s is not supported", dtype_name(in->type), dtype_name(out->type));
        op->kind = OP_REQUANTIZE;
        quant_requant_params(in->q.scale[0], qzp(in, "input"), out->q.scale[0], qzp(out, "output"), p);
        qrange(out->type, &p->qmin, &p->qmax);
        if (out->type == DT_INT32) {
            p->qmin = INT32_MIN;
            p->qmax = INT32_MAX;
        }
    }
    op->rq = RQ_TFLITE;
    op->nch = 1;
    op->s16 = 1;
    op->variant = arena_printf("_%s_%s", qsuffix(in->type), qsuffix(out->type));
}

/* int16 ADD / SUB / MUL / MAXIMUM / MINIMUM (kernels/binary_s16.c), TFLM's
   Prepare: add_common.cc's multipliers in double with left_shift 15; SUB
   the same (the tflite-micro interpreter's int16 SUB matches double, not
   sub_common.cc's float arithmetic that its int8 SUB uses: tests/test_ops.py
   test_s16[sub]); mul_common.cc's double product (zero points 0). */
static void lower_ew_s16(Graph *g, Op *op)
{
    Tensor *a = need(g, op, 0, "first"), *b = need(g, op, 1, "second"), *out = T(g, op->out[0]);
    need_type(a, DT_INT16, "input");
    need_type(b, op->kind == OP_PRELU ? DT_INT8 : DT_INT16, op->kind == OP_PRELU ? "alpha" : "input");
    need_type(out, DT_INT16, "output");
    htc__ew_params *p = gparams(op, sizeof *p, "htc__ew_params", "a6a6a6iiiiiiiiiiii");
    broadcast6(a, b, out, p->out_shape, p->a_stride, p->b_stride);
    op->s16 = 1;
    op->broadcast = 0;
    for (int i = 0; i < 6; i++) op->broadcast |= p->a_stride[i] != p->b_stride[i];
    p->act_min = -32768;
    p->act_max = 32767;
    if (op->kind == OP_MAXIMUM || op->kind == OP_MINIMUM) {
        op->rq = RQ_NONE;               /* TFLM compares the stored values */
        op->nch = 0;
        return;
    }
    op->rq = RQ_TFLITE;
    op->nch = 1;
    float as = a->q.scale[0], bs = b->q.scale[0], os = out->q.scale[0];
    int32_t az = qzp(a, "input"), oz = qzp(out, "output");
    int32_t bz = op->kind == OP_PRELU ? (int32_t)b->q.zero_point[0] : qzp(b, "input");
    p->a_offset = -az;
    p->b_offset = -bz;
    p->out_zp = oz;
    if (op->kind == OP_PRELU) {         /* prelu_common.cc CalculatePreluParams, int16 clamp */
        if (b->q.n != 1) fail("alpha '%s' must be quantized per tensor", b->name);
        qmul((double)as / (double)os, &p->a_mult, &p->a_shift);
        qmul((double)as * (double)bs / (double)os, &p->b_mult, &p->b_shift);
        return;
    }
    if (op->kind == OP_SQDIFF) {        /* squared_difference.cc PrepareQuantized, left_shift 0 */
        if (az || bz || oz) fail("int16 SQUARED_DIFFERENCE needs zero points 0 (TFLite Micro checks it)");
        double twice = 2.0 * (double)(as > bs ? as : bs);
        volatile float den = 1.0f * os;
        p->left_shift = 0;
        qmul((double)as / twice, &p->a_mult, &p->a_shift);
        qmul((double)bs / twice, &p->b_mult, &p->b_shift);
        qmul(twice * twice / (double)den, &p->out_mult, &p->out_shift);
        return;
    }
    if (op->kind == OP_ADD || op->kind == OP_SUB) {
        double twice = 2 * (double)(as > bs ? as : bs);
        p->left_shift = 15;
        qmul((double)as / twice, &p->a_mult, &p->a_shift);
        qmul((double)bs / twice, &p->b_mult, &p->b_shift);
        qmul(twice / ((double)(1 << 15) * (double)os), &p->out_mult, &p->out_shift);
    } else if (op->kind == OP_SUB) {
        volatile float twice = 2 * (as > bs ? as : bs);
        volatile float ra = as / twice, rb = bs / twice;
        volatile float ro = twice / ((float)(1 << 15) * os);
        p->left_shift = 15;
        qmul((double)ra, &p->a_mult, &p->a_shift);
        qmul((double)rb, &p->b_mult, &p->b_shift);
        qmul((double)ro, &p->out_mult, &p->out_shift);
    } else if (op->kind == OP_MUL) {
        if (az || bz || oz) fail("int16 MUL needs zero points 0 (TFLite Micro checks it)");
        qmul((double)as * (double)bs / (double)os, &p->out_mult, &p->out_shift);
    } else {
        fail("%s has no int16 form", op_name(op->kind));
    }
    act_range(op, out);
    p->act_min = op->act_min;
    p->act_max = op->act_max;
}

/* int16 RELU / RELU6 / LEAKY_RELU (kernels/act_s16.c), TFLM's Prepare:
   CalculateReluOpData (lower bound the output zero point), Relu6Prepare
   (the input's 0 and round(6 / scale) + zp), LeakyReluPrepare (identity
   and alpha multipliers). The multipliers are quotients in double: the
   tflite-micro interpreter's results (test_s16, also 72 random ops each),
   not the float quotients of TFLM's current source. A negative alpha gives a
   negative multiplier, which the kernel applies as TFLM does (negated). */
static void lower_act_s16(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_INT16, "input");
    need_type(out, DT_INT16, "output");
    if (tensor_numel(in) != tensor_numel(out)) fail("input and output sizes differ");
    htc__act16_params *p = gparams(op, sizeof *p, "htc__act16_params", "iiiiiiiiii");
    p->size = (int32_t)tensor_numel(in);
    p->in_zp = qzp(in, "input");
    p->out_zp = qzp(out, "output");
    p->lo = -32768;
    p->hi = 32767;
    float is = in->q.scale[0], os = out->q.scale[0];
    if (!strcmp(op->src_name, "RELU")) {
        p->mode = 0;
        qmul((double)is / (double)os, &p->m_pos, &p->s_pos);
        p->lo = p->out_zp > -32768 ? p->out_zp : -32768;
    } else if (!strcmp(op->src_name, "RELU6")) {
        p->mode = 1;
        double six = round((double)(6.0f / is)) + p->in_zp;
        p->lo = p->in_zp;
        p->hi = six > 32767 ? 32767 : (int32_t)six;
    } else {
        p->mode = 2;
        qmul((double)is / (double)os, &p->m_pos, &p->s_pos);
        qmul((double)is * (double)op->alpha / (double)os, &p->m_neg, &p->s_neg);
    }
    op->s16 = 1;
    op->rq = p->mode == 1 ? RQ_NONE : RQ_TFLITE;
    op->nch = p->mode != 1;
}

/* quant.h: gen/quant.c's sigmoid table as one constant int16 tensor of
   the graph (the uint16 entries stored as their int16 bit patterns),
   created on first use and shared by every op that names it as an input. */
int quant_sigmoid16_tensor(Graph *g)
{
    static const char name[] = "htc.sigmoid_table_uint16";
    for (int i = 0; i < g->ntensors; i++)
        if (g->tensors[i].src_index < 0 && g->tensors[i].name && !strcmp(g->tensors[i].name, name)) return i;
    uint16_t t[256];
    int16_t d[256];
    quant_sigmoid16_table(t);
    for (int i = 0; i < 256; i++) d[i] = (int16_t)(t[i] >= 32768 ? (int32_t)t[i] - 65536 : (int32_t)t[i]);
    const int32_t shape[1] = {256};
    int ti = graph_const_tensor(g, name, DT_INT16, 1, shape, d, sizeof d);
    g->tensors[ti].src_index = -1;
    return ti;
}

/* int16 LOGISTIC / TANH (kernels/act_s16.c htc__act_s16_sig, htc.h
   htc__sigmoid16 / htc__tanh16), TFLM's Prepare
   (CalculateArithmeticOpDataLogistic, tanh.cc CalculateArithmeticOpData):
   zero points 0, output scale 2^-15; an input scale 2^(s - 12) with s = 0
   (TANH: 0 or 1) is the power-of-two case (multiplier 0, left shift s);
   otherwise the multiplier scale * 4096 * 3 in double, doubled while at
   most 32767 / 2 (at most 31 times, counted as the left shift), truncated.
   The sigmoid table is a constant input shared by every such op. Refused:
   a multiplier above 65535 (input scale above ~5.3: the product would
   overflow int32 in TFLM) or truncated to 0 (scale below ~4e-14). */
static void lower_sigmoid_s16(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    int tanh_ = !strcmp(op->src_name, "TANH"), l2;
    need_type(in, DT_INT16, "input");
    need_type(out, DT_INT16, "output");
    if (tensor_numel(in) != tensor_numel(out)) fail("input and output sizes differ");
    if (qzp(in, "input") || qzp(out, "output")) fail("int16 %s needs zero points 0 (TFLite Micro checks it)", op->src_name);
    if (!quant_checked_log2(out->q.scale[0], &l2) || l2 != -15)
        fail("int16 %s needs output scale 2^-15 (TFLite Micro checks it), not %g", op->src_name, (double)out->q.scale[0]);
    htc__act16_params *p = gparams(op, sizeof *p, "htc__act16_params", "iiiiiiiiii");
    p->size = (int32_t)tensor_numel(in);
    p->mode = tanh_ ? 4 : 3;
    int pot = quant_checked_log2(in->q.scale[0], &l2);
    int shift = 12 + l2;
    if (pot && (shift == 0 || (tanh_ && shift == 1))) {
        p->m_pos = 0;
        p->s_pos = shift;
    } else {
        double m = (double)in->q.scale[0] * 4096.0 * 3.0;
        shift = 0;
        while (m <= 32767.0 / 2.0 && shift <= 30) {
            shift++;
            m *= 2.0;
        }
        if (m > 65535.0 || (int32_t)m == 0)
            fail("int16 %s input scale %g is outside what TFLite Micro's kernel computes without overflow", op->src_name,
                 (double)in->q.scale[0]);
        p->m_pos = (int32_t)m;
        p->s_pos = shift;
    }
    op->in[1] = quant_sigmoid16_tensor(g);
    op->nin = 2;
    op->variant = "_sig";
    op->s16 = 1;
    op->rq = RQ_NONE;
    op->nch = 0;
}

/* int16 ABS / RSQRT (kernels/act_s16.c modes 5-7), elementwise.cc
   PrepareAbsRsqrt: zero points 0 (TFLM checks them); ABS rescales by
   QuantizeMultiplier(in_scale / out_scale) when the scales differ, the
   quotient in double (the tflite-micro interpreter's result: TFLM's current
   source divides in float, which differs by one at some inputs: test_s16[abs]),
   and an unquantized int16 ABS is std::abs; RSQRT's multiplier is
   1 / double(sqrt(in_scale) * out_scale), sqrt and product in float. */
static void lower_absrsqrt_s16(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    int rsqrt = !strcmp(op->src_name, "RSQRT");
    need_type(in, DT_INT16, "input");
    need_type(out, DT_INT16, "output");
    if (tensor_numel(in) != tensor_numel(out)) fail("input and output sizes differ");
    htc__act16_params *p = gparams(op, sizeof *p, "htc__act16_params", "iiiiiiiiii");
    p->size = (int32_t)tensor_numel(in);
    p->lo = -32768;
    p->hi = 32767;
    op->s16 = 1;
    if (!rsqrt && in->q.n == 0 && out->q.n == 0) {
        p->mode = 6;
        op->rq = RQ_NONE;
        op->nch = 0;
        return;
    }
    if (qzp(in, "input") || qzp(out, "output")) fail("int16 %s needs zero points 0 (TFLite Micro checks it)", op->src_name);
    float is = in->q.scale[0], os = out->q.scale[0];
    if (rsqrt) {
        volatile float sq = sqrtf(is);
        volatile float den = sq * os;
        p->mode = 7;
        qmul(1.0 / (double)den, &p->m_pos, &p->s_pos);
    } else {
        p->mode = 5;
        if (is != os) qmul((double)is / (double)os, &p->m_pos, &p->s_pos);
    }
    op->rq = p->m_pos ? RQ_TFLITE : RQ_NONE;
    op->nch = p->m_pos != 0;
}

/* int16 SOFTMAX (kernels/softmax_s16.c), TFLM's CalculateSoftmaxParams:
   zero points 0, output scale 1/32768, the input difference scaled so that
   [-65535, 0] is [-10, 0] (QuantizeMultiplier(scale * beta / (10 / 65535))),
   the exp and 1/(1+x) tables of LUTPopulate<int16_t> (gen/quant.c). */
static void lower_softmax_s16(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_INT16, "input");
    need_type(out, DT_INT16, "output");
    if (qzp(in, "input") || qzp(out, "output")) fail("int16 SOFTMAX needs zero points 0 (TFLite Micro checks it)");
    if (fabsf(out->q.scale[0] - 1.0f / 32768) > 0.001f / 32768) fail("int16 SOFTMAX needs output scale 1/32768");
    if (in->rank < 1 || tensor_numel(in) != tensor_numel(out)) fail("input and output sizes differ");
    htc__softmax16_params *p = gparams(op, sizeof *p, "htc__softmax16_params", "iiiia513a513");
    p->depth = in->shape[in->rank - 1];
    p->outer = (int32_t)(tensor_numel(in) / p->depth);
    qmul((double)in->q.scale[0] * (double)op->beta / (10.0 / 65535.0), &p->mult, &p->shift);
    quant_softmax_lut16(0, p->exp_lut);
    quant_softmax_lut16(1, p->recip_lut);
    op->s16 = 1;
    op->rq = RQ_TFLITE;
    op->nch = 1;
}

/* ---- float32 models: TFLite Micro's float reference kernels (kernels/float.c) ---- */

/* CalculateActivationRange<float>: the fused activation's bounds, lowest
   and max without one */
static void float_act(const Op *op, float *lo, float *hi)
{
    *lo = -FLT_MAX;
    *hi = FLT_MAX;
    if (op->act == ACT_RELU) *lo = 0.0f;
    else if (op->act == ACT_RELU6) *lo = 0.0f, *hi = 6.0f;
    else if (op->act == ACT_RELU_N1_TO_1) *lo = -1.0f, *hi = 1.0f;
}

/* FULLY_CONNECTED float (fully_connected.cc: float weights, optional float
   bias; reference_ops::FullyConnected) */
static void lower_ffc(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *w = need(g, op, 1, "weights"), *out = T(g, op->out[0]);
    need_type(w, DT_FLOAT32, "weights");
    need_type(out, DT_FLOAT32, "output");
    need_rank(w, 2, "weights");
    int n_out = w->shape[0], depth = w->shape[1];
    int64_t nin = tensor_numel(in);
    if (depth <= 0 || nin % depth) fail("input '%s' (%lld elements) is not a multiple of the weights' depth %d", in->name, (long long)nin, depth);
    int batches = (int)(nin / depth);
    if (tensor_numel(out) != (int64_t)batches * n_out)
        fail("output '%s' has %lld elements, expected %d x %d", out->name, (long long)tensor_numel(out), batches, n_out);
    if (op->nin > 2 && op->in[2] >= 0) {
        Tensor *b = T(g, op->in[2]);
        need_type(b, DT_FLOAT32, "bias");
        if (tensor_numel(b) != n_out) fail("bias '%s' has %lld elements, expected %d", b->name, (long long)tensor_numel(b), n_out);
    }
    htc__ffc_params *p = gparams(op, sizeof *p, "htc__ffc_params", "iiiff");
    p->batches = batches; p->depth = depth; p->n_out = n_out;
    float_act(op, &p->lo, &p->hi);
    if (op->nin < 3) op->in[2] = -1;
    op->nin = 3;
    op->macs = (int64_t)batches * n_out * depth;
    op->batches = batches;
    op->in_c = depth;
    op->out_c = n_out;
    op->w_batches = 1;
}

/* SOFTMAX float (reference_ops::Softmax: float(beta)) */
static void lower_fsoftmax(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(out, DT_FLOAT32, "output");
    if (in->rank < 1 || tensor_numel(in) != tensor_numel(out)) fail("input and output sizes differ");
    htc__fsoftmax_params *p = gparams(op, sizeof *p, "htc__fsoftmax_params", "iif");
    p->depth = in->shape[in->rank - 1];
    p->outer = (int32_t)(tensor_numel(in) / p->depth);
    p->beta = op->beta;
}

/* UNIDIRECTIONAL_SEQUENCE_LSTM float (EvalLstm<float, float, float, float>):
   float weights and biases, float hidden and cell state (variables, reset
   to 0), cell clip when > 0; a scratch tensor of 4 state vectors. */
static void lower_flstm(Graph *g, Op *op)
{
    Tensor *x = need(g, op, 0, "data"), *out = T(g, op->out[0]), *h = T(g, op->out[1]), *c = T(g, op->out[2]);
    own_state(g, op, op->out[1], "hidden state");
    own_state(g, op, op->out[2], "cell state");
    need_type(out, DT_FLOAT32, "output");
    need_type(h, DT_FLOAT32, "hidden state");
    need_type(c, DT_FLOAT32, "cell state");
    int tm = op->axis, B, Tn, I, S;
    lstm_shapes(op, x, h, c, out, &B, &Tn, &I, &S);
    static const char *const gate[4] = {"input", "forget", "cell", "output"};
    for (int k = 0; k < 8; k++) {
        Tensor *w = need(g, op, 1 + k, arena_printf("%s %s weights", k < 4 ? "input" : "recurrent", gate[k % 4]));
        need_type(w, DT_FLOAT32, "weights");
        need_rank(w, 2, "weights");
        if (w->shape[0] != S || w->shape[1] != (k < 4 ? I : S))
            fail("weights '%s' must be [%d, %d]", w->name, S, k < 4 ? I : S);
    }
    for (int k = 0; k < 4; k++) {
        Tensor *b = need(g, op, 9 + k, "bias");
        need_type(b, DT_FLOAT32, "bias");
        if (tensor_numel(b) != S) fail("bias '%s' has %lld elements, expected %d", b->name, (long long)tensor_numel(b), S);
    }
    htc__flstm_params *p = gparams(op, sizeof *p, "htc__flstm_params", "iiiiif");
    p->batches = B; p->steps = Tn; p->in_dim = I; p->state = S; p->time_major = tm;
    p->clip = op->alpha;
    h->variable = c->variable = 1;      /* TFLM's ResetTensorData: 0 */
    h->reset_byte = c->reset_byte = 0;
    int nb = tm ? B : 1;
    if (4LL * nb * S > (1LL << 28)) fail("state of %d x %d values is too large", nb, S);
    const int32_t sshape[1] = {4 * nb * S};
    op->out[3] = graph_new_tensor(g, arena_printf("%s.lstm_scratch", out->name), DT_FLOAT32, 1, sshape);
    g->tensors[op->out[3]].src_index = -1;
    op->nout = 4;
    op->batches = B;
    op->in_c = I;
    op->out_c = S;
    op->macs = (int64_t)B * Tn * 4 * S * (I + S);
}

/* ADD, MUL float (add.cc / mul.cc: the fused activation's range) */
static void lower_fbinary(Graph *g, Op *op)
{
    Tensor *a = need(g, op, 0, "first"), *b = need(g, op, 1, "second"), *out = T(g, op->out[0]);
    need_type(b, DT_FLOAT32, "input");
    need_type(out, DT_FLOAT32, "output");
    htc__fbinary6_params *p = gparams(op, sizeof *p, "htc__fbinary6_params", "a6a6a6iff");
    broadcast6(a, b, out, p->out_shape, p->a_stride, p->b_stride);
    p->op = op->kind == OP_MUL;
    float_act(op, &p->lo, &p->hi);
}

/* RELU, RELU6, LOGISTIC, TANH float (OP_TABLE in int8 graphs) */
static void lower_funary(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    static const char *const fns[4] = {"RELU", "RELU6", "LOGISTIC", "TANH"};
    int fn = -1;
    for (int k = 0; k < 4; k++)
        if (!strcmp(op->src_name, fns[k])) fn = k;
    if (fn < 0) fail("float32 %s is not supported (float models: FULLY_CONNECTED, SOFTMAX, UNIDIRECTIONAL_SEQUENCE_LSTM, "
                     "ADD, MUL, RELU, RELU6, LOGISTIC, TANH and data movement)", op->src_name);
    need_type(out, DT_FLOAT32, "output");
    if (tensor_numel(in) != tensor_numel(out)) fail("input and output sizes differ");
    htc__funary_fn_params *p = gparams(op, sizeof *p, "htc__funary_fn_params", "ii");
    p->size = (int32_t)tensor_numel(in);
    p->fn = fn;
}

/* int32 ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM (reference_ops: a op b per
   output element, broadcast) on unquantized tensors, as in TFLM's audio
   front ends. ADD and SUB run over the whole int32 range (TFLM ignores their
   fused activation), MUL and DIV clamp to it. 0 when not one of these. */
static int lower_s32(Graph *g, Op *op)
{
    static const OpKind kinds[6] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MAXIMUM, OP_MINIMUM};
    int k = 0;
    while (k < 6 && kinds[k] != op->kind) k++;
    if (k == 6 || op->nin != 2 || op->in[0] < 0 || op->in[1] < 0 || T(g, op->in[0])->type != DT_INT32) return 0;
    Tensor *a = T(g, op->in[0]), *b = T(g, op->in[1]), *out = T(g, op->out[0]);
    need_type(b, DT_INT32, "input");
    need_type(out, DT_INT32, "output");
    if (a->q.n || b->q.n || out->q.n) fail("quantized int32 %s is not supported (TFLite Micro's int32 kernels read the stored values)", op->src_name);
    htc__binary32_params *p = gparams(op, sizeof *p, "htc__binary32_params", "a6a6a6iii");
    broadcast6(a, b, out, p->out_shape, p->a_stride, p->b_stride);
    p->op = op->kind == OP_DIV && op->mode ? 5 + op->mode : k;     /* FLOOR_DIV 6, FLOOR_MOD 7 */
    p->lo = INT32_MIN;
    p->hi = INT32_MAX;
    if (op->kind == OP_MUL || op->kind == OP_DIV) {
        if (op->act == ACT_RELU) p->lo = 0;
        else if (op->act == ACT_RELU6) p->lo = 0, p->hi = 6;
        else if (op->act == ACT_RELU_N1_TO_1) p->lo = -1, p->hi = 1;
    }
    op->int32_out = 1;
    op->rq = RQ_NONE;
    op->nch = 0;
    return 1;
}

/* A float32 model's operator: its first input is float (NEG, CUMSUM and
   the data movers of float islands keep their own lowering). 0 when it is
   not one of these. */
static int lower_f32(Graph *g, Op *op)
{
    if (op->nin < 1 || op->in[0] < 0 || g->tensors[op->in[0]].type != DT_FLOAT32) return 0;
    switch (op->kind) {
    case OP_FC: lower_ffc(g, op); break;
    case OP_SOFTMAX: lower_fsoftmax(g, op); break;
    case OP_LSTM: lower_flstm(g, op); break;
    case OP_ADD: case OP_MUL: lower_fbinary(g, op); break;
    case OP_TABLE: lower_funary(g, op); break;
    default: return 0;
    }
    for (int k = 0; k < op->nin; k++) {     /* the header writes float constants as decimals */
        const Tensor *c = op->in[k] >= 0 ? T(g, op->in[k]) : NULL;
        if (!c || !c->data || c->type != DT_FLOAT32) continue;
        for (int64_t i = 0; i < tensor_numel(c); i++) {
            float v;
            memcpy(&v, c->data + 4 * i, 4);
            if (!isfinite(v)) fail("constant '%s' holds %g: htc compiles finite float constants only", c->name, (double)v);
        }
    }
    op->f32 = 1;
    op->rq = RQ_NONE;
    op->nch = 0;
    return 1;
}

/* Ops with an int16 activation; 0 when the op has none (or only moves it). */
static int lower_s16(Graph *g, Op *op)
{
    int any = 0;
    for (int k = -1; k < op->nin && k < 1; k++) {
        int ti = k < 0 ? op->out[0] : op->in[k];
        if (ti >= 0 && g->tensors[ti].type == DT_INT16) any = 1;
    }
    if (!any) return 0;
    switch (op->kind) {
    case OP_CONV2D: case OP_FC:
        if (T(g, op->in[0])->type != DT_INT16) fail("input '%s' is %s, output int16", T(g, op->in[0])->name, dtype_name(T(g, op->in[0])->type));
        lower_conv_s16(g, op);
        return 1;
    case OP_QUANTIZE: case OP_DEQUANTIZE:
        lower_quant_s16(g, op);
        return 1;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAXIMUM: case OP_MINIMUM: case OP_PRELU: case OP_SQDIFF:
        lower_ew_s16(g, op);
        return 1;
    case OP_SOFTMAX:
        if (T(g, op->in[0])->type == DT_INT8) return 0;     /* int8 -> int16: lower_softmax */
        lower_softmax_s16(g, op);
        return 1;
    case OP_MATMUL:
        lower_matmul(g, op);
        return 1;
    case OP_TRANSPOSE_CONV:
        lower_tconv(g, op);
        return 1;
    case OP_TABLE:
        if (!strcmp(op->src_name, "RELU") || !strcmp(op->src_name, "RELU6") || !strcmp(op->src_name, "LEAKY_RELU")) {
            lower_act_s16(g, op);
            return 1;
        }
        if (!strcmp(op->src_name, "LOGISTIC") || !strcmp(op->src_name, "TANH")) {
            lower_sigmoid_s16(g, op);
            return 1;
        }
        if (!strcmp(op->src_name, "ABS") || !strcmp(op->src_name, "RSQRT")) {
            lower_absrsqrt_s16(g, op);
            return 1;
        }
        fail("int16 %s is not supported (16x8: htc has CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SUB, MUL, "
             "MAXIMUM, MINIMUM, PRELU, SQUARED_DIFFERENCE, BATCH_MATMUL, TRANSPOSE_CONV, pooling, MEAN, SUM, SOFTMAX, RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH, ABS, RSQRT, QUANTIZE, DEQUANTIZE and data movement)",
             op->src_name);
    default:
        return 0;
    }
}

static void lower_op(Graph *g, Op *op);

/* ---- TFLite_Detection_PostProcess ------------------------------------------ */

/* TFLM's kernel reads float inputs only (an SSD model dequantizes before
   it); the scratch buffers of its Prepare become one scratch output. */
static void lower_detect(Graph *g, Op *op)
{
    htc__detpp_params *p = op->params;            /* the reader's options */
    Tensor *enc = need(g, op, 0, "box encodings"), *cls = need(g, op, 1, "class predictions");
    Tensor *anc = need(g, op, 2, "anchors");
    /* float (TFLite Micro), or uint8 (LiteRT dequantizes them) */
    p->quantized = enc->u8 || cls->u8 || anc->u8;
    if (p->quantized) {
        const Tensor *q[3] = {enc, cls, anc};
        static const char *const what[3] = {"box encodings", "class predictions", "anchors"};
        for (int k = 0; k < 3; k++)
            if (!q[k]->u8 || q[k]->q.n != 1)
                fail("%s '%s' must be uint8 quantized per tensor like the other inputs (LiteRT dequantizes uint8)",
                     what[k], q[k]->name);
        p->enc_zp = (int32_t)enc->q.zero_point[0];
        p->cls_zp = (int32_t)cls->q.zero_point[0];
        p->anc_zp = (int32_t)anc->q.zero_point[0];
        p->enc_scale = enc->q.scale[0];
        p->cls_scale = cls->q.scale[0];
        p->anc_scale = anc->q.scale[0];
    } else {
        need_type(enc, DT_FLOAT32, "box encodings (TFLite Micro's kernel reads float)");
        need_type(cls, DT_FLOAT32, "class predictions (TFLite Micro's kernel reads float)");
        need_type(anc, DT_FLOAT32, "anchors");
    }
    need_rank(enc, 3, "box encodings");
    need_rank(cls, 3, "class predictions");
    need_rank(anc, 2, "anchors");
    int nb = enc->shape[1], nc = p->num_classes, ncb = cls->shape[2];
    if (enc->shape[0] != 1 || cls->shape[0] != 1) fail("batch must be 1");
    if (enc->shape[2] < 4) fail("box encodings '%s' have %d values per box, expected 4 or more", enc->name, enc->shape[2]);
    if (cls->shape[1] != nb) fail("class predictions '%s' are for %d boxes, expected %d", cls->name, cls->shape[1], nb);
    if (ncb < nc || ncb - nc > 1)
        fail("class predictions '%s' have %d classes for num_classes %d (one background class at most)", cls->name, ncb, nc);
    if (anc->shape[0] != nb || anc->shape[1] != 4) fail("anchors '%s' must be [%d, 4]", anc->name, nb);
    for (int k = 0; k < 4; k++) need_type(&g->tensors[op->out[k]], DT_FLOAT32, "output");
    int64_t cap = tensor_numel(&g->tensors[op->out[2]]);
    if (tensor_numel(&g->tensors[op->out[0]]) != 4 * cap || tensor_numel(&g->tensors[op->out[1]]) != cap ||
        tensor_numel(&g->tensors[op->out[3]]) != 1)
        fail("outputs must hold boxes [D, 4], classes [D], scores [D] and one count (D = %lld)", (long long)cap);
    if (p->use_regular_nms && p->max_detections > cap)
        fail("max_detections %d exceeds the %lld detections the outputs hold", p->max_detections, (long long)cap);
    if ((int64_t)nb * (nc + 8) + p->max_detections > (1 << 26)) fail("too many boxes x classes");
    p->num_boxes = nb;
    p->box_stride = enc->shape[2];
    p->num_classes_bg = ncb;
    p->cap = (int32_t)cap;
    int32_t o = 0, m = p->max_detections + nb;
    p->off_decoded = o; o += 16 * nb;
    p->off_keep_scores = o; o += 4 * nb;
    p->off_keep_indices = o; o += 4 * nb;
    p->off_sorted_indices = o; o += 4 * nb;
    p->off_class_scores = o; o += 4 * nb;
    p->off_selected = o; o += 4 * nb;
    p->off_sel_box = o; o += 4 * m;
    p->off_sel_scores = o; o += 4 * m;
    p->off_sorted_values = o; o += 4 * m;
    p->off_scratch = o; o += 4 * m;
    p->off_buffer = o; o += 4 * nb * nc;
    p->off_scores = o; o += p->quantized ? 4 * nb * ncb : 0;
    p->off_active = o; o += nb;
    int t = graph_add_tensor(g);
    Tensor *s = &g->tensors[t];
    s->name = arena_printf("%s.scratch", g->tensors[op->out[0]].name);
    s->type = DT_UINT8;
    s->rank = 1;
    s->shape[0] = o;
    op->out[4] = t;
    op->nout = 5;
    op->params_fmt = "iiiiiiiiiffffffiiiiiiiiiiiiiiiiifff";
    op->rq = RQ_NONE;
    op->nch = 0;
}

/* ---- TFLite's legacy uint8 quantization (TF1 models) ----------------------- */

static const char U8_IO[] = "uint8 storage";   /* src_name of the byte tables u8_storage adds */

/* A byte table (xor 0x80) from tensor in to a new tensor of type ty, the
   same shape and real values: the uint8 <-> int8 storage change at a graph
   input or output. Lowered here (lower_op skips it). */
static int u8_xor(Graph *g, int in, DType ty, const char *name, int *op_index)
{
    int t = graph_add_tensor(g);
    Tensor *x = &g->tensors[in], *y = &g->tensors[t];
    y->name = arena_strdup(name);
    y->type = ty;
    y->rank = x->rank;
    for (int d = 0; d < x->rank; d++) y->shape[d] = x->shape[d];
    y->q = x->q;
    y->q.zero_point = arena_alloc(sizeof(int64_t) * (size_t)(x->q.n ? x->q.n : 1));
    for (int k = 0; k < x->q.n; k++) y->q.zero_point[k] = x->q.zero_point[k] + (ty == DT_UINT8 ? 128 : -128);
    y->src_index = -1;
    int o = graph_add_op(g);
    Op *op = &g->ops[o];
    op->kind = OP_TABLE;
    op->src_name = U8_IO;
    op->nin = op->nout = 1;
    op->in[0] = in;
    op->out[0] = t;
    htc__lut_params *p = arena_alloc(sizeof *p);
    p->size = (int32_t)tensor_numel(x);
    for (int i = 0; i < 256; i++) p->lut[i] = (uint8_t)(i ^ 0x80);
    op->params = p;
    op->params_size = sizeof *p;
    op->params_type = "htc__lut_params";
    op->rq = RQ_TFLITE;
    op->nch = 1;
    op->variant = "";
    *op_index = o;
    return t;
}

/* LiteRT's uint8 CONCATENATION of inputs quantized unlike its output
   (ConcatenationWithScaling): each such input is first mapped through
   round(value * scale + bias) + out_zp in float, a byte table per input
   (an OP_TABLE before the concat), and the concat is then a copy. */
static const char U8_RQ[] = "CONCATENATION (uint8 input rescaled)";

static void u8_concat_rescale(Graph *g)
{
    int n = g->nops, extra = 0;
    for (int i = 0; i < n; i++) {
        const Op *op = &g->ops[i];
        if (op->kind != OP_CONCAT || op->out[0] < 0 || !g->tensors[op->out[0]].u8) continue;
        extra += op->nin;
    }
    if (!extra) return;
    Op *list = arena_alloc(sizeof(Op) * (size_t)(n + extra));
    int m = 0;
    for (int i = 0; i < n; i++) {
        Op op = g->ops[i];
        const Tensor *out = op.out[0] >= 0 ? &g->tensors[op.out[0]] : NULL;
        if (op.kind == OP_CONCAT && out && out->u8 && out->q.n == 1) {
            for (int k = 0; k < op.nin; k++) {
                int ti = op.in[k];
                if (ti < 0) continue;
                const Tensor *x = &g->tensors[ti];
                if (!x->u8 || x->q.n != 1 || (x->q.scale[0] == out->q.scale[0] && x->q.zero_point[0] == out->q.zero_point[0]))
                    continue;
                int t = graph_add_tensor(g);
                Tensor *y = &g->tensors[t];
                x = &g->tensors[ti];
                out = &g->tensors[op.out[0]];
                y->name = arena_printf("%s.rescaled", x->name);
                y->type = DT_INT8;
                y->u8 = 1;
                y->rank = x->rank;
                for (int d = 0; d < x->rank; d++) y->shape[d] = x->shape[d];
                y->q = out->q;
                y->src_index = -1;
                htc__lut_params *p = arena_alloc(sizeof *p);
                p->size = (int32_t)tensor_numel(x);
                volatile float inv = 1.0f / out->q.scale[0];
                volatile float scale = x->q.scale[0] * inv;
                volatile float bias = -(float)(int32_t)(x->q.zero_point[0] + 128) * scale;
                int32_t ozp = (int32_t)out->q.zero_point[0] + 128;
                for (int u = 0; u < 256; u++) {
                    volatile float v = (float)u * scale;
                    v = v + bias;
                    float r = roundf(v);
                    int32_t q = (int32_t)r + ozp;
                    q = q < 0 ? 0 : q > 255 ? 255 : q;
                    p->lut[(uint8_t)(u ^ 0x80)] = (uint8_t)(q ^ 0x80);
                }
                Op *tb = &list[m++];
                memset(tb, 0, sizeof *tb);
                for (int j = 0; j < OP_MAX_IO; j++) tb->in[j] = tb->out[j] = -1;
                tb->engine = -1;
                tb->kernel_weights = -1;
                tb->kind = OP_TABLE;
                tb->src_index = op.src_index;
                tb->src_name = U8_RQ;
                tb->nin = tb->nout = 1;
                tb->in[0] = ti;
                tb->out[0] = t;
                tb->params = p;
                tb->params_size = sizeof *p;
                tb->params_type = "htc__lut_params";
                tb->rq = RQ_TFLITE;
                tb->nch = 1;
                tb->variant = "";
                op.in[k] = t;
            }
        }
        list[m++] = op;
    }
    while (g->nops < m) graph_add_op(g);
    memcpy(g->ops, list, sizeof(Op) * (size_t)m);
}

/* Every quantized uint8 tensor is stored as int8 (value - 128, zero point
   - 128, constants' bytes flipped) and marked u8: the integer ops then run
   htc's int8 kernels, whose results equal LiteRT's uint8 kernels wherever
   the arithmetic only sees value - zero point (convolutions, FC, ADD, MUL,
   max pooling, softmax, moves); the ops whose arithmetic sees the stored
   value (average pooling's rounding) have a u8 variant. A uint8 graph
   input or output keeps its uint8 bytes through a byte table. */
static void u8_storage(Graph *g)
{
    int any = 0, nt = g->ntensors;
    for (int i = 0; i < nt; i++) {
        Tensor *t = &g->tensors[i];
        if (t->type != DT_UINT8 || t->q.n < 1) continue;
        any = 1;
        t->type = DT_INT8;
        t->u8 = 1;
        int64_t *zp = arena_alloc(sizeof(int64_t) * (size_t)t->q.n);
        for (int k = 0; k < t->q.n; k++) zp[k] = t->q.zero_point[k] - 128;
        t->q.zero_point = zp;
        if (t->variable) {              /* a resource variable's reset value, flipped as the constants */
            t->reset_byte ^= 0x80;
            if (t->reset_data) {
                uint8_t *d = arena_alloc(tensor_bytes(t) + 1);
                for (size_t k = 0; k < tensor_bytes(t); k++) d[k] = (uint8_t)(t->reset_data[k] ^ 0x80);
                t->reset_data = d;
            }
        }
        if (t->data) {
            uint8_t *d = arena_alloc(t->nbytes ? t->nbytes : 1);
            for (size_t k = 0; k < t->nbytes; k++) d[k] = (uint8_t)(t->data[k] ^ 0x80);
            t->data = d;
        }
    }
    if (!any) return;
    u8_concat_rescale(g);
    int nops = g->nops, nfront = 0;
    for (int k = 0; k < g->ninputs; k++) {
        int ti = g->inputs[k], o;
        if (!g->tensors[ti].u8 || g->tensors[ti].data) continue;
        int u = u8_xor(g, ti, DT_UINT8, g->tensors[ti].name, &o);
        /* u is the caller's uint8 input, ti (now internal) its int8 copy */
        g->ops[o].in[0] = u;
        g->ops[o].out[0] = ti;
        Tensor *x = &g->tensors[ti], *y = &g->tensors[u];
        y->is_input = x->is_input;
        x->is_input = 0;
        y->src_index = x->src_index;    /* the model's tensor is the uint8 one; its int8 copy untraced */
        x->src_index = -1;
        x->name = arena_printf("%s.s8", y->name);
        g->inputs[k] = u;
        nfront++;
    }
    for (int k = 0; k < g->noutputs; k++) {
        int ti = g->outputs[k], o;
        if (!g->tensors[ti].u8 || g->tensors[ti].data) continue;
        int u = u8_xor(g, ti, DT_UINT8, g->tensors[ti].name, &o);
        Tensor *x = &g->tensors[ti], *y = &g->tensors[u];
        y->is_output = x->is_output;
        x->is_output = 0;
        y->src_index = x->src_index;    /* traced (dumped) as the model's uint8 bytes */
        x->src_index = -1;
        x->name = arena_printf("%s.s8", y->name);
        g->outputs[k] = u;
    }
    /* the input tables first: ops [nops, nops + nfront) move to the front */
    if (nfront) {
        Op *tmp = arena_alloc(sizeof(Op) * (size_t)nfront);
        memcpy(tmp, g->ops + nops, sizeof(Op) * (size_t)nfront);
        memmove(g->ops + nfront, g->ops, sizeof(Op) * (size_t)nops);
        memcpy(g->ops, tmp, sizeof(Op) * (size_t)nfront);
    }
}

/* lower_op; a refused op is recorded and the next one lowered */
static void lower_caught(Graph *g, Op *op)
{
    jmp_buf jb;
    if (setjmp(jb) == 0) {
        refuse_catch(&jb);
        lower_op(g, op);
    }
    refuse_catch(NULL);
}

/* An ONNX graph: onnx.c chose onnxruntime's arithmetic as it read the
   model; lowering only checks it. */
static void lower_onnx(Graph *g)
{
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        if (!op->variant) op->variant = "";
        if (op->kind == OP_RESHAPE) {
            const Tensor *a = &g->tensors[op->in[0]], *b = &g->tensors[op->out[0]];
            if (tensor_bytes(a) != tensor_bytes(b))
                die("%s: internal: reshape %d changes the size", g->path, i);
        }
    }
}

void lower(Graph *g)
{
    if (g->format == SRC_ONNX) {
        lower_onnx(g);
        return;
    }
    lowering.path = g->path;
    u8_storage(g);
    for (int i = 0; i < g->nops; i++) lower_caught(g, &g->ops[i]);
    refuse_flush(g->path);
}

/* One op: checks, then the lowering of its kind. */
static void lower_op(Graph *g, Op *op)
{
    lowering.op = op;
    if (op->src_name == U8_IO || op->src_name == U8_RQ) return;  /* u8_storage's byte tables */
    op->variant = "";
    for (int k = -1; k < op->nin; k++) {
        int ti = k < 0 ? op->out[0] : op->in[k];
        if (ti >= 0 && g->tensors[ti].u8 && !g->tensors[ti].data) op->u8 = 1;
    }
    if (op->u8) {                       /* the uint8 ops checked against LiteRT (tests/test_u8.py), and moves */
        static const OpKind ok[] = {OP_CONV2D, OP_FC, OP_ADD, OP_MUL, OP_AVGPOOL, OP_MAXPOOL, OP_SOFTMAX, OP_PAD,
                                    OP_CONCAT, OP_RESHAPE, OP_TRANSPOSE, OP_SLICE, OP_TILE, OP_GATHER, OP_MIRROR_PAD,
                                    OP_SPACE_TO_BATCH, OP_BATCH_TO_SPACE, OP_QUANTIZE, OP_DEQUANTIZE, OP_ARGMAX,
                                    OP_ARGMIN, OP_RESIZE, OP_MEAN, OP_DETECT_PP, OP_SUB, OP_L2NORM, OP_MAXIMUM, OP_MINIMUM,
                                    OP_SUM, OP_REDUCE_MAX, OP_REDUCE_MIN, OP_COMPARE, OP_PRELU, OP_LOG_SOFTMAX,
                                    OP_DIV, OP_TRANSPOSE_CONV};
        static const char *const tables[] = {"LOGISTIC", "TANH", "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1",
                                             "LEAKY_RELU", "HARD_SWISH", "GELU"};
        int known = 0;
        for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
            known |= op->kind == OP_TABLE && !strcmp(op->src_name, tables[k]);
        for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) known |= op->kind == ok[k];
        if (!known) fail("uint8 %s is not supported (htc's uint8 operators, those LiteRT's reference kernels run: "
                         "CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED, ADD, SUB, MUL, DIV, "
                         "MAXIMUM/MINIMUM, comparisons, pooling, SOFTMAX, LOG_SOFTMAX, LOGISTIC, TANH, the RELUs, LEAKY_RELU, PRELU, HARD_SWISH, GELU, "
                         "L2_NORMALIZATION, PAD, RESIZE, MEAN, SUM, REDUCE_MAX/MIN, QUANTIZE, DEQUANTIZE, ARG_MAX/MIN "
                         "and data movement)", op->src_name);
    }
    int signal = op->kind >= OP_WINDOW && op->kind <= OP_OVERLAP_ADD;
    if ((op->nout != 1 && op->kind != OP_LSTM && op->kind != OP_SVDF && op->kind != OP_DETECT_PP && !signal) ||
        op->out[0] < 0)
        fail("expected exactly one output");
    for (int k = -1; k < op->nin; k++) {
        int ti = k < 0 ? op->out[0] : op->in[k];
        if (ti >= 0 && tensor_numel(&g->tensors[ti]) == 0) fail("tensor '%s' is empty", g->tensors[ti].name);
    }
    /* float: QUANTIZE's input, float islands (NEG), moved data */
    int moves = op->kind == OP_RESHAPE || op->kind == OP_TRANSPOSE || op->kind == OP_SLICE || op->kind == OP_TILE ||
                op->kind == OP_GATHER || op->kind == OP_CONCAT || op->kind == OP_QUANTIZE || op->kind == OP_NEG ||
                op->kind == OP_MIRROR_PAD || op->kind == OP_SPACE_TO_BATCH || op->kind == OP_BATCH_TO_SPACE ||
                op->kind == OP_RESIZE || op->kind == OP_SELECT || op->kind == OP_CAST || op->kind == OP_FILL ||
                op->kind == OP_GATHER_ND || op->kind == OP_UPDATE_SLICE || op->kind == OP_CUMSUM;
    if (signal) {
        lower_signal(g, op);
        return;
    }
    if (op->kind == OP_DETECT_PP) {
        lower_detect(g, op);
        return;
    }
    if (lower_f32(g, op) || lower_s32(g, op)) return;
    for (int k = 0; k < op->nin; k++)
        if (op->in[k] >= 0 && g->tensors[op->in[k]].type == DT_FLOAT32 && !moves)
            fail("float input '%s': htc compiles integer models only (and the float operators of float islands)",
                 g->tensors[op->in[k]].name);
    if (lower_s16(g, op)) return;
    switch (op->kind) {
    case OP_CONV2D: lower_conv(g, op); break;
    case OP_FC: lower_fc(g, op); break;
    case OP_ADD: case OP_MUL: lower_binary(g, op); break;
    case OP_AVGPOOL: case OP_MAXPOOL: lower_pool(g, op); break;
    case OP_MEAN: case OP_SUM: case OP_REDUCE_MAX: case OP_REDUCE_MIN: lower_reduce(g, op); break;
    case OP_ARGMAX: case OP_ARGMIN: lower_argminmax(g, op); break;
    case OP_MIRROR_PAD: lower_mirror_pad(g, op); break;
    case OP_LSTM: lower_lstm(g, op); break;
    case OP_COMPARE: lower_compare(g, op); break;
    case OP_LOGICAL: lower_logical(g, op); break;
    case OP_SELECT: lower_select(g, op); break;
    case OP_CAST: lower_cast(g, op); break;
    case OP_FILL: lower_fill(g, op); break;
    case OP_GATHER_ND: lower_gather_nd(g, op); break;
    case OP_UPDATE_SLICE: lower_update_slice(g, op); break;
    case OP_ADD_N: case OP_CUMSUM: lower_addn(g, op); break;
    case OP_REDUCE_ALL: lower_reduce_all(g, op); break;
    case OP_SVDF: lower_svdf(g, op); break;
    case OP_LOG_SOFTMAX: lower_log_softmax(g, op); break;
    case OP_DIV: lower_div(g, op); break;
    case OP_SUB: case OP_SQDIFF: case OP_MAXIMUM: case OP_MINIMUM: case OP_PRELU: lower_ew(g, op); break;
    case OP_MATMUL: lower_matmul(g, op); break;
    case OP_TRANSPOSE_CONV: lower_tconv(g, op); break;
    case OP_RESIZE: lower_resize(g, op); break;
    case OP_TILE: lower_tile(g, op); break;
    case OP_SLICE: lower_slice(g, op); break;
    case OP_GATHER: lower_gather(g, op); break;
    case OP_SPACE_TO_BATCH: case OP_BATCH_TO_SPACE: lower_s2b(g, op); break;
    case OP_L2NORM: lower_l2norm(g, op); break;
    case OP_TRANSPOSE: lower_transpose(g, op); break;
    case OP_NEG: lower_neg(g, op); break;
    case OP_PAD: lower_pad(g, op); break;
    case OP_CONCAT: lower_concat(g, op); break;
    case OP_RESHAPE: lower_reshape(g, op); break;
    case OP_SOFTMAX: lower_softmax(g, op); break;
    case OP_TABLE: lower_table(g, op); break;
    case OP_QUANTIZE: case OP_DEQUANTIZE: lower_quant(g, op); break;
    default: fail("no lowering for %s", op_name(op->kind));
    }
}
