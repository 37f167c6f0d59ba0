package cuzk

/*
#include <stdlib.h>
#include <cuzk/cuzk.h>
#include <cuzk/r1cs.h>
static void cuzkgo_release(cuzk_partition *p) { if (p->release) p->release(p->release_user); }
*/
import "C"

import (
	"sync"
	"unsafe"
)

// Circuit is a loaded circom .r1cs circuit (cuzk/r1cs.h), for tests and circom hosts; a
// Filecoin host synthesizes its partitions itself. Safe for concurrent use.
type Circuit struct {
	mu sync.RWMutex
	c  *C.cuzk_r1cs
}

// LoadCircuit loads a circom .r1cs file (format version 1, BLS12-381's r).
func LoadCircuit(path string) (*Circuit, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	c := &Circuit{}
	if err := call("cuzk_r1cs_load", func() C.int { return C.cuzk_r1cs_load(cp, &c.c) }); err != nil {
		return nil, err
	}
	return c, nil
}

// Close frees the circuit. Safe to call more than once.
func (c *Circuit) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	C.cuzk_r1cs_free(c.c)
	c.c = nil
	return nil
}

// LoadWtns reads a snarkjs .wtns file: canonical scalars in wire order (ONE first), copied
// into Go memory.
func LoadWtns(path string) ([]Fr, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var vals *C.cuzk_fr
	var n C.uint64_t
	if err := call("cuzk_wtns_load", func() C.int { return C.cuzk_wtns_load(cp, &vals, &n) }); err != nil {
		return nil, err
	}
	defer C.cuzk_free(unsafe.Pointer(vals))
	return append([]Fr(nil), unsafe.Slice((*Fr)(unsafe.Pointer(vals)), int(n))...), nil
}

// Witness checks wtns against every constraint (ErrInvalid names the first that fails) and
// lays the partition out in a new Witness of e, canonical form.
func (c *Circuit) Witness(e *Engine, wtns []Fr) (*Witness, error) {
	if len(wtns) == 0 {
		return nil, errorf("cuzk_r1cs_partition", EINVAL, "empty witness")
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.c == nil {
		return nil, errorf("cuzk_r1cs_partition", EINVAL, "the circuit is closed")
	}
	// The witness values are copied to C memory: the library reads them only during the call,
	// but this keeps every pointer C sees C memory.
	cw := (*C.cuzk_fr)(C.malloc(C.size_t(32 * len(wtns))))
	defer C.free(unsafe.Pointer(cw))
	copy(unsafe.Slice((*Fr)(unsafe.Pointer(cw)), len(wtns)), wtns)
	var p C.cuzk_partition
	p.struct_size = C.uint32_t(unsafe.Sizeof(p))
	if err := call("cuzk_r1cs_partition", func() C.int {
		return C.cuzk_r1cs_partition(c.c, cw, C.uint64_t(len(wtns)), &p)
	}); err != nil {
		return nil, err
	}
	defer C.cuzkgo_release(&p)
	w, err := e.NewWitness(int(p.abc_len), int(p.num_inputs), int(p.num_aux))
	if err != nil {
		return nil, err
	}
	cp := func(dst []Fr, src *C.cuzk_fr) { copy(dst, unsafe.Slice((*Fr)(unsafe.Pointer(src)), len(dst))) }
	cp64 := func(dst []uint64, src *C.uint64_t) { copy(dst, unsafe.Slice((*uint64)(unsafe.Pointer(src)), len(dst))) }
	cp(w.A, p.a)
	cp(w.B, p.b)
	cp(w.C, p.c)
	cp(w.Inputs, p.inputs)
	cp(w.Aux, p.aux)
	cp64(w.AAuxDensity, p.a_aux_density)
	cp64(w.BInputDensity, p.b_input_density)
	cp64(w.BAuxDensity, p.b_aux_density)
	w.Form = Canonical
	return w, nil
}

// InsecureTestSetup is TEST ONLY — NEVER FOR PRODUCTION KEYS: it writes a proving key
// (paramsPath) and a verifying key (vkPath) for c from toxic waste derived from seed, so
// anyone who knows the seed can forge proofs. Either path may be "" to skip it.
func InsecureTestSetup(c *Circuit, seed [32]byte, paramsPath, vkPath string) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	cstr := func(s string) *C.char {
		if s == "" {
			return nil
		}
		return C.CString(s)
	}
	pp, vp := cstr(paramsPath), cstr(vkPath)
	defer C.free(unsafe.Pointer(pp))
	defer C.free(unsafe.Pointer(vp))
	cs := (*C.uint8_t)(C.CBytes(seed[:]))
	defer C.free(unsafe.Pointer(cs))
	return call("cuzk_setup", func() C.int { return C.cuzk_setup(c.c, cs, pp, vp) })
}

// Verify checks a proof against a verifying key (bellperson's bytes; a whole .params file
// works too) and the public inputs (ONE excluded). nil: valid; ErrVerify: well formed but
// not valid; ErrFormat: the key or the proof does not decode.
func Verify(vk []byte, proof [192]byte, public []Fr, form ScalarForm) error {
	if len(vk) == 0 {
		return errorf("cuzk_verify", EINVAL, "empty verifying key")
	}
	// Go memory passed for the call only (cgo allows it: C keeps none of it).
	return call("cuzk_verify", func() C.int {
		return C.cuzk_verify((*C.uint8_t)(unsafe.Pointer(&vk[0])), C.size_t(len(vk)),
			(*C.uint8_t)(unsafe.Pointer(&proof[0])), frPtr(public), C.size_t(len(public)), C.int32_t(form))
	})
}
