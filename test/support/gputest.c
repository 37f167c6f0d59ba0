/* The GPU tests' common start (see gputest.h). Linked into every test (test/support), so its
 * CUDA call exists only in CUDA builds, where the GPU tests are built. */
#include "support/gputest.h"

#include <stdio.h>

#include "support/testutil.h"
#if CUZK_HAVE_CUDA
#include "cuda_util.h"

int gpu_test_begin(void)
{
    if (gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 1;
    }
    test_seed();
    char name[256];
    if (gpu_device_describe(0, name, sizeof name) == 0) printf("device: %s\n", name);
    return 0;
}
#else
int gpu_test_begin(void)
{
    printf("SKIP: built without CUDA\n");
    return 1;
}
#endif
