package cuzk

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Witness-only partitions (libcuzk 0.4): the fixture's circuit loaded as a constraint system
// from its .r1cs and from the compact conversion; its witness (inputs and aux only) proves
// and verifies through both, the block comes back with the Result for reuse, the counts are
// reported, wrong counts are refused with both named, and a value not below r fails the job.
func TestWitnessOnly(t *testing.T) {
	f := loadFixture(t)
	e, s := engine(t, f, Options{})
	defer e.Close()
	defer s.Close()
	full := witness(t, f, e, 1)
	defer full.Close()
	compact := filepath.Join(t.TempDir(), "c.cuzkcs")
	if err := ConvertR1CS(filepath.Join(f.dir, "c.r1cs"), compact); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(f.dir, "c.r1cs"), compact} {
		cs, err := e.LoadCS(path)
		if err != nil {
			t.Fatal(err)
		}
		info, err := cs.Info()
		if err != nil {
			t.Fatal(err)
		}
		if info.NumInputs != uint64(len(full.Inputs)) || info.NumAux != uint64(len(full.Aux)) ||
			info.AbcLen != uint64(len(full.A)) || info.AbcLen != info.NumConstraints+info.NumInputs || info.HostBytes == 0 {
			t.Fatalf("%s: info %+v against inputs %d aux %d abc %d", path, info, len(full.Inputs), len(full.Aux), len(full.A))
		}
		if st, err := e.Stats(); err != nil || st.CSHostBytes < info.HostBytes {
			t.Fatalf("stats %v: cs_host_bytes %d < %d", err, st.CSHostBytes, info.HostBytes)
		}
		w, err := e.NewWitnessFor(cs)
		if err != nil {
			t.Fatal(err)
		}
		copy(w.Inputs, full.Inputs)
		copy(w.Aux, full.Aux)
		w.Form, w.Tag = full.Form, 7
		for round := 0; round < 2; round++ { // the block again after its Result, as a pipeline reuses it
			if _, err := e.SubmitWitness(s, cs, w); err != nil {
				t.Fatal(err)
			}
			r := poll(t, e)
			if r.Err != nil || r.Tag != 7 || r.Witness != w {
				t.Fatalf("%s round %d: %v tag %d", path, round, r.Err, r.Tag)
			}
			if err := Verify(f.vk, r.Proof, w.Public(), w.Form); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		// one aux value too few: refused at submit, both counts named
		short, err := e.NewWitness(0, len(full.Inputs), len(full.Aux)-1)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.SubmitWitness(s, cs, short)
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), strconv.Itoa(len(full.Aux))) ||
			!strings.Contains(err.Error(), strconv.Itoa(len(full.Aux)-1)) {
			t.Fatalf("short witness: %v, want ErrMismatch naming %d and %d", err, len(full.Aux), len(full.Aux)-1)
		}
		short.Close()
		// a value not below r: the job fails naming it
		w.Aux[3] = Fr{0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}
		w.Form = Canonical
		if _, err := e.SubmitWitness(s, cs, w); err != nil {
			t.Fatal(err)
		}
		if r := poll(t, e); !errors.Is(r.Err, ErrInvalid) || !strings.Contains(r.Err.Error(), "aux[3]") {
			t.Fatalf("aux[3] = r: %v, want ErrInvalid naming aux[3]", r.Err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := cs.Close(); err != nil || cs.Close() != nil {
			t.Fatalf("Close: %v", err)
		}
		if _, err := e.NewWitnessFor(cs); !errors.Is(err, ErrInvalid) {
			t.Fatalf("a closed constraint system: %v, want ErrInvalid", err)
		}
	}
	if _, err := e.LoadCS("/nonexistent/c.r1cs"); !errors.Is(err, ErrIO) {
		t.Fatalf("missing file: %v, want ErrIO", err)
	}
}
