/*
 * cuzk-bench engine: the engine's own overhead, with the test-only trivial prover (no
 * arithmetic): submit-to-result latency, throughput with tracing off and on, and proving
 * speed under a trace callback that sleeps 10 ms per event (events dropped, not waited for).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cuzk/cuzk.h"
#include "engine/engine.h"
#include "support/backend_trivial.h"

static _Atomic uint64_t events_seen;

static uint64_t process_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static double last_cpu_us_per_job; /* CPU time of all threads per job, last throughput run */
static uint64_t callback_sleep_ns;

static void on_event(const cuzk_trace_event *ev, void *user)
{
    (void)ev; (void)user;
    atomic_fetch_add_explicit(&events_seen, 1, memory_order_relaxed);
    if (callback_sleep_ns) {
        struct timespec ts = {(time_t)(callback_sleep_ns / 1000000000u), (long)(callback_sleep_ns % 1000000000u)};
        nanosleep(&ts, NULL);
    }
}

static int64_t spin_ns; /* 0: the library's default */

static cuzk_engine *engine(int workers, int finishers, int trace, uint32_t capacity, uint32_t trace_capacity)
{
    cuzk_config *cfg;
    if (cuzk_config_new(&cfg)) return NULL;
    cuzk_config_set(cfg, CUZK_OPT_IDLE_SPIN_NS, spin_ns);
    cuzk_config_set(cfg, CUZK_OPT_TRACE_CAPACITY, trace_capacity);
    cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, workers);
    cuzk_config_set(cfg, CUZK_OPT_FINISHER_THREADS, finishers);
    cuzk_config_set(cfg, CUZK_OPT_QUEUE_CAPACITY, capacity);
    if (trace) cuzk_config_set_trace(cfg, on_event, NULL);
    cuzk_engine *e = NULL;
    if (engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e)) fprintf(stderr, "engine: %s\n", cuzk_last_error());
    cuzk_config_free(cfg);
    return e;
}

static int submit1(cuzk_engine *e, cuzk_srs *s, uint64_t tag)
{
    cuzk_partition p = {.struct_size = sizeof p, .user_tag = tag};
    cuzk_job h;
    return cuzk_submit_partition(e, s, &p, &h);
}

static int poll_r(cuzk_engine *e, cuzk_result *r)
{
    r->struct_size = sizeof *r;
    int rc = cuzk_poll_result(e, r, -1);
    return rc ? rc : r->status;
}

static int poll1(cuzk_engine *e)
{
    cuzk_result r;
    return poll_r(e, &r);
}

/* Where one round trip's time goes (medians, µs): host -> worker (the result's queued_ns),
 * worker and finisher up to the post (total_ns - queued_ns), post -> host's poll returning. */
static double lat_split[3];

/* The floor under every hand-off: two threads passing a token back and forth through the
 * engine's event counts (sleep on a futex, wake by the other), one way = half a round. */
typedef struct {
    evcount ev[2];
    _Atomic uint64_t token;
    int rounds;
} pingpong;

static void pp_wait(pingpong *p, int side, uint64_t want)
{
    while (atomic_load(&p->token) != want) {
        uint32_t key = evc_prepare(&p->ev[side]);
        if (atomic_load(&p->token) == want) { evc_cancel(&p->ev[side]); break; }
        evc_wait(&p->ev[side], key, 0);
    }
}

static void *pp_peer(void *arg)
{
    pingpong *p = arg;
    for (int i = 0; i < p->rounds; i++) {
        pp_wait(p, 1, 2 * (uint64_t)i + 1);
        atomic_store(&p->token, 2 * (uint64_t)i + 2);
        evc_notify_if_waiting(&p->ev[0], 1);
    }
    return NULL;
}

static double hop_us(int rounds)
{
    pingpong p;
    evc_init(&p.ev[0]);
    evc_init(&p.ev[1]);
    atomic_init(&p.token, 0);
    p.rounds = rounds;
    pthread_t t;
    pthread_create(&t, NULL, pp_peer, &p);
    double *v = malloc((size_t)rounds * sizeof *v);
    for (int i = 0; i < rounds; i++) {
        uint64_t t0 = bench_now_ns();
        atomic_store(&p.token, 2 * (uint64_t)i + 1);
        evc_notify_if_waiting(&p.ev[1], 1);
        pp_wait(&p, 0, 2 * (uint64_t)i + 2);
        v[i] = (double)(bench_now_ns() - t0) / 2e3;
    }
    pthread_join(t, NULL);
    double m = bench_median(v, rounds);
    free(v);
    return m;
}

/* One job at a time: submit, wait for its result. */
static void latency(int n, double *median_us, double *p99_us, double *best_us)
{
    cuzk_engine *e = engine(1, 1, 0, 64, 0);
    cuzk_srs *s;
    cuzk_srs_load(e, "trivial:", 0, &s);
    double *v = malloc((size_t)n * sizeof *v), *part[3];
    for (int k = 0; k < 3; k++) part[k] = malloc((size_t)n * sizeof *part[k]);
    for (int i = 0; i < n + 1000; i++) { /* 1000 warm-up round trips */
        cuzk_result r;
        uint64_t t0 = bench_now_ns();
        if (submit1(e, s, (uint64_t)i) || poll_r(e, &r)) fprintf(stderr, "latency: job failed\n");
        uint64_t t = bench_now_ns() - t0;
        if (i < 1000) continue;
        v[i - 1000] = (double)t / 1e3;
        part[0][i - 1000] = (double)r.queued_ns / 1e3;
        part[1][i - 1000] = (double)(r.total_ns - r.queued_ns) / 1e3;
        part[2][i - 1000] = t > r.total_ns ? (double)(t - r.total_ns) / 1e3 : 0;
    }
    *median_us = bench_median(v, n); /* sorts */
    *best_us = v[0];
    *p99_us = v[(int)(n * 0.99)];
    for (int k = 0; k < 3; k++) {
        lat_split[k] = bench_median(part[k], n);
        free(part[k]);
    }
    free(v);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

/* Jobs per second with `window` jobs in flight, from one host thread. */
static double throughput(int n, int window, int trace, uint32_t trace_capacity, const char *key, int workers,
                         uint64_t *dropped)
{
    cuzk_engine *e = engine(workers, 2, trace, 4096, trace_capacity);
    cuzk_srs *s;
    cuzk_srs_load(e, key, 0, &s);
    uint64_t t0 = bench_now_ns(), c0 = process_cpu_ns();
    int sent = 0, got = 0;
    while (got < n) {
        while (sent < n && sent - got < window && submit1(e, s, (uint64_t)sent) == CUZK_OK) sent++;
        if (poll1(e)) fprintf(stderr, "throughput: job failed\n");
        got++;
    }
    double secs = (double)(bench_now_ns() - t0) / 1e9; /* before destroy drains the trace */
    last_cpu_us_per_job = (double)(process_cpu_ns() - c0) / 1e3 / n;
    cuzk_stats st = {.struct_size = sizeof st};
    cuzk_engine_stats(e, &st);
    if (dropped) *dropped = st.trace_dropped;
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
    return n / secs;
}

int bench_engine(int argc, char **argv)
{
    int json = 0, n = 20000, reps = 3, only_latency = 0;
    long long spin = 0;
    const bench_opt opts[] = {{"json", BOPT_FLAG, &json},     {"jobs", BOPT_INT, &n},
                              {"reps", BOPT_INT, &reps},      {"spin-ns", BOPT_I64, &spin},
                              {"latency", BOPT_FLAG, &only_latency}, {NULL, 0, NULL}};
    int parsed = bench_args("engine", "[--jobs N] [--reps R] [--spin-ns NS|-1] [--latency] [--json]",
                        "the engine's overhead with a trivial prover: submit-to-result latency, jobs/s with tracing "
                        "off and on, a slow trace callback", argc, argv, opts);
    if (parsed >= 0) return parsed;
    spin_ns = spin;
    if (n < 100) n = 100;
    if (reps < 1 || reps > 15) reps = 3;
    double lat_med, lat_p99, lat_best;
    latency(n, &lat_med, &lat_p99, &lat_best);
    if (only_latency) { /* the round trip alone, reps times */
        for (int r = 0;; r++) {
            printf("latency: median %.2f us, p99 %.2f us, best %.2f us; parts: host -> worker %.2f, "
                   "worker + finisher %.2f, post -> host %.2f us; one futex hop alone %.2f us\n", lat_med,
                   lat_p99, lat_best, lat_split[0], lat_split[1], lat_split[2], hop_us(n));
            if (r + 1 >= reps) return 0;
            latency(n, &lat_med, &lat_p99, &lat_best);
        }
    }

    /* throughput: best of reps (the machine is shared), tracing off then on */
    double off[16], on[16], slow_off[16], slow_on[16], work_on[16], cpu_off[16], cpu_on[16];
    uint64_t dropped = 0, slow_dropped = 0;
    for (int r = 0; r < reps; r++) {
        off[r] = throughput(n * 5, 256, 0, 0, "trivial:", 1, NULL);
        cpu_off[r] = last_cpu_us_per_job;
        on[r] = throughput(n * 5, 256, 1, 0, "trivial:", 1, &dropped);
        cpu_on[r] = last_cpu_us_per_job;
    }
    /* "proving" of 2 ms per partition, two workers: the 10 ms/event callback must not slow it */
    int slow_n = 400;
    for (int r = 0; r < reps; r++) {
        callback_sleep_ns = 0;
        slow_off[r] = throughput(slow_n, 16, 0, 0, "trivial:work_ns=2000000", 2, NULL);
        work_on[r] = throughput(slow_n, 16, 1, 0, "trivial:work_ns=2000000", 2, NULL);
        callback_sleep_ns = 10000000;
        /* a 64-event ring: destroy delivers what is left (64 x 10 ms), not thousands */
        slow_on[r] = throughput(slow_n, 16, 1, 64, "trivial:work_ns=2000000", 2, &slow_dropped);
        callback_sleep_ns = 0;
    }
    double off_m = bench_median(off, reps), on_m = bench_median(on, reps);
    double cpu_off_m = bench_median(cpu_off, reps), cpu_on_m = bench_median(cpu_on, reps);
    double soff_m = bench_median(slow_off, reps), son_m = bench_median(slow_on, reps);
    double won_m = bench_median(work_on, reps);
    if (json) {
        printf("{\"bench\":\"engine\",\"cpu\":\"%s\",\"jobs\":%d,\"latency_median_us\":%.2f,"
               "\"latency_p99_us\":%.2f,\"latency_best_us\":%.2f,\"jobs_per_s_trace_off\":%.0f,"
               "\"jobs_per_s_trace_on\":%.0f,\"trace_dropped\":%llu,\"cpu_us_per_job_trace_off\":%.2f,\"cpu_us_per_job_trace_on\":%.2f,\"work2ms_jobs_per_s_trace_off\":%.1f,"
               "\"work2ms_jobs_per_s_trace_on\":%.1f,\"work2ms_jobs_per_s_slow_callback\":%.1f,\"slow_callback_dropped\":%llu}\n",
               bench_cpu_name(), n, lat_med, lat_p99, lat_best, off_m, on_m, (unsigned long long)dropped,
               cpu_off_m, cpu_on_m, soff_m, won_m, son_m, (unsigned long long)slow_dropped);
        return 0;
    }
    printf("cuzk-bench engine: the trivial test prover (no arithmetic); wall clock; on %s\n", bench_cpu_name());
    printf("  submit -> result, one job at a time (1 worker, 1 finisher), %d jobs:\n", n);
    printf("      median %.2f us, p99 %.2f us, best %.2f us        target: median <= 5 us\n", lat_med, lat_p99,
           lat_best);
    printf("      medians of its parts: host -> worker %.2f us, worker + finisher %.2f us, post -> host %.2f us\n",
           lat_split[0], lat_split[1], lat_split[2]);
    printf("  throughput, 256 in flight, %d jobs, median of %d runs:\n", n * 5, reps);
    printf("      trace off %.0f jobs/s, trace on %.0f jobs/s (%+.1f %%; %llu events dropped)\n", off_m, on_m,
           100.0 * (on_m - off_m) / off_m, (unsigned long long)dropped);
    printf("      CPU time of all threads per job: %.2f us trace off, %.2f us trace on\n", cpu_off_m, cpu_on_m);
    printf("  2 ms \"proofs\", 2 workers, 16 in flight, %d jobs, median of %d runs:\n", slow_n, reps);
    printf("      trace off %.1f jobs/s; trace on %.1f jobs/s (%+.1f %%)   target: within 1 %%\n", soff_m, won_m,
           100.0 * (won_m - soff_m) / soff_m);
    printf("      trace off %.1f jobs/s; callback sleeping 10 ms per event %.1f jobs/s (%+.1f %%; %llu events "
           "dropped)   target: no slowdown\n", soff_m, son_m, 100.0 * (son_m - soff_m) / soff_m,
           (unsigned long long)slow_dropped);
    printf("  idle spin: %s\n", spin_ns ? "set by --spin-ns" : "library default (20 us with >= 4 CPUs, else none)");
    printf("  reproduce: build/bin/cuzk-bench engine --jobs %d --reps %d%s\n", n, reps,
           spin_ns ? " --spin-ns ..." : "");
    return 0;
}
