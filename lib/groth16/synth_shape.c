/*
 * The shape table (synth.h): each Filecoin circuit's proportions per partition, 32 GiB
 * sectors, as published or derived. README.md ("Several circuits and urgent proofs") shows
 * the same table for users; what is assumed is said there and here:
 *   porep    FORMATS.md: 130,278,869 constraints, 328 inputs, a_aux 99.7 %, b_aux 25.4 %
 *            (every B variable a bit), b_input 1; the bit share is not published: 90 %.
 *   snap     ~81 M constraints (FORMATS.md) in 2^27; 5 public inputs (k, comm_r_old,
 *            comm_d_new, comm_r_new, h_select: rust-fil-proofs storage-proofs-update).
 *            Assumed PoRep's densities and bit share: its 86 challenges per partition open
 *            TreeD, a SHA-256 binary tree, so SHA-256 gadgets (bits) dominate as in PoRep.
 *   wpost    ~125 M constraints in 2^27 (the figure); public inputs 2349 sectors x
 *            (comm_r + 10 challenges) = 25,839 (assumed: one input per challenge). Poseidon
 *            Merkle openings: field values, not bits; the bits are the challenges' path bits,
 *            assumed 1 % (half of them in B). b_aux 56 % is derived from the key's size
 *            (~57 GB .params): 57e9 = 96 B x (2^27 h + aux l + aux a) + 288 B x b points.
 *   winning  the same circuit family for 1 sector x 66 challenges (67 public inputs); the
 *            constraint count, 400,000 in 2^19, is derived from its key (~184 MiB .params)
 *            with the same densities: 96 B x 2^19 + 96 B x 2n + 288 B x 0.56 n = 184 MiB.
 * Non-zeros per constraint (nnz_x100, A/B/C; synth.c's kinds say what each row holds):
 *   porep    published: 722 M over A, B, C for 130.3 M constraints = 5.54 per row; FORMATS.md
 *            splits it A 2.4, B 1.0, C 2.2 (rounded: 5.6), scaled to 5.54: A 2.37, B 0.99,
 *            C 2.18. Why this split, from bellperson's SHA-256 gadgets, which PoRep's ~90 %
 *            bits come from: every bit is allocated with (1 − b)·b = 0 (A 2, B 1, C 0); XOR,
 *            AND, ch and maj rows have one bit in A and B and up to three terms in C; the rows
 *            that carry many terms are SHA-256's 32-bit additions (UInt32::addmany: every
 *            operand bit, with its power of two, in A; ONE in B), ≈ 0.65 % of the rows (≈ 176
 *            additions in a compression's ≈ 27 k constraints) with ≈ 128 terms each: +0.83 in
 *            A. B has one term in nearly every row (a bit, ONE or a field value), hence 1.0.
 *            The generator gives A 2.37, B 1.00, C 2.22 (5.59, +0.9 %) with add_pcm 656.
 *   snap     not published: assumed PoRep's rows (SHA-256 TreeD openings dominate), so PoRep's
 *            5.54 per row.
 *   wpost    not published: Poseidon Merkle openings, 99 % field values. Assumed rows: the
 *            S-box rows (x + k)·x = y (A 2, B 1, C 1) and the non-bit rows as in PoRep
 *            (A 2, B 1, C 3), no additions: A 2.18, B 1.00, C 1.87 = 5.05 per row. Neptune
 *            may keep the MDS mix as a linear combination in A and B (up to the width, 9 or
 *            12 terms), which would make real WindowPoSt rows wider: an assumption to check
 *            against an extracted circuit.
 *   winning  wpost's rows.
 */
#include <string.h>

#include "groth16/synth.h"

static const synth_shape shapes[] = {
    {"porep", "PoRep 32 GiB (C2), one of 10 partitions", 27, 130278869, 327, 97, 900, 254, 254,
     SYNTH_ADD_POREP, {237, 99, 218}, 10, 0},
    {"snap", "SnapDeals 32 GiB, one of 16 partitions", 27, 81000000, 5, 60, 900, 254, 254,
     SYNTH_ADD_POREP, {237, 99, 218}, 16, 0},
    {"wpost", "WindowPoSt 32 GiB, one partition (2349 sectors)", 27, 125000000, 25839, 93, 10, 5, 560,
     0, {218, 100, 187}, 1, 1},
    {"winning", "WinningPoSt 32 GiB (1 sector, 66 challenges)", 19, 400000, 67, 76, 10, 5, 560,
     0, {218, 100, 187}, 1, 1},
};

const synth_shape *synth_shape_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof shapes / sizeof shapes[0]; i++)
        if (!strcmp(shapes[i].name, name)) return &shapes[i];
    return NULL;
}

const char *synth_shape_names(void) { return "porep|snap|wpost|winning"; }

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

void synth_cfg_for_shape(synth_cfg *cfg, const synth_shape *sh, uint64_t n, const uint8_t seed[32])
{
    synth_cfg_default(cfg, n, seed);
    cfg->num_public = (uint32_t)min_u64(sh->num_public, n / 32);
    cfg->bit_share_pm = sh->bit_share_pm;
    cfg->bool_pm = sh->bool_pm;
    cfg->b_aux_pm = sh->b_aux_pm;
    cfg->add_pcm = sh->add_pcm;
}

void synth_cfg_for_shape_log(synth_cfg *cfg, const synth_shape *sh, unsigned log_m, unsigned fill_pct,
                             const uint8_t seed[32])
{
    uint64_t m = (uint64_t)1 << log_m, target = m * (fill_pct ? fill_pct : sh->fill_pct) / 100;
    /* inputs counted from the target, the constraints get the rest (one for ONE) */
    uint64_t pub = min_u64(sh->num_public, target / 32);
    /* a domain and fill with no room for one constraint: 0 constraints, which synth refuses
     * (target - 1 - pub would wrap to a count near 2^64) */
    synth_cfg_for_shape(cfg, sh, target > 1 + pub ? target - 1 - pub : 0, seed);
}
