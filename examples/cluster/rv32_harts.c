/* examples/cluster/rv32_harts.c - a generated header's cluster layers on
   the harts of qemu-system-riscv32 -M virt -smp N (bare metal, picolibc,
   semihosting). Every hart enters at hart_entry: hart 0 goes on to
   picolibc's _start and main; the others wait (registers only, no stack)
   until main opens the gate, then take their own stack and serve forks.
   HTC_PAR_RUN publishes the layer function and a new generation and wakes
   the harts (CLINT software interrupts); each runs its share, posts the
   generation as done and wakes hart 0, which is core 0.

   riscv64-unknown-elf-gcc -march=rv32imc -misa-spec=2.2 -mabi=ilp32 -O2
     --specs=picolibc.specs --oslib=semihost -nostartfiles -I. (model.h,
     input.h) rv32_harts.c -l:crt0-semihost.o  (crt0 after this file)
   qemu-system-riscv32 -M virt -smp MODEL_CORES -bios none -icount shift=0
     -semihosting-config enable=on,target=native -kernel fw.elf

   minstret is read around every share, so the run prints the instructions
   each hart spent in the layers (the work split), the sum over forks of the
   largest share (the critical path: what N cores would take) and the
   total, and the output bytes. Under -icount the counts are exact.
   tests/test_cluster.py builds it for MODEL_CORES harts. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void par_run(void (*fn)(void *, int, int), void *ctx, int ncores);
#define HTC_PAR_RUN(fn, ctx, ncores) par_run((fn), (ctx), (ncores))
static inline uint32_t minstret(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, minstret" : "=r"(v));
    return v;
}
static uint32_t serial_t0, serial_n;    /* instructions of layers run on hart 0 alone */
static int in_fork;
#define HTC_PROFILE_BEGIN(m, l, name) (serial_t0 = minstret())
#define HTC_PROFILE_END(m, l, name) (in_fork ? (void)(in_fork = 0) : (void)(serial_n += minstret() - serial_t0))

extern uint8_t l1mem[];                 /* layers tiled into the "L1" (memcpy as the DMA) */
#define MODEL_L1 l1mem
#define MODEL_IMPLEMENTATION
#include "model.h"
#include "input.h"
#ifdef MODEL_L1_SIZE
uint8_t l1mem[MODEL_L1_SIZE] __attribute__((aligned(16)));
#endif
#ifndef MODEL_CORES
#define MODEL_CORES 1                   /* a header built for one core forks nothing */
#endif

#define NHARTS MODEL_CORES
#define STACK 16384

volatile uint32_t htc_gate;             /* .bss: zero from reset until main opens it */
static uint8_t stacks[NHARTS][STACK] __attribute__((aligned(16)));

static struct {
    void (*volatile fn)(void *, int, int);
    void *volatile ctx;
    volatile int ncores;
    volatile uint32_t generation;
} job;
static volatile uint32_t done[NHARTS];
static uint32_t work[NHARTS];           /* instructions in shares, per hart */
static uint32_t share[NHARTS];          /* of the current fork */
static uint64_t critical, total;        /* sums over forks: largest share, all shares */
static uint32_t forks;

/* First in the image (picolibc's .init keeps .text.init.enter first, and
   this file links before crt0): qemu starts every hart here. No linker
   relaxation: gp is not set yet on the other harts. */
__asm__(".section .text.init.enter, \"ax\"\n"
        ".globl hart_entry\n"
        "hart_entry:\n"
        ".option push\n"
        ".option norelax\n"
        "    csrr t0, mhartid\n"
        "    bnez t0, 1f\n"
        "    j _start\n"
        "1:  li t1, 8\n"                    /* mie.MSIE: a software interrupt ends wfi (never taken: mstatus.MIE is 0) */
        "    csrs mie, t1\n"
        "    la t1, htc_gate\n"
        "2:  lw t2, 0(t1)\n"
        "    bnez t2, 4f\n"
        "    wfi\n"
        "    j 2b\n"
        "4:  fence\n"
        "    la gp, __global_pointer$\n"
        "    la sp, htc_hart_stacks_end\n"
        "    lw sp, 0(sp)\n"
        "    li t1, 16384\n"
        "    mul t2, t0, t1\n"
        "    sub sp, sp, t2\n"
        "    mv a0, t0\n"
        "    call hart_main\n"
        "3:  j 3b\n"
        ".option pop\n"
        ".text\n");

/* The CLINT's software-interrupt bits (qemu virt): waking hart h out of wfi.
   A waiting hart halts in wfi, so qemu's round-robin (-icount) runs the
   others at once instead of letting it spin. */
#define MSIP(h) (*(volatile uint32_t *)(uintptr_t)(0x02000000u + 4u * (uint32_t)(h)))

static void wait_event(void)
{
    __asm__ volatile("wfi" ::: "memory");
}

uint8_t *htc_hart_stacks_end;           /* top of the last stack; hart h takes stacks[NHARTS - 1 - h] */

void hart_main(int id);
void hart_main(int id)
{
    uint32_t seen = 0;
    for (;;) {
        uint32_t t0;
        while (job.generation == seen) {
            wait_event();
            MSIP(id) = 0;
        }
        __sync_synchronize();
        seen = job.generation;
        if (id < job.ncores) {
            t0 = minstret();
            job.fn(job.ctx, id, job.ncores);
            share[id] = minstret() - t0;
        } else {
            share[id] = 0;
        }
        __sync_synchronize();
        done[id] = seen;
        MSIP(0) = 1;
    }
}

static void par_run(void (*fn)(void *, int, int), void *ctx, int ncores)
{
    uint32_t t0, big = 0, g;
    int h;
    job.fn = fn;
    job.ctx = ctx;
    job.ncores = ncores;
    __sync_synchronize();
    g = ++job.generation;
    for (h = 1; h < NHARTS; h++) MSIP(h) = 1;
    t0 = minstret();
    fn(ctx, 0, ncores);
    share[0] = minstret() - t0;
    for (h = NHARTS; h < ncores; h++) fn(ctx, h, ncores);     /* more cores than harts: never in the test */
    for (h = 1; h < NHARTS; h++)
        while (done[h] != g) {
            wait_event();
            MSIP(0) = 0;
        }
    __sync_synchronize();
    for (h = 0; h < NHARTS; h++) {
        work[h] += share[h];
        total += share[h];
        big = share[h] > big ? share[h] : big;
    }
    critical += big;
    forks++;
    in_fork = 1;                        /* this layer's time is in the shares */
}

static uint8_t arena[MODEL_ARENA_SIZE] __attribute__((aligned(MODEL_ARENA_ALIGN)));
static uint8_t output[MODEL_OUTPUT_SIZE];

int main(void)
{
    int h, rc;
    uint32_t i;
    htc_hart_stacks_end = stacks[NHARTS - 1] + STACK;
    __asm__ volatile("csrs mie, %0" ::"r"(8));     /* hart 0 waits in wfi too */
    __sync_synchronize();
    htc_gate = 1;
    for (h = 1; h < NHARTS; h++) MSIP(h) = 1;
    rc = model_run(model_input, output, arena);
    if (rc) {
        printf("model_run failed: %d\n", rc);
        return 1;
    }
    printf("harts %d forks %lu\n", NHARTS, (unsigned long)forks);
    for (h = 0; h < NHARTS; h++) printf("hart %d work %lu\n", h, (unsigned long)work[h]);
    printf("serial %lu critical %llu total %llu\n", (unsigned long)serial_n, (unsigned long long)critical,
           (unsigned long long)total);
    printf("output");
    for (i = 0; i < sizeof output; i++) printf(" %02x", output[i]);
    printf("\n");
    return 0;
}
