package cuzk

/*
#include <cuzk/cuzk.h>
*/
import "C"

import (
	"unsafe"
)

// Witness is one partition's buffers in one block of engine host memory (cuzk_host_alloc:
// counted in the host budget, page-locked on a GPU engine), exposed as Go slices. Fill the
// slices, set Form, Priority and Tag, then Submit: the engine owns the witness until its
// Result hands it back, ready for the next partition. Close returns the memory.
//
// While a witness is submitted its slices must not be written (the engine reads them), and
// Close refuses it; after Close (its own or the engine's) the slices are nil and any copy of
// them kept elsewhere points to freed memory.
type Witness struct {
	e                                       *Engine
	mem                                     unsafe.Pointer // nil once closed
	size                                    uintptr        // bytes at mem
	inFlight                                bool           // guarded by e.wmu
	A, B, C, Inputs, Aux                    []Fr
	AAuxDensity, BInputDensity, BAuxDensity []uint64
	Form                                    ScalarForm // Montgomery (bellperson's memory form) or Canonical
	Priority                                int        // higher first (0..7); FIFO within a priority
	Tag                                     uint64     // echoed in the Result and in trace events
}

func words(bits int) int { return (bits + 63) / 64 }

// NewWitness allocates a zeroed witness for a partition with abcLen constraint evaluations,
// numInputs inputs (ONE included) and numAux aux variables. ErrAgain: it does not fit the
// host budget now (poll results, then retry); ErrBudget: it never will.
func (e *Engine) NewWitness(abcLen, numInputs, numAux int) (*Witness, error) {
	if abcLen < 0 || numInputs < 0 || numAux < 0 || abcLen > 1<<40 || numInputs > 1<<40 || numAux > 1<<40 {
		return nil, errorf("NewWitness", EINVAL, "counts %d, %d, %d out of range", abcLen, numInputs, numAux)
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_host_alloc")
	if err != nil {
		return nil, err
	}
	frs := 3*abcLen + numInputs + numAux
	u64s := 2*words(numAux) + words(numInputs)
	bytes := frs*32 + u64s*8 + 8
	var mem unsafe.Pointer
	if err := call("cuzk_host_alloc", func() C.int { return C.cuzk_host_alloc(ce, C.size_t(bytes), &mem) }); err != nil {
		return nil, err
	}
	all := unsafe.Slice((*byte)(mem), bytes)
	for i := range all { // host memory is not zeroed; the slices must start defined
		all[i] = 0
	}
	fr := unsafe.Slice((*Fr)(mem), frs)
	u := unsafe.Slice((*uint64)(unsafe.Add(mem, frs*32)), u64s)
	w := &Witness{e: e, mem: mem, size: uintptr(bytes), Form: Montgomery}
	w.A, fr = fr[:abcLen:abcLen], fr[abcLen:]
	w.B, fr = fr[:abcLen:abcLen], fr[abcLen:]
	w.C, fr = fr[:abcLen:abcLen], fr[abcLen:]
	w.Inputs, w.Aux = fr[:numInputs:numInputs], fr[numInputs:]
	na := words(numAux)
	w.AAuxDensity, u = u[:na:na], u[na:]
	w.BAuxDensity, w.BInputDensity = u[:na:na], u[na:]
	e.wmu.Lock()
	e.witness[w] = struct{}{}
	e.wmu.Unlock()
	return w, nil
}

// Public returns a copy of the public inputs (ONE excluded), as Verify takes them.
func (w *Witness) Public() []Fr {
	if len(w.Inputs) == 0 {
		return nil
	}
	return append([]Fr(nil), w.Inputs[1:]...)
}

// Close returns the memory to the engine's budget. ErrInvalid while the witness is
// submitted (it comes back with its Result). Safe to call more than once.
func (w *Witness) Close() error {
	w.e.mu.RLock()
	defer w.e.mu.RUnlock()
	w.e.wmu.Lock()
	defer w.e.wmu.Unlock()
	if w.inFlight {
		return errorf("Witness.Close", EINVAL, "the witness is submitted; it comes back with its Result")
	}
	if w.mem != nil && w.e.e != nil {
		C.cuzk_host_free(w.e.e, w.mem)
		delete(w.e.witness, w)
	}
	w.invalidate()
	return nil
}

// invalidate forgets the memory (freed by Close or by the engine's destroy).
func (w *Witness) invalidate() {
	w.mem, w.inFlight = nil, false
	w.A, w.B, w.C, w.Inputs, w.Aux = nil, nil, nil, nil, nil
	w.AAuxDensity, w.BInputDensity, w.BAuxDensity = nil, nil, nil
}

func frPtr(s []Fr) *C.cuzk_fr {
	if len(s) == 0 {
		return nil
	}
	return (*C.cuzk_fr)(unsafe.Pointer(&s[0]))
}

func u64Ptr(s []uint64) *C.uint64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uint64_t)(unsafe.Pointer(&s[0]))
}

// check refuses slices the host resliced into something C must not read: lengths that do
// not fit together, or memory outside the witness's block (a Go slice, say: C would keep a
// Go pointer, which cgo forbids).
func (w *Witness) check() error {
	if w.mem == nil {
		return errorf("Submit", EINVAL, "the witness is closed")
	}
	if len(w.B) != len(w.A) || len(w.C) != len(w.A) || len(w.AAuxDensity) < words(len(w.Aux)) ||
		len(w.BAuxDensity) < words(len(w.Aux)) || len(w.BInputDensity) < words(len(w.Inputs)) {
		return errorf("Submit", EINVAL, "slice lengths do not fit together (a %d, b %d, c %d, inputs %d, aux %d, densities %d %d %d)",
			len(w.A), len(w.B), len(w.C), len(w.Inputs), len(w.Aux), len(w.AAuxDensity), len(w.BInputDensity), len(w.BAuxDensity))
	}
	lo := uintptr(w.mem)
	inside := func(p unsafe.Pointer, bytes uintptr) bool {
		return bytes == 0 || (uintptr(p) >= lo && uintptr(p)-lo <= w.size && bytes <= w.size-(uintptr(p)-lo))
	}
	for _, s := range [][]Fr{w.A, w.B, w.C, w.Inputs, w.Aux} {
		if len(s) > 0 && !inside(unsafe.Pointer(&s[0]), uintptr(len(s))*32) {
			return errorf("Submit", EINVAL, "a scalar slice points outside the witness's host memory")
		}
	}
	for _, s := range [][]uint64{w.AAuxDensity, w.BInputDensity, w.BAuxDensity} {
		if len(s) > 0 && !inside(unsafe.Pointer(&s[0]), uintptr(len(s))*8) {
			return errorf("Submit", EINVAL, "a density slice points outside the witness's host memory")
		}
	}
	return nil
}

// Submit queues the witness for proving and returns at once; the engine owns it until its
// Result comes back with it. ErrAgain: the queue is full (poll results, then retry).
// Every pointer handed to C is host memory of this engine, so cgo's pointer rules hold.
func (e *Engine) Submit(srs *SRS, w *Witness) (Job, error) {
	return e.submit("cuzk_submit_partition", srs, w, nil, func(ce *C.cuzk_engine, s *C.cuzk_srs, _ *C.cuzk_cs, job *C.cuzk_job) C.int {
		var p C.cuzk_partition
		p.struct_size = C.uint32_t(unsafe.Sizeof(p))
		p.scalar_form = C.int32_t(w.Form)
		p.a, p.b, p.c, p.abc_len = frPtr(w.A), frPtr(w.B), frPtr(w.C), C.uint64_t(len(w.A))
		p.inputs, p.num_inputs = frPtr(w.Inputs), C.uint64_t(len(w.Inputs))
		p.aux, p.num_aux = frPtr(w.Aux), C.uint64_t(len(w.Aux))
		p.a_aux_density, p.b_input_density, p.b_aux_density = u64Ptr(w.AAuxDensity), u64Ptr(w.BInputDensity), u64Ptr(w.BAuxDensity)
		p.priority = C.int32_t(w.Priority)
		p.user_tag = C.uint64_t(w.Tag)
		return C.cuzk_submit_partition(ce, s, &p, job)
	})
}

// submit runs one submit call with the engine, the key (and the constraint system, for a
// witness-only partition) held live, and registers the witness for its Result.
func (e *Engine) submit(op string, srs *SRS, w *Witness, cs *CS,
	fn func(*C.cuzk_engine, *C.cuzk_srs, *C.cuzk_cs, *C.cuzk_job) C.int) (Job, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live(op)
	if err != nil {
		return 0, err
	}
	if w == nil || w.e != e || srs == nil || srs.e != e {
		return 0, errorf("Submit", EINVAL, "witness or key of another engine")
	}
	srs.mu.Lock() // held through the C call: Close must not release the key under it
	defer srs.mu.Unlock()
	s := srs.s
	if s == nil {
		return 0, errorf("Submit", EINVAL, "the key is closed")
	}
	var c *C.cuzk_cs
	if cs != nil {
		if cs.e != e {
			return 0, errorf("Submit", EINVAL, "constraint system of another engine")
		}
		cs.mu.Lock() // likewise for the constraint system
		defer cs.mu.Unlock()
		if c = cs.c; c == nil {
			return 0, errorf("Submit", EINVAL, "the constraint system is closed")
		}
	}
	// Held across the call: a poller may take the result as soon as the job exists, and must
	// find the witness registered.
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if w.inFlight {
		return 0, errorf("Submit", EINVAL, "the witness is already submitted")
	}
	if err := w.check(); err != nil {
		return 0, err
	}
	var job C.cuzk_job
	if err := call(op, func() C.int { return fn(ce, s, c, &job) }); err != nil {
		return 0, err
	}
	w.inFlight = true
	e.jobs[Job(job)] = w
	return Job(job), nil
}
