/* bench/pool/run.c - host time per inference of a generated header whose
   layers are divided over cores, by how HTC_PAR_RUN is bound (one of):
     -DPOOL    examples/common/htc_pool.h: persistent threads, polling
               forks, each layer on the faster of divided / one core
     -DSPAWN   a new thread per share of every fork, joined at once (what
               a first binding often is)
     neither   the header's default: every share on the calling thread
   ./run RUNS: RUNS inferences on fixed input bytes after one warm-up; prints
   "ns N" (the median of the runs' times) and "fnv HASH" of the output.
   bench/bench_pool.py builds and runs it. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(POOL)
#include "htc_pool.h"
#elif defined(SPAWN)
struct spawn_arg {
    void (*fn)(void *, int, int);
    void *ctx;
    int core, n;
};
static void *spawn_main(void *p)
{
    struct spawn_arg *a = (struct spawn_arg *)p;
    a->fn(a->ctx, a->core, a->n);
    return NULL;
}
static void spawn_run(void (*fn)(void *, int, int), void *ctx, int n)
{
    pthread_t th[64];
    struct spawn_arg a[64];
    int c;
    for (c = 1; c < n && c < 64; c++) {
        a[c].fn = fn, a[c].ctx = ctx, a[c].core = c, a[c].n = n;
        if (pthread_create(&th[c], NULL, spawn_main, &a[c])) abort();
    }
    fn(ctx, 0, n);
    for (c = 1; c < n && c < 64; c++) pthread_join(th[c], NULL);
}
#define HTC_PAR_RUN(fn, ctx, n) spawn_run((fn), (ctx), (n))
#endif

#define MODEL_IMPLEMENTATION
#include "model.h"
#ifndef MODEL_CORES
#define MODEL_CORES 1
#endif

static uint8_t arena[MODEL_ARENA_SIZE] __attribute__((aligned(MODEL_ARENA_ALIGN)));
static uint8_t input[MODEL_INPUT_SIZE], output[MODEL_OUTPUT_SIZE];

static uint64_t now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 20, i;
    uint64_t *t;
    uint32_t x = 0x6b77u, h = 2166136261u;
    if (runs < 1 || !(t = malloc(sizeof *t * (size_t)runs))) return 2;
    for (i = 0; i < (int)sizeof input; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        input[i] = (uint8_t)(x >> 24);
    }
#ifdef POOL
    if (htc_pool_start(MODEL_CORES)) return 1;
#endif
    if (model_run(input, output, arena)) return 1;
    for (i = 0; i < runs; i++) {
        uint64_t t0 = now();
        if (model_run(input, output, arena)) return 1;
        t[i] = now() - t0;
    }
#ifdef POOL
    htc_pool_stop();
#endif
    qsort(t, (size_t)runs, sizeof *t, cmp);
    for (i = 0; i < (int)sizeof output; i++) h = (h ^ output[i]) * 16777619u;
    printf("ns %llu\nfnv %08lx\n", (unsigned long long)t[runs / 2], (unsigned long)h);
    return 0;
}
