/* ir.h - the graph every pass of htc reads and writes.
   Plain C structs; memory from the arena (util.c), freed at exit. */
#ifndef HTC_IR_H
#define HTC_IR_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HTC_VERSION "0.1.0"
#define MAX_RANK 6

/* ---- util.c: arena, errors, files ---------------------------------------- */

void *arena_alloc(size_t n);                  /* zeroed, never NULL */
char *arena_strdup(const char *s);
char *arena_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void arena_free_all(void);
typedef struct { void *block; size_t used; } ArenaMark;
ArenaMark arena_mark(void);                   /* arena_release(m) frees what was allocated since */
void arena_release(ArenaMark m);

/* A map from strings to pointers (util.c): FNV-1a with its low bits mixed,
   open addressing, at most half full, so a model's names are found in
   constant time. Keys are not copied (they must outlive the map); a zeroed
   StrMap is empty. */
typedef struct {
    const char **keys;
    void **vals;
    size_t cap, n;
} StrMap;
void *strmap_get(const StrMap *m, const char *key);         /* NULL when absent */
void strmap_put(StrMap *m, const char *key, void *val);     /* adds or replaces */

/* Print "htc: error: <msg>" on one line to stderr and exit(1). Any output
   file registered with out_open() and not yet committed is removed. */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Refusals of single operators, collected (util.c): with a catcher set by
   refuse_catch(&jb) (after setjmp(jb) == 0), refuse() records
   "operator I (NAME): reason" under index I and longjmps to jb (the catcher
   is cleared); without one it dies with every refusal recorded so far. refuse_flush(path) dies listing every
   recorded refusal in graph order (nothing recorded: returns). */
void refuse_catch(jmp_buf *jb);
void refuse(const char *path, int index, const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));
/* refuse for a problem that is not an operator's (a tensor no operator
   uses), listed by the same index order */
void refuse_other(const char *path, int index, const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));
void refuse_flush(const char *path);
/* From a signal handler: write `line` (a whole "htc: error: ...\n"), remove
   temporary outputs and scratch directories, _exit(1). */
void die_async(const char *line) __attribute__((noreturn));

/* Escaping (util.c): text from a model, a target file or the command line
   reaches an output only through one of these (arena strings), never as a
   format. esc_c: inside a C comment or string literal (any standard, C++
   too; cut at 400 bytes); esc_json: a JSON string, quotes included;
   esc_csv: one CSV field; esc_html: HTML / SVG text or attribute value;
   esc_term: a terminal (control characters visible; cut at 1000 bytes);
   term_put: the same written to f, at most max bytes of s. */
const char *esc_c(const char *s);
const char *esc_json(const char *s);
const char *esc_csv(const char *s);
const char *esc_html(const char *s);
const char *esc_term(const char *s);
void term_put(FILE *f, const char *s, size_t max);

/* Whole file into arena memory; dies naming the path on failure. */
uint8_t *read_file(const char *path, size_t *len);

/* Run a C compiler (argv) with its messages in errlog; if it fails, die with
   its first error line (which names a template's file:line through the
   header's #line directives, or the header's own line), else with `what` and the status. */
void cc_build(char *const argv[], const char *errlog, const char *what);
/* cc_build in two steps: the compiler's exit status; the error it made. */
int cc_run(char *const argv[], const char *errlog);
void cc_fail(char *const argv[], const char *errlog, const char *what, int rc) __attribute__((noreturn));
/* Run argv (PATH lookup), wait, return its exit status (128 + signal);
   quiet sends its stdout to /dev/null. The child dies with htc. */
int run_command(char *const argv[], int quiet);
/* Remove a directory and everything below it. */
void remove_tree(const char *dir);
/* A fresh directory $TMPDIR/<prefix>-XXXXXX, removed at exit, on die() and
   on SIGINT/SIGTERM/SIGHUP (flat: files only); scratch_remove removes it now. */
const char *scratch_dir(const char *prefix);
void scratch_remove(const char *dir);
/* SIGINT, SIGTERM, SIGHUP: stop the child, remove temporaries, die of it. */
void signals_init(void);

/* Output files are written to a unique "<path>.tmp.XXXXXX" beside the output
   and renamed over it on out_commit(), so an error, a signal or a concurrent
   htc never leaves a half-written or mixed file behind. */
FILE *out_open(const char *path);
void out_commit(FILE *f);
/* Dies unless path names a regular file or nothing (no directory, device,
   FIFO, socket or symbolic link): out_open's check, for early use. */
void out_check(const char *path);
/* A file copied to an output through out_open / out_commit. */
void out_copy(const char *from, const char *path);

/* htc run --cache DIR (runcache.c): a run's printed text and outputs kept
   under the content of what makes them (the compiler's argv, its paths in
   the run's scratch directory by a fixed name, the header but
   its params: comment line, the driver, the inputs). rcache_get on a hit
   prints the text, writes the outputs and returns 1; rcache_put stores a
   finished run (its stdout in the file `text`), atomically. */
typedef struct RunCache RunCache;
RunCache *rcache_open(const char *dir, char *const ccargv[], const char *scratch, const char *header,
                      const char *driver, const char *const *inputs, int ninputs, int noutputs);
int rcache_get(RunCache *c, const char *const *outputs, int noutputs);
void rcache_put(RunCache *c, const char *text, const char *const *outputs, int noutputs);

/* ---- tensors --------------------------------------------------------------- */

typedef enum {
    DT_INT8, DT_UINT8, DT_INT16, DT_INT32, DT_INT64, DT_FLOAT32, DT_BOOL,
    DT_UINT32, DT_UINT64        /* TFLM's signal operators (audio front ends) */
} DType;

size_t dtype_size(DType t);
const char *dtype_name(DType t);

/* Affine quantization as the source model states it: real = scale*(q - zp).
   n == 0: not quantized; n == 1: per tensor; n > 1: per channel on axis. */
typedef struct {
    int n;
    float *scale;
    int64_t *zero_point;
    int axis;
} Quant;

typedef struct {
    char *name;
    DType type;
    int rank;
    int32_t shape[MAX_RANK];
    Quant q;
    const uint8_t *data;        /* constant contents (little endian), or NULL */
    size_t nbytes;              /* bytes of data, = numel * dtype_size */
    int src_index;              /* tensor index in the source model */
    int is_input, is_output;    /* graph input / output position + 1, or 0 */
    int variable;               /* state kept from one run to the next (a TFLite variable tensor:
                                   LSTM, SVDF): live during the whole run, each byte set to
                                   reset_byte by NAME_reset, or to reset_data when not NULL */
    uint8_t reset_byte;
    const uint8_t *reset_data;  /* a variable's nbytes reset value (a resource variable's constant) */
    int u8;                     /* the model's uint8 (TFLite legacy quantization) stored as int8: value -
                                   128, zero point - 128 (lower.c u8_storage); data flipped */
    /* filled by later passes */
    int storage;                /* plan: ST_* below */
    int alias_of;               /* plan: shares storage with this tensor, or -1 */
    int64_t alias_offset;       /* plan: byte offset inside alias_of's storage */
    int producer;               /* op index, or -1 */
    int first_use, last_use;    /* plan: lifetime in op steps */
    int64_t offset;             /* plan: byte offset in the arena, or -1 */
    int memory;                 /* plan: memory index in the target */
    int band_rows;              /* cascade: rows of the tensor its band buffer holds (0: the whole tensor) */
    int64_t accessed;           /* plan, several data memories: bytes its layers read and write (a root's buffer) */
    const char *place_why;      /* plan, several data memories: why the buffer is in its memory */
} Tensor;

enum { ST_NONE, ST_CONST, ST_INPUT, ST_OUTPUT, ST_ARENA, ST_ALIAS };

int64_t tensor_numel(const Tensor *t);

size_t tensor_bytes(const Tensor *t);

/* ---- operators --------------------------------------------------------------- */

/* One kind per operation, whatever the source format: how an op computes
   (TFLite's fixed point, onnxruntime's float scale, a float group, ...) is
   its requantization kind (Op.rq), not its op kind. */
typedef enum {
    OP_CONV2D,          /* groups, depthwise (groups == in_c), dilation, stride, padding */
    OP_FC,              /* fully connected / (batched) matmul with constant weights */
    OP_ADD, OP_MUL,     /* element-wise, two inputs */
    OP_AVGPOOL,         /* global (whole image) or windowed */
    OP_MAXPOOL, OP_MEAN, OP_PAD, OP_CONCAT, OP_RESHAPE, OP_TRANSPOSE,
    OP_SOFTMAX,
    OP_TABLE,           /* any function of one 8-bit value: a 256-entry table (logistic, relu, ...) */
    OP_QUANTIZE, OP_DEQUANTIZE, OP_REQUANTIZE,
    OP_NORM,            /* over the last axis: layer norm, RMS norm, ... (QuantLib's integer norms) */
    OP_GATHER,          /* slices of one axis picked by constant indices */
    OP_SUB, OP_SQDIFF,  /* element-wise, two inputs: a - b, (a - b)^2 */
    OP_MAXIMUM, OP_MINIMUM,
    OP_PRELU,           /* x >= 0 ? x : alpha * x, alpha a broadcast tensor */
    OP_MATMUL,          /* batched matmul of two activations (BATCH_MATMUL) */
    OP_TRANSPOSE_CONV,  /* 2-D transposed convolution (deconvolution), NHWC */
    OP_RESIZE,          /* 2-D resize of NHWC: nearest or bilinear (Op.mode) */
    OP_TILE,            /* repeat along every axis */
    OP_SLICE,           /* strided slice (slice, split, unpack: one op per output) */
    OP_SPACE_TO_BATCH, OP_BATCH_TO_SPACE,
    OP_SUM, OP_REDUCE_MAX,  /* reductions over any axes (OP_MEAN: the mean) */
    OP_L2NORM,          /* L2 normalization over the last axis */
    OP_NEG,             /* -x (float islands) */
    OP_REDUCE_MIN,
    OP_ARGMAX, OP_ARGMIN,   /* index of the largest / smallest value along an axis */
    OP_MIRROR_PAD,      /* reflect (Op.mode 1) or symmetric (0) padding */
    OP_LSTM,            /* unidirectional sequence LSTM: outputs sequence, hidden and cell state, scratch */
    /* TFLite Micro parity, int8 graphs (issue 13): kernels/logic.c, kernels/arith8.c */
    OP_COMPARE,         /* EQUAL .. GREATER_EQUAL (Op.mode CMP_*), bool output, broadcast */
    OP_LOGICAL,         /* LOGICAL_AND (Op.mode 0), LOGICAL_OR (1), LOGICAL_NOT (2), bool */
    OP_SELECT,          /* SELECT_V2: cond ? x : y, three broadcast inputs */
    OP_CAST,            /* element type conversion (CAST), no quantization */
    OP_FILL,            /* every element = one value (FILL, ZEROS_LIKE) */
    OP_GATHER_ND,       /* slices picked by run-time indices (GATHER_ND, EMBEDDING_LOOKUP) */
    OP_UPDATE_SLICE,    /* DYNAMIC_UPDATE_SLICE: a copy with a block overwritten at run-time indices */
    OP_ADD_N, OP_DIV, OP_CUMSUM,    /* int8 arithmetic as TFLite Micro's reference kernels */
    OP_REDUCE_ALL,      /* logical and of bools over axes (REDUCE_ALL) */
    OP_SVDF,            /* SVDF (rank, Op.mode): outputs result, activation state, scratch */
    OP_LOG_SOFTMAX,     /* log(softmax(x)) over the last axis */
    /* TFLite Micro's signal library (audio front ends: custom Signal* operators), integer
       arithmetic of signal/src; options in Op.sig (SIG_* below); kernels/signal.c */
    OP_WINDOW,          /* int16 x int16 window >> shift, saturated */
    OP_FFT_AUTOSCALE,   /* int16 scaled up to the largest magnitude; outputs data, int32 shift */
    OP_RFFT,            /* real FFT of int16 frames (kiss_fft fixed point), complex int16 out */
    OP_ENERGY,          /* re^2 + im^2 of complex int16 bins [start, end), uint32 */
    OP_FILTER_BANK,     /* triangular mel filter bank: uint32 -> uint64 accumulators */
    OP_FB_SQRT,         /* integer square root of uint64, >> scale bits (a run-time int32) */
    OP_SPECTRAL_SUB,    /* noise estimate (state kept between runs) subtracted, uint32 */
    OP_PCAN,            /* per-channel automatic gain control from a noise estimate, uint32 */
    OP_FB_LOG,          /* integer natural log of uint32 channels, int16 */
    OP_DELAY,           /* each row of int16 samples delayed by delay_length (a delay line kept between runs) */
    OP_OVERLAP_ADD,     /* frames added into a running buffer (kept between runs), frame_step samples out each */
    OP_DETECT_PP,       /* TFLite_Detection_PostProcess: SSD boxes decoded, non-max suppression (float) */
    OP_COUNT
} OpKind;

const char *op_name(OpKind k);                /* "conv2d", ... (target file keys) */

typedef enum { ACT_NONE, ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1 } Activation;

typedef enum { PAD_SAME, PAD_VALID, PAD_EXPLICIT } Padding;

/* Which arithmetic a requantization follows (design.md, Numerics). */
typedef enum {
    RQ_NONE,        /* op does not requantize */
    RQ_TFLITE,      /* Q31 multiplier + shift, TFLite double rounding */
    RQ_FLOAT,       /* float scale, round half to even (onnxruntime) */
    RQ_SHIFT,       /* power-of-two shift, with its rounding (Op.shift_round) */
    RQ_FP32,        /* computed in float as onnxruntime does (--float-fallback groups) */
    RQ_QUANTLIB,    /* QuantLib's RequantShift: clip((x*mult + add + 2^(s-1)) >> s), int64 product */
    RQ_COUNT
} RequantKind;

const char *requant_name(RequantKind k);

enum { ROUND_HALF_EVEN, ROUND_TFLITE };   /* Op.shift_round; "half_even", "tflite" */

#define OP_MAX_IO 16

/* Op.sig: the options of a signal operator, as TFLite Micro reads them from
   its custom_options flexbuffer (by position; gen/tflite.c checks the names).
   OP_WINDOW: shift; OP_RFFT: fft_length; OP_DELAY: delay_length; OP_OVERLAP_ADD: frame_step; OP_ENERGY: start_index, end_index;
   OP_FILTER_BANK: num_channels; OP_PCAN: snr_shift; OP_FB_LOG: input
   correction bits, output scale; OP_SPECTRAL_SUB: the SIG_SS_* fields. */
enum { SIG_SS_SMOOTHING, SIG_SS_ONE_MINUS, SIG_SS_ALT_SMOOTHING, SIG_SS_ALT_ONE_MINUS, SIG_SS_MIN_REMAINING,
       SIG_SS_SMOOTHING_BITS, SIG_SS_BITS, SIG_SS_CLAMPING, SIG_SS_CHANNELS, SIG_COUNT };

typedef struct {
    OpKind kind;
    int src_index;              /* operator index in the source model */
    const char *src_name;       /* source op name, e.g. "CONV_2D" */
    int nin, nout;
    int in[OP_MAX_IO];          /* tensor indices; -1 = optional input absent */
    int out[OP_MAX_IO];

    /* attributes, as the source model states them */
    Activation act;
    Padding padding;
    int stride_h, stride_w, dil_h, dil_w;
    int k_h, k_w;               /* pooling filter (conv: from the weights) */
    int depth_mult;
    int axis;                   /* concat, softmax */
    float beta;                 /* softmax */
    int keep_dims;              /* mean, sum, reduce_max */
    int naxes, axes[MAX_RANK];  /* mean, sum, reduce_max: the reduced axes */
    int32_t begin[MAX_RANK], step[MAX_RANK], count[MAX_RANK];  /* slice: first index, stride and
                                                 number of elements per input axis */
    float alpha;                /* leaky relu */
    int32_t sig[SIG_COUNT];     /* signal operators' options (SIG_* above) */
    int adj_x, adj_y;           /* batch_matmul: operands transposed */
    int align_corners, half_pixel;   /* resize */

    /* canonical attributes, filled by every front end (read by dispatch,
       tiling, templates and the target's predicates):
       conv2d: NHWC in/out, weights [out_c][k_h][k_w][in_c / groups] (OHWI per group);
       fc: [batches][in_c] x weights [w_batches][out_c][in_c] -> [batches][out_c];
       avgpool/maxpool: NHWC, window k_h x k_w (global: the whole image). */
    int batches, in_h, in_w, in_c, out_h, out_w, out_c;
    int groups;                 /* conv2d: filter groups */
    int depthwise;              /* conv2d: one input channel per filter (groups == in_c > 1) */
    int global;                 /* avgpool: the window is the whole image */
    int broadcast;              /* add/mul: an input is broadcast (TFLite: any shape; ONNX: a scalar) */
    int w_batches;              /* fc: 1 = weights shared by every batch */
    int has_w_zp;               /* conv2d/fc: non-zero weight zero points */
    int int32_out;              /* conv2d/fc: the output is the int32 accumulator */
    int s16;                    /* int16 activations (16x8): htc's CPU kernels only */
    int f32;                    /* a float32 model's op (kernels/float.c): htc's CPU kernels only */
    int u8;                     /* TFLite uint8 (legacy asymmetric) op: LiteRT's uint8 arithmetic, its
                                   tensors stored as int8 (Tensor.u8) */
    int32_t in_zp, out_zp;      /* stored (int8) domain */
    int kernel_weights;         /* tensor the CPU kernel reads as weights when its layout is
                                   not the canonical one (TFLite depthwise: [kh][kw][out_c]), or -1 */

    /* lower.c: explicit geometry and integer arithmetic */
    int pad_top, pad_left, pad_bottom, pad_right;
    RequantKind rq;
    int nch;                    /* number of requant channels (1 = per tensor) */
    int32_t *mult;              /* [nch] */
    int8_t *shift;              /* [nch] */
    const float *fscale;        /* RQ_FLOAT: [nch] float scales (onnxruntime's) */
    int32_t *rq_add;            /* RQ_QUANTLIB: [nch] the additive term (mult: the multiplier, shift: the shift) */
    int32_t *fbias;             /* [out_c] bias - in_zp * (sum of the channel's weights) (lower.c
                                   fold_bias; htc__fc_params: written as the bias with in_zp 0), or NULL */
    int32_t act_min, act_max;   /* output clamp, stored domain */
    void *params;               /* kernel parameter block (htc.h struct) */
    size_t params_size;
    const char *params_type;    /* "htc__conv_params", ... */
    const char *params_fmt;     /* generic block (emit.c emit_generic): its fields in order,
                                   'i' int32, 'f' float, 'aN' int32[N], 'bN' int8[N],
                                   'm'/'s' the op's mult/shift arrays; the kernel is called
                                   fn(&params, in[0..nin-1], out[0..nout-1]) */
    int mode;                   /* resize: 0 nearest, 1 bilinear; reduce/elementwise variants */
    const char *variant;        /* kernel name suffix by types, e.g. "_f32_s8", or "" */
    int64_t macs;               /* multiply-accumulates, for cost and report */

    /* dispatch.c */
    int engine;                 /* index into Target.engines */
    const char *kernel_file;    /* the C source the engine runs it with (CPU: htc's own by default) */
    const char *kernel_fn;
    double cycles_per_mac, cycles_per_elem;   /* the engine's cost model for this op */
    const char *reason;         /* why this engine, for the report */
    double est_cycles;
    int inplace;                /* plan: the op's data is already in place (no kernel call) */
    int eligible_index;         /* conv2d/fc that some accelerator accepts: its 1-based ordinal
                                   among such ops in execution order (else 0); -1 while dispatch
                                   asks the predicates (op.eligible_index, README) */
    int eligible_count;         /* how many ops of the graph have an eligible_index > 0 */
    const char *float_why;      /* RQ_FP32 (--float-fallback): why onnxruntime computes the group in float */
    int cores;                  /* CPU layer forked over this many cluster cores (0/1: serial) */
    struct ClusterTile *ctile;  /* tile.c: the layer's bands in the cluster's L1, or NULL */
    int split;                  /* SPLIT_ROWS / SPLIT_CHANNELS (htc.h HTC_SPLIT_*) when cores > 1 */
    const char *split_why;      /* a cluster's CPU layer kept on one core: why (split = "none", the estimate) */
    double est_one;             /* the layer's estimate on one core (the report's speedup), 0: est_cycles */
    int code_age;               /* layers run since the last one with this kernel function (0: the
                                   one before; -1: none earlier; -2: not bound yet), op.code_age */
    int code_conv;              /* of those layers, the convolutions on the CPU, op.code_conv */
    int code_sites;             /* the layers calling this kernel function in the whole network
                                   (0: not known yet, before every op is bound), op.code_sites */
    int par_before;             /* earlier layers divided over the cpu's cores, op.par_before (known
                                   with code_sites) */
    double fork;                /* its fork/join over the cluster's cores (target_fork, at bind) */

    /* dispatch.c / tile.c (accelerators) */
    int exact_shift;            /* a float or TFLite requantization that is exactly a power-of-two shift */
    int32_t *xq2;               /* XpulpV2 CPU conv2d: [out_c][HTC__XQ2_N] final-form requantization
                                   (gen/quant.c quant_xq2, htc.h htc__xq2_apply; a dense convolution's:
                                   [0] its form, 2, 3 or 4, then the records, 3, 4: [out_c][HTC__XQ3_N],
                                   quant_xq3, htc__xq3_apply); an ADD's: its tables, HTC__XADD_N words
                                   (quant_xadd, htc__xadd_run), or NULL */
    int shift_round;            /* its rounding: ROUND_HALF_EVEN (onnxruntime's float scale 2^-s)
                                   or ROUND_TFLITE (multiplier 2^30: gemmlowp's rounding doubling high
                                   multiply, then rounding divide by 2^(s-1), half away from zero) */
    int32_t *rq_shifts;         /* [nch] right shifts (scale = 2^-s), when exact_shift */
    int32_t add_shift[3];       /* qadd: a, b multipliers as left shifts over 2^m, m (exact_shift) */
    int32_t add_fixed;          /* qadd: fixed term times 2^m */
    struct TileInfo *tile;      /* offloaded op: the chosen tiling, or NULL */
    int cascade;                /* cascade.c: 1 + index into Graph.cascades, or 0 (run layer by layer) */
} Op;

/* ---- tile.c: per offloaded layer, from one MILP ---------------------------- */

enum { TD_K, TD_C, TD_OY, TD_OX, TD_COUNT };     /* tile dimensions */
/* derived tile variables (t.dma_bytes, t.tiles): the layer's DMA bytes and
   tile count as tile.c's walk counts them, for objectives, constraints and
   tie_break only (not linear: such a layer is enumerated, never an MILP) */
enum { TD_DMA = TD_COUNT, TD_NTILES, TD_VARS };
typedef struct TileInfo {
    const char *geom;           /* "conv", "dw", "fc", "add" */
    int full[TD_COUNT];         /* layer dimensions */
    int size[TD_COUNT];         /* chosen tile sizes */
    int in_h, in_w, k_h, k_w, s_h, s_w, pad_top, pad_left;
    int double_buffer;
    int64_t l1_bytes;           /* act memory used (all buffers) */
    int64_t l1_in, l1_out, l1_in2;   /* one buffer each */
    int64_t w_bytes;            /* weight memory used (one K tile incl. bias) */
    int64_t out_bytes;          /* output memory used (engine `outputs`: the output tiles), else 0 */
    int64_t out_base, w_base;   /* where the output tiles / the weights start in their memory
                                   (after the buffers placed before them in a shared memory) */
    int c_split;                /* conv/fc with C tiled: int32 partial sums over the C tiles */
    int c_free;                 /* C is a tiling variable (add, pool; conv/fc of an engine with partial_sums) */
    int64_t dma_bytes;          /* bytes moved by DMA for the whole layer */
    int ntiles;
    double objective;           /* MILP optimum */
    double brute;               /* brute-force optimum (HTC_TILE_BRUTE), or NAN */
    int64_t brute_points;
    double est_cycles;
    double ideal_cycles;        /* MACs at peak + weight transfer */
    double solve_ms;
    const char *method;         /* "milp" or "enumeration" */
    int nvars, nrows;
    const int8_t *wlayout;      /* weights in the engine's layout */
    size_t wlayout_bytes;
    const int32_t *bias;        /* the engine's biases ({{b}}), NULL: the model's */
    struct EngineConst *consts; /* the engine's own per-layer constants (target's `constants`) */
    int nconsts;
} TileInfo;

/* One array of compile-time data an engine computes for a layer (its op's
   `constants` function): stored in the header as NAME__<name><layer>,
   addressed by templates as {{name}}. */
typedef struct EngineConst {
    const char *name;           /* a C identifier */
    const char *ctype;          /* int8_t uint8_t int16_t int32_t uint32_t float */
    int elem;                   /* bytes per element */
    int64_t n;                  /* elements */
    const void *data;           /* n * elem bytes, little endian values */
} EngineConst;

/* ---- tile.c: a CPU layer on a cluster tiled into its L1 (cpu.l1) -----------
   Bands of `rows` output rows: each band's input rows (htc.h htc__rows_view)
   moved L2 -> L1, the cores compute it (the kernel's fn_band), the output
   band moved back; two input and two output buffers, so the next band's
   input moves while the cores compute (double buffering); weights and bias
   moved once. Offsets are in the L1 area, shared by all tiled layers. */
typedef struct ClusterTile {
    int rows, ntiles;
    int64_t in_buf, out_buf;            /* one input / output band buffer (the largest band) */
    int64_t w_bytes, b_bytes;           /* weights, bias moved into L1 once */
    int64_t q_bytes;                    /* a dense conv's requantization records (Op.xq2), into L1 once */
    int64_t off_in[2], off_out[2], off_w, off_b, off_q;
    int64_t l1_bytes;                   /* all of the layer's L1 buffers */
    int64_t dma_bytes;                  /* moved for the whole layer */
    double compute_cycles, dma_cycles, est_cycles;
    int candidates;                     /* band heights that fit (exhaustive search) */
} ClusterTile;

typedef enum { SRC_TFLITE, SRC_ONNX } SourceFormat;

typedef struct {
    const char *path;           /* model file */
    SourceFormat format;
    int ntensors, nops;
    Tensor *tensors;
    Op *ops;                    /* in execution order */
    int ninputs, noutputs;
    int *inputs, *outputs;      /* graph inputs / outputs (tensor indices), no fixed count */
    uint32_t hash;              /* FNV-1a of the model bytes */
    int ncascades;
    struct Cascade *cascades;   /* cascade.c */
    int nnotes;
    const char **notes;         /* "htc: note: ..." lines, printed once the model has compiled */
} Graph;

/* ---- cascade.c: consecutive layers executed band by band -------------------

   Ops first..last run interleaved, one band of `band` output rows of op
   `last` per step; every tensor produced and consumed inside (an internal
   tensor) lives in a band buffer of Tensor.band_rows rows that keeps the
   rows its consumers still need (the halo) from one step to the next, so
   no row is computed twice. The step table gives, per step, each op's
   output rows [a, b), each row-mapped input's rows [lo, hi), and per band
   buffer the absolute row at its start and the rows moved to its front. */
typedef struct Cascade {
    int first, last;            /* op range in execution order */
    int band;                   /* output rows of op `last` per step */
    int nsteps, ncols;
    int32_t *tab;               /* [nsteps][ncols] */
    int *col_op;                /* [last - first + 1]: column of op's a (b follows), then its inputs' lo, hi */
    int nbuf;                   /* band buffers (internal tensors) */
    int *buf;                   /* [nbuf] tensor indices */
    int *col_buf;               /* [nbuf]: columns origin, move-from, move-rows */
    int64_t ram_before, ram_after;   /* modelled peak live bytes over first..last: layer by layer, cascaded */
    int64_t moved_bytes;        /* halo rows moved per inference */
    int64_t extra_macs;         /* MACs beyond the layer-by-layer count (0: no row is recomputed) */
    int64_t calls;              /* kernel calls per inference (layer by layer: last - first + 1) */
    double overhead_cycles;     /* modelled: moves and per-call set-up */
} Cascade;

typedef struct {
    int minimise_ram;           /* --cascade: the least peak RAM within max_overhead */
    int64_t ram_limit;          /* --ram-limit BYTES: the least overhead within this peak (0: none) */
    double max_overhead;        /* --max-overhead PCT: modelled overhead bound, fraction of the estimate */
    int fit_memory;             /* ram_limit is the memory's size: when cascades cannot meet it, the
                                   least peak they reach (plan_check then names the shortfall) */
    int off;                    /* --no-cascade: layer by layer, whatever the memories */
} CascadeOptions;

/* The tensor whose storage t uses (t itself unless an alias) and, in *off,
   t's byte offset inside it. */
int tensor_root(const Graph *g, int t, int64_t *off);

/* A 1x1, stride-1, unpadded convolution whose output has its input's size:
   the cluster kernels divide it by pixels, not rows. */
int op_pointwise(const Op *op);
/* Input rows [*iy0, *iy0 + *ih) that output rows [y0, y1) of a
   convolution or pooling read (htc.h htc__rows_view, the same arithmetic). */
void op_rows_view(const Op *op, int y0, int y1, int *iy0, int *ih);
/* The largest |bias| of op (0 without constant int32 biases in input 2). */
int64_t op_bias_absmax(const Graph *g, const Op *op);

/* Append helpers for front ends; return the new index. Arrays grow. */
int graph_add_tensor(Graph *g);
/* A new tensor named `name` (copied) of the given type and shape, its
   src_index its own index; graph_const_tensor also gives it a copy of the
   nbytes of data. */
int graph_new_tensor(Graph *g, const char *name, DType type, int rank, const int32_t *shape);
int graph_const_tensor(Graph *g, const char *name, DType type, int rank, const int32_t *shape, const void *data,
                       size_t nbytes);
int graph_add_op(Graph *g);
/* Append tensor t to the graph inputs / outputs (sets its is_input / is_output). */
void graph_add_input(Graph *g, int t);
void graph_add_output(Graph *g, int t);

/* ---- target (gen/target*.c are the only files that see Lua) -------------- */

typedef struct {
    const char *name;
    int64_t size;
    int alignment;
    double dma_bytes_per_cycle;
    int dma_setup;
    double cost;                /* cost of one byte read or written by the CPU (1 unless stated) */
    /* energy = { pj_per_byte, static_mw }, dma = { ..., pj_per_byte } (gen/energy.c) */
    int has_energy;
    double pj_per_byte;         /* a byte read or written in it */
    double static_mw;           /* leakage, the whole inference */
    double dma_pj_per_byte;     /* the DMA engine, per byte it moves into or out of it */
    /* banks = { count, access }: cores sharing it contend for its banks
       (bank_contention), 0: no contention stated */
    int banks;
    double bank_access;         /* the fraction of a core's cycles that access it */
} Memory;

/* Instruction-set extensions with fast paths in htc.h and the kernels
   (the cpu's `isa` list): a header keeps the paths of those its target
   names, and the portable C always. */
enum { ISA_X86 = 1, ISA_ARM_DSP = 2, ISA_MVE = 4, ISA_XPULPV2 = 8, ISA_ALL = 15 };

/* A CPU may spread its arena over this many data memories. */
#define MAX_DATA_MEMORIES 8

/* The arithmetic an engine (or one of its ops) reproduces exactly. */
typedef struct {
    int n;
    RequantKind kinds[RQ_COUNT];
    int shift_rounds;           /* roundings of its shift kind: bit ROUND_* ("shift", "shift:tflite") */
} RequantSet;

typedef struct {
    OpKind kind;
    int has_requant;            /* the op states its own requant list (else the engine's) */
    RequantSet requant;
    const char *template_file;  /* accelerator op: C template for the layer (templates/...) */
    int has_tile;               /* tile = function(t, op) present */
    int double_buffer;
    int partial_sums;           /* conv2d/fc: C may be tiled, int32 partial sums kept in the engine */
    double macs_per_cycle;      /* peak rate, for the ideal */
    const char *kernel_file;    /* path of the C source pasted into the header */
    const char *kernel_fn;      /* function name the emitter calls */
    double cycles_per_mac;      /* cost model for the estimate */
    double cycles_per_elem;     /* for ops without MACs */
    int cost_fn;                /* cycles_per_mac / _elem is a function(op) (bit 1 / bit 2) */
    int has_cycles;             /* the cpu's cycles = function(op, share) (target_call_cycles) */
    double fork_cycles;         /* the cpu's op: its fork/join on the cores (fork = ...), or -1: cpu.fork */
    int fork_fn;                /* fork = function(op) (target_fork) */
    int has_accepts;            /* Lua predicate present (called by target_accepts) */
} EngineOp;

typedef struct {
    const char *name;
    int is_cpu;
    RequantSet requant;
    int nops;
    EngineOp *ops;
    int act_memory;             /* index into Target.memories */
    int ndata;                  /* the CPU: its data memories (memory = { "SRAM", "PSRAM" }), fastest first */
    int data_memories[MAX_DATA_MEMORIES];   /* indices into Target.memories; [0] is act_memory */
    int weight_memory;          /* accelerators: index of the weight memory, or -1 */
    int out_memory;             /* accelerators: the output tiles' own memory (`outputs`), or -1 */
    int startup;                /* cycles to start one engine invocation */
    int rows, cols;             /* array = { rows, cols }: the PE array (0: none stated) */
    const char *description;
    int ndevice;                /* device = { NAME = number }: constants of the device model */
    const char **device_names;
    double *device_values;
    /* the CPU as a cluster (cpu = { cores = N, l1 = "L1", split = function(op), fork = cycles }) */
    int cores;                  /* identical cores running each parallel layer (1: one core) */
    int l1_memory;              /* the cluster's local memory (index into Target.memories), or -1 */
    int has_split;              /* split = function(op) present (target_split) */
    int has_band;               /* band = function(b, op) present (target_band) */
    double fork_cycles;         /* cycles of one fork/join (HTC_PAR_RUN) */
    double overhead_cycles;     /* every layer's cycles beyond its kernel's calls (cpu.overhead) */
    double call_cycles;         /* one inference's call of the run function beyond its layers (cpu.call) */
    unsigned isa;               /* the CPU: its instruction sets (ISA_*, cpu.isa; ISA_ALL when not stated) */
    int requant_records;        /* cpu.requant_records: the XpulpV2 requantization records (dispatch.c xq2); 2: depthwise only;
                                   3: depthwise, and dense ones in L1 bands (tile.c) */
    /* energy = { pj_per_mac, pj_per_elem, pj_per_cycle, static_mw } (gen/energy.c) */
    int has_energy;
    double pj_per_mac;          /* a MAC of its layers */
    double pj_per_elem;         /* an output element of its layers without MACs */
    double pj_per_cycle;        /* a cycle it computes (per core of a cluster) */
    double static_mw;           /* leakage and idle clock, the whole inference */
} Engine;

/* param "name" { default = v, values = {...} or min/max, description = "..." }
   in a target file: a value the user may set with -D name=value. */
typedef struct {
    const char *name;
    const char *value;          /* the value in use, as text */
    const char *dflt;           /* the default, as text */
    const char *allowed;        /* "64, 128", "16..1024" or "any number", for help */
    const char *description;
    int line;                   /* where it is declared: this line */
    const char *file;           /* of this file (the target's, or an included one) */
    int set;                    /* given with -D */
} TargetParam;

typedef struct {
    const char *path;
    const char *dir;            /* directory of the target file */
    const char *name;
    const char *description;
    int nparams;
    TargetParam *params;
    double clock_mhz;
    int nmemories, nengines;
    Memory *memories;
    Engine *engines;            /* engines[0] is the CPU */
    int has_dispatch;
    int has_energy;             /* an engine or a memory declares energy */
} Target;

/* -D NAME=VALUE on the command line: the target parameters to set (a
   target that declares no such parameter is an error in target_load). */
#define TARGET_MAX_DEFINES 32
typedef struct {
    int n;
    const char *name[TARGET_MAX_DEFINES], *value[TARGET_MAX_DEFINES];
} TargetDefines;
void target_define(TargetDefines *d, const char *name_value);
Target *target_load(const char *path, const TargetDefines *d);
/* htc targets FILE / --help-target: the target, its engines and parameters. */
void target_describe(FILE *f, const Target *t);
/* Does engine e accept op? Runs the target's predicate if it has one;
   *why gets a short reason for a refusal. */
int target_accepts(Target *t, int engine, const Graph *g, const Op *op, const char **why);
/* The target's dispatch function picks among candidates (engine indices);
   returns the chosen index and a reason. Without one: the first. */
/* the target's dispatch reads a fourth argument (dma): worth a trial tiling */
int target_dispatch_wants_dma(Target *t);
int target_dispatch(Target *t, const Graph *g, const Op *op, const int *cand, int ncand, const double *est,
                    const int64_t *dma, const char **reason);
void target_close(Target *t);
/* The engine's cost of op: cycles per MAC and per output element. */
void target_cost(Target *t, int engine, const Graph *g, const Op *op, double *per_mac, double *per_elem);
/* htc's own CPU kernel for op, chosen by op kind, requant kind and
   attributes (one table, gen/cpu_kernels.c); 0 when htc has none. */
int cpu_kernel(const Op *op, const char **file, const char **fn);
/* Multi-core: the splits (bit 1 << SPLIT_*) the kernel function fn with
   its variant suffix has a parallel entry point fn<variant>_par for; 0: it
   runs on one core. */
enum { SPLIT_ROWS, SPLIT_CHANNELS, SPLIT_COUNT };
#define SPLIT_BAND (1 << 8)     /* also fn<variant>_band: bands of output rows (L1 tiles) */
int cpu_kernel_splits(const char *fn, const char *variant);
extern const char *const split_names[SPLIT_COUNT];
/* The target's split function for op on the CPU cluster: SPLIT_*, -1
   (nil, or no function: the default) or SPLIT_NONE ("none": one core). */
#define SPLIT_NONE (-3)
int target_split(Target *t, const Graph *g, const Op *op);
/* dispatch.c: the slowdown of `cores` cores computing from memory m at
   once, from its banks (1: none stated, or one core) */
double bank_contention(const Memory *m, int cores);
/* cpu.band(b, op) on one band height that fits the L1 (ct): 1 with *obj
   (to minimise: a maximize is negated) and *tie (the least wins among
   equal objectives) when its constraints hold, 0 when one excludes it. */
int target_band(Target *t, const Graph *g, const Op *op, const struct ClusterTile *ct, double *obj, double *tie);
/* One core's call of a CPU kernel: its share of the output as rows x cols
   x channels (convolution and pooling: image rows, columns, channels; a
   pointwise convolution divided by pixels: 1 x pixels; other ops: every
   dimension but the last x 1 x the last), the input rows it reads, tile =
   1 when it computes from the cluster's L1 tiles, cores = the layer's,
   core = which core (0..cores-1: a target whose kernel divides some layer
   otherwise can tell its share). */
typedef struct {
    int64_t rows, cols, channels, in_rows;
    int tile, cores, core;
} CallShare;
/* The cpu op's cycles = function(op, share) for that call: 1 and *cycles,
   or 0 when the target gives none or it returns nil (the per-MAC /
   per-element costs). */
int target_call_cycles(Target *t, const Graph *g, const Op *op, const CallShare *s, double *cycles);
/* dispatch.c: the cycles of op's slowest core computing output rows
   [y0, y1) (tile: from L1 tiles) with the op's split; -1 without a
   cycles function. */
double cpu_share_cycles(Target *t, const Graph *g, const Op *op, int y0, int y1, int tile);
double cpu_fork_cycles(const Target *t, const Op *op);
/* The fork/join of op over a cluster's cores: its op entry's fork (a
   number, or a function(op) returning one), else cpu.fork. */
double target_fork(Target *t, const Graph *g, const Op *op);

/* Tiling expressions (the target's tile function builds them in Lua). */
typedef enum { EX_CONST, EX_VAR, EX_ADD, EX_SUB, EX_MUL, EX_MOD, EX_NEG, EX_MIN, EX_MAX,
               EX_DIV, EX_CDIV,     /* a / b and ceil(a / b) by an expression b > 0 */
               EX_LE, EX_GE, EX_EQ } ExprKind;
typedef struct Expr {
    ExprKind kind;
    double v;                   /* EX_CONST */
    int var;                    /* EX_VAR: TD_* */
    struct Expr *a, *b;
} Expr;
typedef struct {
    Expr *maximize;             /* objective */
    int minimize;               /* the objective is minimised (tile returned `minimize`) */
    Expr *dma_cycles;           /* DMA cycles of one tile as the target states them, or NULL (the core's model) */
    Expr *w_dma_cycles;         /* DMA cycles of one K tile's weights, or NULL (the core's model) */
    Expr *cycles;               /* estimated cycles of one tile (vars = the tile's actual sizes) */
    Expr *l1_bytes, *w_bytes;   /* memory use of one tile (capacity constraints) */
    Expr *out_bytes;            /* the output tiles in the engine's `outputs` memory, or NULL */
    int ncons;
    Expr **cons;                /* EX_LE / EX_GE / EX_EQ */
    Expr *tie_break;            /* among equal objectives the least wins (default: t.tiles) */
    int derived;                /* the objective, a constraint or tie_break uses t.dma_bytes / t.tiles */
    int tied_c;                 /* depthwise: C is K */
    double macs_per_cycle;      /* this layer's peak rate (0: the op's macs_per_cycle) */
    const char *where;          /* "file:line: engine.ops.kind.tile", for messages */
    const char *where_obj, *where_cycles, *where_l1, *where_w, *where_out, *where_cons, *where_tie;   /* the same at each field's line */
    Expr *core_l1, *core_w;     /* the core's own sizes (t.l1_bytes, t.w_bytes) */
} TileSpec;
/* Calls engines[e].ops[kind].tile(t, op) with the layer geometry. */
TileSpec *target_tile_spec(Target *t, int engine, const Graph *g, const Op *op, const TileInfo *geo);
/* The engine op's `constants` function, if it has one: its arrays into
   ti->consts; `w` replaces ti->wlayout, `b` ti->bias. */
void target_constants(Target *t, int engine, const Graph *g, const Op *op, TileInfo *ti);
void tile(Graph *g, Target *t);                 /* tile.c */
/* dispatch: op's DMA bytes on its engine as tile() would count them (the
   accelerator's tiling, the cluster's L1 bands, else 0); -1: none fits */
int64_t tile_trial_dma(Graph *g, Target *t, Op *op);
double expr_eval(const Expr *e, const double *vars);
const EngineOp *engine_op(const Engine *e, OpKind k);

/* Resolve a path named in a target file: relative to the target's directory,
   then $HTC_HOME, then the install data directory. Dies when not found. */
const char *target_resolve(const Target *t, const char *path);

/* ---- passes: one file each, in pipeline order --------------------------- */

/* The readers' options (gen/readopt.c parses them from the command line). */
typedef struct {
    const char *name;
    int rank;
    int64_t dim[MAX_RANK];
} InputShape;
typedef struct {
    const char *name, *file;
} InputBinding;
typedef struct {
    int nshapes, capshapes;
    InputShape *shapes;         /* --shape NAME=DxDx...: graph input NAME's shape (symbolic dimensions) */
    int nbinds;
    InputBinding *binds;        /* --bind NAME=FILE (ONNX): graph input NAME is a constant read from FILE (raw
                                   little-endian bytes of the input's type and shape, or a TensorProto .pb) */
    int float_fallback;         /* ONNX: QDQ groups onnxruntime computes in float are computed in float (as
                                   onnxruntime does, a note each) unless -1 (--no-float-fallback: refused);
                                   0 (the default) and 1 (--float-fallback) compute them */
} ReadOptions;
void readopt_shape(ReadOptions *o, const char *name_dims);      /* readopt.c */
void readopt_bind(ReadOptions *o, const char *name_file);
/* While reading a model: the --shape given for graph input name, or NULL;
   used[i] (one per shape, zeroed by the reader) marks it as taken. */
const int64_t *readopt_shape_of(const ReadOptions *o, char *used, const char *name, int *rank);
/* After reading: a --shape naming no graph input of model is an error. */
void readopt_shapes_check(const ReadOptions *o, const char *used, const char *model);
Graph *tflite_read(const char *path, const ReadOptions *o);     /* tflite.c */
Graph *onnx_read(const char *path, const ReadOptions *o);       /* onnx.c */
/* A one-line "htc: note: ..." about the model, printed once it has compiled
   (an error stays the only line when compiling fails). */
void graph_note(Graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* After onnx_read: NULL, or a note that the model multiplies uint8
   activations by int8 weights (onnxruntime's answer depends on the CPU). */
const char *onnx_u8s8_note(void);
/* qlib.c: QuantLib's integer form (float tensors holding integers,
   RequantShift, ...): does the decoded ONNX graph (an Onnx__GraphProto) have
   it, and its IR (called by onnx_read). */
int qlib_is_form(const void *graph);
Graph *qlib_read(Graph *g, const void *graph, const char *path);
void lower(Graph *g);                           /* lower.c */
/* Groups layers into cascades (gen/cascade.c), on the storage and order
   of a layer-by-layer plan (plan_try); plan again afterwards. */
void cascade(Graph *g, Target *t, const CascadeOptions *o);
void dispatch(Graph *g, Target *t);             /* dispatch.c */
void dispatch_drop_records(const Graph *g, Target *t, Op *op);  /* dispatch.c: a dense layer's xq2 off */
typedef struct {
    int64_t arena_size;         /* bytes, a multiple of the alignment */
    int64_t lower_bound;        /* max over steps of live bytes */
    int64_t greedy_size;        /* greedy-by-size result, for comparison */
    int alignment;
    int memory;                 /* memory index holding the arena */
    const char *method;         /* how the offsets were found, for the report */
    double solve_ms;            /* time spent in the MILP */
    double total_ms;            /* time spent planning, MILP included */
    int ninplace;               /* element-wise ops computed in place */
    int reordered;              /* ops run in a memory-aware order, not the model's */
    int64_t original_bound;     /* the lower bound in the model's own order */
    int64_t per_layer_bound;    /* cascades: the layer-by-layer lower bound they improve on (else 0) */
    /* the arenas: one, or one per data memory of the CPU (target order);
       with several, arena_size / lower_bound / greedy_size are totals */
    int narenas;
    struct {
        int memory;             /* index into Target.memories */
        int alignment;
        int64_t size, lower_bound, greedy_size;
        int nbuf;
        int64_t accessed;       /* bytes read and written in it (the access model) */
        const char *method;
    } arenas[MAX_DATA_MEMORIES];
    double access_cost;         /* several memories: sum of bytes accessed x the memory's cost */
    double access_bound;        /* a lower bound of it (the placement relaxed to live bytes per memory) */
    double access_fast;         /* every buffer in the cheapest memory (if it were large enough) */
    const char *place_method;   /* how the buffers were placed */
    const char *cascade_note;   /* several memories: cascades tried against spilling, and the outcome */
    int nstack;                 /* stacks measured with --stack-cc */
    const char *stack_cc[4];
    int64_t stack_bytes[4];     /* the calling core's (core 0's) stack, a layer function's share included */
    int64_t stack_core[4];      /* each other core's: the deepest layer function (0: none forked) */
    int64_t code_bytes[4], const_bytes[4], data_bytes[4];   /* the object's flash (-1: not ELF) */
} Plan;
Plan *plan(Graph *g, Target *t);                /* plan.c */
/* plan() without the check that the arena fits the memory (plan_check). */
Plan *plan_try(Graph *g, Target *t);
/* The plan, layer by layer or with cascades (when asked for, when the
   layer-by-layer arena does not fit, or when it spills to a costlier data
   memory and cascades save more than they cost). */
Plan *cascade_plan(Graph *g, Target *t, const CascadeOptions *o);
void plan_check(const Graph *g, const Target *t, const Plan *p);
/* Does every arena fit its memory? */
int plan_fits(const Target *t, const Plan *p);
/* Bytes of t's buffer: the whole tensor, or its band buffer in a cascade. */
int64_t buffer_bytes(const Tensor *t);
int sweep_main(int argc, char **argv);         /* sweep.c: htc sweep */

/* ---- energy.c: energy per layer and per inference from the target's
   energy figures (Engine / Memory energy fields), in pJ ------------------- */
typedef struct {
    int nops, nengines, nmemories;
    /* per layer: compute (MACs, elements, busy cycles), memory (bytes
       accessed, DMA), static (every engine's and memory's leakage for the
       layer's time); fixed + per_cycle * cycles = the layer's total */
    double *compute, *memory, *stat, *total, *fixed, *per_cycle;
    double *engine_compute;     /* [nengines]: compute of the layers each runs */
    double *engine_static;      /* [nengines] */
    double *memory_access;      /* [nmemories]: bytes accessed + DMA */
    double *memory_static;      /* [nmemories] */
    double sum_compute, sum_memory, sum_static, sum_total;
    double static_per_cycle;    /* every engine's and memory's static power, pJ a cycle */
} Energy;
/* cycles: each layer's cycles (htc run's measured), or NULL: Op.est_cycles.
   NULL when the target declares no energy. */
Energy *energy_model(const Graph *g, const Target *t, const Plan *p, const double *cycles);
/* htc run's driver: print_energy() (measured: from its cyc[] per layer) */
void energy_driver(FILE *f, const Graph *g, const Target *t, const Plan *p, int measured);
int verify_main(int argc, char **argv);        /* verify.c: htc verify */
typedef struct {
    const char *name;           /* C identifier prefix (no command line: the header is reproducible) */
    const char *path;           /* the header's file (NULL: no #line directives around templates;
                                   else they name the header NAME.h) */
    const char *blob;           /* NULL (compile), or htc run / verify's build: the constant tensors'
                                   bytes written to this file, the header reading them by .incbin */
    int host;                   /* htc run / verify: compiled here by cc, so the x86 paths kept too */
} EmitOptions;
void emit(FILE *f, Graph *g, Target *t, Plan *p, const EmitOptions *o);   /* emit.c */
/* prune.c: the runtime files a header pastes (htc.h, kernels), cut to the
   top-level definitions the generated code reaches */
typedef struct PruneFile PruneFile;
void prune_reset(unsigned isa);     /* the instruction sets whose paths the files keep (ISA_*) */
PruneFile *prune_add(const char *path, const char *src, size_t len);
void prune_roots(const char *text, size_t len);   /* identifiers the generated code uses */
void prune_write(FILE *out, const PruneFile *f);
void report_print(FILE *f, Graph *g, Target *t, Plan *p, int json);             /* report.c */
void report_svg(FILE *f, Graph *g, Target *t, Plan *p);
/* Deepest stack below name_run when the header is compiled by `cc` (a
   compiler with flags), from -fstack-usage and -fcallgraph-info. */
/* The Lua files the target file included (paths as found, in order), for
   --depfile. */
int target_includes(const char *const **paths);
void stack_measure(Graph *g, Target *t, Plan *p, const EmitOptions *eo, int k);   /* stack.c: p->stack_cc[k]'s figures */
void dump_graph(FILE *f, const Graph *g, const char *after);             /* dump.c */

/* pipeline.c: the one pipeline of compile, report, run, verify and sweep */
typedef struct {
    const char *model, *target;     /* the files */
    ReadOptions read;               /* --shape, --bind, --float-fallback */
    Graph *graph;                   /* the model already read and lowered (sweep: once per model), or NULL */
    const TargetDefines *defines;   /* -D NAME=VALUE, or NULL */
    const char *debug;              /* -d PASS: the graph after it, on stderr */
    CascadeOptions cascade;         /* --cascade, --ram-limit, --max-overhead, --no-cascade */
    int nstack;                     /* --stack-cc: compilers whose stack of name_run is measured */
    const char *stack_cc[4];
    EmitOptions emit;               /* the header: its name, and its file when one is written (emit.path) */
    int write_header;               /* compile: write it to emit.path */
} PipelineOptions;
#define PIPELINE_OPTIONS {.cascade = {.max_overhead = 0.05}}
/* Pick the front end by content, not by file name. */
Graph *read_model(const char *path, const ReadOptions *o);
/* read -> lower -> dispatch -> tile -> plan / cascades -> stack -> emit;
   *g and *t get the graph and the target. */
Plan *pipeline(const PipelineOptions *o, Graph **g, Target **t);

#endif
