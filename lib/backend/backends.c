/* backend_choose (backends.h): which of the library's backends an engine runs on. */
#include "backend/backends.h"

#include "error.h"
#if CUZK_HAVE_CUDA
#include "cuda_util.h"
#endif

int backend_choose(int32_t backend, const backend_ops **ops, const backend_ops **retry_ops)
{
    *retry_ops = &backend_cpu_ops;
#if CUZK_HAVE_CUDA
    /* AUTO: the GPU when one is usable; CUDA asked for explicitly must have one */
    int ndev = backend == CUZK_BACKEND_CPU ? 0 : gpu_device_count();
    if (backend == CUZK_BACKEND_CUDA && ndev <= 0)
        return err_set(CUZK_EDEVICE, "cuzk_engine_create: the CUDA backend was asked for but no usable "
                       "CUDA device was found (driver missing, no GPU, or CUDA_VISIBLE_DEVICES hides them)");
    if (ndev > 0) {
        *ops = &backend_cuda_ops;
        return CUZK_OK;
    }
#else
    if (backend == CUZK_BACKEND_CUDA)
        return err_set(CUZK_EDEVICE, "cuzk_engine_create: this build has no CUDA backend");
#endif
    *ops = &backend_cpu_ops;
    return CUZK_OK;
}
