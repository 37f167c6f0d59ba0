/*
 * circom .r1cs / snarkjs .wtns readers and the witness-to-partition step: every malformed
 * kind is CUZK_EFORMAT with a message that says what is wrong, a wrong prime is named, an
 * unsatisfied witness is CUZK_EINVAL naming the constraint. Also: the synthetic PoRep circuit
 * round-trips through the files and matches its own direct partition, with PoRep's densities.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cuzk/r1cs.h"
#include "groth16/circom_file.h"
#include "groth16/csc.h"
#include "groth16/synth.h"
#include "support/testutil.h"

/* ---- a byte builder ---- */

typedef struct buf {
    uint8_t d[8192];
    size_t n;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    assert_true(b->n + n <= sizeof b->d);
    memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void u32(buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, x, 4);
}
static void u64(buf *b, uint64_t v)
{
    u32(b, (uint32_t)v);
    u32(b, (uint32_t)(v >> 32));
}

/* 32-byte little-endian scalars */
static const uint8_t R_LE[32] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                                 0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                                 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
static void fr_small(buf *b, uint64_t v)
{
    u64(b, v);
    u64(b, 0);
    u64(b, 0);
    u64(b, 0);
}
static void fr_minus(buf *b, uint64_t v) /* r - v, v small and > 0 */
{
    uint8_t x[32];
    memcpy(x, R_LE, 32);
    unsigned borrow = 0;
    for (int i = 0; i < 32; i++) {
        unsigned sub = (i < 8 ? (unsigned)((v >> (8 * i)) & 0xff) : 0) + borrow;
        borrow = x[i] < sub;
        x[i] = (uint8_t)(x[i] - sub);
    }
    put(b, x, 32);
}

/* ---- the reference circuit: wires ONE, out o, public x, private y, internal t ----
 *   c0: x·y = t      c1: (t + ONE)·x = o      c2: y·(−ONE) = −y
 * witness (1, 48, 3, 5, 15). Knobs break one thing at a time. */
typedef struct knobs {
    const char *magic;
    uint32_t version, n8, nwires, nout, nin, nprv, ncons;
    int nsec_extra, header_extra, dup_header, no_header, no_cons, custom_gates, map_bytes_off;
    int trailing, cons_extra_bytes, bad_wire, big_coeff, truncate_terms, swap_order, dup_wire;
    int no_map;       /* no wire-to-label section (optional): nwires is then bounded by nothing */
    int long_dup;     /* c0's A: 20 terms on wires 100.., term 17 repeats term 5's wire */
    const uint8_t *prime; /* n8 bytes; NULL = r */
} knobs;

static knobs good(void)
{
    knobs k;
    memset(&k, 0, sizeof k);
    k.magic = "r1cs";
    k.version = 1;
    k.n8 = 32;
    k.nwires = 5;
    k.nout = 1;
    k.nin = 1;
    k.nprv = 1;
    k.ncons = 3;
    return k;
}

static void lc(buf *b, int n, ...) /* n (wire, coefficient) pairs; coefficient < 0 = r - |c| */
{
    va_list ap;
    va_start(ap, n);
    u32(b, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        u32(b, va_arg(ap, uint32_t));
        int64_t c = va_arg(ap, int64_t);
        if (c < 0) fr_minus(b, (uint64_t)-c);
        else fr_small(b, (uint64_t)c);
    }
    va_end(ap);
}

static void build_r1cs(buf *f, const knobs *k)
{
    buf hdr = {.n = 0}, cons = {.n = 0}, map = {.n = 0};
    u32(&hdr, k->n8);
    if (k->prime) put(&hdr, k->prime, k->n8);
    else put(&hdr, R_LE, 32);
    u32(&hdr, k->nwires);
    u32(&hdr, k->nout);
    u32(&hdr, k->nin);
    u32(&hdr, k->nprv);
    u64(&hdr, k->nwires);
    u32(&hdr, k->ncons);
    for (int i = 0; i < k->header_extra; i++) put(&hdr, "", 1);

    if (k->dup_wire) lc(&cons, 2, 2u, (int64_t)1, 2u, (int64_t)1); /* c0: A = x + x */
    else if (k->long_dup) {
        u32(&cons, 20);
        for (uint32_t t = 0; t < 20; t++) u32(&cons, t == 17 ? 105u : 100u + t), fr_small(&cons, 1);
    } else lc(&cons, 1, 2u, (int64_t)1);                       /* c0: A = x */
    lc(&cons, 1, 3u, (int64_t)1);                              /*     B = y */
    lc(&cons, 1, 4u, (int64_t)1);                              /*     C = t */
    lc(&cons, 2, 4u, (int64_t)1, 0u, (int64_t)1);              /* c1: A = t + ONE */
    lc(&cons, 1, k->bad_wire ? 5u : 2u, (int64_t)1);           /*     B = x */
    if (k->big_coeff) {                                        /*     C = o (coeff r) */
        u32(&cons, 1);
        u32(&cons, 1);
        put(&cons, R_LE, 32);
    } else {
        lc(&cons, 1, 1u, (int64_t)1);
    }
    lc(&cons, 1, 3u, (int64_t)1);                              /* c2: A = y */
    lc(&cons, 1, 0u, (int64_t)-1);                             /*     B = -ONE */
    if (k->truncate_terms) u32(&cons, 2), u32(&cons, 3), fr_minus(&cons, 1);
    else lc(&cons, 1, 3u, (int64_t)-1);                        /*     C = -y */
    for (int i = 0; i < k->cons_extra_bytes; i++) put(&cons, "\0", 1);

    for (uint32_t i = 0; i < 5; i++) u64(&map, i);
    map.n = (size_t)((int)map.n + k->map_bytes_off);

    int nsec = 3 - k->no_header - k->no_cons - k->no_map + k->dup_header + 2 * k->custom_gates;
    put(f, k->magic, 4);
    u32(f, k->version);
    u32(f, (uint32_t)(nsec + k->nsec_extra));
    if (!k->no_cons && k->swap_order) { u32(f, 2); u64(f, cons.n); put(f, cons.d, cons.n); }
    for (int h = 0; h < 1 + k->dup_header; h++)
        if (!k->no_header) { u32(f, 1); u64(f, hdr.n); put(f, hdr.d, hdr.n); }
    if (!k->no_cons && !k->swap_order) { u32(f, 2); u64(f, cons.n); put(f, cons.d, cons.n); }
    if (!k->no_map) { u32(f, 3); u64(f, map.n); put(f, map.d, map.n); }
    if (k->custom_gates) { u32(f, 4); u64(f, 4); u32(f, 0); u32(f, 5); u64(f, 4); u32(f, 0); }
    for (int i = 0; i < k->trailing; i++) put(f, "x", 1);
}

static char tmpdir[64];

static const char *write_tmp(const char *name, const buf *b)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->d, 1, b->n, f), b->n);
    fclose(f);
    return path;
}

static int load_r1cs_knobs(const knobs *k, cuzk_r1cs **out)
{
    buf f = {.n = 0};
    build_r1cs(&f, k);
    return cuzk_r1cs_load(write_tmp("t.r1cs", &f), out);
}

/* The load fails with code, and the message contains every given word. */
static void expect_r1cs(const knobs *k, int code, const char *w1, const char *w2)
{
    cuzk_r1cs *r = (cuzk_r1cs *)0x1;
    int rc = load_r1cs_knobs(k, &r);
    if (rc != code || (w1 && !strstr(cuzk_last_error(), w1)) || (w2 && !strstr(cuzk_last_error(), w2)))
        fail_msg("got %d '%s', expected %d with '%s' '%s'", rc, cuzk_last_error(), code,
                 w1 ? w1 : "", w2 ? w2 : "");
    if (rc == CUZK_OK) cuzk_r1cs_free(r);
    else assert_null(r);
    if (rc) printf("  r1cs: %s\n", cuzk_last_error());
}

static void r1cs_good_loads(void **state)
{
    (void)state;
    knobs k = good();
    expect_r1cs(&k, CUZK_OK, NULL, NULL);
    k.swap_order = 1; /* sections in any order */
    expect_r1cs(&k, CUZK_OK, NULL, NULL);
}

/* The .r1cs read straight into the compact form (circom_r1cs_load_csc, cuzk_cs_load's path):
 * its longest row is csc_finalize's, equal to a scan of the offsets. */
static void r1cs_to_csc_longest_row(void **state)
{
    (void)state;
    knobs k = good();
    buf f = {.n = 0};
    build_r1cs(&f, &k);
    csc c;
    assert_int_equal(csc_load_any(write_tmp("t.r1cs", &f), NULL, &c), CUZK_OK);
    uint64_t longest = 0;
    for (int w = 0; w < 3; w++)
        for (uint64_t r = 0; r < c.abc_len; r++)
            if (c.m[w].row[r + 1] - c.m[w].row[r] > longest) longest = c.m[w].row[r + 1] - c.m[w].row[r];
    assert_true(longest >= 2); /* the reference circuit has a two-term row */
    assert_int_equal(c.longest_row, longest);
    csc_free(&c);
}

static void r1cs_container_errors(void **state)
{
    (void)state;
    knobs k;
    k = good(); k.magic = "r1cz"; expect_r1cs(&k, CUZK_EFORMAT, "magic", "\"r1cs\"");
    k = good(); k.magic = "wtns"; expect_r1cs(&k, CUZK_EFORMAT, "magic", NULL);
    k = good(); k.version = 2; expect_r1cs(&k, CUZK_EFORMAT, "version 2", NULL);
    k = good(); k.nsec_extra = 1; expect_r1cs(&k, CUZK_EFORMAT, "declares 4 sections", "past the end");
    k = good(); k.nsec_extra = -1; expect_r1cs(&k, CUZK_EFORMAT, "trailing", NULL);
    k = good(); k.trailing = 3; expect_r1cs(&k, CUZK_EFORMAT, "3 trailing bytes", NULL);
    k = good(); k.dup_header = 1; expect_r1cs(&k, CUZK_EFORMAT, "section id 1 appears twice", NULL);
    k = good(); k.no_header = 1; expect_r1cs(&k, CUZK_EFORMAT, "no header section", NULL);
    k = good(); k.no_cons = 1; expect_r1cs(&k, CUZK_EFORMAT, "no constraints section", NULL);
    k = good(); k.custom_gates = 1; expect_r1cs(&k, CUZK_EFORMAT, "custom gates", "PLONK");
    k = good(); k.map_bytes_off = -8; expect_r1cs(&k, CUZK_EFORMAT, "wire-to-label", "expected 8 per wire");

    /* a section whose size runs past the end of the file */
    buf f = {.n = 0};
    k = good();
    build_r1cs(&f, &k);
    f.n -= 10; /* cut into the last section */
    cuzk_r1cs *r;
    assert_int_equal(cuzk_r1cs_load(write_tmp("cut.r1cs", &f), &r), CUZK_EFORMAT);
    assert_non_null(strstr(cuzk_last_error(), "remain in the file"));
    for (size_t n = 0; n < 12; n++) { /* shorter than the header, the empty file included */
        f.n = n;
        assert_int_equal(cuzk_r1cs_load(write_tmp("tiny.r1cs", &f), &r), CUZK_EFORMAT);
        assert_non_null(strstr(cuzk_last_error(), "shorter than its 12-byte header"));
    }
    /* every truncation of a good file fails cleanly */
    f.n = 0;
    build_r1cs(&f, &k);
    size_t full = f.n;
    for (size_t n = 12; n < full; n++) {
        f.n = n;
        assert_int_equal(cuzk_r1cs_load(write_tmp("trunc.r1cs", &f), &r), CUZK_EFORMAT);
    }
}

static void r1cs_field_errors(void **state)
{
    (void)state;
    static const uint8_t bn128[32] = {0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9,
                                      0x79, 0x48, 0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
                                      0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
    static const uint8_t goldilocks[8] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff};
    uint8_t odd[32];
    memcpy(odd, R_LE, 32);
    odd[0] ^= 2;
    knobs k;
    k = good(); k.prime = bn128;
    expect_r1cs(&k, CUZK_EFORMAT, "0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001 (bn128;",
                "--prime bls12381");
    k = good(); k.prime = goldilocks; k.n8 = 8; expect_r1cs(&k, CUZK_EFORMAT, "(goldilocks; n8 = 8", NULL);
    k = good(); k.prime = odd; expect_r1cs(&k, CUZK_EFORMAT, "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000003", "BLS12-381");
    k = good(); k.n8 = 200; expect_r1cs(&k, CUZK_EFORMAT, "too short for its 200-byte prime", NULL);
}

static void r1cs_count_errors(void **state)
{
    (void)state;
    knobs k;
    k = good(); k.header_extra = 4; expect_r1cs(&k, CUZK_EFORMAT, "header section", "expected 64");
    k = good(); k.nwires = 3; expect_r1cs(&k, CUZK_EFORMAT, "3 wires, fewer than", NULL);
    k = good(); k.nprv = 3; expect_r1cs(&k, CUZK_EFORMAT, "5 wires, fewer than", NULL);
    k = good(); k.ncons = 4; expect_r1cs(&k, CUZK_EFORMAT, "constraint 3", "runs past the end");
    k = good(); k.ncons = 2; expect_r1cs(&k, CUZK_EFORMAT, "left after its 2 constraints", NULL);
    k = good(); k.cons_extra_bytes = 5; expect_r1cs(&k, CUZK_EFORMAT, "5 bytes left", NULL);
    k = good(); k.bad_wire = 1; expect_r1cs(&k, CUZK_EFORMAT, "constraint 1: B term 0", "wire 5");
    k = good(); k.big_coeff = 1; expect_r1cs(&k, CUZK_EFORMAT, "constraint 1: C term 0", ">= r");
    k = good(); k.dup_wire = 1; expect_r1cs(&k, CUZK_EFORMAT, "constraint 0: A term 1", "repeats wire 2");
    k = good(); k.truncate_terms = 1; expect_r1cs(&k, CUZK_EFORMAT, "constraint 2: C has 2 terms", NULL);
}

/* Regression (found by fuzz_r1cs): the reader sized a per-wire table by the header's wire
 * count, so a file of a few hundred bytes declaring 2^32 - 1 wires (no wire-to-label section
 * to contradict it) made a 32 GiB allocation. Now memory follows the file's own bytes: the
 * load runs in a child whose address space is capped at 1 GiB above what it has. */
static void r1cs_huge_wire_count(void **state)
{
    (void)state;
    knobs k = good();
    k.no_map = 1;
    expect_r1cs(&k, CUZK_OK, NULL, NULL); /* the section is optional */
    k.nwires = 0xffffffffu;
    buf f = {.n = 0};
    build_r1cs(&f, &k);
    const char *path = write_tmp("huge.r1cs", &f);
    print_message("%zu-byte file declaring %u wires\n", f.n, k.nwires);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    /* sanitizers reserve terabytes of shadow: no address-space cap; load it plainly */
    cuzk_r1cs *r;
    assert_int_equal(cuzk_r1cs_load(path, &r), CUZK_OK);
    assert_int_equal(r->n_wires, 0xffffffffu);
    cuzk_r1cs_free(r);
#else
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *st = fopen("/proc/self/statm", "r");
        unsigned long long pages = 0;
        if (!st || fscanf(st, "%llu", &pages) != 1) _exit(3);
        fclose(st);
        struct rlimit rl;
        rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)1 << 30);
        if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(4);
        cuzk_r1cs *r = NULL;
        int rc = cuzk_r1cs_load(path, &r);
        if (rc != CUZK_OK) {
            fprintf(stderr, "load: %d %s\n", rc, cuzk_last_error());
            _exit(1);
        }
        cuzk_r1cs_free(r);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
#endif
    /* a repeat in a long combination (the sorted path), far from wire 0 */
    k.long_dup = 1;
    expect_r1cs(&k, CUZK_EFORMAT, "constraint 0: A term 17", "repeats wire 105");
    k.nwires = 110; /* and the same wires against a small count: the range check first */
    expect_r1cs(&k, CUZK_EFORMAT, "constraint 0: A term 10", "uses wire 110");
}

static void r1cs_io_and_null(void **state)
{
    (void)state;
    cuzk_r1cs *r;
    char path[128];
    snprintf(path, sizeof path, "%s/does-not-exist.r1cs", tmpdir);
    assert_int_equal(cuzk_r1cs_load(path, &r), CUZK_EIO);
    assert_non_null(strstr(cuzk_last_error(), "does-not-exist.r1cs"));
    assert_int_equal(cuzk_r1cs_load(tmpdir, &r), CUZK_EIO); /* a directory */
    assert_int_equal(cuzk_r1cs_load(NULL, &r), CUZK_EINVAL);
    assert_int_equal(cuzk_r1cs_load(path, NULL), CUZK_EINVAL);
    cuzk_r1cs_free(NULL);
    cuzk_free(NULL);
}

/* ---- .wtns ---- */

typedef struct wknobs {
    const char *magic;
    uint32_t version, n8, count;
    const uint8_t *prime;
    int nvalues, big_value, no_header, no_values, dup_values, trailing, header_extra;
} wknobs;

static wknobs wgood(void)
{
    wknobs k;
    memset(&k, 0, sizeof k);
    k.magic = "wtns";
    k.version = 2;
    k.n8 = 32;
    k.count = 5;
    k.nvalues = 5;
    k.big_value = -1;
    return k;
}

static void build_wtns(buf *f, const wknobs *k)
{
    static const uint64_t w[5] = {1, 48, 3, 5, 15};
    buf hdr = {.n = 0}, vals = {.n = 0};
    u32(&hdr, k->n8);
    put(&hdr, k->prime ? k->prime : R_LE, k->prime ? k->n8 : 32);
    u32(&hdr, k->count);
    for (int i = 0; i < k->header_extra; i++) put(&hdr, "", 1);
    for (int i = 0; i < k->nvalues; i++) {
        if (i == k->big_value) put(&vals, R_LE, 32);
        else fr_small(&vals, w[i % 5]);
    }
    put(f, k->magic, 4);
    u32(f, k->version);
    u32(f, (uint32_t)(2 - k->no_header - k->no_values + k->dup_values));
    if (!k->no_values) { u32(f, 2); u64(f, vals.n); put(f, vals.d, vals.n); } /* values first */
    if (k->dup_values) { u32(f, 2); u64(f, vals.n); put(f, vals.d, vals.n); }
    if (!k->no_header) { u32(f, 1); u64(f, hdr.n); put(f, hdr.d, hdr.n); }
    for (int i = 0; i < k->trailing; i++) put(f, "x", 1);
}

static void expect_wtns(const wknobs *k, int code, const char *w1, const char *w2)
{
    buf f = {.n = 0};
    build_wtns(&f, k);
    cuzk_fr *v = (cuzk_fr *)0x1;
    uint64_t n = 77;
    int rc = cuzk_wtns_load(write_tmp("t.wtns", &f), &v, &n);
    if (rc != code || (w1 && !strstr(cuzk_last_error(), w1)) || (w2 && !strstr(cuzk_last_error(), w2)))
        fail_msg("got %d '%s', expected %d with '%s' '%s'", rc, cuzk_last_error(), code,
                 w1 ? w1 : "", w2 ? w2 : "");
    if (rc) printf("  wtns: %s\n", cuzk_last_error());
    if (rc == CUZK_OK) {
        assert_int_equal(n, 5);
        assert_int_equal(v[1].l[0], 48);
        assert_int_equal(v[4].l[0], 15);
        assert_int_equal(v[4].l[3], 0);
        cuzk_free(v);
    } else {
        assert_null(v);
        assert_int_equal(n, 0);
    }
}

static void wtns_cases(void **state)
{
    (void)state;
    static const uint8_t bls12377[32] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x80, 0x11, 0x0a, 0x01, 0x00, 0x00,
                                         0xd0, 0xfe, 0x76, 0xaa, 0x59, 0x01, 0xb0, 0x37, 0x5c, 0x1e, 0x4d,
                                         0xb4, 0x60, 0x56, 0xa5, 0x2c, 0x9a, 0x5e, 0x65, 0xab, 0x12};
    wknobs k;
    k = wgood(); expect_wtns(&k, CUZK_OK, NULL, NULL);
    k = wgood(); k.magic = "r1cs"; expect_wtns(&k, CUZK_EFORMAT, "magic", "\"wtns\"");
    k = wgood(); k.version = 1; expect_wtns(&k, CUZK_EFORMAT, "version 1", "expected 2");
    k = wgood(); k.prime = bls12377; expect_wtns(&k, CUZK_EFORMAT, "(bls12377;", NULL);
    k = wgood(); k.n8 = 16; expect_wtns(&k, CUZK_EFORMAT, "n8 = 16", NULL);
    k = wgood(); k.count = 6; expect_wtns(&k, CUZK_EFORMAT, "declares 6 values", "160 bytes");
    k = wgood(); k.nvalues = 4; expect_wtns(&k, CUZK_EFORMAT, "declares 5 values", "128 bytes");
    k = wgood(); k.big_value = 3; expect_wtns(&k, CUZK_EFORMAT, "value 3", ">= r");
    k = wgood(); k.no_header = 1; expect_wtns(&k, CUZK_EFORMAT, "no header section", NULL);
    k = wgood(); k.no_values = 1; expect_wtns(&k, CUZK_EFORMAT, "no values section", NULL);
    k = wgood(); k.dup_values = 1; expect_wtns(&k, CUZK_EFORMAT, "section id 2 appears twice", NULL);
    k = wgood(); k.trailing = 1; expect_wtns(&k, CUZK_EFORMAT, "1 trailing bytes", NULL);
    k = wgood(); k.header_extra = 1; expect_wtns(&k, CUZK_EFORMAT, "expected 40", NULL);

    buf f = {.n = 0};
    k = wgood();
    build_wtns(&f, &k);
    size_t full = f.n;
    cuzk_fr *v;
    uint64_t n;
    for (size_t len = 0; len < full; len++) {
        f.n = len;
        assert_int_equal(cuzk_wtns_load(write_tmp("trunc.wtns", &f), &v, &n), CUZK_EFORMAT);
    }
    assert_int_equal(cuzk_wtns_load(NULL, &v, &n), CUZK_EINVAL);
    assert_int_equal(cuzk_wtns_load("x", NULL, &n), CUZK_EINVAL);
    assert_int_equal(cuzk_wtns_load("/nonexistent/x.wtns", &v, &n), CUZK_EIO);
}

/* ---- witness -> partition ---- */

static void partition_from_reference_circuit(void **state)
{
    (void)state;
    knobs k = good();
    cuzk_r1cs *r;
    assert_int_equal(load_r1cs_knobs(&k, &r), CUZK_OK);
    cuzk_fr w[5];
    memset(w, 0, sizeof w);
    uint64_t vals[5] = {1, 48, 3, 5, 15};
    for (int i = 0; i < 5; i++) w[i].l[0] = vals[i];

    cuzk_partition p;
    assert_int_equal(cuzk_r1cs_partition(r, w, 5, &p), CUZK_OK);
    assert_int_equal(p.scalar_form, CUZK_FR_CANONICAL);
    assert_int_equal(p.num_inputs, 3); /* ONE, o, x */
    assert_int_equal(p.num_aux, 2);    /* y, t */
    assert_int_equal(p.abc_len, 3 + 3);
    /* a = (x, t + 1, y, then the inputs 1, o, x), b = (y, x, -1, 0, 0, 0), c = (t, o, -y, 0...) */
    uint64_t ea[6] = {3, 16, 5, 1, 48, 3}, eb[6] = {5, 3, 0, 0, 0, 0}, ec[6] = {15, 48, 0, 0, 0, 0};
    for (int i = 0; i < 6; i++) {
        if (i == 2) continue;
        assert_int_equal(p.a[i].l[0], ea[i]);
        assert_int_equal(p.b[i].l[0], eb[i]);
        assert_int_equal(p.c[i].l[0], ec[i]);
        assert_int_equal(p.a[i].l[3] | p.b[i].l[3] | p.c[i].l[3], 0);
    }
    /* row 2: b = r - 1, c = r - 5 */
    assert_int_equal(p.a[2].l[0], 5);
    assert_int_equal(p.b[2].l[0], 0xffffffff00000000ULL);
    assert_int_equal(p.b[2].l[3], 0x73eda753299d7d48ULL);
    assert_int_equal(p.c[2].l[0], 0xfffffffefffffffcULL);
    /* inputs ONE, o, x; aux y, t */
    assert_int_equal(p.inputs[0].l[0], 1);
    assert_int_equal(p.inputs[1].l[0], 48);
    assert_int_equal(p.inputs[2].l[0], 3);
    assert_int_equal(p.aux[0].l[0], 5);
    assert_int_equal(p.aux[1].l[0], 15);
    /* A holds x, t, ONE, y -> aux y (0), t (1) both; B holds y, x, ONE -> inputs ONE, x; aux y */
    assert_int_equal(p.a_aux_density[0], 3);
    assert_int_equal(p.b_input_density[0], 5);
    assert_int_equal(p.b_aux_density[0], 1);
    p.release(p.release_user);

    /* unsatisfied: t = 16 breaks constraint 0 (and 1); the first is named */
    w[4].l[0] = 16;
    assert_int_equal(cuzk_r1cs_partition(r, w, 5, &p), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "constraint 0 "));
    assert_non_null(strstr(cuzk_last_error(), "does not satisfy"));
    w[4].l[0] = 15;
    w[1].l[0] = 49; /* o wrong: constraint 1 */
    assert_int_equal(cuzk_r1cs_partition(r, w, 5, &p), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "constraint 1 "));
    w[1].l[0] = 48;
    assert_int_equal(cuzk_r1cs_partition(r, w, 4, &p), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "4 values but the circuit has 5 wires"));
    w[0].l[0] = 2;
    assert_int_equal(cuzk_r1cs_partition(r, w, 5, &p), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "not 1"));
    w[0].l[0] = 1;
    memcpy(&w[2], R_LE, 32); /* x = r: not canonical */
    assert_int_equal(cuzk_r1cs_partition(r, w, 5, &p), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "witness value 2"));
    assert_int_equal(cuzk_r1cs_partition(NULL, w, 5, &p), CUZK_EINVAL);
    assert_int_equal(cuzk_r1cs_partition(r, NULL, 5, &p), CUZK_EINVAL);
    assert_int_equal(cuzk_r1cs_partition(r, w, 5, NULL), CUZK_EINVAL);
    cuzk_r1cs_free(r);
}

/* ---- the synthetic circuit ---- */

static uint64_t popcount(const uint64_t *bits, uint64_t n)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < (n + 63) / 64; i++) c += (uint64_t)__builtin_popcountll(bits[i]);
    return c;
}

/* A partition's a_aux and b_aux densities and the share of aux values that are 0 or 1
 * (canonical form), in percent, measured on the partition itself. */
static void densities(const cuzk_partition *p, double *da, double *db, double *dbits)
{
    uint64_t bits = 0;
    for (uint64_t i = 0; i < p->num_aux; i++)
        bits += p->aux[i].l[0] <= 1 && !p->aux[i].l[1] && !p->aux[i].l[2] && !p->aux[i].l[3];
    *da = 100.0 * (double)popcount(p->a_aux_density, p->num_aux) / (double)p->num_aux;
    *db = 100.0 * (double)popcount(p->b_aux_density, p->num_aux) / (double)p->num_aux;
    *dbits = 100.0 * (double)bits / (double)p->num_aux;
}

static void synth_roundtrip_and_shape(void **state)
{
    (void)state;
    uint8_t seed[32];
    test_rand_bytes(seed, 32);
    uint64_t n = getenv("CUZK_TEST_QUICK") ? 4000 : 20000;
    synth_cfg cfg;
    synth_cfg_default(&cfg, n, seed);
    cs sys;
    fr_t *in, *aux;
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_OK);
    assert_int_equal(sys.num_constraints, n);
    assert_int_equal(sys.num_inputs, n / 32 < 327 ? n / 32 + 1 : 328);
    assert_int_equal(cs_check_witness(&sys, in, aux), CUZK_OK);

    /* through the files and the public readers */
    char rp[128], wp[128];
    snprintf(rp, sizeof rp, "%s/s.r1cs", tmpdir);
    snprintf(wp, sizeof wp, "%s/s.wtns", tmpdir);
    uint64_t nw = sys.num_inputs + sys.num_aux;
    fr_t *all = malloc(nw * sizeof *all);
    memcpy(all, in, sys.num_inputs * sizeof *all);
    memcpy(all + sys.num_inputs, aux, sys.num_aux * sizeof *all);
    assert_int_equal(circom_r1cs_write(rp, &sys), CUZK_OK);
    assert_int_equal(circom_wtns_write(wp, all, nw), CUZK_OK);
    cuzk_r1cs *r;
    cuzk_fr *w;
    uint64_t count;
    assert_int_equal(cuzk_r1cs_load(rp, &r), CUZK_OK);
    assert_int_equal(cuzk_wtns_load(wp, &w, &count), CUZK_OK);
    assert_int_equal(count, nw);
    cuzk_partition p1, p2;
    assert_int_equal(cuzk_r1cs_partition(r, w, count, &p1), CUZK_OK);

    /* the direct (cs-free) evaluation agrees with the cs path, byte for byte */
    assert_int_equal(synth_partition(&cfg, CUZK_FR_CANONICAL, &p2), CUZK_OK);
    assert_int_equal(p1.abc_len, p2.abc_len);
    assert_int_equal(p1.num_aux, p2.num_aux);
    assert_memory_equal(p1.a, p2.a, p1.abc_len * 32);
    assert_memory_equal(p1.b, p2.b, p1.abc_len * 32);
    assert_memory_equal(p1.c, p2.c, p1.abc_len * 32);
    assert_memory_equal(p1.inputs, p2.inputs, p1.num_inputs * 32);
    assert_memory_equal(p1.aux, p2.aux, p1.num_aux * 32);
    uint64_t wa = (p1.num_aux + 63) / 64;
    assert_memory_equal(p1.a_aux_density, p2.a_aux_density, wa * 8);
    assert_memory_equal(p1.b_aux_density, p2.b_aux_density, wa * 8);
    assert_int_equal(p1.b_input_density[0] & 1, 1);

    /* PoRep's shape (FORMATS.md): a_aux 99.7 %, b_aux 25.4 %, b_input only ONE, ~90 % bits */
    double da, db, dbits;
    densities(&p1, &da, &db, &dbits);
    printf("synth %llu: a_aux %.2f %%, b_aux %.2f %%, bits %.2f %%, b_input %llu of %llu\n",
           (unsigned long long)n, da, db, dbits,
           (unsigned long long)popcount(p1.b_input_density, p1.num_inputs),
           (unsigned long long)p1.num_inputs);
    assert_true(da > 99.5 && da < 99.9);
    assert_true(db > 25.0 && db < 25.8);
    assert_true(dbits > 88.5 && dbits < 91.0);
    assert_int_equal(popcount(p1.b_input_density, p1.num_inputs), 1);

    /* deterministic from the seed; another seed, another witness */
    cuzk_partition p3;
    assert_int_equal(synth_partition(&cfg, CUZK_FR_CANONICAL, &p3), CUZK_OK);
    assert_memory_equal(p2.a, p3.a, p2.abc_len * 32);
    p3.release(p3.release_user);
    cfg.seed[0] ^= 1;
    assert_int_equal(synth_partition(&cfg, CUZK_FR_CANONICAL, &p3), CUZK_OK);
    assert_memory_not_equal(p2.aux, p3.aux, p2.num_aux * 32);
    p3.release(p3.release_user);

    p1.release(p1.release_user);
    p2.release(p2.release_user);
    cuzk_free(w);
    cuzk_r1cs_free(r);
    free(all);
    free(in);
    free(aux);
    cs_free(&sys);
    unlink(rp);
    unlink(wp);
}

/* The shape table: each shape's circuit is satisfied and has the table's densities and bit
 * share (measured on the partition, independently of the generator's bookkeeping); the
 * benches' fill rule gives the shape's size at its own domain and, for PoRep, the same
 * circuit as before the table existed. */
static void synth_shapes(void **state)
{
    (void)state;
    uint8_t seed[32] = {0x5a, 3};
    const char *names[] = {"porep", "snap", "wpost", "winning"};
    assert_null(synth_shape_find("nope"));
    assert_null(synth_shape_find(NULL));
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const synth_shape *sh = synth_shape_find(names[k]);
        assert_non_null(sh);
        assert_non_null(strstr(synth_shape_names(), names[k]));
        synth_cfg cfg;
        /* at full size: within 1 % of the real constraint count, every input kept */
        synth_cfg_for_shape_log(&cfg, sh, sh->log_domain, 0, seed);
        double off = ((double)cfg.constraints - (double)sh->constraints) / (double)sh->constraints;
        assert_true(off > -0.01 && off < 0.01);
        assert_int_equal(cfg.num_public, sh->num_public);
        /* at 2^14: satisfied, fits the domain, the table's proportions */
        synth_cfg_for_shape_log(&cfg, sh, 14, 0, seed);
        cs sys;
        fr_t *in, *aux;
        assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_OK);
        assert_int_equal(cs_check_witness(&sys, in, aux), CUZK_OK);
        free(in);
        free(aux);
        cs_free(&sys);
        cuzk_partition p;
        assert_int_equal(synth_partition(&cfg, CUZK_FR_CANONICAL, &p), CUZK_OK);
        assert_true(p.abc_len <= (1u << 14) && p.abc_len > (1u << 13));
        double fill = 100.0 * (double)p.abc_len / (double)(1u << 14);
        double da, db, dbits;
        densities(&p, &da, &db, &dbits);
        printf("shape %-7s 2^14: fill %.1f %%, %llu inputs, a_aux %.2f %%, b_aux %.2f %%, bits %.2f %%\n", sh->name,
               fill, (unsigned long long)p.num_inputs, da, db, dbits);
        assert_true(fill > sh->fill_pct - 1.0 && fill <= sh->fill_pct + 0.5);
        assert_true(da > 99.0);
        assert_true(db > sh->b_aux_pm / 10.0 - 1.0 && db < sh->b_aux_pm / 10.0 + 1.0);
        assert_true(dbits > sh->bit_share_pm / 10.0 - 1.5 && dbits < sh->bit_share_pm / 10.0 + 1.5);
        assert_int_equal(popcount(p.b_input_density, p.num_inputs), 1);
        p.release(p.release_user);
    }
    /* PoRep through the table = the benches' rule before it: constraints + inputs fill
     * `fill` % of the domain, inputs min(327, n/32) */
    const synth_shape *porep = synth_shape_find("porep");
    for (unsigned lg = 8; lg <= 27; lg++) {
        synth_cfg a, b;
        synth_cfg_for_shape_log(&a, porep, lg, 97, seed);
        uint64_t m = (uint64_t)1 << lg, target = m * 97 / 100, pub = target / 32 < 327 ? target / 32 : 327;
        synth_cfg_default(&b, target - 1 - pub, seed);
        assert_int_equal(a.constraints, b.constraints);
        assert_int_equal(a.num_public, b.constraints / 32 < 327 ? b.constraints / 32 : 327);
        assert_int_equal(a.bit_share_pm, b.bit_share_pm);
    }
}

static void synth_edges(void **state)
{
    (void)state;
    uint8_t seed[32] = {7};
    synth_cfg cfg;
    cs sys;
    fr_t *in, *aux;
    for (uint64_t n = 1; n <= 70; n++) { /* tiny circuits: every kind's first use */
        synth_cfg_default(&cfg, n, seed);
        assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_OK);
        assert_int_equal(cs_check_witness(&sys, in, aux), CUZK_OK);
        free(in);
        free(aux);
        cs_free(&sys);
    }
    for (unsigned lg = 1; lg <= 32; lg++) { /* the largest circuit of each domain size */
        synth_cfg_for_domain(&cfg, lg, seed);
        uint64_t ni = (cfg.constraints / 32 < 327 ? cfg.constraints / 32 : 327) + 1;
        uint64_t ni1 = ((cfg.constraints + 1) / 32 < 327 ? (cfg.constraints + 1) / 32 : 327) + 1;
        assert_true(cfg.constraints + ni <= ((uint64_t)1 << lg));
        assert_true(cfg.constraints + 1 + ni1 > ((uint64_t)1 << lg));
    }
    synth_cfg_default(&cfg, 0, seed);
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_EINVAL);
    synth_cfg_default(&cfg, 10, seed);
    cfg.num_public = 10;
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_EINVAL);
    cfg.num_public = 9;
    cfg.bit_share_pm = 1000;
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_OK);
    assert_int_equal(cs_check_witness(&sys, in, aux), CUZK_OK);
    free(in);
    free(aux);
    cs_free(&sys);
    cfg.bit_share_pm = 100;
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_EINVAL);
    cfg.bit_share_pm = 500;
    cfg.b_aux_pm = 100; /* fewer B variables than booleanity-checked bits */
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_EINVAL);
    cfg.b_aux_pm = 900; /* more non-bits in B than there are non-bits */
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_EINVAL);
    /* counts near 2^64 are refused, not wrapped past the domain check into an allocation */
    synth_cfg_default(&cfg, UINT64_MAX, seed);
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_EINVAL);
    synth_cfg_default(&cfg, UINT64_MAX - 400, seed);
    cfg.num_public = 400;
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_EINVAL);
    /* a domain and fill too small for any circuit (2^6 at 1 %: 0 slots) is refused too */
    synth_cfg_for_shape_log(&cfg, synth_shape_find("porep"), 6, 1, seed);
    assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_EINVAL);
    synth_cfg_default(&cfg, 10, seed);
    cfg.num_public = 9;
    cfg.bit_share_pm = 500;
    cfg.b_aux_pm = 600;
    for (uint64_t n = 10; n <= 80; n++) { /* tiny circuits with SBOX rows */
        cfg.constraints = n;
        assert_int_equal(synth_cs(&cfg, &sys, &in, &aux), CUZK_OK);
        assert_int_equal(cs_check_witness(&sys, in, aux), CUZK_OK);
        free(in);
        free(aux);
        cs_free(&sys);
    }
}

static int setup_dir(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/cuzk-r1cs-XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    const char *names[] = {"t.r1cs", "cut.r1cs", "tiny.r1cs", "trunc.r1cs", "huge.r1cs", "t.wtns", "trunc.wtns"};
    char p[160];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
        unlink(p);
    }
    return rmdir(tmpdir);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(r1cs_good_loads),
        cmocka_unit_test(r1cs_to_csc_longest_row),
        cmocka_unit_test(r1cs_container_errors),
        cmocka_unit_test(r1cs_field_errors),
        cmocka_unit_test(r1cs_count_errors),
        cmocka_unit_test(r1cs_huge_wire_count),
        cmocka_unit_test(r1cs_io_and_null),
        cmocka_unit_test(wtns_cases),
        cmocka_unit_test(partition_from_reference_circuit),
        cmocka_unit_test(synth_roundtrip_and_shape),
        cmocka_unit_test(synth_edges),
        cmocka_unit_test(synth_shapes),
    };
    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
