/* platform.c - counters, profile table, deterministic input, checksums and
   host file output for the firmware examples (see platform.h). */
#if defined(PLATFORM_HOST) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L     /* clock_gettime under -std=c99 */
#endif
#include "platform.h"

#include <string.h>
#if defined(PLATFORM_HOST)
#include <time.h>
#endif

uint64_t platform_counter(void)
{
#if defined(PLATFORM_HOST)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#elif defined(PLATFORM_RV32)
    /* 64-bit minstret on RV32: re-read if the high half moved. */
    uint32_t hi, lo, hi2;
    do {
        __asm__ volatile("csrr %0, minstreth" : "=r"(hi));
        __asm__ volatile("csrr %0, minstret" : "=r"(lo));
        __asm__ volatile("csrr %0, minstreth" : "=r"(hi2));
    } while (hi != hi2);
    return ((uint64_t)hi << 32) | lo;
#elif defined(PLATFORM_SIRACUSA)
    /* mcycle is 32 bits on GVSoC (no mcycleh): extend it, called often
       enough (every layer) to see each wrap */
    static uint32_t last, high;
    const uint32_t now = sir_cycles();
    if (now < last) high++;
    last = now;
    return ((uint64_t)high << 32) | now;
#else
    return 0;
#endif
}

/* The qemu plugin finds these by address; noinline + an empty asm keep one
   real instruction sequence per call. */
__attribute__((noinline)) void platform_mark_begin(void) { __asm__ volatile(""); }
__attribute__((noinline)) void platform_mark_end(void) { __asm__ volatile(""); }

#ifdef PLATFORM_MAX_LAYERS
#define MAX_LAYERS PLATFORM_MAX_LAYERS      /* e.g. MicroLlama's 420 layers */
#else
#define MAX_LAYERS 256
#endif
static uint64_t prof_start[MAX_LAYERS], prof_cycles[MAX_LAYERS];
static const char *prof_name[MAX_LAYERS];
/* the layers' regions in the order they were opened (a layer with no
   hooks, e.g. a reshape that shares its input's storage, opens none) */
static int prof_region[MAX_LAYERS], prof_opened;
static int prof_layers;
static uint64_t run_start, run_cycles;
#if defined(PLATFORM_PERF)
static uint32_t perf_v[MAX_LAYERS][6];
#endif

void platform_prof_begin(int layer, const char *name)
{
    if (layer < 0 || layer >= MAX_LAYERS) return;
    prof_name[layer] = name;
    prof_region[layer] = ++prof_opened;
    if (layer >= prof_layers) prof_layers = layer + 1;
    platform_mark_begin();
#if defined(PLATFORM_SIRACUSA) && defined(PLATFORM_PERF)
    sir_perf_start(0x1007fu);
#endif
    prof_start[layer] = platform_counter();
}

void platform_prof_end(int layer, const char *name)
{
    uint64_t now = platform_counter();
#if defined(PLATFORM_SIRACUSA) && defined(PLATFORM_PERF)
    /* -DPLATFORM_PERF: core 0's RI5CY counters per layer (GVSoC's stall
       counters mislabel some stalls: compare cycles with mcycle), kept and
       printed with the profile: a printf between layers would evict the
       code the next layer finds in the instruction cache */
    if (layer >= 0 && layer < MAX_LAYERS) {
        static const int ev[6] = {1, 2, 3, 4, 5, 16};
        int k;
        for (k = 0; k < 6; k++) perf_v[layer][k] = sir_perf_read(ev[k]);
    }
#endif
    (void)name;
    platform_mark_end();
    if (layer < 0 || layer >= MAX_LAYERS) return;
    prof_cycles[layer] = now - prof_start[layer];
}

void platform_run_begin(void)
{
    prof_layers = 0;
    prof_opened = 0;
    platform_mark_begin();
    run_start = platform_counter();
}

void platform_run_end(void)
{
    run_cycles = platform_counter() - run_start;
    platform_mark_end();
}

void platform_prof_print(const char *model)
{
    char b[24];
    int i;
    if (!PLATFORM_HAS_COUNTER) {
        /* common/insncount.awk puts the plugin's counts into these lines */
        for (i = 0; i < prof_layers; i++)
            if (prof_name[i]) printf("prof: layer %2d %-10s region %d\n", i, prof_name[i], prof_region[i]);
        printf("prof: %s total region 0 on %s\n", model, PLATFORM_NAME);
        return;
    }
    for (i = 0; i < prof_layers; i++)
        if (prof_name[i])
            printf("prof: layer %2d %-10s %12s %s\n", i, prof_name[i], platform_u64(prof_cycles[i], b),
                   PLATFORM_COUNTER_UNIT);
#if defined(PLATFORM_SIRACUSA) && defined(PLATFORM_PERF)
    for (i = 0; i < prof_layers; i++)
        if (prof_name[i])
            printf("perf: layer %d insn %u ldstall %u jmpstall %u imiss %u loads %u tcdm %u\n", i,
                   (unsigned)perf_v[i][0], (unsigned)perf_v[i][1], (unsigned)perf_v[i][2], (unsigned)perf_v[i][3],
                   (unsigned)perf_v[i][4], (unsigned)perf_v[i][5]);
#endif
    printf("prof: %s total %s %s on %s\n", model, platform_u64(run_cycles, b), PLATFORM_COUNTER_UNIT,
           PLATFORM_NAME);
}

void platform_fill(void *buf, size_t n, uint32_t seed)
{
    uint8_t *p = (uint8_t *)buf;
    uint32_t x = seed ? seed : 0x9e3779b9u;
    size_t i;
    for (i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)(x >> 24);
    }
}

uint32_t platform_fnv1a(const void *buf, size_t n)
{
    const uint8_t *p = (const uint8_t *)buf;
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

const char *platform_u64(uint64_t v, char buf[24])
{
    char *p = buf + 23;
    *p = 0;
    do *--p = (char)('0' + v % 10); while (v /= 10);
    return p;
}

const char *platform_i64(int64_t v, char buf[24])
{
    char *p;
    if (v >= 0) return platform_u64((uint64_t)v, buf);
    p = (char *)platform_u64((uint64_t)0 - (uint64_t)v, buf);
    *--p = '-';
    return p;
}

int platform_save(int argc, char **argv, const char *flag, const void *data, size_t n)
{
#if defined(PLATFORM_HOST)
    int i;
    for (i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], flag) == 0) {
            FILE *f = fopen(argv[i + 1], "wb");
            int bad = !f || fwrite(data, 1, n, f) != n;
            if (f && fclose(f) != 0) bad = 1;
            if (bad) {
                fprintf(stderr, "cannot write %s\n", argv[i + 1]);
                return -1;
            }
        }
    }
#elif defined(PLATFORM_SIRACUSA)
    static const char hex[] = "0123456789abcdef";
    const uint8_t *p = (const uint8_t *)data;
    char line[2 * 64 + 1];
    size_t j;
    int i;
    for (i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], flag) == 0 && strcmp(argv[i + 1], "console") == 0) {
            for (j = 0; j < n; j += 64) {
                size_t k, m = n - j < 64 ? n - j : 64;
                for (k = 0; k < m; k++) {
                    line[2 * k] = hex[p[j + k] >> 4];
                    line[2 * k + 1] = hex[p[j + k] & 15];
                }
                line[2 * m] = 0;
                printf("save: %s %u %s\n", flag, (unsigned)n, line);
            }
        }
    }
#else
    (void)argc, (void)argv, (void)flag, (void)data, (void)n;
#endif
    return 0;
}
