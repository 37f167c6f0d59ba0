/*
 * An engine for a test in one line: the options as (CUZK_OPT_*, value) pairs, the config made
 * and freed here. One place for what the engine tests (CPU and GPU) each spelled out.
 */
#ifndef CUZK_TEST_TESTENGINE_H
#define CUZK_TEST_TESTENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

typedef struct test_opt {
    int32_t opt;   /* CUZK_OPT_* */
    int64_t value;
} test_opt;

/* The engine, or NULL with the failing call and cuzk_last_error() printed on stderr (the
 * caller asserts; cuzk_last_error() still holds the detail). */
cuzk_engine *test_engine_opts(const test_opt *opts, size_t n);
/* TEST_ENGINE({CUZK_OPT_BACKEND, CUZK_BACKEND_CPU}, {CUZK_OPT_VERIFY, 1}) */
#define TEST_ENGINE(...)                                                                          \
    test_engine_opts((const test_opt[]){__VA_ARGS__},                                             \
                     sizeof((const test_opt[]){__VA_ARGS__}) / sizeof(test_opt))

#endif
