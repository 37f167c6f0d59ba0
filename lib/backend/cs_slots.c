/*
 * The constraint systems' part of a device's worker slots (cs_slots.h): a maximum over the
 * systems loaded, so that what one system grew the slots by comes back when it goes.
 */
#include "backend/cs_slots.h"

#include "cuzk/cuzk.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

cs_need cs_need_max(cs_need a, cs_need b) { return (cs_need){max64(a.wit, b.wit), max64(a.pieces, b.pieces)}; }

uint64_t cs_need_extra(cs_need n, int lean) { return (lean ? n.wit : 0) + n.pieces; }

static uint64_t bytes_with(const cs_slots *s, cs_need kept)
{
    uint64_t b = 0;
    for (int l = 0; l < 2; l++)
        if (s->keys[l]) b = max64(b, s->keys[l] + cs_need_extra(kept, l));
    return b;
}

uint64_t cs_slots_bytes(const cs_slots *s) { return bytes_with(s, s->kept); }

void cs_slots_key(cs_slots *s, int lean, uint64_t slot_bytes)
{
    /* at least what the placement gave the slots less the systems' part now: a lower bound
     * of the key's own need that keeps cs_slots_bytes at slot_bytes or above (1: a key) */
    const uint64_t extra = cs_need_extra(s->kept, lean != 0), own = slot_bytes > extra ? slot_bytes - extra : 0;
    s->keys[lean != 0] = max64(s->keys[lean != 0], max64(own, 1));
}

int cs_slots_lean_fits(const cs_slots *s, cs_need kept, uint64_t own)
{
    return own + cs_need_extra(kept, 1) <= bytes_with(s, kept);
}

int cs_slots_choose(const cs_slots *s, uint32_t nslots, uint64_t avail, uint64_t wit, uint64_t piece, uint64_t res,
                    uint64_t table, int stream, int *resident, cs_need *need, uint64_t *grow, uint64_t *own)
{
    const uint64_t now = bytes_with(s, s->kept);
    const cs_need as_res = {wit, 0}, as_str = {wit, 2 * piece};
    const uint64_t grow_res = bytes_with(s, cs_need_max(s->kept, as_res)) - now;
    const uint64_t grow_str = bytes_with(s, cs_need_max(s->kept, as_str)) - now;
    /* the slots' growth counts once per slot; overflow-free: both sides stay far below 2^64 */
    if (!stream && res <= avail && (uint64_t)nslots * grow_res <= avail - res) {
        *resident = 1, *need = as_res, *grow = grow_res, *own = res;
        return CUZK_OK;
    }
    *resident = 0, *need = as_str, *grow = grow_str, *own = table;
    return table <= avail && (uint64_t)nslots * grow_str <= avail - table ? CUZK_OK : CUZK_EBUDGET;
}

void cs_slots_commit(cs_slots *s, cs_need need) { s->kept = cs_need_max(s->kept, need); }

void cs_slots_settle(cs_slots *s, const cs_need *each, uint32_t n)
{
    cs_need kept = {0, 0};
    for (uint32_t i = 0; i < n; i++) kept = cs_need_max(kept, each[i]);
    s->kept = kept;
}

uint64_t cs_urgent_after_trim(uint64_t committed, uint64_t key_bytes, uint64_t wit_held, uint64_t piece_held)
{
    const uint64_t keep = key_bytes + wit_held + 2 * piece_held;
    return committed < keep ? committed : keep;
}
