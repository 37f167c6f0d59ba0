/*
 * cuzk-bench pairing: single-threaded timings of the Miller loop, the final exponentiation,
 * one pairing and a 4-pair product with one final exponentiation (Groth16 verification).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "field/pairing.h"

/* Median microseconds per call over `rounds` rounds of `reps` calls. */
#define TIME_US(out, rounds, reps, stmt)                                        \
    do {                                                                        \
        double v_[64];                                                          \
        for (int r_ = 0; r_ < (rounds); r_++) {                                 \
            uint64_t t0_ = bench_now_ns();                                      \
            for (int i_ = 0; i_ < (reps); i_++) { stmt; }                       \
            v_[r_] = (double)(bench_now_ns() - t0_) / 1e3 / (reps);             \
        }                                                                       \
        (out) = bench_median(v_, (rounds));                                     \
    } while (0)

static const char G1X[] = "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char G1Y[] = "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
static const char G2X0[] = "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
static const char G2X1[] = "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e";
static const char G2Y0[] = "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801";
static const char G2Y1[] = "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be";

static void from_hex(fp_t *r, const char hex[97])
{
    uint8_t be[48];
    for (int i = 0; i < 48; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        be[i] = (uint8_t)v;
    }
    fp_from_be48(r, be);
}

int bench_pairing(int argc, char **argv)
{
    int json = 0, rounds = 15;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else { fprintf(stderr, "usage: cuzk-bench pairing [--rounds N] [--json]\n"); return 2; }
    }
    if (rounds < 1) rounds = 1;
    if (rounds > 64) rounds = 64;

    /* The pairing has no data-dependent branches: the generators time like any points. */
    g1_aff g1;
    g2_aff g2;
    from_hex(&g1.x, G1X); from_hex(&g1.y, G1Y);
    from_hex(&g2.x.c0, G2X0); from_hex(&g2.x.c1, G2X1);
    from_hex(&g2.y.c0, G2Y0); from_hex(&g2.y.c1, G2Y1);
    g1_aff p[4] = {g1, g1, g1, g1};
    g2_aff q[4] = {g2, g2, g2, g2};
    fp12_t f, e, acc;
    fp12_one(&acc);
    double miller, fexp, one, multi4;
    pairing_miller_loop(&f, &p[0], &q[0]);
    TIME_US(miller, rounds, 20, pairing_miller_loop(&f, &p[0], &q[0]); fp12_mul(&acc, &acc, &f));
    TIME_US(fexp, rounds, 20, pairing_final_exp(&e, &f); fp12_mul(&acc, &acc, &e));
    TIME_US(one, rounds, 20, pairing(&e, &p[0], &q[0]); fp12_mul(&acc, &acc, &e));
    TIME_US(multi4, rounds, 5, pairing_multi(&e, p, q, 4); fp12_mul(&acc, &acc, &e));
    int sink = fp12_is_one(&acc);   /* keeps the calls observable */

    if (json) {
        printf("{\"bench\":\"pairing\",\"cpu\":\"%s\",\"threads\":1,\"miller_loop_us\":%.1f,"
               "\"final_exp_us\":%.1f,\"pairing_us\":%.1f,\"multi_pairing_4_us\":%.1f,\"sink\":%d}\n",
               bench_cpu_name(), miller, fexp, one, multi4, sink);
        return 0;
    }
    printf("cuzk-bench pairing (single thread, median of %d rounds) on %s\n", rounds, bench_cpu_name());
    printf("  miller loop          %8.1f us\n", miller);
    printf("  final exponentiation %8.1f us\n", fexp);
    printf("  pairing              %8.1f us   (target <= 700 us; blst 470 us)\n", one);
    printf("  4-pair product       %8.1f us   (one final exponentiation)\n", multi4);
    if (sink == 2) printf("\n");
    return 0;
}
