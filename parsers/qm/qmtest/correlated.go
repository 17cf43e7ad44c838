package qmtest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/molgraph/molgraph/parsers/qm"
)

// CclibValues is one log's entry of a cclib_<which>.json file written by
// parsers/qm/testdata/heldout/cclib_values.py: cclib's parse, energies
// converted back from eV to hartree with cclib's own factor.
type CclibValues struct {
	Error      string      `json:"error"`
	SCF        []float64   `json:"scf"`
	MP         [][]float64 `json:"mp"`
	CC         []float64   `json:"cc"`
	Charge     *int        `json:"charge"`
	Mult       *int        `json:"mult"`
	AtomNos    []int       `json:"atomnos"`
	CoordsLast [][]float64 `json:"coords_last"`
	NGeoms     int         `json:"ngeoms"`
	VibFreqs   []float64   `json:"vibfreqs"`
	VibIRs     []float64   `json:"vibirs"`
	Homos      []int       `json:"homos"`
	OptDone    *bool       `json:"optdone"`
	ZPVE       *float64    `json:"zpve"`
	Enthalpy   *float64    `json:"enthalpy"`
	FreeEnergy *float64    `json:"freeenergy"`
	Mulliken   []float64   `json:"mulliken"`
	Methods    []string    `json:"methods"`
	Success    *bool       `json:"success"`
}

// CclibJSON reads testdata/<dir>/cclib_<which>.json ("master": cclib at
// 21daa960; "debian": Debian's python3-cclib 1.6.2).
func CclibJSON(tb testing.TB, dir, which string) map[string]CclibValues {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", dir, "cclib_"+which+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]CclibValues
	if err := json.Unmarshal(data, &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

// CclibEnergyTol is how far an energy cclib printed in eV and converted
// back may be from the log's hartree value (cclib keeps ~1e-9 relative).
const CclibEnergyTol = 1e-6

// CheckCorrelated compares c.Correlated with want (method and value, in
// order), exactly: want holds the numbers as the log prints them.
func CheckCorrelated(t *testing.T, name string, c *qm.Calculation, want []qm.CorrelatedEnergy) {
	t.Helper()
	if len(c.Correlated) != len(want) {
		t.Errorf("%s: correlated %v, want %v", name, c.Correlated, want)
		return
	}
	for i, w := range want {
		if g := c.Correlated[i]; g.Method != w.Method || g.Energy != w.Energy {
			t.Errorf("%s: correlated %d = %v, want %v", name, i, g, w)
		}
	}
}

// Near reports whether a and b agree within tol.
func Near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// CheckAmongCorrelated checks that each of cclib's energies (want) is
// within CclibEnergyTol of one of c's correlated energies, and returns how
// many it compared.
func CheckAmongCorrelated(t *testing.T, name string, c *qm.Calculation, want []float64) int {
	t.Helper()
	for _, w := range want {
		found := false
		for _, x := range c.Correlated {
			found = found || Near(x.Energy, w, CclibEnergyTol)
		}
		if !found {
			t.Errorf("%s: cclib's %.9f not among ours %v", name, w, c.Correlated)
		}
	}
	return len(want)
}
