/*
 * cuzk-bench pairing: single-threaded timings of the Miller loop, the final exponentiation,
 * one pairing and a 4-pair product with one final exponentiation (Groth16 verification).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "field/pairing.h"

/* This thread's CPU time: on a shared machine, time spent descheduled is not the cost. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct { double median, best; } timing;

/* Microseconds per call over `rounds` rounds of `reps` calls: median and best round. */
#define TIME_US(out, rounds, reps, stmt)                                        \
    do {                                                                        \
        double v_[64];                                                          \
        for (int r_ = 0; r_ < (rounds); r_++) {                                 \
            uint64_t t0_ = cpu_ns();                                            \
            for (int i_ = 0; i_ < (reps); i_++) { stmt; }                       \
            v_[r_] = (double)(cpu_ns() - t0_) / 1e3 / (reps);                   \
        }                                                                       \
        (out).median = bench_median(v_, (rounds));                              \
        (out).best = v_[0]; /* bench_median sorted v_ */                        \
    } while (0)

int bench_pairing(int argc, char **argv)
{
    int json = 0, rounds = 15;
    const bench_opt opts[] = {{"json", BOPT_FLAG, &json}, {"rounds", BOPT_INT, &rounds}, {NULL, 0, NULL}};
    int parsed = bench_args("pairing", "[--rounds N] [--json]",
                        "Miller loop, final exponentiation, pairing, a 4-pairing product (one thread, thread CPU time)",
                        argc, argv, opts);
    if (parsed >= 0) return parsed;
    if (rounds < 1) rounds = 1;
    if (rounds > 64) rounds = 64;

    /* The pairing has no data-dependent branches: the generators time like any points. */
    g1_aff p[4] = {G1_GENERATOR, G1_GENERATOR, G1_GENERATOR, G1_GENERATOR};
    g2_aff q[4] = {G2_GENERATOR, G2_GENERATOR, G2_GENERATOR, G2_GENERATOR};
    fp12_t f, e, acc;
    fp12_one(&acc);
    timing miller, fexp, one, multi4;
    pairing_miller_loop(&f, &p[0], &q[0]);
    TIME_US(miller, rounds, 20, pairing_miller_loop(&f, &p[0], &q[0]); fp12_mul(&acc, &acc, &f));
    TIME_US(fexp, rounds, 20, pairing_final_exp(&e, &f); fp12_mul(&acc, &acc, &e));
    TIME_US(one, rounds, 20, pairing(&e, &p[0], &q[0]); fp12_mul(&acc, &acc, &e));
    TIME_US(multi4, rounds, 5, pairing_multi(&e, p, q, 4); fp12_mul(&acc, &acc, &e));
    int sink = fp12_is_one(&acc);   /* keeps the calls observable */

    if (json) {
        printf("{\"bench\":\"pairing\",\"cpu\":\"%s\",\"threads\":1,\"clock\":\"thread_cpu\","
               "\"miller_loop_us\":%.1f,\"final_exp_us\":%.1f,\"pairing_us\":%.1f,"
               "\"pairing_best_us\":%.1f,\"multi_pairing_4_us\":%.1f,\"sink\":%d}\n",
               bench_cpu_name(), miller.median, fexp.median, one.median, one.best, multi4.median, sink);
        return 0;
    }
    printf("cuzk-bench pairing: one thread, thread CPU time, median (best) of %d rounds\n", rounds);
    printf("on %s\n", bench_cpu_name());
    printf("  miller loop          %8.1f us (%.1f)\n", miller.median, miller.best);
    printf("  final exponentiation %8.1f us (%.1f)\n", fexp.median, fexp.best);
    printf("  pairing              %8.1f us (%.1f)   target <= 700 us; blst 470 us\n", one.median, one.best);
    printf("  4-pair product       %8.1f us (%.1f)   one final exponentiation\n", multi4.median, multi4.best);
    if (sink == 2) printf("\n");
    return 0;
}
