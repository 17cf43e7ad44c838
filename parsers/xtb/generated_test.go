package xtb_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/xtb"
)

// The logs of testdata/generated were made with Debian's xtb 6.5.1 (the
// program call is in each log) on kinds of run the corpus lacks: GFN1-xTB,
// GFN-FF, ALPB solvation, a cation doublet, a one-atom molecule, an
// optimisation cut short by --cycles, an SCC cut short by --iterations and
// a run that stopped with an error (--gfn 0, not built into Debian's xtb).
// Expected values are the numbers the logs print, read by the regular
// expressions below, and cclib master's parse (21daa960) where it agrees
// with them.

func readGenerated(t *testing.T, name string) ([]byte, *qm.Calculation) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "generated", name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := xtb.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return data, c
}

// printed returns every number the first group of re captures in log.
func printed(t *testing.T, log []byte, re string) []float64 {
	t.Helper()
	var out []float64
	for _, m := range regexp.MustCompile(re).FindAllSubmatch(log, -1) {
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Fatalf("%q not in the log", re)
	}
	return out
}

func lastPrinted(t *testing.T, log []byte, re string) float64 {
	t.Helper()
	v := printed(t, log, re)
	return v[len(v)-1]
}

const reTotal = `:: total energy\s+(-?\d+\.\d+) Eh`

func TestGeneratedGFN1(t *testing.T) {
	log, c := readGenerated(t, "gfn1_sp.out")
	if c.Method != "GFN1-xTB" || !c.NormalTermination || *c.Charge != 0 || *c.Multiplicity != 1 {
		t.Fatalf("method %q normal %v", c.Method, c.NormalTermination)
	}
	if e, _ := c.FinalEnergy(); e != lastPrinted(t, log, reTotal) || e != -5.76864057545 {
		t.Errorf("energy %v", e)
	}
	// GFN1 prints "Mulliken/CM5 charges" (index and symbol run together),
	// not GFN2's covCN/q table; cclib reads the same Mulliken column.
	want := printed(t, log, `(?m)^\s+\d+[A-Z][a-z]?\s+(-?\d+\.\d+)\s+-?\d+\.\d+`)
	if len(c.MullikenCharges) != 3 || len(want) != 3 {
		t.Fatalf("charges %v, printed %v", c.MullikenCharges, want)
	}
	for i := range want {
		if c.MullikenCharges[i] != want[i] {
			t.Errorf("charge %d: %v, printed %v", i, c.MullikenCharges[i], want[i])
		}
	}
	// GFN1's dipole: components in au, the total in debye.
	z := lastPrinted(t, log, `(-?\d+\.\d+)\s+total \(Debye\)`)
	tot := lastPrinted(t, log, `total \(Debye\):\s+(\d+\.\d+)`)
	if c.Dipole == nil || c.Dipole.Total != tot || math.Abs(c.Dipole.Z-z*qm.AtomicUnitDipoleToDebye) > 1e-12 ||
		math.Abs(math.Abs(c.Dipole.Z)-tot) > 1e-3 {
		t.Errorf("dipole %+v, printed z %v au, total %v D", c.Dipole, z, tot)
	}
	if h, _ := c.Orbitals.HOMOEnergy(0); h != lastPrinted(t, log, `(-?\d+\.\d+)\s+-?\d+\.\d+ \(HOMO\)`) {
		t.Errorf("HOMO %v", h)
	}
}

// TestGeneratedGFNFF: the force field has no Hamiltonian row, no SCC, no
// orbitals and no electron count; its energies are evaluations, not SCF
// solutions to converge; its topology table has the input coordinates.
func TestGeneratedGFNFF(t *testing.T) {
	log, c := readGenerated(t, "gfnff_opt.out")
	if c.Method != "GFN-FF" || !c.NormalTermination || c.Orbitals != nil {
		t.Fatalf("method %q normal %v orbitals %v", c.Method, c.NormalTermination, c.Orbitals)
	}
	if e, _ := c.FinalEnergy(); e != lastPrinted(t, log, `\| TOTAL ENERGY\s+(-?\d+\.\d+) Eh`) {
		t.Errorf("final energy %v", e)
	}
	for i, s := range c.SCF {
		if !s.Converged {
			t.Errorf("energy %d %+v marked unconverged", i, s)
		}
	}
	if c.Optimization == nil || !c.Optimization.Converged || len(c.FinalGeometry()) != 3 {
		t.Errorf("optimization %+v, final geometry %v", c.Optimization, c.FinalGeometry())
	}

	// The input geometry, from the topology table (bohr), is water.xyz of
	// the program call (freshXYZ); the multiplicity is xtb's default for
	// its 10 electrons.
	in := c.InputGeometry()
	want := []qm.Atom{{AtomicNumber: 8, Z: 0.1173}, {AtomicNumber: 1, Y: 0.7572, Z: -0.4692}, {AtomicNumber: 1, Y: -0.7572, Z: -0.4692}}
	if len(c.Geometries) != 2 || len(in) != 3 || c.Multiplicity == nil || *c.Multiplicity != 1 {
		t.Fatalf("geometries %v multiplicity %v", c.Geometries, c.Multiplicity)
	}
	for i, w := range want {
		a := in[i]
		if a.AtomicNumber != w.AtomicNumber || math.Abs(a.X-w.X) > 1e-6 || math.Abs(a.Y-w.Y) > 1e-6 || math.Abs(a.Z-w.Z) > 1e-6 {
			t.Errorf("input atom %d: %+v, water.xyz %+v", i, a, w)
		}
	}

	log, c = readGenerated(t, "gfnff_sp.out")
	if e, _ := c.FinalEnergy(); c.Method != "GFN-FF" || len(c.Geometries) != 1 || len(c.InputGeometry()) != 3 ||
		e != lastPrinted(t, log, reTotal) || *c.Multiplicity != 1 {
		t.Errorf("single point: method %q geometries %d energy %v", c.Method, len(c.Geometries), e)
	}

	log, c = readGenerated(t, "gfnff_ohess.out")
	if c.Method != "GFN-FF" || len(c.Frequencies) != 9 || c.Frequencies[8] != 3051.01 || c.IRIntensities[8] != 1.39 {
		t.Errorf("method %q frequencies %v IR %v", c.Method, c.Frequencies, c.IRIntensities)
	}
	if c.Thermo.ZPE == nil || *c.Thermo.ZPE != lastPrinted(t, log, `:: zero point energy\s+(\S+) Eh`) ||
		c.Thermo.Gibbs == nil || *c.Thermo.Gibbs != lastPrinted(t, log, `\| TOTAL FREE ENERGY\s+(\S+) Eh`) {
		t.Errorf("thermo %+v", c.Thermo)
	}
}

func TestGeneratedALPB(t *testing.T) {
	log, c := readGenerated(t, "alpb_water.out")
	if c.SolventModel != "ALPB" || c.Method != "GFN2-xTB" {
		t.Errorf("solvent model %q method %q", c.SolventModel, c.Method)
	}
	if e, _ := c.FinalEnergy(); e != lastPrinted(t, log, reTotal) {
		t.Errorf("energy %v", e)
	}
}

// TestGeneratedCation: --chrg 1 --uhf 1 on NH3: a doublet whose HOMO is
// singly occupied (occupation 1.0000 in the orbital table).
func TestGeneratedCation(t *testing.T) {
	log, c := readGenerated(t, "nh3_cation.out")
	if *c.Charge != 1 || c.Multiplicity == nil || *c.Multiplicity != 2 {
		t.Fatalf("charge %v mult %v", *c.Charge, c.Multiplicity)
	}
	if h, ok := c.Orbitals.HOMOEnergy(0); !ok || c.Orbitals.HOMO[0] != 3 ||
		h != lastPrinted(t, log, `1\.0000\s+(-?\d+\.\d+)\s+-?\d+\.\d+ \(HOMO\)`) {
		t.Errorf("HOMO %v %v", c.Orbitals.HOMO, h)
	}
}

func TestGeneratedOneAtom(t *testing.T) {
	log, c := readGenerated(t, "atom_ne.out")
	if e, _ := c.FinalEnergy(); e != lastPrinted(t, log, reTotal) || len(c.Frequencies) != 0 || len(c.MullikenCharges) != 1 {
		t.Errorf("energy %v frequencies %v charges %v", e, c.Frequencies, c.MullikenCharges)
	}
	if c.Orbitals.HOMO[0] != 3 || *c.Multiplicity != 1 {
		t.Errorf("HOMO %v mult %v", c.Orbitals.HOMO, *c.Multiplicity)
	}
}

// TestGeneratedFailures: an optimisation cut short still terminates
// normally ("finished run") but is not converged; an SCC cut short and a
// run stopped by an error are not normal terminations.
func TestGeneratedFailures(t *testing.T) {
	log, c := readGenerated(t, "opt_fail.out")
	if !bytes.Contains(log, []byte("FAILED TO CONVERGE GEOMETRY OPTIMIZATION IN 2 ITERATIONS")) {
		t.Fatal("log changed")
	}
	if !c.NormalTermination || c.Optimization == nil || c.Optimization.Converged || c.Optimization.Steps != 2 || len(c.Warnings) == 0 {
		t.Errorf("normal %v optimization %+v warnings %v", c.NormalTermination, c.Optimization, c.Warnings)
	}

	_, c = readGenerated(t, "scf_notconv.out")
	if c.NormalTermination || len(c.SCF) != 1 || c.SCF[0].Converged || c.SCF[0].Iterations != 2 || c.SCF[0].Energy != nil {
		t.Errorf("normal %v SCF %+v", c.NormalTermination, c.SCF)
	}

	_, c = readGenerated(t, "gfn0.out")
	if c.NormalTermination || len(c.Warnings) == 0 {
		t.Errorf("normal %v warnings %v", c.NormalTermination, c.Warnings)
	}
}

// TestGeneratedLinearCrash: --ohess on CO2 aborted (SIGABRT) after
// printing the Hessian's "vibrational frequencies (cm⁻¹)" (linear: not
// "projected"): "eigval : 0.00 0.00 0.00 0.00 0.00 599.90 / 599.90 1425.34
// 2594.11". Five zero modes go, four vibrations stay (the bend twice); no
// "finished run", so not a normal termination. cclib master reports the
// same nine values with success false.
func TestGeneratedLinearCrash(t *testing.T) {
	_, c := readGenerated(t, "co2_ohess.out")
	want := []float64{599.9, 599.9, 1425.34, 2594.11}
	if c.NormalTermination || !c.HasJob(qm.JobFrequency) || len(c.Frequencies) != len(want) {
		t.Fatalf("normal %v jobs %v frequencies %v", c.NormalTermination, c.JobTypes, c.Frequencies)
	}
	for i, w := range want {
		if c.Frequencies[i] != w {
			t.Errorf("frequency %d: %v, printed %v", i, c.Frequencies[i], w)
		}
	}
}

// TestGeneratedMore: a Hessian without optimisation (C2H4, 3N−6 = 12
// projected modes, the ZPE and free energy of its thermochemistry), GFN1
// with --uhf on a cation (Mulliken/CM5 table with a doublet), and GBSA
// solvation of an anion.
func TestGeneratedMore(t *testing.T) {
	log, c := readGenerated(t, "c2h4_hess.out")
	if len(c.Frequencies) != 12 || c.Frequencies[0] != 869.61 || c.Frequencies[11] != 3052.78 || c.Optimization != nil ||
		c.Thermo.ZPE == nil || *c.Thermo.ZPE != lastPrinted(t, log, `:: zero point energy\s+(\S+) Eh`) ||
		c.Thermo.Gibbs == nil || *c.Thermo.Gibbs != lastPrinted(t, log, `\| TOTAL FREE ENERGY\s+(\S+) Eh`) {
		t.Errorf("C2H4 Hessian: frequencies %v optimization %v thermo %+v", c.Frequencies, c.Optimization, c.Thermo)
	}

	log, c = readGenerated(t, "gfn1_uhf.out")
	q := printed(t, log, `(?m)^\s+\d+[A-Z][a-z]?\s+(-?\d+\.\d+)\s+-?\d+\.\d+`)
	if c.Method != "GFN1-xTB" || *c.Charge != 1 || *c.Multiplicity != 2 || len(c.MullikenCharges) != 4 || c.MullikenCharges[0] != q[0] {
		t.Errorf("GFN1 cation: method %q charge %v mult %v charges %v, printed %v", c.Method, *c.Charge, *c.Multiplicity, c.MullikenCharges, q)
	}

	log, c = readGenerated(t, "oh_anion_gbsa.out")
	if e, _ := c.FinalEnergy(); c.SolventModel != "GBSA" || *c.Charge != -1 || *c.Multiplicity != 1 || e != lastPrinted(t, log, reTotal) {
		t.Errorf("GBSA anion: solvent %q charge %v mult %v energy %v", c.SolventModel, *c.Charge, *c.Multiplicity, e)
	}
}

// TestGeneratedOrbitalWindow: for caffeine (24 atoms) xtb prints orbital 1,
// "...", orbitals 25-48 around the frontier, "...", and orbital 66. The
// window with the HOMO ("37  2.0000  -0.3901999  -10.6179 (HOMO)", "38
// -0.2663771  -7.2485 (LUMO)") is kept (only orbital 66 was kept before);
// the gap is the printed "HL-Gap 0.1238228 Eh". cclib master returns 14
// HOMO indices, the eV column as hartree and NaN for the LUMO here.
func TestGeneratedOrbitalWindow(t *testing.T) {
	log, c := readGenerated(t, "caffeine_sp.out")
	o := c.Orbitals
	h, ok1 := o.HOMOEnergy(0)
	l, ok2 := o.LUMOEnergy(0)
	if !ok1 || !ok2 || o.First != 24 || len(o.Energies[0]) != 24 || o.HOMO[0] != 36 || h != -0.3901999 || l != -0.2663771 {
		t.Fatalf("first %d n %d HOMO %v: %v %v", o.First, len(o.Energies[0]), o.HOMO, h, l)
	}
	if gap := lastPrinted(t, log, `HL-Gap\s+(\S+) Eh`); math.Abs(l-h-gap) > 1e-7 {
		t.Errorf("gap %v, printed %v", l-h, gap)
	}
	if len(c.MullikenCharges) != 24 || *c.Multiplicity != 1 {
		t.Errorf("charges %d mult %v", len(c.MullikenCharges), *c.Multiplicity)
	}
}

// TestGeneratedImaginary: a Hessian of planar NH3 (a saddle point):
// "eigval : -871.20 1506.21 …", "# frequencies 5", "# imaginary freq. 1".
// "# frequencies" counts the real modes only; the imaginary one is one of
// the 3N−6 and stays (it was dropped with the translations and rotations).
func TestGeneratedImaginary(t *testing.T) {
	_, c := readGenerated(t, "nh3_planar_hess.out")
	want := []float64{-871.2, 1506.21, 1506.45, 3381.88, 3489.87, 3490.11}
	if len(c.Frequencies) != len(want) || len(c.IRIntensities) != len(want) || c.IRIntensities[0] != 548.22 {
		t.Fatalf("frequencies %v IR %v", c.Frequencies, c.IRIntensities)
	}
	for i, w := range want {
		if c.Frequencies[i] != w {
			t.Errorf("frequency %d: %v, printed %v", i, c.Frequencies[i], w)
		}
	}
}

// TestCclibDVB661: cclib's xtb 6.6.1 single point of divinylbenzene
// (testdata/cclib): a windowed orbital table ("25 2.0000 -0.3773170
// -10.2673 (HOMO)", "26 -0.2548733 -6.9355 (LUMO)"); the HOMO and LUMO
// are read from the window that holds them, in hartree.
func TestCclibDVB661(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cclib", "dvb_sp_6.6.1.out"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := xtb.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	h, ok1 := c.Orbitals.HOMOEnergy(0)
	l, ok2 := c.Orbitals.LUMOEnergy(0)
	if c.ProgramVersion != "6.6.1" || !ok1 || !ok2 || c.Orbitals.HOMO[0] != 24 || h != -0.377317 || l != -0.2548733 || len(c.MullikenCharges) != 20 {
		t.Errorf("version %q HOMO %v %v LUMO %v charges %d", c.ProgramVersion, c.Orbitals.HOMO, h, l, len(c.MullikenCharges))
	}
}
