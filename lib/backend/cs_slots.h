/*
 * What the worker slots of one device keep for witness-only partitions of the constraint
 * systems loaded there, and so what each slot takes: the keys' own part (which never shrinks)
 * plus the largest need among the systems still loaded, recomputed when one goes. Pure C with
 * no device calls: the CUDA backend keeps one per device under the device's lock
 * (cuda_witness.c); test_cs_slots checks it on the CPU.
 */
#ifndef CUZK_CS_SLOTS_H
#define CUZK_CS_SLOTS_H

#include <stdint.h>

/* One system's need in every slot of one device (or the largest of several): its witness on
 * the device (in a lean slot: a full slot's layout has room for it) and its two pieces where
 * it streams (0: resident, no pieces). */
typedef struct cs_need {
    uint64_t wit;
    uint64_t pieces;
} cs_need;

typedef struct cs_slots {
    /* [0] full, [1] lean: the largest slot a key placed in that layout needs, the systems'
     * part left out; 0: no key in that layout. Never shrinks: a key's slots keep their size. */
    uint64_t keys[2];
    cs_need kept;                /* the largest need of the systems loaded (cs_slots_settle) */
} cs_slots;

/* The larger of two needs, field by field. */
cs_need cs_need_max(cs_need a, cs_need b);
/* What a slot of layout lean keeps for the systems: (lean ? wit : 0) + pieces. */
uint64_t cs_need_extra(cs_need n, int lean);
/* Each slot's bytes: over the layouts with keys, their part plus the systems' (0: no key). */
uint64_t cs_slots_bytes(const cs_slots *s);
/* A key placed in layout lean with slots of slot_bytes each (what its placement decided, the
 * systems' part included): its own part recorded. */
void cs_slots_key(cs_slots *s, int lean, uint64_t slot_bytes);

/* Whether a key that needs own bytes in a lean slot (the systems' part left out: a key that
 * streams after an eviction) runs in the slots as they are with kept as the systems' part
 * (a system's commit to come, s->kept's maximum with its need; or s->kept): own plus a lean
 * slot's systems' part within their bytes, so that recording it (cs_slots_key) leaves them
 * as they are. */
int cs_slots_lean_fits(const cs_slots *s, cs_need kept, uint64_t own);

/* A system being placed on the device (nslots slots, avail bytes free there): resident (res
 * bytes for itself) unless stream or that does not fit with every slot grown for it, else
 * streamed (its coefficient table, table bytes, and two pieces of piece bytes per slot).
 * want: its need resident (wit, pieces 0). CUZK_EBUDGET when neither fits (*grow, *own: the
 * streamed choice's), else CUZK_OK with *resident, the need it commits (*need), what every
 * slot grows by (*grow) and its own bytes (*own). Changes nothing: cs_slots_commit does. */
int cs_slots_choose(const cs_slots *s, uint32_t nslots, uint64_t avail, uint64_t wit, uint64_t piece, uint64_t res,
                    uint64_t table, int stream, int *resident, cs_need *need, uint64_t *grow, uint64_t *own);
/* Adds a chosen need to what the slots keep. */
void cs_slots_commit(cs_slots *s, cs_need need);
/* What the slots keep once a system went (released, or its placement failed): the largest
 * need of those still loaded (each[0 .. n), or their maximum so far as one); the keys' part
 * stays, so cs_slots_bytes drops by what only the one that went needed. */
void cs_slots_settle(cs_slots *s, const cs_need *each, uint32_t n);

/* An urgent slot's committed bytes once its witness buffers were trimmed to what the systems
 * left need: at most its keys' part (key_bytes: the largest need without a system's part)
 * plus the witness buffer and the two system pieces it still holds; never more than before. */
uint64_t cs_urgent_after_trim(uint64_t committed, uint64_t key_bytes, uint64_t wit_held, uint64_t piece_held);

#endif
