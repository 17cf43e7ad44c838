package chem

import (
	"fmt"
	"runtime"
	"testing"
)

// TestScreensExact checks the pattern screens of mg_screen.cpp against
// RDKit itself: on every reference molecule, RDKit's NCI sample (Debian
// rdkit-data) and trisubstituted pyridines like the batch benchmark's, each
// with and without explicit hydrogens, no screened-out SMARTS matches, and
// the screened Crippen logP and the per-thread HBA and rotatable-bond
// counts equal calcCrippenDescriptors, calcNumHBA and
// calcNumRotatableBonds(Strict) exactly. -short checks the reference
// molecules only.
func TestScreensExact(t *testing.T) {
	var inputs []string
	for _, r := range loadReference(t) {
		inputs = append(inputs, r["input"])
	}
	if !testing.Short() {
		inputs = append(inputs, nciSMILES()...)
		subs := []string{"C", "CCC", "OC", "NCC", "SC", "C(=O)C", "C(F)(F)C", "OC(=O)CC", "C#CC", "Cl", "Br", "F", "I", "O", "N", "C#N", "C(=O)O", "C(=O)N", "[N+](=O)[O-]"}
		for i, a := range subs {
			for j, b := range subs {
				c := subs[(i*7+j*3)%len(subs)]
				inputs = append(inputs, fmt.Sprintf("c1(%s)cc(%s)c(%s)nc1", a, b, c))
			}
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	initRDKit()
	w, err := newWorker()
	if err != nil {
		t.Fatal(err)
	}
	defer w.free()
	parsed := 0
	for _, smi := range inputs {
		diff, ok := w.checkScreens(smi)
		if ok {
			parsed++
		}
		if diff != "" {
			t.Errorf("%s: %s", smi, diff)
		}
	}
	if parsed < 2000 {
		t.Fatalf("only %d of %d inputs parsed", parsed, len(inputs))
	}
	t.Logf("%d molecules checked", parsed)
}
