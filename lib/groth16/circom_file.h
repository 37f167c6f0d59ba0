/*
 * The iden3 binary container that circom's .r1cs and snarkjs's .wtns share (magic, u32
 * version, u32 section count, sections of u32 id + u64 size + body), the field check both
 * readers apply, and the writers for both formats (used by `cuzk gen` and the tests).
 */
#ifndef CUZK_CIRCOM_FILE_H
#define CUZK_CIRCOM_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/r1cs.h"
#include "threadpool.h"
#include "field/field.h"
#include "groth16/cs.h"

/* A file mapped read-only (an empty file maps to data = NULL, len = 0). */
typedef struct cfile_map {
    const uint8_t *data;
    size_t len;
} cfile_map;
int cfile_map_open(const char *path, cfile_map *m); /* CUZK_EIO with errno's text */
void cfile_map_close(cfile_map *m);

#define CFILE_MAX_ID 8 /* ids 1..CFILE_MAX_ID are tracked; other ids are skipped */

typedef struct cfile_section {
    size_t off; /* offset of the body in the file; 0 = absent */
    uint64_t size;
} cfile_section;

/* Parses magic, version and the section table; every section must lie inside the file and
 * nothing may follow the last one. A tracked id seen twice is CUZK_EFORMAT. kind names the
 * file in messages ("r1cs"/"wtns"). */
int cfile_parse(const cfile_map *m, const char magic[4], uint32_t version, const char *kind,
                cfile_section sec[CFILE_MAX_ID + 1]);

/* n8 and the prime (n8 bytes little-endian at p) must be 32 and BLS12-381's r; otherwise
 * CUZK_EFORMAT naming what was found (and which curve it belongs to, when known). */
int cfile_check_field(const char *kind, uint32_t n8, const uint8_t *prime, size_t off);

static inline uint32_t cfile_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t cfile_u64(const uint8_t *p)
{
    return (uint64_t)cfile_u32(p) | (uint64_t)cfile_u32(p + 4) << 32;
}

/* Little-endian writing helpers for the writers: 0 on success, -1 on a short write. */
int cfile_put(FILE *f, const void *p, size_t n);
int cfile_put_u32(FILE *f, uint32_t v);
int cfile_put_u64(FILE *f, uint64_t v);
int cfile_put_fr(FILE *f, const fr_t *mont); /* 32 bytes canonical little-endian */
int cfile_put_modulus(FILE *f);              /* r, 32 bytes little-endian */

/* The loaded circuit behind the public handle: header counts plus the constraint system in
 * bellperson numbering (wire w is variable w, see cs.h; zero coefficients dropped). */
struct cuzk_r1cs {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    cs sys;
};

/* Writers (CUZK_EIO on failure). The .r1cs gets nPubOut = 0, nPubIn = num_inputs - 1 and
 * an identity label map; values are Montgomery and written canonical. */
int circom_r1cs_write(const char *path, const cs *sys);
/* A .r1cs read straight into the compact constraint system (csc.h), with cuzk_r1cs_load's
 * checks and messages: no 40-byte term per non-zero in between, each coefficient's bytes
 * looked up as they are (canonical) and only the distinct ones converted. The per-input rows
 * appended and csc_finalize run on tp. */
struct csc;
int circom_r1cs_load_csc(const char *path, threadpool *tp, struct csc *out);
int circom_wtns_write(const char *path, const fr_t *values, uint64_t count);

#endif
