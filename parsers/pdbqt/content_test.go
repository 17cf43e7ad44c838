package pdbqt

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVinaOutputModels checks every mode of Vina --out files against the
// values recorded in the corpus README (section 2) and the files' own
// REMARK lines: the 1iep run at exh 8 / seed 42 wrote 5 models, the
// documented exh 32 run 4; 5x72 docks two ligands at once (two molecules per
// model); 1fpu moves one flexible residue per model.
func TestVinaOutputModels(t *testing.T) {
	root := corpus(t)
	tests := []struct {
		file       string
		affinities []float64
		rmsdUB2    float64 // rmsd_ub of mode 2
		ligands    int     // per model
		flex       int     // flexible residues per model
		atoms      int     // atoms of the first ligand
	}{
		{"derived/1iep_vina123_exh8_seed42_out.pdbqt", []float64{-13.357, -11.400, -11.399, -11.127, -10.789}, 1.738, 1, 0, 40},
		{"vina-examples/1iep/1iep_ligand_vina_out.pdbqt", []float64{-13.234, -11.293, -11.281, -11.146}, 1.681, 1, 0, 40},
		{"vina-examples/5x72/5x72_ligand_vina_out.pdbqt", nil, 3.810, 2, 0, 25},
		{"vina-examples/1fpu/1fpu_ligand_flex_vina_out.pdbqt", nil, 12.118, 1, 1, 0},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			ms, _ := parseFile(t, filepath.Join(root, tc.file))
			if tc.affinities != nil && len(ms) != len(tc.affinities) {
				t.Fatalf("%d models, want %d", len(ms), len(tc.affinities))
			}
			for i, md := range ms {
				if md.Number != i+1 || md.Result == nil {
					t.Fatalf("model %d: number %d, result %v", i, md.Number, md.Result)
				}
				if tc.affinities != nil && md.Result.Affinity != tc.affinities[i] {
					t.Errorf("model %d affinity %v, want %v", i+1, md.Result.Affinity, tc.affinities[i])
				}
				if i > 0 && md.Result.Affinity < ms[i-1].Result.Affinity {
					t.Errorf("model %d more favourable than model %d", i+1, i)
				}
				if len(md.Ligands()) != tc.ligands || len(md.Molecules)-len(md.Ligands()) != tc.flex {
					t.Errorf("model %d: %d ligands, %d flexible residues", i+1, len(md.Ligands()), len(md.Molecules)-len(md.Ligands()))
				}
				// Vina keeps atoms, order, serials, types and charges: only x,y,z change.
				for k, m := range md.Molecules {
					ref := ms[0].Molecules[k]
					if len(m.Atoms) != len(ref.Atoms) {
						t.Fatalf("model %d molecule %d: %d atoms, model 1 has %d", i+1, k, len(m.Atoms), len(ref.Atoms))
					}
					for j := range m.Atoms {
						a, b := m.Atoms[j], ref.Atoms[j]
						if a.Serial != b.Serial || a.Type != b.Type || a.Charge != b.Charge {
							t.Fatalf("model %d atom %d differs from model 1 beyond coordinates", i+1, j)
						}
					}
				}
			}
			if ms[0].Result.RMSDLowerBound != 0 || ms[0].Result.RMSDUpperBound != 0 {
				t.Errorf("mode 1 rmsd %v/%v, want 0/0", ms[0].Result.RMSDLowerBound, ms[0].Result.RMSDUpperBound)
			}
			if ms[1].Result.RMSDUpperBound != tc.rmsdUB2 {
				t.Errorf("mode 2 rmsd_ub %v, want %v", ms[1].Result.RMSDUpperBound, tc.rmsdUB2)
			}
			if tc.atoms > 0 && len(ms[0].Molecules[0].Atoms) != tc.atoms {
				t.Errorf("first ligand has %d atoms, want %d", len(ms[0].Molecules[0].Atoms), tc.atoms)
			}
		})
	}
	// The energy remarks of the first 1iep model (file values).
	ms, _ := parseFile(t, filepath.Join(root, "derived/1iep_vina123_exh8_seed42_out.pdbqt"))
	want := VinaResult{Affinity: -13.357, InterIntra: -19.140, Inter: -18.723, Intra: -0.418, Unbound: -0.317}
	if *ms[0].Result != want {
		t.Errorf("model 1 result %+v, want %+v", *ms[0].Result, want)
	}
	if got := ms[0].Molecules[0].Atoms[0]; got.X != 16.703 || got.Y != 51.908 || got.Z != 14.857 || got.Type != "N" || got.Charge != -0.322 {
		t.Errorf("model 1 atom 1 = %+v", got)
	}
}

// TestMeekoLigand reads the Vina repository's Meeko ligand for 1iep: the
// tree (TORSDOF 7, 7 branches as listed in the file), the SMILES mapping,
// and MeekoRemarks writes the same wrapped REMARK lines as Meeko.
func TestMeekoLigand(t *testing.T) {
	root := corpus(t)
	ms, raw := parseFile(t, filepath.Join(root, "vina-examples/1iep/1iep_ligand.pdbqt"))
	m := ms[0].Molecules[0]
	if m.TorsDOF != 7 || len(m.Atoms) != 40 {
		t.Fatalf("TORSDOF %d, %d atoms", m.TorsDOF, len(m.Atoms))
	}
	var brs []string
	for _, b := range m.Branches() {
		brs = append(brs, itoa(b.From)+"-"+itoa(b.To))
	}
	if got, want := strings.Join(brs, " "), "1-5 6-12 12-14 15-20 2-26 31-32 32-33"; got != want {
		t.Errorf("branches %s, want %s", got, want)
	}
	if got := m.Root.Atoms(); len(got) != 4 {
		t.Errorf("root has %d atoms, want 4 (amide N, C, O, H)", len(got))
	}
	if m.SMILES != "Cc1ccc(NC(=O)c2ccc(CN3CC[NH+](C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1" {
		t.Errorf("SMILES %q", m.SMILES)
	}
	if len(m.SMILESIdx) != 37 || m.SMILESIdx[0] != (IndexPair{6, 1}) || m.SMILESIdx[36] != (IndexPair{18, 39}) {
		t.Errorf("SMILES IDX: %d pairs, first %v", len(m.SMILESIdx), m.SMILESIdx)
	}
	wantH := []IndexPair{{6, 4}, {25, 13}, {17, 40}}
	if len(m.HParent) != 3 || m.HParent[0] != wantH[0] || m.HParent[1] != wantH[1] || m.HParent[2] != wantH[2] {
		t.Errorf("H PARENT %v, want %v", m.HParent, wantH)
	}
	var remarks []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "REMARK ") {
			remarks = append(remarks, strings.TrimPrefix(l, "REMARK "))
		}
	}
	got := MeekoRemarks(m.SMILES, m.SMILESIdx, m.HParent)
	if strings.Join(got, "\n") != strings.Join(remarks, "\n") {
		t.Errorf("MeekoRemarks:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(remarks, "\n"))
	}
	var sum float64
	for _, a := range m.Atoms {
		sum += a.Charge
	}
	if math.Abs(sum-1) > 0.01 { // imatinib is protonated on the piperazine: +1
		t.Errorf("total charge %.3f, want +1", sum)
	}
}

func TestElement(t *testing.T) {
	for typ, want := range map[string]string{
		"A": "C", "C": "C", "NA": "N", "N": "N", "NS": "N", "OA": "O", "SA": "S", "S": "S",
		"HD": "H", "H": "H", "CL": "Cl", "Cl": "Cl", "Br": "Br", "Zn": "Zn", "ZN": "Zn",
		"Fe": "Fe", "CG0": "C", "G0": "", "W": "", "Xx": "", "": "",
	} {
		if got := Element(typ); got != want {
			t.Errorf("Element(%q) = %q, want %q", typ, got, want)
		}
	}
}

// TestErrors: malformed input gives the sentinel error, never a panic.
func TestErrors(t *testing.T) {
	atom := func(serial string) string {
		return "ATOM  " + serial + "  C   UNL     1       1.000   2.000   3.000  1.00  0.00     0.000 C \n"
	}
	tests := []struct {
		name, in string
		want     error
	}{
		{"empty", "", ErrNoAtoms},
		{"remarks only", "REMARK hello\n", ErrNoAtoms},
		{"short atom", "ATOM      1  C   UNL     1       1.000\n", ErrSyntax},
		{"bad x", "ATOM      1  C   UNL     1       1.0x0   2.000   3.000  1.00  0.00     0.000 C \n", ErrSyntax},
		{"nan", "ATOM      1  C   UNL     1         NaN   2.000   3.000  1.00  0.00     0.000 C \n", ErrSyntax},
		{"no type", "ATOM      1  C   UNL     1       1.000   2.000   3.000  1.00  0.00     0.000\n", ErrSyntax},
		{"dup serial in tree", "ROOT\n" + atom("    1") + atom("    1") + "ENDROOT\n", ErrSyntax},
		{"unclosed root", "ROOT\n" + atom("    1"), ErrTree},
		{"endroot alone", "ENDROOT\n", ErrTree},
		{"empty root", "ROOT\nENDROOT\n", ErrTree},
		{"branch mismatch", "ROOT\n" + atom("    1") + "ENDROOT\nBRANCH 1 2\n" + atom("    2") + "ENDBRANCH 1 3\n", ErrTree},
		{"branch unknown parent", "ROOT\n" + atom("    1") + "ENDROOT\nBRANCH 9 2\n" + atom("    2") + "ENDBRANCH 9 2\n", ErrTree},
		{"branch child missing", "ROOT\n" + atom("    1") + "ENDROOT\nBRANCH 1 5\n" + atom("    2") + "ENDBRANCH 1 5\n", ErrTree},
		{"atom outside tree", "ROOT\n" + atom("    1") + "ENDROOT\n" + atom("    2"), ErrTree},
		{"endmdl alone", atom("    1") + "ENDMDL\n", ErrTree},
		{"model unclosed", "MODEL 1\n" + atom("    1"), ErrTree},
		{"empty model", "MODEL 1\nENDMDL\n", ErrNoAtoms},
		{"bad vina result", "MODEL 1\nREMARK VINA RESULT: -1.0 x 0\n" + atom("    1") + "ENDMDL\n", ErrSyntax},
		{"short vina result", "MODEL 1\nREMARK VINA RESULT: -1.0\n" + atom("    1") + "ENDMDL\n", ErrSyntax},
		{"odd idx", "REMARK SMILES C\nREMARK SMILES IDX 1\n" + atom("    1"), ErrMapping},
		{"idx unknown serial", "REMARK SMILES C\nREMARK SMILES IDX 1 7\n" + atom("    1"), ErrMapping},
		{"idx without smiles", "REMARK SMILES IDX 1 1\n" + atom("    1"), ErrMapping},
		{"h parent on carbon", "REMARK SMILES C\nREMARK H PARENT 1 1\n" + atom("    1"), ErrMapping},
		{"binary", "ATOM\x00\x01\n", ErrSyntax},
		{"torsdof in tree", "ROOT\n" + atom("    1") + "TORSDOF 1\n", ErrTree},
		{"long line", strings.Repeat("x", MaxLineLength+10), ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.in))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := ParseMolecule(strings.NewReader("MODEL 1\n" + atom("    1") + "ENDMDL\nMODEL 2\n" + atom("    1") + "ENDMDL\n")); !errors.Is(err, ErrSyntax) {
		t.Errorf("ParseMolecule of two models: %v", err)
	}
}

// Hostile inputs end in ErrTooLarge quickly: deep BRANCH nesting (the
// tree's walks recurse per level), remarks past their byte budget.
func TestParseBounds(t *testing.T) {
	atom := func(serial int) string {
		return fmt.Sprintf("ATOM  %5d  C   UNL     1       1.000   2.000   3.000  1.00  0.00     0.000 C \n", serial)
	}
	var deep strings.Builder
	deep.WriteString("ROOT\n" + atom(1) + "ENDROOT\n")
	for i := 1; i <= MaxBranchDepth+1; i++ {
		fmt.Fprintf(&deep, "BRANCH %d %d\n%s", i, i+1, atom(i+1))
	}
	// At the limit: MaxBranchDepth nested branches, closed, parse.
	var ok strings.Builder
	ok.WriteString("ROOT\n" + atom(1) + "ENDROOT\n")
	for i := 1; i <= MaxBranchDepth; i++ {
		fmt.Fprintf(&ok, "BRANCH %d %d\n%s", i, i+1, atom(i+1))
	}
	for i := MaxBranchDepth; i >= 1; i-- {
		fmt.Fprintf(&ok, "ENDBRANCH %d %d\n", i, i+1)
	}
	ok.WriteString("TORSDOF 256\n")
	ms, err := Parse(strings.NewReader(ok.String()))
	if err != nil || len(ms[0].Molecules[0].Branches()) != MaxBranchDepth {
		t.Fatalf("%d nested branches: %v", MaxBranchDepth, err)
	}
	remarks := strings.Repeat("REMARK "+strings.Repeat("x", 4000)+"\n", MaxRemarkBytes/4000+1) + atom(1)
	for _, tc := range []struct{ name, in, msg string }{
		{"deep branches", deep.String(), "BRANCH nested deeper than 256"},
		{"remarks", remarks, "bytes of REMARK text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse(strings.NewReader(tc.in))
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want ErrTooLarge naming %q", err, tc.msg)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}
