/*
 * Switching from supraseal C2 to libcuzk: fill a cuzk_partition from supraseal's
 * Assignment (docs/formats.md) — copy this header and supraseal_adapter.c into your host.
 *
 * supraseal_assignment mirrors supraseal C2's `template<class Scalar> struct Assignment`
 * (and the Rust `supraseal_c2::Assignment<Scalar>`, #[repr(C)]) word for word: 17 machine
 * words — (bitmap, bit length, popcount) for a_aux, b_inp and b_aux, then a, b, c and
 * abc_size, then the input and aux assignments with their sizes. Scalars in Montgomery
 * form, as bellperson keeps them, so scalar_form is normally CUZK_FR_MONTGOMERY.
 *
 * Where a host called generate_groth16_proofs_c(provers, n, r_s, s_s, proofs, srs) it now
 * does, for each prover i:
 *     cuzk_partition p;
 *     supraseal_to_cuzk(&provers[i], CUZK_FR_MONTGOMERY, &p);
 *     p.r = &r_s[i]; p.s = &s_s[i];   (or leave NULL for the OS CSPRNG)
 *     p.user_tag = i;
 *     cuzk_submit_partition(engine, srs, &p, &job[i]);
 * then polls n results and copies result.proof (192 bytes) into proofs[user_tag]. The
 * buffers stay the host's: keep them alive until the job's release callback (or result).
 */
#ifndef SUPRASEAL_ADAPTER_H
#define SUPRASEAL_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/cuzk.h>

typedef struct supraseal_assignment {
    const uint64_t *a_aux_density;
    size_t a_aux_bit_len;
    size_t a_aux_popcount;
    const uint64_t *b_inp_density;
    size_t b_inp_bit_len;
    size_t b_inp_popcount;
    const uint64_t *b_aux_density;
    size_t b_aux_bit_len;
    size_t b_aux_popcount;
    const cuzk_fr *a;
    const cuzk_fr *b;
    const cuzk_fr *c;
    size_t abc_size;
    const cuzk_fr *inp_assignment_data;
    size_t inp_assignment_size;
    const cuzk_fr *aux_assignment_data;
    size_t aux_assignment_size;
} supraseal_assignment;

/* Fills *out from *in (a field-by-field copy of pointers and sizes: nothing is copied or
 * allocated, so *in's buffers must outlive the job). Checks what supraseal takes on trust:
 * the bit lengths agree with the assignment sizes and each popcount matches its bitmap.
 * out's r, s, priority, user_tag and release are zeroed for the caller to set.
 * Returns CUZK_OK, CUZK_EINVAL (a NULL argument or buffer, a bad scalar_form) or
 * CUZK_EMISMATCH (a bit length or popcount that does not fit). Thread-safe. */
int supraseal_to_cuzk(const supraseal_assignment *in, int32_t scalar_form, cuzk_partition *out);

/* The inverse, for hosts and tests that hold a cuzk_partition (e.g. from cuzk_r1cs_partition)
 * and drive supraseal-shaped code: popcounts are computed from the bitmaps. */
int supraseal_from_cuzk(const cuzk_partition *in, supraseal_assignment *out);

#endif
