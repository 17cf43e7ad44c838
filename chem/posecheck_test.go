package chem

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// Reference values of the pose-check tests come from RDKit's Python API
// (python3-rdkit 2022.09.3), computed by testdata/posecheck_reference.py
// with PoseBusters' definitions: GetMoleculeBoundsMatrix(set15bounds,
// scaleVDW, triangle smoothing, no macrocycle 1-4), heavy-atom pairs; the
// UFF energy with the hydrogens minimised (heavy atoms fixed) over the mean
// of 10 ETKDGv3 conformers (seeds 42..51, random coordinates) minimised 200
// UFF iterations.

func corpus1iep(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedDir(t), "docking-corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// receptor1iep is the 1iep receptor's heavy atoms with RDKit's radii.
func receptor1iep(t testing.TB) []ReceptorAtom {
	t.Helper()
	m, err := pdbqt.ParseMolecule(strings.NewReader(string(corpus1iep(t, "vina-examples/1iep/1iep_receptor.pdbqt"))))
	if err != nil {
		t.Fatal(err)
	}
	var out []ReceptorAtom
	for _, a := range m.Atoms {
		el := a.Element()
		if el == "" || el == "H" {
			continue
		}
		r, ok := VdWRadius(el)
		if !ok {
			t.Fatalf("no radius for %s", el)
		}
		out = append(out, ReceptorAtom{a.X, a.Y, a.Z, r})
	}
	return out
}

func checksByName(cs []PoseCheck) map[string]PoseCheck {
	m := map[string]PoseCheck{}
	for _, c := range cs {
		m[c.Name] = c
	}
	return m
}

func passed(c PoseCheck) bool { return c.Pass != nil && *c.Pass }

func value(c PoseCheck) float64 {
	if c.Value == nil {
		return math.NaN()
	}
	return *c.Value
}

// editAtoms rewrites the coordinates of the V2000 atom lines of every
// record of sdf with f(atom index, element, x, y, z).
func editAtoms(t *testing.T, sdf string, f func(i int, el string, p [3]float64) [3]float64) string {
	t.Helper()
	ls := strings.Split(sdf, "\n")
	for k := 0; k < len(ls); k++ {
		if !strings.HasSuffix(strings.TrimRight(ls[k], "\r"), "V2000") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(ls[k][:3]))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			l := ls[k+1+i]
			var p [3]float64
			for d := 0; d < 3; d++ {
				if p[d], err = strconv.ParseFloat(strings.TrimSpace(l[10*d:10*d+10]), 64); err != nil {
					t.Fatal(err)
				}
			}
			el := strings.TrimSpace(l[31:34])
			q := f(i, el, p)
			ls[k+1+i] = fmt.Sprintf("%10.4f%10.4f%10.4f", q[0], q[1], q[2]) + l[30:]
		}
	}
	return strings.Join(ls, "\n")
}

// TestPoseReferenceAhead: the energy reference built before the checks
// (PoseReference, as a docking job builds it while the ligand docks)
// gives the energy ratio RDKit Python gives for the crystal imatinib, and
// the checks then build no ensemble; a reference of another molecule is
// refused.
func TestPoseReferenceAhead(t *testing.T) {
	ctx := context.Background()
	sdf := corpus1iep(t, "vina-examples/1iep/1iep_ligand.sdf")
	ref, err := testPool.PoseReference(ctx, sdf)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Micros() <= 0 {
		t.Errorf("reference CPU %v us", ref.Micros())
	}
	r, err := testPool.CheckPoses(ctx, imatinibH, sdf, receptor1iep(t), ref)
	if err != nil {
		t.Fatal(err)
	}
	m := checksByName(r.Poses[0])
	// python3-rdkit (testdata/posecheck_reference.py), as in
	// TestPoseChecksCrystalImatinib
	if got, want := value(m[CheckEnergyRatio]), 1.406103; math.Abs(got-want) > 1e-3*want {
		t.Errorf("energy ratio %v with the reference built ahead, RDKit Python %v", got, want)
	}
	if r.EnsembleMicros > 0.1*ref.Micros() {
		t.Errorf("checks spent %v us on an ensemble although given one (%v us)", r.EnsembleMicros, ref.Micros())
	}
	ibu, err := testPool.Structure(ctx, Input{Format: FormatSMILES, Content: "CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)O"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := testPool.PoseReference(ctx, []byte(structureSDF(t, ibu)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testPool.CheckPoses(ctx, imatinibH, sdf, nil, other); !errors.Is(err, ErrPoseCheckInput) {
		t.Errorf("imatinib poses with ibuprofen's reference: %v, want ErrPoseCheckInput", err)
	}
	if _, err := testPool.PoseReference(ctx, []byte("not a molfile")); !errors.Is(err, ErrPoseCheckInput) {
		t.Errorf("reference of garbage: %v, want ErrPoseCheckInput", err)
	}
}

// imatinibH is the crystal ligand of 1iep as RDKit writes it (protonated piperazine).
const imatinibH = "Cc1ccc(NC(=O)c2ccc(CN3CC[NH+](C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"

// TestPoseChecksCrystalImatinib: the 1iep crystal imatinib passes every
// check, and the values equal RDKit Python's.
func TestPoseChecksCrystalImatinib(t *testing.T) {
	sdf := corpus1iep(t, "vina-examples/1iep/1iep_ligand.sdf")
	r, err := testPool.CheckPoses(context.Background(), imatinibH, sdf, receptor1iep(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Poses) != 1 || len(r.Poses[0]) != len(PoseCheckSpecs()) {
		t.Fatalf("report %+v", r)
	}
	for _, c := range r.Poses[0] {
		if !passed(c) {
			t.Errorf("%s: pass %v value %v", c.Name, c.Pass, value(c))
		}
	}
	if !PoseValid(r.Poses[0]) {
		t.Error("crystal pose not valid")
	}
	m := checksByName(r.Poses[0])
	// python3-rdkit (testdata/posecheck_reference.py)
	for name, want := range map[string]float64{
		CheckBondLengths: 0.0566122, CheckBondAngles: 0.0621183, CheckInternalClash: 1.002505, CheckEnergyRatio: 1.406103,
	} {
		if got := value(m[name]); math.Abs(got-want) > 1e-3*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, RDKit Python %v", name, got, want)
		}
	}
	t.Logf("protein clash ratio %.3f, flatness %.3f / %v, CPU us: setup %.0f ensemble %.0f poses %.0f",
		value(m[CheckProteinClash]), value(m[CheckAromaticRingFlatness]), m[CheckDoubleBondFlatness].Value,
		r.SetupMicros, r.EnsembleMicros, r.PosesMicros)
}

// TestPoseChecksVinaPoses: the five Vina poses of 1iep (exhaustiveness 8,
// seed 42, reassembled) pass, with RDKit Python's values.
func TestPoseChecksVinaPoses(t *testing.T) {
	sdf := corpus1iep(t, "derived/1iep_vina123_exh8_seed42_reassembled.sdf")
	r, err := testPool.CheckPoses(context.Background(), imatinibH, sdf, receptor1iep(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Poses) != 5 {
		t.Fatalf("%d poses, want 5", len(r.Poses))
	}
	want := [][3]float64{ // bond, angle, energy ratio (python3-rdkit)
		{0.0566353, 0.0623745, 1.419235},
		{0.0567218, 0.0622941, 1.837387},
		{0.0561600, 0.0622238, 1.608741},
		{0.0564982, 0.0619059, 1.516340},
		{0.0565345, 0.0621726, 1.627291},
	}
	for k, cs := range r.Poses {
		if !PoseValid(cs) {
			t.Errorf("pose %d not valid: %+v", k+1, cs)
		}
		m := checksByName(cs)
		for i, name := range []string{CheckBondLengths, CheckBondAngles, CheckEnergyRatio} {
			if got := value(m[name]); math.Abs(got-want[k][i]) > 1e-3*math.Max(1, want[k][i]) {
				t.Errorf("pose %d %s = %v, RDKit Python %v", k+1, name, got, want[k][i])
			}
		}
	}
}

// TestPoseChecksPlantedDefects: each planted defect fails its check.
func TestPoseChecksPlantedDefects(t *testing.T) {
	crystal := string(corpus1iep(t, "vina-examples/1iep/1iep_ligand.sdf"))
	rec := receptor1iep(t)
	run := func(t *testing.T, smiles, sdf string, rec []ReceptorAtom) map[string]PoseCheck {
		t.Helper()
		r, err := testPool.CheckPoses(context.Background(), smiles, []byte(sdf), rec, nil)
		if err != nil {
			t.Fatal(err)
		}
		if PoseValid(r.Poses[0]) {
			t.Error("defective pose is valid")
		}
		return checksByName(r.Poses[0])
	}
	// Atoms 1, 2 and 3 of the crystal file are bonded carbons of the
	// pyridine ring (bonds 1-2 and 2-3).
	var a1, a2, a3 [3]float64
	editAtoms(t, crystal, func(i int, _ string, p [3]float64) [3]float64 {
		switch i {
		case 0:
			a1 = p
		case 1:
			a2 = p
		case 2:
			a3 = p
		}
		return p
	})
	t.Run("stretched bond", func(t *testing.T) {
		d := math.Sqrt(sq(a1[0]-a2[0]) + sq(a1[1]-a2[1]) + sq(a1[2]-a2[2]))
		f := 2.1 / d // aromatic C-C 1.4 A stretched to 2.1 A
		sdf := editAtoms(t, crystal, func(i int, _ string, p [3]float64) [3]float64 {
			if i != 0 {
				return p
			}
			return [3]float64{a2[0] + f*(a1[0]-a2[0]), a2[1] + f*(a1[1]-a2[1]), a2[2] + f*(a1[2]-a2[2])}
		})
		m := run(t, imatinibH, sdf, rec)
		if passed(m[CheckBondLengths]) || value(m[CheckBondLengths]) < 0.25 {
			t.Errorf("bond_lengths %+v", m[CheckBondLengths])
		}
	})
	t.Run("non-planar aromatic ring", func(t *testing.T) {
		// lift atom 2 by 0.6 A along the ring's normal
		u := [3]float64{a1[0] - a2[0], a1[1] - a2[1], a1[2] - a2[2]}
		w := [3]float64{a3[0] - a2[0], a3[1] - a2[1], a3[2] - a2[2]}
		n := [3]float64{u[1]*w[2] - u[2]*w[1], u[2]*w[0] - u[0]*w[2], u[0]*w[1] - u[1]*w[0]}
		l := math.Sqrt(sq(n[0]) + sq(n[1]) + sq(n[2]))
		sdf := editAtoms(t, crystal, func(i int, _ string, p [3]float64) [3]float64 {
			if i == 1 {
				for d := range 3 {
					p[d] += 0.6 * n[d] / l
				}
			}
			return p
		})
		m := run(t, imatinibH, sdf, rec)
		if passed(m[CheckAromaticRingFlatness]) || value(m[CheckAromaticRingFlatness]) <= 0.25 {
			t.Errorf("aromatic_ring_flatness %+v", m[CheckAromaticRingFlatness])
		}
	})
	t.Run("moved into the protein", func(t *testing.T) {
		// translate the ligand so that its atom 1 is 1.0 A from the nearest
		// receptor atom
		best, bi := math.Inf(1), 0
		for i, r := range rec {
			if d := sq(r.X-a1[0]) + sq(r.Y-a1[1]) + sq(r.Z-a1[2]); d < best {
				best, bi = d, i
			}
		}
		r := rec[bi]
		v := [3]float64{r.X - a1[0], r.Y - a1[1], r.Z - a1[2]}
		l := math.Sqrt(best)
		s := (l - 1.0) / l
		sdf := editAtoms(t, crystal, func(_ int, _ string, p [3]float64) [3]float64 {
			return [3]float64{p[0] + s*v[0], p[1] + s*v[1], p[2] + s*v[2]}
		})
		m := run(t, imatinibH, sdf, rec)
		if passed(m[CheckProteinClash]) || value(m[CheckProteinClash]) >= 0.75 {
			t.Errorf("protein_clash %+v", m[CheckProteinClash])
		}
		for _, name := range []string{CheckBondLengths, CheckBondAngles, CheckInternalClash, CheckStereo, CheckEnergyRatio} {
			if !passed(m[name]) {
				t.Errorf("%s failed on a rigidly moved pose", name)
			}
		}
	})
	t.Run("inverted stereocentre", func(t *testing.T) {
		s, err := os.ReadFile("testdata/posecheck_s_ibuprofen.sdf")
		if err != nil {
			t.Fatal(err)
		}
		const sIbuprofen = "CC(C)Cc1ccc([C@H](C)C(=O)O)cc1"
		r, err := testPool.CheckPoses(context.Background(), sIbuprofen, s, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m := checksByName(r.Poses[0]); !passed(m[CheckStereo]) {
			t.Fatalf("(S)-ibuprofen as embedded fails the stereo check: %+v", r.Poses[0])
		}
		// the mirror image: every distance kept, the stereocentre inverted
		mirror := editAtoms(t, string(s), func(_ int, _ string, p [3]float64) [3]float64 {
			return [3]float64{-p[0], p[1], p[2]}
		})
		m := run(t, sIbuprofen, mirror, nil)
		if passed(m[CheckStereo]) {
			t.Error("stereo check passed for the (R) mirror image")
		}
		for _, name := range []string{CheckBondLengths, CheckBondAngles, CheckInternalClash, CheckAromaticRingFlatness} {
			if !passed(m[name]) {
				t.Errorf("%s failed on a mirror image", name)
			}
		}
		if m[CheckProteinClash].Pass != nil {
			t.Error("protein check computed without a receptor")
		}
	})
}

func sq(x float64) float64 { return x * x }

// TestPoseChecksBadInput: input that is not poses of one molecule is an
// error, a ligand over the bound is refused before any work.
func TestPoseChecksBadInput(t *testing.T) {
	crystal := corpus1iep(t, "vina-examples/1iep/1iep_ligand.sdf")
	ibu, err := os.ReadFile("testdata/posecheck_s_ibuprofen.sdf")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		smiles, sdf string
	}{
		"empty":          {imatinibH, ""},
		"garbage":        {imatinibH, "not a molfile\n$$$$\n"},
		"bad smiles":     {"C1CC", string(crystal)},
		"two molecules":  {imatinibH, string(crystal) + string(ibu)},
		"too many poses": {imatinibH, strings.Repeat(string(crystal), MaxPoseCheckPoses+1)},
		"nul":            {imatinibH, "\x00" + string(crystal)},
		"2D":             {"CCO", "\n     RDKit          2D\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\n    1.5000    0.0000    0.0000 C   0  0\n    2.0000    1.0000    0.0000 O   0  0\n  1  2  1  0\n  2  3  1  0\nM  END\n$$$$\n"},
	} {
		if _, err := testPool.CheckPoses(context.Background(), c.smiles, []byte(c.sdf), nil, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// 101 carbons in a chain: over the heavy-atom bound
	var b strings.Builder
	n := MaxPoseCheckHeavyAtoms + 1
	fmt.Fprintf(&b, "\n  test            3D\n\n%3d%3d  0  0  0  0  0  0  0  0999 V2000\n", n, n-1)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%10.4f%10.4f%10.4f C   0  0  0  0  0  0  0  0  0  0  0  0\n", 1.25*float64(i), 0.4*float64(i%2), 0.1*float64(i%3))
	}
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "%3d%3d  1  0\n", i, i+1)
	}
	b.WriteString("M  END\n$$$$\n")
	if _, err := testPool.CheckPoses(context.Background(), strings.Repeat("C", n), []byte(b.String()), nil, nil); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("long chain: %v", err)
	}
}

// FuzzCheckPoses: no input crashes the checks; a report has every check
// of every pose.
func FuzzCheckPoses(f *testing.F) {
	ibu, err := os.ReadFile("testdata/posecheck_s_ibuprofen.sdf")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("CC(C)Cc1ccc([C@H](C)C(=O)O)cc1", string(ibu))
	f.Add("CCO", "x\n$$$$\n")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, smiles, sdf string) {
		if len(sdf) > 1<<16 {
			return
		}
		// Half the inputs go through PoseReference first (the reference
		// a docking job builds ahead), the others build it in the checks.
		var ref *PoseReference
		if len(sdf)%2 == 0 {
			var err error
			if ref, err = testPool.PoseReference(context.Background(), []byte(sdf)); err != nil {
				return
			}
		}
		r, err := testPool.CheckPoses(context.Background(), smiles, []byte(sdf), nil, ref)
		if err != nil {
			return
		}
		for _, cs := range r.Poses {
			if len(cs) != len(PoseCheckSpecs()) {
				t.Fatalf("%d checks", len(cs))
			}
		}
	})
}

// BenchmarkCheckPoses measures the CPU of the pose checks per ligand of
// the docking benchmark (docking-corpus/ligands/throughput6.smi): each
// ligand's embedded conformer checked as 9 poses (Vina's default
// num_modes) against the 1iep receptor. Reported: CPU ms per ligand of
// the setup (parse, bounds, patterns), the conformer ensemble and the 9
// poses, from the C++ thread's clock.
func BenchmarkCheckPoses(b *testing.B) {
	smi, err := os.ReadFile(filepath.Join(sharedDir(b), "docking-corpus", "ligands", "throughput6.smi"))
	if err != nil {
		b.Fatal(err)
	}
	rec := receptor1iep(b)
	for _, line := range strings.Split(strings.TrimSpace(string(smi)), "\n") {
		f := strings.Fields(line)
		s, err := testPool.Structure(context.Background(), Input{Format: FormatSMILES, Content: f[0]})
		if err != nil {
			b.Fatal(err)
		}
		sdf := structureSDF(b, s)
		b.Run(f[1], func(b *testing.B) {
			var setup, ens, poses float64
			for b.Loop() {
				r, err := testPool.CheckPoses(context.Background(), s.SMILES, []byte(strings.Repeat(sdf, 9)), rec, nil)
				if err != nil {
					b.Fatal(err)
				}
				setup, ens, poses = setup+r.SetupMicros, ens+r.EnsembleMicros, poses+r.PosesMicros
			}
			n := float64(b.N) * 1e3
			b.ReportMetric(setup/n, "setup-cpu-ms")
			b.ReportMetric(ens/n, "ensemble-cpu-ms")
			b.ReportMetric(poses/n, "9poses-cpu-ms")
			b.ReportMetric((setup+ens+poses)/n, "total-cpu-ms")
		})
	}
}

// structureSDF writes a Structure as a V2000 record.
func structureSDF(t testing.TB, s *Structure) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "x\n  test            3D\n\n%3d%3d  0  0  0  0  0  0  0  0999 V2000\n", len(s.Atoms), len(s.Bonds))
	for _, a := range s.Atoms {
		fmt.Fprintf(&b, "%10.4f%10.4f%10.4f %-3s 0  0  0  0  0  0  0  0  0  0  0  0\n", a.X, a.Y, a.Z, a.Element)
	}
	for _, bd := range s.Bonds {
		fmt.Fprintf(&b, "%3d%3d%3d  0\n", bd.Begin+1, bd.End+1, bd.Kekule)
	}
	for i, a := range s.Atoms {
		if a.FormalCharge != 0 {
			fmt.Fprintf(&b, "M  CHG  1 %3d %3d\n", i+1, a.FormalCharge)
		}
	}
	b.WriteString("M  END\n$$$$\n")
	return b.String()
}
