package orca_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

func readMultijob(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "multijob", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jobNumber reports whether l is a "$$$ JOB NUMBER n $$$" banner with n ≥ 2.
func jobNumber(l []byte) bool {
	i := bytes.Index(l, []byte("JOB NUMBER"))
	return i >= 0 && bytes.HasPrefix(bytes.TrimLeft(l, " "), []byte("$")) && !bytes.Contains(l, []byte("JOB NUMBER  1 "))
}

// TestNewJobSteps: ORCA 4.1 with three jobs joined by $new_job (cclib issue
// 736's log) gives three calculations: each with its own keywords and basis
// from the input echo and the basis announcements, each starting from the
// previous one's final geometry, and each step's SCF energies those Debian's
// cclib parses from that job's part of the log (cclib itself reads the
// three jobs as one).
func TestNewJobSteps(t *testing.T) {
	const name = "orca_from_issue_736.out"
	data := readMultijob(t, name)
	c, err := orca.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(c.Steps))
	}
	want := []struct {
		basis string
		jobs  []qm.JobType
		nfreq int
	}{
		{"def2-SVP", []qm.JobType{qm.JobOptimization}, 0},
		{"def2-TZVP", []qm.JobType{qm.JobOptimization}, 0},
		{"def2-TZVP", []qm.JobType{qm.JobOptimization, qm.JobFrequency}, 27}, // 3·11 − 6
	}
	for i, s := range c.Steps {
		w := want[i]
		if s.Method != "B3LYP" || s.BasisSet != w.basis || len(s.JobTypes) != len(w.jobs) || len(s.Frequencies) != w.nfreq {
			t.Errorf("step %d: %s/%s %v, %d frequencies; want B3LYP/%s %v, %d", i+1, s.Method, s.BasisSet, s.JobTypes, len(s.Frequencies), w.basis, w.jobs, w.nfreq)
		}
		for _, j := range w.jobs {
			if !s.HasJob(j) {
				t.Errorf("step %d: job types %v lack %s", i+1, s.JobTypes, j)
			}
		}
		if s.Charge == nil || *s.Charge != -1 || s.Multiplicity == nil || *s.Multiplicity != 1 {
			t.Errorf("step %d: charge %v multiplicity %v, want -1 and 1", i+1, s.Charge, s.Multiplicity)
		}
		if s.Optimization == nil || !s.Optimization.Converged || !s.NormalTermination || s.WallTime == nil {
			t.Errorf("step %d: optimization %+v, normal termination %v, wall time %v", i+1, s.Optimization, s.NormalTermination, s.WallTime)
		}
		if i > 0 && !qm.SameGeometry(s.InputGeometry(), c.Steps[i-1].FinalGeometry()) {
			t.Errorf("step %d does not start from step %d's final geometry", i+1, i)
		}
	}
	if c.Steps[2].Thermo.ZPE == nil || c.Steps[0].Thermo.ZPE != nil {
		t.Error("thermochemistry not in the frequency job alone")
	}
	if !c.NormalTermination {
		t.Error("group: normal termination false")
	}
	// cclib is given each job's text, the second and third after the
	// banner and input echo (up to "JOB NUMBER  1"), which cclib needs.
	prefix := bytes.Index(data, []byte("$$$$$$$$$$$$$$$$  JOB NUMBER  1"))
	prefix = bytes.LastIndexByte(data[:prefix], '\n') + 1
	steps := qmtest.CclibSteps(t, data, prefix, true, jobNumber)
	t.Logf("%d SCF energies compared with cclib per step", qmtest.CheckStepEnergies(t, name, c, qmtest.StepSCF(steps)))
	// The wavenumbers of the frequency job, and none in the others.
	for i, s := range steps {
		got := c.Steps[i].Frequencies
		if len(got) != len(s.Vib) {
			t.Errorf("step %d: %d wavenumbers, cclib %d", i+1, len(got), len(s.Vib))
			continue
		}
		for k := range got {
			if math.Abs(got[k]-s.Vib[k]) > 1e-6 {
				t.Errorf("step %d mode %d: %.2f cm⁻¹, cclib %.2f", i+1, k+1, got[k], s.Vib[k])
			}
		}
	}
	t.Logf("%d wavenumbers compared with cclib in step 3", len(steps[2].Vib))
}

// TestNewJobTruncated: a run cut inside its second job has two steps, the
// second not terminated normally, and so the group neither; both logs cut
// anywhere never terminate normally nor give more results than whole.
func TestNewJobTruncated(t *testing.T) {
	for _, name := range []string{"orca_from_issue_736.out", "1618.out"} {
		data := readMultijob(t, name)
		full, err := orca.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		qmtest.Truncations(t, name, data, orca.Parse, full, 40)
	}
	data := readMultijob(t, "orca_from_issue_736.out")
	cut := bytes.Index(data, []byte("JOB NUMBER  3"))
	cut = bytes.LastIndex(data[:cut], []byte("FINAL SINGLE POINT ENERGY"))
	c, err := orca.Parse(bytes.NewReader(data[:cut]))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 2 || !c.Steps[0].NormalTermination || c.Steps[1].NormalTermination || c.NormalTermination {
		t.Fatalf("%d steps, termination %v (group %v); want 2, [true false] (false)", len(c.Steps), stepTerm(c), c.NormalTermination)
	}
}

func stepTerm(c *qm.Calculation) []bool {
	var b []bool
	for _, s := range c.Steps {
		b = append(b, s.NormalTermination)
	}
	return b
}

// TestCompoundJobSteps: an ORCA 6 compound job (a TightOpt, then an EPR
// single point on its geometry) gives two calculations; the compound
// driver's own header and trailer are no step, and its basis (def2-SVP,
// announced again after the last job) is not the jobs' (pc-1).
func TestCompoundJobSteps(t *testing.T) {
	data := readMultijob(t, "1618.out")
	c, err := orca.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(c.Steps))
	}
	opt, sp := c.Steps[0], c.Steps[1]
	if !opt.HasJob(qm.JobOptimization) || opt.Optimization == nil || !opt.Optimization.Converged || len(opt.SCF) != 5 {
		t.Errorf("step 1: %v %+v, %d SCF; want a converged optimisation of 5 SCF", opt.JobTypes, opt.Optimization, len(opt.SCF))
	}
	if len(sp.JobTypes) != 1 || sp.JobTypes[0] != qm.JobEnergy || sp.Optimization != nil || len(sp.SCF) != 1 {
		t.Errorf("step 2: %v %+v, %d SCF; want one single point", sp.JobTypes, sp.Optimization, len(sp.SCF))
	}
	for i, s := range c.Steps {
		if s.Method != "HF" || s.BasisSet != "pc-1" || s.Charge == nil || *s.Charge != 0 || s.Multiplicity == nil || *s.Multiplicity != 2 ||
			s.ProgramVersion != "6.0.0" || !s.NormalTermination {
			t.Errorf("step %d: %s/%s charge %v mult %v version %q termination %v; want HF/pc-1 0 2 6.0.0 true",
				i+1, s.Method, s.BasisSet, s.Charge, s.Multiplicity, s.ProgramVersion, s.NormalTermination)
		}
	}
	if !qm.SameGeometry(sp.InputGeometry(), opt.FinalGeometry()) {
		t.Error("the single point does not use the optimised geometry")
	}
}

// TestSingleJobUnchanged: a log without job banners reads as one
// calculation (no steps), as before multi-job runs were split.
func TestSingleJobUnchanged(t *testing.T) {
	c, err := orca.Parse(bytes.NewReader(qmtest.Read(t, "orca/basicORCA5.0/dvb_gopt.out")))
	if err != nil || c.Steps != nil {
		t.Fatalf("%v, %d steps", err, len(c.Steps))
	}
}

// TestMaxJobs: a run of more than qm.MaxSteps jobs gives qm.MaxSteps
// calculations, the last holding the rest of the log, with a warning.
func TestMaxJobs(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("                         Program Version 5.0.4\n|  1> ! HF STO-3G\n")
	for i := 1; i <= 3*qm.MaxSteps; i++ {
		fmt.Fprintf(&b, "                 $$$$$$$$$$$$$$$$  JOB NUMBER %2d $$$$$$$$$$$$$$\nTotal Energy       :         -74.96590119 Eh\n", i)
	}
	c, err := orca.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != qm.MaxSteps || len(c.Steps[qm.MaxSteps-1].SCF) != 2*qm.MaxSteps+1 || len(c.Warnings) == 0 {
		t.Errorf("%d steps, last with %d SCF, warnings %v", len(c.Steps), len(c.Steps[len(c.Steps)-1].SCF), c.Warnings)
	}
	if c.Steps[0].Method != "HF" || c.Steps[1].Method != "" {
		t.Errorf("methods %q %q: the echo names the first job only", c.Steps[0].Method, c.Steps[1].Method)
	}
}
