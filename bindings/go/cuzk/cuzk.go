// Package cuzk is the Go binding of libcuzk, a Groth16 (BLS12-381) proving engine for
// Filecoin partitions on GPUs and CPUs. It uses cgo and finds the library through
// `pkg-config cuzk` (what `make install` writes); docs/go.md in the repository is the
// integration guide.
//
// An Engine proves partitions. A partition's buffers are a Witness: Go slices over engine
// host memory (cuzk_host_alloc, page-locked on a GPU engine), so nothing is copied at submit
// and C never holds a Go pointer. Submitting hands the Witness to the engine until its
// Result comes back with it. A failed job's Result carries an *Error with the job's own
// detail. Every method is safe for concurrent use; every resource is released with Close.
package cuzk

/*
#cgo pkg-config: cuzk
#include <cuzk/cuzk.h>
*/
import "C"

// HeaderVersion is the libcuzk header version this package was compiled against
// (major*10000 + minor*100 + patch).
const HeaderVersion = C.CUZK_VERSION_NUMBER

// Version returns the loaded library's version number and string ("0.3.0").
func Version() (uint32, string) {
	return uint32(C.cuzk_version_number()), C.GoString(C.cuzk_version_string())
}

// Compatible reports whether the loaded library can serve the header this package was
// compiled against: the same major version and at least as new.
func Compatible() bool {
	v, _ := Version()
	return v/10000 == HeaderVersion/10000 && v >= HeaderVersion
}

// Fr is one element of the scalar field: four little-endian 64-bit limbs (cuzk_fr).
type Fr [4]uint64

// ScalarForm says how a witness's scalars are encoded.
type ScalarForm int32

const (
	// Montgomery is x·2^256 mod r, as blstrs/bellperson keep scalars in memory.
	Montgomery ScalarForm = C.CUZK_FR_MONTGOMERY
	// Canonical is x itself, below r, as circom and snarkjs write them.
	Canonical ScalarForm = C.CUZK_FR_CANONICAL
)

// Backend selects the prover.
type Backend int32

const (
	BackendAuto Backend = C.CUZK_BACKEND_AUTO // CUDA when a usable GPU is found, else the CPU
	BackendCPU  Backend = C.CUZK_BACKEND_CPU
	BackendCUDA Backend = C.CUZK_BACKEND_CUDA
)

func (b Backend) String() string {
	switch b {
	case BackendCPU:
		return "cpu"
	case BackendCUDA:
		return "cuda"
	}
	return "auto"
}
