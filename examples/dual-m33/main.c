/* examples/dual-m33/main.c - a generated header on both Cortex-M33 cores of
   qemu-system-arm -M mps2-an521 (Arm's SSE-200 subsystem: two M33s sharing
   the SRAM), bare metal with picolibc semihosting.

   Core 0 boots (picolibc's crt0, main). Core 1 is held in reset by the
   SSE-200's CPUWAIT register until main writes its vector table's address
   to INITSVTOR1 and clears CPUWAIT bit 1 (the system control block at
   0x50021000, Secure only; the cores run Secure). Core 1 then waits in WFE
   on a mailbox in the shared SRAM. The header's fork/join hook HTC_PAR_RUN
   publishes the layer function and a new generation in the mailbox and
   wakes core 1 with SEV; core 0 runs share 0 while core 1 runs share 1,
   posts the generation as done and SEVs; core 0 waits for it in WFE: the
   join. No thread, no interrupt, one mailbox write per fork.

   The qemu plugin common/insncount.c (vcpus=2, -accel tcg,thread=single)
   counts each core's instructions between calls of mark_begin/mark_end:
     core 0: region 0 the whole model_run; per fork, share 0 then the wait
             for core 1 (the join)
     core 1: per fork, its share (mailbox handling included)
   dual.awk turns them into each core's work and the critical path (what
   two cores running side by side take): the instructions core 0 runs
   outside the forks, plus per fork the larger share, plus the mailbox.
   Without the plugin the program runs the same and prints no counts.

   The input is xorshift32 bytes (seed 0x6b77, the top byte of each step,
   as examples/common/platform.c fills it); the output is printed in hex,
   so tests/test_dual_m33.sh compares it with TFLite Micro's.

   Build: Makefile (make MODEL=kws CORES=2). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void mark_begin(void);
void mark_end(void);
static void par_run(void (*fn)(void *, int, int), void *ctx, int ncores);
#define HTC_PAR_RUN(fn, ctx, ncores) par_run((fn), (ctx), (ncores))

#define MODEL_IMPLEMENTATION
#include "model.h"

#ifndef MODEL_CORES
#define MODEL_CORES 1               /* a header built for one core (before NAME_CORES was always defined) */
#endif

/* The plugin finds these by address: never inlined, one instruction each. */
__attribute__((noinline)) void mark_begin(void) { __asm__ volatile(""); }
__attribute__((noinline)) void mark_end(void) { __asm__ volatile(""); }

#define REG(a) (*(volatile uint32_t *)(uintptr_t)(a))
#define SYSCTL_INITSVTOR1 0x50021114u   /* core 1's vector table at reset */
#define SYSCTL_CPUWAIT 0x50021118u      /* bit c: core c held in reset */

#define sev() __asm__ volatile("dsb\n\tsev" ::: "memory")
#define wfe() __asm__ volatile("wfe" ::: "memory")
#define dmb() __asm__ volatile("dmb" ::: "memory")

/* The mailbox, in the SRAM both cores see (.bss) */
static struct {
    void (*volatile fn)(void *, int, int);
    void *volatile ctx;
    volatile int ncores;
    volatile uint32_t generation;   /* one per fork, written by core 0 */
    volatile uint32_t done;         /* the last generation core 1 finished */
    volatile uint32_t fault;        /* core 1 took a fault */
} mbox;

#ifndef CORE1_STACK
#define CORE1_STACK 8192
#endif
static uint8_t core1_stack[CORE1_STACK] __attribute__((aligned(8)));

static void core1_main(void)
{
    uint32_t seen = 0;
    for (;;) {
        while (mbox.generation == seen) wfe();
        dmb();
        seen = mbox.generation;
        mark_begin();
        mbox.fn(mbox.ctx, 1, mbox.ncores);
        mark_end();
        dmb();
        mbox.done = seen;
        sev();
    }
}

static void core1_fault(void)
{
    mbox.fault = 1;
    sev();
    for (;;) wfe();
}

/* Core 1's vector table (initial SP, reset, NMI, HardFault, ...): VTOR
   needs it aligned to its size rounded up to a power of two, >= 128. */
static void (*const core1_vectors[16])(void) __attribute__((aligned(128))) = {
    (void (*)(void))(uintptr_t)(core1_stack + sizeof core1_stack), core1_main, core1_fault, core1_fault,
    core1_fault, core1_fault, core1_fault,
};

static uint32_t forks;

static void par_run(void (*fn)(void *, int, int), void *ctx, int ncores)
{
    int c;
    if (ncores < 2) {
        for (c = 0; c < ncores; c++) fn(ctx, c, ncores);
        return;
    }
    mbox.fn = fn;
    mbox.ctx = ctx;
    mbox.ncores = ncores;
    dmb();
    mbox.generation = mbox.generation + 1;
    sev();
    mark_begin();
    fn(ctx, 0, ncores);
    for (c = 2; c < ncores; c++) fn(ctx, c, ncores);   /* more cores than two: never in the test */
    mark_end();
    mark_begin();
    while (mbox.done != mbox.generation && !mbox.fault) wfe();
    mark_end();
    dmb();
    forks++;
}

static uint8_t arena[MODEL_ARENA_SIZE] __attribute__((aligned(MODEL_ARENA_ALIGN)));
static uint8_t input[MODEL_INPUT_SIZE], output[MODEL_OUTPUT_SIZE];

int main(void)
{
    uint32_t x = 0x6b77u, h = 2166136261u;
    size_t i;
    int rc;
    (void)par_run;                  /* a one-core header forks nothing */
    for (i = 0; i < sizeof input; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        input[i] = (uint8_t)(x >> 24);
    }
    if (MODEL_CORES > 1) {
        REG(SYSCTL_INITSVTOR1) = (uint32_t)(uintptr_t)core1_vectors;
        dmb();
        REG(SYSCTL_CPUWAIT) = REG(SYSCTL_CPUWAIT) & ~2u;    /* core 1 out of reset */
    }
    mark_begin();
    rc = model_run(input, output, arena);
    mark_end();
    if (mbox.fault) {
        printf("dual-m33: core 1 took a fault\n");
        return 1;
    }
    if (rc) {
        printf("dual-m33: model_run failed (%d)\n", rc);
        return 1;
    }
    for (i = 0; i < sizeof output; i++) h = (h ^ output[i]) * 16777619u;
    printf("dual-m33: cores %d forks %lu arena %lu bytes\n", MODEL_CORES, (unsigned long)forks,
           (unsigned long)MODEL_ARENA_SIZE);
    printf("result: output %u bytes fnv1a %08lx\n", (unsigned)sizeof output, (unsigned long)h);
    printf("output");
    for (i = 0; i < sizeof output; i++) printf(" %02x", output[i]);
    printf("\n");
    return 0;
}
