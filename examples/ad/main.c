/* examples/ad - anomaly detection (MLPerf Tiny deep autoencoder on machine
   sounds: 5 frames x 128 log-mel bins in, their reconstruction out) as
   firmware: a static arena, a fixed input, one inference and the anomaly
   score, the mean squared reconstruction error, in integer arithmetic.
   Builds for the host, Cortex-M4 and RV32 (see Makefile); the "result:"
   lines are the same on every platform because the arithmetic is integer
   and exact. */
#include "platform.h"           /* first: it defines HTC_PROFILE_BEGIN/END */

#define AD_IMPLEMENTATION
#include "ad.h"

static uint8_t arena[AD_ARENA_SIZE] __attribute__((aligned(AD_ARENA_ALIGN)));
static int8_t input[AD_INPUT_SIZE] __attribute__((aligned(16)));
static int8_t output[AD_OUTPUT_SIZE] __attribute__((aligned(16)));

/* Input and output have different scales: the error is taken in units of
   one input step, x - z_in - (y - z_out) * s_out / s_in, with the ratio a
   Q16 integer the compiler folds from the header's scale macros. */
#define Q 16
static const int64_t ratio_q16 = (int64_t)((double)AD_OUTPUT_SCALE_0 / (double)AD_INPUT_SCALE_0 * (1 << Q) + 0.5);

/* Mean of the squared errors over all elements, in input steps squared, Q16. */
static uint64_t anomaly_score_q16(const int8_t *x, const int8_t *y, int n)
{
    uint64_t sum = 0;
    int i;
    for (i = 0; i < n; i++) {
        int64_t e = ((int64_t)(x[i] - AD_INPUT_ZERO_POINT_0) << Q) - (int64_t)(y[i] - AD_OUTPUT_ZERO_POINT_0) * ratio_q16;
        sum += (uint64_t)(e * e) >> Q;   /* |e| < 2^26: e*e fits, Q32 -> Q16 */
    }
    return (sum + (uint64_t)n / 2) / (uint64_t)n;
}

int main(int argc, char **argv)
{
    int rc;
    uint64_t score;
    char b[24];

    /* stands in for the log-mel front end: 640 int8 features */
    platform_fill(input, sizeof input, 0x6164u);
    rc = platform_save(argc, argv, "--write-input", input, sizeof input);

    platform_run_begin();
    rc |= ad_run(input, output, arena);
    platform_run_end();
    if (rc) {
        printf("ad: ad_run failed (%d)\n", rc);
        return 1;
    }

    score = anomaly_score_q16(input, output, AD_OUTPUT_SIZE);
    printf("result: ad input %u bytes fnv1a %08lx\n", (unsigned)sizeof input,
           (unsigned long)platform_fnv1a(input, sizeof input));
    printf("result: ad output %u bytes fnv1a %08lx\n", (unsigned)sizeof output,
           (unsigned long)platform_fnv1a(output, sizeof output));
    printf("result: ad output[0..7] %d %d %d %d %d %d %d %d\n", output[0], output[1], output[2], output[3],
           output[4], output[5], output[6], output[7]);
    printf("result: ad anomaly score %s / 65536 = %lu.%03lu (mean squared error, input steps squared)\n",
           platform_u64(score, b), (unsigned long)(score >> Q),
           (unsigned long)(((score & ((1u << Q) - 1)) * 1000u) >> Q));
    platform_prof_print("ad");
    printf("ad: arena %u bytes, ok on %s\n", (unsigned)AD_ARENA_SIZE, PLATFORM_NAME);
    return platform_save(argc, argv, "--write-output", output, sizeof output) ? 1 : 0;
}
