/*
 * The device's constraint evaluation (kernels/spmv, lib/backend/cuda_cs.c) against the CPU's
 * (csc_eval) bit for bit: random systems with edge coefficients and empty rows, and
 * PoRep-shaped synthetic circuits at 2^16 and 2^20, both scalar forms, the matrices resident
 * and streamed through piece buffers (pieces of 4 KiB: thousands of pieces; of 1 MiB), and a
 * piece too small for one row refused with CUZK_EBUDGET. The witness's range check on the
 * device (gpu_prep_check) names a value not below r. Exits 77 without a GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/cuda_cs.h"
#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "groth16/csc.h"
#include "groth16/synth.h"
#include "prep.h"
#include "field/field.h"
#include "support/csrand.h"
#include "support/fieldtest.h"
#include "support/gputest.h"
#include "support/testutil.h"

/* Evaluates A, B, C of c on the device (placement: resident, or streamed in pieces of
 * piece_bytes) and compares with csc_eval on the CPU, for w in both scalar forms. */
static void compare(const csc *c, const fr_t *in, const fr_t *aux, int resident, uint64_t piece_bytes)
{
    uint64_t n = c->abc_len, ni = c->num_inputs, na = c->num_aux;
    fr_t *w = malloc((ni + na + 1) * sizeof *w), *cpu = malloc(3 * n * sizeof *cpu), *gpu = malloc(3 * n * sizeof *gpu);
    cuda_cs_dev d;
    assert_int_equal(cuda_cs_place(c, resident ? UINT64_MAX : 0, &d), CUZK_OK);
    assert_int_equal(d.resident, resident);
    void *d_w, *d_out, *piece[2] = {NULL, NULL}, *stream;
    assert_int_equal(gpu_malloc(&d_w, (ni + na + 1) * sizeof(fr_t)), CUZK_OK);
    assert_int_equal(gpu_malloc(&d_out, 3 * n * sizeof(fr_t)), CUZK_OK);
    for (int k = 0; k < 2 && !resident; k++) assert_int_equal(gpu_malloc(&piece[k], piece_bytes), CUZK_OK);
    assert_int_equal(gpu_stream_create(&stream), CUZK_OK);
    for (int form = 0; form < 2; form++) {
        for (uint64_t i = 0; i < ni + na; i++) {
            const fr_t *x = i < ni ? &in[i] : &aux[i - ni];
            if (form == CUZK_FR_CANONICAL) fr_from_mont(&w[i], x);
            else w[i] = *x;
        }
        csc_eval(c, w, w + ni, cpu, cpu + n, cpu + 2 * n, NULL);
        assert_int_equal(gpu_memcpy_to_device(d_w, w, (ni + na) * sizeof(fr_t)), CUZK_OK);
        for (int m = 0; m < 3; m++)
            assert_int_equal(cuda_cs_eval(c, &d, m, d_w, (fr_t *)d_w + ni, (fr_t *)d_out + m * n, piece, piece_bytes,
                                          stream), CUZK_OK);
        assert_int_equal(gpu_stream_sync(stream), CUZK_OK);
        assert_int_equal(gpu_memcpy_to_host(gpu, d_out, 3 * n * sizeof(fr_t)), CUZK_OK);
        for (uint64_t i = 0; i < 3 * n; i++)
            if (memcmp(&cpu[i], &gpu[i], sizeof(fr_t)))
                fail_msg("%s, %s form: %c[%llu] differs from the CPU's", resident ? "resident" : "streamed",
                         form ? "canonical" : "Montgomery", "ABC"[i / n], (unsigned long long)(i % n));
    }
    gpu_stream_destroy(stream);
    for (int k = 0; k < 2; k++) gpu_free(piece[k]);
    gpu_free(d_out);
    gpu_free(d_w);
    cuda_cs_unplace(&d);
    free(w), free(cpu), free(gpu);
}

static void random_systems(void **state)
{
    (void)state;
    const uint64_t shapes[][3] = {{1, 0, 1}, {3, 17, 40}, {9, 3000, 10000}, {2, 200000, 300000}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        cs s;
        random_cs(&s, shapes[t][0], shapes[t][1], shapes[t][2]);
        csc c;
        assert_int_equal(csc_from_cs(&s, &c), CUZK_OK);
        fr_t *in = malloc(shapes[t][0] * sizeof(fr_t)), *aux = malloc((shapes[t][1] + 1) * sizeof(fr_t));
        random_witness(in, aux, shapes[t][0], shapes[t][1]);
        compare(&c, in, aux, 1, 0);
        compare(&c, in, aux, 0, 4096);
        compare(&c, in, aux, 0, 1 << 20);
        free(in), free(aux);
        csc_free(&c);
        cs_free(&s);
    }
}

/* Row k's length in wide_rows' A: rows longer than the kernel's 16 are summed by their warp,
 * so: three neighbours of one warp wide (17, 32, 33), a warp's last lane at 1000, every lane
 * of the third warp wide (17..48), the last row (a partial warp) at 5000; else 0..4. */
static uint64_t wide_len(uint64_t k, uint64_t nc)
{
    if (k == 5) return 17;
    if (k == 6) return 32;
    if (k == 7) return 33;
    if (k == 31) return 1000;
    if (k >= 64 && k < 96) return 17 + (k - 64);
    if (k == nc - 1) return 5000;
    return test_rand64() % 5;
}

/* Wide rows (kernels/spmv: a warp sums each) against the CPU, resident and streamed, in A
 * and B (B's wide rows where A's are short: the warp's ballot differs by matrix). */
static void wide_rows(void **state)
{
    (void)state;
    const uint64_t ni = 3, na = 6000, nc = 700;
    cs s;
    random_cs(&s, ni, na, nc);
    for (int w = 0; w < 2; w++) {
        cs_lc_rows *r = w ? &s.b : &s.a;
        free(r->off), free(r->terms);
        r->off = malloc((nc + 1) * sizeof(uint64_t));
        r->terms = malloc((nc * 48 + 6000 + 1000 + 5000) * sizeof(cs_term));
        uint64_t f = 0;
        for (uint64_t k = 0; k < nc; k++) {
            r->off[k] = f;
            const uint64_t len = w ? (k % 97 == 3 ? 20 + k % 40 : test_rand64() % 3) : wide_len(k, nc);
            const uint64_t first = test_rand64() % (ni + na);
            for (uint64_t t = 0; t < len; t++, f++) {
                r->terms[f].var = (first + t) % (ni + na); /* distinct: len <= ni + na */
                switch (test_rand64() % 4) {
                case 0: r->terms[f].coeff = FR_ONE; break;
                case 1: fr_neg(&r->terms[f].coeff, &FR_ONE); break;
                case 2: fr_from_u64(&r->terms[f].coeff, (uint64_t)1 << (test_rand64() % 64)); break;
                default: ft_rand_fr(&r->terms[f].coeff); break;
                }
            }
        }
        r->off[nc] = f;
    }
    csc c;
    assert_int_equal(csc_from_cs(&s, &c), CUZK_OK);
    fr_t *in = malloc(ni * sizeof(fr_t)), *aux = malloc((na + 1) * sizeof(fr_t));
    random_witness(in, aux, ni, na);
    compare(&c, in, aux, 1, 0);
    compare(&c, in, aux, 0, 1 << 16);
    free(in), free(aux);
    csc_free(&c);
    cs_free(&s);
}

static void synthetic_circuits(void **state)
{
    (void)state;
    for (unsigned log = 16; log <= 20; log += 4) {
        synth_cfg cfg;
        uint8_t seed[32];
        test_rand_bytes(seed, 32);
        synth_cfg_for_domain(&cfg, log, seed);
        cs s;
        fr_t *in, *aux;
        assert_int_equal(synth_cs(&cfg, &s, &in, &aux), CUZK_OK);
        csc c;
        assert_int_equal(csc_from_cs(&s, &c), CUZK_OK);
        printf("2^%u: %llu rows, %llu + %llu + %llu non-zeros\n", log, (unsigned long long)c.abc_len,
               (unsigned long long)c.m[0].nnz, (unsigned long long)c.m[1].nnz, (unsigned long long)c.m[2].nnz);
        compare(&c, in, aux, 1, 0);
        compare(&c, in, aux, 0, 1 << 20);
        free(in), free(aux);
        csc_free(&c);
        cs_free(&s);
    }
}

static void small_pieces_and_range_check(void **state)
{
    (void)state;
    /* a row of 40 non-zeros does not fit a 256-byte piece (2 offsets + 40 × 8 bytes) */
    cs s;
    random_cs(&s, 2, 100, 10);
    csc c;
    assert_int_equal(csc_from_cs(&s, &c), CUZK_OK);
    free(c.m[0].col), free(c.m[0].coef);
    uint64_t n0 = c.m[0].nnz;
    c.m[0].nnz = n0 + 40;
    c.m[0].col = calloc(c.m[0].nnz, 4), c.m[0].coef = calloc(c.m[0].nnz, 4);
    for (uint64_t k = 1; k <= c.abc_len; k++) c.m[0].row[k] += 40; /* row 0 grows by 40 */
    for (uint64_t i = 0; i < c.m[0].nnz; i++) c.m[0].col[i] = (uint32_t)(i % 40 + 2);
    cuda_cs_dev d;
    assert_int_equal(cuda_cs_place(&c, 0, &d), CUZK_OK);
    void *d_w, *d_out, *piece[2], *stream;
    assert_int_equal(gpu_malloc(&d_w, 102 * sizeof(fr_t)), CUZK_OK);
    assert_int_equal(gpu_malloc(&d_out, c.abc_len * sizeof(fr_t)), CUZK_OK);
    assert_int_equal(gpu_malloc(&piece[0], 256), CUZK_OK);
    assert_int_equal(gpu_malloc(&piece[1], 256), CUZK_OK);
    assert_int_equal(gpu_stream_create(&stream), CUZK_OK);
    assert_int_equal(cuda_cs_eval(&c, &d, 0, d_w, (fr_t *)d_w + 2, d_out, piece, 256, stream), CUZK_EBUDGET);
    assert_non_null(strstr(cuzk_last_error(), "row 0 of A"));

    /* the witness's range check on the device: aux[k] = r is named */
    fr_t w[102];
    memset(w, 0, sizeof w);
    uint64_t k = test_rand64() % 100;
    memcpy(w[2 + k].l, FR_MODULUS, 32);
    assert_int_equal(gpu_memcpy_to_device(d_w, w, sizeof w), CUZK_OK);
    gpu_prep_result *d_res, res;
    assert_int_equal(gpu_malloc((void **)&d_res, sizeof *d_res), CUZK_OK);
    assert_int_equal(gpu_prep_reset(d_res, stream), CUZK_OK);
    assert_int_equal(gpu_prep_check((fr_t *)d_w + 2, 100, 4, 0, d_res, stream), CUZK_OK);
    assert_int_equal(gpu_stream_sync(stream), CUZK_OK);
    assert_int_equal(gpu_memcpy_to_host(&res, d_res, sizeof res), CUZK_OK);
    assert_int_equal(res.bad, (uint64_t)4 << 56 | k);
    gpu_free(d_res);
    gpu_stream_destroy(stream);
    gpu_free(piece[0]), gpu_free(piece[1]), gpu_free(d_out), gpu_free(d_w);
    cuda_cs_unplace(&d);
    csc_free(&c);
    cs_free(&s);
}

int main(void)
{
    if (gpu_test_begin()) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_systems),
        cmocka_unit_test(wide_rows),
        cmocka_unit_test(synthetic_circuits),
        cmocka_unit_test(small_pieces_and_range_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
