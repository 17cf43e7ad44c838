package chem

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestMolblock: the molblock of a Structure (a zwitterion, so M  CHG lines
// are written; crystal coordinates of 1iep's imatinib) reads back in RDKit
// as the same molecule, at the coordinates given; what does not fit V2000
// is refused.
func TestMolblock(t *testing.T) {
	ctx := context.Background()
	for _, in := range []Input{
		{Format: FormatSMILES, Content: "C[NH+](C)C[C@H](N)C(=O)[O-]", NoNormalize: true},
		{Format: FormatSMILES, Content: "Cc1ccc(NC(=O)c2ccc(CN3CC[NH+](C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1", NoNormalize: true},
	} {
		s, err := testPool.Structure(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		mb, err := s.Molblock("title\nline", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(mb), "title line\n  molgraph      3D\n") || !strings.Contains(string(mb), "M  CHG") {
			t.Errorf("%s: molblock\n%s", in.Content, mb)
		}
		back, err := testPool.Structure(ctx, Input{Format: FormatMolfile, Content: string(mb), NoNormalize: true})
		if err != nil {
			t.Fatalf("%s: %v\n%s", in.Content, err, mb)
		}
		if back.SMILES != s.SMILES || !back.Reused || len(back.Atoms) != len(s.Atoms) {
			t.Errorf("%s: read back as %s (reused %v, %d atoms)", in.Content, back.SMILES, back.Reused, len(back.Atoms))
		}
		// Moved coordinates are written as given (4 decimals).
		coords := make([][3]float64, len(s.Atoms))
		for i, a := range s.Atoms {
			coords[i] = [3]float64{a.X + 100, a.Y - 50, a.Z + 0.5}
		}
		mb, err = s.Molblock("", coords)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(mb), "\n")
		for i, c := range coords {
			want := fmt.Sprintf("%10.4f%10.4f%10.4f %-3s", c[0], c[1], c[2], s.Atoms[i].Element)
			if got := lines[4+i]; !strings.HasPrefix(got, want) {
				t.Fatalf("atom %d: %q, want %q", i+1, got, want)
			}
		}
		for _, bad := range [][3]float64{{-10000, 0, 0}, {0, 100000, 0}, {0, 0, math.NaN()}} {
			c := append([][3]float64(nil), coords...)
			c[0] = bad
			if _, err := s.Molblock("", c); !errors.Is(err, ErrMolblock) {
				t.Errorf("coordinate %v: %v, want ErrMolblock", bad, err)
			}
		}
		if _, err := s.Molblock("", coords[1:]); !errors.Is(err, ErrMolblock) {
			t.Errorf("one coordinate short: %v, want ErrMolblock", err)
		}
	}
	big := &Structure{Atoms: make([]StructureAtom, MaxMolblockAtoms+1)}
	if _, err := big.Molblock("", nil); !errors.Is(err, ErrMolblock) {
		t.Errorf("%d atoms: %v, want ErrMolblock", len(big.Atoms), err)
	}
}
