/* fuzz_onnx.c - libFuzzer target for the ONNX reader (gen/onnx.c: wire_check,
   protobuf-c, every check after it). Links gen/onnx.c, the generated
   protobuf-c code and gen/util.c compiled with -Ddie=util_die
   -Dread_file=util_read_file so that this file supplies both: read_file()
   returns the fuzz input, die() checks the message (one line, naming the
   model) and longjmps back. A model that reads is lowered too. Memory that
   a longjmp skips (the decoded protobuf) is not freed: run with
   -detect_leaks=0. */
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
        CHECK(g->format == SRC_ONNX && g->noutputs >= 1 && g->noutputs <= OP_MAX_IO);
        for (int i = 0; i < g->ntensors; i++) {
            const Tensor *t = &g->tensors[i];
            CHECK(t->rank >= 0 && t->rank <= MAX_RANK);
            if (t->data) {
                volatile uint8_t sum = 0;          /* ASan: all of it readable */
                for (size_t k = 0; k < t->nbytes; k++) sum ^= t->data[k];
                (void)sum;
            }
        }
        lower(g);
    }
    arena_free_all();
    return 0;
}
