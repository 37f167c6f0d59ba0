/*
 * The iden3 binary container shared by .r1cs and .wtns: mapping a file, walking its section
 * table with every size checked, and refusing any field but BLS12-381's r by name.
 */
#include "groth16/circom_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

int cfile_map_open(const char *path, cfile_map *m)
{
    m->data = NULL;
    m->len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return err_set(CUZK_EIO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return err_set(CUZK_EIO, "cannot stat %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return err_set(CUZK_EIO, "%s is not a regular file", path);
    }
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return err_set(CUZK_EIO, "cannot map %s: %s", path, strerror(e));
        }
        m->data = p;
        m->len = (size_t)st.st_size;
    }
    close(fd);
    return CUZK_OK;
}

void cfile_map_close(cfile_map *m)
{
    if (m->data) munmap((void *)m->data, m->len);
    m->data = NULL;
    m->len = 0;
}

int cfile_parse(const cfile_map *m, const char magic[4], uint32_t version, const char *kind,
                cfile_section sec[CFILE_MAX_ID + 1])
{
    memset(sec, 0, sizeof(cfile_section) * (CFILE_MAX_ID + 1));
    if (m->len < 12)
        return err_set(CUZK_EFORMAT, "%s file is %zu bytes, shorter than its 12-byte header",
                       kind, m->len);
    const uint8_t *d = m->data;
    if (memcmp(d, magic, 4) != 0)
        return err_set(CUZK_EFORMAT,
                       "not a .%s file: magic at offset 0 is %02x %02x %02x %02x, expected \"%.4s\"",
                       kind, d[0], d[1], d[2], d[3], magic);
    uint32_t v = cfile_u32(d + 4);
    if (v != version)
        return err_set(CUZK_EFORMAT, ".%s version %u is not supported (expected %u)", kind, v,
                       version);
    uint32_t nsec = cfile_u32(d + 8);
    size_t off = 12;
    for (uint32_t i = 0; i < nsec; i++) {
        if (m->len - off < 12)
            return err_set(CUZK_EFORMAT,
                           ".%s declares %u sections but section %u's 12-byte header at offset "
                           "%zu runs past the end of the file (%zu bytes)",
                           kind, nsec, i, off, m->len);
        uint32_t id = cfile_u32(d + off);
        uint64_t size = cfile_u64(d + off + 4);
        off += 12;
        if (size > m->len - off)
            return err_set(CUZK_EFORMAT,
                           ".%s section %u (id %u) at offset %zu is %llu bytes but only %zu "
                           "remain in the file",
                           kind, i, id, off, (unsigned long long)size, m->len - off);
        if (id >= 1 && id <= CFILE_MAX_ID) {
            if (sec[id].off)
                return err_set(CUZK_EFORMAT,
                               ".%s section id %u appears twice (offsets %zu and %zu)", kind, id,
                               sec[id].off - 12, off - 12);
            sec[id].off = off;
            sec[id].size = size;
        }
        off += (size_t)size;
    }
    if (off != m->len)
        return err_set(CUZK_EFORMAT, ".%s has %zu trailing bytes after its %u sections (offset %zu)",
                       kind, m->len - off, nsec, off);
    return CUZK_OK;
}

/* The fields circom 2 can compile for (`--prime`), by their modulus, big-endian hex. */
static const struct { const char *name; const char *hex; } known_primes[] = {
    {"bn128", "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001"},
    {"bls12377", "12ab655e9a2ca55660b44d1e5c37b00159aa76fed00000010a11800000000001"},
    {"goldilocks", "ffffffff00000001"},
    {"grumpkin", "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47"},
    {"pallas", "40000000000000000000000000000000224698fc094cf91b992d30ed00000001"},
    {"secq256r1", "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"},
    {"vesta", "40000000000000000000000000000000224698fc0994a8dd8c46eb2100000001"},
};

int cfile_check_field(const char *kind, uint32_t n8, const uint8_t *prime, size_t off)
{
    uint8_t r_le[32];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) r_le[i * 8 + j] = (uint8_t)(FR_MODULUS[i] >> (8 * j));
    if (n8 == 32 && memcmp(prime, r_le, 32) == 0) return CUZK_OK;

    /* Name what was found: hex without leading zeros, and the curve when circom knows it. */
    char hex[2 * 64 + 1] = "0";
    size_t shown = n8 <= 64 ? n8 : 64, h = 0;
    for (size_t i = shown; i-- > 0;) {
        if (h == 0 && prime[i] == 0 && i > 0) continue;
        h += (size_t)snprintf(hex + h, sizeof hex - h, h ? "%02x" : "%x", prime[i]);
    }
    const char *name = NULL;
    for (size_t k = 0; k < sizeof known_primes / sizeof known_primes[0]; k++)
        if (strcmp(hex, known_primes[k].hex) == 0) name = known_primes[k].name;
    return err_set(CUZK_EFORMAT,
                   ".%s is over the prime 0x%s%s (%s%sn8 = %u, offset %zu); libcuzk supports only "
                   "BLS12-381's scalar field r = 0x73eda753...00000001 (compile with circom "
                   "--prime bls12381)",
                   kind, hex, n8 > 64 ? "..." : "", name ? name : "", name ? "; " : "", n8, off);
}

/* ---- writing (the writers' little helpers; each returns 0 or -1) ---- */

int cfile_put(FILE *f, const void *p, size_t n) { return fwrite(p, 1, n, f) == n ? 0 : -1; }
int cfile_put_u32(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return cfile_put(f, b, 4);
}
int cfile_put_u64(FILE *f, uint64_t v)
{
    return cfile_put_u32(f, (uint32_t)v) | cfile_put_u32(f, (uint32_t)(v >> 32));
}
int cfile_put_fr(FILE *f, const fr_t *mont)
{
    uint8_t b[32];
    fr_to_le32(b, mont);
    return cfile_put(f, b, 32);
}
int cfile_put_modulus(FILE *f)
{
    uint8_t b[32];
    for (int i = 0; i < 32; i++) b[i] = (uint8_t)(FR_MODULUS[i / 8] >> (8 * (i % 8)));
    return cfile_put(f, b, 32);
}
