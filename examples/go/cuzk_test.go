package cuzk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The fixture (test/bindings_fixture.sh): CUZK_FIXTURE holds c.r1cs, c.wtns, c.params, c.vk.
type fixture struct {
	circ *Circuit
	wtns []Fr
	vk   []byte
	dir  string
}

func load(t *testing.T) *fixture {
	dir := os.Getenv("CUZK_FIXTURE")
	if dir == "" {
		t.Skip("CUZK_FIXTURE not set (run test/test_bindings_go.sh)")
	}
	c, err := LoadCircuit(filepath.Join(dir, "c.r1cs"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := LoadWtns(filepath.Join(dir, "c.wtns"))
	if err != nil {
		t.Fatal(err)
	}
	vk, err := os.ReadFile(filepath.Join(dir, "c.vk"))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{c, w, vk, dir}
}

func engine(t *testing.T, f *fixture, o Options) (*Engine, *SRS) {
	o.CPUThreads = 2
	e, err := NewEngine(o)
	if IsCode(err, EDEVICE) {
		t.Skipf("no prover in this build: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.LoadSRS(filepath.Join(f.dir, "c.params"))
	if err != nil {
		t.Fatal(err)
	}
	return e, s
}

func TestProveVerify(t *testing.T) {
	f := load(t)
	e, s := engine(t, f, Options{})
	defer e.Close()
	defer s.Release()
	w, err := f.circ.Witness(e, f.wtns)
	if err != nil {
		t.Fatal(err)
	}
	pub := w.Public()
	w.Tag = 42
	job, err := e.SubmitPartition(s, w)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := e.Poll(ctx)
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	if r.Job != job || r.Tag != 42 || r.Witness != w {
		t.Fatalf("result for job %d tag %d, want %d 42", r.Job, r.Tag, job)
	}
	if err := Verify(f.vk, r.Proof, pub, Canonical); err != nil {
		t.Fatal(err)
	}
	bad := r.Proof
	pub[0][0] ^= 1
	if err := Verify(f.vk, bad, pub, Canonical); !IsCode(err, EVERIFY) {
		t.Fatalf("wrong public input: got %v, want EVERIFY", err)
	}
	w.Free()
	prom, err := e.Prometheus()
	if err != nil {
		t.Fatal(err)
	}
	if !contains(prom, "\ncuzk_proofs_completed_total 1\n") {
		t.Fatalf("prometheus text:\n%s", prom)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// Many goroutines submit at once (the queue holds 3, so they see EAGAIN and retry while a
// Results channel drains); every proof verifies.
func TestManyGoroutines(t *testing.T) {
	f := load(t)
	e, s := engine(t, f, Options{QueueCapacity: 3})
	defer e.Close()
	defer s.Release()
	const G, per = 8, 1
	pubs := make([][]Fr, G*per)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	results := e.Results(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, G*per)
	for g := 0; g < G; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				var w *Witness
				var err error
				for { // host memory is budget-counted: wait for results if it is short
					if w, err = f.circ.Witness(e, f.wtns); !IsCode(err, EAGAIN) {
						break
					}
					time.Sleep(time.Millisecond)
				}
				if err != nil {
					errs <- err
					return
				}
				w.Tag = uint64(g*per + i)
				pubs[w.Tag] = w.Public()
				for {
					_, err = e.SubmitPartition(s, w)
					if !errors.Is(err, &Error{Code: EAGAIN}) {
						break
					}
					time.Sleep(time.Millisecond)
				}
				if err != nil {
					errs <- err
				}
			}
		}(g)
	}
	for n := 0; n < G*per; n++ {
		select {
		case r := <-results:
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if err := Verify(f.vk, r.Proof, pubs[r.Tag], Canonical); err != nil {
				t.Fatalf("tag %d: %v", r.Tag, err)
			}
			r.Witness.Free()
		case err := <-errs:
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatal("timed out")
		}
	}
	wg.Wait()
}

func TestErrors(t *testing.T) {
	_, err := LoadCircuit("/nonexistent/c.r1cs")
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != EIO || ce.Detail == "" {
		t.Fatalf("got %#v", err)
	}
	if err := Verify([]byte{1, 2, 3}, [192]byte{}, nil, Canonical); !IsCode(err, EFORMAT) {
		t.Fatalf("short vk: %v", err)
	}
	if !Compatible() {
		t.Fatal("the loaded library does not match the header")
	}
	f := load(t)
	e, s := engine(t, f, Options{})
	s.Release()
	e.Close()
	if _, err := e.NewWitness(1, 1, 1); !IsCode(err, ESHUTDOWN) {
		t.Fatalf("closed engine: %v", err)
	}
	e.Close() // twice is harmless
}

// Close with jobs in flight: they are canceled and Close returns.
func TestCloseInFlight(t *testing.T) {
	f := load(t)
	e, s := engine(t, f, Options{})
	for i := 0; i < 3; i++ {
		w, err := f.circ.Witness(e, f.wtns)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.SubmitPartition(s, w); err != nil {
			t.Fatal(err)
		}
	}
	s.Release()
	e.Close()
}
