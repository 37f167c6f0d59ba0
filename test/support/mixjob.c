/* The mixed-workload tests' helpers (mixjob.h). */
#include "support/mixjob.h"

#include <string.h>
#include <time.h>

#include "groth16/groth16.h"
#include "groth16/synth.h"

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
    pthread_mutex_unlock(&l->lock);
}

void mix_log_wait_dequeued(mix_log *l, uint64_t tag)
{
    for (;;) {
        pthread_mutex_lock(&l->lock);
        uint64_t t = l->dequeued[tag];
        pthread_mutex_unlock(&l->lock);
        if (t) return;
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
