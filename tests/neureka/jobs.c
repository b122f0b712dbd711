/* jobs.c - N-EUREKA jobs of every kind (3x3, 1x1, depthwise 3x3; ReLU or
   not; int8 or uint8 input; padded above / left with a value and below /
   right; channel counts across the 28 / 32-channel groups; several 6x6
   subtiles; scales whose products wrap) through kernels/neureka.c: on the
   host its device model, on GVSoC's Siracusa (examples/siracusa with
   -DSIR_NEUREKA) the engine through its registers. Prints each job's
   output bytes in hex; the two must print the same lines (gvsoc_jobs.txt
   holds GVSoC's: tests/neureka/gvsoc_jobs.py made it,
   tests/test_neureka.py checks the device model against it). Inputs,
   weights, scales and biases are xorshift32 from a seed per job; the
   weights go into N-EUREKA's bit planes here, from the layout as pulp-nnx
   documents it (test/NeurekaWeight.py), independently of targets/siracusa.lua. */
#include <stdio.h>
#include <string.h>

#ifdef SIR_NEUREKA
#include "siracusa.h"
#else
#define HTC_DEV_ACT_SIZE 65536
#define HTC_DEV_W_SIZE 65536
#endif
#define HTC_DEV_STARTUP 0
#define HTC_DEV_DMA_BPC 8
#define HTC_DEV_DMA_SETUP 0
#define HTC_DEV_W_DMA_BPC 8
#define HTC_DEV_W_DMA_SETUP 0
#define HTC_DEV_STEP_1X1 1
#define HTC_DEV_STEP_3X3 1
#define HTC_DEV_STEP_DW 1
#define HTC_DEV_CORES 1
#define HTC_DEV_FORK 0
#ifdef SIR_NEUREKA
#define HTC_DEV_ACT_SIZE SIR_NEU_L1_SIZE
#define HTC_DEV_W_SIZE 65536
#endif
#include "../../htc.h"
#include "../../kernels/device.c"
#include "../../kernels/neureka.c"

/* mode, output rows / columns, input / output channels, padding top,
   bottom, left, right, padding value, flags (1 ReLU, 2 unsigned input),
   shift, scale range (|scale| < 2^sbits), seed */
typedef struct {
    int mode, oy, ox, c, k, pt, pb, pl, pr, pad, flags, shift, sbits;
    uint32_t seed;
} job_t;

static const job_t jobs[] = {
    {HTC__NEU_1X1, 6, 6, 32, 32, 0, 0, 0, 0, 0, 0, 18, 11, 1},
    {HTC__NEU_1X1, 7, 5, 40, 20, 0, 0, 0, 0, 0, 2, 19, 11, 2},
    {HTC__NEU_1X1, 4, 9, 70, 40, 0, 0, 0, 0, 0, 1, 19, 11, 3},
    {HTC__NEU_1X1, 13, 7, 8, 33, 0, 0, 0, 0, 0, 3, 17, 11, 4},
    {HTC__NEU_1X1, 6, 12, 64, 64, 0, 0, 0, 0, 0, 0, 25, 24, 5},     /* products wrap */
    {HTC__NEU_3X3, 6, 6, 28, 32, 1, 1, 1, 1, 0, 0, 20, 11, 6},
    {HTC__NEU_3X3, 8, 8, 5, 8, 1, 1, 1, 1, 0, 1, 17, 11, 7},
    {HTC__NEU_3X3, 7, 9, 30, 20, 0, 0, 0, 0, 0, 2, 21, 11, 8},
    {HTC__NEU_3X3, 5, 13, 60, 9, 1, 1, 1, 1, 0xfd, 0, 21, 11, 9},   /* value -3 above / left */
    {HTC__NEU_3X3, 6, 6, 33, 40, 1, 0, 0, 1, 0, 3, 20, 11, 10},
    {HTC__NEU_3X3, 12, 7, 56, 36, 0, 1, 1, 0, 0, 0, 22, 11, 11},
    {HTC__NEU_DW, 6, 6, 28, 28, 1, 1, 1, 1, 0, 0, 17, 11, 12},
    {HTC__NEU_DW, 8, 8, 20, 20, 1, 1, 1, 1, 0, 3, 17, 11, 13},
    {HTC__NEU_DW, 7, 13, 60, 60, 0, 0, 0, 0, 0, 0, 17, 11, 14},
    {HTC__NEU_DW, 9, 5, 31, 31, 1, 1, 1, 1, 5, 2, 17, 11, 15},
    {HTC__NEU_DW, 6, 7, 40, 40, 0, 1, 0, 1, 0, 1, 17, 11, 16},
};
#define NJOBS ((int)(sizeof jobs / sizeof jobs[0]))

static uint32_t rng;
static uint32_t xs(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static int8_t x[16384], out[16384], wq[40 * 70 * 9];
static uint8_t planes[40 * 3 * 256];
static int32_t sb[2 * 64];

/* stored weight u (w + 128) of (o, i, tap) into the bit planes */
static void put_weight(int mode, int c, int o, int i, int s, int u)
{
    int b;
    for (b = 0; b < 8; b++) {
        int bit;
        uint8_t *row;
        if (!((u >> b) & 1)) continue;
        if (mode == HTC__NEU_1X1) {
            row = planes + ((size_t)o * ((c + 31) / 32) + i / 32) * 32;
            bit = ((i % 32) / 4) * 32 + b * 4 + (i % 32) % 4;
        } else {
            const size_t grp = mode == HTC__NEU_DW ? (size_t)(i / 28) : (size_t)o * ((c + 27) / 28) + i / 28;
            row = planes + (grp * 8 + b) * 32;
            bit = s * 28 + i % 28;
        }
        row[bit >> 3] |= (uint8_t)(1u << (bit & 7));
    }
}

int main(void)
{
    int j;
    htc__dev_reset();
    for (j = 0; j < NJOBS; j++) {
        const job_t *q = &jobs[j];
        const int taps = q->mode == HTC__NEU_1X1 ? 1 : 3;
        const int ih = q->oy + taps - 1 - q->pt - q->pb, iw = q->ox + taps - 1 - q->pl - q->pr;
        const int nw = q->mode == HTC__NEU_DW ? q->k * 9 : q->k * q->c * taps * taps;
        const uint32_t wbytes = q->mode == HTC__NEU_DW ? htc__neu_wbytes(q->mode, q->k)
                                                       : (uint32_t)q->k * htc__neu_wbytes(q->mode, q->c);
        const uint32_t in_off = 0, out_off = 0x4000, sb_off = 0x8000;
        int i, n = q->oy * q->ox * q->k;
        rng = q->seed * 0x9E3779B9u;
        for (i = 0; i < ih * iw * q->c; i++) x[i] = (int8_t)(xs() >> 24);
        memset(planes, 0, sizeof planes);
        for (i = 0; i < nw; i++) {
            const int u = (int)(xs() >> 24);
            wq[i] = (int8_t)(u - 128);
            if (q->mode == HTC__NEU_DW) put_weight(q->mode, q->k, 0, i / 9, i % 9, u);
            else put_weight(q->mode, q->c, i / (q->c * taps * taps), (i / (taps * taps)) % q->c, i % (taps * taps), u);
        }
        for (i = 0; i < q->k; i++) {
            sb[i] = (int32_t)(xs() & ((1u << q->sbits) - 1u)) - (int32_t)(1u << (q->sbits - 2));
            sb[q->k + i] = (int32_t)(xs() & ((1u << (q->shift + 6)) - 1u)) - (int32_t)(1u << (q->shift + 5));
        }
        htc__neu_load(1, 0, planes, wbytes);
        htc__neu_load(0, sb_off, sb, 8u * (uint32_t)q->k);
        htc__neu_dma_in(in_off, x, ih, iw, q->c, iw * q->c, q->c);
        {
#ifdef SIR_NEUREKA
            const uint32_t t0 = sir_cycles();
#endif
            htc__neu_job(q->mode, in_off, ih, iw, q->c, -q->pt, -q->pl, out_off, q->k, q->oy, q->ox, 0, sb_off, q->shift,
                         q->pad, q->flags);
#ifdef SIR_NEUREKA
            printf("cycles %d %u\n", j, (unsigned)(sir_cycles() - t0));
#endif
        }
        htc__neu_dma_out(out, out_off, q->oy, q->ox, q->k, q->ox * q->k, q->k);
        printf("job %d %d", j, n);
        for (i = 0; i < n; i++) {
            if (i % 64 == 0) printf("\n");
            printf("%02x", (unsigned)(uint8_t)out[i]);
        }
        printf("\n");
    }
    printf("jobs: %d done\n", NJOBS);
    return 0;
}
