/* onnx.c - the ONNX front end: QOperator and QDQ int8/uint8 models into the
   IR, with onnxruntime's arithmetic (float scales, round half to even).

   The protobuf is decoded by protobuf-c with code generated at build time
   from Debian's onnx.proto (Makefile); before that a bounded walk over the
   wire format (wire_check) rejects malformed or too deeply nested input, so
   the decoder never recurses without bound. Every tensor, attribute and
   shape is then checked here; errors name the node.

   Layout: ONNX activations are NCHW, the kernels NHWC. A 4-D value is kept
   in whichever layout its producer wrote (Val.nhwc) and converted only where
   a consumer needs the other one (a transpose op, or an alias when the
   permutation moves only size-1 axes). Graph inputs and outputs keep the
   model's own layout and types.

   uint8: activations and weights are stored as int8 (value - 128, zero point
   - 128), which leaves every x - zp unchanged; kernels whose float arithmetic
   reads the raw values (QLinearAdd) get the offset back. Graph inputs and
   outputs of type uint8 pass through a byte table (xor 0x80).

   QDQ: DequantizeLinear of an activation is kept symbolic (V_DQ) and a float
   Conv/Gemm/MatMul/Add/GlobalAveragePool on such values is kept pending
   (V_FLOAT) until the QuantizeLinear that consumes it, where it becomes the
   same integer op as its QOperator form -- what onnxruntime's QDQ fusion
   does. Where onnxruntime would not fuse (a DequantizeLinear shared by
   several nodes, a float value used twice), it computes in float, and htc
   stops with an error naming the node. Data movement (Reshape, Flatten,
   Transpose, MaxPool) commutes with dequantization and runs on the integers. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <string.h>

#include "ir.h"
#include "../htc.h"
#include "onnx.pb-c.h"

#define MAX_DEPTH 32                    /* nesting of protobuf messages */
#define MAX_ELEMS ((int64_t)1 << 30)    /* elements of one tensor */

/* protobuf-c allocates from htc's arena: freed with everything else at
   exit, and nothing leaks when an error stops the reader half-way. */
static void *pb_alloc(void *d, size_t n)
{
    (void)d;
    return arena_alloc(n ? n : 1);
}

static void pb_free(void *d, void *p)
{
    (void)d;
    (void)p;
}

static ProtobufCAllocator pb_arena = {pb_alloc, pb_free, NULL};

/* ---- the reader's options: --shape, --bind, --float-fallback ---------------- */

static const ReadOptions *OPTS;
static char *SHAPE_USED;        /* per --shape: a graph input took it */
#define FF_OPS "Conv, Add, Mul, AveragePool, Softmax and one-row Gemm/MatMul"   /* what --float-fallback reproduces */

/* ---- errors ---------------------------------------------------------------- */

static const char *PATH;
static const Onnx__NodeProto *NODE;
/* The first op that multiplies uint8 activations by int8 weights, or NULL
   (onnx_u8s8_note). */
static const char *U8S8_NODE;
static int NODE_INDEX;
static int AFTER_NODES;         /* the graph's outputs are checked: a problem there follows every node's */

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char line[6144];
    if (NODE)
        snprintf(line, sizeof line, "node %d '%s' (%s%s%s): %s", NODE_INDEX, NODE->name && *NODE->name ? NODE->name : "",
                 NODE->domain && *NODE->domain ? NODE->domain : "", NODE->domain && *NODE->domain ? "." : "",
                 NODE->op_type ? NODE->op_type : "?", msg);
    else
        snprintf(line, sizeof line, "%s", msg);
    /* names come from the file: no control characters in the one-line error */
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    /* a node's problem is recorded and the next node translated (onnx_read);
       every problem is then listed at once, in graph order */
    if (NODE) refuse(PATH, NODE_INDEX, "%s", line);
    if (AFTER_NODES) refuse_other(PATH, INT_MAX, "%s", line);
    die("%s: %s", PATH, line);
}

/* ---- wire-format walk: bounds and nesting ----------------------------------- */

static int varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v)
{
    uint64_t r = 0;
    for (int s = 0; s < 64; s += 7) {
        if (*pos >= n) return 0;
        uint8_t b = p[(*pos)++];
        r |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) {
            *v = r;
            return 1;
        }
    }
    return 0;
}

/* Every field of a message: tags, lengths inside the buffer, messages
   nested at most MAX_DEPTH deep (checked before protobuf-c recurses). */
static const char *wire_check(const uint8_t *p, size_t n, const ProtobufCMessageDescriptor *d, int depth)
{
    size_t pos = 0;
    if (depth > MAX_DEPTH) return "messages nested too deeply";
    while (pos < n) {
        uint64_t key, v;
        if (!varint(p, n, &pos, &key)) return "truncated field tag";
        uint32_t num = (uint32_t)(key >> 3), wt = (uint32_t)(key & 7);
        if (num == 0 || (key >> 3) > 0x1fffffff) return "invalid field number";
        switch (wt) {
        case 0:
            if (!varint(p, n, &pos, &v)) return "truncated varint";
            break;
        case 1:
            if (n - pos < 8) return "truncated fixed64";
            pos += 8;
            break;
        case 5:
            if (n - pos < 4) return "truncated fixed32";
            pos += 4;
            break;
        case 2: {
            if (!varint(p, n, &pos, &v)) return "truncated length";
            if (v > n - pos) return "length runs past the end of the file";
            const ProtobufCFieldDescriptor *f = d ? protobuf_c_message_descriptor_get_field(d, num) : NULL;
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
                const char *e = wire_check(p + pos, (size_t)v, f->descriptor, depth + 1);
                if (e) return e;
            }
            pos += (size_t)v;
            break;
        }
        default:
            return "unsupported wire type (groups)";
        }
    }
    return NULL;
}

/* ---- constants --------------------------------------------------------------- */

/* ONNX TensorProto.DataType values this reader knows. */
enum { OT_FLOAT = 1, OT_UINT8 = 2, OT_INT8 = 3, OT_INT32 = 6, OT_INT64 = 7 };

static const char *otype_name(int t)
{
    static const char *n[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64",
                              "string", "bool", "float16", "double", "uint32", "uint64", "complex64",
                              "complex128", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
                              "float8e5m2fnuz", "uint4", "int4", "float4e2m1"};
    return t >= 0 && t < (int)(sizeof n / sizeof n[0]) ? n[t] : "unknown";
}

static int dtype_of(int ot, DType *dt)
{
    switch (ot) {
    case OT_FLOAT: *dt = DT_FLOAT32; return 1;
    case OT_UINT8: *dt = DT_UINT8; return 1;
    case OT_INT8: *dt = DT_INT8; return 1;
    case OT_INT32: *dt = DT_INT32; return 1;
    case OT_INT64: *dt = DT_INT64; return 1;
    }
    return 0;
}

typedef struct {
    DType type;
    int rank;
    int32_t shape[MAX_RANK];
    int64_t n;
    uint8_t *data;              /* little endian, n * dtype_size */
} Const;

static int64_t shape_numel(const int32_t *s, int rank)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= s[i];
    return n;
}

/* A TensorProto as a checked constant; what names it in errors. */
static Const *tensor_const(const Onnx__TensorProto *t, const char *what)
{
    Const *c = arena_alloc(sizeof *c);
    if (!t->has_data_type || !dtype_of(t->data_type, &c->type))
        fail("%s has type %s, which htc does not support", what, otype_name(t->has_data_type ? t->data_type : 0));
    if (t->n_dims > MAX_RANK) fail("%s has rank %zu (at most %d)", what, t->n_dims, MAX_RANK);
    if (t->segment) fail("%s is segmented", what);
    if (t->n_external_data || (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL))
        fail("%s uses external data, which htc does not read", what);
    c->rank = (int)t->n_dims;
    c->n = 1;
    for (int i = 0; i < c->rank; i++) {
        if (t->dims[i] < 0 || t->dims[i] > INT32_MAX) fail("%s has dimension %lld", what, (long long)t->dims[i]);
        c->shape[i] = (int32_t)t->dims[i];
        c->n *= t->dims[i];
        if (c->n > MAX_ELEMS)
            fail("%s is too large: its first %d dimensions hold %lld elements, at most %lld", what, i + 1,
                 (long long)c->n, (long long)MAX_ELEMS);
    }
    size_t es = dtype_size(c->type), nb = (size_t)c->n * es;
    c->data = arena_alloc(nb ? nb : 1);
    if (t->has_raw_data) {
        if (t->raw_data.len != nb)
            fail("%s has %zu bytes of raw data, its shape needs %zu", what, t->raw_data.len, nb);
        if (nb) memcpy(c->data, t->raw_data.data, nb);
    } else if (c->type == DT_FLOAT32) {
        if ((int64_t)t->n_float_data != c->n) fail("%s has %zu values, its shape needs %lld", what, t->n_float_data, (long long)c->n);
        if (nb) memcpy(c->data, t->float_data, nb);
    } else if (c->type == DT_INT64) {
        if ((int64_t)t->n_int64_data != c->n) fail("%s has %zu values, its shape needs %lld", what, t->n_int64_data, (long long)c->n);
        if (nb) memcpy(c->data, t->int64_data, nb);
    } else {
        if ((int64_t)t->n_int32_data != c->n) fail("%s has %zu values, its shape needs %lld", what, t->n_int32_data, (long long)c->n);
        for (int64_t i = 0; i < c->n; i++) {
            int32_t v = t->int32_data[i];
            if (c->type == DT_INT8) {
                if (v < -128 || v > 127) fail("%s: value %d is out of int8 range", what, v);
                c->data[i] = (uint8_t)(int8_t)v;
            } else if (c->type == DT_UINT8) {
                if (v < 0 || v > 255) fail("%s: value %d is out of uint8 range", what, v);
                c->data[i] = (uint8_t)v;
            } else {
                memcpy(c->data + 4 * i, &v, 4);
            }
        }
    }
    return c;
}

static int64_t const_int(const Const *c, int64_t i)
{
    switch (c->type) {
    case DT_INT8: return (int8_t)c->data[i];
    case DT_UINT8: return c->data[i];
    case DT_INT32: { int32_t v; memcpy(&v, c->data + 4 * i, 4); return v; }
    case DT_INT64: { int64_t v; memcpy(&v, c->data + 8 * i, 8); return v; }
    default: fail("internal: integer read of a %s constant", dtype_name(c->type));
    }
}

static float const_f(const Const *c, int64_t i)
{
    float v;
    memcpy(&v, c->data + 4 * i, 4);
    return v;
}

/* ---- values --------------------------------------------------------------- */

enum { V_TENSOR, V_CONST, V_DQ, V_FLOAT };

typedef struct Val {
    const char *name;
    int kind;
    int uses;                   /* consumers: node inputs + graph outputs */
    /* V_TENSOR: IR tensor and what it holds */
    int t;                      /* IR tensor (V_TENSOR), or -1 */
    int nhwc;                   /* rank-4 value held as NHWC */
    int other;                  /* cached IR tensor in the other layout, or -1 */
    DType otype;                /* ONNX element type (uint8 stored as int8) */
    int rank;
    int32_t shape[MAX_RANK];    /* ONNX shape */
    /* V_CONST */
    Const *c;
    int ct;                     /* IR constant tensor made from it, or -1 */
    /* V_DQ: dequantized source and its parameters */
    struct Val *src;
    int qn, qaxis;
    float *qscale;
    int32_t *qzp;               /* ONNX domain */
    /* V_FLOAT: pending float op */
    const Onnx__NodeProto *node;
    int node_index;
    struct Val *in[OP_MAX_IO];
    int relu;                   /* a Relu (1) or Clip (2) follows, or a chain of them (3): clip_lo..clip_hi */
    float clip_lo, clip_hi;
    int ident;                  /* an Identity's output (onnxruntime drops the node) */
    const Onnx__NodeProto *qnode;   /* V_TENSOR: the QuantizeLinear that made it, or NULL */
    int ortdq;                  /* V_DQ: onnxruntime has a DequantizeLinear right before the consumer */
    DType orttype;              /* V_DQ: ... reading this type (int8 turned uint8, see ort_q_u8) */
    const char *ortvia;         /* V_DQ without ortdq: the op that hides the DequantizeLinear */
    struct Val *fused;          /* V_FLOAT: the integer result, once fused */
    float fscale;               /* ... and the QuantizeLinear parameters */
    int32_t fzp;
    DType ftype;
    int refused;                /* an output of a refused node: its consumers are not checked */
} Val;

static Val **vals;
static int nvals, capvals;
static Graph *G;
static const Onnx__GraphProto *GR;
static const Onnx__ModelProto *OPSETS;

/* The graph's names, indexed once per model: each value name -> its Val,
   the node inputs that read it (in node, then input order), the node that
   writes it and how many graph outputs name it. The passes below ask these
   questions for every node; scanning the node list each time made a long
   graph quadratic (8,000 nodes: 2.2 s). */
typedef struct {
    int node, input;
} Use;

typedef struct {
    const char *name;
    Val *val;
    Use *use;
    int nuse, cap, nout, producer;
} Name;

static StrMap names;             /* name -> Name */

/* The entry of `s`, made (empty) when `make` is set, else NULL if absent. */
static Name *name_get(const char *s, int make)
{
    if (!s) return NULL;
    Name *e = strmap_get(&names, s);
    if (e || !make) return e;
    e = arena_alloc(sizeof *e);
    e->name = s;
    e->producer = -1;
    strmap_put(&names, s, e);
    return e;
}

static void index_graph(const Onnx__GraphProto *gr)
{
    names = (StrMap){0};
    for (size_t k = 0; k < gr->n_node; k++) {
        const Onnx__NodeProto *nd = gr->node[k];
        for (size_t i = 0; i < nd->n_input; i++) {
            Name *e = name_get(nd->input[i], 1);
            if (!e) continue;
            if (e->nuse == e->cap) {
                e->cap = e->cap ? 2 * e->cap : 2;
                Use *u = arena_alloc(sizeof(Use) * (size_t)e->cap);
                if (e->nuse) memcpy(u, e->use, sizeof(Use) * (size_t)e->nuse);
                e->use = u;
            }
            e->use[e->nuse++] = (Use){(int)k, (int)i};
        }
        for (size_t o = 0; o < nd->n_output; o++) {
            Name *e = name_get(nd->output[o], 1);
            if (e) e->producer = (int)k;
        }
    }
    for (size_t i = 0; i < gr->n_output; i++) {
        Name *e = name_get(gr->output[i]->name, 1);
        if (e) e->nout++;
    }
}

/* Node inputs and graph outputs that read value `name`. */
static int consumers(const char *name)
{
    const Name *e = name_get(name, 0);
    return e ? e->nuse + e->nout : 0;
}

/* The value named `name` (a value renamed since, as MaxPool's integer
   result "y.int", no longer answers to its old name). */
static Val *val_find(const char *name)
{
    const Name *e = name_get(name, 0);
    return e && e->val && !strcmp(e->val->name, name) ? e->val : NULL;
}

static Val *val_new(const char *name, int kind)
{
    if (val_find(name)) fail("value '%s' is defined twice", name);
    if (nvals == capvals) {
        capvals = capvals ? 2 * capvals : 64;
        Val **v = arena_alloc(sizeof(Val *) * (size_t)capvals);
        if (nvals) memcpy(v, vals, sizeof(Val *) * (size_t)nvals);
        vals = v;
    }
    Val *v = arena_alloc(sizeof *v);
    v->name = arena_strdup(name);
    v->kind = kind;
    v->t = v->other = v->ct = -1;
    vals[nvals++] = v;
    name_get(v->name, 1)->val = v;
    return v;
}

/* This reader's graph G */
static int new_tensor(const char *name, DType type, int rank, const int32_t *shape)
{
    return graph_new_tensor(G, name, type, rank, shape);
}

static int const_tensor(const char *name, DType type, int rank, const int32_t *shape, const void *data, size_t nbytes)
{
    return graph_const_tensor(G, name, type, rank, shape, data, nbytes);
}

static Op *new_op(OpKind kind, int in0, int out)
{
    int o = graph_add_op(G);
    Op *op = &G->ops[o];
    op->kind = kind;
    op->src_index = NODE ? NODE_INDEX : -1;
    op->src_name = NODE ? arena_strdup(NODE->op_type) : "layout";
    op->variant = "";
    op->nin = 1;
    op->in[0] = in0;
    op->nout = 1;
    op->out[0] = out;
    op->stride_h = op->stride_w = op->dil_h = op->dil_w = 1;
    return op;
}

static void *params(Op *op, size_t size, const char *type)
{
    op->params = arena_alloc(size);
    op->params_size = size;
    op->params_type = type;
    return op->params;
}

static void set_quant(int t, float scale, int32_t zp_stored)
{
    Tensor *T = &G->tensors[t];
    T->q.n = 1;
    T->q.scale = arena_alloc(sizeof(float));
    T->q.zero_point = arena_alloc(sizeof(int64_t));
    T->q.scale[0] = scale;
    T->q.zero_point[0] = zp_stored;
}

/* ---- layout ----------------------------------------------------------------- */

static const int TO_NHWC[4] = {0, 2, 3, 1}, TO_NCHW[4] = {0, 3, 1, 2};

/* out = transpose(in, perm): a transpose op, or an alias when the
   permutation keeps the order of every axis longer than 1. */
static int transpose(int in, const int *perm, int rank, const char *why)
{
    Tensor tin = G->tensors[in];        /* a copy: new_tensor may move the array */
    const Tensor *t = &tin;
    int32_t shape[MAX_RANK] = {0};
    for (int d = 0; d < rank; d++) shape[d] = t->shape[perm[d]];
    int out = new_tensor(arena_printf("%s.%s", t->name, why), t->type, rank, shape);
    G->tensors[out].q = G->tensors[in].q;
    int last = -1, trivial = 1;
    for (int d = 0; d < rank; d++)
        if (t->shape[perm[d]] != 1) {
            if (perm[d] < last) trivial = 0;
            last = perm[d];
        }
    if (trivial) {
        new_op(OP_RESHAPE, in, out);
        return out;
    }
    Op *op = new_op(OP_TRANSPOSE, in, out);
    htc__transpose_params *p = params(op, sizeof *p, "htc__transpose_params");
    p->rank = rank;
    p->elem = (int32_t)dtype_size(t->type);
    int32_t istride[MAX_RANK];
    int32_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        istride[d] = s;
        s *= t->shape[d];
    }
    for (int d = 0; d < rank; d++) {
        p->shape[d] = shape[d];
        p->stride[d] = istride[perm[d]];
    }
    return out;
}

/* The IR tensor holding v in ONNX (NCHW) order / in NHWC order. */
static int as_onnx(Val *v)
{
    if (!v->nhwc) return v->t;
    if (v->other < 0) v->other = transpose(v->t, TO_NCHW, 4, "nchw");
    return v->other;
}

static int as_nhwc(Val *v)
{
    if (v->rank != 4) fail("'%s' has rank %d, expected a 4-D NCHW tensor", v->name, v->rank);
    if (v->nhwc) return v->t;
    if (v->other < 0) v->other = transpose(v->t, TO_NHWC, 4, "nhwc");
    return v->other;
}

/* ---- attributes ------------------------------------------------------------ */

static const Onnx__AttributeProto *attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name)) return n->attribute[i];
    return NULL;
}

static int64_t attr_i(const Onnx__NodeProto *n, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = attr(n, name);
    if (!a) return def;
    if (!a->has_i || (a->has_type && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT))
        fail("attribute '%s' must be an integer", name);
    return a->i;
}

static float attr_f(const Onnx__NodeProto *n, const char *name, float def)
{
    const Onnx__AttributeProto *a = attr(n, name);
    if (!a) return def;
    if (!a->has_f || (a->has_type && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT))
        fail("attribute '%s' must be a float", name);
    return a->f;
}

static const char *attr_s(const Onnx__NodeProto *n, const char *name, const char *def)
{
    const Onnx__AttributeProto *a = attr(n, name);
    if (!a) return def;
    if (!a->has_s || (a->has_type && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING))
        fail("attribute '%s' must be a string", name);
    for (size_t i = 0; i < a->s.len; i++)
        if (!a->s.data[i]) fail("attribute '%s' contains a NUL byte", name);
    return arena_printf("%.*s", (int)a->s.len, (const char *)a->s.data);
}

/* Integer list; returns its length (0 when absent). */
static int attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, int max)
{
    const Onnx__AttributeProto *a = attr(n, name);
    if (!a) return 0;
    if (a->has_type && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
        fail("attribute '%s' must be a list of integers", name);
    if ((int)a->n_ints > max || a->n_ints > 64) fail("attribute '%s' has %zu entries (at most %d)", name, a->n_ints, max);
    for (size_t i = 0; i < a->n_ints; i++) out[i] = a->ints[i];
    return (int)a->n_ints;
}

/* ---- inputs of the current node ------------------------------------------- */

static Val *input(int i, const char *what)
{
    if ((size_t)i >= NODE->n_input || !NODE->input[i][0]) fail("missing input %d (%s)", i, what);
    Val *v = val_find(NODE->input[i]);
    if (!v) fail("input '%s' is not produced by an earlier node, an initializer or a graph input", NODE->input[i]);
    return v;
}

static Val *opt_input(int i)
{
    if ((size_t)i >= NODE->n_input || !NODE->input[i][0]) return NULL;
    return input(i, "optional");
}

static Const *need_const(Val *v, const char *what)
{
    if (v->kind != V_CONST)
        fail("%s '%s' must be a constant (an initializer; bind a graph input with --bind %s=FILE)", what, v->name, v->name);
    return v->c;
}

static Val *need_tensor(Val *v, const char *what)
{
    if (v->kind == V_DQ || v->kind == V_FLOAT)
        fail("%s '%s' is a float value computed from quantized data: onnxruntime evaluates this in float, "
             "which htc does not reproduce in integers", what, v->name);
    return v;
}

/* Quantization parameters (scale, zero point) of one tensor, ONNX domain. */
typedef struct {
    int n, axis;
    float *scale;
    int32_t *zp;
    DType type;                 /* INT8 or UINT8 */
} QP;

static QP qparams(Val *sv, Val *zv, DType type, int64_t axis, const char *what)
{
    QP q = {0};
    Const *s = need_const(sv, what);
    if (s->type != DT_FLOAT32) fail("%s scale '%s' is %s, expected float", what, sv->name, dtype_name(s->type));
    if (s->n < 1 || s->rank > 1) fail("%s scale '%s' must be a scalar or a 1-D tensor", what, sv->name);
    q.n = (int)s->n;
    q.axis = (int)axis;
    q.scale = arena_alloc(sizeof(float) * (size_t)q.n);
    q.zp = arena_alloc(sizeof(int32_t) * (size_t)q.n);
    for (int i = 0; i < q.n; i++) {
        q.scale[i] = const_f(s, i);
        if (!(q.scale[i] > 0) || !isfinite(q.scale[i])) fail("%s scale '%s' has the value %g", what, sv->name, (double)q.scale[i]);
    }
    q.type = type;
    if (zv) {
        Const *z = need_const(zv, what);
        if (z->type != type) fail("%s zero point '%s' is %s, expected %s", what, zv->name, dtype_name(z->type), dtype_name(type));
        if (z->n != q.n) fail("%s zero point '%s' has %lld values for %d scales", what, zv->name, (long long)z->n, q.n);
        for (int i = 0; i < q.n; i++) q.zp[i] = (int32_t)const_int(z, i);
    }
    return q;
}

static int is8(DType t) { return t == DT_INT8 || t == DT_UINT8; }
static int32_t st_off(DType t) { return t == DT_UINT8 ? 128 : 0; }

/* Per-tensor parameters as (scale, stored zero point). */
static void per_tensor(const QP *q, const char *what, float *scale, int32_t *zp)
{
    if (q->n != 1) fail("%s must be quantized per tensor (%d scales)", what, q->n);
    *scale = q->scale[0];
    *zp = q->zp[0] - st_off(q->type);
}

/* An int8/uint8 constant as an IR int8 constant (uint8 shifted by -128). */
static int const8(Val *v, const char *name)
{
    Const *c = v->c;
    int8_t *d = arena_alloc((size_t)c->n + 1);
    for (int64_t i = 0; i < c->n; i++) d[i] = (int8_t)(c->type == DT_UINT8 ? (int)c->data[i] - 128 : (int8_t)c->data[i]);
    return const_tensor(name, DT_INT8, c->rank, c->shape, d, (size_t)c->n);
}

/* The IR tensor of an int8/uint8 activation or constant, in ONNX layout. */
static int tensor8(Val *v, const char *what)
{
    if (v->kind == V_CONST) {
        if (!is8(v->c->type)) fail("%s '%s' is %s, expected int8 or uint8", what, v->name, dtype_name(v->c->type));
        if (v->ct < 0) v->ct = const8(v, v->name);
        return v->ct;
    }
    need_tensor(v, what);
    if (!is8(v->otype)) fail("%s '%s' is %s, expected int8 or uint8", what, v->name, dtype_name(v->otype));
    return as_onnx(v);
}

static DType type8(Val *v)
{
    return v->kind == V_CONST ? v->c->type : v->otype;
}

/* A new activation value produced by the current node's output k. */
static Val *out_val(int k, DType otype, int rank, const int32_t *shape, int nhwc, DType irtype)
{
    if ((size_t)k >= NODE->n_output || !NODE->output[k][0]) fail("missing output %d", k);
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        if (shape[d] < 1) fail("output dimension %d is %d", d, shape[d]);
        n *= shape[d];
        if (n > MAX_ELEMS) fail("the output has more than %lld elements", (long long)MAX_ELEMS);
    }
    Val *v = val_new(NODE->output[k], V_TENSOR);
    v->otype = otype;
    v->rank = rank;
    memcpy(v->shape, shape, sizeof(int32_t) * (size_t)rank);
    v->nhwc = nhwc;
    int32_t ir[MAX_RANK];
    for (int d = 0; d < rank; d++) ir[d] = shape[d];
    if (nhwc) {     /* NHWC dims of an NCHW shape: N, H, W, C */
        ir[1] = shape[2];
        ir[2] = shape[3];
        ir[3] = shape[1];
    }
    v->t = new_tensor(v->name, irtype, rank, ir);
    return v;
}

/* ---- shape helpers ------------------------------------------------------------ */

static void conv_geometry(const Onnx__NodeProto *n, int in_h, int in_w, int k_h, int k_w, int *sh, int *sw, int *dh,
                          int *dw, int *pt, int *pl, int *oh, int *ow)
{
    int64_t v[8];
    int k;
    *sh = *sw = *dh = *dw = 1;
    if ((k = attr_ints(n, "strides", v, 2))) {
        if (k != 2) fail("strides must have 2 values");
        *sh = (int)v[0];
        *sw = (int)v[1];
    }
    if ((k = attr_ints(n, "dilations", v, 2))) {
        if (k != 2) fail("dilations must have 2 values");
        *dh = (int)v[0];
        *dw = (int)v[1];
    }
    if (*sh < 1 || *sw < 1 || *dh < 1 || *dw < 1 || *sh > 1024 || *sw > 1024 || *dh > 1024 || *dw > 1024)
        fail("strides and dilations must be in 1..1024");
    if ((k = attr_ints(n, "kernel_shape", v, 2)) && (k != 2 || v[0] != k_h || v[1] != k_w))
        fail("kernel_shape does not match the weights");
    int64_t pads[4] = {0, 0, 0, 0};
    const char *ap = attr_s(n, "auto_pad", "NOTSET");
    int eh = (k_h - 1) * *dh + 1, ew = (k_w - 1) * *dw + 1;
    if (!strcmp(ap, "NOTSET")) {
        if ((k = attr_ints(n, "pads", pads, 4)) && k != 4) fail("pads must have 4 values");
        for (int i = 0; i < 4; i++)
            if (pads[i] < 0 || pads[i] > 4096) fail("pads must be in 0..4096");
    } else if (!strcmp(ap, "VALID")) {
    } else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
        int ohh = (in_h + *sh - 1) / *sh, oww = (in_w + *sw - 1) / *sw;
        int th = (ohh - 1) * *sh + eh - in_h, tw = (oww - 1) * *sw + ew - in_w;
        if (th < 0) th = 0;
        if (tw < 0) tw = 0;
        int upper = !strcmp(ap, "SAME_UPPER");
        pads[0] = upper ? th / 2 : th - th / 2;
        pads[2] = th - pads[0];
        pads[1] = upper ? tw / 2 : tw - tw / 2;
        pads[3] = tw - pads[1];
    } else fail("auto_pad '%s' is not supported", ap);
    *pt = (int)pads[0];
    *pl = (int)pads[1];
    int64_t hh = in_h + pads[0] + pads[2] - eh, ww = in_w + pads[1] + pads[3] - ew;
    if (hh < 0 || ww < 0) fail("the kernel (%dx%d) is larger than the padded input (%dx%d)", eh, ew, in_h, in_w);
    *oh = (int)(hh / *sh + 1);
    *ow = (int)(ww / *sw + 1);
}

/* ---- builders: one integer op each ------------------------------------------ */

/* Remembers the first op with uint8 activations (as onnxruntime runs it)
   and int8 weights: onnxruntime's u8s8 kernels saturate on x86-64 without
   VNNI, so its answer for such a model depends on the CPU. */
static void note_u8s8(const QP *xq, DType wtype)
{
    if (!U8S8_NODE && xq->type == DT_UINT8 && wtype == DT_INT8)
        U8S8_NODE = arena_printf("node %d '%s' (%s)", NODE_INDEX, NODE->name ? NODE->name : "", NODE->op_type);
}

const char *onnx_u8s8_note(void)
{
    if (!U8S8_NODE) return NULL;
    return arena_printf("%s multiplies uint8 activations by int8 weights: these outputs are the exact integer "
                        "sums, which onnxruntime computes with VNNI or on Arm64; on x86-64 without VNNI its u8s8 "
                        "kernels saturate pairs of products to 16 bits and its answer may differ (docs/models.md, \"Which "
                        "onnxruntime answer\")", U8S8_NODE);
}

/* float(a * b) / c, in float as onnxruntime computes x_scale * w_scale / y_scale */
static float scale3(float a, float b, float c)
{
    volatile float t = a * b;
    volatile float r = t / c;
    return r;
}

/* int32 bias [n] or NULL */
static int bias32(Val *bv, int n)
{
    if (!bv) return -1;
    Const *b = need_const(bv, "bias");
    if (b->type != DT_INT32) fail("bias '%s' is %s, expected int32", bv->name, dtype_name(b->type));
    if (b->n != n) fail("bias '%s' has %lld values, expected %d", bv->name, (long long)b->n, n);
    int32_t s[1] = {n};
    return const_tensor(arena_printf("%s.bias", bv->name), DT_INT32, 1, s, b->data, (size_t)n * 4);
}

/* Weight zero points, stored domain, [n] or [1]; -1 when all zero. */
static int wzp_tensor(const QP *w, const char *name, int n)
{
    int any = 0;
    int32_t *z = arena_alloc(sizeof(int32_t) * (size_t)w->n);
    for (int i = 0; i < w->n; i++) {
        z[i] = w->zp[i] - st_off(w->type);
        any |= z[i] != 0;
    }
    if (!any) return -1;
    int32_t s[1] = {w->n};
    (void)n;
    return const_tensor(arena_printf("%s.zero_point", name), DT_INT32, 1, s, z, 4 * (size_t)w->n);
}

/* Conv: x (activation) with constant weights W [M, C/group, kh, kw].
   y == NULL: int32 accumulator output (ConvInteger). alpha scales x*w. */
static void build_conv(Val *x, const QP *xq, Val *wv, const QP *wq, Val *bv, const QP *yq, DType ytype)
{
    Const *w = need_const(wv, "weights");
    if (!is8(w->type)) fail("weights '%s' are %s, expected int8 or uint8", wv->name, dtype_name(w->type));
    if (x->kind != V_TENSOR || !is8(x->otype)) fail("input '%s' must be an int8 or uint8 activation", x->name);
    if (x->rank != 4) fail("input '%s' has rank %d; only 2-D convolution (4-D NCHW input) is supported", x->name, x->rank);
    if (w->rank != 4) fail("weights '%s' have rank %d, expected 4", wv->name, w->rank);
    int M = w->shape[0], cg = w->shape[1], kh = w->shape[2], kw = w->shape[3];
    int N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    int64_t group = attr_i(NODE, "group", 1);
    if (group < 1 || C % group || cg * group != C || M % group)
        fail("group %lld does not fit %d input channels, weights [%d, %d, ...] and %d filters", (long long)group, C, M, cg, M);
    if (kh < 1 || kw < 1 || M < 1) fail("empty weights");
    if (wq->n != 1 && wq->n != M) fail("weights have %d scales for %d filters", wq->n, M);
    if (wq->n > 1 && wq->axis != 0) fail("per-channel weight scales must be on axis 0");
    int sh, sw, dh, dw, pt, pl, oh, ow;
    conv_geometry(NODE, H, W, kh, kw, &sh, &sw, &dh, &dw, &pt, &pl, &oh, &ow);
    float xs;
    int32_t xzp;
    per_tensor(xq, "input", &xs, &xzp);
    note_u8s8(xq, w->type);
    int32_t oshape[4] = {N, M, oh, ow};
    Val *y = out_val(0, yq ? yq->type : DT_INT32, 4, oshape, 1, yq ? DT_INT8 : DT_INT32);
    (void)ytype;
    int xin = as_nhwc(x);

    /* weights [M][cg][kh][kw] -> [M][kh][kw][cg], int8 storage */
    int8_t *wt = arena_alloc((size_t)w->n);
    for (int m = 0; m < M; m++)
        for (int c = 0; c < cg; c++)
            for (int i = 0; i < kh; i++)
                for (int j = 0; j < kw; j++) {
                    size_t src = (((size_t)m * cg + c) * kh + i) * kw + j, dst = (((size_t)m * kh + i) * kw + j) * cg + c;
                    int v = w->type == DT_UINT8 ? (int)w->data[src] - 128 : (int8_t)w->data[src];
                    wt[dst] = (int8_t)v;
                }
    int32_t ws[4] = {M, kh, kw, cg};
    int wt_t = const_tensor(arena_printf("%s.ohwi", wv->name), DT_INT8, 4, ws, wt, (size_t)w->n);

    Op *op = new_op(OP_CONV2D, xin, y->t);
    op->nin = 4;
    op->in[1] = wt_t;
    op->in[2] = bias32(bv, M);
    op->in[3] = wzp_tensor(wq, wv->name, M);
    htc__qconv_params *p = params(op, sizeof *p, "htc__qconv_params");
    p->batches = N; p->in_h = H; p->in_w = W; p->in_c = C;
    p->out_h = oh; p->out_w = ow; p->out_c = M;
    p->k_h = kh; p->k_w = kw; p->stride_h = sh; p->stride_w = sw; p->dil_h = dh; p->dil_w = dw;
    p->pad_top = pt; p->pad_left = pl;
    p->group_in = cg; p->group_out = (int32_t)(M / group);
    p->in_zp = xzp;
    p->per_channel = wq->n > 1;
    p->qmin = -128; p->qmax = 127;
    op->stride_h = sh; op->stride_w = sw; op->dil_h = dh; op->dil_w = dw;
    op->k_h = kh; op->k_w = kw;
    op->pad_top = pt; op->pad_left = pl;
    op->depth_mult = cg == 1 ? (int)(M / group) : 0;
    op->macs = (int64_t)N * oh * ow * M * kh * kw * cg;
    op->batches = N; op->in_h = H; op->in_w = W; op->in_c = C;
    op->out_h = oh; op->out_w = ow; op->out_c = M;
    op->groups = (int)group;
    op->depthwise = cg == 1 && group == C && C > 1;
    op->has_w_zp = op->in[3] >= 0;
    op->in_zp = xzp;
    op->act_min = -128; op->act_max = 127;
    if (yq) {
        float ys;
        int32_t yzp;
        per_tensor(yq, "output", &ys, &yzp);
        p->out_zp = yzp;
        float *sc = arena_alloc(sizeof(float) * (size_t)wq->n);
        for (int i = 0; i < wq->n; i++) sc[i] = scale3(xs, wq->scale[i], ys);
        p->scale = sc;
        op->fscale = sc;
        op->out_zp = yzp;
        op->rq = RQ_FLOAT;
        op->nch = wq->n;
        op->variant = "_s8";
        set_quant(y->t, ys, yzp);
    } else {
        op->int32_out = 1;
        op->variant = "_s32";
    }
}

/* MatMul / Gemm: a [..., M, K] x b constant [K, N] (or [batch, K, N];
   trans_b: [N, K]). Output [..., M, N]. */
static void build_matmul(Val *a, const QP *aq, Val *bv, const QP *bq, Val *cv, const QP *yq, int trans_b, float alpha)
{
    Const *b = need_const(bv, "weights");
    if (!is8(b->type)) fail("weights '%s' are %s, expected int8 or uint8", bv->name, dtype_name(b->type));
    if (a->rank < 2) fail("input '%s' must have rank >= 2", a->name);
    if (b->rank < 2 || b->rank > 3) fail("weights '%s' must have rank 2 or 3", bv->name);
    int K = a->shape[a->rank - 1], Mr = a->shape[a->rank - 2];
    int64_t batches = shape_numel(a->shape, a->rank - 2);
    int wb = b->rank == 3 ? b->shape[0] : 1;
    int bk = b->shape[b->rank - (trans_b ? 1 : 2)], N = b->shape[b->rank - (trans_b ? 2 : 1)];
    if (bk != K) fail("inner dimensions differ: '%s' has %d, '%s' has %d", a->name, K, bv->name, bk);
    if (wb != 1 && wb != batches) fail("weights '%s' have %d batches for %lld", bv->name, wb, (long long)batches);
    if (bq->n != 1 && bq->n != N) fail("weights have %d scales for %d columns", bq->n, N);
    float as;
    int32_t azp;
    per_tensor(aq, "input", &as, &azp);
    note_u8s8(aq, b->type);
    int32_t oshape[MAX_RANK];
    memcpy(oshape, a->shape, sizeof(int32_t) * (size_t)a->rank);
    oshape[a->rank - 1] = N;
    int ain = tensor8(a, "input");
    Val *y = out_val(0, yq ? yq->type : DT_INT32, a->rank, oshape, 0, yq ? DT_INT8 : DT_INT32);

    /* weights -> [wb][N][K] int8 */
    int8_t *wt = arena_alloc((size_t)b->n + 1);
    for (int bb = 0; bb < wb; bb++)
        for (int n = 0; n < N; n++)
            for (int k = 0; k < K; k++) {
                size_t src = (size_t)bb * K * N + (trans_b ? (size_t)n * K + k : (size_t)k * N + n);
                int v = b->type == DT_UINT8 ? (int)b->data[src] - 128 : (int8_t)b->data[src];
                wt[((size_t)bb * N + n) * K + k] = (int8_t)v;
            }
    int32_t ws[3] = {wb, N, K};
    int wt_t = const_tensor(arena_printf("%s.nk", bv->name), DT_INT8, 3, ws, wt, (size_t)b->n);
    Op *op = new_op(OP_FC, ain, y->t);
    op->nin = 4;
    op->in[1] = wt_t;
    op->in[2] = bias32(cv, N);
    op->in[3] = wzp_tensor(bq, bv->name, N);
    htc__qfc_params *p = params(op, sizeof *p, "htc__qfc_params");
    p->batches = (int32_t)batches;
    p->rows = Mr;
    p->in_features = K;
    p->out_features = N;
    p->w_batches = wb;
    p->in_zp = azp;
    p->qmin = -128;
    p->qmax = 127;
    p->per_channel = bq->n > 1;
    op->macs = batches * Mr * (int64_t)N * K;
    op->batches = (int)(batches * Mr);
    op->in_c = K;
    op->out_c = N;
    op->w_batches = wb;
    op->has_w_zp = op->in[3] >= 0;
    op->in_zp = azp;
    op->act_min = -128; op->act_max = 127;
    if (yq) {
        float ys;
        int32_t yzp;
        per_tensor(yq, "output", &ys, &yzp);
        p->out_zp = yzp;
        float *sc = arena_alloc(sizeof(float) * (size_t)bq->n);
        for (int i = 0; i < bq->n; i++) {
            if (alpha == 1.0f) {
                sc[i] = scale3(as, bq->scale[i], ys);
            } else {       /* QGemm: alpha * a_scale * b_scale / y_scale */
                volatile float t = alpha * as;
                sc[i] = scale3(t, bq->scale[i], ys);
            }
        }
        p->scale = sc;
        op->fscale = sc;
        op->out_zp = yzp;
        op->rq = RQ_FLOAT;
        op->nch = bq->n;
        op->variant = "_s8";
        set_quant(y->t, ys, yzp);
    } else {
        op->int32_out = 1;
        op->variant = "_s32";
    }
}

/* Shapes equal once leading 1s are dropped: the same elements in the same
   order ([1, N] and [N]). */
static int same_elems(const int32_t *a, int ra, const int32_t *b, int rb)
{
    while (ra > 0 && a[0] == 1) a++, ra--;
    while (rb > 0 && b[0] == 1) b++, rb--;
    return ra == rb && !memcmp(a, b, sizeof(int32_t) * (size_t)ra);
}

static const int32_t *vshape0(Val *v, int *rank)
{
    if (v->kind == V_CONST) {
        *rank = v->c->rank;
        return v->c->shape;
    }
    *rank = v->rank;
    return v->shape;
}

/* QLinearAdd: equal shapes, or one operand with a single element. */
static void build_add(Val *a, const QP *aq, Val *b, const QP *bq, const QP *cq)
{
    float as, bs, cs;
    int32_t azs, bzs, czs;
    per_tensor(aq, "A", &as, &azs);
    per_tensor(bq, "B", &bs, &bzs);
    per_tensor(cq, "C", &cs, &czs);
    int64_t na = a->kind == V_CONST ? a->c->n : shape_numel(a->shape, a->rank);
    int64_t nb = b->kind == V_CONST ? b->c->n : shape_numel(b->shape, b->rank);
    const int32_t *sa = a->kind == V_CONST ? a->c->shape : a->shape, *sb = b->kind == V_CONST ? b->c->shape : b->shape;
    int rka = a->kind == V_CONST ? a->c->rank : a->rank, rkb = b->kind == V_CONST ? b->c->rank : b->rank;
    Val *big = na > nb || (na == nb && (b->kind == V_CONST || (a->kind != V_CONST && rka >= rkb))) ? a : b;
    int same = rka == rkb && !memcmp(sa, sb, sizeof(int32_t) * (size_t)rka);
    if (!same && na != 1 && nb != 1 && !same_elems(sa, rka, sb, rkb))
        fail("broadcasting '%s' and '%s' is not supported (only equal shapes or a single element)", a->name, b->name);
    int ta, tb, nhwc = 0;
    if (same && a->kind == V_TENSOR && b->kind == V_TENSOR && a->nhwc && b->nhwc) {
        ta = a->t;
        tb = b->t;
        nhwc = 1;
    } else if (same && a->kind == V_TENSOR && a->nhwc && b->kind == V_TENSOR && b->rank == 4) {
        ta = a->t;
        tb = as_nhwc(b);
        nhwc = 1;
    } else {
        ta = tensor8(a, "A");
        tb = tensor8(b, "B");
    }
    if (big->kind == V_CONST) fail("both operands are constants");
    const int32_t *os = big->kind == V_CONST ? big->c->shape : big->shape;
    int orank = big->kind == V_CONST ? big->c->rank : big->rank;
    Val *y = out_val(0, cq->type, orank, os, nhwc, DT_INT8);
    Op *op = new_op(OP_ADD, ta, y->t);
    op->nin = 2;
    op->in[1] = tb;
    htc__qbinary_params *p = params(op, sizeof *p, "htc__qbinary_params");
    p->size = (int32_t)(na > nb ? na : nb);
    p->a_scalar = na == 1 && nb != 1;
    p->b_scalar = nb == 1 && na != 1;
    op->broadcast = p->a_scalar || p->b_scalar;
    p->a_off = st_off(aq->type);
    p->b_off = st_off(bq->type);
    p->out_off = st_off(cq->type);
    p->a_zp = aq->zp[0];
    p->b_zp = bq->zp[0];
    p->qmin = cq->type == DT_UINT8 ? 0 : -128;
    p->qmax = cq->type == DT_UINT8 ? 255 : 127;
    /* MlasQLinearAddKernelAvx2Helper: its fixed part ZeroPointC -
       (ScaleRatio_AC * ZeroPointA + ScaleRatio_BC * ZeroPointB) is compiled
       (x86-64, FMA) as zpC - fma(ra, zpA, rb * zpB) */
    volatile float ra = as / cs, rb = bs / cs;
    volatile float zb = rb * (float)bq->zp[0];
    volatile float zsum = fmaf(ra, (float)aq->zp[0], zb);
    p->ra = ra;
    p->rb = rb;
    p->fixed = (float)cq->zp[0] - zsum;
    op->rq = RQ_FLOAT;
    op->nch = 1;
    set_quant(y->t, cs, czs);
}

static void build_gap(Val *x, const QP *xq, const QP *yq, int channels_last)
{
    float xs, ys;
    int32_t xzp, yzp;
    per_tensor(xq, "input", &xs, &xzp);
    per_tensor(yq, "output", &ys, &yzp);
    if (x->rank != 4) fail("input '%s' has rank %d, expected 4", x->name, x->rank);
    int xin, N = x->shape[0], C, H, W;
    int32_t oshape[4];
    Val *y;
    if (channels_last) {
        xin = tensor8(x, "input");
        H = x->shape[1]; W = x->shape[2]; C = x->shape[3];
        int32_t s[4] = {N, 1, 1, C};
        memcpy(oshape, s, sizeof s);
        y = out_val(0, yq->type, 4, oshape, 0, DT_INT8);
    } else {
        if (x->kind == V_CONST) fail("constant input");
        need_tensor(x, "input");
        xin = as_nhwc(x);
        C = x->shape[1]; H = x->shape[2]; W = x->shape[3];
        int32_t s[4] = {N, C, 1, 1};
        memcpy(oshape, s, sizeof s);
        y = out_val(0, yq->type, 4, oshape, 1, DT_INT8);
    }
    int64_t hw = (int64_t)H * W;
    if (hw < 1 || hw >= 0x1000000) fail("image size %lld is out of onnxruntime's range", (long long)hw);
    volatile float den = ys * (float)hw;
    volatile float scale = xs / den;
    if (scale < 0x1.0p-32f || scale >= 256.0f) fail("x_scale / y_scale is out of onnxruntime's range");
    Op *op = new_op(OP_AVGPOOL, xin, y->t);
    htc__qgap_params *p = params(op, sizeof *p, "htc__qgap_params");
    p->batches = N;
    p->hw = (int32_t)hw;
    p->c = C;
    p->bias = -xzp * (int32_t)hw;
    p->out_zp = yzp;
    p->qmin = -128;
    p->qmax = 127;
    p->scale = scale;
    op->rq = RQ_FLOAT;
    op->nch = 1;
    op->macs = (int64_t)N * hw * C;
    op->global = 1;
    op->batches = N; op->in_h = H; op->in_w = W; op->in_c = op->out_c = C;
    op->out_h = op->out_w = 1;
    op->k_h = H; op->k_w = W;
    op->stride_h = op->stride_w = 1;
    op->in_zp = xzp; op->out_zp = yzp;
    op->act_min = -128; op->act_max = 127;
    op->fscale = &p->scale;
    set_quant(y->t, ys, yzp);
}

/* ---- float arithmetic of onnxruntime at compile time (tables) ------------- */

/* QuantizeLinear of one float (MlasQuantizeLinear): x / scale, clamped to
   [qmin - zp, qmax - zp], rounded half to even, + zp. */
static int32_t ort_quantize(float x, float scale, int32_t zp, int32_t qmin, int32_t qmax)
{
    volatile float v = x / scale;
    float lo = (float)(qmin - zp), hi = (float)(qmax - zp), t = v;
    t = t > lo ? t : lo;
    t = t < hi ? t : hi;
    return (int32_t)nearbyintf(t) + zp;
}

static float ort_dequantize(int32_t q, float scale, int32_t zp)
{
    volatile float v = (float)(q - zp) * scale;
    return v;
}

/* A byte table from an int8-stored input to an int8-stored output. */
typedef float (*UnaryF)(float x, const float *arg);

static float f_identity(float x, const float *arg) { (void)arg; return x; }
static float f_relu(float x, const float *arg) { (void)arg; return x > 0 ? x : 0; }
static float f_clip(float x, const float *arg) { return x < arg[0] ? arg[0] : (x > arg[1] ? arg[1] : x); }

static void lut_op(int in, DType in_type, float xs, int32_t xzp, DType out_type, float ys, int32_t yzp, UnaryF f,
                   const float *arg, int out)
{
    Op *op = new_op(OP_TABLE, in, out);
    htc__lut_params *p = params(op, sizeof *p, "htc__lut_params");
    p->size = (int32_t)tensor_numel(&G->tensors[out]);
    if (tensor_numel(&G->tensors[in]) != p->size) fail("internal: table sizes differ");
    int32_t qmin = out_type == DT_UINT8 ? 0 : -128, qmax = out_type == DT_UINT8 ? 255 : 127;
    for (int s = -128; s < 128; s++) {
        int32_t raw = s + st_off(in_type);
        float x = ort_dequantize(raw, xs, xzp);
        int32_t q = ort_quantize(f(x, arg), ys, yzp, qmin, qmax);
        p->lut[(uint8_t)(int8_t)s] = (uint8_t)(int8_t)(q - st_off(out_type));
    }
    set_quant(out, ys, yzp - st_off(out_type));
}

/* ---- graph inputs and outputs -------------------------------------------- */

/* uint8 <-> int8 storage: a byte table (xor 0x80) */
static int xor_op(int in, DType out_type, const char *name)
{
    Tensor tin = G->tensors[in];
    const Tensor *t = &tin;
    int out = new_tensor(name, out_type, t->rank, t->shape);
    G->tensors[out].q = t->q;
    Op *op = new_op(OP_TABLE, in, out);
    htc__lut_params *p = params(op, sizeof *p, "htc__lut_params");
    p->size = (int32_t)tensor_numel(t);
    for (int i = 0; i < 256; i++) p->lut[i] = (uint8_t)(i ^ 0x80);
    return out;
}

/* The type and shape of graph input vi. A symbolic dimension (dim_param,
   e.g. tf2onnx's 'unk__232' for Keras's None batch, or no value at all) takes
   its value from --shape NAME=DIMS, else 1 with a note; --shape must agree
   with every fixed dimension. */
static int parse_dims(const Onnx__ValueInfoProto *vi, const char *what, DType *dt, int32_t *shape)
{
    if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type)
        fail("%s '%s' is not a tensor", what, vi->name);
    const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
    if (!tt->has_elem_type || !dtype_of(tt->elem_type, dt))
        fail("%s '%s' has type %s, which htc does not support", what, vi->name, otype_name(tt->has_elem_type ? tt->elem_type : 0));
    int orank;
    const int64_t *opt = readopt_shape_of(OPTS, SHAPE_USED, vi->name, &orank);
    if (!tt->shape && !opt) fail("%s '%s' has no shape (give it with --shape %s=DIMS)", what, vi->name, vi->name);
    int rank = tt->shape ? (int)(tt->shape->n_dim < MAX_RANK + 1 ? tt->shape->n_dim : MAX_RANK + 1) : orank;
    if (tt->shape && tt->shape->n_dim > MAX_RANK)
        fail("%s '%s' has rank %zu (at most %d)", what, vi->name, tt->shape->n_dim, MAX_RANK);
    if (opt && orank != rank)
        fail("--shape %s: %d dimensions, %s '%s' has rank %d", vi->name, orank, what, vi->name, rank);
    char sym[256] = "";
    size_t sl = 0;
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        const Onnx__TensorShapeProto__Dimension *dim = tt->shape ? tt->shape->dim[d] : NULL;
        int64_t v;
        if (dim && dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (dim->dim_value < 1 || dim->dim_value > INT32_MAX)
                fail("%s '%s' has dimension %d of size %lld", what, vi->name, d, (long long)dim->dim_value);
            v = dim->dim_value;
            if (opt && opt[d] != v)
                fail("--shape %s: dimension %d is %lld, the model fixes it at %lld", vi->name, d, (long long)opt[d],
                     (long long)v);
        } else {
            const char *pn = dim && dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dim->dim_param
                                 ? dim->dim_param : "?";
            v = opt ? opt[d] : 1;
            if (sl < sizeof sym - 1)
                sl += (size_t)snprintf(sym + sl, sizeof sym - sl, "%s%d ('%.40s')", sl ? ", " : "", d, pn);
        }
        shape[d] = (int32_t)v;
        n *= v;
        if (n > MAX_ELEMS)
            fail("%s '%s' is too large: its first %d dimensions hold %lld elements, at most %lld", what, vi->name,
                 d + 1, (long long)n, (long long)MAX_ELEMS);
    }
    if (sl && !opt) {
        char dims[128] = "";
        size_t k = 0;
        for (int d = 0; d < rank && k < sizeof dims - 12; d++) k += (size_t)snprintf(dims + k, sizeof dims - k, "%s%d", d ? "x" : "", shape[d]);
        graph_note(G, "%s: %s '%s' has symbolic dimension%s %s: compiled as %s (set it with --shape %s=DIMS)", PATH, what,
                   vi->name, strchr(sym, ',') ? "s" : "", sym, dims, vi->name);
    }
    return rank;
}

static Const *load_binding(const InputBinding *b, const Onnx__ValueInfoProto *vi)
{
    DType dt;
    int32_t shape[MAX_RANK];
    int rank = parse_dims(vi, "graph input", &dt, shape);
    size_t len;
    uint8_t *buf = read_file(b->file, &len);
    size_t bl = strlen(b->file);
    if (bl > 3 && !strcmp(b->file + bl - 3, ".pb")) {
        const char *e = wire_check(buf, len, &onnx__tensor_proto__descriptor, 0);
        if (e) die("%s: not a TensorProto: %s", b->file, e);
        Onnx__TensorProto *t = onnx__tensor_proto__unpack(&pb_arena, len, buf);
        if (!t) die("%s: not a valid TensorProto", b->file);
        Const *c = tensor_const(t, arena_printf("--bind %s=%s", b->name, b->file));
        onnx__tensor_proto__free_unpacked(t, &pb_arena);
        if (c->type != dt) die("%s: tensor is %s, graph input '%s' is %s", b->file, dtype_name(c->type), b->name, dtype_name(dt));
        if (c->n != shape_numel(shape, rank))
            die("%s: tensor has %lld elements, graph input '%s' has %lld", b->file, (long long)c->n, b->name,
                (long long)shape_numel(shape, rank));
        c->rank = rank;
        memcpy(c->shape, shape, sizeof shape);
        return c;
    }
    Const *c = arena_alloc(sizeof *c);
    c->type = dt;
    c->rank = rank;
    memcpy(c->shape, shape, sizeof shape);
    c->n = shape_numel(shape, rank);
    if (len != (size_t)c->n * dtype_size(dt))
        die("%s: %zu bytes, graph input '%s' (%s, %lld elements) needs %zu", b->file, len, b->name, dtype_name(dt),
            (long long)c->n, (size_t)c->n * dtype_size(dt));
    c->data = buf;
    return c;
}

/* ---- node handlers ------------------------------------------------------------- */

static QP qp_of_dq(const Val *v)
{
    QP q;
    q.n = v->qn;
    q.axis = v->qaxis;
    q.scale = v->qscale;
    q.zp = v->qzp;
    q.type = type8(v->src);
    return q;
}

/* QuantizeLinear / DequantizeLinear parameters of the current node. */
static QP node_qp(Val *x, int is_q, Val **zv_out)
{
    Val *sv = input(1, "scale"), *zv = opt_input(2);
    DType t = DT_UINT8;
    if (zv) {
        Const *z = need_const(zv, "zero point");
        t = z->type;
    } else if (!is_q) {
        t = type8(x);
    } else if (attr(NODE, "output_dtype")) {
        int64_t od = attr_i(NODE, "output_dtype", 0);
        if (!dtype_of((int)od, &t)) fail("output_dtype %s is not supported", otype_name((int)od));
    }
    if (attr_i(NODE, "block_size", 0) != 0) fail("blocked quantization is not supported");
    if (!is8(t)) fail("quantization to %s is not supported (int8 and uint8 only)", dtype_name(t));
    int rank = x->kind == V_CONST ? x->c->rank : x->rank;
    int64_t axis = attr_i(NODE, "axis", 1);
    if (axis < 0) axis += rank;
    QP q = qparams(sv, zv, t, axis, is_q ? "QuantizeLinear" : "DequantizeLinear");
    if (q.n > 1) {
        const int32_t *s = x->kind == V_CONST ? x->c->shape : x->shape;
        if (axis < 0 || axis >= rank || s[axis] != q.n) fail("%d scales do not match axis %lld of the input", q.n, (long long)axis);
    }
    if (zv_out) *zv_out = zv;
    return q;
}

static void qlinear_params(Op *op, Val *x, const QP *q, int nhwc)
{
    htc__qlinear_params *p = params(op, sizeof *p, "htc__qlinear_params");
    op->rq = RQ_FLOAT;                  /* onnxruntime's float scale, round half to even */
    op->nch = q->n;
    p->size = (int32_t)shape_numel(x->shape, x->rank);
    p->channels = q->n;
    p->inner = 1;
    p->qmin = -128;
    p->qmax = 127;
    if (q->n > 1) {
        int axis = q->axis;
        const int32_t *s = x->shape;
        if (nhwc) {   /* NHWC order of an NCHW value: channel axis 1 is last */
            static const int pos[4] = {0, 3, 1, 2};
            int32_t ir[4] = {s[0], s[2], s[3], s[1]};
            axis = pos[axis];
            for (int d = axis + 1; d < 4; d++) p->inner *= ir[d];
        } else {
            for (int d = axis + 1; d < x->rank; d++) p->inner *= s[d];
        }
    }
    float *sc = arena_alloc(sizeof(float) * (size_t)q->n);
    int32_t *zp = arena_alloc(sizeof(int32_t) * (size_t)q->n);
    for (int i = 0; i < q->n; i++) {
        sc[i] = q->scale[i];
        zp[i] = q->zp[i] - st_off(q->type);
    }
    p->scale = sc;
    p->zp = zp;
    op->rq = RQ_FLOAT;
    op->nch = q->n;
}

static void ort_dq(Val *v, const Onnx__NodeProto *dq, Val *src);

static void h_dequantize(void)
{
    Val *x = input(0, "x");
    if (x->kind == V_DQ || x->kind == V_FLOAT) need_tensor(x, "input");
    if (x->kind == V_CONST && x->c->type == DT_INT32) {
        /* a quantized bias: kept symbolic for the Conv/Gemm that reads it */
    } else if (!is8(type8(x))) {
        fail("input '%s' is %s; only int8 and uint8 are supported", x->name, dtype_name(type8(x)));
    }
    Val *zv;
    QP q;
    if (x->kind == V_CONST && x->c->type == DT_INT32) {
        Val *sv = input(1, "scale");
        zv = opt_input(2);
        Const *s = need_const(sv, "scale");
        if (s->type != DT_FLOAT32) fail("scale must be float");
        q.n = (int)s->n;
        q.scale = (float *)(void *)s->data;
        q.zp = NULL;
        q.axis = 0;
        q.type = DT_INT32;
        if (zv) {
            Const *z = need_const(zv, "zero point");
            for (int64_t i = 0; i < z->n; i++)
                if (const_int(z, i) != 0) fail("int32 bias '%s' has a non-zero zero point", x->name);
        }
    } else {
        q = node_qp(x, 0, &zv);
    }
    if ((size_t)0 >= NODE->n_output || !NODE->output[0][0]) fail("missing output");
    Val *v = val_new(NODE->output[0], V_DQ);
    v->src = x;
    v->qn = q.n;
    v->qaxis = q.axis;
    v->qscale = q.scale;
    v->qzp = q.zp;
    v->node = NODE;
    v->node_index = NODE_INDEX;
    v->rank = x->kind == V_CONST ? x->c->rank : x->rank;
    memcpy(v->shape, x->kind == V_CONST ? x->c->shape : x->shape, sizeof v->shape);
    ort_dq(v, NODE, x);
}

/* Materialise a V_DQ as a float tensor (DequantizeLinear op). */
static int dq_tensor(Val *v)
{
    Val *x = v->src;
    if (x->kind != V_TENSOR) fail("DequantizeLinear of constant '%s' is a float constant; htc compiles integer graphs", x->name);
    const Onnx__NodeProto *save = NODE;
    int save_i = NODE_INDEX;
    NODE = v->node;
    NODE_INDEX = v->node_index;
    QP q = qp_of_dq(v);
    int nhwc = x->nhwc && q.n > 1;
    int in = nhwc ? x->t : as_onnx(x);
    int32_t ir[MAX_RANK];
    memcpy(ir, G->tensors[in].shape, sizeof ir);
    int out = new_tensor(v->name, DT_FLOAT32, x->rank, ir);
    Op *op = new_op(OP_DEQUANTIZE, in, out);
    qlinear_params(op, x, &q, nhwc);
    if (nhwc) out = transpose(out, TO_NCHW, 4, "nchw");
    NODE = save;
    NODE_INDEX = save_i;
    return out;
}

static void build_mul(Val *a, const QP *aq, Val *b, const QP *bq, const QP *cq);
static void build_avgpool(Val *x, const QP *xq, const QP *yq, int channels_last, int float_pool);
static void build_softmax(Val *x, const QP *xq, const QP *yq, int64_t axis, int opset);
static int softmax_rows(Val *x, int64_t axis, int opset, int *nhwc, int64_t *depth);
static void build_unary(Val *x, const QP *xq, const QP *yq, UnaryF f, const float *arg);
static void build_concat(Val **xs, const QP *xq, int n, const QP *yq, int64_t axis);
static void build_pad(Val *x, int32_t value_stored);
static float f_logistic(float x, const float *arg);
static float f_leaky(float x, const float *arg);
static int is_onnx_domain(const char *d);

static int table_op(const char *op)
{
    /* Relu, Clip, Identity, LeakyRelu, Sigmoid: onnxruntime's float
       evaluation (DequantizeLinear, the op, QuantizeLinear) is exactly the
       table htc builds, fused or not; Pad and Concat move dequantized values
       and requantize them as htc's tables do */
    return !strcmp(op, "Relu") || !strcmp(op, "Clip") || !strcmp(op, "Identity") || !strcmp(op, "LeakyRelu") ||
           !strcmp(op, "Sigmoid") || !strcmp(op, "Pad") || !strcmp(op, "Concat");
}

/* Do QuantizeLinear nodes a and b have the same scale and zero point? */
static int same_q_params(const Onnx__NodeProto *a, const Onnx__NodeProto *b)
{
    for (size_t i = 1; i < 3; i++) {
        const char *na = i < a->n_input ? a->input[i] : "", *nb = i < b->n_input ? b->input[i] : "";
        if (!strcmp(na, nb)) continue;
        Val *va = *na ? val_find(na) : NULL, *vb = *nb ? val_find(nb) : NULL;
        if (!va || !vb || va->kind != V_CONST || vb->kind != V_CONST) return 0;
        if (va->c->type != vb->c->type || va->c->n != vb->c->n ||
            memcmp(va->c->data, vb->c->data, (size_t)va->c->n * dtype_size(va->c->type)))
            return 0;
    }
    return 1;
}

/* ---- onnxruntime's view of a QDQ graph (1.31, x86-64, CPU provider) -------

   Whether onnxruntime fuses a QDQ group into an integer kernel, and with
   which element types, follows from its graph optimizers:
   - level 1: Identity nodes go; common subexpression elimination merges
     QuantizeLinear nodes that read one value with parameters of equal
     value; MatMul + Add becomes Gemm; a DequantizeLinear read by several
     nodes is duplicated, one per consumer; a DequantizeLinear moves
     forward across Reshape,
     Transpose, Squeeze, Unsqueeze and MaxPool (QDQPropagationTransformer
     inserts a QuantizeLinear/DequantizeLinear pair after each; not Flatten);
   - level 2, QDQS8ToU8Transformer (x86-64 allows no int8 activations in
     its QDQ kernels): an int8 QuantizeLinear whose one consumer is a
     DequantizeLinear, both with explicit int8 zero points of equal value,
     becomes uint8 (zero point + 128); constants keep their type;
   - then the QDQ selectors fuse DequantizeLinear(s) -> op -> QuantizeLinear
     when every input is a DequantizeLinear, the result is read by one
     QuantizeLinear and by nothing else, and the
     element types fit: Conv and MatMul need uint8 activations, Gemm int8
     activations only with int8 weights, and every op has the same type in
     and out.
   htc fuses exactly these groups, with the fused kernels' arithmetic on
   these types, and refuses the others (or computes them in float with
   --float-fallback). */

static int op_is(const Onnx__NodeProto *n, const char *op)
{
    return n->op_type && !strcmp(n->op_type, op);
}

static int is_q(const Onnx__NodeProto *n) { return op_is(n, "QuantizeLinear"); }
static int is_dq(const Onnx__NodeProto *n) { return op_is(n, "DequantizeLinear"); }

static int is_graph_output(const char *name)
{
    const Name *e = name_get(name, 0);
    return e && e->nout;
}

/* One node after common subexpression elimination: QuantizeLinear or
   DequantizeLinear nodes a and b reading the same value with equal
   parameters. */
static int same_qdq(const Onnx__NodeProto *a, const Onnx__NodeProto *b)
{
    return a == b || (a->op_type && b->op_type && !strcmp(a->op_type, b->op_type) && a->n_input && b->n_input &&
                      !strcmp(a->input[0], b->input[0]) && same_q_params(a, b) &&
                      attr_i(a, "axis", 1) == attr_i(b, "axis", 1));
}

/* The consumers of a value in onnxruntime's graph (edges), Identity nodes
   looked through, a DequantizeLinear counted once per node it feeds. */
typedef struct {
    int n, nq, ndq, out;                /* consumers, of them QuantizeLinear, DequantizeLinear; graph output */
    const Onnx__NodeProto *dq;          /* a DequantizeLinear consumer */
} Readers;

static void readers_add(Readers *r, const char *name, int depth)
{
    r->out |= is_graph_output(name);
    const Name *e = name_get(name, 0);
    for (int u = 0; e && u < e->nuse; u++) {
        const Onnx__NodeProto *m = GR->node[e->use[u].node];
        if (op_is(m, "Identity") && m->n_output && depth < 32) {
            readers_add(r, m->output[0], depth + 1);
            continue;
        }
        if (is_dq(m) && m->n_output && depth < 32) {
            /* EnsureUniqueDQForNodeUnit: one DequantizeLinear per
               consumer (and one more for a graph output) */
            Readers d = {0};
            readers_add(&d, m->output[0], depth + 1);
            int k = d.n + (d.out && d.n);
            k = k < 1 ? 1 : k;
            r->dq = m;
            r->ndq += k;
            r->n += k;
            continue;
        }
        r->nq += is_q(m);
        r->n++;
    }
}

/* The readers of QuantizeLinear q's output, every QuantizeLinear equal to
   q merged into it. */
static Readers q_readers(const Onnx__NodeProto *q)
{
    Readers r = {0};
    const Name *e = q->n_input ? name_get(q->input[0], 0) : NULL;
    if (!e) {
        readers_add(&r, q->output[0], 0);
        return r;
    }
    for (int u = 0; u < e->nuse; u++) {
        const Onnx__NodeProto *m = GR->node[e->use[u].node];
        if (e->use[u].input == 0 && is_q(m) && m->n_output && same_qdq(m, q)) readers_add(&r, m->output[0], 0);
    }
    return r;
}

/* The int8 zero point input i of node n as a value, or 999 when it is not
   one explicit constant int8 value. */
static int i8_zp(const Onnx__NodeProto *n, size_t i)
{
    if (i >= n->n_input || !n->input[i][0]) return 999;
    Val *z = val_find(n->input[i]);
    if (!z || z->kind != V_CONST || z->c->type != DT_INT8 || z->c->n != 1) return 999;
    return (int8_t)z->c->data[0];
}

/* QDQS8ToU8Transformer: does onnxruntime rewrite QuantizeLinear q and the
   DequantizeLinear reading it from int8 to uint8? */
static int ort_q_u8(const Onnx__NodeProto *q)
{
    if (!q || !is_q(q) || q->n_input != 3 || i8_zp(q, 2) == 999) return 0;
    Readers r = q_readers(q);
    if (r.out || r.n != 1 || r.ndq != 1) return 0;
    const Onnx__NodeProto *dq = r.dq;
    return dq->n_input == 3 && i8_zp(dq, 2) == i8_zp(q, 2);
}

/* onnxruntime's view of a DequantizeLinear value v made by node dq from
   src: its element type. (A DequantizeLinear read by several nodes is
   duplicated, one per consumer: EnsureUniqueDQForNodeUnit.) */
static void ort_dq(Val *v, const Onnx__NodeProto *dq, Val *src)
{
    (void)dq;
    DType t = type8(src);
    v->ortdq = 1;
    v->orttype = t;
    if (t == DT_INT8 && src->kind == V_TENSOR && ort_q_u8(src->qnode)) v->orttype = DT_UINT8;
}

/* The default-domain opset of the model. */
static int64_t model_opset(void)
{
    int64_t opset = 13;
    for (size_t k = 0; k < OPSETS->n_opset_import; k++)
        if (is_onnx_domain(OPSETS->opset_import[k]->domain)) opset = OPSETS->opset_import[k]->version;
    return opset;
}

/* d, the result of data movement (the current node) on DequantizeLinear
   value xv: does onnxruntime's QDQPropagationTransformer put a
   DequantizeLinear right before each consumer of d, and of which type? */
static void ort_propagate(Val *d, const Val *xv)
{
    int64_t o = model_opset();
    const char *op = NODE->op_type;
    int moves = (!strcmp(op, "MaxPool") && o >= 12 && o < 22) ||
                ((!strcmp(op, "Reshape") || !strcmp(op, "Transpose") || !strcmp(op, "Squeeze") ||
                  !strcmp(op, "Unsqueeze")) && o < 21);
    Readers r = {0};
    readers_add(&r, NODE->output[0], 0);
    d->ortdq = moves && xv->ortdq && xv->qn == 1 && !r.out;
    d->orttype = xv->orttype == DT_UINT8 ? DT_UINT8 : type8(xv->src);
    if (d->ortdq && type8(xv->src) == DT_INT8) {
        /* the inserted pair has the DequantizeLinear's zero point; it turns
           uint8 when the QuantizeLinear feeds one DequantizeLinear */
        const Onnx__NodeProto *dq = xv->node;
        d->orttype = dq && dq->n_input == 3 && i8_zp(dq, 2) != 999 && r.n - r.nq == 1 ? DT_UINT8 : DT_INT8;
    }
    d->ortvia = d->ortdq ? NULL : op;
}

/* Does onnxruntime drop the Relu/Clip between f and its QuantizeLinear
   (parameters q)? A Relu when the zero point is the type's minimum; a Clip
   when its range covers the quantized one: in float within FLT_EPSILON
   (ClipQuantFusion), or once quantized, rint(bound / scale) + zp beyond
   the type's range (the QDQ selector's IsClipMadeRedundantByQ). Either
   way the quantized result is the same without it. One activation only. */
static int act_redundant(const Val *f, const QP *q)
{
    if (q->n != 1 || f->relu == 3) return 0;
    int32_t qmin = q->type == DT_UINT8 ? 0 : -128, qmax = qmin + 255, zp = q->zp[0];
    float s = q->scale[0];
    if (f->relu == 1) return zp == qmin;
    volatile float lower = s * (float)(qmin - zp), upper = s * (float)(qmax - zp);
    volatile float dl = f->clip_lo - lower, du = upper - f->clip_hi;
    if (!(FLT_EPSILON < dl) && !(FLT_EPSILON < du)) return 1;
    volatile float ql = f->clip_lo / s, qh = f->clip_hi / s;
    double rl = rint((double)ql) + zp, rh = rint((double)qh) + zp;
    return rl <= qmin && rh >= qmax;
}

static const char *tname(DType t) { return t == DT_UINT8 ? "uint8" : t == DT_INT8 ? "int8" : dtype_name(t); }

/* Why onnxruntime leaves the QDQ group ending in float result f (quantized
   by the current QuantizeLinear with parameters q) in float, or NULL when
   it fuses it into an integer kernel. *out_t: the output type onnxruntime
   then uses. */
static const char *float_reason(Val *f, const QP *q, DType *out_t)
{
    const char *fop = f->node->op_type, *fname = f->node->name;
    *out_t = q->type == DT_INT8 && ort_q_u8(NODE) ? DT_UINT8 : q->type;
    const Name *fe = name_get(f->name, 0);
    for (int u = 0; fe && u < fe->nuse; u++) {
        size_t k = (size_t)fe->use[u].node;
        const Onnx__NodeProto *n = GR->node[k];
        if (fe->use[u].input != 0 || !is_q(n)) continue;
        if (n == NODE) continue;
        const Onnx__NodeProto *save = NODE;
        int save_i = NODE_INDEX;
        NODE = n;
        NODE_INDEX = (int)k;
        QP o = node_qp(f, 1, NULL);
        NODE = save;
        NODE_INDEX = save_i;
        if (o.n != q->n || o.type != q->type || memcmp(o.scale, q->scale, sizeof(float) * (size_t)q->n) ||
            memcmp(o.zp, q->zp, sizeof(int32_t) * (size_t)q->n))
            return arena_printf("the float result '%s' of %s '%s' is quantized twice with different parameters",
                                f->name, fop, fname);
    }
    if (!strcmp(fop, "Conv") && f->in[0] && f->in[1] && f->in[2] && f->in[0]->kind == V_DQ && f->in[1]->kind == V_DQ &&
        f->in[2]->kind == V_DQ && f->in[0]->qn == 1) {
        /* onnxruntime fuses a Conv only when every filter's bias scale is
           within 1.5% of x_scale * w_scale (as a float product; QLinearConv
           then adds the int32 bias as is). Measured: 1.49999% fuses,
           1.50001% does not; htc refuses to guess in between. */
        const Val *x = f->in[0], *w = f->in[1], *b = f->in[2];
        for (int m = 0; m < (w->qn > b->qn ? w->qn : b->qn); m++) {
            volatile float p = x->qscale[0] * w->qscale[w->qn == 1 ? 0 : m];
            double bs = b->qscale[b->qn == 1 ? 0 : m], rel = fabs(bs - (double)p) / (double)p;
            if (rel > 0.0149999 && rel < 0.0150002)
                fail("the bias scale of %s '%s' (%g for filter %d) is within 1e-7 of onnxruntime's 1.5%% tolerance "
                     "around x_scale * w_scale (%g): htc cannot tell whether onnxruntime fuses it", fop, fname, bs, m,
                     (double)p);
            if (rel > 0.015)
                return arena_printf("the bias scale of %s '%s' (%g for filter %d) is more than 1.5%% away from "
                                    "x_scale * w_scale (%g)", fop, fname, bs, m, (double)p);
        }
    }
    if (f->relu && !act_redundant(f, q)) {
        int32_t qmin = q->type == DT_UINT8 ? 0 : -128, qmax = qmin + 255;
        float ql = q->scale[0] * (float)(qmin - q->zp[0]), qh = q->scale[0] * (float)(qmax - q->zp[0]);
        return arena_printf(f->relu == 3 ? "a chain of Relu/Clip follows %s '%s'"
                                         : "the Relu/Clip after %s '%s' clips inside the quantized range [%g, %g]",
                            fop, fname, (double)ql, (double)qh);
    }
    if (table_op(fop)) return NULL;
    if (!strcmp(fop, "Gemm") && f->in[2] &&
        (f->in[2]->kind != V_DQ || f->in[2]->src->kind != V_CONST || f->in[2]->src->c->type != DT_INT32))
        return arena_printf("the bias '%s' of %s '%s' is not a dequantized int32 constant", f->in[2]->name, fop, fname);
    if (!strcmp(fop, "Gemm") && f->in[2] && attr_f(f->node, "beta", 1.0f) != 1.0f)
        return arena_printf("%s '%s' has beta %g with a bias", fop, fname, (double)attr_f(f->node, "beta", 1.0f));
    for (int i = 0; i < OP_MAX_IO; i++) {
        const Val *x = f->in[i];
        if (!x || x->kind != V_DQ) continue;
        if (!x->ortdq)
            return arena_printf("%s '%s' reads its input %d through %s, across which onnxruntime does not move its "
                                "DequantizeLinear", fop, fname, i, x->ortvia ? x->ortvia : "an operator");
    }
    /* element types, after onnxruntime's int8 -> uint8 conversion of lone
       QuantizeLinear -> DequantizeLinear pairs */
    const Val *x0 = f->in[0];
    DType in = x0 && x0->kind == V_DQ ? x0->orttype : DT_UINT8;
    static const char conv8[] = "(onnxruntime turns int8 QuantizeLinear/DequantizeLinear pairs into uint8 only where "
                                "the DequantizeLinear is the QuantizeLinear's one consumer)";
    if ((!strcmp(fop, "Conv") || !strcmp(fop, "MatMul")) && in == DT_INT8)
        return arena_printf("%s '%s' reads int8, and onnxruntime on x86-64 fuses %s only on uint8 %s", fop, fname,
                            fop, conv8);
    if (!strcmp(fop, "Gemm") && in == DT_INT8 && f->in[1] && f->in[1]->kind == V_DQ && f->in[1]->orttype != DT_INT8)
        return arena_printf("%s '%s' reads int8 with %s weights, which onnxruntime's QGemm does not take", fop,
                            fname, tname(f->in[1]->orttype));
    int nin = !strcmp(fop, "Concat") ? OP_MAX_IO : (!strcmp(fop, "Add") || !strcmp(fop, "Mul")) ? 2 : 1;
    for (int i = 0; i < nin; i++) {
        const Val *x = f->in[i];
        if (!x || x->kind != V_DQ) continue;
        if (x->orttype != *out_t)
            return arena_printf("%s '%s' reads %s and its result is quantized to %s %s", fop, fname,
                                tname(x->orttype), tname(*out_t), conv8);
    }
    return NULL;
}

/* q in the element type onnxruntime computes with (uint8: zero point + 128;
   the stored int8 bytes stay the same). */
static QP ort_view(QP q, DType t)
{
    if (q.type != DT_INT8 || t != DT_UINT8) return q;
    int32_t *zp = arena_alloc(sizeof(int32_t) * (size_t)q.n);
    for (int i = 0; i < q.n; i++) zp[i] = q.zp[i] + 128;
    q.zp = zp;
    q.type = DT_UINT8;
    return q;
}

static QP qp_ort(const Val *v)
{
    QP q = qp_of_dq(v);
    return v->kind == V_DQ && v->ortdq ? ort_view(q, v->orttype) : q;
}

/* onnxruntime's DequantizeLinear of every stored byte of a per-tensor
   quantized activation: deq[(uint8_t)stored] = float(x - zp) * scale. */
static void deq_table(const QP *xq, float *deq, const char *what)
{
    float xs;
    int32_t xzp;
    per_tensor(xq, what, &xs, &xzp);
    for (int b = 0; b < 256; b++) {
        int32_t stored = (int8_t)(uint8_t)b;
        deq[b] = ort_dequantize(stored + st_off(xq->type), xq->scale[0], xq->zp[0]);
    }
}

/* The taps MLAS sums before adding a partial result into the output, on
   one thread: MlasConvOperation / MlasSgemmOperation step K by StrideK,
   which starts at 128 and trades against StrideN (128) by the output
   columns N (see sgemm.cpp). Whole K when it fits. */
static int mlas_k_block(int64_t n, int64_t k)
{
    int64_t sn = 128, sk = 128;
    if (n >= k) {
        while (sk / 2 >= k) sn *= 2, sk /= 2;
    } else {
        while (sn > 16 && sn / 2 >= n) sk *= 2, sn /= 2;
    }
    return (int)(sk < k ? sk : k);
}

/* A one-row float Gemm / MatMul (Gemm<float> / MatMul<float>: the bias
   broadcast into the output, then MlasGemm, which for M = 1, A not
   transposed, alpha 1 and beta 0 or 1 runs MlasSgemmKernelM1Avx when B is
   not transposed) as an fconv2d with gemm_m1 over a 1x1 image: K taps, N
   filters. Other shapes are refused. */
static void build_float_gemm(Val *f, const QP *q, float clip_lo, float clip_hi, const char *why)
{
    int gemm = !strcmp(f->node->op_type, "Gemm");
    Val *a = f->in[0], *b = f->in[1], *c = gemm ? f->in[2] : NULL;
    if (!a || !b || a->kind != V_DQ || b->kind != V_DQ || (c && c->kind != V_DQ))
        fail("%s: the inputs must be DequantizeLinear outputs", why);
    if (a->src->kind != V_TENSOR || b->src->kind != V_CONST) fail("%s: B must be a dequantized constant", why);
    const Const *bw = b->src->c;
    if (gemm && (attr_i(NODE, "transA", 0) || attr_f(NODE, "alpha", 1.0f) != 1.0f ||
                 (c && attr_f(NODE, "beta", 1.0f) != 1.0f)))
        fail("%s: --float-fallback reproduces Gemm with transA 0, alpha 1 and beta 1", why);
    if (a->rank != 2 || a->shape[0] != 1 || bw->rank != 2 || (gemm && attr_i(NODE, "transB", 0)))
        fail("%s: --float-fallback reproduces one-row Gemm/MatMul ([1, K] x [K, N]), not this one", why);
    int32_t K = bw->shape[0], N = bw->shape[1];
    if (a->shape[1] != K) fail("inner dimensions differ");
    QP aq = qp_of_dq(a), bq = qp_of_dq(b);
    if (bq.n != 1 && (bq.n != N || bq.axis != 1)) fail("%s: weights quantized along axis %d", why, bq.axis);
    Val *x = a->src;
    int xin = tensor8(x, "A");
    int32_t oshape[2] = {1, N};
    Val *y = out_val(0, q->type, 2, oshape, 0, DT_INT8);
    /* weights [K][N] -> blocks of 8 columns, [blk][K][8] */
    int32_t nblk = (N + 7) / 8;
    size_t nb = (size_t)nblk * K * 8;
    int8_t *wb = arena_alloc(nb);
    memset(wb, 0, nb);
    for (int32_t k = 0; k < K; k++)
        for (int32_t n = 0; n < N; n++) {
            int v = bw->type == DT_UINT8 ? (int)bw->data[(size_t)k * N + n] - 128 : (int8_t)bw->data[(size_t)k * N + n];
            wb[((size_t)(n / 8) * K + k) * 8 + n % 8] = (int8_t)v;
        }
    int32_t ws3[3] = {nblk, K, 8};
    Op *op = new_op(OP_CONV2D, xin, y->t);
    op->nin = 4;
    op->in[1] = const_tensor(arena_printf("%s.kblk8", b->src->name), DT_INT8, 3, ws3, wb, nb);
    op->in[2] = -1;
    op->in[3] = wzp_tensor(&bq, b->src->name, N);
    op->rq = RQ_FP32;
    op->nch = 1;
    op->k_h = op->k_w = 1;
    op->batches = 1;
    op->in_h = op->in_w = op->out_h = op->out_w = 1;
    op->in_c = K;
    op->out_c = N;
    op->groups = 1;
    op->has_w_zp = op->in[3] >= 0;
    op->act_min = -128;
    op->act_max = 127;
    htc__fconv_params *p = params(op, sizeof *p, "htc__fconv_params");
    p->batches = 1;
    p->in_h = p->in_w = p->out_h = p->out_w = 1;
    p->in_c = K;
    p->out_c = N;
    p->k_h = p->k_w = p->stride_h = p->stride_w = p->dil_h = p->dil_w = 1;
    p->group_in = K;
    p->group_out = N;
    p->k_block = K;
    p->gemm_m1 = 1;
    p->out_zp = q->zp[0] - st_off(q->type);
    p->qmin = -128;
    p->qmax = 127;
    p->per_channel = bq.n > 1;
    p->clip_lo = clip_lo;
    p->clip_hi = clip_hi;
    p->out_scale = q->scale[0];
    float *ws = arena_alloc(sizeof(float) * (size_t)bq.n);
    memcpy(ws, bq.scale, sizeof(float) * (size_t)bq.n);
    p->w_scale = ws;
    deq_table(&aq, p->x_deq, "A");
    if (c) {
        /* the DequantizeLinear of the bias, broadcast to [N] */
        if (c->src->kind != V_CONST) fail("%s: the bias must be a dequantized constant", why);
        const Const *cc = c->src->c;
        QP cq = qp_of_dq(c);
        if (cc->n != N && cc->n != 1) fail("%s: --float-fallback reproduces a bias of N or 1 values", why);
        if (cq.n != 1 && cq.n != cc->n) fail("%s: the bias is quantized along an axis it does not have", why);
        float *bias = arena_alloc(sizeof(float) * (size_t)N);
        for (int32_t n = 0; n < N; n++) {
            int64_t i = cc->n == 1 ? 0 : n;
            int32_t zp = cq.zp ? cq.zp[cq.n == 1 ? 0 : i] : 0;
            bias[n] = ort_dequantize((int32_t)const_int(cc, i), cq.scale[cq.n == 1 ? 0 : i], zp);
        }
        p->bias = bias;
    }
    op->macs = (int64_t)K * N;
}

/* A QDQ group computed in float as onnxruntime computes it (see
   kernels/ort_float.c): Conv, Add and Mul, with a Relu/Clip; AveragePool
   (kernels/ort_eltwise.c, quantize_linear). */
static void build_float_group(Val *f, const QP *q, const char *why)
{
    const Onnx__NodeProto *q_node = NODE;
    int q_index = NODE_INDEX;
    const char *op = f->node->op_type;
    if (strcmp(op, "Conv") && strcmp(op, "Add") && strcmp(op, "Mul") && strcmp(op, "AveragePool") &&
        strcmp(op, "Gemm") && strcmp(op, "MatMul") && strcmp(op, "Softmax"))
        fail("%s: onnxruntime computes this group in float; --float-fallback reproduces " FF_OPS " groups, "
             "not %s", why, op);
    if ((!strcmp(op, "AveragePool") || !strcmp(op, "Softmax")) && f->relu)
        fail("%s: onnxruntime computes this group in float; --float-fallback reproduces %s groups without "
             "a Relu/Clip", why, op);
    if (q->n != 1) fail("%s: per-channel QuantizeLinear after a float group is not supported", why);
    float clip_lo = -FLT_MAX, clip_hi = FLT_MAX;
    if (f->relu) {
        clip_lo = f->clip_lo > clip_lo ? f->clip_lo : clip_lo;
        clip_hi = f->clip_hi < clip_hi ? f->clip_hi : clip_hi;
    }
    const char *yname = NODE->output[0];
    NODE = f->node;
    NODE_INDEX = f->node_index;
    const char *save_out = NODE->output[0];
    ((Onnx__NodeProto *)NODE)->output[0] = (char *)yname;
    if (!strcmp(op, "Gemm") || !strcmp(op, "MatMul")) {
        build_float_gemm(f, q, clip_lo, clip_hi, why);
    } else if (!strcmp(op, "Softmax")) {
        /* MlasComputeSoftmax on the dequantized row, then QuantizeLinear
           (kernels/ort_float.c htc__fsoftmax_s8) */
        if (!f->in[0] || f->in[0]->kind != V_DQ) fail("the input must be a DequantizeLinear output");
        QP xq = qp_of_dq(f->in[0]);
        int64_t opset = model_opset();
        Val *x = f->in[0]->src;
        int nhwc;
        int64_t depth;
        int xin = softmax_rows(x, attr_i(NODE, "axis", opset < 13 ? 1 : -1), (int)opset, &nhwc, &depth);
        Val *y = out_val(0, q->type, x->rank, x->shape, nhwc, DT_INT8);
        Op *op8 = new_op(OP_SOFTMAX, xin, y->t);
        htc__qsoftmax_params *p = params(op8, sizeof *p, "htc__qsoftmax_params");
        p->depth = (int32_t)depth;
        p->outer = (int32_t)(shape_numel(x->shape, x->rank) / depth);
        p->out_zp = q->zp[0] - st_off(q->type);
        p->out_off = st_off(q->type);
        p->is_signed = q->type == DT_INT8;
        p->y_scale = q->scale[0];
        deq_table(&xq, p->table, "input");
        op8->rq = RQ_FP32;
        op8->nch = 1;
    } else if (!strcmp(op, "AveragePool")) {
        /* the same sum and division as QLinearAveragePool, then
           QuantizeLinear's rounding */
        if (!f->in[0] || f->in[0]->kind != V_DQ) fail("the input must be a DequantizeLinear output");
        /* onnxruntime pools in NCHWc blocks (sums in window order) when the
           channels are a multiple of its block size, 16 with AVX-512 and 8
           with AVX2; other pooling kernels sum in other orders */
        if (f->in[0]->rank != 4 || f->in[0]->shape[1] % 16)
            fail("%s: --float-fallback reproduces AveragePool over a multiple of 16 channels (onnxruntime's NCHWc "
                 "pooling), not %d", why, f->in[0]->rank == 4 ? f->in[0]->shape[1] : 0);
        QP xq = qp_of_dq(f->in[0]);
        build_avgpool(f->in[0]->src, &xq, q, 0, 1);
    } else if (!strcmp(op, "Conv")) {
        for (int i = 0; i < 3; i++)
            if (f->in[i] && f->in[i]->kind != V_DQ) fail("input %d must be a DequantizeLinear output", i);
        if (!f->in[1]) fail("missing weights");
        QP xq = qp_of_dq(f->in[0]), wq = qp_of_dq(f->in[1]);
        if (f->in[0]->src->kind != V_TENSOR) fail("input must be an activation");
        Val *bv = f->in[2] ? f->in[2]->src : NULL;
        if (bv && (bv->kind != V_CONST || bv->c->type != DT_INT32)) fail("the bias must be a dequantized int32 constant");
        build_conv(f->in[0]->src, &xq, f->in[1]->src, &wq, NULL, q, q->type);
        Op *op8 = &G->ops[G->nops - 1];
        htc__qconv_params *qp = op8->params;
        htc__fconv_params *p = params(op8, sizeof *p, "htc__fconv_params");
        memcpy(p, qp, offsetof(htc__fconv_params, k_block));    /* the shared geometry */
        p->k_block = mlas_k_block((int64_t)qp->out_h * qp->out_w, (int64_t)qp->group_in * qp->k_h * qp->k_w);
        p->out_zp = qp->out_zp;
        p->qmin = qp->qmin;
        p->qmax = qp->qmax;
        p->per_channel = wq.n > 1;
        p->clip_lo = clip_lo;
        p->clip_hi = clip_hi;
        p->out_scale = q->scale[0];
        float *ws = arena_alloc(sizeof(float) * (size_t)wq.n);
        memcpy(ws, wq.scale, sizeof(float) * (size_t)wq.n);
        p->w_scale = ws;
        deq_table(&xq, p->x_deq, "input");
        /* weights for the kernel: per group, blocks of 8 filters, each tap
           k = (channel, ky, kx) in ONNX order holding the 8 filters' values
           side by side (a missing filter of the last block is 0) */
        {
            const Tensor *ohwi = &G->tensors[op8->in[1]];
            int32_t K = qp->group_in * qp->k_h * qp->k_w, go = qp->group_out;
            int32_t groups = qp->out_c / go, nblk = (go + 7) / 8;
            size_t nb = (size_t)groups * nblk * K * 8;
            int8_t *wb = arena_alloc(nb);
            memset(wb, 0, nb);
            for (int32_t m = 0; m < qp->out_c; m++) {
                int32_t g = m / go, blk = (m % go) / 8, j = (m % go) % 8;
                for (int32_t c = 0; c < qp->group_in; c++)
                    for (int32_t ky = 0; ky < qp->k_h; ky++)
                        for (int32_t kx = 0; kx < qp->k_w; kx++) {
                            int32_t k = (c * qp->k_h + ky) * qp->k_w + kx;
                            size_t src = (((size_t)m * qp->k_h + ky) * qp->k_w + kx) * qp->group_in + c;
                            wb[(((size_t)g * nblk + blk) * K + k) * 8 + j] = (int8_t)ohwi->data[src];
                        }
            }
            int32_t ws3[3] = {groups * nblk, K, 8};
            op8->in[1] = const_tensor(arena_printf("%s.kblk8", ohwi->name), DT_INT8, 3, ws3, wb, nb);
        }
        op8->variant = "";
        op8->rq = RQ_FP32;
        op8->nch = 1;
        op8->fscale = NULL;
        if (bv) {
            /* DequantizeLinear of the int32 bias, per channel or per tensor */
            QP bq = qp_of_dq(f->in[2]);
            int M = qp->out_c;
            if (bq.n != 1 && bq.n != M) fail("bias '%s' has %d scales for %d filters", bv->name, bq.n, M);
            if (bv->c->n != M) fail("bias '%s' has %lld values, expected %d", bv->name, (long long)bv->c->n, M);
            float *b = arena_alloc(sizeof(float) * (size_t)M);
            for (int m = 0; m < M; m++)
                b[m] = ort_dequantize((int32_t)const_int(bv->c, m), bq.scale[bq.n == 1 ? 0 : m], 0);
            p->bias = b;
        }
    } else {
        QP aq = qp_of_dq(f->in[0]), bq = qp_of_dq(f->in[1]);
        if (!f->in[1] || f->in[0]->kind != V_DQ || f->in[1]->kind != V_DQ) fail("both inputs must be DequantizeLinear outputs");
        int mul = !strcmp(op, "Mul");
        if (mul) build_mul(f->in[0]->src, &aq, f->in[1]->src, &bq, q);
        else build_add(f->in[0]->src, &aq, f->in[1]->src, &bq, q);
        Op *op8 = &G->ops[G->nops - 1];
        /* build_add / build_mul leave a constant operand's tensor in slot 1 */
        htc__qbinary_params *qp = op8->params;
        htc__fbinary_params *p = params(op8, sizeof *p, "htc__fbinary_params");
        p->size = qp->size;
        p->a_scalar = qp->a_scalar;
        p->b_scalar = qp->b_scalar;
        p->out_zp = q->zp[0] - st_off(q->type);
        p->qmin = -128;
        p->qmax = 127;
        p->clip_lo = clip_lo;
        p->clip_hi = clip_hi;
        p->out_scale = q->scale[0];
        deq_table(&aq, p->a_deq, "A");
        deq_table(&bq, p->b_deq, "B");
        op8->variant = "_s8";
        op8->rq = RQ_FP32;
        op8->nch = 1;
    }
    Op *last = &G->ops[G->nops - 1];
    last->float_why = why;
    graph_note(G, "%s: node %d '%s' (%s) computed in float (--float-fallback): %s", PATH, f->node_index, f->node->name,
         op, why);
    set_quant(last->out[0], q->scale[0], q->zp[0] - st_off(q->type));
    ((Onnx__NodeProto *)NODE)->output[0] = (char *)save_out;
    NODE = q_node;
    NODE_INDEX = q_index;
}

static void quantize_linear(void)
{
    Val *x = input(0, "x");
    Val *zv;
    QP q = node_qp(x, 1, &zv);
    if (x->kind == V_FLOAT) {
        /* the end of a QDQ group: the fused integer op, or with
           --float-fallback the group in float where onnxruntime leaves it so */
        Val *f = x;
        DType out_t;
        const char *why = float_reason(f, &q, &out_t);
        QP qv = ort_view(q, out_t);     /* the fused kernel's types */
        if (f->fused && q.n == 1 && q.scale[0] == f->fscale && q.zp[0] == f->fzp && q.type == f->ftype) {
            /* another QuantizeLinear of the same float result with the same
               parameters (one per consumer): onnxruntime merges them */
            Val *y = val_new(NODE->output[0], V_TENSOR);
            Val keep = *y;
            *y = *f->fused;
            y->name = keep.name;
            y->uses = 0;
            return;
        }
        /* every consumer of the float result must be a QuantizeLinear */
        const Name *fe = name_get(f->name, 0);
        for (int u = 0; fe && u < fe->nuse; u++)
            if (strcmp(GR->node[fe->use[u].node]->op_type, "QuantizeLinear"))
                    fail("the float result '%s' of %s '%s' is also read by %s '%s': onnxruntime does not fuse it and "
                         "computes in float%s", f->name, f->node->op_type, f->node->name,
                         GR->node[fe->use[u].node]->op_type, GR->node[fe->use[u].node]->name,
                         OPTS->float_fallback >= 0 ? " (--float-fallback reproduces " FF_OPS " groups between "
                                          "DequantizeLinear and QuantizeLinear, not chains of float ops)" : "");
        for (size_t i = 0; i < GR->n_output; i++)
            if (!strcmp(GR->output[i]->name, f->name)) fail("the float result '%s' is a graph output", f->name);
        if (why) {
            if (OPTS->float_fallback < 0)
                fail("%s: onnxruntime does not fuse this group and computes it in float (htc's default, "
                     "--float-fallback, computes it in float too; or quantize with uint8 activations or in the "
                     "QOperator form)", why);
            build_float_group(f, &q, why);
            f->fused = val_find(NODE->output[0]);
            f->fscale = q.scale[0];
            f->fzp = q.zp[0];
            f->ftype = q.type;
            return;
        }
        const Onnx__NodeProto *q_node = NODE;
        int q_index = NODE_INDEX;
        const char *yname = NODE->output[0];
        NODE = f->node;
        NODE_INDEX = f->node_index;
        /* the fused op defines the Q node's output */
        const char *save_out = NODE->output[0];
        ((Onnx__NodeProto *)NODE)->output[0] = (char *)yname;
        const char *op = NODE->op_type;
        if (!strcmp(op, "Conv")) {
            QP xq = qp_ort(f->in[0]), wq = qp_ort(f->in[1]);
            if (f->in[0]->src->kind != V_TENSOR) fail("input must be an activation");
            build_conv(f->in[0]->src, &xq, f->in[1]->src, &wq, f->in[2] ? f->in[2]->src : NULL, &qv, qv.type);
        } else if (!strcmp(op, "Gemm") || !strcmp(op, "MatMul")) {
            QP aq = qp_ort(f->in[0]), bq = qp_ort(f->in[1]);
            if (!strcmp(op, "Gemm")) {
                if (attr_i(NODE, "transA", 0)) fail("transA is not supported");
                if (f->in[2] && attr_f(NODE, "beta", 1.0f) != 1.0f) fail("beta other than 1 with a bias is not supported");
            }
            int tb = !strcmp(op, "Gemm") ? (int)attr_i(NODE, "transB", 0) : 0;
            float alpha = !strcmp(op, "Gemm") ? attr_f(NODE, "alpha", 1.0f) : 1.0f;
            build_matmul(f->in[0]->src, &aq, f->in[1]->src, &bq, f->in[2] ? f->in[2]->src : NULL, &qv, tb, alpha);
        } else if (!strcmp(op, "Add")) {
            QP aq = qp_ort(f->in[0]), bq = qp_ort(f->in[1]);
            build_add(f->in[0]->src, &aq, f->in[1]->src, &bq, &qv);
        } else if (!strcmp(op, "GlobalAveragePool")) {
            QP xq = qp_ort(f->in[0]);
            build_gap(f->in[0]->src, &xq, &qv, 0);
        } else if (!strcmp(op, "Mul")) {
            QP aq = qp_ort(f->in[0]), bq = qp_ort(f->in[1]);
            build_mul(f->in[0]->src, &aq, f->in[1]->src, &bq, &qv);
        } else if (!strcmp(op, "AveragePool")) {
            QP xq = qp_ort(f->in[0]);
            build_avgpool(f->in[0]->src, &xq, &qv, 0, 0);
        } else if (!strcmp(op, "Softmax")) {
            QP xq = qp_ort(f->in[0]);
            int64_t opset = 13;
            for (size_t k = 0; k < OPSETS->n_opset_import; k++)
                if (is_onnx_domain(OPSETS->opset_import[k]->domain)) opset = OPSETS->opset_import[k]->version;
            build_softmax(f->in[0]->src, &xq, &qv, attr_i(NODE, "axis", opset < 13 ? 1 : -1), (int)opset);
        } else if (!strcmp(op, "Sigmoid")) {
            QP xq = qp_ort(f->in[0]);
            build_unary(f->in[0]->src, &xq, &qv, f_logistic, NULL);
        } else if (!strcmp(op, "LeakyRelu")) {
            QP xq = qp_ort(f->in[0]);
            float alpha = attr_f(NODE, "alpha", 0.01f);
            build_unary(f->in[0]->src, &xq, &qv, f_leaky, &alpha);
        } else if (!strcmp(op, "Concat")) {
            Val *xs[OP_MAX_IO];
            QP xq[OP_MAX_IO];
            int n = 0;
            for (int i = 0; i < OP_MAX_IO && f->in[i]; i++, n++) {
                xs[i] = f->in[i]->src;
                xq[i] = qp_ort(f->in[i]);
            }
            build_concat(xs, xq, n, &qv, attr_i(NODE, "axis", 0));
        } else if (!strcmp(op, "Pad")) {
            /* pad the integers with the padding value quantized to the
               input's parameters (exact: DequantizeLinear of it is the value
               onnxruntime pads with), then requantize by table if the
               QuantizeLinear's parameters differ */
            QP xq = qp_ort(f->in[0]);
            if (xq.n != 1 || qv.n != 1) fail("per-channel parameters around Pad are not supported");
            int32_t v = xq.zp[0];
            Val *cv = f->in[2];
            if (cv) {
                if (cv->kind != V_DQ || cv->src->kind != V_CONST) fail("constant_value must be a dequantized constant");
                QP cq = qp_ort(cv);
                float fv = ort_dequantize((int32_t)const_int(cv->src->c, 0), cq.scale[0], cq.zp[0]);
                v = ort_quantize(fv, xq.scale[0], xq.zp[0], xq.type == DT_UINT8 ? 0 : -128, xq.type == DT_UINT8 ? 255 : 127);
                if (ort_dequantize(v, xq.scale[0], xq.zp[0]) != fv)
                    fail("the padding value %g is not exactly representable in the input's quantization", (double)fv);
            }
            int same = xq.scale[0] == qv.scale[0] && xq.zp[0] == qv.zp[0] && xq.type == qv.type;
            if (same) {
                build_pad(f->in[0]->src, v - st_off(qv.type));
            } else {
                const char *yname = NODE->output[0];
                ((Onnx__NodeProto *)NODE)->output[0] = (char *)arena_printf("%s.padded", yname);
                build_pad(f->in[0]->src, v - st_off(xq.type));
                Val *pv = val_find(NODE->output[0]);
                ((Onnx__NodeProto *)NODE)->output[0] = (char *)yname;
                Val *y = out_val(0, qv.type, pv->rank, pv->shape, pv->nhwc, DT_INT8);
                lut_op(pv->t, xq.type, xq.scale[0], xq.zp[0], qv.type, qv.scale[0], qv.zp[0], f_identity, NULL, y->t);
            }
        } else if (!strcmp(op, "Relu") || !strcmp(op, "Clip") || !strcmp(op, "Identity")) {
            Val *s = f->in[0]->src;
            QP xq = qp_ort(f->in[0]);
            float xs, arg[2] = {-INFINITY, INFINITY};
            int32_t xzp;
            per_tensor(&xq, "input", &xs, &xzp);
            if (qv.n != 1) fail("per-channel QuantizeLinear after %s is not supported", op);
            UnaryF fn = !strcmp(op, "Relu") ? f_relu : !strcmp(op, "Clip") ? f_clip : f_identity;
            if (fn == f_clip) {
                arg[0] = f->in[1] ? const_f(need_const(f->in[1], "min"), 0) : -INFINITY;
                arg[1] = f->in[2] ? const_f(need_const(f->in[2], "max"), 0) : INFINITY;
            }
            Val *y = out_val(0, qv.type, s->rank, s->shape, s->nhwc, DT_INT8);
            lut_op(s->t, xq.type, xs, xq.zp[0], qv.type, qv.scale[0], qv.zp[0], fn, arg, y->t);
            set_quant(y->t, qv.scale[0], qv.zp[0] - st_off(qv.type));
        } else {
            fail("internal: no fused form");
        }
        ((Onnx__NodeProto *)NODE)->output[0] = (char *)save_out;
        NODE = q_node;
        NODE_INDEX = q_index;
        {
            Val *y = val_find(NODE->output[0]);
            y->otype = q.type;          /* the model's type (the bytes are the same) */
        }
        f->fused = val_find(NODE->output[0]);
        f->fscale = q.scale[0];
        f->fzp = q.zp[0];
        f->ftype = q.type;
        return;
    }
    if (x->kind == V_DQ) {
        /* DequantizeLinear -> QuantizeLinear: identity, or a requantization
           table with onnxruntime's float arithmetic */
        Val *s = x->src;
        if (s->kind != V_TENSOR) fail("QuantizeLinear of a dequantized constant is not supported");
        QP xq = qp_of_dq(x);
        if (xq.n != 1 || q.n != 1) fail("per-channel requantization is not supported");
        if (xq.type == q.type && xq.scale[0] == q.scale[0] && xq.zp[0] == q.zp[0]) {
            Val *y = val_new(NODE->output[0], V_TENSOR);
            Val keep = *y;
            *y = *s;
            y->name = keep.name;
            y->uses = 0;
            return;
        }
        /* onnxruntime's DoubleQDQPairsRemover: QuantizeLinear -> DequantizeLinear
           -> QuantizeLinear -> DequantizeLinear, each link the only one, is
           rewritten into one pair with new parameters (changing the upstream
           QuantizeLinear): not reproduced, refused */
        {
            const char *dq_in = x->node->input[0];
            const Name *ue = name_get(dq_in, 0), *de = name_get(NODE->output[0], 0);
            const Onnx__NodeProto *up = ue && ue->producer >= 0 && !strcmp(GR->node[ue->producer]->output[0], dq_in)
                                            ? GR->node[ue->producer] : NULL;
            int down_dq = 0;
            for (int u = 0; de && u < de->nuse; u++) down_dq |= !strcmp(GR->node[de->use[u].node]->op_type, "DequantizeLinear");
            int direct = !strcmp(NODE->input[0], x->node->output[0]) || x->ident;   /* Identity is removed first */
            if (direct && up && !strcmp(up->op_type, "QuantizeLinear") && consumers(dq_in) == 1 && x->uses == 1 &&
                consumers(NODE->output[0]) == 1 && down_dq)
                fail("DequantizeLinear '%s' -> QuantizeLinear with different parameters between two QuantizeLinear/"
                     "DequantizeLinear pairs: onnxruntime merges the pairs into one with new parameters "
                     "(DoubleQDQPairsRemover), which htc does not reproduce", x->node->name);
        }
        Val *y = out_val(0, q.type, s->rank, s->shape, s->nhwc, DT_INT8);
        lut_op(s->t, type8(s), xq.scale[0], xq.zp[0], q.type, q.scale[0], q.zp[0], f_identity, NULL, y->t);
        set_quant(y->t, q.scale[0], q.zp[0] - st_off(q.type));
        return;
    }
    if (x->kind == V_CONST) fail("QuantizeLinear of a constant: fold it into an initializer");
    if (x->otype != DT_FLOAT32) fail("input '%s' is %s, expected float", x->name, dtype_name(x->otype));
    int nhwc = x->nhwc;
    Val *y = out_val(0, q.type, x->rank, x->shape, nhwc, DT_INT8);
    Op *op = new_op(OP_QUANTIZE, x->t, y->t);
    qlinear_params(op, x, &q, nhwc);
    if (q.n == 1) set_quant(y->t, q.scale[0], q.zp[0] - st_off(q.type));
}

static void h_quantize(void)
{
    quantize_linear();
    Val *y = val_find(NODE->output[0]);
    if (y) y->qnode = NODE;     /* for onnxruntime's int8 -> uint8 conversion */
}

/* The QOperator forms: scales and zero points are inputs. */
static QP in_qp(int si, int zi, Val *x, const char *what)
{
    Val *zv = opt_input(zi);
    DType t = zv ? need_const(zv, what)->type : type8(x);
    return qparams(input(si, "scale"), zv, t, 0, what);
}

static QP out_qp(int si, int zi, const char *what)
{
    Val *zv = opt_input(zi);
    DType t = zv ? need_const(zv, what)->type : DT_UINT8;
    if (!is8(t)) fail("%s zero point must be int8 or uint8", what);
    return qparams(input(si, "scale"), zv, t, 0, what);
}

static void h_qlinearconv(void)
{
    if (attr_i(NODE, "channels_last", 0)) fail("channels_last is not supported");
    Val *x = need_tensor(input(0, "x"), "x"), *w = input(3, "w");
    QP xq = in_qp(1, 2, x, "x"), wq = in_qp(4, 5, w, "w"), yq = out_qp(6, 7, "y");
    if (type8(x) != xq.type) fail("x and x_zero_point types differ");
    if (x->kind != V_TENSOR) fail("x must be an activation");
    build_conv(x, &xq, w, &wq, opt_input(8), &yq, yq.type);
}

static void h_convinteger(void)
{
    Val *x = need_tensor(input(0, "x"), "x"), *w = input(1, "w");
    Val *xz = opt_input(2), *wz = opt_input(3);
    QP xq = {0}, wq = {0};
    static float one = 1.0f;
    static int32_t zero = 0;
    xq.n = 1; xq.scale = &one; xq.zp = &zero; xq.type = type8(x);
    if (xz) {
        Const *z = need_const(xz, "x_zero_point");
        if (z->n != 1 || z->type != xq.type) fail("x_zero_point must be one %s value", dtype_name(xq.type));
        xq.zp = arena_alloc(sizeof(int32_t));
        xq.zp[0] = (int32_t)const_int(z, 0);
    }
    wq.n = 1; wq.scale = &one; wq.zp = &zero; wq.type = type8(w);
    if (wz) {
        Const *z = need_const(wz, "w_zero_point");
        if (z->type != wq.type) fail("w_zero_point type differs from w");
        wq.n = (int)z->n;
        wq.scale = arena_alloc(sizeof(float) * (size_t)wq.n);
        wq.zp = arena_alloc(sizeof(int32_t) * (size_t)wq.n);
        for (int i = 0; i < wq.n; i++) {
            wq.scale[i] = 1.0f;
            wq.zp[i] = (int32_t)const_int(z, i);
        }
    }
    if (x->kind != V_TENSOR) fail("x must be an activation");
    build_conv(x, &xq, w, &wq, NULL, NULL, DT_INT32);
}

static void h_matmulinteger(void)
{
    Val *a = need_tensor(input(0, "A"), "A"), *b = input(1, "B");
    Val *az = opt_input(2), *bz = opt_input(3);
    static float one = 1.0f;
    static int32_t zero = 0;
    QP aq = {1, 0, &one, &zero, type8(a)}, bq = {1, 0, &one, &zero, type8(b)};
    if (az) {
        Const *z = need_const(az, "a_zero_point");
        if (z->n != 1 || z->type != aq.type) fail("a_zero_point must be one %s value", dtype_name(aq.type));
        aq.zp = arena_alloc(sizeof(int32_t));
        aq.zp[0] = (int32_t)const_int(z, 0);
    }
    if (bz) {
        Const *z = need_const(bz, "b_zero_point");
        if (z->type != bq.type) fail("b_zero_point type differs from B");
        bq.n = (int)z->n;
        bq.scale = arena_alloc(sizeof(float) * (size_t)bq.n);
        bq.zp = arena_alloc(sizeof(int32_t) * (size_t)bq.n);
        for (int i = 0; i < bq.n; i++) {
            bq.scale[i] = 1.0f;
            bq.zp[i] = (int32_t)const_int(z, i);
        }
    }
    build_matmul(a, &aq, b, &bq, NULL, NULL, 0, 1.0f);
}

static void h_qlinearmatmul(void)
{
    Val *a = need_tensor(input(0, "a"), "a"), *b = input(3, "b");
    QP aq = in_qp(1, 2, a, "a"), bq = in_qp(4, 5, b, "b"), yq = out_qp(6, 7, "y");
    build_matmul(a, &aq, b, &bq, NULL, &yq, 0, 1.0f);
}

static void h_qgemm(void)
{
    Val *a = need_tensor(input(0, "A"), "A"), *b = input(3, "B");
    if (attr_i(NODE, "transA", 0)) fail("transA is not supported");
    if (!opt_input(7)) fail("QGemm without y_scale has a float output, which htc does not compile");
    QP aq = in_qp(1, 2, a, "A"), bq = in_qp(4, 5, b, "B"), yq = out_qp(7, 8, "y");
    float alpha = attr_f(NODE, "alpha", 1.0f), beta = attr_f(NODE, "beta", 1.0f);
    Val *c = opt_input(6);
    if (c && beta != 1.0f) fail("beta %g with a bias is not supported", (double)beta);
    if (a->rank != 2) fail("A must be 2-D");
    build_matmul(a, &aq, b, &bq, c, &yq, (int)attr_i(NODE, "transB", 0), alpha);
}

static void h_qlinearadd(void)
{
    Val *a = input(0, "A"), *b = input(3, "B");
    QP aq = in_qp(1, 2, a, "A"), bq = in_qp(4, 5, b, "B"), cq = out_qp(6, 7, "C");
    build_add(a, &aq, b, &bq, &cq);
}

static void h_qlineargap(void)
{
    Val *x = need_tensor(input(0, "X"), "X");
    QP xq = in_qp(1, 2, x, "X"), yq = out_qp(3, 4, "Y");
    build_gap(x, &xq, &yq, (int)attr_i(NODE, "channels_last", 0));
}

static void h_maxpool(void)
{
    Val *xv = input(0, "X");
    Val *x = xv->kind == V_DQ ? xv->src : need_tensor(xv, "X");
    if (x->kind != V_TENSOR || !is8(x->otype)) fail("MaxPool of '%s': only int8/uint8 activations are supported", xv->name);
    if (NODE->n_output > 1 && NODE->output[1][0]) fail("the Indices output is not supported");
    if (x->rank != 4) fail("only 2-D pooling is supported");
    int64_t k[2];
    if (attr_ints(NODE, "kernel_shape", k, 2) != 2) fail("kernel_shape must have 2 values");
    if (k[0] < 1 || k[1] < 1 || k[0] > 4096 || k[1] > 4096) fail("kernel_shape out of range");
    if (attr_i(NODE, "ceil_mode", 0)) fail("ceil_mode is not supported");
    int sh, sw, dh, dw, pt, pl, oh, ow;
    conv_geometry(NODE, x->shape[2], x->shape[3], (int)k[0], (int)k[1], &sh, &sw, &dh, &dw, &pt, &pl, &oh, &ow);
    if (dh != 1 || dw != 1) fail("dilated pooling is not supported");
    int xin = as_nhwc(x);
    int32_t os[4] = {x->shape[0], x->shape[1], oh, ow};
    Val *y = out_val(0, x->otype, 4, os, 1, DT_INT8);
    G->tensors[y->t].q = G->tensors[x->t].q;
    Op *op = new_op(OP_MAXPOOL, xin, y->t);
    htc__pool_params *p = params(op, sizeof *p, "htc__pool_params");
    p->batches = x->shape[0]; p->in_h = x->shape[2]; p->in_w = x->shape[3]; p->c = x->shape[1];
    p->out_h = oh; p->out_w = ow; p->k_h = (int32_t)k[0]; p->k_w = (int32_t)k[1];
    p->stride_h = sh; p->stride_w = sw; p->pad_top = pt; p->pad_left = pl;
    p->act_min = -128; p->act_max = 127;
    op->k_h = (int)k[0]; op->k_w = (int)k[1]; op->stride_h = sh; op->stride_w = sw;
    op->pad_top = pt; op->pad_left = pl;
    op->macs = (int64_t)p->batches * oh * ow * p->c * p->k_h * p->k_w;
    op->batches = p->batches; op->in_h = p->in_h; op->in_w = p->in_w; op->in_c = op->out_c = p->c;
    op->out_h = oh; op->out_w = ow;
    if (xv->kind == V_DQ) {
        /* rewrap: output is the dequantization of the integer maxpool */
        Val *iv = y;
        iv->name = arena_printf("%s.int", y->name);
        Val *d = val_new(NODE->output[0], V_DQ);
        *d = *xv;
        d->name = arena_strdup(NODE->output[0]);
        d->src = iv;
        d->uses = 0;
        ort_propagate(d, xv);
        d->rank = 4;
        memcpy(d->shape, os, sizeof os);
    }
}

/* Reshape / Flatten / Squeeze / Unsqueeze: the ONNX-order bytes stay. */
static void reshape_to(Val *xv, int rank, const int32_t *shape)
{
    Val *x = xv->kind == V_DQ ? xv->src : xv;
    if (x->kind == V_CONST) fail("reshape of a constant is not supported");
    need_tensor(x, "data");
    if (shape_numel(shape, rank) != shape_numel(x->shape, x->rank)) fail("reshape changes the number of elements");
    int in = as_onnx(x);
    const char *name = xv->kind == V_DQ ? arena_printf("%s.int", NODE->output[0]) : NODE->output[0];
    Val *y;
    if (xv->kind == V_DQ) {
        y = arena_alloc(sizeof *y);
        y->name = name;
        y->kind = V_TENSOR;
        y->otype = x->otype;
        y->rank = rank;
        memcpy(y->shape, shape, sizeof(int32_t) * (size_t)rank);
        y->other = y->ct = -1;
        y->t = new_tensor(name, G->tensors[in].type, rank, shape);
        Val *d = val_new(NODE->output[0], V_DQ);
        *d = *xv;
        d->name = arena_strdup(NODE->output[0]);
        d->src = y;
        d->uses = 0;
        ort_propagate(d, xv);
        d->rank = rank;
        memcpy(d->shape, shape, sizeof(int32_t) * (size_t)rank);
    } else {
        y = out_val(0, x->otype, rank, shape, 0, G->tensors[in].type);
    }
    G->tensors[y->t].q = G->tensors[in].q;
    new_op(OP_RESHAPE, in, y->t);
}

static const int32_t *vshape(Val *v, int *rank)
{
    if (v->kind == V_CONST) {
        *rank = v->c->rank;
        return v->c->shape;
    }
    *rank = v->rank;
    return v->shape;
}

static void h_flatten(void)
{
    Val *x = input(0, "input");
    int r;
    const int32_t *s = vshape(x, &r);
    int64_t axis = attr_i(NODE, "axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis > r) fail("axis %lld out of range", (long long)axis);
    int32_t o[2] = {(int32_t)shape_numel(s, (int)axis), (int32_t)(shape_numel(s, r) / (shape_numel(s, (int)axis) ? shape_numel(s, (int)axis) : 1))};
    reshape_to(x, 2, o);
}

static void h_reshape(void)
{
    Val *x = input(0, "data");
    Const *sc = need_const(input(1, "shape"), "shape");
    if (sc->type != DT_INT64 || sc->rank != 1) fail("shape must be a 1-D int64 tensor");
    if (sc->n > MAX_RANK) fail("rank %lld is too large (at most %d)", (long long)sc->n, MAX_RANK);
    int r;
    const int32_t *s = vshape(x, &r);
    int64_t total = shape_numel(s, r), known = 1;
    int32_t o[MAX_RANK];
    int neg = -1;
    for (int i = 0; i < sc->n; i++) {
        int64_t d = const_int(sc, i);
        if (d == 0) {
            if (attr_i(NODE, "allowzero", 0)) fail("allowzero is not supported");
            if (i >= r) fail("shape entry 0 at %d has no input dimension", i);
            d = s[i];
        }
        if (d == -1) {
            if (neg >= 0) fail("more than one -1 in the shape");
            neg = i;
            o[i] = 1;
            continue;
        }
        if (d < 1 || d > INT32_MAX) fail("shape entry %lld is not supported", (long long)d);
        o[i] = (int32_t)d;
        known *= d;
        if (known > total) fail("shape does not match the %lld elements", (long long)total);
    }
    if (neg >= 0) {
        if (total % known) fail("shape does not match the %lld elements", (long long)total);
        o[neg] = (int32_t)(total / known);
    }
    reshape_to(x, (int)sc->n, o);
}

/* Squeeze / Unsqueeze: axes from the input (opset 13) or the attribute. */
static void h_squeeze(void)
{
    Val *x = input(0, "data");
    int unsq = !strcmp(NODE->op_type, "Unsqueeze");
    int r;
    const int32_t *s = vshape(x, &r);
    int64_t axes[MAX_RANK];
    int na;
    Val *av = opt_input(1);
    if (av) {
        Const *c = need_const(av, "axes");
        if (c->type != DT_INT64 || c->n > MAX_RANK) fail("axes must be at most %d int64 values", MAX_RANK);
        na = (int)c->n;
        for (int i = 0; i < na; i++) axes[i] = const_int(c, i);
    } else {
        na = attr_ints(NODE, "axes", axes, MAX_RANK);
    }
    int orank = unsq ? r + na : r;
    int32_t o[MAX_RANK];
    int mark[MAX_RANK + MAX_RANK] = {0};
    if (orank > MAX_RANK) fail("rank %d is too large (at most %d)", orank, MAX_RANK);
    for (int i = 0; i < na; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + orank : axes[i];
        if (a < 0 || a >= orank || mark[a]) fail("axis %lld is out of range or repeated", (long long)axes[i]);
        mark[a] = 1;
    }
    int n = 0;
    if (unsq) {
        for (int d = 0, k = 0; d < orank; d++) o[n++] = mark[d] ? 1 : s[k++];
    } else {
        for (int d = 0; d < r; d++) {
            if (na ? mark[d] : s[d] == 1) {
                if (s[d] != 1) fail("dimension %d has size %d, not 1", d, s[d]);
                continue;
            }
            o[n++] = s[d];
        }
    }
    reshape_to(x, n, o);
}

/* Identity: the output is the input. */
static void h_identity(void)
{
    Val *x = input(0, "input");
    Val *y = val_new(NODE->output[0], V_TENSOR);
    Val keep = *y;
    *y = *x;
    y->name = keep.name;
    y->uses = 0;
    y->ident = 1;
}

static void h_transpose(void)
{
    Val *xv = input(0, "data");
    Val *x = xv->kind == V_DQ ? xv->src : need_tensor(xv, "data");
    if (x->kind != V_TENSOR) fail("transpose of a constant is not supported");
    int64_t perm[MAX_RANK];
    int n = attr_ints(NODE, "perm", perm, MAX_RANK);
    int p[MAX_RANK];
    if (!n) {
        n = x->rank;
        for (int i = 0; i < n; i++) perm[i] = n - 1 - i;
    }
    if (n != x->rank) fail("perm has %d entries for rank %d", n, x->rank);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || (seen & (1 << perm[i]))) fail("perm is not a permutation");
        seen |= 1 << perm[i];
        p[i] = (int)perm[i];
    }
    int in = as_onnx(x);
    int out = transpose(in, p, n, "t");
    int32_t os[MAX_RANK];
    for (int i = 0; i < n; i++) os[i] = x->shape[p[i]];
    Val *y = val_new(xv->kind == V_DQ ? arena_printf("%s.int", NODE->output[0]) : NODE->output[0], V_TENSOR);
    y->otype = x->otype;
    y->rank = n;
    memcpy(y->shape, os, sizeof os);
    y->t = out;
    G->tensors[out].name = arena_strdup(y->name);
    if (xv->kind == V_DQ) {
        Val *d = val_new(NODE->output[0], V_DQ);
        Val keep = *d;
        *d = *xv;
        d->name = keep.name;
        d->src = y;
        d->uses = 0;
        ort_propagate(d, xv);
        d->rank = n;
        memcpy(d->shape, os, sizeof os);
    }
}

/* onnxruntime's MatMulAddFusion: a pending MatMul read only by the current
   Add, with 2-D operands and a bias of shape [N], [1, N], [M, 1] or [M, N],
   becomes a pending Gemm (named as onnxruntime names it). */
static int matmul_add(void)
{
    for (int side = 0; side < 2; side++) {
        Val *m = val_find(NODE->input[side]), *c = val_find(NODE->input[1 - side]);
        if (!m || !c || m->kind != V_FLOAT || !op_is(m->node, "MatMul") || m->relu || c->kind != V_DQ) continue;
        Readers r = {0};
        readers_add(&r, m->name, 0);
        Val *a = m->in[0], *b = m->in[1];
        if (r.n != 1 || r.out || !a || !b || b->rank != 2) continue;
        if (a->rank != 2)
            fail("MatMul '%s' (rank-%d input) + Add: onnxruntime makes them a Gemm between two Reshapes, which htc "
                 "does not reproduce", m->node->name, a->rank);
        int32_t M = a->shape[0], N = b->shape[1];
        const int32_t *cs = c->shape;
        if (!((c->rank == 1 && cs[0] == N) || (c->rank == 2 && cs[0] == 1 && cs[1] == N) ||
              (c->rank == 2 && cs[0] == M && (cs[1] == 1 || cs[1] == N))))
            continue;
        Onnx__NodeProto *g = arena_alloc(sizeof *g);
        *g = *m->node;
        g->name = arena_printf("%s/MatMulAddFusion", m->node->name ? m->node->name : "");
        g->op_type = "Gemm";
        g->n_input = 3;
        g->input = arena_alloc(3 * sizeof(char *));
        g->input[0] = m->node->input[0];
        g->input[1] = m->node->input[1];
        g->input[2] = NODE->input[1 - side];
        g->n_output = 1;
        g->output = arena_alloc(sizeof(char *));
        g->output[0] = NODE->output[0];
        g->n_attribute = 0;
        g->attribute = NULL;
        Val *v = val_new(NODE->output[0], V_FLOAT);
        v->node = g;
        v->node_index = m->node_index;
        v->in[0] = a;
        v->in[1] = b;
        v->in[2] = c;
        return 1;
    }
    return 0;
}

/* Relu or Clip on an int8 activation (ONNX opset >= 14 allows them on
   integers; onnxruntime clamps the stored values, e.g. QLinearConv ->
   Relu as HTVM's integer layers clip to [0, 127]): the clamp of the integer
   op that wrote x narrows, when this node is x's only reader; the output is
   x itself. */
static void int_clamp(Val *x, const char *op)
{
    if (x->otype != DT_INT8) fail("%s of '%s' (%s): only int8 integer activations are clamped", op, x->name,
                                  dtype_name(x->otype));
    if (x->uses != 1) fail("%s of the int8 activation '%s', which has other readers, is not supported", op, x->name);
    Op *p = NULL;
    for (int i = G->nops - 1; i >= 0 && !p; i--)
        if (G->ops[i].out[0] == x->t) p = &G->ops[i];
    if (!p || !p->params || p->int32_out || (p->kind != OP_CONV2D && p->kind != OP_FC && p->kind != OP_ADD))
        fail("%s of the int8 activation '%s': htc folds it into a QLinearConv, QGemm, QLinearMatMul or QLinearAdd "
             "that writes it, not into %s", op, x->name, p ? op_name(p->kind) : "a graph input");
    int32_t lo = 0, hi = 127;
    if (!strcmp(op, "Clip")) {
        Val *mn = opt_input(1), *mx = opt_input(2);
        if (attr(NODE, "min") || attr(NODE, "max")) fail("Clip with min/max attributes (opset < 11) is not supported");
        lo = mn ? (int32_t)const_int(need_const(mn, "min"), 0) : -128;
        hi = mx ? (int32_t)const_int(need_const(mx, "max"), 0) : 127;
        if ((mn && mn->c->type != DT_INT8) || (mx && mx->c->type != DT_INT8)) fail("Clip bounds must be int8");
    }
    int32_t *qmin, *qmax;
    if (p->kind == OP_CONV2D) {
        htc__qconv_params *q = p->params;
        qmin = &q->qmin; qmax = &q->qmax;
    } else if (p->kind == OP_FC) {
        htc__qfc_params *q = p->params;
        qmin = &q->qmin; qmax = &q->qmax;
    } else {
        htc__qbinary_params *q = p->params;
        if (q->out_off) fail("%s of '%s': the add's output is uint8", op, x->name);
        qmin = &q->qmin; qmax = &q->qmax;
    }
    if (lo > *qmin) *qmin = lo;
    if (hi < *qmax) *qmax = hi;
    if (*qmin > *qmax) fail("%s of '%s': the bounds [%d, %d] leave no value", op, x->name, (int)lo, (int)hi);
    p->act_min = *qmin;
    p->act_max = *qmax;
    Val *y = val_new(NODE->output[0], V_TENSOR);
    Val keep = *y;
    *y = *x;
    y->name = keep.name;
    y->uses = 0;
}

/* A float op of a QDQ group: pending until its QuantizeLinear. */
static void h_float(void)
{
    const char *op = NODE->op_type;
    if (!strcmp(op, "Relu") || !strcmp(op, "Clip")) {
        Val *x = input(0, "X");
        if (x->kind == V_TENSOR) {
            int_clamp(x, op);
            return;
        }
        if (x->kind == V_FLOAT && x->uses == 1) {
            /* an activation after a float op: onnxruntime removes it when the
               QuantizeLinear that follows saturates to the same range
               (ReluQuantFusion, ClipQuantFusion); checked there */
            float lo = 0, hi = INFINITY;
            if (!strcmp(op, "Clip")) {
                Val *mn = opt_input(1), *mx = opt_input(2);
                lo = mn ? const_f(need_const(mn, "min"), 0) : -INFINITY;
                hi = mx ? const_f(need_const(mx, "max"), 0) : INFINITY;
                if (attr(NODE, "min") || attr(NODE, "max")) fail("Clip with min/max attributes (opset < 11) is not supported");
            }
            Val *v = val_new(NODE->output[0], V_FLOAT);
            Val keep = *v;
            *v = *x;
            v->name = keep.name;
            v->uses = 0;
            v->relu = x->relu ? 3 : !strcmp(op, "Relu") ? 1 : 2;
            v->clip_lo = x->relu ? (lo > x->clip_lo ? lo : x->clip_lo) : lo;
            v->clip_hi = x->relu ? (hi < x->clip_hi ? hi : x->clip_hi) : hi;
            return;
        }
    }
    if (!strcmp(op, "Add") && NODE->n_input == 2 && matmul_add()) return;
    Val *v = val_new(NODE->output[0], V_FLOAT);
    v->node = NODE;
    v->node_index = NODE_INDEX;
    if (NODE->n_input > OP_MAX_IO) fail("more than %d inputs", OP_MAX_IO);
    for (size_t i = 0; i < NODE->n_input; i++) {
        if (!NODE->input[i][0]) continue;
        Val *x = input((int)i, "input");
        if (x->kind == V_FLOAT)
            fail("input '%s' is a float result that is not quantized: onnxruntime computes this in float%s", x->name,
                 OPTS->float_fallback >= 0 ? " (--float-fallback reproduces " FF_OPS " groups between DequantizeLinear and "
                                  "QuantizeLinear, not chains of float ops)" : "");
        if (x->kind == V_TENSOR && x->otype == DT_FLOAT32)
            fail("float input '%s': htc compiles quantized graphs (QDQ or QOperator) only", x->name);
        if (x->kind == V_CONST && (strcmp(op, "Clip") || i == 0) && (strcmp(op, "Pad") || i == 0))
            fail("float constant '%s': htc compiles quantized graphs only", x->name);
        if (x->kind == V_TENSOR) fail("input '%s' is not dequantized (a DequantizeLinear output)", x->name);
        v->in[i] = x;
    }
    if (NODE->n_input < 1 || !v->in[0]) fail("missing input");
    /* the second operand the fused builders read (a Conv's weights, ...) */
    static const char *const binary[] = {"Conv", "ConvTranspose", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", NULL};
    for (int i = 0; binary[i]; i++)
        if (!strcmp(op, binary[i]) && (NODE->n_input < 2 || !v->in[1])) fail("missing input 1 (%s has two operands)", op);
}

/* ---- more QOperator / QDQ builders ---------------------------------------- */

static void build_mul(Val *a, const QP *aq, Val *b, const QP *bq, const QP *cq)
{
    float as, bs, cs;
    int32_t azs, bzs, czs;
    per_tensor(aq, "A", &as, &azs);
    per_tensor(bq, "B", &bs, &bzs);
    per_tensor(cq, "C", &cs, &czs);
    int ra, rb;
    const int32_t *sa = vshape0(a, &ra), *sb = vshape0(b, &rb);
    int64_t na = shape_numel(sa, ra), nb = shape_numel(sb, rb);
    int same = ra == rb && !memcmp(sa, sb, sizeof(int32_t) * (size_t)ra);
    if (!same && na != 1 && nb != 1 && !same_elems(sa, ra, sb, rb))
        fail("broadcasting '%s' and '%s' is not supported (only equal shapes or a single element)", a->name, b->name);
    Val *big = na > nb || (na == nb && (b->kind == V_CONST || (a->kind != V_CONST && ra >= rb))) ? a : b;
    if (big->kind == V_CONST) fail("both operands are constants");
    int ta, tb, nhwc = 0;
    if (same && a->kind == V_TENSOR && a->nhwc && b->kind == V_TENSOR) {
        ta = a->t;
        tb = as_nhwc(b);
        nhwc = 1;
    } else {
        ta = tensor8(a, "A");
        tb = tensor8(b, "B");
    }
    Val *y = out_val(0, cq->type, big->rank, big->shape, nhwc, DT_INT8);
    Op *op = new_op(OP_MUL, ta, y->t);
    op->nin = 2;
    op->in[1] = tb;
    htc__qbinary_params *p = params(op, sizeof *p, "htc__qbinary_params");
    p->size = (int32_t)(na > nb ? na : nb);
    p->a_scalar = na == 1 && nb != 1;
    p->b_scalar = nb == 1 && na != 1;
    op->broadcast = p->a_scalar || p->b_scalar;
    p->a_zp = azs;
    p->b_zp = bzs;
    p->out_off = st_off(cq->type);      /* MlasQLinearMul: + zero point in float, then saturate */
    p->fixed = (float)cq->zp[0];
    p->qmin = cq->type == DT_UINT8 ? 0 : -128;
    p->qmax = p->qmin + 255;
    volatile float t = as * bs;
    volatile float r = t / cs;
    p->ra = r;
    op->rq = RQ_FLOAT;
    op->nch = 1;
    set_quant(y->t, cs, czs);
}

/* QLinearAveragePool, or with float_pool the float AveragePool and
   QuantizeLinear of a group onnxruntime leaves in float. */
static void build_avgpool(Val *x, const QP *xq, const QP *yq, int channels_last, int float_pool)
{
    float xs, ys;
    int32_t xzp, yzp;
    per_tensor(xq, "input", &xs, &xzp);
    per_tensor(yq, "output", &ys, &yzp);
    if (channels_last) fail("channels_last pooling is not supported");
    if (x->kind != V_TENSOR || x->rank != 4) fail("only 2-D pooling of an activation is supported");
    int64_t k[2];
    if (attr_ints(NODE, "kernel_shape", k, 2) != 2) fail("kernel_shape must have 2 values");
    if (k[0] < 1 || k[1] < 1 || k[0] > 4096 || k[1] > 4096) fail("kernel_shape out of range");
    if (attr_i(NODE, "ceil_mode", 0)) fail("ceil_mode is not supported");
    int sh, sw, dh, dw, pt, pl, oh, ow;
    conv_geometry(NODE, x->shape[2], x->shape[3], (int)k[0], (int)k[1], &sh, &sw, &dh, &dw, &pt, &pl, &oh, &ow);
    if (dh != 1 || dw != 1) fail("dilated pooling is not supported");
    int64_t pads[4] = {0, 0, 0, 0};
    attr_ints(NODE, "pads", pads, 4);
    const char *ap = attr_s(NODE, "auto_pad", "NOTSET");
    if (strcmp(ap, "NOTSET")) pads[0] = pads[1] = pads[2] = pads[3] = strcmp(ap, "VALID") && (k[0] > 1 || k[1] > 1);
    if (!float_pool && k[0] == x->shape[2] && k[1] == x->shape[3] && !pads[0] && !pads[1] && !pads[2] && !pads[3]) {
        /* QLinearAveragePool over the whole image runs onnxruntime's
           QLinearGlobalAveragePool arithmetic */
        build_gap(x, xq, yq, 0);
        return;
    }
    int xin = as_nhwc(x);
    int32_t os[4] = {x->shape[0], x->shape[1], oh, ow};
    Val *y = out_val(0, yq->type, 4, os, 1, DT_INT8);
    Op *op = new_op(OP_AVGPOOL, xin, y->t);
    htc__qavgpool_params *p = params(op, sizeof *p, "htc__qavgpool_params");
    p->batches = x->shape[0]; p->in_h = x->shape[2]; p->in_w = x->shape[3]; p->c = x->shape[1];
    p->out_h = oh; p->out_w = ow; p->k_h = (int32_t)k[0]; p->k_w = (int32_t)k[1];
    p->stride_h = sh; p->stride_w = sw; p->pad_top = pt; p->pad_left = pl;
    p->count_include_pad = (int32_t)attr_i(NODE, "count_include_pad", 0);
    p->quantize_linear = float_pool;
    p->out_zp = yq->zp[0];
    p->out_off = st_off(yq->type);
    p->qmin = yq->type == DT_UINT8 ? 0 : -128;
    p->qmax = p->qmin + 255;
    p->out_scale = ys;
    deq_table(xq, p->deq, "input");
    op->k_h = (int)k[0]; op->k_w = (int)k[1]; op->stride_h = sh; op->stride_w = sw;
    op->pad_top = pt; op->pad_left = pl;
    op->rq = RQ_FLOAT;
    op->nch = 1;
    op->macs = (int64_t)p->batches * oh * ow * p->c * p->k_h * p->k_w;
    op->batches = p->batches; op->in_h = p->in_h; op->in_w = p->in_w; op->in_c = op->out_c = p->c;
    op->out_h = oh; op->out_w = ow;
    set_quant(y->t, ys, yzp);
}

/* The rows a Softmax normalises: its input tensor (NHWC for a 4-D softmax
   over channels, so they are innermost) and the row length. Opset < 13
   flattens from axis on (onnxruntime computes that as [outer, depth] rows);
   opset 13 normalises one axis (onnxruntime transposes it innermost). */
static int softmax_rows(Val *x, int64_t axis, int opset, int *nhwc, int64_t *depth)
{
    if (x->kind != V_TENSOR) fail("input must be an activation");
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis >= x->rank) fail("axis %lld out of range", (long long)axis);
    *nhwc = 0;
    if (opset < 13) {
        *depth = shape_numel(x->shape + axis, x->rank - (int)axis);
        return tensor8(x, "input");
    }
    if (axis == x->rank - 1) {
        *depth = x->shape[axis];
        return tensor8(x, "input");
    }
    if (x->rank == 4 && axis == 1) {            /* channels: innermost in NHWC */
        *nhwc = 1;
        *depth = x->shape[1];
        return as_nhwc(x);
    }
    fail("softmax over axis %lld of a rank-%d tensor is not supported (innermost axis only)", (long long)axis, x->rank);
}

static void build_softmax(Val *x, const QP *xq, const QP *yq, int64_t axis, int opset)
{
    float xs, ys;
    int32_t xzp, yzp;
    per_tensor(xq, "input", &xs, &xzp);
    per_tensor(yq, "output", &ys, &yzp);
    if (xq->type != yq->type) fail("input and output types differ");
    int nhwc;
    int64_t depth;
    int xin = softmax_rows(x, axis, opset, &nhwc, &depth);
    Val *y = out_val(0, yq->type, x->rank, x->shape, nhwc, DT_INT8);
    Op *op = new_op(OP_SOFTMAX, xin, y->t);
    htc__qsoftmax_params *p = params(op, sizeof *p, "htc__qsoftmax_params");
    p->depth = (int32_t)depth;
    p->outer = (int32_t)(shape_numel(x->shape, x->rank) / depth);
    p->out_zp = yq->zp[0];
    p->out_off = st_off(yq->type);
    p->is_signed = yq->type == DT_INT8;
    volatile float inv = 1.0f / ys;
    p->y_scale = floorf(inv);
    /* QlinearBuildLookupTableUint32: make sum(exp(x)) < FLT_MAX */
    volatile float fm = 3.40282347e+38f / (float)depth;
    double shift = log((double)fm);
    shift = (shift - 5.0 > 0.0 ? shift - 5.0 : 0.0) / (double)xs;
    for (int i = 0; i < 256; i++) p->table[i] = (float)exp(((double)i - 255 + shift) * (double)xs);
    op->rq = RQ_FLOAT;
    op->nch = 1;
    set_quant(y->t, ys, yzp - st_off(yq->type));
}

/* MlasComputeLogistic as the x86-64 FMA3 kernel evaluates it. */
static float f_logistic(float x, const float *arg)
{
    (void)arg;
    float v = x < -18.0f ? -18.0f : x;
    v = v > 18.0f ? 18.0f : v;
    float v2 = v * v;
    float p = fmaf(v2, 4.37031012579801e-11f, 1.15627324459942e-07f);
    p = fmaf(p, v2, 6.08574864600143e-05f);
    p = fmaf(p, v2, 8.51377133304701e-03f);
    p = fmaf(p, v2, 2.48287947061529e-01f);
    p = p * v;
    float q = fmaf(v2, 6.10247389755681e-13f, 5.76102136993427e-09f);
    q = fmaf(q, v2, 6.29106785017040e-06f);
    q = fmaf(q, v2, 1.70198817374094e-03f);
    q = fmaf(q, v2, 1.16817656904453e-01f);
    q = fmaf(q, v2, 9.93151921023180e-01f);
    volatile float r = p / q;
    float o = r + 0.5f;
    return o < 0 ? 0 : (o > 1 ? 1 : o);
}

static float f_leaky(float x, const float *arg) { return x >= 0 ? x : arg[0] * x; }

/* A table op from activation x (params xq) to a new value (params yq). */
static void build_unary(Val *x, const QP *xq, const QP *yq, UnaryF f, const float *arg)
{
    float xs, ys;
    int32_t xzp, yzp;
    per_tensor(xq, "input", &xs, &xzp);
    per_tensor(yq, "output", &ys, &yzp);
    if (x->kind != V_TENSOR) fail("input must be an activation");
    Val *y = out_val(0, yq->type, x->rank, x->shape, x->nhwc, DT_INT8);
    lut_op(x->t, xq->type, xs, xq->zp[0], yq->type, ys, yq->zp[0], f, arg, y->t);
}

/* Concat: every input requantized by table where its parameters differ
   from the output's (QLinearConcat's lookup tables), then a byte copy. */
static void build_concat(Val **xs, const QP *xq, int n, const QP *yq, int64_t axis)
{
    if (n < 1 || n > OP_MAX_IO) fail("%d inputs", n);
    int rank = xs[0]->rank;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) fail("axis %lld out of range", (long long)axis);
    int all_nhwc = rank == 4 && axis == 1;
    int32_t os[MAX_RANK];
    memcpy(os, xs[0]->shape, sizeof os);
    os[axis] = 0;
    for (int i = 0; i < n; i++) {
        Val *x = xs[i];
        if (x->kind != V_TENSOR) fail("input '%s' must be an activation", x->name);
        if (x->rank != rank) fail("input '%s' has rank %d, expected %d", x->name, x->rank, rank);
        for (int d = 0; d < rank; d++)
            if (d != axis && x->shape[d] != xs[0]->shape[d]) fail("input '%s' differs in dimension %d", x->name, d);
        os[axis] += x->shape[axis];
        if (!x->nhwc) all_nhwc = 0;
    }
    float ys;
    int32_t yzp;
    per_tensor(yq, "output", &ys, &yzp);
    Val *y = out_val(0, yq->type, rank, os, all_nhwc, DT_INT8);
    int ins[OP_MAX_IO];
    for (int i = 0; i < n; i++) {
        float s;
        int32_t z;
        per_tensor(&xq[i], "input", &s, &z);
        int t = all_nhwc ? xs[i]->t : as_onnx(xs[i]);
        if (s != ys || z != yzp || xq[i].type != yq->type) {
            int r = new_tensor(arena_printf("%s.requant", xs[i]->name), DT_INT8, G->tensors[t].rank, G->tensors[t].shape);
            lut_op(t, xq[i].type, s, xq[i].zp[0], yq->type, ys, yq->zp[0], f_identity, NULL, r);
            t = r;
        }
        ins[i] = t;
    }
    int ax = all_nhwc ? 3 : (int)axis;
    const Tensor *out = &G->tensors[y->t];
    Op *op = new_op(OP_CONCAT, ins[0], y->t);
    op->nin = n;
    for (int i = 0; i < n; i++) op->in[i] = ins[i];
    op->axis = ax;
    htc__concat_params *p = params(op, sizeof *p, "htc__concat_params");
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; d++) outer *= out->shape[d];
    for (int d = ax + 1; d < rank; d++) inner *= out->shape[d];
    int32_t *ab = arena_alloc(sizeof(int32_t) * (size_t)n);
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        ab[i] = (int32_t)(G->tensors[ins[i]].shape[ax] * inner);
        sum += ab[i];
    }
    p->outer = (int32_t)outer;
    p->out_axis_bytes = (int32_t)sum;
    p->n = n;
    p->axis_bytes = ab;
}

/* Pad (constant mode) of an int8/uint8 activation with a quantized value. */
static void build_pad(Val *x, int32_t value_stored)
{
    if (x->kind != V_TENSOR) fail("input must be an activation");
    const char *mode = attr_s(NODE, "mode", "constant");
    if (strcmp(mode, "constant")) fail("pad mode '%s' is not supported", mode);
    Const *pc = need_const(input(1, "pads"), "pads");
    if (pc->type != DT_INT64 || pc->n != 2 * x->rank) fail("pads must be %d int64 values", 2 * x->rank);
    if (opt_input(3)) fail("the axes input is not supported");
    if (x->rank > 5) fail("rank %d: at most 5 is supported", x->rank);
    int nhwc = x->nhwc;
    int32_t os[MAX_RANK];
    int64_t before[MAX_RANK], after[MAX_RANK];
    for (int d = 0; d < x->rank; d++) {
        before[d] = const_int(pc, d);
        after[d] = const_int(pc, d + x->rank);
        if (before[d] < 0 || after[d] < 0 || before[d] > 65536 || after[d] > 65536) fail("pads must be in 0..65536");
        os[d] = (int32_t)(x->shape[d] + before[d] + after[d]);
    }
    Val *y = out_val(0, x->otype, x->rank, os, nhwc, DT_INT8);
    Op *op = new_op(OP_PAD, x->t, y->t);
    htc__pad_params *p = params(op, sizeof *p, "htc__pad_params");
    p->rank = 5;
    p->elem_size = 1;
    p->pad_value = value_stored;
    const Tensor *t = &G->tensors[x->t];
    int off = 5 - t->rank;
    for (int i = 0; i < 5; i++) p->in_shape[i] = 1;
    for (int i = 0; i < t->rank; i++) {
        int od = nhwc ? (int[]){0, 2, 3, 1}[i] : i;      /* the ONNX axis of storage dim i */
        p->in_shape[off + i] = t->shape[i];
        p->before[off + i] = (int32_t)before[od];
        p->after[off + i] = (int32_t)after[od];
    }
    G->tensors[y->t].q = G->tensors[x->t].q;
}

static void h_qlinearmul(void)
{
    Val *a = input(0, "A"), *b = input(3, "B");
    QP aq = in_qp(1, 2, a, "A"), bq = in_qp(4, 5, b, "B"), cq = out_qp(6, 7, "C");
    build_mul(a, &aq, b, &bq, &cq);
}

static void h_qlinearavgpool(void)
{
    Val *x = need_tensor(input(0, "X"), "X");
    QP xq = in_qp(1, 2, x, "X"), yq = out_qp(3, 4, "Y");
    build_avgpool(x, &xq, &yq, (int)attr_i(NODE, "channels_last", 0), 0);
}

static void h_qlinearsoftmax(void)
{
    Val *x = need_tensor(input(0, "X"), "X");
    QP xq = in_qp(1, 2, x, "X"), yq = out_qp(3, 4, "Y");
    int64_t opset = attr_i(NODE, "opset", -1);
    if (opset < 0) fail("attribute 'opset' is required");
    build_softmax(x, &xq, &yq, attr_i(NODE, "axis", opset < 13 ? 1 : -1), (int)opset);
}

static void h_qlinearsigmoid(void)
{
    Val *x = need_tensor(input(0, "X"), "X");
    QP xq = in_qp(1, 2, x, "X"), yq = out_qp(3, 4, "Y");
    build_unary(x, &xq, &yq, f_logistic, NULL);
}

static void h_qlinearleakyrelu(void)
{
    Val *x = need_tensor(input(0, "X"), "X");
    QP xq = in_qp(1, 2, x, "X"), yq = out_qp(3, 4, "Y");
    float alpha = attr_f(NODE, "alpha", 0.01f);
    build_unary(x, &xq, &yq, f_leaky, &alpha);
}

static void h_qlinearconcat(void)
{
    if (NODE->n_input < 5 || (NODE->n_input - 2) % 3) fail("inputs must be Y_scale, Y_zero_point, then (X, scale, zero point) triples");
    int n = (int)(NODE->n_input - 2) / 3;
    if (n > OP_MAX_IO) fail("more than %d inputs", OP_MAX_IO);
    QP yq = out_qp(0, 1, "Y");
    Val *xs[OP_MAX_IO];
    QP xq[OP_MAX_IO];
    for (int i = 0; i < n; i++) {
        xs[i] = need_tensor(input(2 + 3 * i, "X"), "X");
        xq[i] = in_qp(3 + 3 * i, 4 + 3 * i, xs[i], "X");
    }
    build_concat(xs, xq, n, &yq, attr_i(NODE, "axis", 0));
}

/* Pad of an int8/uint8 tensor (QOperator models pad the integers). */
static void h_pad(void)
{
    Val *xv = input(0, "data");
    if (xv->kind == V_DQ) {
        h_float();
        return;
    }
    Val *x = need_tensor(xv, "data");
    if (!is8(x->otype)) fail("Pad of %s tensors is not supported", dtype_name(x->otype));
    Val *cv = opt_input(2);
    int32_t v = 0;
    if (cv) {
        Const *c = need_const(cv, "constant_value");
        if (c->type != x->otype || c->n != 1) fail("constant_value must be one %s value", dtype_name(x->otype));
        v = (int32_t)const_int(c, 0);
    }
    build_pad(x, v - st_off(x->otype));
}

/* ---- the graph ------------------------------------------------------------------ */

typedef struct {
    const char *op, *domain;
    void (*fn)(void);
} Handler;

static const Handler handlers[] = {
    {"QuantizeLinear", "", h_quantize},
    {"DequantizeLinear", "", h_dequantize},
    {"QuantizeLinear", "com.microsoft", h_quantize},
    {"DequantizeLinear", "com.microsoft", h_dequantize},
    {"QLinearConv", "", h_qlinearconv},
    {"QLinearConv", "com.microsoft", h_qlinearconv},
    {"ConvInteger", "", h_convinteger},
    {"QLinearMatMul", "", h_qlinearmatmul},
    {"MatMulInteger", "", h_matmulinteger},
    {"QGemm", "com.microsoft", h_qgemm},
    {"QLinearAdd", "com.microsoft", h_qlinearadd},
    {"QLinearGlobalAveragePool", "com.microsoft", h_qlineargap},
    {"QLinearMul", "com.microsoft", h_qlinearmul},
    {"QLinearAveragePool", "com.microsoft", h_qlinearavgpool},
    {"QLinearSoftmax", "com.microsoft", h_qlinearsoftmax},
    {"QLinearSigmoid", "com.microsoft", h_qlinearsigmoid},
    {"QLinearLeakyRelu", "com.microsoft", h_qlinearleakyrelu},
    {"QLinearConcat", "com.microsoft", h_qlinearconcat},
    {"Pad", "", h_pad},
    {"Mul", "", h_float},
    {"AveragePool", "", h_float},
    {"Softmax", "", h_float},
    {"Sigmoid", "", h_float},
    {"LeakyRelu", "", h_float},
    {"Concat", "", h_float},
    {"MaxPool", "", h_maxpool},
    {"Flatten", "", h_flatten},
    {"Reshape", "", h_reshape},
    {"Transpose", "", h_transpose},
    {"Conv", "", h_float},
    {"Gemm", "", h_float},
    {"MatMul", "", h_float},
    {"Add", "", h_float},
    {"GlobalAveragePool", "", h_float},
    {"Relu", "", h_float},
    {"Clip", "", h_float},
    {"Identity", "", h_identity},
    {"Squeeze", "", h_squeeze},
    {"Unsqueeze", "", h_squeeze},
};

static int is_onnx_domain(const char *d) { return !d || !*d || !strcmp(d, "ai.onnx"); }

/* versions: QuantLib's integer form has no QuantizeLinear, any opset does */
static void check_opsets(const Onnx__ModelProto *m, int versions)
{
    int has_default = 0;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        if (is_onnx_domain(o->domain)) {
            has_default = 1;
            if (versions && o->has_version && o->version < 10) fail("opset %lld is too old (QuantizeLinear needs opset 10)", (long long)o->version);
        }
    }
    if (!has_default && m->n_opset_import) fail("the model imports no default ONNX opset");
}

/* The outputs of a refused node (or of a node reading one), marked: their
   consumers are not checked. */
static void node_poison(const Onnx__NodeProto *nd)
{
    for (size_t o = 0; o < nd->n_output; o++) {
        if (!nd->output[o] || !nd->output[o][0]) continue;
        Val *v = val_find(nd->output[o]);
        if (!v) v = val_new(nd->output[o], V_TENSOR);
        v->refused = 1;
    }
}

/* One node translated by its handler. A node reading an output of a
   refused node is not checked (its inputs are unknown) unless htc has no
   handler for it: it is then refused too, and its outputs marked. */
static void node_translate(const Onnx__GraphProto *gr, size_t n)
{
    NODE = gr->node[n];
    NODE_INDEX = (int)n;
    if (!NODE->op_type) fail("node without op_type");
    if (NODE->n_output < 1) fail("node without outputs");
    const Handler *hd = NULL;
    for (size_t k = 0; k < sizeof handlers / sizeof handlers[0]; k++)
        if (!strcmp(handlers[k].op, NODE->op_type) &&
            ((!*handlers[k].domain && is_onnx_domain(NODE->domain)) ||
             (*handlers[k].domain && NODE->domain && !strcmp(NODE->domain, handlers[k].domain))))
            hd = &handlers[k];
    if (!hd) fail("unsupported operator");
    for (size_t i = 0; i < NODE->n_input; i++) {
        Val *v = NODE->input[i][0] ? val_find(NODE->input[i]) : NULL;
        if (v && v->refused) {
            node_poison(NODE);
            return;
        }
    }
    for (size_t i = 1; i < NODE->n_output; i++)
        if (NODE->output[i][0] && strcmp(NODE->op_type, "MaxPool")) fail("only one output is supported");
    hd->fn();
    /* count the uses of the new value(s) */
    for (size_t o = 0; o < 1; o++) {
        Val *v = val_find(NODE->output[o]);
        if (!v) continue;
        const Name *e = name_get(v->name, 0);
        for (int u = 0; u < e->nuse; u++) v->uses += e->use[u].node > (int)n;
        v->uses += e->nout;
    }
}

/* The first node that reads value `name`, or -1. */
static int first_reader(const char *name)
{
    const Name *e = name_get(name, 0);
    int f = -1;
    for (int u = 0; e && u < e->nuse; u++)
        if (f < 0 || e->use[u].node < f) f = e->use[u].node;
    return f;
}

/* An initializer's or graph input's own problem (its type, size, shape,
   external data) is listed as a problem of the first node that reads it
   (after the nodes when none does), and the value marked refused: its
   readers are not checked, as a refused node's. Set before reading it. */
static void value_blame(const Onnx__GraphProto *gr, const char *name)
{
    int f = first_reader(name);
    NODE = f >= 0 ? gr->node[f] : NULL;
    NODE_INDEX = f;
    AFTER_NODES = f < 0;
}

static void value_blame_end(void)
{
    NODE = NULL;
    AFTER_NODES = 0;
    refuse_catch(NULL);
}

/* Initializer t into v->c; 0 when refused (value_blame) */
static int init_try(const Onnx__GraphProto *gr, const Onnx__TensorProto *t, Val *v)
{
    jmp_buf jb;
    value_blame(gr, t->name);
    if (setjmp(jb)) {
        value_blame_end();
        return 0;
    }
    refuse_catch(&jb);
    v->c = tensor_const(t, arena_printf("initializer '%s'", t->name));
    value_blame_end();
    return 1;
}

/* Graph input vi's type and shape (parse_dims); -1 when refused (value_blame) */
static int dims_try(const Onnx__GraphProto *gr, const Onnx__ValueInfoProto *vi, DType *dt, int32_t *shape)
{
    jmp_buf jb;
    value_blame(gr, vi->name);
    if (setjmp(jb)) {
        value_blame_end();
        return -1;
    }
    refuse_catch(&jb);
    int rank = parse_dims(vi, "graph input", dt, shape);
    value_blame_end();
    return rank;
}

/* 1 when node n translated, 0 when it was refused (recorded by refuse) */
static int node_try(const Onnx__GraphProto *gr, size_t n)
{
    jmp_buf jb;
    if (setjmp(jb)) return 0;
    refuse_catch(&jb);
    node_translate(gr, n);
    refuse_catch(NULL);
    return 1;
}

Graph *onnx_read(const char *path, const ReadOptions *opts)
{
    PATH = path;
    OPTS = opts;
    SHAPE_USED = arena_alloc((size_t)opts->nshapes + 1);
    NODE = NULL;
    AFTER_NODES = 0;
    vals = NULL;
    nvals = capvals = 0;
    size_t len;
    const uint8_t *buf = read_file(path, &len);
    Graph *g = arena_alloc(sizeof *g);
    G = g;
    g->path = path;
    g->format = SRC_ONNX;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) h = (h ^ buf[i]) * 16777619u;
    g->hash = h;
    if (len == 0) die("%s: empty file, not an ONNX model", path);

    const char *e = wire_check(buf, len, &onnx__model_proto__descriptor, 0);
    if (e) die("%s: not a valid ONNX model (protobuf): %s", path, e);
    Onnx__ModelProto *m = onnx__model_proto__unpack(&pb_arena, len, buf);
    if (!m) die("%s: not a valid ONNX model (protobuf decoding failed)", path);
    if (!m->graph) die("%s: the model has no graph", path);
    const Onnx__GraphProto *gr = m->graph;
    check_opsets(m, !qlib_is_form(gr));
    GR = gr;
    OPSETS = m;
    index_graph(gr);
    if (gr->n_sparse_initializer) fail("sparse initializers are not supported");
    if (qlib_is_form(gr)) {     /* QuantLib's integer form: gen/qlib.c */
        qlib_read(g, gr, path);
        readopt_shapes_check(OPTS, SHAPE_USED, path);
        onnx__model_proto__free_unpacked(m, &pb_arena);
        return g;
    }

    /* initializers (a problem of one: value_blame) */
    for (size_t i = 0; i < gr->n_initializer; i++) {
        const Onnx__TensorProto *t = gr->initializer[i];
        if (!t->name || !*t->name) fail("initializer %zu has no name", i);
        Val *v = val_new(t->name, V_CONST);
        if (!init_try(gr, t, v)) {      /* refused: a placeholder for the look-ahead of fusions */
            v->refused = 1;
            v->c = arena_alloc(sizeof *v->c);
            v->c->type = DT_INT8;
            v->c->n = 1;
            v->c->data = arena_alloc(8);
        }
    }
    /* graph inputs (those that are not initializers) */
    char *bound = arena_alloc((size_t)OPTS->nbinds + 1);     /* per --bind: a graph input took it */
    for (size_t i = 0; i < gr->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gr->input[i];
        if (!vi->name || !*vi->name) fail("graph input %zu has no name", i);
        const InputBinding *b = NULL;
        for (int k = 0; k < OPTS->nbinds; k++)
            if (!strcmp(OPTS->binds[k].name, vi->name)) b = &OPTS->binds[k], bound[k] = 1;
        Val *old = val_find(vi->name);
        if (b) {
            Const *c = load_binding(b, vi);
            Val *v = old ? old : val_new(vi->name, V_CONST);
            v->kind = V_CONST;
            v->c = c;
            continue;
        }
        if (old) continue;      /* an initializer with a default */
        DType dt;
        int32_t shape[MAX_RANK];
        int rank = dims_try(gr, vi, &dt, shape);
        if (rank < 0) {
            val_new(vi->name, V_TENSOR)->refused = 1;
            continue;
        }
        Val *v = val_new(vi->name, V_TENSOR);
        v->otype = dt;
        v->rank = rank;
        memcpy(v->shape, shape, sizeof shape);
        int t = new_tensor(vi->name, dt, rank, shape);
        graph_add_input(g, t);
        v->t = dt == DT_UINT8 ? xor_op(t, DT_INT8, arena_printf("%s.s8", vi->name)) : t;
    }
    for (int k = 0; k < OPTS->nbinds; k++)
        if (!bound[k]) die("--bind %s: the model has no graph input of that name", OPTS->binds[k].name);
    readopt_shapes_check(OPTS, SHAPE_USED, path);
    if (gr->n_output == 0) fail("the graph has no outputs");
    for (size_t i = 0; i < gr->n_output; i++)
        if (!gr->output[i]->name || !*gr->output[i]->name) fail("graph output %zu has no name", i);

    /* every node has an op_type: later passes look ahead at all of them */
    for (size_t n = 0; n < gr->n_node; n++)
        if (!gr->node[n]->op_type) {
            NODE = gr->node[n];
            NODE_INDEX = (int)n;
            fail("node without op_type");
        }
    /* consumers of every value */
    for (size_t n = 0; n < gr->n_node; n++) {
        const Onnx__NodeProto *nd = gr->node[n];
        for (size_t i = 0; i < nd->n_input; i++) {
            Val *v = val_find(nd->input[i]);
            if (v) v->uses++;
        }
    }

    /* nodes, in order: a refused node's outputs are marked and the next
       node translated, so every problem is listed at once (node_try) */
    char **out0 = arena_alloc(sizeof(char *) * (gr->n_node + 1));
    for (size_t n = 0; n < gr->n_node; n++) out0[n] = gr->node[n]->n_output ? gr->node[n]->output[0] : NULL;
    int refused = 0;
    for (size_t n = 0; n < gr->n_node; n++) {
        if (node_try(gr, n)) continue;
        refused = 1;
        for (size_t k = 0; k < gr->n_node; k++)     /* a fusion may have renamed an earlier node's output */
            if (gr->node[k]->n_output) gr->node[k]->output[0] = out0[k];
        node_poison(gr->node[n]);
    }
    NODE = NULL;
    AFTER_NODES = 1;
    (void)refused;
    NODE = NULL;

    /* graph outputs: model layout and type */
    for (size_t i = 0; i < gr->n_output; i++) {
        const char *name = gr->output[i]->name;
        Val *v = val_find(name);
        if (!v) fail("graph output '%s' is not produced by any node", name);
        if (v->refused) continue;
        int t;
        if (v->kind == V_DQ) {
            t = dq_tensor(v);
        } else if (v->kind == V_TENSOR) {
            t = as_onnx(v);
            if (v->otype == DT_UINT8) t = xor_op(t, DT_UINT8, arena_printf("%s.u8", name));
        } else if (v->kind == V_FLOAT) {
            NODE = v->node;
            NODE_INDEX = v->node_index;
            fail("output '%s' is a float result that is not quantized: onnxruntime computes it in float", name);
        } else {
            fail("graph output '%s' is a constant", name);
        }
        Tensor *T = &g->tensors[t];
        if (T->is_input || T->data) {
            /* an output that is a graph input: copy through a reshape */
            int c = new_tensor(name, T->type, T->rank, T->shape);
            new_op(OP_RESHAPE, t, c);
            G->ops[G->nops - 1].src_name = "Identity";
            t = c;
            T = &g->tensors[t];
        }
        if (T->is_output) {
            int c = new_tensor(name, T->type, T->rank, T->shape);
            new_op(OP_RESHAPE, t, c);
            t = c;
            T = &g->tensors[t];
        }
        T->name = arena_strdup(name);
        graph_add_output(g, t);
    }
    refuse_flush(path);
    AFTER_NODES = 0;
    onnx__model_proto__free_unpacked(m, &pb_arena);
    if (g->nops == 0) fail("the graph computes nothing");
    return g;
}
