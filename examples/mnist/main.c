/* examples/mnist - handwritten digit classification (a small MNIST CNN:
   28x28 grey image, 10 classes, no softmax) as firmware: a static arena, a
   fixed input, one inference, the top class, a checksum of the scores and
   the per-layer profile. Builds for the host, Cortex-M4, Cortex-M55 and
   RV32 (see Makefile); the "result:" lines are the same on every platform
   because the arithmetic is integer and exact. */
#include "platform.h"           /* first: it defines HTC_PROFILE_BEGIN/END */

#define MNIST_IMPLEMENTATION
#include "mnist.h"

static uint8_t arena[MNIST_ARENA_SIZE] __attribute__((aligned(MNIST_ARENA_ALIGN)));
static uint8_t input[MNIST_INPUT_SIZE] __attribute__((aligned(16)));
static uint8_t output[MNIST_OUTPUT_SIZE] __attribute__((aligned(16)));

int main(int argc, char **argv)
{
    int rc, i, top = 0;
    const int8_t *score = (const int8_t *)output;

    /* stands in for a 28 x 28 grey image, int8 */
    platform_fill(input, sizeof input, 0x6d6eu);
    rc = platform_save(argc, argv, "--write-input", input, sizeof input);

    platform_run_begin();
    rc |= mnist_run(input, output, arena);
    platform_run_end();
    if (rc) {
        printf("mnist: mnist_run failed (%d)\n", rc);
        return 1;
    }

    for (i = 1; i < MNIST_OUTPUT_SIZE; i++)
        if (score[i] > score[top]) top = i;
    printf("result: mnist input %u bytes fnv1a %08lx\n", (unsigned)sizeof input,
           (unsigned long)platform_fnv1a(input, sizeof input));
    printf("result: mnist output %u bytes fnv1a %08lx\n", (unsigned)sizeof output,
           (unsigned long)platform_fnv1a(output, sizeof output));
    printf("result: mnist scores");
    for (i = 0; i < MNIST_OUTPUT_SIZE; i++) printf(" %d", score[i]);
    printf("\nresult: mnist top class %d (digit %d) score %d\n", top, top, score[top]);
    platform_prof_print("mnist");
    printf("mnist: arena %u bytes, ok on %s\n", (unsigned)MNIST_ARENA_SIZE, PLATFORM_NAME);
    return platform_save(argc, argv, "--write-output", output, sizeof output) ? 1 : 0;
}
