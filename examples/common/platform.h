/* platform.h - what the firmware examples need from the platform they run
   on, so that examples/<model>/main.c stays about the model.

   Platforms (selected by the build, see platform.mk):
     PLATFORM_HOST  Linux/macOS host, counter = CLOCK_MONOTONIC nanoseconds
     PLATFORM_RV32  RV32IMC on qemu-system-riscv32 -M virt, picolibc
                    semihosting, counter = minstret (exact under
                    -icount shift=0,sleep=off)
     PLATFORM_M4    Cortex-M4 on qemu-system-arm -M mps2-an386, picolibc
                    semihosting; QEMU models no cycle counter (DWT CYCCNT
                    reads 0), so the per-layer regions are marked by calls
                    to platform_mark_begin/end, which the qemu plugin
                    common/insncount.c counts exactly.
     PLATFORM_M55   Cortex-M55 (Helium) on qemu-system-arm -M mps3-an547,
                    picolibc semihosting; counted like PLATFORM_M4, the
                    plugin also counts MVE instructions and their beats.
     PLATFORM_SIRACUSA  GVSoC's Siracusa model, bare metal
                    (examples/siracusa: main() runs on cluster core 0,
                    layers fork to SIR_CORES cores), picolibc's stdio on
                    GVSoC's console, counter = cluster core 0's mcycle
                    (cluster cycles)

   Include this before the generated header: it defines HTC_PROFILE_BEGIN
   and HTC_PROFILE_END, which the header calls around every layer. */
#ifndef PLATFORM_H
#define PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(PLATFORM_HOST)
#define PLATFORM_NAME "host"
#define PLATFORM_HAS_COUNTER 1
#define PLATFORM_COUNTER_UNIT "ns"
#elif defined(PLATFORM_RV32)
#define PLATFORM_NAME "rv32"
#define PLATFORM_HAS_COUNTER 1
#define PLATFORM_COUNTER_UNIT "instructions"
#elif defined(PLATFORM_M4)
#define PLATFORM_NAME "m4"
#define PLATFORM_HAS_COUNTER 0          /* none: see platform_mark_* */
#define PLATFORM_COUNTER_UNIT ""
#elif defined(PLATFORM_M55)
#define PLATFORM_NAME "m55"
#define PLATFORM_HAS_COUNTER 0          /* as on the M4 */
#define PLATFORM_COUNTER_UNIT ""
#elif defined(PLATFORM_SIRACUSA)
#include "siracusa.h"               /* binds the header's HTC_PAR_RUN */
#define PLATFORM_NAME "siracusa"
#define PLATFORM_HAS_COUNTER 1
#define PLATFORM_COUNTER_UNIT "cycles"
#else
#error "define PLATFORM_HOST, PLATFORM_RV32, PLATFORM_M4, PLATFORM_M55 or PLATFORM_SIRACUSA (platform.mk does)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The counter (0 when the platform has none). */
uint64_t platform_counter(void);

/* Per-layer profile: the generated header calls these around each layer. */
void platform_prof_begin(int layer, const char *name);
void platform_prof_end(int layer, const char *name);
/* Whole inference, also marked for the qemu plugin. */
void platform_run_begin(void);
void platform_run_end(void);
/* Print "prof: ..." lines: one per layer and the total. */
void platform_prof_print(const char *model);

/* Empty, never inlined: the qemu plugin (common/insncount.c) counts the
   instructions between a call to begin and the matching call to end. */
void platform_mark_begin(void);
void platform_mark_end(void);

/* Deterministic input: xorshift32 from seed, the top byte of each step. */
void platform_fill(void *buf, size_t n, uint32_t seed);
/* FNV-1a 32 of n bytes. */
uint32_t platform_fnv1a(const void *buf, size_t n);
/* Decimal text of a 64-bit value (printf's %llu is optional in picolibc). */
const char *platform_u64(uint64_t v, char buf[24]);
const char *platform_i64(int64_t v, char buf[24]);

/* Host: with "--write-input FILE" / "--write-output FILE" on the command
   line, write the bytes there (tests compare them with htc run). Returns
   0, or -1 if a file could not be written. Siracusa (whose main gets
   "--write-output console"): print them as "save: FLAG N HEX" lines of 64
   bytes. No-op elsewhere. */
int platform_save(int argc, char **argv, const char *flag, const void *data, size_t n);

#ifdef __cplusplus
}
#endif

#define HTC_PROFILE_BEGIN(model, layer, name) platform_prof_begin((layer), (name))
#define HTC_PROFILE_END(model, layer, name) platform_prof_end((layer), (name))

#endif /* PLATFORM_H */
