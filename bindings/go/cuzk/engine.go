package cuzk

/*
#include <stdlib.h>
#include <cuzk/cuzk.h>

int cuzkgo_config_set_trace(cuzk_config *cfg, uintptr_t handle); // trace.c
*/
import "C"

import (
	"context"
	"runtime/cgo"
	"sync"
	"time"
	"unsafe"
)

// Options configure an engine; zero values mean the library's defaults.
type Options struct {
	Backend           Backend
	DeviceMask        uint64 // bit i = use GPU i; 0 = every GPU
	WorkersPerDevice  int    // proving threads per device (the CPU counts as one), 1..64
	CPUThreads        int    // threads for CPU arithmetic; 0 = one per online CPU
	HostBudgetBytes   uint64 // working-memory budget; 0 = 3/4 of physical memory
	DeviceBudgetBytes uint64 // per-GPU budget; 0 = what the GPU has free at start
	QueueCapacity     int    // jobs in the engine at once (queued, running, unpolled); 0 = 1024
	NoVerify          bool   // skip the pairing self-check of each proof
	FinisherThreads   int    // threads that finish, verify and post results; 0 = 2
	TraceCapacity     int    // the library's trace ring, in events; 0 = 8192
	IdleSpinNs        int64  // idle threads poll this long before sleeping; 0 = library's choice, -1 = never
	RetryOnCPU        bool   // prove a partition that failed on a device (or its check) once more on the CPU
	UrgentPriority    int    // T in 1..7: priorities >= T are urgent, 8-T extra workers per device; 0 = none

	// TraceBuffer > 0 turns tracing on: events arrive on Engine.TraceEvents(), a channel of
	// this capacity. The engine never waits for a reader: an event that finds the channel
	// full is dropped and counted (Engine.TraceDropped).
	TraceBuffer int
}

// Engine proves partitions. Close it when done: queued jobs are canceled, running ones are
// waited for, and every Witness of the engine is invalidated.
type Engine struct {
	mu sync.RWMutex // Close takes it exclusively; every other call holds it shared
	e  *C.cuzk_engine

	wmu     sync.Mutex            // guards jobs, witnesses and each Witness's state
	jobs    map[Job]*Witness      // witnesses the engine reads now, until their result is polled
	witness map[*Witness]struct{} // every open Witness, invalidated at Close

	trace  *traceSink // nil without tracing
	handle cgo.Handle
}

// NewEngine starts an engine. ErrDevice: CUDA was requested but is unusable; ErrInvalid:
// an option out of range (the detail names it) or a library this package cannot use.
func NewEngine(o Options) (*Engine, error) {
	if !Compatible() {
		_, s := Version()
		return nil, errorf("NewEngine", EINVAL, "libcuzk %s is loaded; this package was built against %d", s, HeaderVersion)
	}
	var cfg *C.cuzk_config
	if err := call("cuzk_config_new", func() C.int { return C.cuzk_config_new(&cfg) }); err != nil {
		return nil, err
	}
	defer C.cuzk_config_free(cfg)
	b2i := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	for _, kv := range []struct {
		opt C.int32_t
		v   int64
	}{
		{C.CUZK_OPT_BACKEND, int64(o.Backend)}, {C.CUZK_OPT_DEVICE_MASK, int64(o.DeviceMask)},
		{C.CUZK_OPT_WORKERS_PER_DEVICE, int64(o.WorkersPerDevice)}, {C.CUZK_OPT_CPU_THREADS, int64(o.CPUThreads)},
		{C.CUZK_OPT_HOST_BUDGET_BYTES, clamp(o.HostBudgetBytes)}, {C.CUZK_OPT_DEVICE_BUDGET_BYTES, clamp(o.DeviceBudgetBytes)},
		{C.CUZK_OPT_QUEUE_CAPACITY, int64(o.QueueCapacity)}, {C.CUZK_OPT_VERIFY, 1 - b2i(o.NoVerify)},
		{C.CUZK_OPT_FINISHER_THREADS, int64(o.FinisherThreads)}, {C.CUZK_OPT_TRACE_CAPACITY, int64(o.TraceCapacity)},
		{C.CUZK_OPT_IDLE_SPIN_NS, o.IdleSpinNs}, {C.CUZK_OPT_RETRY_ON_CPU, b2i(o.RetryOnCPU)},
		{C.CUZK_OPT_URGENT_PRIORITY, int64(o.UrgentPriority)},
	} {
		if err := call("cuzk_config_set", func() C.int { return C.cuzk_config_set(cfg, kv.opt, C.int64_t(kv.v)) }); err != nil {
			return nil, err
		}
	}
	eng := &Engine{jobs: map[Job]*Witness{}, witness: map[*Witness]struct{}{}}
	if o.TraceBuffer > 0 {
		eng.trace = &traceSink{ch: make(chan TraceEvent, o.TraceBuffer)}
		eng.handle = cgo.NewHandle(eng.trace)
		C.cuzkgo_config_set_trace(cfg, C.uintptr_t(eng.handle))
	}
	if err := call("cuzk_engine_create", func() C.int { return C.cuzk_engine_create(cfg, &eng.e) }); err != nil {
		if eng.trace != nil {
			eng.handle.Delete()
		}
		return nil, err
	}
	return eng, nil
}

func clamp(v uint64) int64 {
	if v > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(v)
}

// Close destroys the engine: queued jobs are canceled (their results discarded), running
// ones waited for. Every Witness of the engine is closed with it (its slices become nil; a
// copy of a slice kept elsewhere must not be used after Close), the trace channel is closed
// after its last event. Safe to call more than once.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.e == nil {
		return nil
	}
	C.cuzk_engine_destroy(e.e) // frees the witnesses' host memory, delivers the last trace events
	e.e = nil
	e.wmu.Lock()
	for w := range e.witness {
		w.invalidate()
	}
	e.witness, e.jobs = nil, nil
	e.wmu.Unlock()
	if e.trace != nil {
		close(e.trace.ch) // no callback runs after cuzk_engine_destroy returned
		e.handle.Delete()
	}
	return nil
}

// live returns the C engine for a call made under e.mu (shared), or ErrShutdown.
func (e *Engine) live(op string) (*C.cuzk_engine, error) {
	if e.e == nil {
		return nil, errorf(op, ESHUTDOWN, "engine closed")
	}
	return e.e, nil
}

// SRS is a loaded proving key.
type SRS struct {
	e  *Engine
	mu sync.Mutex
	s  *C.cuzk_srs
}

// LoadSRS loads a proving key (bellperson's parameter file format).
func (e *Engine) LoadSRS(path string) (*SRS, error) { return e.loadSRS(path, 0) }

// LoadSRSChecked is LoadSRS that also checks every point's subgroup (slower; for files that
// are not trusted).
func (e *Engine) LoadSRSChecked(path string) (*SRS, error) {
	return e.loadSRS(path, C.CUZK_SRS_CHECK_SUBGROUP)
}

func (e *Engine) loadSRS(path string, flags C.uint32_t) (*SRS, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_srs_load")
	if err != nil {
		return nil, err
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	s := &SRS{e: e}
	if err := call("cuzk_srs_load", func() C.int { return C.cuzk_srs_load(ce, cp, flags, &s.s) }); err != nil {
		return nil, err
	}
	return s, nil
}

// Close gives up this hold on the key; jobs that use it keep it alive inside the engine.
// After the engine's Close it does nothing. Safe to call more than once.
func (s *SRS) Close() error {
	s.e.mu.RLock()
	defer s.e.mu.RUnlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s != nil && s.e.e != nil { // the engine's destroy already freed it otherwise
		C.cuzk_srs_release(s.s)
	}
	s.s = nil
	return nil
}

// Job identifies a submitted partition.
type Job uint64

// Result of one job. Err is nil with a valid Proof, or the *Error that ended the job, with
// the job's own detail (errors.Is(r.Err, ErrCanceled), ...).
type Result struct {
	Job      Job
	Tag      uint64
	Err      error
	Proof    [192]byte // A‖B‖C compressed, bellperson's Proof::write
	Device   int       // the GPU that proved it; -1 = the CPU
	Witness  *Witness  // the buffers, the host's again (reuse them or Close them)
	Queued   time.Duration
	OnDevice time.Duration
	Total    time.Duration
}

// Poll waits for one finished job (any job's; each result is returned once) until ctx is
// done, then it returns ctx.Err(). ErrShutdown once the engine is closed.
func (e *Engine) Poll(ctx context.Context) (Result, error) {
	for {
		r, err := e.poll(50 * time.Millisecond) // short waits, so ctx and Close are noticed
		if !errorsIsAgain(err) {
			return r, err
		}
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
	}
}

func errorsIsAgain(err error) bool {
	ce, ok := err.(*Error)
	return ok && ce.Code == EAGAIN
}

// TryPoll returns a finished job's result if one is ready now, else ErrAgain.
func (e *Engine) TryPoll() (Result, error) { return e.poll(0) }

func (e *Engine) poll(timeout time.Duration) (Result, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_poll_result")
	if err != nil {
		return Result{}, err
	}
	var r C.cuzk_result
	r.struct_size = C.uint32_t(unsafe.Sizeof(r))
	if err := call("cuzk_poll_result", func() C.int { return C.cuzk_poll_result(ce, &r, C.int64_t(timeout)) }); err != nil {
		return Result{}, err
	}
	res := Result{Job: Job(r.job), Tag: uint64(r.user_tag), Device: int(r.device),
		Queued: time.Duration(r.queued_ns), OnDevice: time.Duration(r.device_ns), Total: time.Duration(r.total_ns)}
	if r.status != C.CUZK_OK {
		res.Err = &Error{Op: "job", Code: Code(r.status), Detail: cstring(r.detail[:])}
	} else {
		res.Proof = *(*[192]byte)(unsafe.Pointer(&r.proof[0]))
	}
	e.wmu.Lock()
	if w := e.jobs[res.Job]; w != nil {
		delete(e.jobs, res.Job)
		w.inFlight = false
		w.Tag = res.Tag
		res.Witness = w
	}
	e.wmu.Unlock()
	return res, nil
}

// cstring reads a NUL-terminated C array, never past its end (a library that filled
// nothing leaves it zeroed: "").
func cstring(a []C.char) string {
	b := make([]byte, 0, len(a))
	for _, c := range a {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

// Results delivers results on a channel until ctx is done or the engine is closed; the
// channel is closed then.
func (e *Engine) Results(ctx context.Context) <-chan Result {
	ch := make(chan Result)
	go func() {
		defer close(ch)
		for {
			r, err := e.Poll(ctx)
			if err != nil {
				return
			}
			select {
			case ch <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// Cancel asks that a job be canceled; its result then arrives with ErrCanceled. ErrAgain:
// too late, its result is waiting; ErrNotFound: no such job (or its result was polled).
func (e *Engine) Cancel(j Job) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_cancel")
	if err != nil {
		return err
	}
	return call("cuzk_cancel", func() C.int { return C.cuzk_cancel(ce, C.cuzk_job(j)) })
}
