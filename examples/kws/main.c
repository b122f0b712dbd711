/* examples/kws - keyword spotting (MLPerf Tiny DS-CNN, 12 classes) as
   firmware: a static arena, a fixed input, one inference, the top class,
   a checksum of the scores and the per-layer profile. Builds for the host,
   Cortex-M4 and RV32 (see Makefile); the "result:" lines are the same on
   every platform because the arithmetic is integer and exact. */
#include "platform.h"           /* first: it defines HTC_PROFILE_BEGIN/END */

#define KWS_IMPLEMENTATION
#include "kws.h"

static uint8_t arena[KWS_ARENA_SIZE] __attribute__((aligned(KWS_ARENA_ALIGN)));
static uint8_t input[KWS_INPUT_SIZE] __attribute__((aligned(16)));
static uint8_t output[KWS_OUTPUT_SIZE] __attribute__((aligned(16)));

static const char *const labels[12] = {
    "down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes", "silence", "unknown",
};

int main(int argc, char **argv)
{
    int rc, i, top = 0;
    const int8_t *score = (const int8_t *)output;

    /* stands in for the MFCC front end: 49 frames x 10 coefficients, int8 */
    platform_fill(input, sizeof input, 0x6b77u);
    rc = platform_save(argc, argv, "--write-input", input, sizeof input);

    platform_run_begin();
    rc |= kws_run(input, output, arena);
    platform_run_end();
    if (rc) {
        printf("kws: kws_run failed (%d)\n", rc);
        return 1;
    }

    for (i = 1; i < KWS_OUTPUT_SIZE; i++)
        if (score[i] > score[top]) top = i;
    printf("result: kws input %u bytes fnv1a %08lx\n", (unsigned)sizeof input,
           (unsigned long)platform_fnv1a(input, sizeof input));
    printf("result: kws output %u bytes fnv1a %08lx\n", (unsigned)sizeof output,
           (unsigned long)platform_fnv1a(output, sizeof output));
    printf("result: kws scores");
    for (i = 0; i < KWS_OUTPUT_SIZE; i++) printf(" %d", score[i]);
    printf("\nresult: kws top class %d (%s) score %d\n", top, top < 12 ? labels[top] : "?", score[top]);
    platform_prof_print("kws");
    printf("kws: arena %u bytes, ok on %s\n", (unsigned)KWS_ARENA_SIZE, PLATFORM_NAME);
    return platform_save(argc, argv, "--write-output", output, sizeof output) ? 1 : 0;
}
