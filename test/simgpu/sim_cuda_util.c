/*
 * kernels/cuda_util.h on the simulated device (simgpu.h): devices, their memory, page-locked
 * host memory, streams, events, copies and the urgent gate, with CUDA's contracts where a
 * caller can tell (an allocation past the device's memory fails, an event not recorded has no
 * time, a range registered twice is refused) and work done as it is enqueued.
 */
#include "simgpu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "error.h"

/* ---- devices and their memory ---- */

static pthread_once_t devs_once = PTHREAD_ONCE_INIT;
static int ndevs;
static size_t capacity[SIMGPU_MAX_DEVICES];
static _Atomic size_t charged[SIMGPU_MAX_DEVICES];
static _Thread_local int current_dev;

static unsigned long env_ulong(const char *name, unsigned long dflt, unsigned long lo, unsigned long hi)
{
    const char *v = getenv(name);
    char *end = NULL;
    if (!v || !*v) return dflt;
    unsigned long x = strtoul(v, &end, 10);
    if (!end || *end || x < lo || x > hi) {
        fprintf(stderr, "simgpu: %s=%s is not in %lu..%lu; using %lu\n", name, v, lo, hi, dflt);
        return dflt;
    }
    return x;
}

static void devs_init(void)
{
    ndevs = (int)env_ulong("CUZK_SIMGPU_DEVICES", 1, 0, SIMGPU_MAX_DEVICES);
    const size_t mib = env_ulong("CUZK_SIMGPU_MEM_MIB", 4096, 64, (unsigned long)1 << 20);
    for (int d = 0; d < ndevs; d++) capacity[d] = mib << 20;
}

static int devs(void)
{
    pthread_once(&devs_once, devs_init);
    return ndevs;
}

int sim_current_device(void) { return current_dev; }

size_t sim_capacity(int dev) { return dev >= 0 && dev < devs() ? capacity[dev] : 0; }

size_t sim_charged(int dev) { return dev >= 0 && dev < devs() ? atomic_load(&charged[dev]) : 0; }

int sim_charge(int dev, size_t bytes, const char *what)
{
    if (dev < 0 || dev >= devs()) return err_set(CUZK_EDEVICE, "simgpu: %s on device %d: no such device", what, dev);
    size_t now = atomic_load(&charged[dev]);
    do {
        if (bytes > capacity[dev] - now)
            return err_set(CUZK_EDEVICE, "simgpu: %s: %zu bytes on device %d, %zu of %zu left (out of memory)", what,
                           bytes, dev, capacity[dev] - now, capacity[dev]);
    } while (!atomic_compare_exchange_weak(&charged[dev], &now, now + bytes));
    return CUZK_OK;
}

void sim_uncharge(int dev, size_t bytes)
{
    if (dev < 0 || dev >= devs()) return;
    size_t was = atomic_fetch_sub(&charged[dev], bytes);
    if (was < bytes) {
        fprintf(stderr, "simgpu: device %d gave back %zu bytes with %zu charged\n", dev, bytes, was);
        abort();
    }
}

int gpu_device_count(void) { return devs(); }

int gpu_device_describe(int dev, char *buf, size_t len)
{
    if (dev < 0 || dev >= devs()) return err_set(CUZK_EDEVICE, "simgpu: no device %d", dev);
    snprintf(buf, len, "simulated GPU (host arithmetic, %.1f GiB)", capacity[dev] / 1073741824.0);
    return CUZK_OK;
}

int gpu_set_device(int dev)
{
    if (dev < 0 || dev >= devs()) return err_set(CUZK_EDEVICE, "simgpu: cudaSetDevice(%d): invalid device ordinal", dev);
    current_dev = dev;
    return CUZK_OK;
}

int gpu_get_device(int *dev)
{
    *dev = current_dev;
    return CUZK_OK;
}

int gpu_synchronize(void) { return CUZK_OK; }

/* A device allocation: its bytes and device in a header before it (256-byte aligned, as the
 * device pool's are), the magic catching a free of anything else. */
#define SIM_ALIGN 256
#define SIM_MAGIC 0x5349474d44455631ull /* "SIGMDEV1" */
typedef struct {
    uint64_t magic;
    size_t bytes;
    int dev;
} sim_block;

/* Fresh device memory is not zeroed on a GPU: small blocks are poisoned so that a reader of
 * memory nobody wrote sees garbage here too (large ones are left: touching them costs). */
#define SIM_POISON_MAX ((size_t)16 << 20)

int gpu_malloc(void **p, size_t bytes)
{
    *p = NULL;
    const int dev = current_dev;
    int rc = sim_charge(dev, bytes, "device allocation");
    if (rc) return rc;
    if (bytes > SIZE_MAX - 2 * SIM_ALIGN) {
        sim_uncharge(dev, bytes);
        return err_set(CUZK_EDEVICE, "simgpu: device allocation of %zu bytes: too large", bytes);
    }
    /* exactly the bytes asked for after the header, so that ASan (make test-simgpu under it)
     * sees the first byte past the end of a device buffer */
    void *raw = NULL;
    uint8_t *m = posix_memalign(&raw, SIM_ALIGN, SIM_ALIGN + bytes) ? NULL : raw;
    if (!m) {
        sim_uncharge(dev, bytes);
        return err_set(CUZK_EDEVICE, "simgpu: device allocation of %zu bytes: out of host memory", bytes);
    }
    sim_block *h = (sim_block *)m;
    h->magic = SIM_MAGIC, h->bytes = bytes, h->dev = dev;
    if (bytes <= SIM_POISON_MAX) memset(m + SIM_ALIGN, 0xa5, bytes);
    *p = m + SIM_ALIGN;
    return CUZK_OK;
}

void gpu_free(void *p)
{
    if (!p) return;
    sim_block *h = (sim_block *)((uint8_t *)p - SIM_ALIGN);
    if (h->magic != SIM_MAGIC) {
        fprintf(stderr, "simgpu: gpu_free(%p): not a device allocation (or freed twice)\n", p);
        abort();
    }
    h->magic = 0;
    sim_uncharge(h->dev, h->bytes);
    free(h);
}

void gpu_mem_trim(void) {}

int gpu_pool_used(int dev, uint64_t *used, uint64_t *reserved)
{
    if (dev < 0 || dev >= devs()) return err_set(CUZK_EDEVICE, "simgpu: no device %d", dev);
    *used = *reserved = atomic_load(&charged[dev]);
    return CUZK_OK;
}

int gpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    const int dev = current_dev;
    if (dev < 0 || dev >= devs()) return err_set(CUZK_EDEVICE, "simgpu: no device %d", dev);
    *total_bytes = capacity[dev];
    *free_bytes = capacity[dev] - atomic_load(&charged[dev]);
    return CUZK_OK;
}

/* ---- page-locked host memory: ranges registered ---- */

typedef struct {
    uintptr_t start;
    size_t len;
    int owned; /* gpu_host_alloc's (freed by gpu_host_free) */
} pinned_range;

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static pinned_range *pins;
static size_t npins, pins_cap;

static int pin_add(const void *p, size_t bytes, int owned)
{
    const uintptr_t s = (uintptr_t)p;
    pthread_mutex_lock(&pin_lock);
    for (size_t i = 0; i < npins; i++)
        if (s < pins[i].start + pins[i].len && pins[i].start < s + (bytes ? bytes : 1)) {
            pthread_mutex_unlock(&pin_lock);
            return err_set(CUZK_EDEVICE, "simgpu: cudaHostRegister(%p, %zu): part of the range is registered already",
                           p, bytes);
        }
    if (npins == pins_cap) {
        size_t cap = pins_cap ? 2 * pins_cap : 64;
        pinned_range *n = realloc(pins, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&pin_lock);
            return err_set(CUZK_EDEVICE, "simgpu: host registration: out of memory");
        }
        pins = n, pins_cap = cap;
    }
    pins[npins++] = (pinned_range){s, bytes ? bytes : 1, owned};
    pthread_mutex_unlock(&pin_lock);
    return CUZK_OK;
}

/* Takes the range starting at p off the list: 1 when there was one (*owned: gpu_host_alloc's). */
static int pin_remove(const void *p, int *owned)
{
    int found = 0;
    pthread_mutex_lock(&pin_lock);
    for (size_t i = 0; i < npins; i++)
        if (pins[i].start == (uintptr_t)p) {
            *owned = pins[i].owned;
            pins[i] = pins[--npins];
            found = 1;
            break;
        }
    pthread_mutex_unlock(&pin_lock);
    return found;
}

int gpu_host_is_pinned(const void *p)
{
    const uintptr_t a = (uintptr_t)p;
    int in = 0;
    pthread_mutex_lock(&pin_lock);
    for (size_t i = 0; i < npins && !in; i++) in = a >= pins[i].start && a < pins[i].start + pins[i].len;
    pthread_mutex_unlock(&pin_lock);
    return in;
}

int gpu_host_alloc(void **p, size_t bytes)
{
    *p = NULL;
    const size_t page = 4096;
    if (bytes > SIZE_MAX - page) return err_set(CUZK_EDEVICE, "simgpu: page-locked allocation of %zu bytes: too large", bytes);
    void *m = NULL;
    if (posix_memalign(&m, page, bytes ? bytes : 1))
        return err_set(CUZK_EDEVICE, "simgpu: page-locked allocation of %zu bytes failed", bytes);
    int rc = pin_add(m, bytes, 1);
    if (rc) {
        free(m);
        return rc;
    }
    *p = m;
    return CUZK_OK;
}

void gpu_host_free(void *p)
{
    int owned = 0;
    if (!p) return;
    if (!pin_remove(p, &owned) || !owned) {
        fprintf(stderr, "simgpu: gpu_host_free(%p): not page-locked memory of gpu_host_alloc\n", p);
        abort();
    }
    free(p);
}

int gpu_host_register(void *p, size_t bytes) { return pin_add(p, bytes, 0); }

void gpu_host_unregister(void *p)
{
    int owned = 0;
    if (pin_remove(p, &owned) && owned) {
        fprintf(stderr, "simgpu: gpu_host_unregister(%p) of gpu_host_alloc memory\n", p);
        abort();
    }
}

/* ---- copies ---- */

static _Thread_local int copy_by_sms;
static _Atomic uint64_t sm_copies;

void gpu_copy_use_sms(int on) { copy_by_sms = on != 0; }

uint64_t gpu_copy_sm_count(void) { return atomic_load(&sm_copies); }

/* A copy's or fill's NULL end is cudaErrorInvalidValue on a device, never a crash here. */
static int bad_end(const void *dst, const void *src, size_t bytes, const char *what)
{
    if (bytes && (!dst || !src)) return err_set(CUZK_EDEVICE, "simgpu: %s of %zu bytes: invalid argument (NULL)", what, bytes);
    return CUZK_OK;
}

int gpu_memcpy_to_device(void *dst, const void *src, size_t bytes)
{
    int rc = bad_end(dst, src, bytes, "cudaMemcpy");
    if (!rc && bytes) memmove(dst, src, bytes);
    return rc;
}

int gpu_memcpy_to_host(void *dst, const void *src, size_t bytes)
{
    return gpu_memcpy_to_device(dst, src, bytes); /* one address space here */
}

int gpu_memcpy_async(void *dst, const void *src, size_t bytes, void *stream)
{
    (void)stream;
    int rc = bad_end(dst, src, bytes, "cudaMemcpyAsync");
    if (rc || !bytes) return rc;
    /* the device would read page-locked, 16-byte aligned host memory with a kernel */
    if (copy_by_sms && !(((uintptr_t)dst | (uintptr_t)src | bytes) & 15) && gpu_host_is_pinned(src))
        atomic_fetch_add(&sm_copies, 1);
    memmove(dst, src, bytes);
    return CUZK_OK;
}

int gpu_memset_async(void *dst, int value, size_t bytes, void *stream)
{
    (void)stream;
    int rc = bad_end(dst, dst, bytes, "cudaMemsetAsync");
    if (!rc && bytes) memset(dst, value, bytes);
    return rc;
}

/* ---- streams and events ---- */

typedef struct {
    int dev, urgent;
} sim_stream;

typedef struct {
    struct timespec at;
    int recorded, timing;
} sim_event;

int gpu_stream_create_priority(void **stream, int urgent)
{
    sim_stream *s = malloc(sizeof *s);
    if (!s) return err_set(CUZK_EDEVICE, "simgpu: stream: out of memory");
    s->dev = current_dev, s->urgent = urgent;
    *stream = s;
    return CUZK_OK;
}

int gpu_stream_create(void **stream) { return gpu_stream_create_priority(stream, 0); }

void gpu_stream_destroy(void *stream) { free(stream); }

int gpu_stream_sync(void *stream)
{
    (void)stream;
    return CUZK_OK;
}

static int event_new(void **ev, int timing)
{
    sim_event *e = calloc(1, sizeof *e);
    if (!e) return err_set(CUZK_EDEVICE, "simgpu: event: out of memory");
    e->timing = timing;
    *ev = e;
    return CUZK_OK;
}

int gpu_event_create(void **ev) { return event_new(ev, 1); }

int gpu_event_create_sync_only(void **ev) { return event_new(ev, 0); }

void gpu_event_destroy(void *ev) { free(ev); }

int gpu_event_record(void *ev, void *stream)
{
    (void)stream;
    sim_event *e = ev;
    clock_gettime(CLOCK_MONOTONIC, &e->at);
    e->recorded = 1;
    return CUZK_OK;
}

int gpu_event_sync(void *ev)
{
    (void)ev;
    return CUZK_OK;
}

int gpu_stream_wait_event(void *stream, void *ev)
{
    (void)stream, (void)ev;
    return CUZK_OK;
}

int gpu_event_elapsed_ms(float *ms, void *start, void *end)
{
    const sim_event *a = start, *b = end;
    if (!a->timing || !b->timing)
        return err_set(CUZK_EDEVICE, "simgpu: cudaEventElapsedTime: an event created without timing");
    if (!a->recorded || !b->recorded) return err_set(CUZK_EDEVICE, "simgpu: cudaEventElapsedTime: event not recorded");
    *ms = (float)((b->at.tv_sec - a->at.tv_sec) * 1e3 + (b->at.tv_nsec - a->at.tv_nsec) / 1e6);
    return CUZK_OK;
}

/* ---- the urgent gate: work is done once enqueued, so a pass only waits for the word ---- */

int gpu_gate_init(gpu_gate *g, const uint32_t *word)
{
    g->word = word;
    g->done = g; /* no event needed: nothing is ever left queued */
    return CUZK_OK;
}

void gpu_gate_fini(gpu_gate *g) { g->done = NULL; }

void gpu_gate_hold(const uint32_t *word)
{
    while (word && __atomic_load_n(word, __ATOMIC_ACQUIRE)) {
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
}

int gpu_gate_pass(const gpu_gate *g, void *stream)
{
    (void)stream;
    if (!g) return CUZK_OK;
    gpu_gate_hold(g->word);
    return CUZK_OK;
}
