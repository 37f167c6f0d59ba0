/*
 * Witness-only partitions on the CUDA backend: the constraint system placed on each device
 * through the device budget (resident where it fits beside the keys and the slots, else its
 * matrices streamed in pieces from page-locked host memory, idle keys giving way resident
 * bases where not even that fits: cuda_evict.c), and the device work of one such
 * partition — the witness copied once, range-checked on the device, a, b, c evaluated straight
 * into the H step's vectors, then the a/b/c path's MSMs over the device's copy of the witness.
 */
#if CUZK_HAVE_CUDA
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_common.h"
#include "backend/cuda_internal.h"
#include "cuda_util.h"
#include "error.h"
#include "fault.h"
#include "groth16/csc.h"
#include "ntt.h"
#include "prep.h"

#define FR 32ull
/* A streamed system's pieces: an eighth of its largest matrix, within these bounds (and at
 * least its longest row), so small systems stream in several pieces too. The pieces are copied
 * between the evaluation's kernels on one stream, so larger ones would not copy faster; what
 * they cost is room: PoRep (2^27) on a 16 GiB card needs its lean streaming slot (11.08 GiB),
 * the witness (3.88 GiB) and two pieces within the 15.38 GiB the card leaves libcuzk. */
#define CS_PIECE_MIN ((uint64_t)64 << 10)
#define CS_PIECE_MAX CUDA_CS_PIECE_MAX

static uint64_t cs_piece_bytes(const csc *c)
{
    uint64_t big = 0;
    for (int w = 0; w < 3; w++)
        if (csc_matrix_bytes(c, w) > big) big = csc_matrix_bytes(c, w);
    uint64_t p = big / 8;
    p = p < CS_PIECE_MIN ? CS_PIECE_MIN : p > CS_PIECE_MAX ? CS_PIECE_MAX : p;
    /* cuda_cs_eval's one-row piece; the longest row found by csc_finalize (a scan of every
     * row here cost a pass over 0.4 G offsets per load at 2^27) */
    if (p < 16 + c->longest_row * 8) p = 16 + c->longest_row * 8;
    return (p + 7) & ~(uint64_t)7;
}

uint64_t cuda_cs_slot_extra(const cuda_dev *d, int lean) { return cs_need_extra(d->cs.kept, lean); }

void cuda_cs_slot_trim(cuda_dev *d, cuda_slot *s)
{
    pthread_mutex_lock(&d->lock);
    const cs_need kept = d->cs.kept;
    pthread_mutex_unlock(&d->lock);
    slot_trim_witness(s, kept.wit, kept.pieces / 2);
    /* an urgent slot's committed bytes come down with it: its keys' part and the witness
     * buffers it still holds (the caller holds the slot: they stay as they are) */
    for (int j = 0; j < CUDA_URGENT_SLOTS; j++)
        if (s == &d->urgent[j]) {
            pthread_mutex_lock(&d->lock);
            d->urgent_bytes[j] = cs_urgent_after_trim(d->urgent_bytes[j], d->urgent_key_bytes[j], s->d_wit_bytes,
                                                      s->cs_piece_bytes);
            pthread_mutex_unlock(&d->lock);
        }
}

uint64_t cuda_cs_job_extra(const cuda_cs *cs, uint32_t i, int lean)
{
    return (lean ? cs->wit_bytes : 0) + (cs->dev[i].resident ? 0 : 2 * cs->piece_bytes);
}

/* The matrices copied into one page-locked block, x->host pointing there. */
static int cs_pinned_copy(cuda_cs *x)
{
    const csc *c = x->sys;
    uint64_t total = 0;
    for (int w = 0; w < 3; w++) total += ((c->abc_len + 1) * 8 + 2 * c->m[w].nnz * 4 + 7) & ~(uint64_t)7;
    uint8_t *at = NULL;
    if (gpu_host_alloc((void **)&at, total)) return CUZK_ENOMEM;
    x->pinned_copy = at;
    for (int w = 0; w < 3; w++) {
        const csc_matrix *m = &c->m[w];
        csc_matrix *h = &x->host.m[w];
        h->row = (uint64_t *)at;
        memcpy(h->row, m->row, (c->abc_len + 1) * 8);
        h->col = (uint32_t *)(at + (c->abc_len + 1) * 8);
        h->coef = h->col + m->nnz;
        if (m->nnz) memcpy(h->col, m->col, m->nnz * 4), memcpy(h->coef, m->coef, m->nnz * 4);
        at += ((c->abc_len + 1) * 8 + 2 * m->nnz * 4 + 7) & ~(uint64_t)7;
    }
    return CUZK_OK;
}

/* The host arrays the pieces are copied from, page-locked (once): in place, else a copy. */
static int cs_register(cuda_cs *x)
{
    if (x->registered || x->pinned_copy) return CUZK_OK;
    const csc *c = x->sys;
    void *done[9];
    int n = 0, rc = CUZK_OK;
    for (int w = 0; w < 3 && !rc; w++) {
        const csc_matrix *m = &c->m[w];
        void *arr[3] = {m->row, m->col, m->coef};
        const uint64_t bytes[3] = {(c->abc_len + 1) * 8, m->nnz * 4, m->nnz * 4};
        for (int j = 0; j < 3 && !rc; j++)
            if (bytes[j] && !(rc = gpu_host_register(arr[j], bytes[j]))) done[n++] = arr[j];
    }
    if (!rc) {
        x->registered = 1;
        return CUZK_OK;
    }
    while (n--) gpu_host_unregister(done[n]);
    if (cs_pinned_copy(x) == CUZK_OK) return err_clear(), CUZK_OK;
    return err_set(CUZK_ENOMEM, "CUDA backend: cannot page-lock the constraint system's matrices for streaming: %s",
                   cuzk_last_error());
}

static void cs_unregister(cuda_cs *x)
{
    if (x->pinned_copy) gpu_host_free(x->pinned_copy);
    x->pinned_copy = NULL;
    if (!x->registered) return;
    for (int w = 0; w < 3; w++) {
        const csc_matrix *m = &x->sys->m[w];
        gpu_host_unregister(m->row);
        if (m->nnz) gpu_host_unregister(m->col), gpu_host_unregister(m->coef);
    }
    x->registered = 0;
}

/* A system's choice on device i (b->keys_lock and the device's lock held): resident or
 * streamed in what is free (cs_slots_choose), else streamed with what idle keys' resident
 * bases give way (placement_evict_bytes: never to hold it resident). */
typedef struct cs_choice {
    int resident;
    cs_need need;                /* what every slot keeps for it                            */
    uint64_t grow, own;          /* each slot's growth, its own bytes                       */
    uint64_t avail;              /* free on the device                                      */
    uint64_t evictable;          /* streamed: what the victims could give                    */
    uint32_t nv, nev;
    pl_victim vs[PL_MAX_VICTIMS];
    cuda_key *owners[PL_MAX_VICTIMS];
    pl_eviction ev[PL_MAX_VICTIMS * PL_N];
} cs_choice;

static int cs_choose(cuda_backend *b, const cuda_cs *x, uint32_t i, int stream, int host_ready, cs_choice *ch)
{
    const cuda_dev *d = &b->dev[i];
    const csc *c = x->sys;
    const uint64_t used = cuda_dev_used(d), res = cuda_cs_resident_bytes(c), table = (uint64_t)c->n_coeffs * FR;
    ch->avail = d->cap > used ? d->cap - used : 0;
    ch->evictable = 0;
    ch->nv = ch->nev = 0;
    if (cs_slots_choose(&d->cs, d->nslots, ch->avail, x->wit_bytes, x->piece_bytes, res, table, stream, &ch->resident,
                        &ch->need, &ch->grow, &ch->own) == CUZK_OK)
        return CUZK_OK;
    /* refused: need, grow and own are the streamed choice's, which does not fit. The victims
     * must stream in the slots as its commit leaves them (grown by its part), so that their
     * later partitions do not grow them past what was counted here */
    const uint64_t total = ch->own + (uint64_t)d->nslots * ch->grow;
    const cs_need kept = cs_need_max(d->cs.kept, ch->need);
    ch->nv = cuda_evict_candidates(b, NULL, i, host_ready, &kept, ch->vs, ch->owners);
    for (uint32_t j = 0; j < ch->nv; j++)
        for (int v = 0; v < PL_N && ch->vs[j].evictable; v++) ch->evictable += ch->vs[j].resident[v];
    /* evicting anyway: enough that WinningPoSt's room stays free too (as key loads keep it),
     * else what loads it at all, taking from that room as a system that fits may */
    const uint64_t room = cuda_winning_room(b, d), free_kept = ch->avail > room ? ch->avail - room : 0;
    int rc = placement_evict_bytes(ch->vs, ch->nv, total > free_kept ? total - free_kept : 0, ch->ev, &ch->nev);
    if (rc != CUZK_OK && room)
        rc = placement_evict_bytes(ch->vs, ch->nv, total > ch->avail ? total - ch->avail : 0, ch->ev, &ch->nev);
    return rc;
}

static int cs_refusal(const cuda_dev *d, const cuda_cs *x, const cs_choice *ch)
{
    const uint64_t table = (uint64_t)x->sys->n_coeffs * FR, n = d->nslots;
    return err_set(CUZK_EBUDGET,
                   "CUDA backend: device %d cannot hold the constraint system even streamed: its coefficient "
                   "table (%llu bytes) and %llu worker slots grown by %llu bytes each (the witness in a lean "
                   "slot, two %llu-byte pieces) need %llu bytes, %llu are available and idle keys' resident "
                   "bases could give %llu more (device budget %llu; keys pinned with CUZK_SRS_PIN, with a "
                   "partition running, or that these slots could not stream do not give way)",
                   d->ordinal, (unsigned long long)table, (unsigned long long)n, (unsigned long long)ch->grow,
                   (unsigned long long)x->piece_bytes, (unsigned long long)(table + n * ch->grow),
                   (unsigned long long)ch->avail, (unsigned long long)ch->evictable, (unsigned long long)d->cap);
}

/* Every device's choice before any device's is applied: a system that one of them cannot
 * take even after its idle keys give way fails before anything is evicted on any (place_all
 * chooses again on each device, from what it holds then). */
static int cs_plan(cuda_backend *b, const cuda_cs *x, int stream)
{
    cs_choice *ch = malloc(sizeof *ch);
    if (!ch) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    int rc = CUZK_OK;
    pthread_mutex_lock(&b->keys_lock);
    for (uint32_t i = 0; i < b->ndev && !rc; i++) {
        pthread_mutex_lock(&b->dev[i].lock);
        /* victims whose host copies are not page-locked yet count: cs_commit pins them */
        if (cs_choose(b, x, i, stream, 0, ch)) rc = cs_refusal(&b->dev[i], x, ch);
        pthread_mutex_unlock(&b->dev[i].lock);
    }
    pthread_mutex_unlock(&b->keys_lock);
    free(ch);
    return rc;
}

/* Decides resident or streamed on device i and commits the bytes (b->keys_lock, then the
 * device's lock): the system's own bytes, and what every existing slot grows by so that a
 * witness-only partition fits it (the witness in a lean slot, two pieces where it streams;
 * cs_slots.h). Where not even streamed fits, idle keys give way as to a key being loaded
 * (cuda_evict.c): their host copies are page-locked first, outside the device's lock, and
 * the choice is made again once they are; their bases are freed once the locks are released,
 * before the system's own allocations. *resident: the choice; *own: the device bytes it
 * committed for itself. */
static int cs_commit(cuda_backend *b, cuda_cs *x, uint32_t i, int stream, int *resident, uint64_t *own)
{
    cuda_dev *d = &b->dev[i];
    cs_choice *ch = malloc(sizeof *ch);
    msm_gpu_bases *stash[PL_MAX_VICTIMS * PL_N];
    uint32_t nstash = 0;
    int rc;
    if (!ch) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    pthread_mutex_lock(&b->keys_lock);
    for (int host_ready = 0;; host_ready = 1) {
        pthread_mutex_lock(&d->lock);
        rc = cs_choose(b, x, i, stream, host_ready, ch);
        if (rc || !ch->nev || host_ready) break;
        pthread_mutex_unlock(&d->lock); /* pin the victims' host copies, then choose again */
        for (uint32_t j = 0; j < ch->nev; j++)
            (void)cuda_key_pin_host(ch->owners[ch->ev[j].victim], d->ordinal); /* failed: not a victim then */
        if ((rc = gpu_set_device(d->ordinal))) {
            pthread_mutex_unlock(&b->keys_lock);
            free(ch);
            return rc;
        }
    }
    if (rc) cs_refusal(d, x, ch);
    else {
        /* the victims' lean part as they stream now: within the slots this commit leaves */
        cuda_evict_apply(d, i, ch->owners, ch->ev, ch->nev, stash, &nstash);
        *resident = ch->resident, *own = ch->own;
        x->need[i] = ch->need; /* given back by cs_settle when it goes */
        cs_slots_commit(&d->cs, ch->need);
        if (d->nslots) d->slot_bytes = cs_slots_bytes(&d->cs); /* grown by `grow`; later keys size slots with it */
        d->cs_resident += ch->own;
    }
    pthread_mutex_unlock(&d->lock);
    pthread_mutex_unlock(&b->keys_lock);
    /* no partition of theirs reads them: none ran at the choice, later ones read the new
     * placement; freed before cuda_cs_place allocates the system's part */
    for (uint32_t j = 0; j < nstash; j++) msm_gpu_bases_free(stash[j]);
    free(ch);
    return rc;
}

/* What device i's slots keep once a system went (b->keys_lock and the device's lock held, the
 * system off b->systems): the largest need of those left, the slot bytes counted with it. */
static void cs_settle(cuda_backend *b, uint32_t i)
{
    cuda_dev *d = &b->dev[i];
    cs_need kept = {0, 0};
    for (const cuda_cs *o = b->systems; o; o = o->next) /* zero where not committed (calloc) */
        kept = cs_need_max(kept, o->need[i]);
    cs_slots_settle(&d->cs, &kept, 1);
    if (d->nslots) d->slot_bytes = cs_slots_bytes(&d->cs);
}

/* The idle slots' witness buffers that the systems left no longer need, freed now (the
 * device current): a slot busy now frees them at the end of its partition (cuda_start). */
static void cs_trim_idle(cuda_dev *d)
{
    pthread_mutex_lock(&d->lock);
    const uint32_t nslots = d->nslots; /* set by the first key's load */
    pthread_mutex_unlock(&d->lock);
    for (uint32_t j = 0; j < nslots && j < CUDA_MAX_SLOTS; j++)
        if (slot_pool_try_take_shared(&d->pool, j)) {
            cuda_cs_slot_trim(d, &d->slot[j]);
            slot_pool_give(&d->pool, (int)j);
        }
    for (int j = 0; j < CUDA_URGENT_SLOTS; j++)
        if (slot_pool_try_take_urgent(&d->pool, j)) {
            cuda_cs_slot_trim(d, &d->urgent[j]);
            slot_pool_give(&d->pool, SLOT_POOL_URGENT_AT(j));
        }
}

int cuda_cs_place_all(void *be, const csc *c, uint32_t flags, void **out)
{
    cuda_backend *b = be;
    cuda_cs *x = calloc(1, sizeof *x);
    if (!x) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    x->sys = c;
    x->host = *c;
    x->piece_bytes = cs_piece_bytes(c);
    x->wit_bytes = (c->num_inputs + c->num_aux) * FR;
    pthread_mutex_lock(&b->keys_lock); /* counted from its first commit: a release meanwhile keeps it */
    x->next = b->systems;
    b->systems = x;
    pthread_mutex_unlock(&b->keys_lock);
    int rc = cs_plan(b, x, (flags & CUZK_CS_STREAM) != 0);
    for (uint32_t i = 0; i < b->ndev && !rc; i++) {
        int resident = 0;
        uint64_t own = 0;
        if ((rc = gpu_set_device(b->dev[i].ordinal)) || (rc = cs_commit(b, x, i, (flags & CUZK_CS_STREAM) != 0, &resident, &own))) break;
        x->ndev = i + 1;
        if (!(rc = cuda_cs_place(c, resident ? UINT64_MAX : 0, &x->dev[i])) && x->dev[i].resident != resident)
            rc = err_set(CUZK_EDEVICE, "CUDA backend: the constraint system's placement on device %d changed",
                         b->dev[i].ordinal);
        if (rc) { /* nothing placed here: give back its own bytes (its slots' part: unplace_all) */
            pthread_mutex_lock(&b->dev[i].lock);
            b->dev[i].cs_resident -= own;
            pthread_mutex_unlock(&b->dev[i].lock);
            memset(&x->dev[i], 0, sizeof x->dev[i]);
        } else if (!resident) rc = cs_register(x);
    }
    if (rc) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        cuda_cs_unplace_all(b, x); /* what it grew the slots by comes back too */
        return err_set(rc == CUZK_EBUDGET || rc == CUZK_ENOMEM ? rc : CUZK_EDEVICE,
                       "CUDA backend: cannot place the constraint system: %s", msg);
    }
    *out = x;
    return CUZK_OK;
}

void cuda_cs_unplace_all(void *be, void *cs_be)
{
    cuda_backend *b = be;
    cuda_cs *x = cs_be;
    if (!x) return;
    pthread_mutex_lock(&b->keys_lock);
    for (cuda_cs **at = &b->systems; *at; at = &(*at)->next)
        if (*at == x) {
            *at = x->next;
            break;
        }
    for (uint32_t i = 0; i < x->ndev; i++) {
        cuda_dev *d = &b->dev[i];
        pthread_mutex_lock(&d->lock);
        d->cs_resident -= x->dev[i].device_bytes;
        cs_settle(b, i);
        pthread_mutex_unlock(&d->lock);
    }
    pthread_mutex_unlock(&b->keys_lock);
    for (uint32_t i = 0; i < x->ndev; i++) {
        cuda_dev *d = &b->dev[i];
        gpu_set_device(d->ordinal);
        cuda_cs_unplace(&x->dev[i]); /* no job uses it: nothing on the device reads it */
        cs_trim_idle(d);
    }
    cs_unregister(x);
    free(x);
}

void cuda_cs_device(void *be, void *cs_be, uint64_t *bytes, uint32_t *resident, uint32_t *streamed)
{
    (void)be;
    const cuda_cs *x = cs_be;
    *bytes = 0, *resident = *streamed = 0;
    for (uint32_t i = 0; i < x->ndev; i++) {
        *bytes += x->dev[i].device_bytes;
        if (x->dev[i].resident) ++*resident;
        else ++*streamed;
    }
}

/* ---- one partition ---- */

/* gpu_h_step_filled's fill: matrix `input` times the device's witness, timed as a stage. */
typedef struct wit_fill {
    cuda_slot *s;
    const cuda_cs *cs;
    const cuda_cs_dev *cd;
    const void *d_inputs, *d_aux;
} wit_fill;

static int fill_abc(void *user, int input, void *d, void *stream)
{
    wit_fill *f = user;
    const csc *c = &f->cs->host; /* the page-locked arrays when it streams */
    int rc;
    if ((rc = slot_stage_begin(f->s, ST_CS_A + input, stream)) ||
        (rc = cuda_cs_eval(c, f->cd, input, f->d_inputs, f->d_aux, d, f->s->cs_piece, f->s->cs_piece_bytes, stream)) ||
        (rc = slot_stage_end(f->s, ST_CS_A + input, stream, c->abc_len * FR)))
        return rc;
    if (!f->cd->resident) f->s->cs_h2d += csc_matrix_bytes(c, input);
    return CUZK_OK;
}

/* The witness to the device on the copy stream (inputs raw, as staged, to d_inputs; aux to
 * d_aux) and, when d_b, the B-selected inputs (staged in Montgomery form) to d_b; then on the
 * compute stream, once arrived: the range check (tags 3 inputs, 4 aux) bringing a canonical
 * witness to Montgomery form, which is the form of everything after it. */
static int witness_to_device(cuda_slot *s, const cuda_inputs *in, fr_t *d_inputs, fr_t *d_aux, fr_t *d_b)
{
    const uint64_t ni = in->ni, na = in->na, kb0 = d_b ? in->kb0 : 0;
    gpu_prep_result *d_res = s->d_prep;
    int rc;
    if ((rc = slot_stage_begin(s, ST_COPY, s->copy_stream)) ||
        (FAULT_HIT(FAULT_CUDA_COPY) && (rc = err_set(CUZK_EDEVICE, "injected fault: CUDA copy of the witness"))) ||
        (ni && (rc = gpu_memcpy_async(d_inputs, in->in_ab, ni * FR, s->copy_stream))) ||
        (na && (rc = gpu_memcpy_async(d_aux, in->aux, na * FR, s->copy_stream))) ||
        (kb0 && (rc = gpu_memcpy_async(d_b, in->in_ab + ni, kb0 * FR, s->copy_stream))) ||
        (rc = slot_stage_end(s, ST_COPY, s->copy_stream, (ni + na + kb0) * FR)) ||
        (rc = gpu_stream_wait_event(s->stream, s->ev[2 * ST_COPY + 1])) ||
        (rc = gpu_prep_check(d_inputs, ni, 3, in->canon, d_res, s->stream)) ||
        (rc = gpu_prep_check(d_aux, na, 4, in->canon, d_res, s->stream)))
        return rc;
    return CUZK_OK;
}

/* The device has its copy of the witness: the host's buffers go back now (the engine keeps
 * the public inputs for the self-check). */
static int release_witness(cuda_slot *s, backend_job *job)
{
    int rc = gpu_event_sync(s->ev[2 * ST_COPY + 1]);
    if (!rc) bjob_release_host(job);
    return rc;
}

int cuda_flow_witness_full(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, const cuda_cs *cs, uint32_t i,
                           int ordinal, const cuda_inputs *in, backend_job *job)
{
    const uint64_t m = (uint64_t)1 << in->log_m, ni = in->ni, kb0 = in->kb0, na = in->na;
    uint8_t *d = s->d_work;
    /* the full layout's aux (L's scalars) and A's input prefix are where the witness lands */
    fr_t *d_aux = (fr_t *)(d + 3 * m * FR), *d_a = d_aux + na, *d_b = d_a + in->n_a;
    gpu_prep_result *d_res = s->d_prep;
    wit_fill f = {s, cs, &cs->dev[i], d_a, d_aux};
    int rc;
    if ((rc = slot_yield(s, ordinal)) || (rc = gpu_prep_reset(d_res, s->stream))) return rc;
    if (witness_to_device(s, in, d_a, d_aux, d_b)) return slot_fail(ordinal, "copying and checking the witness");
    /* a, b, c into the H step's three vectors, each just before its transforms; the check's
     * verdict is read before the first MSM */
    if ((rc = slot_stage_begin(s, ST_H, s->stream)) ||
        (FAULT_HIT(FAULT_CUDA_H) && err_set(CUZK_EDEVICE, "injected fault: CUDA H step")) ||
        gpu_h_step_filled(d, d + m * FR, d + 2 * m * FR, in->len, in->log_m, fill_abc, &f, s->gate, s->stream) ||
        (rc = slot_stage_end(s, ST_H, s->stream, 3 * in->len * FR)))
        return rc ? rc : slot_fail(ordinal, "the constraint evaluation and H step");
    if (release_witness(s, job)) return slot_fail(ordinal, "copying the witness");
    if (gpu_prep_compact(d_a + ni, in->n_a - ni, d_b + kb0, in->n_b - kb0, d_aux, na, in->dens_a, in->dens_b,
                         (uint8_t *)s->d_prep + CUDA_PREP_SCRATCH_OFF, s->d_prep_bytes - CUDA_PREP_SCRATCH_OFF, d_res,
                         s->stream))
        return slot_fail(ordinal, "the scalar preparation");
    /* the check converted a canonical witness: every scalar is in Montgomery form */
    return cuda_flow_full_msms(s, k, kd, ordinal, in, job, d, d_aux, d_a, d_b, CUZK_FR_MONTGOMERY);
}

int cuda_flow_witness_lean(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, const cuda_cs *cs, uint32_t i,
                           int ordinal, const cuda_inputs *in, backend_job *job)
{
    cuda_job *st = job->priv;
    const uint64_t m = (uint64_t)1 << in->log_m, ni = in->ni, kb0 = in->kb0, na = in->na;
    /* the two domain vectors as in the lean a/b/c flow; the witness in its own buffer */
    fr_t *w = s->d_work, *h = w, *d_in = s->d_wit, *d_aux = d_in + ni;
    fr_t *d_lo = w + (cuda_lean_hi(m, ni, in->n_a, in->n_b) ? m + na : 0); /* inputs, then B, later A */
    gpu_prep_result *d_res = s->d_prep;
    const int form = CUZK_FR_MONTGOMERY; /* the check converted a canonical witness */
    const groth16_params *pk = k->pk;
    wit_fill f = {s, cs, &cs->dev[i], d_in, d_aux};
    int rc;
    if ((rc = slot_yield(s, ordinal)) || (rc = gpu_prep_reset(d_res, s->stream))) return rc;
    if (witness_to_device(s, in, d_in, d_aux, NULL)) return slot_fail(ordinal, "copying and checking the witness");
    /* H's first pieces once the witness is in: ahead of it they would delay the H step */
    if ((rc = gpu_stream_wait_event(s->bases_stream, s->ev[2 * ST_COPY + 1])) ||
        (rc = slot_prefetch(s, k, kd, PL_H)))
        return slot_fail(ordinal, "copying bases");
    if ((rc = slot_stage_begin(s, ST_H, s->stream)) ||
        (FAULT_HIT(FAULT_CUDA_H) && err_set(CUZK_EDEVICE, "injected fault: CUDA H step")) ||
        gpu_h_step_filled_lean(h, w + m, in->len, in->log_m, fill_abc, &f, s->gate, s->stream) ||
        (rc = slot_stage_end(s, ST_H, s->stream, 3 * in->len * FR)))
        return rc ? rc : slot_fail(ordinal, "the constraint evaluation and H step");
    if (release_witness(s, job)) return slot_fail(ordinal, "copying the witness");
    /* CUZK_LEAN_H_LEND: [m, 2m) holds nothing from the H step's end until B and A are compacted
     * after the H MSM (the witness is in its own buffer), so the H MSM may borrow it as scratch —
     * where B and A go to [0, m) (cuda_lean_hi 0); otherwise they would start at m + na */
    const slot_h_loan loan = {w + m, m * FR, NULL, NULL};
    if (cuda_lean_lends(k, kd, in)) s->h_loan = &loan;
    /* the verdict is read before any result leaves (below), as in the lean a/b/c flow */
    rc = slot_msm(s, k, kd, ordinal, PL_H, ST_MSM_H, h, pk->n_h, form, PL_B_G1, NULL, &st->msm.h, sizeof st->msm.h);
    s->h_loan = NULL; /* this MSM's only */
    if (rc) return rc;
    if (bjob_canceled(job)) return CUZK_ECANCELED; /* (no a, b, c of the host's to release) */
    /* A's input prefix from the device's witness, B's after it (staged) */
    if ((ni && gpu_memcpy_async(d_lo, d_in, ni * FR, s->stream)) ||
        (kb0 && gpu_memcpy_async(d_lo + ni, in->in_ab + ni, kb0 * FR, s->stream)))
        return slot_fail(ordinal, "the scalar preparation");
    return cuda_flow_lean_rest(s, k, kd, ordinal, in, job, d_lo, d_aux, form);
}
#endif
