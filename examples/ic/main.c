/* examples/ic - image classification (MLPerf Tiny ResNet-8 on CIFAR-10,
   32x32 RGB, 10 classes) as firmware: a static arena, a fixed input, one
   inference, the top class, a checksum of the scores and the per-layer
   profile. Builds for the host, Cortex-M4 and RV32 (see Makefile); the
   "result:" lines are the same on every platform because the arithmetic is
   integer and exact. */
#include "platform.h"           /* first: it defines HTC_PROFILE_BEGIN/END */

#define IC_IMPLEMENTATION
#include "ic.h"

static uint8_t arena[IC_ARENA_SIZE] __attribute__((aligned(IC_ARENA_ALIGN)));
static uint8_t input[IC_INPUT_SIZE] __attribute__((aligned(16)));
static uint8_t output[IC_OUTPUT_SIZE] __attribute__((aligned(16)));

static const char *const labels[10] = {
    "airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck",
};

int main(int argc, char **argv)
{
    int rc, i, top = 0;
    const int8_t *score = (const int8_t *)output;

    /* stands in for a camera frame: 32 x 32 x RGB, int8 */
    platform_fill(input, sizeof input, 0x6963u);
    rc = platform_save(argc, argv, "--write-input", input, sizeof input);

    platform_run_begin();
    rc |= ic_run(input, output, arena);
    platform_run_end();
    if (rc) {
        printf("ic: ic_run failed (%d)\n", rc);
        return 1;
    }

    for (i = 1; i < IC_OUTPUT_SIZE; i++)
        if (score[i] > score[top]) top = i;
    printf("result: ic input %u bytes fnv1a %08lx\n", (unsigned)sizeof input,
           (unsigned long)platform_fnv1a(input, sizeof input));
    printf("result: ic output %u bytes fnv1a %08lx\n", (unsigned)sizeof output,
           (unsigned long)platform_fnv1a(output, sizeof output));
    printf("result: ic scores");
    for (i = 0; i < IC_OUTPUT_SIZE; i++) printf(" %d", score[i]);
    printf("\nresult: ic top class %d (%s) score %d\n", top, top < 10 ? labels[top] : "?", score[top]);
    platform_prof_print("ic");
    printf("ic: arena %u bytes, ok on %s\n", (unsigned)IC_ARENA_SIZE, PLATFORM_NAME);
    return platform_save(argc, argv, "--write-output", output, sizeof output) ? 1 : 0;
}
