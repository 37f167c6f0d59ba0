/*
 * snarkjs/circom .wtns files (version 2): the reader behind cuzk_wtns_load, which hands the
 * values over canonical, the writer `cuzk gen` uses, and cuzk_free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "groth16/circom_file.h"

static int load_mapped(const cfile_map *m, cuzk_fr **values, uint64_t *count)
{
    cfile_section sec[CFILE_MAX_ID + 1];
    int rc = cfile_parse(m, "wtns", 2, "wtns", sec);
    if (rc) return rc;
    if (!sec[1].off) return err_set(CUZK_EFORMAT, ".wtns has no header section (id 1)");
    if (!sec[2].off) return err_set(CUZK_EFORMAT, ".wtns has no values section (id 2)");
    const uint8_t *h = m->data + sec[1].off;
    if (sec[1].size < 4)
        return err_set(CUZK_EFORMAT, ".wtns header section at offset %zu is %llu bytes, too short "
                       "for its field size", sec[1].off, (unsigned long long)sec[1].size);
    uint32_t n8 = cfile_u32(h);
    if (sec[1].size < 4 + (uint64_t)n8)
        return err_set(CUZK_EFORMAT, ".wtns header section at offset %zu is %llu bytes, too short "
                       "for its %u-byte prime", sec[1].off, (unsigned long long)sec[1].size, n8);
    rc = cfile_check_field("wtns", n8, h + 4, sec[1].off + 4);
    if (rc) return rc;
    if (sec[1].size != 4 + 32 + 4)
        return err_set(CUZK_EFORMAT, ".wtns header section at offset %zu is %llu bytes, expected 40",
                       sec[1].off, (unsigned long long)sec[1].size);
    uint32_t n = cfile_u32(h + 36);
    if (sec[2].size != (uint64_t)n * 32)
        return err_set(CUZK_EFORMAT, ".wtns declares %u values (%llu bytes) but its values section "
                       "at offset %zu is %llu bytes",
                       n, (unsigned long long)n * 32, sec[2].off, (unsigned long long)sec[2].size);
    cuzk_fr *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return err_set(CUZK_ENOMEM, "cannot allocate %u witness values", n);
    const uint8_t *d = m->data + sec[2].off;
    for (uint32_t i = 0; i < n; i++, d += 32) {
        for (int l = 0; l < 4; l++) v[i].l[l] = cfile_u64(d + 8 * l);
        fr_t t;
        memcpy(&t, &v[i], sizeof t);
        if (!fr_is_canonical(&t)) {
            free(v);
            return err_set(CUZK_EFORMAT, ".wtns value %u (offset %zu) is >= r", i,
                           (size_t)(d - m->data));
        }
    }
    *values = v;
    *count = n;
    return CUZK_OK;
}

CUZK_API int cuzk_wtns_load(const char *path, cuzk_fr **values, uint64_t *count)
{
    if (!path || !values || !count)
        return err_set(CUZK_EINVAL, "cuzk_wtns_load: path, values or count is NULL");
    *values = NULL;
    *count = 0;
    cfile_map m;
    int rc = cfile_map_open(path, &m);
    if (rc) return rc;
    rc = load_mapped(&m, values, count);
    cfile_map_close(&m);
    if (rc == CUZK_EFORMAT) { /* say which file */
        char detail[400];
        snprintf(detail, sizeof detail, "%s", err_detail());
        err_set(rc, "%s: %s", path, detail);
    }
    return err_done(rc);
}

CUZK_API void cuzk_free(void *p) { free(p); }

int circom_wtns_write(const char *path, const fr_t *values, uint64_t count)
{
    if (count > UINT32_MAX) return err_set(CUZK_EINVAL, "%llu values do not fit a .wtns file",
                                           (unsigned long long)count);
    FILE *f = fopen(path, "wb");
    if (!f) return err_set(CUZK_EIO, "cannot create %s: %s", path, strerror(errno));
    int bad = cfile_put(f, "wtns", 4) | cfile_put_u32(f, 2) | cfile_put_u32(f, 2);
    bad |= cfile_put_u32(f, 1) | cfile_put_u64(f, 40);
    bad |= cfile_put_u32(f, 32) | cfile_put_modulus(f) | cfile_put_u32(f, (uint32_t)count);
    bad |= cfile_put_u32(f, 2) | cfile_put_u64(f, count * 32);
    for (uint64_t i = 0; i < count && !bad; i++) bad |= cfile_put_fr(f, &values[i]);
    if (fclose(f) != 0) bad = 1;
    if (bad) return err_set(CUZK_EIO, "cannot write %s: %s", path, strerror(errno));
    return CUZK_OK;
}
