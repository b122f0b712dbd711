/* qlib.c - QuantLib's integer ONNX form (the networks Deeploy, DORY and HTVM
   deploy) into the one IR: standard ops on float tensors holding integers,
   RequantShift and the integer non-linearities as custom ops.

   Arithmetic (Deeploy's kernels, QuantLib's pact_ops.py): int32 accumulators
   with no zero points; RequantShift y = clip((x*mul + add + 2^(k-1)) >> k)
   becomes the requant kind RQ_QUANTLIB of the op that produces x (conv2d, fc,
   add, mul), fused when x has no other reader. A function of one 8-bit value
   (iGELU, iHardswish, TrueIntegerDiv, a per-tensor RequantShift, each with the
   RequantShift after it) is a 256-entry table computed here.

   Values: 8-bit tensors are int8 storage, unsigned ones (RequantShift with
   signed = 0) hold value - 128 (off = 128), so every kernel reads stored +
   off; accumulators are int32. Conv and MaxPool run NHWC (a value remembers
   its layout, a transpose is inserted where a consumer needs the other), the
   rest in ONNX order. Graph inputs: int8, or int32 when only RequantShifts
   read them, or what `htc run` sees in its input data (uint8 for 0..255). */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "ir.h"
#include "npy.h"
#include "../htc.h"
#include "onnx.pb-c.h"

#define MAX_ELEMS ((int64_t)1 << 30)    /* elements of one tensor (README, "Limits") */
#define MAX_GEOM 1024                   /* strides, dilations */
#define MAX_KERNEL 4096                 /* kernel sides, pads */

static const char *PATH;
static const Onnx__NodeProto *NODE;
static int NODE_INDEX;
static Graph *G;
static const Onnx__GraphProto *GR;

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
    char msg[768], line[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (NODE)
        snprintf(line, sizeof line, "node %d '%s' (%s): %s", NODE_INDEX, NODE->name ? NODE->name : "",
                 NODE->op_type ? NODE->op_type : "?", msg);
    else
        snprintf(line, sizeof line, "%s", msg);
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    /* a node's problem is recorded and the other nodes translated
       (qnode_try); every problem is then listed at once, in graph order */
    if (NODE) refuse(PATH, NODE_INDEX, "%s", line);
    die("%s: %s", PATH, line);
}

/* ---- constants ------------------------------------------------------------ */

typedef struct {
    int rank;
    int32_t shape[MAX_RANK];
    int64_t n;
    double *v;                  /* values (exact for integers below 2^53) */
} QC;

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static QC *decode(const Onnx__TensorProto *t, const char *what)
{
    QC *c = arena_alloc(sizeof *c);
    if (t->n_dims > MAX_RANK) fail("%s has rank %zu (at most %d)", what, t->n_dims, MAX_RANK);
    if (t->n_external_data || t->segment) fail("%s uses external or segmented data", what);
    c->rank = (int)t->n_dims;
    c->n = 1;
    for (int i = 0; i < c->rank; i++) {
        if (t->dims[i] < 0 || t->dims[i] > INT32_MAX) fail("%s has dimension %lld", what, (long long)t->dims[i]);
        c->shape[i] = (int32_t)t->dims[i];
        c->n *= t->dims[i];
        if (c->n > ((int64_t)1 << 28))
            fail("%s is too large: its first %d dimensions hold %lld elements, at most %lld", what, i + 1, (long long)c->n,
                 (long long)1 << 28);
    }
    c->v = arena_alloc(sizeof(double) * (size_t)(c->n ? c->n : 1));
    int dt = t->has_data_type ? t->data_type : 0;
    size_t es = dt == 1 || dt == 6 ? 4 : dt == 7 || dt == 11 ? 8 : dt == 2 || dt == 3 ? 1 : 0;
    if (!es) fail("%s has ONNX element type %d (expected float, double, int8/32/64 or uint8)", what, dt);
    if (t->has_raw_data) {
        if (t->raw_data.len != (size_t)c->n * es) fail("%s has %zu bytes of raw data, its shape needs %zu", what,
                                                        t->raw_data.len, (size_t)c->n * es);
        const uint8_t *p = t->raw_data.data;
        for (int64_t i = 0; i < c->n; i++) {
            const uint8_t *e = p + (size_t)i * es;
            if (dt == 1) { float f; uint32_t u = le32(e); memcpy(&f, &u, 4); c->v[i] = f; }
            else if (dt == 6) c->v[i] = (int32_t)le32(e);
            else if (dt == 2) c->v[i] = e[0];
            else if (dt == 3) c->v[i] = (int8_t)e[0];
            else {
                uint64_t u = le32(e) | (uint64_t)le32(e + 4) << 32;
                if (dt == 11) { double d; memcpy(&d, &u, 8); c->v[i] = d; }
                else c->v[i] = (double)(int64_t)u;
            }
        }
        return c;
    }
    size_t have = dt == 1 ? t->n_float_data : dt == 7 ? t->n_int64_data : dt == 11 ? t->n_double_data : t->n_int32_data;
    if ((int64_t)have != c->n) fail("%s has %zu values, its shape needs %lld", what, have, (long long)c->n);
    for (int64_t i = 0; i < c->n; i++)
        c->v[i] = dt == 1 ? t->float_data[i] : dt == 7 ? (double)t->int64_data[i] : dt == 11 ? t->double_data[i]
                                                                              : t->int32_data[i];
    return c;
}

/* Element i as an integer in [lo, hi]; a fraction is float arithmetic this
   front end does not do. */
static int64_t cint(const QC *c, int64_t i, int64_t lo, int64_t hi, const char *what)
{
    double v = c->v[i];
    if (v != floor(v) || !isfinite(v))
        fail("%s holds %g, not an integer: this is a float network, not QuantLib's integer form", what, v);
    if (v < (double)lo || v > (double)hi) fail("%s holds %.0f, outside %lld..%lld", what, v, (long long)lo, (long long)hi);
    return (int64_t)v;
}

/* ---- values ----------------------------------------------------------------- */

typedef struct {
    const char *name;
    int t;                      /* IR tensor, or -1 (constant) */
    QC *c;
    int nhwc, other;            /* rank-4 value held as NHWC; cached other layout */
    int off;                    /* int8 storage: value = stored + off (0 or 128) */
    int rank;
    int32_t shape[MAX_RANK];    /* ONNX shape */
    int refused;                /* an output of a refused node: its consumers are not checked */
} QV;

static QV **vals;
static int nvals, capvals;
static unsigned char *done;     /* nodes fused into an earlier one */

/* ---- names: one hash table, so reading is linear in the nodes ------------------ */

typedef struct {
    const char *name;           /* key, or NULL: an empty slot */
    QV *val;                    /* the value of that name now, or NULL */
    int defined;                /* val was set once (readers counted down) */
    int reads, reader;          /* node input slots reading it; the last such node */
    int rq_only;                /* every read is input 0 of a RequantShift */
    int output;                 /* a graph output */
    int first;                  /* its first read in rd_node / rd_next, or -1 */
} QName;

static StrMap names;             /* name -> QName */
static int *rd_node, *rd_next;  /* the reads of a name, as a list: node, next read */

/* The entry of `name`; NULL when absent and !add. */
static QName *name_get(const char *name, int add)
{
    QName *e = strmap_get(&names, name);
    if (e || !add) return e;
    e = arena_alloc(sizeof *e);
    e->name = arena_strdup(name);
    e->reader = e->first = -1;
    e->rq_only = 1;
    strmap_put(&names, e->name, e);
    return e;
}

static QV *val_find(const char *name)
{
    QName *e = name_get(name, 0);
    return e ? e->val : NULL;
}

static void name_defined(QName *e);

/* v, already named, under its new name `name` (the old one is free again). */
static void val_rename(QV *v, const char *name)
{
    QName *e = name_get(v->name, 0);
    if (e && e->val == v) e->val = NULL;
    v->name = arena_strdup(name);
    e = name_get(v->name, 1);
    if (e->val) fail("value '%s' is defined twice", name);
    e->val = v;
    name_defined(e);
}

static QV *val_new(const char *name)
{
    if (val_find(name)) fail("value '%s' is defined twice", name);
    if (nvals == capvals) {
        capvals = capvals ? 2 * capvals : 256;
        QV **v = arena_alloc(sizeof(QV *) * (size_t)capvals);
        if (nvals) memcpy(v, vals, sizeof(QV *) * (size_t)nvals);
        vals = v;
    }
    QV *v = arena_alloc(sizeof *v);
    v->name = arena_strdup(name);
    v->t = v->other = -1;
    vals[nvals++] = v;
    QName *e = name_get(name, 1);
    e->val = v;
    name_defined(e);
    return v;
}

static int is_i32(const QV *v) { return G->tensors[v->t].type == DT_INT32; }

/* The elements of a shape, saturated at 2^62 (never overflows; any
   saturated count is far above MAX_ELEMS). */
static int64_t numel(const int32_t *s, int rank)
{
    const int64_t cap = (int64_t)1 << 62;
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (s[i] <= 0) return 0;
        n = n > cap / s[i] ? cap : n * s[i];
    }
    return n;
}

/* Every tensor of this reader's graph G (each op's output and every
   constant) within the per-tensor limits, checked before any size is cut to
   32 bits. */
static void check_size(const char *name, DType type, int rank, const int32_t *shape)
{
    for (int d = 0; d < rank; d++)
        if (shape[d] < 0) fail("'%s' would have dimension %d = %d", name, d, shape[d]);
    int64_t n = numel(shape, rank);
    if (n > MAX_ELEMS || n * (int64_t)dtype_size(type) > INT32_MAX)
        fail("'%s' would have %lld elements (at most %lld per tensor, and 2^31 - 1 bytes)", name, (long long)n,
             (long long)MAX_ELEMS);
}

static int new_tensor(const char *name, DType type, int rank, const int32_t *shape)
{
    check_size(name, type, rank, shape);
    return graph_new_tensor(G, name, type, rank, shape);
}

static int const_tensor(const char *name, DType type, int rank, const int32_t *shape, const void *data, size_t nbytes)
{
    check_size(name, type, rank, shape);
    return graph_const_tensor(G, name, type, rank, shape, data, nbytes);
}

static int const_i32(const char *name, const int32_t *v, int n)
{
    int32_t s[1] = {n};
    return const_tensor(name, DT_INT32, 1, s, v, sizeof(int32_t) * (size_t)n);
}

static Op *new_op(OpKind kind, int out, const char *ptype, size_t psize)
{
    int o = graph_add_op(G);
    Op *op = &G->ops[o];
    op->kind = kind;
    op->src_index = NODE ? NODE_INDEX : -1;
    op->src_name = NODE ? arena_strdup(NODE->op_type) : "layout";
    op->variant = "";
    op->nout = 1;
    op->out[0] = out;
    if (out >= 0) G->tensors[out].producer = o;     /* for writer(); plan sets it again */
    op->rq = RQ_QUANTLIB;
    op->stride_h = op->stride_w = op->dil_h = op->dil_w = 1;
    if (ptype) {
        op->params = arena_alloc(psize);
        op->params_size = psize;
        op->params_type = ptype;
    }
    return op;
}

static void set_ins(Op *op, int n, const int *ins)
{
    op->nin = n;
    for (int i = 0; i < n; i++) op->in[i] = ins[i];
}

/* ---- layout ----------------------------------------------------------------- */

static const int TO_NHWC[4] = {0, 2, 3, 1}, TO_NCHW[4] = {0, 3, 1, 2};

/* the transposes made so far (their input, output and permutation): a
   transpose of a transpose's output becomes one transpose of its input
   (an alias when the two cancel, e.g. a Transpose feeding MatMul's b) */
typedef struct {
    int in, out, rank, perm[MAX_RANK];
} QTrans;
static QTrans *trans;
static int ntrans, captrans;
static int *trans_of;           /* per tensor: 1 + its QTrans when a transpose made it, else 0 */
static int ntrans_of;

/* The op that wrote tensor t so far (the producer new_op recorded), or NULL:
   a constant time look-up, so long chains stay linear. */
static const Op *writer(int t)
{
    int p = G->tensors[t].producer;
    return p >= 0 && p < G->nops && G->ops[p].nout == 1 && G->ops[p].out[0] == t ? &G->ops[p] : NULL;
}

/* out = transpose(in, perm): a transpose op, or an alias when only size-1
   axes move. */
static int transpose(int in, const int *perm, int rank, const char *why)
{
    /* through aliases of the same shape (a value's view of a tensor) */
    for (const Op *op; (op = writer(in)) && op->kind == OP_RESHAPE && op->nin == 1 &&
                       G->tensors[op->in[0]].rank == rank &&
                       !memcmp(G->tensors[op->in[0]].shape, G->tensors[in].shape,
                               (size_t)rank * sizeof G->tensors[in].shape[0]);)
        in = op->in[0];
    if (in < ntrans_of && trans_of[in] && trans[trans_of[in] - 1].rank == rank) {
        const QTrans *tr = &trans[trans_of[in] - 1];
        int comp[MAX_RANK];
        for (int d = 0; d < rank; d++) comp[d] = tr->perm[perm[d]];
        return transpose(tr->in, comp, rank, why);
    }
    Tensor tin = G->tensors[in];
    int32_t shape[MAX_RANK] = {0};
    for (int d = 0; d < rank; d++) shape[d] = tin.shape[perm[d]];
    int out = new_tensor(arena_printf("%s.%s", tin.name, why), tin.type, rank, shape);
    int last = -1, trivial = 1;
    for (int d = 0; d < rank; d++)
        if (tin.shape[perm[d]] != 1) {
            if (perm[d] < last) trivial = 0;
            last = perm[d];
        }
    if (trivial) {
        Op *op = new_op(OP_RESHAPE, out, NULL, 0);
        set_ins(op, 1, &in);
        op->rq = RQ_NONE;
        return out;
    }
    Op *op = new_op(OP_TRANSPOSE, out, "htc__transpose_params", sizeof(htc__transpose_params));
    set_ins(op, 1, &in);
    op->rq = RQ_NONE;
    if (ntrans == captrans) {
        captrans = captrans ? 2 * captrans : 16;
        QTrans *nt = arena_alloc((size_t)captrans * sizeof *nt);
        if (ntrans) memcpy(nt, trans, (size_t)ntrans * sizeof *nt);
        trans = nt;
    }
    trans[ntrans].in = in;
    trans[ntrans].out = out;
    trans[ntrans].rank = rank;
    memcpy(trans[ntrans].perm, perm, (size_t)rank * sizeof *perm);
    ntrans++;
    if (out >= ntrans_of) {
        int n = 2 * out + 16, *nt = arena_alloc((size_t)n * sizeof *nt);
        memset(nt, 0, (size_t)n * sizeof *nt);
        if (ntrans_of) memcpy(nt, trans_of, (size_t)ntrans_of * sizeof *nt);
        trans_of = nt;
        ntrans_of = n;
    }
    trans_of[out] = ntrans;
    htc__transpose_params *p = op->params;
    p->rank = rank;
    p->elem = (int32_t)dtype_size(tin.type);
    int32_t istride[MAX_RANK], s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        istride[d] = s;
        s *= tin.shape[d];
    }
    for (int d = 0; d < rank; d++) {
        p->shape[d] = shape[d];
        p->stride[d] = istride[perm[d]];
    }
    return out;
}

static int as_onnx(QV *v)
{
    if (v->t < 0) fail("'%s' is a constant where an activation is expected", v->name);
    if (!v->nhwc) return v->t;
    if (v->other < 0) v->other = transpose(v->t, TO_NCHW, 4, "nchw");
    return v->other;
}

static int as_nhwc(QV *v)
{
    if (v->t < 0) fail("'%s' is a constant where an activation is expected", v->name);
    if (v->rank != 4) fail("'%s' has rank %d, expected a 4-D NCHW tensor", v->name, v->rank);
    if (v->nhwc) return v->t;
    if (v->other < 0) v->other = transpose(v->t, TO_NHWC, 4, "nhwc");
    return v->other;
}

/* A new value written by the current node. */
static QV *out_val(const char *name, DType type, int off, int rank, const int32_t *shape, int nhwc)
{
    QV *v = val_new(name);
    v->off = off;
    v->rank = rank;
    memcpy(v->shape, shape, sizeof(int32_t) * (size_t)rank);
    v->nhwc = nhwc;
    int32_t s[MAX_RANK];
    for (int d = 0; d < rank; d++) s[d] = nhwc ? shape[TO_NHWC[d]] : shape[d];
    v->t = new_tensor(name, type, rank, s);
    return v;
}

/* ---- attributes and inputs ------------------------------------------------ */

static const Onnx__AttributeProto *attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name)) return n->attribute[i];
    return NULL;
}

/* A numeric attribute given as int, float, a one-element list or tensor. */
static double attr_num(const Onnx__NodeProto *n, const char *name, double def, int required)
{
    const Onnx__AttributeProto *a = attr(n, name);
    if (!a) {
        if (required) fail("missing attribute '%s'", name);
        return def;
    }
    if (a->has_i && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) return (double)a->i;
    if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT) return a->f;
    if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS && a->n_ints == 1) return (double)a->ints[0];
    if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS && a->n_floats == 1) return a->floats[0];
    if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR && a->t) {
        QC *c = decode(a->t, arena_printf("attribute '%s'", name));
        if (c->n != 1) fail("attribute '%s' has %lld values, expected one", name, (long long)c->n);
        return c->v[0];
    }
    if (a->has_i) return (double)a->i;
    fail("attribute '%s' is not a number", name);
}

static int64_t attr_int(const Onnx__NodeProto *n, const char *name, int64_t def, int required)
{
    double v = attr_num(n, name, (double)def, required);
    if (v != floor(v) || fabs(v) > 9e15) fail("attribute '%s' is %g, expected an integer", name, v);
    return (int64_t)v;
}

/* An integer attribute in lo..hi (checked before any cast to int). */
static int64_t attr_range(const Onnx__NodeProto *n, const char *name, int64_t def, int required, int64_t lo, int64_t hi)
{
    int64_t v = attr_int(n, name, def, required);
    if (v < lo || v > hi) fail("attribute '%s' is %lld, outside %lld..%lld", name, (long long)v, (long long)lo, (long long)hi);
    return v;
}

static int32_t attr_i32(const Onnx__NodeProto *n, const char *name, int64_t def, int required)
{
    return (int32_t)attr_range(n, name, def, required, INT32_MIN, INT32_MAX);
}

/* An axis attribute of a rank-r value, made non-negative. */
static int attr_axis(const Onnx__NodeProto *n, const char *name, int64_t def, int required, int r, int inclusive)
{
    int64_t a = attr_range(n, name, def, required, -(int64_t)r, r - 1 + inclusive);
    return (int)(a < 0 ? a + r : a);
}

static int attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, int max)
{
    const Onnx__AttributeProto *a = attr(n, name);
    if (!a) return -1;
    if ((int)a->n_ints > max) fail("attribute '%s' has %zu values (at most %d)", name, a->n_ints, max);
    for (size_t i = 0; i < a->n_ints; i++) out[i] = a->ints[i];
    return (int)a->n_ints;
}

static int log2_exact(double d, const char *what)
{
    for (int k = 0; k < 31; k++)
        if (d == (double)((int64_t)1 << k)) return k;
    fail("%s is %g, not a power of two (1 .. 2^30)", what, d);
}

static QV *input(int i)
{
    if (i >= (int)NODE->n_input || !NODE->input[i] || !*NODE->input[i]) fail("input %d is missing", i);
    QV *v = val_find(NODE->input[i]);
    if (!v) fail("input '%s' is not defined before this node", NODE->input[i]);
    return v;
}

static QV *act_input(int i)
{
    QV *v = input(i);
    if (v->t < 0) fail("input %d ('%s') is a constant; htc expects an activation there", i, v->name);
    return v;
}

static QC *const_input(int i, const char *what)
{
    QV *v = input(i);
    if (!v->c) fail("%s ('%s') must be a constant (an initializer)", what, v->name);
    return v->c;
}


/* ---- fusion: the node that alone reads a value ------------------------------ */

/* The index of the one node reading `name` (once), when no graph output is
   it; else -1. */
static int sole_reader(const char *name)
{
    QName *e = name_get(name, 0);
    return e && !e->output && e->reads == 1 ? e->reader : -1;
}

static int is_op(int k, const char *op) { return k >= 0 && !strcmp(GR->node[k]->op_type, op); }

/* ---- RequantShift --------------------------------------------------------------- */

typedef struct {
    int node;                   /* the RequantShift node */
    int axis;                   /* ONNX axis of the output the parameters vary on, or -1 */
    int nch;
    int32_t *mul, *add;
    int shift, lo, hi, off;     /* off: 128 for unsigned 8-bit output */
    DType type;
} RQ;

/* RequantShift node k, applied to a value of ONNX shape (rank, shape). */
static RQ *parse_rq(int k, int rank, const int32_t *shape)
{
    const Onnx__NodeProto *save = NODE;
    int save_i = NODE_INDEX;
    NODE = GR->node[k];
    NODE_INDEX = k;
    RQ *r = arena_alloc(sizeof *r);
    r->node = k;
    r->shift = log2_exact(attr_num(NODE, "div", 0, 1), "attribute 'div'");
    double nl = attr(NODE, "n_levels_out") ? attr_num(NODE, "n_levels_out", 0, 1) : attr_num(NODE, "n_levels", 0, 1);
    int sgn = (int)attr_range(NODE, "signed", 1, 0, 0, 1);
    if (nl < 2 || nl > 4294967296.0 || nl != floor(nl)) fail("n_levels %g", nl);
    int64_t n = (int64_t)nl;
    int64_t lo = sgn ? -n / 2 : 0, hi = sgn ? n / 2 - 1 : n - 1;
    if (hi > INT32_MAX) hi = INT32_MAX;
    r->lo = (int)lo;
    r->hi = (int)hi;
    r->type = n <= 256 ? DT_INT8 : DT_INT32;
    r->off = n <= 256 && !sgn ? 128 : 0;
    QC *m = const_input(1, "the multiplier"), *a = const_input(2, "the additive term");
    /* the one axis the parameters vary on (right-aligned broadcast) */
    r->axis = -1;
    QC *pc[2] = {m, a};
    for (int j = 0; j < 2; j++) {
        /* [C, 1, ...] without the batch axis (Deeploy's 1-D kernel tests):
           per channel, as Deeploy reads it */
        if (rank >= 2 && pc[j]->rank == rank && pc[j]->shape[0] == shape[1] && shape[0] == 1 && shape[1] > 1 &&
            pc[j]->n == shape[1]) {
            if (r->axis >= 0 && r->axis != 1) fail("parameters varying on more than one axis are not supported");
            r->axis = 1;
            continue;
        }
        if (pc[j]->rank > rank) fail("parameter of rank %d on a value of rank %d", pc[j]->rank, rank);
        for (int d = 0; d < pc[j]->rank; d++) {
            int od = rank - pc[j]->rank + d;
            if (pc[j]->shape[d] == 1) continue;
            if (pc[j]->shape[d] != shape[od]) fail("parameter shape does not broadcast to the value's");
            if (r->axis >= 0 && r->axis != od)
                fail("parameters varying on more than one axis are not supported");
            r->axis = od;
        }
    }
    r->nch = r->axis < 0 ? 1 : shape[r->axis];
    r->mul = arena_alloc(sizeof(int32_t) * (size_t)r->nch);
    r->add = arena_alloc(sizeof(int32_t) * (size_t)r->nch);
    for (int c = 0; c < r->nch; c++) {
        r->mul[c] = (int32_t)cint(m, m->n == 1 ? 0 : c, INT32_MIN, INT32_MAX, "the multiplier");
        r->add[c] = (int32_t)cint(a, a->n == 1 ? 0 : c, INT32_MIN, INT32_MAX, "the additive term");
    }
    NODE = save;
    NODE_INDEX = save_i;
    return r;
}

/* The RequantShift that alone reads `name`, when its parameters vary on no
   axis or one axis allowed by `ok_axis` (bit mask; -1 = any); else NULL. */
static RQ *fusable_rq(const char *name, int rank, const int32_t *shape, unsigned ok_axes)
{
    int k = sole_reader(name);
    if (!is_op(k, "RequantShift") || strcmp(GR->node[k]->input[0], name)) return NULL;
    RQ *r = parse_rq(k, rank, shape);
    if (r->type != DT_INT8) return NULL;
    if (r->axis >= 0 && !(ok_axes >> r->axis & 1)) return NULL;
    return r;
}

/* The op's requantization as data (Op.mult / shift / rq_add) and the two
   constant tensors the kernels read. */
static void rq_on_op(Op *op, const RQ *r, int *ins)
{
    op->nch = r->nch;
    op->mult = r->mul;
    op->rq_add = r->add;
    op->shift = arena_alloc((size_t)r->nch);
    for (int c = 0; c < r->nch; c++) op->shift[c] = (int8_t)r->shift;
    op->act_min = r->lo - r->off;
    op->act_max = r->hi - r->off;
    op->out_zp = -r->off;
    ins[0] = const_i32(arena_printf("%s.mul", GR->node[r->node]->output[0]), r->mul, r->nch);
    ins[1] = const_i32(arena_printf("%s.add", GR->node[r->node]->output[0]), r->add, r->nch);
    done[r->node] = 1;
}

/* ---- convolution, matmul ---------------------------------------------------------- */

/* A 1-D value [N, C, L] as a 2-D one [N, C, 1, L] (an alias, not a named value). */
static QV *as_2d(QV *x)
{
    QV *v = arena_alloc(sizeof *v);
    *v = *x;
    v->name = arena_printf("%s.2d", x->name);
    v->rank = 4;
    v->shape[2] = 1;
    v->shape[3] = x->shape[2];
    v->nhwc = 0;
    v->other = -1;
    v->t = new_tensor(v->name, G->tensors[x->t].type, 4, v->shape);
    Op *op = new_op(OP_RESHAPE, v->t, NULL, 0);
    op->rq = RQ_NONE;
    int t = as_onnx(x);
    set_ins(op, 1, &t);
    return v;
}

/* The 2-D result y of a 1-D op as the value `name` [N, C, L]. */
static void from_2d(QV *y, const char *name)
{
    int t = as_onnx(y);
    int32_t s3[3] = {y->shape[0], y->shape[1], y->shape[3]};
    QV *z = out_val(name, G->tensors[t].type, y->off, 3, s3, 0);
    Op *op = new_op(OP_RESHAPE, z->t, NULL, 0);
    op->rq = RQ_NONE;
    set_ins(op, 1, &t);
}

/* An int list attribute of exactly `want` values in lo..hi, into out;
   absent: out unchanged. */
static void attr_list(const char *name, int64_t *out, int want, int64_t lo, int64_t hi)
{
    int64_t v[2 * MAX_RANK];
    int k = attr_ints(NODE, name, v, 2 * MAX_RANK);
    if (k < 0) return;
    if (k != want) fail("attribute '%s' has %d values, expected %d", name, k, want);
    for (int i = 0; i < k; i++) {
        if (v[i] < lo || v[i] > hi)
            fail("attribute '%s' holds %lld, outside %lld..%lld", name, (long long)v[i], (long long)lo, (long long)hi);
        out[i] = v[i];
    }
}

/* strides, dilations, pads of a 1-D or 2-D node as the 2-D ones, range-checked
   (strides and dilations 1..1024, pads 0..4096, kernel sides 1..4096) before
   the output size (oh, ow) of an input H x W and a kernel kh x kw is divided
   out. */
static void geometry(int one, int64_t kh, int64_t kw, int64_t H, int64_t W, int64_t *st, int64_t *di, int64_t *pads,
                     int *oh, int *ow)
{
    if (kh < 1 || kw < 1 || kh > MAX_KERNEL || kw > MAX_KERNEL)
        fail("the kernel is %lldx%lld (each side 1..%d)", (long long)kh, (long long)kw, MAX_KERNEL);
    if (!one) {
        attr_list("strides", st, 2, 1, MAX_GEOM);
        attr_list("dilations", di, 2, 1, MAX_GEOM);
        attr_list("pads", pads, 4, 0, MAX_KERNEL);
    } else {
        int64_t p1[2] = {0, 0};
        attr_list("strides", st + 1, 1, 1, MAX_GEOM);
        attr_list("dilations", di + 1, 1, 1, MAX_GEOM);
        attr_list("pads", p1, 2, 0, MAX_KERNEL);
        pads[1] = p1[0];
        pads[3] = p1[1];
    }
    int64_t eh = (kh - 1) * di[0] + 1, ew = (kw - 1) * di[1] + 1;
    int64_t hh = H + pads[0] + pads[2] - eh, ww = W + pads[1] + pads[3] - ew;
    if (H < 1 || W < 1 || hh < 0 || ww < 0)
        fail("the kernel (%lldx%lld with dilation) is larger than the padded input (%lldx%lld)", (long long)eh,
             (long long)ew, (long long)(H + pads[0] + pads[2]), (long long)(W + pads[1] + pads[3]));
    *oh = (int)(hh / st[0] + 1);
    *ow = (int)(ww / st[1] + 1);
}

static void h_conv(void)
{
    QV *x = act_input(0);
    QC *w = const_input(1, "the weights");
    int one = x->rank == 3 && w->rank == 3;     /* 1-D: as 2-D with height 1 */
    if (one) {
        if (is_i32(x)) fail("convolution of 32-bit values (no RequantShift before it) is not supported");
        x = as_2d(x);
        QC *w4 = arena_alloc(sizeof *w4);
        *w4 = *w;
        w4->rank = 4;
        w4->shape[2] = 1;
        w4->shape[3] = w->shape[2];
        w = w4;
    }
    if (x->rank != 4 || w->rank != 4) fail("only 1-D and 2-D convolutions (3-D and 4-D tensors) are supported");
    if (is_i32(x)) fail("convolution of 32-bit values (no RequantShift before it) is not supported");
    const char *ap = "NOTSET";
    const Onnx__AttributeProto *apa = attr(NODE, "auto_pad");
    if (apa && apa->has_s) ap = arena_printf("%.*s", (int)apa->s.len, (const char *)apa->s.data);
    if (strcmp(ap, "NOTSET")) fail("auto_pad %s is not supported (give pads)", ap);
    int64_t st[2] = {1, 1}, di[2] = {1, 1}, pads[4] = {0, 0, 0, 0}, ks[2];
    int N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    int O = w->shape[0], kh = w->shape[2], kw = w->shape[3];
    if (N < 1 || C < 1 || O < 1) fail("empty input or weights (%d batches, %d input, %d output channels)", N, C, O);
    int nk = attr_ints(NODE, "kernel_shape", ks, 2);
    if (nk >= 0 && (nk != 2 - one || ks[0] != (one ? kw : kh) || (!one && ks[1] != kw)))
        fail("kernel_shape does not match the weights");
    int oh, ow;
    geometry(one, kh, kw, H, W, st, di, pads, &oh, &ow);
    int groups = (int)attr_range(NODE, "group", 1, 0, 1, C);
    if (C % groups || O % groups || w->shape[1] != C / groups)
        fail("weights [%d, %d, %d, %d] do not fit %d input channels in %d groups", O, w->shape[1], kh, kw, C, groups);
    int gin = C / groups;
    int8_t *wt = arena_alloc((size_t)w->n);
    for (int o = 0; o < O; o++)
        for (int ci = 0; ci < gin; ci++)
            for (int y = 0; y < kh; y++)
                for (int xx = 0; xx < kw; xx++)
                    wt[((o * kh + y) * kw + xx) * gin + ci] =
                        (int8_t)cint(w, ((o * gin + ci) * kh + y) * kw + xx, -128, 127, "the weights");
    int32_t *bias = NULL;
    if (NODE->n_input > 2 && *NODE->input[2]) {
        QC *b = const_input(2, "the bias");
        if (b->n != O) fail("bias has %lld values for %d channels", (long long)b->n, O);
        bias = arena_alloc(sizeof(int32_t) * (size_t)O);
        for (int o = 0; o < O; o++) bias[o] = (int32_t)cint(b, o, INT32_MIN, INT32_MAX, "the bias");
    }
    int32_t oshape[4] = {N, O, oh, ow}, oshape3[3] = {N, O, ow};
    int tx = as_nhwc(x);
    RQ *r = one ? fusable_rq(NODE->output[0], 3, oshape3, 1u << 1) : fusable_rq(NODE->output[0], 4, oshape, 1u << 1);
    const char *oname = r ? GR->node[r->node]->output[0] : NODE->output[0];
    QV *y = out_val(one ? arena_printf("%s.2d", oname) : oname, r ? DT_INT8 : DT_INT32, r ? r->off : 0, 4, oshape, 1);
    Op *op = new_op(OP_CONV2D, y->t, "htc__ql_conv_params", sizeof(htc__ql_conv_params));
    int32_t ws[4] = {O, kh, kw, gin};
    int ins[5] = {tx, const_tensor(arena_printf("%s.w", NODE->output[0]), DT_INT8, 4, ws, wt, (size_t)w->n),
                  bias ? const_i32(arena_printf("%s.b", NODE->output[0]), bias, O) : -1, -1, -1};
    htc__ql_conv_params *p = op->params;
    if (r) {
        rq_on_op(op, r, ins + 3);
        p->rq = 1;
        p->per_channel = r->nch > 1;
        p->shift = r->shift;
        p->lo = r->lo;
        p->hi = r->hi;
        p->out_off = r->off;
    } else {
        op->int32_out = 1;
    }
    set_ins(op, 5, ins);
    p->batches = op->batches = N;
    p->in_h = op->in_h = H;
    p->in_w = op->in_w = W;
    p->in_c = op->in_c = C;
    p->out_h = op->out_h = oh;
    p->out_w = op->out_w = ow;
    p->out_c = op->out_c = O;
    p->k_h = op->k_h = kh;
    p->k_w = op->k_w = kw;
    p->stride_h = op->stride_h = (int)st[0];
    p->stride_w = op->stride_w = (int)st[1];
    p->dil_h = op->dil_h = (int)di[0];
    p->dil_w = op->dil_w = (int)di[1];
    p->pad_top = op->pad_top = (int)pads[0];
    p->pad_left = op->pad_left = (int)pads[1];
    op->pad_bottom = (int)pads[2];
    op->pad_right = (int)pads[3];
    op->padding = PAD_EXPLICIT;
    p->groups = op->groups = groups;
    op->depthwise = groups == C && C > 1;
    op->depth_mult = O / groups;
    p->in_off = x->off;
    op->in_zp = -x->off;
    op->macs = (int64_t)N * oh * ow * O * kh * kw * gin;
    if (one) from_2d(y, oname);
}

/* a x b (b constant [n][k], or an activation): with the Add of a constant
   bias and the RequantShift that follow it when nothing else reads them. */
static void build_matmul(QV *a, QV *bv, QC *bc, int trans_b, QC *cbias, int64_t alpha, int64_t beta)
{
    if (a->rank < 2) fail("a matmul operand of rank %d is not supported", a->rank);
    if (is_i32(a) || (bv && is_i32(bv))) fail("matmul of 32-bit values (no RequantShift before it) is not supported");
    int brank = bv ? bv->rank : bc->rank;
    const int32_t *bshape = bv ? bv->shape : bc->shape;
    if (brank < 2) fail("a matmul operand of rank %d is not supported", brank);
    int M = a->shape[a->rank - 2], K = a->shape[a->rank - 1];
    int bk = trans_b ? bshape[brank - 1] : bshape[brank - 2], Nn = trans_b ? bshape[brank - 2] : bshape[brank - 1];
    if (bk != K) fail("inner dimensions differ (%d and %d)", K, bk);
    /* batch dimensions: numpy broadcasting, one side full or all 1 */
    int orank = a->rank > brank ? a->rank : brank;
    int32_t oshape[MAX_RANK];
    int64_t abat = numel(a->shape, a->rank - 2), bbat = numel(bshape, brank - 2), batches = 1;
    for (int d = 0; d < orank - 2; d++) {
        int ad = d - (orank - a->rank), bd = d - (orank - brank);
        int32_t as = ad >= 0 ? a->shape[ad] : 1, bs = bd >= 0 ? bshape[bd] : 1;
        if (as != bs && as != 1 && bs != 1) fail("batch dimensions %d and %d do not broadcast", as, bs);
        oshape[d] = as == 1 ? bs : as;
    }
    batches = numel(oshape, orank - 2);
    if ((abat != batches && abat != 1) || (bbat != batches && bbat != 1))
        fail("batch broadcasting of both operands is not supported");
    oshape[orank - 2] = M;
    oshape[orank - 1] = Nn;
    const char *name = NODE->output[0];
    /* the constant bias of an Add that alone reads the result */
    int32_t *bias = NULL;
    int bias_mode = 0;
    if (cbias) {
        if (cbias->n == Nn) bias_mode = 1;
        else if (cbias->n == (int64_t)M * Nn) bias_mode = 2;
        else if (cbias->n != 1) fail("bias of %lld values for a %dx%d result", (long long)cbias->n, M, Nn);
        else bias_mode = 1;
        int nb = bias_mode == 1 ? Nn : M * Nn;
        bias = arena_alloc(sizeof(int32_t) * (size_t)nb);
        for (int i = 0; i < nb; i++) {
            int64_t v = beta * cint(cbias, cbias->n == 1 ? 0 : i, INT32_MIN, INT32_MAX, "the bias");
            if (v < INT32_MIN || v > INT32_MAX) fail("beta x C[%d] = %lld does not fit int32", i, (long long)v);
            bias[i] = (int32_t)v;
        }
    }
    int ka = sole_reader(name);
    if (!cbias && is_op(ka, "Add")) {
        const Onnx__NodeProto *an = GR->node[ka];
        const char *other = !strcmp(an->input[0], name) ? an->input[1] : an->input[0];
        QV *ov = val_find(other);
        if (an->n_input == 2 && ov && ov->c && (ov->c->n == Nn || ov->c->n == 1)) {
            int ok = 1;
            for (int d = 0; d < ov->c->rank - 1; d++) ok &= ov->c->shape[d] == 1;
            if (ok) {
                bias_mode = 1;
                bias = arena_alloc(sizeof(int32_t) * (size_t)Nn);
                const Onnx__NodeProto *save = NODE;
                NODE = an;
                for (int i = 0; i < Nn; i++)
                    bias[i] = (int32_t)cint(ov->c, ov->c->n == 1 ? 0 : i, INT32_MIN, INT32_MAX, "the bias");
                NODE = save;
                done[ka] = 1;
                name = an->output[0];
            }
        }
    }
    int bt;
    if (bc) {           /* constant: stored [n][k] */
        int8_t *wt = arena_alloc((size_t)bc->n);
        for (int64_t b = 0; b < bbat; b++)
            for (int n = 0; n < Nn; n++)
                for (int k = 0; k < K; k++)
                    wt[(b * Nn + n) * K + k] = (int8_t)cint(bc, trans_b ? (b * Nn + n) * K + k : (b * K + k) * Nn + n,
                                                            -128, 127, "the weights");
        int32_t ws[3] = {(int32_t)bbat, Nn, K};
        bt = const_tensor(arena_printf("%s.w", NODE->output[0]), DT_INT8, 3, ws, wt, (size_t)bc->n);
    } else {
        int b = as_onnx(bv);
        if (trans_b) bt = b;
        else {
            int perm[MAX_RANK];
            for (int d = 0; d < brank; d++) perm[d] = d;
            perm[brank - 2] = brank - 1;
            perm[brank - 1] = brank - 2;
            bt = transpose(b, perm, brank, "t");
        }
    }
    int ta = as_onnx(a);
    RQ *r = fusable_rq(name, orank, oshape, 3u << (orank - 2));
    const char *oname = r ? GR->node[r->node]->output[0] : name;
    QV *y = out_val(oname, r ? DT_INT8 : DT_INT32, r ? r->off : 0, orank, oshape, 0);
    Op *op = new_op(OP_FC, y->t, "htc__ql_matmul_params", sizeof(htc__ql_matmul_params));
    int ins[5] = {ta, bt, bias ? const_i32(arena_printf("%s.b", NODE->output[0]), bias, bias_mode == 1 ? Nn : M * Nn) : -1,
                  -1, -1};
    htc__ql_matmul_params *p = op->params;
    if (r) {
        rq_on_op(op, r, ins + 3);
        p->rq = 1;
        p->rq_mode = r->axis < 0 ? 0 : r->axis == orank - 1 ? 1 : 2;
        p->shift = r->shift;
        p->lo = r->lo;
        p->hi = r->hi;
        p->out_off = r->off;
    } else {
        op->int32_out = 1;
    }
    set_ins(op, 5, ins);
    p->batches = (int32_t)batches;
    p->m = M;
    p->k = K;
    p->n = Nn;
    p->a_bstride = abat == 1 ? 0 : M * K;
    p->b_bstride = bbat == 1 ? 0 : Nn * K;
    p->a_off = a->off;
    p->b_off = bv ? bv->off : 0;
    p->alpha = (int32_t)alpha;
    p->bias_mode = bias_mode;
    op->batches = (int)batches * M;
    op->in_c = K;
    op->out_c = Nn;
    op->w_batches = (int)bbat;
    op->in_zp = -a->off;
    op->macs = batches * M * Nn * K;
}

static void h_matmul(void)
{
    QV *a = act_input(0), *b = input(1);
    build_matmul(a, b->c ? NULL : b, b->c, 0, NULL, 1, 1);
}

static void h_gemm(void)
{
    if (attr_int(NODE, "transA", 0, 0)) fail("transA is not supported");
    /* integer alpha and beta (QuantLib's), each an int32 the kernel and the
       bias hold exactly */
    int64_t alpha = attr_i32(NODE, "alpha", 1, 0), beta = attr_i32(NODE, "beta", 1, 0);
    QV *a = act_input(0), *b = input(1);
    QC *c = NODE->n_input > 2 && *NODE->input[2] ? const_input(2, "C") : NULL;
    build_matmul(a, b->c ? NULL : b, b->c, (int)attr_range(NODE, "transB", 0, 0, 0, 1), c, alpha, beta);
}

/* ---- element-wise ----------------------------------------------------------------- */

/* An activation operand of an element-wise op (a constant becomes int32). */
static int elt_tensor(QV *v, int *i32, int *off)
{
    if (v->t >= 0) {
        *i32 = is_i32(v);
        *off = v->off;
        return as_onnx(v);
    }
    int32_t *d = arena_alloc(sizeof(int32_t) * (size_t)(v->c->n ? v->c->n : 1));
    for (int64_t i = 0; i < v->c->n; i++) d[i] = (int32_t)cint(v->c, i, INT32_MIN, INT32_MAX, "a constant operand");
    *i32 = 1;
    *off = 0;
    return const_tensor(v->name, DT_INT32, v->c->rank, v->c->shape, d, sizeof(int32_t) * (size_t)v->c->n);
}

/* a + b or a * b (broadcasting) as the value `name`; with the RequantShift
   that alone reads it when fuse. */
static QV *binary(QV *a, QV *b, const char *name, int is_mul, int fuse)
{
    if (a->t < 0 && b->t < 0) fail("both operands are constants");
    int ra = a->t >= 0 ? a->rank : a->c->rank, rb = b->t >= 0 ? b->rank : b->c->rank;
    const int32_t *sa = a->t >= 0 ? a->shape : a->c->shape, *sb = b->t >= 0 ? b->shape : b->c->shape;
    int rank = ra > rb ? ra : rb;
    if (rank > 6) fail("rank %d", rank);
    int32_t os[MAX_RANK];
    for (int d = 0; d < rank; d++) {
        int ad = d - (rank - ra), bd = d - (rank - rb);
        int32_t x = ad >= 0 ? sa[ad] : 1, y = bd >= 0 ? sb[bd] : 1;
        if (x != y && x != 1 && y != 1) fail("shapes do not broadcast");
        os[d] = x == 1 ? y : x;
    }
    int ai32, aoff, bi32, boff;
    int ta = elt_tensor(a, &ai32, &aoff), tb = elt_tensor(b, &bi32, &boff);
    RQ *r = fuse ? fusable_rq(name, rank, os, ~0u) : NULL;
    const char *oname = r ? GR->node[r->node]->output[0] : name;
    QV *y = out_val(oname, r ? DT_INT8 : DT_INT32, r ? r->off : 0, rank, os, 0);
    Op *op = new_op(is_mul ? OP_MUL : OP_ADD, y->t, "htc__ql_binary_params", sizeof(htc__ql_binary_params));
    htc__ql_binary_params *p = op->params;
    int ins[4] = {ta, tb, -1, -1};
    /* 6-D strides, right-aligned, 0 where broadcast */
    int32_t s6[6], a6[6], b6[6];
    int64_t sta = 1, stb = 1;
    for (int d = 5; d >= 0; d--) {
        int od = d - (6 - rank), ad = d - (6 - ra), bd = d - (6 - rb);
        s6[d] = od >= 0 ? os[od] : 1;
        int32_t xa = ad >= 0 ? sa[ad] : 1, xb = bd >= 0 ? sb[bd] : 1;
        a6[d] = xa == 1 ? 0 : (int32_t)sta;
        b6[d] = xb == 1 ? 0 : (int32_t)stb;
        sta *= xa;
        stb *= xb;
    }
    p->s0 = s6[0]; p->s1 = s6[1]; p->s2 = s6[2]; p->s3 = s6[3]; p->s4 = s6[4]; p->s5 = s6[5];
    p->a0 = a6[0]; p->a1 = a6[1]; p->a2 = a6[2]; p->a3 = a6[3]; p->a4 = a6[4]; p->a5 = a6[5];
    p->b0 = b6[0]; p->b1 = b6[1]; p->b2 = b6[2]; p->b3 = b6[3]; p->b4 = b6[4]; p->b5 = b6[5];
    p->a_off = aoff;
    p->b_off = boff;
    p->a_i32 = ai32;
    p->b_i32 = bi32;
    p->op = is_mul;
    p->rq_nch = 1;
    p->rq_inner = 1;
    if (r) {
        rq_on_op(op, r, ins + 2);
        p->rq = 1;
        p->shift = r->shift;
        p->lo = r->lo;
        p->hi = r->hi;
        p->out_off = r->off;
        if (r->axis >= 0) {
            p->rq_nch = r->nch;
            p->rq_inner = (int32_t)numel(os + r->axis + 1, rank - r->axis - 1);
        }
    } else {
        op->int32_out = 1;
        /* the kernel reads mul/add only with rq */
    }
    set_ins(op, 4, ins);
    op->broadcast = numel(sa, ra) != numel(os, rank) || numel(sb, rb) != numel(os, rank);
    op->in_zp = -aoff;
    return y;
}

static void h_binary(int is_mul) { binary(input(0), input(1), NODE->output[0], is_mul, 1); }

/* A constant value of n copies of v or -c (c given). */
static QV *const_val(const char *name, const QC *c, double v)
{
    QV *q = arena_alloc(sizeof *q);
    q->name = arena_strdup(name);
    q->t = q->other = -1;
    q->c = arena_alloc(sizeof *q->c);
    if (c) *q->c = *c;
    else {
        q->c->rank = 1;
        q->c->shape[0] = 1;
        q->c->n = 1;
    }
    q->c->v = arena_alloc(sizeof(double) * (size_t)(q->c->n ? q->c->n : 1));
    for (int64_t i = 0; i < q->c->n; i++) q->c->v[i] = c ? -c->v[i] : v;
    q->rank = q->c->rank;
    memcpy(q->shape, q->c->shape, sizeof q->shape);
    return q;
}

/* a - b = a + (-b): a constant b negated here, an activation times -1 */
static void h_sub(void)
{
    QV *a = input(0), *b = input(1);
    QV *nb = b->t < 0 ? const_val(arena_printf("%s.neg", NODE->output[0]), b->c, 0)
                      : binary(b, const_val(arena_printf("%s.m1", NODE->output[0]), NULL, -1), arena_printf("%s.neg", NODE->output[0]), 1, 0);
    binary(a, nb, NODE->output[0], 0, 1);
}

static void build_matmul(QV *a, QV *bv, QC *bc, int trans_b, QC *cbias, int64_t alpha, int64_t beta);
static void alias_val(QV *x, int t, int rank, const int32_t *shape);

/* ReduceSum over consecutive axes (attribute, or input 1 from opset 13):
   [outer][red][inner] -> [outer][inner][red] x ones[red][1], int32. */
static void h_reducesum(void)
{
    QV *x = act_input(0);
    int64_t axes[MAX_RANK];
    int na = attr_ints(NODE, "axes", axes, MAX_RANK);
    if (na < 0 && NODE->n_input > 1 && *NODE->input[1]) {
        QC *ac = const_input(1, "axes");
        if (ac->n > MAX_RANK) fail("%lld axes", (long long)ac->n);
        na = (int)ac->n;
        for (int i = 0; i < na; i++) axes[i] = cint(ac, i, -x->rank, x->rank - 1, "axes");
    }
    if (na <= 0) fail("axes must be given (reducing every axis is not supported)");
    int keep = (int)attr_range(NODE, "keepdims", 1, 0, 0, 1);
    int lo = MAX_RANK, hi = -1;
    for (int i = 0; i < na; i++) {
        if (axes[i] < -x->rank || axes[i] >= x->rank) fail("axis %lld for rank %d", (long long)axes[i], x->rank);
        int a = (int)(axes[i] < 0 ? axes[i] + x->rank : axes[i]);
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
    }
    if (hi - lo + 1 != na) fail("the reduced axes must be consecutive");
    int32_t outer = (int32_t)numel(x->shape, lo), red = (int32_t)numel(x->shape + lo, na),
            inner = (int32_t)numel(x->shape + hi + 1, x->rank - hi - 1);
    /* x as [outer, inner, red] */
    int t = as_onnx(x);
    int32_t s3[3] = {outer, red, inner};
    int r3 = new_tensor(arena_printf("%s.3d", NODE->output[0]), G->tensors[t].type, 3, s3);
    Op *rs = new_op(OP_RESHAPE, r3, NULL, 0);
    rs->rq = RQ_NONE;
    set_ins(rs, 1, &t);
    static const int SWAP[3] = {0, 2, 1};
    QV *a = arena_alloc(sizeof *a);
    *a = *x;
    a->name = arena_printf("%s.t", NODE->output[0]);
    a->rank = 3;
    a->shape[0] = outer;
    a->shape[1] = inner;
    a->shape[2] = red;
    a->nhwc = 0;
    a->other = -1;
    a->t = inner > 1 ? transpose(r3, SWAP, 3, "T") : r3;
    if (inner == 1) {   /* [outer, red, 1] is [outer, 1, red] */
        int32_t s[3] = {outer, 1, red};
        int r = new_tensor(arena_printf("%s.r", NODE->output[0]), G->tensors[t].type, 3, s);
        Op *o2 = new_op(OP_RESHAPE, r, NULL, 0);
        o2->rq = RQ_NONE;
        set_ins(o2, 1, &r3);
        a->t = r;
    }
    QC *ones = arena_alloc(sizeof *ones);
    ones->rank = 2;
    ones->shape[0] = red;
    ones->shape[1] = 1;
    ones->n = red;
    ones->v = arena_alloc(sizeof(double) * (size_t)red);
    for (int i = 0; i < red; i++) ones->v[i] = 1;
    build_matmul(a, NULL, ones, 0, NULL, 1, 1);
    /* the value it wrote (this node's, or a RequantShift's it fused) as the reduced shape */
    QV *y = vals[nvals - 1];
    const char *name = y->name;
    val_rename(y, arena_printf("%s.sum", name));
    int32_t os[MAX_RANK];
    int orank = 0;
    for (int d = 0; d < x->rank; d++)
        if (d < lo || d > hi) os[orank++] = x->shape[d];
        else if (keep) os[orank++] = 1;
    const Onnx__NodeProto *save = NODE;
    Onnx__NodeProto tmp = *NODE;
    char *outs[1] = {(char *)name};
    tmp.output = outs;
    NODE = &tmp;
    alias_val(y, y->t, orank, os);
    NODE = save;
}

/* ---- functions of one 8-bit value: tables ----------------------------------------- */

typedef int64_t (*Fn)(int64_t x, const int64_t *k);

/* x * y, or an error when the product leaves 64 bits (the attributes are
   int32, so only the last product of each function can). */
static int64_t mul64(int64_t x, int64_t y)
{
    int64_t r;
    if (__builtin_mul_overflow(x, y, &r)) fail("the product %lld x %lld overflows 64 bits", (long long)x, (long long)y);
    return r;
}

static int64_t f_gelu(int64_t x, const int64_t *k)         /* k: b, one */
{
    int64_t q = x < 0 ? -x : x;
    if (q > -k[0]) q = -k[0];
    int64_t sg = x > 0 ? 1 : x < 0 ? -1 : 0;
    int64_t L = sg * (k[1] - (q + k[0]) * (q + k[0]));
    return mul64(x, (k[1] + L) >> 1);
}

static int64_t f_hswish(int64_t x, const int64_t *k)       /* k: one_over_six, six, three */
{
    int64_t c = x + k[2];
    c = c < 0 ? 0 : c > k[1] ? k[1] : c;
    return mul64(x, c * k[0]);
}

static int64_t f_scale(int64_t x, const int64_t *k) { return mul64(x, k[0]); }   /* TrueIntegerDiv: x * floor(...) */
static int64_t f_ident(int64_t x, const int64_t *k) { (void)k; return x; }

/* y = f(x) over the 256 values of an 8-bit input, then the RequantShift that
   alone reads y (scalar parameters), as one table. */
static void build_table(QV *x, Fn f, const int64_t *k, RQ *given)
{
    if (is_i32(x)) fail("the input holds 32-bit values; htc needs an 8-bit input here (a RequantShift before it)");
    int32_t shape[MAX_RANK];
    memcpy(shape, x->shape, sizeof shape);
    RQ *r = given ? given : fusable_rq(NODE->output[0], x->rank, shape, 0);
    int32_t tab[256];
    for (int s = -128; s < 128; s++) {
        int64_t v = f(s + x->off, k);
        /* the op's int32 result (the RequantShift's input) */
        if (v < INT32_MIN || v > INT32_MAX) fail("the result %lld of input %d does not fit 32 bits", (long long)v, s + x->off);
        if (r) v = htc__ql_rq(v, r->mul[0], r->add[0], r->shift, r->lo, r->hi) - r->off;
        tab[(uint8_t)(int8_t)s] = (int32_t)v;
    }
    const char *oname = r ? GR->node[r->node]->output[0] : NODE->output[0];
    if (r) done[r->node] = 1;
    QV *y = out_val(oname, r ? DT_INT8 : DT_INT32, r ? r->off : 0, x->rank, x->shape, x->nhwc);
    Op *op = new_op(OP_TABLE, y->t, "htc__ql_table_params", sizeof(htc__ql_table_params));
    int ins[2] = {x->t, const_i32(arena_printf("%s.table", oname), tab, 256)};
    set_ins(op, 2, ins);
    htc__ql_table_params *p = op->params;
    p->n = (int32_t)numel(x->shape, x->rank);
    p->out_i32 = !r;
    op->int32_out = !r;
}

static void h_gelu(void)
{
    int64_t k[2] = {attr_i32(NODE, "b", 0, 1), attr_i32(NODE, "one", 0, 1)};
    if (k[0] > 0) fail("attribute b is %lld, expected <= 0", (long long)k[0]);
    build_table(act_input(0), f_gelu, k, NULL);
}

static void h_hswish(void)
{
    int64_t k[3] = {attr_i32(NODE, "one_over_six", 0, 1), attr_i32(NODE, "six", 0, 1), attr_i32(NODE, "three", 0, 1)};
    build_table(act_input(0), f_hswish, k, NULL);
}

static void h_truediv(void)
{
    int64_t D = attr_i32(NODE, "Delta", 0, 1), eps = attr_i32(NODE, "eps", 0, 1), eta = attr_i32(NODE, "eta", 0, 1),
            yy = attr_i32(NODE, "y", 0, 1);
    int64_t den = yy * eta + eps;
    if (den == 0) fail("division by zero (y * eta + eps = 0)");
    int64_t num = D * eta, q = num / den;
    if ((num % den != 0) && ((num < 0) != (den < 0))) q--;
    int64_t k[1] = {q};
    build_table(act_input(0), f_scale, k, NULL);
}

static void h_requant(void)
{
    QV *x = act_input(0);
    RQ *r = parse_rq(NODE_INDEX, x->rank, x->shape);
    if (!is_i32(x) && r->axis < 0 && r->type == DT_INT8) {
        build_table(x, f_ident, NULL, r);
        return;
    }
    int t = as_onnx(x);
    QV *y = out_val(NODE->output[0], r->type, r->off, x->rank, x->shape, 0);
    Op *op = new_op(OP_REQUANTIZE, y->t, "htc__ql_requant_params", sizeof(htc__ql_requant_params));
    int ins[3] = {t, -1, -1};
    rq_on_op(op, r, ins + 1);
    set_ins(op, 3, ins);
    htc__ql_requant_params *p = op->params;
    p->n = (int32_t)numel(x->shape, x->rank);
    p->nch = r->nch;
    p->inner = r->axis < 0 ? 1 : (int32_t)numel(x->shape + r->axis + 1, x->rank - r->axis - 1);
    p->in_i32 = is_i32(x);
    p->in_off = x->off;
    p->shift = r->shift;
    p->lo = r->lo;
    p->hi = r->hi;
    p->out_off = r->off;
    p->out_i32 = r->type == DT_INT32;
    op->in_zp = -x->off;
}

/* ---- softmax, norms, means --------------------------------------------------------- */

/* Whether iSoftmax's values fit 32 bits (kernels/qlib_norm.c
   htc__ql_softmax32): xt = x - max in [-255, 0], z = -xt / log2, |q| <=
   |b| + log2 (or, where z can reach its clamp of 31, + 255 + 31 log2), e =
   (a q^2 + c) >> z, the row's sum of at most depth e and e (n_levels - 1)
   all within int32, a row of at most 64 values, log2 at most 65536 (q^2
   within int64). Its 64-bit products and
   division run at compile time: on RV32 they are libgcc calls (__divdi3),
   ~270 instructions and their code's first fetch in every core's call
   (GVSoC, MicroLlama's softmaxes at 8 cores). */
static int softmax32_ok(const htc__ql_softmax_params *p)
{
    const int64_t d = p->depth, l2 = p->log2, a = p->a, b = p->b, c = p->c, nl = p->n_levels - 1;
    int64_t q, e;
    if (p->kind != 0 || d > 64 || d < 1 || l2 < 1 || l2 > 65536 || a < -32768 || a > 32767 || b < -65536 ||
        b > 65536 || nl < 0 || nl > 65536)
        return 0;
    q = (b < 0 ? -b : b) + (255 / l2 <= 31 ? l2 : 255 + 31 * l2);
    e = (a < 0 ? -a : a) * q * q + (c < 0 ? -c : c);
    return e <= 0x7fffffffLL / d && e * nl <= 0x7fffffffLL;
}

/* iSoftmax's z = v / log2 (v = max - x in [0, 255]) as (v * m) >> 16: m =
   ceil(65536 / log2), checked for every v; -1 when none works (the 32-bit
   loop then does not apply). A division is ~20 cycles on a RI5CY core
   (GVSoC: Softmax_Regular's 24 rows of 8 with log2 255: 15,070 cycles on
   one core, 11,019 with log2 256, a shift). */
static int32_t softmax_zmul(int32_t log2)
{
    int32_t m, v;
    if (log2 < 1) return -1;
    m = (int32_t)((65535 + (int64_t)log2) / log2);
    for (v = 0; v < 256; v++)
        if ((v * m) >> 16 != v / log2) return -1;
    return m;
}

static void h_softmax(int kind)
{
    QV *x = act_input(0);
    if (is_i32(x)) fail("softmax of 32-bit values is not supported");
    if (x->off) fail("softmax of unsigned values is not supported");
    int t = as_onnx(x);
    double nl = attr_num(NODE, "n_levels", 256, 0);
    if (nl != 256) fail("n_levels %g (htc supports 256)", nl);
    int n = 256;
    int32_t depth = x->shape[x->rank - 1], gw = 0, ca = 0, cb = 0, cc = 0, log2 = 0;
    if (kind == 2) {        /* ITAPartialMax: the sum streamed over groups of group_width */
        int64_t g = attr_int(NODE, "group_width", 0, 1);
        if (g < 1 || depth % g) fail("group_width %lld does not divide the last axis (%d)", (long long)g, depth);
        gw = (int32_t)g;
    }
    if (kind == 0) {
        ca = attr_i32(NODE, "coeffA", 0, 1);
        cb = attr_i32(NODE, "coeffB", 0, 1);
        cc = attr_i32(NODE, "coeffC", 0, 1);
        log2 = attr_i32(NODE, "log2", 0, 1);
        if (log2 < 1) fail("log2 is %d", log2);
    }
    /* the RequantShift that alone reads it (scalar parameters), folded into
       its store as a byte table: the softmax byte s (value s + 128) to the
       RequantShift's byte, the function its own table op would apply */
    int32_t shape[MAX_RANK];
    memcpy(shape, x->shape, sizeof shape);
    RQ *r = fusable_rq(NODE->output[0], x->rank, shape, 0);
    int8_t tab[256];
    for (int s = -128; r && s < 128; s++) {
        int64_t v = htc__ql_rq(s + 128, r->mul[0], r->add[0], r->shift, r->lo, r->hi) - r->off;
        if (v < -128 || v > 127) r = NULL;     /* not a byte: the RequantShift stays an op */
        else tab[(uint8_t)(int8_t)s] = (int8_t)v;
    }
    const char *oname = r ? GR->node[r->node]->output[0] : NODE->output[0];
    QV *y = out_val(oname, DT_INT8, r ? r->off : 128, x->rank, x->shape, 0);
    Op *op = new_op(OP_SOFTMAX, y->t, "htc__ql_softmax_params", sizeof(htc__ql_softmax_params));
    if (r) {
        int32_t s1[1] = {256};
        int ins[2] = {t, const_tensor(arena_printf("%s.table", oname), DT_INT8, 1, s1, tab, sizeof tab)};
        set_ins(op, 2, ins);
        done[r->node] = 1;
    } else {
        set_ins(op, 1, &t);
    }
    htc__ql_softmax_params *p = op->params;
    p->depth = depth;
    p->outer = (int32_t)(numel(x->shape, x->rank) / depth);
    p->in_off = x->off;
    p->kind = kind;
    p->n_levels = n;
    p->out_off = 128;
    p->group_width = gw;
    p->a = ca;
    p->b = cb;
    p->c = cc;
    p->log2 = log2;
    p->tab = r != NULL;
    p->zmul = kind == 0 ? softmax_zmul(log2) : -1;
    p->s32 = softmax32_ok(p) && p->zmul >= 0;
    op->axis = x->rank - 1;
    op->in_zp = 0;
    op->out_zp = r ? -r->off : -128;
}

static void h_norm(int kind)
{
    QV *x = act_input(0);
    if (is_i32(x)) fail("norm of 32-bit values is not supported");
    int t = as_onnx(x);
    int depth = x->shape[x->rank - 1];
    QC *w = const_input(1, "the weight");
    int log2d = log2_exact(attr_num(NODE, "D", 0, 1), "attribute 'D'");
    int block = depth;
    if (kind == 2) {        /* iNoNorm: w spans the trailing dimensions it has */
        if (w->rank > x->rank) fail("weight of rank %d", w->rank);
        block = (int)numel(x->shape + x->rank - w->rank, w->rank);
        if (w->n != block) fail("weight shape does not match the input's trailing dimensions");
    } else if (w->n != depth) {
        fail("weight has %lld values for a last axis of %d", (long long)w->n, depth);
    }
    int32_t *wv = arena_alloc(sizeof(int32_t) * (size_t)block), *bv = NULL;
    for (int i = 0; i < block; i++) wv[i] = (int32_t)cint(w, i, INT32_MIN, INT32_MAX, "the weight");
    if (kind != 1) {
        QC *b = const_input(2, "the bias");
        if (block % (b->n ? b->n : 1)) fail("bias of %lld values", (long long)b->n);
        bv = arena_alloc(sizeof(int32_t) * (size_t)block);
        for (int i = 0; i < block; i++) bv[i] = (int32_t)cint(b, i % b->n, INT32_MIN, INT32_MAX, "the bias");
    }
    QV *y = out_val(NODE->output[0], DT_INT8, 0, x->rank, x->shape, 0);
    Op *op = new_op(OP_NORM, y->t, "htc__ql_norm_params", sizeof(htc__ql_norm_params));
    int ins[3] = {t, const_i32(arena_printf("%s.w", NODE->output[0]), wv, block),
                  bv ? const_i32(arena_printf("%s.b", NODE->output[0]), bv, block) : -1};
    set_ins(op, 3, ins);
    htc__ql_norm_params *p = op->params;
    p->depth = block;
    p->outer = (int32_t)(numel(x->shape, x->rank) / block);
    p->in_off = x->off;
    p->kind = kind;
    p->log2d = log2d;
    p->mul = kind == 2 ? attr_i32(NODE, "mul", 0, 1) : 1;
    p->lo = -128;
    p->hi = 127;
    op->in_zp = -x->off;
}

static void h_mean(void)
{
    QV *x = act_input(0);
    int64_t axes[MAX_RANK];
    int na = attr_ints(NODE, "axes", axes, MAX_RANK);
    if (na <= 0) fail("axes must be given as an attribute");
    int keep = (int)attr_range(NODE, "keepdims", 1, 0, 0, 1);
    int lo = MAX_RANK, hi = -1;
    for (int i = 0; i < na; i++) {
        if (axes[i] < -x->rank || axes[i] >= x->rank) fail("axis %lld for rank %d", (long long)axes[i], x->rank);
        int a = (int)(axes[i] < 0 ? axes[i] + x->rank : axes[i]);
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
    }
    if (hi - lo + 1 != na) fail("the reduced axes must be consecutive");
    int t = as_onnx(x);
    int32_t os[MAX_RANK];
    int orank = 0;
    for (int d = 0; d < x->rank; d++)
        if (d < lo || d > hi) os[orank++] = x->shape[d];
        else if (keep) os[orank++] = 1;
    QV *y = out_val(NODE->output[0], is_i32(x) ? DT_INT32 : DT_INT8, x->off, orank, os, 0);
    Op *op = new_op(OP_MEAN, y->t, "htc__ql_mean_params", sizeof(htc__ql_mean_params));
    set_ins(op, 1, &t);
    htc__ql_mean_params *p = op->params;
    p->outer = (int32_t)numel(x->shape, lo);
    p->red = (int32_t)numel(x->shape + lo, na);
    p->inner = (int32_t)numel(x->shape + hi + 1, x->rank - hi - 1);
    p->in_off = x->off;
    p->in_i32 = is_i32(x);
    p->out_i32 = is_i32(x);
    p->lo = -128 + x->off;
    p->hi = 127 + x->off;
    p->out_off = x->off;
    op->naxes = na;
    for (int i = 0; i < na; i++) op->axes[i] = lo + i;
    op->keep_dims = keep;
}

/* ---- data movement ------------------------------------------------------------------ */

static void alias_val(QV *x, int t, int rank, const int32_t *shape)
{
    QV *y = out_val(NODE->output[0], G->tensors[t].type, x->off, rank, shape, 0);
    Op *op = new_op(OP_RESHAPE, y->t, NULL, 0);
    op->rq = RQ_NONE;
    set_ins(op, 1, &t);
}

static void h_reshape(void)
{
    QV *x = act_input(0);
    QC *s = const_input(1, "the shape");
    if (s->rank != 1 || s->n > MAX_RANK) fail("the shape must be a list of at most %d dimensions", MAX_RANK);
    int32_t os[MAX_RANK];
    int64_t known = 1, total = numel(x->shape, x->rank);
    int neg = -1;
    for (int d = 0; d < s->n; d++) {
        int64_t v = cint(s, d, -1, INT32_MAX, "the shape");
        if (v == 0) {
            if (d >= x->rank) fail("shape 0 at dimension %d", d);
            v = x->shape[d];
        }
        if (v == -1) {
            if (neg >= 0) fail("two -1 in the shape");
            neg = d;
            os[d] = 1;
            continue;
        }
        os[d] = (int32_t)v;
        if (v && known > MAX_ELEMS / v) fail("the shape holds more than %lld elements", (long long)MAX_ELEMS);
        known *= v;
    }
    if (neg >= 0) {
        if (!known || total % known) fail("cannot reshape %lld elements", (long long)total);
        os[neg] = (int32_t)(total / known);
    } else if (known != total) {
        fail("reshape of %lld elements to %lld", (long long)total, (long long)known);
    }
    alias_val(x, as_onnx(x), (int)s->n, os);
}

static void h_flatten(void)
{
    QV *x = act_input(0);
    int axis = attr_axis(NODE, "axis", 1, 0, x->rank, 1);
    int32_t os[2] = {(int32_t)numel(x->shape, axis), (int32_t)numel(x->shape + axis, x->rank - axis)};
    alias_val(x, as_onnx(x), 2, os);
}

static void h_transpose(void)
{
    QV *x = act_input(0);
    int64_t perm[MAX_RANK];
    int n = attr_ints(NODE, "perm", perm, MAX_RANK);
    int p[MAX_RANK], seen = 0;
    if (n >= 0 && n != x->rank) fail("perm has %d entries for rank %d", n, x->rank);
    for (int d = 0; d < x->rank; d++) {
        int64_t v = n < 0 ? x->rank - 1 - d : perm[d];
        if (v < 0 || v >= x->rank || (seen >> v & 1)) fail("perm is not a permutation");
        p[d] = (int)v;
        seen |= 1 << p[d];
    }
    int t = transpose(as_onnx(x), p, x->rank, "T");
    int32_t os[MAX_RANK];
    for (int d = 0; d < x->rank; d++) os[d] = x->shape[p[d]];
    alias_val(x, t, x->rank, os);
}

/* An 8-bit value as int32 (its values, the offset added): a table. */
static int widen(QV *x)
{
    int t = as_onnx(x);
    int32_t tab[256];
    for (int s = -128; s < 128; s++) tab[(uint8_t)(int8_t)s] = s + x->off;
    int out = new_tensor(arena_printf("%s.i32", x->name), DT_INT32, x->rank, x->shape);
    Op *op = new_op(OP_TABLE, out, "htc__ql_table_params", sizeof(htc__ql_table_params));
    int ins[2] = {t, const_i32(arena_printf("%s.i32.table", x->name), tab, 256)};
    set_ins(op, 2, ins);
    htc__ql_table_params *p = op->params;
    p->n = (int32_t)numel(x->shape, x->rank);
    p->out_i32 = 1;
    op->int32_out = 1;
    return out;
}

static void h_concat(void)
{
    int n = (int)NODE->n_input, nonempty = 0, last = -1;
    for (int i = 0; i < n; i++)
        if (numel(act_input(i)->shape, act_input(i)->rank)) {
            nonempty++;
            last = i;
        }
    if (nonempty == 1) {        /* the rest are empty (a KV cache with no past rows) */
        QV *x = act_input(last);
        alias_val(x, as_onnx(x), x->rank, x->shape);
        return;
    }
    if (n < 1 || n > OP_MAX_IO) fail("%d inputs (at most %d)", n, OP_MAX_IO);
    QV *x0 = act_input(0);
    int axis = attr_axis(NODE, "axis", 0, 1, x0->rank, 0);
    int ins[OP_MAX_IO];
    int32_t os[MAX_RANK];
    memcpy(os, x0->shape, sizeof os);
    os[axis] = 0;
    int32_t *ab = arena_alloc(sizeof(int32_t) * (size_t)n);
    size_t es = dtype_size(G->tensors[x0->t].type);
    int64_t inner = numel(x0->shape + axis + 1, x0->rank - axis - 1);
    int wide = 0;       /* inputs of different types or signedness: all int32 */
    for (int i = 0; i < n; i++) {
        QV *x = act_input(i);
        wide |= is_i32(x) != is_i32(x0) || x->off != x0->off;
    }
    if (wide) es = 4;
    for (int i = 0; i < n; i++) {
        QV *x = act_input(i);
        if (x->rank != x0->rank) fail("inputs differ in rank");
        for (int d = 0; d < x->rank; d++)
            if (d != axis && x->shape[d] != x0->shape[d]) fail("input shapes differ outside the axis");
        if ((int64_t)os[axis] + x->shape[axis] > MAX_ELEMS) fail("the output has more than %lld elements", (long long)MAX_ELEMS);
        os[axis] += x->shape[axis];
        ab[i] = (int32_t)(x->shape[axis] * inner * (int64_t)es);
        ins[i] = wide && !is_i32(x) ? widen(x) : as_onnx(x);
    }
    QV *y = out_val(NODE->output[0], wide ? DT_INT32 : G->tensors[x0->t].type, wide ? 0 : x0->off, x0->rank, os, 0);
    Op *op = new_op(OP_CONCAT, y->t, "htc__concat_params", sizeof(htc__concat_params));
    op->rq = RQ_NONE;
    set_ins(op, n, ins);
    htc__concat_params *p = op->params;
    p->outer = (int32_t)numel(x0->shape, axis);
    p->out_axis_bytes = (int32_t)(os[axis] * inner * (int64_t)es);
    p->n = n;
    p->axis_bytes = ab;
    op->axis = axis;
}

static void h_gather(void)
{
    QV *x = act_input(0);
    QC *ic = const_input(1, "the indices");
    int axis = attr_axis(NODE, "axis", 0, 0, x->rank, 0);
    if (x->rank - 1 + ic->rank > MAX_RANK) fail("result rank above %d", MAX_RANK);
    int32_t *idx = arena_alloc(sizeof(int32_t) * (size_t)(ic->n ? ic->n : 1));
    for (int64_t i = 0; i < ic->n; i++) {
        int64_t v = cint(ic, i, -x->shape[axis], x->shape[axis] - 1, "an index");
        idx[i] = (int32_t)(v < 0 ? v + x->shape[axis] : v);
    }
    int32_t os[MAX_RANK];
    int r = 0;
    for (int d = 0; d < axis; d++) os[r++] = x->shape[d];
    for (int d = 0; d < ic->rank; d++) os[r++] = ic->shape[d];
    for (int d = axis + 1; d < x->rank; d++) os[r++] = x->shape[d];
    int t = as_onnx(x);
    QV *y = out_val(NODE->output[0], G->tensors[t].type, x->off, r, os, 0);
    Op *op = new_op(OP_GATHER, y->t, "htc__ql_gather_params", sizeof(htc__ql_gather_params));
    op->rq = RQ_NONE;
    int ins[2] = {t, const_i32(arena_printf("%s.idx", NODE->output[0]), idx, (int)ic->n)};
    set_ins(op, 2, ins);
    htc__ql_gather_params *p = op->params;
    p->outer = (int32_t)numel(x->shape, axis);
    p->axis = x->shape[axis];
    p->inner = (int32_t)numel(x->shape + axis + 1, x->rank - axis - 1);
    p->elem = (int32_t)dtype_size(G->tensors[t].type);
    p->nidx = (int32_t)ic->n;
    op->axis = axis;
}

/* One gather of constant indices along `axis` of tensor t (ONNX order). */
static int gather_axis(int t, const int32_t *shape, int rank, int axis, const int32_t *idx, int n, const char *name)
{
    int32_t os[MAX_RANK];
    memcpy(os, shape, sizeof(int32_t) * (size_t)rank);
    os[axis] = n;
    DType type = G->tensors[t].type;
    int out = new_tensor(name, type, rank, os);
    Op *op = new_op(OP_GATHER, out, "htc__ql_gather_params", sizeof(htc__ql_gather_params));
    op->rq = RQ_NONE;
    int ins[2] = {t, const_i32(arena_printf("%s.idx", name), idx, n)};
    set_ins(op, 2, ins);
    htc__ql_gather_params *p = op->params;
    p->outer = (int32_t)numel(shape, axis);
    p->axis = shape[axis];
    p->inner = (int32_t)numel(shape + axis + 1, rank - axis - 1);
    p->elem = (int32_t)dtype_size(type);
    p->nidx = n;
    op->axis = axis;
    return out;
}

/* Slice with constant starts, ends, axes, steps (inputs, or attributes
   before opset 10): one gather of the selected indices per sliced axis. */
static void h_slice(void)
{
    QV *x = act_input(0);
    int64_t st[MAX_RANK], en[MAX_RANK], ax[MAX_RANK], sp[MAX_RANK];
    int n;
    if (NODE->n_input >= 3) {
        QC *cs = const_input(1, "starts"), *ce = const_input(2, "ends");
        if (cs->n != ce->n || cs->n < 1 || cs->n > x->rank) fail("starts and ends must have 1 .. %d values, alike", x->rank);
        n = (int)cs->n;
        QC *ca = NODE->n_input > 3 && *NODE->input[3] ? const_input(3, "axes") : NULL;
        QC *cp = NODE->n_input > 4 && *NODE->input[4] ? const_input(4, "steps") : NULL;
        if ((ca && ca->n != n) || (cp && cp->n != n)) fail("axes and steps must have as many values as starts");
        for (int i = 0; i < n; i++) {
            st[i] = cint(cs, i, INT64_MIN / 4, INT64_MAX / 4, "starts");
            en[i] = cint(ce, i, INT64_MIN / 4, INT64_MAX / 4, "ends");
            ax[i] = ca ? cint(ca, i, -x->rank, x->rank - 1, "axes") : i;
            sp[i] = cp ? cint(cp, i, INT32_MIN, INT32_MAX, "steps") : 1;
        }
    } else {
        n = attr_ints(NODE, "starts", st, MAX_RANK);
        if (n < 1 || attr_ints(NODE, "ends", en, MAX_RANK) != n) fail("starts and ends must have as many values");
        int na = attr_ints(NODE, "axes", ax, MAX_RANK);
        if (na >= 0 && na != n) fail("axes must have as many values as starts");
        for (int i = 0; i < n; i++) {
            if (na < 0) ax[i] = i;
            sp[i] = 1;
            if (st[i] < INT64_MIN / 4 || st[i] > INT64_MAX / 4 || en[i] < INT64_MIN / 4 || en[i] > INT64_MAX / 4)
                fail("starts and ends must be within +-2^61");
        }
    }
    int t = as_onnx(x), rank = x->rank, seen = 0;
    int32_t shape[MAX_RANK];
    memcpy(shape, x->shape, sizeof shape);
    for (int i = 0; i < n; i++) {
        if (ax[i] < -rank || ax[i] >= rank) fail("axis %lld for rank %d", (long long)ax[i], rank);
        int a = (int)(ax[i] < 0 ? ax[i] + rank : ax[i]);
        if (seen >> a & 1) fail("axis %lld twice", (long long)ax[i]);
        seen |= 1 << a;
        int64_t d = shape[a], s = st[i], e = en[i], k = sp[i];
        if (k == 0) fail("step 0");
        /* ONNX's clamping: negative counts from the end; [0, d] for positive
           steps, [-1, d - 1] for negative ones */
        if (s < 0) s += d;
        if (e < 0) e += d;
        if (k > 0) {
            s = s < 0 ? 0 : s > d ? d : s;
            e = e < 0 ? 0 : e > d ? d : e;
        } else {
            s = s < 0 ? -1 : s > d - 1 ? d - 1 : s;
            e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
        }
        int64_t cnt = k > 0 ? (e > s ? (e - s + k - 1) / k : 0) : (s > e ? (s - e - k - 1) / -k : 0);
        if (cnt < 1) fail("the slice of axis %d is empty", a);
        if (cnt == d && k == 1) continue;
        int32_t *idx = arena_alloc(sizeof(int32_t) * (size_t)cnt);
        for (int64_t j = 0; j < cnt; j++) idx[j] = (int32_t)(s + j * k);
        t = gather_axis(t, shape, rank, a, idx, (int)cnt, arena_printf("%s.s%d", NODE->output[0], a));
        shape[a] = (int32_t)cnt;
    }
    alias_val(x, t, rank, shape);
}

/* Pad, constant mode: pads from the attribute (opset < 11) or input 1,
   the value from the attribute or input 2 (default 0). */
static void h_pad(void)
{
    QV *x = act_input(0);
    const Onnx__AttributeProto *ma = attr(NODE, "mode");
    if (ma && ma->has_s && (ma->s.len != 8 || memcmp(ma->s.data, "constant", 8)))
        fail("pad mode '%.*s' is not supported", (int)ma->s.len, (const char *)ma->s.data);
    if (x->rank > 5) fail("rank %d: at most 5 is supported", x->rank);
    int64_t pads[2 * MAX_RANK];
    int64_t value = 0;
    int np = attr_ints(NODE, "pads", pads, 2 * MAX_RANK);
    if (np < 0) {
        QC *pc = const_input(1, "pads");
        np = (int)pc->n;
        if (np > 2 * MAX_RANK) fail("%d pads", np);
        for (int i = 0; i < np; i++) pads[i] = cint(pc, i, 0, 65536, "pads");
        if (NODE->n_input > 2 && *NODE->input[2]) value = cint(const_input(2, "the value"), 0, INT32_MIN, INT32_MAX, "the value");
        if (NODE->n_input > 3 && *NODE->input[3]) fail("the axes input is not supported");
    } else {
        value = attr_i32(NODE, "value", 0, 0);
    }
    if (np != 2 * x->rank) fail("%d pads for rank %d", np, x->rank);
    int t = as_onnx(x);
    int i32 = is_i32(x);
    int64_t stored = value - (i32 ? 0 : x->off);
    if (!i32 && (stored < -128 || stored > 127)) fail("the value %lld does not fit the 8-bit input", (long long)value);
    int32_t os[MAX_RANK];
    for (int d = 0; d < x->rank; d++) {
        if (pads[d] < 0 || pads[d + x->rank] < 0 || pads[d] > 65536 || pads[d + x->rank] > 65536)
            fail("pads must be in 0..65536");
        os[d] = (int32_t)(x->shape[d] + pads[d] + pads[d + x->rank]);
    }
    QV *y = out_val(NODE->output[0], G->tensors[t].type, x->off, x->rank, os, 0);
    Op *op = new_op(OP_PAD, y->t, "htc__pad_params", sizeof(htc__pad_params));
    op->rq = RQ_NONE;
    set_ins(op, 1, &t);
    htc__pad_params *p = op->params;
    p->rank = 5;
    p->elem_size = (int32_t)dtype_size(G->tensors[t].type);
    p->pad_value = (int32_t)stored;
    int off = 5 - x->rank;
    for (int i = 0; i < 5; i++) p->in_shape[i] = 1;
    for (int i = 0; i < x->rank; i++) {
        p->in_shape[off + i] = x->shape[i];
        p->before[off + i] = (int32_t)pads[i];
        p->after[off + i] = (int32_t)pads[i + x->rank];
    }
}

/* Constant: a value of its own (the 'value' tensor). */
static void h_constant(void)
{
    const Onnx__AttributeProto *a = attr(NODE, "value");
    if (!a || !a->t) fail("only the 'value' attribute (a tensor) is supported");
    QV *v = val_new(NODE->output[0]);
    v->c = decode(a->t, "the constant");
    v->rank = v->c->rank;
    memcpy(v->shape, v->c->shape, sizeof v->shape);
}

static void h_maxpool(void)
{
    QV *x = act_input(0);
    int one = x->rank == 3;     /* 1-D: as 2-D with height 1 */
    if (x->rank != 4 && !one) fail("only 1-D and 2-D max pooling is supported");
    if (is_i32(x)) fail("max pooling of 32-bit values is not supported");
    if (attr_int(NODE, "ceil_mode", 0, 0)) fail("ceil_mode is not supported");
    if (NODE->n_output > 1 && *NODE->output[1]) fail("the Indices output is not supported");
    if (one) x = as_2d(x);
    int64_t k[2] = {1, 1}, st[2] = {1, 1}, pads[4] = {0, 0, 0, 0}, di[2] = {1, 1};
    if (attr_ints(NODE, "kernel_shape", k + one, 2 - one) != 2 - one) fail("kernel_shape must have %d values", 2 - one);
    int N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    if (N < 1 || C < 1) fail("empty input (%d batches, %d channels)", N, C);
    int oh, ow;
    geometry(one, k[0], k[1], H, W, st, di, pads, &oh, &ow);
    if (di[0] != 1 || di[1] != 1) fail("dilated max pooling is not supported");
    for (int i = 0; i < 4; i++)
        if (pads[i] >= k[i % 2]) fail("pads must be smaller than the kernel (as onnxruntime requires)");
    int t = as_nhwc(x);
    int32_t os[4] = {N, C, oh, ow};
    QV *y = out_val(one ? arena_printf("%s.2d", NODE->output[0]) : NODE->output[0], DT_INT8, x->off, 4, os, 1);
    Op *op = new_op(OP_MAXPOOL, y->t, "htc__pool_params", sizeof(htc__pool_params));
    op->rq = RQ_NONE;
    set_ins(op, 1, &t);
    htc__pool_params *p = op->params;
    p->batches = op->batches = N;
    p->in_h = op->in_h = H;
    p->in_w = op->in_w = W;
    p->c = op->in_c = op->out_c = C;
    p->out_h = op->out_h = oh;
    p->out_w = op->out_w = ow;
    p->k_h = op->k_h = (int)k[0];
    p->k_w = op->k_w = (int)k[1];
    p->stride_h = op->stride_h = (int)st[0];
    p->stride_w = op->stride_w = (int)st[1];
    p->pad_top = op->pad_top = (int)pads[0];
    p->pad_left = op->pad_left = (int)pads[1];
    p->act_min = op->act_min = -128;
    p->act_max = op->act_max = 127;
    op->padding = PAD_EXPLICIT;
    op->macs = (int64_t)N * oh * ow * C * k[0] * k[1];
    if (one) from_2d(y, NODE->output[0]);
}

static void h_identity(void)
{
    QV *x = act_input(0);
    alias_val(x, as_onnx(x), x->rank, x->shape);
}

/* ---- the graph ------------------------------------------------------------------------ */

static void h_add(void) { h_binary(0); }
static void h_mul(void) { h_binary(1); }
static void h_isoftmax(void) { h_softmax(0); }
static void h_itamax(void) { h_softmax(1); }
static void h_itapartialmax(void) { h_softmax(2); }
static void h_layernorm(void) { h_norm(0); }
static void h_rmsnorm(void) { h_norm(1); }
static void h_nonorm(void) { h_norm(2); }

static const struct {
    const char *op;
    void (*fn)(void);
} handlers[] = {
    {"Conv", h_conv}, {"Gemm", h_gemm}, {"MatMul", h_matmul}, {"Add", h_add}, {"Mul", h_mul},
    {"RequantShift", h_requant}, {"iGELU", h_gelu}, {"iHardswish", h_hswish}, {"TrueIntegerDiv", h_truediv},
    {"iSoftmax", h_isoftmax}, {"ITAMax", h_itamax}, {"ITAPartialMax", h_itapartialmax}, {"iLayerNorm", h_layernorm}, {"iRMSNorm", h_rmsnorm},
    {"iNoNorm", h_nonorm}, {"IntegerMean", h_mean}, {"ReduceMean", h_mean}, {"Reshape", h_reshape},
    {"Flatten", h_flatten}, {"Transpose", h_transpose}, {"Concat", h_concat}, {"Gather", h_gather},
    {"MaxPool", h_maxpool}, {"Identity", h_identity}, {"Slice", h_slice}, {"Constant", h_constant}, {"Pad", h_pad}, {"Sub", h_sub},
    {"ReduceSum", h_reducesum},
};

static const char *const QL_OPS[] = {"RequantShift", "iGELU", "iHardswish", "TrueIntegerDiv", "iSoftmax", "ITAMax",
                                     "ITAPartialMax", "iLayerNorm", "iRMSNorm", "iNoNorm", "IntegerMean"};

/* Whether a float constant holds only integers (other types: yes). */
static int integral(const Onnx__TensorProto *t)
{
    if (!t->has_data_type || t->data_type != 1) return 1;
    size_t n = t->has_raw_data ? t->raw_data.len / 4 : t->n_float_data;
    for (size_t i = 0; i < n; i++) {
        float f;
        if (t->has_raw_data) {
            uint32_t u = le32(t->raw_data.data + 4 * i);
            memcpy(&f, &u, 4);
        } else {
            f = t->float_data[i];
        }
        if (!isfinite(f) || f != floorf(f)) return 0;
    }
    return 1;
}

int qlib_is_form(const void *graph)
{
    const Onnx__GraphProto *gr = graph;
    int ql = 0, qdq = 0;
    for (size_t k = 0; k < gr->n_node; k++) {
        const char *op = gr->node[k]->op_type;
        if (!op) continue;
        for (size_t i = 0; i < sizeof QL_OPS / sizeof QL_OPS[0]; i++) ql |= !strcmp(op, QL_OPS[i]);
        if (gr->node[k]->domain && !strcmp(gr->node[k]->domain, "PACTOps")) ql = 1;
        qdq |= !strncmp(op, "QLinear", 7) || !strcmp(op, "QuantizeLinear") || !strcmp(op, "DequantizeLinear") ||
               !strcmp(op, "ConvInteger") || !strcmp(op, "MatMulInteger") || !strcmp(op, "QGemm");
    }
    if (qdq) return 0;
    if (ql) return 1;
    /* no custom op: a float (or int32) graph input, only standard ops htc
       reads in this form and no float constant with a fraction (a float
       Conv's weights would have some): QuantLib's integer kernels of one
       standard op (Add, Conv, MatMul, ...) on integers held in float */
    int float_in = 0;
    for (size_t i = 0; i < gr->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gr->input[i];
        if (vi->type && vi->type->tensor_type && (vi->type->tensor_type->elem_type == 1 ||
                                                  vi->type->tensor_type->elem_type == 6)) float_in = 1;
    }
    if (!float_in) return 0;
    for (size_t i = 0; i < gr->n_initializer; i++)
        if (!integral(gr->initializer[i])) return 0;
    static const char *const STD[] = {"Add", "Mul", "ReduceMean", "Reshape", "Transpose", "Flatten", "Concat", "Gather",
                                      "Conv", "Gemm", "MatMul", "MaxPool", "Identity", "Slice", "Constant", "Pad", "Sub",
                                      "ReduceSum"};
    for (size_t k = 0; k < gr->n_node; k++) {
        const Onnx__NodeProto *nd = gr->node[k];
        int known = 0;
        for (size_t i = 0; nd->op_type && i < sizeof STD / sizeof STD[0]; i++) known |= !strcmp(nd->op_type, STD[i]);
        if (!known) return 0;
        for (size_t i = 0; i < nd->n_attribute; i++)
            if (nd->attribute[i]->t && !integral(nd->attribute[i]->t)) return 0;
    }
    return 1;
}

/* The type of graph input vi at the header interface: the data `htc run`
   was given decides (int8, uint8, else int32); without data int8, or int32
   when only RequantShifts read it (an accumulator). */
static DType input_type(const Onnx__ValueInfoProto *vi, int index)
{
    int64_t lo, hi;
    if (npy_hint(vi->name, index, &lo, &hi)) {
        if (lo >= -128 && hi <= 127) return DT_INT8;
        if (lo >= 0 && hi <= 255) return DT_UINT8;
        return DT_INT32;
    }
    QName *e = name_get(vi->name, 0);
    return e && e->reads && e->rq_only ? DT_INT32 : DT_INT8;
}

/* ---- the order of the nodes ------------------------------------------------------ */

/* Nodes run in file order; one whose inputs are not yet defined waits for a
   later pass over the file (a few of Deeploy's tests list nodes out of
   order). That order, without the passes: a node whose last input is
   defined while node n runs is due in the same pass when it comes after n,
   else in the next; a heap of (pass, index) gives them in turn.
   O((nodes + reads) log nodes). */
static int64_t *heap;
static int nheap, *missing, PASS;

static void heap_push(int64_t key)
{
    int i = nheap++;
    while (i > 0 && heap[(i - 1) / 2] > key) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = key;
}

static int64_t heap_pop(void)
{
    int64_t top = heap[0], last = heap[--nheap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= nheap) break;
        if (c + 1 < nheap && heap[c + 1] < heap[c]) c++;
        if (heap[c] >= last) break;
        heap[i] = heap[c];
        i = c;
    }
    if (nheap) heap[i] = last;
    return top;
}

/* e's value exists now: its readers with no other missing input are due. */
static void name_defined(QName *e)
{
    if (e->defined) return;
    e->defined = 1;
    if (!missing) return;       /* before the nodes: counted when they start */
    for (int r = e->first; r >= 0; r = rd_next[r]) {
        int w = rd_node[r];
        if (done[w] || --missing[w]) continue;
        heap_push((int64_t)(w > NODE_INDEX ? PASS : PASS + 1) << 32 | (uint32_t)w);
    }
}

/* The name table: every name a node reads, with its readers; the graph's
   outputs. */
static void index_names(void)
{
    size_t nreads = 0;
    for (size_t k = 0; k < GR->n_node; k++) nreads += GR->node[k]->n_input;
    if (nreads > INT32_MAX / 2 || GR->n_node > INT32_MAX / 2) fail("%zu nodes reading %zu values: too many", GR->n_node, nreads);
    rd_node = arena_alloc(sizeof(int) * (nreads ? nreads : 1));
    rd_next = arena_alloc(sizeof(int) * (nreads ? nreads : 1));
    int r = 0;
    for (size_t k = 0; k < GR->n_node; k++) {
        const Onnx__NodeProto *nd = GR->node[k];
        for (size_t i = 0; i < nd->n_input; i++) {
            QName *e = name_get(nd->input[i], 1);
            e->reads++;
            e->reader = (int)k;
            e->rq_only &= nd->op_type && !strcmp(nd->op_type, "RequantShift") && i == 0;
            if (!*nd->input[i]) continue;       /* an absent optional input: never waited for */
            rd_node[r] = (int)k;
            rd_next[r] = e->first;
            e->first = r++;
        }
    }
    for (size_t i = 0; i < GR->n_output; i++) {
        if (!GR->output[i]->name) fail("graph output %zu has no name", i);
        name_get(GR->output[i]->name, 1)->output = 1;
    }
}

/* uint8 <-> int8 storage: a byte table (xor 0x80) */
static int xor_op(int in, DType out_type, const char *name)
{
    const Tensor *ti = &G->tensors[in];
    int out = new_tensor(name, out_type, ti->rank, ti->shape);
    Op *op = new_op(OP_TABLE, out, "htc__lut_params", sizeof(htc__lut_params));
    op->rq = RQ_NONE;
    op->src_name = "uint8";
    set_ins(op, 1, &in);
    htc__lut_params *p = op->params;
    p->size = (int32_t)tensor_numel(ti);
    for (int i = 0; i < 256; i++) p->lut[i] = (int8_t)(uint8_t)(i ^ 0x80);
    return out;
}

/* transposes and reshapes whose output nothing reads (a transpose folded
   into the next one leaves its first half so) dropped, until none is left */
static void drop_unread_moves(Graph *g)
{
    /* readers of each tensor; ops are in execution order, so one pass from
       the end sees every reader of an op's output decided before the op */
    int *reads = arena_alloc(sizeof(int) * (size_t)(g->ntensors + 1));
    char *drop = arena_alloc((size_t)g->nops + 1);
    memset(reads, 0, sizeof(int) * (size_t)(g->ntensors + 1));
    for (int j = 0; j < g->nops; j++)
        for (int k = 0; k < g->ops[j].nin; k++)
            if (g->ops[j].in[k] >= 0) reads[g->ops[j].in[k]]++;
    for (int i = g->nops - 1; i >= 0; i--) {
        const Op *op = &g->ops[i];
        drop[i] = (op->kind == OP_TRANSPOSE || op->kind == OP_RESHAPE) && op->nout == 1 &&
                  !g->tensors[op->out[0]].is_output && !reads[op->out[0]];
        if (drop[i])
            for (int k = 0; k < op->nin; k++)
                if (op->in[k] >= 0) reads[op->in[k]]--;
    }
    int n = 0;
    for (int i = 0; i < g->nops; i++)
        if (!drop[i]) g->ops[n++] = g->ops[i];
    g->nops = n;
}

static int QREFUSED;            /* a node was refused: nodes whose inputs never come are not checked */

/* The outputs of a refused node (or of a node reading one), marked. */
static void qnode_poison(const Onnx__NodeProto *nd)
{
    for (size_t o = 0; o < nd->n_output; o++) {
        QV *v = nd->output[o] && *nd->output[o] ? val_find(nd->output[o]) : NULL;
        if (v) v->refused = 1;
    }
}

/* Node n translated (run: its inputs are defined), or, when its inputs are
   never all defined, explained. A node reading a refused node's output is
   not checked unless htc has no operator for it. 0: refused (recorded). */
static int qnode_try(int n, int run)
{
    jmp_buf jb;
    if (setjmp(jb)) {
        qnode_poison(GR->node[n]);
        QREFUSED = 1;
        return 0;
    }
    refuse_catch(&jb);
    NODE = GR->node[n];
    NODE_INDEX = n;
    if (!NODE->op_type) fail("node without op_type");
    int found = -1;
    for (size_t k = 0; k < sizeof handlers / sizeof handlers[0] && found < 0; k++)
        if (!strcmp(handlers[k].op, NODE->op_type)) found = (int)k;
    if (found < 0) fail("unsupported operator in QuantLib's integer form");
    for (size_t i = 0; i < NODE->n_input; i++) {
        QV *v = *NODE->input[i] ? val_find(NODE->input[i]) : NULL;
        if ((v && v->refused) || (!run && !v && QREFUSED)) {
            qnode_poison(NODE);
            refuse_catch(NULL);
            return 1;
        }
    }
    if (run) {
        if (NODE->n_output < 1) fail("node without outputs");
        if (NODE->n_output != 1 && strcmp(NODE->op_type, "MaxPool")) fail("only one output is supported");
        handlers[found].fn();
    } else {                    /* an input nothing defines: input() says which */
        for (size_t i = 0; i < NODE->n_input; i++)
            if (*NODE->input[i]) input((int)i);
        fail("its inputs are never all defined");
    }
    refuse_catch(NULL);
    return 1;
}

Graph *qlib_read(Graph *g, const void *graph, const char *path)
{
    PATH = path;
    G = g;
    GR = graph;
    NODE = NULL;
    QREFUSED = 0;
    vals = NULL;
    nvals = capvals = 0;
    names = (StrMap){0};
    missing = NULL;
    nheap = PASS = 0;
    trans = NULL;
    ntrans = captrans = 0;
    trans_of = NULL;
    ntrans_of = 0;
    done = arena_alloc(GR->n_node + 1);
    memset(done, 0, GR->n_node + 1);
    index_names();
    for (size_t i = 0; i < GR->n_initializer; i++) {
        const Onnx__TensorProto *t = GR->initializer[i];
        if (!t->name || !*t->name) fail("initializer %zu has no name", i);
        QV *v = val_new(t->name);
        v->c = decode(t, arena_printf("initializer '%s'", t->name));
        v->rank = v->c->rank;
        memcpy(v->shape, v->c->shape, sizeof v->shape);
    }
    int index = 0;
    for (size_t i = 0; i < GR->n_input; i++) {
        const Onnx__ValueInfoProto *vi = GR->input[i];
        if (!vi->name || !*vi->name) fail("graph input %zu has no name", i);
        if (val_find(vi->name)) continue;
        if (!vi->type || !vi->type->tensor_type || !vi->type->tensor_type->shape)
            fail("graph input '%s' has no tensor shape", vi->name);
        const Onnx__TensorShapeProto *sp = vi->type->tensor_type->shape;
        if (sp->n_dim > MAX_RANK) fail("graph input '%s' has rank %zu", vi->name, sp->n_dim);
        int32_t shape[MAX_RANK];
        for (size_t d = 0; d < sp->n_dim; d++) {
            int64_t v = sp->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? sp->dim[d]->dim_value : 1;
            /* 0: an empty tensor (a KV cache with no past rows); Concat drops it */
            if (v < 0 || v > (1 << 28)) fail("graph input '%s' has dimension %lld", vi->name, (long long)v);
            shape[d] = (int32_t)v;
        }
        DType dt = input_type(vi, index++);
        QV *v = val_new(vi->name);
        v->rank = (int)sp->n_dim;
        memcpy(v->shape, shape, sizeof shape);
        int t = new_tensor(vi->name, dt, v->rank, shape);
        graph_add_input(g, t);
        v->t = dt == DT_UINT8 ? xor_op(t, DT_INT8, arena_printf("%s.s8", vi->name)) : t;
        v->off = dt == DT_UINT8 ? 128 : 0;
    }
    if (GR->n_output == 0) fail("the graph has no outputs");
    /* every node has an op_type: fusion looks ahead at the nodes reading a value */
    for (size_t n = 0; n < GR->n_node; n++)
        if (!GR->node[n]->op_type) {
            NODE = GR->node[n];
            NODE_INDEX = (int)n;
            fail("node without op_type");
        }
    /* in file order, a node whose inputs are not yet defined in a later pass
       (the heap above): the inputs each node still misses */
    missing = arena_alloc(sizeof(int) * (GR->n_node + 1));
    heap = arena_alloc(sizeof(int64_t) * (GR->n_node + 1));
    for (size_t n = 0; n < GR->n_node; n++) {
        const Onnx__NodeProto *nd = GR->node[n];
        missing[n] = 0;
        for (size_t i = 0; i < nd->n_input; i++)
            missing[n] += *nd->input[i] && !name_get(nd->input[i], 0)->defined;
        if (!missing[n]) heap_push((int64_t)n);
    }
    int refused = 0;
    while (nheap) {
        int64_t key = heap_pop();
        int n = (int)(uint32_t)key;
        if (done[n]) continue;
        PASS = (int)(key >> 32);
        if (!qnode_try(n, 1)) refused = 1;
        done[n] = 1;
    }
    for (size_t n = 0; n < GR->n_node; n++)
        if (!done[n] && !qnode_try((int)n, 0)) refused = 1;
    NODE = NULL;
    if (refused) refuse_flush(PATH);
    for (size_t i = 0; i < GR->n_output; i++) {
        const char *name = GR->output[i]->name;
        QV *v = val_find(name);
        if (!v || v->t < 0) fail("graph output '%s' is not computed by any node", name);
        int t = as_onnx(v);
        if (v->off) t = xor_op(t, DT_UINT8, arena_printf("%s.u8", name));
        Tensor *T = &g->tensors[t];
        if (T->is_input || T->is_output) {
            int c = new_tensor(name, T->type, T->rank, T->shape);
            Op *op = new_op(OP_RESHAPE, c, NULL, 0);
            op->rq = RQ_NONE;
            op->src_name = "Identity";
            set_ins(op, 1, &t);
            t = c;
        }
        g->tensors[t].name = arena_strdup(name);
        graph_add_output(g, t);
    }
    drop_unread_moves(g);
    if (g->nops == 0) fail("the graph computes nothing");
    return g;
}
