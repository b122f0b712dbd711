/* tflite.c - the TFLite front end: reads a .tflite flatbuffer by hand (no
   flatbuffers library), checking every offset against the file, into the IR. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir.h"
#include "../htc.h"

/* Limits that keep a hostile file from making us allocate or loop without
   bound. Real TinyML models are far below them. */
#define MAX_TENSORS (1 << 18)
#define MAX_OPS (1 << 18)
#define MAX_OPCODES (1 << 16)
#define MAX_TENSOR_BYTES ((int64_t)INT32_MAX)

#define TFLITE_SCHEMA_VERSION 3

/* TFLite enums (schema.fbs) this reader needs. */
enum {
    TT_FLOAT32 = 0, TT_INT32 = 2, TT_UINT8 = 3, TT_INT64 = 4, TT_BOOL = 6,
    TT_INT16 = 7, TT_INT8 = 9, TT_UINT64 = 12, TT_RESOURCE = 13, TT_UINT32 = 15
};
enum {
    BO_ADD = 0, BO_AVERAGE_POOL_2D = 1, BO_CONCATENATION = 2, BO_CONV_2D = 3,
    BO_DEPTHWISE_CONV_2D = 4, BO_DEQUANTIZE = 6, BO_FULLY_CONNECTED = 9,
    BO_LOGISTIC = 14, BO_MAX_POOL_2D = 17, BO_MUL = 18, BO_RESHAPE = 22,
    BO_SOFTMAX = 25, BO_CUSTOM = 32, BO_PAD = 34, BO_MEAN = 40, BO_SQUEEZE = 43,
    BO_PADV2 = 60, BO_EXPAND_DIMS = 70, BO_QUANTIZE = 114,
    BO_L2_NORMALIZATION = 11, BO_RELU = 19, BO_RELU_N1_TO_1 = 20, BO_RELU6 = 21,
    BO_RESIZE_BILINEAR = 23, BO_TANH = 28, BO_GATHER = 36, BO_BATCH_TO_SPACE_ND = 37,
    BO_SPACE_TO_BATCH_ND = 38, BO_TRANSPOSE = 39, BO_SUB = 41, BO_STRIDED_SLICE = 45,
    BO_SPLIT = 49, BO_PRELU = 54, BO_MAXIMUM = 55, BO_MINIMUM = 57, BO_NEG = 59,
    BO_SLICE = 65, BO_TRANSPOSE_CONV = 67, BO_TILE = 69, BO_SUM = 74, BO_RSQRT = 76,
    BO_SHAPE = 77, BO_REDUCE_PROD = 81, BO_REDUCE_MAX = 82, BO_PACK = 83, BO_UNPACK = 88,
    BO_RESIZE_NEAREST_NEIGHBOR = 97, BO_LEAKY_RELU = 98, BO_SQUARED_DIFFERENCE = 99,
    BO_ABS = 101, BO_SPLIT_V = 102, BO_ELU = 111, BO_HARD_SWISH = 117, BO_BATCH_MATMUL = 126,
    BO_GELU = 150, BO_RELU_0_TO_1 = 152,
    BO_DEPTH_TO_SPACE = 5, BO_SPACE_TO_DEPTH = 26, BO_ARG_MAX = 56, BO_ARG_MIN = 79, BO_REDUCE_MIN = 89,
    BO_MIRROR_PAD = 100, BO_REVERSE_V2 = 105, BO_BROADCAST_TO = 130,
    BO_UNIDIRECTIONAL_SEQUENCE_LSTM = 44, BO_SVDF = 27, BO_WHILE = 119, BO_IF = 118, BO_CALL_ONCE = 129,
    BO_VAR_HANDLE = 142, BO_READ_VARIABLE = 143, BO_ASSIGN_VARIABLE = 144,
    /* TFLite Micro parity, int8 graphs */
    BO_EMBEDDING_LOOKUP = 7, BO_DIV = 42, BO_CAST = 53, BO_LESS = 58, BO_GREATER = 61, BO_GREATER_EQUAL = 62,
    BO_LESS_EQUAL = 63, BO_EQUAL = 71, BO_NOT_EQUAL = 72, BO_LOGICAL_OR = 84, BO_LOGICAL_AND = 86,
    BO_LOGICAL_NOT = 87, BO_ZEROS_LIKE = 93, BO_FILL = 94, BO_ADD_N = 106, BO_GATHER_ND = 107,
    BO_SELECT_V2 = 123, BO_CUMSUM = 128, BO_BROADCAST_ARGS = 145, BO_DYNAMIC_UPDATE_SLICE = 151, BO_REDUCE_ALL = 140,
    BO_LOG_SOFTMAX = 50,
    /* LiteRT's int32 arithmetic */
    BO_FLOOR_DIV = 90, BO_FLOOR_MOD = 95
};
enum {
    OPT_NONE = 0, OPT_CONV2D = 1, OPT_DWCONV2D = 2, OPT_POOL2D = 5,
    OPT_FC = 8, OPT_SOFTMAX = 9, OPT_CONCAT = 10, OPT_ADD = 11, OPT_MUL = 21,
    OPT_REDUCER = 27, OPT_L2NORM = 12, OPT_RESIZE_BILINEAR = 15, OPT_RESHAPE = 17,
    OPT_GATHER = 23, OPT_SUB = 28, OPT_STRIDED_SLICE = 32, OPT_SPLIT = 35, OPT_TRANSPOSE_CONV = 49,
    OPT_PACK = 59, OPT_UNPACK = 64, OPT_RESIZE_NEAREST = 74, OPT_LEAKY_RELU = 75, OPT_SPLIT_V = 79,
    OPT_BATCH_MATMUL = 101, OPT_GELU = 116, OPT_SPACE_TO_DEPTH = 19, OPT_MIRROR_PAD = 77,
    OPT_DEPTH_TO_SPACE = 94, OPT_UNIDIRECTIONAL_SEQUENCE_LSTM = 71, OPT_DIV = 29, OPT_CUMSUM = 102, OPT_SVDF = 6,
    OPT_CALL_ONCE = 103, OPT_VAR_HANDLE = 111
};

/* BuiltinOperator names, indexed by code (schema.fbs order, no gaps). */
static const char *const builtin_names[] = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D",
    "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE", "DEQUANTIZE", "EMBEDDING_LOOKUP",
    "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION",
    "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION",
    "LSTM", "MAX_POOL_2D", "MUL", "RELU",
    "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR",
    "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF",
    "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL",
    "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN",
    "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE",
    "MEAN", "SUB", "DIV", "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
    "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE",
    "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM",
    "ARG_MAX", "MINIMUM", "LESS", "NEG",
    "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL",
    "SELECT", "SLICE", "SIN", "TRANSPOSE_CONV",
    "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL",
    "NOT_EQUAL", "LOG", "SUM", "SQRT",
    "RSQRT", "SHAPE", "POW", "ARG_MIN",
    "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK",
    "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT",
    "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY",
    "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD",
    "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE",
    "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE",
    "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND",
    "COS", "WHERE", "RANK", "ELU",
    "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG",
    "ROUND", "HARD_SWISH", "IF", "WHILE",
    "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2",
    "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES",
    "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D",
    "CONV_3D", "IMAG", "REAL", "COMPLEX_ABS",
    "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE",
    "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE",
    "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE",
    "RANDOM_UNIFORM", "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE",
    "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM",
    "ATAN2", "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST",
    "BITWISE_XOR", "RIGHT_SHIFT", "STABLEHLO_LOGISTIC", "STABLEHLO_ADD",
    "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM", "STABLEHLO_RESHAPE",
    "STABLEHLO_CLAMP", "STABLEHLO_CONCATENATE", "STABLEHLO_BROADCAST_IN_DIM", "STABLEHLO_CONVOLUTION",
    "STABLEHLO_SLICE", "STABLEHLO_CUSTOM_CALL", "STABLEHLO_REDUCE", "STABLEHLO_ABS",
    "STABLEHLO_AND", "STABLEHLO_COSINE", "STABLEHLO_EXPONENTIAL", "STABLEHLO_FLOOR",
    "STABLEHLO_LOG", "STABLEHLO_MINIMUM", "STABLEHLO_NEGATE", "STABLEHLO_OR",
    "STABLEHLO_POWER", "STABLEHLO_REMAINDER", "STABLEHLO_RSQRT", "STABLEHLO_SELECT",
    "STABLEHLO_SUBTRACT", "STABLEHLO_TANH", "STABLEHLO_SCATTER", "STABLEHLO_COMPARE",
    "STABLEHLO_CONVERT", "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE", "STABLEHLO_PAD",
    "STABLEHLO_IOTA", "STABLEHLO_DOT_GENERAL", "STABLEHLO_REDUCE_WINDOW", "STABLEHLO_SORT",
    "STABLEHLO_WHILE", "STABLEHLO_GATHER", "STABLEHLO_TRANSPOSE", "DILATE",
    "STABLEHLO_RNG_BIT_GENERATOR", "REDUCE_WINDOW", "STABLEHLO_COMPOSITE", "STABLEHLO_SHIFT_LEFT",
    "STABLEHLO_CBRT", "STABLEHLO_CASE",
};
#define NBUILTIN ((int)(sizeof builtin_names / sizeof builtin_names[0]))

/* ---- bounds-checked flatbuffer access ------------------------------------- */

/* The whole file, its name for messages, what is being read (for messages)
   and a budget of elements visited: shared vectors and tables cannot make
   the work grow faster than the file. */
typedef struct {
    const char *path;
    const uint8_t *buf;
    size_t len;
    char ctx[64];
    uint64_t work, budget;
    const ReadOptions *opts;    /* --shape */
    const char **bad;           /* per tensor of subgraph 0: its problem (tensor_bad), or NULL */
    uint8_t *told;              /* per tensor: an operator's refusal named its problem */
    int nbad;
} Reader;

/* A table: its position and its vtable, both checked. */
typedef struct {
    size_t pos, vt;
    unsigned vtsize, tsize;
} Tab;

/* A vector: position of element 0 and the element count, both checked. */
typedef struct {
    size_t pos;
    uint32_t n;
} Vec;

static void corrupt(Reader *r, const char *what, const char *problem)
    __attribute__((noreturn));
static void corrupt(Reader *r, const char *what, const char *problem)
{
    die("%s: corrupt TFLite file: %s%s%s: %s", r->path, r->ctx, r->ctx[0] ? ": " : "",
        what, problem);
}

static void charge(Reader *r, uint64_t n)
{
    r->work += n;
    if (r->work > r->budget)
        die("%s: corrupt TFLite file: shared data makes it too large to read", r->path);
}

/* Little-endian reads; callers have checked the bounds. */
static uint32_t rd_u16(const Reader *r, size_t p) { return (uint32_t)r->buf[p] | (uint32_t)r->buf[p + 1] << 8; }
static uint32_t rd_u32(const Reader *r, size_t p)
{
    return (uint32_t)r->buf[p] | (uint32_t)r->buf[p + 1] << 8 | (uint32_t)r->buf[p + 2] << 16 |
           (uint32_t)r->buf[p + 3] << 24;
}
static uint64_t rd_u64(const Reader *r, size_t p) { return rd_u32(r, p) | (uint64_t)rd_u32(r, p + 4) << 32; }
static int32_t rd_i32(const Reader *r, size_t p) { return (int32_t)rd_u32(r, p); }
static float rd_f32(const Reader *r, size_t p)
{
    uint32_t u = rd_u32(r, p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Is [pos, pos+n) inside the file? (No overflow for any 64-bit inputs.) */
static int in_bounds(const Reader *r, uint64_t pos, uint64_t n)
{
    return pos <= r->len && n <= r->len - pos;
}

/* The table that starts at pos: soffset to the vtable, vtable size and
   table size, all inside the file and aligned as the flatbuffers verifier
   requires. */
static Tab table_at(Reader *r, uint64_t pos, const char *what)
{
    Tab t;
    if (!in_bounds(r, pos, 4)) corrupt(r, what, "table out of bounds");
    if (pos % 4) corrupt(r, what, "misaligned table");
    int64_t vt = (int64_t)pos - (int64_t)rd_i32(r, (size_t)pos);
    if (vt < 0 || !in_bounds(r, (uint64_t)vt, 4)) corrupt(r, what, "vtable out of bounds");
    if (vt % 2) corrupt(r, what, "misaligned vtable");
    t.pos = (size_t)pos;
    t.vt = (size_t)vt;
    t.vtsize = rd_u16(r, t.vt);
    t.tsize = rd_u16(r, t.vt + 2);
    if (t.vtsize < 4 || t.vtsize % 2 || !in_bounds(r, t.vt, t.vtsize))
        corrupt(r, what, "bad vtable size");
    if (t.tsize < 4 || !in_bounds(r, t.pos, t.tsize)) corrupt(r, what, "bad table size");
    charge(r, 1);
    return t;
}

/* Position of field `slot` of size `size` in table t, or 0 when absent. */
static size_t field(Reader *r, const Tab *t, int slot, unsigned size, const char *what)
{
    unsigned vo = 4 + 2 * (unsigned)slot;
    if (vo + 2 > t->vtsize) return 0;
    unsigned off = rd_u16(r, t->vt + vo);
    if (off == 0) return 0;
    if (off + size > t->tsize) corrupt(r, what, "field outside its table");
    size_t p = t->pos + off;
    if (p % size) corrupt(r, what, "misaligned field");
    return p;
}

static int get_i8(Reader *r, const Tab *t, int slot, int def, const char *what)
{
    size_t p = field(r, t, slot, 1, what);
    return p ? (int)(int8_t)r->buf[p] : def;
}

static int get_u8(Reader *r, const Tab *t, int slot, int def, const char *what)
{
    size_t p = field(r, t, slot, 1, what);
    return p ? (int)r->buf[p] : def;
}

static int32_t get_i32(Reader *r, const Tab *t, int slot, int32_t def, const char *what)
{
    size_t p = field(r, t, slot, 4, what);
    return p ? rd_i32(r, p) : def;
}

static uint32_t get_u32(Reader *r, const Tab *t, int slot, uint32_t def, const char *what)
{
    size_t p = field(r, t, slot, 4, what);
    return p ? rd_u32(r, p) : def;
}

static uint64_t get_u64(Reader *r, const Tab *t, int slot, const char *what)
{
    size_t p = field(r, t, slot, 8, what);
    return p ? rd_u64(r, p) : 0;
}

static float get_f32(Reader *r, const Tab *t, int slot, float def, const char *what)
{
    size_t p = field(r, t, slot, 4, what);
    return p ? rd_f32(r, p) : def;
}

/* Follow the uoffset stored at position p (already checked to hold 4 bytes). */
static uint64_t deref(Reader *r, size_t p, const char *what)
{
    uint64_t to = (uint64_t)p + rd_u32(r, p);
    if (to >= r->len) corrupt(r, what, "offset out of bounds");
    return to;
}

/* Sub-table in field `slot`; 0 when absent. */
static int get_table(Reader *r, const Tab *t, int slot, Tab *out, const char *what)
{
    size_t p = field(r, t, slot, 4, what);
    if (!p) return 0;
    *out = table_at(r, deref(r, p, what), what);
    return 1;
}

/* The vector whose length word is at pos, with elements of esize bytes. */
static Vec vec_at(Reader *r, uint64_t pos, unsigned esize, const char *what)
{
    Vec v;
    if (!in_bounds(r, pos, 4)) corrupt(r, what, "vector out of bounds");
    if (pos % 4) corrupt(r, what, "misaligned vector");
    v.n = rd_u32(r, (size_t)pos);
    v.pos = (size_t)pos + 4;
    if (!in_bounds(r, v.pos, (uint64_t)v.n * esize)) corrupt(r, what, "vector length out of bounds");
    return v;
}

/* Vector in field `slot`; 0 when absent (then *v is empty). */
static int get_vec(Reader *r, const Tab *t, int slot, unsigned esize, Vec *v, const char *what)
{
    size_t p = field(r, t, slot, 4, what);
    v->pos = 0;
    v->n = 0;
    if (!p) return 0;
    *v = vec_at(r, deref(r, p, what), esize, what);
    return 1;
}

/* Element i of a vector of tables. */
static Tab vec_table(Reader *r, const Vec *v, uint32_t i, const char *what)
{
    size_t p = v->pos + (size_t)i * 4;
    return table_at(r, deref(r, p, what), what);
}

/* String in field `slot`, copied into the arena with every byte outside
   printable ASCII replaced by '?' (names end up in one-line messages and in
   generated C); NULL when absent. */
static char *get_string(Reader *r, const Tab *t, int slot, const char *what)
{
    Vec v;
    if (!get_vec(r, t, slot, 1, &v, what)) return NULL;
    if (!in_bounds(r, v.pos + v.n, 1) || r->buf[v.pos + v.n] != 0)
        corrupt(r, what, "string not terminated");
    charge(r, v.n);
    char *s = arena_alloc((size_t)v.n + 1);
    for (uint32_t i = 0; i < v.n; i++) {
        uint8_t c = r->buf[v.pos + i];
        s[i] = (c < 0x20 || c > 0x7e) ? '?' : (char)c;
    }
    return s;
}

/* ---- tensors --------------------------------------------------------------- */

static const char *builtin_name(int code)
{
    if (code >= 0 && code < NBUILTIN) return builtin_names[code];
    return arena_printf("BUILTIN_%d", code);
}

/* A problem of tensor i that concerns it alone (its type, quantization,
   shape, sparsity or data size). While subgraph 0 is read it is kept (the
   first per tensor) and read_tensor leaves the tensor empty: the operators
   that use it are refused naming it (bad_refs), the rest of the model is
   still read, and every problem is listed at once. Elsewhere it dies. */
static void tensor_bad(Reader *r, int i, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void tensor_bad(Reader *r, int i, const char *name, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!r->bad) die("%s: tensor %d ('%s'): %s", r->path, i, name, msg);
    if (!r->bad[i]) {
        r->bad[i] = arena_strdup(msg);
        r->nbad++;
    }
}

/* The IR type of TFLite type tt; -1 (recorded by tensor_bad) when htc has none. */
static int map_type(Reader *r, int tt, int index, const char *name)
{
    switch (tt) {
    case TT_INT8: return DT_INT8;
    case TT_UINT8: return DT_UINT8;
    case TT_INT16: return DT_INT16;
    case TT_INT32: return DT_INT32;
    case TT_INT64: return DT_INT64;
    case TT_FLOAT32: return DT_FLOAT32;
    case TT_BOOL: return DT_BOOL;
    case TT_UINT32: return DT_UINT32;
    case TT_UINT64: return DT_UINT64;
    }
    static const char *const names[] = {
        "FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16",
        "COMPLEX64", "INT8", "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT",
        "UINT32", "UINT16", "INT4", "BFLOAT16", "INT2", "UINT4", "FLOAT8_E4M3FN", "FLOAT8_E5M2",
    };
    const char *n = tt >= 0 && tt < (int)(sizeof names / sizeof names[0]) ? names[tt] : "unknown";
    tensor_bad(r, index, name, "unsupported type %s (%d)", n, tt);
    return -1;
}

/* Quantization parameters of tensor T: scale[] and zero_point[] of equal
   length. quantized_dimension is kept as stored: TFLite Micro copies it
   unchecked and reads it only for the filter of a convolution or fully
   connected layer (PopulateConvolutionQuantizationParams), where gen/lower.c
   checks it (`weights_quant`); elsewhere (person_detect's biases carry
   their filter's axis 3 at rank 1) it means nothing. */
static int read_quant(Reader *r, const Tab *qt, Tensor *T, int index)
{
    Vec sv, zv;
    get_vec(r, qt, 2, 4, &sv, "quantization scale");
    get_vec(r, qt, 3, 8, &zv, "quantization zero_point");
    int details = get_u8(r, qt, 4, 0, "quantization details_type");
    int32_t qdim = get_i32(r, qt, 6, 0, "quantization quantized_dimension");
    if (details != 0) {
        tensor_bad(r, index, T->name, "custom quantization details are not supported");
        return 0;
    }
    if (sv.n == 0 && zv.n == 0) return 1;
    if (sv.n != zv.n) {
        tensor_bad(r, index, T->name, "%" PRIu32 " quantization scales but %" PRIu32 " zero points", sv.n, zv.n);
        return 0;
    }
    charge(r, 2 * (uint64_t)sv.n);
    T->q.n = (int)sv.n;
    T->q.axis = qdim;
    T->q.scale = arena_alloc(sizeof(float) * sv.n);
    T->q.zero_point = arena_alloc(sizeof(int64_t) * sv.n);
    for (uint32_t i = 0; i < sv.n; i++) {
        float s = rd_f32(r, sv.pos + 4 * (size_t)i);
        int64_t z = (int64_t)rd_u64(r, zv.pos + 8 * (size_t)i);
        if (!isfinite(s) || s < 0) {
            tensor_bad(r, index, T->name, "invalid quantization scale %g", (double)s);
            return 0;
        }
        if (z < INT32_MIN || z > INT32_MAX) {
            tensor_bad(r, index, T->name, "zero point %" PRId64 " out of range", z);
            return 0;
        }
        T->q.scale[i] = s;
        T->q.zero_point[i] = z;
    }
    return 1;
}

/* Constant contents of T from buffer `bi`: the data vector, or for large
   models the offset/size pair relative to the start of the file. The size
   must match the shape exactly. Misaligned data is copied so that later
   passes may read it as int32_t/float. 0 when the size is wrong (tensor_bad). */
static int read_data(Reader *r, const Vec *buffers, uint32_t bi, Tensor *T, int index)
{
    if (bi == 0 && buffers->n == 0) return 1;
    if (bi >= buffers->n)
        die("%s: tensor %d ('%s'): buffer index %" PRIu32 " out of range (%" PRIu32 " buffers)",
            r->path, index, T->name, bi, buffers->n);
    Tab b = vec_table(r, buffers, bi, "buffer");
    uint64_t off = get_u64(r, &b, 1, "buffer offset");
    uint64_t size = get_u64(r, &b, 2, "buffer size");
    const uint8_t *data = NULL;
    uint64_t n = 0;
    if (off > 1) {
        if (!in_bounds(r, off, size)) corrupt(r, "buffer", "offset/size out of bounds");
        data = r->buf + off;
        n = size;
    } else {
        Vec v;
        if (get_vec(r, &b, 0, 1, &v, "buffer data") && v.n) {
            data = r->buf + v.pos;
            n = v.n;
        }
    }
    if (n == 0) return 1;
    uint64_t want = (uint64_t)tensor_numel(T) * dtype_size(T->type);
    if (n != want) {
        tensor_bad(r, index, T->name, "buffer has %" PRIu64 " bytes, shape and type need %" PRIu64, n, want);
        return 0;
    }
    if ((uintptr_t)data % dtype_size(T->type)) {
        uint8_t *copy = arena_alloc((size_t)n);
        memcpy(copy, data, (size_t)n);
        data = copy;
    }
    T->data = data;
    T->nbytes = (size_t)n;
    return 1;
}

/* Per tensor: the dimensions shape_signature marks dynamic (bit d), and the
   first such dimension after the batch (0 when none). */
static uint8_t *dyn;
static int *dyn_dim;

/* Resource variables (TFLite Micro's VAR_HANDLE / READ_VARIABLE /
   ASSIGN_VARIABLE, set up by CALL_ONCE; microWakeWord's streaming models
   keep their ring buffers in them): each variable is one arena variable
   tensor of the graph (Tensor.variable, reset to the value CALL_ONCE's
   subgraph assigns it: a memset when one byte repeated, else a copy of
   the constant), READ_VARIABLE
   and ASSIGN_VARIABLE copies from and into it (whole-tensor slices). */
typedef struct {
    const char *key;            /* container/shared_name */
    int tensor;                 /* the init subgraph's constant (in init) */
    int state;                  /* its state tensor in the graph, or -1 */
} RVarInit;
typedef struct {
    uint8_t *handle;            /* per tensor of subgraph 0: a resource handle */
    int *state;                 /* per tensor of subgraph 0: its variable's state tensor, or -1 */
    RVarInit *init;
    int ninit;
    Graph *g1;                  /* the init subgraph's tensors */
} RVars;
static RVars *rvars;

/* Tensor i of the subgraph into g->tensors[i]. A problem of the tensor
   alone (tensor_bad) leaves it empty: int8, rank 0, no data, no
   quantization. */
static void read_tensor(Reader *r, Graph *g, const Vec *tensors, const Vec *buffers, int i)
{
    snprintf(r->ctx, sizeof r->ctx, "tensor %d", i);
    Tab t = vec_table(r, tensors, (uint32_t)i, "table");
    int idx = graph_add_tensor(g);
    Tensor *T = &g->tensors[idx];
    T->src_index = i;
    T->name = get_string(r, &t, 3, "name");
    if (!T->name) T->name = arena_printf("tensor%d", i);

    Vec shape, sig;
    get_vec(r, &t, 0, 4, &shape, "shape");
    if (shape.n > MAX_RANK) {
        tensor_bad(r, i, T->name, "rank %" PRIu32 " exceeds the maximum %d", shape.n, MAX_RANK);
        goto bad;
    }
    T->rank = (int)shape.n;
    int64_t numel = 1;
    for (int d = 0; d < T->rank; d++) {
        int32_t v = rd_i32(r, shape.pos + 4 * (size_t)d);
        if (v < 0) {
            tensor_bad(r, i, T->name, "dynamic or negative dimension %" PRId32, v);
            goto bad;
        }
        T->shape[d] = v;
        numel *= v;
        if (numel > MAX_TENSOR_BYTES) {
            tensor_bad(r, i, T->name, "too large: its first %d dimensions hold %" PRId64 " elements, at most %" PRId64
                       " bytes per tensor", d + 1, numel, MAX_TENSOR_BYTES);
            goto bad;
        }
    }
    /* shape_signature: -1 marks a dynamic dimension, and shape then holds
       the value the converter traced (1 for Keras's None batch). htc, like
       TFLite Micro, compiles the stored shape; tflite_read checks that the
       dynamic dimensions come from the graph inputs (see input_shapes). */
    if (get_vec(r, &t, 7, 4, &sig, "shape_signature") && sig.n) {
        if (sig.n != shape.n) {
            tensor_bad(r, i, T->name, "shape_signature has rank %" PRIu32 ", shape has %d", sig.n, T->rank);
            goto bad;
        }
        for (int d = 0; d < T->rank; d++) {
            int32_t v = rd_i32(r, sig.pos + 4 * (size_t)d);
            if (v < -1) {
                tensor_bad(r, i, T->name, "shape_signature dimension %d is %" PRId32, d, v);
                goto bad;
            }
            if (v == -1) {
                dyn[i] |= 1u << d;
                if (d > 0 && dyn_dim[i] == 0) dyn_dim[i] = d;
            }
            if (v >= 0 && v != T->shape[d]) {
                tensor_bad(r, i, T->name, "shape_signature dimension %d is %" PRId32 ", shape says %" PRId32, d, v,
                           T->shape[d]);
                goto bad;
            }
        }
    }
    int tt = get_i8(r, &t, 1, TT_FLOAT32, "type");
    if (tt == TT_RESOURCE && rvars) {   /* a resource variable's handle: its state, set by VAR_HANDLE */
        T->type = DT_INT8;
        T->rank = 0;
        rvars->handle[i] = 1;
        r->ctx[0] = 0;
        return;
    }
    int type = map_type(r, tt, i, T->name);
    if (type < 0) goto bad;
    T->type = (DType)type;
    if (numel * (int64_t)dtype_size(T->type) > MAX_TENSOR_BYTES) {
        tensor_bad(r, i, T->name, "too large: %" PRId64 " elements of %s are %" PRId64 " bytes, at most %" PRId64
                   " per tensor", numel, dtype_name(T->type), numel * (int64_t)dtype_size(T->type), MAX_TENSOR_BYTES);
        goto bad;
    }

    Tab sp;
    if (get_table(r, &t, 6, &sp, "sparsity")) {
        tensor_bad(r, i, T->name, "sparse tensors are not supported");
        goto bad;
    }
    Tab qt;
    if (get_table(r, &t, 4, &qt, "quantization") && !read_quant(r, &qt, T, i)) goto bad;
    if (!read_data(r, buffers, get_u32(r, &t, 2, 0, "buffer"), T, i)) goto bad;
    T->variable = get_u8(r, &t, 5, 0, "is_variable") != 0;    /* LSTM / SVDF state */
    r->ctx[0] = 0;
    return;
bad:
    T->type = DT_INT8;
    T->rank = 0;
    T->q.n = 0;
    T->data = NULL;
    T->nbytes = 0;
    dyn[i] = 0;
    dyn_dim[i] = 0;
    r->ctx[0] = 0;
}

/* ---- compile-time shapes and shape arithmetic ------------------------------
   Keras models with a dynamic batch compute some shapes at run time: SHAPE ->
   GATHER / STRIDED_SLICE / REDUCE_PROD / CONCATENATION / PACK -> the shape
   input of a RESHAPE, and the converter stores a placeholder shape for the
   tensors downstream (shape_signature -1 beyond the batch). htc compiles one
   static shape (the stored one of the inputs), so every such integer op is
   evaluated here, at read time, into a constant (the op disappears), and the
   shape of every tensor marked dynamic is computed from its op's inputs. */

static int norm_axis(Reader *r, int64_t a, int rank, int index, const char *name);
static int options(Reader *r, const Tab *ot, int want, Tab *opt, int index, const char *name);

/* A constant integer tensor's values (int32 or int64), at most max. */
static int const_ints(Reader *r, const Graph *g, int ti, int64_t *v, int max, int index, const char *name,
                      const char *what)
{
    const Tensor *t = &g->tensors[ti];
    if (!t->data && tensor_numel(t) != 0)
        refuse(r->path, index, "operator %d (%s): %s tensor '%s' is not constant", index, name, what, t->name);
    if (t->type != DT_INT32 && t->type != DT_INT64)
        refuse(r->path, index, "operator %d (%s): %s tensor '%s' has type %s, expected int32", index, name, what,
            t->name, dtype_name(t->type));
    int64_t n = tensor_numel(t);
    if (n > max)
        refuse(r->path, index, "operator %d (%s): %s tensor '%s' has %lld values, at most %d are supported", index,
            name, what, t->name, (long long)n, max);
    for (int64_t k = 0; k < n; k++) {
        if (t->type == DT_INT32) {
            int32_t x;
            memcpy(&x, t->data + 4 * k, 4);
            v[k] = x;
        } else {
            memcpy(&v[k], t->data + 8 * k, 8);
        }
    }
    return (int)n;
}

/* Per tensor: its shape has been computed here (from a dynamic signature). */
static uint8_t *resolved;

static void set_shape(Reader *r, Graph *g, int ti, int rank, const int64_t *d, int index, const char *name)
{
    Tensor *t = &g->tensors[ti];
    int64_t n = 1;
    if (rank > MAX_RANK) refuse(r->path, index, "operator %d (%s): output rank %d exceeds %d", index, name, rank, MAX_RANK);
    for (int k = 0; k < rank; k++) {
        if (d[k] < 0 || d[k] > INT32_MAX)
            refuse(r->path, index, "operator %d (%s): output dimension %d is %lld", index, name, k, (long long)d[k]);
        n *= d[k];
        if (n > MAX_TENSOR_BYTES)
            refuse(r->path, index, "operator %d (%s): output too large: its first %d dimensions hold %" PRId64
                   " elements, at most %" PRId64, index, name, k + 1, n, (int64_t)MAX_TENSOR_BYTES);
    }
    int same = t->rank == rank;
    for (int k = 0; k < rank && same; k++) same = t->shape[k] == d[k];
    t->rank = rank;
    for (int k = 0; k < rank; k++) t->shape[k] = (int32_t)d[k];
    if (!same) resolved[ti] = 1;        /* differs from the stored placeholder */
}

/* Tensor ti becomes a constant with values v (its own int type) and shape d. */
static void set_const(Reader *r, Graph *g, int ti, const int64_t *v, int rank, const int64_t *d, int index,
                      const char *name)
{
    Tensor *t = &g->tensors[ti];
    if (t->type != DT_INT32 && t->type != DT_INT64)
        refuse(r->path, index, "operator %d (%s): output '%s' has type %s, expected int32", index, name, t->name,
            dtype_name(t->type));
    set_shape(r, g, ti, rank, d, index, name);
    int64_t n = tensor_numel(t);
    size_t es = dtype_size(t->type);
    uint8_t *buf = arena_alloc((size_t)(n ? n : 1) * es);
    for (int64_t k = 0; k < n; k++) {
        if (es == 4) {
            int32_t x = (int32_t)v[k];
            memcpy(buf + 4 * k, &x, 4);
        } else {
            memcpy(buf + 8 * k, &v[k], 8);
        }
    }
    t->data = buf;
    t->nbytes = (size_t)n * es;
}

/* StartForAxis / StopForAxis of tensorflow/lite/kernels/internal/
   strided_slice_logic.h: the first index and the element count along one
   axis of size n (TFLM's STRIDED_SLICE ignores ellipsis and new-axis masks;
   htc refuses them). */
static void slice_axis(int64_t start, int64_t stop, int64_t stride, int begin_mask, int end_mask, int shrink,
                       int64_t n, int32_t *first, int32_t *count)
{
    if (n == 0) {
        *first = 0;
        *count = 0;
        return;
    }
    if (begin_mask) start = stride > 0 ? INT32_MIN : INT32_MAX;
    if (start < 0) start += n;
    if (stride > 0) start = start < 0 ? 0 : (start > n ? n : start);
    else start = start < -1 ? -1 : (start > n - 1 ? n - 1 : start);
    if (shrink) {
        stop = start + 1;
    } else {
        if (end_mask) stop = stride > 0 ? INT32_MAX : INT32_MIN;
        if (stop < 0) stop += n;
        if (stride > 0) stop = stop < 0 ? 0 : (stop > n ? n : stop);
        else stop = stop < -1 ? -1 : (stop > n - 1 ? n - 1 : stop);
    }
    double c = ceil((double)(float)(stop - start) / (double)(float)stride);
    *first = (int32_t)start;
    *count = c < 0 ? 0 : (int32_t)c;
}

/* STRIDED_SLICE's geometry from its constant begin/end/strides inputs and
   masks into op-less arrays: first[], step[], count[] per input axis; the
   output shape (shrunk axes removed) into od[], its rank returned. */
static int strided_geometry(Reader *r, const Graph *g, const Tab *ot, const int *in, int index, const char *name,
                            int32_t *first, int32_t *step, int32_t *count, int64_t *od)
{
    const Tensor *x = &g->tensors[in[0]];
    int64_t b[MAX_RANK], e[MAX_RANK], s[MAX_RANK];
    Tab opt;
    int has = options(r, ot, OPT_STRIDED_SLICE, &opt, index, name);
    int bm = has ? get_i32(r, &opt, 0, 0, "begin_mask") : 0;
    int em = has ? get_i32(r, &opt, 1, 0, "end_mask") : 0;
    int elm = has ? get_i32(r, &opt, 2, 0, "ellipsis_mask") : 0;
    int nam = has ? get_i32(r, &opt, 3, 0, "new_axis_mask") : 0;
    int sm = has ? get_i32(r, &opt, 4, 0, "shrink_axis_mask") : 0;
    if (elm || nam) refuse(r->path, index, "operator %d (%s): ellipsis and new-axis masks are not supported", index, name);
    int nb = const_ints(r, g, in[1], b, MAX_RANK, index, name, "begin");
    int ne = const_ints(r, g, in[2], e, MAX_RANK, index, name, "end");
    int ns = const_ints(r, g, in[3], s, MAX_RANK, index, name, "strides");
    if (nb != x->rank || ne != x->rank || ns != x->rank)
        refuse(r->path, index, "operator %d (%s): begin, end and strides must have %d values (the input's rank)", index,
            name, x->rank);
    int orank = 0;
    for (int a = 0; a < x->rank; a++) {
        if (s[a] == 0 || s[a] < INT32_MIN || s[a] > INT32_MAX)
            refuse(r->path, index, "operator %d (%s): stride %lld on axis %d", index, name, (long long)s[a], a);
        slice_axis(b[a], e[a], s[a], bm >> a & 1, em >> a & 1, sm >> a & 1, x->shape[a], &first[a], &count[a]);
        step[a] = (int32_t)s[a];
        if (!(sm >> a & 1)) od[orank++] = count[a];
    }
    return orank;
}

/* Reduced shape of a reduction over axes (normalised, repeats allowed). */
static int reduce_shape(const Tensor *x, const int *axes, int naxes, int keep, int64_t *od)
{
    int n = 0;
    for (int d = 0; d < x->rank; d++) {
        int red = 0;
        for (int k = 0; k < naxes; k++) red |= axes[k] == d;
        if (!red) od[n++] = x->shape[d];
        else if (keep) od[n++] = 1;
    }
    return n;
}

/* An integer op whose inputs are all constant (SHAPE: whose input shape is
   known) is evaluated here: its output becomes a constant. Returns 1 when
   folded. Only the shape arithmetic Keras graphs carry (int32/int64). */
static int fold(Reader *r, Graph *g, const Tab *ot, int code, const char *name, int index, const int *in, int nin,
                const int *out, int nout)
{
    int64_t v[4 * MAX_RANK + 4], a[MAX_RANK * 4], d[MAX_RANK];
    if (nout != 1) return 0;
    const Tensor *o = &g->tensors[out[0]];
    if (o->type != DT_INT32 && o->type != DT_INT64) return 0;
    if (code == BO_SHAPE) {
        const Tensor *x = &g->tensors[in[0]];
        for (int k = 0; k < x->rank; k++) v[k] = x->shape[k];
        d[0] = x->rank;
        set_const(r, g, out[0], v, 1, d, index, name);
        return 1;
    }
    for (int k = 0; k < nin; k++)
        if (in[k] < 0 || !g->tensors[in[k]].data || tensor_numel(&g->tensors[in[k]]) > 4 * MAX_RANK) return 0;
    const Tensor *x = &g->tensors[in[0]];
    if (x->type != DT_INT32 && x->type != DT_INT64) return 0;
    int nx = const_ints(r, g, in[0], a, 4 * MAX_RANK, index, name, "input");
    Tab opt;
    int has;
    switch (code) {
    case BO_STRIDED_SLICE: {
        int32_t first[MAX_RANK], step[MAX_RANK], count[MAX_RANK];
        if (x->rank != 1) return 0;
        int orank = strided_geometry(r, g, ot, in, index, name, first, step, count, d);
        for (int k = 0; k < count[0]; k++) v[k] = a[first[0] + (int64_t)k * step[0]];
        set_const(r, g, out[0], v, orank, d, index, name);
        return 1;
    }
    case BO_GATHER: {
        int64_t idx[4 * MAX_RANK];
        has = options(r, ot, OPT_GATHER, &opt, index, name);
        int axis = has ? get_i32(r, &opt, 0, 0, "axis") : 0;
        const Tensor *it = &g->tensors[in[1]];
        if (x->rank != 1 || (axis != 0 && axis != -1) || it->rank > 1) return 0;
        int ni = const_ints(r, g, in[1], idx, 4 * MAX_RANK, index, name, "indices");
        for (int k = 0; k < ni; k++) {
            if (idx[k] < 0 || idx[k] >= nx)
                refuse(r->path, index, "operator %d (%s): index %lld out of range [0, %d)", index, name, (long long)idx[k], nx);
            v[k] = a[idx[k]];
        }
        d[0] = ni;
        set_const(r, g, out[0], v, it->rank, d, index, name);
        return 1;
    }
    case BO_REDUCE_PROD: {
        int64_t ax[MAX_RANK];
        has = options(r, ot, OPT_REDUCER, &opt, index, name);
        int keep = has ? get_u8(r, &opt, 0, 0, "keep_dims") != 0 : 0;
        int na = const_ints(r, g, in[1], ax, MAX_RANK, index, name, "axes");
        if (x->rank > 1 || (na == 1 && norm_axis(r, ax[0], x->rank ? x->rank : 1, index, name) != 0) || na > 1) return 0;
        int64_t p = 1;
        for (int k = 0; k < nx; k++) p *= a[k];
        d[0] = 1;
        set_const(r, g, out[0], &p, keep && x->rank ? 1 : 0, d, index, name);
        return 1;
    }
    case BO_CONCATENATION: case BO_PACK: {
        int n = 0;
        for (int k = 0; k < nin; k++) {
            const Tensor *t = &g->tensors[in[k]];
            if (t->rank != (code == BO_PACK ? 0 : 1)) return 0;
            n += const_ints(r, g, in[k], v + n, 4 * MAX_RANK + 4 - n, index, name, "input");
        }
        d[0] = n;
        set_const(r, g, out[0], v, 1, d, index, name);
        return 1;
    }
    case BO_BROADCAST_ARGS: {         /* numpy broadcast of two constant shapes */
        int64_t b[MAX_RANK];
        if (nin != 2 || x->rank != 1 || g->tensors[in[1]].rank != 1 || nx > MAX_RANK) return 0;
        int nb = const_ints(r, g, in[1], b, MAX_RANK, index, name, "shape");
        int n = nx > nb ? nx : nb;
        for (int k = 0; k < n; k++) {
            int64_t p = k - (n - nx) >= 0 ? a[k - (n - nx)] : 1, q = k - (n - nb) >= 0 ? b[k - (n - nb)] : 1;
            if (p != q && p != 1 && q != 1)
                refuse(r->path, index, "operator %d (%s): shapes do not broadcast (%lld and %lld at dimension %d)", index,
                    name, (long long)p, (long long)q, k);
            v[k] = p == 1 ? q : p;
        }
        d[0] = n;
        set_const(r, g, out[0], v, 1, d, index, name);
        return 1;
    }
    case BO_RESHAPE: case BO_SQUEEZE: case BO_EXPAND_DIMS:
        if (o->rank > MAX_RANK || tensor_numel(o) != nx) return 0;
        for (int k = 0; k < o->rank; k++) d[k] = o->shape[k];
        set_const(r, g, out[0], a, o->rank, d, index, name);
        return 1;
    }
    return 0;
}

/* Broadcast shape of two tensors (numpy rules), into d; its rank. */
static int broadcast_shape(Reader *r, const Tensor *a, const Tensor *b, int64_t *d, int index, const char *name)
{
    int rank = a->rank > b->rank ? a->rank : b->rank;
    for (int k = 0; k < rank; k++) {
        int ia = k - (rank - a->rank), ib = k - (rank - b->rank);
        int64_t x = ia >= 0 ? a->shape[ia] : 1, y = ib >= 0 ? b->shape[ib] : 1;
        if (x != y && x != 1 && y != 1)
            refuse(r->path, index, "operator %d (%s): shapes of '%s' and '%s' do not broadcast", index, name, a->name, b->name);
        d[k] = x == 1 ? y : x;
    }
    return rank;
}

/* Output size of a convolution or pool along one axis (TFLite's ComputeOutSize). */
static int64_t conv_out(Padding p, int64_t in, int64_t k, int64_t s, int64_t dil)
{
    int64_t eff = (k - 1) * dil + 1;
    return p == PAD_SAME ? (in + s - 1) / s : (in - eff + s) / s;
}

/* The output shape of op computed from its inputs (a dynamic output,
   shape_signature -1: the stored shape is the converter's placeholder).
   Returns 0 for an operator without a rule. */
static int infer_shape(Reader *r, Graph *g, const Tab *ot, int code, Op *op, int index, const char *name)
{
    int64_t d[MAX_RANK], s[MAX_RANK];
    int rank = 0;
    const Tensor *x = &g->tensors[op->in[0]];
    Tab opt;
    switch (code) {
    case BO_CONV_2D: case BO_DEPTHWISE_CONV_2D: case BO_AVERAGE_POOL_2D: case BO_MAX_POOL_2D: {
        int pool = code == BO_AVERAGE_POOL_2D || code == BO_MAX_POOL_2D;
        const Tensor *w = pool ? NULL : &g->tensors[op->in[1]];
        if (x->rank != 4 || (w && w->rank != 4)) return 0;
        int64_t kh = pool ? op->k_h : w->shape[1], kw = pool ? op->k_w : w->shape[2];
        rank = 4;
        d[0] = x->shape[0];
        d[1] = conv_out(op->padding, x->shape[1], kh, op->stride_h, pool ? 1 : op->dil_h);
        d[2] = conv_out(op->padding, x->shape[2], kw, op->stride_w, pool ? 1 : op->dil_w);
        d[3] = pool ? x->shape[3] : code == BO_CONV_2D ? w->shape[0] : w->shape[3];
        break;
    }
    case BO_EXPAND_DIMS: {
        int64_t a;
        if (x->rank >= MAX_RANK || const_ints(r, g, op->in[1], &a, 1, index, name, "axis") != 1) return 0;
        if (a < 0) a += x->rank + 1;
        if (a < 0 || a > x->rank) refuse(r->path, index, "operator %d (%s): axis out of range", index, name);
        for (int k = 0, j = 0; k <= x->rank; k++) d[k] = k == a ? 1 : x->shape[j++];
        rank = x->rank + 1;
        break;
    }
    case BO_TILE: {
        int64_t m[MAX_RANK];
        if (const_ints(r, g, op->in[1], m, MAX_RANK, index, name, "multiples") != x->rank) return 0;
        rank = x->rank;
        for (int k = 0; k < rank; k++) d[k] = x->shape[k] * m[k];
        break;
    }
    case BO_SPACE_TO_BATCH_ND: case BO_BATCH_TO_SPACE_ND: {
        int64_t b[2], q[4];
        int ns = x->rank - 2;
        if ((x->rank != 3 && x->rank != 4) || const_ints(r, g, op->in[1], b, 2, index, name, "block_shape") != ns ||
            const_ints(r, g, op->in[2], q, 4, index, name, "paddings") != 2 * ns)
            return 0;
        int64_t prod = 1;
        rank = x->rank;
        for (int k = 0; k < ns; k++) {
            if (b[k] < 1) refuse(r->path, index, "operator %d (%s): block size %lld", index, name, (long long)b[k]);
            prod *= b[k];
            if (code == BO_SPACE_TO_BATCH_ND) d[1 + k] = (x->shape[1 + k] + q[2 * k] + q[2 * k + 1]) / b[k];
            else d[1 + k] = x->shape[1 + k] * b[k] - q[2 * k] - q[2 * k + 1];
        }
        d[0] = code == BO_SPACE_TO_BATCH_ND ? x->shape[0] * prod : x->shape[0] / prod;
        d[rank - 1] = x->shape[rank - 1];
        break;
    }
    case BO_CONCATENATION: {
        rank = x->rank;
        for (int k = 0; k < rank; k++) d[k] = x->shape[k];
        d[op->axis] = 0;
        for (int i = 0; i < op->nin; i++) d[op->axis] += g->tensors[op->in[i]].shape[op->axis];
        break;
    }
    case BO_PAD: case BO_PADV2: case BO_MIRROR_PAD: {
        int64_t q[2 * MAX_RANK];
        if (const_ints(r, g, op->in[1], q, 2 * MAX_RANK, index, name, "paddings") != 2 * x->rank) return 0;
        rank = x->rank;
        for (int k = 0; k < rank; k++) d[k] = x->shape[k] + q[2 * k] + q[2 * k + 1];
        break;
    }
    case BO_RESHAPE: {
        int n = 0;
        if (op->nin > 1 && op->in[1] >= 0 && tensor_numel(&g->tensors[op->in[1]]) > 0) {
            n = const_ints(r, g, op->in[1], s, MAX_RANK, index, name, "shape");
        } else if (options(r, ot, OPT_RESHAPE, &opt, index, name)) {
            Vec ns;
            get_vec(r, &opt, 0, 4, &ns, "new_shape");
            if (ns.n > MAX_RANK) refuse(r->path, index, "operator %d (%s): new_shape has rank %u", index, name, ns.n);
            n = (int)ns.n;
            for (int k = 0; k < n; k++) s[k] = rd_i32(r, ns.pos + 4 * (size_t)k);
        } else {
            refuse(r->path, index, "operator %d (%s): dynamic output shape without a shape", index, name);
        }
        int64_t known = 1, numel = tensor_numel(x);
        int neg = -1;
        for (int k = 0; k < n; k++) {
            if (s[k] == -1 && neg < 0) neg = k;
            else if (s[k] < 0) refuse(r->path, index, "operator %d (%s): shape value %lld", index, name, (long long)s[k]);
            else known *= s[k];
        }
        for (int k = 0; k < n; k++) d[k] = s[k];
        if (neg >= 0) {
            if (known == 0 || numel % known) refuse(r->path, index, "operator %d (%s): cannot reshape %lld elements", index, name, (long long)numel);
            d[neg] = numel / known;
        }
        rank = n;
        break;
    }
    case BO_FULLY_CONNECTED: {
        const Tensor *w = &g->tensors[op->in[1]];
        int keep = options(r, ot, OPT_FC, &opt, index, name) ? get_u8(r, &opt, 2, 0, "keep_num_dims") : 0;
        if (w->rank != 2 || w->shape[1] == 0) refuse(r->path, index, "operator %d (%s): weights must be 2-D", index, name);
        if (keep) {
            rank = x->rank;
            for (int k = 0; k < rank; k++) d[k] = x->shape[k];
            d[rank - 1] = w->shape[0];
        } else {
            rank = 2;
            d[0] = tensor_numel(x) / w->shape[1];
            d[1] = w->shape[0];
        }
        break;
    }
    case BO_ADD: case BO_MUL: case BO_SUB: case BO_SQUARED_DIFFERENCE: case BO_MAXIMUM: case BO_MINIMUM:
    case BO_PRELU:
        rank = broadcast_shape(r, x, &g->tensors[op->in[1]], d, index, name);
        break;
    case BO_MEAN: case BO_SUM: case BO_REDUCE_MAX: case BO_REDUCE_MIN: case BO_REDUCE_ALL:
        rank = reduce_shape(x, op->axes, op->naxes, op->keep_dims, d);
        break;
    case BO_ARG_MAX: case BO_ARG_MIN:
        rank = reduce_shape(x, &op->axis, 1, 0, d);
        break;
    case BO_BATCH_MATMUL: {
        const Tensor *y = &g->tensors[op->in[1]];
        if (x->rank < 2 || y->rank < 2) refuse(r->path, index, "operator %d (%s): operands must have rank >= 2", index, name);
        Tensor bx = *x, by = *y;
        bx.rank -= 2;
        by.rank -= 2;
        rank = broadcast_shape(r, &bx, &by, d, index, name);
        d[rank++] = x->shape[x->rank - (op->adj_x ? 1 : 2)];
        d[rank++] = y->shape[y->rank - (op->adj_y ? 2 : 1)];
        break;
    }
    case BO_EQUAL: case BO_NOT_EQUAL: case BO_LESS: case BO_LESS_EQUAL: case BO_GREATER: case BO_GREATER_EQUAL:
    case BO_LOGICAL_AND: case BO_LOGICAL_OR: case BO_DIV: case BO_FLOOR_DIV: case BO_FLOOR_MOD:
        rank = broadcast_shape(r, x, &g->tensors[op->in[1]], d, index, name);
        break;
    case BO_LOGICAL_NOT: case BO_CAST: case BO_ZEROS_LIKE: case BO_CUMSUM: case BO_ADD_N: case BO_LOG_SOFTMAX:
    case BO_LOGISTIC: case BO_TANH: case BO_RELU: case BO_RELU6: case BO_RELU_N1_TO_1: case BO_RELU_0_TO_1:
    case BO_LEAKY_RELU: case BO_HARD_SWISH: case BO_GELU: case BO_RSQRT: case BO_ABS: case BO_ELU: case BO_NEG:
    case BO_QUANTIZE: case BO_DEQUANTIZE: case BO_SOFTMAX: case BO_L2_NORMALIZATION:
        rank = x->rank;
        for (int k = 0; k < rank; k++) d[k] = x->shape[k];
        break;
    default:
        return 0;
    }
    set_shape(r, g, op->out[0], rank, d, index, name);
    return 1;
}

/* ---- operators --------------------------------------------------------------- */

/* One entry of Model.operator_codes, resolved. */
typedef struct {
    int code;                   /* max(deprecated_builtin_code, builtin_code) */
    const char *custom;         /* custom_code, for messages */
} OpCode;

static Activation map_act(Reader *r, int a, int index, const char *name)
{
    switch (a) {
    case 0: return ACT_NONE;
    case 1: return ACT_RELU;
    case 2: return ACT_RELU_N1_TO_1;
    case 3: return ACT_RELU6;
    }
    static const char *const n[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"};
    refuse(r->path, index, "operator %d (%s): unsupported fused activation %s", index, name,
           a >= 0 && a < 6 ? n[a] : "(unknown)");
}

static Padding map_pad(Reader *r, int p, int index, const char *name)
{
    if (p == 0) return PAD_SAME;
    if (p == 1) return PAD_VALID;
    refuse(r->path, index, "operator %d (%s): unknown padding %d", index, name, p);
}

/* A stride, dilation or filter size: at least 1, and small enough that
   later arithmetic on it cannot overflow. */
static int positive(Reader *r, int32_t v, int index, const char *name, const char *what)
{
    if (v < 1 || v > 65535)
        refuse(r->path, index, "operator %d (%s): %s %" PRId32 " out of range", index, name, what, v);
    return (int)v;
}

/* Normalise an axis against a rank: [-rank, rank) -> [0, rank). */
static int norm_axis(Reader *r, int64_t a, int rank, int index, const char *name)
{
    if (a < -rank || a >= rank)
        refuse(r->path, index, "operator %d (%s): axis %" PRId64 " out of range for rank %d", index, name, a, rank);
    return (int)(a < 0 ? a + rank : a);
}

/* The builtin options table of an operator, if it has one of the expected
   type; a different type is an error, none means schema defaults. */
static int options(Reader *r, const Tab *ot, int want, Tab *opt, int index, const char *name)
{
    int type = get_u8(r, ot, 3, OPT_NONE, "builtin_options_type");
    if (type == OPT_NONE) return 0;
    if (type != want)
        die("%s: operator %d (%s): builtin options of type %d, expected %d", r->path, index, name, type, want);
    return get_table(r, ot, 4, opt, "builtin_options");
}

/* Read a tensor-index vector of an operator into idx[], checking every
   index; -1 (absent) only where `optional` has the position's bit set.
   `what` is "input" or "output". */
static int read_indices(Reader *r, const Tab *ot, int slot, int *idx, int nmin, int nmax,
                        unsigned optional, int ntensors, int index, const char *name, const char *what)
{
    Vec v;
    get_vec(r, ot, slot, 4, &v, what);
    if ((int64_t)v.n < nmin || (int64_t)v.n > nmax) {
        if (nmin == nmax)
            die("%s: operator %d (%s): %" PRIu32 " %ss, expected %d", r->path, index, name, v.n, what, nmin);
        die("%s: operator %d (%s): %" PRIu32 " %ss, expected %d to %d", r->path, index, name, v.n, what,
            nmin, nmax);
    }
    for (uint32_t i = 0; i < v.n; i++) {
        int32_t t = rd_i32(r, v.pos + 4 * (size_t)i);
        if (t == -1 && (optional >> i & 1)) {
            idx[i] = -1;
            continue;
        }
        if (t == -1)
            die("%s: operator %d (%s): %s %" PRIu32 " is required but absent (-1)", r->path, index, name,
                what, i);
        if (t < 0 || t >= ntensors)
            die("%s: operator %d (%s): %s %" PRIu32 " is tensor %" PRId32 ", out of range (%d tensors)",
                r->path, index, name, what, i, t, ntensors);
        idx[i] = t;
    }
    return (int)v.n;
}

/* Constant inputs that only carry attributes (axes, shapes, sizes) are
   dropped from the op once read: kernels see data inputs only. */
static void keep_inputs(Op *op, int n)
{
    for (int k = n; k < op->nin; k++) op->in[k] = -1;
    op->nin = n;
}

/* Reduction axes (MEAN, SUM, REDUCE_MAX): the constant second input. */
static void read_axes(Reader *r, Graph *g, Op *op, int index, const char *name)
{
    int64_t a[MAX_RANK];
    const Tensor *in = &g->tensors[op->in[0]];
    op->naxes = const_ints(r, g, op->in[1], a, MAX_RANK, index, name, "axes");
    for (int i = 0; i < op->naxes; i++) op->axes[i] = norm_axis(r, a[i], in->rank, index, name);
}

/* SPLIT / SPLIT_V / UNPACK: one slice op per output, each reading its part
   of the input along `axis` (UNPACK: the axis is dropped from the output). */
static void split_ops(Reader *r, Graph *g, int index, const char *name, int value, int axis, const int64_t *sizes,
                      const int *out, int nout)
{
    const Tensor *x = &g->tensors[value];
    int64_t off = 0;
    for (int k = 0; k < nout; k++) {
        int o = graph_add_op(g);
        Op *op = &g->ops[o];
        op->kind = OP_SLICE;
        op->src_index = index;
        op->src_name = name;
        op->nin = 1;
        op->in[0] = value;
        op->nout = 1;
        op->out[0] = out[k];
        for (int a = 0; a < x->rank; a++) {
            op->begin[a] = a == axis ? (int32_t)off : 0;
            op->step[a] = 1;
            op->count[a] = a == axis ? (int32_t)sizes[k] : x->shape[a];
        }
        off += sizes[k];
    }
    if (off != x->shape[axis])
        refuse(r->path, index, "operator %d (%s): the parts add up to %lld, the axis has %d", index, name, (long long)off,
            x->shape[axis]);
}

/* Operator i: its kind and attributes, and its checked inputs/outputs.
   Shape arithmetic is evaluated here (fold); SPLIT-like ops become one
   slice per output. */
/* UNIDIRECTIONAL_SEQUENCE_LSTM (24 inputs, TFLite's order) as one OP_LSTM:
   in = data, input weights (input, forget, cell, output gate), recurrent
   weights (same order), gate biases (same order); out = the output
   sequence, the hidden state and the cell state (TFLite's variable
   inputs 18 and 19: the kernel resets and writes them; their stored
   contents are not constants) and a scratch tensor added by lower.c.
   TFLite Micro's kernel has no peephole, projection, layer norm or CIFG
   (coupled input gate) form: those inputs must be absent. */
static void read_lstm(Reader *r, Graph *g, const Tab *ot, int index, const char *name)
{
    int in[24], out[1];
    /* optional: 1, 5 (CIFG), 9-11 (peephole), 16-17 (projection), 20-23 (layer norm) */
    unsigned optional = 1u << 1 | 1u << 5 | 7u << 9 | 3u << 16 | 15u << 20;
    read_indices(r, ot, 1, in, 24, 24, optional, g->ntensors, index, name, "input");
    read_indices(r, ot, 2, out, 1, 1, 0, g->ntensors, index, name, "output");
    static const char *const why[24] = {
        [1] = "no input gate (CIFG)", [5] = "no input gate (CIFG)", [9] = "peephole connections",
        [10] = "peephole connections", [11] = "peephole connections", [16] = "a projection",
        [17] = "a projection", [20] = "layer normalization", [21] = "layer normalization",
        [22] = "layer normalization", [23] = "layer normalization"};
    for (int k = 0; k < 24; k++) {
        int absent = in[k] < 0;
        if (why[k] && (k == 1 || k == 5 ? absent : !absent))
            refuse(r->path, index, "operator %d (%s): LSTM with %s is not supported (TFLite Micro's kernel has the standard Keras "
                "LSTM only)", index, name, why[k]);
    }
    Tab opt;
    int has = options(r, ot, OPT_UNIDIRECTIONAL_SEQUENCE_LSTM, &opt, index, name);
    int o = graph_add_op(g);
    Op *op = &g->ops[o];
    op->kind = OP_LSTM;
    op->src_index = index;
    op->src_name = name;
    int act = has ? get_i8(r, &opt, 0, 0, "fused_activation_function") : 0;
    if (act != 4)       /* TANH: the cell gate's non-linearity (TFLM asserts on others) */
        refuse(r->path, index, "operator %d (%s): cell gate activation %d is not supported (TFLite Micro computes TANH only)",
            index, name, act);
    op->alpha = has ? get_f32(r, &opt, 1, 0.0f, "cell_clip") : 0.0f;
    if (!isfinite(op->alpha) || op->alpha < 0)
        refuse(r->path, index, "operator %d (%s): cell_clip %g", index, name, (double)op->alpha);
    op->axis = has ? get_u8(r, &opt, 3, 0, "time_major") != 0 : 0;
    if (has && get_u8(r, &opt, 4, 0, "asymmetric_quantize_inputs"))
        refuse(r->path, index, "operator %d (%s): hybrid LSTM (asymmetric_quantize_inputs) is not supported (TFLite Micro has no "
            "hybrid kernel)", index, name);
    static const int order[13] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15};
    op->nin = 13;
    for (int k = 0; k < 13; k++) op->in[k] = in[order[k]];
    op->nout = 3;
    op->out[0] = out[0];
    op->out[1] = in[18];
    op->out[2] = in[19];
    for (int k = 1; k < 3; k++) {       /* variables: state the kernel owns, not constants */
        Tensor *st = &g->tensors[op->out[k]];
        st->data = NULL;
        st->nbytes = 0;
    }
}

/* SVDF (data, feature weights, time weights, bias, activation state) as
   one OP_SVDF: in = data, feature weights, time weights, bias; out = the
   output, the activation state (TFLite's variable input 4, kept by the
   kernel) and a scratch tensor added by lower.c. */
static void read_svdf(Reader *r, Graph *g, const Tab *ot, int index, const char *name)
{
    int in[5], out[1];
    int nin = read_indices(r, ot, 1, in, 5, 5, 1u << 3, g->ntensors, index, name, "input");
    read_indices(r, ot, 2, out, 1, 1, 0, g->ntensors, index, name, "output");
    Tab opt;
    int has = options(r, ot, OPT_SVDF, &opt, index, name);
    if (has && get_u8(r, &opt, 2, 0, "asymmetric_quantize_inputs"))
        refuse(r->path, index, "operator %d (%s): hybrid SVDF (asymmetric_quantize_inputs) is not supported (TFLite Micro has no "
            "hybrid kernel)", index, name);
    int o = graph_add_op(g);
    Op *op = &g->ops[o];
    op->kind = OP_SVDF;
    op->src_index = index;
    op->src_name = name;
    op->mode = has ? get_i32(r, &opt, 0, 0, "rank") : 0;
    if (op->mode < 1) refuse(r->path, index, "operator %d (%s): rank %d", index, name, op->mode);
    op->nin = nin - 1;
    for (int k = 0; k < 4; k++) op->in[k] = in[k];
    op->nout = 2;
    op->out[0] = out[0];
    op->out[1] = in[4];
    g->tensors[in[4]].data = NULL;      /* a variable: state the kernel owns */
    g->tensors[in[4]].nbytes = 0;
}

/* ---- custom_options: TFLite Micro's signal operators ---------------------- */

/* A flexbuffer map (the custom_options of TFLM's Signal* operators), every
   position checked against the options' bytes: values at pos, n of them,
   `width` bytes each, their type bytes after them; keys through an offset
   vector of kwidth-byte offsets at kpos. */
typedef struct {
    const uint8_t *b;
    size_t len;
    size_t pos, kpos;
    uint64_t n;
    unsigned width, kwidth;
} FlexMap;

static uint64_t flex_uint(const uint8_t *p, unsigned w)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < w; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

/* A width byte of the format: 1, 2, 4 or 8. */
static int flex_width(uint64_t w) { return w == 1 || w == 2 || w == 4 || w == 8; }

/* The root map of options b[0..len), or a one-line error naming the node. */
static FlexMap flex_map(Reader *r, const uint8_t *b, size_t len, int index, const char *name)
{
    FlexMap m;
    const char *bad = NULL;
    memset(&m, 0, sizeof m);
    m.b = b;
    m.len = len;
    if (len < 3) bad = "too short";
    else {
        unsigned rw = b[len - 1], packed = b[len - 2];
        m.width = 1u << (packed & 3);
        if (!flex_width(rw) || len - 2 < rw) bad = "bad root width";
        else if (packed >> 2 != 9) bad = "the root is not a map";
        else {
            size_t root = len - 2 - rw;
            uint64_t off = flex_uint(b + root, rw);
            size_t w = m.width;
            if (off == 0 || off > root || root - off < 3 * w) bad = "map offset out of bounds";
            else {
                m.pos = root - (size_t)off;
                m.n = flex_uint(b + m.pos - w, (unsigned)w);
                size_t kf = m.pos - 3 * w;
                uint64_t koff = flex_uint(b + kf, (unsigned)w), kw = flex_uint(b + m.pos - 2 * w, (unsigned)w);
                if (m.n > len || m.n * (w + 1) > len - m.pos) bad = "map values out of bounds";
                else if (!flex_width(kw)) bad = "bad key width";
                else if (koff == 0 || koff > kf || kf - koff < kw) bad = "key vector out of bounds";
                else {
                    m.kpos = kf - (size_t)koff;
                    m.kwidth = (unsigned)kw;
                    if (flex_uint(b + m.kpos - kw, m.kwidth) != m.n) bad = "key and value counts differ";
                    else if (m.n * kw > len - m.kpos) bad = "keys out of bounds";
                }
            }
        }
    }
    if (bad) die("%s: operator %d (%s): custom_options: corrupt flexbuffer (%s)", r->path, index, name, bad);
    return m;
}

/* Element i of the map as TFLM's FlexbufferWrapper::ElementAsInt64 reads it
   (the value's bytes, signed, whatever its stored type), after checking that
   its key is `key` and that it is an inline integer or bool. */
static int64_t flex_int(Reader *r, const FlexMap *m, uint64_t i, const char *key, int index, const char *name)
{
    if (i >= m->n)
        refuse(r->path, index, "operator %d (%s): custom_options: option '%s' missing (%llu options)", index, name, key,
            (unsigned long long)m->n);
    size_t ke = m->kpos + (size_t)i * m->kwidth;
    uint64_t ko = flex_uint(m->b + ke, m->kwidth);
    size_t kl = strlen(key);
    if (ko == 0 || ko > ke || ke - ko + kl >= m->len || memcmp(m->b + ke - ko, key, kl + 1) != 0)
        refuse(r->path, index, "operator %d (%s): custom_options: option %llu is not '%s' (TFLite Micro reads the options by "
            "position, sorted by name)", index, name, (unsigned long long)i, key);
    unsigned t = m->b[m->pos + (size_t)m->n * m->width + (size_t)i] >> 2;
    if (t != 1 && t != 2 && t != 26)        /* FBT_INT, FBT_UINT, FBT_BOOL */
        refuse(r->path, index, "operator %d (%s): custom_options: option '%s' is not an integer (flexbuffer type %u)", index,
            name, key, t);
    uint64_t u = flex_uint(m->b + m->pos + (size_t)i * m->width, m->width);
    unsigned sh = 64 - 8 * m->width;
    return sh ? (int64_t)(u << sh) >> sh : (int64_t)u;
}

/* An option TFLM truncates to int32, required within [lo, hi]. */
static int32_t flex_opt(Reader *r, const FlexMap *m, uint64_t i, const char *key, int64_t lo, int64_t hi, int index,
                        const char *name)
{
    int64_t v = flex_int(r, m, i, key, index, name);
    if (v < lo || v > hi)
        refuse(r->path, index, "operator %d (%s): option '%s' is %lld, expected %lld to %lld", index, name, key, (long long)v,
            (long long)lo, (long long)hi);
    return (int32_t)v;
}

/* TFLite Micro's signal library (signal/micro/kernels): custom code, op
   kind, inputs and outputs. */
static const struct {
    const char *code;
    OpKind kind;
    int nin, nout;
} signal_ops[] = {
    {"SignalWindow", OP_WINDOW, 2, 1},
    {"SignalFftAutoScale", OP_FFT_AUTOSCALE, 1, 2},
    {"SignalRfft", OP_RFFT, 1, 1},
    {"SignalEnergy", OP_ENERGY, 1, 1},
    {"SignalFilterBank", OP_FILTER_BANK, 6, 1},
    {"SignalFilterBankSquareRoot", OP_FB_SQRT, 2, 1},
    {"SignalFilterBankSpectralSubtraction", OP_SPECTRAL_SUB, 1, 2},
    {"SignalPCAN", OP_PCAN, 3, 1},
    {"SignalFilterBankLog", OP_FB_LOG, 1, 1},
    {"SignalDelay", OP_DELAY, 1, 1},
    {"SignalOverlapAdd", OP_OVERLAP_ADD, 1, 1},
};
#define NSIGNAL ((int)(sizeof signal_ops / sizeof signal_ops[0]))

static int signal_op(const char *custom)
{
    for (int k = 0; custom && k < NSIGNAL; k++)
        if (!strcmp(custom, signal_ops[k].code)) return k;
    return -1;
}

/* A Signal* operator as its op kind, the options (Op.sig) as TFLM's Init
   reads them. */
static void read_signal(Reader *r, Graph *g, const Tab *ot, int index, int k)
{
    const char *name = arena_printf("CUSTOM '%s'", signal_ops[k].code);
    int in[OP_MAX_IO], out[OP_MAX_IO];
    read_indices(r, ot, 1, in, signal_ops[k].nin, signal_ops[k].nin, 0, g->ntensors, index, name, "input");
    read_indices(r, ot, 2, out, signal_ops[k].nout, signal_ops[k].nout, 0, g->ntensors, index, name, "output");
    if (field(r, ot, 9, 8, "large_custom_options_offset"))
        refuse(r->path, index, "operator %d (%s): large custom options are not supported", index, name);
    Vec co;
    get_vec(r, ot, 5, 1, &co, "custom_options");
    charge(r, co.n);
    int o = graph_add_op(g);
    Op *op = &g->ops[o];
    op->kind = signal_ops[k].kind;
    op->src_index = index;
    op->src_name = name;
    op->nin = signal_ops[k].nin;
    op->nout = signal_ops[k].nout;
    for (int j = 0; j < op->nin; j++) op->in[j] = in[j];
    for (int j = 0; j < op->nout; j++) {
        op->out[j] = out[j];
        if (g->tensors[out[j]].data)
            refuse(r->path, index, "operator %d (%s): output %d ('%s') has constant data", index, name, j,
                g->tensors[out[j]].name);
    }
    if (op->kind == OP_FFT_AUTOSCALE || op->kind == OP_FB_SQRT) return;     /* no options */
    FlexMap m = flex_map(r, r->buf + co.pos, co.n, index, name);
    int32_t *s = op->sig;
    switch (op->kind) {
    case OP_WINDOW: s[0] = flex_opt(r, &m, 0, "shift", 0, 31, index, name); break;
    case OP_RFFT: {
        int32_t ty = flex_opt(r, &m, 0, "T", INT32_MIN, INT32_MAX, index, name);
        if (ty != TT_INT16)
            refuse(r->path, index, "operator %d (%s): T = %d: htc has the int16 (T = 7) real FFT only", index, name, ty);
        s[0] = flex_opt(r, &m, 1, "fft_length", 4, 1 << 16, index, name);
        break;
    }
    case OP_ENERGY:
        s[1] = flex_opt(r, &m, 0, "end_index", 0, INT32_MAX, index, name);
        s[0] = flex_opt(r, &m, 1, "start_index", 0, INT32_MAX, index, name);
        break;
    case OP_FILTER_BANK: s[0] = flex_opt(r, &m, 0, "num_channels", 1, 1 << 16, index, name); break;
    case OP_PCAN: s[0] = flex_opt(r, &m, 0, "snr_shift", 0, 31, index, name); break;
    case OP_DELAY: s[0] = flex_opt(r, &m, 0, "delay_length", 0, 1 << 20, index, name); break;
    case OP_OVERLAP_ADD: {
        int32_t ty = flex_opt(r, &m, 0, "T", INT32_MIN, INT32_MAX, index, name);
        if (ty != TT_INT16 && ty != TT_FLOAT32)
            refuse(r->path, index, "operator %d (%s): T = %d: TFLite Micro's overlap-add is int16 (T = 7) or float32 (T = 0)", index, name, ty);
        s[0] = flex_opt(r, &m, 1, "frame_step", 1, 1 << 20, index, name);
        s[1] = ty;
        break;
    }
    case OP_FB_LOG:
        s[0] = flex_opt(r, &m, 0, "input_correction_bits", 0, 31, index, name);
        s[1] = flex_opt(r, &m, 1, "output_scale", INT32_MIN, INT32_MAX, index, name);
        break;
    case OP_SPECTRAL_SUB: {
        s[SIG_SS_ALT_ONE_MINUS] = flex_opt(r, &m, 0, "alternate_one_minus_smoothing", INT32_MIN, INT32_MAX, index, name);
        s[SIG_SS_ALT_SMOOTHING] = flex_opt(r, &m, 1, "alternate_smoothing", INT32_MIN, INT32_MAX, index, name);
        s[SIG_SS_CLAMPING] = flex_int(r, &m, 2, "clamping", index, name) != 0;
        s[SIG_SS_MIN_REMAINING] = flex_opt(r, &m, 3, "min_signal_remaining", INT32_MIN, INT32_MAX, index, name);
        s[SIG_SS_CHANNELS] = flex_opt(r, &m, 4, "num_channels", 1, 1 << 16, index, name);
        s[SIG_SS_ONE_MINUS] = flex_opt(r, &m, 5, "one_minus_smoothing", INT32_MIN, INT32_MAX, index, name);
        s[SIG_SS_SMOOTHING] = flex_opt(r, &m, 6, "smoothing", INT32_MIN, INT32_MAX, index, name);
        s[SIG_SS_SMOOTHING_BITS] = flex_opt(r, &m, 7, "smoothing_bits", 0, 31, index, name);
        s[SIG_SS_BITS] = flex_opt(r, &m, 8, "spectral_subtraction_bits", 0, 63, index, name);
        break;
    }
    default: break;
    }
}

/* ---- TFLite_Detection_PostProcess (SSD) ------------------------------------ */

static const char DETECT_PP[] = "TFLite_Detection_PostProcess";

/* Option `key` of map m as flexbuffers' AsDouble reads an inline int, uint,
   bool or float; *found 0 when the map has no such key (IsNull). */
static double flex_num(Reader *r, const FlexMap *m, const char *key, int *found, int index, const char *name)
{
    size_t kl = strlen(key);
    for (uint64_t i = 0; i < m->n; i++) {
        size_t ke = m->kpos + (size_t)i * m->kwidth;
        uint64_t ko = flex_uint(m->b + ke, m->kwidth);
        if (ko == 0 || ko > ke || ke - ko + kl >= m->len || memcmp(m->b + ke - ko, key, kl + 1) != 0) continue;
        unsigned t = m->b[m->pos + (size_t)m->n * m->width + (size_t)i] >> 2;
        const uint8_t *v = m->b + m->pos + (size_t)i * m->width;
        uint64_t u = flex_uint(v, m->width);
        unsigned sh = 64 - 8 * m->width;
        *found = 1;
        if (t == 1) return (double)(sh ? (int64_t)(u << sh) >> sh : (int64_t)u);
        if (t == 2 || t == 26) return (double)u;
        if (t == 3 && m->width == 4) {
            float f;
            uint32_t w32 = (uint32_t)u;
            memcpy(&f, &w32, 4);
            return f;
        }
        if (t == 3 && m->width == 8) {
            double d;
            memcpy(&d, &u, 8);
            return d;
        }
        refuse(r->path, index, "operator %d (%s): custom_options: option '%s' is not a number (flexbuffer type %u)", index,
            name, key, t);
    }
    *found = 0;
    return 0;
}

/* An option TFLM reads AsInt32 / AsFloat, required (or dflt when missing
   and dflt_ok), within [lo, hi]. */
static double dpp_opt(Reader *r, const FlexMap *m, const char *key, int dflt_ok, double dflt, double lo, double hi,
                      int index, const char *name)
{
    int found;
    double v = flex_num(r, m, key, &found, index, name);
    if (!found && !dflt_ok) refuse(r->path, index, "operator %d (%s): custom_options: option '%s' missing", index, name, key);
    if (!found) v = dflt;
    if (!(v >= lo && v <= hi))
        refuse(r->path, index, "operator %d (%s): option '%s' is %g, expected %g to %g", index, name, key, v, lo, hi);
    return v;
}

/* TFLite_Detection_PostProcess: options as TFLM's Init reads them into the
   kernel's parameter block (lower.c adds the shapes and the scratch). */
static void read_detect(Reader *r, Graph *g, const Tab *ot, int index)
{
    const char *name = arena_printf("CUSTOM '%s'", DETECT_PP);
    int in[OP_MAX_IO], out[OP_MAX_IO];
    read_indices(r, ot, 1, in, 3, 3, 0, g->ntensors, index, name, "input");
    read_indices(r, ot, 2, out, 4, 4, 0, g->ntensors, index, name, "output");
    if (field(r, ot, 9, 8, "large_custom_options_offset"))
        refuse(r->path, index, "operator %d (%s): large custom options are not supported", index, name);
    Vec co;
    get_vec(r, ot, 5, 1, &co, "custom_options");
    charge(r, co.n);
    FlexMap m = flex_map(r, r->buf + co.pos, co.n, index, name);
    int o = graph_add_op(g);
    Op *op = &g->ops[o];
    op->kind = OP_DETECT_PP;
    op->src_index = index;
    op->src_name = name;
    op->nin = 3;
    op->nout = 4;
    for (int j = 0; j < 3; j++) op->in[j] = in[j];
    for (int j = 0; j < 4; j++) {
        op->out[j] = out[j];
        if (g->tensors[out[j]].data)
            refuse(r->path, index, "operator %d (%s): output %d ('%s') has constant data", index, name, j, g->tensors[out[j]].name);
    }
    htc__detpp_params *p = arena_alloc(sizeof *p);
    const double big = 1 << 20;
    p->max_detections = (int32_t)dpp_opt(r, &m, "max_detections", 0, 0, 0, big, index, name);
    p->max_classes_per_detection = (int32_t)dpp_opt(r, &m, "max_classes_per_detection", 0, 0, 1, big, index, name);
    p->detections_per_class = (int32_t)dpp_opt(r, &m, "detections_per_class", 1, 100, 1, big, index, name);
    p->use_regular_nms = dpp_opt(r, &m, "use_regular_nms", 1, 0, 0, 1, index, name) != 0;
    p->score_threshold = (float)dpp_opt(r, &m, "nms_score_threshold", 0, 0, -HUGE_VAL, HUGE_VAL, index, name);
    p->iou_threshold = (float)dpp_opt(r, &m, "nms_iou_threshold", 0, 0, 0, 1, index, name);
    if (!(p->iou_threshold > 0))
        refuse(r->path, index, "operator %d (%s): option 'nms_iou_threshold' is 0, expected above 0 to 1", index, name);
    p->num_classes = (int32_t)dpp_opt(r, &m, "num_classes", 0, 0, 1, big, index, name);
    p->y_scale = (float)dpp_opt(r, &m, "y_scale", 0, 0, -HUGE_VAL, HUGE_VAL, index, name);
    p->x_scale = (float)dpp_opt(r, &m, "x_scale", 0, 0, -HUGE_VAL, HUGE_VAL, index, name);
    p->h_scale = (float)dpp_opt(r, &m, "h_scale", 0, 0, -HUGE_VAL, HUGE_VAL, index, name);
    p->w_scale = (float)dpp_opt(r, &m, "w_scale", 0, 0, -HUGE_VAL, HUGE_VAL, index, name);
    op->params = p;
    op->params_size = sizeof *p;
    op->params_type = "htc__detpp_params";
}

static void refuse_custom(Reader *r, const OpCode *codes, uint32_t oc, int i)
{
    refuse(r->path, i, "operator %d (%s): unsupported operator (a custom operator: htc has no kernel for it)", i,
           codes[oc].custom ? arena_printf("CUSTOM '%s'", codes[oc].custom) : "CUSTOM");
}

/* The bad tensors (tensor_bad) an operator reads, writes or keeps as
   intermediates. Each problem is listed once, by the first operator in
   graph order that uses the tensor: msg gets "input K, tensor T ('NAME'):
   why" for each tensor no earlier operator named (then marked told), joined.
   1 when the operator uses a bad tensor (it is left out, and refused when
   msg is not empty), 0 when it uses none. */
static int bad_refs(Reader *r, const Graph *g, const Tab *ot, char *msg, size_t size)
{
    static const char *const what[] = {"input", "output", "intermediate"};
    static const int slot[] = {1, 2, 8};
    size_t n = 0;
    int nb = 0, any = 0;
    msg[0] = 0;
    if (!r->nbad) return 0;
    for (int s = 0; s < 3; s++) {
        Vec v;
        if (!get_vec(r, ot, slot[s], 4, &v, what[s])) continue;
        charge(r, v.n);
        for (uint32_t k = 0; k < v.n; k++) {
            int32_t t = rd_i32(r, v.pos + 4 * (size_t)k);
            if (t < 0 || t >= g->ntensors || !r->bad[t]) continue;
            any = 1;
            if (r->told[t]) continue;               /* named already */
            r->told[t] = 1;
            if (n + 8 >= size) continue;
            int w = snprintf(msg + n, size - n, "%s%s %" PRIu32 ", tensor %" PRId32 " ('%s'): %s", nb++ ? "; and " : "",
                             what[s], k, t, g->tensors[t].name, r->bad[t]);
            n = w < 0 ? n : n + (size_t)w < size ? n + (size_t)w : size - 1;
        }
    }
    return any;
}

/* Every bad tensor no operator's refusal named (a graph input or output,
   or a tensor nobody uses), after the operators (a graph input before). */
static void untold_one(Reader *r, const Graph *g, int nops, int t)
{
    jmp_buf jb;
    if (setjmp(jb) == 0) {
        refuse_catch(&jb);
        const Tensor *T = &g->tensors[t];
        refuse_other(r->path, T->is_input ? -1 : nops + t, "tensor %d ('%s'): %s", t, T->name, r->bad[t]);
    }
    refuse_catch(NULL);
}

static void bad_untold(Reader *r, const Graph *g, int nops)
{
    /* the setjmp in its own frame: no loop counter live across it */
    for (int t = 0; t < g->ntensors && r->nbad; t++)
        if (r->bad[t] && !r->told[t]) untold_one(r, g, nops, t);
}

static const char *var_key(Reader *r, const Tab *ot, int index, const char *name)
{
    Tab opt;
    if (!options(r, ot, OPT_VAR_HANDLE, &opt, index, name)) return "/";
    const char *c = get_string(r, &opt, 0, "container"), *sn = get_string(r, &opt, 1, "shared_name");
    return arena_printf("%s/%s", c ? c : "", sn ? sn : "");
}

static void copy_op(Reader *r, Graph *g, int index, const char *name, int from, int to)
{
    const Tensor *x = &g->tensors[from], *y = &g->tensors[to];
    if (x->type != y->type || x->rank != y->rank || memcmp(x->shape, y->shape, sizeof(int32_t) * (size_t)x->rank))
        die("%s: operator %d (%s): the variable and '%s' differ in type or shape", r->path, index, name,
            g->tensors[to].variable ? x->name : y->name);
    int o = graph_add_op(g);                /* may move g->ops */
    Op *op = &g->ops[o];
    op->kind = OP_SLICE;
    op->src_index = index;
    op->src_name = name;
    op->nin = op->nout = 1;
    op->in[0] = from;
    op->out[0] = to;
    for (int a = 0; a < x->rank; a++) {
        op->begin[a] = 0;
        op->step[a] = 1;
        op->count[a] = x->shape[a];
    }
}

static void read_rvar(Reader *r, Graph *g, const Tab *ot, int i, int code, const char *name)
{
    int in[2], out[1];
    if (!rvars) die("%s: operator %d (%s): a resource variable outside CALL_ONCE's form", r->path, i, name);
    if (code == BO_CALL_ONCE) {
        Tab opt;
        if (!options(r, ot, OPT_CALL_ONCE, &opt, i, name) || get_i32(r, &opt, 0, 0, "init_subgraph_index") != 1)
            die("%s: operator %d (%s): the init subgraph must be subgraph 1", r->path, i, name);
        read_indices(r, ot, 1, in, 0, 0, 0, g->ntensors, i, name, "input");
        return;
    }
    if (code == BO_VAR_HANDLE) {
        read_indices(r, ot, 2, out, 1, 1, 0, g->ntensors, i, name, "output");
        const char *key = var_key(r, ot, i, name);
        if (!rvars->handle[out[0]]) die("%s: operator %d (%s): output is not a resource tensor", r->path, i, name);
        if (rvars->state[out[0]] >= 0) return;
        RVarInit *v = NULL;
        for (int k = 0; k < rvars->ninit; k++)
            if (!strcmp(rvars->init[k].key, key)) v = &rvars->init[k];
        if (!v) die("%s: operator %d (%s): variable '%s' is not assigned by CALL_ONCE's subgraph", r->path, i, name, key);
        /* one state tensor per variable: a second handle of the same key shares it */
        int st = v->state;
        if (st < 0) {
            const Tensor *c = &rvars->g1->tensors[v->tensor];
            Tensor *T = &g->tensors[out[0]];
            T->type = c->type;
            T->rank = c->rank;
            memcpy(T->shape, c->shape, sizeof T->shape);
            T->q = c->q;
            T->variable = 1;
            T->reset_byte = c->nbytes ? c->data[0] : 0;
            for (size_t k = 1; k < c->nbytes; k++)
                if (c->data[k] != c->data[0]) T->reset_data = c->data;     /* not one byte repeated: copied */
            st = v->state = out[0];
        }
        rvars->state[out[0]] = st;
        return;
    }
    if (code == BO_READ_VARIABLE) {
        read_indices(r, ot, 1, in, 1, 1, 0, g->ntensors, i, name, "input");
        read_indices(r, ot, 2, out, 1, 1, 0, g->ntensors, i, name, "output");
        if (!rvars->handle[in[0]] || rvars->state[in[0]] < 0)
            die("%s: operator %d (%s): input is not a variable's handle (VAR_HANDLE before)", r->path, i, name);
        copy_op(r, g, i, name, rvars->state[in[0]], out[0]);
        return;
    }
    read_indices(r, ot, 1, in, 2, 2, 0, g->ntensors, i, name, "input");
    read_indices(r, ot, 2, out, 0, 0, 0, g->ntensors, i, name, "output");
    if (!rvars->handle[in[0]] || rvars->state[in[0]] < 0)
        die("%s: operator %d (%s): input 0 is not a variable's handle (VAR_HANDLE before)", r->path, i, name);
    if (rvars->handle[in[1]]) die("%s: operator %d (%s): the value is a resource handle", r->path, i, name);
    copy_op(r, g, i, name, in[1], rvars->state[in[0]]);
}

/* CALL_ONCE's init subgraph: VAR_HANDLE and ASSIGN_VARIABLE of constants
   only. */
static void read_init_subgraph(Reader *r, const Tab *sg1, const Vec *buffers, const OpCode *codes, uint32_t ncodes,
                               uint32_t n0)
{
    Vec tensors, ops;
    get_vec(r, sg1, 0, 4, &tensors, "subgraph tensors");
    get_vec(r, sg1, 3, 4, &ops, "subgraph operators");
    if (tensors.n > MAX_TENSORS || ops.n > MAX_OPS) die("%s: CALL_ONCE's subgraph is too large", r->path);
    rvars = arena_alloc(sizeof *rvars);
    rvars->handle = arena_alloc(tensors.n + n0 + 1);
    rvars->g1 = arena_alloc(sizeof *rvars->g1);
    rvars->g1->path = r->path;
    rvars->init = arena_alloc(sizeof(RVarInit) * (ops.n + 1));
    dyn = arena_alloc(tensors.n + 1);
    dyn_dim = arena_alloc(sizeof(int) * (tensors.n + 1));
    for (uint32_t i = 0; i < tensors.n; i++) read_tensor(r, rvars->g1, &tensors, buffers, (int)i);
    const char **key = arena_alloc(sizeof(char *) * (tensors.n + 1));
    for (uint32_t i = 0; i < ops.n; i++) {
        Tab ot = vec_table(r, &ops, i, "table");
        uint32_t oc = get_u32(r, &ot, 0, 0, "opcode_index");
        if (oc >= ncodes) die("%s: CALL_ONCE's subgraph: operator %" PRIu32 ": opcode index out of range", r->path, i);
        int code = codes[oc].code, in[2], out[1];
        const char *name = builtin_name(code);
        if (code == BO_VAR_HANDLE) {
            read_indices(r, &ot, 2, out, 1, 1, 0, (int)tensors.n, (int)i, name, "output");
            if (!rvars->handle[out[0]]) die("%s: CALL_ONCE's subgraph: VAR_HANDLE's output is not a resource", r->path);
            key[out[0]] = var_key(r, &ot, (int)i, name);
        } else if (code == BO_ASSIGN_VARIABLE) {
            read_indices(r, &ot, 1, in, 2, 2, 0, (int)tensors.n, (int)i, name, "input");
            read_indices(r, &ot, 2, out, 0, 0, 0, (int)tensors.n, (int)i, name, "output");
            const Tensor *c = &rvars->g1->tensors[in[1]];
            if (!key[in[0]]) die("%s: CALL_ONCE's subgraph: ASSIGN_VARIABLE %" PRIu32 " before its VAR_HANDLE", r->path, i);
            if (!c->data || rvars->handle[in[1]])
                die("%s: CALL_ONCE's subgraph: variable '%s' is assigned a value that is not a constant", r->path,
                    key[in[0]]);
            rvars->init[rvars->ninit].key = key[in[0]];
            rvars->init[rvars->ninit].state = -1;
            rvars->init[rvars->ninit++].tensor = in[1];
        } else {
            die("%s: CALL_ONCE's subgraph: operator %" PRIu32 " (%s): htc reads only VAR_HANDLE and ASSIGN_VARIABLE "
                "of constants there", r->path, i, name);
        }
    }
    memset(rvars->handle, 0, tensors.n + n0 + 1);
    rvars->state = arena_alloc(sizeof(int) * (n0 + 1));
    for (uint32_t i = 0; i <= n0; i++) rvars->state[i] = -1;
}

static void read_op(Reader *r, Graph *g, const Vec *ops, const OpCode *codes, uint32_t ncodes, int i)
{
    snprintf(r->ctx, sizeof r->ctx, "operator %d", i);
    Tab ot = vec_table(r, ops, (uint32_t)i, "table");
    uint32_t oc = get_u32(r, &ot, 0, 0, "opcode_index");
    if (oc >= ncodes)
        die("%s: operator %d: opcode index %" PRIu32 " out of range (%" PRIu32 " operator codes)", r->path,
            i, oc, ncodes);
    int code = codes[oc].code;
    const char *name = builtin_name(code);
    char bad[1024];
    int uses_bad = bad_refs(r, g, &ot, bad, sizeof bad);
    if (code == BO_CUSTOM && signal_op(codes[oc].custom) < 0 &&
        !(codes[oc].custom && !strcmp(codes[oc].custom, DETECT_PP)))
        refuse_custom(r, codes, oc, i);
    if (bad[0]) refuse(r->path, i, "operator %d (%s): %s", i, name, bad);
    if (uses_bad) {                     /* its tensor's problem listed by an earlier operator */
        r->ctx[0] = 0;
        return;
    }
    if (code == BO_CUSTOM && codes[oc].custom && !strcmp(codes[oc].custom, DETECT_PP)) {
        read_detect(r, g, &ot, i);
        r->ctx[0] = 0;
        return;
    }
    if (code == BO_CUSTOM) {
        int k = signal_op(codes[oc].custom);
        read_signal(r, g, &ot, i, k);
        r->ctx[0] = 0;
        return;
    }

    if (code == BO_CALL_ONCE || code == BO_VAR_HANDLE || code == BO_READ_VARIABLE || code == BO_ASSIGN_VARIABLE) {
        read_rvar(r, g, &ot, i, code, name);
        r->ctx[0] = 0;
        return;
    }
    if (code == BO_UNIDIRECTIONAL_SEQUENCE_LSTM) {
        read_lstm(r, g, &ot, i, name);
        r->ctx[0] = 0;
        return;
    }
    if (code == BO_SVDF) {
        read_svdf(r, g, &ot, i, name);
        r->ctx[0] = 0;
        return;
    }

    OpKind kind;
    int nmin = 1, nmax = 1, omax = 1;
    unsigned optional = 0;
    switch (code) {
    case BO_CONV_2D: kind = OP_CONV2D; nmin = 2; nmax = 3; optional = 4; break;
    case BO_DEPTHWISE_CONV_2D: kind = OP_CONV2D; nmin = 2; nmax = 3; optional = 4; break;
    case BO_FULLY_CONNECTED: kind = OP_FC; nmin = 2; nmax = 3; optional = 4; break;
    case BO_ADD: kind = OP_ADD; nmin = nmax = 2; break;
    case BO_MUL: kind = OP_MUL; nmin = nmax = 2; break;
    case BO_SUB: kind = OP_SUB; nmin = nmax = 2; break;
    case BO_SQUARED_DIFFERENCE: kind = OP_SQDIFF; nmin = nmax = 2; break;
    case BO_MAXIMUM: kind = OP_MAXIMUM; nmin = nmax = 2; break;
    case BO_MINIMUM: kind = OP_MINIMUM; nmin = nmax = 2; break;
    case BO_PRELU: kind = OP_PRELU; nmin = nmax = 2; break;
    case BO_BATCH_MATMUL: kind = OP_MATMUL; nmin = nmax = 2; break;
    case BO_TRANSPOSE_CONV: kind = OP_TRANSPOSE_CONV; nmin = 3; nmax = 4; optional = 8; break;
    case BO_AVERAGE_POOL_2D: kind = OP_AVGPOOL; break;
    case BO_MAX_POOL_2D: kind = OP_MAXPOOL; break;
    case BO_MEAN: kind = OP_MEAN; nmin = nmax = 2; break;
    case BO_SUM: kind = OP_SUM; nmin = nmax = 2; break;
    case BO_REDUCE_MAX: kind = OP_REDUCE_MAX; nmin = nmax = 2; break;
    case BO_PAD: kind = OP_PAD; nmin = nmax = 2; break;
    case BO_PADV2: kind = OP_PAD; nmin = 2; nmax = 3; optional = 4; break;
    case BO_CONCATENATION: kind = OP_CONCAT; nmax = OP_MAX_IO; break;
    case BO_PACK: kind = OP_CONCAT; nmax = OP_MAX_IO; break;
    case BO_RESHAPE: kind = OP_RESHAPE; nmax = 2; optional = 2; break;
    case BO_SQUEEZE: kind = OP_RESHAPE; break;
    case BO_EXPAND_DIMS: kind = OP_RESHAPE; nmin = nmax = 2; break;
    case BO_TRANSPOSE: kind = OP_TRANSPOSE; nmin = nmax = 2; break;
    case BO_SOFTMAX: kind = OP_SOFTMAX; break;
    case BO_LOGISTIC: case BO_TANH: case BO_RELU: case BO_RELU6: case BO_RELU_N1_TO_1: case BO_RELU_0_TO_1:
    case BO_LEAKY_RELU: case BO_HARD_SWISH: case BO_GELU: case BO_RSQRT: case BO_ABS: case BO_ELU:
        kind = OP_TABLE;
        break;
    case BO_NEG: kind = OP_NEG; break;
    case BO_L2_NORMALIZATION: kind = OP_L2NORM; break;
    case BO_RESIZE_BILINEAR: case BO_RESIZE_NEAREST_NEIGHBOR: kind = OP_RESIZE; nmin = nmax = 2; break;
    case BO_TILE: kind = OP_TILE; nmin = nmax = 2; break;
    case BO_GATHER: kind = OP_GATHER; nmin = nmax = 2; break;
    case BO_STRIDED_SLICE: kind = OP_SLICE; nmin = nmax = 4; break;
    case BO_SLICE: kind = OP_SLICE; nmin = nmax = 3; break;
    case BO_SPLIT: case BO_SPLIT_V: case BO_UNPACK:
        kind = OP_SLICE; nmin = 1; nmax = 3; omax = OP_MAX_IO; break;
    case BO_SPACE_TO_BATCH_ND: kind = OP_SPACE_TO_BATCH; nmin = nmax = 3; break;
    case BO_BATCH_TO_SPACE_ND: kind = OP_BATCH_TO_SPACE; nmin = nmax = 3; break;
    case BO_DEPTH_TO_SPACE: case BO_SPACE_TO_DEPTH: kind = OP_TRANSPOSE; break;
    case BO_BROADCAST_TO: kind = OP_TILE; nmin = nmax = 2; break;
    case BO_REDUCE_MIN: kind = OP_REDUCE_MIN; nmin = nmax = 2; break;
    case BO_REVERSE_V2: kind = OP_SLICE; nmin = nmax = 2; break;
    case BO_ARG_MAX: kind = OP_ARGMAX; nmin = nmax = 2; break;
    case BO_ARG_MIN: kind = OP_ARGMIN; nmin = nmax = 2; break;
    case BO_MIRROR_PAD: kind = OP_MIRROR_PAD; nmin = nmax = 2; break;
    case BO_SHAPE: case BO_REDUCE_PROD: kind = OP_COUNT; nmin = 1; nmax = 2; break;  /* shape arithmetic only */
    /* TFLite Micro parity, int8 graphs */
    case BO_BROADCAST_ARGS: kind = OP_COUNT; nmin = nmax = 2; break;              /* shape arithmetic only */
    case BO_EQUAL: case BO_NOT_EQUAL: case BO_LESS: case BO_LESS_EQUAL: case BO_GREATER: case BO_GREATER_EQUAL:
        kind = OP_COMPARE; nmin = nmax = 2; break;
    case BO_LOGICAL_AND: case BO_LOGICAL_OR: kind = OP_LOGICAL; nmin = nmax = 2; break;
    case BO_LOGICAL_NOT: kind = OP_LOGICAL; break;
    case BO_SELECT_V2: kind = OP_SELECT; nmin = nmax = 3; break;
    case BO_CAST: kind = OP_CAST; break;
    case BO_FILL: kind = OP_FILL; nmin = nmax = 2; break;
    case BO_ZEROS_LIKE: kind = OP_FILL; break;
    case BO_GATHER_ND: case BO_EMBEDDING_LOOKUP: kind = OP_GATHER_ND; nmin = nmax = 2; break;
    case BO_DYNAMIC_UPDATE_SLICE: kind = OP_UPDATE_SLICE; nmin = nmax = 3; break;
    case BO_ADD_N: kind = OP_ADD_N; nmax = OP_MAX_IO; break;
    case BO_CUMSUM: kind = OP_CUMSUM; nmin = nmax = 2; break;
    case BO_DIV: kind = OP_DIV; nmin = nmax = 2; break;
    case BO_FLOOR_DIV: case BO_FLOOR_MOD: kind = OP_DIV; nmin = nmax = 2; break;    /* mode 1, 2: int32 only */
    case BO_REDUCE_ALL: kind = OP_REDUCE_ALL; nmin = nmax = 2; break;
    case BO_LOG_SOFTMAX: kind = OP_LOG_SOFTMAX; break;
    case BO_QUANTIZE: kind = OP_QUANTIZE; break;
    case BO_DEQUANTIZE: kind = OP_DEQUANTIZE; break;
    default: refuse(r->path, i, "operator %d (%s): unsupported operator", i, name);
    }

    int in[OP_MAX_IO], out[OP_MAX_IO];
    int nin = read_indices(r, &ot, 1, in, nmin, nmax, optional, g->ntensors, i, name, "input");
    int nout = read_indices(r, &ot, 2, out, 1, omax, 0, g->ntensors, i, name, "output");
    if (fold(r, g, &ot, code, name, i, in, nin, out, nout)) {
        r->ctx[0] = 0;
        return;
    }
    if (kind == OP_COUNT)
        refuse(r->path, i, "operator %d (%s): only supported on constant shapes (it computes a shape htc could not "
               "determine at compile time)", i, name);

    Tab opt;
    int has;
    if (code == BO_SPLIT || code == BO_SPLIT_V || code == BO_UNPACK) {
        int64_t sizes[OP_MAX_IO], a;
        int value = code == BO_SPLIT ? in[1] : in[0], axis;
        if ((code == BO_SPLIT && nin != 2) || (code == BO_SPLIT_V && nin != 3) || (code == BO_UNPACK && nin != 1))
            refuse(r->path, i, "operator %d (%s): %d inputs", i, name, nin);
        const Tensor *x = &g->tensors[value];
        if (code == BO_UNPACK) {
            has = options(r, &ot, OPT_UNPACK, &opt, i, name);
            axis = norm_axis(r, has ? get_i32(r, &opt, 1, 0, "axis") : 0, x->rank, i, name);
            if (nout != x->shape[axis])
                refuse(r->path, i, "operator %d (%s): %d outputs for %d values along axis %d", i, name, nout,
                    x->shape[axis], axis);
            for (int k = 0; k < nout; k++) sizes[k] = 1;
        } else {
            if (const_ints(r, g, code == BO_SPLIT ? in[0] : in[2], &a, 1, i, name, "axis") != 1)
                refuse(r->path, i, "operator %d (%s): axis must be one value", i, name);
            axis = norm_axis(r, a, x->rank, i, name);
            if (code == BO_SPLIT) {
                if (x->shape[axis] % nout)
                    refuse(r->path, i, "operator %d (%s): %d values along axis %d do not split in %d", i, name,
                        x->shape[axis], axis, nout);
                for (int k = 0; k < nout; k++) sizes[k] = x->shape[axis] / nout;
            } else {
                if (const_ints(r, g, in[1], sizes, OP_MAX_IO, i, name, "size_splits") != nout)
                    refuse(r->path, i, "operator %d (%s): size_splits must have one value per output", i, name);
                int64_t known = 0;
                int neg = -1;
                for (int k = 0; k < nout; k++) {
                    if (sizes[k] == -1 && neg < 0) neg = k;
                    else if (sizes[k] < 0) refuse(r->path, i, "operator %d (%s): split size %lld", i, name, (long long)sizes[k]);
                    else known += sizes[k];
                }
                if (neg >= 0) sizes[neg] = x->shape[axis] - known;
            }
        }
        split_ops(r, g, i, name, value, axis, sizes, out, nout);
        r->ctx[0] = 0;
        return;
    }

    int o = graph_add_op(g);
    Op *op = &g->ops[o];
    op->kind = kind;
    op->src_index = i;
    op->src_name = name;
    op->nin = nin;
    op->nout = nout;
    for (int k = 0; k < nin; k++) op->in[k] = in[k];
    op->out[0] = out[0];
    if (kind == OP_RESHAPE && !dyn[out[0]]) keep_inputs(op, 1);   /* the output tensor has the shape */

    switch (code) {
    case BO_CONV_2D:
        has = options(r, &ot, OPT_CONV2D, &opt, i, name);
        op->padding = map_pad(r, has ? get_i8(r, &opt, 0, 0, "padding") : 0, i, name);
        op->stride_w = positive(r, has ? get_i32(r, &opt, 1, 0, "stride_w") : 0, i, name, "stride_w");
        op->stride_h = positive(r, has ? get_i32(r, &opt, 2, 0, "stride_h") : 0, i, name, "stride_h");
        op->act = map_act(r, has ? get_i8(r, &opt, 3, 0, "fused_activation_function") : 0, i, name);
        op->dil_w = positive(r, has ? get_i32(r, &opt, 4, 1, "dilation_w_factor") : 1, i, name, "dilation_w_factor");
        op->dil_h = positive(r, has ? get_i32(r, &opt, 5, 1, "dilation_h_factor") : 1, i, name, "dilation_h_factor");
        op->depth_mult = 1;
        break;
    case BO_DEPTHWISE_CONV_2D:
        has = options(r, &ot, OPT_DWCONV2D, &opt, i, name);
        op->depthwise = 1;              /* TFLite's form: weights [1][kh][kw][out_c] (lower.c converts) */
        op->padding = map_pad(r, has ? get_i8(r, &opt, 0, 0, "padding") : 0, i, name);
        op->stride_w = positive(r, has ? get_i32(r, &opt, 1, 0, "stride_w") : 0, i, name, "stride_w");
        op->stride_h = positive(r, has ? get_i32(r, &opt, 2, 0, "stride_h") : 0, i, name, "stride_h");
        op->depth_mult = has ? get_i32(r, &opt, 3, 0, "depth_multiplier") : 0;
        op->act = map_act(r, has ? get_i8(r, &opt, 4, 0, "fused_activation_function") : 0, i, name);
        op->dil_w = positive(r, has ? get_i32(r, &opt, 5, 1, "dilation_w_factor") : 1, i, name, "dilation_w_factor");
        op->dil_h = positive(r, has ? get_i32(r, &opt, 6, 1, "dilation_h_factor") : 1, i, name, "dilation_h_factor");
        break;
    case BO_TRANSPOSE_CONV: {
        has = options(r, &ot, OPT_TRANSPOSE_CONV, &opt, i, name);
        op->padding = map_pad(r, has ? get_i8(r, &opt, 0, 0, "padding") : 0, i, name);
        op->stride_w = positive(r, has ? get_i32(r, &opt, 1, 0, "stride_w") : 0, i, name, "stride_w");
        op->stride_h = positive(r, has ? get_i32(r, &opt, 2, 0, "stride_h") : 0, i, name, "stride_h");
        op->act = map_act(r, has ? get_i8(r, &opt, 3, 0, "fused_activation_function") : 0, i, name);
        op->dil_h = op->dil_w = 1;
        /* inputs (output_shape, weights, data, bias) -> canonical (data, weights, bias).
           TFLite Micro never reads output_shape (transpose_conv.cc takes the
           output tensor's static shape): a run-time output_shape (seanet's
           are graph inputs) is accepted and ignored the same way; a
           constant one must agree with the output tensor. */
        const Tensor *st = &g->tensors[in[0]], *ot_ = &g->tensors[out[0]];
        if (st->data || tensor_numel(st) == 0) {
            int64_t os[4];
            if (const_ints(r, g, in[0], os, 4, i, name, "output_shape") != 4)
                refuse(r->path, i, "operator %d (%s): output_shape must have 4 values", i, name);
            for (int k = 0; k < 4; k++)
                if (ot_->rank != 4 || os[k] != ot_->shape[k])
                    refuse(r->path, i, "operator %d (%s): output_shape differs from the output tensor's shape", i,
                        name);
        }
        op->in[0] = in[2];
        op->in[1] = in[1];
        op->in[2] = nin > 3 ? in[3] : -1;
        op->nin = 3;
        break;
    }
    case BO_FULLY_CONNECTED:
        has = options(r, &ot, OPT_FC, &opt, i, name);
        op->act = map_act(r, has ? get_i8(r, &opt, 0, 0, "fused_activation_function") : 0, i, name);
        if (has && get_i8(r, &opt, 1, 0, "weights_format") != 0)
            refuse(r->path, i, "operator %d (%s): shuffled weights format is not supported", i, name);
        break;
    case BO_ADD:
        has = options(r, &ot, OPT_ADD, &opt, i, name);
        op->act = map_act(r, has ? get_i8(r, &opt, 0, 0, "fused_activation_function") : 0, i, name);
        break;
    case BO_MUL:
        has = options(r, &ot, OPT_MUL, &opt, i, name);
        op->act = map_act(r, has ? get_i8(r, &opt, 0, 0, "fused_activation_function") : 0, i, name);
        break;
    case BO_SUB:
        has = options(r, &ot, OPT_SUB, &opt, i, name);
        op->act = map_act(r, has ? get_i8(r, &opt, 0, 0, "fused_activation_function") : 0, i, name);
        break;
    case BO_BATCH_MATMUL:
        has = options(r, &ot, OPT_BATCH_MATMUL, &opt, i, name);
        op->adj_x = has ? get_u8(r, &opt, 0, 0, "adj_x") != 0 : 0;
        op->adj_y = has ? get_u8(r, &opt, 1, 0, "adj_y") != 0 : 0;
        break;
    case BO_AVERAGE_POOL_2D:
    case BO_MAX_POOL_2D:
        has = options(r, &ot, OPT_POOL2D, &opt, i, name);
        op->padding = map_pad(r, has ? get_i8(r, &opt, 0, 0, "padding") : 0, i, name);
        op->stride_w = positive(r, has ? get_i32(r, &opt, 1, 0, "stride_w") : 0, i, name, "stride_w");
        op->stride_h = positive(r, has ? get_i32(r, &opt, 2, 0, "stride_h") : 0, i, name, "stride_h");
        op->k_w = positive(r, has ? get_i32(r, &opt, 3, 0, "filter_width") : 0, i, name, "filter_width");
        op->k_h = positive(r, has ? get_i32(r, &opt, 4, 0, "filter_height") : 0, i, name, "filter_height");
        op->act = map_act(r, has ? get_i8(r, &opt, 5, 0, "fused_activation_function") : 0, i, name);
        break;
    case BO_DEPTH_TO_SPACE: case BO_SPACE_TO_DEPTH:
        has = options(r, &ot, code == BO_DEPTH_TO_SPACE ? OPT_DEPTH_TO_SPACE : OPT_SPACE_TO_DEPTH, &opt, i, name);
        op->mode = code == BO_DEPTH_TO_SPACE ? 1 : 2;
        op->stride_h = op->stride_w = positive(r, has ? get_i32(r, &opt, 0, 0, "block_size") : 0, i, name, "block_size");
        break;
    case BO_BROADCAST_TO:
        op->mode = 1;                   /* tile each dimension of 1 to the output's */
        keep_inputs(op, 1);
        break;
    case BO_REVERSE_V2: {
        int64_t ax[MAX_RANK];
        const Tensor *x = &g->tensors[in[0]];
        int n = const_ints(r, g, in[1], ax, MAX_RANK, i, name, "axis"), rev[MAX_RANK] = {0}, lo = MAX_RANK, hi = -1;
        for (int k = 0; k < n; k++) {
            int a = norm_axis(r, ax[k], x->rank, i, name);
            rev[a] = 1;
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
        }
        for (int a = lo; a <= hi; a++)
            if (!rev[a]) refuse(r->path, i, "operator %d (%s): axes must be contiguous (TFLite Micro refuses others)", i, name);
        for (int a = 0; a < x->rank; a++) {
            op->begin[a] = rev[a] ? x->shape[a] - 1 : 0;
            op->step[a] = rev[a] ? -1 : 1;
            op->count[a] = x->shape[a];
        }
        keep_inputs(op, 1);
        break;
    }
    case BO_ARG_MAX: case BO_ARG_MIN: {
        int64_t ax;
        if (const_ints(r, g, in[1], &ax, 1, i, name, "axis") != 1)
            refuse(r->path, i, "operator %d (%s): axis must be one value", i, name);
        op->axis = norm_axis(r, ax, g->tensors[in[0]].rank, i, name);
        keep_inputs(op, 1);
        break;
    }
    /* TFLite Micro parity, int8 graphs */
    case BO_EQUAL: op->mode = 0; break;
    case BO_NOT_EQUAL: op->mode = 1; break;
    case BO_LESS: op->mode = 2; break;
    case BO_LESS_EQUAL: op->mode = 3; break;
    case BO_GREATER: op->mode = 4; break;
    case BO_GREATER_EQUAL: op->mode = 5; break;
    case BO_LOGICAL_AND: op->mode = 0; break;
    case BO_LOGICAL_OR: op->mode = 1; break;
    case BO_LOGICAL_NOT: op->mode = 2; break;
    case BO_ZEROS_LIKE: op->mode = 1; break;
    case BO_FILL: {                     /* (dims, value) -> (value); dims must be the output's shape */
        int64_t dims[MAX_RANK];
        const Tensor *y = &g->tensors[out[0]];
        int n = const_ints(r, g, in[0], dims, MAX_RANK, i, name, "dims");
        int same = n == y->rank;
        for (int k = 0; k < n && same; k++) same = dims[k] == y->shape[k];
        if (!same) refuse(r->path, i, "operator %d (%s): dims differ from the output's shape", i, name);
        op->in[0] = in[1];
        keep_inputs(op, 1);
        break;
    }
    case BO_EMBEDDING_LOOKUP:           /* (lookup, value) -> (params, indices) as GATHER_ND */
        op->in[0] = in[1];
        op->in[1] = in[0];
        op->mode = 1;
        break;
    case BO_FLOOR_DIV: case BO_FLOOR_MOD:
        op->mode = code == BO_FLOOR_DIV ? 1 : 2;
        break;
    case BO_DIV:
        has = options(r, &ot, OPT_DIV, &opt, i, name);
        op->act = map_act(r, has ? get_i8(r, &opt, 0, 0, "fused_activation_function") : 0, i, name);
        break;
    case BO_CUMSUM: {
        int64_t ax;
        has = options(r, &ot, OPT_CUMSUM, &opt, i, name);
        op->mode = (has && get_u8(r, &opt, 0, 0, "exclusive")) | (has && get_u8(r, &opt, 1, 0, "reverse")) << 1;
        if (g->tensors[in[1]].type != DT_INT32 || const_ints(r, g, in[1], &ax, 1, i, name, "axis") != 1)
            refuse(r->path, i, "operator %d (%s): axis must be one constant int32 value", i, name);
        if (g->tensors[in[0]].rank < 1) refuse(r->path, i, "operator %d (%s): input is a scalar", i, name);
        op->axis = norm_axis(r, ax, g->tensors[in[0]].rank, i, name);
        keep_inputs(op, 1);
        break;
    }
    case BO_MIRROR_PAD:
        has = options(r, &ot, OPT_MIRROR_PAD, &opt, i, name);
        op->mode = (has ? get_i8(r, &opt, 0, 0, "mode") : 0) == 0;     /* REFLECT: offset 1 */
        break;
    case BO_MEAN: case BO_SUM: case BO_REDUCE_MAX: case BO_REDUCE_MIN: case BO_REDUCE_ALL:
        has = options(r, &ot, OPT_REDUCER, &opt, i, name);
        op->keep_dims = has ? get_u8(r, &opt, 0, 0, "keep_dims") != 0 : 0;
        read_axes(r, g, op, i, name);
        keep_inputs(op, 1);
        break;
    case BO_CONCATENATION:
        has = options(r, &ot, OPT_CONCAT, &opt, i, name);
        op->axis = norm_axis(r, has ? get_i32(r, &opt, 0, 0, "axis") : 0, g->tensors[op->out[0]].rank, i, name);
        op->act = map_act(r, has ? get_i8(r, &opt, 1, 0, "fused_activation_function") : 0, i, name);
        break;
    case BO_PACK:
        has = options(r, &ot, OPT_PACK, &opt, i, name);
        op->axis = norm_axis(r, has ? get_i32(r, &opt, 1, 0, "axis") : 0, g->tensors[op->out[0]].rank, i, name);
        op->mode = 1;                   /* each input adds one index along the axis */
        break;
    case BO_SOFTMAX:
        has = options(r, &ot, OPT_SOFTMAX, &opt, i, name);
        op->beta = has ? get_f32(r, &opt, 0, 0.0f, "beta") : 0.0f;
        if (!isfinite(op->beta))
            refuse(r->path, i, "operator %d (%s): beta is not finite", i, name);
        if (g->tensors[op->in[0]].rank < 1)
            refuse(r->path, i, "operator %d (%s): input is a scalar", i, name);
        op->axis = g->tensors[op->in[0]].rank - 1;      /* TFLite: the last axis */
        break;
    case BO_LEAKY_RELU:
        has = options(r, &ot, OPT_LEAKY_RELU, &opt, i, name);
        op->alpha = has ? get_f32(r, &opt, 0, 0.0f, "alpha") : 0.0f;
        if (!isfinite(op->alpha)) refuse(r->path, i, "operator %d (%s): alpha is not finite", i, name);
        break;
    case BO_GELU:
        has = options(r, &ot, OPT_GELU, &opt, i, name);
        op->mode = has ? get_u8(r, &opt, 0, 0, "approximate") != 0 : 0;
        break;
    case BO_L2_NORMALIZATION:
        has = options(r, &ot, OPT_L2NORM, &opt, i, name);
        op->act = map_act(r, has ? get_i8(r, &opt, 0, 0, "fused_activation_function") : 0, i, name);
        break;
    case BO_RESIZE_BILINEAR:
        has = options(r, &ot, OPT_RESIZE_BILINEAR, &opt, i, name);
        op->mode = 1;
        op->align_corners = has ? get_u8(r, &opt, 2, 0, "align_corners") != 0 : 0;
        op->half_pixel = has ? get_u8(r, &opt, 3, 0, "half_pixel_centers") != 0 : 0;
        break;
    case BO_RESIZE_NEAREST_NEIGHBOR:
        has = options(r, &ot, OPT_RESIZE_NEAREST, &opt, i, name);
        op->mode = 0;
        op->align_corners = has ? get_u8(r, &opt, 0, 0, "align_corners") != 0 : 0;
        op->half_pixel = has ? get_u8(r, &opt, 1, 0, "half_pixel_centers") != 0 : 0;
        break;
    case BO_GATHER: {
        has = options(r, &ot, OPT_GATHER, &opt, i, name);
        const Tensor *x = &g->tensors[in[0]];
        op->axis = norm_axis(r, has ? get_i32(r, &opt, 0, 0, "axis") : 0, x->rank, i, name);
        op->mode = has ? get_i32(r, &opt, 1, 0, "batch_dims") : 0;    /* batch_dims */
        break;
    }
    case BO_STRIDED_SLICE: {
        int64_t od[MAX_RANK];
        const Tensor *x = &g->tensors[in[0]];
        int orank = strided_geometry(r, g, &ot, in, i, name, op->begin, op->step, op->count, od);
        const Tensor *y = &g->tensors[out[0]];
        int64_t n = 1;
        for (int k = 0; k < orank; k++) n *= od[k];
        if (dyn[out[0]]) set_shape(r, g, out[0], orank, od, i, name);
        else if (n != tensor_numel(y) || orank != y->rank)
            refuse(r->path, i, "operator %d (%s): the slice has %lld elements in rank %d, the output '%s' %lld in rank %d",
                i, name, (long long)n, orank, y->name, (long long)tensor_numel(y), y->rank);
        (void)x;
        keep_inputs(op, 1);
        break;
    }
    case BO_SLICE: {
        int64_t b[MAX_RANK], s[MAX_RANK];
        const Tensor *x = &g->tensors[in[0]];
        int nb = const_ints(r, g, in[1], b, MAX_RANK, i, name, "begin");
        int ns = const_ints(r, g, in[2], s, MAX_RANK, i, name, "size");
        if (nb != x->rank || ns != x->rank)
            refuse(r->path, i, "operator %d (%s): begin and size must have %d values", i, name, x->rank);
        for (int a = 0; a < x->rank; a++) {
            int64_t sz = s[a] == -1 ? x->shape[a] - b[a] : s[a];
            if (b[a] < 0 || sz < 0 || b[a] + sz > x->shape[a])
                refuse(r->path, i, "operator %d (%s): slice [%lld, +%lld) outside axis %d of size %d", i, name,
                    (long long)b[a], (long long)sz, a, x->shape[a]);
            op->begin[a] = (int32_t)b[a];
            op->step[a] = 1;
            op->count[a] = (int32_t)sz;
        }
        keep_inputs(op, 1);
        break;
    }
    }
    /* a dynamic output gets the shape its inputs give; an output without a
       rule keeps its stored shape unless an input's shape was changed */
    int changed = 0;
    for (int k = 0; k < op->nin; k++) changed |= op->in[k] >= 0 && resolved[op->in[k]];
    if (dyn[out[0]] && !resolved[out[0]] && !infer_shape(r, g, &ot, code, op, i, name) && changed)
        refuse(r->path, i, "operator %d (%s): output '%s' has a dynamic shape (shape_signature -1) htc cannot compute at "
            "compile time", i, name, g->tensors[out[0]].name);
    if (kind == OP_RESHAPE) keep_inputs(op, 1);
    r->ctx[0] = 0;
}

/* read_op; a refused operator is recorded and left out (its ops removed),
   and the next one read: lower() lists the refusals. */
static void read_op_caught(Reader *r, Graph *g, const Vec *ops, const OpCode *codes, uint32_t ncodes, int i)
{
    const int nops = g->nops;
    jmp_buf jb;
    if (setjmp(jb) == 0) {
        refuse_catch(&jb);
        read_op(r, g, ops, codes, ncodes, i);
    } else {
        g->nops = nops;
        r->ctx[0] = 0;
    }
    refuse_catch(NULL);
}

/* Model.operator_codes: the builtin code of each (the larger of the
   deprecated int8 field and the int32 one, as TFLite resolves it). */
static OpCode *read_opcodes(Reader *r, const Tab *model, uint32_t *n)
{
    Vec v;
    get_vec(r, model, 1, 4, &v, "operator_codes");
    if (v.n > MAX_OPCODES) corrupt(r, "operator_codes", "too many operator codes");
    OpCode *codes = arena_alloc(sizeof(OpCode) * (v.n ? v.n : 1));
    for (uint32_t i = 0; i < v.n; i++) {
        snprintf(r->ctx, sizeof r->ctx, "operator code %" PRIu32, i);
        Tab t = vec_table(r, &v, i, "table");
        int dep = get_i8(r, &t, 0, 0, "deprecated_builtin_code");
        int32_t code = get_i32(r, &t, 3, 0, "builtin_code");
        codes[i].code = dep > code ? dep : code;
        if (codes[i].code < 0) corrupt(r, "builtin_code", "negative operator code");
        if (codes[i].code == BO_CUSTOM) codes[i].custom = get_string(r, &t, 1, "custom_code");
    }
    r->ctx[0] = 0;
    *n = v.n;
    return codes;
}

/* SubGraph.inputs/outputs into the graph and the tensors' is_input/is_output. */
static void read_io(Reader *r, Graph *g, const Tab *sg, int slot, int out)
{
    const char *what = out ? "output" : "input";
    Vec v;
    get_vec(r, sg, slot, 4, &v, what);
    for (uint32_t k = 0; k < v.n; k++) {
        int32_t t = rd_i32(r, v.pos + 4 * (size_t)k);
        if (t < 0 || t >= g->ntensors)
            die("%s: model %s %" PRIu32 " is tensor %" PRId32 ", out of range (%d tensors)", r->path, what, k,
                t, g->ntensors);
        Tensor *T = &g->tensors[t];
        int *mark = out ? &T->is_output : &T->is_input;
        if (*mark) die("%s: tensor %d ('%s') is listed twice as a model %s", r->path, t, T->name, what);
        if (out) graph_add_output(g, t);
        else graph_add_input(g, t);
    }
}

/* Dynamic dimensions are resolved to the stored shape, the shape TFLite
   Micro runs. They must come from the graph inputs: a dynamic batch (every
   activation's dimension 0) is accepted anyway, a dynamic dimension after
   the batch only when an input has one there. Per input: --shape NAME=DIMS must equal the
   stored shape; without it an input dynamic beyond the batch gets a note. */
static void input_shapes(Reader *r, Graph *g, int ntensors)
{
    (void)ntensors;     /* dynamic intermediate shapes are computed from the inputs' (read_op) */
    char *used = arena_alloc((size_t)r->opts->nshapes + 1);
    for (int k = 0; k < g->ninputs; k++) {
        const Tensor *T = &g->tensors[g->inputs[k]];
        char dims[96] = "", dyns[64] = "";
        size_t n = 0, m = 0;
        for (int d = 0; d < T->rank && n < sizeof dims - 16; d++)
            n += (size_t)snprintf(dims + n, sizeof dims - n, "%s%" PRId32, d ? "x" : "", T->shape[d]);
        for (int d = 0; d < T->rank && m < sizeof dyns - 8; d++)
            if (dyn[g->inputs[k]] & (1u << d)) m += (size_t)snprintf(dyns + m, sizeof dyns - m, "%s%d", m ? ", " : "", d);
        int rank;
        const int64_t *opt = readopt_shape_of(r->opts, used, T->name, &rank);
        if (r->bad[g->inputs[k]]) continue;     /* refused (bad_untold or its operators) */
        if (opt) {
            int same = rank == T->rank;
            for (int d = 0; same && d < rank; d++) same = opt[d] == T->shape[d];
            if (!same)
                die("%s: --shape %s: htc compiles a .tflite model for the shapes stored in it, and input %d ('%s') is "
                    "stored as %s", r->path, T->name, k, T->name, dims);
        } else if (dyn[g->inputs[k]] & ~1u) {   /* a dynamic batch alone is every converter's default: silent */
            graph_note(g, "%s: graph input %d ('%s') has dynamic dimension%s %s (shape_signature -1): compiled for its "
                       "stored shape %s", r->path, k, T->name, strchr(dyns, ',') ? "s" : "", dyns, dims);
        }
    }
    readopt_shapes_check(r->opts, used, r->path);
}

/* ---- entry point ------------------------------------------------------------- */

/* Read and check the whole model; any problem dies naming the file. The
   structure is fixed (model -> subgraph -> tensor -> quantization), so no
   recursion, and every loop is bounded by a vector length checked against
   the file size and the work budget. */
Graph *tflite_read(const char *path, const ReadOptions *opts)
{
    Reader rd = {0}, *r = &rd;
    r->path = path;
    r->opts = opts;
    r->buf = read_file(path, &r->len);
    r->budget = 2 * (uint64_t)r->len + 65536;

    Graph *g = arena_alloc(sizeof *g);
    g->path = path;
    g->format = SRC_TFLITE;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < r->len; i++) h = (h ^ r->buf[i]) * 16777619u;
    g->hash = h;

    if (r->len < 8) die("%s: not a TFLite model (file is %zu bytes)", path, r->len);
    const uint8_t *id = r->buf + 4;
    if (memcmp(id, "TFL3", 4) != 0) {
        int printable = 1;
        for (int i = 0; i < 4; i++)
            if (!((id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'z')))
                printable = 0;
        if (printable)
            die("%s: not a TFLite model (file identifier '%.4s', expected 'TFL3')", path, (const char *)id);
    }
    Tab model = table_at(r, rd_u32(r, 0), "model");
    uint32_t version = get_u32(r, &model, 0, 0, "version");
    if (version != TFLITE_SCHEMA_VERSION)
        die("%s: TFLite schema version %" PRIu32 ", expected %d", path, version, TFLITE_SCHEMA_VERSION);

    uint32_t ncodes;
    OpCode *codes = read_opcodes(r, &model, &ncodes);
    Vec subgraphs, buffers;
    get_vec(r, &model, 2, 4, &subgraphs, "subgraphs");
    get_vec(r, &model, 4, 4, &buffers, "buffers");
    if (subgraphs.n == 0) die("%s: model has no subgraph", path);
    rvars = NULL;
    int call_once = 0, flow = 0;
    for (uint32_t k = 0; k < ncodes; k++) {
        call_once |= codes[k].code == BO_CALL_ONCE;
        flow |= codes[k].code == BO_WHILE || codes[k].code == BO_IF;
    }
    if (subgraphs.n == 2 && call_once && !flow) {   /* resource variables set up once (read_rvar) */
        Tab sg1 = vec_table(r, &subgraphs, 1, "subgraph");
        Tab sg0 = vec_table(r, &subgraphs, 0, "subgraph");
        Vec t0;
        get_vec(r, &sg0, 0, 4, &t0, "subgraph tensors");
        if (t0.n > MAX_TENSORS) die("%s: %" PRIu32 " tensors, at most %d are supported", path, t0.n, MAX_TENSORS);
        read_init_subgraph(r, &sg1, &buffers, codes, ncodes, t0.n);
    } else if (subgraphs.n > 1) {
        /* control flow (a Keras RNN without unroll=True becomes a WHILE loop) */
        for (uint32_t k = 0; k < ncodes; k++)
            if (codes[k].code == BO_WHILE || codes[k].code == BO_IF || codes[k].code == BO_CALL_ONCE)
                die("%s: operator %s: control flow is not supported (the model has %" PRIu32 " subgraphs; a Keras "
                    "RNN converts to a WHILE loop unless built with unroll=True, LSTM to UNIDIRECTIONAL_SEQUENCE_LSTM "
                    "with Keras 2 (tf_keras))", path, builtin_name(codes[k].code), subgraphs.n);
        die("%s: model has %" PRIu32 " subgraphs, only one is supported", path, subgraphs.n);
    }
    Tab sg = vec_table(r, &subgraphs, 0, "subgraph");

    Vec tensors, ops;
    get_vec(r, &sg, 0, 4, &tensors, "subgraph tensors");
    get_vec(r, &sg, 3, 4, &ops, "subgraph operators");
    if (tensors.n > MAX_TENSORS) die("%s: %" PRIu32 " tensors, at most %d are supported", path, tensors.n, MAX_TENSORS);
    if (ops.n > MAX_OPS) die("%s: %" PRIu32 " operators, at most %d are supported", path, ops.n, MAX_OPS);
    dyn = arena_alloc(tensors.n + 1);
    dyn_dim = arena_alloc(sizeof(int) * (tensors.n + 1));
    resolved = arena_alloc(tensors.n + 1);
    r->bad = arena_alloc(sizeof(char *) * (tensors.n + 1));
    r->told = arena_alloc(tensors.n + 1);
    for (uint32_t i = 0; i < tensors.n; i++) read_tensor(r, g, &tensors, &buffers, (int)i);
    read_io(r, g, &sg, 1, 0);
    read_io(r, g, &sg, 2, 1);
    input_shapes(r, g, (int)tensors.n);
    if (g->noutputs == 0) die("%s: model has no outputs", path);
    if (ops.n == 0) die("%s: the model has no operators: nothing to compile", path);
    for (uint32_t i = 0; i < ops.n; i++) read_op_caught(r, g, &ops, codes, ncodes, (int)i);
    bad_untold(r, g, (int)ops.n);
    return g;                           /* lower() lists the refusals */
}
