// Package qmtest is the shared test suite of the quantum-chemistry log
// parsers: it locates the corpus in ../shared/qm-corpus, compares a parser's
// output with cclib master's values (cclib_reference_head.json) and with
// the assertions of EXPECTED.md, keeps golden JSON files (-update), cuts
// every log at several points to check truncation tolerance, and provides
// fuzz seeds and benchmark inputs. It is imported only by tests.
package qmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/internal/sharedtest"

	"github.com/molgraph/molgraph/parsers/qm"
)

// Update rewrites golden files instead of comparing with them.
var Update = flag.Bool("update", false, "rewrite golden files of parsed output")

// ParseFunc is a program parser.
type ParseFunc func(io.Reader) (*qm.Calculation, error)

// CorpusDir returns the absolute path of ../shared/qm-corpus relative to
// the module root (the directory holding go.mod), failing the test if absent.
func CorpusDir(tb testing.TB) string {
	tb.Helper()
	c := filepath.Join(sharedtest.Root(tb), "qm-corpus")
	if _, err := os.Stat(filepath.Join(c, "cclib_reference_head.json")); err != nil {
		tb.Fatalf("qmtest: corpus not found at %s: %v", c, err)
	}
	return c
}

// Logs returns the corpus-relative paths of every log file of a program
// folder ("gaussian", "orca", "psi4", "nwchem", "xtb"), sorted.
func Logs(tb testing.TB, folder string) []string {
	tb.Helper()
	root := CorpusDir(tb)
	var out []string
	err := filepath.WalkDir(filepath.Join(root, folder), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if ext := filepath.Ext(p); ext == ".out" || ext == ".log" {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(out)
	if len(out) == 0 {
		tb.Fatalf("qmtest: no logs under %s", folder)
	}
	return out
}

// Read returns the content of a corpus file.
func Read(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(CorpusDir(tb), rel))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Ref is one file's entry of cclib_reference_head.json (the fields we compare).
type Ref struct {
	Package     string    `json:"package"`
	Version     string    `json:"package_version"`
	Methods     []string  `json:"metadata_methods"`
	Basis       *string   `json:"metadata_basis_set"`
	Functional  *string   `json:"metadata_functional"`
	Success     *bool     `json:"metadata_success"`
	Solvent     *string   `json:"metadata_solvent_model"`
	NAtom       *int      `json:"natom"`
	Charge      *int      `json:"charge"`
	Mult        *int      `json:"mult"`
	NSCF        *int      `json:"n_scfenergies"`
	SCFLastEV   *float64  `json:"scfenergy_last_eV"`
	SCFLastEh   *float64  `json:"scfenergy_last_hartree"`
	Homos       []int     `json:"homos"`
	HomoEh      []float64 `json:"homo_energy_hartree"`
	LumoEh      []float64 `json:"lumo_energy_hartree"`
	NVib        *int      `json:"n_vibfreqs"`
	VibFirst3   []float64 `json:"vibfreqs_first3"`
	VibMax      *float64  `json:"vibfreq_max"`
	IRMax       *float64  `json:"vibirs_max"`
	ZPVE        *float64  `json:"zpve"`
	Enthalpy    *float64  `json:"enthalpy"`
	FreeEnergy  *float64  `json:"freeenergy"`
	Temperature *float64  `json:"temperature"`
	Pressure    *float64  `json:"pressure"`
	RotConsts   []float64 `json:"rotconsts_last_GHz"`
	OptDone     *bool     `json:"optdone"`
	Dipole      []float64 `json:"dipole_debye"`
	DipoleTotal *float64  `json:"dipole_total_debye"`
	ChargeTypes []string  `json:"atomcharge_types"`
	Error       *string   `json:"error"`
}

type refFile struct {
	HartreeToEV float64        `json:"hartree_to_eV"`
	Files       map[string]Ref `json:"files"`
	Patched     map[string]struct {
		Version  string    `json:"package_version"`
		NAtom    *int      `json:"natom"`
		Charge   *int      `json:"charge"`
		Mult     *int      `json:"mult"`
		SCFLast  *float64  `json:"scf_last_hartree"`
		NSCF     *int      `json:"n_scf"`
		Homos    []int     `json:"homos"`
		HomoEh   []float64 `json:"homo_h"`
		LumoEh   []float64 `json:"lumo_h"`
		NVib     *int      `json:"nvib"`
		ZPVE     *float64  `json:"zpve"`
		Enthalpy *float64  `json:"enthalpy"`
		Free     *float64  `json:"freeenergy"`
		OptDone  *bool     `json:"optdone"`
		Success  *bool     `json:"success"`
	} `json:"psi4_generated_patched_header"`
}

// CclibHartreeToEV is the conversion cclib uses (CODATA 2010), needed to
// undo its eV energies; our own conversions use qm.HartreeToEV (CODATA 2018).
const CclibHartreeToEV = 27.21138505

// References loads cclib master's values. The two Debian Psi4 1.3.2 logs,
// which cclib cannot parse as they are, get the values cclib parsed from
// copies with a patched header.
func References(tb testing.TB) map[string]Ref {
	tb.Helper()
	var rf refFile
	if err := json.Unmarshal(Read(tb, "cclib_reference_head.json"), &rf); err != nil {
		tb.Fatal(err)
	}
	if rf.HartreeToEV != CclibHartreeToEV {
		tb.Fatalf("cclib conversion constant changed: %v", rf.HartreeToEV)
	}
	for name, p := range rf.Patched {
		rel := "psi4/generated/" + name + ".out"
		r := Ref{Package: "Psi4", Version: p.Version, NAtom: p.NAtom, Charge: p.Charge, Mult: p.Mult,
			SCFLastEh: p.SCFLast, NSCF: p.NSCF, Homos: p.Homos, HomoEh: p.HomoEh, LumoEh: p.LumoEh,
			NVib: p.NVib, ZPVE: p.ZPVE, Enthalpy: p.Enthalpy, FreeEnergy: p.Free, OptDone: p.OptDone, Success: p.Success}
		rf.Files[rel] = r
	}
	return rf.Files
}

// Tally counts comparison outcomes per field.
type Tally struct {
	Pass, Fail, Skip map[string]int
}

// NewTally returns an empty Tally.
func NewTally() *Tally {
	return &Tally{Pass: map[string]int{}, Fail: map[string]int{}, Skip: map[string]int{}}
}

// String renders the tally as "field pass/total" lines.
func (t *Tally) String() string {
	keys := map[string]bool{}
	for k := range t.Pass {
		keys[k] = true
	}
	for k := range t.Fail {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	tp, tt := 0, 0
	for _, k := range ks {
		fmt.Fprintf(&b, "  %-22s %d/%d\n", k, t.Pass[k], t.Pass[k]+t.Fail[k])
		tp += t.Pass[k]
		tt += t.Pass[k] + t.Fail[k]
	}
	fmt.Fprintf(&b, "  %-22s %d/%d\n", "TOTAL", tp, tt)
	return b.String()
}

// Tolerances of the cclib comparison. Both programs read the same printed
// digits, so the energy tolerances are those of the printed precision;
// rotational constants use cclib's own test tolerance (rtol 5e-5).
const (
	TolEnergy  = 1e-6 // Eh, SCF/ZPE/H/G (printed to 6–16 decimals)
	TolOrbital = 1e-5 // Eh (Gaussian prints 5 decimals)
	TolFreq    = 1e-3 // cm⁻¹
	TolIR      = 1e-3 // km/mol, relative
	TolRotRel  = 5e-5
	TolDipole  = 1e-3 // D (ORCA's and Psi4's a.u. converted with different constants)
	TolTemp    = 1e-6
)

// CompareCclib compares c with cclib's reference r, recording every field in
// tally and reporting mismatches as test errors. Convention differences
// (documented in the parsers' package comments) are skipped, not passed.
func CompareCclib(t *testing.T, rel string, c *qm.Calculation, r Ref, tally *Tally) {
	t.Helper()
	check := func(field string, ok bool, format string, args ...any) {
		if ok {
			tally.Pass[field]++
			return
		}
		tally.Fail[field]++
		t.Errorf("%s: %s: "+format, append([]any{rel, field}, args...)...)
	}
	near := func(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
	if r.NAtom != nil {
		check("natom", c.NAtoms() == *r.NAtom, "got %d want %d", c.NAtoms(), *r.NAtom)
	}
	if r.Charge != nil {
		check("charge", c.Charge != nil && *c.Charge == *r.Charge, "got %v want %d", c.Charge, *r.Charge)
	}
	if r.Mult != nil {
		check("multiplicity", c.Multiplicity != nil && *c.Multiplicity == *r.Mult, "got %v want %d", c.Multiplicity, *r.Mult)
	}
	if r.SCFLastEh != nil {
		e, ok := c.FinalEnergy()
		check("scf_energy", ok && near(e, *r.SCFLastEh, TolEnergy), "got %v want %v", e, *r.SCFLastEh)
		if r.SCFLastEV != nil {
			// cclib's eV value converted back with cclib's constant.
			check("scf_energy_eV", ok && near(e, *r.SCFLastEV/CclibHartreeToEV, TolEnergy),
				"got %v want %v", e, *r.SCFLastEV/CclibHartreeToEV)
		}
	}
	if r.NSCF != nil && c.Steps != nil {
		// cclib merges the steps and drops some of their SCF solutions (for
		// NWChem the SCF of a task after an optimisation, as a line search);
		// the steps are compared one by one in the multi-step tests.
		tally.Skip["n_scf_energies"]++
	} else if r.NSCF != nil {
		n := len(c.SCFEnergies())
		check("n_scf_energies", n == *r.NSCF, "got %d want %d", n, *r.NSCF)
	}
	if r.Homos != nil && c.Program == qm.XTB {
		// cclib master reads xtb 6.5's eV column as hartree and marks every
		// occupied orbital a HOMO (parsers/xtb TestCclibOrbitalsWrong).
		tally.Skip["homo_index"]++
	} else if r.Homos != nil {
		var got []int
		if c.Orbitals != nil {
			got = c.Orbitals.HOMO
		}
		check("homo_index", fmt.Sprint(got) == fmt.Sprint(r.Homos), "got %v want %v", got, r.Homos)
		for s := range r.HomoEh {
			h, ok := c.Orbitals.HOMOEnergy(s)
			check("homo_energy", ok && near(h, r.HomoEh[s], TolOrbital), "spin %d got %v want %v", s, h, r.HomoEh[s])
			if s < len(r.LumoEh) {
				l, ok := c.Orbitals.LUMOEnergy(s)
				check("lumo_energy", ok && near(l, r.LumoEh[s], TolOrbital), "spin %d got %v want %v", s, l, r.LumoEh[s])
			}
		}
	}
	dropsTransRot := c.Program == qm.NWChem || c.Program == qm.XTB
	if r.NVib != nil && dropsTransRot {
		// cclib keeps NWChem's and xtb's 3N modes; we drop the 6 (linear: 5)
		// translations and rotations, as the other programs never print them.
		n := c.NAtoms()
		drop := 6
		if n == 2 {
			drop = 5
		}
		check("n_frequencies", *r.NVib == 3*n && len(c.Frequencies) == 3*n-drop,
			"got %d want cclib's %d (3N) minus %d translations and rotations", len(c.Frequencies), *r.NVib, drop)
		tally.Skip["frequencies_first3"]++ // cclib's first three are translations
	} else if r.NVib != nil {
		check("n_frequencies", len(c.Frequencies) == *r.NVib, "got %d want %d", len(c.Frequencies), *r.NVib)
		ok := len(c.Frequencies) >= len(r.VibFirst3)
		for i := 0; ok && i < len(r.VibFirst3); i++ {
			ok = near(c.Frequencies[i], r.VibFirst3[i], TolFreq)
		}
		check("frequencies_first3", ok, "got %v want %v", c.Frequencies[:min(3, len(c.Frequencies))], r.VibFirst3)
	}
	if r.NVib != nil {
		if r.VibMax != nil {
			m := math.Inf(-1)
			for _, f := range c.Frequencies {
				m = math.Max(m, f)
			}
			check("frequency_max", near(m, *r.VibMax, TolFreq), "got %v want %v", m, *r.VibMax)
		}
	}
	if r.IRMax != nil {
		m := math.Inf(-1)
		for _, f := range c.IRIntensities {
			m = math.Max(m, f)
		}
		if dropsTransRot && m < *r.IRMax {
			// cclib's maximum is the numerical-noise intensity of a translation or rotation.
			tally.Skip["ir_intensity_max"]++
		} else {
			check("ir_intensity_max", near(m, *r.IRMax, TolIR*math.Abs(*r.IRMax)), "got %v want %v", m, *r.IRMax)
		}
	}
	opt := func(field string, got *float64, want *float64, tol float64) {
		if want == nil {
			return
		}
		check(field, got != nil && near(*got, *want, tol), "got %v want %v", deref(got), *want)
	}
	opt("zpe", c.Thermo.ZPE, r.ZPVE, TolEnergy)
	opt("enthalpy", c.Thermo.Enthalpy, r.Enthalpy, TolEnergy)
	opt("gibbs", c.Thermo.Gibbs, r.FreeEnergy, TolEnergy)
	opt("temperature", c.Thermo.Temperature, r.Temperature, TolTemp)
	opt("pressure", c.Thermo.Pressure, r.Pressure, 1e-4)
	if len(r.RotConsts) == 3 {
		ok := len(c.RotationalConstants) == 3
		for i := 0; ok && i < 3; i++ {
			w := r.RotConsts[i]
			ok = near(c.RotationalConstants[i], w, TolRotRel*math.Abs(w)+1e-9)
		}
		check("rotational_constants", ok, "got %v want %v", c.RotationalConstants, r.RotConsts)
	}
	if len(r.Dipole) == 3 && r.DipoleTotal != nil {
		ok := c.Dipole != nil && near(c.Dipole.X, r.Dipole[0], TolDipole) && near(c.Dipole.Y, r.Dipole[1], TolDipole) &&
			near(c.Dipole.Z, r.Dipole[2], TolDipole) && near(c.Dipole.Total, *r.DipoleTotal, TolDipole)
		check("dipole", ok, "got %+v want %v %v", c.Dipole, r.Dipole, *r.DipoleTotal)
	}
	if r.OptDone != nil {
		switch {
		case c.Optimization != nil:
			check("optimization_converged", c.Optimization.Converged == *r.OptDone, "got %v want %v", c.Optimization.Converged, *r.OptDone)
		case *r.OptDone && !c.HasJob(qm.JobOptimization):
			// cclib sets optdone for Gaussian frequency-only jobs ("Stationary point found"); we do not.
			tally.Skip["optimization_converged"]++
		default:
			check("optimization_converged", false, "no optimization parsed, cclib optdone=%v", *r.OptDone)
		}
	}
	if r.Success != nil {
		check("normal_termination", c.NormalTermination == *r.Success, "got %v want %v", c.NormalTermination, *r.Success)
	} else if r.Error == nil && r.Package != "" {
		// cclib leaves success unset for runs without a termination message.
		check("normal_termination", !c.NormalTermination, "got true for a run cclib did not see finish")
	}
	if r.Version != "" {
		check("program_version", VersionMatches(c, r.Version), "got %q want cclib %q", c.ProgramVersion, r.Version)
	}
	if r.Basis != nil && c.Program != qm.Psi4 || r.Basis != nil && c.BasisSet != "" {
		check("basis_set", strings.EqualFold(c.BasisSet, *r.Basis), "got %q want %q", c.BasisSet, *r.Basis)
	}
	if r.Functional != nil && *r.Functional != "Functional" {
		// cclib reports Gaussian 03's internal name of B3LYP ("B+HF-LYP"); we report the route's keyword.
		if *r.Functional == "B+HF-LYP" {
			tally.Skip["method"]++
		} else {
			check("method", strings.EqualFold(c.Method, *r.Functional), "got %q want %q", c.Method, *r.Functional)
		}
	}
	if r.Solvent != nil {
		check("solvent_model", c.SolventModel == *r.Solvent, "got %q want %q", c.SolventModel, *r.Solvent)
	}
	if r.ChargeTypes != nil {
		has := false
		for _, k := range r.ChargeTypes {
			has = has || k == "mulliken"
		}
		if has {
			check("mulliken_charges", len(c.MullikenCharges) == c.NAtoms() && c.NAtoms() > 0,
				"got %d charges for %d atoms", len(c.MullikenCharges), c.NAtoms())
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

var (
	reGaussianV = regexp.MustCompile(`^20(\d\d)\+([A-Z]\.\d\d)$`)
	rePsi4V     = regexp.MustCompile(`^1!(\d+\.\d+(?:\.\d+)?)\.dev`)
	rePsi4Beta  = regexp.MustCompile(`^0!0\.(beta\d+)$`)
)

// VersionMatches compares our version string with cclib's PEP 440 form:
// "2016+C.01" = Gaussian "16 Rev. C.01"; "5.0.0+19529" = ORCA "5.0.0";
// "1!1.7.dev+HEAD-6ce35a5" = Psi4 "1.7"; "0!0.beta5" = Psi4 "4.0.0-beta5".
func VersionMatches(c *qm.Calculation, cclib string) bool {
	v := c.ProgramVersion
	if m := reGaussianV.FindStringSubmatch(cclib); m != nil {
		return v == m[1]+" Rev. "+m[2]
	}
	if m := rePsi4V.FindStringSubmatch(cclib); m != nil {
		return v == m[1]
	}
	if m := rePsi4Beta.FindStringSubmatch(cclib); m != nil {
		return strings.HasSuffix(v, "-"+m[1])
	}
	if i := strings.IndexByte(cclib, '+'); i > 0 {
		cclib = cclib[:i]
	}
	return v == cclib
}

// Golden compares the JSON of c with testdata/golden/<name>.json, or
// rewrites it with -update.
func Golden(t *testing.T, name string, c *qm.Calculation) {
	t.Helper()
	got, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		t.Fatalf("%s: marshal: %v", name, err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", strings.NewReplacer("/", "__").Replace(name)+".json")
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v (run go test -args -update)", name, err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: parsed output differs from %s (run go test -update after checking the change)", name, path)
	}
}

// Truncations cuts data at n points spread over the file (plus the very
// start) and checks that parse never panics, returns either ErrNoResults or
// a calculation with NormalTermination false, and never more geometries or
// SCF solutions than the full file.
func Truncations(t *testing.T, rel string, data []byte, parse ParseFunc, full *qm.Calculation, n int) {
	t.Helper()
	for k := 0; k <= n; k++ {
		cut := len(data) * k / (n + 1)
		if k > 0 {
			cut += k * 7919 % 97 // avoid cutting only at aligned offsets
		}
		if cut >= len(data) {
			cut = len(data) - 1
		}
		c, err := parse(bytes.NewReader(data[:cut]))
		if err != nil {
			if !errors.Is(err, qm.ErrNoResults) {
				t.Errorf("%s cut at %d: unexpected error %v", rel, cut, err)
			}
			continue
		}
		if c.NormalTermination && bytes.Count(data[cut:], []byte("\n")) > 50 {
			// A cut after the final message can legitimately keep it only
			// within the last lines of the file.
			t.Errorf("%s cut at %d: normal termination reported for a truncated log", rel, cut)
		}
		if len(c.Geometries) > len(full.Geometries)+1 || len(c.SCF) > len(full.SCF)+1 {
			t.Errorf("%s cut at %d: more results than the full log", rel, cut)
		}
	}
}
