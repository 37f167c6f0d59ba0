/*
 * The library's own backends and the choice among them. Only the public entry point that
 * creates an engine (lib/engine/engine_api.c) asks here; the engine itself runs whatever
 * backend_ops it is handed and names none.
 */
#ifndef CUZK_BACKENDS_H
#define CUZK_BACKENDS_H

#include "backend/backend.h"

extern const backend_ops backend_cpu_ops;  /* backend_cpu.c  */
#if CUZK_HAVE_CUDA
extern const backend_ops backend_cuda_ops; /* backend_cuda.c */
#endif

/* The backend for CUZK_OPT_BACKEND = `backend` (CUZK_BACKEND_*: AUTO takes CUDA when a
 * device is usable, else the CPU) and the one CUZK_OPT_RETRY_ON_CPU proves failed
 * partitions again on (the CPU backend). CUZK_EDEVICE with a detail when CUDA is asked for
 * and cannot be had. */
int backend_choose(int32_t backend, const backend_ops **ops, const backend_ops **retry_ops);

#endif
