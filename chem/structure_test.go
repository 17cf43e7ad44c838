package chem

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// meekoSMILES is the REMARK SMILES of 1iep_ligand.pdbqt (Meeko, Vina repo).
const meekoSMILES = "Cc1ccc(NC(=O)c2ccc(CN3CC[NH+](C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"

// TestStructure1iep reads the crystal imatinib (protonated, all H) as
// registered without normalization: the coordinates are reused, the SMILES
// is Meeko's REMARK SMILES, and for every atom without hydrogens (whose
// charge Meeko writes unchanged) our Gasteiger charge equals Meeko's to the
// file's three decimals. The SMILES IDX pairs of Meeko's file, joined on
// coordinates, give our SMILES indexes.
func TestStructure1iep(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "docking-corpus", "vina-examples", "1iep")
	sdf, err := os.ReadFile(filepath.Join(dir, "1iep_ligand.sdf"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := testPool.Structure(context.Background(), Input{Format: FormatMolfile, Content: string(sdf), NoNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Reused {
		t.Error("crystal coordinates not reused")
	}
	if s.SMILES != meekoSMILES {
		t.Errorf("SMILES %s, want %s", s.SMILES, meekoSMILES)
	}
	if len(s.Atoms) != 69 || len(s.Bonds) != 73 {
		t.Errorf("%d atoms %d bonds, want 69 and 73", len(s.Atoms), len(s.Bonds))
	}
	if len(s.Rings) != 5 {
		t.Errorf("%d rings, want 5", len(s.Rings))
	}
	// Meeko's file: charge per SMILES index, for atoms without H.
	pq, err := os.ReadFile(filepath.Join(dir, "1iep_ligand.pdbqt"))
	if err != nil {
		t.Fatal(err)
	}
	charge := map[int]float64{} // serial -> charge
	serialOf := map[int]int{}   // smiles idx -> serial
	for _, line := range strings.Split(string(pq), "\n") {
		if strings.HasPrefix(line, "ATOM") && len(line) >= 76 {
			serial, _ := strconv.Atoi(strings.TrimSpace(line[6:11]))
			q, _ := strconv.ParseFloat(strings.TrimSpace(line[68:76]), 64)
			charge[serial] = q
		}
		if rest, ok := strings.CutPrefix(line, "REMARK SMILES IDX "); ok {
			f := strings.Fields(rest)
			for i := 0; i+1 < len(f); i += 2 {
				a, _ := strconv.Atoi(f[i])
				b, _ := strconv.Atoi(f[i+1])
				serialOf[a] = b
			}
		}
	}
	seen := map[int]bool{}
	compared := 0
	for i, a := range s.Atoms {
		if a.AtomicNum == 1 {
			if a.SMILESIndex != 0 {
				t.Errorf("hydrogen %d has SMILES index %d", i, a.SMILESIndex)
			}
			continue
		}
		if a.SMILESIndex < 1 || a.SMILESIndex > 37 || seen[a.SMILESIndex] {
			t.Fatalf("atom %d: SMILES index %d", i, a.SMILESIndex)
		}
		seen[a.SMILESIndex] = true
		if a.NumHs == 0 {
			want := charge[serialOf[a.SMILESIndex]]
			if math.Abs(a.Gasteiger-want) > 0.0005+1e-9 {
				t.Errorf("atom %d (%s, SMILES %d): Gasteiger %.4f, Meeko %.3f", i, a.Element, a.SMILESIndex, a.Gasteiger, want)
			}
			compared++
		}
	}
	if compared < 14 {
		t.Errorf("only %d charges compared", compared)
	}
	// The protonated piperazine N keeps its charge.
	q := 0
	for _, a := range s.Atoms {
		q += a.FormalCharge
	}
	if q != 1 {
		t.Errorf("net formal charge %d, want +1", q)
	}
}

// TestStructureEmbedded: inputs without 3D coordinates are embedded with
// all hydrogens; bond lengths are chemical, aromatic bonds have a Kekule
// form.
func TestStructureEmbedded(t *testing.T) {
	tests := []struct {
		name      string
		in        Input
		smiles    string
		atoms     int
		aromBonds int
		rings     int
	}{
		{"ethanol", Input{Format: FormatSMILES, Content: "OCC"}, "CCO", 9, 0, 0},
		{"toluene", Input{Format: FormatSMILES, Content: "Cc1ccccc1"}, "Cc1ccccc1", 15, 6, 1},
		{"2D molfile", Input{Format: FormatMolfile, Content: "\n  2D\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\n    1.2990    0.7500    0.0000 C   0  0\n    2.5981    0.0000    0.0000 O   0  0\n  1  2  1  0\n  2  3  1  0\nM  END\n"}, "CCO", 9, 0, 0},
		{"acetate neutralized", Input{Format: FormatSMILES, Content: "CC(=O)[O-]"}, "CC(=O)O", 8, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := testPool.Structure(context.Background(), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if s.Reused {
				t.Error("Reused for an input without 3D coordinates")
			}
			if s.SMILES != tc.smiles || len(s.Atoms) != tc.atoms || len(s.Rings) != tc.rings {
				t.Errorf("got %s, %d atoms, %d rings; want %s, %d, %d", s.SMILES, len(s.Atoms), len(s.Rings), tc.smiles, tc.atoms, tc.rings)
			}
			arom, kek2 := 0, 0
			for _, b := range s.Bonds {
				a1, a2 := s.Atoms[b.Begin], s.Atoms[b.End]
				d := math.Sqrt((a1.X-a2.X)*(a1.X-a2.X) + (a1.Y-a2.Y)*(a1.Y-a2.Y) + (a1.Z-a2.Z)*(a1.Z-a2.Z))
				if d < 0.9 || d > 1.6 {
					t.Errorf("bond %s-%s length %.3f", a1.Element, a2.Element, d)
				}
				if b.Order == 1.5 {
					arom++
					if b.Kekule == 2 {
						kek2++
					}
				}
			}
			if arom != tc.aromBonds || kek2*2 != tc.aromBonds {
				t.Errorf("%d aromatic bonds (%d double in Kekule form), want %d", arom, kek2, tc.aromBonds)
			}
			var q float64
			for _, a := range s.Atoms {
				q += a.Gasteiger
			}
			if math.Abs(q) > 1e-6 {
				t.Errorf("Gasteiger charges sum to %.6f, want 0", q)
			}
		})
	}
}

// TestStructureErrors: bad content is a *MoleculeError, never a panic.
func TestStructureErrors(t *testing.T) {
	for _, in := range []Input{
		{Format: FormatSMILES, Content: "C1CC"},
		{Format: FormatMolfile, Content: "not a molfile"},
		{Format: FormatMolfile, Content: "\n\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0 0.0 0.0 Xx  0  0\nM  END\n"},
	} {
		_, err := testPool.Structure(context.Background(), in)
		if !errors.Is(err, ErrInvalidMolecule) {
			t.Errorf("%q: error %v, want ErrInvalidMolecule", in.Content, err)
		}
	}
	if _, err := parseStructure("A\t6\tC\n"); err == nil {
		t.Error("malformed table accepted")
	}
}

// FuzzParseStructure: the table reader never panics and keeps bonds in range.
func FuzzParseStructure(f *testing.F) {
	f.Add("S\tCC\nA\t6\tC\t0\t0\t0\t3\t4\t4\t0\t0\t0\t-0.03\t0\t1\nA\t6\tC\t0\t0\t0\t3\t4\t4\t1.5\t0\t0\t-0.03\t0\t2\nB\t0\t1\t1\t1\t0\t0\n")
	f.Add("R\t0 1 2\n")
	f.Add("B\t0\t5\t1\t1\t0\t0\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := parseStructure(text)
		if err != nil {
			return
		}
		for _, b := range s.Bonds {
			if b.Begin < 0 || b.End < 0 || b.Begin >= len(s.Atoms) || b.End >= len(s.Atoms) {
				t.Fatalf("bond out of range: %+v", b)
			}
		}
	})
}
