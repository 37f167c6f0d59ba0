/*
 * The CUDA backend's tuning variables (CUZK_MSM_*, CUZK_NTT_RADIX, CUZK_H_FUSE), checked when a
 * CUDA engine starts: a value that is set but not one the variable takes is refused with its
 * name and what it takes, instead of being read as the default in silence. Pure C (no device
 * calls): test_cuda_env checks it on the CPU.
 */
#ifndef CUZK_CUDA_ENV_H
#define CUZK_CUDA_ENV_H

/* CUZK_OK, or CUZK_EINVAL naming the first bad variable (cuzk_last_error). */
int cuda_env_check(void);

#endif
