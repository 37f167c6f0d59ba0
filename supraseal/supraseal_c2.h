/*
 * libcuzk-supraseal: supraseal C2's five C entry points (the ones the Rust crate
 * `supraseal-c2` 0.1.x declares in its `extern "C"` block) with supraseal's ABI, proving on
 * libcuzk. A host that links supraseal's C entry links -lcuzk-supraseal instead and changes
 * nothing else; the library carries its own copy of libcuzk (it needs no libcuzk.so).
 *
 * The types below mirror supraseal's in memory, word for word (the type names are this
 * header's own, prefixed, so a host may include it beside its own declarations):
 *   - supraseal_c2_srs: `SRS`, one pointer (a reference-counted handle to a loaded key);
 *   - supraseal_c2_error: sppark's `RustError` { int32 code; char *str }: code 0 and str
 *     NULL on success; otherwise code is the libcuzk error (a negative CUZK_E* value, see
 *     cuzk/cuzk.h) and str a NUL-terminated message made with strdup(3) ("prover 3 of 10:
 *     a_aux bit length 70, aux assignment size 69"), owned by the caller, freed with free(3)
 *     (NULL only if even strdup failed);
 *   - supraseal_c2_assignment: `Assignment<Scalar>`, 17 machine words (the same layout as
 *     supraseal_assignment in examples/c/supraseal_adapter.h);
 *   - supraseal_c2_fr: a blstrs scalar in memory, 4 little-endian 64-bit limbs in
 *     Montgomery form (x * 2^256 mod r);
 *   - supraseal_c2_proof: bellperson's in-memory Proof<Bls12> (384 bytes): A (G1), B (G2),
 *     C (G1) affine, as blst keeps them: x then y, each Fp six little-endian 64-bit limbs in
 *     Montgomery form (x * 2^384 mod p), an Fp2 as c0 then c1; the point at infinity is all
 *     zeros.
 *
 * The engine: one per process, made by the first create_SRS and kept until the process
 * ends (supraseal's state lives as long). Its options come from these environment
 * variables, read once, then (unset or empty: libcuzk's default; a value that does not parse
 * or is out of range fails that create_SRS with a message naming the variable, and the next
 * create_SRS tries again):
 *   CUZK_BACKEND              auto (default: CUDA when usable, else the CPU), cpu or cuda
 *   CUZK_DEVICE_MASK          bit i = use GPU i (default: every GPU)
 *   CUZK_WORKERS_PER_DEVICE   proving threads per device, 1..64 (default 1)
 *   CUZK_CPU_THREADS          threads for CPU arithmetic (default: one per online CPU)
 *   CUZK_HOST_BUDGET_BYTES    host working-memory budget (default 3/4 of physical memory)
 *   CUZK_DEVICE_BUDGET_BYTES  per-GPU budget (default: what the GPU has free at start)
 *   CUZK_QUEUE_CAPACITY       partitions in the engine at once (default 1024)
 *   CUZK_FINISHER_THREADS     threads that finish and verify proofs (default 2)
 *   CUZK_VERIFY               1 = check every proof with a pairing (default), 0 = do not
 *   CUZK_RETRY_ON_CPU         1 = prove a partition that failed on the GPU once more on the CPU
 * (each is the CUZK_OPT_ of the same name; cuzk/cuzk.h documents them).
 *
 * Thread-safety: every call is thread-safe; generate_groth16_proofs_c may run on several
 * threads at once (their partitions share the engine's workers).
 */
#ifndef CUZK_SUPRASEAL_C2_H
#define CUZK_SUPRASEAL_C2_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CUZK_BUILDING_LIBRARY) && defined(__GNUC__)
#define SUPRASEAL_C2_API __attribute__((visibility("default")))
#else
#define SUPRASEAL_C2_API
#endif

typedef struct supraseal_c2_srs {
    void *ptr;
} supraseal_c2_srs;

typedef struct supraseal_c2_error {
    int32_t code;
    char *str;
} supraseal_c2_error;

typedef struct supraseal_c2_fr {
    uint64_t l[4];
} supraseal_c2_fr;

typedef struct supraseal_c2_assignment {
    const uint64_t *a_aux_density; /* aux bits, LSB first in 64-bit words                      */
    size_t a_aux_bit_len;          /* = aux_assignment_size                                    */
    size_t a_aux_popcount;
    const uint64_t *b_inp_density; /* input bits                                               */
    size_t b_inp_bit_len;          /* = inp_assignment_size                                    */
    size_t b_inp_popcount;
    const uint64_t *b_aux_density;
    size_t b_aux_bit_len;          /* = aux_assignment_size                                    */
    size_t b_aux_popcount;
    const supraseal_c2_fr *a;      /* constraint evaluations, abc_size each                    */
    const supraseal_c2_fr *b;
    const supraseal_c2_fr *c;
    size_t abc_size;
    const supraseal_c2_fr *inp_assignment_data; /* [0] is ONE                                  */
    size_t inp_assignment_size;
    const supraseal_c2_fr *aux_assignment_data;
    size_t aux_assignment_size;
} supraseal_c2_assignment;

typedef struct supraseal_c2_g1 {
    uint64_t x[6], y[6];
} supraseal_c2_g1;
typedef struct supraseal_c2_g2 {
    uint64_t x[2][6], y[2][6]; /* [0] = c0, [1] = c1 */
} supraseal_c2_g2;
typedef struct supraseal_c2_proof {
    supraseal_c2_g1 a;
    supraseal_c2_g2 b;
    supraseal_c2_g1 c;
} supraseal_c2_proof;

/* Loads a proving key from a bellperson parameter file (cuzk_srs_load; the engine is made
 * first if this is the first call) into *ret. path is borrowed for the call. With cache
 * true the key is also kept in a process-wide cache by path: a later create_SRS of the same
 * path with cache true shares it (no second load) until evict_SRS. *ret is owned by the
 * caller until drop_SRS. Errors: code CUZK_EINVAL (ret or path NULL, a bad environment
 * variable), CUZK_EIO (cannot read the file), CUZK_EFORMAT (not a key; str names the
 * offset), CUZK_EDEVICE, CUZK_EBUDGET, CUZK_ENOMEM; *ret is {NULL} then. */
SUPRASEAL_C2_API supraseal_c2_error create_SRS(supraseal_c2_srs *ret, const char *path, bool cache);

/* Takes srs's key out of the create_SRS cache (if it is there), so the key is freed with its
 * last handle. It does not drop the key's device copy: libcuzk has no call for that while a
 * key is held; on a GPU a key that is not in use gives way its resident bases by itself when
 * a later key needs the room (cuzk_srs_load's "Eviction"). NULL or {NULL} is ignored. */
SUPRASEAL_C2_API void evict_SRS(const supraseal_c2_srs *srs);

/* Drops one handle; the key is released with the last handle (and the cache's hold, see
 * create_SRS), and lives on while proofs in flight use it. NULL or {NULL} is ignored;
 * dropping a handle twice is undefined. */
SUPRASEAL_C2_API void drop_SRS(const supraseal_c2_srs *srs);

/* A second handle to the same key (reference counted; drop each with drop_SRS).
 * NULL or {NULL} gives {NULL}. */
SUPRASEAL_C2_API supraseal_c2_srs clone_SRS(const supraseal_c2_srs *srs);

/* Proves n partitions with srs's key: provers[i] with r_s[i] and s_s[i] into proofs[i];
 * returns when every proof is written (or the call fails). The Assignments' buffers, r_s,
 * s_s and proofs are borrowed for the call. Each Assignment is checked before any is
 * submitted (bit lengths against the assignment sizes, popcounts against the bitmaps, sizes
 * against the key): one that does not fit fails the call with nothing proven. n = 0 is a
 * success that touches nothing. On failure proofs[] is all zeros.
 * Errors: code CUZK_EINVAL (NULL argument, srs {NULL}), CUZK_EMISMATCH (an Assignment that
 * does not fit itself or the key: str names the prover and the counts), or the first failed
 * partition's status (CUZK_EVERIFY, CUZK_EDEVICE, CUZK_EBUDGET, ...) with its detail. */
SUPRASEAL_C2_API supraseal_c2_error generate_groth16_proofs_c(const supraseal_c2_assignment provers[], size_t n,
                                                              const supraseal_c2_fr r_s[], const supraseal_c2_fr s_s[],
                                                              supraseal_c2_proof proofs[], const supraseal_c2_srs *srs);

#ifdef __cplusplus
}
#endif

#endif
