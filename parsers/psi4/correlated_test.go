package psi4_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestCorrelatedEnergies: ccenergy's "* MP2 total energy =
// -75.002378705145773", "* CCSD total energy", "* CCSD(T) total energy";
// dfmp2's "Total Energy = -75.0024556907484765 [Eh]" in its DF-MP2
// Energies block (the SCS block after it is not kept); occ's "MP2 Total
// Energy (a.u.)            :   -76.11282538992641" (its SCS/SOS variants
// are not kept). Values as printed; cclib master agrees on every value it
// keeps (it keeps no MP2 of a CC run).
func TestCorrelatedEnergies(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []qm.CorrelatedEnergy
	}{
		{"cclib/Psi4-1.7_water_mp2.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -75.0024556907484765}}},
		{"cclib/Psi4-1.7_water_ccsd.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -75.002378705145773}, {Method: "CCSD", Energy: -75.017758177656503}}},
		{"cclib/Psi4-1.7_water_ccsdt.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -75.002378705145773}, {Method: "CCSD", Energy: -75.017758177656503},
			{Method: "CCSD(T)", Energy: -75.017834880709472}}},
		{"generated/mp2.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -76.11282538992641}}},
		{"generated/ccsdt.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -74.998568790214165}, {Method: "CCSD", Energy: -75.012461703956532},
			{Method: "CCSD(T)", Energy: -75.012529113637513}}},
	} {
		f, err := os.Open(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		c, err := psi4.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		qmtest.CheckCorrelated(t, tc.file, c, tc.want)
	}
}

// TestCorrelatedAgainstCclib: cclib master's MP2 and CC energies of the
// correlated logs of testdata/cclib (Psi4 1.2.1, 1.3.1, 1.7) are ours.
func TestCorrelatedAgainstCclib(t *testing.T) {
	n := 0
	for name, r := range qmtest.CclibJSON(t, "cclib", "master") {
		var want []float64
		for _, row := range r.MP {
			want = append(want, row[len(row)-1])
		}
		want = append(want, r.CC...)
		if len(want) == 0 {
			continue
		}
		f, err := os.Open(filepath.Join("testdata", "cclib", name))
		if err != nil {
			t.Fatal(err)
		}
		c, err := psi4.Parse(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		n += qmtest.CheckAmongCorrelated(t, name, c, want)
	}
	if n < 9 {
		t.Errorf("only %d cclib energies compared", n)
	}
}
