package docking

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// sdfRecord is the first record of a V2000 SD file: atoms and bonds.
type sdfRecord struct {
	atoms []Atom3D
	bonds [][2]int // 0-based
}

// readSDF reads the first V2000 record (test helper: the production SDF
// reader is chem's RDKit).
func readSDF(t *testing.T, b []byte) sdfRecord {
	t.Helper()
	lines := strings.Split(string(b), "\n")
	counts := lines[3]
	na, _ := strconv.Atoi(strings.TrimSpace(counts[0:3]))
	nb, _ := strconv.Atoi(strings.TrimSpace(counts[3:6]))
	var r sdfRecord
	for i := 0; i < na; i++ {
		l := lines[4+i]
		x, _ := strconv.ParseFloat(strings.TrimSpace(l[0:10]), 64)
		y, _ := strconv.ParseFloat(strings.TrimSpace(l[10:20]), 64)
		z, _ := strconv.ParseFloat(strings.TrimSpace(l[20:30]), 64)
		r.atoms = append(r.atoms, Atom3D{Element: strings.TrimSpace(l[31:34]), X: x, Y: y, Z: z})
	}
	for i := 0; i < nb; i++ {
		l := lines[4+na+i]
		a, _ := strconv.Atoi(strings.TrimSpace(l[0:3]))
		c, _ := strconv.Atoi(strings.TrimSpace(l[3:6]))
		r.bonds = append(r.bonds, [2]int{a - 1, c - 1})
	}
	if len(r.atoms) != na || na == 0 {
		t.Fatalf("bad SDF")
	}
	return r
}

func heavyOf(r sdfRecord) []Atom3D {
	var out []Atom3D
	for _, a := range r.atoms {
		if a.Element != "H" {
			out = append(out, a)
		}
	}
	return out
}

func parseModels(t testing.TB, b []byte) []*pdbqt.Model {
	t.Helper()
	ms, err := pdbqt.ParseBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestRMSDAgainstCrystal: the corpus README records that the top pose of
// the vina 1.2.3 run (exh 8, seed 42) is 0.353 Å from the crystal imatinib
// (symmetry-aware, no fitting; obrms and RDKit CalcRMS agree; 0.90 Å with
// a fixed atom order because a phenyl ring flipped). Modes 3 and 4 are the
// flipped end-to-end poses (~12 Å).
func TestRMSDAgainstCrystal(t *testing.T) {
	crystal := heavyOf(readSDF(t, readCorpus(t, "vina-examples/1iep/1iep_ligand.sdf")))
	ms := parseModels(t, readCorpus(t, "derived/1iep_vina123_exh8_seed42_out.pdbqt"))
	got, err := RMSD(crystal, HeavyAtoms(ms[0].Molecules[0]))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-0.353) > 0.0015 {
		t.Errorf("top pose RMSD %.4f Å, want 0.353 (obrms, RDKit)", got)
	}
	t.Logf("top pose RMSD to crystal: %.4f Å", got)
	for i, md := range ms {
		r, err := RMSD(crystal, HeavyAtoms(md.Molecules[0]))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("mode %d: %.3f Å", i+1, r)
		if (i == 2 || i == 3) != (r > 10) {
			t.Errorf("mode %d RMSD %.2f Å (modes 3 and 4 are the flipped ~12 Å poses)", i+1, r)
		}
	}
	// Identical poses give 0; a different molecule gives ErrRMSD.
	if r, err := RMSD(crystal, crystal); err != nil || r != 0 {
		t.Errorf("self RMSD %v, %v", r, err)
	}
	if _, err := RMSD(crystal, crystal[:10]); !errors.Is(err, ErrRMSD) {
		t.Errorf("size mismatch: %v", err)
	}
	other := append([]Atom3D(nil), crystal...)
	other[0].Element = "S"
	if _, err := RMSD(crystal, other); !errors.Is(err, ErrRMSD) {
		t.Errorf("element mismatch: %v", err)
	}
}

// TestPoseReassembly maps every model of the corpus Vina run through the
// REMARK SMILES IDX / H PARENT lines and compares with the SDF the corpus
// prototype reassembled from the same file by Meeko's method (RDKit;
// derived/1iep_vina123_exh8_seed42_reassembled.sdf): heavy atom i of the
// SDF is SMILES atom i, and each polar H of the SDF sits on its parent at
// the docked HD position.
func TestPoseReassembly(t *testing.T) {
	out := readCorpus(t, "derived/1iep_vina123_exh8_seed42_out.pdbqt")
	modes, err := ParseModes(out)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := NewPoseMap(modes[0].Model.Molecules[0])
	if err != nil {
		t.Fatal(err)
	}
	poses, err := pm.Poses(modes)
	if err != nil {
		t.Fatal(err)
	}
	sdf := readCorpus(t, "derived/1iep_vina123_exh8_seed42_reassembled.sdf")
	recs := bytes.Split(sdf, []byte("$$$$\n"))
	if len(poses) != 5 || len(recs) < 5 {
		t.Fatalf("%d poses, %d SDF records", len(poses), len(recs))
	}
	for k, p := range poses {
		ref := readSDF(t, recs[k])
		heavy := heavyOf(ref)
		if len(p.Coords) != len(heavy) || len(heavy) != 37 {
			t.Fatalf("pose %d: %d SMILES atoms mapped, SDF has %d heavy atoms", k+1, len(p.Coords), len(heavy))
		}
		for i, c := range p.Coords {
			if !p.Placed[i] {
				t.Fatalf("pose %d: SMILES atom %d not placed", k+1, i+1)
			}
			a := ref.atoms[i]
			if math.Abs(a.X-c[0]) > 6e-4 || math.Abs(a.Y-c[1]) > 6e-4 || math.Abs(a.Z-c[2]) > 6e-4 {
				t.Errorf("pose %d atom %d at %v, SDF %v", k+1, i+1, c, a)
			}
		}
		if len(p.PolarH) != 3 {
			t.Fatalf("pose %d: %d polar H, want 3", k+1, len(p.PolarH))
		}
		for _, h := range p.PolarH {
			found := false
			for _, b := range ref.bonds {
				for s := 0; s < 2; s++ {
					par, hyd := b[s], b[1-s]
					a := ref.atoms[hyd]
					if par == h.Parent && a.Element == "H" &&
						math.Abs(a.X-h.Pos[0]) < 6e-4 && math.Abs(a.Y-h.Pos[1]) < 6e-4 && math.Abs(a.Z-h.Pos[2]) < 6e-4 {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("pose %d: polar H on SMILES atom %d at %v not in the SDF", k+1, h.Parent+1, h.Pos)
			}
		}
	}
}

// TestPoseMapMeekoFiles: every Meeko ligand of the corpus maps all heavy
// atoms and all polar H; files without the remarks give ErrMapping.
func TestPoseMapMeekoFiles(t *testing.T) {
	for _, tc := range []struct {
		file  string
		heavy int
		err   bool
	}{
		{"vina-examples/1iep/1iep_ligand.pdbqt", 37, false},
		{"vina-examples/5x72/5x72_ligand_p59.pdbqt", 24, false},
		{"vina-examples/5x72/5x72_ligand_p69.pdbqt", 24, false},
		{"derived/1iep_ligand_cleanroom_meeko_rules.pdbqt", 37, false},
		{"vina-examples/1iep/1iep_ligand_legacy_adt.pdbqt", 0, true},
		{"derived/1iep_ligand_obabel_tree.pdbqt", 0, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m := parseModels(t, readCorpus(t, tc.file))[0].Molecules[0]
			pm, err := NewPoseMap(m)
			if tc.err {
				if !errors.Is(err, ErrMapping) {
					t.Fatalf("err %v, want ErrMapping", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := pm.Pose(m)
			if err != nil {
				t.Fatal(err)
			}
			placed := 0
			for _, ok := range p.Placed {
				if ok {
					placed++
				}
			}
			if placed != tc.heavy || len(p.Coords) != tc.heavy {
				t.Errorf("placed %d of %d, want %d", placed, len(p.Coords), tc.heavy)
			}
			hd := 0
			for _, a := range m.Atoms {
				if a.Type == "HD" {
					hd++
				}
			}
			if len(p.PolarH) != hd {
				t.Errorf("%d polar H mapped, %d HD atoms", len(p.PolarH), hd)
			}
		})
	}
	// A model missing a mapped atom.
	m := parseModels(t, readCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt"))[0].Molecules[0]
	pm, _ := NewPoseMap(m)
	cut := *m
	cut.Atoms = m.Atoms[:10]
	if _, err := pm.Pose(&cut); !errors.Is(err, ErrMapping) {
		t.Errorf("truncated model: %v", err)
	}
}

// TestPoseTags: the tags of mode 2 of the corpus run carry the file's values.
func TestPoseTags(t *testing.T) {
	modes, err := ParseModes(readCorpus(t, "derived/1iep_vina123_exh8_seed42_out.pdbqt"))
	if err != nil {
		t.Fatal(err)
	}
	got := PoseTags(modes[1], "rec-1", "dock-1")
	want := []Tag{{"affinity_kcal", "-11.400"}, {"mode", "2"}, {"rmsd_lb", "1.295"}, {"rmsd_ub", "1.738"},
		{"inter_kcal", modes[1].Model.Remarks[2][len("INTER:"):]}, {"intra_kcal", ""}, {"receptor", "rec-1"}, {"job", "dock-1"}}
	for i := range want {
		w := strings.TrimSpace(want[i].Value)
		if i == 5 {
			w = strings.TrimSpace(modes[1].Model.Remarks[3][len("INTRA:"):])
		}
		if got[i].Name != want[i].Name || got[i].Value != w {
			t.Errorf("tag %d = %v, want %s %s", i, got[i], want[i].Name, w)
		}
	}
	if n := len(PoseTags(modes[0], "", "")); n != 6 {
		t.Errorf("%d tags without receptor/job", n)
	}
}
