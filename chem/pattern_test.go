package chem

import (
	"testing"

	"github.com/molgraph/molgraph/internal/sharedtest"
)

// TestPatternFingerprintFast: mg_pattern.cpp's walk gives the bits of
// RDKit's PatternFingerprintMol on every molecule of the reference set and
// RDKit's NCI sample (~7,100) and on ring systems, charges, isotopes,
// hydrogens, dummy atoms and fragments chosen to stress it. (Molecules
// with query atoms, from molfiles, are left to RDKit; package search
// compares the stored fingerprints with RDKit's Python.)
func TestPatternFingerprintFast(t *testing.T) {
	smiles := patternTestSMILES(t)
	checked, skipped := 0, 0
	for _, smi := range smiles {
		fast, rdkit, ok, err := patternEngines(smi)
		if err != nil {
			continue // not a valid SMILES (the reference set has some)
		}
		if !ok {
			// a SMILES has no query atoms or bonds (a dummy atom * is
			// a plain atom of element 0)
			skipped++
			t.Errorf("%s: the fast path does not apply", smi)
			continue
		}
		checked++
		if fast != rdkit {
			t.Errorf("%s: %d bits differ from PatternFingerprintMol", smi, bitsDiffer(fast, rdkit))
		}
	}
	if checked < 7000 {
		t.Errorf("only %d molecules compared (%d skipped)", checked, skipped)
	}
	t.Logf("%d molecules equal to PatternFingerprintMol", checked)
}

func bitsDiffer(a, b FP) int {
	n := 0
	for i := range a {
		for d := a[i] ^ b[i]; d != 0; d &= d - 1 {
			n++
		}
	}
	return n
}

// TestPatternFingerprintPython: the pattern fingerprints FingerprintsOf
// stores equal RDKit's Python Chem.PatternFingerprint(m, 2048) (Debian
// python3-rdkit) on the same molecules.
func TestPatternFingerprintPython(t *testing.T) {
	smiles := patternTestSMILES(t)
	const script = `
import json, sys
from rdkit import Chem, RDLogger
RDLogger.DisableLog("rdApp.*")
out = []
for smi in json.load(sys.stdin):
    m = Chem.MolFromSmiles(smi)
    out.append(None if m is None else list(Chem.PatternFingerprint(m, 2048).GetOnBits()))
json.dump(out, sys.stdout)
`
	var want []*[]int
	sharedtest.PythonJSON(t, script, smiles, &want)
	if len(want) != len(smiles) {
		t.Fatalf("python: %d answers for %d SMILES", len(want), len(smiles))
	}
	checked := 0
	for i, smi := range smiles {
		f, err := FingerprintsOf(smi)
		if want[i] == nil || err != nil {
			if (want[i] == nil) != (err != nil) {
				t.Errorf("%s: Python reads it: %v; FingerprintsOf: %v", smi, want[i] != nil, err)
			}
			continue
		}
		var w FP
		for _, b := range *want[i] {
			w[b/64] |= 1 << (b % 64)
		}
		checked++
		if f.Pattern != w {
			t.Errorf("%s: %d bits differ from RDKit's Python", smi, bitsDiffer(f.Pattern, w))
		}
	}
	if checked < 7000 {
		t.Errorf("only %d molecules compared", checked)
	}
}

// patternTestSMILES are the reference set's inputs, RDKit's NCI sample and
// SMILES chosen to stress the pattern fingerprint's walk.
func patternTestSMILES(t *testing.T) []string {
	smiles := []string{
		"C", "CC", "[H][H]", "[Na+].[Cl-]", "CCO.O", "C1CC1", "C1CCC1", "C12C3C1C23", "C1=CC=C1",
		"c1ccc2ccccc2c1", "c1ccc2cc3ccccc3cc2c1", "C1CC2CCC1C2", "C1C2CC3CC1CC(C2)C3", "C12C3C4C1C5C2C3C45",
		"C1CCCCCCCCCCC1", "c1cc2ccc3ccc4ccc5ccc6ccc1c7c2c3c4c5c67",
		"C[C@H](N)C(=O)O", "C/C=C/C", "[13CH4]", "[2H]C([2H])([2H])O", "c1cc[nH]c1", "[O-][n+]1ccccc1",
		"C1=CC2=CC=C1C=C2", "O=C1C=CC(=O)C=C1", "c1ccc2c(c1)[nH]c1ccccc12", "C[N+](C)(C)C", "CC(=O)[O-].[K+]",
		"B1OB(O1)O", "[Si](C)(C)(C)C", "S1SSSSSSS1", "P12P3P1P23", "C#N", "c1ccccc1-c1ccccc1",
		"C1CC2CC1C1CC21", "C1CC23CCC2(C1)CC3", "CC12CCC3C(CCC4=CC(=O)CCC34C)C1CCC2O",
		"c1cc2ccc3cccc4ccc(c1)c2c34", "N1C=CC=C1", "[Fe]", "[Fe+2].[Cl-].[Cl-]", "O=[Se]=O",
		"c1ccc2c(c1)c1ccccc1c1ccccc21", "C1C2C3C4C1C5C2C3C45", "*c1ccccc1", "[*:1]CC[*:2]",
		"C12=C3C4=C5C6=C1C7=C8C9=C1C%10=C%11C(=C29)C3=C2C3=C4C4=C5C5=C9C6=C7C6=C7C8=C1C1=C8C%10=C%10C%11=C2C2=C3C3=C4C4=C5C5=C%11C%12=C(C6=C95)C7=C1C1=C%12C5=C%11C4=C3C3=C5C(=C81)C%10=C23",
	}
	for _, r := range loadReference(t) {
		smiles = append(smiles, r["input"])
	}
	nci := nciSMILES()
	if len(nci) < 4000 {
		t.Fatalf("%d NCI SMILES: rdkit-data missing", len(nci))
	}
	return append(smiles, nci...)
}
