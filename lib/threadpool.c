/*
 * The thread pool of threadpool.h: persistent workers that wake on a generation counter,
 * claim chunks of the current loop with one atomic counter, and report back to the caller.
 * One loop runs at a time; concurrent callers queue on a mutex.
 */
#include "threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* One parallel_for call; lives on the caller's stack until every worker has let go. */
typedef struct {
    void (*fn)(void *arg, size_t i);
    void *arg;
    size_t n, chunk;
    _Alignas(64) atomic_size_t next; /* next unclaimed index; on its own cache line */
} tp_job;

struct threadpool {
    unsigned nthreads;    /* workers + the caller */
    pthread_t *workers;   /* nthreads - 1 of them */
    pthread_mutex_t submit; /* serializes callers: one job at a time */
    pthread_mutex_t lock;   /* guards job, gen, active, stop */
    pthread_cond_t wake, idle;
    tp_job *job;
    unsigned long gen;
    unsigned active;      /* workers currently inside job */
    int stop;
};

/* Set while a thread runs loop bodies (workers always, callers during their call), so a
 * nested parallel_for runs inline instead of waiting for a pool that is waiting for it. */
static _Thread_local int tp_inside;

static void tp_run(tp_job *job)
{
    for (;;) {
        /* relaxed: the index only partitions work; the job's fields were published under
         * the pool lock and the results are published by the same lock on the way out. */
        size_t i = atomic_fetch_add_explicit(&job->next, job->chunk, memory_order_relaxed);
        if (i >= job->n) return;
        size_t end = job->n - i < job->chunk ? job->n : i + job->chunk;
        for (; i < end; i++) job->fn(job->arg, i);
    }
}

static void *tp_worker(void *p)
{
    threadpool *tp = p;
    tp_inside = 1;
    unsigned long seen = 0;
    pthread_mutex_lock(&tp->lock);
    for (;;) {
        while (!tp->stop && tp->gen == seen) pthread_cond_wait(&tp->wake, &tp->lock);
        if (tp->stop) break;
        seen = tp->gen;
        tp_job *job = tp->job;
        if (!job) continue; /* woke after the caller already finished that job */
        tp->active++;
        pthread_mutex_unlock(&tp->lock);
        tp_run(job);
        pthread_mutex_lock(&tp->lock);
        if (--tp->active == 0) pthread_cond_signal(&tp->idle);
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
    pthread_mutex_init(&tp->submit, NULL);
    pthread_mutex_init(&tp->lock, NULL);
    pthread_cond_init(&tp->wake, NULL);
    pthread_cond_init(&tp->idle, NULL);
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
    pthread_mutex_destroy(&tp->submit);
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

    pthread_mutex_lock(&tp->submit);
    pthread_mutex_lock(&tp->lock);
    tp->job = &job;
    tp->gen++;
    pthread_cond_broadcast(&tp->wake);
    pthread_mutex_unlock(&tp->lock);

    tp_inside = 1;
    tp_run(&job);
    tp_inside = 0;

    /* Every index is claimed; wait for workers still running theirs, then retire the job
     * so a late-waking worker cannot touch this stack frame. */
    pthread_mutex_lock(&tp->lock);
    tp->job = NULL;
    while (tp->active) pthread_cond_wait(&tp->idle, &tp->lock);
    pthread_mutex_unlock(&tp->lock);
    pthread_mutex_unlock(&tp->submit);
}
