package xtb_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
	"github.com/molgraph/molgraph/parsers/xtb"
)

// The logs of testdata/heldout were made after the parser was written,
// with Debian's xtb 6.5.1 by parsers/qm/testdata/heldout/generate.sh from
// the structure and NAME.args (options) files beside them: a charged
// molecule with --ohess, a --uhf 2 triplet, a 20-atom optimisation with
// --opt tight, ALPB water with --ohess, GFN1 on an anion, an SDF input, a
// --grad run, --hess without optimisation, and two runs that stop with an
// error (an SDF xtb cannot read; --vipea without the IPEA parameter file).
// Neither cclib master (IndexError) nor Debian's 1.6.2 (IndexError) reads
// any of them (cclib_*.json): expected values are read from the log text.
func TestHeldoutLogs(t *testing.T) {
	for _, tc := range []struct {
		file, method, solvent string
		charge, mult          int
		natoms                int
		opt                   bool
		steps                 int // optimisation cycles ("CONVERGED AFTER n ITERATIONS")
		freqs                 int
		homo                  int
	}{
		{"nh4_ohess.out", "GFN2-xTB", "", 1, 1, 5, true, 5, 9, 3},
		{"o2_triplet.out", "GFN2-xTB", "", 0, 3, 2, false, 0, 0, 6},
		{"hexane_opt.out", "GFN2-xTB", "", 0, 1, 20, true, 39, 0, 18},
		{"glycine_alpb.out", "GFN2-xTB", "ALPB", 0, 1, 10, true, 6, 24, 14},
		{"acetate_gfn1.out", "GFN1-xTB", "", -1, 1, 7, true, 6, 0, 11},
		{"ethanol_sdf.out", "GFN2-xTB", "", 0, 1, 9, false, 0, 0, 9},
		{"water_grad.out", "GFN1-xTB", "", 0, 1, 3, false, 0, 0, 3},
		{"water_hess.out", "GFN2-xTB", "", 0, 1, 3, false, 0, 3, 3},
	} {
		log, c := readHeldout(t, tc.file)
		e, _ := c.FinalEnergy()
		natoms := len(c.FinalGeometry())
		if natoms == 0 {
			natoms = len(c.AtomicNumbers)
		}
		if c.Method != tc.method || c.SolventModel != tc.solvent || c.Charge == nil || *c.Charge != tc.charge ||
			c.Multiplicity == nil || *c.Multiplicity != tc.mult || natoms != tc.natoms || !c.NormalTermination ||
			e != lastPrinted(t, log, `\| TOTAL ENERGY\s+(\S+) Eh`) {
			t.Errorf("%s: method %q solvent %q charge %v mult %v natoms %d normal %v energy %v", tc.file, c.Method, c.SolventModel,
				c.Charge, c.Multiplicity, natoms, c.NormalTermination, e)
		}
		if tc.opt != (c.Optimization != nil) || tc.opt && (!c.Optimization.Converged || c.Optimization.Steps != tc.steps ||
			float64(tc.steps) != lastPrinted(t, log, `CONVERGED AFTER (\d+) ITERATIONS`)) {
			t.Errorf("%s: optimization %+v", tc.file, c.Optimization)
		}
		if len(c.Frequencies) != tc.freqs {
			t.Errorf("%s: %d frequencies, want %d", tc.file, len(c.Frequencies), tc.freqs)
		}
		if tc.freqs > 0 {
			if c.Thermo.Enthalpy == nil || *c.Thermo.Enthalpy != lastPrinted(t, log, `\| TOTAL ENTHALPY\s+(\S+) Eh`) ||
				c.Thermo.Gibbs == nil || *c.Thermo.Gibbs != lastPrinted(t, log, `\| TOTAL FREE ENERGY\s+(\S+) Eh`) ||
				c.Thermo.ZPE == nil || *c.Thermo.ZPE != lastPrinted(t, log, `:: zero point energy\s+(\S+) Eh`) {
				t.Errorf("%s: thermo %+v", tc.file, c.Thermo)
			}
		}
		// The HOMO: "(HOMO)" row of the last orbital table, in hartree.
		if c.Orbitals == nil || len(c.Orbitals.HOMO) != 1 || c.Orbitals.HOMO[0] != tc.homo {
			t.Errorf("%s: orbitals %+v", tc.file, c.Orbitals)
		} else if h, ok := c.Orbitals.HOMOEnergy(0); !ok || h != lastPrinted(t, log, `\s(\S+)\s+\S+ \(HOMO\)`) {
			t.Errorf("%s: HOMO %v Eh", tc.file, h)
		}
	}
}

// TestHeldoutFailures: an SDF xtb cannot read ("unexpected value") and a
// --vipea run without param_ipea-xtb.txt stop with "[ERROR] Program
// stopped due to fatal error": not normal terminations, with the error
// as a warning, and no method (no Hamiltonian was set up).
func TestHeldoutFailures(t *testing.T) {
	for _, name := range []string{"sdf_bad.out", "vipea.out"} {
		_, c := readHeldout(t, name)
		if c.NormalTermination || len(c.Warnings) == 0 || !strings.Contains(c.Warnings[0], "fatal error") || len(c.SCF) != 0 {
			t.Errorf("%s: normal %v warnings %v SCF %v", name, c.NormalTermination, c.Warnings, c.SCF)
		}
	}
	ref := qmtest.CclibJSON(t, "heldout", "master")
	if r := ref["nh4_ohess.out"]; !strings.Contains(r.Error, "IndexError") {
		t.Errorf("cclib master reads nh4_ohess.out now (%+v): compare with it", r)
	}
}

func readHeldout(t *testing.T, name string) ([]byte, *qm.Calculation) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "heldout", name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := xtb.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return data, c
}
