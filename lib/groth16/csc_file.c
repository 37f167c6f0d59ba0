/*
 * The compact constraint system file (docs/formats.md): a 72-byte header, the coefficient
 * table (canonical, 32 bytes each), then A, B, C as raw little-endian arrays, each padded to
 * 8 bytes. It is read with a few large freads straight into the arrays: no per-term parsing,
 * which is what makes it faster to load than a .r1cs (36 bytes per term, each coefficient
 * decoded). Nothing in it is trusted: csc_finalize checks every entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "groth16/circom_file.h"
#include "groth16/csc.h"

#define HEADER_BYTES 72

static int put_padded(FILE *f, const void *p, uint64_t bytes)
{
    static const uint8_t zero[8] = {0};
    if (bytes && fwrite(p, 1, bytes, f) != bytes) return -1;
    return (bytes & 7) && fwrite(zero, 1, 8 - (bytes & 7), f) != 8 - (bytes & 7) ? -1 : 0;
}

int csc_write(const char *path, const csc *c)
{
    FILE *f = fopen(path, "wb");
    if (!f) return err_set(CUZK_EIO, "cannot create %s: %s", path, strerror(errno));
    int bad = cfile_put(f, CSC_FILE_MAGIC, 8) | cfile_put_u32(f, CSC_FILE_VERSION) | cfile_put_u32(f, 0);
    bad |= cfile_put_u64(f, c->num_inputs) | cfile_put_u64(f, c->num_aux) | cfile_put_u64(f, c->num_constraints);
    bad |= cfile_put_u64(f, c->n_coeffs);
    for (int w = 0; w < 3; w++) bad |= cfile_put_u64(f, c->m[w].nnz);
    for (uint32_t i = 0; i < c->n_coeffs && !bad; i++) bad |= cfile_put_fr(f, &c->coeffs[i]);
    /* the arrays as they are in memory: this library runs on little-endian hosts only */
    for (int w = 0; w < 3 && !bad; w++) {
        const csc_matrix *m = &c->m[w];
        bad |= put_padded(f, m->row, (c->abc_len + 1) * 8);
        bad |= put_padded(f, m->col, m->nnz * 4);
        bad |= put_padded(f, m->coef, m->nnz * 4);
    }
    if (fclose(f) != 0) bad = 1;
    if (bad) return err_set(CUZK_EIO, "cannot write %s: %s", path, strerror(errno));
    return CUZK_OK;
}

/* Reads bytes (then the padding to 8) into dst; CUZK_EFORMAT naming what ran short. */
static int get_padded(FILE *f, void *dst, uint64_t bytes, uint64_t *pos, const char *what, const char *path)
{
    uint64_t pad = (8 - (bytes & 7)) & 7;
    uint8_t skip[8];
    if ((bytes && fread(dst, 1, bytes, f) != bytes) || (pad && fread(skip, 1, pad, f) != pad))
        return err_set(CUZK_EFORMAT, "%s: %s (%llu bytes at offset %llu) runs past the end of the file", path, what,
                       (unsigned long long)bytes, (unsigned long long)*pos);
    *pos += bytes + pad;
    return CUZK_OK;
}

int csc_file_is_compact(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char m[8];
    int yes = fread(m, 1, 8, f) == 8 && !memcmp(m, CSC_FILE_MAGIC, 8);
    fclose(f);
    return yes;
}

static int read_open(FILE *f, const char *path, uint64_t file_bytes, csc *c)
{
    uint8_t h[HEADER_BYTES];
    if (fread(h, 1, sizeof h, f) != sizeof h)
        return err_set(CUZK_EFORMAT, "%s: %llu bytes, shorter than the %d-byte header", path,
                       (unsigned long long)file_bytes, HEADER_BYTES);
    if (memcmp(h, CSC_FILE_MAGIC, 8)) return err_set(CUZK_EFORMAT, "%s: not a compact constraint system (bad magic)", path);
    uint32_t version = cfile_u32(h + 8), flags = cfile_u32(h + 12);
    if (version != CSC_FILE_VERSION)
        return err_set(CUZK_EFORMAT, "%s: version %u, this library reads version %u", path, version, CSC_FILE_VERSION);
    if (flags) return err_set(CUZK_EFORMAT, "%s: flags 0x%x at offset 12 (none are defined)", path, flags);
    c->num_inputs = cfile_u64(h + 16);
    c->num_aux = cfile_u64(h + 24);
    c->num_constraints = cfile_u64(h + 32);
    uint64_t n_coeffs = cfile_u64(h + 40);
    uint64_t nnz[3] = {cfile_u64(h + 48), cfile_u64(h + 56), cfile_u64(h + 64)};
    if (c->num_inputs == 0 || c->num_inputs > UINT32_MAX || c->num_aux > UINT32_MAX ||
        c->num_constraints > ((uint64_t)1 << 32))
        return err_set(CUZK_EFORMAT, "%s: header counts out of range (%llu inputs, %llu aux, %llu constraints)", path,
                       (unsigned long long)c->num_inputs, (unsigned long long)c->num_aux,
                       (unsigned long long)c->num_constraints);
    c->abc_len = c->num_constraints + c->num_inputs;
    /* the exact size the counts imply, checked before anything is allocated from them, so a
     * header of a few bytes cannot ask for terabytes */
    uint64_t need = HEADER_BYTES + n_coeffs * 32;
    for (int w = 0; w < 3; w++) {
        if (nnz[w] > ((uint64_t)1 << 40) || n_coeffs > UINT32_MAX)
            return err_set(CUZK_EFORMAT, "%s: %llu non-zeros in %c, %llu coefficients: out of range", path,
                           (unsigned long long)nnz[w], "ABC"[w], (unsigned long long)n_coeffs);
        need += (c->abc_len + 1) * 8 + 2 * ((nnz[w] * 4 + 7) & ~(uint64_t)7);
    }
    if (need != file_bytes)
        return err_set(CUZK_EFORMAT, "%s: %llu bytes, but its counts (%llu rows, %llu + %llu + %llu non-zeros, %llu "
                       "coefficients) make %llu", path, (unsigned long long)file_bytes, (unsigned long long)c->abc_len,
                       (unsigned long long)nnz[0], (unsigned long long)nnz[1], (unsigned long long)nnz[2],
                       (unsigned long long)n_coeffs, (unsigned long long)need);
    c->n_coeffs = (uint32_t)n_coeffs;
    c->coeffs = malloc((n_coeffs ? n_coeffs : 1) * sizeof(fr_t));
    if (!c->coeffs) return err_set(CUZK_ENOMEM, "cannot allocate %llu coefficients", (unsigned long long)n_coeffs);
    uint64_t pos = HEADER_BYTES;
    for (uint64_t i = 0; i < n_coeffs; i++, pos += 32) {
        uint8_t b[32];
        if (fread(b, 1, 32, f) != 32) return err_set(CUZK_EFORMAT, "%s: coefficient %llu is truncated", path, (unsigned long long)i);
        if (!fr_from_le32(&c->coeffs[i], b))
            return err_set(CUZK_EFORMAT, "%s: coefficient %llu (offset %llu) is not below r", path,
                           (unsigned long long)i, (unsigned long long)pos);
    }
    for (int w = 0; w < 3; w++) {
        csc_matrix *m = &c->m[w];
        m->nnz = nnz[w];
        m->row = malloc((c->abc_len + 1) * 8);
        m->col = malloc(nnz[w] ? nnz[w] * 4 : 1);
        m->coef = malloc(nnz[w] ? nnz[w] * 4 : 1);
        if (!m->row || !m->col || !m->coef)
            return err_set(CUZK_ENOMEM, "cannot allocate %c's %llu rows and %llu non-zeros", "ABC"[w],
                           (unsigned long long)c->abc_len, (unsigned long long)nnz[w]);
        int rc;
        if ((rc = get_padded(f, m->row, (c->abc_len + 1) * 8, &pos, "row offsets", path)) ||
            (rc = get_padded(f, m->col, nnz[w] * 4, &pos, "columns", path)) ||
            (rc = get_padded(f, m->coef, nnz[w] * 4, &pos, "coefficient indices", path)))
            return rc;
    }
    return CUZK_OK;
}

int csc_read(const char *path, threadpool *tp, csc *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return err_set(CUZK_EIO, "cannot open %s: %s", path, strerror(errno));
    int rc;
    if (fseeko(f, 0, SEEK_END) != 0) {
        rc = err_set(CUZK_EIO, "cannot read %s: %s", path, strerror(errno));
    } else {
        uint64_t bytes = (uint64_t)ftello(f);
        rewind(f);
        rc = read_open(f, path, bytes, out);
    }
    if (ferror(f) && rc == CUZK_OK) rc = err_set(CUZK_EIO, "cannot read %s: %s", path, strerror(errno));
    fclose(f);
    if (!rc) rc = csc_finalize(out, tp);
    if (rc) csc_free(out);
    return rc;
}

int csc_load_any(const char *path, threadpool *tp, csc *out)
{
    memset(out, 0, sizeof *out);
    if (csc_file_is_compact(path)) return csc_read(path, tp, out);
    cuzk_r1cs *r = NULL;
    int rc = cuzk_r1cs_load(path, &r);
    if (rc) return rc;
    rc = csc_from_cs(&r->sys, out);
    cuzk_r1cs_free(r);
    return rc;
}
