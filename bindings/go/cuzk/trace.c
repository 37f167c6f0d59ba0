/* The C side of the Go trace callback: the engine's trace thread calls cuzkgo_trace, which
 * hands the event to the exported Go function with the cgo.Handle of the engine's sink. The
 * handle travels as an integer in the user pointer, so no Go pointer is ever stored in C. */
#include <stdint.h>
#include <cuzk/cuzk.h>
#include "_cgo_export.h"

static void cuzkgo_trace(const cuzk_trace_event *ev, void *user)
{
    cuzkgoTraceEvent((cuzk_trace_event *)ev, (uintptr_t)user);
}

int cuzkgo_config_set_trace(cuzk_config *cfg, uintptr_t handle)
{
    return cuzk_config_set_trace(cfg, cuzkgo_trace, (void *)handle);
}
