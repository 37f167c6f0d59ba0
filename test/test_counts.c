/* Every count and size a host passes to a public call, at the edges and at random: 0, 1, 2^32,
 * 2^59 (where n * 32 wraps), 2^63, SIZE_MAX and random 64-bit values, through cuzk_verify,
 * cuzk_submit_partition, cuzk_host_alloc, cuzk_r1cs_partition, cuzk_engine_stats,
 * cuzk_srs_placement, cuzk_poll_result, cuzk_stats_format_prometheus, cuzk_config_set and cuzk_cancel; and the
 * counts inside files (.params, .r1cs, .wtns) through their loaders. Each call must give a
 * clear error code (or CUZK_OK for the one right value), never crash, never read past the
 * host's small buffers (ASan in CI), and never ask the C heap for a huge block: the library's
 * references to malloc & co. and mmap are wrapped at link time (Makefile: --wrap) and any
 * request above 256 MiB fails the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "cuzk/r1cs.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support/testengine.h"
#include "support/testkey.h"
#include "support/testutil.h"

/* ---- the allocation guard ---- */

#define HUGE_BYTES ((uint64_t)256 << 20)
static _Atomic uint64_t huge_requests, huge_max;

static void note(uint64_t bytes)
{
    if (bytes <= HUGE_BYTES) return;
    atomic_fetch_add(&huge_requests, 1);
    uint64_t m = atomic_load(&huge_max);
    while (bytes > m && !atomic_compare_exchange_weak(&huge_max, &m, bytes)) {
    }
}

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void *__real_aligned_alloc(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);
void *__real_mmap(void *, size_t, int, int, int, off_t);

void *__wrap_malloc(size_t n)
{
    note(n);
    return __real_malloc(n);
}
void *__wrap_calloc(size_t a, size_t b)
{
    size_t n;
    note(__builtin_mul_overflow(a, b, &n) ? UINT64_MAX : n);
    return __real_calloc(a, b);
}
void *__wrap_realloc(void *p, size_t n)
{
    note(n);
    return __real_realloc(p, n);
}
void *__wrap_aligned_alloc(size_t al, size_t n)
{
    note(n);
    return __real_aligned_alloc(al, n);
}
int __wrap_posix_memalign(void **p, size_t al, size_t n)
{
    note(n);
    return __real_posix_memalign(p, al, n);
}
void *__wrap_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off)
{
    note(n);
    return __real_mmap(addr, n, prot, flags, fd, off);
}

static void no_huge_request(const char *where)
{
    uint64_t n = atomic_exchange(&huge_requests, 0), m = atomic_exchange(&huge_max, 0);
    if (n) fail_msg("%s: %llu allocation requests above 256 MiB (largest %llu bytes)", where,
                    (unsigned long long)n, (unsigned long long)m);
}

/* ---- the counts ---- */

static const uint64_t EDGES[] = {
    0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 1u << 20, (1ull << 31) - 1, 1ull << 31,
    (1ull << 32) - 1, 1ull << 32, (1ull << 32) + 1, 1ull << 40, 1ull << 58, 1ull << 59,
    (1ull << 59) + 1, 1ull << 60, 1ull << 62, (1ull << 63) - 1, 1ull << 63, UINT64_MAX - 32,
    UINT64_MAX - 31, UINT64_MAX - 1, UINT64_MAX};
#define NEDGES (sizeof EDGES / sizeof EDGES[0])
#define NRANDOM 40

/* The i-th count to try: every edge, then random ones (small, 32-bit, 64-bit). */
static uint64_t count_at(unsigned i)
{
    if (i < NEDGES) return EDGES[i];
    uint64_t x = test_rand64();
    switch (i % 3) {
    case 0: return x % 4096;
    case 1: return x & 0xffffffffu;
    default: return x;
    }
}
#define NCOUNTS (NEDGES + NRANDOM)

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- fixtures ---- */

/* the key, a proof, its inputs (exactly fx.npub are valid; the rest must never be read), and
 * the same circuit and witness as .r1cs and .wtns files in fx.dir */
static test_fixture fx;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(test_fixture_make(&fx, 40, "counts"), CUZK_OK);
    no_huge_request("setup");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_fixture_free(&fx);
    return 0;
}

static cuzk_engine *small_engine(void)
{
    cuzk_engine *e = TEST_ENGINE({CUZK_OPT_BACKEND, CUZK_BACKEND_CPU}, {CUZK_OPT_CPU_THREADS, 2},
                                 {CUZK_OPT_HOST_BUDGET_BYTES, 64 << 20}, {CUZK_OPT_QUEUE_CAPACITY, 16});
    assert_non_null(e);
    return e;
}

/* ---- the regression: n = 2^59 wrapped n * 32 into a tiny block, then wrote past it ---- */

static void verify_count_checked_first(void **state)
{
    (void)state;
    assert_int_equal(cuzk_verify(fx.key.vk, fx.key.vk_len, fx.proof, fx.pub, fx.npub, CUZK_FR_CANONICAL), CUZK_OK);
    const size_t huge[] = {(size_t)1 << 59, (size_t)1 << 60, (size_t)1 << 62, (size_t)1 << 22, SIZE_MAX};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        uint64_t t0 = mono_ns();
        assert_int_equal(cuzk_verify(fx.key.vk, fx.key.vk_len, fx.proof, fx.pub, huge[i], CUZK_FR_CANONICAL),
                         CUZK_EMISMATCH);
        uint64_t dt = mono_ns() - t0;
        assert_non_null(strstr(cuzk_last_error(), "public inputs"));
        /* at once: nothing converted or decoded first (a 2^22 conversion took ~0.4 s) */
        if (dt > 100000000u) fail_msg("n = %zu took %llu ns before CUZK_EMISMATCH", huge[i], (unsigned long long)dt);
    }
    no_huge_request("cuzk_verify");
}

/* ---- properties over every count ---- */

static void verify_counts(void **state)
{
    (void)state;
    /* inputs that are all 0 read the same in both forms (0 is the only such number): then the
     * other form verifies too (seed 0x18ed672192f200b5 drew one public input, 0) */
    int all_zero = 1;
    for (size_t k = 0; k < fx.npub; k++)
        for (int l = 0; l < 4; l++) all_zero &= ((const uint64_t *)&fx.pub[k])[l] == 0;
    for (unsigned i = 0; i < NCOUNTS; i++) {
        uint64_t n = count_at(i);
        int want = n == fx.npub ? CUZK_OK : CUZK_EMISMATCH;
        for (int form = 0; form < 2; form++) {
            int rc = cuzk_verify(fx.key.vk, fx.key.vk_len, fx.proof, fx.pub, (size_t)n,
                                 form ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY);
            /* the right count in the other form: the inputs are other numbers (or not below r) */
            if (n == fx.npub && !form) {
                if (all_zero) assert_int_equal(rc, CUZK_OK);
                else assert_true(rc == CUZK_EVERIFY || rc == CUZK_EINVAL);
            }
            else if (rc != want) fail_msg("cuzk_verify n = %llu: %d (%s)", (unsigned long long)n, rc, cuzk_last_error());
        }
        /* the key's length: anything short of the whole ic is CUZK_EFORMAT, whatever n is */
        size_t len = (size_t)(n % (fx.key.vk_len + 1));
        if (len < fx.key.vk_len) {
            int rc = cuzk_verify(fx.key.vk, len, fx.proof, fx.pub, fx.npub, CUZK_FR_CANONICAL);
            if (rc != CUZK_EFORMAT) fail_msg("cuzk_verify vk_len %zu of %zu: %d", len, fx.key.vk_len, rc);
            rc = cuzk_verify(fx.key.vk, len, fx.proof, fx.pub, (size_t)n, CUZK_FR_CANONICAL);
            assert_true(rc == CUZK_EFORMAT || rc == CUZK_EMISMATCH);
        }
    }
    no_huge_request("cuzk_verify");
}

static void on_release(void *user) { atomic_fetch_add((_Atomic int *)user, 1); }

static void submit_counts(void **state)
{
    (void)state;
    cuzk_engine *e = small_engine();
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, fx.key.path, 0, &srs), CUZK_OK);
    cuzk_partition good;
    assert_int_equal(synth_partition(&fx.key.scfg, CUZK_FR_CANONICAL, &good), CUZK_OK);
    _Atomic int released = 0;
    uint64_t domain = 1;
    while (domain < good.abc_len) domain <<= 1;
    for (unsigned i = 0; i < NCOUNTS; i++) {
        for (int field = 0; field < 4; field++) {
            cuzk_partition p = good;
            p.release = on_release;
            p.release_user = (void *)&released;
            uint64_t n = count_at(i);
            switch (field) {
            case 0: p.abc_len = n; break;
            case 1: p.num_inputs = n; break;
            case 2: p.num_aux = n; break;
            default: /* all three at once, from the stream */
                p.abc_len = n;
                p.num_inputs = count_at(i + 1);
                p.num_aux = count_at(i + 2);
            }
            /* abc_len is the length of the host's a, b, c buffers: a larger one in the same
             * domain is a lie the library cannot see (it would read past them), not a count to
             * refuse; a shorter one is a valid (other) partition */
            if (p.abc_len > good.abc_len && p.abc_len <= domain) continue;
            int fits = p.abc_len <= good.abc_len && p.abc_len > domain / 2 && p.abc_len >= p.num_inputs &&
                       p.num_inputs == good.num_inputs && p.num_aux == good.num_aux;
            cuzk_job h;
            int rc = cuzk_submit_partition(e, srs, &p, &h);
            if (fits) {
                assert_int_equal(rc, CUZK_OK);
                cuzk_result r = {.struct_size = sizeof r};
                assert_int_equal(cuzk_poll_result(e, &r, -1), CUZK_OK);
                if (p.abc_len == good.abc_len) assert_int_equal(r.status, CUZK_OK);
            } else if (rc != CUZK_EMISMATCH && rc != CUZK_EINVAL) {
                fail_msg("submit abc_len %llu num_inputs %llu num_aux %llu: %d (%s)",
                         (unsigned long long)p.abc_len, (unsigned long long)p.num_inputs,
                         (unsigned long long)p.num_aux, rc, cuzk_last_error());
            }
        }
    }
    /* priorities at the edges are clamped, never refused */
    const int32_t prios[] = {INT32_MIN, -1, 0, 7, 8, INT32_MAX};
    for (size_t i = 0; i < sizeof prios / sizeof prios[0]; i++) {
        cuzk_partition p = good;
        p.release = NULL;
        p.priority = prios[i];
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, srs, &p, &h), CUZK_OK);
        cuzk_result r = {.struct_size = sizeof r};
        assert_int_equal(cuzk_poll_result(e, &r, -1), CUZK_OK);
        assert_int_equal(r.status, CUZK_OK);
    }
    good.release(good.release_user);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
    no_huge_request("cuzk_submit_partition");
}

static void host_alloc_counts(void **state)
{
    (void)state;
    cuzk_engine *e = small_engine(); /* a 64 MiB budget */
    for (unsigned i = 0; i < NCOUNTS; i++) {
        uint64_t n = count_at(i);
        void *p = NULL;
        int rc = cuzk_host_alloc(e, (size_t)n, &p);
        int want = n == 0 ? CUZK_EINVAL : n > (64u << 20) ? CUZK_EBUDGET : CUZK_OK;
        if (rc != want) fail_msg("cuzk_host_alloc %llu bytes: %d (%s)", (unsigned long long)n, rc, cuzk_last_error());
        if (rc == CUZK_OK) {
            assert_non_null(p);
            memset(p, 0xa5, (size_t)n < 4096 ? (size_t)n : 4096);
            cuzk_host_free(e, p);
        } else {
            assert_null(p);
        }
    }
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.host_reserved_bytes, 0);
    cuzk_engine_destroy(e);
    no_huge_request("cuzk_host_alloc");
}

static void witness_counts(void **state)
{
    (void)state;
    cuzk_r1cs *r;
    cuzk_fr *w;
    uint64_t nw;
    assert_int_equal(cuzk_r1cs_load(fx.r1cs_path, &r), CUZK_OK);
    assert_int_equal(cuzk_wtns_load(fx.wtns_path, &w, &nw), CUZK_OK);
    for (unsigned i = 0; i < NCOUNTS; i++) {
        uint64_t n = count_at(i);
        cuzk_partition p;
        int rc = cuzk_r1cs_partition(r, w, n, &p);
        if (n == nw) {
            assert_int_equal(rc, CUZK_OK);
            p.release(p.release_user);
        } else if (rc != CUZK_EINVAL) {
            fail_msg("cuzk_r1cs_partition count %llu (circuit: %llu): %d", (unsigned long long)n,
                     (unsigned long long)nw, rc);
        }
    }
    cuzk_free(w);
    cuzk_r1cs_free(r);
    no_huge_request("cuzk_r1cs_partition");
}

static void struct_sizes_and_buffers(void **state)
{
    (void)state;
    cuzk_engine *e = small_engine();
    static unsigned char room[8192];
    const uint32_t sizes[] = {0, 1, 4, CUZK_STATS_SIZE_V1 - 1, CUZK_STATS_SIZE_V1, CUZK_RESULT_SIZE_V1 - 1,
                              CUZK_RESULT_SIZE_V1, sizeof(cuzk_result), 4096, 65536, UINT32_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t sz = sizes[i];
        /* stats: below V1 refused; above, no more than the library's own size written */
        memset(room, 0x5a, sizeof room);
        memcpy(room, &sz, sizeof sz);
        int rc = cuzk_engine_stats(e, (cuzk_stats *)(void *)room);
        assert_int_equal(rc, sz < CUZK_STATS_SIZE_V1 ? CUZK_EINVAL : CUZK_OK);
        for (size_t b = sizeof(cuzk_stats); b < sizeof room; b++) assert_int_equal(room[b], 0x5a);
        /* results: below V1 refused before waiting; above, nothing ready (timeout 0) */
        memcpy(room, &sz, sizeof sz);
        rc = cuzk_poll_result(e, (cuzk_result *)(void *)room, 0);
        assert_int_equal(rc, sz < CUZK_RESULT_SIZE_V1 ? CUZK_EINVAL : CUZK_EAGAIN);
        /* the Prometheus text from a snapshot of that size */
        cuzk_stats st;
        memset(&st, 0, sizeof st);
        st.struct_size = sz;
        size_t written = 0;
        rc = cuzk_stats_format_prometheus(&st, NULL, 0, NULL, 0, &written);
        assert_int_equal(rc, sz < CUZK_STATS_SIZE_V1 ? CUZK_EINVAL : CUZK_ERANGE);
    }
    /* Prometheus: device counts and buffer lengths */
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    uint64_t busy[4] = {1, 2, 3, 4};
    static char text[1 << 16];
    for (unsigned i = 0; i < NCOUNTS; i++) {
        uint64_t n = count_at(i);
        size_t written = 0;
        int rc = cuzk_stats_format_prometheus(&st, NULL, (uint32_t)n, NULL, 0, &written);
        assert_int_equal(rc, (uint32_t)n ? CUZK_EINVAL : CUZK_ERANGE);
        rc = cuzk_stats_format_prometheus(&st, busy, (uint32_t)(n % 5), NULL, (size_t)n, &written);
        assert_int_equal(rc, n ? CUZK_EINVAL : CUZK_ERANGE); /* buf NULL with len > 0 */
        size_t len = (size_t)(n % (sizeof text + 1));
        rc = cuzk_stats_format_prometheus(&st, busy, (uint32_t)(n % 5), len ? text : NULL, len, &written);
        assert_true(rc == CUZK_OK || rc == CUZK_ERANGE);
        assert_int_equal(rc == CUZK_OK, written < len);
        if (rc == CUZK_OK) assert_int_equal(strlen(text), written);
    }
    /* options: every value at the edges of int64, every option number at the edges of int32 */
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    const int64_t vals[] = {INT64_MIN, INT64_MIN + 1, -2, -1, 0, 1, 2, 64, 65, 4096, 4097, 1 << 20,
                            (1 << 20) + 1, 1000000000, 1000000001, INT64_MAX - 1, INT64_MAX};
    for (int32_t opt = CUZK_OPT_BACKEND; opt <= CUZK_OPT_URGENT_PRIORITY; opt++) /* the last option */
        for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
            int rc = cuzk_config_set(cfg, opt, vals[v]);
            assert_true(rc == CUZK_OK || rc == CUZK_EINVAL);
            int64_t back = 0;
            assert_int_equal(cuzk_config_get(cfg, opt, &back), CUZK_OK);
            if (rc == CUZK_OK) assert_true(back == vals[v]);
        }
    const int32_t opts[] = {INT32_MIN, -1, 0, CUZK_OPT_URGENT_PRIORITY + 1, INT32_MAX};
    for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++) {
        int64_t v;
        assert_int_equal(cuzk_config_set(cfg, opts[o], 1), CUZK_EINVAL);
        assert_int_equal(cuzk_config_get(cfg, opts[o], &v), CUZK_EINVAL);
    }
    cuzk_config_free(cfg);
    /* device indices of a key's placement: the CPU backend has device 0 only */
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, fx.key.path, 0, &srs), CUZK_OK);
    for (unsigned i = 0; i < NCOUNTS; i++) {
        uint32_t d = (uint32_t)count_at(i);
        cuzk_placement pl = {.struct_size = sizeof pl};
        assert_int_equal(cuzk_srs_placement(srs, d, &pl), d == 0 ? CUZK_OK : CUZK_EINVAL);
    }
    cuzk_srs_release(srs);
    /* handles: made-up ones are unknown */
    for (unsigned i = 0; i < NCOUNTS; i++) assert_int_equal(cuzk_cancel(e, count_at(i)), CUZK_ENOTFOUND);
    cuzk_engine_destroy(e);
    no_huge_request("struct sizes");
}

/* ---- counts inside files ---- */

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*len);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

static void spit(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    fclose(f);
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i));
}

typedef struct field_at {
    size_t off;
    int bytes;  /* 4 or 8 */
    int big;    /* big-endian (the .params counts) */
} field_at;

/* Every count field of a file: for each one, each count written there; the loader must give
 * CUZK_OK (the original value) or CUZK_EFORMAT and stay within a sane allocation. */
static void patch_counts(const char *path, const field_at *fields, int nfields,
                         int (*load)(const char *path))
{
    size_t len;
    unsigned char *orig = slurp(path, &len), *m = malloc(len);
    assert_non_null(m);
    char tmp[160]; /* in the fixture's directory: removed by teardown even after a failure */
    snprintf(tmp, sizeof tmp, "%s/patched", fx.dir);
    for (int f = 0; f < nfields; f++)
        for (unsigned i = 0; i < NCOUNTS; i++) {
            memcpy(m, orig, len);
            uint64_t v = count_at(i);
            if (fields[f].bytes == 4) v &= 0xffffffffu;
            if (fields[f].big)
                for (int b = 0; b < 4; b++) m[fields[f].off + b] = (unsigned char)(v >> (24 - 8 * b));
            else put_le(m + fields[f].off, v, fields[f].bytes);
            spit(tmp, m, len);
            int rc = load(tmp);
            int same = !memcmp(m, orig, len);
            if (same ? rc != CUZK_OK : rc != CUZK_EFORMAT && rc != CUZK_OK)
                fail_msg("%s: field at offset %zu = %llu: %d (%s)", path, fields[f].off,
                         (unsigned long long)v, rc, cuzk_last_error());
        }
    unlink(tmp);
    free(m);
    free(orig);
}

static cuzk_engine *file_engine;

static int load_params(const char *path)
{
    cuzk_srs *s = NULL;
    int rc = cuzk_srs_load(file_engine, path, 0, &s);
    cuzk_srs_release(s);
    return rc;
}

static int load_r1cs(const char *path)
{
    cuzk_r1cs *r = NULL;
    int rc = cuzk_r1cs_load(path, &r);
    cuzk_r1cs_free(r);
    return rc;
}

static int load_wtns(const char *path)
{
    cuzk_fr *w = NULL;
    uint64_t n = 0;
    int rc = cuzk_wtns_load(path, &w, &n);
    cuzk_free(w);
    return rc;
}

/* The section table of a circom file (.r1cs, .wtns): the size field of each section, and its
 * payload's offset. */
static int circom_sections(const unsigned char *b, size_t len, size_t *size_off, size_t *data_off, int max)
{
    uint32_t nsec = (uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 | (uint32_t)b[11] << 24;
    size_t o = 12;
    int n = 0;
    for (uint32_t s = 0; s < nsec && n < max && o + 12 <= len; s++, n++) {
        uint64_t sz = 0;
        for (int i = 0; i < 8; i++) sz |= (uint64_t)b[o + 4 + i] << (8 * i);
        size_off[n] = o + 4;
        data_off[n] = o + 12;
        o += 12 + sz;
    }
    return n;
}

static void file_counts(void **state)
{
    (void)state;
    /* .params: the six section counts (big-endian u32) */
    field_at pf[6];
    size_t len;
    unsigned char *b = slurp(fx.key.path, &len);
    size_t o = 864;
    for (int s = 0; s < 6; s++) {
        pf[s] = (field_at){o, 4, 1};
        uint32_t c = (uint32_t)b[o] << 24 | (uint32_t)b[o + 1] << 16 | (uint32_t)b[o + 2] << 8 | b[o + 3];
        o += 4 + (size_t)c * (s == 5 ? 192 : 96);
    }
    assert_int_equal(o, len);
    free(b);
    file_engine = small_engine();
    patch_counts(fx.key.path, pf, 6, load_params);
    cuzk_engine_destroy(file_engine);

    /* .r1cs: section sizes, then the header's wire, output, input, label and constraint counts */
    size_t so[8], dof[8];
    b = slurp(fx.r1cs_path, &len);
    int ns = circom_sections(b, len, so, dof, 8);
    field_at rf[16];
    int nr = 0;
    for (int s = 0; s < ns; s++) rf[nr++] = (field_at){so[s], 8, 0};
    uint32_t id0 = (uint32_t)b[so[0] - 4];
    assert_int_equal(id0, 1); /* the writer puts the header first */
    size_t h = dof[0] + 4 + 32;
    rf[nr++] = (field_at){h, 4, 0};      /* nWires */
    rf[nr++] = (field_at){h + 4, 4, 0};  /* nPubOut */
    rf[nr++] = (field_at){h + 8, 4, 0};  /* nPubIn */
    rf[nr++] = (field_at){h + 12, 4, 0}; /* nPrvIn */
    rf[nr++] = (field_at){h + 16, 8, 0}; /* nLabels */
    rf[nr++] = (field_at){h + 24, 4, 0}; /* nConstraints */
    rf[nr++] = (field_at){dof[1], 4, 0}; /* the first linear combination's term count */
    free(b);
    patch_counts(fx.r1cs_path, rf, nr, load_r1cs);

    /* .wtns: section sizes, the field size and the value count */
    b = slurp(fx.wtns_path, &len);
    ns = circom_sections(b, len, so, dof, 8);
    field_at wf[8];
    int nwf = 0;
    for (int s = 0; s < ns; s++) wf[nwf++] = (field_at){so[s], 8, 0};
    wf[nwf++] = (field_at){dof[0], 4, 0};          /* n8 */
    wf[nwf++] = (field_at){dof[0] + 4 + 32, 4, 0}; /* the value count */
    free(b);
    patch_counts(fx.wtns_path, wf, nwf, load_wtns);
    no_huge_request("file counts");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(verify_count_checked_first),
        cmocka_unit_test(verify_counts),
        cmocka_unit_test(submit_counts),
        cmocka_unit_test(host_alloc_counts),
        cmocka_unit_test(witness_counts),
        cmocka_unit_test(struct_sizes_and_buffers),
        cmocka_unit_test(file_counts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
