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
    g1_aff p[4] = {G1_GENERATOR, G1_GENERATOR, G1_GENERATOR, G1_GENERATOR};
    g2_aff q[4] = {G2_GENERATOR, G2_GENERATOR, G2_GENERATOR, G2_GENERATOR};
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
