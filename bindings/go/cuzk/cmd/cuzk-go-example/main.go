// cuzk-go-example proves one circom circuit's witness N times through libcuzk and checks
// every proof: cuzk-go-example PARAMS VK R1CS WTNS [N]. Two witnesses are in flight at most;
// each comes back with its result and is reused for the next partition.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/libcuzk/libcuzk/bindings/go/cuzk"
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
	defer circ.Close()
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
	defer srs.Close()
	var free []*cuzk.Witness
	var public []cuzk.Fr
	for sent, done := 0, 0; done < n; done++ {
		for ; sent < n && sent-done < 2; sent++ {
			var w *cuzk.Witness
			if len(free) > 0 {
				w, free = free[len(free)-1], free[:len(free)-1]
			} else if w, err = circ.Witness(e, wtns); err != nil { // engine host memory: no copy at submit
				return err
			}
			public = w.Public()
			w.Tag = uint64(sent)
			if _, err := e.Submit(srs, w); err != nil {
				return err
			}
		}
		r, err := e.Poll(context.Background())
		if err != nil {
			return err
		}
		if r.Err != nil {
			return r.Err // an *cuzk.Error: Code and the job's Detail
		}
		free = append(free, r.Witness)
		if err := cuzk.Verify(vk, r.Proof, public, cuzk.Canonical); err != nil {
			return fmt.Errorf("proof %d: %w", r.Tag, err)
		}
		fmt.Printf("proof %d valid (device %d, %v)\n", r.Tag, r.Device, r.Total)
	}
	return nil
}
