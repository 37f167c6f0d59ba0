/* The compact constraint system (lib/groth16/csc.*): built from random systems with edge
 * coefficients (1, -1, powers of two, r - 2, zero, random) and empty rows, its evaluation
 * and densities against cs_make_partition's a/b/c (an independent path: cs.c evaluates cs.h's
 * rows directly) in both scalar forms, the file round trip, and every corruption a file can
 * carry refused with CUZK_EFORMAT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "groth16/csc.h"
#include "groth16/synth.h"
#include "support/csrand.h"
#include "support/fieldtest.h"
#include "support/testutil.h"

/* c's evaluation and densities equal cs_make_partition's, in both scalar forms. */
static void check_against_partition(const cs *s, const csc *c, const fr_t *in, const fr_t *aux)
{
    uint64_t n = c->abc_len, ni = c->num_inputs, na = c->num_aux;
    assert_int_equal(n, cs_abc_len(s));
    fr_t *abc = malloc(3 * n * sizeof(fr_t) + 1);
    threadpool *tp = threadpool_create(2);
    for (int form = 0; form < 2; form++) {
        cuzk_partition p;
        assert_int_equal(cs_make_partition_ex(s, in, aux, form, &p), CUZK_OK);
        /* the witness in that form: csc keeps it (its table is Montgomery) */
        fr_t *w = malloc((ni + na + 1) * sizeof(fr_t));
        memcpy(w, p.inputs, ni * sizeof(fr_t));
        memcpy(w + ni, p.aux, na * sizeof(fr_t));
        csc_eval(c, w, w + ni, abc, abc + n, abc + 2 * n, form ? tp : NULL);
        assert_memory_equal(abc, p.a, n * sizeof(fr_t));
        assert_memory_equal(abc + n, p.b, n * sizeof(fr_t));
        assert_memory_equal(abc + 2 * n, p.c, n * sizeof(fr_t));
        uint64_t wa = (na + 63) / 64, wi = (ni + 63) / 64;
        if (wa) {
            assert_memory_equal(c->a_aux_density, p.a_aux_density, wa * 8);
            assert_memory_equal(c->b_aux_density, p.b_aux_density, wa * 8);
        }
        assert_memory_equal(c->b_input_density, p.b_input_density, wi * 8);
        free(w);
        p.release(p.release_user);
    }
    threadpool_destroy(tp);
    free(abc);
}

/* The longest row's non-zeros by a scan of every matrix's offsets: what csc_finalize stores. */
static uint64_t longest_by_scan(const csc *c)
{
    uint64_t longest = 0;
    for (int w = 0; w < 3; w++)
        for (uint64_t r = 0; r < c->abc_len; r++)
            if (c->m[w].row[r + 1] - c->m[w].row[r] > longest) longest = c->m[w].row[r + 1] - c->m[w].row[r];
    return longest;
}

static void random_systems_evaluate_like_partitions(void **state)
{
    (void)state;
    test_seed();
    const uint64_t shapes[][3] = {{1, 0, 1}, {1, 5, 0}, {3, 17, 40}, {9, 300, 1000}, {2, 40000, 50000}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        uint64_t ni = shapes[t][0], na = shapes[t][1], nc = shapes[t][2];
        cs s;
        random_cs(&s, ni, na, nc);
        csc c;
        assert_int_equal(csc_from_cs(&s, &c), CUZK_OK);
        assert_true(c.n_coeffs >= 1);
        assert_true(fr_is_one(&c.coeffs[0])); /* ONE first: the per-input rows' */
        assert_int_equal(c.m[0].nnz, c.m[0].row[c.abc_len]);
        assert_int_equal(c.longest_row, longest_by_scan(&c));
        assert_true(c.longest_row >= 1); /* the input rows' ONE at least */
        fr_t *in = malloc(ni * sizeof(fr_t)), *aux = malloc((na + 1) * sizeof(fr_t));
        random_witness(in, aux, ni, na);
        check_against_partition(&s, &c, in, aux);
        /* the zero witness (ONE aside): only rows touching ONE are non-zero */
        memset(aux, 0, (na + 1) * sizeof(fr_t));
        for (uint64_t i = 1; i < ni; i++) in[i] = FR_ZERO;
        check_against_partition(&s, &c, in, aux);
        free(in), free(aux);
        csc_free(&c);
        cs_free(&s);
    }
}

static void synthetic_circuits_match(void **state)
{
    (void)state;
    test_seed();
    const uint64_t sizes[] = {100, 5000, 70000};
    for (size_t t = 0; t < 3; t++) {
        synth_cfg cfg;
        uint8_t seed[32];
        test_rand_bytes(seed, 32);
        synth_cfg_default(&cfg, sizes[t], seed);
        cs s;
        fr_t *in, *aux;
        assert_int_equal(synth_cs(&cfg, &s, &in, &aux), CUZK_OK);
        csc c;
        assert_int_equal(csc_from_cs(&s, &c), CUZK_OK);
        /* mostly ±1 and powers of two: a handful of distinct values */
        printf("synthetic %llu constraints: %u distinct coefficients, nnz A/B/C %llu/%llu/%llu, %llu bytes\n",
               (unsigned long long)sizes[t], c.n_coeffs, (unsigned long long)c.m[0].nnz,
               (unsigned long long)c.m[1].nnz, (unsigned long long)c.m[2].nnz, (unsigned long long)csc_bytes(&c));
        check_against_partition(&s, &c, in, aux);
        assert_int_equal(c.longest_row, longest_by_scan(&c));
        free(in), free(aux);
        csc_free(&c);
        cs_free(&s);
    }
}

/* `cuzk gen --shape S --log N`'s circuits: non-zeros per constraint in each of A, B, C within
 * 3 % of what the shape aims at (PoRep: the published 722 M over 130.3 M rows, split as
 * FORMATS.md says; synth_shape.c), a coefficient table of a few hundred values, a witness that
 * satisfies every row, and an evaluation equal to the a/b/c partition's. */
static void shapes_have_filecoin_nonzeros(void **state)
{
    (void)state;
    const struct { const char *shape; unsigned log_m; } cases[] = {
        {"porep", 16}, {"snap", 16}, {"wpost", 16}, {"winning", 16}, {"porep", 20}, {"wpost", 20}};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const synth_shape *sh = synth_shape_find(cases[t].shape);
        assert_non_null(sh);
        uint8_t seed[32];
        test_rand_bytes(seed, 32);
        printf("%s 2^%u: gen seed ", sh->name, cases[t].log_m);
        for (int i = 0; i < 32; i++) printf("%02x", seed[i]);
        synth_cfg cfg;
        synth_cfg_for_shape_log(&cfg, sh, cases[t].log_m, 0, seed);
        cs s;
        fr_t *in, *aux;
        assert_int_equal(synth_cs(&cfg, &s, &in, &aux), CUZK_OK);
        assert_int_equal(cs_check_witness(&s, in, aux), CUZK_OK);
        csc c;
        assert_int_equal(csc_from_cs(&s, &c), CUZK_OK);
        /* per circuit constraint, as the published figure: bellperson's per-input rows (A = the
         * input) left out, which at 2^16 are up to 3 % of the rows (inputs = n/32) */
        double rows = (double)c.num_constraints, total = 0, target = 0;
        printf(", nnz per constraint A/B/C");
        for (int w = 0; w < 3; w++) {
            double per = (double)(c.m[w].nnz - (w ? 0 : c.num_inputs)) / rows, want = sh->nnz_x100[w] / 100.0;
            printf(" %.3f (%.2f)", per, want);
            assert_true(per > want * 0.97 && per < want * 1.03);
            total += per;
            target += want;
        }
        printf(", %.3f in all, %u distinct coefficients, longest row %llu\n", total, c.n_coeffs,
               (unsigned long long)c.longest_row);
        /* 2^20: more than one piece of rows (csc_finalize's chunks), also on a pool */
        assert_int_equal(c.longest_row, longest_by_scan(&c));
        if (cases[t].log_m == 20) {
            threadpool *tp = threadpool_create(3);
            c.longest_row = 0;
            assert_int_equal(csc_finalize(&c, tp), CUZK_OK);
            assert_int_equal(c.longest_row, longest_by_scan(&c));
            threadpool_destroy(tp);
        }
        assert_true(total > target * 0.98 && total < target * 1.02);
        assert_true(c.n_coeffs <= 600); /* ±1, 2, powers of two, ±256 round constants */
        if (cases[t].log_m <= 16) check_against_partition(&s, &c, in, aux);
        free(in), free(aux);
        csc_free(&c);
        cs_free(&s);
    }
}

static char tmp_path[128];

static void write_bytes(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

static uint8_t *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    uint8_t *b = malloc(*n);
    assert_int_equal(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

static void expect_format_error(const uint8_t *b, size_t n, const char *needle)
{
    char bad[160];
    snprintf(bad, sizeof bad, "%s.bad", tmp_path);
    write_bytes(bad, b, n);
    csc c;
    assert_int_equal(csc_read(bad, NULL, &c), CUZK_EFORMAT);
    if (!strstr(cuzk_last_error(), needle)) fail_msg("'%s' does not say '%s'", cuzk_last_error(), needle);
    unlink(bad);
}

static void file_round_trip_and_corruption(void **state)
{
    (void)state;
    test_seed();
    cs s;
    random_cs(&s, 4, 60, 200);
    csc c, d;
    assert_int_equal(csc_from_cs(&s, &c), CUZK_OK);
    snprintf(tmp_path, sizeof tmp_path, "/tmp/cuzk-test-csc-%d.cuzkcs", (int)getpid());
    assert_int_equal(csc_write(tmp_path, &c), CUZK_OK);
    assert_true(csc_file_is_compact(tmp_path));
    assert_int_equal(csc_load_any(tmp_path, NULL, &d), CUZK_OK);
    assert_int_equal(d.abc_len, c.abc_len);
    assert_int_equal(d.longest_row, longest_by_scan(&d)); /* read, not written: the file has no such field */
    assert_int_equal(d.longest_row, c.longest_row);
    assert_int_equal(d.n_coeffs, c.n_coeffs);
    assert_memory_equal(d.coeffs, c.coeffs, c.n_coeffs * sizeof(fr_t));
    for (int w = 0; w < 3; w++) {
        assert_int_equal(d.m[w].nnz, c.m[w].nnz);
        assert_memory_equal(d.m[w].row, c.m[w].row, (c.abc_len + 1) * 8);
        assert_memory_equal(d.m[w].col, c.m[w].col, c.m[w].nnz * 4);
        assert_memory_equal(d.m[w].coef, c.m[w].coef, c.m[w].nnz * 4);
    }
    assert_int_equal(csc_bytes(&d), csc_bytes(&c));
    csc_free(&d);

    size_t n;
    uint8_t *b = read_bytes(tmp_path, &n);
    uint8_t *x = malloc(n + 8);
    const uint64_t coeff_off = 72, rows_off = coeff_off + 32ull * c.n_coeffs;
    const uint64_t col_off = rows_off + (c.abc_len + 1) * 8, coef_off = col_off + ((c.m[0].nnz * 4 + 7) & ~7ull);
#define MUTATE(stmt, needle) do { memcpy(x, b, n); stmt; expect_format_error(x, n, needle); } while (0)
    MUTATE(x[0] = 'X', "bad magic");
    MUTATE(x[8] = 2, "version 2");
    MUTATE(x[12] = 1, "flags");
    MUTATE(x[16] = 99, "bytes, but its counts");                       /* inputs: size no longer fits */
    MUTATE(memset(x + coeff_off, 0xff, 32), "not below r");             /* coefficient >= r */
    MUTATE(memset(x + coeff_off + 32 * (c.n_coeffs - 1), 0, 32), "is zero");
    MUTATE(x[rows_off + 8 * 2] ^= 0x40, "row offsets decrease");         /* row 2 jumps past row 3 */
    MUTATE(memset(x + col_off, 0xff, 4), "refers to variable");
    MUTATE(memset(x + coef_off, 0xff, 4), "refers to coefficient");
    /* A's last non-zero is the last input's row: point it at another variable */
    MUTATE(x[col_off + 4 * (c.m[0].nnz - 1)] ^= 1, "bellperson's row for input");
    expect_format_error(b, n - 8, "bytes, but its counts");                /* truncated */
    memcpy(x, b, n);
    memset(x + n, 0, 8);
    expect_format_error(x, n + 8, "bytes, but its counts");                /* trailing */
    expect_format_error(b, 40, "shorter than the 72-byte header");
#undef MUTATE
    free(x), free(b);
    unlink(tmp_path);
    csc_free(&c);
    cs_free(&s);
}

static void malformed_systems_refused(void **state)
{
    (void)state;
    cs s;
    random_cs(&s, 2, 3, 40);
    cs_lc_rows *r = s.a.off[40] ? &s.a : s.b.off[40] ? &s.b : &s.c;
    assert_true(r->off[40] > 0); /* 120 combinations of 0..4 terms: never all empty */
    r->terms[r->off[40] - 1].var = 99; /* beyond 5 variables: cs_validate says so */
    csc c;
    assert_int_equal(csc_from_cs(&s, &c), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "refers to variable 99"));
    cs_free(&s);
    assert_int_equal(csc_read("/nonexistent/x.cuzkcs", NULL, &c), CUZK_EIO);
    assert_false(csc_file_is_compact("/nonexistent/x.cuzkcs"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_systems_evaluate_like_partitions),
        cmocka_unit_test(synthetic_circuits_match),
        cmocka_unit_test(shapes_have_filecoin_nonzeros),
        cmocka_unit_test(file_round_trip_and_corruption),
        cmocka_unit_test(malformed_systems_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
