/*
 * bellperson's proving-key (.params) and verifying-key (.vk) files: read (mmap, every count
 * and the total size checked before any point is decoded, points decoded in parallel) and
 * written. Layout and rules: FORMATS.md.
 *
 * Decisions: the six vk points and ic are always checked for subgroup membership (cheap,
 * and verification relies on them); the five large queries only when check_subgroup is set.
 * As bellperson does, infinity is refused in ic, h, l, a, b_g1 and b_g2 but allowed in the
 * six vk points. Bytes after b_g2 (after ic for a .vk) are ignored as bellperson ignores
 * them; the params reader reports their number in trailing_bytes, so a caller may warn.
 */
#include "groth16/groth16.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fault.h"

#define VK_HEADER_BYTES (3 * G1_UNCOMPRESSED_BYTES + 3 * G2_UNCOMPRESSED_BYTES) /* 864 */
#define CHUNK 512 /* points per decode task */

enum { SEC_IC, SEC_H, SEC_L, SEC_A, SEC_B_G1, SEC_B_G2, NSEC };
static const char *const sec_name[NSEC] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

typedef struct section {
    size_t off;      /* byte offset of the first point */
    uint32_t count;
    int g2;
    int subgroup;
    void *dst;       /* g1_aff[] or g2_aff[] */
} section;

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static size_t point_bytes(int g2) { return g2 ? G2_UNCOMPRESSED_BYTES : G1_UNCOMPRESSED_BYTES; }

/* Walks the counts of sections [0, nsec) from offset 864, checking that every count and
 * its points lie inside the buffer; sets each section's offset and count. */
static int walk_counts(const uint8_t *buf, size_t len, int nsec, section *sec, size_t *end)
{
    size_t o = VK_HEADER_BYTES;
    if (len < o)
        return err_set(CUZK_EFORMAT, "truncated: %zu bytes, the six verifying-key points need %d",
                       len, VK_HEADER_BYTES);
    for (int i = 0; i < nsec; i++) {
        if (len - o < 4)
            return err_set(CUZK_EFORMAT,
                           "truncated at offset %zu: the %s count (4 bytes) is missing, %zu bytes in all",
                           o, sec_name[i], len);
        sec[i].count = be32(buf + o);
        sec[i].g2 = i == SEC_B_G2;
        o += 4;
        uint64_t need = (uint64_t)sec[i].count * point_bytes(sec[i].g2);
        if (need > len - o)
            return err_set(CUZK_EFORMAT,
                           "truncated: %s count %u at offset %zu needs %llu bytes of points, "
                           "only %zu remain (%zu bytes in all)",
                           sec_name[i], sec[i].count, o - 4, (unsigned long long)need, len - o, len);
        sec[i].off = o;
        o += (size_t)need;
    }
    *end = o;
    return CUZK_OK;
}

static int decode_point(void *dst, const uint8_t *in, int g2, int subgroup)
{
    return g2 ? g2_decode(dst, in, G2_UNCOMPRESSED_BYTES, subgroup)
              : g1_decode(dst, in, G1_UNCOMPRESSED_BYTES, subgroup);
}

#define REASON_INFINITY 1 /* beyond POINT_* (which are <= 0) */

static const char *reason_text(int reason)
{
    return reason == REASON_INFINITY ? "point at infinity (bellperson refuses it here)"
                                     : point_strerror(reason);
}

static int header_point(const uint8_t *buf, size_t off, int g2, void *dst, const char *name)
{
    int rc = decode_point(dst, buf + off, g2, 1);
    if (rc) return err_set(CUZK_EFORMAT, "%s at offset %zu: %s", name, off, point_strerror(rc));
    return CUZK_OK;
}

static int parse_header(const uint8_t *buf, groth16_vk *vk)
{
    int rc;
    if ((rc = header_point(buf, 0, 0, &vk->alpha_g1, "alpha_g1")) ||
        (rc = header_point(buf, 96, 0, &vk->beta_g1, "beta_g1")) ||
        (rc = header_point(buf, 192, 1, &vk->beta_g2, "beta_g2")) ||
        (rc = header_point(buf, 384, 1, &vk->gamma_g2, "gamma_g2")) ||
        (rc = header_point(buf, 576, 0, &vk->delta_g1, "delta_g1")) ||
        (rc = header_point(buf, 672, 1, &vk->delta_g2, "delta_g2")))
        return rc;
    return CUZK_OK;
}

/* ---- parallel decoding of the point vectors ---- */

typedef struct chunk_err {
    int reason;      /* 0 = fine */
    uint32_t index;  /* point index within its section */
} chunk_err;

typedef struct decode_job {
    const uint8_t *buf;
    const section *sec;
    int nsec;
    size_t first_chunk[NSEC + 1]; /* prefix sums of chunks per section */
    chunk_err *errs;
} decode_job;

static void decode_chunk(void *arg, size_t c)
{
    decode_job *j = arg;
    int s = 0;
    while (c >= j->first_chunk[s + 1]) s++;
    const section *sec = &j->sec[s];
    size_t pb = point_bytes(sec->g2), asz = sec->g2 ? sizeof(g2_aff) : sizeof(g1_aff);
    uint64_t begin = (uint64_t)(c - j->first_chunk[s]) * CHUNK;
    uint64_t end = begin + CHUNK < sec->count ? begin + CHUNK : sec->count;
    for (uint64_t i = begin; i < end; i++) {
        void *dst = (uint8_t *)sec->dst + i * asz;
        int rc = decode_point(dst, j->buf + sec->off + i * pb, sec->g2, sec->subgroup);
        if (!rc && (sec->g2 ? g2_aff_is_inf(dst) : g1_aff_is_inf(dst))) rc = REASON_INFINITY;
        if (rc) {
            j->errs[c].reason = rc;
            j->errs[c].index = (uint32_t)i;
            return;
        }
    }
}

/* Decodes every section; on failure reports the failing point with the lowest offset. */
static int decode_sections(const uint8_t *buf, const section *sec, int nsec, threadpool *tp)
{
    decode_job j = {.buf = buf, .sec = sec, .nsec = nsec};
    j.first_chunk[0] = 0;
    for (int s = 0; s < nsec; s++)
        j.first_chunk[s + 1] = j.first_chunk[s] + ((size_t)sec[s].count + CHUNK - 1) / CHUNK;
    size_t nchunks = j.first_chunk[nsec];
    if (!nchunks) return CUZK_OK;
    j.errs = calloc(nchunks, sizeof *j.errs);
    if (!j.errs) return err_set(CUZK_ENOMEM, "cannot allocate %zu decode slots", nchunks);
    threadpool_parallel_for(nchunks > 1 ? tp : NULL, nchunks, decode_chunk, &j);
    int rc = CUZK_OK;
    for (size_t c = 0; c < nchunks; c++) {
        if (!j.errs[c].reason) continue;
        int s = 0;
        while (c >= j.first_chunk[s + 1]) s++;
        uint32_t i = j.errs[c].index;
        rc = err_set(CUZK_EFORMAT, "%s[%u] at offset %zu: %s", sec_name[s], i,
                     sec[s].off + (size_t)i * point_bytes(sec[s].g2), reason_text(j.errs[c].reason));
        break;
    }
    free(j.errs);
    return rc;
}

/* ---- readers ---- */

int groth16_vk_parse(const uint8_t *buf, size_t len, groth16_vk *out)
{
    if (!out) return err_set(CUZK_EINVAL, "output verifying key is NULL");
    memset(out, 0, sizeof *out);
    if (!buf && len) return err_set(CUZK_EINVAL, "verifying-key buffer is NULL");
    section sec[1];
    size_t end = 0;
    int rc = walk_counts(buf, len, 1, sec, &end);
    if (rc) return rc;
    if ((rc = parse_header(buf, out))) return rc;
    out->ic = malloc(((size_t)sec[0].count ? sec[0].count : 1) * sizeof(g1_aff));
    if (!out->ic) return err_set(CUZK_ENOMEM, "cannot allocate %u ic points", sec[0].count);
    sec[0].subgroup = 1;
    sec[0].dst = out->ic;
    if ((rc = decode_sections(buf, sec, 1, NULL))) {
        groth16_vk_clear(out);
        return rc;
    }
    out->n_ic = sec[0].count;
    return CUZK_OK;
}

int groth16_vk_ic_count(const uint8_t *buf, size_t len, uint32_t *n_ic)
{
    if (!buf && len) return err_set(CUZK_EINVAL, "verifying-key buffer is NULL");
    section sec[1];
    size_t end = 0;
    int rc = walk_counts(buf, len, 1, sec, &end);
    if (rc == CUZK_OK) *n_ic = sec[0].count;
    return rc;
}

void groth16_vk_clear(groth16_vk *vk)
{
    if (!vk) return;
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

void groth16_params_free(groth16_params *p)
{
    if (!p) return;
    groth16_vk_clear(&p->vk);
    free(p->h);
    free(p->l);
    free(p->a);
    free(p->b_g1);
    free(p->b_g2);
    free(p);
}

int groth16_params_parse(const uint8_t *buf, size_t len, int check_subgroup, threadpool *tp,
                         groth16_params **out)
{
    if (!out) return err_set(CUZK_EINVAL, "output pointer is NULL");
    *out = NULL;
    if (!buf && len) return err_set(CUZK_EINVAL, "parameter buffer is NULL");
    section sec[NSEC];
    size_t end = 0;
    int rc = walk_counts(buf, len, NSEC, sec, &end);
    if (rc) return rc;

    groth16_params *p = calloc(1, sizeof *p);
    if (!p) return err_set(CUZK_ENOMEM, "cannot allocate a key");
    if ((rc = parse_header(buf, &p->vk))) goto fail;
    void **dst[NSEC] = {(void **)&p->vk.ic, (void **)&p->h, (void **)&p->l, (void **)&p->a,
                        (void **)&p->b_g1, (void **)&p->b_g2};
    for (int s = 0; s < NSEC; s++) {
        size_t sz = sec[s].g2 ? sizeof(g2_aff) : sizeof(g1_aff);
        *dst[s] = malloc(((size_t)sec[s].count ? sec[s].count : 1) * sz);
        if (!*dst[s]) {
            rc = err_set(CUZK_ENOMEM, "cannot allocate %u %s points", sec[s].count, sec_name[s]);
            goto fail;
        }
        sec[s].dst = *dst[s];
        sec[s].subgroup = s == SEC_IC || check_subgroup;
    }
    if ((rc = decode_sections(buf, sec, NSEC, tp))) goto fail;
    p->vk.n_ic = sec[SEC_IC].count;
    p->n_h = sec[SEC_H].count;
    p->n_l = sec[SEC_L].count;
    p->n_a = sec[SEC_A].count;
    p->n_b_g1 = sec[SEC_B_G1].count;
    p->n_b_g2 = sec[SEC_B_G2].count;
    p->trailing_bytes = len - end;
    *out = p;
    return CUZK_OK;
fail:
    groth16_params_free(p);
    return rc;
}

int groth16_params_load(const char *path, int check_subgroup, threadpool *tp, groth16_params **out)
{
    if (!out) return err_set(CUZK_EINVAL, "output pointer is NULL");
    *out = NULL;
    if (!path) return err_set(CUZK_EINVAL, "path is NULL");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return err_set(CUZK_EIO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return err_set(CUZK_EIO, "cannot stat %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return err_set(CUZK_EIO, "%s is not a regular file", path);
    }
    size_t len = (size_t)st.st_size;
    const uint8_t *map = NULL;
    if (len) {
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            close(fd);
            return err_set(CUZK_EIO, "cannot map %s (%zu bytes): %s", path, len, strerror(e));
        }
        madvise(m, len, MADV_SEQUENTIAL);
        map = m;
    }
    close(fd); /* the mapping keeps the file */
    int rc = groth16_params_parse(map ? map : (const uint8_t *)"", len, check_subgroup, tp, out);
    if (map) munmap((void *)map, len);
    if (rc == CUZK_OK && FAULT_HIT(FAULT_KEY_LOAD)) { /* as if the disk failed mid-read */
        groth16_params_free(*out);
        *out = NULL;
        rc = err_set(CUZK_EIO, "read error (injected fault)");
    }
    if (rc) {
        char detail[512]; /* err_set writes the buffer err_detail() points into */
        snprintf(detail, sizeof detail, "%s", err_detail());
        return err_set(rc, "%s: %s", path, detail);
    }
    return CUZK_OK;
}

/* ---- writers ---- */

typedef struct sink {
    FILE *f;        /* file, or NULL for memory */
    uint8_t *mem;
    size_t len, cap;
    int failed;
} sink;

static void put(sink *s, const void *p, size_t n)
{
    if (s->failed) return;
    if (s->f) {
        if (fwrite(p, 1, n, s->f) != n) s->failed = 1;
        return;
    }
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n) cap *= 2;
        uint8_t *m = realloc(s->mem, cap);
        if (!m) { s->failed = 1; return; }
        s->mem = m;
        s->cap = cap;
    }
    memcpy(s->mem + s->len, p, n);
    s->len += n;
}

static void put_count(sink *s, uint32_t n)
{
    uint8_t b[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    put(s, b, 4);
}

static void put_g1s(sink *s, const g1_aff *p, uint32_t n)
{
    uint8_t b[G1_UNCOMPRESSED_BYTES];
    for (uint32_t i = 0; i < n; i++) {
        g1_encode_uncompressed(b, &p[i]);
        put(s, b, sizeof b);
    }
}

static void put_g2s(sink *s, const g2_aff *p, uint32_t n)
{
    uint8_t b[G2_UNCOMPRESSED_BYTES];
    for (uint32_t i = 0; i < n; i++) {
        g2_encode_uncompressed(b, &p[i]);
        put(s, b, sizeof b);
    }
}

static void put_vk(sink *s, const groth16_vk *vk)
{
    put_g1s(s, &vk->alpha_g1, 1);
    put_g1s(s, &vk->beta_g1, 1);
    put_g2s(s, &vk->beta_g2, 1);
    put_g2s(s, &vk->gamma_g2, 1);
    put_g1s(s, &vk->delta_g1, 1);
    put_g2s(s, &vk->delta_g2, 1);
    put_count(s, vk->n_ic);
    put_g1s(s, vk->ic, vk->n_ic);
}

static void put_params(sink *s, const groth16_params *p)
{
    put_vk(s, &p->vk);
    put_count(s, p->n_h);
    put_g1s(s, p->h, p->n_h);
    put_count(s, p->n_l);
    put_g1s(s, p->l, p->n_l);
    put_count(s, p->n_a);
    put_g1s(s, p->a, p->n_a);
    put_count(s, p->n_b_g1);
    put_g1s(s, p->b_g1, p->n_b_g1);
    put_count(s, p->n_b_g2);
    put_g2s(s, p->b_g2, p->n_b_g2);
}

static int write_file(const char *path, const void *obj, void (*emit)(sink *, const void *))
{
    if (!path || !obj) return err_set(CUZK_EINVAL, "NULL path or key");
    FILE *f = fopen(path, "wb");
    if (!f) return err_set(CUZK_EIO, "cannot create %s: %s", path, strerror(errno));
    static _Thread_local char iobuf[1 << 16];
    setvbuf(f, iobuf, _IOFBF, sizeof iobuf);
    sink s = {.f = f};
    emit(&s, obj);
    int e = s.failed ? errno : 0;
    if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
    if (s.failed || e) return err_set(CUZK_EIO, "cannot write %s: %s", path, strerror(e ? e : EIO));
    return CUZK_OK;
}

static void emit_params(sink *s, const void *p) { put_params(s, p); }
static void emit_vk(sink *s, const void *vk) { put_vk(s, vk); }

int groth16_params_write(const char *path, const groth16_params *p)
{
    return write_file(path, p, emit_params);
}

int groth16_vk_write(const char *path, const groth16_vk *vk) { return write_file(path, vk, emit_vk); }

static int serialize(const void *obj, void (*emit)(sink *, const void *), uint8_t **out, size_t *out_len)
{
    if (!obj || !out || !out_len) return err_set(CUZK_EINVAL, "NULL key or output");
    sink s = {0};
    emit(&s, obj);
    if (s.failed) {
        free(s.mem);
        return err_set(CUZK_ENOMEM, "cannot allocate %zu bytes for the serialized key", s.len);
    }
    *out = s.mem;
    *out_len = s.len;
    return CUZK_OK;
}

int groth16_vk_serialize(const groth16_vk *vk, uint8_t **out, size_t *out_len)
{
    return serialize(vk, emit_vk, out, out_len);
}

int groth16_params_serialize(const groth16_params *p, uint8_t **out, size_t *out_len)
{
    return serialize(p, emit_params, out, out_len);
}
