/* The CUDA backend's host staging copy (lib/backend/backend_cuda_prep.c, plain C, so it runs
 * here without a GPU): prep_copy against memcpy at sizes around its task size (odd byte
 * counts, one byte, several tasks), bytes outside the range untouched. The range checks and
 * the A/B compaction moved to the device: test/gpu/test_gpu_prep.c tests them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backend/backend_cuda_prep.h"
#include "support/testutil.h"

static void copy_matches_memcpy(void **state)
{
    (void)state;
    threadpool *tp = threadpool_create(2);
    static const size_t sizes[] = {0, 1, 31, 4096, (1 << 21) - 1, 1 << 21, (1 << 21) + 1, 3 * (1 << 21) + 17};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        uint8_t *src = malloc(n + 1), *dst = malloc(n + 2);
        assert_non_null(src && dst);
        test_rand_bytes(src, n + 1);
        memset(dst, 0x5a, n + 2);
        prep_copy(tp, dst + 1, src, n);
        assert_int_equal(dst[0], 0x5a);
        assert_int_equal(dst[n + 1], 0x5a);
        if (n) assert_memory_equal(dst + 1, src, n);
        free(src);
        free(dst);
    }
    threadpool_destroy(tp);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {cmocka_unit_test(copy_matches_memcpy)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
