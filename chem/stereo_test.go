package chem

import (
	"context"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// pythonStereoKeys runs RDKit Python's EnumerateStereoisomers (defaults:
// onlyUnassigned, unique) on smiles and returns the sorted
// isomers as canonical isomeric SMILES, then ours canonicalized by RDKit
// Python too. (Debian's RDKit is built without InChI, so no InChIKeys here.)
func pythonStereoKeys(t *testing.T, smiles string, ours []string) (ref, got []string) {
	t.Helper()
	script := `
import sys
from rdkit import Chem
from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers
m = Chem.MolFromSmiles(sys.argv[1])
print(" ".join(sorted(Chem.MolToSmiles(i) for i in EnumerateStereoisomers(m))))
print(" ".join(sorted(Chem.MolToSmiles(Chem.MolFromSmiles(s)) for s in sys.argv[2:])))
`
	cmd := exec.Command("/usr/bin/python3", append([]string{"-c", script, smiles}, ours...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("needs Debian python3-rdkit: %v %s", err, stderr.String())
	}
	l := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(l) != 2 {
		t.Fatalf("python output %q", out)
	}
	return strings.Fields(l[0]), strings.Fields(l[1])
}

// TestStereoisomers: racemic ibuprofen gives 2 isomers, an unspecified
// double bond 2, two unspecified centres 4, equal as canonical SMILES to RDKit
// Python's EnumerateStereoisomers; specified stereo is kept; the cap holds.
func TestStereoisomers(t *testing.T) {
	for _, tc := range []struct {
		smiles string
		n      int
	}{
		{"CC(C)Cc1ccc(C(C)C(=O)O)cc1", 2}, // ibuprofen
		{"CC=CC(=O)O", 2},                 // crotonic acid
		{"CC(O)C(N)C(=O)O", 4},            // threonine, both centres open
		{"C[C@H](N)C(=O)O", 1},            // L-alanine, specified
		{"C[C@H](O)C(N)C(=O)O", 2},        // one of two centres open
		{"c1ccccc1", 1},                   // no stereo
	} {
		iso, total, err := Stereoisomers(tc.smiles, MaxStereoisomers)
		if err != nil {
			t.Fatalf("%s: %v", tc.smiles, err)
		}
		if len(iso) != tc.n {
			t.Errorf("%s: %d isomers %v (total %d), want %d", tc.smiles, len(iso), iso, total, tc.n)
			continue
		}
		ref, got := pythonStereoKeys(t, tc.smiles, iso)
		sort.Strings(ref)
		if strings.Join(ref, " ") != strings.Join(got, " ") {
			t.Errorf("%s: isomers %v, RDKit Python %v", tc.smiles, got, ref)
		}
	}
	// Four open centres: 16 assignments, capped at 8.
	iso, total, err := Stereoisomers("OCC(O)C(O)C(O)C(O)C=O", MaxStereoisomers)
	if err != nil || len(iso) != MaxStereoisomers || total != 16 {
		t.Errorf("aldohexose: %d isomers, total %d, err %v; want %d of 16", len(iso), total, err, MaxStereoisomers)
	}
	if _, _, err := Stereoisomers("not a smiles", 8); err == nil {
		t.Error("bad SMILES: no error")
	}
}

// TestStructureRacemic: a racemic molecule from SMILES without 3D gets a 3D
// structure, that of one of its stereoisomers (was ErrNo3D: the round trip
// compared the embedded isomer with the stereo-free SMILES); a molecule with
// specified stereo keeps it.
func TestStructureRacemic(t *testing.T) {
	const ibuprofen = "CC(C)Cc1ccc(C(C)C(=O)O)cc1"
	s, err := testPool.Structure(context.Background(), Input{Format: FormatSMILES, Content: ibuprofen})
	if err != nil {
		t.Fatal(err)
	}
	iso, _, err := Stereoisomers(ibuprofen, MaxStereoisomers)
	if err != nil {
		t.Fatal(err)
	}
	if s.Stereoisomer == "" || s.Stereoisomer != s.SMILES || s.Stereoisomer != iso[0] || s.Stereoisomers != 2 {
		t.Errorf("stereoisomer %q (of %d), SMILES %q, want %q of 2", s.Stereoisomer, s.Stereoisomers, s.SMILES, iso[0])
	}
	const lAla = "C[C@H](N)C(=O)O"
	s, err = testPool.Structure(context.Background(), Input{Format: FormatSMILES, Content: lAla})
	if err != nil {
		t.Fatal(err)
	}
	if s.Stereoisomer != "" || s.SMILES != lAla {
		t.Errorf("L-alanine: stereoisomer %q, SMILES %q", s.Stereoisomer, s.SMILES)
	}
}
