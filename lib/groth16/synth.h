/*
 * A synthetic circuit shaped like one Filecoin PoRep partition (FORMATS.md): mostly boolean
 * aux variables from bit decompositions and XOR chains, a_aux density ~99.7 %, b_aux ~25.4 %,
 * only ONE among the inputs in B, a few hundred public inputs. Deterministic from a seed.
 * Used by `cuzk gen`, the benches and the demo.
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
    uint32_t bit_share_pm; /* per-mille of the aux variables that are bits (260..1000) */
    uint8_t seed[32];
} synth_cfg;

#define SYNTH_PUBLIC_DEFAULT UINT32_MAX

/* constraints = n, default public count, 90 % bits (FORMATS.md's benchmark default). */
void synth_cfg_default(synth_cfg *cfg, uint64_t n, const uint8_t seed[32]);

/* Like synth_cfg_default, with the largest constraint count whose domain (constraints plus
 * inputs, rounded up to a power of two) is 2^log_m: what "--log N" means in the benches.
 * log_m from 1 to 32. */
void synth_cfg_for_domain(synth_cfg *cfg, unsigned log_m, const uint8_t seed[32]);

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
