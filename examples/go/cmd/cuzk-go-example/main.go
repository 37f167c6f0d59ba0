// cuzk-go-example proves one circom circuit's witness N times through libcuzk and checks
// every proof: cuzk-go-example PARAMS VK R1CS WTNS [N]
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"libcuzk.example/cuzk"
)

func main() {
	if len(os.Args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: cuzk-go-example PARAMS VK R1CS WTNS [N]")
		os.Exit(2)
	}
	n := 4
	if len(os.Args) > 5 {
		n, _ = strconv.Atoi(os.Args[5])
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3], os.Args[4], n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(params, vkPath, r1cs, wtnsPath string, n int) error {
	vk, err := os.ReadFile(vkPath)
	if err != nil {
		return err
	}
	circ, err := cuzk.LoadCircuit(r1cs)
	if err != nil {
		return err
	}
	defer circ.Free()
	wtns, err := cuzk.LoadWtns(wtnsPath)
	if err != nil {
		return err
	}
	e, err := cuzk.NewEngine(cuzk.Options{})
	if err != nil {
		return err
	}
	defer e.Close()
	srs, err := e.LoadSRS(params)
	if err != nil {
		return err
	}
	defer srs.Release()
	pub := [][]cuzk.Fr{}
	for i := 0; i < n; i++ {
		w, err := circ.Witness(e, wtns) // buffers in engine host memory: submitted without a copy
		if err != nil {
			return err
		}
		w.Tag = uint64(i)
		pub = append(pub, w.Public())
		if _, err := e.SubmitPartition(srs, w); err != nil {
			return err
		}
	}
	for i := 0; i < n; i++ {
		r, err := e.Poll(context.Background())
		if err != nil {
			return err
		}
		if r.Err != nil {
			return r.Err
		}
		r.Witness.Free()
		if err := cuzk.Verify(vk, r.Proof, pub[r.Tag], cuzk.Canonical); err != nil {
			return fmt.Errorf("proof %d: %w", r.Tag, err)
		}
		fmt.Printf("proof %d valid (device %d, %v)\n", r.Tag, r.Device, r.Total)
	}
	return nil
}
