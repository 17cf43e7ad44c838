package psi4_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
)

// The logs of testdata/generated were made with Debian's psi4 1.3.2 (each
// log echoes its input) on kinds of run the corpus lacks: MP2, SAPT0 on a
// water dimer, a UKS cation, three energy() calls with a basis change, a
// run whose second call failed (PSIO error after a basis change), and
// optimize() followed by frequency(). Neither Debian's cclib 1.6.2 nor cclib
// master reads them (InvalidVersion on Debian's "Git: Rev {} zzzzzzz"
// header). Expected values are the "@… Final Energy:" lines the logs print,
// quoted below.

func readGenerated(t *testing.T, name string) *qm.Calculation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "generated", name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := psi4.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

func energies(c *qm.Calculation) []float64 { return c.SCFEnergies() }

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGeneratedCorrelated: energy('mp2') and energy('sapt0') are one
// calculation each whose level of theory is the correlated method; the SCF
// energies are the reference's ("@RHF Final Energy:   -75.98397447271532";
// SAPT0: dimer, monomer A, monomer B in the dimer basis).
func TestGeneratedCorrelated(t *testing.T) {
	c := readGenerated(t, "mp2.out")
	if c.Method != "MP2" || c.BasisSet != "6-31G" || !equal(energies(c), []float64{-75.98397447271532}) || c.Steps != nil {
		t.Errorf("mp2: method %q basis %q energies %v steps %d", c.Method, c.BasisSet, energies(c), len(c.Steps))
	}
	c = readGenerated(t, "sapt.out")
	if c.Method != "SAPT0" || !equal(energies(c), []float64{-149.93553756762319, -74.96362911161489, -74.96968903100442}) || c.Steps != nil {
		t.Errorf("sapt: method %q energies %v steps %d", c.Method, energies(c), len(c.Steps))
	}
}

// TestGeneratedCation: molecule "1 2", reference uks, energy('b3lyp'):
// "@DF-UKS Final Energy:   -56.14480973260333".
func TestGeneratedCation(t *testing.T) {
	c := readGenerated(t, "cation.out")
	if c.Method != "B3LYP" || !c.Unrestricted || *c.Charge != 1 || *c.Multiplicity != 2 ||
		!equal(energies(c), []float64{-56.14480973260333}) || len(c.Orbitals.HOMO) != 2 || c.Orbitals.HOMO[0] != 4 || c.Orbitals.HOMO[1] != 3 {
		t.Errorf("method %q unrestricted %v charge %v mult %v energies %v orbitals %v", c.Method, c.Unrestricted,
			*c.Charge, *c.Multiplicity, energies(c), c.Orbitals.HOMO)
	}
}

// TestGeneratedMultiStep: energy('scf'), energy('b3lyp') in 6-31G, then
// energy('pbe0') in STO-3G are three steps with their own method, basis and
// energy; a run whose second call died is two steps, the second failed.
func TestGeneratedMultiStep(t *testing.T) {
	c := readGenerated(t, "multi.out")
	want := []struct {
		method, basis string
		e             float64
	}{
		{"HF", "6-31G", -75.98395937848457},    // "@DF-RHF Final Energy:   -75.98395937848457"
		{"B3LYP", "6-31G", -76.38495407389185}, // "@DF-RKS Final Energy:   -76.38495407389185"
		{"PBE0", "STO-3G", -75.24605186234078}, // "@DF-RKS Final Energy:   -75.24605186234078"
	}
	if len(c.Steps) != len(want) {
		t.Fatalf("%d steps", len(c.Steps))
	}
	for i, w := range want {
		s := c.Steps[i]
		if s.Method != w.method || s.BasisSet != w.basis || !equal(energies(s), []float64{w.e}) || !s.NormalTermination {
			t.Errorf("step %d: method %q basis %q energies %v normal %v", i+1, s.Method, s.BasisSet, energies(s), s.NormalTermination)
		}
	}

	c = readGenerated(t, "multi_err.out")
	if len(c.Steps) != 2 || c.NormalTermination || !c.Steps[0].NormalTermination || c.Steps[1].NormalTermination ||
		!equal(energies(c.Steps[0]), []float64{-74.96310991106664}) || len(c.Steps[1].SCF) != 0 {
		t.Errorf("failed run: normal %v steps %d", c.NormalTermination, len(c.Steps))
	}
}

// TestGeneratedOptFreq: optimize('scf') then frequency('scf') on NH3: the
// optimisation's four energies ("Optimization is complete! (in 4 steps)"),
// then the frequency step's ("Correction ZPE … 0.04012920 [Eh]", "Total G,
// Free enthalpy at  298.15 [K]   -55.43454656 [Eh]").
func TestGeneratedOptFreq(t *testing.T) {
	c := readGenerated(t, "optfreq.out")
	if len(c.Steps) != 2 {
		t.Fatalf("%d steps", len(c.Steps))
	}
	opt, freq := c.Steps[0], c.Steps[1]
	if opt.Optimization == nil || !opt.Optimization.Converged || opt.Optimization.Steps != 4 ||
		!equal(energies(opt), []float64{-55.45353266152787, -55.45548897075768, -55.45554874955442, -55.45556405382003}) {
		t.Errorf("optimisation %+v energies %v", opt.Optimization, energies(opt))
	}
	if !freq.HasJob(qm.JobFrequency) || len(freq.Frequencies) != 6 || freq.Thermo.ZPE == nil || *freq.Thermo.ZPE != 0.0401292 ||
		freq.Thermo.Gibbs == nil || *freq.Thermo.Gibbs != -55.43454656 {
		t.Errorf("frequency step: jobs %v frequencies %v thermo %+v", freq.JobTypes, freq.Frequencies, freq.Thermo)
	}
}

// TestGeneratedFindifRotations: frequency('b3lyp') at the (non-stationary)
// input geometry: FINDIF of gradients, and Psi4 projects translations only:
// 'Note that "Vibration"s include 3 un-projected rotation-like modes.', which
// it lists as vibrations 1-3 (1196.6727i 1034.6513i 934.2893i) before
// 1795.7246 4350.2857 4675.1714. They are kept as printed (imaginary:
// negative) with Psi4's note as a warning; only the reference SCF counts.
func TestGeneratedFindifRotations(t *testing.T) {
	c := readGenerated(t, "dftfreq.out")
	want := []float64{-1196.6727, -1034.6513, -934.2893, 1795.7246, 4350.2857, 4675.1714}
	if !equal(c.Frequencies, want) || len(c.Warnings) != 1 || !equal(energies(c), []float64{-75.312890848835}) {
		t.Errorf("frequencies %v warnings %v energies %v", c.Frequencies, c.Warnings, energies(c))
	}
}

// TestGeneratedMore: ROHF triplet O2 ("0 3", "@DF-ROHF Final Energy:
// -147.63234271917980"), energy('ccsd(t)') (Method CCSD(T)), properties()
// with Mulliken charges ("1 O … -0.36565"), UHF NH2 (the NWChem UHF
// energy of the same input is -55.530574815866), a loop of energy() calls
// (one calculation: its calls cannot be told apart) and an optimisation
// stopped by geom_maxiter 2 ("PsiException: Could not converge geometry
// optimization in 2 iterations.").
func TestGeneratedMore(t *testing.T) {
	c := readGenerated(t, "rohf.out")
	if c.Method != "HF" || *c.Multiplicity != 3 || !equal(energies(c), []float64{-147.6323427191798}) ||
		c.Orbitals == nil || len(c.Orbitals.HOMO) != 2 || c.Orbitals.HOMO[0] != 8 || c.Orbitals.HOMO[1] != 6 {
		t.Errorf("ROHF: method %q mult %v energies %v", c.Method, *c.Multiplicity, energies(c))
	}
	if c = readGenerated(t, "ccsdt.out"); c.Method != "CCSD(T)" || !equal(energies(c), []float64{-74.96302313852715}) {
		t.Errorf("CCSD(T): method %q energies %v", c.Method, energies(c))
	}
	if c = readGenerated(t, "props.out"); !equal(c.MullikenCharges, []float64{-0.36565, 0.18283, 0.18283}) {
		t.Errorf("properties: Mulliken %v", c.MullikenCharges)
	}
	c = readGenerated(t, "uhf.out")
	if e, _ := c.FinalEnergy(); !c.Unrestricted || *c.Multiplicity != 2 || math.Abs(e-(-55.530574815866)) > 1e-8 {
		t.Errorf("UHF: unrestricted %v mult %v energy %v", c.Unrestricted, *c.Multiplicity, e)
	}
	if c = readGenerated(t, "loop.out"); c.Steps != nil || len(energies(c)) != 2 {
		t.Errorf("loop: %d steps, energies %v", len(c.Steps), energies(c))
	}
	c = readGenerated(t, "optfail.out")
	if c.NormalTermination || c.Optimization == nil || c.Optimization.Converged || c.Optimization.Steps != 2 {
		t.Errorf("optimisation stopped: normal %v optimization %+v", c.NormalTermination, c.Optimization)
	}
}

// TestCclibFindif121: Psi4 1.2.1 prints no FINDIF banner, only "Using
// finite-differences of gradients to determine vibrational frequencies";
// the SCF solutions of the displaced geometries were kept as SCF energies
// (75 for cclib's dvb_ir_rhf.out, cclib: 1). testdata/cclib holds an
// excerpt (README.md): one SCF energy ("@DF-RHF Final Energy:
// -379.77011151297563"), 54 frequencies, "Correction ZPE … 0.19167937 [Eh]".
func TestCclibFindif121(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cclib", "dvb_ir_rhf_psi4-1.2.1_excerpt.out"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := psi4.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !equal(energies(c), []float64{-379.77011151297563}) || len(c.Geometries) != 1 || len(c.Frequencies) != 54 ||
		c.Frequencies[0] != 137.2458 || c.Thermo.ZPE == nil || *c.Thermo.ZPE != 0.19167937 || c.ProgramVersion != "1.2.1" {
		t.Errorf("energies %v geometries %d frequencies %d ZPE %v version %q", energies(c), len(c.Geometries), len(c.Frequencies), c.Thermo.ZPE, c.ProgramVersion)
	}
}

// TestGeneratedDFTOptFreq: optimize('b3lyp') then frequency('b3lyp'): two
// steps; the optimisation's four "@DF-RKS Final Energy:" lines; the
// frequency step's reference SCF ("-75.32314803035152") without the six
// displaced-geometry SCFs of its finite differences; "Freq [cm^-1]
// 2017.2243 3611.8012 3836.0939", "Correction ZPE … 0.02156313 [Eh]",
// "Total G, Free enthalpy at  298.15 [K]  -75.31943462 [Eh]".
func TestGeneratedDFTOptFreq(t *testing.T) {
	c := readGenerated(t, "dftoptfreq.out")
	if len(c.Steps) != 2 {
		t.Fatalf("%d steps", len(c.Steps))
	}
	opt, freq := c.Steps[0], c.Steps[1]
	if opt.Method != "B3LYP" || opt.Optimization == nil || !opt.Optimization.Converged ||
		!equal(energies(opt), []float64{-75.312890848835, -75.32309560186098, -75.32313629271583, -75.32314803035146}) {
		t.Errorf("optimisation: method %q %+v energies %v", opt.Method, opt.Optimization, energies(opt))
	}
	if !equal(energies(freq), []float64{-75.32314803035152}) || !equal(freq.Frequencies, []float64{2017.2243, 3611.8012, 3836.0939}) ||
		freq.Thermo.ZPE == nil || *freq.Thermo.ZPE != 0.02156313 || freq.Thermo.Gibbs == nil || *freq.Thermo.Gibbs != -75.31943462 ||
		len(freq.Warnings) != 0 {
		t.Errorf("frequency step: energies %v frequencies %v thermo %+v warnings %v", energies(freq), freq.Frequencies, freq.Thermo, freq.Warnings)
	}
}
