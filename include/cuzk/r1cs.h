/*
 * libcuzk circom tooling: read circom .r1cs and snarkjs .wtns files (BLS12-381's scalar
 * field r only), turn a circuit and its witness into a cuzk_partition, and make a TEST-ONLY
 * proving/verifying key pair from known toxic waste. Plain C99, also valid C++.
 *
 * Variable mapping (docs/formats.md): circom wire 0 is ONE (input 0); the public wires (outputs,
 * then public inputs) are inputs 1..; every other wire is an aux variable, in wire order.
 *
 * Every call is thread-safe: the functions keep no shared state, and a loaded cuzk_r1cs is
 * read-only, so several threads may use one at once. Errors are reported as the return code
 * plus this thread's detail in cuzk_last_error().
 */
#ifndef CUZK_R1CS_H
#define CUZK_R1CS_H

#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A loaded circuit; opaque. */
typedef struct cuzk_r1cs cuzk_r1cs;

/* Loads a circom .r1cs file (format version 1). On success *out is owned by the caller and
 * must be released with cuzk_r1cs_free().
 * Errors: CUZK_EINVAL  path or out is NULL;
 *         CUZK_EIO     the file cannot be opened or read;
 *         CUZK_ENOMEM  no memory for the constraints;
 *         CUZK_EFORMAT anything malformed, with the byte offset and the reason: bad magic,
 *                      unsupported version, a section missing, duplicated or running past the
 *                      end of the file, a prime other than BLS12-381's r (the message names
 *                      the prime found), a field size other than 32 bytes, counts that do not
 *                      add up (wires, constraints, section sizes), a wire index out of range,
 *                      a wire repeated within one linear combination, a coefficient >= r,
 *                      custom gates (PLONK only), trailing bytes. */
CUZK_API int cuzk_r1cs_load(const char *path, cuzk_r1cs **out);

/* Frees a circuit from cuzk_r1cs_load(); NULL is a no-op. */
CUZK_API void cuzk_r1cs_free(cuzk_r1cs *r1cs);

/* Loads a snarkjs/circom .wtns file (format version 2). On success *values points to *count
 * scalars in CUZK_FR_CANONICAL form (wire order: ONE first), owned by the caller and freed
 * with cuzk_free().
 * Errors: CUZK_EINVAL  a NULL argument; CUZK_EIO  the file cannot be opened or read;
 *         CUZK_ENOMEM; CUZK_EFORMAT  bad magic, unsupported version, a missing, duplicated or
 *         truncated section, a prime other than BLS12-381's r (named in the message), a
 *         field size other than 32, a value count that does not match the section size,
 *         a value >= r (with its index), trailing bytes. */
CUZK_API int cuzk_wtns_load(const char *path, cuzk_fr **values, uint64_t *count);

/* Checks the witness against every constraint and turns it into a partition: a, b, c
 * (abc_len = constraints + inputs, the per-input rows included), inputs (ONE first), aux,
 * the three density bitmaps, all in CUZK_FR_CANONICAL form, r = s = NULL, priority 0. Only
 * the CUZK_PARTITION_SIZE_V1 bytes of *out are written (out->struct_size is set to that), so
 * a host built against any version of the header has room for them.
 * *out's buffers are owned by the library until out->release(out->release_user) is called
 * (exactly once; the engine does that for a submitted partition). witness is borrowed for
 * the call: count scalars, canonical, wire order (as cuzk_wtns_load gives them).
 * Errors: CUZK_EINVAL     a NULL argument, count != the circuit's wire count, witness[0]
 *                         != 1, a value >= r (with its index), or a witness that does not
 *                         satisfy the circuit (the message names the first failing
 *                         constraint by its index in the .r1cs file);
 *         CUZK_ENOMEM. */
CUZK_API int cuzk_r1cs_partition(const cuzk_r1cs *r1cs, const cuzk_fr *witness, uint64_t count,
                                 cuzk_partition *out);

/* TEST ONLY — NEVER FOR PRODUCTION KEYS: the toxic waste (alpha, beta, gamma, delta, tau)
 * is derived from the 32-byte seed (SHA-256 of the seed and a label, documented in
 * lib/groth16/groth16.h), so anyone with the seed can forge proofs. Writes a bellperson
 * proving key to params_path and its verifying key to vk_path (either may be NULL to skip
 * it), using every online CPU.
 * Errors: CUZK_EINVAL  r1cs or seed is NULL, or both paths are; CUZK_ENOMEM;
 *         CUZK_EIO  a file cannot be written; CUZK_EMISMATCH  the domain would exceed 2^32. */
CUZK_API int cuzk_setup(const cuzk_r1cs *r1cs, const uint8_t seed[32], const char *params_path,
                        const char *vk_path);

/* Frees memory the library allocated for the host (the values of cuzk_wtns_load); NULL is a
 * no-op. Never use it on a partition's buffers: call its release instead. */
CUZK_API void cuzk_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_R1CS_H */
