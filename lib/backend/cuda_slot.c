/*
 * Worker slots of a device (the device memory and streams one partition works in) and the
 * MSM runner over them: a resident vector in one call, or pieces from the resident prefix
 * and from pinned host memory, copied on the bases stream into two buffers that alternate,
 * each copy overlapped with the accumulation of the piece before it.
 */
#if CUZK_HAVE_CUDA
#include <stdio.h>
#include <string.h>

#include "backend/cuda_internal.h"
#include "cuda_util.h"
#include "error.h"
#include "fault.h"

/* ---- acquire and release: the device's slot pool (slot_pool.c) ---- */

cuda_slot *slot_acquire(cuda_dev *d, int urgent, uint32_t own_fits, uint32_t prefer, int *own)
{
    int i = slot_pool_take_pref(&d->pool, urgent, own_fits, prefer);
    *own = i < 0 ? SLOT_POOL_URGENT_AT(0) - i + 1 : 0;
    cuda_slot *s = *own ? &d->urgent[*own - 1] : &d->slot[i];
    s->pool_id = i;
    s->urgent_own = *own != 0;
    return s;
}

void slot_release(cuda_dev *d, cuda_slot *s) { slot_pool_give(&d->pool, s->pool_id); }

int slot_yield(cuda_slot *s, int ordinal)
{
    /* the host waits, not the device: copies enqueued after this wait too, as nothing is
     * enqueued meanwhile */
    if (s->gate && gpu_gate_pass(s->gate, s->stream)) return slot_fail(ordinal, "the stage-boundary pass");
    return CUZK_OK;
}

int slot_fail(int ordinal, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s", cuzk_last_error());
    return err_set(CUZK_EDEVICE, "CUDA backend: %s on device %d failed: %s", what, ordinal, msg);
}

void slot_destroy(cuda_slot *s)
{
    if (!s->ready) return;
    if (s->ctx) msm_gpu_ctx_free(s->ctx);
    gpu_free(s->d_work);
    gpu_free(s->d_prep);
    gpu_free(s->d_wit);
    for (int i = 0; i < 2; i++) {
        gpu_free(s->cs_piece[i]);
        gpu_free(s->buf[i].d);
        gpu_event_destroy(s->buf[i].ready);
        gpu_event_destroy(s->buf[i].free);
    }
    if (s->h_small) gpu_host_free(s->h_small);
    gpu_event_destroy(s->ev_ref);
    gpu_event_destroy(s->ev_read);
    gpu_gate_fini(&s->pace);
    for (int i = 0; i < 2 * ST_N; i++) gpu_event_destroy(s->ev[i]);
    for (int i = 0; i < 2 * CUDA_COPY_EVENTS; i++) gpu_event_destroy(s->ev_copy[i]);
    gpu_stream_destroy(s->bases_stream);
    gpu_stream_destroy(s->copy_stream);
    gpu_stream_destroy(s->stream);
    const int id = s->pool_id; /* a failed slot_prepare destroys a slot its holder still gives back */
    memset(s, 0, sizeof *s);
    s->pool_id = id;
}

/* Grows a slot buffer (kept for the next partitions; the placement sized the slot). */
static int grow(void **buf, size_t *have, size_t bytes, int ordinal, const char *what)
{
    if (FAULT_HIT(FAULT_CUDA_ALLOC))
        return err_set(CUZK_EBUDGET, "CUDA backend: injected fault: device %d has no room for %s (%zu bytes)", ordinal,
                       what, bytes);
    if (*have >= bytes) return CUZK_OK;
    gpu_free(*buf);
    *buf = NULL;
    *have = 0;
    if (gpu_malloc(buf, bytes)) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        return err_set(CUZK_EBUDGET, "CUDA backend: device %d has no room for %s (%zu bytes): %s", ordinal, what,
                       bytes, msg);
    }
    *have = bytes;
    return CUZK_OK;
}

/* A slot's streams, events and pinned result buffer (once; slot_destroy frees what exists). */
static int slot_create(cuda_slot *s, int urgent)
{
    int rc;
    s->ready = 1;
    /* an urgent slot's blocks are scheduled ahead of the backlog's as SMs free up */
    if ((rc = gpu_stream_create_priority(&s->stream, urgent)) ||
        (rc = gpu_stream_create_priority(&s->copy_stream, urgent)) ||
        (rc = gpu_stream_create_priority(&s->bases_stream, urgent)) || (rc = gpu_event_create(&s->ev_ref)) ||
        (rc = gpu_event_create_sync_only(&s->ev_read)) ||
        (rc = gpu_gate_init(&s->pace, NULL)) ||
        (rc = gpu_host_alloc((void **)&s->h_small, CUDA_SMALL_BYTES)))
        return rc;
    for (int i = 0; i < 2 * ST_N; i++)
        if ((rc = gpu_event_create(&s->ev[i]))) return rc;
    for (int i = 0; i < 2 * CUDA_COPY_EVENTS; i++)
        if ((rc = gpu_event_create(&s->ev_copy[i]))) return rc;
    for (int i = 0; i < 2; i++)
        if ((rc = gpu_event_create_sync_only(&s->buf[i].ready)) || (rc = gpu_event_create_sync_only(&s->buf[i].free)))
            return rc;
    return CUZK_OK;
}

int slot_warm(cuda_slot *s, int ordinal, int urgent)
{
    int rc = CUZK_OK;
    if (!s->ready && (rc = slot_create(s, urgent))) {
        slot_destroy(s);
        return rc;
    }
    if (!s->ctx && !(rc = msm_gpu_ctx_create(&s->ctx, ordinal, s->stream, CUDA_MSM_ENTRIES_LEAN))) {
        s->ctx_entries = CUDA_MSM_ENTRIES_LEAN;
        s->ctx_acc = -1;
    }
    return rc;
}

static void free_work(cuda_slot *s)
{
    gpu_free(s->d_work);
    s->d_work = NULL;
    s->d_work_bytes = 0;
}

static void free_stream_bufs(cuda_slot *s)
{
    for (int i = 0; i < 2; i++) {
        gpu_free(s->buf[i].d);
        s->buf[i].d = NULL;
        s->buf[i].src = NULL;
    }
    s->buf_bytes = 0;
}

static void free_witness_bufs(cuda_slot *s)
{
    gpu_free(s->d_wit);
    s->d_wit = NULL;
    s->d_wit_bytes = 0;
    for (int i = 0; i < 2; i++) {
        gpu_free(s->cs_piece[i]);
        s->cs_piece[i] = NULL;
    }
    s->cs_piece_bytes = 0;
}

void slot_shrink(cuda_slot *s)
{
    if (s->ctx && msm_gpu_ctx_trim(s->ctx)) err_clear(); /* a device error: the next partition meets it */
    s->ctx_acc = -1;
    free_work(s);
    free_witness_bufs(s);
    free_stream_bufs(s);
    gpu_free(s->d_prep);
    s->d_prep = NULL;
    s->d_prep_bytes = 0;
}

/* Streams, events and buffers for a partition: created the first time, grown when a larger
 * partition comes (within the slot's placement), never per partition. */
int slot_prepare(cuda_slot *s, int ordinal, int lean, int streamed, size_t work_bytes, size_t prep_bytes,
                 size_t piece_bytes, int urgent, size_t full_entries, size_t lean_entries, int acc)
{
    int rc;
    if (!s->ready && (rc = slot_create(s, urgent))) {
        slot_destroy(s); /* what was made; the next partition tries again */
        return rc;
    }
    /* the entries per chunk of the layout the placement budgeted (full_entries: the key's,
     * cuda_key_entries_full), changed in place (a new context's free of page-locked memory would
     * wait for the whole device): the urgent slot, which alternates WinningPoSt (full) and
     * larger lean partitions, keeps the smaller cap for both (a 2^19 MSM stays under it; a full
     * slot's cap is never below it, CUZK_MSM_ENTRIES_LOG >= 25) */
    size_t entries = urgent ? CUDA_MSM_ENTRIES_LEAN : lean ? lean_entries : full_entries;
    if (!s->ctx) {
        if ((rc = msm_gpu_ctx_create(&s->ctx, ordinal, s->stream, entries))) return rc;
        s->ctx_entries = entries;
        s->ctx_acc = -1;
    } else if (s->ctx_entries != entries) {
        if ((rc = msm_gpu_ctx_set_max_entries(s->ctx, entries))) return rc;
        s->ctx_entries = entries;
    }
    /* a context keeps each buffer at the largest request it saw, and a slot is budgeted for
     * the largest key's scratch under that key's accumulation (cuda_flow.c): keys of one
     * accumulation grow the same buffers (the largest key's are the largest: test_msm_scratch),
     * but a pairwise key's scratch beside an XYZZ key's buckets and index lists can be more than
     * either's budget (Filecoin's keys at 2^27 entries: 13.71 GiB held against 13.69 budgeted,
     * the plan run without data: test_msm_scratch, test_keys_in_one_slot). So a
     * partition of another accumulation than the last starts from an empty context (its stream
     * is idle here; the buffers go back to the device's pool, stream-ordered) */
    const int run = s->urgent_own ? cuda_acc_plain() : acc;
    if (s->ctx_acc >= 0 && s->ctx_acc != run && (rc = msm_gpu_ctx_trim(s->ctx))) return rc;
    s->ctx_acc = run;
    /* a slot that ran a full partition and now streams (a key that gave way its bases, or
     * alternating keys) gives back the full work area first: the placement budgeted the lean
     * one plus the stream buffers, not both layouts at once (into the device's pool: no wait) */
    if (lean && streamed && !s->buf_bytes && s->d_work_bytes > work_bytes) free_work(s);
    /* and the other way: a slot whose stream buffers are left from a streamed key gives them
     * back for a key that does not stream (full, or resident lean): its placement budgeted
     * that layout alone (a shared slot alternating a streamed WindowPoSt and a resident PoRep
     * key held both, ~1.5 GiB over per slot) */
    if (!streamed && s->buf_bytes) free_stream_bufs(s);
    if ((rc = grow(&s->d_work, &s->d_work_bytes, work_bytes, ordinal, "the H step and the MSM scalars")) ||
        (rc = grow(&s->d_prep, &s->d_prep_bytes, prep_bytes, ordinal, "the scalar preparation")))
        return rc;
    s->piece_bytes = piece_bytes;
    /* stream buffers only for keys that stream: a resident lean placement did not budget them */
    if (lean && streamed && !s->buf_bytes) {
        for (int i = 0; i < 2; i++) {
            size_t have = 0;
            if ((rc = grow(&s->buf[i].d, &have, piece_bytes, ordinal, "a stream buffer"))) return rc;
            s->buf[i].src = NULL;
        }
        s->buf_bytes = piece_bytes;
    }
    for (int i = 0; i < 2; i++) s->buf[i].src = NULL; /* a new partition: nothing in flight counts */
    msm_gpu_ctx_discard(s->ctx); /* a failed partition's deferred MSMs: never into this one's state */
    memset(s->stage_used, 0, sizeof s->stage_used);
    s->ncopy = 0;
    s->copy_bytes = 0;
    s->cs_h2d = 0;
    return CUZK_OK;
}

int slot_prepare_witness(cuda_slot *s, int ordinal, size_t wit_bytes, size_t piece_bytes)
{
    int rc;
    if (wit_bytes && (rc = grow(&s->d_wit, &s->d_wit_bytes, wit_bytes, ordinal, "the witness"))) return rc;
    if (piece_bytes && s->cs_piece_bytes < piece_bytes) {
        for (int i = 0; i < 2; i++) {
            size_t have = 0;
            gpu_free(s->cs_piece[i]);
            s->cs_piece[i] = NULL;
            if ((rc = grow(&s->cs_piece[i], &have, piece_bytes, ordinal, "a constraint system piece"))) {
                free_witness_bufs(s);
                return rc;
            }
        }
        s->cs_piece_bytes = piece_bytes;
    }
    return CUZK_OK;
}

void slot_trim_witness(cuda_slot *s, size_t wit_bytes, size_t piece_bytes)
{
    if (s->d_wit_bytes > wit_bytes) {
        gpu_free(s->d_wit);
        s->d_wit = NULL;
        s->d_wit_bytes = 0;
    }
    if (s->cs_piece_bytes > piece_bytes) {
        for (int i = 0; i < 2; i++) {
            gpu_free(s->cs_piece[i]);
            s->cs_piece[i] = NULL;
        }
        s->cs_piece_bytes = 0;
    }
}

int slot_stage_begin(cuda_slot *s, int st, void *stream)
{
    s->stage_used[st] = 1;
    return gpu_event_record(s->ev[2 * st], stream);
}

int slot_stage_end(cuda_slot *s, int st, void *stream, uint64_t bytes)
{
    s->stage_bytes[st] = bytes;
    return gpu_event_record(s->ev[2 * st + 1], stream);
}

/* ---- the piece ring ---- */

int slot_copy(cuda_slot *s, void *dst, const void *src, uint64_t bytes, void *stream)
{
    const uint64_t part = (uint64_t)1 << 30; /* copy_len's range */
    for (uint64_t at = 0; at < bytes; at += part) {
        const uint64_t n = bytes - at < part ? bytes - at : part;
        const int timed = s->ncopy < CUDA_COPY_EVENTS;
        int rc;
        if ((timed && (rc = gpu_event_record(s->ev_copy[2 * s->ncopy], stream))) ||
            (rc = gpu_memcpy_async((uint8_t *)dst + at, (const uint8_t *)src + at, n, stream)) ||
            (timed && (rc = gpu_event_record(s->ev_copy[2 * s->ncopy + 1], stream))))
            return rc;
        if (timed) s->copy_len[s->ncopy] = (uint32_t)n;
        s->ncopy++;
    }
    return CUZK_OK;
}

/* Copies host bytes into buffer b on the bases stream, after its last consumer. */
static int ring_fill(cuda_slot *s, int b, const void *src, size_t bytes)
{
    piece_buf *pb = &s->buf[b];
    int rc;
    if ((rc = gpu_stream_wait_event(s->bases_stream, pb->free)) ||
        (FAULT_HIT(FAULT_CUDA_COPY) && (rc = err_set(CUZK_EDEVICE, "injected fault: CUDA copy of bases"))) ||
        (rc = slot_copy(s, pb->d, src, bytes, s->bases_stream)) || (rc = gpu_event_record(pb->ready, s->bases_stream)))
        return rc;
    s->copy_bytes += bytes; /* the bases streamed (statistics) */
    pb->src = src;
    pb->bytes = bytes;
    return CUZK_OK;
}

static int ring_find(const cuda_slot *s, const void *src, size_t bytes)
{
    for (int b = 0; b < 2; b++)
        if (s->buf[b].src == src && s->buf[b].bytes == bytes) return b;
    return -1;
}

/* Makes sure the pieces q[0] and q[1] are in buffers or on their way; returns -1 when a
 * copy could not be enqueued (error set). */
static int ring_start(cuda_slot *s, const void *const q[2], const size_t qb[2])
{
    int rc;
    for (int j = 0; j < 2; j++) {
        if (!q[j] || ring_find(s, q[j], qb[j]) >= 0) continue;
        int other = j ? ring_find(s, q[0], qb[0]) : -1, b;
        if (j == 0) { /* the buffer not holding q[1] */
            int h1 = q[1] ? ring_find(s, q[1], qb[1]) : -1;
            b = h1 == 0 ? 1 : 0;
        } else b = other == 0 ? 1 : 0;
        if ((rc = ring_fill(s, b, q[j], qb[j]))) return rc;
    }
    return CUZK_OK;
}

/* The pieces of vector v beyond its resident prefix, as host pointers; n = count. */
typedef struct piece_list {
    const uint8_t *host;
    uint64_t piece_pts, pb, n, first_streamed; /* pieces below first_streamed are resident */
} piece_list;

static void pieces_of(const cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int v, uint64_t n, piece_list *pl)
{
    pl->pb = pl_point_bytes(v);
    pl->piece_pts = s->piece_bytes / pl->pb;
    pl->host = k->host[v];
    pl->n = n;
    /* a resident prefix is whole pieces, or the whole vector */
    uint64_t res_pts = kd->pl.resident[v] / pl->pb, np = (n + pl->piece_pts - 1) / pl->piece_pts;
    pl->first_streamed = res_pts >= n ? np : res_pts / pl->piece_pts;
}

/* The points of piece i (the last may be short). */
static uint64_t piece_len(const piece_list *pl, uint64_t i)
{
    const uint64_t first = i * pl->piece_pts;
    return pl->n - first < pl->piece_pts ? pl->n - first : pl->piece_pts;
}

static const void *piece_src(const piece_list *pl, uint64_t i, size_t *bytes)
{
    *bytes = piece_len(pl, i) * pl->pb;
    return pl->host + i * pl->piece_pts * pl->pb;
}

int slot_prefetch(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int v)
{
    if (!s->buf_bytes || v < 0 || !k->n[v] || !k->host[v]) return CUZK_OK;
    piece_list pl;
    pieces_of(s, k, kd, v, k->n[v], &pl);
    uint64_t np = (pl.n + pl.piece_pts - 1) / pl.piece_pts;
    const void *q[2] = {NULL, NULL};
    size_t qb[2] = {0, 0};
    for (uint64_t i = pl.first_streamed, j = 0; i < np && j < 2; i++, j++) q[j] = piece_src(&pl, i, &qb[j]);
    return ring_start(s, q, qb);
}

/* The H MSM's scalars [first, first + n) read (slot_h_loan): by the work enqueued so far, or
 * by nothing (`now`: the stream was seen idle since the last read). */
static int scalars_read(cuda_slot *s, int v, uint64_t first, uint64_t n, int now)
{
    const slot_h_loan *l = s->h_loan;
    if (v != PL_H || !l || !l->scalars_read) return CUZK_OK;
    int rc = now ? CUZK_OK : gpu_event_record(s->ev_read, s->stream);
    return rc ? rc : l->scalars_read(l->user, now ? NULL : s->ev_read, first, n);
}

/* The lean path: begin, a piece at a time (resident ones from the prefix), end; the pieces
 * share buckets within `shared` bytes where not 0. */
static int msm_pieces_run(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int v, const void *d_scalars,
                          uint64_t n, int form, int next, uint64_t shared, void *out)
{
    piece_list pl;
    pieces_of(s, k, kd, v, n, &pl);
    uint64_t np = (n + pl.piece_pts - 1) / pl.piece_pts;
    if (np > CUDA_MAX_PIECES)
        return err_set(CUZK_EINVAL, "CUDA backend: %llu pieces of %llu points exceed the plan",
                       (unsigned long long)np, (unsigned long long)pl.piece_pts);
    uint8_t *flags = s->h_small + 256, *d_flags = (uint8_t *)s->d_prep + 256;
    int rc;
    if ((rc = msm_gpu_pieces_nonzero(d_scalars, n, pl.piece_pts, d_flags, s->stream)) ||
        (rc = gpu_memcpy_async(flags, d_flags, np, s->stream)) || (rc = gpu_stream_sync(s->stream)))
        return rc;
    /* pieces of zeros are skipped: their scalars are read already (the stream is idle) */
    for (uint64_t i = 0; i < np; i++)
        if (!flags[i] && (rc = scalars_read(s, v, i * pl.piece_pts, piece_len(&pl, i), 1))) return rc;
    /* the copies this MSM needs, then the next vector's first pieces (speculatively) */
    uint64_t nq = 0;
    for (uint64_t i = pl.first_streamed; i < np; i++) nq += flags[i] != 0;
    piece_list nl = {0};
    uint64_t nnext = 0;
    if (next >= 0 && k->n[next] && s->buf_bytes) {
        pieces_of(s, k, kd, next, k->n[next], &nl);
        uint64_t nnp = (nl.n + nl.piece_pts - 1) / nl.piece_pts;
        nnext = nnp > nl.first_streamed ? nnp - nl.first_streamed : 0;
        if (nnext > 2) nnext = 2;
    }
    /* request j of the combined sequence: the j-th nonzero streamed piece, then the next's */
    uint16_t *qi = s->piece_q;
    for (uint64_t i = pl.first_streamed, j = 0; i < np; i++)
        if (flags[i]) qi[j++] = i;
#define REQ(j, bytesp)                                                                                               \
    ((j) < nq ? piece_src(&pl, qi[(j)], (bytesp))                                                                  \
              : (j) - nq < nnext ? piece_src(&nl, nl.first_streamed + ((j) - nq), (bytesp)) : NULL)
    const void *q[2];
    size_t qb[2] = {0, 0};
    for (uint64_t j = 0; j < 2; j++) q[j] = REQ(j, &qb[j]);
    if ((rc = ring_start(s, q, qb)) ||
        (rc = msm_gpu_acc_begin(s->ctx, pl_curve(v), n, form, shared != 0, shared)))
        return rc;
    /* resident pieces first (no copy): the first copies run meanwhile */
    for (uint64_t i = 0; i < pl.first_streamed && i < np; i++) {
        if (!flags[i]) continue;
        uint64_t first = i * pl.piece_pts, cnt = piece_len(&pl, i);
        if ((rc = msm_gpu_acc_add(s->ctx, (const uint8_t *)kd->res[v] + first * pl.pb,
                                  (const uint8_t *)d_scalars + first * 32, cnt)) ||
            (rc = scalars_read(s, v, first, cnt, 0)))
            return rc;
    }
    for (uint64_t j = 0; j < nq; j++) {
        size_t bytes;
        const void *src = REQ(j, &bytes);
        int b = ring_find(s, src, bytes);
        if (b < 0) /* cannot happen: requests j and j + 1 are always in the ring */
            return err_set(CUZK_EDEVICE, "CUDA backend: piece %llu of an MSM was not copied", (unsigned long long)j);
        uint64_t first = qi[j] * pl.piece_pts;
        if ((rc = gpu_stream_wait_event(s->stream, s->buf[b].ready)) ||
            (rc = msm_gpu_acc_add(s->ctx, s->buf[b].d, (const uint8_t *)d_scalars + first * 32, bytes / pl.pb)) ||
            (rc = gpu_event_record(s->buf[b].free, s->stream)) || (rc = scalars_read(s, v, first, bytes / pl.pb, 0)))
            return rc;
        s->buf[b].src = NULL; /* consumed; refilled below or by a later MSM */
        size_t nb;
        const void *nsrc = REQ(j + 2, &nb);
        if (nsrc && ring_find(s, nsrc, nb) < 0 && (rc = ring_fill(s, b, nsrc, nb))) return rc;
    }
#undef REQ
    return msm_gpu_acc_end(s->ctx, out);
}

/* Whether H's MSM borrows s->h_loan's memory (CUZK_LEAN_H_LEND, the lean flows): XYZZ only
 * (the loan's configuration is sized for it), and only where msm_gpu_lent_config finds one
 * with more entries or a larger shared bucket array than the slot's own; the loan taken on
 * ctx, its bucket cap in *shared. Not taken: the slot's own configuration, as without it. */
static int lend_for_h(cuda_slot *s, const cuda_key *k, int v, uint64_t n, int acc, uint64_t *shared)
{
    const uint64_t pts = s->piece_bytes / pl_point_bytes(v);
    const slot_h_loan *l = s->h_loan;
    size_t e = 0, sh = 0;
    if (v != PL_H || !l || !l->mem || acc != MSM_ACC_XYZZ || !pts) return 0;
    if (msm_gpu_lent_config(pl_curve(v), n, pts, k->msm_waves, l->bytes, &e, &sh) ||
        (e <= s->ctx_entries && sh <= *shared) || msm_gpu_ctx_lend(s->ctx, l->mem, l->bytes, e)) {
        err_clear(); /* nothing better fits, or the memory is not a loan's: no error of the MSM's */
        return 0;
    }
    *shared = sh;
    return 1;
}

/* msm_pieces_run, on a loan where lend_for_h takes one: ended on every path (the MSM's sum is
 * collected, or its error set, by then; ending it waits for the stream). */
static int msm_pieces(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int v, const void *d_scalars,
                      uint64_t n, int form, int next, int acc, void *out)
{
    uint64_t shared = k->msm_shared_bytes;
    const int lent = lend_for_h(s, k, v, n, acc, &shared);
    int rc = msm_pieces_run(s, k, kd, v, d_scalars, n, form, next, shared, out);
    if (lent) {
        const int end = msm_gpu_ctx_lend(s->ctx, NULL, 0, 0);
        rc = rc ? rc : end;
    }
    return rc;
}

int slot_msm(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, int v, int st, const void *d_scalars,
             uint64_t n, int form, int next, const uint32_t *counts, void *out, size_t out_size)
{
    if (!n || !k->n[v]) {
        memset(out, 0, out_size); /* infinity */
        return CUZK_OK;
    }
    int rc;
    if ((rc = slot_yield(s, ordinal)) || (rc = slot_stage_begin(s, st, s->stream))) return rc;
    msm_gpu_ctx_set_waves(s->ctx, k->msm_waves); /* the key's scratch was budgeted with them */
    /* and with this accumulation (switching away from pairwise frees its scratch), G2 at half
     * the entries where its pairwise scratch was counted so (cuda_g2_half) */
    const int acc = s->urgent_own ? cuda_acc_plain() : kd->msm_acc;
    msm_gpu_ctx_set_g2_half(s->ctx, cuda_g2_half(acc));
    rc = msm_gpu_ctx_set_acc_kind(s->ctx, acc);
    if (rc == CUZK_OK) {
        if (FAULT_HIT(FAULT_CUDA_MSM)) rc = err_set(CUZK_EDEVICE, "injected fault: CUDA MSM");
        else if (kd->pl.ws == PL_FULL && counts) {
            msm_gpu_ctx_set_counts(s->ctx, counts[0], counts[1]);
            rc = msm_gpu_run_deferred(s->ctx, kd->whole[v], 0, d_scalars, n, form, out);
        } else if (kd->pl.ws == PL_FULL)
            rc = msm_gpu_run(s->ctx, kd->whole[v], 0, d_scalars, n, form, MSM_SCALARS_DEVICE, out);
        else rc = msm_pieces(s, k, kd, v, d_scalars, n, form, next, acc, out);
    }
    if (rc) {
        char what[64];
        snprintf(what, sizeof what, "MSM of %llu points", (unsigned long long)n);
        return slot_fail(ordinal, what);
    }
    return slot_stage_end(s, st, s->stream, n * 32);
}

int slot_msm_collect(cuda_slot *s, int ordinal)
{
    return msm_gpu_ctx_collect(s->ctx) ? slot_fail(ordinal, "collecting the MSMs' sums") : CUZK_OK;
}

/* ---- reporting ---- */

static const int32_t stage_kind[ST_N] = {CUZK_TRACE_H_STEP, CUZK_TRACE_H2D_COPY, CUZK_TRACE_MSM_H,
                                         CUZK_TRACE_MSM_L, CUZK_TRACE_MSM_A, CUZK_TRACE_MSM_B_G1,
                                         CUZK_TRACE_MSM_B_G2, CUZK_TRACE_CS_EVAL, CUZK_TRACE_CS_EVAL,
                                         CUZK_TRACE_CS_EVAL};

/* ev_ref was recorded on an idle stream and seen complete at t_ref, so an event e happened at
 * t_ref + (e - ev_ref) on the host clock. */
void slot_report(cuda_slot *s, cuda_dev *d, backend_job *job, uint64_t t_ref)
{
    float first = -1, last = 0;
    for (int st = 0; st < ST_N; st++) {
        float b, e;
        if (!s->stage_used[st] || gpu_event_elapsed_ms(&b, s->ev_ref, s->ev[2 * st]) ||
            gpu_event_elapsed_ms(&e, s->ev_ref, s->ev[2 * st + 1]))
            continue;
        if (first < 0 || b < first) first = b;
        if (e > last) last = e;
        bjob_trace(job, stage_kind[st], t_ref + (uint64_t)((double)b * 1e6), t_ref + (uint64_t)((double)e * 1e6),
                   s->stage_bytes[st]);
    }
    if (first >= 0) job->device_ns = (uint64_t)((double)(last - first) * 1e6);
    /* a streamed constraint system's pieces: one copy event over the evaluations (they are
     * copied on the compute stream, between its kernels), bytes = the pieces' */
    float cb, ce;
    if (s->cs_h2d && s->stage_used[ST_CS_A] && s->stage_used[ST_CS_C] &&
        !gpu_event_elapsed_ms(&cb, s->ev_ref, s->ev[2 * ST_CS_A]) &&
        !gpu_event_elapsed_ms(&ce, s->ev_ref, s->ev[2 * ST_CS_C + 1]))
        bjob_trace(job, CUZK_TRACE_H2D_COPY, t_ref + (uint64_t)((double)cb * 1e6), t_ref + (uint64_t)((double)ce * 1e6),
                   s->cs_h2d);
    /* the bases' copies: one event each (H2D_COPY, bytes = the piece's), busy time summed */
    uint64_t busy = 0;
    uint32_t timed = s->ncopy < CUDA_COPY_EVENTS ? s->ncopy : CUDA_COPY_EVENTS;
    for (uint32_t i = 0; i < timed; i++) {
        float b, e;
        if (gpu_event_elapsed_ms(&b, s->ev_ref, s->ev_copy[2 * i]) ||
            gpu_event_elapsed_ms(&e, s->ev_ref, s->ev_copy[2 * i + 1]))
            continue;
        if (b < 0) continue; /* a speculative copy made for the previous partition */
        uint64_t tb = t_ref + (uint64_t)((double)b * 1e6), te = t_ref + (uint64_t)((double)e * 1e6);
        busy += te - tb;
        bjob_trace(job, CUZK_TRACE_H2D_COPY, tb, te, s->copy_len[i]);
    }
    atomic_fetch_add_explicit(&d->h2d_bytes, s->copy_bytes + s->cs_h2d, memory_order_relaxed); /* statistics */
    atomic_fetch_add_explicit(&d->copy_busy_ns, busy, memory_order_relaxed);
}
#endif
