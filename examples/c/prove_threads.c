/*
 * A C host of libcuzk (public API only): several threads submit partitions, one thread polls
 * the results, every proof is checked with cuzk_verify, and the trace callback's summary
 * and the engine's Prometheus text are printed at the end. Half of the submissions go through
 * the supraseal adapter (supraseal_adapter.h), as a host switching from supraseal would.
 *
 * usage: prove_threads PARAMS VK R1CS WTNS [THREADS [PER_THREAD]]
 * exit: 0 all proofs valid, 1 a failure, 77 the engine cannot prove here (no prover built).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/cuzk.h>
#include <cuzk/r1cs.h>

#include "supraseal_adapter.h"

#define MAX_JOBS 256

static cuzk_engine *engine;
static cuzk_srs *srs;
static cuzk_r1cs *circuit;
static cuzk_fr *witness;
static uint64_t witness_len;
static int per_thread;
static cuzk_fr *publics[MAX_JOBS]; /* public inputs (ONE excluded) by user_tag, for verify */
static uint64_t n_public;
static atomic_int submit_failures;

/* Trace summary: touched only by the engine's one trace thread, read after destroy. */
static uint64_t trace_count[64], trace_ns[64];
static uint64_t busy_ns; /* CUZK_TRACE_START: the device's busy time, for Prometheus */

static void on_trace(const cuzk_trace_event *ev, void *user)
{
    (void)user;
    if (ev->kind <= 0 || ev->kind >= 64) return; /* kinds added later are ignored */
    trace_count[ev->kind]++;
    trace_ns[ev->kind] += ev->end_ns - ev->begin_ns;
    if (ev->kind == CUZK_TRACE_START) busy_ns += ev->end_ns - ev->begin_ns;
}

static const char *kind_name(int k)
{
    static const char *names[] = {
        [CUZK_TRACE_SUBMIT] = "submit", [CUZK_TRACE_QUEUE_WAIT] = "queue_wait",
        [CUZK_TRACE_BUDGET_WAIT] = "budget_wait", [CUZK_TRACE_H2D_COPY] = "h2d_copy",
        [CUZK_TRACE_NTT_INTT] = "ntt_intt", [CUZK_TRACE_NTT_COSET] = "ntt_coset",
        [CUZK_TRACE_NTT_COSET_INTT] = "ntt_coset_intt", [CUZK_TRACE_H_STEP] = "h_step",
        [CUZK_TRACE_MSM_H] = "msm_h", [CUZK_TRACE_MSM_L] = "msm_l", [CUZK_TRACE_MSM_A] = "msm_a",
        [CUZK_TRACE_MSM_B_G1] = "msm_b_g1", [CUZK_TRACE_MSM_B_G2] = "msm_b_g2",
        [CUZK_TRACE_MSM_ALL] = "msm_all", [CUZK_TRACE_ASSEMBLY] = "assembly",
        [CUZK_TRACE_VERIFY] = "verify", [CUZK_TRACE_RELEASE] = "release",
        [CUZK_TRACE_ARENA_TRIM] = "arena_trim", [CUZK_TRACE_DEVICE_IDLE] = "device_idle",
        [CUZK_TRACE_START] = "start", [CUZK_TRACE_FINISH] = "finish", [CUZK_TRACE_RESULT] = "result",
    };
    return k > 0 && k < (int)(sizeof names / sizeof names[0]) && names[k] ? names[k] : "other";
}

/* A partition from cuzk_r1cs_partition owns its buffers until its release runs; the
 * supraseal path re-describes the same buffers, so release travels with them. */
static void *submitter(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < per_thread; i++) {
        int tag = t * per_thread + i;
        cuzk_partition p;
        int rc = cuzk_r1cs_partition(circuit, witness, witness_len, &p);
        if (rc) {
            fprintf(stderr, "cuzk_r1cs_partition: %s (%s)\n", cuzk_strerror(rc), cuzk_last_error());
            atomic_fetch_add(&submit_failures, 1);
            continue;
        }
        n_public = p.num_inputs - 1;
        memcpy(publics[tag], p.inputs + 1, n_public * sizeof(cuzk_fr)); /* before the engine owns it */
        if (tag % 2) { /* as a supraseal host would hand it over */
            supraseal_assignment sa;
            cuzk_partition q;
            void (*release)(void *) = p.release;
            void *release_user = p.release_user;
            if (supraseal_from_cuzk(&p, &sa) || supraseal_to_cuzk(&sa, p.scalar_form, &q)) {
                fprintf(stderr, "supraseal adapter refused a consistent partition\n");
                atomic_fetch_add(&submit_failures, 1);
                release(release_user);
                continue;
            }
            q.release = release;
            q.release_user = release_user;
            p = q;
        }
        p.user_tag = (uint64_t)tag;
        p.priority = tag % 3;
        cuzk_job job;
        while ((rc = cuzk_submit_partition(engine, srs, &p, &job)) == CUZK_EAGAIN) {
            /* the queue is full: the poller drains it */
        }
        if (rc) {
            fprintf(stderr, "submit %d: %s (%s)\n", tag, cuzk_strerror(rc), cuzk_last_error());
            atomic_fetch_add(&submit_failures, 1);
            p.release(p.release_user); /* a refused submit leaves the buffers with us */
        }
    }
    return NULL;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int fail(const char *what, int rc)
{
    fprintf(stderr, "%s: %s (%s)\n", what, cuzk_strerror(rc), cuzk_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s PARAMS VK R1CS WTNS [THREADS [PER_THREAD]]\n", argv[0]);
        return 2;
    }
    /* The header this host was built with must match the library it loaded (same major;
     * a minor at least as new, since later minors only add). */
    uint32_t lib = cuzk_version_number();
    if (lib / 10000 != CUZK_VERSION_MAJOR || lib < CUZK_VERSION_NUMBER) {
        fprintf(stderr, "libcuzk %s is older than or incompatible with the header (%d)\n",
                cuzk_version_string(), CUZK_VERSION_NUMBER);
        return 1;
    }
    int threads = argc > 5 ? atoi(argv[5]) : 4;
    per_thread = argc > 6 ? atoi(argv[6]) : 2;
    int total = threads * per_thread;
    if (threads < 1 || per_thread < 1 || total > MAX_JOBS) return 2;

    size_t vk_len;
    uint8_t *vk = read_file(argv[2], &vk_len);
    if (!vk) return fail("read vk", CUZK_EIO);
    int rc = cuzk_r1cs_load(argv[3], &circuit);
    if (rc) return fail("cuzk_r1cs_load", rc);
    if ((rc = cuzk_wtns_load(argv[4], &witness, &witness_len))) return fail("cuzk_wtns_load", rc);

    cuzk_config *cfg;
    if ((rc = cuzk_config_new(&cfg))) return fail("cuzk_config_new", rc);
    cuzk_config_set(cfg, CUZK_OPT_CPU_THREADS, 2);
    cuzk_config_set(cfg, CUZK_OPT_QUEUE_CAPACITY, 4); /* small, so submitters see CUZK_EAGAIN */
    cuzk_config_set_trace(cfg, on_trace, NULL);
    rc = cuzk_engine_create(cfg, &engine);
    cuzk_config_free(cfg);
    if (rc == CUZK_EDEVICE) {
        printf("skip: no prover in this build (%s)\n", cuzk_last_error());
        return 77;
    }
    if (rc) return fail("cuzk_engine_create", rc);
    if ((rc = cuzk_srs_load(engine, argv[1], 0, &srs))) return fail("cuzk_srs_load", rc);

    for (int i = 0; i < total; i++) publics[i] = malloc(witness_len * sizeof(cuzk_fr));
    pthread_t tid[64];
    if (threads > 64) return 2;
    for (int t = 0; t < threads; t++) pthread_create(&tid[t], NULL, submitter, (void *)(intptr_t)t);

    int valid = 0, invalid = 0, seen = 0, expect = total;
    while (seen < expect - atomic_load(&submit_failures)) {
        cuzk_result res;
        res.struct_size = sizeof res;
        rc = cuzk_poll_result(engine, &res, 100000000); /* 100 ms */
        if (rc == CUZK_EAGAIN) continue;
        if (rc) return fail("cuzk_poll_result", rc);
        seen++;
        if (res.status) {
            fprintf(stderr, "job %llu: %s: %s\n", (unsigned long long)res.user_tag, cuzk_strerror(res.status),
                    res.detail);
            invalid++;
            continue;
        }
        rc = cuzk_verify(vk, vk_len, res.proof, publics[res.user_tag], n_public, CUZK_FR_CANONICAL);
        if (rc == CUZK_OK) valid++;
        else {
            fprintf(stderr, "job %llu: cuzk_verify: %s (%s)\n", (unsigned long long)res.user_tag,
                    cuzk_strerror(rc), cuzk_last_error());
            invalid++;
        }
        printf("proof %3llu on device %d: %s, %.1f ms\n", (unsigned long long)res.user_tag,
               res.device, rc ? "INVALID" : "valid", res.total_ns / 1e6);
    }
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);

    /* A tampered proof must not verify: the check above can fail. */
    if (valid) {
        uint8_t bad[192] = {0};
        if (cuzk_verify(vk, vk_len, bad, publics[0], n_public, CUZK_FR_CANONICAL) == CUZK_OK) {
            fprintf(stderr, "an all-zero proof verified\n");
            invalid++;
        }
    }

    cuzk_stats st;
    st.struct_size = sizeof st;
    if ((rc = cuzk_engine_stats(engine, &st))) return fail("cuzk_engine_stats", rc);
    size_t need;
    cuzk_stats_format_prometheus(&st, &busy_ns, 1, NULL, 0, &need);
    char *prom = malloc(need + 1);
    rc = cuzk_stats_format_prometheus(&st, &busy_ns, 1, prom, need + 1, &need);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(engine); /* joins the trace thread: the summary is complete */
    if (rc) return fail("cuzk_stats_format_prometheus", rc);

    printf("trace summary (kind: events, total ms):\n");
    for (int k = 1; k < 64; k++)
        if (trace_count[k])
            printf("  %-15s %6llu %10.2f\n", kind_name(k), (unsigned long long)trace_count[k], trace_ns[k] / 1e6);
    printf("--- prometheus ---\n%s", prom);
    printf("%d threads x %d partitions: %d valid, %d invalid, %d not submitted\n", threads,
           per_thread, valid, invalid, atomic_load(&submit_failures));
    free(prom);
    for (int i = 0; i < total; i++) free(publics[i]);
    cuzk_free(witness);
    cuzk_r1cs_free(circuit);
    free(vk);
    return valid == total && invalid == 0 ? 0 : 1;
}
