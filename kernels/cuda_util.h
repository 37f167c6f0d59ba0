/*
 * The CUDA runtime behind a plain C interface, for the library's C code, tests and benches
 * (which include no CUDA header). Every call returns CUZK_OK or CUZK_EDEVICE with the CUDA
 * error's name and text in cuzk_last_error(); streams and events travel as void *.
 */
#ifndef CUZK_CUDA_UTIL_H
#define CUZK_CUDA_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 (not an error) when there is no driver or no device. */
int gpu_device_count(void);
/* "NVIDIA H200 (132 SMs, 139.8 GiB, sm_90)" for device dev. */
int gpu_device_describe(int dev, char *buf, size_t len);
int gpu_set_device(int dev);
int gpu_get_device(int *dev);
int gpu_synchronize(void); /* the whole current device */

/* Device memory: an allocation failure is CUZK_EDEVICE naming the size, never a crash. */
int gpu_malloc(void **p, size_t bytes);
void gpu_free(void *p);
/* Page-locked host memory (the copy engine reads it asynchronously). */
int gpu_host_alloc(void **p, size_t bytes);
void gpu_host_free(void *p);
/* Copies this thread enqueues (gpu_memcpy_async, the H step's inputs) from page-locked host
 * memory to the device run as kernels that read the host memory over the bus, not on a copy
 * engine (on: 1). An urgent worker sets it: a copy engine did not serve an urgent stream's
 * small copy until two backlog partitions' 12 GiB of queued copies were done (0.47 s on the
 * H200), whatever the streams' priorities; a kernel on the urgent stream gets SMs within a
 * few ms. Copies that are not host-to-device, not page-locked or not 16-byte aligned keep
 * the copy engine. */
void gpu_copy_use_sms(int on);
/* How many copies have run as kernels in this process (tests: the path really ran). */
uint64_t gpu_copy_sm_count(void);
/* A stage-boundary yield: gpu_gate_wait enqueues on `stream` a one-thread kernel that returns
 * once a word of page-locked host memory (gpu_host_alloc) reads 0, polling it over the bus
 * every ~20 us, or after GPU_GATE_MAX_NS whatever it reads. What the stream enqueues after it
 * waits; what runs already goes on. The host raises and lowers the word with atomics. The
 * bound guards against a wait nobody lowers (a host thread that must see this stream idle
 * before it lowers the word): a stall of seconds, never a hang. On a device whose kernels a
 * watchdog limits (a display GPU), kernels of GPU_GATE_SLICE_NS each instead, the same bound
 * in all (once the word is 0 the rest return at once). gpu_gate_map looks the word and the
 * device up once (not at every stage boundary): CUZK_EINVAL where the word is not mapped. */
#define GPU_GATE_MAX_NS 60000000000ull
#define GPU_GATE_SLICE_NS 500000000ull
typedef struct gpu_gate {
    const uint32_t *word;        /* the device's view of the host word                     */
    uint64_t slice_ns;           /* one kernel's bound                                      */
} gpu_gate;
int gpu_gate_map(gpu_gate *g, const uint32_t *word); /* for the current device */
int gpu_gate_wait(const gpu_gate *g, void *stream);
/* One bounded pause inside a stage (an MSM's window groups, msm_gpu_ctx_set_gate): a single
 * kernel of at most max_ns (or the watchdog slice, if shorter). Shorter than a stage
 * boundary's bound: a wait nobody lowers then costs each of a stage's many pauses, so the
 * urgent partition behind it is let through sooner; a raised word that outlasts it lets the
 * paused work run on until its next pause. A NULL gate: nothing enqueued. */
#define GPU_GATE_STEP_NS 5000000000ull
int gpu_gate_pause(const gpu_gate *g, void *stream, uint64_t max_ns);
/* 1 when p lies in page-locked host memory (cudaHostAlloc or registered), else 0. */
int gpu_host_is_pinned(const void *p);
int gpu_memcpy_to_device(void *dst, const void *src, size_t bytes);   /* synchronous */
int gpu_memcpy_to_host(void *dst, const void *src, size_t bytes);     /* synchronous */
int gpu_memcpy_async(void *dst, const void *src, size_t bytes, void *stream); /* any direction */
int gpu_memset_async(void *dst, int value, size_t bytes, void *stream);

int gpu_stream_create(void **stream);     /* non-blocking with respect to the legacy stream */
void gpu_stream_destroy(void *stream);
int gpu_stream_sync(void *stream);        /* NULL: the legacy default stream */

int gpu_event_create(void **ev);          /* with timing */
void gpu_event_destroy(void *ev);
int gpu_event_record(void *ev, void *stream);
int gpu_event_sync(void *ev);
int gpu_stream_wait_event(void *stream, void *ev);
int gpu_event_elapsed_ms(float *ms, void *start, void *end);
/* Pins existing host memory in place (no copy) for every device; unregister undoes it. */
int gpu_host_register(void *p, size_t bytes);
void gpu_host_unregister(void *p);
/* cudaMemGetInfo of the current device. */
int gpu_mem_info(size_t *free_bytes, size_t *total_bytes);
/* A non-blocking stream of the device's lowest scheduling priority (urgent 0) or its urgent-th
 * highest (1: the highest; never as low as the lowest while the device has two levels). */
int gpu_stream_create_priority(void **stream, int urgent);
/* An event for ordering only (no timing: cheaper to record and wait on). */
int gpu_event_create_sync_only(void **ev);

#ifdef __cplusplus
}
#endif

#endif
