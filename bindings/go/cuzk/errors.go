package cuzk

/*
#include <cuzk/cuzk.h>
*/
import "C"

import (
	"fmt"
	"runtime"
)

// Code is a libcuzk error code (CUZK_E*, negative; never renumbered). A Code is itself an
// error so that the sentinels below are plain values: errors.Is(err, cuzk.ErrAgain) holds
// for an *Error with Code EAGAIN, and errors.As(err, &code) extracts the code.
type Code int32

const (
	OK        Code = C.CUZK_OK
	EINVAL    Code = C.CUZK_EINVAL    // a NULL or malformed argument (in a job: a scalar not below r, ...)
	ENOMEM    Code = C.CUZK_ENOMEM    // host memory exhausted
	EAGAIN    Code = C.CUZK_EAGAIN    // nothing ready within the timeout, or the queue is full: try again
	ECANCELED Code = C.CUZK_ECANCELED // the job was canceled
	EFORMAT   Code = C.CUZK_EFORMAT   // bytes that do not decode (file, point, proof)
	EMISMATCH Code = C.CUZK_EMISMATCH // sizes that do not fit together (partition vs key)
	EBUDGET   Code = C.CUZK_EBUDGET   // a reservation that can never fit the configured budget
	EDEVICE   Code = C.CUZK_EDEVICE   // a GPU/CUDA failure
	EVERIFY   Code = C.CUZK_EVERIFY   // a well-formed proof that does not verify
	ESHUTDOWN Code = C.CUZK_ESHUTDOWN // the engine is closed or closing
	EIO       Code = C.CUZK_EIO       // an operating-system I/O failure
	ENOTFOUND Code = C.CUZK_ENOTFOUND // a stale, foreign or unknown handle
	ERANGE    Code = C.CUZK_ERANGE    // an output buffer too small
)

// Sentinels for errors.Is, one per code.
var (
	ErrInvalid  error = EINVAL
	ErrNoMem    error = ENOMEM
	ErrAgain    error = EAGAIN
	ErrCanceled error = ECANCELED
	ErrFormat   error = EFORMAT
	ErrMismatch error = EMISMATCH
	ErrBudget   error = EBUDGET
	ErrDevice   error = EDEVICE
	ErrVerify   error = EVERIFY
	ErrShutdown error = ESHUTDOWN
	ErrIO       error = EIO
	ErrNotFound error = ENOTFOUND
	ErrRange    error = ERANGE
)

var codeNames = map[Code]string{
	OK: "CUZK_OK", EINVAL: "CUZK_EINVAL", ENOMEM: "CUZK_ENOMEM", EAGAIN: "CUZK_EAGAIN",
	ECANCELED: "CUZK_ECANCELED", EFORMAT: "CUZK_EFORMAT", EMISMATCH: "CUZK_EMISMATCH",
	EBUDGET: "CUZK_EBUDGET", EDEVICE: "CUZK_EDEVICE", EVERIFY: "CUZK_EVERIFY",
	ESHUTDOWN: "CUZK_ESHUTDOWN", EIO: "CUZK_EIO", ENOTFOUND: "CUZK_ENOTFOUND", ERANGE: "CUZK_ERANGE",
}

// String is the C name ("CUZK_EAGAIN"); an unknown code (a newer library's) gives its number.
func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("CUZK_E(%d)", int32(c))
}

// Error is the library's text for the code ("CUZK_EAGAIN: ...").
func (c Code) Error() string {
	if _, ok := codeNames[c]; !ok {
		return fmt.Sprintf("libcuzk error %d", int32(c))
	}
	return C.GoString(C.cuzk_strerror(C.int(c)))
}

// Error is a libcuzk failure: the call (or "job" for a job's own failure), the code and the
// library's detail ("aux[17] is not below r (canonical form)"), which may be empty.
type Error struct {
	Op     string
	Code   Code
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Op + ": " + e.Code.Error()
	}
	return e.Op + ": " + e.Code.Error() + ": " + e.Detail
}

// Unwrap returns the Code, which makes errors.Is(err, cuzk.ErrX) compare codes.
func (e *Error) Unwrap() error { return e.Code }

// call runs one fallible C call. Its detail (cuzk_last_error) is thread-local in C, and a
// goroutine may move to another OS thread between two cgo calls, so the call and the read
// run with the goroutine locked to its thread — only that pair, not the caller's lifetime.
func call(op string, f func() C.int) error {
	runtime.LockOSThread()
	rc := f()
	var detail string
	if rc != C.CUZK_OK {
		detail = C.GoString(C.cuzk_last_error())
	}
	runtime.UnlockOSThread()
	if rc == C.CUZK_OK {
		return nil
	}
	return &Error{Op: op, Code: Code(rc), Detail: detail}
}

func errorf(op string, code Code, format string, args ...any) error {
	return &Error{Op: op, Code: code, Detail: fmt.Sprintf(format, args...)}
}
