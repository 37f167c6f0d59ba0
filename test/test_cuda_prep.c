/* The CUDA backend's host preparation (lib/backend/backend_cuda_prep.c, plain C, so it runs
 * here without a GPU). Oracle: the CPU prover's groth16_msm_scalars_make (a serial loop) on
 * synthetic PoRep-shaped partitions of several sizes (partial density words, several chunks),
 * both scalar forms; a count that disagrees with the densities is refused, nothing written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backend/backend_cuda_prep.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support/testutil.h"

static threadpool *tp;

static void canon(fr_t *out, const fr_t *in, int form)
{
    if (form == CUZK_FR_MONTGOMERY) fr_from_mont(out, in);
    else *out = *in;
}

static void check_size(uint64_t constraints, int32_t form)
{
    uint8_t seed[32];
    test_rand_bytes(seed, sizeof seed);
    synth_cfg cfg;
    synth_cfg_default(&cfg, constraints, seed);
    cfg.bit_share_pm = 260 + (uint32_t)(test_rand64() % 741);
    cuzk_partition p;
    assert_int_equal(synth_partition(&cfg, form, &p), CUZK_OK);
    groth16_msm_scalars want;
    assert_int_equal(groth16_msm_scalars_make(&want, &p, NULL), CUZK_OK);
    fr_t *a = malloc((want.n_a + 1) * sizeof(fr_t)), *b = malloc((want.n_b + 1) * sizeof(fr_t));
    assert_non_null(a && b);
    /* wrong expected counts: refused before anything is written */
    memset(a, 0xa5, (want.n_a + 1) * sizeof(fr_t));
    uint64_t na = want.n_a - 1, nb = want.n_b;
    assert_int_equal(prep_compact(tp, &p, a, b, &na, &nb), CUZK_EINVAL);
    for (uint64_t i = 0; i < (want.n_a + 1) * sizeof(fr_t); i++) assert_int_equal(((uint8_t *)a)[i], 0xa5);
    na = want.n_a, nb = want.n_b;
    assert_int_equal(prep_compact(tp, &p, a, b, &na, &nb), CUZK_OK);
    assert_int_equal(na, want.n_a);
    assert_int_equal(nb, want.n_b);
    for (uint64_t i = 0; i < na; i++) {
        fr_t x;
        canon(&x, &a[i], form);
        assert_memory_equal(&x, &want.a[i], sizeof x);
    }
    for (uint64_t i = 0; i < nb; i++) {
        fr_t x;
        canon(&x, &b[i], form);
        assert_memory_equal(&x, &want.b[i], sizeof x);
    }
    /* the staging copy, plain and into Montgomery form */
    fr_t *m = malloc((p.num_aux + 1) * sizeof(fr_t));
    assert_non_null(m);
    prep_copy(tp, m, p.aux, p.num_aux, 0);
    assert_memory_equal(m, p.aux, p.num_aux * sizeof(fr_t));
    if (form == CUZK_FR_CANONICAL) {
        prep_copy(tp, m, p.aux, p.num_aux, 1);
        for (uint64_t i = 0; i < p.num_aux; i++) {
            fr_t x;
            fr_from_mont(&x, &m[i]);
            assert_memory_equal(&x, &p.aux[i], sizeof x);
        }
    }
    printf("n=%llu form=%d: %llu A and %llu B scalars as the CPU prover's\n", (unsigned long long)constraints, form,
           (unsigned long long)na, (unsigned long long)nb);
    free(m);
    free(a);
    free(b);
    groth16_msm_scalars_free(&want);
    if (p.release) p.release(p.release_user);
}

static void compaction_matches_cpu(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {1, 63, 64, 65, 1000, 70001, 200000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        check_size(sizes[k], CUZK_FR_MONTGOMERY);
        check_size(sizes[k], CUZK_FR_CANONICAL);
    }
}

int main(void)
{
    test_seed();
    tp = threadpool_create(2);
    const struct CMUnitTest tests[] = {cmocka_unit_test(compaction_matches_cpu)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    threadpool_destroy(tp);
    return rc;
}
