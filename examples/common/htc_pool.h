/* htc_pool.h - a generated header's multi-core layers on a pool of
   persistent POSIX threads: HTC_PAR_RUN bound, never slower than one core.

   Include it before the generated header (in the file that defines
   NAME_IMPLEMENTATION), start the pool once, run the model as often as
   wanted, stop it:

       #include "htc_pool.h"
       #define MODEL_IMPLEMENTATION
       #include "model.h"
       ...
       htc_pool_start(MODEL_CORES);          (MODEL_CORES - 1 threads)
       model_run(input, output, arena);
       htc_pool_stop();

   C11 (atomics) and POSIX threads: cc -std=c11 -pthread. One pool per
   program; HTC_PAR_RUN may be called from one thread at a time (the thread
   that runs the model is core 0).

   Why not a thread per fork: creating and joining a thread costs tens of
   microseconds, more than many layers' work (a thread per call made VWW
   4x slower on two cores than on one). Here a fork is one atomic
   increment: the workers poll the fork counter while forks come (for
   HTC_POOL_SPIN_NS after their last share, default 200 us, with the CPU's
   pause hint and sched_yield every 16 polls, so that a host with fewer
   processors than threads runs the threads that have work), then sleep on
   a condition variable until the next one; the join is core 0 polling the
   count of shares still running the same way, then sleeping until the
   last share signals.

   Never slower than one core: a layer is one function (the header's
   name__layerN_par), and the pool times its calls. Its first and third calls run
   on every core, its second on the calling thread alone; from then on each
   call takes the faster way (the divided time the better of its two: the
   first call's caches are cold), measured again every HTC_POOL_RECHECK
   calls (default 256). The output bytes are the same either way (the
   shares are disjoint and exact), so only the time changes. Define
   HTC_POOL_ADAPT 0 to always divide. The estimate at compile time
   (targets' cpu.fork) already keeps small layers on one core; this is for
   the host whose fork cost and load it cannot know.

   htc_pool_stats() fills, per layer function seen, its serial and
   parallel times (ns, the best measured) and the choice. */
#ifndef HTC_POOL_H
#define HTC_POOL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#ifndef HTC_POOL_MAX
#define HTC_POOL_MAX 64                 /* threads (cores - 1) at most */
#endif
#ifndef HTC_POOL_SPIN_NS
#define HTC_POOL_SPIN_NS 200000         /* a worker polls this long after a share, then sleeps */
#endif
#ifndef HTC_POOL_ADAPT
#define HTC_POOL_ADAPT 1
#endif
#ifndef HTC_POOL_RECHECK
#define HTC_POOL_RECHECK 256
#endif
#ifndef HTC_POOL_LAYERS
#define HTC_POOL_LAYERS 1024            /* layer functions timed (more: always divided) */
#endif

typedef void (*htc_pool_fn)(void *ctx, int core, int ncores);

typedef struct {
    htc_pool_fn fn;
    uint64_t serial_ns, parallel_ns;    /* last measured (parallel: the better of two) */
    unsigned calls;
    int parallel;                       /* the current choice */
} htc_pool_layer;

static struct {
    pthread_t th[HTC_POOL_MAX];
    int nthreads;                       /* workers: cores 1..nthreads */
    atomic_uint gen;                    /* forks published */
    atomic_int pending;                 /* workers still running the current fork */
    atomic_int sleepers;                /* workers asleep on wake */
    atomic_int quit;
    atomic_int joiner;                  /* core 0 asleep on done */
    unsigned start_gen;                 /* gen when the workers were created */
    htc_pool_fn fn;                     /* written before gen is incremented */
    void *ctx;
    int ncores;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    htc_pool_layer layer[HTC_POOL_LAYERS];
    int nlayers;
} htc_pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static inline uint64_t htc_pool_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void htc_pool_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || (defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7)
    __asm__ volatile("yield");
#endif
}

static inline void *htc_pool_worker(void *arg)
{
    const int core = (int)(intptr_t)arg;
    unsigned seen = htc_pool.start_gen;     /* not gen now: a fork may come before this thread runs */
    for (;;) {
        unsigned g;
        uint64_t t0 = htc_pool_ns();
        int polls = 0;
        while ((g = atomic_load_explicit(&htc_pool.gen, memory_order_acquire)) == seen) {
            if (atomic_load_explicit(&htc_pool.quit, memory_order_relaxed)) return NULL;
            htc_pool_relax();
            if (++polls % 16) continue;
            sched_yield();              /* a host with fewer processors than threads */
            if (htc_pool_ns() - t0 < HTC_POOL_SPIN_NS) continue;
            /* sleep: the forking thread sees sleepers > 0 (seq_cst on both
               sides) or this thread sees the new generation */
            pthread_mutex_lock(&htc_pool.mu);
            atomic_fetch_add(&htc_pool.sleepers, 1);
            while (atomic_load(&htc_pool.gen) == seen && !atomic_load(&htc_pool.quit))
                pthread_cond_wait(&htc_pool.wake, &htc_pool.mu);
            atomic_fetch_sub(&htc_pool.sleepers, 1);
            pthread_mutex_unlock(&htc_pool.mu);
            t0 = htc_pool_ns();
        }
        seen = g;
        if (core < htc_pool.ncores) htc_pool.fn(htc_pool.ctx, core, htc_pool.ncores);
        if (atomic_fetch_sub(&htc_pool.pending, 1) == 1 && atomic_load(&htc_pool.joiner)) {
            pthread_mutex_lock(&htc_pool.mu);       /* the last share: wake core 0 */
            pthread_cond_signal(&htc_pool.done);
            pthread_mutex_unlock(&htc_pool.mu);
        }
    }
}

/* ncores - 1 worker threads (at most HTC_POOL_MAX); 0, or -1 when a thread
   could not be created (the pool then runs every share on the caller) */
static inline int htc_pool_start(int ncores)
{
    int i, n = ncores - 1 < HTC_POOL_MAX ? ncores - 1 : HTC_POOL_MAX;
    atomic_store(&htc_pool.quit, 0);
    htc_pool.start_gen = atomic_load(&htc_pool.gen);
    for (i = 0; i < n; i++)
        if (pthread_create(&htc_pool.th[i], NULL, htc_pool_worker, (void *)(intptr_t)(i + 1)) != 0) break;
    htc_pool.nthreads = i;
    return i == n || n < 0 ? 0 : -1;
}

static inline void htc_pool_stop(void)
{
    int i;
    pthread_mutex_lock(&htc_pool.mu);
    atomic_store(&htc_pool.quit, 1);
    pthread_cond_broadcast(&htc_pool.wake);
    pthread_mutex_unlock(&htc_pool.mu);
    for (i = 0; i < htc_pool.nthreads; i++) pthread_join(htc_pool.th[i], NULL);
    htc_pool.nthreads = 0;
}

/* every share on the pool: core 0 here, core c on worker c (the shares of
   cores beyond the workers here too), back when all are done */
static inline void htc_pool_fork(htc_pool_fn fn, void *ctx, int ncores)
{
    int c, polls = 0;
    uint64_t t0;
    htc_pool.fn = fn;
    htc_pool.ctx = ctx;
    htc_pool.ncores = ncores;
    atomic_store(&htc_pool.pending, htc_pool.nthreads);
    atomic_fetch_add(&htc_pool.gen, 1);                  /* seq_cst: releases fn, ctx, ncores */
    if (atomic_load(&htc_pool.sleepers) > 0) {
        pthread_mutex_lock(&htc_pool.mu);
        pthread_cond_broadcast(&htc_pool.wake);
        pthread_mutex_unlock(&htc_pool.mu);
    }
    fn(ctx, 0, ncores);
    for (c = htc_pool.nthreads + 1; c < ncores; c++) fn(ctx, c, ncores);
    t0 = htc_pool_ns();
    while (atomic_load_explicit(&htc_pool.pending, memory_order_acquire) > 0) {
        htc_pool_relax();
        if (++polls % 16) continue;
        sched_yield();
        if (htc_pool_ns() - t0 < HTC_POOL_SPIN_NS) continue;
        pthread_mutex_lock(&htc_pool.mu);           /* as a worker sleeps: Dekker on joiner / pending */
        atomic_store(&htc_pool.joiner, 1);
        while (atomic_load(&htc_pool.pending) > 0) pthread_cond_wait(&htc_pool.done, &htc_pool.mu);
        atomic_store(&htc_pool.joiner, 0);
        pthread_mutex_unlock(&htc_pool.mu);
    }
}

static inline htc_pool_layer *htc_pool_find(htc_pool_fn fn)
{
    int i;
    for (i = 0; i < htc_pool.nlayers; i++)
        if (htc_pool.layer[i].fn == fn) return &htc_pool.layer[i];
    if (htc_pool.nlayers == HTC_POOL_LAYERS) return NULL;
    htc_pool.layer[htc_pool.nlayers].fn = fn;
    htc_pool.layer[htc_pool.nlayers].parallel = 1;
    return &htc_pool.layer[htc_pool.nlayers++];
}

static inline void htc_pool_run(htc_pool_fn fn, void *ctx, int ncores)
{
    htc_pool_layer *l;
    uint64_t t0, t;
    int c, par, probe;
    if (ncores < 2 || htc_pool.nthreads == 0) {
        for (c = 0; c < ncores; c++) fn(ctx, c, ncores);
        return;
    }
    l = HTC_POOL_ADAPT ? htc_pool_find(fn) : NULL;
    if (!l) {
        htc_pool_fork(fn, ctx, ncores);
        return;
    }
    /* calls 0, 1, 2 (again every HTC_POOL_RECHECK calls): divided,
       alone, divided, timed; then the faster (the first call's caches
       are cold: the divided time is the better of its two) */
    probe = (int)(l->calls % HTC_POOL_RECHECK);
    par = probe == 1 ? 0 : probe < 3 ? 1 : l->parallel;
    t0 = htc_pool_ns();
    if (par)
        htc_pool_fork(fn, ctx, ncores);
    else
        for (c = 0; c < ncores; c++) fn(ctx, c, ncores);
    t = htc_pool_ns() - t0;
    if (probe == 0 || probe == 2) l->parallel_ns = probe == 0 || t < l->parallel_ns ? t : l->parallel_ns;
    if (probe == 1) l->serial_ns = t;
    if (probe == 2) l->parallel = l->parallel_ns <= l->serial_ns;
    l->calls++;
}

/* the layers timed so far: up to max entries copied to out, their count returned */
static inline int htc_pool_stats(htc_pool_layer *out, int max)
{
    int i;
    for (i = 0; i < htc_pool.nlayers && i < max; i++) out[i] = htc_pool.layer[i];
    return htc_pool.nlayers;
}

#ifndef HTC_PAR_RUN
#define HTC_PAR_RUN(fn, ctx, ncores) htc_pool_run((fn), (ctx), (ncores))
#endif

#endif /* HTC_POOL_H */
