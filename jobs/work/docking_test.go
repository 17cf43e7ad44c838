package work

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/molgraph/molgraph/chem"
)

// rdkitIsomers is the independent reference: RDKit Python's
// EnumerateStereoisomers of smiles (canonical isomeric SMILES, sorted).
func rdkitIsomers(t *testing.T, smiles string) []string {
	t.Helper()
	script := `
import sys
from rdkit import Chem
from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers
print(" ".join(sorted(Chem.MolToSmiles(i) for i in EnumerateStereoisomers(Chem.MolFromSmiles(sys.argv[1])))))
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, smiles).Output()
	if err != nil {
		t.Skipf("needs Debian python3-rdkit: %v", err)
	}
	return strings.Fields(string(out))
}

// TestPrepareIsomersProtonated: at pH 7.4 racemic ibuprofen is docked as
// the two stereoisomers of its carboxylate (the set RDKit Python
// enumerates for the carboxylate written by hand), imatinib as its
// N-methylpiperazinium, an amine whose protonated N is a stereocentre as
// one configuration that its 3D structure gives back; every form gets a
// PDBQT, the charge on the right atom and the InChIKey's protonation flag
// (M: -1, O: +1). Without a pH the registered (neutral) forms are
// docked.
func TestPrepareIsomersProtonated(t *testing.T) {
	pool, err := chem.NewPool(1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	ph := 7.4
	smi := func(s string) chem.Input { return chem.Input{Format: chem.FormatSMILES, Content: s} }

	ibu := "CC(C)Cc1ccc(C(C)C(=O)O)cc1"
	p, err := PrepareIsomers(ctx, pool, "ibuprofen", ibu, smi(ibu), &ph)
	if err != nil {
		t.Fatal(err)
	}
	want := rdkitIsomers(t, "CC(C)Cc1ccc(C(C)C(=O)[O-])cc1")
	var got []string
	for k, iso := range p.Isomers {
		got = append(got, iso.SMILES)
		if iso.Failure != "" || p.Structs[k] == nil || len(p.PDBQT[k]) == 0 || !strings.HasSuffix(iso.InChIKey, "-M") {
			t.Errorf("ibuprofen isomer %d: %+v", k, iso)
		}
	}
	if strings.Join(slices.Sorted(slices.Values(got)), " ") != strings.Join(want, " ") {
		t.Errorf("ibuprofen at pH 7.4: %v, want %v", got, want)
	}

	ima := "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"
	p, err = PrepareIsomers(ctx, pool, "imatinib", ima, smi(ima), &ph)
	if err != nil {
		t.Fatal(err)
	}
	want = rdkitIsomers(t, "Cc1ccc(NC(=O)c2ccc(CN3CC[NH+](C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1")
	if len(p.Isomers) != 1 || p.Isomers[0].SMILES != want[0] || !strings.HasSuffix(p.Isomers[0].InChIKey, "-O") {
		t.Fatalf("imatinib at pH 7.4: %+v, want %v", p.Isomers, want)
	}
	s := p.Structs[0]
	charged := 0
	for _, a := range s.Atoms {
		if a.FormalCharge != 0 {
			charged++
			if a.AtomicNum != 7 || a.FormalCharge != 1 || a.NumHs != 1 || a.Degree != 4 {
				t.Errorf("imatinib: charged atom %+v", a)
			}
		}
	}
	if charged != 1 || len(p.PDBQT[0]) == 0 {
		t.Errorf("imatinib: %d charged atoms, %d bytes of PDBQT", charged, len(p.PDBQT[0]))
	}

	amine := "CCN(C)Cc1ccccc1" // its N+ is a stereocentre
	p, err = PrepareIsomers(ctx, pool, "amine", amine, smi(amine), &ph)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Isomers) != 1 || !strings.Contains(p.Isomers[0].SMILES, "H+]") || p.Structs[0].SMILES != p.Isomers[0].SMILES {
		t.Errorf("N-ethyl-N-methylbenzylamine at pH 7.4: %+v", p.Isomers)
	}

	p, err = PrepareIsomers(ctx, pool, "ibuprofen", ibu, smi(ibu), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, iso := range p.Isomers {
		if strings.Contains(iso.SMILES, "-]") || !strings.HasSuffix(iso.InChIKey, "-N") {
			t.Errorf("ibuprofen without a pH: %+v", iso)
		}
	}
}

// TestPoseRefAhead: the energy reference a docking job builds while a
// ligand docks (startPoseRef, from the prepared structure's molblock)
// gives its poses the energy ratio the checks compute when they build the
// reference themselves; a reference whose context ended is none (the
// checks then build it), and so is one never started.
func TestPoseRefAhead(t *testing.T) {
	pool, err := chem.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	imatinib := "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"
	s, err := pool.Structure(ctx, chem.Input{Format: chem.FormatSMILES, Content: imatinib})
	if err != nil {
		t.Fatal(err)
	}
	sdf, err := s.Molblock("pose", nil)
	if err != nil {
		t.Fatal(err)
	}
	sdf = append(sdf, "$$$$\n"...)
	var wg sync.WaitGroup
	slot := make(chan struct{}, 1)
	r := startPoseRef(ctx, pool, s, slot, &wg)
	ref := r.wait(ctx)
	wg.Wait()
	if ref == nil || r.cpu() <= 0 {
		t.Fatalf("reference %v, CPU %v s", ref, r.cpu())
	}
	energy := func(ref *chem.PoseReference) float64 {
		poses := []Pose{{Mode: 1, SDF: sdf}}
		if _, err := checkPoses(ctx, pool, s, nil, poses, ref); err != nil || poses[0].CheckError != "" {
			t.Fatalf("checks: %v %s", err, poses[0].CheckError)
		}
		for _, c := range poses[0].Checks {
			if c.Name == chem.CheckEnergyRatio && c.Value != nil {
				return *c.Value
			}
		}
		t.Fatalf("no energy ratio in %+v", poses[0].Checks)
		return 0
	}
	if ahead, inline := energy(ref), energy(nil); ahead != inline {
		t.Errorf("energy ratio %v with the reference built ahead, %v built by the checks", ahead, inline)
	}

	done, cancel := context.WithCancel(ctx)
	cancel()
	slot <- struct{}{} // the slot is taken: the reference waits for it, then for ctx
	r = startPoseRef(done, pool, s, slot, &wg)
	if got := r.wait(ctx); got != nil || r.cpu() != 0 {
		t.Errorf("reference of an ended context: %v, CPU %v", got, r.cpu())
	}
	wg.Wait()
	<-slot
	var never *poseRef
	if never.wait(ctx) != nil || never.cpu() != 0 {
		t.Error("a reference never started is not none")
	}
}
