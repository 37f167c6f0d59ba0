package cuzk

/*
#include <stdlib.h>
#include <cuzk/cuzk.h>
*/
import "C"

import "unsafe"

// Stats is a snapshot of the engine's counters (read one by one, not atomically together).
type Stats struct {
	Backend          Backend
	Devices, Workers uint32 // GPUs in use (0 on the CPU backend); proving threads
	Submitted        uint64 // jobs accepted
	Completed        uint64 // results posted with a proof
	Failed           uint64 // results posted with another error than the two below
	Canceled         uint64
	VerifyFailed     uint64
	Queued           uint64 // now: waiting for a worker
	Running          uint64 // now: being proved or finished
	Unpolled         uint64 // now: results waiting for Poll
	QueueCapacity    uint64
	HostBudgetBytes  uint64
	HostReserved     uint64 // bytes reserved now, Witness memory included
	HostReservedPeak uint64
	HostAllocBytes   uint64 // held in Witness blocks now
	BudgetWaits      uint64 // partitions that waited for memory
	TraceEvents      uint64 // delivered to the trace callback
	TraceDropped     uint64 // dropped because the library's ring was full
	ArenaCollects    uint64
	ArenaBytes       uint64
	CSHostBytes      uint64 // host memory of the loaded constraint systems (LoadCS), not in the budget
	CSDeviceBytes    uint64 // their device memory (CUDA), within the device budget

	raw C.cuzk_stats
}

// Stats reads the engine's counters.
func (e *Engine) Stats() (Stats, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_engine_stats")
	if err != nil {
		return Stats{}, err
	}
	var s Stats
	s.raw.struct_size = C.uint32_t(unsafe.Sizeof(s.raw))
	if err := call("cuzk_engine_stats", func() C.int { return C.cuzk_engine_stats(ce, &s.raw) }); err != nil {
		return Stats{}, err
	}
	r := &s.raw
	s.Backend, s.Devices, s.Workers = Backend(r.backend), uint32(r.devices), uint32(r.workers)
	s.Submitted, s.Completed, s.Failed = uint64(r.submitted), uint64(r.completed), uint64(r.failed)
	s.Canceled, s.VerifyFailed = uint64(r.canceled), uint64(r.verify_failed)
	s.Queued, s.Running, s.Unpolled, s.QueueCapacity = uint64(r.queued), uint64(r.running), uint64(r.unpolled), uint64(r.queue_capacity)
	s.HostBudgetBytes, s.HostReserved, s.HostReservedPeak = uint64(r.host_budget_bytes), uint64(r.host_reserved_bytes), uint64(r.host_reserved_peak)
	s.HostAllocBytes, s.BudgetWaits = uint64(r.host_alloc_bytes), uint64(r.budget_waits)
	s.TraceEvents, s.TraceDropped = uint64(r.trace_events), uint64(r.trace_dropped)
	s.ArenaCollects, s.ArenaBytes = uint64(r.arena_collects), uint64(r.arena_bytes)
	s.CSHostBytes, s.CSDeviceBytes = uint64(r.cs_host_bytes), uint64(r.cs_device_bytes)
	return s, nil
}

// Prometheus formats the snapshot (as read, whatever its fields were changed to) in the
// Prometheus text format, for a /metrics endpoint. deviceBusyNs[i] is GPU i's busy time
// (one entry, the CPU, on the CPU backend): the sums of TraceStart spans; nil leaves the
// metric out.
func (s *Stats) Prometheus(deviceBusyNs []uint64) (string, error) {
	var busy *C.uint64_t
	if len(deviceBusyNs) > 0 {
		busy = u64Ptr(deviceBusyNs) // Go memory, read during the call only: allowed by cgo
	}
	n := C.uint32_t(len(deviceBusyNs))
	var size C.size_t
	// Asking for the size with no buffer answers ERANGE and the length.
	if err := call("cuzk_stats_format_prometheus", func() C.int {
		rc := C.cuzk_stats_format_prometheus(&s.raw, busy, n, nil, 0, &size)
		if rc == C.CUZK_ERANGE {
			rc = C.CUZK_OK
		}
		return rc
	}); err != nil {
		return "", err
	}
	buf := (*C.char)(C.malloc(size + 1))
	defer C.free(unsafe.Pointer(buf))
	if err := call("cuzk_stats_format_prometheus", func() C.int {
		return C.cuzk_stats_format_prometheus(&s.raw, busy, n, buf, size+1, &size)
	}); err != nil {
		return "", err
	}
	return C.GoStringN(buf, C.int(size)), nil
}
