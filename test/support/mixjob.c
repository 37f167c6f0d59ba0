/* The mixed-workload tests' helpers (mixjob.h). */
#include "support/mixjob.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support/testutil.h"

int mix_keys_make(test_key *bulk, unsigned bulk_log, test_key *urgent, unsigned urgent_log, const char *tag)
{
    uint8_t seed[32];
    synth_cfg cfg;
    test_rand_bytes(seed, sizeof seed);
    synth_cfg_for_shape_log(&cfg, synth_shape_find("porep"), bulk_log, 0, seed);
    int rc = test_key_make(bulk, &cfg, tag, 0);
    if (rc) return rc;
    test_rand_bytes(seed, sizeof seed);
    synth_cfg_for_shape_log(&cfg, synth_shape_find("winning"), urgent_log, 0, seed);
    if ((rc = test_key_make(urgent, &cfg, tag, 1))) test_key_free(bulk);
    return rc;
}

cuzk_engine *mix_engine(int32_t backend, int workers, int urgent, void *log)
{
    cuzk_config *cfg;
    cuzk_engine *e = NULL;
    if (cuzk_config_new(&cfg)) return NULL;
    if (!cuzk_config_set(cfg, CUZK_OPT_BACKEND, backend) && !cuzk_config_set(cfg, CUZK_OPT_DEVICE_MASK, 1) &&
        !cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, workers) &&
        !cuzk_config_set(cfg, CUZK_OPT_URGENT_PRIORITY, urgent) &&
        (!log || !cuzk_config_set_trace(cfg, mix_log_event, log)) && cuzk_engine_create(cfg, &e))
        e = NULL;
    cuzk_config_free(cfg);
    return e;
}

int mix_job_make(mix_job *j, const test_key *k, uint8_t seed_byte, uint64_t tag, int32_t priority)
{
    j->k = k;
    int rc = synth_partition(&k->scfg, CUZK_FR_MONTGOMERY, &j->p);
    if (rc) return rc;
    uint8_t seed[32] = {seed_byte, 0x77};
    fr_t r, s;
    groth16_rs_from_seed(&r, &s, seed);
    memcpy(&j->rs[0], &r, sizeof r);
    memcpy(&j->rs[1], &s, sizeof s);
    j->p.r = &j->rs[0];
    j->p.s = &j->rs[1];
    j->p.user_tag = tag;
    j->p.priority = priority;
    j->npub = j->p.num_inputs - 1;
    if (j->npub > sizeof j->pub / sizeof j->pub[0]) {
        j->p.release(j->p.release_user);
        return CUZK_ERANGE;
    }
    memcpy(j->pub, j->p.inputs + 1, j->npub * sizeof(cuzk_fr));
    return CUZK_OK;
}

int mix_job_check(const mix_job *j, const cuzk_result *r)
{
    if (r->status) return r->status;
    return cuzk_verify(j->k->vk, j->k->vk_len, r->proof, j->pub, j->npub, CUZK_FR_MONTGOMERY);
}

void mix_log_init(mix_log *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->lock, NULL);
}

void mix_log_fini(mix_log *l) { pthread_mutex_destroy(&l->lock); }

void mix_log_event(const cuzk_trace_event *ev, void *user)
{
    mix_log *l = user;
    if (ev->user_tag >= MIX_TAGS) return;
    pthread_mutex_lock(&l->lock);
    if (ev->kind == CUZK_TRACE_QUEUE_WAIT) l->dequeued[ev->user_tag] = ev->end_ns;
    if (ev->kind == CUZK_TRACE_START) {
        l->started_end[ev->user_tag] = ev->end_ns;
        l->worker[ev->user_tag] = ev->worker;
    }
    if (ev->kind == CUZK_TRACE_RESULT) l->result[ev->user_tag] = ev->end_ns;
    if (ev->device >= 0 && ev->kind >= CUZK_TRACE_H2D_COPY && ev->kind <= CUZK_TRACE_MSM_ALL) {
        uint64_t *b = &l->dev_begin[ev->user_tag], *e = &l->dev_end[ev->user_tag];
        if (!*b || ev->begin_ns < *b) *b = ev->begin_ns;
        if (ev->end_ns > *e) *e = ev->end_ns;
    }
    pthread_mutex_unlock(&l->lock);
}

int mix_log_wait_dequeued(mix_log *l, uint64_t tag, uint64_t timeout_ns)
{
    uint64_t end = mix_now_ns() + timeout_ns;
    for (;;) {
        pthread_mutex_lock(&l->lock);
        uint64_t t = l->dequeued[tag];
        pthread_mutex_unlock(&l->lock);
        if (t) return CUZK_OK;
        if (mix_now_ns() > end) return CUZK_EAGAIN;
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
}

uint64_t mix_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int mix_backlog_run(cuzk_engine *e, mix_log *log, cuzk_srs *sa, const test_key *bulk, int nb, cuzk_srs *sb,
                    const test_key *urgent, uint64_t wait_tag, mix_outcome *out)
{
    memset(out, 0, sizeof *out);
    mix_job *jobs = calloc((size_t)nb + 1, sizeof *jobs), *u = &jobs[nb]; /* big: not on the stack */
    int rc = jobs && nb > 0 && nb < MIX_URGENT_TAG ? CUZK_OK : CUZK_EINVAL, submitted = 0;
    /* every partition made first, then all submitted at once: a GPU proves small partitions
     * faster than the host synthesizes them, and the backlog must be deep when the urgent
     * one arrives */
    int made = 0;
    for (int i = 0; rc == CUZK_OK && i < nb; i++)
        if (!(rc = mix_job_make(&jobs[i], bulk, (uint8_t)i, (uint64_t)i + 1, 0))) made++;
    for (int i = 0; i < made; i++) {
        cuzk_job h;
        int src = rc == CUZK_OK ? cuzk_submit_partition(e, sa, &jobs[i].p, &h) : rc;
        if (src) jobs[i].p.release(jobs[i].p.release_user);
        else submitted++;
        if (rc == CUZK_OK) rc = src;
    }
    if (rc == CUZK_OK) { /* the backlog is under way: the urgent one now */
        cuzk_job h;
        /* a bound like the polls': a lost or dropped event fails the run instead of hanging it */
        if (!(rc = mix_log_wait_dequeued(log, wait_tag, 600 * 1000000000ull)) &&
            !(rc = mix_job_make(u, urgent, 0xee, MIX_URGENT_TAG, 7))) {
            out->t_submit = mix_now_ns();
            if ((rc = cuzk_submit_partition(e, sb, &u->p, &h))) u->p.release(u->p.release_user);
            else submitted++;
        }
    }
    for (int i = 0; i < submitted; i++) {
        cuzk_result r = {.struct_size = sizeof r};
        int prc = cuzk_poll_result(e, &r, 600 * 1000000000ll);
        if (prc == CUZK_OK && (r.user_tag < 1 || (r.user_tag > (uint64_t)nb && r.user_tag != MIX_URGENT_TAG)))
            prc = CUZK_ENOTFOUND;
        if (prc == CUZK_OK) prc = mix_job_check(r.user_tag == MIX_URGENT_TAG ? u : &jobs[r.user_tag - 1], &r);
        if (rc == CUZK_OK) rc = prc;
    }
    cuzk_srs_release(sa);
    cuzk_srs_release(sb);
    cuzk_engine_destroy(e); /* delivers the rest of the trace: no lock needed below */
    free(jobs);
    out->u_dequeued = log->dequeued[MIX_URGENT_TAG];
    out->u_result = log->result[MIX_URGENT_TAG];
    out->u_worker = log->worker[MIX_URGENT_TAG];
    out->first_started_end = log->started_end[1];
    out->u_dev_begin = log->dev_begin[MIX_URGENT_TAG];
    out->running_dev_end = UINT64_MAX;
    for (int t = 1; t <= nb; t++) {
        if (log->dequeued[t] > out->t_submit) {
            out->later++;
            out->later_before_u += log->result[t] < out->u_result;
            continue;
        }
        if (log->started_end[t] > out->u_dequeued) out->running++;
        if (log->started_end[t] > out->t_submit && log->dev_begin[t] && log->dev_begin[t] <= out->t_submit &&
            log->dev_end[t] > out->t_submit && log->dev_end[t] < out->running_dev_end)
            out->running_dev_end = log->dev_end[t]; /* on the device when the urgent one came */
    }
    return rc;
}

static int poll_checked(cuzk_engine *e, const mix_job *jobs, int n, cuzk_result *r)
{
    r->struct_size = sizeof *r;
    int rc = cuzk_poll_result(e, r, 600 * 1000000000ll);
    if (rc == CUZK_OK && r->user_tag >= (uint64_t)n) rc = CUZK_ENOTFOUND;
    return rc ? rc : mix_job_check(&jobs[r->user_tag], r);
}

int mix_prove_alone(int32_t backend, const test_key *a, const test_key *b, int n, uint8_t (*proofs)[192])
{
    mix_job *jobs = calloc((size_t)n, sizeof *jobs);
    int rc = jobs ? CUZK_OK : CUZK_ENOMEM;
    for (int i = 0; rc == CUZK_OK && i < n; i++) {
        const test_key *k = i % 2 ? b : a;
        cuzk_engine *e = mix_engine(backend, 1, 0, NULL);
        cuzk_srs *srs = NULL;
        cuzk_job h;
        cuzk_result r;
        if (!e) rc = CUZK_EDEVICE;
        else if (!(rc = cuzk_srs_load(e, k->path, 0, &srs)) && !(rc = mix_job_make(&jobs[i], k, (uint8_t)i, (uint64_t)i, 0))) {
            if ((rc = cuzk_submit_partition(e, srs, &jobs[i].p, &h))) jobs[i].p.release(jobs[i].p.release_user);
            else if (!(rc = poll_checked(e, jobs, n, &r))) memcpy(proofs[i], r.proof, 192);
        }
        if (srs) cuzk_srs_release(srs);
        if (e) cuzk_engine_destroy(e);
    }
    free(jobs);
    return rc;
}

int mix_prove_together(cuzk_engine *e, const test_key *a, const test_key *b, int n, int urgent_too, int gpu,
                       uint8_t (*proofs)[192])
{
    mix_job *jobs = calloc((size_t)n, sizeof *jobs);
    int *seen = calloc((size_t)n, sizeof *seen), submitted = 0;
    cuzk_srs *sa = NULL, *sb = NULL;
    int rc = jobs && seen ? CUZK_OK : CUZK_ENOMEM;
    if (!rc) rc = cuzk_srs_load(e, a->path, 0, &sa);
    if (!rc) rc = cuzk_srs_load(e, b->path, CUZK_SRS_PIN, &sb);
    for (int i = 0; rc == CUZK_OK && i < n; i++) {
        cuzk_job h;
        int32_t prio = urgent_too && i % 4 == 3 ? 7 : 0;
        if (!(rc = mix_job_make(&jobs[i], i % 2 ? b : a, (uint8_t)i, (uint64_t)i, prio)) &&
            (rc = cuzk_submit_partition(e, i % 2 ? sb : sa, &jobs[i].p, &h)))
            jobs[i].p.release(jobs[i].p.release_user);
        submitted += rc == CUZK_OK;
    }
    if (sa) cuzk_srs_release(sa); /* its partitions are queued or running */
    for (int i = 0; i < submitted; i++) {
        cuzk_result r;
        int prc = poll_checked(e, jobs, n, &r);
        if (prc == CUZK_OK && (seen[r.user_tag]++ || (gpu && r.device < 0))) prc = CUZK_EINVAL;
        if (prc == CUZK_OK && memcmp(r.proof, proofs[r.user_tag], 192)) prc = CUZK_EMISMATCH;
        if (rc == CUZK_OK) rc = prc;
    }
    if (sb) cuzk_srs_release(sb);
    cuzk_engine_destroy(e);
    free(jobs);
    free(seen);
    return rc;
}
