/* selftest.c - checks the bare-metal runtime (siracusa.c) on GVSoC: the
   fork/join of sir_par_run, the barrier, 1-D and 2-D cluster DMA both ways
   and the counters. Prints "selftest: ok" and exits 0, or names the first
   check that failed and exits 1. */
#include <stdio.h>
#include <string.h>

#include "siracusa.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { printf("selftest: FAIL %s:%d: ", __FILE__, __LINE__); \
    printf(__VA_ARGS__); printf("\n"); fails++; } } while (0)

/* ---- fork/join ---- */
static volatile int hits[16] SIR_L1;
static volatile int seen_n[16] SIR_L1;
static volatile int phase[16] SIR_L1;

static void mark(void *ctx, int core, int ncores)
{
    hits[core] += *(int *)ctx;
    seen_n[core] = ncores;
    if (sir_core_id() != core) hits[15] = 1000 + core;   /* call c must run on core c */
}

/* every core writes its phase, the barrier, then reads the others' */
static void phases(void *ctx, int core, int ncores)
{
    int i, bad = 0;
    (void)ctx;
    phase[core] = 1;
    sir_barrier();
    for (i = 0; i < ncores; i++) bad |= phase[i] != 1;
    sir_barrier();
    phase[core] = bad ? -1 : 2;
}

/* ---- DMA ---- */
static uint8_t l2_src[3000] __attribute__((aligned(4)));
static uint8_t l2_dst[3000] __attribute__((aligned(4)));
static uint8_t l1_buf[3000] SIR_L1;

int main(int argc, char **argv)
{
    int n, i, k, one = 1;
    uint32_t t0, t1, t2;
    (void)argc, (void)argv;

    printf("selftest: cluster core %d of %d, mhartid core id %d\n", 0, SIR_CORES, sir_core_id());
    for (n = 1; n <= SIR_CORES; n++) {
        memset((void *)hits, 0, sizeof hits);
        for (k = 0; k < 3; k++) sir_par_run(mark, &one, n);
        for (i = 0; i < 16; i++) {
            CHECK(hits[i] == (i < n ? 3 : 0), "ncores %d: core %d ran %d times", n, i, hits[i]);
            if (i < n) CHECK(seen_n[i] == n, "ncores %d: core %d saw ncores %d", n, i, seen_n[i]);
        }
    }
    memset((void *)phase, 0, sizeof phase);
    sir_par_run(phases, 0, SIR_CORES);
    for (i = 0; i < SIR_CORES; i++) CHECK(phase[i] == 2, "barrier: core %d phase %d", i, phase[i]);
    t0 = sir_cycles();
    sir_par_run(mark, &one, SIR_CORES);
    t1 = sir_cycles();
    printf("selftest: fork/join of %d cores %u cycles\n", SIR_CORES, (unsigned)(t1 - t0));

    /* 1-D in, 1-D out */
    for (i = 0; i < 3000; i++) l2_src[i] = (uint8_t)(i * 7 + 3);
    memset(l1_buf, 0, sizeof l1_buf);
    memset(l2_dst, 0, sizeof l2_dst);
    t0 = sir_cycles();
    sir_dma_wait(sir_dma_in(l1_buf, l2_src, 3000));
    t1 = sir_cycles();
    CHECK(memcmp(l1_buf, l2_src, 3000) == 0, "dma in: bytes differ");
    sir_dma_copy_out(l2_dst, l1_buf, 3000);
    t2 = sir_cycles();
    CHECK(memcmp(l2_dst, l2_src, 3000) == 0, "dma out: bytes differ");
    printf("selftest: dma 3000 bytes in %u cycles, out %u cycles\n", (unsigned)(t1 - t0), (unsigned)(t2 - t1));

    /* 2-D in: 10 rows of 100 bytes, 300 bytes apart in L2 */
    memset(l1_buf, 0, sizeof l1_buf);
    sir_dma_wait(sir_dma_in_2d(l1_buf, l2_src + 5, 1000, 100, 300));
    for (i = 0; i < 10; i++) CHECK(memcmp(l1_buf + 100 * i, l2_src + 5 + 300 * i, 100) == 0, "dma in 2d: row %d", i);
    CHECK(l1_buf[1000] == 0, "dma in 2d: wrote past the end");
    /* 2-D out: the 10 rows back to 10 rows 200 bytes apart */
    memset(l2_dst, 0, sizeof l2_dst);
    sir_dma_wait(sir_dma_out_2d(l2_dst, l1_buf, 1000, 100, 200));
    for (i = 0; i < 10; i++) {
        CHECK(memcmp(l2_dst + 200 * i, l2_src + 5 + 300 * i, 100) == 0, "dma out 2d: row %d", i);
        CHECK(l2_dst[200 * i + 100] == 0, "dma out 2d: row %d gap written", i);
    }
    /* two transfers in flight */
    {
        int a, b;
        memset(l1_buf, 0, sizeof l1_buf);
        a = sir_dma_in(l1_buf, l2_src, 1500);
        b = sir_dma_in(l1_buf + 1500, l2_src + 1500, 1500);
        CHECK(a != b, "dma: two transfers got the same id %d", a);
        sir_dma_wait(a);
        sir_dma_wait(b);
        CHECK(memcmp(l1_buf, l2_src, 3000) == 0, "dma in, two transfers: bytes differ");
    }

    /* counters: instructions of a known loop */
    {
        volatile int s = 0;
        uint32_t ins, cyc;
        sir_perf_start((1u << 0) | (1u << 1));
        for (i = 0; i < 100; i++) s += i;
        cyc = sir_perf_read(0);
        ins = sir_perf_read(1);
        CHECK(ins >= 300 && cyc >= ins, "perf: %u instructions, %u cycles for 100 iterations", (unsigned)ins,
              (unsigned)cyc);
        printf("selftest: perf counters %u cycles %u instructions\n", (unsigned)cyc, (unsigned)ins);
    }

    printf("selftest: %s (%d failed)\n", fails ? "FAILED" : "ok", fails);
    return fails ? 1 : 0;
}
