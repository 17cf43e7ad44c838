package orca_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

func parseCclib(t *testing.T, name string) *qm.Calculation {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "cclib", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := orca.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// TestCorrelatedEnergies: cclib's ORCA 5.0/6.0 water logs (testdata/cclib,
// README.md). Values as printed: "MP2 TOTAL ENERGY:      -74.999373815
// Eh" (MP2 module); "E(MP2)  =    -74.999374371   EC(MP2)=
// -0.035800128" and "E(MP3)  =    -75.009120634" (MDCI's MP3);
// "E(TOT) ... -75.013487814" of the COUPLED CLUSTER ENERGY block (CCSD);
// "E(CCSD) ... -75.013487814", "E(CCSD(T)) ... -75.013556310" after the
// triples. The MDCI initial guess "E(MP2) ... -0.035800128" of the CC runs
// is a correlation energy and is not kept.
func TestCorrelatedEnergies(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []qm.CorrelatedEnergy
	}{
		{"ORCA5.0_water_mp2.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -74.999373815}}},
		{"ORCA5.0_water_mp3.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -74.999374371}, {Method: "MP3", Energy: -75.009120634}}},
		{"ORCA5.0_water_ccsd.out", []qm.CorrelatedEnergy{{Method: "CCSD", Energy: -75.013487814}}},
		{"ORCA5.0_water_ccsd_t.out", []qm.CorrelatedEnergy{{Method: "CCSD", Energy: -75.013487814}, {Method: "CCSD(T)", Energy: -75.013556310}}},
		{"ORCA6.0_water_mp2.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -74.999374598}}},
		{"ORCA6.0_water_mp3.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -74.999374616}, {Method: "MP3", Energy: -75.009120941}}},
		{"ORCA6.0_water_ccsd.out", []qm.CorrelatedEnergy{{Method: "CCSD", Energy: -75.013487814}}},
		{"ORCA6.0_water_ccsd_t.out", []qm.CorrelatedEnergy{{Method: "CCSD", Energy: -75.013487814}, {Method: "CCSD(T)", Energy: -75.013556306}}},
	} {
		qmtest.CheckCorrelated(t, tc.file, parseCclib(t, tc.file), tc.want)
	}
}

// TestCclibORCAMP2IsCorrelationEnergy documents cclib master's error on
// ORCA's MDCI module: it stores the MP2 *correlation* energy as the MP2
// total energy (mpenergies[0][0] = -0.0358 Eh from "EC(MP2)=
// -0.035800128" of an MP3 run and from the initial guess "E(MP2) ...
// -0.035800128" of a CCSD run), while its CC and MP3 totals match ours.
func TestCclibORCAMP2IsCorrelationEnergy(t *testing.T) {
	ref := qmtest.CclibJSON(t, "cclib", "master")
	for _, name := range []string{"ORCA5.0_water_mp3.out", "ORCA5.0_water_ccsd.out", "ORCA6.0_water_ccsd_t.out"} {
		r := ref[name]
		c := parseCclib(t, name)
		if len(r.MP) == 0 || !qmtest.Near(r.MP[0][0], -0.0358, 1e-3) {
			t.Errorf("%s: cclib mpenergies %v: no longer the correlation energy (fixed upstream?)", name, r.MP)
		}
		if len(r.CC) > 0 {
			last := c.Correlated[len(c.Correlated)-1]
			if !qmtest.Near(r.CC[0], last.Energy, qmtest.CclibEnergyTol) {
				t.Errorf("%s: cclib cc %v, ours %v", name, r.CC, last)
			}
		}
		if _, ok := c.CorrelatedEnergyOf("MP2"); ok && name != "ORCA5.0_water_mp3.out" {
			t.Errorf("%s: an MP2 total kept from a CC run's initial guess", name)
		}
	}
}

// TestEOMCoupledCluster: cclib's ORCA 5.0 "! EOM-CCSD" and "!
// bt-PNO-EOM-CCSD" logs: the level of theory is the EOM method (both were
// labelled HF: the keywords were not known) and the ground state's E(TOT)
// of the COUPLED CLUSTER ENERGY block is the CCSD energy ("E(TOT) ...
// -380.500397409", "-380.498710783"), as cclib master's ccenergies.
func TestEOMCoupledCluster(t *testing.T) {
	ref := qmtest.CclibJSON(t, "cclib", "master")
	for _, tc := range []struct {
		file, method string
		ccsd         float64
	}{
		{"ORCA5.0_dvb_eom_ccsd.log", "EOM-CCSD", -380.500397409},
		{"ORCA5.0_dvb_pno_eom_ccsd.log", "BT-PNO-EOM-CCSD", -380.498710783},
	} {
		c := parseCclib(t, tc.file)
		if e, ok := c.CorrelatedEnergyOf("CCSD"); c.Method != tc.method || !ok || e != tc.ccsd {
			t.Errorf("%s: method %q CCSD %v %v", tc.file, c.Method, e, ok)
		}
		if r := ref[tc.file]; len(r.CC) != 1 || !qmtest.Near(r.CC[0], tc.ccsd, qmtest.CclibEnergyTol) {
			t.Errorf("%s: cclib cc %v", tc.file, r.CC)
		}
	}
}

// TestDispersionInSCFEnergy: cclib's ORCA 5.0 BP86-D3(zero) log prints
// "Total Energy       :         -382.31695946 Eh" for the SCF and then
// "Dispersion correction           -0.014719932" ("FINAL SINGLE POINT
// ENERGY      -382.331679396225"). The SCF energy includes the dispersion,
// as Gaussian's "SCF Done" and NWChem's "Total DFT energy" do and as
// cclib master's scfenergies (-382.33167939); it was the energy without.
func TestDispersionInSCFEnergy(t *testing.T) {
	c := parseCclib(t, "ORCA5.0_dvb_dispersion_bp86_d3zero.out")
	e, _ := c.FinalEnergy()
	if len(c.SCF) != 1 || math.Abs(e-(-382.31695946-0.014719932)) > 1e-12 || math.Abs(e-(-382.331679396225)) > 1e-8 {
		t.Errorf("SCF %v", c.SCFEnergies())
	}
	if r := qmtest.CclibJSON(t, "cclib", "master")["ORCA5.0_dvb_dispersion_bp86_d3zero.out"]; len(r.SCF) != 1 || !qmtest.Near(r.SCF[0], e, qmtest.CclibEnergyTol) {
		t.Errorf("cclib %v", r.SCF)
	}
}
