/* What the simulated device's MSM executor adds to its buffers' requests (kernels/msm.h,
 * msm_gpu_library_bytes): nothing. Its contexts hold exactly what the plan's sizing executor
 * records (sim_msm_ctx.c), with no sort library and no pool rounding, so a worker slot here is
 * the plan's bytes alone and keys of a few thousand points already weigh against it: the
 * stress test's small keys stream at small budgets, as 2^16 ones do on a GPU. */
#include <stddef.h>

#include "msm.h"

size_t msm_gpu_library_bytes(size_t entries, size_t buffers)
{
    (void)entries, (void)buffers;
    return 0;
}
