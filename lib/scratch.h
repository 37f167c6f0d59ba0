/*
 * Where a computation takes its working memory: the C heap (NULL allocator: CLI, tests,
 * benches) or a caller's allocator (the engine feeds the partition's mimalloc heap). Only
 * the thread that called the computation allocates; pool threads get slices of it.
 */
#ifndef CUZK_SCRATCH_H
#define CUZK_SCRATCH_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct scratch_alloc {
    void *(*alloc)(void *ctx, size_t bytes); /* 64-byte aligned; NULL when out of memory */
    void (*free)(void *ctx, void *p);        /* p may be NULL                            */
    void *ctx;
} scratch_alloc;

/* sa == NULL: malloc/free. */
static inline void *scratch_get(const scratch_alloc *sa, size_t bytes)
{
    if (!bytes) bytes = 1;
    return sa ? sa->alloc(sa->ctx, bytes) : malloc(bytes);
}

static inline void *scratch_zget(const scratch_alloc *sa, size_t bytes)
{
    if (!sa) return calloc(bytes ? bytes : 1, 1);
    void *p = sa->alloc(sa->ctx, bytes ? bytes : 1);
    if (p) memset(p, 0, bytes);
    return p;
}

static inline void scratch_put(const scratch_alloc *sa, void *p)
{
    if (!p) return;
    if (sa) sa->free(sa->ctx, p);
    else free(p);
}

#endif
