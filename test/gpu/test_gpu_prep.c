/* The CUDA backend's scalar preparation on the device (kernels/prep.h), which replaced the
 * host compaction test/test_cuda_prep.c used to cover. Oracles: the CPU prover's
 * groth16_msm_scalars_make (a serial loop) for the A/B compaction on synthetic PoRep-shaped
 * partitions of several sizes (partial density words with stray bits past num_aux, several
 * blocks), both forms, and with too small an output (counted, never overrun); the CPU's
 * groth16_check_scalars message for the range check (first offending array, then index);
 * fr_to_mont for the in-place conversion. Exits 77 without a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cuda_util.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "prep.h"
#include "support/gputest.h"
#include "support/testutil.h"

static void *dev_from(const void *src, size_t bytes)
{
    void *d;
    assert_int_equal(gpu_malloc(&d, bytes ? bytes : 32), CUZK_OK);
    if (bytes) assert_int_equal(gpu_memcpy_to_device(d, src, bytes), CUZK_OK);
    return d;
}

static gpu_prep_result result_of(gpu_prep_result *d_res)
{
    gpu_prep_result r;
    assert_int_equal(gpu_stream_sync(NULL), CUZK_OK);
    assert_int_equal(gpu_memcpy_to_host(&r, d_res, sizeof r), CUZK_OK);
    return r;
}

static void canon(fr_t *out, const fr_t *in, int form)
{
    if (form == CUZK_FR_MONTGOMERY) fr_from_mont(out, in);
    else *out = *in;
}

static void compact_size(uint64_t constraints, int32_t form)
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
    uint64_t ni = p.num_inputs, na = p.num_aux, nw = (na + 63) / 64, kb0 = 0;
    for (uint64_t i = 0; i < ni; i++) kb0 += p.b_input_density[i / 64] >> (i % 64) & 1;
    uint64_t ca = want.n_a - ni, cb = want.n_b - kb0, fr = sizeof(fr_t);
    /* stray bits past num_aux in the last word select nothing */
    uint64_t *dens = malloc((2 * nw + 1) * 8);
    assert_non_null(dens);
    if (nw) memcpy(dens, p.a_aux_density, nw * 8), memcpy(dens + nw, p.b_aux_density, nw * 8);
    if (na % 64) dens[nw - 1] |= ~(((uint64_t)1 << (na % 64)) - 1), dens[2 * nw - 1] |= ~(((uint64_t)1 << (na % 64)) - 1);
    void *d_aux = dev_from(p.aux, na * fr), *d_out, *d_scr;
    gpu_prep_result *d_res;
    size_t scr = gpu_prep_scratch_bytes(na), out_bytes = (ca + cb + 2) * fr;
    assert_int_equal(gpu_malloc(&d_out, out_bytes), CUZK_OK);
    assert_int_equal(gpu_malloc(&d_scr, scr), CUZK_OK);
    assert_int_equal(gpu_malloc((void **)&d_res, sizeof *d_res), CUZK_OK);
    fr_t *got = malloc(out_bytes);
    assert_non_null(got);
    fr_t *d_a = d_out, *d_b = (fr_t *)d_out + ca + 1;
    /* too little scratch: refused */
    assert_int_equal(gpu_prep_compact(d_a, ca, d_b, cb, d_aux, na, dens, dens + nw, d_scr, scr - 1, d_res, NULL), CUZK_EINVAL);
    for (int shortfall = 1; shortfall >= 0; shortfall--) {
        uint64_t capa = ca >= (uint64_t)shortfall ? ca - shortfall : 0, capb = cb >= (uint64_t)shortfall ? cb - shortfall : 0;
        assert_int_equal(gpu_memset_async(d_out, 0xa5, out_bytes, NULL), CUZK_OK);
        assert_int_equal(gpu_prep_reset(d_res, NULL), CUZK_OK);
        assert_int_equal(gpu_prep_compact(d_a, capa, d_b, capb, d_aux, na, dens, dens + nw, d_scr, scr, d_res, NULL), CUZK_OK);
        gpu_prep_result r = result_of(d_res);
        assert_int_equal(r.n_a, ca); /* counted in full even when the output is short */
        assert_int_equal(r.n_b, cb);
        assert_int_equal(r.bad, GPU_PREP_OK);
        assert_int_equal(gpu_memcpy_to_host(got, d_out, out_bytes), CUZK_OK);
        for (uint64_t i = 0; i < ca + 1 + cb + 1; i++) {
            int in_a = i < ca + 1, written = in_a ? i < capa : i - (ca + 1) < capb;
            if (!written) { /* untouched */
                for (size_t bt = 0; bt < fr; bt++) assert_int_equal(((uint8_t *)&got[i])[bt], 0xa5);
                continue;
            }
            fr_t x;
            canon(&x, &got[i], form);
            assert_memory_equal(&x, in_a ? &want.a[ni + i] : &want.b[kb0 + i - (ca + 1)], fr);
        }
    }
    printf("n=%llu form=%d: %llu A and %llu B aux scalars as the CPU prover's\n", (unsigned long long)constraints,
           form, (unsigned long long)ca, (unsigned long long)cb);
    gpu_free(d_aux);
    gpu_free(d_out);
    gpu_free(d_scr);
    gpu_free(d_res);
    free(got);
    free(dens);
    groth16_msm_scalars_free(&want);
    if (p.release) p.release(p.release_user);
}

static void compaction_matches_cpu(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {1, 63, 64, 65, 1000, 70001, 200000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        compact_size(sizes[k], CUZK_FR_MONTGOMERY);
        compact_size(sizes[k], CUZK_FR_CANONICAL);
    }
}

/* Random values below r (the top limb kept below r's), in canonical form. */
static void fill_below_r(fr_t *x, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        for (int k = 0; k < 4; k++) x[i].l[k] = test_rand64();
        x[i].l[3] %= FR_MODULUS[3];
    }
}

static void range_check_matches_cpu(void **state)
{
    (void)state;
    const uint64_t n = 100003;
    fr_t *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    assert_non_null(x && y);
    gpu_prep_result *d_res;
    assert_int_equal(gpu_malloc((void **)&d_res, sizeof *d_res), CUZK_OK);
    for (int round = 0; round < 4; round++) {
        fill_below_r(x, n);
        uint64_t j1 = test_rand64() % (n - 1), j2 = j1 + 1 + test_rand64() % (n - 1 - j1);
        memcpy(x[j1].l, FR_MODULUS, sizeof x[j1].l);  /* r itself: the smallest bad value   */
        memset(x[j2].l, 0xff, sizeof x[j2].l);         /* 2^256 - 1: a later one             */
        memcpy(x[0].l, FR_MODULUS, sizeof x[0].l);
        x[0].l[0] -= 1;                                /* r - 1: fine                         */
        if (j1 == 0) memcpy(x[0].l, FR_MODULUS, sizeof x[0].l);
        void *d_x = dev_from(x, n * sizeof *x);
        assert_int_equal(gpu_prep_reset(d_res, NULL), CUZK_OK);
        assert_int_equal(gpu_prep_check(d_x, n, 4, 0, d_res, NULL), CUZK_OK);
        gpu_prep_result r = result_of(d_res);
        /* oracle: the CPU's scan of a partition whose aux is x */
        cuzk_partition p = {.scalar_form = CUZK_FR_CANONICAL, .aux = (const cuzk_fr *)x, .num_aux = n};
        threadpool *tp = threadpool_create(2);
        assert_int_equal(groth16_check_scalars(&p, tp), CUZK_EINVAL);
        threadpool_destroy(tp);
        char msg[96];
        snprintf(msg, sizeof msg, "aux[%llu] is not below r", (unsigned long long)(r.bad & ((1ull << 56) - 1)));
        assert_int_equal(r.bad >> 56, 4);
        assert_non_null(strstr(cuzk_last_error(), msg));
        /* an earlier array wins over a smaller index: c's first bad value is at j2 > j1 */
        memcpy(y, x, n * sizeof *x);
        memset(&y[j1], 0, sizeof y[j1]);
        void *d_c = dev_from(y, n * sizeof *y);
        assert_int_equal(gpu_prep_check(d_c, n, 2, 0, d_res, NULL), CUZK_OK);
        r = result_of(d_res);
        assert_int_equal(r.bad, (2ull << 56) | j2);
        gpu_free(d_c);
        gpu_free(d_x);
    }
    /* the in-place conversion of values below r */
    fill_below_r(x, n);
    void *d_x = dev_from(x, n * sizeof *x);
    assert_int_equal(gpu_prep_reset(d_res, NULL), CUZK_OK);
    assert_int_equal(gpu_prep_check(d_x, n, 0, 1, d_res, NULL), CUZK_OK);
    assert_int_equal(result_of(d_res).bad, GPU_PREP_OK);
    assert_int_equal(gpu_memcpy_to_host(y, d_x, n * sizeof *y), CUZK_OK);
    for (uint64_t i = 0; i < n; i++) {
        fr_t m;
        fr_to_mont(&m, &x[i]);
        assert_memory_equal(&m, &y[i], sizeof m);
    }
    assert_int_equal(gpu_prep_check(d_x, 1, 256, 0, d_res, NULL), CUZK_EINVAL);
    gpu_free(d_x);
    gpu_free(d_res);
    free(x);
    free(y);
}

int main(void)
{
    if (gpu_test_begin()) return 77;
    const struct CMUnitTest tests[] = {cmocka_unit_test(compaction_matches_cpu), cmocka_unit_test(range_check_matches_cpu)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
