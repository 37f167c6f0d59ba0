/* Constraint systems: partitions (a/b/c, densities, appended input rows) against a dense
 * evaluation written independently here, witness checks, validation, domain sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cs_fixture.h"
#include "cuzk/cuzk.h"
#include "groth16/cs.h"
#include "support/testutil.h"

static int bit(const uint64_t *d, uint64_t i) { return (int)((d[i / 64] >> (i % 64)) & 1); }

static void fr_u64(fr_t *r, uint64_t v) { fr_from_u64(r, v); }

static void cubic_partition_by_hand(void **state)
{
    (void)state;
    cs s;
    fx_cubic(&s);
    fr_t in[2], aux[3];
    fx_cubic_witness(in, aux, 3);
    fr_t want;
    fr_u64(&want, 35);
    assert_true(fr_eq(&in[1], &want));
    assert_int_equal(cs_abc_len(&s), 5);
    assert_int_equal(cs_log_domain(&s), 3);
    assert_int_equal(cs_check_witness(&s, in, aux), CUZK_OK);

    cuzk_partition p;
    assert_int_equal(cs_make_partition(&s, in, aux, &p), CUZK_OK);
    assert_int_equal(p.struct_size, sizeof p);
    assert_int_equal(p.scalar_form, CUZK_FR_MONTGOMERY);
    assert_int_equal(p.abc_len, 5);
    assert_int_equal(p.num_inputs, 2);
    assert_int_equal(p.num_aux, 3);
    /* a = [x, x2, x3 + x + 5, ONE, out], b = [x, x, 1, 0, 0], c = [x2, x3, out, 0, 0] */
    uint64_t ea[5] = {3, 9, 35, 1, 35}, eb[5] = {3, 3, 1, 0, 0}, ec[5] = {9, 27, 35, 0, 0};
    for (int i = 0; i < 5; i++) {
        fr_u64(&want, ea[i]);
        assert_memory_equal(&p.a[i], &want, 32);
        fr_u64(&want, eb[i]);
        assert_memory_equal(&p.b[i], &want, 32);
        fr_u64(&want, ec[i]);
        assert_memory_equal(&p.c[i], &want, 32);
    }
    assert_memory_equal(p.inputs, in, sizeof in);
    assert_memory_equal(p.aux, aux, sizeof aux);
    assert_int_equal(p.a_aux_density[0], 0x7);   /* x, x2, x3 all in some A */
    assert_int_equal(p.b_input_density[0], 0x1); /* ONE in B, out not */
    assert_int_equal(p.b_aux_density[0], 0x1);   /* only x in B */
    assert_null(p.r);
    assert_null(p.s);
    p.release(p.release_user);

    /* canonical variant: the same values, converted */
    assert_int_equal(cs_make_partition_ex(&s, in, aux, CUZK_FR_CANONICAL, &p), CUZK_OK);
    assert_int_equal(p.scalar_form, CUZK_FR_CANONICAL);
    for (int i = 0; i < 5; i++) {
        cuzk_fr c = {{ea[i], 0, 0, 0}};
        assert_memory_equal(&p.a[i], &c, 32);
    }
    cuzk_fr one = {{1, 0, 0, 0}};
    assert_memory_equal(&p.inputs[0], &one, 32);
    p.release(p.release_user);

    /* a wrong output breaks constraint 2, and the message says so */
    fr_add(&in[1], &in[1], &FR_ONE);
    assert_int_equal(cs_check_witness(&s, in, aux), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "constraint 2 of 3"));
    fx_cubic_witness(in, aux, 3);
    fr_add(&aux[1], &aux[1], &FR_ONE); /* x2 wrong: constraint 0 fails first */
    assert_int_equal(cs_check_witness(&s, in, aux), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "constraint 0 of 3"));
    cs_free(&s);
}

/* Random systems against a dense evaluation: every row's coefficient per variable summed
 * into a dense matrix while generating, then multiplied by the witness. */
static void random_systems_match_dense_evaluation(void **state)
{
    (void)state;
    test_seed();
    for (int round = 0; round < 40; round++) {
        uint64_t ni = 1 + test_rand64() % 5, na = test_rand64() % 150, nv = ni + na;
        uint64_t nc = test_rand64() % 40;
        cs s;
        fx_init(&s, ni, na);
        fr_t *dense = calloc(3 * (nc ? nc : 1) * nv, sizeof(fr_t));
        uint8_t *dens = calloc(3 * nv, 1); /* appears with a nonzero coefficient in A, B, C */
        int b_aux_empty = round % 4 == 0;  /* no aux in B at all */
        for (uint64_t k = 0; k < nc; k++) {
            tterm t[3][8];
            int n[3];
            for (int q = 0; q < 3; q++) {
                n[q] = (int)(test_rand64() % 6);
                for (int i = 0; i < n[q]; i++) {
                    uint64_t v = test_rand64() % nv;
                    if (q == 1 && b_aux_empty) v %= ni;
                    int64_t c = (int64_t)(test_rand64() % 7) - 3; /* zero coefficients too */
                    t[q][i] = (tterm){v, c};
                    fr_t fc;
                    fx_fr_from_i64(&fc, c);
                    fr_t *cell = &dense[((uint64_t)q * nc + k) * nv + v];
                    fr_add(cell, cell, &fc);
                    if (c) dens[q * nv + v] = 1;
                }
            }
            fx_row(&s, t[0], n[0], t[1], n[1], t[2], n[2]);
        }
        fr_t *z = malloc(nv * sizeof(fr_t));
        z[0] = FR_ONE;
        for (uint64_t v = 1; v < nv; v++) {
            uint64_t r = test_rand64();
            if (r % 5 == 0) z[v] = FR_ZERO; /* zero-valued inputs and aux */
            else fr_u64(&z[v], r);
        }
        cuzk_partition p;
        assert_int_equal(cs_make_partition(&s, z, z + ni, &p), CUZK_OK);
        assert_int_equal(p.abc_len, nc + ni);
        for (int q = 0; q < 3; q++) {
            const cuzk_fr *got = q == 0 ? p.a : q == 1 ? p.b : p.c;
            for (uint64_t k = 0; k < nc + ni; k++) {
                fr_t acc = FR_ZERO, t;
                if (k < nc) {
                    for (uint64_t v = 0; v < nv; v++) {
                        fr_mul(&t, &dense[((uint64_t)q * nc + k) * nv + v], &z[v]);
                        fr_add(&acc, &acc, &t);
                    }
                } else if (q == 0) {
                    acc = z[k - nc]; /* appended row: A = input */
                }
                assert_memory_equal(&got[k], &acc, 32);
            }
        }
        for (uint64_t j = 0; j < na; j++) {
            assert_int_equal(bit(p.a_aux_density, j), dens[0 * nv + ni + j]);
            assert_int_equal(bit(p.b_aux_density, j), dens[1 * nv + ni + j]);
        }
        for (uint64_t i = 0; i < ni; i++) assert_int_equal(bit(p.b_input_density, i), dens[1 * nv + i]);
        /* bits beyond the variable counts stay clear */
        if (na % 64) {
            assert_int_equal(p.a_aux_density[na / 64] >> (na % 64), 0);
            assert_int_equal(p.b_aux_density[na / 64] >> (na % 64), 0);
        }
        assert_int_equal(p.b_input_density[0] >> ni, 0);
        if (b_aux_empty)
            for (uint64_t w = 0; w < (na + 63) / 64; w++) assert_int_equal(p.b_aux_density[w], 0);
        p.release(p.release_user);
        free(z);
        free(dense);
        free(dens);
        cs_free(&s);
    }
}

static void domain_sizes(void **state)
{
    (void)state;
    struct { uint64_t nc, ni; unsigned log; } c[] = {
        {0, 1, 0}, {1, 1, 1}, {0, 2, 1}, {1, 2, 2}, {2, 2, 2}, {3, 2, 3}, {6, 2, 3}, {7, 2, 4},
        {1023, 1, 10}, {1024, 1, 11}, {(1ull << 32) - 5, 5, 32}, {(1ull << 32) - 5, 6, 33},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        cs s = {.num_inputs = c[i].ni, .num_constraints = c[i].nc};
        assert_int_equal(cs_abc_len(&s), c[i].nc + c[i].ni);
        assert_int_equal(cs_log_domain(&s), c[i].log);
    }
}

static void no_constraints_no_aux(void **state)
{
    (void)state;
    cs s;
    fx_init(&s, 3, 0);
    fr_t in[3] = {FR_ONE, FR_ZERO};
    fr_u64(&in[2], 42);
    assert_int_equal(cs_check_witness(&s, in, NULL), CUZK_OK);
    cuzk_partition p;
    assert_int_equal(cs_make_partition(&s, in, NULL, &p), CUZK_OK);
    assert_int_equal(p.abc_len, 3);
    assert_int_equal(p.num_aux, 0);
    for (int i = 0; i < 3; i++) {
        assert_memory_equal(&p.a[i], &in[i], 32);
        assert_true(fr_is_zero((const fr_t *)&p.b[i]));
        assert_true(fr_is_zero((const fr_t *)&p.c[i]));
    }
    assert_int_equal(p.b_input_density[0], 0);
    p.release(p.release_user);
    cs_free(&s);
}

static void malformed_systems_and_arguments(void **state)
{
    (void)state;
    cs s;
    fx_cubic(&s);
    fr_t in[2], aux[3];
    fx_cubic_witness(in, aux, 5);
    cuzk_partition p;

    s.b.terms[1].var = 5; /* one past the last variable */
    assert_int_equal(cs_make_partition(&s, in, aux, &p), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "variable 5"));
    assert_non_null(strstr(cuzk_last_error(), "constraint 1"));
    assert_int_equal(cs_check_witness(&s, in, aux), CUZK_EINVAL);
    s.b.terms[1].var = 2;
    assert_int_equal(cs_validate(&s), CUZK_OK);

    uint64_t keep = s.c.off[1];
    s.c.off[1] = 7; /* past off[2] */
    assert_int_equal(cs_validate(&s), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "decrease"));
    s.c.off[1] = keep;

    fr_t bad_one[2] = {FR_ZERO, in[1]};
    assert_int_equal(cs_make_partition(&s, bad_one, aux, &p), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "ONE"));
    assert_int_equal(cs_make_partition(&s, NULL, aux, &p), CUZK_EINVAL);
    assert_int_equal(cs_make_partition(&s, in, NULL, &p), CUZK_EINVAL);
    assert_int_equal(cs_make_partition(&s, in, aux, NULL), CUZK_EINVAL);
    assert_int_equal(cs_make_partition_ex(&s, in, aux, 7, &p), CUZK_EINVAL);
    assert_int_equal(cs_make_partition(NULL, in, aux, &p), CUZK_EINVAL);
    uint64_t ni = s.num_inputs;
    s.num_inputs = 0;
    assert_int_equal(cs_validate(&s), CUZK_EINVAL);
    s.num_inputs = ni;
    cs_free(&s);
    cs_free(&s); /* idempotent */
    cs_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cubic_partition_by_hand),
        cmocka_unit_test(random_systems_match_dense_evaluation),
        cmocka_unit_test(domain_sizes),
        cmocka_unit_test(no_constraints_no_aux),
        cmocka_unit_test(malformed_systems_and_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
