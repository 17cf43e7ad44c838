package features_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/features"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

var parsers = qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}}

func parse(t *testing.T, rel string) *qm.Calculation {
	t.Helper()
	c, err := parsers.Parse(bytes.NewReader(qmtest.Read(t, rel)), "")
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return c
}

func corpusLogs(t *testing.T) []string {
	var logs []string
	for _, dir := range []string{"gaussian", "orca", "psi4"} {
		logs = append(logs, qmtest.Logs(t, dir)...)
	}
	return logs
}

func TestList(t *testing.T) {
	names, units, list := features.Names(), features.Units(), features.List()
	if len(names) != len(units) || len(names) != len(list) {
		t.Fatalf("%d names, %d units, %d features", len(names), len(units), len(list))
	}
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" || seen[n] || n == "id" {
			t.Errorf("feature %d: bad or duplicate name %q", i, n)
		}
		seen[n] = true
		if units[i] == "" || list[i].Description == "" {
			t.Errorf("feature %s: no unit or description", n)
		}
	}
	if names[len(names)-1] != fmt.Sprintf("coulomb_eig_%02d", features.CoulombSize) {
		t.Errorf("last feature %s", names[len(names)-1])
	}
	v := features.FromRecord(nil)
	if len(v) != len(names) {
		t.Fatalf("vector of %d values", len(v))
	}
	for i, x := range v {
		if !math.IsNaN(x) {
			t.Errorf("nil record: %s = %v, want missing", names[i], x)
		}
	}
	// The list is a copy.
	features.Names()[0] = "changed"
	if features.Names()[0] == "changed" {
		t.Error("Names shares its slice")
	}
}

// within compares with an absolute tolerance.
func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestCorpusAgainstCclib computes the features of every Gaussian, ORCA and
// Psi4 corpus log and compares them with cclib master's values
// (cclib_reference_head.json): HOMO/LUMO (the frontier over both spins of
// cclib's per-spin values), SCF energy, atoms, charge, multiplicity,
// frequency count and maximum, ZPE, H, G, dipole.
func TestCorpusAgainstCclib(t *testing.T) {
	refs := qmtest.References(t)
	compared := map[string]int{}
	for _, rel := range corpusLogs(t) {
		r, ok := refs[rel]
		if !ok {
			t.Errorf("%s: no cclib reference", rel)
			continue
		}
		v := features.FromCalculation(parse(t, rel))
		check := func(name string, want *float64, tol float64) {
			got, ok := v.Get(name)
			switch {
			case want == nil && !ok:
				return
			case want == nil:
				// cclib has no value; ours is extra (e.g. cclib drops some fields
				// for failed runs). Not an error, not a comparison.
				return
			case !ok:
				t.Errorf("%s: %s missing, cclib %v", rel, name, *want)
			case !within(got, *want, tol):
				t.Errorf("%s: %s = %.10g, cclib %.10g", rel, name, got, *want)
			default:
				compared[name]++
			}
		}
		fp := func(x float64) *float64 { return &x }
		ip := func(p *int) *float64 {
			if p == nil {
				return nil
			}
			return fp(float64(*p))
		}
		// Frontier orbitals: cclib gives Eh per spin (from its eV with its
		// own constant); ours are eV with CODATA 2018: compare in Eh, with
		// the parsers' tolerance (cclib reads ORCA's 4-decimal eV column).
		if len(r.HomoEh) > 0 && len(r.LumoEh) > 0 {
			homo, lumo := math.Inf(-1), math.Inf(1)
			for _, h := range r.HomoEh {
				homo = math.Max(homo, h)
			}
			for _, l := range r.LumoEh {
				lumo = math.Min(lumo, l)
			}
			for _, c := range []struct {
				name string
				want float64
				tol  float64
			}{{"homo_ev", homo, qmtest.TolOrbital}, {"lumo_ev", lumo, qmtest.TolOrbital}, {"gap_ev", lumo - homo, 2 * qmtest.TolOrbital}} {
				got, ok := v.Get(c.name)
				if !ok || !within(got/qm.HartreeToEV, c.want, c.tol) {
					t.Errorf("%s: %s = %v eV (%v Eh), cclib %v Eh", rel, c.name, got, got/qm.HartreeToEV, c.want)
				} else {
					compared[c.name]++
				}
			}
		}
		check("scf_energy_hartree", r.SCFLastEh, qmtest.TolEnergy)
		check("natoms", ip(r.NAtom), 0)
		check("charge_e", ip(r.Charge), 0)
		check("multiplicity", ip(r.Mult), 0)
		if r.NVib != nil && *r.NVib > 0 {
			check("freq_count", ip(r.NVib), 0)
			check("freq_max_cm1", r.VibMax, qmtest.TolFreq)
		}
		check("zpe_hartree", r.ZPVE, qmtest.TolEnergy)
		check("enthalpy_hartree", r.Enthalpy, qmtest.TolEnergy)
		check("gibbs_hartree", r.FreeEnergy, qmtest.TolEnergy)
		if r.DipoleTotal != nil {
			check("dipole_debye", r.DipoleTotal, qmtest.TolDipole)
		}
	}
	keys := make([]string, 0, len(compared))
	for k := range compared {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, compared[k])
	}
	t.Logf("values equal to cclib master's:%s", b.String())
	if compared["homo_ev"] < 35 {
		t.Errorf("HOMO compared for only %d logs", compared["homo_ev"])
	}
}

// TestDerived checks the features derived from others on one log:
// per-atom energy, U0, Koopmans estimates, element counts, formula.
func TestDerived(t *testing.T) {
	c := parse(t, "gaussian/basicGaussian16/dvb_ir.out")
	v := features.FromCalculation(c)
	get := func(n string) float64 {
		x, ok := v.Get(n)
		if !ok {
			t.Fatalf("%s missing", n)
		}
		return x
	}
	scf, _ := c.FinalEnergy()
	for _, tc := range []struct {
		name string
		want float64
	}{
		{"natoms", 20}, {"heavy_atoms", 10}, {"count_C", 10}, {"count_H", 10}, {"count_O", 0},
		{"energy_per_atom_hartree", scf / 20},
		{"u0_hartree", scf + *c.Thermo.ZPE},
		{"ip_koopmans_ev", -get("homo_ev")},
		{"ea_koopmans_ev", -get("lumo_ev")},
		{"electronegativity_ev", -(get("homo_ev") + get("lumo_ev")) / 2},
		{"hardness_ev", (get("lumo_ev") - get("homo_ev")) / 2},
		{"freq_count", 54}, {"freq_imaginary_count", 0},
		{"normal_termination", 1},
		{"rot_a_ghz", c.RotationalConstants[0]},
	} {
		if got := get(tc.name); !within(got, tc.want, 1e-12*math.Max(1, math.Abs(tc.want))) {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
	chi, eta := get("electronegativity_ev"), get("hardness_ev")
	if got := get("electrophilicity_ev"); !within(got, chi*chi/(2*eta), 1e-12) {
		t.Errorf("electrophilicity %v", got)
	}
	// A single point has no frequencies and no optimisation: null, not 0.
	sp := features.FromCalculation(parse(t, "gaussian/basicGaussian16/dvb_sp.out"))
	for _, n := range []string{"freq_count", "freq_min_cm1", "zpe_hartree", "gibbs_hartree", "optimization_converged"} {
		if x, ok := sp.Get(n); ok {
			t.Errorf("single point: %s = %v, want missing", n, x)
		}
	}
}

// TestMolecularWeight compares with PubChem's published molecular weights
// (divinylbenzene C10H10 130.19, water 18.015, methane 16.043) and, where
// Debian's python3-rdkit is installed, with RDKit's Descriptors.MolWt.
func TestMolecularWeight(t *testing.T) {
	for _, tc := range []struct {
		rel     string
		pubchem float64
		smiles  string
	}{
		{"gaussian/basicGaussian16/dvb_gopt.out", 130.19, "C=Cc1ccc(C=C)cc1"},
		{"psi4/generated/water_hf_sto3g_sp_freq.out", 18.015, "O"},
		{"psi4/Psi4-1.2/ch4_hf_opt_freq.out", 16.043, "C"},
	} {
		mw, ok := features.FromCalculation(parse(t, tc.rel)).Get("molecular_weight_da")
		if !ok || !within(mw, tc.pubchem, 0.006) {
			t.Errorf("%s: MW %v, PubChem %v", tc.rel, mw, tc.pubchem)
		}
		out, err := exec.Command("/usr/bin/python3", "-c",
			"import sys; from rdkit import Chem; from rdkit.Chem import Descriptors; print(repr(Descriptors.MolWt(Chem.MolFromSmiles(sys.argv[1]))))", tc.smiles).Output()
		if err != nil {
			t.Logf("python3-rdkit not available (%v): RDKit comparison skipped", err)
			continue
		}
		want, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil {
			t.Fatal(err)
		}
		if !within(mw, want, 1e-9) {
			t.Errorf("%s: MW %v, RDKit %v", tc.rel, mw, want)
		}
	}
}

// TestCoulombDiatomic checks the eigenvalues against the closed form for a
// symmetric 2×2 matrix [[a, c], [c, b]]: (a+b)/2 ± sqrt(((a−b)/2)² + c²),
// with a = 0.5·Z1^2.4, b = 0.5·Z2^2.4, c = Z1·Z2/r (r in bohr).
func TestCoulombDiatomic(t *testing.T) {
	for _, tc := range []struct {
		e1, e2 string
		z1, z2 float64
		r      float64 // Å
	}{
		{"H", "H", 1, 1, 0.7414},
		{"H", "F", 1, 9, 0.9168},
		{"C", "O", 6, 8, 1.1283},
	} {
		g := []ontology.CalculationAtom{{Element: tc.e1}, {Element: tc.e2, Z: tc.r}}
		v := features.FromRecord(&ontology.CalculationRecord{Geometry: g})
		a, b := 0.5*math.Pow(tc.z1, 2.4), 0.5*math.Pow(tc.z2, 2.4)
		c := tc.z1 * tc.z2 / (tc.r / 0.529177210903)
		mid, rad := (a+b)/2, math.Sqrt((a-b)*(a-b)/4+c*c)
		want := []float64{mid + rad, mid - rad}
		sort.Slice(want, func(i, j int) bool { return math.Abs(want[i]) > math.Abs(want[j]) })
		for i := 0; i < features.CoulombSize; i++ {
			name := fmt.Sprintf("coulomb_eig_%02d", i+1)
			got, ok := v.Get(name)
			w := 0.0
			if i < 2 {
				w = want[i]
			}
			if !ok || !within(got, w, 1e-10*math.Max(1, math.Abs(w))) {
				t.Errorf("%s%s: %s = %v, want %v", tc.e1, tc.e2, name, got, w)
			}
		}
	}
}

// TestCoulombNumpy compares the eigenvalues for corpus geometries (water,
// CO2, methane, divinylbenzene) with numpy's LAPACK eigvalsh, run in
// Debian's python3 (python3-numpy, installed with python3-rdkit).
func TestCoulombNumpy(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skipf("numpy not available in /usr/bin/python3 (apt python3-numpy): %v", err)
	}
	const script = `
import json, sys, numpy as np
g = json.load(sys.stdin)
Z = {"H": 1, "C": 6, "N": 7, "O": 8}
n = len(g)
R = np.array([[a["x"], a["y"], a["z"]] for a in g]) / 0.529177210903
z = np.array([Z[a["element"]] for a in g], dtype=float)
M = np.zeros((n, n))
for i in range(n):
    for j in range(n):
        M[i, j] = 0.5 * z[i] ** 2.4 if i == j else z[i] * z[j] / np.linalg.norm(R[i] - R[j])
w = np.linalg.eigvalsh(M)
w = sorted(w, key=lambda x: -abs(x))
print(json.dumps([float(x) for x in w]))
`
	for _, rel := range []string{
		"psi4/generated/water_hf_sto3g_sp_freq.out",
		"orca/ORCA4.0/CO2_freqs.out",
		"psi4/Psi4-1.2/ch4_hf_opt_freq.out",
		"gaussian/basicGaussian16/dvb_gopt.out",
	} {
		rec := features.Record(parse(t, rel))
		in, _ := json.Marshal(rec.Geometry)
		cmd := exec.Command("/usr/bin/python3", "-c", script)
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: numpy: %v", rel, err)
		}
		var want []float64
		if err := json.Unmarshal(out, &want); err != nil {
			t.Fatal(err)
		}
		v := features.FromRecord(&rec)
		for i := 0; i < features.CoulombSize; i++ {
			w := 0.0
			if i < len(want) {
				w = want[i]
			}
			got, _ := v.Get(fmt.Sprintf("coulomb_eig_%02d", i+1))
			if !within(got, w, 1e-9*math.Max(1, math.Abs(w))) {
				t.Errorf("%s: eigenvalue %d = %v, numpy %v", rel, i+1, got, w)
			}
		}
	}
}

func TestCoulombInvalid(t *testing.T) {
	for name, g := range map[string][]ontology.CalculationAtom{
		"coincident atoms": {{Element: "H"}, {Element: "H"}},
		"unknown element":  {{Element: "Xx"}, {Element: "H", Z: 1}},
	} {
		v := features.FromRecord(&ontology.CalculationRecord{Geometry: g})
		if x, ok := v.Get("coulomb_eig_01"); ok {
			t.Errorf("%s: coulomb_eig_01 = %v, want missing", name, x)
		}
	}
	if _, ok := features.CoulombMatrix([]ontology.CalculationAtom{{Element: "Q"}}); ok {
		t.Error("CoulombMatrix accepted element Q")
	}
}

func sampleRows(t *testing.T) ([]string, []features.Vector) {
	ids := []string{"calc-water", "calc-dvb-sp", "calc,with \"quotes\""}
	rels := []string{"psi4/generated/water_hf_sto3g_sp_freq.out", "gaussian/basicGaussian16/dvb_sp.out", "orca/ORCA3.0/stopiter_orca_scf_compact.out"}
	var vs []features.Vector
	for _, rel := range rels {
		vs = append(vs, features.FromCalculation(parse(t, rel)))
	}
	return ids, vs
}

// TestCSV writes a table and reads it back with encoding/csv: header, ids,
// every value exact, missing values as empty cells.
func TestCSV(t *testing.T) {
	ids, vs := sampleRows(t)
	var buf bytes.Buffer
	w, err := features.NewWriter(&buf, features.CSV)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		if err := w.Write(ids[i], vs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	names := features.Names()
	if len(rows) != len(ids)+1 || rows[0][0] != "id" || strings.Join(rows[0][1:], ",") != strings.Join(names, ",") {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	missing := 0
	for i, row := range rows[1:] {
		if row[0] != ids[i] {
			t.Errorf("row %d id %q", i, row[0])
		}
		for j, cell := range row[1:] {
			want := vs[i][j]
			if math.IsNaN(want) {
				missing++
				if cell != "" {
					t.Errorf("row %d %s: %q, want empty", i, names[j], cell)
				}
				continue
			}
			got, err := strconv.ParseFloat(cell, 64)
			if err != nil || got != want {
				t.Errorf("row %d %s: %q, want %v", i, names[j], cell, want)
			}
		}
	}
	if missing == 0 {
		t.Error("no missing values in the sample (the killed ORCA run has no frequencies)")
	}
	// Python's csv module, as pandas' reader, must see the same table.
	script := `import csv, sys
rows = list(csv.reader(sys.stdin))
for r in rows[1:]:
    [float(x) for x in r[1:] if x != ""]
print(len(rows), len(rows[0]), rows[3][0])`
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Stdin = bytes.NewReader(buf.Bytes())
	if out, err := cmd.Output(); err != nil {
		t.Logf("python3 not available: %v", err)
	} else if got, want := strings.TrimSpace(string(out)), fmt.Sprintf("%d %d %s", len(ids)+1, len(names)+1, ids[2]); got != want {
		t.Errorf("python csv: %q, want %q", got, want)
	}

	// No rows: still a header.
	buf.Reset()
	w, _ = features.NewWriter(&buf, features.CSV)
	if err := w.Close(); err != nil || !strings.HasPrefix(buf.String(), "id,natoms,") {
		t.Errorf("empty table: %q, %v", buf.String(), err)
	}
}

func TestJSONLines(t *testing.T) {
	ids, vs := sampleRows(t)
	var buf bytes.Buffer
	w, err := features.NewWriter(&buf, features.JSONLines)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		if err := w.Write(ids[i], vs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(ids) {
		t.Fatalf("%d lines", len(lines))
	}
	names := features.Names()
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if m["id"] != ids[i] || len(m) != len(names)+1 {
			t.Errorf("line %d: id %v, %d keys", i, m["id"], len(m))
		}
		for j, n := range names {
			got, present := m[n]
			want := vs[i][j]
			switch {
			case !present:
				t.Errorf("line %d: no %s", i, n)
			case math.IsNaN(want) && got != nil:
				t.Errorf("line %d %s: %v, want null", i, n, got)
			case !math.IsNaN(want) && got != want:
				t.Errorf("line %d %s: %v, want %v", i, n, got, want)
			}
		}
	}
	// One vector as an ordered JSON object.
	b, err := json.Marshal(vs[2])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`{"natoms":`)) || !bytes.Contains(b, []byte(`"freq_count":null`)) {
		t.Errorf("vector JSON %s", b[:80])
	}
}

func TestWriterErrors(t *testing.T) {
	for _, name := range []string{"csv", "CSV", "jsonl", "ndjson", "jsonlines"} {
		if _, err := features.ParseFormat(name); err != nil {
			t.Errorf("ParseFormat(%q): %v", name, err)
		}
	}
	for _, name := range []string{"", "xlsx", "json"} {
		if _, err := features.ParseFormat(name); !errors.Is(err, features.ErrUnknownFormat) {
			t.Errorf("ParseFormat(%q): %v, want ErrUnknownFormat", name, err)
		}
	}
	if _, err := features.NewWriter(&bytes.Buffer{}, features.Format(9)); !errors.Is(err, features.ErrUnknownFormat) {
		t.Errorf("NewWriter(9): %v", err)
	}
	w, _ := features.NewWriter(&bytes.Buffer{}, features.JSONLines)
	if err := w.Write("x", features.Vector{1, 2}); !errors.Is(err, features.ErrVectorLength) {
		t.Errorf("short vector: %v", err)
	}
	if _, err := json.Marshal(features.Vector{1}); !errors.Is(err, features.ErrVectorLength) {
		t.Errorf("short vector JSON: %v", err)
	}
	_ = w.Close()
	if err := w.Write("x", features.FromRecord(nil)); !errors.Is(err, features.ErrClosed) {
		t.Errorf("write after close: %v", err)
	}
}

// TestCorrelatedFeature: correlated_energy_hartree is the total energy at
// the level of theory ("CCSD(T)= -0.75017760422D+02" of cclib's Gaussian
// 16 water CCSD(T) log; MP4(SDTQ) "UMP4(SDTQ)= -0.75016068053D+02" for a
// route's "MP4"), null for a DFT calculation.
func TestCorrelatedFeature(t *testing.T) {
	for file, want := range map[string]float64{"cclib_G16_water_ccsdt.log": -75.017760422, "cclib_G16_water_mp4.log": -75.016068053} {
		data, err := os.ReadFile(filepath.Join("..", "parsers", "gaussian", "testdata", "cclib", file))
		if err != nil {
			t.Fatal(err)
		}
		c, err := parsers.Parse(bytes.NewReader(data), "")
		if err != nil {
			t.Fatal(err)
		}
		if x, ok := features.FromCalculation(c).Get("correlated_energy_hartree"); !ok || x != want {
			t.Errorf("%s: correlated_energy_hartree %v %v, want %v", file, x, ok, want)
		}
	}
	if x, ok := features.FromCalculation(parse(t, "gaussian/basicGaussian16/dvb_sp.out")).Get("correlated_energy_hartree"); ok {
		t.Errorf("B3LYP: correlated_energy_hartree %v", x)
	}
}
