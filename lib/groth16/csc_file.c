/*
 * The compact constraint system file (docs/formats.md): a 72-byte header, the coefficient
 * table (canonical, 32 bytes each), then A, B, C as raw little-endian arrays, each padded to
 * 8 bytes. The arrays are read with large preads straight into place, in pieces spread over
 * the thread pool (the kernel's copy and the page faults of fresh memory are what a load
 * costs, and they scale with threads), into memory advised to use huge pages: no per-term
 * parsing, which is what makes it faster to load than a .r1cs (36 bytes per term, each
 * coefficient decoded). Nothing in it is trusted: csc_finalize checks every entry.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* Large arrays on 2 MiB boundaries with huge pages advised: a load is mostly page faults on
 * fresh memory, 512 times fewer with huge pages (where the kernel has them to give). free()
 * releases them like any malloc'd block. */
#define HUGE_BYTES ((size_t)2 << 20)

static void *alloc_big(uint64_t bytes)
{
    if (bytes < 4 * HUGE_BYTES) return malloc(bytes ? bytes : 1);
    void *p = NULL;
    size_t n = (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
    if (posix_memalign(&p, HUGE_BYTES, n)) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, n, MADV_HUGEPAGE); /* advice only: without huge pages the load is just slower */
#endif
    return p;
}

/* The file's arrays as pieces of at most READ_PIECE bytes, read with pread on the pool. */
#define READ_PIECE ((uint64_t)32 << 20)
#define READ_ARRAYS 9

typedef struct read_job {
    int fd;
    void *dst[READ_ARRAYS];
    uint64_t off[READ_ARRAYS], bytes[READ_ARRAYS], first[READ_ARRAYS + 1]; /* first piece of each */
    _Atomic int err;             /* errno of the first failed read, or -1 for a short one */
} read_job;

static void read_piece(void *arg, size_t t)
{
    read_job *j = arg;
    int a = 0;
    while (t >= j->first[a + 1]) a++;
    uint64_t at = (t - j->first[a]) * READ_PIECE, left = j->bytes[a] - at;
    uint8_t *dst = (uint8_t *)j->dst[a] + at;
    if (left > READ_PIECE) left = READ_PIECE;
    uint64_t off = j->off[a] + at;
    while (left) {
        ssize_t got = pread(j->fd, dst, left, (off_t)off);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            int none = 0; /* relaxed: read after the loop returns */
            atomic_compare_exchange_strong_explicit(&j->err, &none, got < 0 ? errno : -1, memory_order_relaxed,
                                                    memory_order_relaxed);
            return;
        }
        dst += got, off += (uint64_t)got, left -= (uint64_t)got;
    }
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

static int read_open(FILE *f, const char *path, uint64_t file_bytes, threadpool *tp, csc *c)
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
    /* every count bounded first (so no product below can wrap), then the exact size they
     * imply checked before anything is allocated from them: a header of a few bytes cannot
     * ask for terabytes */
    for (int w = 0; w < 3; w++)
        if (nnz[w] > ((uint64_t)1 << 40) || n_coeffs > UINT32_MAX)
            return err_set(CUZK_EFORMAT, "%s: %llu non-zeros in %c, %llu coefficients: out of range", path,
                           (unsigned long long)nnz[w], "ABC"[w], (unsigned long long)n_coeffs);
    uint64_t need = HEADER_BYTES + n_coeffs * 32;
    for (int w = 0; w < 3; w++) need += (c->abc_len + 1) * 8 + 2 * ((nnz[w] * 4 + 7) & ~(uint64_t)7);
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
    /* the arrays, at the offsets the exact size check above vouches for */
    read_job j = {.fd = fileno(f)};
    atomic_init(&j.err, 0);
    int a = 0;
    for (int w = 0; w < 3; w++) {
        csc_matrix *m = &c->m[w];
        m->nnz = nnz[w];
        m->row = alloc_big((c->abc_len + 1) * 8);
        m->col = alloc_big(nnz[w] * 4);
        m->coef = alloc_big(nnz[w] * 4);
        if (!m->row || !m->col || !m->coef)
            return err_set(CUZK_ENOMEM, "cannot allocate %c's %llu rows and %llu non-zeros", "ABC"[w],
                           (unsigned long long)c->abc_len, (unsigned long long)nnz[w]);
        void *dst[3] = {m->row, m->col, m->coef};
        uint64_t bytes[3] = {(c->abc_len + 1) * 8, nnz[w] * 4, nnz[w] * 4};
        for (int q = 0; q < 3; q++, a++) {
            j.dst[a] = dst[q];
            j.off[a] = pos;
            j.bytes[a] = bytes[q];
            j.first[a + 1] = j.first[a] + (bytes[q] + READ_PIECE - 1) / READ_PIECE;
            pos += (bytes[q] + 7) & ~(uint64_t)7;
        }
    }
    threadpool_parallel_for(tp, (size_t)j.first[READ_ARRAYS], read_piece, &j);
    int e = atomic_load_explicit(&j.err, memory_order_relaxed);
    if (e > 0) return err_set(CUZK_EIO, "cannot read %s: %s", path, strerror(e));
    if (e) return err_set(CUZK_EFORMAT, "%s: shorter than its %llu bytes while being read", path,
                          (unsigned long long)file_bytes);
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
        rc = read_open(f, path, bytes, tp, out);
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
    return circom_r1cs_load_csc(path, tp, out);
}
