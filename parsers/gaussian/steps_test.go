package gaussian_test

import (
	"bytes"
	"testing"

	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestLink1Steps: Gaussian "opt freq" logs run the frequencies as a second
// (Link1) job step; each becomes a calculation of its own, the first the
// optimisation and the second the frequencies, and each step's SCF energies
// are those Debian's cclib parses from that step's part of the log.
func TestLink1Steps(t *testing.T) {
	for _, rel := range []string{"gaussian/Gaussian16/co_pbe1pbe_631ppGss.log", "gaussian/Gaussian16/Benzene_anion.log"} {
		data := qmtest.Read(t, rel)
		c, err := gaussian.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Steps) != 2 || !c.Steps[0].HasJob(qm.JobOptimization) || c.Steps[0].HasJob(qm.JobFrequency) ||
			!c.Steps[1].HasJob(qm.JobFrequency) || c.Steps[1].Optimization != nil || len(c.Steps[1].Frequencies) == 0 {
			t.Fatalf("%s: steps %d, want optimisation then frequencies", rel, len(c.Steps))
		}
		for i, s := range c.Steps {
			if !s.NormalTermination || s.ProgramVersion == "" || s.Charge == nil || s.Multiplicity == nil || len(s.FinalGeometry()) == 0 {
				t.Errorf("%s step %d: %+v", rel, i+1, s)
			}
		}
		banner := bytes.Index(data, []byte("Gaussian, Inc."))
		banner += bytes.IndexByte(data[banner:], '\n') + 1
		ref := qmtest.CclibStepEnergies(t, data, banner, true, func(l []byte) bool {
			return bytes.HasPrefix(bytes.TrimSpace(l), []byte("Link1:  Proceeding to internal job step"))
		})
		t.Logf("%s: %d SCF energies compared with cclib per step", rel, qmtest.CheckStepEnergies(t, rel, c, ref))
	}
}
