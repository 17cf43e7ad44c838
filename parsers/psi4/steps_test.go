package psi4_test

import (
	"bytes"
	"testing"

	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestDriverCallSteps: a Psi4 input with optimize() then frequency() gives
// two calculations, the optimisation and the frequencies; the frequency
// call starts from the optimised geometry; each step's SCF energies are
// those Debian's cclib parses from that call's part of the log.
func TestDriverCallSteps(t *testing.T) {
	const rel = "psi4/Psi4-1.2/ch4_hf_opt_freq.out"
	data := qmtest.Read(t, rel)
	c, err := psi4.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(c.Steps))
	}
	opt, freq := c.Steps[0], c.Steps[1]
	if len(opt.JobTypes) != 1 || opt.JobTypes[0] != qm.JobOptimization || opt.Optimization == nil || !opt.Optimization.Converged ||
		len(freq.JobTypes) != 1 || freq.JobTypes[0] != qm.JobFrequency || freq.Optimization != nil || len(freq.Frequencies) != 9 {
		t.Fatalf("steps: %v %+v / %v %+v %d frequencies", opt.JobTypes, opt.Optimization, freq.JobTypes, freq.Optimization, len(freq.Frequencies))
	}
	if !qm.SameGeometry(freq.InputGeometry(), opt.FinalGeometry()) {
		t.Error("the frequency call does not start from the optimised geometry")
	}
	if !opt.NormalTermination || !freq.NormalTermination || !c.NormalTermination {
		t.Error("normal termination false")
	}
	// cclib is given each call's text (the second with the banner and input
	// echo before it, which cclib needs to recognise Psi4).
	prefix := bytes.Index(data, []byte("*** tstart() called"))
	optDone := false
	ref := qmtest.CclibStepEnergies(t, data, prefix, true, func(l []byte) bool {
		t := bytes.TrimSpace(l)
		if bytes.Contains(t, []byte("Optimization is complete")) || bytes.HasPrefix(t, []byte("Final optimized geometry")) {
			optDone = true
		}
		if optDone && bytes.HasPrefix(t, []byte("*** tstart() called")) {
			optDone = false
			return true
		}
		return false
	})
	t.Logf("%d SCF energies compared with cclib per step", qmtest.CheckStepEnergies(t, rel, c, ref))
}

// TestDriverCallsNotSplit: calls inside a block (a loop here) cannot be
// matched to the output, nor can correlated methods' modules: such logs
// stay one calculation.
func TestDriverCallsNotSplit(t *testing.T) {
	data := qmtest.Read(t, "psi4/generated/water_hf_sto3g_sp_freq.out")
	whole, err := psi4.Parse(bytes.NewReader(data))
	if err != nil || len(whole.Steps) != 3 {
		t.Fatalf("the log as it is: %v, %d steps", err, len(whole.Steps))
	}
	for name, edit := range map[string][2]string{
		"loop":       {"energy('scf')\noptimize('scf')\nfrequency('scf')\n", "for i in range(1):\n    energy('scf')\noptimize('scf')\nfrequency('scf')\n"},
		"correlated": {"energy('scf')\n", "energy('mp2')\n"},
	} {
		edited := bytes.Replace(data, []byte(edit[0]), []byte(edit[1]), 1)
		if bytes.Equal(edited, data) {
			t.Fatalf("%s: the edit did not apply", name)
		}
		c, err := psi4.Parse(bytes.NewReader(edited))
		if err != nil {
			t.Fatal(err)
		}
		if c.Steps != nil {
			t.Errorf("%s: %d steps, want one calculation", name, len(c.Steps))
		}
	}
}
