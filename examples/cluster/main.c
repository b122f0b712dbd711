/* examples/cluster - a generated header's cluster layers on host threads:
   HTC_PAR_RUN bound to a pool of MODEL_CORES - 1 POSIX threads plus the
   calling thread (core 0). Each fork hands the layer function to every
   worker, runs core 0's share, and waits until all shares are done: the
   join is the barrier between layers. Layers tiled into the cluster's L1
   move their bands through HTC_DMA_START / HTC_DMA_WAIT on a DMA thread,
   into a separate L1 buffer (MODEL_L1). The output bytes equal the serial
   build's (the kernels' shares are disjoint and exact).

   htc compile MODEL -t targets/siracusa.lua -D cores=8 -o model.h --name model
   cc -O2 -pthread -I. examples/cluster/main.c -o cluster
   ./cluster input.bin output.bin        (raw bytes: MODEL_INPUT_SIZE in)

   tests/test_cluster.py builds it with -fsanitize=thread. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void par_run(void (*fn)(void *, int, int), void *ctx, int ncores);
#define HTC_PAR_RUN(fn, ctx, ncores) par_run((fn), (ctx), (ncores))
/* the L1 tiles' bands move on a DMA thread, asynchronously, like the
   cluster DMA: ThreadSanitizer sees whether the header waits for every
   transfer before touching its buffers */
static int dma_start(void *dst, const void *src, size_t bytes);
static void dma_wait(int handle);
#define HTC_DMA_START(dst, src, bytes) dma_start((dst), (src), (bytes))
#define HTC_DMA_WAIT(handle) dma_wait(handle)
extern unsigned char l1mem[];           /* the tiles' buffers, apart from the arena */
#define MODEL_L1 l1mem

#define MODEL_IMPLEMENTATION
#include "model.h"

#ifdef MODEL_L1_SIZE
unsigned char l1mem[MODEL_L1_SIZE] __attribute__((aligned(16)));
#endif

#define DMA_QUEUE 64
static struct {
    pthread_mutex_t mu;
    pthread_cond_t queued, finished;
    struct {
        void *dst;
        const void *src;
        size_t bytes;
    } q[DMA_QUEUE];
    unsigned head, done;                /* transfers started, finished (in order) */
    int quit;
} dma = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, {{NULL, NULL, 0}}, 0, 0, 0};

static int dma_start(void *dst, const void *src, size_t bytes)
{
    int id;
    pthread_mutex_lock(&dma.mu);
    while (dma.head - dma.done >= DMA_QUEUE) pthread_cond_wait(&dma.finished, &dma.mu);
    dma.q[dma.head % DMA_QUEUE].dst = dst;
    dma.q[dma.head % DMA_QUEUE].src = src;
    dma.q[dma.head % DMA_QUEUE].bytes = bytes;
    id = (int)dma.head++;
    pthread_cond_signal(&dma.queued);
    pthread_mutex_unlock(&dma.mu);
    return id;
}

static void dma_wait(int handle)
{
    pthread_mutex_lock(&dma.mu);
    while ((int)dma.done <= handle) pthread_cond_wait(&dma.finished, &dma.mu);
    pthread_mutex_unlock(&dma.mu);
}

static void *dma_engine(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&dma.mu);
    for (;;) {
        void *d;
        const void *s;
        size_t n;
        while (dma.done == dma.head && !dma.quit) pthread_cond_wait(&dma.queued, &dma.mu);
        if (dma.done == dma.head) break;
        d = dma.q[dma.done % DMA_QUEUE].dst;
        s = dma.q[dma.done % DMA_QUEUE].src;
        n = dma.q[dma.done % DMA_QUEUE].bytes;
        pthread_mutex_unlock(&dma.mu);
        memcpy(d, s, n);
        pthread_mutex_lock(&dma.mu);
        dma.done++;
        pthread_cond_broadcast(&dma.finished);
    }
    pthread_mutex_unlock(&dma.mu);
    return NULL;
}

#define MAX_CORES 64

static struct {
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    unsigned long generation;       /* one per fork */
    int pending;                    /* workers still computing this fork */
    int quit;
    void (*fn)(void *, int, int);
    void *ctx;
    int ncores;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, NULL, NULL, 0};

static void *worker(void *arg)
{
    const int core = (int)(intptr_t)arg;
    unsigned long seen = 0;
    for (;;) {
        void (*fn)(void *, int, int);
        void *ctx;
        int n;
        pthread_mutex_lock(&pool.mu);
        while (pool.generation == seen && !pool.quit) pthread_cond_wait(&pool.start, &pool.mu);
        if (pool.quit) {
            pthread_mutex_unlock(&pool.mu);
            return NULL;
        }
        seen = pool.generation;
        fn = pool.fn;
        ctx = pool.ctx;
        n = pool.ncores;
        pthread_mutex_unlock(&pool.mu);
        if (core < n) fn(ctx, core, n);
        pthread_mutex_lock(&pool.mu);
        if (--pool.pending == 0) pthread_cond_signal(&pool.done);
        pthread_mutex_unlock(&pool.mu);
    }
}

static int nworkers;

/* fork: every worker gets the layer; core 0 is this thread; join */
static void par_run(void (*fn)(void *, int, int), void *ctx, int ncores)
{
    pthread_mutex_lock(&pool.mu);
    pool.fn = fn;
    pool.ctx = ctx;
    pool.ncores = ncores;
    pool.pending = nworkers;
    pool.generation++;
    pthread_cond_broadcast(&pool.start);
    pthread_mutex_unlock(&pool.mu);
    fn(ctx, 0, ncores);
    for (int c = nworkers + 1; c < ncores; c++) fn(ctx, c, ncores);    /* more cores than threads */
    pthread_mutex_lock(&pool.mu);
    while (pool.pending) pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
}

static unsigned char arena[MODEL_ARENA_SIZE] __attribute__((aligned(MODEL_ARENA_ALIGN)));
static unsigned char input[MODEL_INPUT_SIZE], output[MODEL_OUTPUT_SIZE];

int main(int argc, char **argv)
{
    pthread_t th[MAX_CORES], dma_th;
    FILE *f;
    int rc;
    if (argc != 3) {
        fprintf(stderr, "usage: %s input.bin output.bin\n", argv[0]);
        return 2;
    }
    f = fopen(argv[1], "rb");
    if (!f || fread(input, 1, sizeof input, f) != sizeof input) {
        fprintf(stderr, "cluster: cannot read %u bytes from %s\n", (unsigned)sizeof input, argv[1]);
        return 1;
    }
    fclose(f);
    (void)dma_start;                    /* unused when no layer is tiled */
    (void)dma_wait;
    if (pthread_create(&dma_th, NULL, dma_engine, NULL) != 0) {
        fprintf(stderr, "cluster: pthread_create failed\n");
        return 1;
    }
    nworkers = MODEL_CORES - 1 < MAX_CORES ? MODEL_CORES - 1 : MAX_CORES;
    for (int i = 0; i < nworkers; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(i + 1)) != 0) {
            fprintf(stderr, "cluster: pthread_create failed\n");
            return 1;
        }
    rc = model_run(input, output, arena);
    pthread_mutex_lock(&pool.mu);
    pool.quit = 1;
    pthread_cond_broadcast(&pool.start);
    pthread_mutex_unlock(&pool.mu);
    for (int i = 0; i < nworkers; i++) pthread_join(th[i], NULL);
    pthread_mutex_lock(&dma.mu);
    dma.quit = 1;
    pthread_cond_broadcast(&dma.queued);
    pthread_mutex_unlock(&dma.mu);
    pthread_join(dma_th, NULL);
    if (rc) {
        fprintf(stderr, "cluster: model_run failed (%d)\n", rc);
        return 1;
    }
    f = fopen(argv[2], "wb");
    if (!f || fwrite(output, 1, sizeof output, f) != sizeof output || fclose(f)) {
        fprintf(stderr, "cluster: cannot write %s\n", argv[2]);
        return 1;
    }
    printf("cluster: %d cores (%d threads), %u bytes out\n", MODEL_CORES, nworkers + 1, (unsigned)sizeof output);
    return 0;
}
