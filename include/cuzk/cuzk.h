/*
 * libcuzk — a Groth16 (BLS12-381) proving engine for Filecoin partitions, on GPUs and CPUs.
 *
 * This is the one header a host includes (plus cuzk/r1cs.h for circom tooling). It is plain
 * C99, also valid C++, includes no CUDA header and keeps no logic inline, so cgo, bindgen and
 * any FFI reach every call. Conventions:
 *   - every exported symbol starts with cuzk_; every fallible call returns int:
 *     CUZK_OK (0) or a negative CUZK_E* code; cuzk_strerror() names the code and
 *     cuzk_last_error() gives this thread's detail of its last failure;
 *   - structs that cross the ABI start with uint32_t struct_size so they can grow;
 *   - ownership of every pointer is stated next to each call.
 */
#ifndef CUZK_H
#define CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CUZK_BUILDING_LIBRARY) && defined(__GNUC__)
#define CUZK_API __attribute__((visibility("default")))
#else
#define CUZK_API
#endif

/* ---------------------------------------------------------------------------------------- */
/* Version                                                                                   */
/* ---------------------------------------------------------------------------------------- */

#define CUZK_VERSION_MAJOR 0
#define CUZK_VERSION_MINOR 1
#define CUZK_VERSION_PATCH 0
#define CUZK_VERSION_NUMBER (CUZK_VERSION_MAJOR * 10000 + CUZK_VERSION_MINOR * 100 + CUZK_VERSION_PATCH)

/* The version of the library actually loaded (compare with CUZK_VERSION_NUMBER). Thread-safe. */
CUZK_API uint32_t cuzk_version_number(void);
/* "MAJOR.MINOR.PATCH" of the loaded library; a static string. Thread-safe. */
CUZK_API const char *cuzk_version_string(void);

/* ---------------------------------------------------------------------------------------- */
/* Errors                                                                                    */
/* ---------------------------------------------------------------------------------------- */

/* Codes are never renumbered or reused. */
enum {
    CUZK_OK = 0,
    CUZK_EINVAL = -1,     /* a NULL or malformed argument                                  */
    CUZK_ENOMEM = -2,     /* host memory exhausted                                         */
    CUZK_EAGAIN = -3,     /* nothing ready within the timeout; try again                   */
    CUZK_ECANCELED = -4,  /* the job was canceled                                          */
    CUZK_EFORMAT = -5,    /* bytes that do not decode (file, point, proof)                 */
    CUZK_EMISMATCH = -6,  /* sizes that do not fit together (partition vs key)             */
    CUZK_EBUDGET = -7,    /* a reservation that can never fit the configured budget        */
    CUZK_EDEVICE = -8,    /* a GPU/CUDA failure                                            */
    CUZK_EVERIFY = -9,    /* a well-formed proof that does not verify                      */
    CUZK_ESHUTDOWN = -10, /* the engine is being destroyed                                 */
    CUZK_EIO = -11,       /* an operating-system I/O failure                               */
    CUZK_ENOTFOUND = -12  /* a stale, foreign or unknown handle                            */
};

/* The name and meaning of a code ("CUZK_EFORMAT: malformed data"); a static string, never
 * NULL (unknown codes give "unknown error"). Thread-safe. */
CUZK_API const char *cuzk_strerror(int code);

/* Detail of the last failure of a cuzk_ call on the calling thread ("b_g2 has 998 points,
 * density popcount is 1000"); "" if none. The string is thread-local and valid until the
 * next cuzk_ call on this thread. Thread-safe. */
CUZK_API const char *cuzk_last_error(void);

/* ---------------------------------------------------------------------------------------- */
/* Scalars                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* One element of Fr, the BLS12-381 scalar field: four little-endian 64-bit limbs. */
typedef struct cuzk_fr {
    uint64_t l[4];
} cuzk_fr;

enum {
    CUZK_FR_MONTGOMERY = 0, /* x·2^256 mod r, as blstrs/bellperson keep scalars in memory */
    CUZK_FR_CANONICAL = 1   /* x itself, < r (32-byte little-endian)                      */
};


/* ---------------------------------------------------------------------------------------- */
/* Partitions and results                                                                    */
/* ---------------------------------------------------------------------------------------- */

typedef uint64_t cuzk_job; /* slot index + generation; a stale handle is CUZK_ENOTFOUND */

/* One partition's witness, exactly as bellperson's synthesis produces it (FORMATS.md).
 * Borrowed, not copied: the engine reads these buffers until it calls
 * release(release_user), exactly once, on success, failure or cancel. */
typedef struct cuzk_partition {
    uint32_t struct_size;            /* sizeof(cuzk_partition) as the host compiled it      */
    int32_t scalar_form;             /* CUZK_FR_MONTGOMERY or CUZK_FR_CANONICAL             */
    const cuzk_fr *a, *b, *c;        /* constraint evaluations, input constraints included  */
    uint64_t abc_len;
    const cuzk_fr *inputs;           /* inputs[0] is ONE                                    */
    uint64_t num_inputs;
    const cuzk_fr *aux;
    uint64_t num_aux;
    const uint64_t *a_aux_density;   /* num_aux bits, LSB first in 64-bit words             */
    const uint64_t *b_input_density; /* num_inputs bits                                     */
    const uint64_t *b_aux_density;   /* num_aux bits                                        */
    const cuzk_fr *r, *s;            /* NULL: drawn from the OS CSPRNG                      */
    int32_t priority;                /* higher first; FIFO within a priority                */
    uint32_t reserved;               /* must be 0                                           */
    uint64_t user_tag;               /* echoed in the result and in trace events            */
    void (*release)(void *release_user); /* may be NULL                                     */
    void *release_user;
} cuzk_partition;

typedef struct cuzk_result {
    uint32_t struct_size;
    int32_t status;                  /* CUZK_OK or the error that ended the job             */
    cuzk_job job;
    uint64_t user_tag;
    uint8_t proof[192];              /* A‖B‖C compressed: bellperson Proof::write            */
    int32_t device;                  /* -1 = CPU                                            */
    uint32_t reserved;
    uint64_t queued_ns, device_ns, total_ns;
} cuzk_result;

/* ---------------------------------------------------------------------------------------- */
/* Verification (no engine needed)                                                          */
/* ---------------------------------------------------------------------------------------- */

/* Checks a 192-byte proof (A‖B‖C compressed, bellperson Proof::write) against a verifying
 * key in bellperson's byte format (vk[0..vk_len): alpha_g1, beta_g1, beta_g2, gamma_g2,
 * delta_g1, delta_g2, the ic count and points; bytes after ic are ignored, so a whole .params
 * file is accepted too) and the n public inputs (ONE excluded) in scalar_form.
 * One multi-pairing on the CPU, about a millisecond plus n scalar multiplications.
 * Ownership: every pointer is borrowed for the call only. Thread-safe (no shared state).
 * Returns:
 *   CUZK_OK        the proof is valid;
 *   CUZK_EVERIFY   the proof is well formed but does not verify (wrong proof or inputs);
 *   CUZK_EFORMAT   the vk or the proof does not decode (truncated, bad flags, coordinate
 *                  >= p, not on the curve, not in the prime-order subgroup, infinity where
 *                  bellperson refuses it); cuzk_last_error() names the field and offset;
 *   CUZK_EMISMATCH n + 1 differs from the key's number of ic points;
 *   CUZK_EINVAL    vk or proof NULL, public_inputs NULL with n > 0, a bad scalar_form, or a
 *                  public input not below r (in either form);
 *   CUZK_ENOMEM    host memory exhausted. */
CUZK_API int cuzk_verify(const uint8_t *vk, size_t vk_len, const uint8_t proof[192],
                         const cuzk_fr *public_inputs, size_t n, int32_t scalar_form);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_H */
