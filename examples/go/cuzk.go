// Package cuzk is a Go binding of libcuzk (cgo, pkg-config cuzk): an Engine that proves
// Groth16 partitions on GPUs or the CPU. Witness buffers live in cuzk_host_alloc memory and
// are exposed as Go slices over it, so nothing is copied at submit and cgo's pointer rules
// hold (C never keeps a Go pointer). All methods are safe for concurrent use.
package cuzk

/*
#cgo pkg-config: cuzk
#include <stdlib.h>
#include <cuzk/cuzk.h>
#include <cuzk/r1cs.h>

*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// Error codes (cuzk.h); they are never renumbered.
const (
	OK        = 0
	EINVAL    = -1
	ENOMEM    = -2
	EAGAIN    = -3
	ECANCELED = -4
	EFORMAT   = -5
	EMISMATCH = -6
	EBUDGET   = -7
	EDEVICE   = -8
	EVERIFY   = -9
	ESHUTDOWN = -10
	EIO       = -11
	ENOTFOUND = -12
	ERANGE    = -13
)

// Scalar forms and backends.
const (
	Montgomery  = C.CUZK_FR_MONTGOMERY
	Canonical   = C.CUZK_FR_CANONICAL
	BackendAuto = C.CUZK_BACKEND_AUTO
	BackendCPU  = C.CUZK_BACKEND_CPU
	BackendCUDA = C.CUZK_BACKEND_CUDA
)

// Error is a libcuzk failure: the code, its name and the calling thread's detail.
type Error struct {
	Op     string // the C call that failed
	Code   int
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%s: %s", e.Op, C.GoString(C.cuzk_strerror(C.int(e.Code))))
	}
	return fmt.Sprintf("%s: %s (%s)", e.Op, C.GoString(C.cuzk_strerror(C.int(e.Code))), e.Detail)
}

// Is makes errors.Is(err, &cuzk.Error{Code: cuzk.EAGAIN}) match on the code alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// IsCode reports whether err is a libcuzk error with that code.
func IsCode(err error, code int) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// check turns a return code into an *Error. The detail is thread-local in C, so the call
// and this read must happen on one OS thread: cgo runs a C call and the next one issued by
// the same goroutine without a preemption point on the same thread only when locked, hence
// the callers use call() below.
func check(op string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(rc), Detail: C.GoString(C.cuzk_last_error())}
}

// Version of the loaded library; Compatible says whether this binding (written against
// header HeaderVersion) can use it: same major, minor at least as new.
const HeaderVersion = C.CUZK_VERSION_NUMBER

func Version() (uint32, string) {
	return uint32(C.cuzk_version_number()), C.GoString(C.cuzk_version_string())
}

func Compatible() bool {
	v, _ := Version()
	return v/10000 == HeaderVersion/10000 && v >= HeaderVersion
}

// Fr is one scalar: four little-endian 64-bit limbs (cuzk_fr).
type Fr [4]uint64

// Options configure an engine; zero values mean the library's defaults.
type Options struct {
	Backend          int
	DeviceMask       uint64
	WorkersPerDevice int
	CPUThreads       int
	HostBudgetBytes  uint64
	QueueCapacity    int
	NoVerify         bool // skip the pairing self-check of each proof
	RetryOnCPU       bool // prove a partition that failed on a device (or its check) once more on the CPU
}

// Engine proves partitions. Close it when done; jobs still in flight are canceled.
type Engine struct {
	mu     sync.RWMutex // Close takes it exclusively; every call holds it shared
	e      *C.cuzk_engine
	jobsMu sync.Mutex
	jobs   map[Job]*Witness // witnesses borrowed by the engine until their result is polled
}

func NewEngine(o Options) (*Engine, error) {
	if !Compatible() {
		_, s := Version()
		return nil, &Error{Op: "NewEngine", Code: EINVAL, Detail: "libcuzk " + s + " does not match the binding's header"}
	}
	lockThread()
	defer unlockThread()
	var cfg *C.cuzk_config
	if err := check("cuzk_config_new", C.cuzk_config_new(&cfg)); err != nil {
		return nil, err
	}
	defer C.cuzk_config_free(cfg)
	set := func(opt C.int, v int64) error {
		return check("cuzk_config_set", C.cuzk_config_set(cfg, opt, C.int64_t(v)))
	}
	verify, retry := int64(1), int64(0)
	if o.NoVerify {
		verify = 0
	}
	if o.RetryOnCPU {
		retry = 1
	}
	for _, kv := range []struct {
		opt C.int
		v   int64
	}{
		{C.CUZK_OPT_BACKEND, int64(o.Backend)}, {C.CUZK_OPT_DEVICE_MASK, int64(o.DeviceMask)},
		{C.CUZK_OPT_WORKERS_PER_DEVICE, int64(o.WorkersPerDevice)}, {C.CUZK_OPT_CPU_THREADS, int64(o.CPUThreads)},
		{C.CUZK_OPT_HOST_BUDGET_BYTES, int64(o.HostBudgetBytes)}, {C.CUZK_OPT_QUEUE_CAPACITY, int64(o.QueueCapacity)},
		{C.CUZK_OPT_VERIFY, verify}, {C.CUZK_OPT_RETRY_ON_CPU, retry},
	} {
		if err := set(kv.opt, kv.v); err != nil {
			return nil, err
		}
	}
	eng := &Engine{jobs: map[Job]*Witness{}}
	if err := check("cuzk_engine_create", C.cuzk_engine_create(cfg, &eng.e)); err != nil {
		return nil, err
	}
	return eng, nil
}

// Close destroys the engine: queued and running jobs are canceled, host memory still held
// is freed (Witness slices must not be used afterwards). Safe to call twice.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.e != nil {
		C.cuzk_engine_destroy(e.e)
		e.e = nil
	}
	return nil
}

func (e *Engine) live(op string) (*C.cuzk_engine, error) {
	if e.e == nil {
		return nil, &Error{Op: op, Code: ESHUTDOWN, Detail: "engine closed"}
	}
	return e.e, nil
}

// SRS is a loaded proving key.
type SRS struct {
	e *Engine
	s *C.cuzk_srs
}

// LoadSRS loads a bellperson .params proving key.
func (e *Engine) LoadSRS(path string) (*SRS, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_srs_load")
	if err != nil {
		return nil, err
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	lockThread()
	defer unlockThread()
	s := &SRS{e: e}
	if err := check("cuzk_srs_load", C.cuzk_srs_load(ce, cp, 0, &s.s)); err != nil {
		return nil, err
	}
	return s, nil
}

// Release gives up the hold on the key (jobs using it keep it alive). Call before Close.
func (s *SRS) Release() {
	if s.s != nil {
		C.cuzk_srs_release(s.s)
		s.s = nil
	}
}

// Witness is one partition's buffers, all in one cuzk_host_alloc block (budget-counted,
// page-locked with a GPU): fill the slices, then SubmitPartition. The engine borrows them
// until the job's result is polled; Free returns them (not while a job uses them).
type Witness struct {
	e                                       *Engine
	mem                                     unsafe.Pointer
	A, B, C, Inputs, Aux                    []Fr
	AAuxDensity, BInputDensity, BAuxDensity []uint64
	Form                                    int // Montgomery (bellperson's memory form) or Canonical
	Priority                                int
	Tag                                     uint64
}

// NewWitness allocates the buffers of a partition with abcLen constraint evaluations,
// numInputs inputs (ONE included) and numAux aux variables.
func (e *Engine) NewWitness(abcLen, numInputs, numAux int) (*Witness, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_host_alloc")
	if err != nil {
		return nil, err
	}
	words := func(bits int) int { return (bits + 63) / 64 }
	frs := 3*abcLen + numInputs + numAux
	u64s := words(numAux)*2 + words(numInputs)
	lockThread()
	defer unlockThread()
	var mem unsafe.Pointer
	if err := check("cuzk_host_alloc", C.cuzk_host_alloc(ce, C.size_t(frs*32+u64s*8+8), &mem)); err != nil {
		return nil, err
	}
	fr := unsafe.Slice((*Fr)(mem), frs)
	u := unsafe.Slice((*uint64)(unsafe.Add(mem, frs*32)), u64s)
	w := &Witness{e: e, mem: mem, Form: Canonical}
	w.A, fr = fr[:abcLen:abcLen], fr[abcLen:]
	w.B, fr = fr[:abcLen:abcLen], fr[abcLen:]
	w.C, fr = fr[:abcLen:abcLen], fr[abcLen:]
	w.Inputs, w.Aux = fr[:numInputs:numInputs], fr[numInputs:]
	w.AAuxDensity, u = u[:words(numAux):words(numAux)], u[words(numAux):]
	w.BAuxDensity, w.BInputDensity = u[:words(numAux):words(numAux)], u[words(numAux):]
	return w, nil
}

// Free returns the buffers to the engine's budget.
func (w *Witness) Free() {
	w.e.mu.RLock()
	defer w.e.mu.RUnlock()
	if w.mem != nil && w.e.e != nil {
		C.cuzk_host_free(w.e.e, w.mem)
	}
	w.mem = nil
	w.A, w.B, w.C, w.Inputs, w.Aux = nil, nil, nil, nil, nil
	w.AAuxDensity, w.BInputDensity, w.BAuxDensity = nil, nil, nil
}

func ptr(s []Fr) *C.cuzk_fr {
	if len(s) == 0 {
		return nil
	}
	return (*C.cuzk_fr)(unsafe.Pointer(&s[0]))
}

func ptr64(s []uint64) *C.uint64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uint64_t)(unsafe.Pointer(&s[0]))
}

// Job identifies a submitted partition.
type Job uint64

// SubmitPartition queues w for proving and returns at once. Every pointer handed to C is
// C memory (cuzk_host_alloc), so the Go struct passed holds no Go pointer. An engine whose
// queue is full returns an error with Code EAGAIN: poll results, then retry.
func (e *Engine) SubmitPartition(srs *SRS, w *Witness) (Job, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_submit_partition")
	if err != nil {
		return 0, err
	}
	if w.mem == nil || srs == nil || srs.s == nil {
		return 0, &Error{Op: "cuzk_submit_partition", Code: EINVAL, Detail: "freed witness or released key"}
	}
	var p C.cuzk_partition
	p.struct_size = C.uint32_t(unsafe.Sizeof(p))
	p.scalar_form = C.int32_t(w.Form)
	p.a, p.b, p.c, p.abc_len = ptr(w.A), ptr(w.B), ptr(w.C), C.uint64_t(len(w.A))
	p.inputs, p.num_inputs = ptr(w.Inputs), C.uint64_t(len(w.Inputs))
	p.aux, p.num_aux = ptr(w.Aux), C.uint64_t(len(w.Aux))
	p.a_aux_density, p.b_input_density, p.b_aux_density = ptr64(w.AAuxDensity), ptr64(w.BInputDensity), ptr64(w.BAuxDensity)
	p.priority = C.int32_t(w.Priority)
	p.user_tag = C.uint64_t(w.Tag)
	lockThread()
	defer unlockThread()
	var job C.cuzk_job
	// The engine's records are updated before the job can finish, so Poll always finds it.
	e.jobsMu.Lock()
	defer e.jobsMu.Unlock()
	if err := check("cuzk_submit_partition", C.cuzk_submit_partition(ce, srs.s, &p, &job)); err != nil {
		return 0, err
	}
	e.jobs[Job(job)] = w
	return Job(job), nil
}

// Result of one job. Err is nil with a valid Proof, or the *Error that ended the job.
type Result struct {
	Job                     Job
	Tag                     uint64
	Err                     error
	Proof                   [192]byte
	Device                  int      // -1 = CPU
	Witness                 *Witness // the buffers, the host's again
	Queued, OnDevice, Total time.Duration
}

// Poll waits for one finished job until ctx is done (then it returns ctx.Err()).
func (e *Engine) Poll(ctx context.Context) (Result, error) {
	for {
		r, err := e.poll(50 * time.Millisecond)
		if err == nil || !IsCode(err, EAGAIN) {
			return r, err
		}
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
	}
}

func (e *Engine) poll(timeout time.Duration) (Result, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_poll_result")
	if err != nil {
		return Result{}, err
	}
	lockThread()
	defer unlockThread()
	var r C.cuzk_result
	r.struct_size = C.uint32_t(unsafe.Sizeof(r))
	if err := check("cuzk_poll_result", C.cuzk_poll_result(ce, &r, C.int64_t(timeout))); err != nil {
		return Result{}, err
	}
	res := Result{Job: Job(r.job), Tag: uint64(r.user_tag), Device: int(r.device),
		Queued: time.Duration(r.queued_ns), OnDevice: time.Duration(r.device_ns), Total: time.Duration(r.total_ns)}
	if r.status != 0 {
		res.Err = &Error{Op: "job", Code: int(r.status)}
	} else {
		res.Proof = *(*[192]byte)(unsafe.Pointer(&r.proof[0]))
	}
	e.jobsMu.Lock()
	res.Witness = e.jobs[res.Job]
	delete(e.jobs, res.Job)
	e.jobsMu.Unlock()
	return res, nil
}

// Results delivers results on a channel until ctx is done or the engine is closed.
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

// Cancel asks that a job be canceled; its result arrives with Code ECANCELED.
func (e *Engine) Cancel(j Job) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_cancel")
	if err != nil {
		return err
	}
	lockThread()
	defer unlockThread()
	return check("cuzk_cancel", C.cuzk_cancel(ce, C.cuzk_job(j)))
}

// Stats returns the engine's counters; Prometheus formats them as /metrics text.
func (e *Engine) Prometheus() (string, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_engine_stats")
	if err != nil {
		return "", err
	}
	lockThread()
	defer unlockThread()
	var st C.cuzk_stats
	st.struct_size = C.uint32_t(unsafe.Sizeof(st))
	if err := check("cuzk_engine_stats", C.cuzk_engine_stats(ce, &st)); err != nil {
		return "", err
	}
	var n C.size_t
	C.cuzk_stats_format_prometheus(&st, nil, 0, nil, 0, &n)
	buf := C.malloc(n + 1)
	defer C.free(buf)
	if err := check("cuzk_stats_format_prometheus", C.cuzk_stats_format_prometheus(&st, nil, 0, (*C.char)(buf), n+1, &n)); err != nil {
		return "", err
	}
	return C.GoStringN((*C.char)(buf), C.int(n)), nil
}

// Verify checks a proof against a verifying key (bellperson bytes) and the public inputs
// (ONE excluded). nil = valid; an *Error with Code EVERIFY = well formed but invalid.
func Verify(vk []byte, proof [192]byte, public []Fr, form int) error {
	if len(vk) == 0 {
		return &Error{Op: "cuzk_verify", Code: EINVAL, Detail: "empty vk"}
	}
	lockThread()
	defer unlockThread()
	return check("cuzk_verify", C.cuzk_verify((*C.uint8_t)(unsafe.Pointer(&vk[0])), C.size_t(len(vk)),
		(*C.uint8_t)(unsafe.Pointer(&proof[0])), ptr(public), C.size_t(len(public)), C.int32_t(form)))
}
