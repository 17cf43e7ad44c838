package nwchem_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestCorrelatedEnergies: total energies of NWChem's MP2 module ("Total MP2
// energy           -75.002378700325"), CCSD module ("Total MP2 energy:",
// "Total CCSD energy:", "Total CCSD(T) energy:"; "Total CCSD+T(CCSD)
// energy:" is not kept) and TCE ("CCSD total energy / hartree       =
// -75.017758156124472", "CCSD(T) total energy / hartree"; "CCSD[T]" is not
// kept), as the logs print them. cclib master agrees on every MP2 and
// highest CC energy (TestCorrelatedAgainstCclib).
func TestCorrelatedEnergies(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []qm.CorrelatedEnergy
	}{
		{"cclib/NWChem6.0_water_mp2.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -75.002378700404}}},
		{"cclib/NWChem7.0_water_mp2.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -75.002378700325}}},
		{"cclib/NWChem6.0_water_ccsdt.out", []qm.CorrelatedEnergy{{Method: "CCSD", Energy: -75.017758156204778}, {Method: "CCSD(T)", Energy: -75.017834858993538}}},
		{"cclib/NWChem7.0_water_ccsdt.out", []qm.CorrelatedEnergy{{Method: "CCSD", Energy: -75.017758156124472}, {Method: "CCSD(T)", Energy: -75.017834858913247}}},
		{"generated/tce.out", []qm.CorrelatedEnergy{{Method: "CCSD", Energy: -75.012461681003884}}},
		{"generated/ccsd.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -74.998568775083612}, {Method: "CCSD", Energy: -75.012461697596791}}},
		// Held out (inputs beside the logs): "task ccsd(t)" on water/6-31G.
		{"heldout/ccsd_t.out", []qm.CorrelatedEnergy{{Method: "MP2", Energy: -76.112825384344916}, {Method: "CCSD", Energy: -76.119353995815544},
			{Method: "CCSD(T)", Energy: -76.120349855891646}}},
	} {
		f, err := os.Open(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		c, err := nwchem.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		qmtest.CheckCorrelated(t, tc.file, c, tc.want)
	}
}

// TestCorrelatedAgainstCclib: cclib master's MP2 and CC energies of the
// correlated logs of testdata/cclib are among ours.
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
		c, err := nwchem.Parse(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		n += qmtest.CheckAmongCorrelated(t, name, c, want)
	}
	if n < 6 {
		t.Errorf("only %d cclib energies compared", n)
	}
}
