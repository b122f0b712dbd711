/* siracusa.c - the bare-metal runtime of siracusa.h: console and exit,
   cluster start-up, barrier, fork/join, cluster DMA and counters. */
#include "siracusa.h"

#include <stdio.h>

#define REG(a) (*(volatile uint32_t *)(uintptr_t)(a))

/* SoC (pulp/chips/siracusa/soc.json) */
#define STDOUT_BASE 0x1A10F000u         /* + (cluster << 7) + (core << 3) */
#define CORESTATUS 0x1A1040A0u          /* bit 31 = end, bits 30:0 = code */
/* Cluster peripherals (cluster.json) */
#define CL_CTRL 0x10200000u
#define CL_FETCH_EN (CL_CTRL + 0x08)
#define CL_BOOTADDR(i) (CL_CTRL + 0x40 + 4 * (i))
#define CL_ICACHE_EN 0x10201400u
/* Event unit v3, through the per-core demux (the core's own registers) */
#define EU_DEMUX 0x10204000u
#define EU_CORE_MASK_OR (EU_DEMUX + 0x08)
#define EU_BARRIER(id) (EU_DEMUX + 0x200 + 0x20 * (id))
#define EU_BARR_TRIGGER_MASK 0x00
#define EU_BARR_TARGET_MASK 0x0C
#define EU_BARR_TRIGGER_WAIT_CLEAR 0x1C
#define EU_BARRIER_EVENT 16
/* MCHAN v7, through the per-core demux */
#define DMA_CMD 0x10204400u
#define DMA_STATUS 0x10204404u
#define DMA_TYPE_L2_TO_L1 (1u << 17)
#define DMA_INC (1u << 18)
#define DMA_2D (1u << 19)

extern void _cluster_start(void);
int main(int argc, char **argv);

static inline uint32_t hartid(void)
{
    uint32_t h;
    __asm__ volatile("csrr %0, mhartid" : "=r"(h));
    return h;
}

int sir_core_id(void)
{
    const uint32_t h = hartid();
    return (h >> 5) == 31 ? -1 : (int)(h & 0x1f);
}

uint32_t sir_cycles(void)
{
    uint32_t c;
    __asm__ volatile("csrr %0, mcycle" : "=r"(c));
    return c;
}

/* ---- console and exit (picolibc's stdio on GVSoC's stdout device) ---- */

static int sir_putc(char c, FILE *f)
{
    const uint32_t h = hartid();
    (void)f;
    *(volatile uint8_t *)(uintptr_t)(STDOUT_BASE + ((h >> 5) << 7) + ((h & 0x1f) << 3)) = (uint8_t)c;
    return (unsigned char)c;
}

static FILE sir_stdio = FDEV_SETUP_STREAM(sir_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdin = &sir_stdio;
FILE *const stdout = &sir_stdio;
FILE *const stderr = &sir_stdio;

void sir_exit(int code)
{
    REG(CORESTATUS) = 0x80000000u | ((uint32_t)code & 0x7fffffffu);
    for (;;) __asm__ volatile("wfi");
}

void _exit(int code) __attribute__((noreturn));
void _exit(int code) { sir_exit(code); }

/* ---- start-up ---- */

/* The FC (crt0.S, after .bss): enable the cluster's instruction cache and
   start its core 0, then sleep; the simulation ends when core 0 writes
   CORESTATUS. */
void sir_fc_main(void);
void sir_fc_main(void)
{
    REG(CL_ICACHE_EN) = 0xFFFFFFFFu;
    REG(CL_BOOTADDR(0)) = (uint32_t)(uintptr_t)_cluster_start;
    REG(CL_FETCH_EN) = 1u;
    for (;;) __asm__ volatile("wfi");
}

/* The job sir_par_run hands to the worker cores: written by core 0 before
   the fork barrier, read by the workers after it (in L1). */
static struct {
    void (*fn)(void *, int, int);
    void *ctx;
    int ncores;
} volatile sir_job SIR_L1;

static void sir_worker(int core) __attribute__((noreturn));
static void sir_worker(int core)
{
    for (;;) {
        sir_barrier();                          /* fork */
        if (core < sir_job.ncores) sir_job.fn(sir_job.ctx, core, sir_job.ncores);
        sir_barrier();                          /* join */
    }
}

/* Every cluster core (crt0.S, on its own stack). Core 0 programs barrier 0
   for the SIR_CORES cores before any of them can reach it, starts the
   others and runs main(). */
void sir_cluster_entry(int core);
void sir_cluster_entry(int core)
{
    const uint32_t mask = (1u << SIR_CORES) - 1u;
    int i;
    REG(EU_CORE_MASK_OR) = 1u << EU_BARRIER_EVENT;
    if (core != 0) sir_worker(core);
    REG(EU_BARRIER(0) + EU_BARR_TRIGGER_MASK) = mask;
    REG(EU_BARRIER(0) + EU_BARR_TARGET_MASK) = mask;
    for (i = 1; i < SIR_CORES; i++) REG(CL_BOOTADDR(i)) = (uint32_t)(uintptr_t)_cluster_start;
    REG(CL_FETCH_EN) = mask;
    {
        static char *argv[] = {(char *)"siracusa", (char *)"--write-output", (char *)"console", 0};
        sir_exit(main(3, argv));
    }
}

void sir_barrier(void)
{
    (void)REG(EU_BARRIER(0) + EU_BARR_TRIGGER_WAIT_CLEAR);    /* stalls until all arrive */
}

void sir_par_run(void (*fn)(void *, int, int), void *ctx, int ncores)
{
    if (ncores <= 1 || SIR_CORES == 1) {
        int c;
        for (c = 0; c < ncores; c++) fn(ctx, c, ncores);
        return;
    }
    if (ncores > SIR_CORES) {
        printf("sir_par_run: %d cores asked, %d started (SIR_CORES)\n", ncores, SIR_CORES);
        sir_exit(3);
    }
    sir_job.fn = fn;
    sir_job.ctx = ctx;
    sir_job.ncores = ncores;
    sir_barrier();                              /* fork */
    fn(ctx, 0, ncores);
    sir_barrier();                              /* join */
}

/* ---- cluster DMA ---- */

static int sir_dma(uint32_t cmd, const void *l1, const void *l2, uint32_t row, uint32_t stride)
{
    const int id = (int)REG(DMA_CMD);           /* a free transfer id (stalls until one is) */
    REG(DMA_CMD) = cmd;
    REG(DMA_CMD) = (uint32_t)(uintptr_t)l1;
    REG(DMA_CMD) = (uint32_t)(uintptr_t)l2;
    if (cmd & DMA_2D) {
        REG(DMA_CMD) = row;
        REG(DMA_CMD) = stride;
    }
    return id;
}

int sir_dma_in(void *l1, const void *l2, uint32_t bytes)
{
    return sir_dma(bytes | DMA_TYPE_L2_TO_L1 | DMA_INC, l1, l2, 0, 0);
}

int sir_dma_out(void *l2, const void *l1, uint32_t bytes)
{
    return sir_dma(bytes | DMA_INC, l1, l2, 0, 0);
}

int sir_dma_in_2d(void *l1, const void *l2, uint32_t bytes, uint32_t row, uint32_t stride)
{
    return sir_dma(bytes | DMA_TYPE_L2_TO_L1 | DMA_INC | DMA_2D, l1, l2, row, stride);
}

int sir_dma_out_2d(void *l2, const void *l1, uint32_t bytes, uint32_t row, uint32_t stride)
{
    return sir_dma(bytes | DMA_INC | DMA_2D, l1, l2, row, stride);
}

void sir_dma_wait(int id)
{
    while (REG(DMA_STATUS) & (1u << id)) {
    }
    REG(DMA_STATUS) = 1u << id;                 /* free the id */
}

void sir_dma_copy_in(void *l1, const void *l2, uint32_t bytes)
{
    uint8_t *d = (uint8_t *)l1;
    const uint8_t *s = (const uint8_t *)l2;
    while (bytes) {
        const uint32_t n = bytes < SIR_DMA_MAX ? bytes : SIR_DMA_MAX;
        sir_dma_wait(sir_dma_in(d, s, n));
        d += n, s += n, bytes -= n;
    }
}

void sir_dma_copy_out(void *l2, const void *l1, uint32_t bytes)
{
    uint8_t *d = (uint8_t *)l2;
    const uint8_t *s = (const uint8_t *)l1;
    while (bytes) {
        const uint32_t n = bytes < SIR_DMA_MAX ? bytes : SIR_DMA_MAX;
        sir_dma_wait(sir_dma_out(d, s, n));
        d += n, s += n, bytes -= n;
    }
}

static int sir_in_l1(const void *p)
{
    const uintptr_t a = (uintptr_t)p;
    return a >= SIR_L1_BASE && a < SIR_L1_BASE + SIR_L1_SIZE;
}

int sir_dma_start(void *dst, const void *src, uint32_t bytes)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    const int in = sir_in_l1(d), out = sir_in_l1(s);
    int mask = 0;
    if (in == out) {
        /* both in L1 or both in L2: MCHAN moves between the two only */
        while (bytes--) *d++ = *s++;
        return 0;
    }
    while (bytes) {
        const uint32_t n = bytes < SIR_DMA_MAX ? bytes : SIR_DMA_MAX;
        mask |= 1 << (in ? sir_dma_in(d, s, n) : sir_dma_out(d, s, n));
        d += n, s += n, bytes -= n;
    }
    return mask;
}

void sir_dma_wait_mask(int mask)
{
    int id;
    for (id = 0; mask; id++, mask >>= 1)
        if (mask & 1) sir_dma_wait(id);
}

extern uint8_t __l1_free[], __stacks_bottom[];

void *sir_l1_tiles(uint32_t bytes)
{
    if (bytes > (uint32_t)(__stacks_bottom - __l1_free)) {
        printf("sir_l1_tiles: %lu bytes of L1 tiles asked, %lu free between .l1bss and the stacks\n", (unsigned long)bytes,
               (unsigned long)(__stacks_bottom - __l1_free));
        sir_exit(4);
    }
    return __l1_free;
}

/* ---- performance counters (RI5CY: PCER 0xCC0, PCMR 0xCC1, PCCR 0x780+) ---- */

void sir_perf_start(uint32_t events)
{
    __asm__ volatile("csrw 0xCC1, zero" ::: "memory");          /* disable */
    __asm__ volatile("csrw 0x79F, zero" ::: "memory");          /* reset every PCCR */
    __asm__ volatile("csrw 0xCC0, %0" ::"r"(events) : "memory");
    __asm__ volatile("csrw 0xCC1, %0" ::"r"(1u) : "memory");    /* enable */
}

#define PCCR_READ(n) case n: __asm__ volatile("csrr %0, %1" : "=r"(v) : "i"(0x780 + n)); break
uint32_t sir_perf_read(int event)
{
    uint32_t v = 0;
    switch (event) {
        PCCR_READ(0); PCCR_READ(1); PCCR_READ(2); PCCR_READ(3); PCCR_READ(4); PCCR_READ(5);
        PCCR_READ(6); PCCR_READ(7); PCCR_READ(8); PCCR_READ(9); PCCR_READ(10); PCCR_READ(11); PCCR_READ(12); PCCR_READ(13); PCCR_READ(14); PCCR_READ(15); PCCR_READ(16);
        default: break;
    }
    return v;
}

/* ---- N-EUREKA's tiles (siracusa.h, SIR_NEUREKA) ---- */

#ifdef SIR_NEUREKA
uint8_t sir_neu_l1[SIR_NEU_L1_SIZE] SIR_L1;

void sir_fault(const char *what)
{
    printf("sir: fault: %s\n", what);
    sir_exit(4);
}

static int in_l1(const void *p) { return (uint32_t)(uintptr_t)p - SIR_L1_BASE < SIR_L1_SIZE; }
static int in_l2(const void *p) { return (uint32_t)(uintptr_t)p - SIR_L2_BASE < SIR_L2_SIZE; }

void sir_copy_2d(void *dst, const void *src, uint32_t row, uint32_t rows, uint32_t dst_stride, uint32_t src_stride)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    /* the DMA's far side may be L1 too (MCHAN reaches it through the SoC) */
    const int down = in_l1(d) && (in_l2(s) || in_l1(s)), up = !down && (in_l2(d) || in_l1(d)) && in_l1(s);
    uint32_t y, i;
    if (!row || !rows) return;
    if ((down && dst_stride == row) || (up && src_stride == row)) {
        const uint32_t l2_stride = down ? src_stride : dst_stride;
        if (rows == 1 || l2_stride == row) {               /* one contiguous block */
            if (down) sir_dma_copy_in(d, s, row * rows);
            else sir_dma_copy_out(d, s, row * rows);
            return;
        }
        if (row <= 0xffffu && l2_stride <= 0xffffu) {       /* 2-D: the L1 side contiguous */
            const uint32_t per = SIR_DMA_MAX / row;
            for (y = 0; y < rows; y += per) {
                const uint32_t n = rows - y < per ? rows - y : per;
                if (down) sir_dma_wait(sir_dma_in_2d(d + y * row, s + y * l2_stride, n * row, row, l2_stride));
                else sir_dma_wait(sir_dma_out_2d(d + y * l2_stride, s + y * row, n * row, row, l2_stride));
            }
            return;
        }
    }
    for (y = 0; y < rows; y++)                              /* the core */
        for (i = 0; i < row; i++) d[y * dst_stride + i] = s[y * src_stride + i];
}
#endif
