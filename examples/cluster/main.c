/* examples/cluster - a generated header's cluster layers on host threads:
   HTC_PAR_RUN bound by examples/common/htc_pool.h to a pool of
   MODEL_CORES - 1 persistent POSIX threads plus the calling thread (core
   0). Each fork hands the layer function to every worker, runs core 0's
   share, and waits until all shares are done: the join is the barrier
   between layers; a layer the pool measures faster on one core runs there. Layers tiled into the cluster's L1
   move their bands through HTC_DMA_START / HTC_DMA_WAIT on a DMA thread,
   into a separate L1 buffer (MODEL_L1). The output bytes equal the serial
   build's (the kernels' shares are disjoint and exact).

   htc compile MODEL -t targets/siracusa.lua -D cores=8 -o model.h --name model
   cc -std=c11 -O2 -pthread -I. -Iexamples/common examples/cluster/main.c -o cluster
   ./cluster input.bin output.bin [N]    (raw bytes: MODEL_INPUT_SIZE in; N
                                          runs, every output must be equal)

   tests/test_cluster.py builds it with -fsanitize=thread. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htc_pool.h"                /* binds HTC_PAR_RUN */
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

static unsigned char arena[MODEL_ARENA_SIZE] __attribute__((aligned(MODEL_ARENA_ALIGN)));
static unsigned char input[MODEL_INPUT_SIZE], output[MODEL_OUTPUT_SIZE], first[MODEL_OUTPUT_SIZE];

int main(int argc, char **argv)
{
    pthread_t dma_th;
    FILE *f;
    int rc = 0, runs = argc > 3 ? atoi(argv[3]) : 1, i, threads;
    if (argc < 3 || argc > 4 || runs < 1) {
        fprintf(stderr, "usage: %s input.bin output.bin [runs]\n", argv[0]);
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
    if (pthread_create(&dma_th, NULL, dma_engine, NULL) != 0 || htc_pool_start(MODEL_CORES) != 0) {
        fprintf(stderr, "cluster: pthread_create failed\n");
        return 1;
    }
    /* every run through the pool's choices (divided, one core, divided,
       then the faster): the same bytes each time */
    for (i = 0; i < runs && !rc; i++) {
        rc = model_run(input, output, arena);
        if (i == 0) memcpy(first, output, sizeof output);
        else if (memcmp(first, output, sizeof output)) {
            fprintf(stderr, "cluster: run %d's output differs from the first run's\n", i + 1);
            rc = -1;
        }
    }
    threads = htc_pool.nthreads + 1;
    htc_pool_stop();
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
    printf("cluster: %d cores (%d threads), %d runs, %u bytes out\n", MODEL_CORES, threads, runs,
           (unsigned)sizeof output);
    return 0;
}
