/* bench.c - see bench.h (the firmware side of bench/mcu: marks for the qemu
   plugin, input bytes, stack high-water) */
#include "bench.h"
#include <stdio.h>

#ifndef BENCH_PAINT
#define BENCH_PAINT (256 * 1024)
#endif

__attribute__((noinline)) void bench_mark_begin(void) { __asm__ volatile(""); }
__attribute__((noinline)) void bench_mark_end(void) { __asm__ volatile(""); }

void bench_fill(void *buf, size_t n, uint32_t seed)
{
    uint8_t *p = (uint8_t *)buf;
    uint32_t x = seed ? seed : 0x9e3779b9u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)(x >> 24);
    }
}

uint32_t bench_fnv1a(const void *buf, size_t n)
{
    const uint8_t *p = (const uint8_t *)buf;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

extern char __stack[];          /* top of RAM: picolibc.ld */
extern char __heap_start[];     /* end of .bss: picolibc.ld */
static volatile uint8_t *paint_lo;

__attribute__((noinline)) void bench_stack_paint(void)
{
    volatile uint8_t *sp = (volatile uint8_t *)__builtin_frame_address(0) - 64;
    volatile uint8_t *lo = (volatile uint8_t *)__stack - BENCH_PAINT;
    if (lo < (volatile uint8_t *)__heap_start + 4096) lo = (volatile uint8_t *)__heap_start + 4096;
    paint_lo = lo;
    for (volatile uint8_t *p = lo; p < sp; p++) *p = 0xa5;
}

size_t bench_stack_used(void)
{
    volatile uint8_t *p = paint_lo;
    while (p < (volatile uint8_t *)__stack && *p == 0xa5) p++;
    if (p == paint_lo) return (size_t)-1;   /* overflowed the painted window */
    return (size_t)((volatile uint8_t *)__stack - p);
}

void bench_print_hex(const char *tag, const void *buf, size_t n)
{
    const uint8_t *p = (const uint8_t *)buf;
    printf("%s", tag);
    for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
    printf("\n");
}
