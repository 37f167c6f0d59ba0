/*
 * What a device's worker slots keep for constraint systems (lib/backend/cs_slots.c), with no
 * GPU: systems of different sizes loaded and released in any order, the slots' bytes against
 * an oracle that recomputes them from scratch from the systems still loaded (the largest
 * witness and pieces of those, plus the keys' part), a failed placement leaving them as they
 * were, and the resident-or-streamed choice against the budget.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "backend/cs_slots.h"
#include "cuzk/cuzk.h"
#include "support/testutil.h"

#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

/* The device as the CUDA backend keeps it: the accounting, and the systems loaded. */
typedef struct dev {
    cs_slots cs;
    uint32_t nslots;
    cs_need loaded[64];
    uint32_t n;
} dev;

/* Places a system of wit witness bytes, piece-byte pieces, res bytes resident (table bytes
 * streamed) on d with avail free: what cs_commit does. */
static int load(dev *d, uint64_t avail, uint64_t wit, uint64_t piece, uint64_t res, uint64_t table, int stream,
                int *resident)
{
    cs_need need;
    uint64_t grow, own;
    int rc = cs_slots_choose(&d->cs, d->nslots, avail, wit, piece, res, table, stream, resident, &need, &grow, &own);
    if (rc) return rc;
    const uint64_t before = cs_slots_bytes(&d->cs);
    cs_slots_commit(&d->cs, need);
    assert_int_equal(cs_slots_bytes(&d->cs), before + grow); /* grow is what commit grew each slot by */
    assert_int_equal(own, *resident ? res : table);
    d->loaded[d->n++] = need;
    return CUZK_OK;
}

static void release(dev *d, uint32_t which)
{
    d->loaded[which] = d->loaded[--d->n];
    cs_slots_settle(&d->cs, d->loaded, d->n);
}

/* The oracle: each slot's bytes from scratch (keys' parts as given, the largest need of the
 * systems loaded, field by field, counted in the layouts with keys). */
static uint64_t oracle(const uint64_t keys[2], const cs_need *loaded, uint32_t n)
{
    uint64_t wit = 0, pieces = 0, best = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (loaded[i].wit > wit) wit = loaded[i].wit;
        if (loaded[i].pieces > pieces) pieces = loaded[i].pieces;
    }
    if (keys[0] && keys[0] + pieces > best) best = keys[0] + pieces;
    if (keys[1] && keys[1] + wit + pieces > best) best = keys[1] + wit + pieces;
    return best;
}

/* A 16 GiB card's lean slot (PoRep 2^27 streaming, 11 GiB): three systems streamed, the
 * largest released, the slot drops to what the next one needs; released all, to the key's. */
static void release_largest_drops_to_next(void **state)
{
    (void)state;
    dev d;
    memset(&d, 0, sizeof d);
    d.nslots = 1;
    const uint64_t key = 11 * GiB;
    cs_slots_key(&d.cs, 1, key);
    assert_int_equal(cs_slots_bytes(&d.cs), key);
    int resident;
    /* witness 128 MiB / 1 GiB / 4 GiB (2^22, 2^25, 2^27 aux), pieces 8 / 32 / 64 MiB */
    assert_int_equal(load(&d, 4 * GiB, 128 * MiB, 8 * MiB, 3 * GiB, MiB, 1, &resident), CUZK_OK);
    assert_false(resident);
    assert_int_equal(cs_slots_bytes(&d.cs), key + 128 * MiB + 16 * MiB);
    assert_int_equal(load(&d, 4 * GiB, 4 * GiB - 256 * MiB, 64 * MiB, 50 * GiB, MiB, 0, &resident), CUZK_OK);
    assert_false(resident); /* 50 GiB resident does not fit */
    assert_int_equal(load(&d, 4 * GiB, GiB, 32 * MiB, 4 * GiB, MiB, 1, &resident), CUZK_OK);
    const uint64_t all = key + 4 * GiB - 256 * MiB + 128 * MiB;
    assert_int_equal(cs_slots_bytes(&d.cs), all);
    release(&d, 1); /* the largest */
    assert_int_equal(cs_slots_bytes(&d.cs), key + GiB + 64 * MiB);
    assert_int_equal(d.cs.kept.wit, GiB);
    assert_int_equal(d.cs.kept.pieces, 64 * MiB);
    release(&d, 1); /* the 1 GiB one */
    assert_int_equal(cs_slots_bytes(&d.cs), key + 128 * MiB + 16 * MiB);
    release(&d, 0);
    assert_int_equal(cs_slots_bytes(&d.cs), key); /* the key's part stays */
    assert_int_equal(d.cs.kept.wit, 0);
    assert_int_equal(d.cs.kept.pieces, 0);
}

/* A placement that fails (on this device, or on a later one after this one committed) leaves
 * the slots as they were. */
static void failed_placement_leaves_slots(void **state)
{
    (void)state;
    dev d;
    memset(&d, 0, sizeof d);
    d.nslots = 2;
    cs_slots_key(&d.cs, 1, 5 * GiB);
    int resident;
    assert_int_equal(load(&d, 8 * GiB, GiB, 16 * MiB, 2 * GiB, MiB, 0, &resident), CUZK_OK);
    assert_true(resident); /* 2 GiB + 2 slots x 1 GiB fit 8 GiB */
    const cs_slots before = d.cs;
    const uint64_t bytes = cs_slots_bytes(&d.cs);
    /* refused here: 2 slots x (3 GiB more witness + 2 x 32 MiB) beyond 4 GiB */
    assert_int_equal(load(&d, 4 * GiB, 4 * GiB, 32 * MiB, 20 * GiB, MiB, 0, &resident), CUZK_EBUDGET);
    assert_memory_equal(&d.cs, &before, sizeof before);
    /* committed here, then a later device refuses: the release path settles without it */
    assert_int_equal(load(&d, 16 * GiB, 4 * GiB, 32 * MiB, 20 * GiB, MiB, 0, &resident), CUZK_OK);
    assert_true(cs_slots_bytes(&d.cs) > bytes);
    release(&d, d.n - 1);
    assert_int_equal(cs_slots_bytes(&d.cs), bytes);
    assert_memory_equal(&d.cs.kept, &before.kept, sizeof before.kept);
}

/* Full slots keep no witness (their layout has room for it), only the pieces; a device with
 * no slots yet grows nothing; a key placed after a system records its own part only. */
static void layouts_and_keys(void **state)
{
    (void)state;
    dev d;
    memset(&d, 0, sizeof d);
    int resident;
    /* no slots: any need fits what the table takes */
    assert_int_equal(load(&d, 2 * GiB, GiB, 16 * MiB, 3 * GiB, MiB, 0, &resident), CUZK_OK);
    assert_false(resident);
    assert_int_equal(cs_slots_bytes(&d.cs), 0);
    /* the first key, full: its placement gave the slots its working set + the pieces */
    d.nslots = 2;
    cs_slots_key(&d.cs, 0, 20 * GiB + 32 * MiB);
    assert_int_equal(d.cs.keys[0], 20 * GiB);
    assert_int_equal(cs_slots_bytes(&d.cs), 20 * GiB + 32 * MiB);
    /* a lean key that fits the slots as they are: nothing grows */
    cs_slots_key(&d.cs, 1, 20 * GiB + 32 * MiB);
    assert_int_equal(cs_slots_bytes(&d.cs), 20 * GiB + 32 * MiB);
    release(&d, 0);
    assert_int_equal(cs_slots_bytes(&d.cs), 20 * GiB); /* the full key's own part */
    /* a resident system grows a full slot by nothing */
    uint64_t grow, own;
    cs_need need;
    d.cs.keys[1] = 0;
    assert_int_equal(cs_slots_choose(&d.cs, 2, GiB, 512 * MiB, 16 * MiB, 100 * MiB, MiB, 0, &resident, &need, &grow,
                                     &own),
                     CUZK_OK);
    assert_true(resident);
    assert_int_equal(grow, 0);
    assert_int_equal(need.pieces, 0);
}

/* A key that streams after giving way to a system (cuda_evict.c): checked against the slots
 * as the system's commit leaves them, not as they are. Full slots of a 20 GiB key, a system
 * streamed with a 4 GiB witness: a victim whose lean slot needs 17 GiB fits the slots now
 * (no system), not once they keep the witness in a lean slot; 15 GiB fits both. */
static void lean_fits_after_commit(void **state)
{
    (void)state;
    cs_slots s;
    memset(&s, 0, sizeof s);
    cs_slots_key(&s, 0, 20 * GiB);
    const cs_need sys = {4 * GiB, 64 * MiB}, after = cs_need_max(s.kept, sys);
    assert_true(cs_slots_lean_fits(&s, s.kept, 17 * GiB));
    assert_false(cs_slots_lean_fits(&s, after, 17 * GiB));
    assert_true(cs_slots_lean_fits(&s, after, 15 * GiB));
    assert_true(cs_slots_lean_fits(&s, after, 20 * GiB - 4 * GiB)); /* exactly: 16 + 4 + 64 MiB */
    assert_false(cs_slots_lean_fits(&s, after, 20 * GiB - 4 * GiB + 1));
    /* no key at all: nothing fits (no slots) */
    cs_slots none;
    memset(&none, 0, sizeof none);
    assert_false(cs_slots_lean_fits(&none, sys, 1));
}

/* cs_slots_lean_fits against its meaning: recording such a key after the commit (cs_slots_key
 * with its need plus a lean slot's systems' part, as cuda_evict_apply does) leaves the slots'
 * bytes as the commit made them, and one that does not fit would grow them (oracle). */
static void lean_fits_random(void **state)
{
    (void)state;
    for (int it = 0; it < 20000; it++) {
        cs_slots s;
        memset(&s, 0, sizeof s);
        uint64_t keys[2] = {0, 0};
        for (int l = 0; l < 2; l++)
            if (test_rand64() % 3) keys[l] = s.keys[l] = 1 + test_rand64() % (16 * GiB);
        s.kept = (cs_need){test_rand64() % 2 ? test_rand64() % (4 * GiB) : 0, test_rand64() % (64 * MiB)};
        const cs_need sys = {test_rand64() % (4 * GiB), test_rand64() % 2 ? 2 * (test_rand64() % (32 * MiB)) : 0};
        const cs_need kept = cs_need_max(s.kept, sys);
        const uint64_t own = 1 + test_rand64() % (20 * GiB);
        const int fits = cs_slots_lean_fits(&s, kept, own);
        cs_slots c = s;
        cs_slots_commit(&c, sys);
        const uint64_t committed = cs_slots_bytes(&c);
        assert_int_equal(committed, oracle(keys, &kept, 1));
        cs_slots_key(&c, 1, own + cs_need_extra(c.kept, 1));
        const uint64_t lean_keys[2] = {keys[0], keys[1] > own ? keys[1] : own};
        assert_int_equal(cs_slots_bytes(&c), oracle(lean_keys, &kept, 1));
        if (fits) assert_int_equal(cs_slots_bytes(&c), committed);
        else assert_true(cs_slots_bytes(&c) > committed);
    }
}

/* Random loads and releases on random devices against the oracle. */
/* An urgent slot that ran a witness-only partition (committed: its key part, 2.6 GiB, plus
 * the witness, 3.9 GiB) gives the witness back once trimmed with no system left, keeps what
 * a system still loaded holds, and never grows by a trim. */
static void urgent_after_trim(void **state)
{
    (void)state;
    const uint64_t key = 2600ull << 20, wit = 3900ull << 20, piece = 64ull << 20;
    assert_int_equal(cs_urgent_after_trim(key + wit + 2 * piece, key, 0, 0), key);
    assert_int_equal(cs_urgent_after_trim(key + wit + 2 * piece, key, wit, 0), key + wit);
    assert_int_equal(cs_urgent_after_trim(key + wit + 2 * piece, key, wit, piece), key + wit + 2 * piece);
    /* committed below what the buffers would say (a load's room counted as keys' part): as is */
    assert_int_equal(cs_urgent_after_trim(key, key, wit, piece), key);
    assert_int_equal(cs_urgent_after_trim(0, 0, 0, 0), 0);
}

static void random_against_oracle(void **state)
{
    (void)state;
    test_seed();
    for (int round = 0; round < 200; round++) {
        dev d;
        memset(&d, 0, sizeof d);
        d.nslots = 1 + (uint32_t)(test_rand64() % 2);
        uint64_t keys[2] = {0, 0};
        for (int l = 0; l < 2; l++)
            if (test_rand64() % 3) {
                keys[l] = 1 + test_rand64() % (16 * GiB);
                d.cs.keys[l] = keys[l];
            }
        for (int step = 0; step < 40; step++) {
            if (d.n && (test_rand64() % 3 == 0 || d.n == 64)) {
                release(&d, (uint32_t)(test_rand64() % d.n));
            } else {
                const cs_slots before = d.cs;
                const uint32_t n0 = d.n;
                int resident;
                int rc = load(&d, test_rand64() % (32 * GiB), test_rand64() % (4 * GiB), test_rand64() % (64 * MiB),
                              test_rand64() % (8 * GiB), test_rand64() % MiB, (int)(test_rand64() % 2), &resident);
                if (rc) {
                    assert_int_equal(rc, CUZK_EBUDGET);
                    assert_int_equal(d.n, n0);
                    assert_memory_equal(&d.cs, &before, sizeof before);
                } else if (resident) assert_int_equal(d.loaded[d.n - 1].pieces, 0);
            }
            assert_int_equal(cs_slots_bytes(&d.cs), oracle(keys, d.loaded, d.n));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(release_largest_drops_to_next),
        cmocka_unit_test(failed_placement_leaves_slots),
        cmocka_unit_test(layouts_and_keys),
        cmocka_unit_test(random_against_oracle),
        cmocka_unit_test(lean_fits_after_commit),
        cmocka_unit_test(lean_fits_random),
        cmocka_unit_test(urgent_after_trim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
