/* fuzz_onnx.c - libFuzzer target for the ONNX reader (gen/onnx.c: wire_check,
   protobuf-c, every check after it). Links gen/onnx.c, the generated
   protobuf-c code and gen/util.c compiled with -Ddie=util_die
   -Dread_file=util_read_file so that this file supplies both: read_file()
   returns the fuzz input, die() checks the message (one line, naming the
   model) and longjmps back. A model that reads is lowered too. Memory that
   a longjmp skips (the decoded protobuf) is not freed: run with
   -detect_leaks=0.
   Built with -DFUZZ_QLIB it is the target for QuantLib's integer graphs
   (gen/qlib.c through gen/onnx.c; tests/onnx/fuzz_qlib.sh seeds it with
   Deeploy's networks and tests/onnx/qlib.dict) and checks more: every
   tensor of a graph that reads holds within the per-tensor limits (2^30
   elements, 2^31 - 1 bytes, no negative dimension) and every windowed op
   has strides and dilations >= 1 and an output of at least one row. */
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
static char last_error[1024];

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    CHECK(strchr(last_error, '\n') == NULL);
    CHECK(strncmp(last_error, "fuzz.onnx: ", 11) == 0);
    longjmp(on_die, 1);
}

uint8_t *read_file(const char *path, size_t *len)
{
    (void)path;
    uint8_t *p = arena_alloc(input_len + 1);
    if (input_len) memcpy(p, input, input_len);
    *len = input_len;
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input = data;
    input_len = size;
    if (!setjmp(on_die)) {
        Graph *g = onnx_read("fuzz.onnx", &(ReadOptions){0});
#ifdef FUZZ_QLIB
        CHECK(g->format == SRC_ONNX && g->noutputs >= 1);      /* no cap on graph outputs */
#else
        CHECK(g->format == SRC_ONNX && g->noutputs >= 1 && g->noutputs <= OP_MAX_IO);
#endif
        for (int i = 0; i < g->ntensors; i++) {
            const Tensor *t = &g->tensors[i];
            CHECK(t->rank >= 0 && t->rank <= MAX_RANK);
#ifdef FUZZ_QLIB
            int64_t n = 1;
            for (int d = 0; d < t->rank; d++) {
                CHECK(t->shape[d] >= 0);
                n *= t->shape[d];
                CHECK(n <= ((int64_t)1 << 30));
            }
            CHECK(n * (int64_t)dtype_size(t->type) <= INT32_MAX);
#endif
            if (t->data) {
                volatile uint8_t sum = 0;          /* ASan: all of it readable */
                for (size_t k = 0; k < t->nbytes; k++) sum ^= t->data[k];
                (void)sum;
            }
        }
#ifdef FUZZ_QLIB
        for (int i = 0; i < g->nops; i++) {
            const Op *op = &g->ops[i];
            if (op->kind != OP_CONV2D && op->kind != OP_MAXPOOL && op->kind != OP_AVGPOOL) continue;
            CHECK(op->stride_h >= 1 && op->stride_w >= 1 && op->dil_h >= 1 && op->dil_w >= 1);
            if (op->params_type && !strcmp(op->params_type, "htc__ql_conv_params"))
                CHECK(op->out_h >= 1 && op->out_w >= 1 && op->k_h >= 1 && op->k_w >= 1 && op->pad_top >= 0 &&
                      op->pad_left >= 0 && op->pad_bottom >= 0 && op->pad_right >= 0);
        }
#endif
        lower(g);
    }
    arena_free_all();
    return 0;
}
