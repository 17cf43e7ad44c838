package nwchem_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/qm"
)

// freshInput is water RHF/STO-3G with two tasks, a single point and an
// optimisation, from the starting geometry of the corpus's generated log
// (../shared/qm-corpus/nwchem/generated/water_hf_sto3g_sp_freq.nw).
const freshInput = `echo
start water
title "water RHF/STO-3G: energy then optimization (molgraph test)"
memory total 200 mb
geometry units angstrom
  O   0.000000   0.000000   0.117300
  H   0.000000   0.757200  -0.469200
  H   0.000000  -0.757200  -0.469200
end
basis
  * library sto-3g
end
scf
  rhf
  singlet
end
task scf energy
task scf optimize
`

// Reference values for water RHF/STO-3G.
//   - Single point at the input geometry: NWChem 7.0.2 printed
//     -74.963023128776 Eh for the same input in the corpus (EXPECTED.md,
//     generated files); Psi4 1.3.2 printed -74.9630231385 (corpus), so
//     1e-7 Eh covers both programs' convergence.
//   - Optimised energy: Psi4's regression test tests/opt1 ("from a tightly
//     converged QChem run"), -74.965901192 Eh, compared there to 6 decimals.
const (
	refSP        = -74.963023128776
	refSPTol     = 1e-7
	refOpt       = -74.965901192
	refOptTol    = 1e-6
	freshTimeout = 3 * time.Minute
)

// TestFreshNWChemLog runs Debian's nwchem on the two-task input in a
// temporary directory and checks the parsed steps against the values the
// log prints (read here with regular expressions) and the references above.
// It skips only when there is no nwchem binary.
func TestFreshNWChemLog(t *testing.T) {
	bin, err := exec.LookPath("nwchem")
	if err != nil {
		t.Skip("nwchem binary not found on PATH (install the Debian package nwchem): fresh NWChem log not generated")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "water.nw")
	if err := os.WriteFile(in, []byte(freshInput), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), freshTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "water.nw")
	cmd.Dir = dir
	// Debian's nwchem is an Open MPI program: as root it needs these to start.
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("nwchem: %v\n%s\nlog tail:\n%s", err, stderr.Bytes(), tail(stdout.Bytes(), 3000))
	}
	t.Logf("nwchem ran in %v", time.Since(start).Round(time.Millisecond))
	log := stdout.Bytes()

	c, err := nwchem.Parse(bytes.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if c.Program != qm.NWChem || c.ProgramVersion == "" || len(c.Steps) != 2 || !c.NormalTermination {
		t.Fatalf("program %q version %q, %d steps, normal %v; want NWChem, 2 steps", c.Program, c.ProgramVersion, len(c.Steps), c.NormalTermination)
	}
	if m := regexp.MustCompile(`\(NWChem\) (\S+)`).FindSubmatch(log); m == nil || string(m[1]) != c.ProgramVersion {
		t.Errorf("version %q, log prints %q", c.ProgramVersion, m)
	}
	sp, opt := c.Steps[0], c.Steps[1]
	for i, s := range c.Steps {
		if s.Method != "HF" || s.BasisSet != "sto-3g" || s.Charge == nil || *s.Charge != 0 || s.Multiplicity == nil || *s.Multiplicity != 1 {
			t.Errorf("step %d: method %q basis %q charge %v mult %v", i+1, s.Method, s.BasisSet, s.Charge, s.Multiplicity)
		}
	}
	if !sp.HasJob(qm.JobEnergy) || !opt.HasJob(qm.JobOptimization) || opt.Optimization == nil || !opt.Optimization.Converged {
		t.Errorf("jobs %v / %v, optimization %+v", sp.JobTypes, opt.JobTypes, opt.Optimization)
	}

	// Energies: as printed, and as the references say.
	printed := floats(t, log, `Total SCF energy =\s+(\S+)`)
	if e, _ := sp.FinalEnergy(); e != printed[0] || math.Abs(e-refSP) > refSPTol {
		t.Errorf("single point %.12f, printed %.12f, reference %.12f ± %g", e, printed[0], refSP, refSPTol)
	}
	if e, _ := opt.FinalEnergy(); e != printed[len(printed)-1] || math.Abs(e-refOpt) > refOptTol {
		t.Errorf("optimised %.12f, printed %.12f, reference %.12f ± %g", e, printed[len(printed)-1], refOpt, refOptTol)
	}
	// One SCF energy per optimisation step, as the "@" table prints them (8 decimals).
	steps := floats(t, log, `(?m)^@\s+\d+\s+(-\d+\.\d+)`)
	got := opt.SCFEnergies()
	if len(got) != len(steps)-1 { // the converged step is printed twice
		t.Errorf("%d optimisation SCF energies, the @ table has %d rows", len(got), len(steps))
	}
	for i := range min(len(got), len(steps)) {
		if math.Abs(got[i]-steps[i]) > 5e-9 {
			t.Errorf("optimisation step %d: %.10f, @ table %.8f", i, got[i], steps[i])
		}
	}
	// Orbitals: the HOMO is orbital 5 of the last analysis.
	homo := floats(t, log, `Vector\s+5\s+Occ=2\.0+D\+00\s+E=\s*(\S+)`)
	if h, ok := opt.Orbitals.HOMOEnergy(0); !ok || opt.Orbitals.HOMO[0] != 4 || h != homo[len(homo)-1] {
		t.Errorf("HOMO %v (index %v), printed %v", h, opt.Orbitals.HOMO, homo[len(homo)-1])
	}
	// The final geometry is the one NWChem prints last.
	g := opt.FinalGeometry()
	if len(g) != 3 || g[0].AtomicNumber != 8 || g[1].AtomicNumber != 1 {
		t.Fatalf("final geometry %+v", g)
	}
	rs := floats(t, log, `\d+ H\s+\|\s+1 O\s+\|\s+\S+\s+\|\s+(\S+)`)
	r := math.Sqrt(sq(g[1].X-g[0].X) + sq(g[1].Y-g[0].Y) + sq(g[1].Z-g[0].Z))
	if math.Abs(r-rs[len(rs)-1]) > 1e-4 {
		t.Errorf("r(OH) of the final geometry %.5f Å, log prints %.5f", r, rs[len(rs)-1])
	}
}

func floats(t *testing.T, log []byte, re string) []float64 {
	t.Helper()
	var out []float64
	for _, m := range regexp.MustCompile(re).FindAllSubmatch(log, -1) {
		v, err := strconv.ParseFloat(string(bytes.Replace(m[1], []byte("D"), []byte("E"), 1)), 64)
		if err != nil {
			t.Fatalf("%q: %v", m[1], err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Fatalf("%q not in the log", re)
	}
	return out
}

func sq(x float64) float64 { return x * x }

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
