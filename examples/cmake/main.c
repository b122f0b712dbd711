/* examples/cmake/main.c - the KWS model as a CMake-built firmware: the
   header comes from the kws_model library target (htc_add_model), whose
   own source holds the implementation. One inference on a fixed input;
   prints "result:" lines, the same on every platform. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "kws.h"

static uint8_t arena[KWS_ARENA_SIZE] __attribute__((aligned(KWS_ARENA_ALIGN)));
static int8_t input[KWS_INPUT_SIZE];
static int8_t output[KWS_OUTPUT_SIZE];

int main(int argc, char **argv)
{
    uint32_t x = 0x6b77u;
    int i, top = 0;
    for (i = 0; i < KWS_INPUT_SIZE; i++) {          /* xorshift32 input */
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        input[i] = (int8_t)(x >> 24);
    }
    if (kws_run(input, output, arena)) {
        printf("kws_run failed\n");
        return 1;
    }
    for (i = 1; i < KWS_OUTPUT_SIZE; i++)
        if (output[i] > output[top]) top = i;
    printf("result: scores");
    for (i = 0; i < KWS_OUTPUT_SIZE; i++) printf(" %d", output[i]);
    printf("\nresult: top class %d\n", top);
    /* host only: --write-input / --write-output FILE, to compare with htc run */
    for (i = 1; i + 1 < argc; i += 2) {
        FILE *f = fopen(argv[i + 1], "wb");
        const void *p = strcmp(argv[i], "--write-input") == 0 ? (const void *)input : (const void *)output;
        size_t n = strcmp(argv[i], "--write-input") == 0 ? sizeof input : sizeof output;
        if (!f || fwrite(p, 1, n, f) != n || fclose(f)) return 1;
    }
    return 0;
}
