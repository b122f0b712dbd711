/* examples/vww - visual wake words (MLPerf Tiny MobileNetV1 0.25, 96x96 RGB,
   person / no person) as firmware: a static arena, a fixed input, one
   inference, the class, a checksum of the scores and the per-layer profile.
   Builds for the host, Cortex-M4 and RV32 (see Makefile); the "result:"
   lines are the same on every platform because the arithmetic is integer
   and exact. */
#include "platform.h"           /* first: it defines HTC_PROFILE_BEGIN/END */

#define VWW_IMPLEMENTATION
#include "vww.h"

static uint8_t arena[VWW_ARENA_SIZE] __attribute__((aligned(VWW_ARENA_ALIGN)));
static uint8_t input[VWW_INPUT_SIZE] __attribute__((aligned(16)));
static uint8_t output[VWW_OUTPUT_SIZE] __attribute__((aligned(16)));

static const char *const labels[2] = {"no person", "person"};

int main(int argc, char **argv)
{
    int rc, i, top = 0;
    const int8_t *score = (const int8_t *)output;

    /* stands in for a camera frame: 96 x 96 x RGB, int8 */
    platform_fill(input, sizeof input, 0x767777u);
    rc = platform_save(argc, argv, "--write-input", input, sizeof input);

    platform_run_begin();
    rc |= vww_run(input, output, arena);
    platform_run_end();
    if (rc) {
        printf("vww: vww_run failed (%d)\n", rc);
        return 1;
    }

    for (i = 1; i < VWW_OUTPUT_SIZE; i++)
        if (score[i] > score[top]) top = i;
    printf("result: vww input %u bytes fnv1a %08lx\n", (unsigned)sizeof input,
           (unsigned long)platform_fnv1a(input, sizeof input));
    printf("result: vww output %u bytes fnv1a %08lx\n", (unsigned)sizeof output,
           (unsigned long)platform_fnv1a(output, sizeof output));
    printf("result: vww scores");
    for (i = 0; i < VWW_OUTPUT_SIZE; i++) printf(" %d", score[i]);
    printf("\nresult: vww top class %d (%s) score %d\n", top, top < 2 ? labels[top] : "?", score[top]);
    platform_prof_print("vww");
    printf("vww: arena %u bytes, ok on %s\n", (unsigned)VWW_ARENA_SIZE, PLATFORM_NAME);
    return platform_save(argc, argv, "--write-output", output, sizeof output) ? 1 : 0;
}
