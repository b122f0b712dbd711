/* fuzz_tflite.c - libFuzzer target for the TFLite reader (gen/tflite.c); with
   -DSTANDALONE, a tool that reads models and prints their tensors and ops. */

/* Links gen/tflite.c and gen/util.c, the latter compiled with
   -Ddie=util_die -Dread_file=util_read_file so that this file supplies both:
   read_file() returns the fuzz input, die() checks the message and longjmps
   back. A successful read is checked against the IR's invariants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gen/ir.h"

static const uint8_t *input;
static size_t input_len;
static jmp_buf on_die;
static int verbose;
static char last_error[1024];

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

/* The reader's error exit: the message must be one line that names the
   model first (the htc contract), then back to the fuzz loop. */
void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    CHECK(strchr(last_error, '\n') == NULL);
    CHECK(strncmp(last_error, "fuzz.tflite: ", 13) == 0 || verbose);
    if (verbose) fprintf(stderr, "htc: error: %s\n", last_error);
    longjmp(on_die, 1);
}

/* The model bytes, in arena memory as util.c's read_file gives them. */
uint8_t *read_file(const char *path, size_t *len)
{
    (void)path;
    uint8_t *p = arena_alloc(input_len + 1);
    if (input_len) memcpy(p, input, input_len);
    *len = input_len;
    return p;
}

/* What every pass after the reader relies on. */
static void check_graph(const Graph *g)
{
    CHECK(g->format == SRC_TFLITE);
    CHECK(g->ntensors >= 0 && g->nops >= 0);
    CHECK(g->ninputs >= 0 && g->ninputs <= g->ntensors);
    CHECK(g->noutputs >= 1 && g->noutputs <= g->ntensors);
    for (int i = 0; i < g->ninputs; i++) {
        CHECK(g->inputs[i] >= 0 && g->inputs[i] < g->ntensors);
        CHECK(g->tensors[g->inputs[i]].is_input == i + 1);
    }
    for (int i = 0; i < g->noutputs; i++) {
        CHECK(g->outputs[i] >= 0 && g->outputs[i] < g->ntensors);
        CHECK(g->tensors[g->outputs[i]].is_output == i + 1);
    }
    for (int i = 0; i < g->ntensors; i++) {
        const Tensor *t = &g->tensors[i];
        CHECK(t->src_index == i);
        CHECK(t->name != NULL);
        for (const char *c = t->name; *c; c++) CHECK(*c >= 0x20 && *c <= 0x7e);
        CHECK(t->type >= DT_INT8 && t->type <= DT_UINT64);
        CHECK(t->rank >= 0 && t->rank <= MAX_RANK);
        for (int d = 0; d < t->rank; d++) CHECK(t->shape[d] >= 0);
        CHECK(tensor_numel(t) <= INT32_MAX);
        if (t->data) {
            CHECK(t->nbytes == tensor_bytes(t) && t->nbytes > 0);
            CHECK((uintptr_t)t->data % dtype_size(t->type) == 0);
            volatile uint8_t sum = 0;                   /* ASan: all of it readable */
            for (size_t k = 0; k < t->nbytes; k++) sum ^= t->data[k];
            (void)sum;
        } else {
            CHECK(t->nbytes == 0);
        }
        CHECK(t->q.n >= 0);
        if (t->q.n) {
            CHECK(t->q.scale && t->q.zero_point);
            /* quantized_dimension is kept as stored (gen/tflite.c read_quant:
               TFLite Micro reads it only for a convolution's or fully
               connected layer's filter, where gen/lower.c checks it): any
               value, in range or not, is the reader's correct answer */
            if (t->q.n > 1 && t->q.axis >= 0 && t->q.axis < t->rank) (void)t->shape[t->q.axis];
            for (int k = 0; k < t->q.n; k++) CHECK(t->q.scale[k] >= 0 && t->q.scale[k] <= 3.4028235e38f);
        }
    }
    for (int i = 0; i < g->nops; i++) {
        const Op *op = &g->ops[i];
        CHECK(op->kind >= 0 && op->kind < OP_COUNT);
        /* source order; shape arithmetic folded away, SPLIT-like ops one op per output */
        CHECK(op->src_index >= (i ? g->ops[i - 1].src_index : 0) && op->src_name);
        /* recurrent ops: the result, then the state they own (LSTM: hidden, cell; SVDF: activation);
           signal ops: FFT auto scale's scale bits, spectral subtraction's noise estimate */
        CHECK(op->nin >= 1 && op->nin <= OP_MAX_IO &&
              op->nout == (op->kind == OP_LSTM ? 3
                           : op->kind == OP_SVDF || op->kind == OP_FFT_AUTOSCALE || op->kind == OP_SPECTRAL_SUB ? 2 : 1));
        for (int k = 1; k < op->nout; k++) CHECK(op->out[k] >= 0 && !g->tensors[op->out[k]].data);
        CHECK(op->in[0] >= 0);
        for (int k = 0; k < OP_MAX_IO; k++) {
            CHECK(op->in[k] >= -1 && op->in[k] < g->ntensors);
            CHECK(op->out[k] >= -1 && op->out[k] < g->ntensors);
            if (k >= op->nin) CHECK(op->in[k] == -1);
            if (k >= op->nout) CHECK(op->out[k] == -1);
        }
        CHECK(op->out[0] >= 0);
        switch (op->kind) {
        case OP_CONV2D: case OP_FC:
            CHECK(op->nin >= 2 && op->in[1] >= 0);
            break;
        case OP_RESHAPE:
            CHECK(op->nin == 1);
            break;
        case OP_SLICE:
            for (int k = 0; k < g->tensors[op->in[0]].rank; k++) CHECK(op->count[k] >= 0 && op->step[k] != 0);
            break;
        case OP_MEAN: case OP_SUM: case OP_REDUCE_MAX: case OP_REDUCE_MIN:
            CHECK(op->naxes >= 0 && op->naxes <= MAX_RANK);
            for (int k = 0; k < op->naxes; k++)
                CHECK(op->axes[k] >= 0 && op->axes[k] < g->tensors[op->in[0]].rank);
            break;
        case OP_CONCAT:
            CHECK(op->axis >= 0 && op->axis < g->tensors[op->out[0]].rank);
            break;
        case OP_SOFTMAX:
            CHECK(op->axis == g->tensors[op->in[0]].rank - 1 && op->axis >= 0);
            break;
        default:
            break;
        }
        if (op->kind == OP_CONV2D || op->kind == OP_AVGPOOL || op->kind == OP_MAXPOOL)
            CHECK(op->stride_h >= 1 && op->stride_w >= 1);
        if (op->kind == OP_AVGPOOL || op->kind == OP_MAXPOOL) CHECK(op->k_h >= 1 && op->k_w >= 1);
        if (op->kind == OP_CONV2D) CHECK(op->dil_h >= 1 && op->dil_w >= 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input = data;
    input_len = size;
    if (!setjmp(on_die)) check_graph(tflite_read("fuzz.tflite", &(ReadOptions){0}));
    arena_free_all();
    return 0;
}

#ifdef STANDALONE
/* Print a model the way tests/fuzz/ref.py prints the TFLite interpreter's
   view, so the two can be diffed. Exit status 1 if any model failed. */
static void print_graph(const Graph *g)
{
    static const char *dn[] = {"int8", "uint8", "int16", "int32", "int64", "float32", "bool"};
    printf("tensors %d\n", g->ntensors);
    for (int i = 0; i < g->ntensors; i++) {
        const Tensor *t = &g->tensors[i];
        printf("T %d %s %s [", i, t->name, dn[t->type]);
        for (int d = 0; d < t->rank; d++) printf("%s%d", d ? "," : "", t->shape[d]);
        printf("] q=%d axis=%d s0=%.9g z0=%lld\n", t->q.n, t->q.n > 1 ? t->q.axis : 0,
               t->q.n ? (double)t->q.scale[0] : 0.0, t->q.n ? (long long)t->q.zero_point[0] : 0LL);
    }
    printf("ops %d\n", g->nops);
    for (int i = 0; i < g->nops; i++) {
        const Op *o = &g->ops[i];
        printf("O %d %s in=", i, o->src_name);
        for (int k = 0; k < o->nin; k++) printf("%s%d", k ? "," : "", o->in[k]);
        printf(" out=");
        for (int k = 0; k < o->nout; k++) printf("%s%d", k ? "," : "", o->out[k]);
        printf("\n");
    }
    printf("inputs");
    for (int i = 0; i < g->ninputs; i++) printf("%s%d", i ? "," : " ", g->inputs[i]);
    printf("\noutputs");
    for (int i = 0; i < g->noutputs; i++) printf("%s%d", i ? "," : " ", g->outputs[i]);
    printf("\n");
}

/* Attributes the interpreter listing does not show. */
static void print_attrs(const Graph *g)
{
    for (int i = 0; i < g->nops; i++) {
        const Op *o = &g->ops[i];
        printf("A %d %s act=%d pad=%d stride=%d,%d dil=%d,%d k=%d,%d dm=%d axis=%d beta=%g keep=%d axes=%d",
               i, op_name(o->kind), o->act, o->padding, o->stride_h, o->stride_w, o->dil_h, o->dil_w,
               o->k_h, o->k_w, o->depth_mult, o->axis, (double)o->beta, o->keep_dims, o->naxes);
        for (int k = 0; k < o->naxes; k++) printf("%s%d", k ? "," : ":", o->axes[k]);
        printf("\n");
    }
    for (int i = 0; i < g->ntensors; i++) {
        const Tensor *t = &g->tensors[i];
        uint32_t h = 2166136261u;
        for (size_t k = 0; k < t->nbytes; k++) h = (h ^ t->data[k]) * 16777619u;
        if (t->data) printf("D %d %zu %08x\n", i, t->nbytes, (unsigned)h);
    }
    printf("hash %08x\n", (unsigned)g->hash);
}

int main(int argc, char **argv)
{
    static int bad, attrs, i;              /* static: kept across longjmp */
    verbose = 1;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-a")) {
            attrs = 1;
            continue;
        }
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            bad = 1;
            continue;
        }
        static uint8_t buf[64 << 20];
        input_len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        input = buf;
        if (!setjmp(on_die)) {
            Graph *g = tflite_read(argv[i]);
            check_graph(g);
            print_graph(g);
            if (attrs) print_attrs(g);
        } else {
            bad = 1;
        }
        arena_free_all();
    }
    return bad;
}
#endif
