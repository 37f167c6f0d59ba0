/*
 * The CUDA backend's placement policy (lib/backend/cuda_placement.c), with no GPU: a PoRep
 * 2^27 key (bases and working sets as the backend computes them, TARGETS.md) on the cards
 * storage providers run, from 141 GiB down to what cannot hold one streaming worker, plus
 * random inputs checked against the policy's invariants; and the evictions for a key being
 * loaded and for a constraint system's bytes (placement_evict_bytes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "backend/cuda_placement.h"
#include "cuzk/cuzk.h"
#include "support/testutil.h"

#define GiB ((uint64_t)1 << 30)
#define PIECE ((uint64_t)192 << 22)

/* PoRep 2^27: H 2^27 - 1 G1 points, L 130,169,893, A 129,779,... (a_aux 99.7 %), B 25.4 % of
 * aux in G1 and G2 (96 / 192 bytes a point). */
static pl_input porep(uint64_t avail, uint32_t workers)
{
    pl_input in;
    memset(&in, 0, sizeof in);
    uint64_t na = 130169893, n_a = 328 + (uint64_t)(na * 0.997), n_b = 328 + (uint64_t)(na * 0.254);
    in.base_bytes[PL_H] = (((uint64_t)1 << 27) - 1) * 96;
    in.base_bytes[PL_L] = na * 96;
    in.base_bytes[PL_A] = n_a * 96;
    in.base_bytes[PL_B_G1] = n_b * 96;
    in.base_bytes[PL_B_G2] = n_b * 192;
    in.piece_bytes = PIECE;
    uint64_t m = (uint64_t)1 << 27;
    in.ws_full = (3 * m + na + n_a + n_b + 1) * 32 + ((uint64_t)1 << 26) * 16 + m * 10 + ((uint64_t)128 << 20);
    in.ws_lean = 2 * m * 32 + ((uint64_t)1 << 25) * 16 + (PIECE / 96) * 10 + ((uint64_t)128 << 20);
    in.stream_bufs = 2 * PIECE;
    in.avail = avail;
    in.max_slots = workers;
    return in;
}

static uint64_t in_h_bytes(void) { return (((uint64_t)1 << 27) - 1) * 96; }

static uint64_t key_bytes(const pl_input *in)
{
    uint64_t t = 0;
    for (int v = 0; v < PL_N; v++) t += in->base_bytes[v];
    return t;
}

static uint64_t eff_avail(const pl_input *in) { return in->avail > in->keep ? in->avail - in->keep : 0; }

/* What must hold for any accepted placement. */
static void check_invariants(const pl_input *in, const pl_result *r)
{
    uint64_t total = 0;
    for (int v = 0; v < PL_N; v++) {
        assert_true(r->resident[v] <= in->base_bytes[v]);
        /* a partial vector keeps whole pieces */
        if (r->resident[v] < in->base_bytes[v] && in->piece_bytes) assert_int_equal(r->resident[v] % in->piece_bytes, 0);
        total += r->resident[v];
    }
    assert_int_equal(total, r->resident_total);
    uint64_t slots = in->slot_bytes ? in->max_slots : r->slots;
    uint64_t grown = in->slot_bytes && r->slot_bytes > in->slot_bytes ? slots * (r->slot_bytes - in->slot_bytes) : 0;
    const uint64_t avail = eff_avail(in); /* what keep leaves */
    if (!in->slot_bytes) assert_true(total + slots * r->slot_bytes <= avail);
    else assert_true(total + grown <= avail);
    /* the working set the slot runs is there */
    uint64_t need = r->ws == PL_FULL ? in->ws_full : in->ws_lean + (r->kind == PL_RESIDENT ? 0 : in->stream_bufs);
    assert_true(r->slot_bytes >= need);
    if (r->ws == PL_FULL) assert_int_equal(r->kind, PL_RESIDENT);
    assert_int_equal(r->kind, total == key_bytes(in) ? PL_RESIDENT : total ? PL_PARTIAL : PL_STREAMED);
    /* greedy: what is left over could not hold another piece of any vector still streamed */
    uint64_t used = total + (in->slot_bytes ? grown : slots * r->slot_bytes), left = avail - used;
    for (int v = 0; v < PL_N; v++)
        if (r->resident[v] < in->base_bytes[v] && in->piece_bytes)
            assert_true(left < in->piece_bytes || left < in->base_bytes[v] - r->resident[v]);
}

static void show(const char *card, const pl_result *r)
{
    printf("%-26s %-8s %s x%u slot %.1f GiB, resident %.1f GiB (B_G1 %.1f B_G2 %.1f A %.1f L %.1f H %.1f)\n", card,
           placement_kind_name(r->kind), r->ws == PL_FULL ? "full" : "lean", r->slots, (double)r->slot_bytes / GiB,
           (double)r->resident_total / GiB, (double)r->resident[PL_B_G1] / GiB, (double)r->resident[PL_B_G2] / GiB,
           (double)r->resident[PL_A] / GiB, (double)r->resident[PL_L] / GiB, (double)r->resident[PL_H] / GiB);
}

static void test_porep_cards(void **state)
{
    (void)state;
    pl_result r;
    pl_input in;
    /* H200 141 GB: two full slots beside the resident key */
    in = porep(139 * GiB, 2);
    assert_int_equal(placement_decide(&in, &r), CUZK_OK);
    show("H200 (139 GiB), 2 workers", &r);
    check_invariants(&in, &r);
    assert_int_equal(r.kind, PL_RESIDENT);
    assert_int_equal(r.ws, PL_FULL);
    assert_int_equal(r.slots, 2);
    /* 80 GB: resident, one full slot */
    in = porep(79 * GiB, 2);
    assert_int_equal(placement_decide(&in, &r), CUZK_OK);
    show("A100/H100 80 GB", &r);
    check_invariants(&in, &r);
    assert_int_equal(r.kind, PL_RESIDENT);
    assert_int_equal(r.slots, 1);
    /* 64 GiB: resident, lean */
    in = porep(62 * GiB, 2);
    assert_int_equal(placement_decide(&in, &r), CUZK_OK);
    show("64 GiB", &r);
    check_invariants(&in, &r);
    assert_int_equal(r.kind, PL_RESIDENT);
    assert_int_equal(r.ws, PL_LEAN);
    /* 48, 32, 24 GiB: partial, B first */
    static const struct { const char *name; uint64_t gib; } cards[] = {
        {"L40 / A6000 48 GB", 47}, {"RTX 5090 32 GB", 31}, {"RTX 4090 24 GB", 23}};
    for (int i = 0; i < 3; i++) {
        in = porep(cards[i].gib * GiB, 2);
        assert_int_equal(placement_decide(&in, &r), CUZK_OK);
        show(cards[i].name, &r);
        check_invariants(&in, &r);
        assert_int_equal(r.kind, PL_PARTIAL);
        assert_int_equal(r.ws, PL_LEAN);
        assert_int_equal(r.slots, 1);
        assert_int_equal(r.resident[PL_B_G1], in.base_bytes[PL_B_G1]); /* cheapest to keep, costliest to stream */
        if (cards[i].gib < 40) assert_int_equal(r.resident[PL_H], 0); /* streams behind its own arithmetic */
    }
    /* 16 GB: one lean slot with stream buffers fits; B_G1 partly resident */
    in = porep(15 * GiB, 1);
    assert_int_equal(placement_decide(&in, &r), CUZK_OK);
    show("RTX 5070 Ti 16 GB", &r);
    check_invariants(&in, &r);
    assert_int_equal(r.ws, PL_LEAN);
    assert_true(r.slot_bytes < 12 * GiB);
    /* 8 GiB: not even one streaming worker */
    in = porep(8 * GiB, 1);
    assert_int_equal(placement_decide(&in, &r), CUZK_EBUDGET);
    assert_int_equal(r.need, in.ws_lean + in.stream_bufs);
    printf("8 GiB: CUZK_EBUDGET, needs %.2f GiB\n", (double)r.need / GiB);
}

/* CUZK_LEAN_SLOTS=2 (lean_slots): a key that streams takes two streaming slots where both
 * fit, its resident prefixes in what they leave, else one as before; never where it would be
 * resident, never with one worker. */
static void test_two_lean_slots(void **state)
{
    (void)state;
    pl_result one, two;
    for (uint64_t gib = 16; gib <= 48; gib += 8) {
        pl_input in = porep(gib * GiB - GiB / 2, 2);
        assert_int_equal(placement_decide(&in, &one), CUZK_OK);
        in.lean_slots = 2;
        assert_int_equal(placement_decide(&in, &two), CUZK_OK);
        check_invariants(&in, &two);
        char card[40];
        snprintf(card, sizeof card, "%llu GiB, two lean slots", (unsigned long long)gib);
        show(card, &two);
        const uint64_t lean_streamed = in.ws_lean + in.stream_bufs;
        assert_int_equal(one.slots, 1);
        assert_int_equal(two.ws, PL_LEAN);
        assert_int_equal(two.slot_bytes, lean_streamed);
        if (2 * lean_streamed <= in.avail) {
            assert_int_equal(two.slots, 2);
            assert_true(two.resident_total + 2 * lean_streamed <= in.avail);
            assert_true(two.resident_total + in.piece_bytes >= one.resident_total - lean_streamed);
        } else {
            assert_int_equal(two.slots, 1);
            assert_memory_equal(two.resident, one.resident, sizeof one.resident);
        }
    }
    /* a card that holds only one streaming slot, and one worker: one */
    pl_input in = porep(15 * GiB, 2);
    in.lean_slots = 2;
    assert_int_equal(placement_decide(&in, &two), CUZK_OK);
    assert_int_equal(two.slots, 1);
    in = porep(31 * GiB, 1);
    in.lean_slots = 2;
    assert_int_equal(placement_decide(&in, &two), CUZK_OK);
    assert_int_equal(two.slots, 1);
    /* resident layouts are not the knob's: the H200's two full slots stay */
    in = porep(139 * GiB, 2);
    in.lean_slots = 2;
    assert_int_equal(placement_decide(&in, &two), CUZK_OK);
    assert_int_equal(two.ws, PL_FULL);
    assert_int_equal(two.kind, PL_RESIDENT);
}

/* A second key on a device whose slots exist: it fits around them, growing them if it must. */
static void test_second_key(void **state)
{
    (void)state;
    pl_input in = porep(139 * GiB, 2);
    pl_result r;
    in.avail = 20 * GiB; /* the first key took the rest */
    in.slot_bytes = in.ws_lean + in.stream_bufs;
    assert_int_equal(placement_decide(&in, &r), CUZK_OK);
    check_invariants(&in, &r);
    assert_int_equal(r.slots, 0);
    assert_int_equal(r.kind, PL_PARTIAL);
    /* slots too small for this key, no room to grow them */
    in.slot_bytes = 1 * GiB;
    in.avail = 4 * GiB;
    assert_int_equal(placement_decide(&in, &r), CUZK_EBUDGET);
    assert_int_equal(r.need, in.max_slots * (in.ws_lean + in.stream_bufs - 1 * GiB)); /* every slot grows */
    /* ... with room: they grow */
    in.avail = 40 * GiB;
    assert_int_equal(placement_decide(&in, &r), CUZK_OK);
    check_invariants(&in, &r);
    assert_true(r.slot_bytes > 1 * GiB);
}

/* placement_decide_urgent against plain placement_decide (in accepted): the same layout, slot count and
 * slot size; with the room kept, bases only give way to it (whole pieces); else plain itself. */
static void check_urgent(const pl_input *in)
{
    const uint64_t room = test_rand64() % (1ull << 34);
    pl_input u = *in;
    pl_result r;
    assert_int_equal(placement_decide_urgent(&u, room, &r), CUZK_OK);
    assert_true(u.keep == room || u.keep == 0);
    pl_input none = *in;
    none.keep = 0;
    pl_result want;
    assert_int_equal(placement_decide(&none, &want), CUZK_OK); /* plain, keeping nothing */
    assert_int_equal(r.ws, want.ws);
    assert_int_equal(r.slots, want.slots);
    assert_int_equal(r.slot_bytes, want.slot_bytes);
    if (!u.keep) {
        assert_memory_equal(&r, &want, sizeof r);
        return;
    }
    check_invariants(&u, &r);
    assert_true(r.resident_total <= want.resident_total);
    assert_true(r.resident_total + room + in->piece_bytes >= want.resident_total);
}

/* Random shapes and budgets: every accepted placement keeps the invariants; a refusal means
 * even one streaming slot is too big; more memory never gives less residency. */
static void test_random(void **state)
{
    (void)state;
    for (int it = 0; it < 20000; it++) {
        pl_input in;
        memset(&in, 0, sizeof in);
        for (int v = 0; v < PL_N; v++) in.base_bytes[v] = test_rand64() % 4 ? (test_rand64() % (1ull << 34)) : 0;
        in.piece_bytes = 192 * (1 + test_rand64() % (1 << 20));
        in.ws_full = test_rand64() % (1ull << 35);
        in.ws_lean = test_rand64() % (in.ws_full + 1);
        in.stream_bufs = 2 * in.piece_bytes;
        in.avail = test_rand64() % (1ull << 37);
        in.max_slots = 1 + (uint32_t)(test_rand64() % 2);
        if (test_rand64() % 3 == 0) in.slot_bytes = 1 + test_rand64() % (1ull << 35);
        if (test_rand64() % 3 == 0) in.keep = test_rand64() % (1ull << 36);
        pl_result r, r2;
        int rc = placement_decide(&in, &r);
        if (rc == CUZK_EBUDGET) {
            uint64_t ls = in.ws_lean + in.stream_bufs;
            if (!in.slot_bytes) assert_true(ls > eff_avail(&in));
            else assert_true(ls > in.slot_bytes && in.max_slots * (ls - in.slot_bytes) > eff_avail(&in));
            continue;
        }
        assert_int_equal(rc, CUZK_OK);
        check_invariants(&in, &r);
        check_urgent(&in);
        if (!in.slot_bytes && r.ws == PL_LEAN && r.kind != PL_RESIDENT) {
            pl_input more = in;
            more.avail += test_rand64() % (1ull << 34);
            assert_int_equal(placement_decide(&more, &r2), CUZK_OK);
            assert_true(r2.resident_total >= r.resident_total || r2.ws == PL_FULL || r2.kind == PL_RESIDENT);
        }
    }
}

/* With urgent workers: 1 GiB kept free where only resident bases give way to it (the layout
 * and slot count as without); else nothing kept. */
static void test_urgent_room(void **state)
{
    (void)state;
    static const struct { const char *name; uint64_t gib; int kept; } cards[] = {
        {"H200 (139 GiB)", 139, 1}, {"80 GB", 79, 1}, {"64 GiB", 62, 1}, {"48 GB", 47, 1},
        {"32 GB", 31, 1},           {"24 GB", 23, 1}, {"16 GB", 15, 1}, {"11 GiB", 11, 0}};
    const uint64_t room = 1ull << 30;
    for (size_t i = 0; i < sizeof cards / sizeof cards[0]; i++) {
        pl_input in = porep(cards[i].gib * GiB, 2);
        pl_result r, plain;
        assert_int_equal(placement_decide_urgent(&in, room, &r), CUZK_OK);
        char label[64];
        snprintf(label, sizeof label, "%s + urgent room", cards[i].name);
        show(label, &r);
        check_invariants(&in, &r);
        assert_int_equal(in.keep, cards[i].kept ? room : 0);
        pl_input none = in;
        none.keep = 0;
        assert_int_equal(placement_decide(&none, &plain), CUZK_OK);
        assert_int_equal(r.ws, plain.ws);
        assert_int_equal(r.slots, plain.slots);
        assert_int_equal(r.slot_bytes, plain.slot_bytes);
        assert_true(r.resident_total <= plain.resident_total);
        assert_true(r.resident_total + room + in.piece_bytes >= plain.resident_total); /* whole pieces */
        if (!in.keep) assert_memory_equal(&r, &plain, sizeof r);
    }
    /* the room would cost the layout: a card where full x1 fits only without it */
    pl_input in = porep(0, 2);
    in.avail = key_bytes(&in) + in.ws_full + (room / 2);
    pl_result r;
    assert_int_equal(placement_decide_urgent(&in, room, &r), CUZK_OK);
    assert_int_equal(r.ws, PL_FULL);
    assert_int_equal(in.keep, 0);
}

/* placement_with_rooms (CUZK_SRS_URGENT): both rooms where the layout stays; WinningPoSt's alone
 * where both would change it (and the result is then what that room alone gives, from the
 * same avail); neither where even that one would. */
static void test_urgent_key_rooms(void **state)
{
    (void)state;
    const uint64_t base = 1ull << 30, own = 12 * GiB;
    pl_result r, want;
    pl_eviction ev[PL_MAX_VICTIMS * PL_N];
    uint32_t nev = 9;
    uint64_t room = 0;
    /* a WindowPoSt-like key after a PoRep key on an H200: slots exist, partial either way */
    pl_input in = porep(0, 2);
    in.slot_bytes = in.ws_full;
    in.avail = 36 * GiB;
    assert_int_equal(placement_with_rooms(&in, base, own, 0, NULL, 0, ev, &nev, &r, &room), CUZK_OK);
    check_invariants(&in, &r);
    assert_int_equal(nev, 0);
    assert_int_equal(room, base + own);
    assert_int_equal(in.keep, base + own);
    assert_true(r.resident_total <= 36 * GiB - base - own);
    /* a first key where full x2 fits beside 1 GiB but not beside 13: WinningPoSt's room alone */
    in = porep(0, 2);
    in.avail = key_bytes(&in) + 2 * in.ws_full + base + GiB / 2;
    assert_int_equal(placement_with_rooms(&in, base, own, 0, NULL, 0, ev, &nev, &r, &room), CUZK_OK);
    check_invariants(&in, &r);
    assert_int_equal(room, base);
    assert_int_equal(in.keep, base);
    assert_int_equal(r.ws, PL_FULL);
    assert_int_equal(r.slots, 2);
    pl_input alone = porep(0, 2);
    alone.avail = in.avail;
    assert_int_equal(placement_decide_urgent(&alone, base, &want), CUZK_OK);
    assert_memory_equal(&r, &want, sizeof r);
    /* no own room asked: the same as placement_with_evictions with WinningPoSt's */
    in = porep(60 * GiB, 2);
    assert_int_equal(placement_with_rooms(&in, base, 0, 0, NULL, 0, ev, &nev, &r, &room), CUZK_OK);
    assert_int_equal(room, base);
    /* even 1 GiB would change the layout: nothing kept, the plain placement */
    in = porep(0, 2);
    in.avail = key_bytes(&in) + in.ws_full + base / 2;
    assert_int_equal(placement_with_rooms(&in, base, own, 0, NULL, 0, ev, &nev, &r, &room), CUZK_OK);
    assert_int_equal(in.keep, 0);
    assert_int_equal(r.ws, PL_FULL);
}

/* placement_copies after an accepted placement: copies only when resident, each one H's
 * bytes, within what the slots, the resident bases and max(keep, room) leave; the placement
 * itself (layout, slots, residency) untouched. */
static void check_copies(const pl_input *in, uint64_t room, uint32_t max_copies, const pl_result *before)
{
    pl_result r = *before;
    placement_copies(in, room, max_copies, &r);
    pl_result same = r;
    memset(same.copies, 0, sizeof same.copies);
    same.copies_bytes = 0;
    assert_memory_equal(&same, before, sizeof same); /* nothing else moved */
    for (int v = 0; v < PL_N; v++)
        if (v != PL_H) assert_int_equal(r.copies[v], 0);
    const uint64_t n = in->max_slots ? in->max_slots : 1;
    uint64_t slots = in->slot_bytes ? (r.slot_bytes > in->slot_bytes ? n * (r.slot_bytes - in->slot_bytes) : 0)
                                    : (uint64_t)r.slots * r.slot_bytes;
    uint64_t kept = in->keep > room ? in->keep : room, used = r.resident_total + slots + kept;
    uint64_t left = in->avail > used ? in->avail - used : 0;
    if (r.copies[PL_H] == 0) {
        assert_int_equal(r.copies_bytes, 0);
        /* none although one more would have fitted: only when streaming, or not allowed */
        if (before->kind == PL_RESIDENT && max_copies >= 2 && in->base_bytes[PL_H])
            assert_true(in->base_bytes[PL_H] > left);
        return;
    }
    assert_int_equal(r.kind, PL_RESIDENT);
    assert_true(r.copies[PL_H] >= 2 && r.copies[PL_H] <= max_copies);
    assert_int_equal(r.copies_bytes, (uint64_t)(r.copies[PL_H] - 1) * in->base_bytes[PL_H]);
    assert_true(r.copies_bytes <= left); /* never the slots' or the urgent room's bytes */
    if (r.copies[PL_H] < max_copies) assert_true(left - r.copies_bytes < in->base_bytes[PL_H]); /* greedy */
}

static void test_copies(void **state)
{
    (void)state;
    const uint64_t room = 1ull << 30, H = in_h_bytes();
    pl_result r;
    /* H200, 2 workers: ~49 GiB left over: the default 2 copies, and up to 5 when asked */
    pl_input in = porep(139 * GiB, 2);
    assert_int_equal(placement_decide_urgent(&in, room, &r), CUZK_OK);
    pl_result c = r;
    placement_copies(&in, room, 2, &c);
    assert_int_equal(c.copies[PL_H], 2);
    assert_int_equal(c.copies_bytes, H);
    check_copies(&in, room, 2, &r);
    placement_copies(&in, room, 16, &c);
    printf("H200 (139 GiB), 2 workers: H copies %u (max 16), %.1f GiB\n", c.copies[PL_H], (double)c.copies_bytes / GiB);
    assert_int_equal(c.copies[PL_H], 4); /* 3 extra of 12 GiB in the ~48 GiB left */
    check_copies(&in, room, 16, &r);
    placement_copies(&in, room, 1, &c); /* CUZK_MSM_PRECOMPUTE=0/1 */
    assert_int_equal(c.copies[PL_H], 0);
    /* exactly one copy's bytes short, with and without the room: none */
    in = porep(0, 2);
    in.avail = key_bytes(&in) + 2 * in.ws_full + room + H - 1;
    assert_int_equal(placement_decide_urgent(&in, room, &r), CUZK_OK);
    assert_int_equal(r.slots, 2);
    c = r;
    placement_copies(&in, room, 2, &c);
    assert_int_equal(c.copies[PL_H], 0);
    in.keep = 0; /* without urgent workers the room is free: one copy */
    assert_int_equal(placement_decide(&in, &r), CUZK_OK);
    c = r;
    placement_copies(&in, 0, 2, &c);
    assert_int_equal(c.copies[PL_H], 2);
    check_copies(&in, 0, 2, &r);
    /* streamed or partial cards: never */
    in = porep(31 * GiB, 2);
    assert_int_equal(placement_decide(&in, &r), CUZK_OK);
    c = r;
    placement_copies(&in, 0, 16, &c);
    assert_int_equal(c.copies[PL_H], 0);
    /* a second key beside existing slots: only what their growth leaves */
    in = porep(0, 2);
    in.slot_bytes = in.ws_lean;
    in.avail = key_bytes(&in) + 2 * (in.ws_full - in.ws_lean) + H / 2;
    assert_int_equal(placement_decide(&in, &r), CUZK_OK);
    assert_int_equal(r.ws, PL_FULL);
    check_copies(&in, 0, 4, &r);
    c = r;
    placement_copies(&in, 0, 4, &c);
    assert_int_equal(c.copies[PL_H], 0);
    /* random budgets, rooms, slots */
    for (int it = 0; it < 5000; it++) {
        pl_input x = porep(test_rand64() % (200 * GiB), 1 + (uint32_t)(test_rand64() % 2));
        if (test_rand64() % 3 == 0) x.slot_bytes = 1 + test_rand64() % (1ull << 35);
        uint64_t rm = test_rand64() % 3 ? 0 : test_rand64() % (4 * GiB);
        if (placement_decide_urgent(&x, rm, &r) != CUZK_OK) continue;
        check_copies(&x, rm, 1 + (uint32_t)(test_rand64() % 8), &r);
    }
}

/* A WinningPoSt-sized key (2^19, ~184 MiB of bases) loaded after a resident PoRep key, around
 * the PoRep key's slots. */
static pl_input winning_after(uint64_t avail, uint64_t slot_bytes)
{
    pl_input in;
    memset(&in, 0, sizeof in);
    const uint64_t m = (uint64_t)1 << 19;
    in.base_bytes[PL_H] = (m - 1) * 96;
    in.base_bytes[PL_L] = m * 96 / 2;
    in.base_bytes[PL_A] = m * 96 / 2;
    in.base_bytes[PL_B_G1] = m * 96 / 4;
    in.base_bytes[PL_B_G2] = m * 192 / 4;
    in.piece_bytes = PIECE;
    in.ws_full = 3 * m * 32 + 2 * m * 32 + ((uint64_t)128 << 20);
    in.ws_lean = 2 * m * 32 + ((uint64_t)128 << 20);
    in.stream_bufs = 2 * PIECE;
    in.avail = avail;
    in.max_slots = 2;
    in.slot_bytes = slot_bytes;
    return in;
}

static uint64_t evicted_bytes(const pl_victim *vs, const pl_eviction *ev, uint32_t n)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < n; i++) t += vs[ev[i].victim].resident[ev[i].vector];
    return t;
}

/* A pinned key on a device the first key filled: the first key's H gives way (its cheapest
 * vector to stream), nothing more; a victim in use or pinned gives nothing; a plain load that
 * fits evicts nothing. */
static void test_evictions(void **state)
{
    (void)state;
    pl_input porep80 = porep(79 * GiB, 2);
    pl_result first;
    assert_int_equal(placement_decide(&porep80, &first), CUZK_OK);
    assert_int_equal(first.kind, PL_RESIDENT);
    const uint64_t used = first.resident_total + first.slots * first.slot_bytes;
    pl_victim vs[2];
    memset(vs, 0, sizeof vs);
    memcpy(vs[0].resident, first.resident, sizeof first.resident);
    vs[0].evictable = 1;
    vs[0].last_used = 5;
    pl_eviction ev[PL_MAX_VICTIMS * PL_N];
    uint32_t n = 99;
    pl_result r;
    /* too little left for the winning key resident beside the PoRep key */
    pl_input win = winning_after(79 * GiB - used, first.slot_bytes);
    pl_result plain;
    pl_input w0 = win;
    assert_int_equal(placement_decide(&w0, &plain), CUZK_OK);
    if (plain.kind == PL_RESIDENT) win.avail = key_bytes(&win) / 2; /* make it not fit */
    pl_input w = win;
    assert_int_equal(placement_with_evictions(&w, 0, 1, vs, 1, ev, &n, &r), CUZK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].victim, 0);
    assert_int_equal(ev[0].vector, PL_H);
    assert_int_equal(r.kind, PL_RESIDENT);
    assert_int_equal(w.avail, win.avail + first.resident[PL_H]);
    /* not pinned: it loads partial without evicting anything */
    w = win;
    assert_int_equal(placement_with_evictions(&w, 0, 0, vs, 1, ev, &n, &r), CUZK_OK);
    assert_int_equal(n, 0);
    assert_true(r.kind != PL_RESIDENT);
    /* the victim in use (or pinned): nothing to take */
    vs[0].evictable = 0;
    w = win;
    assert_int_equal(placement_with_evictions(&w, 0, 1, vs, 1, ev, &n, &r), CUZK_EBUDGET);
    assert_int_equal(n, 0);
    assert_int_equal(w.avail, win.avail);
    /* two victims: the least recently used gives way first */
    vs[0].evictable = 1;
    memcpy(vs[1].resident, first.resident, sizeof first.resident);
    vs[1].evictable = 1;
    vs[1].last_used = 3;
    w = win;
    assert_int_equal(placement_with_evictions(&w, 0, 1, vs, 2, ev, &n, &r), CUZK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].victim, 1);
    /* a victim without H gives its next vector, L */
    vs[1].resident[PL_H] = 0;
    w = win;
    assert_int_equal(placement_with_evictions(&w, 0, 1, vs, 2, ev, &n, &r), CUZK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].victim, 1);
    assert_int_equal(ev[0].vector, PL_L);
    /* the least recently used key is small (a WinningPoSt key, not pinned): all of it would
     * not do (it holds half as much as the new one), the next key's H alone does: the small
     * key keeps everything */
    pl_victim two[2];
    memset(two, 0, sizeof two);
    for (int v = 0; v < PL_N; v++) two[0].resident[v] = win.base_bytes[v] / 2;
    two[0].last_used = 1, two[0].evictable = 1;
    memcpy(two[1].resident, first.resident, sizeof first.resident);
    two[1].last_used = 2, two[1].evictable = 1;
    w = win;
    w.avail = 0; /* needs more than the small key holds */
    assert_int_equal(placement_with_evictions(&w, 0, 1, two, 2, ev, &n, &r), CUZK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].victim, 1);
    assert_int_equal(ev[0].vector, PL_H);
    assert_int_equal(w.avail, first.resident[PL_H]);
    assert_int_equal(r.kind, PL_RESIDENT);
    /* what the only idle key holds would not make it resident (though more of it would fit):
     * refused, nothing taken, the placement as without it (what check_pinned then names) */
    pl_victim tiny;
    memset(&tiny, 0, sizeof tiny);
    tiny.resident[PL_H] = 20 << 20, tiny.evictable = 1;
    w = win;
    w.avail = key_bytes(&win) / 2;
    pl_input alone = w, more = w;
    more.avail += tiny.resident[PL_H];
    assert_int_equal(placement_decide(&alone, &plain), CUZK_OK);
    assert_int_equal(placement_decide(&more, &r), CUZK_OK);
    assert_true(r.kind != PL_RESIDENT && r.resident_total > plain.resident_total);
    assert_int_equal(placement_with_evictions(&w, 0, 1, &tiny, 1, ev, &n, &r), CUZK_EBUDGET);
    assert_int_equal(n, 0);
    assert_int_equal(w.avail, alone.avail);
    assert_int_equal(r.resident_total, plain.resident_total);
}

static void same_placement(const pl_result *a, const pl_result *b)
{
    assert_int_equal(a->ws, b->ws);
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->slots, b->slots);
    assert_int_equal(a->slot_bytes, b->slot_bytes);
    assert_int_equal(a->resident_total, b->resident_total);
    for (int v = 0; v < PL_N; v++) assert_int_equal(a->resident[v], b->resident[v]);
}

/* Each eviction names an evictable victim's vector that holds bytes, and none twice. */
static void check_evictions_valid(const pl_victim *vs, uint32_t nv, const pl_eviction *ev, uint32_t n)
{
    uint8_t seen[PL_MAX_VICTIMS][PL_N] = {{0}};
    for (uint32_t i = 0; i < n; i++) {
        assert_true(ev[i].victim < nv && nv <= PL_MAX_VICTIMS);
        assert_true(vs[ev[i].victim].evictable);
        assert_true(vs[ev[i].victim].resident[ev[i].vector] > 0);
        assert_false(seen[ev[i].victim][ev[i].vector]);
        seen[ev[i].victim][ev[i].vector] = 1;
    }
}

/* nv random victims (vectors resident or not, last use, evictable three times in four); the
 * bytes the evictable ones hold. */
static uint64_t random_victims(pl_victim *vs, uint32_t nv)
{
    uint64_t all = 0;
    for (uint32_t i = 0; i < nv; i++) {
        for (int v = 0; v < PL_N; v++) vs[i].resident[v] = test_rand64() % 3 ? test_rand64() % GiB : 0;
        vs[i].last_used = test_rand64() % 8;
        vs[i].evictable = test_rand64() % 4 != 0;
        if (vs[i].evictable)
            for (int v = 0; v < PL_N; v++) all += vs[i].resident[v];
    }
    return all;
}

/* Random victims: an accepted eviction list is minimal (without any one of its evictions it
 * does not suffice), takes only evictable resident vectors, each once; a refusal means even every
 * evictable byte would not do. */
static void test_evictions_random(void **state)
{
    (void)state;
    for (int it = 0; it < 5000; it++) {
        pl_input in = winning_after(test_rand64() % (2 * GiB), test_rand64() % 2 ? 0 : 1 + test_rand64() % (2 * GiB));
        const int must = (int)(test_rand64() % 2);
        const uint64_t room = test_rand64() % 2 ? GiB : 0;
        pl_victim vs[4];
        uint32_t nv = (uint32_t)(test_rand64() % 5), n;
        const uint64_t all = random_victims(vs, nv);
        pl_eviction ev[PL_MAX_VICTIMS * PL_N];
        pl_result r, check;
        pl_input w = in;
        int rc = placement_with_evictions(&w, room, must, vs, nv, ev, &n, &r);
        if (rc == CUZK_EBUDGET) {
            assert_int_equal(n, 0);
            pl_input as_passed = in; /* nothing taken: avail and *out as without victims */
            int rc0 = placement_decide_urgent(&as_passed, room, &check);
            assert_int_equal(w.avail, in.avail);
            if (rc0 == CUZK_OK) same_placement(&r, &check);
            else assert_int_equal(r.need, check.need);
            pl_input everything = in;
            everything.avail += all;
            assert_false(placement_decide_urgent(&everything, room, &check) == CUZK_OK &&
                         (!must || check.kind == PL_RESIDENT));
            continue;
        }
        assert_int_equal(rc, CUZK_OK);
        assert_int_equal(w.avail, in.avail + evicted_bytes(vs, ev, n));
        assert_true(!must || r.kind == PL_RESIDENT);
        pl_input freed = in; /* *out: the placement with what these evictions free */
        freed.avail = w.avail;
        assert_int_equal(placement_decide_urgent(&freed, room, &check), CUZK_OK);
        same_placement(&r, &check);
        assert_int_equal(w.keep, freed.keep);
        check_evictions_valid(vs, nv, ev, n);
        /* minimal: without any one of them it does not do (none needed: n = 0) */
        for (uint32_t skip = 0; skip < n; skip++) {
            pl_input less = in;
            less.avail += evicted_bytes(vs, ev, n) - vs[ev[skip].victim].resident[ev[skip].vector];
            assert_false(placement_decide_urgent(&less, room, &check) == CUZK_OK && (!must || check.kind == PL_RESIDENT));
        }
    }
}

/* A victim with the given resident bytes of H, L, A, B_G2, B_G1 (MiB). */
static pl_victim victim(uint64_t h, uint64_t l, uint64_t a, uint64_t b2, uint64_t b1, uint64_t last_used, int evictable)
{
    pl_victim v;
    memset(&v, 0, sizeof v);
    v.resident[PL_H] = h << 20, v.resident[PL_L] = l << 20, v.resident[PL_A] = a << 20;
    v.resident[PL_B_G2] = b2 << 20, v.resident[PL_B_G1] = b1 << 20;
    v.last_used = last_used, v.evictable = evictable;
    return v;
}

/* Bytes for a constraint system (placement_evict_bytes): nothing for no deficit; the least
 * recently used victim first, its vectors H, L, A, B_G2, B_G1; what is not needed given back
 * from the last taken back; pinned or busy victims skipped; not enough evicts nothing. */
static void test_evict_bytes(void **state)
{
    (void)state;
    const uint64_t M = (uint64_t)1 << 20;
    pl_eviction ev[PL_MAX_VICTIMS * PL_N];
    uint32_t n = 99;
    pl_victim vs[3] = {victim(100, 100, 100, 100, 100, 7, 1), victim(100, 100, 100, 100, 100, 3, 1)};
    /* no deficit: nothing, even with victims; none at all: nothing either */
    assert_int_equal(placement_evict_bytes(vs, 2, 0, ev, &n), CUZK_OK);
    assert_int_equal(n, 0);
    n = 99;
    assert_int_equal(placement_evict_bytes(NULL, 0, 0, ev, &n), CUZK_OK);
    assert_int_equal(n, 0);
    /* the least recently used (vs[1]) gives its H, which is enough */
    assert_int_equal(placement_evict_bytes(vs, 2, 1, ev, &n), CUZK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].victim, 1);
    assert_int_equal(ev[0].vector, PL_H);
    assert_int_equal(placement_evict_bytes(vs, 2, 100 * M, ev, &n), CUZK_OK);
    assert_int_equal(n, 1);
    /* more than its H: its vectors in order, then the next victim's */
    assert_int_equal(placement_evict_bytes(vs, 2, 100 * M + 1, ev, &n), CUZK_OK);
    assert_int_equal(n, 2);
    assert_int_equal(ev[0].victim, 1);
    assert_int_equal(ev[0].vector, PL_H);
    assert_int_equal(ev[1].victim, 1);
    assert_int_equal(ev[1].vector, PL_L);
    assert_int_equal(placement_evict_bytes(vs, 2, 450 * M, ev, &n), CUZK_OK);
    assert_int_equal(n, 5);
    static const int32_t order[PL_N] = {PL_H, PL_L, PL_A, PL_B_G2, PL_B_G1};
    for (int j = 0; j < PL_N; j++) {
        assert_int_equal(ev[j].victim, 1);
        assert_int_equal(ev[j].vector, order[j]);
    }
    assert_int_equal(placement_evict_bytes(vs, 2, 501 * M, ev, &n), CUZK_OK);
    assert_int_equal(n, 6);
    assert_int_equal(ev[5].victim, 0);
    assert_int_equal(ev[5].vector, PL_H);
    /* a vector it does not hold is skipped */
    vs[1].resident[PL_H] = 0;
    assert_int_equal(placement_evict_bytes(vs, 2, 1, ev, &n), CUZK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].victim, 1);
    assert_int_equal(ev[0].vector, PL_L);
    /* busy or pinned (not evictable): skipped, the next one gives */
    vs[1].evictable = 0;
    assert_int_equal(placement_evict_bytes(vs, 2, 1, ev, &n), CUZK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].victim, 0);
    assert_int_equal(ev[0].vector, PL_H);
    /* not enough in all that may give way: nothing evicted, though vs[1] holds enough */
    n = 99;
    assert_int_equal(placement_evict_bytes(vs, 2, 500 * M + 1, ev, &n), CUZK_EBUDGET);
    assert_int_equal(n, 0);
    vs[0].evictable = 0;
    n = 99;
    assert_int_equal(placement_evict_bytes(vs, 2, 1, ev, &n), CUZK_EBUDGET);
    assert_int_equal(n, 0);
    /* pruned: the idlest key is small (1 + 10 MiB), the next one's H (10 MiB) is taken after
     * all of it; of 15 MiB needed, the small key's H is not needed and given back */
    pl_victim pr[2] = {victim(1, 10, 0, 0, 0, 1, 1), victim(10, 50, 0, 0, 0, 2, 1)};
    assert_int_equal(placement_evict_bytes(pr, 2, 15 * M, ev, &n), CUZK_OK);
    assert_int_equal(n, 2);
    assert_int_equal(ev[0].victim, 0);
    assert_int_equal(ev[0].vector, PL_L);
    assert_int_equal(ev[1].victim, 1);
    assert_int_equal(ev[1].vector, PL_H);
    /* more than the small key holds, and the next one's H alone does (20 MiB): the small key
     * keeps everything */
    pr[1].resident[PL_H] = 20 * M;
    assert_int_equal(placement_evict_bytes(pr, 2, 12 * M, ev, &n), CUZK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].victim, 1);
    assert_int_equal(ev[0].vector, PL_H);
}

/* Random victims and deficits: a refusal exactly when every evictable byte is less than the
 * deficit (nothing evicted then); else evictable resident vectors, each once, whose bytes
 * reach it, and without any one of them would not (minimal). */
static void test_evict_bytes_random(void **state)
{
    (void)state;
    for (int it = 0; it < 20000; it++) {
        pl_victim vs[6];
        const uint32_t nv = (uint32_t)(test_rand64() % 7);
        const uint64_t all = random_victims(vs, nv);
        const uint64_t deficit = test_rand64() % 4 ? test_rand64() % (3 * GiB) : 0;
        pl_eviction ev[PL_MAX_VICTIMS * PL_N];
        uint32_t n = 99;
        int rc = placement_evict_bytes(vs, nv, deficit, ev, &n);
        if (all < deficit) {
            assert_int_equal(rc, CUZK_EBUDGET);
            assert_int_equal(n, 0);
            continue;
        }
        assert_int_equal(rc, CUZK_OK);
        check_evictions_valid(vs, nv, ev, n);
        const uint64_t freed = evicted_bytes(vs, ev, n);
        assert_true(freed >= deficit);
        if (!deficit) assert_int_equal(n, 0);
        for (uint32_t skip = 0; skip < n; skip++)
            assert_true(freed - vs[ev[skip].victim].resident[ev[skip].vector] < deficit);
        /* the order, from scratch: evictable victims by last use (ties: the first passed), each
         * one's vectors H, L, A, B_G2, B_G1; the evictions are taken from the shortest prefix
         * that reaches the deficit, in its order, and include its last (the one that reached it) */
        pl_eviction order[6 * PL_N];
        static const int32_t vec[PL_N] = {PL_H, PL_L, PL_A, PL_B_G2, PL_B_G1};
        uint32_t no = 0, prefix = 0;
        uint8_t used[6] = {0};
        for (uint32_t k = 0; k < nv; k++) {
            uint32_t best = nv;
            for (uint32_t i = 0; i < nv; i++)
                if (!used[i] && vs[i].evictable && (best == nv || vs[i].last_used < vs[best].last_used)) best = i;
            if (best == nv) break;
            used[best] = 1;
            for (int j = 0; j < PL_N; j++)
                if (vs[best].resident[vec[j]]) order[no].victim = best, order[no++].vector = vec[j];
        }
        for (uint64_t sum = 0; deficit && sum < deficit; prefix++)
            sum += vs[order[prefix].victim].resident[order[prefix].vector];
        uint32_t at = 0;
        for (uint32_t i = 0; i < n; i++) {
            while (at < prefix && (order[at].victim != ev[i].victim || order[at].vector != ev[i].vector)) at++;
            assert_true(at < prefix);
            at++;
        }
        if (prefix) {
            assert_true(n > 0);
            assert_int_equal(ev[n - 1].victim, order[prefix - 1].victim);
            assert_int_equal(ev[n - 1].vector, order[prefix - 1].vector);
        }
    }
}

/* placement_with_rooms against its definition, random cards, slots and victims: the avail it
 * leaves is the one passed plus what its evictions free; where it fell back to WinningPoSt's
 * room alone, both rooms would not have kept the layout and the result is that of the base
 * room alone from the same avail. */
static void test_urgent_key_rooms_random(void **state)
{
    (void)state;
    for (int it = 0; it < 3000; it++) {
        pl_input x = porep(test_rand64() % (140 * GiB), 1 + (uint32_t)(test_rand64() % 2));
        if (test_rand64() % 2) x.slot_bytes = x.ws_lean + x.stream_bufs + test_rand64() % (8 * GiB);
        pl_victim vs[3];
        const uint32_t nv = (uint32_t)(test_rand64() % 4);
        for (uint32_t j = 0; j < nv; j++) {
            for (int v = 0; v < PL_N; v++) vs[j].resident[v] = test_rand64() % (12 * GiB);
            vs[j].last_used = test_rand64();
            vs[j].evictable = test_rand64() % 4 != 0;
        }
        const uint64_t base = test_rand64() % 2 ? 1ull << 30 : 0, own = test_rand64() % (16 * GiB);
        const uint64_t avail0 = x.avail;
        pl_result r, w;
        pl_eviction ev[PL_MAX_VICTIMS * PL_N], ev2[PL_MAX_VICTIMS * PL_N];
        uint32_t nev = 0, nev2 = 0;
        uint64_t room = 0;
        int rc = placement_with_rooms(&x, base, own, 0, vs, nv, ev, &nev, &r, &room);
        if (rc != CUZK_OK) continue;
        assert_int_equal(x.avail, avail0 + evicted_bytes(vs, ev, nev));
        assert_true(room == base + own || (own && room == base));
        if (room == base + own) continue;
        pl_input both = porep(0, x.max_slots), one = both;
        both.slot_bytes = one.slot_bytes = x.slot_bytes;
        both.avail = one.avail = avail0;
        assert_int_equal(placement_with_evictions(&both, base + own, 0, vs, nv, ev2, &nev2, &w), CUZK_OK);
        assert_int_equal(both.keep, 0);
        assert_int_equal(placement_with_evictions(&one, base, 0, vs, nv, ev2, &nev2, &w), CUZK_OK);
        assert_memory_equal(&r, &w, sizeof r);
        assert_int_equal(nev2, nev);
    }
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_porep_cards),
        cmocka_unit_test(test_two_lean_slots),
        cmocka_unit_test(test_second_key),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_urgent_room),
        cmocka_unit_test(test_urgent_key_rooms),
        cmocka_unit_test(test_urgent_key_rooms_random),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_evictions),
        cmocka_unit_test(test_evictions_random),
        cmocka_unit_test(test_evict_bytes),
        cmocka_unit_test(test_evict_bytes_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
