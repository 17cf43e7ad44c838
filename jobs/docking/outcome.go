package docking

import (
	"bytes"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/ontology"
)

// Bounds on what a worker's outcome may hold (a queued job's outcomes
// come from other processes, through NATS, from anyone holding the
// credentials): checked before anything of it is stored.
const (
	maxOutcomeFailure      = 4 << 10 // bytes of a failure message kept
	maxPoseSDF             = 1 << 20
	maxPoseInteractions    = 10_000
	maxOutcomeAffinityKcal = 1e4
	maxOutcomeRMSD         = 1e4
)

// checkOutcome checks a decoded worker outcome against the job's
// settings: poses numbered 1..n with n at most num_modes, finite
// affinities and RMSDs, an SDF per pose, isomers within the stereoisomer
// cap. It returns why the outcome cannot be stored ("" when it can).
func checkOutcome(d *work.DockOutcome, set ontology.DockingSettings) string {
	if d.Failure != "" {
		if len(d.Failure) > maxOutcomeFailure {
			d.Failure = d.Failure[:maxOutcomeFailure] + "..."
		}
		if !utf8.ValidString(d.Failure) {
			d.Failure = string(bytes.ToValidUTF8([]byte(d.Failure), []byte("?")))
		}
		return ""
	}
	finite := func(v, bound float64) bool { return !math.IsNaN(v) && math.Abs(v) <= bound }
	if len(d.Poses) > max(set.NumModes, 1) {
		return fmt.Sprintf("%d poses for num_modes %d", len(d.Poses), set.NumModes)
	}
	for i, p := range d.Poses {
		switch {
		case p.Mode != i+1:
			return fmt.Sprintf("pose %d numbered %d", i+1, p.Mode)
		case !finite(p.Affinity, maxOutcomeAffinityKcal):
			return fmt.Sprintf("pose %d: affinity %v kcal/mol", p.Mode, p.Affinity)
		case !finite(p.RMSDLB, maxOutcomeRMSD) || !finite(p.RMSDUB, maxOutcomeRMSD) || p.RMSDLB < 0 || p.RMSDUB < 0:
			return fmt.Sprintf("pose %d: rmsd %v/%v", p.Mode, p.RMSDLB, p.RMSDUB)
		case len(p.SDF) == 0 || len(p.SDF) > maxPoseSDF || !bytes.Contains(p.SDF, []byte("M  END")):
			return fmt.Sprintf("pose %d: not an SDF record (%d bytes)", p.Mode, len(p.SDF))
		case len(p.Interactions) > maxPoseInteractions:
			return fmt.Sprintf("pose %d: %d interactions", p.Mode, len(p.Interactions))
		}
		for _, c := range p.Checks {
			if c.Value != nil && math.IsNaN(*c.Value) {
				return fmt.Sprintf("pose %d: check %s is NaN", p.Mode, c.Name)
			}
		}
	}
	if len(d.Isomers) > chem.MaxStereoisomers || d.Isomer < 0 || d.Isomer > len(d.Isomers) {
		return fmt.Sprintf("isomer %d of %d", d.Isomer, len(d.Isomers))
	}
	return ""
}
