package nwchem_test

import (
	"bytes"
	"testing"

	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestMultiTaskSteps: an NWChem input with three task lines (scf energy,
// scf optimize, scf frequencies) gives three calculations; the frequency
// task starts from the optimised geometry; each step's SCF energies are
// those Debian's cclib parses from that task's part of the log.
func TestMultiTaskSteps(t *testing.T) {
	const rel = "nwchem/generated/water_hf_sto3g_sp_freq.out"
	data := qmtest.Read(t, rel)
	c, err := nwchem.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []qm.JobType{qm.JobEnergy, qm.JobOptimization, qm.JobFrequency}
	if len(c.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(c.Steps))
	}
	for i, s := range c.Steps {
		if len(s.JobTypes) != 1 || s.JobTypes[0] != want[i] || !s.NormalTermination || s.Multiplicity == nil || *s.Multiplicity != 1 {
			t.Errorf("step %d: jobs %v normal %v mult %v", i+1, s.JobTypes, s.NormalTermination, s.Multiplicity)
		}
	}
	if opt := c.Steps[1]; opt.Optimization == nil || !opt.Optimization.Converged {
		t.Errorf("optimisation step: %+v", opt.Optimization)
	}
	if !qm.SameGeometry(c.Steps[2].FinalGeometry(), c.Steps[1].FinalGeometry()) {
		t.Error("the frequency task does not start from the optimised geometry")
	}
	if len(c.Steps[2].Frequencies) != 3 || c.Steps[2].Thermo.ZPE == nil {
		t.Errorf("frequency step: %v, thermo %+v", c.Steps[2].Frequencies, c.Steps[2].Thermo)
	}
	// The banner and the input module with its geometry (a task that prints
	// none, like the frequency task, makes cclib fail without atoms).
	prefix := bytes.Index(data, []byte("NWChem SCF Module"))
	prefix = bytes.LastIndexByte(data[:prefix], '\n') + 1
	ref := qmtest.CclibStepEnergies(t, data, prefix, false, func(l []byte) bool {
		return bytes.HasPrefix(bytes.TrimSpace(l), []byte("Task  times"))
	})
	// The last piece (after the last task) holds no SCF: drop it.
	if len(ref) == 4 && ref[3] == nil || len(ref) == 4 && len(ref[3]) == 0 {
		ref = ref[:3]
	}
	t.Logf("%d SCF energies compared with cclib per step", qmtest.CheckStepEnergies(t, rel, c, ref))
}

// TestMaxSteps: a log of more tasks than qm.MaxSteps makes at most
// qm.MaxSteps calculations; the rest is read into the last, with a warning.
func TestMaxSteps(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(" Northwest Computational Chemistry Package (NWChem) 7.0.2\n")
	for i := 0; i < 3*qm.MaxSteps; i++ {
		b.WriteString("                                 NWChem SCF Module\n         Total SCF energy =    -74.963023128776\n Task  times  cpu:        0.0s     wall:        0.1s\n")
	}
	b.WriteString(" Total times  cpu:        0.1s     wall:        0.3s\n")
	c, err := nwchem.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != qm.MaxSteps || len(c.Steps[qm.MaxSteps-1].SCF) != 2*qm.MaxSteps+1 || len(c.Warnings) == 0 {
		t.Errorf("%d steps, last with %d SCF, warnings %v", len(c.Steps), len(c.Steps[len(c.Steps)-1].SCF), c.Warnings)
	}
}
