package chem

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestShortcutsExact checks the standardization shortcuts of mg_worker.cpp
// (removeHs, Normalizer, Reionizer and Uncharger skipped where they cannot change the
// molecule) against the full RDKit path (flag MG_NO_SHORTCUTS): every
// field of the result, issues and steps included, must be the same. The
// inputs are the reference molecules, RDKit's NCI sample (Debian
// rdkit-data) as SMILES and as SD records, the docking corpus's SD files
// (3D, most with explicit hydrogens) and a hand-picked set of charged,
// salt and explicit-hydrogen molecules. Each shortcut must also be taken on
// most of the NCI sample, or the test proves nothing.
func TestShortcutsExact(t *testing.T) {
	type input struct {
		name   string
		format int
		text   string
	}
	var inputs []input
	for _, r := range loadReference(t) {
		inputs = append(inputs, input{"reference " + r["id"], cSMILES, r["input"]})
	}
	for i, smi := range []string{
		"[H]C([H])([H])O", "[2H]C([2H])([2H])O", "[H][C@](N)(C)C(=O)O",
		"[Na+].[O-]C(=O)c1ccccc1", "[Na]Cl", "[Na].[Cl]", "C[N+](C)(C)CC(=O)[O-]",
		"NCC(=O)O", "[NH3+]CC(=O)[O-]", "O=[N+]([O-])c1ccccc1", "CN(=O)=O",
		"C[S+]([O-])C", "CS(C)=O", "[O-]S(=O)(=O)[O-].[Mg+2]", "[Ca]", "c1cc[n+]([O-])cc1",
		"C1=CC=C[N-]1.[K+]", "OC(=O)CC(=O)[O-]", "[O-]c1ccccc1.OC(=O)C", "CC(=O)O.[H]Cl",
		"F/C=C/[H]", "[H]/N=C/C", "[NH4+].[Cl-]", "C[n+]1ccccc1.[I-]",
	} {
		inputs = append(inputs, input{fmt.Sprintf("hand-picked %d", i), cSMILES, smi})
	}
	if !testing.Short() {
		for i, smi := range nciSMILES() {
			inputs = append(inputs, input{fmt.Sprintf("NCI %d", i+1), cSMILES, smi})
		}
		sdfs := []string{"/usr/share/RDKit/Data/NCI/first_200.props.sdf"}
		corpus, _ := filepath.Glob(filepath.Join(sharedDir(t), "docking-corpus/*/*/*.sdf"))
		sdfs = append(sdfs, corpus...)
		for _, path := range sdfs {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i, rec := range strings.Split(string(data), "$$$$") {
				if strings.Contains(rec, "M  END") {
					inputs = append(inputs, input{fmt.Sprintf("%s record %d", filepath.Base(path), i+1), cMolBlock, strings.TrimLeft(rec, "\r\n")})
				}
			}
		}
	}

	var mu sync.Mutex
	var checked, failed int
	taken := map[int]int{}
	next := make(chan input)
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			w, err := newWorker()
			if err != nil {
				t.Error(err)
				for range next {
				}
				return
			}
			defer w.free()
			for in := range next {
				fast := w.process(in.format, in.text, nil, 0)
				full := w.process(in.format, in.text, nil, flagNoShortcuts)
				if full.shortcuts != 0 {
					t.Errorf("%s: shortcuts taken with MG_NO_SHORTCUTS", in.name)
				}
				shortcuts := fast.shortcuts
				fast.timing, full.timing, fast.shortcuts = Timing{}, Timing{}, 0
				mu.Lock()
				if fast.err == "" {
					checked++
					for _, bit := range []int{skippedRemoveHs, skippedNormalize, skippedReionize, skippedUncharge} {
						if shortcuts&bit != 0 {
							taken[bit]++
						}
					}
				}
				if fast != full {
					failed++
					if failed <= 20 {
						t.Errorf("%s (%q): with shortcuts\n%+v\nwithout\n%+v", in.name, firstLine(in.text), fast, full)
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, in := range inputs {
		next <- in
	}
	close(next)
	wg.Wait()
	if failed > 0 {
		t.Fatalf("%d of %d inputs differ", failed, len(inputs))
	}
	t.Logf("%d molecules identical both ways; removeHs skipped %d times, Normalizer %d, Reionizer %d, Uncharger %d",
		checked, taken[skippedRemoveHs], taken[skippedNormalize], taken[skippedReionize], taken[skippedUncharge])
	if !testing.Short() {
		for bit, name := range map[int]string{skippedRemoveHs: "removeHs", skippedNormalize: "Normalizer", skippedReionize: "Reionizer", skippedUncharge: "Uncharger"} {
			if taken[bit] < checked/2 {
				t.Errorf("%s skipped for only %d of %d molecules", name, taken[bit], checked)
			}
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
