package xtb_test

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

	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/xtb"
)

// freshXYZ is the water geometry of the corpus's generated xtb log
// (../shared/qm-corpus/xtb/generated/water.xyz).
const freshXYZ = `3
water
O   0.000000   0.000000   0.117300
H   0.000000   0.757200  -0.469200
H   0.000000  -0.757200  -0.469200
`

// refEnergy is the GFN2-xTB total energy xtb 6.5.1 printed for the same
// input in the corpus (EXPECTED.md, generated files); the optimiser's
// convergence (5e-6 Eh) bounds how far another build may land.
const (
	refEnergy    = -5.070544374389
	refEnergyTol = 5e-6
	freshTimeout = 2 * time.Minute
)

// TestFreshXTBLog runs Debian's xtb (GFN2-xTB, optimisation + Hessian) on
// water in a temporary directory and checks the parse against the values
// the log prints, read here with regular expressions: energies, enthalpy,
// free energy, zero-point energy, the HOMO-LUMO gap in eV against our
// orbital energies in hartree, the frequencies, the final bond length. It
// skips only when there is no xtb binary.
func TestFreshXTBLog(t *testing.T) {
	bin, err := exec.LookPath("xtb")
	if err != nil {
		t.Skip("xtb binary not found on PATH (install the Debian package xtb): fresh xtb log not generated")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "water.xyz"), []byte(freshXYZ), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), freshTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "water.xyz", "--ohess", "--gfn", "2")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OMP_STACKSIZE=64M")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("xtb: %v\n%s", err, stderr.Bytes())
	}
	t.Logf("xtb ran in %v", time.Since(start).Round(time.Millisecond))
	log := stdout.Bytes()
	c, err := xtb.Parse(bytes.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if c.Program != qm.XTB || c.Method != "GFN2-xTB" || !c.NormalTermination || c.Charge == nil || *c.Charge != 0 ||
		c.Multiplicity == nil || *c.Multiplicity != 1 {
		t.Fatalf("program %q method %q normal %v charge %v mult %v", c.Program, c.Method, c.NormalTermination, c.Charge, c.Multiplicity)
	}
	if m := regexp.MustCompile(`xtb version (\S+)`).FindSubmatch(log); m == nil || string(m[1]) != c.ProgramVersion {
		t.Errorf("version %q, log prints %q", c.ProgramVersion, m)
	}
	e, _ := c.FinalEnergy()
	if p := last(t, log, `\| TOTAL ENERGY\s+(\S+) Eh`); e != p || math.Abs(e-refEnergy) > refEnergyTol {
		t.Errorf("energy %.12f, printed %.12f, reference %.12f ± %g", e, p, refEnergy, refEnergyTol)
	}
	if p := last(t, log, `\| TOTAL ENTHALPY\s+(\S+) Eh`); c.Thermo.Enthalpy == nil || *c.Thermo.Enthalpy != p {
		t.Errorf("enthalpy %v, printed %v", c.Thermo.Enthalpy, p)
	}
	if p := last(t, log, `\| TOTAL FREE ENERGY\s+(\S+) Eh`); c.Thermo.Gibbs == nil || *c.Thermo.Gibbs != p {
		t.Errorf("free energy %v, printed %v", c.Thermo.Gibbs, p)
	}
	if p := last(t, log, `:: zero point energy\s+(\S+) Eh`); c.Thermo.ZPE == nil || *c.Thermo.ZPE != p {
		t.Errorf("ZPE %v, printed %v", c.Thermo.ZPE, p)
	}
	// Orbitals in hartree: their gap in eV is the gap xtb prints in eV.
	h, ok1 := c.Orbitals.HOMOEnergy(0)
	l, ok2 := c.Orbitals.LUMOEnergy(0)
	gap := last(t, log, `\| HOMO-LUMO GAP\s+(\S+) eV`)
	if !ok1 || !ok2 || math.Abs((l-h)*qm.HartreeToEV-gap) > 1e-4 || h > -0.3 || h < -0.6 {
		t.Errorf("HOMO %v LUMO %v Eh: gap %v eV, printed %v eV", h, l, (l-h)*qm.HartreeToEV, gap)
	}
	if p := last(t, log, `(?m)^\s+4\s+2\.0000\s+(\S+)\s+\S+ \(HOMO\)`); h != p {
		t.Errorf("HOMO %v Eh, printed %v", h, p)
	}
	// Three vibrations of a bent triatomic, the largest three of the 3N printed.
	ev := regexp.MustCompile(`eigval :((?:\s+-?\d+\.\d+)+)`).FindAllSubmatch(log, -1)
	var all []float64
	for _, m := range ev[len(ev)-2:] {
		for _, f := range bytes.Fields(m[1]) {
			v, _ := strconv.ParseFloat(string(f), 64)
			all = append(all, v)
		}
	}
	if len(c.Frequencies) != 3 || len(all) != 9 {
		t.Fatalf("frequencies %v from %v", c.Frequencies, all)
	}
	for i, f := range c.Frequencies {
		if f != all[6+i] || f < 1000 {
			t.Errorf("frequency %d: %v, printed %v", i, f, all[6+i])
		}
	}
	// Final geometry: the O–H distance xtb prints.
	g := c.FinalGeometry()
	if len(g) != 3 || g[0].AtomicNumber != 8 {
		t.Fatalf("final geometry %+v", g)
	}
	r := math.Sqrt((g[1].X-g[0].X)*(g[1].X-g[0].X) + (g[1].Y-g[0].Y)*(g[1].Y-g[0].Y) + (g[1].Z-g[0].Z)*(g[1].Z-g[0].Z))
	if p := last(t, log, `(?m)^O1-H2=(\d+\.\d+)`); math.Abs(r-p) > 1e-4 {
		t.Errorf("r(OH) %.5f Å, printed %.4f", r, p)
	}
	if c.Optimization == nil || !c.Optimization.Converged {
		t.Errorf("optimization %+v", c.Optimization)
	}
}

func last(t *testing.T, log []byte, re string) float64 {
	t.Helper()
	ms := regexp.MustCompile(re).FindAllSubmatch(log, -1)
	if len(ms) == 0 {
		t.Fatalf("%q not in the log", re)
	}
	v, err := strconv.ParseFloat(string(ms[len(ms)-1][1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
