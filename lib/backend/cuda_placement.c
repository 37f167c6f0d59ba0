/*
 * The placement policy of cuda_placement.h: the fastest arrangement that fits, in this
 * order — everything resident with two full slots, with one full slot, with one lean slot;
 * then one lean slot with stream buffers (two where the caller asks and both fit:
 * cuda_lean_slots_auto, CUZK_LEAN_SLOTS) and as many bases
 * resident as the rest holds.
 */
#include "backend/cuda_placement.h"

#include <string.h>

#include "cuzk/cuzk.h"

const char *placement_kind_name(int32_t kind)
{
    return kind == PL_RESIDENT ? "resident" : kind == PL_PARTIAL ? "partial" : "streamed";
}

static uint64_t key_bytes(const pl_input *in)
{
    uint64_t t = 0;
    for (int v = 0; v < PL_N; v++) t += in->base_bytes[v];
    return t;
}

/* Everything resident. */
static void all_resident(const pl_input *in, pl_result *out)
{
    for (int v = 0; v < PL_N; v++) out->resident[v] = in->base_bytes[v];
    out->resident_total = key_bytes(in);
    out->kind = PL_RESIDENT;
}

/* Fills `room` bytes with resident prefixes, vectors in the enum's order, whole pieces. */
static void fill_resident(const pl_input *in, uint64_t room, pl_result *out)
{
    uint64_t total = 0, all = key_bytes(in);
    for (int v = 0; v < PL_N; v++) {
        uint64_t want = in->base_bytes[v], take = want <= room ? want : room;
        if (take < want && in->piece_bytes) take -= take % in->piece_bytes;
        out->resident[v] = take;
        room -= take;
        total += take;
    }
    out->resident_total = total;
    out->kind = total == all ? PL_RESIDENT : total ? PL_PARTIAL : PL_STREAMED;
}

int placement_decide(const pl_input *in, pl_result *out)
{
    memset(out, 0, sizeof *out);
    const uint64_t keyb = key_bytes(in), avail = in->avail > in->keep ? in->avail - in->keep : 0;
    const uint64_t lean_streamed = in->ws_lean + in->stream_bufs;
    if (in->slot_bytes) { /* slots exist (an earlier key): fit the key around them, growing
                             * them when this key needs more and the budget has it */
        const uint64_t n = in->max_slots ? in->max_slots : 1; /* callers pass the slot count */
        uint64_t grow_full = in->ws_full > in->slot_bytes ? n * (in->ws_full - in->slot_bytes) : 0;
        uint64_t grow_lean = in->ws_lean > in->slot_bytes ? n * (in->ws_lean - in->slot_bytes) : 0;
        uint64_t grow_str = lean_streamed > in->slot_bytes ? n * (lean_streamed - in->slot_bytes) : 0;
        if (keyb <= avail && grow_full <= avail - keyb) {
            out->ws = PL_FULL;
            out->slot_bytes = in->ws_full > in->slot_bytes ? in->ws_full : in->slot_bytes;
            all_resident(in, out);
            return CUZK_OK;
        }
        out->ws = PL_LEAN;
        if (keyb <= avail && grow_lean <= avail - keyb) {
            out->slot_bytes = in->ws_lean > in->slot_bytes ? in->ws_lean : in->slot_bytes;
            all_resident(in, out);
            return CUZK_OK;
        }
        if (grow_str > avail) {
            out->need = grow_str; /* every slot grows to a streaming one */
            return CUZK_EBUDGET;
        }
        out->slot_bytes = lean_streamed > in->slot_bytes ? lean_streamed : in->slot_bytes;
        fill_resident(in, avail - grow_str, out);
        return CUZK_OK;
    }
    uint32_t two = in->max_slots >= 2 ? 2 : 1;
    if (keyb <= avail && in->ws_full <= (avail - keyb) / two) {
        out->ws = PL_FULL, out->slots = two, out->slot_bytes = in->ws_full;
        all_resident(in, out);
        return CUZK_OK;
    }
    if (two == 2 && keyb <= avail && in->ws_full <= avail - keyb) {
        out->ws = PL_FULL, out->slots = 1, out->slot_bytes = in->ws_full;
        all_resident(in, out);
        return CUZK_OK;
    }
    if (keyb <= avail && in->ws_lean <= avail - keyb) {
        out->ws = PL_LEAN, out->slots = 1, out->slot_bytes = in->ws_lean;
        all_resident(in, out);
        return CUZK_OK;
    }
    if (lean_streamed > avail) {
        out->need = lean_streamed;
        return CUZK_EBUDGET;
    }
    /* two streaming slots where asked and they fit (bases resident in what they leave): two
     * partitions overlap as in the resident layout, at the cost of resident bases */
    const uint32_t lean = two == 2 && in->lean_slots >= 2 && lean_streamed <= avail / 2 ? 2 : 1;
    out->ws = PL_LEAN, out->slots = lean, out->slot_bytes = lean_streamed;
    fill_resident(in, avail - lean * lean_streamed, out);
    return CUZK_OK;
}

int placement_decide_urgent(pl_input *in, uint64_t room, pl_result *out)
{
    in->keep = 0;
    int rc = placement_decide(in, out);
    if (rc != CUZK_OK || !room) return rc;
    pl_result with;
    in->keep = room;
    /* the slot size too: a lean slot that would gain stream buffers is not "only bases" */
    if (placement_decide(in, &with) == CUZK_OK && with.ws == out->ws && with.slots == out->slots &&
        with.slot_bytes == out->slot_bytes)
        *out = with;
    else in->keep = 0;
    return CUZK_OK;
}

void placement_copies(const pl_input *in, uint64_t room, uint32_t max_copies, pl_result *out)
{
    memset(out->copies, 0, sizeof out->copies);
    out->copies_bytes = 0;
    if (out->kind != PL_RESIDENT || max_copies < 2) return;
    /* what the slots take of avail: all of them when this key creates them, else their growth */
    const uint64_t n = in->max_slots ? in->max_slots : 1;
    uint64_t slots = in->slot_bytes ? (out->slot_bytes > in->slot_bytes ? n * (out->slot_bytes - in->slot_bytes) : 0)
                                    : (uint64_t)out->slots * out->slot_bytes;
    uint64_t kept = in->keep > room ? in->keep : room, used = out->resident_total + slots + kept;
    uint64_t left = in->avail > used ? in->avail - used : 0, per = in->base_bytes[PL_H];
    if (!per) return;
    uint32_t t = 1;
    while (t < max_copies && per <= left) {
        left -= per;
        t++;
    }
    if (t < 2) return;
    out->copies[PL_H] = t;
    out->copies_bytes = (uint64_t)(t - 1) * per;
}

/* Accepted: a placement, and resident when asked. */
static int placement_ok(pl_input *in, uint64_t room, int must_be_resident, pl_result *out)
{
    return placement_decide_urgent(in, room, out) == CUZK_OK && (!must_be_resident || out->kind == PL_RESIDENT);
}

/* Whether freeing `freed` bytes of victims' bases is enough (more freed never makes it less so). */
typedef int (*evict_enough_fn)(void *ctx, uint64_t freed);

static uint64_t evicted(const pl_victim *victims, const pl_eviction *ev, uint32_t n)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < n; i++) t += victims[ev[i].victim].resident[ev[i].vector];
    return t;
}

/* Drops from an accepted eviction list what it does not need: the greedy order takes a whole
 * least recently used key before the next one's first vector, which may do alone (a small key
 * used last week, then a large one's H). Tried from the last taken (the dearest) back, so what
 * stays is what the order prefers; one pass leaves each needed, as more freed never refuses
 * what less accepted. */
static uint32_t evictions_prune(const pl_victim *victims, pl_eviction *ev, uint32_t n, evict_enough_fn enough,
                                void *ctx)
{
    uint64_t freed = evicted(victims, ev, n);
    for (uint32_t i = n; i-- > 0;) {
        const uint64_t bytes = victims[ev[i].victim].resident[ev[i].vector];
        if (enough(ctx, freed - bytes)) {
            memmove(&ev[i], &ev[i + 1], (n - i - 1) * sizeof *ev);
            n--;
            freed -= bytes;
        }
    }
    return n;
}

/* The eviction order of cuda_placement.h: victims least recently used first, each one's
 * vectors cheapest to stream first, until enough; then pruned. CUZK_OK with *n_out evictions
 * (0 where nothing is needed), CUZK_EBUDGET with none where even every evictable vector is not
 * enough. */
static int evictions_choose(const pl_victim *victims, uint32_t n_victims, evict_enough_fn enough, void *ctx,
                            pl_eviction *out_ev, uint32_t *n_out)
{
    static const int32_t order[PL_N] = {PL_H, PL_L, PL_A, PL_B_G2, PL_B_G1}; /* cheapest to stream first */
    *n_out = 0;
    if (n_victims > PL_MAX_VICTIMS) n_victims = PL_MAX_VICTIMS;
    if (enough(ctx, 0)) return CUZK_OK;
    uint8_t taken[PL_MAX_VICTIMS] = {0};
    uint64_t freed = 0;
    uint32_t n = 0;
    for (;;) {
        /* the least recently used evictable victim with resident bytes left */
        uint32_t best = n_victims;
        for (uint32_t i = 0; i < n_victims; i++) {
            if (!victims[i].evictable || taken[i]) continue;
            uint64_t left = 0;
            for (int v = 0; v < PL_N; v++) left += victims[i].resident[v];
            if (!left) continue;
            if (best == n_victims || victims[i].last_used < victims[best].last_used) best = i;
        }
        if (best == n_victims) return CUZK_EBUDGET;
        taken[best] = 1;
        for (int j = 0; j < PL_N; j++) {
            int32_t v = order[j];
            if (!victims[best].resident[v]) continue;
            out_ev[n].victim = best, out_ev[n].vector = v;
            n++;
            freed += victims[best].resident[v];
            if (enough(ctx, freed)) {
                *n_out = evictions_prune(victims, out_ev, n, enough, ctx);
                return CUZK_OK;
            }
        }
    }
}

typedef struct key_enough {
    pl_input *in;
    uint64_t avail0, room;
    int must_be_resident;
    pl_result *out;
} key_enough;

static int key_fits(void *ctx, uint64_t freed)
{
    key_enough *k = ctx;
    k->in->avail = k->avail0 + freed;
    return placement_ok(k->in, k->room, k->must_be_resident, k->out);
}

int placement_with_evictions(pl_input *in, uint64_t room, int must_be_resident, const pl_victim *victims,
                             uint32_t n_victims, pl_eviction *out_ev, uint32_t *n_out, pl_result *out)
{
    const uint64_t avail0 = in->avail;
    key_enough k = {in, avail0, room, must_be_resident, out};
    if (n_victims > PL_MAX_VICTIMS) n_victims = PL_MAX_VICTIMS;
    if (evictions_choose(victims, n_victims, key_fits, &k, out_ev, n_out) == CUZK_OK) {
        /* the placement of what stays (in->keep too) */
        key_fits(&k, evicted(victims, out_ev, *n_out));
        return CUZK_OK;
    }
    in->avail = avail0; /* not even all of it: evict nothing */
    placement_decide_urgent(in, room, out);
    return CUZK_EBUDGET;
}

static int bytes_enough(void *ctx, uint64_t freed) { return freed >= *(const uint64_t *)ctx; }

int placement_evict_bytes(const pl_victim *victims, uint32_t n_victims, uint64_t deficit, pl_eviction *out_ev,
                          uint32_t *n_out)
{
    return evictions_choose(victims, n_victims, bytes_enough, &deficit, out_ev, n_out);
}

int placement_with_rooms(pl_input *in, uint64_t base_room, uint64_t own_room, int must_be_resident,
                         const pl_victim *victims, uint32_t n_victims, pl_eviction *out_ev, uint32_t *n_out,
                         pl_result *out, uint64_t *room)
{
    const uint64_t avail = in->avail; /* evictions grow it */
    *room = base_room + own_room;
    int rc = placement_with_evictions(in, *room, must_be_resident, victims, n_victims, out_ev, n_out, out);
    if (rc == CUZK_OK && own_room && !in->keep) {
        in->avail = avail;
        *room = base_room;
        rc = placement_with_evictions(in, *room, must_be_resident, victims, n_victims, out_ev, n_out, out);
    }
    return rc;
}

int placement_plan(pl_device *devs, uint32_t ndev, int must_be_resident, uint32_t *failed)
{
    *failed = ndev;
    for (uint32_t i = 0; i < ndev; i++) {
        pl_device *d = &devs[i];
        int rc = placement_with_rooms(&d->in, d->base_room, d->own_room, must_be_resident, d->victims, d->n_victims,
                                      d->ev, &d->n_ev, &d->out, &d->room);
        if (rc == CUZK_OK) continue;
        *failed = i;
        for (uint32_t j = 0; j < ndev; j++) { /* a later device refuses: evict nowhere */
            for (uint32_t e = 0; j < i && e < devs[j].n_ev; e++)
                devs[j].in.avail -= devs[j].victims[devs[j].ev[e].victim].resident[devs[j].ev[e].vector];
            devs[j].n_ev = 0;
        }
        return rc;
    }
    return CUZK_OK;
}

int placement_plan_streams(const pl_device *devs, uint32_t ndev)
{
    for (uint32_t i = 0; i < ndev; i++)
        if (devs[i].out.kind != PL_RESIDENT) return 1;
    return 0;
}

int placement_same_layout(const pl_result *a, const pl_result *b)
{
    return a->ws == b->ws && a->kind == b->kind && a->slots == b->slots &&
           !memcmp(a->resident, b->resident, sizeof a->resident);
}

static int same_shape(const pl_device *a, const pl_device *b)
{
    return placement_same_layout(&a->out, &b->out) && a->n_ev == b->n_ev && a->room == b->room &&
           a->in.keep == b->in.keep;
}

static uint64_t copies_bytes(const pl_device *d, uint32_t max_copies)
{
    pl_result r = d->out;
    placement_copies(&d->in, d->room, max_copies, &r);
    return r.copies_bytes;
}

int placement_wider_keeps(const pl_device *base, const pl_device *rich, const pl_device *plain, uint32_t ndev,
                          uint32_t max_copies)
{
    for (uint32_t d = 0; d < ndev; d++) {
        if (base[d].out.ws != PL_FULL || base[d].out.kind != PL_RESIDENT || base[d].n_ev) return 0;
        if (!same_shape(&base[d], &rich[d])) return 0;
        if (copies_bytes(&rich[d], max_copies) < copies_bytes(&plain[d], max_copies)) return 0;
    }
    return 1;
}

uint64_t placement_choose_entries(pl_plan_at plan, void *ctx, const pl_device *base, uint32_t ndev, uint64_t lo,
                                  uint64_t hi, uint32_t max_copies, pl_device *scratch)
{
    pl_device *rich = scratch, *plain = scratch + ndev;
    for (uint64_t e = hi; e > lo; e >>= 1)
        if (plan(ctx, e, 1, rich) == CUZK_OK && plan(ctx, e, 0, plain) == CUZK_OK &&
            placement_wider_keeps(base, rich, plain, ndev, max_copies))
            return e;
    return lo;
}
