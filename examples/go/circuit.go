package cuzk

/*
#include <stdlib.h>
#include <string.h>
#include <cuzk/cuzk.h>
#include <cuzk/r1cs.h>
static void cuzk_go_release2(cuzk_partition *p) { if (p->release) p->release(p->release_user); }
*/
import "C"

import (
	"runtime"
	"unsafe"
)

func lockThread()   { runtime.LockOSThread() }
func unlockThread() { runtime.UnlockOSThread() }

// Circuit is a circom .r1cs circuit (cuzk/r1cs.h), for tests and circom tooling.
type Circuit struct{ c *C.cuzk_r1cs }

func LoadCircuit(path string) (*Circuit, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	lockThread()
	defer unlockThread()
	c := &Circuit{}
	if err := check("cuzk_r1cs_load", C.cuzk_r1cs_load(cp, &c.c)); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Circuit) Free() {
	C.cuzk_r1cs_free(c.c)
	c.c = nil
}

// LoadWtns reads a snarkjs .wtns file: canonical scalars, wire order, copied into Go memory.
func LoadWtns(path string) ([]Fr, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	lockThread()
	defer unlockThread()
	var vals *C.cuzk_fr
	var n C.uint64_t
	if err := check("cuzk_wtns_load", C.cuzk_wtns_load(cp, &vals, &n)); err != nil {
		return nil, err
	}
	defer C.cuzk_free(unsafe.Pointer(vals))
	return append([]Fr(nil), unsafe.Slice((*Fr)(unsafe.Pointer(vals)), int(n))...), nil
}

// Witness checks wtns against the circuit and lays the partition out in engine host
// memory (e.NewWitness), canonical form. Public returns its public inputs (ONE excluded).
func (c *Circuit) Witness(e *Engine, wtns []Fr) (*Witness, error) {
	if len(wtns) == 0 {
		return nil, &Error{Op: "cuzk_r1cs_partition", Code: EINVAL, Detail: "empty witness"}
	}
	lockThread()
	var p C.cuzk_partition
	err := check("cuzk_r1cs_partition", C.cuzk_r1cs_partition(c.c, ptr(wtns), C.uint64_t(len(wtns)), &p))
	unlockThread()
	if err != nil {
		return nil, err
	}
	defer C.cuzk_go_release2(&p)
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

// Public is the witness's public inputs (ONE excluded), copied, for Verify.
func (w *Witness) Public() []Fr { return append([]Fr(nil), w.Inputs[1:]...) }
