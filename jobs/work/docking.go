package work

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/docking/interact"
	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// KindDock is the kind of a docking unit.
const KindDock = "dock"

// DockJob is what the units of one docking job share.
type DockJob struct {
	JobID      string    `json:"job_id"`      // the job's id (pose file tags and names)
	ReceptorID string    `json:"receptor_id"` // the receptor's id (pose file tags)
	Box        dk.Box    `json:"box"`
	Params     dk.Params `json:"params"`
}

// DockUnit is one ligand of a docking job: the molecule id, its position
// in the job's ligand order and the input its 3D structure is built from
// (the stored conformer's molfile, else the SMILES).
type DockUnit struct {
	Job    string     `json:"job"` // the job IRI
	Ligand string     `json:"ligand"`
	Index  int        `json:"index"`
	Input  chem.Input `json:"input"`
}

// Pose is one docked mode with its reassembled SDF.
type Pose struct {
	Mode     int     `json:"mode"`
	Affinity float64 `json:"affinity"`
	RMSDLB   float64 `json:"rmsd_lb"`
	RMSDUB   float64 `json:"rmsd_ub"`
	SDF      []byte  `json:"sdf"`
	// Interactions with the receptor (docking/interact) and the pose's
	// fingerprint; absent when the receptor's atoms or the ligand's
	// chemistry could not be read for them (the pose is kept).
	Interactions []interact.Interaction `json:"interactions,omitempty"`
	Fingerprint  []string               `json:"fingerprint,omitempty"`
}

// DockOutcome is the outcome of one docking unit: its poses, or the
// reason it failed (a failure of the ligand: vina error, timeout, a
// molecule RDKit refuses). Worker and Host say where it ran, Vina with
// which engine version.
type DockOutcome struct {
	Job     string `json:"job"`
	Ligand  string `json:"ligand"`
	Index   int    `json:"index"`
	Poses   []Pose `json:"poses,omitempty"`
	Failure string `json:"failure,omitempty"`
	Worker  string `json:"worker,omitempty"`
	Host    string `json:"host,omitempty"`
	Vina    string `json:"vina,omitempty"`
}

// Docker is the pure docking executor: ligand inputs in, poses out. It
// never reads or writes the graph.
type Docker struct {
	Vina *dk.Vina
	Pool *chem.Pool
	// Worker and Host are copied into every outcome.
	Worker, Host string
}

// PrepareLigand builds a ligand's 3D structure from in (an ETKDG+MMFF
// embedding for a SMILES, the coordinates of a molfile) and its
// docking-ready PDBQT (docking.PrepareLigand).
func PrepareLigand(ctx context.Context, pool *chem.Pool, id string, in chem.Input) (*chem.Structure, []byte, error) {
	s, err := pool.Structure(ctx, in)
	if err != nil {
		return nil, nil, fmt.Errorf("ligand %s: %w", id, err)
	}
	data, err := dk.PrepareLigand(s, dk.LigandOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("ligand %s: %w", id, err)
	}
	return s, data, nil
}

// Poses reassembles every mode of a vina result of ligand id (structure s)
// into a Pose with its SDF and, when rec is not nil, its interactions with
// the receptor (also written to the SDF as the "interactions" tag, JSON).
func Poses(job DockJob, id string, s *chem.Structure, r *dk.Result, rec *interact.Receptor) ([]Pose, error) {
	if r == nil || len(r.Modes) == 0 {
		return nil, fmt.Errorf("ligand %s: %w: no modes", id, dk.ErrVinaFailed)
	}
	var first *pdbqt.Molecule
	if ls := r.Modes[0].Model.Ligands(); len(ls) > 0 {
		first = ls[0]
	}
	if first == nil {
		return nil, fmt.Errorf("ligand %s: %w: empty model", id, dk.ErrMapping)
	}
	pm, err := dk.NewPoseMap(first)
	if err != nil {
		return nil, err
	}
	ps, err := pm.Poses(r.Modes)
	if err != nil {
		return nil, err
	}
	var feats *chem.InteractionFeatures
	if rec != nil {
		feats, _ = chem.Features(s) // no features: poses without interactions
	}
	out := make([]Pose, 0, len(ps))
	for k, pose := range ps {
		m := r.Modes[k]
		if math.IsNaN(m.Affinity) {
			return nil, fmt.Errorf("ligand %s: %w: affinity", id, dk.ErrVinaFailed)
		}
		tags := dk.PoseTags(m, job.ReceptorID, job.JobID)
		var found *interact.Result
		if feats != nil {
			found = poseInteractions(rec, s, feats, pose)
		}
		if found != nil {
			js, err := json.Marshal(found.Interactions)
			if err != nil {
				return nil, err
			}
			tags = append(tags, dk.Tag{Name: "interactions", Value: string(js)})
		}
		sdf, err := dk.PoseSDF(s, pose, id, tags)
		if err != nil {
			return nil, err
		}
		p := Pose{Mode: k + 1, Affinity: m.Affinity, RMSDLB: m.RMSDLowerBound, RMSDUB: m.RMSDUpperBound, SDF: sdf}
		if found != nil {
			p.Interactions, p.Fingerprint = found.Interactions, found.Fingerprint
		}
		out = append(out, p)
	}
	return out, nil
}

// poseInteractions finds the interactions of one docked pose (nil when
// the pose cannot be placed on the structure).
func poseInteractions(rec *interact.Receptor, s *chem.Structure, f *chem.InteractionFeatures, pose *dk.Pose) *interact.Result {
	pos, placed, err := interact.PosePositions(s, pose)
	if err != nil {
		return nil
	}
	l, err := interact.NewLigand(s, f, pos, placed)
	if err != nil {
		return nil
	}
	res := interact.Find(rec, l)
	return &res
}

// interactionReceptor indexes a receptor PDBQT for interactions (nil when
// it cannot be read: docking goes on without interactions).
func interactionReceptor(receptor []byte) *interact.Receptor {
	m, err := dk.CheckReceptorPDBQT(receptor)
	if err != nil {
		return nil
	}
	rec, err := interact.NewReceptor(m.Atoms)
	if err != nil {
		return nil
	}
	return rec
}

// DockEach docks the ligands named by ids into receptor (a rigid receptor
// PDBQT), slots vina processes at a time (docking.Batch, with its CPU
// policy), preparing ligand i from input(ctx, i) just before docking it.
// emit receives one outcome per ligand that ended (calls are serialised);
// a ligand stopped because ctx ended gets none (it is not a failure of
// the ligand). The error is for the whole call (bad receptor, box,
// parameters, temporary files).
func (d *Docker) DockEach(ctx context.Context, job DockJob, receptor []byte, units []DockUnit, input func(ctx context.Context, i int) (chem.Input, error), slots int, emit func(DockOutcome)) error {
	b := &dk.Batch{Vina: d.Vina, Receptor: receptor, Box: job.Box, Params: job.Params, Workers: slots}
	names := make([]string, len(units))
	for i, u := range units {
		names[i] = u.Ligand
	}
	structs := make([]*chem.Structure, len(units))
	var irec *interact.Receptor
	var irecOnce sync.Once // built by the first finished ligand
	outcome := func(i int) DockOutcome {
		u := units[i]
		return DockOutcome{Job: u.Job, Ligand: u.Ligand, Index: u.Index, Worker: d.Worker, Host: d.Host, Vina: d.Vina.Version()}
	}
	_, err := b.RunEach(ctx, names, func(ctx context.Context, i int) (dk.Ligand, error) {
		in := units[i].Input
		if input != nil {
			var err error
			if in, err = input(ctx, i); err != nil {
				return dk.Ligand{}, err
			}
		}
		s, data, err := PrepareLigand(ctx, d.Pool, units[i].Ligand, in)
		if err != nil {
			return dk.Ligand{}, err
		}
		structs[i] = s // read by the Finished event of the same worker
		return dk.Ligand{Name: units[i].Ligand, PDBQT: data}, nil
	}, func(ev dk.Event) {
		switch ev.Kind {
		case dk.Finished:
			o := outcome(ev.Index)
			irecOnce.Do(func() { irec = interactionReceptor(receptor) })
			poses, err := Poses(job, o.Ligand, structs[ev.Index], ev.Result, irec)
			structs[ev.Index] = nil
			if err != nil {
				o.Failure = err.Error()
			} else {
				o.Poses = poses
			}
			emit(o)
		case dk.Failed:
			structs[ev.Index] = nil
			if ctx.Err() != nil || errors.Is(ev.Err, context.Canceled) {
				return // not a failure of the ligand: it is run again
			}
			o := outcome(ev.Index)
			o.Failure = ev.Err.Error()
			emit(o)
		}
	})
	return err
}

// Hostname is os.Hostname, "" when unknown.
func Hostname() string {
	h, _ := os.Hostname()
	return h
}
