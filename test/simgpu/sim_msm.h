/*
 * What the simulated MSM's files share (sim_msm.c, sim_msm_bases.c, sim_msm_ctx.c): the
 * handles behind kernels/msm.h's opaque types, and the sums on the CPU (lib/msm).
 */
#ifndef CUZK_TEST_SIM_MSM_H
#define CUZK_TEST_SIM_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_util.h"
#include "field/curve.h"
#include "msm.h"

/* Resident bases: points in (simulated) device memory of their device. Precomputed copies
 * are charged to the device but never made: a run over them sums the plain bases, whose
 * result is the same. */
struct msm_gpu_bases {
    int device;
    int curve;
    size_t n;
    void *d; /* gpu_malloc'd: g1_aff[n] or g2_aff[n] */
    size_t pre_bytes; /* msm_gpu_precompute_bytes of the copies charged */
    unsigned copies, pre_c;
};

/* A point of either group, Jacobian. */
typedef union {
    g1_jac g1;
    g2_jac g2;
} sim_msm_jac;

/* A sum on its way to its output: a deferred run's (written at msm_gpu_ctx_collect). */
typedef struct {
    int curve;
    void *out;
    sim_msm_jac sum;
    msm_gpu_stats st;
} sim_msm_pending;

struct msm_gpu_ctx {
    int device;
    void *stream;
    int own_stream;
    const gpu_gate *gate;
    /* what the device context would run with (only the scratch sizing and stats see it) */
    size_t max_entries;
    int g2_half, acc, waves, reduce, pre_mode;
    unsigned window_fix;
    size_t pair_min;
    /* device memory held, as the device context's buffers would be (sim_msm_ctx.c) */
    msm_size_ctx *sz;         /* the plan's sizing over this configuration's runs (NULL: none could be made) */
    msm_scratch_parts past;   /* per part, the largest of earlier configurations since the last trim */
    size_t charged;           /* scratch bytes charged to the device */
    size_t scalars_cap;       /* the copy of host scalars, charged apart (the estimate leaves it out) */
    /* msm_gpu_ctx_lend: the loan's runs sized on their own, charged to nobody (the lender's
     * memory), held to lent_bytes (lent_sz NULL: no loan) */
    msm_size_ctx *lent_sz;
    size_t lent_bytes, lent_entries;
    /* msm_gpu_ctx_set_counts for the next run */
    int known;
    uint32_t known_one, known_rest;
    sim_msm_pending pend[MSM_GPU_DEFERRED];
    unsigned npend;
    msm_gpu_stats last;
    /* an accumulated MSM (msm_gpu_acc_*): curve 0 = none */
    int acc_curve, acc_form;
    sim_msm_jac acc_sum;
    size_t acc_n, acc_piece, acc_one, acc_rest;
    unsigned acc_pauses;
    size_t acc_shared; /* its pieces share buckets within this many bytes (0: not) */
};

/* Bytes of one affine base of curve (MSM_CURVE_G1/G2). */
size_t sim_msm_point_bytes(int curve);

/* out (g1_jac/g2_jac) = sum over i < n of scalars[i]·bases[i], scalars in `form`
 * (CUZK_FR_MONTGOMERY or CUZK_FR_CANONICAL), all host-readable. The CPU MSM (lib/msm). */
void sim_msm_sum(int curve, const void *bases, const void *scalars, size_t n, int form, sim_msm_jac *out);
/* acc += p. */
void sim_msm_add(int curve, sim_msm_jac *acc, const sim_msm_jac *p);

/* The window msm_gpu_bases_precompute chooses for n points (0 when it cannot tell). */
unsigned sim_msm_choose_window(int curve, size_t n);

/* Grows what ctx holds on its device to what its context on a real device would hold after one
 * more MSM of n points (n_one ones, n_rest others; piece as msm_size_run's, spread 1, its
 * pieces sharing buckets within `shared` bytes where not 0; over copies at pre_c where the
 * plan's cost model takes them). CUZK_OK or CUZK_EDEVICE (out of memory: the context is then
 * trimmed) or the sizing's own error. */
int sim_msm_ctx_grow(msm_gpu_ctx *ctx, int curve, size_t n, size_t n_one, size_t n_rest, size_t piece,
                     size_t shared, unsigned copies, unsigned pre_c);
/* The host scalars' copy grown to n scalars (as the device context's, freed first). */
int sim_msm_ctx_grow_scalars(msm_gpu_ctx *ctx, size_t n);

#endif
