/* Memory budgets: the atomic counter alone (fit, refuse, wait, give up), then an engine
 * with a small budget — partitions wait in the queue and never overlap beyond the budget,
 * the a/b/c share comes back after the H step, a partition that can never fit is refused
 * with CUZK_EBUDGET, keys that gave way on a GPU count their page-locked host copies, a
 * key's load reserves its own copy before any key gives way (backend_config.host), a key
 * that gave way before its load returned is counted, not refused, a partition waiting for
 * the room a key load holds waits for the load instead of never fitting, and resident memory
 * returns after a burst without malloc_trim. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <cmocka.h>

#include "engine/arena.h"
#include "engine/budget.h"
#include "cuzk/cuzk.h"
#include "engine/engine.h"
#include "support/backend_trivial.h"
#include "support/testutil.h"

#define MiB (1ull << 20)

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static budget *B;
static void *release_later(void *arg)
{
    sleep_ms(50);
    budget_release(B, (uint64_t)(uintptr_t)arg);
    return NULL;
}
static _Atomic int give_up_now;
static int give_up(void *arg) { (void)arg; return atomic_load(&give_up_now); }
static void *set_give_up_later(void *arg)
{
    (void)arg;
    sleep_ms(50);
    atomic_store(&give_up_now, 1);
    budget_kick(B);
    return NULL;
}

static void counter_alone(void **state)
{
    (void)state;
    B = aligned_alloc(64, sizeof *B);
    budget_init(B, 100);
    assert_int_equal(budget_try_reserve(B, 60), 1);
    assert_int_equal(budget_try_reserve(B, 41), 0);
    assert_int_equal(budget_try_reserve(B, 40), 1);
    assert_int_equal(budget_try_reserve(B, 1), 0);
    assert_int_equal(budget_try_reserve(B, UINT64_MAX), 0); /* no overflow */
    budget_release(B, 40);
    assert_int_equal(budget_reserved(B), 60);
    /* a waiter sleeps until a release makes room */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, release_later, (void *)(uintptr_t)30), 0);
    uint64_t t0 = mono_ns();
    assert_int_equal(budget_reserve_wait(B, 70, NULL, NULL, 0), 1);
    assert_true(mono_ns() - t0 >= 40000000);
    pthread_join(t, NULL);
    assert_int_equal(budget_reserved(B), 100);
    assert_int_equal(atomic_load(&B->waits), 1);
    assert_int_equal(atomic_load(&B->peak), 100);
    /* a waiter gives up when told to */
    atomic_store(&give_up_now, 0);
    assert_int_equal(pthread_create(&t, NULL, set_give_up_later, NULL), 0);
    assert_int_equal(budget_reserve_wait(B, 1, give_up, NULL, 0), 0);
    pthread_join(t, NULL);
    assert_int_equal(budget_reserved(B), 100);
    free(B);
}

/* ---- an engine with a small budget ---- */

typedef struct span {
    uint64_t job, begin, end, h_end;
} span;
static span spans[64];
static _Atomic int nspans;
static pthread_mutex_t span_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_event(const cuzk_trace_event *ev, void *user)
{
    (void)user;
    if (ev->kind != CUZK_TRACE_START && ev->kind != CUZK_TRACE_H_STEP) return;
    pthread_mutex_lock(&span_lock);
    int i, n = atomic_load(&nspans);
    for (i = 0; i < n && spans[i].job != ev->job; i++) {
    }
    if (i == n && n < 64) atomic_store(&nspans, ++n), spans[i].job = ev->job;
    if (i < 64) {
        if (ev->kind == CUZK_TRACE_START) spans[i].begin = ev->begin_ns, spans[i].end = ev->end_ns;
        else spans[i].h_end = ev->end_ns;
    }
    pthread_mutex_unlock(&span_lock);
}

static cuzk_engine *budget_engine(uint64_t budget_bytes, int workers)
{
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_HOST_BUDGET_BYTES, (int64_t)budget_bytes), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, workers), CUZK_OK);
    assert_int_equal(cuzk_config_set_trace(cfg, on_event, NULL), CUZK_OK);
    cuzk_engine *e;
    assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e), CUZK_OK);
    cuzk_config_free(cfg);
    atomic_store(&nspans, 0);
    memset(spans, 0, sizeof spans);
    return e;
}

/* An engine over a test backend's ops with a host budget of budget_bytes. */
static cuzk_engine *ops_engine(const backend_ops *ops, uint64_t budget_bytes)
{
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_HOST_BUDGET_BYTES, (int64_t)budget_bytes), CUZK_OK);
    cuzk_engine *e;
    assert_int_equal(engine_create_with_backend(cfg, ops, NULL, &e), CUZK_OK);
    cuzk_config_free(cfg);
    return e;
}

static void run_jobs(cuzk_engine *e, cuzk_srs *s, int n)
{
    for (int i = 0; i < n; i++) {
        cuzk_partition p = {.struct_size = sizeof p, .user_tag = (uint64_t)i};
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_OK); /* queued, never refused */
    }
    for (int i = 0; i < n; i++) {
        cuzk_result r = {.struct_size = sizeof r};
        assert_int_equal(cuzk_poll_result(e, &r, 20 * 1000000000ll), CUZK_OK);
        assert_int_equal(r.status, CUZK_OK);
    }
}

static void waits_and_never_fits(void **state)
{
    (void)state;
    /* 100 MiB budget, 60 MiB per partition, two workers: one partition at a time */
    cuzk_engine *e = budget_engine(100 * MiB, 2);
    cuzk_srs *s;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=30000000,est_bytes=62914560", 0, &s), CUZK_OK);
    run_jobs(e, s, 6);
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_true(st.budget_waits >= 1);
    assert_true(st.host_reserved_peak <= 100 * MiB);
    assert_int_equal(st.host_reserved_bytes, 0);
    cuzk_srs_release(s);
    /* a partition larger than the whole budget is refused at once, release not called */
    cuzk_srs *big;
    assert_int_equal(cuzk_srs_load(e, "trivial:est_bytes=104857601", 0, &big), CUZK_OK);
    cuzk_partition p = {.struct_size = sizeof p};
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, big, &p, &h), CUZK_EBUDGET);
    assert_non_null(strstr(cuzk_last_error(), "104857601"));
    cuzk_srs_release(big);
    cuzk_engine_destroy(e);
    /* START spans never overlapped */
    int n = atomic_load(&nspans);
    assert_int_equal(n, 6);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && spans[i].begin < spans[j].begin) assert_true(spans[i].end <= spans[j].begin);
}

/* What the host holds (cuzk_host_alloc) leaves a partition no room and no partition runs:
 * its result is CUZK_EBUDGET with the numbers, not a stall (two of them, each woken by the
 * other's giving up); freed, the same partition proves. While another partition holds the
 * budget a waiter waits (waits_and_never_fits above). */
static void never_fits_beside_host_memory(void **state)
{
    (void)state;
    cuzk_engine *e = budget_engine(100 * MiB, 2);
    cuzk_srs *s;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=1000000,est_bytes=62914560", 0, &s), CUZK_OK);
    void *held;
    assert_int_equal(cuzk_host_alloc(e, 60 * MiB, &held), CUZK_OK);
    for (int i = 0; i < 2; i++) {
        cuzk_partition p = {.struct_size = sizeof p, .user_tag = (uint64_t)i};
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_OK);
    }
    for (int i = 0; i < 2; i++) {
        cuzk_result r = {.struct_size = sizeof r};
        assert_int_equal(cuzk_poll_result(e, &r, 20 * 1000000000ll), CUZK_OK); /* not a stall */
        assert_int_equal(r.status, CUZK_EBUDGET);
        assert_non_null(strstr(r.detail, "62914560"));
        assert_non_null(strstr(r.detail, "never fit"));
    }
    cuzk_host_free(e, held);
    run_jobs(e, s, 2);
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.host_reserved_bytes, 0);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

static void abc_share_comes_back_after_h(void **state)
{
    (void)state;
    /* 60 MiB each, half of it a/b/c: once the first partition's H step is done it holds
     * 30 MiB, so the second (60) fits beside it in 100 MiB — but not before */
    cuzk_engine *e = budget_engine(100 * MiB, 2);
    cuzk_srs *s;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=60000000,est_bytes=62914560,abc_pct=50", 0, &s), CUZK_OK);
    run_jobs(e, s, 4);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
    int n = atomic_load(&nspans), overlaps = 0;
    assert_int_equal(n, 4);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && spans[i].begin <= spans[j].begin && spans[j].begin < spans[i].end) {
                overlaps++;
                assert_true(spans[j].begin >= spans[i].h_end); /* only after i's H step */
            }
    assert_true(overlaps >= 1);
}

/* ---- keys that give way: their page-locked host copies count ---- */

/* The trivial backend as the engine sees a GPU one that evicts: each key reports the host
 * memory it holds page-locked; a load makes the first key loaded before it pin `gives` more
 * (a CUDA key that gave way streams from then on). */
static struct {
    void *key;
    uint64_t pinned, reserved;
} pin_tab[4];
static uint64_t next_pins, next_gives;

static int ev_load(void *be, const char *path, uint32_t flags, void **key)
{
    for (int i = 0; i < 4; i++)
        if (pin_tab[i].key) {
            pin_tab[i].pinned += next_gives;
            break;
        }
    int rc = backend_trivial_ops.key_load(be, path, flags, key); /* may fail, having taken */
    if (rc) return rc;
    for (int i = 0; i < 4; i++)
        if (!pin_tab[i].key) {
            pin_tab[i].key = *key, pin_tab[i].pinned = next_pins;
            break;
        }
    return CUZK_OK;
}

static void ev_free(void *be, void *key)
{
    for (int i = 0; i < 4; i++)
        if (pin_tab[i].key == key) pin_tab[i].key = NULL;
    backend_trivial_ops.key_free(be, key);
}

static int ev_placement(void *be, void *key, uint32_t device_index, cuzk_placement *out)
{
    (void)be, (void)device_index;
    out->kind = CUZK_PLACEMENT_PARTIAL;
    for (int i = 0; i < 4; i++)
        if (pin_tab[i].key == key) out->pinned_host_bytes = pin_tab[i].pinned;
    return CUZK_OK;
}

static uint64_t host_reserved(cuzk_engine *e)
{
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    return st.host_reserved_bytes;
}

static void evicted_keys_pinned_count(void **state)
{
    (void)state;
    memset(pin_tab, 0, sizeof pin_tab);
    backend_ops ops = backend_trivial_ops;
    ops.key_load = ev_load, ops.key_free = ev_free, ops.key_placement = ev_placement;
    cuzk_engine *e = ops_engine(&ops, 100 * MiB);
    cuzk_srs *first, *second, *third;
    next_pins = 0, next_gives = 0;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &first), CUZK_OK); /* resident */
    assert_int_equal(host_reserved(e), 0);
    next_pins = 10 * MiB, next_gives = 30 * MiB; /* streamed itself, and the first gives way */
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &second), CUZK_OK);
    assert_int_equal(host_reserved(e), 40 * MiB);
    run_jobs(e, first, 2); /* it proves, its reservation standing */
    assert_int_equal(host_reserved(e), 40 * MiB);
    next_gives = 5 * MiB; /* a load that fails after the first gave way */
    assert_int_equal(cuzk_srs_load(e, "nonsense", 0, &third), CUZK_EFORMAT);
    assert_int_equal(host_reserved(e), 45 * MiB);
    next_pins = 60 * MiB, next_gives = 0; /* a streamed key the budget cannot hold beside them */
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &third), CUZK_EBUDGET);
    assert_non_null(strstr(cuzk_last_error(), "62914560 bytes needed, 57671680 of the budget's 104857600 bytes free"));
    assert_int_equal(host_reserved(e), 45 * MiB);
    next_pins = 0, next_gives = 75 * MiB; /* beyond the budget: counted all the same */
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &third), CUZK_OK);
    assert_int_equal(host_reserved(e), 120 * MiB);
    cuzk_srs_release(first); /* gives back all it held */
    assert_int_equal(host_reserved(e), 10 * MiB);
    cuzk_srs_release(third);
    cuzk_srs_release(second);
    assert_int_equal(host_reserved(e), 0);
    cuzk_engine_destroy(e);
}

/* The same backend loading as the CUDA one does (cuda_keys.c load_common): the new key's
 * own host copy reserved through backend_config.host before anything gives way; a refusal
 * leaves every other key as it was. `extra`: page-locked bytes the key reports beyond what
 * its load reserved, which the engine reserves after the load. */
static backend_host_budget hb;
static uint64_t next_extra;

static int hb_create(const backend_config *cfg, void **be, uint32_t *devices)
{
    hb = cfg->host;
    return backend_trivial_ops.create(cfg, be, devices);
}

/* hb_load's gate: while closed, a load waits after its reservation until the test opens it */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_closed, gate_reached;

static void gate_pass(void)
{
    pthread_mutex_lock(&gate_lock);
    gate_reached = 1;
    pthread_cond_broadcast(&gate_cond);
    while (gate_closed) pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
}

static int hb_load(void *be, const char *path, uint32_t flags, void **key)
{
    if (next_pins && !hb.reserve(hb.ctx, next_pins)) /* before any key gives way */
        return CUZK_EBUDGET;
    gate_pass();
    for (int i = 0; i < 4; i++)
        if (pin_tab[i].key) {
            pin_tab[i].pinned += next_gives;
            break;
        }
    int rc = backend_trivial_ops.key_load(be, path, flags, key);
    if (rc) {
        hb.release(hb.ctx, next_pins); /* a failed load gives its reservation back */
        return rc;
    }
    for (int i = 0; i < 4; i++)
        if (!pin_tab[i].key) {
            pin_tab[i].key = *key, pin_tab[i].pinned = next_pins + next_extra, pin_tab[i].reserved = next_pins;
            break;
        }
    return CUZK_OK;
}

static uint64_t hb_reserved(void *key)
{
    for (int i = 0; i < 4; i++)
        if (pin_tab[i].key == key) return pin_tab[i].reserved;
    return 0;
}

static uint64_t pinned_of(void *key)
{
    for (int i = 0; i < 4; i++)
        if (pin_tab[i].key == key) return pin_tab[i].pinned;
    return 0;
}

/* An engine over the backend loading as the CUDA one does, its key table empty (the ops
 * live as long as the engine: it keeps the pointer). */
static backend_ops hb_ops;
static cuzk_engine *hb_engine(uint64_t budget_bytes)
{
    memset(pin_tab, 0, sizeof pin_tab);
    next_pins = 0, next_gives = 0, next_extra = 0;
    hb_ops = backend_trivial_ops;
    hb_ops.create = hb_create, hb_ops.key_load = hb_load, hb_ops.key_free = ev_free;
    hb_ops.key_placement = ev_placement, hb_ops.key_host_reserved = hb_reserved;
    return ops_engine(&hb_ops, budget_bytes);
}

static void load_reserves_before_evicting(void **state)
{
    (void)state;
    cuzk_engine *e = hb_engine(100 * MiB);
    assert_non_null(hb.reserve);
    cuzk_srs *first, *second, *third, *fourth;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &first), CUZK_OK); /* resident */
    assert_int_equal(host_reserved(e), 0);
    next_pins = 60 * MiB; /* streamed: reserved by its load, not counted again */
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &second), CUZK_OK);
    assert_int_equal(host_reserved(e), 60 * MiB);
    /* 50 MiB more does not fit: refused before the first key gives way (it would pin 30) */
    next_pins = 50 * MiB, next_gives = 30 * MiB;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &third), CUZK_EBUDGET);
    assert_int_equal(pinned_of(first->key), 0);
    assert_int_equal(host_reserved(e), 60 * MiB);
    /* a load that fails after its reservation gives it back */
    next_pins = 10 * MiB, next_gives = 0;
    assert_int_equal(cuzk_srs_load(e, "nonsense", 0, &third), CUZK_EFORMAT);
    assert_int_equal(host_reserved(e), 60 * MiB);
    /* 30 MiB fits; the first key gives way, pinning 5 MiB counted beside it */
    next_pins = 30 * MiB, next_gives = 5 * MiB;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &third), CUZK_OK);
    assert_int_equal(pinned_of(first->key), 5 * MiB);
    assert_int_equal(host_reserved(e), 95 * MiB);
    next_pins = 4 * MiB, next_gives = 0, next_extra = 1 * MiB; /* 4 reserved by the load, 1 by the engine */
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &fourth), CUZK_OK);
    assert_int_equal(host_reserved(e), 100 * MiB);
    run_jobs(e, second, 2); /* partitions still prove (they reserve no host bytes here) */
    cuzk_srs_release(fourth);
    assert_int_equal(host_reserved(e), 95 * MiB);
    cuzk_srs_release(second);
    assert_int_equal(host_reserved(e), 35 * MiB);
    cuzk_srs_release(third);
    cuzk_srs_release(first);
    assert_int_equal(host_reserved(e), 0);
    cuzk_engine_destroy(e);
}

/* A key that pins more than its load reserved by the time the engine takes it (CUDA: a load
 * racing it evicted some of its resident bases, which stream from then on from page-locked
 * host memory): memory held already, counted beyond the budget, never a reason to free a key
 * its own reservation admitted, whether it reserved some (streamed) or nothing (resident). */
static void racing_eviction_counted(void **state)
{
    (void)state;
    cuzk_engine *e = hb_engine(100 * MiB);
    cuzk_srs *first, *second, *third;
    next_pins = 95 * MiB, next_gives = 0, next_extra = 0;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &first), CUZK_OK);
    assert_int_equal(host_reserved(e), 95 * MiB);
    next_pins = 4 * MiB, next_extra = 10 * MiB; /* 4 reserved, 14 pinned: 9 past the budget */
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &second), CUZK_OK);
    assert_int_equal(host_reserved(e), 109 * MiB);
    next_pins = 0, next_extra = 3 * MiB; /* loaded resident (nothing reserved), then gave way */
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &third), CUZK_OK);
    assert_int_equal(host_reserved(e), 112 * MiB);
    cuzk_srs_release(first);
    assert_int_equal(host_reserved(e), 17 * MiB);
    run_jobs(e, third, 1); /* the keys kept prove (once the budget is no longer exceeded) */
    run_jobs(e, second, 1);
    cuzk_srs_release(second);
    cuzk_srs_release(third);
    assert_int_equal(host_reserved(e), 0);
    cuzk_engine_destroy(e);
}

typedef struct loader {
    cuzk_engine *e;
    const char *path;
    int rc;
} loader;

static void *load_thread(void *arg)
{
    loader *l = arg;
    cuzk_srs *s = NULL;
    l->rc = cuzk_srs_load(l->e, l->path, 0, &s);
    if (s) cuzk_srs_release(s);
    return NULL;
}

/* A key load holding its reservation (before it evicts) is no job, but it may fail and give
 * the bytes back: a partition waiting for them meanwhile must wait on, not fail as never
 * fitting, and prove once the load failed. */
static void load_in_flight_not_never_fits(void **state)
{
    (void)state;
    cuzk_engine *e = hb_engine(100 * MiB);
    cuzk_srs *s;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=1000000,est_bytes=62914560", 0, &s), CUZK_OK);
    /* a load that reserves 60 MiB, waits at the gate, then fails (its path is no key) */
    next_pins = 60 * MiB;
    gate_closed = 1, gate_reached = 0;
    loader l = {e, "nonsense", 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, load_thread, &l), 0);
    pthread_mutex_lock(&gate_lock);
    while (!gate_reached) pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
    assert_int_equal(host_reserved(e), 60 * MiB);
    cuzk_partition p = {.struct_size = sizeof p};
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_OK);
    cuzk_result r = {.struct_size = sizeof r};
    int rc = cuzk_poll_result(e, &r, 300 * 1000000ll); /* it waits for the load */
    if (rc == CUZK_OK) printf("early result: status %d, %s\n", r.status, r.detail);
    assert_int_equal(rc, CUZK_EAGAIN);
    pthread_mutex_lock(&gate_lock);
    gate_closed = 0;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
    pthread_join(t, NULL);
    assert_int_equal(l.rc, CUZK_EFORMAT);
    assert_int_equal(cuzk_poll_result(e, &r, 20 * 1000000000ll), CUZK_OK);
    assert_int_equal(r.status, CUZK_OK);
    assert_int_equal(r.job, h);
    assert_int_equal(host_reserved(e), 0);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

/* ---- resident memory after a burst ---- */

static _Atomic int sampling;
static _Atomic uint64_t rss_max;
static void *sampler(void *arg)
{
    (void)arg;
    while (atomic_load(&sampling)) {
        uint64_t r = process_rss_bytes();
        if (r > atomic_load(&rss_max)) atomic_store(&rss_max, r);
        sleep_ms(1);
    }
    return NULL;
}

static void rss_returns_after_burst(void **state)
{
    (void)state;
#if defined(__SANITIZE_THREAD__)
    skip(); /* ThreadSanitizer's shadow of the touched memory stays resident */
#endif
    cuzk_engine *e = budget_engine(1024 * MiB, 2);
    cuzk_srs *s;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=5000000,host_bytes=33554432,abc_pct=50", 0, &s), CUZK_OK);
    run_jobs(e, s, 1); /* warm: thread stacks, the arena's first blocks */
    sleep_ms(200);
    uint64_t base = process_rss_bytes();
    atomic_store(&sampling, 1);
    atomic_store(&rss_max, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, sampler, NULL), 0);
    run_jobs(e, s, 4); /* page faults cost ~50 µs each on the CI VM: keep it small */
    uint64_t t_last = mono_ns(), rss = 0, slack = base / 10 > 16 * MiB ? base / 10 : 16 * MiB;
    while ((rss = process_rss_bytes()) > base + slack && mono_ns() - t_last < 1000000000ull) sleep_ms(5);
    uint64_t back_ns = mono_ns() - t_last;
    atomic_store(&sampling, 0);
    pthread_join(t, NULL);
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    printf("rss: %.1f MiB before, %.1f MiB at peak, %.1f MiB %.0f ms after the last result (%llu collects)\n",
           base / (double)MiB, atomic_load(&rss_max) / (double)MiB, rss / (double)MiB, back_ns / 1e6,
           (unsigned long long)st.arena_collects);
    assert_true(atomic_load(&rss_max) >= base + 24 * MiB); /* the burst really used memory */
    assert_true(rss <= base + slack);
    assert_true(st.arena_collects >= 1);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counter_alone),
        cmocka_unit_test(waits_and_never_fits),
        cmocka_unit_test(never_fits_beside_host_memory),
        cmocka_unit_test(abc_share_comes_back_after_h),
        cmocka_unit_test(evicted_keys_pinned_count),
        cmocka_unit_test(load_reserves_before_evicting),
        cmocka_unit_test(racing_eviction_counted),
        cmocka_unit_test(load_in_flight_not_never_fits),
        cmocka_unit_test(rss_returns_after_burst),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
