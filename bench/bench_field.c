/*
 * cuzk-bench field: single-threaded latency of the base arithmetic (Fp, Fr, Fp2
 * multiplication and squaring, inversion, G1/G2 addition and doubling), ns per operation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "field/curve.h"
#include "field/field_internal.h"
#include "field/pairing.h"

/* Median and best ns per operation over `rounds` rounds of `reps` dependent operations
 * (each feeds the next, so this is latency, the figure the pairing and bucket chains see).
 * The best round is printed too: on a shared machine it is the closer estimate. */
#define TIME_NS(med, best, rounds, reps, stmt)                                  \
    do {                                                                        \
        double v_[64];                                                          \
        for (int r_ = 0; r_ < (rounds); r_++) {                                 \
            uint64_t t0_ = bench_now_ns();                                      \
            for (int i_ = 0; i_ < (reps); i_++) { stmt; }                       \
            v_[r_] = (double)(bench_now_ns() - t0_) / (reps);                   \
        }                                                                       \
        (med) = bench_median(v_, (rounds));                                     \
        (best) = v_[0]; /* sorted by bench_median */                            \
    } while (0)

int bench_field(int argc, char **argv)
{
    int json = 0, rounds = 31;
    const bench_opt opts[] = {{"json", BOPT_FLAG, &json}, {"rounds", BOPT_INT, &rounds}, {NULL, 0, NULL}};
    int parsed = bench_args("field", "[--rounds N] [--json]",
                        "Fp/Fr/Fp2 arithmetic, G1/G2 additions and doublings, the pairing (one thread)", argc, argv, opts);
    if (parsed >= 0) return parsed;
    if (rounds < 1) rounds = 1;
    if (rounds > 64) rounds = 64;

    fp_t a = G1_GENERATOR.x, b = G1_GENERATOR.y;
    fr_t x, y;
    fr_from_u64(&x, 0x1234567890abcdefull);
    fr_from_u64(&y, 0xfedcba0987654321ull);
    fp2_t c = G2_GENERATOR.x, d = G2_GENERATOR.y;
    g1_jac p, q, g1;
    g2_jac s, t, g2;
    g1_jac_from_aff(&g1, &G1_GENERATOR);
    g2_jac_from_aff(&g2, &G2_GENERATOR);
    g1_jac_dbl(&p, &g1);
    g1_jac_dbl(&q, &p);
    g2_jac_dbl(&s, &g2);
    g2_jac_dbl(&t, &s);

    struct { const char *name; double ns, best; } r[24];
    int n = 0;
#define RUN(label, reps, stmt) do { r[n].name = label; TIME_NS(r[n].ns, r[n].best, rounds, reps, stmt); n++; } while (0)
    RUN("fp_mul", 20000, fp_mul(&a, &a, &b));
    RUN("fp_sqr", 20000, fp_sqr(&a, &a));
    RUN("fp_inv", 40, fp_inv(&a, &a));
    RUN("fr_mul", 40000, fr_mul(&x, &x, &y));
    RUN("fr_sqr", 40000, fr_sqr(&x, &x));
    RUN("fp2_mul", 5000, fp2_mul(&c, &c, &d));
    RUN("fp2_sqr", 5000, fp2_sqr(&c, &c));
    RUN("g1_jac_add", 1000, g1_jac_add(&p, &p, &q));
    RUN("g1_jac_add_aff", 1000, g1_jac_add_aff(&p, &p, &G1_GENERATOR));
    RUN("g1_jac_dbl", 1000, g1_jac_dbl(&p, &p));
    RUN("g2_jac_add", 400, g2_jac_add(&s, &s, &t));
    RUN("g2_jac_add_aff", 400, g2_jac_add_aff(&s, &s, &G2_GENERATOR));
    RUN("g2_jac_dbl", 400, g2_jac_dbl(&s, &s));
    /* The pairing (cuzk-bench pairing has more: thread CPU time, multi-pairing products). */
    fp12_t f, e;
    pairing_miller_loop(&f, &G1_GENERATOR, &G2_GENERATOR);
    RUN("miller_loop", 4, pairing_miller_loop(&f, &G1_GENERATOR, &G2_GENERATOR));
    RUN("final_exp", 4, pairing_final_exp(&e, &f));
    RUN("pairing", 4, pairing(&e, &G1_GENERATOR, &G2_GENERATOR));
#undef RUN
    /* Keep every chain observable so nothing is optimised away. */
    int sink = fp_is_zero(&a) + fr_is_zero(&x) + fp2_is_zero(&c) + g1_jac_is_inf(&p) + g2_jac_is_inf(&s) + fp12_is_one(&e);

    if (json) {
        printf("{\"bench\":\"field\",\"cpu\":\"%s\",\"threads\":1,\"unit\":\"ns\"", bench_cpu_name());
        for (int i = 0; i < n; i++) printf(",\"%s\":%.1f,\"%s_best\":%.1f", r[i].name, r[i].ns, r[i].name, r[i].best);
        printf(",\"sink\":%d}\n", sink);
        return 0;
    }
    printf("cuzk-bench field (single thread, dependent chains, median of %d rounds) on %s\n", rounds,
           bench_cpu_name());
    printf("  %-16s %12s %12s\n", "operation", "median ns", "best ns");
    for (int i = 0; i < n; i++) printf("  %-16s %12.1f %12.1f\n", r[i].name, r[i].ns, r[i].best);
    printf("  arithmetic path: %s\n", field_adx_active() ? "x86-64 MULX/ADX" : "portable C");
    if (sink == 99) printf("\n");
    return 0;
}
