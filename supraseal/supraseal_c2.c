/*
 * supraseal C2's C entry points on libcuzk (supraseal_c2.h): one process-wide engine, keys
 * as reference-counted handles, a batch of Assignments proven as partitions and the
 * compressed proofs turned into bellperson's in-memory Proof<Bls12>.
 *
 * Built from libcuzk's own objects, not against libcuzk.so: the proof conversion needs point
 * decompression and Montgomery form, which lib/field/ has (g1_decode, g2_decode) and the
 * public API does not export; linking the same objects reuses that code instead of a second
 * copy of field arithmetic, and the version script (supraseal.map) hides everything but the
 * five symbols, so the library neither clashes with nor depends on an installed libcuzk.
 */
#include "supraseal_c2.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cuzk.h"
#include "field/curve.h"

_Static_assert(sizeof(supraseal_c2_assignment) == 17 * sizeof(size_t), "Assignment is 17 words");
_Static_assert(sizeof(supraseal_c2_srs) == sizeof(void *), "SRS is one pointer");
_Static_assert(sizeof(supraseal_c2_proof) == 384, "Proof<Bls12> is 384 bytes");
_Static_assert(sizeof(supraseal_c2_fr) == sizeof(cuzk_fr), "fr is cuzk_fr");
_Static_assert(sizeof(g1_aff) == sizeof(supraseal_c2_g1) && sizeof(g2_aff) == sizeof(supraseal_c2_g2),
               "lib/field's affine points are blst's in-memory layout");

/* ---- errors ---- */

static supraseal_c2_error ok_error(void) { return (supraseal_c2_error){0, NULL}; }

__attribute__((format(printf, 2, 3))) static supraseal_c2_error make_error(int code, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return (supraseal_c2_error){code ? code : CUZK_EINVAL, strdup(buf)};
}

/* ---- the engine ---- */

static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;
static cuzk_engine *engine; /* written once under engine_lock; read after create_SRS gave a key */

static const struct {
    const char *name;
    int32_t option;
} env_options[] = {
    {"CUZK_DEVICE_MASK", CUZK_OPT_DEVICE_MASK},
    {"CUZK_WORKERS_PER_DEVICE", CUZK_OPT_WORKERS_PER_DEVICE},
    {"CUZK_CPU_THREADS", CUZK_OPT_CPU_THREADS},
    {"CUZK_HOST_BUDGET_BYTES", CUZK_OPT_HOST_BUDGET_BYTES},
    {"CUZK_DEVICE_BUDGET_BYTES", CUZK_OPT_DEVICE_BUDGET_BYTES},
    {"CUZK_QUEUE_CAPACITY", CUZK_OPT_QUEUE_CAPACITY},
    {"CUZK_FINISHER_THREADS", CUZK_OPT_FINISHER_THREADS},
    {"CUZK_VERIFY", CUZK_OPT_VERIFY},
    {"CUZK_RETRY_ON_CPU", CUZK_OPT_RETRY_ON_CPU},
};

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

/* The options from the environment (supraseal_c2.h lists them) into cfg. */
static supraseal_c2_error config_from_env(cuzk_config *cfg)
{
    const char *b = getenv("CUZK_BACKEND");
    if (b && *b) {
        int64_t v = !strcmp(b, "auto") ? CUZK_BACKEND_AUTO
                    : !strcmp(b, "cpu")  ? CUZK_BACKEND_CPU
                    : !strcmp(b, "cuda") ? CUZK_BACKEND_CUDA
                                         : -1;
        if (v < 0) return make_error(CUZK_EINVAL, "CUZK_BACKEND is '%s'; it takes auto, cpu or cuda", b);
        cuzk_config_set(cfg, CUZK_OPT_BACKEND, v);
    }
    for (size_t i = 0; i < sizeof env_options / sizeof env_options[0]; i++) {
        const char *s = getenv(env_options[i].name);
        int64_t v;
        if (!s || !*s) continue;
        if (parse_i64(s, &v)) return make_error(CUZK_EINVAL, "%s is '%s', not an integer", env_options[i].name, s);
        if (cuzk_config_set(cfg, env_options[i].option, v))
            return make_error(CUZK_EINVAL, "%s=%s: %s", env_options[i].name, s, cuzk_last_error());
    }
    return ok_error();
}

/* The process-wide engine, made at the first call (a failure is not kept: the next call tries
 * again, e.g. after the host fixed the environment). */
static supraseal_c2_error get_engine(cuzk_engine **out)
{
    pthread_mutex_lock(&engine_lock);
    supraseal_c2_error err = ok_error();
    if (!engine) {
        cuzk_config *cfg = NULL;
        int rc = cuzk_config_new(&cfg);
        if (rc) err = make_error(rc, "libcuzk configuration: %s", cuzk_last_error());
        else err = config_from_env(cfg);
        if (!err.code && (rc = cuzk_engine_create(cfg, &engine))) {
            engine = NULL;
            err = make_error(rc, "libcuzk engine: %s: %s", cuzk_strerror(rc), cuzk_last_error());
        }
        cuzk_config_free(cfg);
    }
    *out = engine;
    pthread_mutex_unlock(&engine_lock);
    return err;
}

/* ---- keys ---- */

typedef struct srs_handle {
    atomic_size_t refs;
    cuzk_srs *srs;
    char *path;              /* the cache's key; NULL when not in the cache */
    struct srs_handle *next; /* the cache's list, under cache_lock         */
} srs_handle;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static srs_handle *cache_head; /* each entry holds one reference of its own */

static void handle_put(srs_handle *h)
{
    /* acq_rel: the last dropper must see every other holder's use of the key before freeing */
    if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1) return;
    cuzk_srs_release(h->srs);
    free(h->path);
    free(h);
}

supraseal_c2_error create_SRS(supraseal_c2_srs *ret, const char *path, bool cache)
{
    if (!ret) return make_error(CUZK_EINVAL, "create_SRS: ret is NULL");
    ret->ptr = NULL;
    if (!path) return make_error(CUZK_EINVAL, "create_SRS: path is NULL");
    cuzk_engine *e;
    supraseal_c2_error err = get_engine(&e);
    if (err.code) return err;
    /* with cache the lock is held across the load: a second caller of the same path waits for
     * the first and shares its key instead of loading it twice */
    if (cache) {
        pthread_mutex_lock(&cache_lock);
        for (srs_handle *h = cache_head; h; h = h->next)
            if (!strcmp(h->path, path)) {
                atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed); /* the cache holds one */
                ret->ptr = h;
                pthread_mutex_unlock(&cache_lock);
                return ok_error();
            }
    }
    srs_handle *h = calloc(1, sizeof *h);
    char *p = cache ? strdup(path) : NULL;
    int rc = !h || (cache && !p) ? CUZK_ENOMEM : cuzk_srs_load(e, path, 0, &h->srs);
    if (rc) {
        err = make_error(rc, "create_SRS(%s): %s: %s", path, cuzk_strerror(rc),
                         rc == CUZK_ENOMEM && !h ? "" : cuzk_last_error());
        free(h);
        free(p);
    } else {
        atomic_init(&h->refs, cache ? 2 : 1);
        if (cache) {
            h->path = p;
            h->next = cache_head;
            cache_head = h;
        }
        ret->ptr = h;
    }
    if (cache) pthread_mutex_unlock(&cache_lock);
    return err;
}

void evict_SRS(const supraseal_c2_srs *srs)
{
    if (!srs || !srs->ptr) return;
    srs_handle *found = NULL;
    pthread_mutex_lock(&cache_lock);
    for (srs_handle **pp = &cache_head; *pp; pp = &(*pp)->next)
        if (*pp == srs->ptr) {
            found = *pp;
            *pp = found->next;
            break;
        }
    pthread_mutex_unlock(&cache_lock);
    if (found) handle_put(found); /* the cache's reference; the caller's keeps it alive */
}

void drop_SRS(const supraseal_c2_srs *srs)
{
    if (srs && srs->ptr) handle_put(srs->ptr);
}

supraseal_c2_srs clone_SRS(const supraseal_c2_srs *srs)
{
    if (!srs || !srs->ptr) return (supraseal_c2_srs){NULL};
    srs_handle *h = srs->ptr;
    /* relaxed: the caller holds a reference, so the count cannot reach 0 meanwhile */
    atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
    return (supraseal_c2_srs){h};
}

/* ---- Assignment -> cuzk_partition (examples/c/supraseal_adapter.c's supraseal_to_cuzk,
 * with the reason written out for the error text) ---- */

static size_t popcount_bits(const uint64_t *bits, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n / 64; i++) c += (size_t)__builtin_popcountll(bits[i]);
    if (n % 64) c += (size_t)__builtin_popcountll(bits[n / 64] & ((UINT64_C(1) << (n % 64)) - 1));
    return c;
}

/* CUZK_OK, or CUZK_EINVAL / CUZK_EMISMATCH with why[] saying what does not fit. */
static int assignment_to_partition(const supraseal_c2_assignment *in, cuzk_partition *out, char *why, size_t len)
{
    if (!in->a || !in->b || !in->c || !in->inp_assignment_data || (in->aux_assignment_size && !in->aux_assignment_data) ||
        !in->a_aux_density || !in->b_inp_density || !in->b_aux_density) {
        snprintf(why, len, "a NULL buffer (a, b, c, the assignments or a density bitmap)");
        return CUZK_EINVAL;
    }
    /* supraseal sizes the bitmaps by the assignments; a mismatch means a stale Assignment */
    if (in->a_aux_bit_len != in->aux_assignment_size || in->b_aux_bit_len != in->aux_assignment_size) {
        snprintf(why, len, "a_aux bit length %zu and b_aux bit length %zu, aux assignment size %zu",
                 in->a_aux_bit_len, in->b_aux_bit_len, in->aux_assignment_size);
        return CUZK_EMISMATCH;
    }
    if (in->b_inp_bit_len != in->inp_assignment_size) {
        snprintf(why, len, "b_inp bit length %zu, input assignment size %zu", in->b_inp_bit_len,
                 in->inp_assignment_size);
        return CUZK_EMISMATCH;
    }
    static const char *const names[3] = {"a_aux", "b_inp", "b_aux"};
    const uint64_t *bits[3] = {in->a_aux_density, in->b_inp_density, in->b_aux_density};
    const size_t nbits[3] = {in->a_aux_bit_len, in->b_inp_bit_len, in->b_aux_bit_len};
    const size_t pop[3] = {in->a_aux_popcount, in->b_inp_popcount, in->b_aux_popcount};
    for (int k = 0; k < 3; k++) {
        size_t c = popcount_bits(bits[k], nbits[k]);
        if (c != pop[k]) {
            snprintf(why, len, "%s popcount %zu, its bitmap has %zu bits set", names[k], pop[k], c);
            return CUZK_EMISMATCH;
        }
    }
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->scalar_form = CUZK_FR_MONTGOMERY; /* blstrs scalars in memory */
    out->a = (const cuzk_fr *)in->a;
    out->b = (const cuzk_fr *)in->b;
    out->c = (const cuzk_fr *)in->c;
    out->abc_len = in->abc_size;
    out->inputs = (const cuzk_fr *)in->inp_assignment_data;
    out->num_inputs = in->inp_assignment_size;
    out->aux = (const cuzk_fr *)in->aux_assignment_data;
    out->num_aux = in->aux_assignment_size;
    out->a_aux_density = in->a_aux_density;
    out->b_input_density = in->b_inp_density;
    out->b_aux_density = in->b_aux_density;
    return CUZK_OK;
}

/* ---- compressed proof -> Proof<Bls12> in memory ---- */

static int proof_from_bytes(supraseal_c2_proof *out, const uint8_t in[192])
{
    g1_aff a, c;
    g2_aff b;
    /* the engine made (and by default verified) these: no subgroup check needed */
    int rc = g1_decode(&a, in, 48, 0);
    if (!rc) rc = g2_decode(&b, in + 48, 96, 0);
    if (!rc) rc = g1_decode(&c, in + 144, 48, 0);
    if (rc) return rc;
    /* lib/field keeps affine coordinates in Montgomery form, x then y, Fp2 as c0 then c1,
     * infinity as all zeros: blst's layout (static asserts above) */
    memcpy(&out->a, &a, sizeof out->a);
    memcpy(&out->b, &b, sizeof out->b);
    memcpy(&out->c, &c, sizeof out->c);
    return 0;
}

/* ---- proving: results shared out among the threads of concurrent calls ----
 * cuzk_poll_result hands any job's result to any poller, and several host threads may prove
 * at once on the one engine. So one waiting thread at a time polls and files each result
 * under its job's user_tag, which is the address of its call's slot; the others sleep on
 * results_cv until their batch is complete or the poller's turn is free. */

typedef struct batch batch;
typedef struct slot {
    batch *b;
    cuzk_job job;
    cuzk_result res;
} slot;
struct batch {
    size_t submitted, done; /* done: under results_lock */
    slot *slots;
};

static pthread_mutex_t results_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t results_cv = PTHREAD_COND_INITIALIZER;
static int polling; /* a thread is in cuzk_poll_result; under results_lock */

/* One step of waiting, with results_lock held (and held again on return): poll one result
 * if no one else is, else sleep until the poller has filed one. */
static void wait_step(cuzk_engine *e)
{
    if (polling) {
        pthread_cond_wait(&results_cv, &results_lock);
        return;
    }
    polling = 1;
    pthread_mutex_unlock(&results_lock);
    cuzk_result r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    /* bounded: the poller rechecks its own batch at least every 100 ms */
    int rc = cuzk_poll_result(e, &r, 100 * 1000 * 1000);
    pthread_mutex_lock(&results_lock);
    polling = 0;
    if (rc == CUZK_OK) {
        slot *s = (slot *)(uintptr_t)r.user_tag; /* every job of this engine is ours */
        s->res = r;
        s->b->done++;
    }
    pthread_cond_broadcast(&results_cv);
}

static void wait_batch(cuzk_engine *e, batch *b)
{
    pthread_mutex_lock(&results_lock);
    while (b->done < b->submitted) wait_step(e);
    pthread_mutex_unlock(&results_lock);
}

supraseal_c2_error generate_groth16_proofs_c(const supraseal_c2_assignment provers[], size_t n,
                                             const supraseal_c2_fr r_s[], const supraseal_c2_fr s_s[],
                                             supraseal_c2_proof proofs[], const supraseal_c2_srs *srs)
{
    if (!srs || !srs->ptr) return make_error(CUZK_EINVAL, "generate_groth16_proofs_c: srs is NULL");
    if (n == 0) return ok_error();
    if (!provers || !r_s || !s_s || !proofs)
        return make_error(CUZK_EINVAL, "generate_groth16_proofs_c: %s is NULL with n = %zu",
                          !provers ? "provers" : !r_s ? "r_s" : !s_s ? "s_s" : "proofs", n);
    if (n > SIZE_MAX / sizeof *proofs || n > SIZE_MAX / sizeof(slot))
        return make_error(CUZK_EINVAL, "generate_groth16_proofs_c: n = %zu provers is not a count of proofs", n);
    memset(proofs, 0, n * sizeof *proofs);
    srs_handle *h = srs->ptr;
    cuzk_engine *e;
    supraseal_c2_error err = get_engine(&e); /* made already: a key exists */
    if (err.code) return err;

    cuzk_partition *parts = calloc(n, sizeof *parts);
    batch b = {0, 0, calloc(n, sizeof(slot))};
    if (!parts || !b.slots) {
        free(parts);
        free(b.slots);
        return make_error(CUZK_ENOMEM, "generate_groth16_proofs_c: no memory for %zu partitions", n);
    }
    /* every Assignment checked before any is submitted: a bad one costs no proving */
    char why[256];
    for (size_t i = 0; i < n; i++) {
        int rc = assignment_to_partition(&provers[i], &parts[i], why, sizeof why);
        if (rc) {
            err = make_error(rc, "generate_groth16_proofs_c: prover %zu of %zu: %s", i, n, why);
            goto out;
        }
        parts[i].r = (const cuzk_fr *)&r_s[i];
        parts[i].s = (const cuzk_fr *)&s_s[i];
        parts[i].user_tag = (uint64_t)(uintptr_t)&b.slots[i];
        b.slots[i].b = &b;
    }
    for (size_t i = 0; i < n; i++) {
        int rc;
        while ((rc = cuzk_submit_partition(e, h->srs, &parts[i], &b.slots[i].job)) == CUZK_EAGAIN) {
            /* the engine's queue is full: let results come back, then try again */
            pthread_mutex_lock(&results_lock);
            wait_step(e);
            pthread_mutex_unlock(&results_lock);
        }
        if (rc) {
            err = make_error(rc, "generate_groth16_proofs_c: prover %zu of %zu: %s: %s", i, n, cuzk_strerror(rc),
                             cuzk_last_error());
            for (size_t j = 0; j < i; j++) cuzk_cancel(e, b.slots[j].job); /* too late is fine */
            break;
        }
        pthread_mutex_lock(&results_lock);
        b.submitted++;
        pthread_mutex_unlock(&results_lock);
    }
    /* the host's buffers are borrowed until every submitted job is done, failed or not */
    wait_batch(e, &b);
    for (size_t i = 0; !err.code && i < b.submitted; i++) {
        const cuzk_result *r = &b.slots[i].res;
        int rc = r->status;
        if (rc) err = make_error(rc, "generate_groth16_proofs_c: prover %zu of %zu: %s: %s", i, n, cuzk_strerror(rc),
                                 r->detail);
        else if ((rc = proof_from_bytes(&proofs[i], r->proof)))
            err = make_error(CUZK_EFORMAT, "generate_groth16_proofs_c: prover %zu of %zu: proof does not decode: %s",
                             i, n, point_strerror(rc));
    }
    if (err.code) memset(proofs, 0, n * sizeof *proofs);
out:
    free(parts);
    free(b.slots);
    return err;
}
