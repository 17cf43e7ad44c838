package docking

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/parsers/pdbqt"
)

var (
	ligPoolOnce sync.Once
	ligPool     *chem.Pool
	ligPoolErr  error
)

func chemPool(t testing.TB) *chem.Pool {
	t.Helper()
	ligPoolOnce.Do(func() { ligPool, ligPoolErr = chem.NewPool(runtime.GOMAXPROCS(0)) })
	if ligPoolErr != nil {
		t.Fatal(ligPoolErr)
	}
	return ligPool
}

func structureOf(t testing.TB, in chem.Input) *chem.Structure {
	t.Helper()
	s, err := chemPool(t).Structure(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sdfStructure(t testing.TB, path string) *chem.Structure {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := structureOf(t, chem.Input{Format: chem.FormatMolfile, Content: string(b), NoNormalize: true})
	if !s.Reused {
		t.Fatalf("%s: crystal coordinates not reused", path)
	}
	return s
}

// keyed describes a ligand PDBQT in SMILES terms: per atom (SMILES index,
// or -parent index for a polar H, with a counter) type and charge; the
// rotatable bonds as SMILES index pairs.
type keyed struct {
	types    map[string]string
	charges  map[string]float64
	branches map[[2]int]bool
	torsdof  int
}

func keyLigand(t *testing.T, m *pdbqt.Molecule) keyed {
	t.Helper()
	k := keyed{types: map[string]string{}, charges: map[string]float64{}, branches: map[[2]int]bool{}, torsdof: m.TorsDOF}
	smiOf := map[int]int{}
	for _, p := range m.SMILESIdx {
		smiOf[p.Serial] = p.SMILES
	}
	nH := map[int]int{}
	for _, p := range m.HParent {
		smiOf[p.Serial] = -p.SMILES
	}
	for _, a := range m.Atoms {
		if a.Element() == "" {
			continue // W water pseudo-atoms of hydrated docking (1uw6)
		}
		s, ok := smiOf[a.Serial]
		if !ok {
			t.Fatalf("atom %d not mapped", a.Serial)
		}
		key := strconv.Itoa(s)
		if s < 0 {
			nH[s]++
			key += "H" + strconv.Itoa(nH[s])
		}
		k.types[key] = a.Type
		k.charges[key] = a.Charge
	}
	for _, br := range m.Branches() {
		a, b := smiOf[br.From], smiOf[br.To]
		k.branches[[2]int{min(a, b), max(a, b)}] = true
	}
	return k
}

// TestPrepareLigandMeeko compares our PDBQT with Meeko's for every corpus
// ligand that has a Meeko file and an SDF with all hydrogens: same SMILES,
// same AutoDock types, charges within 0.001 (both files round to three
// decimals), same TORSDOF and the same rotatable bonds (BRANCH pairs in
// SMILES indexes). The root body may differ (README section 3.6).
func TestPrepareLigandMeeko(t *testing.T) {
	c := filepath.Join(corpus(t), "vina-examples")
	tests := []struct {
		sdf, meeko string
		// hydratedBranches: Meeko's hydrated-docking file hangs W
		// pseudo-atoms on polar H, which makes those X-H bonds rotatable
		// (not part of the plain rules); they are removed before comparing.
		hydratedBranches int
	}{
		{"1iep/1iep_ligand.sdf", "1iep/1iep_ligand.pdbqt", 0},
		{"5x72/5x72_ligand_p59H.sdf", "5x72/5x72_ligand_p59.pdbqt", 0},
		{"5x72/5x72_ligand_p69H.sdf", "5x72/5x72_ligand_p69.pdbqt", 0},
		{"1uw6/1uw6_ligandH.sdf", "1uw6/1uw6_ligand.pdbqt", 1},
	}
	for _, tc := range tests {
		t.Run(tc.sdf, func(t *testing.T) {
			s := sdfStructure(t, filepath.Join(c, tc.sdf))
			out, err := PrepareLigand(s, LigandOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckLigand(out); err != nil {
				t.Fatal(err)
			}
			ours, err := pdbqt.ParseMolecule(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			mb, err := os.ReadFile(filepath.Join(c, tc.meeko))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := pdbqt.ParseMolecule(bytes.NewReader(mb))
			if err != nil {
				t.Fatal(err)
			}
			if ours.SMILES != ref.SMILES {
				t.Fatalf("SMILES %s, Meeko %s", ours.SMILES, ref.SMILES)
			}
			ko, kr := keyLigand(t, ours), keyLigand(t, ref)
			for b := range kr.branches {
				if tc.hydratedBranches > 0 && (b[0] < 0 || b[1] < 0) {
					delete(kr.branches, b)
					kr.torsdof--
				}
			}
			if len(kr.branches) == 0 && tc.hydratedBranches == 0 {
				t.Fatal("no Meeko branches read")
			}
			if len(ko.types) != len(kr.types) {
				t.Errorf("%d atoms, Meeko %d", len(ko.types), len(kr.types))
			}
			maxDq := 0.0
			for key, typ := range kr.types {
				if ko.types[key] != typ {
					t.Errorf("atom %s: type %q, Meeko %q", key, ko.types[key], typ)
				}
				maxDq = math.Max(maxDq, math.Abs(ko.charges[key]-kr.charges[key]))
			}
			if maxDq > 0.001+1e-9 {
				t.Errorf("max charge difference %.4f > 0.001", maxDq)
			}
			if ko.torsdof != kr.torsdof {
				t.Errorf("TORSDOF %d, Meeko %d", ko.torsdof, kr.torsdof)
			}
			if len(ko.branches) != len(kr.branches) {
				t.Errorf("%d branches, Meeko %d", len(ko.branches), len(kr.branches))
			}
			for b := range kr.branches {
				if !ko.branches[b] {
					t.Errorf("Meeko's rotatable bond %v (SMILES indexes) missing", b)
				}
			}
			t.Logf("%d atoms, TORSDOF %d, max |dq| %.4f", len(ko.types), ko.torsdof, maxDq)
		})
	}
}

var vinaScore = regexp.MustCompile(`Estimated Free Energy of Binding\s*:\s*(-?[0-9.]+)`)

// TestPrepareLigandVinaScore: vina 1.2.3 scores our 1iep ligand on the
// crystal pose exactly as Meeko's file (README: -12.513 kcal/mol).
func TestPrepareLigandVinaScore(t *testing.T) {
	vina, err := exec.LookPath("vina")
	if err != nil {
		t.Skip("vina not installed (Debian autodock-vina)")
	}
	c := filepath.Join(corpus(t), "vina-examples", "1iep")
	s := sdfStructure(t, filepath.Join(c, "1iep_ligand.sdf"))
	out, err := PrepareLigand(s, LigandOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lig := filepath.Join(t.TempDir(), "lig.pdbqt")
	if err := os.WriteFile(lig, out, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(vina, "--receptor", filepath.Join(c, "1iep_receptor.pdbqt"), "--ligand", lig,
		"--score_only", "--autobox", "--cpu", "1")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vina: %v\n%s", err, b)
	}
	m := vinaScore.FindSubmatch(b)
	if m == nil {
		t.Fatalf("no score in vina output:\n%s", b)
	}
	if got := string(m[1]); got != "-12.513" && got != "-12.51" {
		t.Errorf("score_only %s kcal/mol, want -12.513", got)
	}
}

// TestPrepareLigandRules checks the rotatable-bond rules of the README on
// small molecules (embedded from SMILES).
func TestPrepareLigandRules(t *testing.T) {
	tests := []struct {
		smiles  string
		torsdof int
		hd      int
		why     string
	}{
		{"CCCC", 1, 0, "butane: only the central bond (methyls are terminal)"},
		{"CCO", 1, 1, "ethanol: C-O rotates (OH is not terminal), methyl does not"},
		{"CC(=O)NC", 0, 1, "N-methylacetamide: amide rigid"},
		{"CN(C)C(=O)c1ccccc1", 1, 0, "N,N-dimethylbenzamide: symmetric tertiary amide rigid, ring bond rotates"},
		{"CCN(C)C(C)=O", 2, 0, "N-ethyl-N-methylacetamide: asymmetric tertiary amide rotates, plus N-C(ethyl)"},
		{"C1CCCCCCCCCCC1", 0, 0, "macrocycle rigid"},
		{"c1ccccc1-c1ccccc1", 1, 0, "biphenyl: the aryl-aryl single bond"},
		{"NC(=N)N", 0, 5, "guanidine: amidine-like bonds rigid"},
	}
	for _, tc := range tests {
		t.Run(tc.smiles, func(t *testing.T) {
			s := structureOf(t, chem.Input{Format: chem.FormatSMILES, Content: tc.smiles})
			out, err := PrepareLigand(s, LigandOptions{})
			if err != nil {
				t.Fatal(err)
			}
			m, err := pdbqt.ParseMolecule(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			hd := 0
			for _, a := range m.Atoms {
				if a.Type == "H" {
					t.Error("non-polar H written")
				}
				if a.Type == "HD" {
					hd++
				}
			}
			if m.TorsDOF != tc.torsdof || len(m.Branches()) != tc.torsdof || hd != tc.hd {
				t.Errorf("%s: TORSDOF %d, %d branches, %d HD; want %d, %d", tc.why, m.TorsDOF, len(m.Branches()), hd, tc.torsdof, tc.hd)
			}
			var q float64
			for _, a := range m.Atoms {
				q += a.Charge
			}
			if math.Abs(q) > 0.002*float64(len(m.Atoms)) {
				t.Errorf("charges sum to %.3f", q)
			}
		})
	}
}

// TestPrepareLigandErrors: unusable structures are ErrInvalidLigand.
func TestPrepareLigandErrors(t *testing.T) {
	se := structureOf(t, chem.Input{Format: chem.FormatSMILES, Content: "C[Se]C", NoNormalize: true})
	two := &chem.Structure{SMILES: "C.C", Atoms: []chem.StructureAtom{{Element: "C", AtomicNum: 6, SMILESIndex: 1}, {Element: "C", AtomicNum: 6, SMILESIndex: 2}}}
	for name, s := range map[string]*chem.Structure{"nil": nil, "selenium": se, "two fragments": two, "empty": {}} {
		if _, err := PrepareLigand(s, LigandOptions{}); !errors.Is(err, ErrInvalidLigand) {
			t.Errorf("%s: error %v, want ErrInvalidLigand", name, err)
		}
	}
}
