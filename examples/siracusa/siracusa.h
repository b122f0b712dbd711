/* siracusa.h - bare-metal runtime for GVSoC's model of Siracusa (PULP: a
   RISC-V fabric controller and an 8-core cluster sharing a 256 KiB L1).
   No vendor SDK: crt0.S, the linker scripts and siracusa.c are the whole of it.

   Start-up: the fabric controller (FC) boots at _start, zeroes .bss and
   starts the cluster's core 0, which programs the event unit's barrier,
   starts cores 1..SIR_CORES-1 and calls main() (on cluster core 0: its
   mcycle counts cluster cycles); the other cores wait for work
   (sir_par_run). main's return value is the exit code of the simulation;
   its arguments are {"siracusa", "--write-output", "console"} (the
   examples' platform_save prints the output bytes when it sees them).

   Include this before a generated header: it binds the header's fork/join
   hook HTC_PAR_RUN to the cluster. Addresses and register layouts are
   those of GVSoC's pulp/chips/siracusa (soc.json, cluster.json) and its
   event unit v3 and MCHAN v7 models. */
#ifndef SIRACUSA_H
#define SIRACUSA_H

#include <stdint.h>

#ifndef SIR_CORES
#define SIR_CORES 8             /* cluster cores started (1..8) */
#endif
#if SIR_CORES < 1 || SIR_CORES > 8
#error "SIR_CORES must be 1..8"
#endif

#define SIR_L1_BASE 0x10000000u         /* 256 KiB TCDM, 16 banks */
#define SIR_L1_SIZE 0x40000u
#define SIR_L2_BASE 0x1C000000u         /* 2 MiB */
#define SIR_L2_SIZE 0x200000u

/* Data the cluster reads often (small tables, scratch) may go to L1:
   `static int8_t buf[256] SIR_L1;` (zeroed at start-up). */
#define SIR_L1 __attribute__((section(".l1bss"), aligned(16)))

#ifdef __cplusplus
extern "C" {
#endif

/* This core's number in the cluster (0..8), or -1 on the FC. */
int sir_core_id(void);

/* The cycle counter (mcycle) of the calling core. On the cluster it
   counts cluster clock cycles; the FC has its own clock domain. GVSoC
   implements no mcycleh: the count wraps after 2^32 cycles, so take
   differences (modulo 2^32) of intervals shorter than that. */
uint32_t sir_cycles(void);

/* Hardware barrier (event unit barrier 0) of the SIR_CORES cluster cores. */
void sir_barrier(void);

/* Fork/join from cluster core 0: fn(ctx, c, ncores) runs once for every
   c = 0..ncores-1, call c on cluster core c (core 0 takes c = 0); returns
   when every call has returned. ncores <= SIR_CORES; ncores == 1 is a
   plain call. */
void sir_par_run(void (*fn)(void *ctx, int core, int ncores), void *ctx, int ncores);

/* Cluster DMA (MCHAN): asynchronous copies between L2 and L1; each call
   returns a transfer id for sir_dma_wait. Lengths up to 128 KiB - 1 per
   transfer (SIR_DMA_MAX). 2-D: `bytes` in rows of `row` bytes, the L2
   rows `stride` bytes apart, the L1 rows contiguous. */
#define SIR_DMA_MAX 0x1ffffu
int sir_dma_in(void *l1, const void *l2, uint32_t bytes);
int sir_dma_out(void *l2, const void *l1, uint32_t bytes);
int sir_dma_in_2d(void *l1, const void *l2, uint32_t bytes, uint32_t row, uint32_t stride);
int sir_dma_out_2d(void *l2, const void *l1, uint32_t bytes, uint32_t row, uint32_t stride);
void sir_dma_wait(int id);
/* Blocking copy of any length (split into SIR_DMA_MAX pieces). */
void sir_dma_copy_in(void *l1, const void *l2, uint32_t bytes);
void sir_dma_copy_out(void *l2, const void *l1, uint32_t bytes);

/* The generated header's L1 tiles (htc.h "The cluster's local memory"):
   HTC_DMA_START(dst, src, bytes) starts the copies (one per SIR_DMA_MAX
   bytes; L2 -> L1 or L1 -> L2 by the addresses, a plain copy when both are
   in the same memory) and returns a mask of their transfer ids, which
   HTC_DMA_WAIT waits for and frees. sir_l1_tiles(bytes) is the free L1
   between .l1bss and the cluster's stacks (sections.ld __l1_free); it ends
   the program with a message when fewer than `bytes` are free. Build with
   SIR_MEM=tile (sir-tile.ld: arena and weights in L2) and
   -DNAME_L1='sir_l1_tiles(NAME_L1_SIZE)' (examples/common/platform.mk). */
int sir_dma_start(void *dst, const void *src, uint32_t bytes);
void sir_dma_wait_mask(int mask);
void *sir_l1_tiles(uint32_t bytes);

/* RI5CY performance counters of the calling core: sir_perf_start(events)
   resets and enables the events in the mask (bit e = event e: 0 cycles,
   1 instructions, 2 load stalls, 3 jump stalls, 4 icache misses, 5 loads,
   6 stores, 16 TCDM contention); sir_perf_read(e) reads one. */
void sir_perf_start(uint32_t events);
uint32_t sir_perf_read(int event);

/* End the simulation with this exit code (bit 31 of CORESTATUS). */
void sir_exit(int code) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

/* The generated header's fork/join hook (htc.h, "Multi-core clusters"). */
#define HTC_PAR_RUN(fn, ctx, ncores) sir_par_run((fn), (ctx), (ncores))
/* and its DMA hooks (used when the firmware defines NAME_L1) */
#define HTC_DMA_START(dst, src, bytes) sir_dma_start((dst), (src), (uint32_t)(bytes))
#define HTC_DMA_WAIT(handle) sir_dma_wait_mask(handle)

/* N-EUREKA (-DSIR_NEUREKA, for headers compiled with -D engines=neureka or
   both): the header's engine layers drive the engine through its registers
   (kernels/neureka.c, HTC_NEUREKA_REGS) instead of the host VP's device
   model. Its tiles live in sir_neu_l1 (SIR_NEU_L1_SIZE bytes of L1, at
   least the target's L1 bytes used by any engine layer: htc compile -D
   l1_kib=N), its weights resident in the weight memory's SRAM
   (0x10800000: HTC_ENGINE_WEIGHTS, section .wmem);
   sir_copy_2d moves the tiles (the cluster DMA between L2 and L1, the
   core otherwise). */
#ifdef SIR_NEUREKA
#ifndef SIR_NEU_L1_SIZE
#define SIR_NEU_L1_SIZE 0x10000u
#endif
#ifdef __cplusplus
extern "C" {
#endif
extern uint8_t sir_neu_l1[];
/* rows of row_bytes, dst rows dst_stride bytes apart, src rows src_stride */
void sir_copy_2d(void *dst, const void *src, uint32_t row_bytes, uint32_t rows, uint32_t dst_stride,
                 uint32_t src_stride);
/* prints "sir: fault: WHAT" and ends the simulation with exit code 4 */
void sir_fault(const char *what) __attribute__((noreturn));
#ifdef __cplusplus
}
#endif
#define HTC_NEUREKA_REGS 1
/* the layers' weights resident in the weight memory (GVSoC's loader writes them) */
#define HTC_ENGINE_WEIGHTS __attribute__((section(".wmem")))
#define HTC_DEVICE_FAULT(what) sir_fault(what)
#define HTC_NEU_L1 sir_neu_l1
#define HTC_NEU_L1_SIZE SIR_NEU_L1_SIZE
/* n bytes at p in the cluster's L1 (the engine reaches them without a copy) */
#define HTC_NEU_IN_L1(p, n) ((uint32_t)(uintptr_t)(p) - SIR_L1_BASE + (uint32_t)(n) <= SIR_L1_SIZE)
#define HTC_NEU_WMEM ((uint8_t *)0x10800000u)
#define HTC_NEU_COPY(dst, src, row, rows, dst_stride, src_stride) \
    sir_copy_2d((dst), (src), (row), (rows), (dst_stride), (src_stride))
#endif

#endif /* SIRACUSA_H */
