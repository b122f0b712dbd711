/* lower.c - source-level ops -> canonical integer ops with explicit
   requantization: padding, clamp bounds and kernel parameter blocks. */
#include <stdarg.h>
#include <string.h>

#include "ir.h"
#include "quant.h"

static const Graph *G;
static const Op *OP;

/* One-line error naming the model and the operator being lowered. */
static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    die("%s: operator %d (%s): %s", G->path, OP->src_index, OP->src_name, msg);
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
static void weights_quant(Op *op, const Tensor *in, const Tensor *w, const Tensor *out, int nout_ch, int ch_axis)
{
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
    if (op->kind == OP_FC)
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
        if (op->groups > 1) op->kernel_weights = wi;    /* dwconv2d.c reads [kh][kw][out_c] */
        else p->depth_mult = 1;                         /* one input channel: a plain conv (conv2d.c) */
    }
    op->depthwise = op->groups > 1 && op->groups == op->in_c;
}

static void lower_fc(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *w = need(g, op, 1, "weights"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    need_type(w, DT_INT8, "weights");
    need_type(out, DT_INT8, "output");
    need_rank(w, 2, "weights");
    need_const(w, "weights");
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
    need_type(in, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
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
        if (t->rank != out->rank) fail("input '%s' rank differs from the output", t->name);
        for (int d = 0; d < t->rank; d++)
            if (d != axis && t->shape[d] != out->shape[d]) fail("input '%s' shape differs off the axis", t->name);
        if (out->q.n && (t->q.n != 1 || t->q.scale[0] != out->q.scale[0] || t->q.zero_point[0] != out->q.zero_point[0]))
            fail("input '%s' quantization differs from the output (requantizing concat is not supported)", t->name);
        ab[i] = (int32_t)(t->shape[axis] * inner);
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
    need_type(out, DT_INT8, "output");
    qzp(in, "input");
    if (qzp(out, "output") != -128 || out->q.scale[0] != 1.0f / 256)
        fail("int8 softmax output must have scale 1/256 and zero point -128");
    htc__softmax_params *p = params(op, sizeof *p, "htc__softmax_params");
    quant_softmax_params(op->beta, in->q.scale[0], p);
    p->depth = in->shape[in->rank - 1];
    p->outer = (int32_t)(tensor_numel(in) / p->depth);
    p->out_zp = -128;
    op->rq = RQ_TFLITE;
    op->nch = 1;
}

static void lower_logistic(Graph *g, Op *op)
{
    Tensor *in = need(g, op, 0, "data"), *out = T(g, op->out[0]);
    need_type(in, DT_INT8, "input");
    need_type(out, DT_INT8, "output");
    if (qzp(out, "output") != -128 || out->q.scale[0] != 1.0f / 256)
        fail("int8 logistic output must have scale 1/256 and zero point -128");
    htc__logistic_params *p = params(op, sizeof *p, "htc__logistic_params");
    quant_logistic_params(in->q.scale[0], qzp(in, "input"), p);
    p->size = (int32_t)tensor_numel(in);
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

void lower(Graph *g)
{
    if (g->format == SRC_ONNX) {          /* onnxruntime's arithmetic: onnx.c */
        onnx_lower(g);
        return;
    }
    G = g;
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        OP = op;
        op->variant = "";
        if (op->nout != 1 || op->out[0] < 0) fail("expected exactly one output");
        for (int k = -1; k < op->nin; k++) {
            int ti = k < 0 ? op->out[0] : op->in[k];
            if (ti >= 0 && tensor_numel(&g->tensors[ti]) == 0) fail("tensor '%s' is empty", g->tensors[ti].name);
        }
        for (int k = 0; k < op->nin; k++)
            if (op->in[k] >= 0 && g->tensors[op->in[k]].type == DT_FLOAT32 && op->kind != OP_QUANTIZE)
                fail("float input '%s': htc compiles integer models only", g->tensors[op->in[k]].name);
        switch (op->kind) {
        case OP_CONV2D: lower_conv(g, op); break;
        case OP_FC: lower_fc(g, op); break;
        case OP_ADD: case OP_MUL: lower_binary(g, op); break;
        case OP_AVGPOOL: case OP_MAXPOOL: lower_pool(g, op); break;
        case OP_MEAN: lower_mean(g, op); break;
        case OP_PAD: lower_pad(g, op); break;
        case OP_CONCAT: lower_concat(g, op); break;
        case OP_RESHAPE: lower_reshape(g, op); break;
        case OP_SOFTMAX: lower_softmax(g, op); break;
        case OP_TABLE: lower_logistic(g, op); break;
        case OP_QUANTIZE: case OP_DEQUANTIZE: lower_quant(g, op); break;
        default: fail("no lowering for %s", op_name(op->kind));
        }
    }
}
