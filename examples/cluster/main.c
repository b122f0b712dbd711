/* examples/cluster - a generated header's cluster layers on host threads:
   HTC_PAR_RUN bound to a pool of MODEL_CORES - 1 POSIX threads plus the
   calling thread (core 0). Each fork hands the layer function to every
   worker, runs core 0's share, and waits until all shares are done: the
   join is the barrier between layers. The output bytes equal the serial
   build's (the kernels' shares are disjoint and exact).

   htc compile MODEL -t targets/siracusa.lua -D cores=8 -o model.h --name model
   cc -O2 -pthread -I. examples/cluster/main.c -o cluster
   ./cluster input.bin output.bin        (raw bytes: MODEL_INPUT_SIZE in)

   tests/test_cluster.py builds it with -fsanitize=thread. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void par_run(void (*fn)(void *, int, int), void *ctx, int ncores);
#define HTC_PAR_RUN(fn, ctx, ncores) par_run((fn), (ctx), (ncores))

#define MODEL_IMPLEMENTATION
#include "model.h"

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
    pthread_t th[MAX_CORES];
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
