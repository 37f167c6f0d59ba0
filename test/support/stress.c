/* The engine stress test's driver (stress.h): the run's keys and phases, the checks made on
 * every job after the engine is gone, and the summary rows. The load's threads, the call
 * timing and the watchdog are in stress_load.c; what both share is in stress_int.h. */
#include "support/stress_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "groth16/circom_file.h"
#include "groth16/cs.h"
#include "groth16/synth.h"
#include "support/testutil.h"
#if CUZK_HAVE_CUDA
#include "cuda_util.h"
#endif

const stress_cfg *S_cfg;
uint64_t S_seed;
stress_phase *P;
skey S_keys[NKEYS];
_Atomic int S_failures;

const char *const s_kind_name[NKINDS] = {"bulk", "WinningPoSt", "WindowPoSt", "churn"};
const char *const s_call_name[NCALLS] = {"submit", "cancel", "poll(0)", "poll past its timeout", "stats", "srs_load",
                                         "srs_release", "placement", "host_alloc", "host_free",
                                         "create", "destroy", "cs_load", "cs_release"};

static double env_num(const char *name, double dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtod(v, NULL) : dflt;
}

void stress_cfg_defaults(stress_cfg *c, int32_t backend)
{
    int quick = getenv("CUZK_TEST_QUICK") != NULL, gpu = backend == CUZK_BACKEND_CUDA;
    memset(c, 0, sizeof *c);
    c->backend = backend;
    if (gpu) {
        /* the whole GPU, a budget where the bulk key streams, the smallest (found at the start) */
        c->nphases = 3;
        c->budgets[0] = 0;
        c->budgets[1] = STRESS_BUDGET_STREAM;
        c->budgets[2] = STRESS_BUDGET_MIN;
    }
    if (gpu && !S_SIMGPU) {
        /* ~2.5 min on an H200 in all: four phases of 30 s, the keys and the budget search */
        c->seconds = 30;
        c->bulk_log = 16, c->winning_log = 12, c->window_log = 14;
        c->winning_ms = 150, c->window_ms = 700;
        c->poison_max = 1u << 20; /* a 2^16 job's block is ~8 MiB: poison what is read last */
    } else {
        /* the host's arithmetic: <= 30 s on two cores (<= 10 s quick, as under ASan in CI),
         * each phase 7 s (2.5 s); the CUDA backend over the simulated device (test/simgpu):
         * its four phases of 6 s (2.5 s), <= 1 min */
        c->seconds = quick ? 2.5 : gpu ? 6 : 7;
        if (!gpu) c->nphases = quick ? 1 : 2;
        c->bulk_log = 10, c->winning_log = 9, c->window_log = 9;
        c->winning_ms = 400, c->window_ms = 1200;
        c->poison_max = SIZE_MAX;
    }
    for (int i = 0; i < STRESS_MAX_PHASES; i++) c->workers[i] = 2;
    if (!gpu && !quick) c->workers[1] = 1; /* the CPU's second phase: one worker */
    c->faults = 1;
    c->churn_ms = 1500;
    c->inflight_min = 8, c->inflight_max = 12;
    c->cancel_pm = 100;
    c->alone_n = quick ? 3 : 5;
    c->pollers = 2;
    c->call_ms = 100, c->release_ms = 1000, c->load_ms = 10000, c->engine_ms = 30000, c->job_ms = 60000;
    c->mem_slack_mib = 64;
    c->faults = (int)env_num("CUZK_STRESS_FAULTS", c->faults) != 0;
    /* the keys' domains, "bulk,winning,window" (issue 25's scenario: 18,13,16) */
    const char *lv = getenv("CUZK_STRESS_LOGS");
    unsigned lb, lw, lp;
    if (lv && sscanf(lv, "%u,%u,%u", &lb, &lw, &lp) == 3 && lb >= 4 && lb <= 27 && lw >= 4 && lw <= 27 && lp >= 4 &&
        lp <= 27)
        c->bulk_log = lb, c->winning_log = lw, c->window_log = lp;
    c->seconds = env_num("CUZK_STRESS_SECONDS", c->seconds);
    double total = env_num("CUZK_STRESS_TOTAL_SECONDS", 0);
    if (total > 0) c->seconds = total / (c->nphases + (c->faults != 0));
    const char *sv = getenv("CUZK_STRESS_SEED");
    if (sv && *sv) c->seed = strtoull(sv, NULL, 0); /* exact, not through a double */
    c->call_ms = (uint64_t)env_num("CUZK_STRESS_CALL_BOUND_MS", (double)c->call_ms);
    c->job_ms = (uint64_t)(env_num("CUZK_STRESS_JOB_BOUND_S", (double)c->job_ms / 1000) * 1000);
    c->bound_scale = env_num("CUZK_STRESS_BOUND_SCALE", 1);
    c->out_path = getenv("STRESS_OUT");
}

uint64_t s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t s_rand(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void s_sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
    nanosleep(&ts, NULL);
}

void s_fail(const char *fmt, ...)
{
    int n = atomic_fetch_add(&S_failures, 1);
    if (n >= 40) return; /* the first ones say it; a flood says nothing more */
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("STRESS FAIL (seed 0x%016llx, phase %d %s; replay with CUZK_STRESS_SEED=0x%016llx): %s\n",
           (unsigned long long)S_seed, P ? P->index : -1, P ? P->name : "-", (unsigned long long)S_seed, msg);
    fflush(stdout);
}

/* ---- keys ------------------------------------------------------------------------------- */

static size_t density_words(uint64_t bits) { return (size_t)((bits + 63) / 64); }

/* The bulk circuit's constraint system as a .r1cs file, for witness-only partitions of the
 * template's witness (synth_cs's, checked equal to it: a satisfying witness of that system). */
static int cs_file_make(skey *k, const synth_cfg *cfg)
{
    cs sys;
    fr_t *in = NULL, *aux = NULL;
    int rc = synth_cs(cfg, &sys, &in, &aux);
    if (rc) return rc;
    const cuzk_partition *t = &k->tmpl;
    if (sys.num_inputs != t->num_inputs || sys.num_aux != t->num_aux ||
        memcmp(in, t->inputs, t->num_inputs * sizeof *in) || memcmp(aux, t->aux, t->num_aux * sizeof *aux)) {
        s_fail("synth_cs's witness is not synth_partition's for the bulk circuit");
        rc = CUZK_EMISMATCH;
    }
    snprintf(k->cs_path, sizeof k->cs_path, "/tmp/cuzk-stress-%d.r1cs", (int)getpid());
    if (!rc && (rc = circom_r1cs_write(k->cs_path, &sys))) k->cs_path[0] = '\0';
    cs_free(&sys);
    free(in);
    free(aux);
    if (rc) test_key_free(&k->k), k->tmpl.release(k->tmpl.release_user), k->tmpl.release = NULL;
    return rc;
}

static int key_make(skey *k, const char *shape, unsigned log_m, int index, uint64_t *rng)
{
    uint8_t seed[32];
    for (int i = 0; i < 4; i++) {
        uint64_t r = s_rand(rng);
        memcpy(seed + 8 * i, &r, 8);
    }
    synth_cfg cfg;
    synth_cfg_for_shape_log(&cfg, synth_shape_find(shape), log_m, 0, seed);
    int rc = test_key_make(&k->k, &cfg, "stress", index);
    /* the circuit's witness is fixed by its seed, so one template serves every job (each job
     * gets its own copy; r and s come fresh from the library's CSPRNG) */
    if (rc == CUZK_OK && (rc = synth_partition(&cfg, CUZK_FR_MONTGOMERY, &k->tmpl))) test_key_free(&k->k);
    if (rc) return rc;
    const cuzk_partition *t = &k->tmpl;
    k->bytes = (t->num_inputs + t->num_aux + 3 * t->abc_len) * sizeof(cuzk_fr) +
               (2 * density_words(t->num_aux) + density_words(t->num_inputs)) * sizeof(uint64_t);
    k->wbytes = (t->num_inputs + t->num_aux) * sizeof(cuzk_fr);
    return index == K_BULK ? cs_file_make(k, &cfg) : CUZK_OK;
}

static void key_free(skey *k)
{
    if (k->cs_path[0]) unlink(k->cs_path);
    if (k->tmpl.release) k->tmpl.release(k->tmpl.release_user);
    test_key_free(&k->k);
    memset(k, 0, sizeof *k);
}

/* The template's arrays copied into block (what is read last first: the poisoning at release
 * covers the head of the block) and p pointed at them. */
void s_fill_partition(const skey *k, void *block, cuzk_partition *p)
{
    const cuzk_partition *t = &k->tmpl;
    *p = *t;
    uint8_t *q = block;
#define PUT(field, n, size)                                                                       \
    do {                                                                                          \
        if (t->field) {                                                                           \
            memcpy(q, t->field, (size_t)(n) * (size));                                             \
            p->field = (const void *)q;                                                           \
            q += (size_t)(n) * (size);                                                            \
        }                                                                                         \
    } while (0)
    PUT(aux, t->num_aux, sizeof(cuzk_fr));
    PUT(inputs, t->num_inputs, sizeof(cuzk_fr));
    PUT(a, t->abc_len, sizeof(cuzk_fr));
    PUT(b, t->abc_len, sizeof(cuzk_fr));
    PUT(c, t->abc_len, sizeof(cuzk_fr));
    PUT(a_aux_density, density_words(t->num_aux), sizeof(uint64_t));
    PUT(b_input_density, density_words(t->num_inputs), sizeof(uint64_t));
    PUT(b_aux_density, density_words(t->num_aux), sizeof(uint64_t));
#undef PUT
    p->r = p->s = NULL;
    p->release = NULL;
    p->release_user = NULL;
}

void s_fill_witness(const skey *k, void *block, cuzk_witness_partition *w)
{
    const cuzk_partition *t = &k->tmpl;
    cuzk_fr *q = block;
    memcpy(q, t->inputs, t->num_inputs * sizeof *q);
    memcpy(q + t->num_inputs, t->aux, t->num_aux * sizeof *q);
    memset(w, 0, sizeof *w);
    w->struct_size = sizeof *w;
    w->scalar_form = t->scalar_form;
    w->inputs = q, w->num_inputs = t->num_inputs;
    w->aux = q + t->num_inputs, w->num_aux = t->num_aux;
}

/* ---- the checks after destroy ------------------------------------------------------------- */

/* Every accepted job: released exactly once; its result (when polled) was its own, and agrees
 * with what cancel said. Counts the unpolled ones. */
static void check_jobs(uint64_t *unpolled)
{
    uint64_t n = atomic_load(&P->njobs);
    for (uint64_t i = 0; i < n; i++) {
        sjob *j = s_job_at(i);
        if (!j->accepted) continue;
        int rel = atomic_load(&j->releases), polled = atomic_load(&j->polls);
        if (rel != 1) s_fail("job %llu (%s): release callback ran %d times by the end of cuzk_engine_destroy",
                             (unsigned long long)i, s_kind_name[j->kind], rel);
        if (!polled) {
            (*unpolled)++;
            if (j->cancel_mode == CANCEL_SOON && j->cancel_rc == CUZK_ENOTFOUND)
                s_fail("job %llu: cuzk_cancel said CUZK_ENOTFOUND but its result was never polled", (unsigned long long)i);
            continue;
        }
        if (j->result_job != j->h)
            s_fail("job %llu: its result names job 0x%llx, the submit gave 0x%llx", (unsigned long long)i,
                   (unsigned long long)j->result_job, (unsigned long long)j->h);
        if (j->cancel_mode == CANCEL_SOON && j->cancel_rc == CUZK_OK && j->status != CUZK_ECANCELED)
            s_fail("job %llu: cuzk_cancel accepted, yet its result is %s", (unsigned long long)i,
                   cuzk_strerror(j->status));
        if (j->cancel_mode == CANCEL_SOON && j->cancel_rc == CUZK_EAGAIN && j->status == CUZK_ECANCELED)
            s_fail("job %llu: cuzk_cancel said too late (CUZK_EAGAIN), yet its result is CUZK_ECANCELED",
                   (unsigned long long)i);
    }
}

int s_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* "alone 12.1 / p50 20.3 / p99 40.2 / max 41.0 ms (p99 - alone +28.1 ms, n 17)" of kind's
 * jobs proven under load (CUZK_OK ones). */
static void latency_text(int kind, char *out, size_t len)
{
    uint64_t n = atomic_load(&P->njobs), m = 0, *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) abort();
    for (uint64_t i = 0; i < n; i++) {
        sjob *j = s_job_at(i);
        if (j->kind == kind && !j->alone && atomic_load(&j->polls) && j->status == CUZK_OK)
            v[m++] = j->t_result - j->t_submit;
    }
    qsort(v, m, sizeof *v, s_cmp_u64);
    double alone = (double)P->alone_ns[kind == J_WINNING ? 0 : 1] / 1e6;
    if (!m) snprintf(out, len, "%s alone %.1f ms, none proven under load", s_kind_name[kind], alone);
    else {
        double p50 = (double)v[(m - 1) / 2] / 1e6, p99 = (double)v[(m * 99 + 99) / 100 - 1] / 1e6;
        snprintf(out, len, "%s alone %.1f / p50 %.1f / p99 %.1f / max %.1f ms (p99 - alone %+.1f ms, n %llu)",
                 s_kind_name[kind], alone, p50, p99, (double)v[m - 1] / 1e6, p99 - alone, (unsigned long long)m);
    }
    free(v);
}

static void summary(uint64_t unpolled, double secs, const char *mem)
{
    char win[200], wpost[200], calls[600] = "";
    latency_text(J_WINNING, win, sizeof win);
    latency_text(J_WINDOW, wpost, sizeof wpost);
    size_t off = 0;
    for (int c = 0; c < NCALLS; c++)
        off += (size_t)snprintf(calls + off, sizeof calls - off, "%s%s %.2f", c ? ", " : "", s_call_name[c],
                                (double)atomic_load(&P->max_ns[c]) / 1e6);
    char why[160] = "";
    for (int c = 1, o = 0; c < 16; c++)
        if (atomic_load(&P->failed_by_code[c]))
            o += snprintf(why + o, sizeof why - (size_t)o, "%s%.*s %llu", o ? ", " : " (",
                          (int)strcspn(cuzk_strerror(-c), ":"), cuzk_strerror(-c), /* the name only */
                          (unsigned long long)atomic_load(&P->failed_by_code[c]));
    if (why[0]) strcat(why, ")");
    char budget[64];
    if (S_cfg->backend != CUZK_BACKEND_CUDA) snprintf(budget, sizeof budget, "CPU");
    else if (!P->budget) snprintf(budget, sizeof budget, "budget 0 (whole GPU)");
    else snprintf(budget, sizeof budget, "budget %.0f MiB", (double)P->budget / (1 << 20));
    time_t now = time(NULL);
    char date[16];
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
    char row[2400];
    snprintf(row, sizeof row,
             "| stress %s phase %d (%s): %s, %d worker%s%s | %.1f s; jobs %llu submitted, %llu ok, %llu canceled, "
             "%llu failed%s by %llu faults fired (%llu armed), %llu unpolled at destroy; cancels %llu soon, %llu after the result (%llu of those answered OK); "
             "key loads %llu (%llu refused, %llu failed by faults), releases %llu; witness-only %llu submitted, %llu ok, "
             "constraint systems loaded %llu (%llu refused), released %llu | %s; %s | longest call ms: %s | %s "
             "| `CUZK_STRESS_SEED=0x%016llx CUZK_STRESS_SECONDS=%g` | %s |",
             S_cfg->backend == CUZK_BACKEND_CUDA ? "gpu" : "cpu", P->index, P->name, budget, P->workers,
             P->workers == 1 ? "" : "s", P->faults ? ", faults, CUZK_OPT_RETRY_ON_CPU" : "", secs, (unsigned long long)atomic_load(&P->accepted),
             (unsigned long long)atomic_load(&P->ok), (unsigned long long)atomic_load(&P->canceled),
             (unsigned long long)atomic_load(&P->fault_failed), why, (unsigned long long)atomic_load(&P->faults_fired),
             (unsigned long long)atomic_load(&P->faults_armed), (unsigned long long)unpolled,
             (unsigned long long)atomic_load(&P->cancels_soon), (unsigned long long)atomic_load(&P->cancels_late),
             (unsigned long long)atomic_load(&P->late_cancel_ok), (unsigned long long)atomic_load(&P->loads),
             (unsigned long long)atomic_load(&P->load_refused), (unsigned long long)atomic_load(&P->fault_calls_failed),
             (unsigned long long)atomic_load(&P->releases), (unsigned long long)atomic_load(&P->witness_accepted),
             (unsigned long long)atomic_load(&P->witness_ok), (unsigned long long)atomic_load(&P->cs_loads),
             (unsigned long long)atomic_load(&P->cs_refused), (unsigned long long)atomic_load(&P->cs_releases), win,
             wpost, calls, mem, (unsigned long long)S_seed,
             S_cfg->seconds, date);
    printf("%s\n", row);
    fflush(stdout);
    FILE *f = S_cfg->out_path ? fopen(S_cfg->out_path, "a") : NULL;
    if (f) {
        fprintf(f, "%s\n", row);
        fclose(f);
    }
}

/* ---- a phase ---------------------------------------------------------------------------- */

static size_t gpu_free_bytes(void)
{
#if CUZK_HAVE_CUDA
    size_t fr = 0, total = 0;
    if (S_cfg->backend == CUZK_BACKEND_CUDA && !gpu_set_device(0) && !gpu_mem_info(&fr, &total)) return fr;
#endif
    return 0;
}

/* Budgets the search found to hold the three keys and then the bulk circuit's constraint
 * system streamed (find_budgets: the smallest, and the streaming phase's; 0: none). Only
 * these are probed: larger ones hold it as a rule (the system evicts what it lacks from the
 * idle bulk key), but not always (which budgets keep an urgent key's own slot, or leave the
 * bulk key full slots it could not stream in, varies), so a refusal fails a phase only here. */
static uint64_t S_cs_fits[2];

static int cs_fits_probed(uint64_t budget) { return budget && (budget == S_cs_fits[0] || budget == S_cs_fits[1]); }

static void run_phase(int index, const char *name, uint64_t budget, int workers, int faults)
{
    s_phase_begin(index, name, budget, workers, faults);
    char what[64] = "CPU";
    if (S_cfg->backend == CUZK_BACKEND_CUDA)
        snprintf(what, sizeof what, "device budget %.0f MiB%s", (double)budget / (1 << 20), budget ? "" : " (whole GPU)");
    printf("stress phase %d (%s): %s, %d worker%s, %.1f s%s\n", index, name, what, workers, workers == 1 ? "" : "s",
           S_cfg->seconds,
           faults ? ", faults under load, CUZK_OPT_RETRY_ON_CPU" : "");
    fflush(stdout);
    size_t free_before = gpu_free_bytes();
    tslot *s = s_slot("main");
    cuzk_engine *e = NULL;
    int bad = s_engine_create(s, budget, workers, faults, &e);
    P->e = e;
    if (bad || s_load_keys(s, e, P->srs, 1)) {
        s_fail("phase %d: the engine or its three keys could not be set up", index);
        if (e) {
            atomic_store(&P->in_destroy, 1);
            for (int k = 0; k < NKEYS; k++) cuzk_srs_release(P->srs[k]);
            cuzk_engine_destroy(e);
        }
        s_phase_end();
        return;
    }
    /* under a budget streamed (what the budget search sized the streaming phase for); where
     * the budget holds it (the whole GPU, the CPU, the streaming budget) a refusal fails the
     * phase rather than leave it without witness-only partitions */
    P->cs = s_cs_load(s, &(uint64_t){S_seed ^ (0xc5ull * (uint64_t)index)}, budget != 0);
    if (!P->cs && !faults && (!budget || cs_fits_probed(budget)))
        s_fail("phase %d: the bulk circuit's constraint system was refused where the budget holds it", index);
    s_witness_alone(s);
    s_alone(s);
    uint64_t t0 = s_now();
    s_load_run();
    double secs = (double)(s_now() - t0) / 1e9;
    /* what the engine counted: it has seen every accepted submit by now */
    cuzk_stats st = {.struct_size = sizeof st};
    int rc;
    S_TIMED(s, C_STATS, 0, rc = cuzk_engine_stats(P->e, &st));
    if (rc || st.submitted != atomic_load(&P->accepted))
        s_fail("cuzk_engine_stats: %s, submitted %llu, the test counted %llu accepted", cuzk_strerror(rc),
               (unsigned long long)st.submitted, (unsigned long long)atomic_load(&P->accepted));
    uint64_t inflight = atomic_load(&P->accepted) - atomic_load(&P->polled_total);
    printf("phase %d: destroying the engine with %llu jobs unpolled (queued %llu, running %llu, results waiting %llu)\n",
           index, (unsigned long long)inflight, (unsigned long long)st.queued, (unsigned long long)st.running,
           (unsigned long long)st.unpolled);
    /* half the time the keys are released first (their jobs hold them), else destroy frees them */
    uint64_t rng = S_seed ^ (0x51ab5eedull * (uint64_t)(index + 1));
    if (s_rand(&rng) % 2) {
        for (int k = 0; k < NKEYS; k++) S_TIMED(s, C_RELEASE, 0, cuzk_srs_release(P->srs[k]));
        s_cs_release(s, P->cs); /* its queued partitions hold it */
    }
    atomic_store(&P->in_destroy, 1); /* the watchdog leaves the engine alone from here */
    S_TIMED(s, C_DESTROY, 0, cuzk_engine_destroy(e));
    atomic_store(&P->destroyed, 1); /* a release callback from now on is a failure */
    s_drop_free_list(); /* destroy freed the cuzk_host_alloc memory still held */
    uint64_t unpolled = 0;
    check_jobs(&unpolled);
    if (faults) {
        if (atomic_load(&P->fault_failed) + atomic_load(&P->fault_calls_failed) > atomic_load(&P->faults_fired))
            s_fail("%llu jobs and %llu calls failed, but only %llu faults fired",
                   (unsigned long long)atomic_load(&P->fault_failed),
                   (unsigned long long)atomic_load(&P->fault_calls_failed),
                   (unsigned long long)atomic_load(&P->faults_fired));
        if (!atomic_load(&P->ok_after_faults)) s_fail("no job submitted after the faults stopped came back CUZK_OK");
    }
    if (!atomic_load(&P->ok)) s_fail("no proof at all in this phase");

    char mem[160] = "device memory: -";
    if (S_cfg->backend == CUZK_BACKEND_CUDA) {
        size_t free_after = gpu_free_bytes();
        double lost = ((double)free_before - (double)free_after) / (1 << 20);
        snprintf(mem, sizeof mem, "device free %.2f GiB before create, %.1f MiB less after destroy",
                 (double)free_before / (1 << 30), lost);
        /* the first engine of the process leaves per-process tables (NTT twiddles) and the
         * context's grown local-memory reserve behind: from the second engine on, none (the
         * simulated device counts every byte and keeps nothing: none ever) */
        const double allowed = S_SIMGPU ? 0 : (double)S_cfg->mem_slack_mib * (index > 1 ? 1 : 16);
        if ((S_SIMGPU || S_cfg->mem_slack_mib) && lost > allowed)
            s_fail("%.1f MiB of device memory did not come back after cuzk_engine_destroy", lost);
    }
    summary(unpolled, secs, mem);
    s_phase_end();
}

/* ---- device budgets (CUDA) -------------------------------------------------------------- */

/* What a budget must hold beside the three keys. */
enum { NEED_KEYS = 0, NEED_RESIDENT = 1, NEED_CS = 2 };

/* 1 when an engine with this budget loads the three keys (NEED_RESIDENT: with the bulk key
 * all resident; NEED_CS: and then the bulk circuit's constraint system, streamed). */
static int budget_fits(tslot *s, uint64_t budget, int need)
{
    cuzk_engine *e = NULL;
    cuzk_srs *srs[NKEYS] = {0};
    const int need_resident = need == NEED_RESIDENT;
    int fits = !s_engine_create(s, budget, 2, 0, &e) && !s_load_keys(s, e, srs, 0);
    if (fits && need == NEED_CS) {
        cuzk_cs *cs = NULL;
        int rc;
        S_TIMED(s, C_CS_LOAD, 0, rc = cuzk_cs_load(e, S_keys[K_BULK].cs_path, CUZK_CS_STREAM, &cs));
        fits = rc == CUZK_OK;
        if (cs) S_TIMED(s, C_CS_RELEASE, 0, cuzk_cs_release(cs));
    }
    if (fits && need_resident) {
        cuzk_placement pl = {.struct_size = sizeof pl};
        int rc;
        S_TIMED(s, C_PLACEMENT, 0, rc = cuzk_srs_placement(srs[K_BULK], 0, &pl));
        fits = rc == CUZK_OK && pl.kind == CUZK_PLACEMENT_RESIDENT;
    }
    for (int k = 0; k < NKEYS; k++)
        if (srs[k]) S_TIMED(s, C_RELEASE, 0, cuzk_srs_release(srs[k]));
    if (e) S_TIMED(s, C_DESTROY, 0, cuzk_engine_destroy(e));
    printf("  budget %.1f MiB: %s\n", (double)budget / (1 << 20), fits ? "fits" : "does not fit");
    return fits;
}

/* The smallest budget above lo (to 4 MiB or six halvings) that fits; 0 if not even the whole
 * free memory does. */
static uint64_t budget_search(tslot *s, uint64_t lo, uint64_t whole, int need)
{
    uint64_t hi = lo ? lo * 2 : 64ull << 20, mib = 1ull << 20;
    if (hi > whole) hi = whole;
    while (!budget_fits(s, hi, need)) {
        lo = hi;
        if (hi >= whole) return 0;
        hi = hi * 2 < whole ? hi * 2 : whole;
    }
    for (int i = 0; i < 6 && hi - lo > 4 * mib; i++) {
        uint64_t mid = (lo + hi) / 2 / mib * mib;
        if (budget_fits(s, mid, need)) hi = mid;
        else lo = mid;
    }
    return hi;
}

static int find_budgets(uint64_t *min_b, uint64_t *stream_b)
{
    s_phase_begin(0, "budget search", 0, 2, 0);
    uint64_t whole = gpu_free_bytes();
    printf("stress: searching the device budgets (%.1f GiB free)\n", (double)whole / (1 << 30));
    tslot *s = s_slot("budget search");
    *min_b = budget_search(s, 0, whole, NEED_KEYS);
    uint64_t res = *min_b ? budget_search(s, *min_b, whole, NEED_RESIDENT) : 0;
    /* halfway: the bulk key keeps part of its bases and streams the rest; and at least what
     * also takes the bulk circuit's constraint system streamed, so that witness-only
     * partitions run at a small budget too. The system takes what it lacks from the bulk
     * key's resident bases (an idle key gives way): the smallest budget itself first (where
     * the bulk key keeps enough resident), else the search above it; then the streaming
     * budget itself (S_cs_fits) */
    *stream_b = res ? (*min_b + res) / 2 / (1 << 20) * (1 << 20) : *min_b;
    uint64_t with_cs = 0;
    if (*min_b) with_cs = budget_fits(s, *min_b, NEED_CS) ? *min_b : budget_search(s, *min_b, whole, NEED_CS);
    if (with_cs > *stream_b) *stream_b = with_cs;
    S_cs_fits[0] = with_cs;
    S_cs_fits[1] = with_cs && (*stream_b == with_cs || budget_fits(s, *stream_b, NEED_CS)) ? *stream_b : 0;
    printf("stress: smallest budget for the three keys %.0f MiB, bulk key resident from %.0f MiB, with the "
           "constraint system streamed from %.0f MiB, streaming budget %.0f MiB (%s it)\n",
           (double)*min_b / (1 << 20), (double)res / (1 << 20), (double)with_cs / (1 << 20),
           (double)*stream_b / (1 << 20), S_cs_fits[1] ? "holds" : "does not hold");
    if (!*min_b) s_fail("no device budget loads the three keys, not even the whole free memory");
    s_phase_end();
    return *min_b ? 0 : -1;
}

int stress_run(const stress_cfg *cfg)
{
    S_cfg = cfg;
    S_seed = cfg->seed ? cfg->seed : test_seed();
    S_cs_fits[0] = S_cs_fits[1] = 0;
    atomic_store(&S_failures, 0);
    printf("stress: seed 0x%016llx (replay with CUZK_STRESS_SEED=0x%016llx); %s, %.1f s per phase, keys "
           "2^%u/2^%u/2^%u\n", (unsigned long long)S_seed, (unsigned long long)S_seed,
           cfg->backend == CUZK_BACKEND_CUDA ? "CUDA" : "CPU", cfg->seconds, cfg->bulk_log, cfg->winning_log,
           cfg->window_log);
    fflush(stdout);
    uint64_t rng = S_seed;
    static const char *const shape[NKEYS] = {"porep", "winning", "wpost"};
    const unsigned logs[NKEYS] = {cfg->bulk_log, cfg->winning_log, cfg->window_log};
    uint64_t t0 = s_now();
    for (int k = 0; k < NKEYS; k++)
        if (key_make(&S_keys[k], shape[k], logs[k], k, &rng)) {
            s_fail("test key %s 2^%u could not be made", shape[k], logs[k]);
            for (int i = 0; i < k; i++) key_free(&S_keys[i]);
            return atomic_load(&S_failures);
        }
    printf("stress: keys made in %.1f s\n", (double)(s_now() - t0) / 1e9);
    uint64_t min_b = 0, stream_b = 0;
    int need_search = 0;
    for (int i = 0; i < cfg->nphases; i++)
        need_search |= cfg->budgets[i] == STRESS_BUDGET_MIN || cfg->budgets[i] == STRESS_BUDGET_STREAM;
    if (cfg->backend == CUZK_BACKEND_CUDA && need_search && find_budgets(&min_b, &stream_b)) need_search = -1;
    int phase = 1;
    for (int i = 0; need_search >= 0 && i < cfg->nphases; i++) {
        uint64_t b = cfg->budgets[i];
        const char *name = b == STRESS_BUDGET_MIN ? "smallest" : b == STRESS_BUDGET_STREAM ? "streaming" : "whole";
        if (cfg->backend != CUZK_BACKEND_CUDA) b = 0, name = cfg->workers[i] == 1 ? "one worker" : "two workers";
        else if (b == STRESS_BUDGET_MIN) b = min_b;
        else if (b == STRESS_BUDGET_STREAM) b = stream_b;
        else if (b) name = "given";
        run_phase(phase++, name, b, cfg->workers[i], 0);
    }
    if (cfg->faults && need_search >= 0) run_phase(phase, "faults", 0, cfg->workers[0], 1);
    for (int k = 0; k < NKEYS; k++) key_free(&S_keys[k]);
    int f = atomic_load(&S_failures);
    printf("stress: %d failure%s (seed 0x%016llx; replay with CUZK_STRESS_SEED=0x%016llx)\n", f, f == 1 ? "" : "s",
           (unsigned long long)S_seed, (unsigned long long)S_seed);
    fflush(stdout);
    return f;
}
