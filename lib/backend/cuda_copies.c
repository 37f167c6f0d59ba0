/*
 * Precomputed shifted copies of a resident key's bases (issue 14): how many the placement may
 * choose (CUZK_MSM_PRECOMPUTE) and making them after the upload. Never required: a failure
 * to make them leaves the key as placed without them, and the MSM runs its plain plan.
 */
#if CUZK_HAVE_CUDA
#include <stdlib.h>

#include "backend/cuda_internal.h"

/* Copies per vector the placement may give H (the bases count as one): CUZK_MSM_PRECOMPUTE=N,
 * 0 or 1 = none; default 2 — one extra copy halves the bucket reductions of the 2^27 H MSM,
 * further ones gain little more there (bench/RESULTS.md) and leave the memory to other keys. */
uint32_t cuda_copies_max(void)
{
    const char *e = getenv("CUZK_MSM_PRECOMPUTE");
    if (!e || !*e) return CUDA_COPIES_DEFAULT;
    long v = strtol(e, NULL, 10);
    return v < 1 ? 1 : v > 16 ? 16 : (uint32_t)v;
}

uint64_t cuda_copies_bytes(const cuda_key_dev *kd, int v)
{
    return kd->pl.copies[v] > 1 ? (uint64_t)(kd->pl.copies[v] - 1) * kd->pl.resident[v] : 0;
}

/* After the resident upload: the copies kd->pl chose. Those that cannot be made are dropped,
 * their bytes given back to the device (under its lock). */
void cuda_make_copies(cuda_dev *d, cuda_key_dev *kd)
{
    for (int v = 0; v < PL_N; v++) {
        uint32_t t = kd->pl.copies[v], made = 1;
        if (t < 2) continue;
        if (kd->whole[v] && msm_gpu_bases_precompute(kd->whole[v], t, 0) == CUZK_OK)
            made = msm_gpu_bases_copies(kd->whole[v], NULL); /* fewer when a copy would hold no window */
        if (made == t) continue;
        uint64_t bytes = (uint64_t)(t - made) * kd->pl.resident[v];
        pthread_mutex_lock(&d->lock);
        d->resident -= bytes;
        pthread_mutex_unlock(&d->lock);
        kd->pl.copies[v] = made > 1 ? made : 0;
        kd->pl.copies_bytes -= bytes;
    }
}
#endif
