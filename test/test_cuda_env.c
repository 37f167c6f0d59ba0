/*
 * The CUDA backend's tuning variables (lib/backend/cuda_env.c): set to something they do not
 * take, a CUDA engine refuses to start and names the variable and what it takes; unset or
 * valid, it starts. Pure C, so checked on the CPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/cuda_env.h"
#include "cuzk/cuzk.h"

static const char *const names[] = {"CUZK_MSM_PRECOMPUTE", "CUZK_MSM_WAVES",       "CUZK_MSM_ACC",
                                    "CUZK_MSM_AFF_MIN_BATCH", "CUZK_MSM_AFF_KMUL", "CUZK_MSM_PAIR_ROUNDS",
                                    "CUZK_MSM_PROFILE",    "CUZK_NTT_RADIX",       "CUZK_H_FUSE",
                                    "CUZK_MSM_PAIR_MIN",   "CUZK_PIECE_MB",        "CUZK_LEAN_SLOTS",
                                    "CUZK_MSM_REDUCE",     "CUZK_MSM_ENTRIES_LOG", "CUZK_MSM_LEAN_ENTRIES_LOG",
                                    "CUZK_MSM_SHARED_BUCKETS_MB", "CUZK_LEAN_H_LEND"};
enum { N = sizeof names / sizeof names[0] };

static void unset_all(void)
{
    for (int i = 0; i < N; i++) unsetenv(names[i]);
}

static void refused(const char *name, const char *value)
{
    unset_all();
    setenv(name, value, 1);
    int rc = cuda_env_check();
    if (rc != CUZK_EINVAL) fail_msg("%s='%s' was accepted", name, value);
    if (!strstr(cuzk_last_error(), name)) fail_msg("%s='%s': the error does not name it: %s", name, value, cuzk_last_error());
    unset_all();
}

static void accepted(const char *name, const char *value)
{
    unset_all();
    setenv(name, value, 1);
    if (cuda_env_check() != CUZK_OK) fail_msg("%s='%s' was refused: %s", name, value, cuzk_last_error());
    unset_all();
}

static void unset_is_fine(void **state)
{
    (void)state;
    unset_all();
    assert_int_equal(cuda_env_check(), CUZK_OK);
}

static void valid_values(void **state)
{
    (void)state;
    accepted("CUZK_MSM_PRECOMPUTE", "0"), accepted("CUZK_MSM_PRECOMPUTE", "16");
    accepted("CUZK_MSM_WAVES", "1"), accepted("CUZK_MSM_WAVES", "8");
    accepted("CUZK_MSM_ACC", "xyzz"), accepted("CUZK_MSM_ACC", "affine"), accepted("CUZK_MSM_ACC", "pairwise");
    accepted("CUZK_MSM_ACC", "auto"), accepted("CUZK_MSM_PAIR_MIN", "1"), accepted("CUZK_MSM_PAIR_MIN", "1048576");
    accepted("CUZK_PIECE_MB", "1"), accepted("CUZK_PIECE_MB", "1536"), accepted("CUZK_PIECE_MB", "4096");
    accepted("CUZK_LEAN_SLOTS", "1"), accepted("CUZK_LEAN_SLOTS", "2");
    accepted("CUZK_MSM_ENTRIES_LOG", "25"), accepted("CUZK_MSM_ENTRIES_LOG", "28");
    accepted("CUZK_MSM_LEAN_ENTRIES_LOG", "25"), accepted("CUZK_MSM_LEAN_ENTRIES_LOG", "27");
    accepted("CUZK_MSM_SHARED_BUCKETS_MB", "0"), accepted("CUZK_MSM_SHARED_BUCKETS_MB", "8192");
    accepted("CUZK_LEAN_H_LEND", "0"), accepted("CUZK_LEAN_H_LEND", "1");
    accepted("CUZK_MSM_AFF_MIN_BATCH", "0"), accepted("CUZK_MSM_AFF_KMUL", "256");
    accepted("CUZK_MSM_PAIR_ROUNDS", "3"), accepted("CUZK_MSM_PROFILE", "1");
    accepted("CUZK_MSM_REDUCE", "0"), accepted("CUZK_MSM_REDUCE", "1");
    accepted("CUZK_NTT_RADIX", "2"), accepted("CUZK_NTT_RADIX", "4");
    accepted("CUZK_H_FUSE", "0"), accepted("CUZK_H_FUSE", "2");
}

static void garbage_refused(void **state)
{
    (void)state;
    for (int i = 0; i < N; i++) {
        refused(names[i], "");
        refused(names[i], "garbage");
        refused(names[i], "-1");
        refused(names[i], "99999999999999999999");
    }
    refused("CUZK_MSM_WAVES", "0"), refused("CUZK_MSM_WAVES", "9"), refused("CUZK_MSM_WAVES", "4x");
    refused("CUZK_MSM_PRECOMPUTE", "17"), refused("CUZK_MSM_PROFILE", "2"), refused("CUZK_H_FUSE", "3");
    refused("CUZK_MSM_ACC", "XYZZ"), refused("CUZK_MSM_ACC", "pair"), refused("CUZK_MSM_ACC", "xyzz affine");
    refused("CUZK_MSM_ACC", "Auto"), refused("CUZK_MSM_PAIR_MIN", "0"), refused("CUZK_MSM_PAIR_MIN", "0x100");
    refused("CUZK_PIECE_MB", "0"), refused("CUZK_PIECE_MB", "4097");
    refused("CUZK_LEAN_SLOTS", "0"), refused("CUZK_LEAN_SLOTS", "3");
    refused("CUZK_MSM_ENTRIES_LOG", "24"), refused("CUZK_MSM_ENTRIES_LOG", "29");
    refused("CUZK_MSM_LEAN_ENTRIES_LOG", "24"), refused("CUZK_MSM_LEAN_ENTRIES_LOG", "28");
    refused("CUZK_MSM_SHARED_BUCKETS_MB", "-1"), refused("CUZK_MSM_SHARED_BUCKETS_MB", "8193");
    refused("CUZK_MSM_SHARED_BUCKETS_MB", "1g");
    refused("CUZK_LEAN_H_LEND", "2"), refused("CUZK_LEAN_H_LEND", "on");
    refused("CUZK_NTT_RADIX", "8"), refused("CUZK_NTT_RADIX", " 2");
    refused("CUZK_MSM_REDUCE", "2"), refused("CUZK_MSM_REDUCE", "levels"), refused("CUZK_MSM_REDUCE", "1 ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unset_is_fine),
        cmocka_unit_test(valid_values),
        cmocka_unit_test(garbage_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
