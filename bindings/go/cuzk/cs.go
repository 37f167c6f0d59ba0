package cuzk

/*
#include <stdlib.h>
#include <cuzk/cuzk.h>
*/
import "C"

import (
	"sync"
	"unsafe"
)

// CS is a circuit's constraint matrices A, B, C loaded once (libcuzk 0.4). With it a
// partition is handed over as its witness alone (inputs and aux: NewWitnessFor,
// SubmitWitness) and the engine evaluates a = A·w, b = B·w, c = C·w itself — a host keeps and
// sends about a quarter of the bytes of an a/b/c partition at PoRep's sizes.
type CS struct {
	e  *Engine
	mu sync.Mutex
	c  *C.cuzk_cs
}

// CSInfo is what a loaded constraint system holds.
type CSInfo struct {
	NumCoeffs      uint32 // distinct non-zero coefficients
	NumInputs      uint64 // ONE included
	NumAux         uint64
	NumConstraints uint64    // the circuit's own, without the per-input rows
	AbcLen         uint64    // NumConstraints + NumInputs
	NNZ            [3]uint64 // non-zeros of A, B, C
	HostBytes      uint64    // host memory it takes
	DeviceBytes    uint64    // device memory it holds, every device together (CUDA)
	// devices holding its matrices whole, and streaming them from host memory (CUDA)
	ResidentDevices, StreamedDevices uint32
}

// LoadCS loads a constraint system: a circom .r1cs file or libcuzk's compact file
// (ConvertR1CS, `cuzk cs-convert`), told apart by their first bytes.
func (e *Engine) LoadCS(path string) (*CS, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ce, err := e.live("cuzk_cs_load")
	if err != nil {
		return nil, err
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	cs := &CS{e: e}
	if err := call("cuzk_cs_load", func() C.int { return C.cuzk_cs_load(ce, cp, 0, &cs.c) }); err != nil {
		return nil, err
	}
	return cs, nil
}

// ConvertR1CS writes the compact constraint system file of a circom .r1cs file (no engine
// needed): LoadCS reads it in a few large reads.
func ConvertR1CS(r1csPath, outPath string) error {
	in, out := C.CString(r1csPath), C.CString(outPath)
	defer C.free(unsafe.Pointer(in))
	defer C.free(unsafe.Pointer(out))
	return call("cuzk_cs_convert", func() C.int { return C.cuzk_cs_convert(in, out) })
}

// Info returns the constraint system's counts and host memory.
func (cs *CS) Info() (CSInfo, error) {
	cs.e.mu.RLock()
	defer cs.e.mu.RUnlock()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.c == nil || cs.e.e == nil {
		return CSInfo{}, errorf("CS.Info", EINVAL, "the constraint system or its engine is closed")
	}
	var r C.cuzk_cs_info
	r.struct_size = C.uint32_t(unsafe.Sizeof(r))
	if err := call("cuzk_cs_get_info", func() C.int { return C.cuzk_cs_get_info(cs.c, &r) }); err != nil {
		return CSInfo{}, err
	}
	return CSInfo{NumCoeffs: uint32(r.num_coeffs), NumInputs: uint64(r.num_inputs), NumAux: uint64(r.num_aux),
		NumConstraints: uint64(r.num_constraints), AbcLen: uint64(r.abc_len),
		NNZ: [3]uint64{uint64(r.nnz[0]), uint64(r.nnz[1]), uint64(r.nnz[2])}, HostBytes: uint64(r.host_bytes),
		DeviceBytes: uint64(r.device_bytes), ResidentDevices: uint32(r.resident_devices),
		StreamedDevices: uint32(r.streamed_devices)}, nil
}

// Close gives up this hold; jobs that use the constraint system keep it alive inside the
// engine. After the engine's Close it does nothing. Safe to call more than once.
func (cs *CS) Close() error {
	cs.e.mu.RLock()
	defer cs.e.mu.RUnlock()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.c != nil && cs.e.e != nil { // the engine's destroy already freed it otherwise
		C.cuzk_cs_release(cs.c)
	}
	cs.c = nil
	return nil
}

// NewWitnessFor allocates a zeroed witness-only partition of cs in engine host memory: its
// Inputs and Aux have cs's counts, A, B, C are empty and the densities unused (the engine
// derives them from cs). Fill Inputs (Inputs[0] = ONE) and Aux, then SubmitWitness.
func (e *Engine) NewWitnessFor(cs *CS) (*Witness, error) {
	info, err := cs.Info()
	if err != nil {
		return nil, err
	}
	return e.NewWitness(0, int(info.NumInputs), int(info.NumAux))
}

// SubmitWitness queues w's inputs and aux as a witness-only partition of cs for the key srs
// and returns at once: the engine evaluates a, b, c, then proves; the proof is byte for byte
// the one Submit gives for the same witness, r and s. The engine owns w until its Result
// comes back with it. ErrMismatch: the counts differ from cs's, or cs does not fit the key
// (the detail names both).
func (e *Engine) SubmitWitness(srs *SRS, cs *CS, w *Witness) (Job, error) {
	if cs == nil {
		return 0, errorf("SubmitWitness", EINVAL, "no constraint system")
	}
	return e.submit("cuzk_submit_witness", srs, w, cs, func(ce *C.cuzk_engine, s *C.cuzk_srs, c *C.cuzk_cs, job *C.cuzk_job) C.int {
		var p C.cuzk_witness_partition
		p.struct_size = C.uint32_t(unsafe.Sizeof(p))
		p.scalar_form = C.int32_t(w.Form)
		p.inputs, p.num_inputs = frPtr(w.Inputs), C.uint64_t(len(w.Inputs))
		p.aux, p.num_aux = frPtr(w.Aux), C.uint64_t(len(w.Aux))
		p.priority = C.int32_t(w.Priority)
		p.user_tag = C.uint64_t(w.Tag)
		return C.cuzk_submit_witness(ce, s, c, &p, job)
	})
}
