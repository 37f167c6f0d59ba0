/* Random field elements and naive reference arithmetic for the field/curve tests. */
#include "fieldtest.h"

#include <string.h>

#include "testutil.h"

int ref_cmp(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* r = a - b as integers, returns the borrow. */
static uint64_t raw_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        uint64_t x = a[i] - b[i] - borrow;
        borrow = (a[i] < b[i]) || (a[i] == b[i] && borrow);
        r[i] = x;
    }
    return borrow;
}

static uint64_t raw_add(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t c = 0;
    for (int i = 0; i < n; i++) {
        uint64_t s = a[i] + c;
        uint64_t c1 = s < c;
        uint64_t t = s + b[i];
        c = c1 + (t < s);
        r[i] = t;
    }
    return c;
}

void ref_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n)
{
    uint64_t t[8];
    uint64_t c = raw_add(t, a, b, n);
    if (c || ref_cmp(t, m, n) >= 0) raw_sub(t, t, m, n);
    memcpy(r, t, 8 * (size_t)n);
}

void ref_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n)
{
    uint64_t t[8];
    if (raw_sub(t, a, b, n)) raw_add(t, t, m, n);
    memcpy(r, t, 8 * (size_t)n);
}

void ref_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n)
{
    uint64_t acc[8] = {0};
    for (int i = n - 1; i >= 0; i--)
        for (int k = 63; k >= 0; k--) {
            ref_add(acc, acc, acc, m, n);
            if ((b[i] >> k) & 1) ref_add(acc, acc, a, m, n);
        }
    memcpy(r, acc, 8 * (size_t)n);
}

void ref_pow(uint64_t *r, const uint64_t *a, const uint64_t *e, int e_limbs, const uint64_t *m, int n)
{
    uint64_t acc[8] = {1};
    for (int i = e_limbs - 1; i >= 0; i--)
        for (int k = 63; k >= 0; k--) {
            ref_mul(acc, acc, acc, m, n);
            if ((e[i] >> k) & 1) ref_mul(acc, acc, a, m, n);
        }
    memcpy(r, acc, 8 * (size_t)n);
}

void ft_rand_canonical(uint64_t *out, const uint64_t *m, int n)
{
    uint64_t one[8] = {1}, t[8];
    if (test_rand64() % 8 == 0) {
        memset(out, 0, 8 * (size_t)n);
        switch (test_rand64() % 8) {
        case 0: return;                                   /* 0 */
        case 1: out[0] = 1; return;
        case 2: out[0] = 2; return;
        case 3: raw_sub(out, m, one, n); return;          /* m - 1 */
        case 4: raw_sub(t, m, one, n); raw_sub(out, t, one, n); return;
        case 5: case 6:                                   /* (m-1)/2, (m+1)/2 */
            raw_sub(t, m, one, n);
            if (test_rand64() & 1) raw_add(t, t, one, n), raw_add(t, t, one, n);
            for (int i = 0; i < n; i++) out[i] = (t[i] >> 1) | (i + 1 < n ? t[i + 1] << 63 : 0);
            return;
        default:                                          /* all-ones low limbs */
            memcpy(out, m, 8 * (size_t)n);
            out[n - 1] -= 1;
            for (int i = 0; i < n - 1; i++) out[i] = ~0ull;
            return;
        }
    }
    int top = 63;
    while (!((m[n - 1] >> top) & 1)) top--;
    uint64_t mask = top == 63 ? ~0ull : (2ull << top) - 1;
    do {
        for (int i = 0; i < n; i++) out[i] = test_rand64();
        out[n - 1] &= mask;
    } while (ref_cmp(out, m, n) >= 0);
}

void ft_rand_fp(fp_t *r)
{
    uint64_t c[6];
    ft_rand_canonical(c, FP_MODULUS, 6);
    fp_to_mont(r, c);
}

void ft_rand_fr_canonical(fr_t *r) { ft_rand_canonical(r->l, FR_MODULUS, 4); }

void ft_rand_fr(fr_t *r)
{
    fr_t c;
    ft_rand_fr_canonical(&c);
    fr_to_mont(r, &c);
}

void ft_rand_fp2(fp2_t *r)
{
    ft_rand_fp(&r->c0);
    ft_rand_fp(&r->c1);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int ft_hex(uint64_t *out, int n, const char *hex)
{
    memset(out, 0, 8 * (size_t)n);
    size_t len = strlen(hex);
    if (len > (size_t)n * 16) return 0;
    for (size_t i = 0; i < len; i++) {
        int v = hexval(hex[len - 1 - i]);
        if (v < 0) return 0;
        out[i / 16] |= (uint64_t)v << (4 * (i % 16));
    }
    return 1;
}

void ft_tohex(char *out, const uint8_t *in, size_t len)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = d[in[i] >> 4];
        out[2 * i + 1] = d[in[i] & 15];
    }
    out[2 * len] = 0;
}

/* A point on E(Fp) outside the prime-order subgroup: x = 1, 2, ... until x^3 + 4 is a square. */
void ft_g1_off_subgroup(g1_aff *out)
{
    fp_t four, x, t;
    fp_from_u64(&four, 4);
    for (uint64_t i = 1;; i++) {
        fp_from_u64(&x, i);
        fp_sqr(&t, &x);
        fp_mul(&t, &t, &x);
        fp_add(&t, &t, &four);
        if (fp_sqrt(&out->y, &t)) {
            out->x = x;
            if (!g1_aff_in_subgroup(out)) return;
        }
    }
}

void ft_g2_off_subgroup(g2_aff *out)
{
    fp2_t b, x, t;
    fp_from_u64(&b.c0, 4);
    fp_from_u64(&b.c1, 4); /* 4(u + 1) */
    for (uint64_t i = 1;; i++) {
        fp_from_u64(&x.c0, i);
        x.c1 = FP_ONE;
        fp2_sqr(&t, &x);
        fp2_mul(&t, &t, &x);
        fp2_add(&t, &t, &b);
        if (fp2_sqrt(&out->y, &t)) {
            out->x = x;
            if (!g2_aff_in_subgroup(out)) return;
        }
    }
}

void ft_msm_affine_special(g1_aff *bases, fr_t *k, const g1_aff *q, size_t nb, size_t n, int negative)
{
    static const int pattern[8] = {1, -1, 1, 1, 0, 1, -1, 1}; /* 0 = infinity */
    for (size_t i = 0; i < n; i++) {
        size_t j = i % nb;
        int sg = pattern[(i / nb + j) % 8];
        bases[i] = q[j];
        if (sg < 0) g1_aff_neg(&bases[i], &bases[i]);
        if (sg == 0) memset(&bases[i], 0, sizeof bases[i]);
        memset(&k[i], 0, sizeof k[i]);
        k[i].l[0] = j + 2 + (negative != 0);
        if (negative) fr_neg(&k[i], &k[i]); /* r - (j + 3) */
    }
}
