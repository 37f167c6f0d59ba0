package cuzk

/*
#include <cuzk/cuzk.h>
*/
import "C"

import (
	"runtime/cgo"
	"sync/atomic"
)

// TraceKind is what a trace event measured (CUZK_TRACE_*). Later libraries may add kinds;
// ignore the ones you do not know.
type TraceKind int32

const (
	TraceSubmit       TraceKind = C.CUZK_TRACE_SUBMIT
	TraceQueueWait    TraceKind = C.CUZK_TRACE_QUEUE_WAIT
	TraceBudgetWait   TraceKind = C.CUZK_TRACE_BUDGET_WAIT
	TraceH2DCopy      TraceKind = C.CUZK_TRACE_H2D_COPY
	TraceNTTIntt      TraceKind = C.CUZK_TRACE_NTT_INTT
	TraceNTTCoset     TraceKind = C.CUZK_TRACE_NTT_COSET
	TraceNTTCosetIntt TraceKind = C.CUZK_TRACE_NTT_COSET_INTT
	TraceHStep        TraceKind = C.CUZK_TRACE_H_STEP
	TraceMSMH         TraceKind = C.CUZK_TRACE_MSM_H
	TraceMSML         TraceKind = C.CUZK_TRACE_MSM_L
	TraceMSMA         TraceKind = C.CUZK_TRACE_MSM_A
	TraceMSMBG1       TraceKind = C.CUZK_TRACE_MSM_B_G1
	TraceMSMBG2       TraceKind = C.CUZK_TRACE_MSM_B_G2
	TraceMSMAll       TraceKind = C.CUZK_TRACE_MSM_ALL
	TraceAssembly     TraceKind = C.CUZK_TRACE_ASSEMBLY
	TraceVerify       TraceKind = C.CUZK_TRACE_VERIFY
	TraceRelease      TraceKind = C.CUZK_TRACE_RELEASE
	TraceArenaTrim    TraceKind = C.CUZK_TRACE_ARENA_TRIM
	TraceDeviceIdle   TraceKind = C.CUZK_TRACE_DEVICE_IDLE
	TraceStart        TraceKind = C.CUZK_TRACE_START
	TraceFinish       TraceKind = C.CUZK_TRACE_FINISH
	TraceResult       TraceKind = C.CUZK_TRACE_RESULT
	TraceHostPrep     TraceKind = C.CUZK_TRACE_HOST_PREP
)

// TraceEvent is one event of the engine's timeline (cuzk_trace_event), copied.
type TraceEvent struct {
	Kind    TraceKind
	Device  int    // GPU ordinal; -1 = the CPU
	Worker  int    // worker index within the engine; -1 = not a worker
	Job     Job    // 0 if none
	Tag     uint64 // the partition's Tag; 0 if none
	BeginNs uint64 // CLOCK_MONOTONIC nanoseconds; BeginNs == EndNs for an instant event
	EndNs   uint64
	Bytes   uint64 // bytes moved or reserved, 0 if not applicable
}

type traceSink struct {
	ch      chan TraceEvent
	dropped atomic.Uint64
}

// TraceEvents is the channel trace events arrive on (Options.TraceBuffer > 0; nil without
// tracing). It is closed by Close, after the last event.
func (e *Engine) TraceEvents() <-chan TraceEvent {
	if e.trace == nil {
		return nil
	}
	return e.trace.ch
}

// TraceDropped counts events dropped because TraceEvents() was full. (Events the library
// dropped because its own ring was full are Stats.TraceDropped.)
func (e *Engine) TraceDropped() uint64 {
	if e.trace == nil {
		return 0
	}
	return e.trace.dropped.Load()
}

// cuzkgoTraceEvent runs on the engine's trace thread, one event at a time; it must never
// block the engine, so a full channel drops the event and counts it.
//
//export cuzkgoTraceEvent
func cuzkgoTraceEvent(ev *C.cuzk_trace_event, handle C.uintptr_t) {
	sink := cgo.Handle(handle).Value().(*traceSink)
	t := TraceEvent{Kind: TraceKind(ev.kind), Device: int(ev.device), Worker: int(ev.worker), Job: Job(ev.job),
		Tag: uint64(ev.user_tag), BeginNs: uint64(ev.begin_ns), EndNs: uint64(ev.end_ns), Bytes: uint64(ev.bytes)}
	select {
	case sink.ch <- t:
	default:
		sink.dropped.Add(1)
	}
}
