package docking

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/chem"
)

func dist3(a, b [3]float64) float64 { return math.Sqrt(dot3(sub3(a, b), sub3(a, b))) }

// TestPoseSDF1iep reassembles the 5 modes of the corpus Vina run (vina
// 1.2.3, exh 8, seed 42, Meeko's input ligand) on the structure of the
// registered crystal imatinib, and compares with the corpus SDF that the
// README's reference method (Meeko mk_export: AddHs with coordinates)
// produced: heavy atoms within 1e-3 A, polar H within 1e-3 A, other
// hydrogens within 0.15 A (CH, CH2) or 1.0 A (methyl) of the nearest
// reference hydrogen of the same parent (a different method: ours keeps the
// crystal H geometry, the reference puts RDKit's ideal H, so methyl
// rotations differ), X-H bond lengths 0.95-1.15 A. RDKit reads each record back to the registered SMILES and
// InChIKey.
func TestPoseSDF1iep(t *testing.T) {
	c := corpus(t)
	sdfIn, err := os.ReadFile(filepath.Join(c, "vina-examples", "1iep", "1iep_ligand.sdf"))
	if err != nil {
		t.Fatal(err)
	}
	in := chem.Input{Format: chem.FormatMolfile, Content: string(sdfIn), NoNormalize: true}
	s := structureOf(t, in)
	reg, err := chemPool(t).Process(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(c, "derived", "1iep_vina123_exh8_seed42_out.pdbqt"))
	if err != nil {
		t.Fatal(err)
	}
	modes, err := ParseModes(out)
	if err != nil {
		t.Fatal(err)
	}
	refB, err := os.ReadFile(filepath.Join(c, "derived", "1iep_vina123_exh8_seed42_reassembled.sdf"))
	if err != nil {
		t.Fatal(err)
	}
	refs := strings.Split(string(refB), "$$$$\n")
	if len(modes) != 5 || len(refs) < 5 {
		t.Fatalf("%d modes, %d reference records; want 5", len(modes), len(refs))
	}
	pm, err := NewPoseMap(modes[0].Model.Ligands()[0])
	if err != nil {
		t.Fatal(err)
	}
	poses, err := pm.Poses(modes)
	if err != nil {
		t.Fatal(err)
	}
	nb := s.Neighbors()
	var maxHeavy, maxPolar, maxH, maxMethyl float64
	for k, pose := range poses {
		rec, err := PoseSDF(s, pose, "imatinib", PoseTags(modes[k], "rec1", "job1"))
		if err != nil {
			t.Fatal(err)
		}
		ours := readSDF(t, rec)
		ref := readSDF(t, []byte(refs[k]))
		if len(ours.atoms) != 69 || len(ref.atoms) != 69 {
			t.Fatalf("mode %d: %d atoms, reference %d", k+1, len(ours.atoms), len(ref.atoms))
		}
		p := func(a Atom3D) [3]float64 { return [3]float64{a.X, a.Y, a.Z} }
		// reference: heavy atom j is SMILES atom j+1; its H from the bonds
		refH := map[int][][3]float64{}
		for _, bd := range ref.bonds {
			for _, e := range [][2]int{{bd[0], bd[1]}, {bd[1], bd[0]}} {
				if ref.atoms[e[1]].Element == "H" && ref.atoms[e[0]].Element != "H" {
					refH[e[0]] = append(refH[e[0]], p(ref.atoms[e[1]]))
				}
			}
		}
		for i, a := range s.Atoms {
			if a.SMILESIndex > 0 {
				r := ref.atoms[a.SMILESIndex-1]
				if r.Element != a.Element {
					t.Fatalf("atom %d: %s, reference %s", i, a.Element, r.Element)
				}
				maxHeavy = math.Max(maxHeavy, dist3(p(ours.atoms[i]), p(r)))
				continue
			}
			par := nb[i][0]
			cands := refH[s.Atoms[par].SMILESIndex-1]
			best := math.Inf(1)
			for _, q := range cands {
				best = math.Min(best, dist3(p(ours.atoms[i]), q))
			}
			switch s.Atoms[par].AtomicNum {
			case 7, 8:
				maxPolar = math.Max(maxPolar, best)
			default:
				if s.Atoms[par].NumHs == 3 {
					maxMethyl = math.Max(maxMethyl, best)
				} else {
					maxH = math.Max(maxH, best)
				}
			}
			d := dist3(p(ours.atoms[i]), p(ours.atoms[par]))
			if d < 0.95 || d > 1.15 {
				t.Errorf("mode %d: X-H bond %d-%d is %.3f A", k+1, par, i, d)
			}
		}
		got, err := chemPool(t).Process(context.Background(), chem.Input{Format: chem.FormatMolfile, Content: string(rec), NoNormalize: true})
		if err != nil {
			t.Fatalf("mode %d: RDKit cannot read our SDF: %v\n%s", k+1, err, rec)
		}
		if got.SMILES != reg.SMILES || got.InChIKey != reg.InChIKey {
			t.Errorf("mode %d: read back as %s %s, registered %s %s", k+1, got.SMILES, got.InChIKey, reg.SMILES, reg.InChIKey)
		}
		if !strings.Contains(string(rec), "> <affinity_kcal>\n"+PoseTags(modes[k], "", "")[0].Value+"\n") ||
			!strings.Contains(string(rec), "> <receptor>\nrec1\n") {
			t.Errorf("mode %d: tags missing", k+1)
		}
	}
	t.Logf("max deviation from the reference SDF: heavy %.4f A, polar H %.4f A, CH/CH2 H %.3f A, methyl H %.3f A", maxHeavy, maxPolar, maxH, maxMethyl)
	if maxHeavy > 1e-3 || maxPolar > 1e-3 {
		t.Errorf("heavy %.4f A, polar H %.4f A; want <= 0.001", maxHeavy, maxPolar)
	}
	if maxH > 0.15 || maxMethyl > 1.0 {
		t.Errorf("CH/CH2 H %.3f A, methyl H %.3f A from the reference; want <= 0.15 and <= 1.0", maxH, maxMethyl)
	}
}

// TestPoseSDFErrors: a pose of another molecule or an incomplete pose is
// ErrMapping.
func TestPoseSDFErrors(t *testing.T) {
	s := structureOf(t, chem.Input{Format: chem.FormatSMILES, Content: "CCO"})
	for name, p := range map[string]*Pose{
		"nil":         nil,
		"other":       {SMILES: "CCN"},
		"not placed":  {SMILES: s.SMILES, Coords: make([][3]float64, 3), Placed: make([]bool, 3)},
		"short":       {SMILES: s.SMILES},
		"extra polar": {SMILES: s.SMILES, Coords: make([][3]float64, 3), Placed: []bool{true, true, true}, PolarH: []PolarH{{Parent: 2}, {Parent: 2}}},
	} {
		if _, err := PoseSDF(s, p, "x", nil); !errors.Is(err, ErrMapping) {
			t.Errorf("%s: error %v, want ErrMapping", name, err)
		}
	}
}
