/*
 * Fault injection for the tests: named sites in the library that can be told to fail their
 * N-th call. Compiled into every build (nothing is exported; tests reach it through
 * build/lib/libcuzk.a); with nothing armed a site costs one relaxed atomic load.
 *
 * Adding a site in library code (lib/, C only):
 *     #include "fault.h"
 *     if (FAULT_HIT(FAULT_CUDA_MSM)) rc = err_set(CUZK_EDEVICE, "injected fault: CUDA MSM");
 * i.e. the site fails the way the real operation fails, through the same cleanup path, with
 * a detail that says "injected". The CUDA stage sites, in lib/backend/ (cuda_*.c) where
 * the real CUDA call's error is checked (test/gpu/test_gpu_engine.c exercises them):
 *     FAULT_CUDA_H     the H step (NTTs) of a partition, in start: CUZK_EDEVICE
 *     FAULT_CUDA_MSM   an MSM launch or its completion (start or finish): CUZK_EDEVICE
 *     FAULT_CUDA_COPY  a host<->device copy of a partition's scalars: CUZK_EDEVICE
 *     FAULT_CUDA_ALLOC a device allocation for a partition (or a key's bases): CUZK_EBUDGET
 *     FAULT_CUDA_HOLD  not a failure: a partition that hits it waits there, counted as running
 *                      on its device (before it takes a slot), until fault_hold_release —
 *                      so a test knows a partition of a key is in flight
 *                      for a partition's working memory, CUZK_EDEVICE for a key's bases
 * Sites wired in the engine and CPU paths:
 *     FAULT_HEAP_ALLOC  arena_heap_alloc returns NULL (bjob_alloc and every partition-heap
 *                       allocation go through it)
 *     FAULT_HEAP_NEW    arena_heap_new returns NULL
 *     FAULT_HOST_ALLOC  cuzk_host_alloc's allocation fails (plain, mmap or the backend's
 *                       pinned pool): CUZK_ENOMEM
 *     FAULT_MSM_CORRUPT the engine negates the proof's C after finish and before the
 *                       self-check (its compressed sign bit flipped: a byte edit) — a wrong
 *                       L or H MSM output makes C wrong the same way (C = ... + L + H), for
 *                       every backend; the proof still decodes
 *     FAULT_KEY_LOAD    groth16_params_load fails with CUZK_EIO after the parse (so the parsed
 *                       key is freed on the error path)
 */
#ifndef CUZK_FAULT_H
#define CUZK_FAULT_H

#include <stdatomic.h>
#include <stdint.h>

typedef enum fault_site {
    FAULT_HEAP_ALLOC = 0,
    FAULT_HEAP_NEW,
    FAULT_HOST_ALLOC,
    FAULT_MSM_CORRUPT,
    FAULT_KEY_LOAD,
    FAULT_CUDA_H,
    FAULT_CUDA_MSM,
    FAULT_CUDA_COPY,
    FAULT_CUDA_ALLOC,
    FAULT_CUDA_HOLD,
    FAULT_SITES
} fault_site;

/* Nonzero while any site is armed (the only thing a site reads otherwise). */
extern _Atomic uint32_t fault_armed_any;

/* Counts the call at an armed site; 1 if this call must fail. */
int fault_hit_slow(fault_site site);

#define FAULT_HIT(site)                                                                        \
    (__builtin_expect(atomic_load_explicit(&fault_armed_any, memory_order_relaxed) != 0, 0) && \
     fault_hit_slow(site))

/* From now on, calls nth .. nth+count-1 at site (1-based, counted from this call) fail;
 * count 0 = every call from the nth on. Re-arming a site restarts its count. */
void fault_arm(fault_site site, uint64_t nth, uint64_t count);
/* A thread at a hold site (FAULT_HIT true) waits here until fault_hold_release. */
void fault_hold_wait(void);
/* Every thread waiting in fault_hold_wait goes on. */
void fault_hold_release(void);
/* Every site disarmed; counters kept until the next arm. */
void fault_disarm_all(void);
/* Calls seen at site since it was armed, and how many of them failed. */
uint64_t fault_calls(fault_site site);
uint64_t fault_hits(fault_site site);
const char *fault_site_name(fault_site site);

#endif
