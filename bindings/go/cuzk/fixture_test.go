package cuzk

// The tests' own fixture, made here rather than skipped when absent: a small circom circuit
// (a product, then a Fibonacci-like chain of sums, its last value the one public output)
// written as .r1cs and .wtns files, and a TEST-ONLY key pair for it from cuzk_setup.
// CUZK_FIXTURE=dir uses dir/c.{r1cs,wtns,params,vk} instead, and fails if they are missing.

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// rFr is BLS12-381's r, the first value that is not a scalar.
var rFr = Fr{0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}

const fixtureAux = 70 // aux wires: two density words

type fixture struct {
	dir  string
	circ *Circuit
	wtns []Fr
	vk   []byte
}

func (f *fixture) params() string { return filepath.Join(f.dir, "c.params") }

var (
	fxOnce sync.Once
	fx     *fixture
	fxErr  error
)

// loadFixture returns the fixture or fails the test: never a skip.
func loadFixture(t *testing.T) *fixture {
	t.Helper()
	fxOnce.Do(func() {
		dir := os.Getenv("CUZK_FIXTURE")
		if dir == "" {
			if dir, fxErr = os.MkdirTemp("", "cuzk-go-fixture-"); fxErr != nil {
				return
			}
			if fxErr = makeFixture(dir); fxErr != nil {
				return
			}
		}
		f := &fixture{dir: dir}
		if f.circ, fxErr = LoadCircuit(filepath.Join(dir, "c.r1cs")); fxErr != nil {
			return
		}
		if f.wtns, fxErr = LoadWtns(filepath.Join(dir, "c.wtns")); fxErr != nil {
			return
		}
		if f.vk, fxErr = os.ReadFile(filepath.Join(dir, "c.vk")); fxErr != nil {
			return
		}
		fx = f
	})
	if fxErr != nil {
		t.Fatalf("no fixture (unset CUZK_FIXTURE to let the tests make one): %v", fxErr)
	}
	return fx
}

func le(w *bytes.Buffer, vs ...any) {
	for _, v := range vs {
		binary.Write(w, binary.LittleEndian, v) // bytes.Buffer writes never fail
	}
}

// container writes an iden3 file: magic, version, then (id, size, bytes) sections.
func container(magic string, version uint32, sections ...[]byte) []byte {
	var f bytes.Buffer
	f.WriteString(magic)
	le(&f, version, uint32(len(sections)))
	for i, s := range sections {
		le(&f, uint32(i+1), uint64(len(s)))
		f.Write(s)
	}
	return f.Bytes()
}

func makeFixture(dir string) error {
	// Wires: 0 ONE, 1 the public output, 2.. aux. w2 * w3 = w4, w[i-2] + w[i-1] = w[i], out = last.
	wires := fixtureAux + 2
	v := []uint64{1, 0, 3, 5, 15}
	for i := 5; i < wires; i++ {
		v = append(v, v[i-2]+v[i-1])
	}
	v[1] = v[wires-1]
	var cons bytes.Buffer
	m := uint32(0)
	lc := func(ws ...int) {
		le(&cons, uint32(len(ws)))
		for _, w := range ws {
			le(&cons, uint32(w), Fr{1})
		}
	}
	constraint := func(a, b, c []int) { lc(a...); lc(b...); lc(c...); m++ }
	constraint([]int{2}, []int{3}, []int{4})
	for i := 5; i < wires; i++ {
		constraint([]int{i - 2, i - 1}, []int{0}, []int{i})
	}
	constraint([]int{wires - 1}, []int{0}, []int{1})
	var hdr, labels, wh, vals bytes.Buffer
	le(&hdr, uint32(32), rFr, uint32(wires), uint32(1), uint32(0), uint32(0), uint64(wires), m)
	for i := 0; i < wires; i++ {
		le(&labels, uint64(i))
	}
	le(&wh, uint32(32), rFr, uint32(wires))
	for _, x := range v {
		le(&vals, Fr{x})
	}
	put := func(name string, b []byte) error { // renamed into place: never half a file
		tmp := filepath.Join(dir, name+".tmp")
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, filepath.Join(dir, name))
	}
	if err := put("c.r1cs", container("r1cs", 1, hdr.Bytes(), cons.Bytes(), labels.Bytes())); err != nil {
		return err
	}
	if err := put("c.wtns", container("wtns", 2, wh.Bytes(), vals.Bytes())); err != nil {
		return err
	}
	c, err := LoadCircuit(filepath.Join(dir, "c.r1cs"))
	if err != nil {
		return err
	}
	defer c.Close()
	var seed [32]byte
	seed[0] = 7
	return InsecureTestSetup(c, seed, filepath.Join(dir, "c.params"), filepath.Join(dir, "c.vk"))
}
