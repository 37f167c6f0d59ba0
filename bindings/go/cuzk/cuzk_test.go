package cuzk

// Real partitions through the engine, every proof checked with Verify: a witness proved and
// reused, a failed job's detail, many goroutines, Close with jobs in flight, cancel, trace
// events, stats, typed errors. The fixture is made by fixture_test.go: no fixture fails.

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fx != nil && os.Getenv("CUZK_FIXTURE") == "" {
		os.RemoveAll(fx.dir)
	}
	os.Exit(code)
}

func engine(t *testing.T, f *fixture, o Options) (*Engine, *SRS) {
	t.Helper()
	o.Backend, o.CPUThreads = BackendCPU, 2
	e, err := NewEngine(o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.LoadSRS(f.params())
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	return e, s
}

func poll(t *testing.T, e *Engine) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := e.Poll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func witness(t *testing.T, f *fixture, e *Engine, tag uint64) *Witness {
	t.Helper()
	w, err := f.circ.Witness(e, f.wtns)
	if err != nil {
		t.Fatal(err)
	}
	w.Tag = tag
	return w
}

func TestProveVerify(t *testing.T) {
	f := loadFixture(t)
	e, s := engine(t, f, Options{})
	defer e.Close()
	defer s.Close()
	w := witness(t, f, e, 42)
	pub := w.Public()
	job, err := e.Submit(s, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Close of a submitted witness: %v, want ErrInvalid", err)
	}
	r := poll(t, e)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Job != job || r.Tag != 42 || r.Witness != w || r.Device != -1 {
		t.Fatalf("result job %d tag %d device %d, want %d 42 -1 and the witness back", r.Job, r.Tag, r.Device, job)
	}
	if err := Verify(f.vk, r.Proof, pub, Canonical); err != nil {
		t.Fatal(err)
	}
	pub[0][0] ^= 1
	if err := Verify(f.vk, r.Proof, pub, Canonical); !errors.Is(err, ErrVerify) {
		t.Fatalf("wrong public input: %v, want ErrVerify", err)
	}
	pub[0][0] ^= 1
	// The same buffers again, as a pipeline reuses them.
	w.Tag = 43
	if _, err := e.Submit(s, w); err != nil {
		t.Fatal(err)
	}
	if r := poll(t, e); r.Err != nil || r.Tag != 43 || Verify(f.vk, r.Proof, pub, Canonical) != nil {
		t.Fatalf("second proof: %v tag %d", r.Err, r.Tag)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend != BackendCPU || st.Submitted != 2 || st.Completed != 2 || st.Failed != 0 || st.HostAllocBytes != 0 {
		t.Fatalf("stats %+v", st)
	}
	prom, err := st.Prometheus([]uint64{123})
	if err != nil || !strings.Contains(prom, "\ncuzk_proofs_completed_total 2\n") {
		t.Fatalf("prometheus (%v):\n%s", err, prom)
	}
}

// A job that fails in the prover brings its own detail: an aux value not below r.
func TestJobDetail(t *testing.T) {
	f := loadFixture(t)
	e, s := engine(t, f, Options{})
	defer e.Close()
	defer s.Close()
	w := witness(t, f, e, 9)
	w.Aux[5] = rFr
	if _, err := e.Submit(s, w); err != nil {
		t.Fatal(err)
	}
	r := poll(t, e)
	var ce *Error
	if !errors.Is(r.Err, ErrInvalid) || !errors.As(r.Err, &ce) || ce.Op != "job" || !strings.Contains(ce.Detail, "aux[") {
		t.Fatalf("job error %#v, want ErrInvalid with an aux[ detail", r.Err)
	}
	t.Logf("job (tag %d) failed: %v", r.Tag, r.Err)
	if st, _ := e.Stats(); st.Failed != 1 {
		t.Fatalf("stats failed = %d", st.Failed)
	}
}

// Many goroutines submit at once (the queue holds 3, so they see ErrAgain and retry while a
// Results channel drains); every proof verifies.
func TestManyGoroutines(t *testing.T) {
	f := loadFixture(t)
	e, s := engine(t, f, Options{QueueCapacity: 3})
	defer e.Close()
	defer s.Close()
	const G = 8
	pubs := make([][]Fr, G)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	results := e.Results(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, G)
	for g := 0; g < G; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			w, err := f.circ.Witness(e, f.wtns)
			if err != nil {
				errs <- err
				return
			}
			w.Tag = uint64(g)
			pubs[g] = w.Public()
			for {
				if _, err = e.Submit(s, w); !errors.Is(err, ErrAgain) {
					break
				}
				time.Sleep(time.Millisecond)
			}
			if err != nil {
				errs <- err
			}
		}(g)
	}
	seen := map[uint64]bool{}
	for n := 0; n < G; n++ {
		select {
		case r := <-results:
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if seen[r.Tag] {
				t.Fatalf("tag %d twice", r.Tag)
			}
			seen[r.Tag] = true
			if err := Verify(f.vk, r.Proof, pubs[r.Tag], Canonical); err != nil {
				t.Fatalf("tag %d: %v", r.Tag, err)
			}
			r.Witness.Close()
		case err := <-errs:
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatal("timed out")
		}
	}
	wg.Wait()
}

// Close with jobs in flight: they are canceled or finished, Close returns, and the
// witnesses the engine held are invalidated with it.
func TestCloseInFlight(t *testing.T) {
	f := loadFixture(t)
	e, s := engine(t, f, Options{})
	var ws []*Witness
	for i := 0; i < 3; i++ {
		w := witness(t, f, e, uint64(i))
		if _, err := e.Submit(s, w); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Aux != nil || w.Close() != nil {
			t.Fatal("a witness outlived its engine's Close")
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.NewWitness(1, 1, 1); !errors.Is(err, ErrShutdown) {
		t.Fatalf("closed engine: %v", err)
	}
	if _, err := e.Poll(context.Background()); !errors.Is(err, ErrShutdown) {
		t.Fatalf("poll on a closed engine: %v", err)
	}
	e.Close() // twice is harmless
}

func TestCancel(t *testing.T) {
	f := loadFixture(t)
	e, s := engine(t, f, Options{WorkersPerDevice: 1})
	defer e.Close()
	defer s.Close()
	var last Job
	for i := 0; i < 3; i++ {
		j, err := e.Submit(s, witness(t, f, e, uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		last = j
	}
	err := e.Cancel(last)
	if err != nil && !errors.Is(err, ErrAgain) { // ErrAgain: it finished first
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r := poll(t, e)
		if r.Job == last && r.Err != nil && !(err == nil && errors.Is(r.Err, ErrCanceled)) {
			t.Fatalf("canceled job: %v", r.Err)
		}
		if r.Witness == nil {
			t.Fatal("no witness back")
		}
	}
	if err := e.Cancel(last); !errors.Is(err, ErrNotFound) {
		t.Fatalf("cancel after poll: %v", err)
	}
}

func TestTrace(t *testing.T) {
	f := loadFixture(t)
	e, s := engine(t, f, Options{TraceBuffer: 4096})
	if _, err := e.Submit(s, witness(t, f, e, 77)); err != nil {
		t.Fatal(err)
	}
	if r := poll(t, e); r.Err != nil {
		t.Fatal(r.Err)
	}
	s.Close()
	e.Close() // delivers the last events, then closes the channel
	kinds := map[TraceKind]bool{}
	n := 0
	for ev := range e.TraceEvents() {
		n++
		if ev.Tag == 77 {
			kinds[ev.Kind] = true
		}
		if ev.EndNs < ev.BeginNs {
			t.Fatalf("event %+v ends before it begins", ev)
		}
	}
	for _, k := range []TraceKind{TraceSubmit, TraceStart, TraceResult} {
		if !kinds[k] {
			t.Fatalf("no kind %d event for tag 77 among %d (dropped %d)", k, n, e.TraceDropped())
		}
	}
}

// A channel of one slot that nobody reads: the engine drops and counts, never blocks.
func TestTraceNeverBlocks(t *testing.T) {
	f := loadFixture(t)
	e, s := engine(t, f, Options{TraceBuffer: 1})
	defer e.Close()
	defer s.Close()
	if _, err := e.Submit(s, witness(t, f, e, 1)); err != nil {
		t.Fatal(err)
	}
	if r := poll(t, e); r.Err != nil {
		t.Fatal(r.Err)
	}
	s.Close()
	e.Close()
	if e.TraceDropped() == 0 {
		t.Fatal("a one-slot channel kept every event")
	}
}

func TestUrgentWorkers(t *testing.T) {
	// CUZK_OPT_URGENT_PRIORITY = 5: one ordinary worker plus one per level 5, 6, 7
	e, err := NewEngine(Options{Backend: BackendCPU, CPUThreads: 2, WorkersPerDevice: 1, UrgentPriority: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	st, err := e.Stats()
	if err != nil || st.Workers != 4 {
		t.Fatalf("workers %d (want 4), %v", st.Workers, err)
	}
	if _, err := NewEngine(Options{Backend: BackendCPU, UrgentPriority: 8}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("UrgentPriority 8: %v", err)
	}
}

func TestErrors(t *testing.T) {
	codes := []Code{EINVAL, ENOMEM, EAGAIN, ECANCELED, EFORMAT, EMISMATCH, EBUDGET, EDEVICE, EVERIFY, ESHUTDOWN, EIO, ENOTFOUND, ERANGE}
	sentinels := []error{ErrInvalid, ErrNoMem, ErrAgain, ErrCanceled, ErrFormat, ErrMismatch, ErrBudget, ErrDevice, ErrVerify, ErrShutdown, ErrIO, ErrNotFound, ErrRange}
	for i, c := range codes {
		if int32(c) != int32(-1-i) || !strings.HasPrefix(c.String(), "CUZK_E") || !strings.HasPrefix(c.Error(), c.String()) {
			t.Fatalf("code %d: %q %q", c, c.String(), c.Error())
		}
		err := error(&Error{Op: "x", Code: c, Detail: "d"})
		for j, s := range sentinels {
			if errors.Is(err, s) != (i == j) {
				t.Fatalf("errors.Is(%v, %v) = %v", err, s, i != j)
			}
		}
		var got Code
		if !errors.As(err, &got) || got != c {
			t.Fatalf("errors.As code: %v", got)
		}
	}
	if Code(-99).String() != "CUZK_E(-99)" {
		t.Fatal(Code(-99).String())
	}
	_, err := LoadCircuit("/nonexistent/c.r1cs")
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != EIO || ce.Detail == "" || ce.Op != "cuzk_r1cs_load" {
		t.Fatalf("got %#v", err)
	}
	if err := Verify([]byte{1, 2, 3}, [192]byte{}, nil, Canonical); !errors.Is(err, ErrFormat) {
		t.Fatalf("short vk: %v", err)
	}
	if !Compatible() {
		t.Fatal("the loaded library does not match the header")
	}
	if _, err := NewEngine(Options{WorkersPerDevice: 1000}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "1000") {
		t.Fatalf("an option out of range: %v", err)
	}

	// Slices resliced outside the witness's memory are refused before C sees them.
	f := loadFixture(t)
	e, s := engine(t, f, Options{})
	defer e.Close()
	defer s.Close()
	w := witness(t, f, e, 0)
	aux := w.Aux
	w.Aux = make([]Fr, len(aux))
	if _, err := e.Submit(s, w); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Go memory in a witness: %v", err)
	}
	w.Aux = aux
	w.C = w.C[1:]
	if _, err := e.Submit(s, w); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a, b, c of different lengths: %v", err)
	}
	other, os2 := engine(t, f, Options{})
	defer other.Close()
	defer os2.Close()
	if _, err := other.Submit(os2, witness(t, f, e, 0)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a witness of another engine: %v", err)
	}
}

func TestPinnedKeyPlacement(t *testing.T) {
	// the CPU backend keeps every key in host memory: pinned or not, placement Host; a device
	// index past the one it has, or a closed key, is refused
	f := loadFixture(t)
	e, err := NewEngine(Options{Backend: BackendCPU, CPUThreads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := e.LoadSRSPinned(f.params())
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Placement(0)
	if err != nil || p.Kind != PlacementHost || p.Device != -1 {
		t.Fatalf("placement %+v, %v (want Host on device -1)", p, err)
	}
	if _, err := s.Placement(1); !errors.Is(err, ErrInvalid) {
		t.Fatalf("device 1: %v", err)
	}
	s.Close()
	if _, err := s.Placement(0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("closed key: %v", err)
	}
	u, err := e.LoadSRSUrgent(f.params())
	if err != nil {
		t.Fatal(err)
	}
	if p, err := u.Placement(0); err != nil || p.Kind != PlacementHost {
		t.Fatalf("urgent key's placement %+v, %v (want Host)", p, err)
	}
	u.Close()
}
