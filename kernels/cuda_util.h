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

/* Device memory from a private stream-ordered pool of each device (made at its first use; kept
 * mapped between frees, so later allocations reuse it). An allocation failure is CUZK_EDEVICE
 * naming the size, never a crash. Why not cudaMalloc/cudaFree: cudaFree waits for every stream
 * of the device and, while it waits, holds back every other thread's launches (an urgent
 * partition's too); a free into the pool waits for nothing (bench/RESULTS.md, session 9).
 * gpu_free's caller has seen idle every stream that used p (the pool may hand it out at once). */
int gpu_malloc(void **p, size_t bytes);
void gpu_free(void *p);
/* The pools' unused memory back to the driver (engine destroy: the device's free memory is
 * then what it was before the engine). */
void gpu_mem_trim(void);
/* Bytes allocated now from device dev's pool and not freed (*used), and the device memory the
 * pool holds for them and for what was freed into it (*reserved: freed memory stays mapped):
 * what every gpu_malloc and stream-ordered allocation of the process takes there (for tests of
 * the placement's estimates). CUZK_EDEVICE where the pool cannot be made. */
int gpu_pool_used(int dev, uint64_t *used, uint64_t *reserved);
/* Page-locked host memory (the copy engine reads it asynchronously; kernels read it over the
 * bus): an anonymous mapping registered with CUDA (kernels/host_pinned.cu says why not
 * cudaHostAlloc: cudaFreeHost held back every thread's launches for hundreds of ms). */
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
/* The pacing of an ordinary partition's work beside urgent work. gpu_gate_pass, called by the
 * thread that enqueues a stream's work at each point where that work may give way (stage
 * boundaries, an MSM's window groups, the H step's transforms), waits on the host until the
 * stream has run everything enqueued before it, then while *word (the device's count of
 * urgent partitions running) is nonzero. So such a stream never has more than one chunk of
 * work on the device, and the device never waits for the host: a thread that waits for the
 * device (a free of page-locked memory, a full launch queue) waits for at most one chunk per
 * paced stream and the urgent work itself, and the urgent partitions that lower the word wait
 * for nothing the paced threads hold. (Until session 8 the pause was a kernel polling a word
 * over the bus, bounded by guards of 5 and 60 s: a free or a full launch queue that waited for
 * the device then waited for the guards, and an engine under load stalled for minutes.)
 * gpu_gate_init makes the gate's event (blocking: a waiting thread sleeps); a NULL gate passes
 * at once. */
typedef struct gpu_gate {
    const uint32_t *word;        /* host atomics: urgent partitions running on the device   */
    void *done;                  /* the stream's work up to the last pass                    */
} gpu_gate;
int gpu_gate_init(gpu_gate *g, const uint32_t *word);
void gpu_gate_fini(gpu_gate *g);
int gpu_gate_pass(const gpu_gate *g, void *stream);
/* Waits on the host while *word is nonzero. */
void gpu_gate_hold(const uint32_t *word);
/* 1 when p lies in page-locked host memory (gpu_host_alloc or registered), else 0. */
int gpu_host_is_pinned(const void *p);
int gpu_memcpy_to_device(void *dst, const void *src, size_t bytes);   /* landed on return, even from pageable memory */
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
