/*
 * Shared between the NTT sources: the per-device twiddle tables, the per-size constants,
 * and the description of one transform (a DIF or DIT pipeline with its fused pre/post
 * element hooks) that ntt.cu runs and h_step.cu composes.
 */
#ifndef CUZK_NTT_INTERNAL_CUH
#define CUZK_NTT_INTERNAL_CUH

#include <cuda_runtime.h>

#include "field/fr.cuh"

#define NTT_MAX_LOG 28
#define NTT_Z_LOG 11       /* Z: powers of the primitive 2^11-th root (column twiddles) */
#define NTT_DIRECT_LOG 19  /* D: powers of the primitive 2^19-th root (row-pass twiddles) */
#define NTT_SPLIT 14       /* two-level tables: index = hi·2^14 + lo */

/* Element hooks fused into a transform's first load / last store. */
enum { NTT_HOOK_NONE = 0, NTT_HOOK_SCALE, NTT_HOOK_COSET, NTT_HOOK_MUL, NTT_HOOK_HFINAL,
       /* HFINAL with aux in the output's (natural) order: out may then be aux itself, each
        * element read and written by one thread (the two-buffer H step) */
       NTT_HOOK_HFINAL_NAT };

struct ntt_dir_tables { /* one direction (ω or ω^-1) */
    const fr_gpu *z;      /* 2^11 entries: ζ^t, ζ primitive of order 2^11 */
    const fr_gpu *direct; /* 2^19 entries: ω_{2^19}^e */
    const fr_gpu *tl_lo;  /* 2^14 entries: ω_{2^28}^x */
    const fr_gpu *tl_hi;  /* 2^14 entries: ω_{2^28}^(x·2^14) */
    const fr_gpu *gc_lo;  /* 2^14 entries: g^(±x) (g = 7; + for forward, - for inverse) */
    const fr_gpu *gc_hi;  /* 2^14 entries: g^(±x·2^14) */
};

struct ntt_size_ctx {
    int ready;
    fr_gpu inv_n;             /* 1/n */
    fr_gpu h_scale;           /* 1/(n·(g^n - 1)) */
    const fr_gpu *hi_fwd_inv_n;  /* max(1, n/2^14) entries: g^(x·2^14)/n */
    const fr_gpu *hi_inv_inv_n;  /* g^(-x·2^14)/n */
    const fr_gpu *hi_inv_h;      /* g^(-x·2^14)/(n·(g^n - 1)) */
    const fr_gpu *tw_inv_h;      /* above 2^19: ω_{2^28}^(-x·2^14)/(n·(g^n - 1)), 2^14 entries */
    fr_gpu *mem;
};

struct ntt_device_ctx {
    int ready;
    ntt_dir_tables dir[2]; /* [0] forward, [1] inverse */
    fr_gpu *mem;
    ntt_size_ctx size[NTT_MAX_LOG + 1];
};

/* The context of the current device with the tables of size 2^log_n built (once per device
 * and size; thread-safe; blocks only the first time). */
int ntt_ctx_get(unsigned log_n, const ntt_device_ctx **out, const ntt_size_ctx **size_out);

/* One transform over 2^log_n elements. dif: natural in, bit-reversed out (else DIT:
 * bit-reversed in, natural out). Hook indices are natural indices of the transform's
 * input (in-hook: coefficient i) and output (out-hook: value k); aux is read at the
 * output's storage position. HFINAL writes x·coset(k) - aux[pos] to out[k] (natural). */
struct ntt_job {
    fr_gpu *data; /* in place, except that the last pass writes to out */
    fr_gpu *out;
    unsigned log_n;
    bool dif, inverse;
    int in_hook;
    const fr_gpu *in_lo, *in_hi;
    int out_hook;
    const fr_gpu *out_lo, *out_hi;
    const fr_gpu *aux;
    fr_gpu scale;
    const fr_gpu *tw0_hi; /* if set and pass 0 (DIF numbering) uses two-level twiddles: its
                           * high table instead of the plain one (a scaled copy folds a
                           * constant factor into the twiddle product) */
};

int ntt_run(const ntt_job &job, const ntt_device_ctx *ctx, cudaStream_t stream);
/* inv (DIF, in place, out-hook COSET: the mid factor) then fwd (DIT on the same buffer, no
 * in-hook), with inv's last pass and fwd's first fused into one pass over memory; with then
 * (a DIF on the same buffer, no in-hook; fwd's out-hook MUL), fwd's last pass, its product
 * and then's first pass are one pass too. part (a mask) selects passes, so that the caller
 * can record events between them: HEAD up to the one that reads fwd's aux (everything
 * without then), MID the rest but the last, LAST the last pass (which may wait for then's
 * aux). At one tile (2^11 and below) the transforms run one after the other. */
enum { NTT_CHAIN_HEAD = 1, NTT_CHAIN_MID = 2, NTT_CHAIN_LAST = 4, NTT_CHAIN_ALL = 7 };
int ntt_run_chain(const ntt_job &inv, const ntt_job &fwd, const ntt_job *then, int part, const ntt_device_ctx *ctx,
                  cudaStream_t stream);
int ntt_bitrev_permute(fr_gpu *d, unsigned log_n, cudaStream_t stream);

#endif
