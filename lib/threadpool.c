/*
 * The thread pool of threadpool.h: persistent workers that sleep on a condition variable,
 * claim chunks of the current loops with one atomic counter per loop, and report back to
 * the callers. One lane per urgency level (0 = normal .. 7), each running one loop at a
 * time (callers of a lane queue on its mutex); a thread between two chunks serves the most
 * urgent lane that has work.
 */
#include "threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* One parallel_for call; lives on the caller's stack until every thread has let go. */
typedef struct {
    void (*fn)(void *arg, size_t i);
    void *arg;
    size_t n, chunk;
    _Alignas(64) atomic_size_t next; /* next unclaimed index; on its own cache line */
} tp_job;

#define LANES 8 /* urgency levels 0 (normal) .. 7 */

struct threadpool {
    unsigned nthreads;               /* workers + the caller */
    pthread_t *workers;              /* nthreads - 1 of them */
    pthread_mutex_t submit[LANES];   /* serializes callers of a lane: one loop at a time */
    pthread_mutex_t lock;            /* guards job, active, stop */
    pthread_cond_t wake, idle;
    tp_job *job[LANES];
    unsigned active[LANES];          /* threads inside job[lane] */
    /* Bit l: lane l's loop has chunks nobody claimed yet, so threads in a less urgent loop
     * stop after their current chunk. Set under lock when the loop is posted, cleared by
     * the thread that claims its last chunk. */
    _Alignas(64) _Atomic unsigned open;
    int stop;
};

/* Set while a thread runs loop bodies (workers always, callers during their call), so a
 * nested parallel_for runs inline instead of waiting for a pool that is waiting for it. */
static _Thread_local int tp_inside;
static _Thread_local int tp_level; /* threadpool_set_urgent */

void threadpool_set_urgent(int level) { tp_level = level < 0 ? 0 : level >= LANES ? LANES - 1 : level; }

/* Runs chunks of job until none is left or a more urgent loop opens. */
static void tp_run(threadpool *tp, tp_job *job, int lane)
{
    const unsigned above = ~0u << (lane + 1);
    for (;;) {
        /* relaxed: a hint; the switch itself happens under the pool lock */
        if (atomic_load_explicit(&tp->open, memory_order_relaxed) & above) return;
        /* relaxed: the index only partitions work; the job's fields were published under
         * the pool lock and the results are published by the same lock on the way out. */
        size_t i = atomic_fetch_add_explicit(&job->next, job->chunk, memory_order_relaxed);
        if (i >= job->n) return;
        size_t end = job->n - i < job->chunk ? job->n : i + job->chunk;
        if (lane && end == job->n) /* last chunk taken (lane 0 has no one to stop) */
            atomic_fetch_and_explicit(&tp->open, ~(1u << lane), memory_order_relaxed);
        for (; i < end; i++) job->fn(job->arg, i);
    }
}

static int has_work(tp_job *j) /* lock held, so j (if set) is alive */
{
    return j && atomic_load_explicit(&j->next, memory_order_relaxed) < j->n;
}

/* Lock held: the lane a free thread should serve (the most urgent with work), or -1. */
static int pick_lane(threadpool *tp)
{
    for (int l = LANES - 1; l >= 0; l--)
        if (has_work(tp->job[l])) return l;
    return -1;
}

/* Lock held on entry and exit: runs chunks of lane's loop outside the lock. */
static void tp_serve(threadpool *tp, int lane)
{
    tp_job *job = tp->job[lane];
    tp->active[lane]++;
    pthread_mutex_unlock(&tp->lock);
    tp_run(tp, job, lane);
    pthread_mutex_lock(&tp->lock);
    if (--tp->active[lane] == 0) pthread_cond_broadcast(&tp->idle);
}

static void *tp_worker(void *p)
{
    threadpool *tp = p;
    tp_inside = 1;
    pthread_mutex_lock(&tp->lock);
    for (;;) {
        int lane;
        while (!tp->stop && (lane = pick_lane(tp)) < 0) pthread_cond_wait(&tp->wake, &tp->lock);
        if (tp->stop) break;
        tp_serve(tp, lane);
    }
    pthread_mutex_unlock(&tp->lock);
    return NULL;
}

threadpool *threadpool_create(unsigned nthreads)
{
    if (nthreads == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = c > 0 ? (unsigned)c : 1;
    }
    threadpool *tp = calloc(1, sizeof *tp);
    if (!tp) return NULL;
    tp->nthreads = nthreads;
    if (nthreads > 1 && !(tp->workers = calloc(nthreads - 1, sizeof *tp->workers))) {
        free(tp);
        return NULL;
    }
    for (int l = 0; l < LANES; l++) pthread_mutex_init(&tp->submit[l], NULL);
    pthread_mutex_init(&tp->lock, NULL);
    pthread_cond_init(&tp->wake, NULL);
    pthread_cond_init(&tp->idle, NULL);
    atomic_init(&tp->open, 0);
    for (unsigned i = 0; i + 1 < nthreads; i++) {
        if (pthread_create(&tp->workers[i], NULL, tp_worker, tp) != 0) {
            tp->nthreads = i + 1; /* destroy joins the i workers that started */
            threadpool_destroy(tp);
            return NULL;
        }
    }
    return tp;
}

void threadpool_destroy(threadpool *tp)
{
    if (!tp) return;
    pthread_mutex_lock(&tp->lock);
    tp->stop = 1;
    pthread_cond_broadcast(&tp->wake);
    pthread_mutex_unlock(&tp->lock);
    for (unsigned i = 0; i + 1 < tp->nthreads; i++) pthread_join(tp->workers[i], NULL);
    pthread_cond_destroy(&tp->wake);
    pthread_cond_destroy(&tp->idle);
    pthread_mutex_destroy(&tp->lock);
    for (int l = 0; l < LANES; l++) pthread_mutex_destroy(&tp->submit[l]);
    free(tp->workers);
    free(tp);
}

unsigned threadpool_size(const threadpool *tp)
{
    return tp ? tp->nthreads : 1;
}

void threadpool_parallel_for(threadpool *tp, size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
    if (n == 0) return;
    if (!tp || tp->nthreads == 1 || n == 1 || tp_inside) {
        int was = tp_inside;
        tp_inside = 1;
        for (size_t i = 0; i < n; i++) fn(arg, i);
        tp_inside = was;
        return;
    }
    /* Chunks: about 8 per thread so uneven bodies still balance, never below one index. */
    size_t chunk = n / ((size_t)tp->nthreads * 8);
    tp_job job = {.fn = fn, .arg = arg, .n = n, .chunk = chunk ? chunk : 1};
    atomic_init(&job.next, 0);
    int lane = tp_level;

    pthread_mutex_lock(&tp->submit[lane]);
    pthread_mutex_lock(&tp->lock);
    tp->job[lane] = &job;
    if (lane) atomic_fetch_or_explicit(&tp->open, 1u << lane, memory_order_relaxed);
    pthread_cond_broadcast(&tp->wake);
    /* The caller works like a pool thread (the most urgent lane first) until its own loop
     * has no unclaimed chunk left. */
    tp_inside = 1;
    while (has_work(&job)) {
        int l = pick_lane(tp);
        if (l < 0) break;
        tp_serve(tp, l);
    }
    tp_inside = 0;
    /* Every index is claimed; wait for threads still running theirs, then retire the job
     * so a late thread cannot touch this stack frame. */
    tp->job[lane] = NULL;
    while (tp->active[lane]) pthread_cond_wait(&tp->idle, &tp->lock);
    pthread_mutex_unlock(&tp->lock);
    pthread_mutex_unlock(&tp->submit[lane]);
}
