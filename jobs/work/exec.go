package work

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/molgraph/molgraph/jobs/queue"
)

// DockTask is the body of a docking unit on a queue: the job's shared
// settings, the receptor's digest (queue.Inputs) and the ligand.
type DockTask struct {
	Job      DockJob  `json:"job"`
	Receptor string   `json:"receptor"`
	Unit     DockUnit `json:"unit"`
}

// Engine is the fingerprint of a docking executor: the molgraph build,
// the RDKit version the process runs (ligand conformers, stereoisomers and
// pose checks come from RDKit) and the vina version (poses), as one
// subject-safe token.
func Engine(build, rdkitVersion, vinaVersion string) string {
	return engineToken("mg" + build + "-rdkit" + rdkitVersion + "-vina" + vinaVersion)
}

// engineToken maps s to a subject-safe token.
func engineToken(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// DockExecutor runs docking units from a queue: one ligand with one vina
// process (--cpu 1 unless the job says otherwise), the receptor fetched
// from inputs. The ligand's own failure is in the outcome; an error is a
// worker fault (the receptor cannot be had, temporary files) or the end
// of ctx.
func DockExecutor(d *Docker, inputs queue.Inputs) queue.Executor {
	return func(ctx context.Context, u queue.Unit, runs int) ([]byte, error) {
		var t DockTask
		if err := json.Unmarshal(u.Body, &t); err != nil {
			// Not a fault of this worker: a failure outcome, never retried.
			return json.Marshal(DockOutcome{Job: string(u.Job), Ligand: u.Key, Failure: "invalid docking unit: " + err.Error()})
		}
		rec, err := inputs.GetInput(ctx, t.Receptor)
		if err != nil {
			return nil, err
		}
		if t.Job.Params.CPU == 0 {
			t.Job.Params.CPU = 1
		}
		var out *DockOutcome
		err = d.DockEach(ctx, t.Job, rec, []DockUnit{t.Unit}, nil, 1, func(o DockOutcome) { out = &o })
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", queue.ErrFault, err)
		}
		if out == nil {
			return nil, fmt.Errorf("%w: ligand %s: no outcome", queue.ErrFault, u.Key)
		}
		return json.Marshal(out)
	}
}
