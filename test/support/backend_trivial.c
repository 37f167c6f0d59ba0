/*
 * TEST ONLY (test/support, linked by the tests and cuzk-bench, never part of libcuzk): a
 * backend that proves nothing, for the engine's tests and benchmarks (backend_trivial.h).
 * Its "key" is a spec string given to cuzk_srs_load:
 *   "trivial:work_ns=N,finish_ns=N,host_bytes=N,abc_pct=P,est_bytes=N"
 * start waits work_ns (cancellable), allocates and touches host_bytes from the partition's
 * heap (abc_pct of it in one block given back mid-way, as an H step would; the rest in
 * 64 KiB pieces); finish waits finish_ns and
 * writes a proof derived from the user_tag that verify checks. A user_tag with bit 63 set
 * makes verify fail; bit 62 makes start fail with CUZK_ENOMEM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/backend_trivial.h"

#include "error.h"

typedef struct trivial_key {
    uint64_t work_ns, finish_ns, host_bytes, abc_pct, est_bytes;
} trivial_key;

#define TRIVIAL_FAIL_VERIFY (1ull << 63)
#define TRIVIAL_FAIL_START (1ull << 62)

static _Atomic int64_t keys_live; /* loaded and not yet freed, every engine together */

int64_t backend_trivial_keys_live(void) { return atomic_load(&keys_live); }

static int tv_create(const backend_config *cfg, void **be, uint32_t *devices)
{
    (void)cfg;
    *be = NULL;
    *devices = 1;
    return CUZK_OK;
}
static void tv_destroy(void *be) { (void)be; }
static int32_t tv_ordinal(void *be, uint32_t d) { (void)be; (void)d; return -1; }

static int tv_key_load(void *be, const char *path, uint32_t flags, void **key)
{
    (void)be; (void)flags;
    if (strncmp(path, "trivial:", 8) != 0)
        return err_set(CUZK_EFORMAT, "trivial backend: key spec '%s' does not start with 'trivial:'", path);
    trivial_key *k = calloc(1, sizeof *k);
    if (!k) return err_set(CUZK_ENOMEM, "trivial backend: out of memory");
    k->est_bytes = UINT64_MAX;
    const char *s = path + 8;
    while (*s) {
        char name[32];
        unsigned long long v;
        int n = 0;
        if (sscanf(s, "%31[a-z_]=%llu%n", name, &v, &n) != 2) {
            free(k);
            return err_set(CUZK_EFORMAT, "trivial backend: cannot parse '%s'", s);
        }
        if (!strcmp(name, "work_ns")) k->work_ns = v;
        else if (!strcmp(name, "finish_ns")) k->finish_ns = v;
        else if (!strcmp(name, "host_bytes")) k->host_bytes = v;
        else if (!strcmp(name, "abc_pct")) k->abc_pct = v > 100 ? 100 : v;
        else if (!strcmp(name, "est_bytes")) k->est_bytes = v;
        else {
            free(k);
            return err_set(CUZK_EFORMAT, "trivial backend: unknown setting '%s'", name);
        }
        s += n;
        if (*s == ',') s++;
    }
    atomic_fetch_add(&keys_live, 1);
    *key = k;
    return CUZK_OK;
}

static void tv_key_free(void *be, void *key)
{
    (void)be;
    atomic_fetch_sub(&keys_live, 1);
    free(key);
}

static int tv_check(void *be, void *key, const cuzk_partition *p, backend_estimate *est)
{
    (void)be; (void)p;
    const trivial_key *k = key;
    est->host_bytes = k->est_bytes != UINT64_MAX ? k->est_bytes : k->host_bytes;
    est->host_abc_bytes = est->host_bytes / 100 * k->abc_pct;
    est->device_bytes = 0;
    return CUZK_OK;
}

static int tv_worker_init(void *be, uint32_t device, uint32_t worker, uint32_t flags, void **ws)
{
    (void)be; (void)device; (void)worker; (void)flags;
    *ws = NULL;
    return CUZK_OK;
}
static void tv_worker_fini(void *ws) { (void)ws; }

/* Waits ns, in steps short enough to notice a cancel; 1 if canceled. */
static int wait_ns(backend_job *job, uint64_t ns)
{
    if (!ns) return 0;
    uint64_t end = bjob_now_ns() + ns;
    for (;;) {
        if (job && bjob_canceled(job)) return 1;
        uint64_t now = bjob_now_ns();
        if (now >= end) return 0;
        uint64_t step = end - now;
        if (step < 20000) continue; /* short waits spin: sleeping would overshoot them */
        if (step > 1000000) step = 1000000;
        struct timespec ts = {0, (long)step};
        nanosleep(&ts, NULL);
    }
}

static void touch(unsigned char *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i += 4096) p[i] = (unsigned char)i;
    if (n) p[n - 1] = 1;
}

static int tv_start(void *ws, backend_job *job)
{
    (void)ws;
    const trivial_key *k = job->key;
    if (job->p->user_tag & TRIVIAL_FAIL_START) return err_set(CUZK_ENOMEM, "trivial backend: start fails on request");
    uint64_t abc = k->host_bytes / 100 * k->abc_pct, rest = k->host_bytes - abc;
    unsigned char *a = NULL, *r = NULL;
    if (abc && !(a = bjob_alloc(job, abc))) return err_set(CUZK_ENOMEM, "trivial backend: heap exhausted");
    if (a) touch(a, abc);
    /* the rest in 64 KiB pieces: small objects live in mimalloc segments that only the
     * housekeeper's collect returns to the OS (big ones are unmapped when freed) */
    for (uint64_t done = 0; done < rest; done += 65536) {
        uint64_t n = rest - done < 65536 ? rest - done : 65536;
        if (!(r = bjob_alloc(job, n))) return err_set(CUZK_ENOMEM, "trivial backend: heap exhausted");
        touch(r, n);
    }
    uint64_t t0 = bjob_now_ns();
    if (wait_ns(job, k->work_ns / 2)) return CUZK_ECANCELED;
    bjob_trace(job, CUZK_TRACE_H_STEP, t0, bjob_now_ns(), abc);
    bjob_free(job, a);
    bjob_release_abc(job);
    uint64_t t1 = bjob_now_ns();
    if (wait_ns(job, k->work_ns - k->work_ns / 2)) return CUZK_ECANCELED;
    bjob_trace(job, CUZK_TRACE_MSM_ALL, t1, bjob_now_ns(), rest);
    return CUZK_OK;
}

static void fake_proof(uint8_t proof[192], uint64_t tag)
{
    for (int i = 0; i < 192; i++) proof[i] = (uint8_t)((tag >> (8 * (i % 8))) ^ (uint64_t)i ^ 0xa5u);
}

static int tv_finish(void *be, backend_job *job)
{
    (void)be;
    const trivial_key *k = job->key;
    uint64_t t0 = bjob_now_ns();
    if (wait_ns(NULL, k->finish_ns)) return CUZK_ECANCELED;
    fake_proof(job->proof, job->p->user_tag);
    bjob_trace(job, CUZK_TRACE_ASSEMBLY, t0, bjob_now_ns(), 0);
    return CUZK_OK;
}

static int tv_verify(void *be, void *key, backend_job *job)
{
    (void)be; (void)key;
    uint8_t expect[192];
    fake_proof(expect, job->p->user_tag);
    if ((job->p->user_tag & TRIVIAL_FAIL_VERIFY) || memcmp(expect, job->proof, 192))
        return err_set(CUZK_EVERIFY, "trivial backend: proof rejected");
    return CUZK_OK;
}

const backend_ops backend_trivial_ops = {
    .name = "trivial",
    .kind = CUZK_BACKEND_CPU,
    .priv_size = 0,
    .inflight_per_worker = 4,
    .create = tv_create,
    .destroy = tv_destroy,
    .device_ordinal = tv_ordinal,
    .key_load = tv_key_load,
    .key_free = tv_key_free,
    .check = tv_check,
    .worker_init = tv_worker_init,
    .worker_fini = tv_worker_fini,
    .start = tv_start,
    .finish = tv_finish,
    .verify = tv_verify,
};
