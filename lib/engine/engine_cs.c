/*
 * Constraint systems on an engine and witness-only partitions: cuzk_cs_load / _release /
 * _info, cuzk_cs_convert, and cuzk_submit_witness, which checks the witness against its
 * constraint system and queues it as a partition whose a, b, c the backend evaluates.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "error.h"
#include "groth16/csc.h"

static void cs_destroy(cuzk_cs *cs)
{
    cuzk_engine *e = cs->engine;
    atomic_fetch_sub_explicit(&e->cs_bytes, cs->host_bytes, memory_order_relaxed); /* a statistic */
    atomic_fetch_sub_explicit(&e->cs_device_bytes, cs->device_bytes, memory_order_relaxed);
    if (cs->be_cs) e->ops->cs_unplace(e->be, cs->be_cs);
    csc_free(cs->sys);
    free(cs->sys);
    cs->magic = 0;
    free(cs);
}

void engine_cs_unref(cuzk_cs *cs)
{
    /* acq_rel: the last holder sees every other holder's use before freeing */
    if (atomic_fetch_sub_explicit(&cs->refs, 1, memory_order_acq_rel) != 1) return;
    cuzk_engine *e = cs->engine;
    pthread_mutex_lock(&e->srs_lock); /* the list; not a hot path (once per system) */
    if (cs->prev) cs->prev->next = cs->next;
    else e->cs_list = cs->next;
    if (cs->next) cs->next->prev = cs->prev;
    pthread_mutex_unlock(&e->srs_lock);
    cs_destroy(cs);
}

void engine_cs_free_all(cuzk_engine *e)
{
    while (e->cs_list) { /* systems the host never released: every job is done */
        cuzk_cs *cs = e->cs_list;
        e->cs_list = cs->next;
        cs_destroy(cs);
    }
}

int engine_cs_adopt(cuzk_engine *e, struct csc *sys, uint32_t flags, cuzk_cs **out)
{
    int rc;
    cuzk_cs *cs = calloc(1, sizeof *cs);
    if (!cs) return err_set(CUZK_ENOMEM, "cuzk_cs_load: out of memory");
    void *be_cs = NULL; /* on the devices, through their budget (CUDA), before it is visible */
    if (e->ops->cs_place) {
        rc = e->ops->cs_place(e->be, sys, flags, &be_cs);
        /* idle keys that gave way to it (even where it then failed) stream from host copies
         * page-locked for them: counted in the host budget as after a key's load */
        engine_srs_count_pinned(e);
        if (rc != CUZK_OK) {
            free(cs);
            return rc;
        }
    }
    cs->be_cs = be_cs;
    if (be_cs) e->ops->cs_device(e->be, be_cs, &cs->device_bytes, &cs->resident_devices, &cs->streamed_devices);
    atomic_fetch_add_explicit(&e->cs_device_bytes, cs->device_bytes, memory_order_relaxed); /* a statistic */
    cs->magic = CS_MAGIC;
    cs->engine = e;
    cs->sys = sys;
    cs->host_bytes = csc_bytes(sys);
    atomic_init(&cs->refs, 1);
    atomic_init(&cs->released, 0);
    atomic_fetch_add_explicit(&e->cs_bytes, cs->host_bytes, memory_order_relaxed); /* a statistic */
    pthread_mutex_lock(&e->srs_lock);
    cs->next = e->cs_list;
    if (cs->next) cs->next->prev = cs;
    e->cs_list = cs;
    pthread_mutex_unlock(&e->srs_lock);
    *out = cs;
    return CUZK_OK;
}

CUZK_API int cuzk_cs_load(cuzk_engine *e, const char *path, uint32_t flags, cuzk_cs **out)
{
    if (out) *out = NULL;
    if (!engine_ok(e) || !path || !out)
        return err_set(CUZK_EINVAL, "cuzk_cs_load: engine, path and out must not be NULL");
    if (flags & ~(uint32_t)CUZK_CS_STREAM)
        return err_set(CUZK_EINVAL, "cuzk_cs_load: flags 0x%x (only CUZK_CS_STREAM = 0x%x is defined)", flags,
                       (unsigned)CUZK_CS_STREAM);
    csc *sys = calloc(1, sizeof *sys);
    if (!sys) return err_set(CUZK_ENOMEM, "cuzk_cs_load: out of memory");
    /* the load's reads and checks on threads of their own, as many as the engine's CPU threads
     * (0: every CPU): the backends' pools belong to proving */
    threadpool *tp = threadpool_create(e->o.cpu_threads);
    int rc = tp ? csc_load_any(path, tp, sys) : err_set(CUZK_ENOMEM, "cuzk_cs_load: cannot start threads");
    threadpool_destroy(tp);
    if (rc == CUZK_OK && (rc = engine_cs_adopt(e, sys, flags, out)) != CUZK_OK) csc_free(sys);
    if (rc != CUZK_OK) free(sys);
    return err_done(rc);
}

CUZK_API void cuzk_cs_release(cuzk_cs *cs)
{
    if (!cs || cs->magic != CS_MAGIC) return;
    /* relaxed: a flag for submit's sanity check; the reference count orders the memory */
    if (atomic_exchange_explicit(&cs->released, 1, memory_order_relaxed)) return;
    engine_cs_unref(cs);
}

_Static_assert(offsetof(cuzk_cs_info, host_bytes) + sizeof(uint64_t) == CUZK_CS_INFO_SIZE_V1,
               "cuzk_cs_info's first published members must keep their layout");
_Static_assert(offsetof(cuzk_witness_partition, release_user) + sizeof(void *) == CUZK_WITNESS_PARTITION_SIZE_V1,
               "cuzk_witness_partition's first published members must keep their layout");

CUZK_API int cuzk_cs_get_info(cuzk_cs *cs, cuzk_cs_info *out)
{
    if (!cs || cs->magic != CS_MAGIC || !out)
        return err_set(CUZK_EINVAL, "cuzk_cs_get_info: cs and out must be valid");
    if (out->struct_size < CUZK_CS_INFO_SIZE_V1)
        return err_set(CUZK_EINVAL, "cuzk_cs_get_info: struct_size %u (at least %u)", out->struct_size, CUZK_CS_INFO_SIZE_V1);
    const csc *c = cs->sys;
    cuzk_cs_info i;
    memset(&i, 0, sizeof i);
    i.num_coeffs = c->n_coeffs;
    i.num_inputs = c->num_inputs;
    i.num_aux = c->num_aux;
    i.num_constraints = c->num_constraints;
    i.abc_len = c->abc_len;
    for (int w = 0; w < 3; w++) i.nnz[w] = c->m[w].nnz;
    i.host_bytes = cs->host_bytes;
    i.device_bytes = cs->device_bytes;
    i.resident_devices = cs->resident_devices;
    i.streamed_devices = cs->streamed_devices;
    size_t fill = out->struct_size < sizeof i ? out->struct_size : sizeof i;
    i.struct_size = (uint32_t)fill;
    memcpy(out, &i, fill);
    return err_done(CUZK_OK);
}

CUZK_API int cuzk_cs_convert(const char *r1cs_path, const char *out_path)
{
    if (!r1cs_path || !out_path) return err_set(CUZK_EINVAL, "cuzk_cs_convert: NULL path");
    csc c;
    int rc = csc_load_any(r1cs_path, NULL, &c);
    if (rc == CUZK_OK) {
        rc = csc_write(out_path, &c);
        csc_free(&c);
    }
    return err_done(rc);
}

/* The witness struct as this library knows it (an older host's is shorter, a newer host's
 * may be longer only with its unknown fields unset), turned into the partition the engine
 * queues: a, b, c NULL, the rest from the witness and cs. */
static int witness_to_partition(const cuzk_witness_partition *w, const csc *c, cuzk_partition *p)
{
    if (!w) return err_set(CUZK_EINVAL, "cuzk_submit_witness: partition is NULL");
    if (w->struct_size < CUZK_WITNESS_PARTITION_SIZE_V1 || w->struct_size > 65536)
        return err_set(CUZK_EINVAL, "cuzk_submit_witness: struct_size %u (at least %u, CUZK_WITNESS_PARTITION_SIZE_V1; "
                       "this library knows %zu)", w->struct_size, CUZK_WITNESS_PARTITION_SIZE_V1, sizeof *w);
    if (w->struct_size > sizeof *w) {
        const unsigned char *extra = (const unsigned char *)w + sizeof *w;
        for (size_t i = 0; i < w->struct_size - sizeof *w; i++)
            if (extra[i])
                return err_set(CUZK_EINVAL, "cuzk_submit_witness: struct_size %u sets fields this library (%zu bytes) "
                               "does not know", w->struct_size, sizeof *w);
    }
    cuzk_witness_partition x;
    memset(&x, 0, sizeof x);
    memcpy(&x, w, w->struct_size < sizeof x ? w->struct_size : sizeof x);
    if (x.scalar_form != CUZK_FR_MONTGOMERY && x.scalar_form != CUZK_FR_CANONICAL)
        return err_set(CUZK_EINVAL, "cuzk_submit_witness: scalar_form %d is neither CUZK_FR_MONTGOMERY (0) nor "
                       "CUZK_FR_CANONICAL (1)", x.scalar_form);
    if (x.reserved) return err_set(CUZK_EINVAL, "cuzk_submit_witness: reserved is %u, must be 0", x.reserved);
    if (x.num_inputs != c->num_inputs || x.num_aux != c->num_aux)
        return err_set(CUZK_EMISMATCH, "cuzk_submit_witness: the witness has %llu inputs and %llu aux, the constraint "
                       "system %llu inputs and %llu aux", (unsigned long long)x.num_inputs,
                       (unsigned long long)x.num_aux, (unsigned long long)c->num_inputs,
                       (unsigned long long)c->num_aux);
    if (!x.inputs || (x.num_aux && !x.aux))
        return err_set(CUZK_EINVAL, "cuzk_submit_witness: inputs or aux is NULL");
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->scalar_form = x.scalar_form;
    p->abc_len = c->abc_len;
    p->inputs = x.inputs;
    p->num_inputs = x.num_inputs;
    p->aux = x.aux;
    p->num_aux = x.num_aux;
    p->a_aux_density = c->a_aux_density;
    p->b_input_density = c->b_input_density;
    p->b_aux_density = c->b_aux_density;
    p->r = x.r;
    p->s = x.s;
    p->priority = x.priority;
    p->user_tag = x.user_tag;
    p->release = x.release;
    p->release_user = x.release_user;
    return CUZK_OK;
}

CUZK_API int cuzk_submit_witness(cuzk_engine *e, cuzk_srs *srs, cuzk_cs *cs, const cuzk_witness_partition *w,
                                 cuzk_job *out)
{
    uint64_t t0 = now_ns();
    if (!engine_ok(e) || !out) return err_set(CUZK_EINVAL, "cuzk_submit_witness: engine and out must not be NULL");
    *out = 0;
    if (!srs || srs->magic != SRS_MAGIC || srs->engine != e)
        return err_set(CUZK_EINVAL, "cuzk_submit_witness: srs is NULL, not a key, or another engine's");
    if (!cs || cs->magic != CS_MAGIC || cs->engine != e)
        return err_set(CUZK_EINVAL, "cuzk_submit_witness: cs is NULL, not a constraint system, or another engine's");
    /* relaxed: sanity checks of the host's own ordering (submit after release is its bug) */
    if (atomic_load_explicit(&srs->released, memory_order_relaxed))
        return err_set(CUZK_EINVAL, "cuzk_submit_witness: the key was released");
    if (atomic_load_explicit(&cs->released, memory_order_relaxed))
        return err_set(CUZK_EINVAL, "cuzk_submit_witness: the constraint system was released");
    /* acquire: pairs with destroy's release store */
    if (atomic_load_explicit(&e->shutdown, memory_order_acquire))
        return err_set(CUZK_ESHUTDOWN, "cuzk_submit_witness: the engine is being destroyed");
    if (!e->ops->check_witness)
        return err_set(CUZK_EINVAL, "cuzk_submit_witness: the %s backend cannot evaluate constraint systems",
                       e->ops->name);
    cuzk_partition p;
    int rc = witness_to_partition(w, cs->sys, &p);
    if (rc != CUZK_OK) return rc;
    backend_estimate est = {0, 0, 0};
    if ((rc = e->ops->check_witness(e->be, srs->key, cs->sys, cs->be_cs, &p, &est)) != CUZK_OK) return rc;
    uint64_t h = 0;
    if ((rc = engine_submit_checked(e, srs, cs, &p, &est, t0, &h)) != CUZK_OK) return rc;
    *out = h;
    return err_done(CUZK_OK);
}
