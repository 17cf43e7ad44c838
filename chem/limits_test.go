package chem

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestHeavyAtomBound(t *testing.T) {
	for _, c := range []struct {
		f    Format
		text string
		want int
	}{
		{FormatSMILES, "CCO", 3},
		{FormatSMILES, "  Clc1ccccc1Br aspirin-like name with C and N", 8},
		{FormatSMILES, "[2H]C([2H])([2H])[Hg]Cl", 3},
		{FormatSMILES, "[H][C@@H](N)C(=O)O.[Na+].[H+]", 6},
		{FormatSMILES, "*c1ccc[se]1", 6},
		{FormatSMILES, "C[", 2},
		{FormatMolfile, "x\n\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n", 0},
	} {
		if got := heavyAtomBound(c.f, c.text); got != c.want {
			t.Errorf("%s %q: %d heavy atoms, want %d", c.f, c.text, got, c.want)
		}
	}
}

// TestHeavyAtomBoundMatchesRDKit checks the count against RDKit's own on
// the reference SMILES and the V3000 test records, parsed with no
// normalization (so every fragment counts); dummy atoms count for the
// bound, not for RDKit.
func TestHeavyAtomBoundMatchesRDKit(t *testing.T) {
	check := func(f Format, text, name string) {
		r, err := process(t, Input{Format: f, Content: text, NoNormalize: true})
		if err != nil {
			return
		}
		want := r.HeavyAtoms
		if f == FormatSMILES {
			want += strings.Count(text, "*")
		}
		if got := heavyAtomBound(f, text); got != want {
			t.Errorf("%s: counted %d heavy atoms, RDKit %d", name, got, r.HeavyAtoms)
		}
	}
	for _, r := range loadReference(t) {
		check(FormatSMILES, r["input"], r["id"])
	}
	data, err := os.ReadFile("testdata/molblocks_v3000.sdf")
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range strings.Split(string(data), "$$$$\n") {
		if strings.Contains(rec, "M  END") {
			check(FormatMolfile, rec, "V3000 record "+string(rune('A'+i)))
		}
	}
}

// TestTooManyAtoms: SMILES and molfiles above MaxHeavyAtoms are refused
// before RDKit parses them (a 3,000-atom aromatic chain used to take 22 s
// to be refused); an InChI's formula is bounded by its own check.
func TestTooManyAtoms(t *testing.T) {
	var v3000 strings.Builder
	v3000.WriteString("big\n\n\n  0  0  0     0  0            999 V3000\nM  V30 BEGIN CTAB\nM  V30 COUNTS 1001 0 0 0 0\nM  V30 BEGIN ATOM\n")
	for i := 1; i <= 1001; i++ {
		v3000.WriteString("M  V30 1 C 0 0 0 0\n")
	}
	v3000.WriteString("M  V30 END ATOM\nM  V30 END CTAB\nM  END\n")
	for _, in := range []Input{
		{Format: FormatSMILES, Content: strings.Repeat("C", MaxHeavyAtoms+1)},
		{Format: FormatSMILES, Content: "C" + strings.Repeat("n", 3000)},
		{Format: FormatMolfile, Content: v3000.String()},
		// counts that would make RDKit allocate gigabytes, with no atom lines
		{Format: FormatMolfile, Content: "x\n\n\n  0  0  0     0  0            999 V3000\nM  V30 BEGIN CTAB\nM  V30 COUNTS 2000000000 2000000000 0 0 0\nM  V30 END CTAB\nM  END\n"},
		{Format: FormatMolfile, Content: "x\n\n\n  0  0  0     0  0            999 V3000\nM  V30 BEGIN CTAB\nM  V30 COUNTS 1 99999999999999999999 0 0 0\nM  V30 END CTAB\nM  END\n"},
	} {
		_, err := testPool.Process(context.Background(), in)
		var me *MoleculeError
		if !errors.As(err, &me) || !strings.Contains(me.Reason, "heavy atoms, more than the 1000") {
			t.Errorf("%s of %d bytes: error %v", in.Format, len(in.Content), err)
		}
	}
	// at the bound the molecule is read
	r, err := testPool.Process(context.Background(), Input{Format: FormatSMILES, Content: strings.Repeat("C", MaxHeavyAtoms)})
	if err != nil || r.HeavyAtoms != MaxHeavyAtoms || !r.Validated {
		t.Errorf("%d carbons: %+v, %v", MaxHeavyAtoms, r, err)
	}
}
