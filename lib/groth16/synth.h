/*
 * A synthetic circuit shaped like one Filecoin partition (FORMATS.md): by default PoRep's —
 * mostly boolean aux variables from bit decompositions and XOR chains, a_aux density ~99.7 %,
 * b_aux ~25.4 %, only ONE among the inputs in B, a few hundred public inputs, ≈ 5.5 non-zeros
 * per constraint over A, B, C as PoRep's published 722 M for 130.3 M; the shape table
 * (synth_shape_find) gives SnapDeals', WindowPoSt's and WinningPoSt's proportions too.
 * Deterministic from a seed. Used by `cuzk gen`, the benches, the demo and the tests.
 */
#ifndef CUZK_SYNTH_H
#define CUZK_SYNTH_H

#include <stdint.h>

#include "cuzk/cuzk.h"
#include "field/field.h"
#include "groth16/cs.h"

typedef struct synth_cfg {
    uint64_t constraints;  /* the circuit's own constraints (>= 1; < 2^32 - inputs) */
    uint32_t num_public;   /* public inputs besides ONE: SYNTH_PUBLIC_DEFAULT = min(327, N/32) */
    uint32_t bit_share_pm; /* per-mille of the aux variables that are bits (0/1 values) */
    uint8_t seed[32];
    uint32_t bool_pm;      /* per-mille of the aux variables that are bits used in B
                              (booleanity checks); 0 = PoRep's 254 */
    uint32_t b_aux_pm;     /* per-mille of the aux variables in some B (b_aux density);
                              0 = bool_pm (only bits in B, as PoRep). Needs
                              bool_pm <= b_aux_pm <= bool_pm + non-bits and
                              bool_pm + 3 + non-bits <= 1000 (non-bits = 1000 - bit_share_pm) */
    uint32_t add_pcm;      /* per 100,000 rows: SHA-256 additions (128 bit terms in A), taken
                              from the non-bits that are not SBOX; SYNTH_ADD_POREP by default,
                              what brings A to PoRep's 2.37 non-zeros per row (synth.c) */
} synth_cfg;

#define SYNTH_ADD_POREP 656

#define SYNTH_PUBLIC_DEFAULT UINT32_MAX

/* Bumped whenever the same cfg makes a different circuit, so that keys cached for a circuit
 * (the benches' key cache) name the generator they were made for: 2 = issue 27's rows
 * (bellperson's booleanity, SHA-256 additions, round constants). */
#define SYNTH_GENERATION 2

/* constraints = n, default public count, 90 % bits (FORMATS.md's benchmark default). */
void synth_cfg_default(synth_cfg *cfg, uint64_t n, const uint8_t seed[32]);

/* Like synth_cfg_default, with the largest constraint count whose domain (constraints plus
 * inputs, rounded up to a power of two) is 2^log_m: what "--log N" means in the benches.
 * log_m from 1 to 32. */
void synth_cfg_for_domain(synth_cfg *cfg, unsigned log_m, const uint8_t seed[32]);

/* One Filecoin circuit's proportions, per partition, as far as they are known (synth_shape.c
 * and README.md say where each number comes from, and what is assumed). */
typedef struct synth_shape {
    const char *name;       /* "porep", "snap", "wpost", "winning" */
    const char *what;       /* one line for reports */
    unsigned log_domain;    /* its domain at full size */
    uint64_t constraints;   /* at full size */
    uint32_t num_public;    /* public inputs besides ONE at full size */
    uint32_t fill_pct;      /* (constraints + inputs) / domain at full size, rounded */
    uint32_t bit_share_pm, bool_pm, b_aux_pm; /* as in synth_cfg */
    uint32_t add_pcm;       /* as in synth_cfg */
    uint32_t nnz_x100[3];   /* non-zeros per constraint in A, B, C (x 100) the circuit aims at:
                               published (PoRep) or this generator's model (synth_shape.c) */
    uint32_t partitions;    /* per proof (PoRep, SnapDeals) or per request (PoSt) */
    int urgent;             /* 1: latency-critical (proven as the daemons' CRITICAL/HIGH work) */
} synth_shape;

/* The shape called name, or NULL. synth_shape_names: "porep|snap|wpost|winning". */
const synth_shape *synth_shape_find(const char *name);
const char *synth_shape_names(void);
/* A circuit of shape sh with n constraints: its densities and bit share, public inputs
 * min(sh's, n/32) (for PoRep exactly SYNTH_PUBLIC_DEFAULT). */
void synth_cfg_for_shape(synth_cfg *cfg, const synth_shape *sh, uint64_t n, const uint8_t seed[32]);
/* The same with domain 2^log_m, constraints + inputs filling fill_pct % of it (0 = the
 * shape's own fill; what "--shape S --log N [--fill PCT]" means in the benches). log_m
 * from 6 to 32, fill_pct 1..100; a domain and fill with room for no constraint give
 * 0 constraints, which synth_cs and synth_partition refuse. */
void synth_cfg_for_shape_log(synth_cfg *cfg, const synth_shape *sh, unsigned log_m, unsigned fill_pct,
                             const uint8_t seed[32]);

/* The circuit as a constraint system plus a satisfying witness: *inputs (num_inputs values,
 * ONE first) and *aux (num_aux values), Montgomery, malloc'd; free them and cs_free(out).
 * CUZK_EINVAL for a bad cfg, CUZK_ENOMEM. */
int synth_cs(const synth_cfg *cfg, cs *out, fr_t **inputs, fr_t **aux);

/* The same circuit's partition (a/b/c evaluated on the fly, densities, inputs, aux) without
 * ever holding the constraint system: fit for full PoRep sizes. Buffers are owned by the
 * library until out->release(out->release_user). scalar_form: CUZK_FR_MONTGOMERY or
 * CUZK_FR_CANONICAL. Equal to cs_make_partition() on synth_cs()'s output. */
int synth_partition(const synth_cfg *cfg, int32_t scalar_form, cuzk_partition *out);

#endif
