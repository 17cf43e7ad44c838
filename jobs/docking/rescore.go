package docking

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// Bounds of a rescoring request's ligand.
const (
	// MaxRescoreLigandBytes bounds an uploaded ligand file (SDF or PDBQT).
	MaxRescoreLigandBytes = 512 << 10
	// MaxRescoreAtoms bounds its atoms, hydrogens included.
	MaxRescoreAtoms = 500
)

// ErrUnknownPose: the docking pose a rescoring request names does not
// exist (no such job, ligand or mode).
var ErrUnknownPose = errors.New("unknown docking pose")

// RescoreRequest is a pose to rescore: a pose of a docking job (Job,
// Ligand, PoseMode; the job's receptor) or an uploaded complex (Receptor
// and a ligand file: Format "sdf" or "pdbqt", Content).
type RescoreRequest struct {
	Mode    string // dk.ScoreOnly or dk.LocalOnly
	Scoring string // "" (vina), vina or vinardo

	Job, Ligand string
	PoseMode    int

	Receptor        string
	Format, Content string
}

// RescoreResult is a rescored pose: vina's score (and, for local_only, the
// optimised pose) with the inputs vina was given.
type RescoreResult struct {
	dk.Rescored
	Receptor string // receptor id
	// LigandPDBQT is the ligand file vina scored (with the receptor's
	// PDBQT it reproduces the run).
	LigandPDBQT []byte
	// SDF is the optimised pose as SDF (local_only of a pose or an SDF
	// ligand: the molecule with all its atoms; nil when vina's output
	// cannot be mapped back to it); MovedRMSD its heavy-atom
	// RMSD from the input pose (local_only).
	SDF       []byte
	MovedRMSD *float64
}

// receptorPDBQT reads receptor iri's record and prepared PDBQT.
func (t *Task) receptorPDBQT(ctx context.Context, iri quad.IRI) (ontology.ReceptorRecord, []byte, error) {
	rq, err := t.store.Graph(ctx, iri)
	if err != nil {
		return ontology.ReceptorRecord{}, nil, fmt.Errorf("receptor: %w", err)
	}
	rec, err := ontology.ReceptorFromQuads(rq)
	if err != nil {
		return ontology.ReceptorRecord{}, nil, err
	}
	data, err := t.store.Blobs().Get(rec.Prepared.SHA256)
	if err != nil {
		return ontology.ReceptorRecord{}, nil, fmt.Errorf("receptor file: %w", err)
	}
	return rec, data, nil
}

// Rescore scores a pose with vina (--score_only, or --local_only then its
// score), synchronously: one vina process with one CPU, the grid around
// the ligand, dk.DefaultRescoreTimeout. Nothing is stored. Errors wrap
// ErrInvalidRequest (mode, scoring, format, a ligand over the bounds),
// ErrUnknownReceptor, ErrUnknownPose, chem.ErrInvalidMolecule,
// dk.ErrInvalidLigand (no 3D coordinates, not a ligand PDBQT),
// dk.ErrVinaFailed or dk.ErrTimeout.
func (t *Task) Rescore(ctx context.Context, req RescoreRequest) (*RescoreResult, error) {
	bad := func(format string, args ...any) (*RescoreResult, error) {
		return nil, fmt.Errorf("rescore: %w: "+format, append([]any{ErrInvalidRequest}, args...)...)
	}
	if req.Mode != dk.ScoreOnly && req.Mode != dk.LocalOnly {
		return bad("mode %q: want score_only or local_only", req.Mode)
	}
	if err := dk.CheckScoring(req.Scoring); err != nil {
		return nil, fmt.Errorf("rescore: %w: %w", ErrInvalidRequest, err)
	}
	pose := req.Job != "" || req.Ligand != "" || req.PoseMode != 0
	upload := req.Receptor != "" || req.Format != "" || req.Content != ""
	if pose == upload {
		return bad("give either a pose {job, ligand, mode} or a receptor and a ligand {format, content}")
	}
	var recIRI quad.IRI
	var ligand chem.Input
	format := strings.ToLower(req.Format)
	name := "ligand"
	if pose {
		if req.PoseMode < 1 || !strings.HasPrefix(req.Job, JobIDPrefix+"-") || !strings.HasPrefix(req.Ligand, "mol-") {
			return nil, fmt.Errorf("rescore: %w: pose %s/%s/%d", ErrUnknownPose, req.Job, req.Ligand, req.PoseMode)
		}
		rec, err := t.RecordHead(ctx, req.Job)
		if errors.Is(err, jobs.ErrNotFound) {
			return nil, fmt.Errorf("rescore: %w: no docking job %s", ErrUnknownPose, req.Job)
		} else if err != nil {
			return nil, err
		}
		sdf, err := t.PoseFile(ctx, rec.IRI, req.Ligand, req.PoseMode)
		if errors.Is(err, graph.ErrNotFound) {
			return nil, fmt.Errorf("rescore: %w: job %s has no pose %d of %s", ErrUnknownPose, req.Job, req.PoseMode, req.Ligand)
		} else if err != nil {
			return nil, err
		}
		recIRI, format, name = rec.Receptor, "sdf", req.Ligand
		ligand = chem.Input{Format: chem.FormatMolfile, Content: string(sdf), NoNormalize: true}
	} else {
		if !strings.HasPrefix(req.Receptor, "rec-") {
			return nil, fmt.Errorf("rescore: %w: %q", ErrUnknownReceptor, req.Receptor)
		}
		if len(req.Content) > MaxRescoreLigandBytes {
			return bad("ligand: %d bytes, at most %d", len(req.Content), MaxRescoreLigandBytes)
		}
		switch format {
		case "sdf", "mol":
			// As given: no normalization (charges and hydrogens are the
			// pose's), coordinates kept.
			ligand = chem.Input{Format: chem.FormatMolfile, Content: req.Content, NoNormalize: true}
		case "pdbqt":
		default:
			return bad("ligand format %q: want sdf or pdbqt", req.Format)
		}
		recIRI = ontology.ResourceIRI(t.base, ontology.KindReceptor, req.Receptor)
		ok, err := t.store.HasGraph(ctx, recIRI)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("rescore: %w: %s", ErrUnknownReceptor, req.Receptor)
		}
	}
	receptor, recPDBQT, err := t.receptorPDBQT(ctx, recIRI)
	if err != nil {
		return nil, fmt.Errorf("rescore: %w", err)
	}

	var s *chem.Structure
	var ligPDBQT []byte
	if format == "pdbqt" {
		ligPDBQT = []byte(req.Content)
	} else {
		if s, err = t.reg.Pool().Structure(ctx, ligand); err != nil {
			return nil, fmt.Errorf("rescore: %w", err)
		}
		if !s.Reused {
			return nil, fmt.Errorf("rescore: %w: the ligand has no 3D coordinates of its own (a pose needs them)", dk.ErrInvalidLigand)
		}
		if len(s.Atoms) > MaxRescoreAtoms {
			return bad("ligand: %d atoms, at most %d", len(s.Atoms), MaxRescoreAtoms)
		}
		if ligPDBQT, err = dk.PrepareLigand(s, dk.LigandOptions{}); err != nil {
			return nil, fmt.Errorf("rescore: %w", err)
		}
	}
	in, err := pdbqt.ParseMolecule(bytes.NewReader(ligPDBQT))
	if err != nil {
		return nil, fmt.Errorf("rescore: %w: %v", dk.ErrInvalidLigand, err)
	}
	if len(in.Atoms) > MaxRescoreAtoms {
		return bad("ligand: %d atoms, at most %d", len(in.Atoms), MaxRescoreAtoms)
	}

	dir, err := t.vina.TempDirs().Make("rescore")
	if err != nil {
		return nil, fmt.Errorf("rescore: %w", err)
	}
	defer os.RemoveAll(dir)
	recPath := filepath.Join(dir, "receptor.pdbqt")
	if err := os.WriteFile(recPath, recPDBQT, 0o600); err != nil {
		return nil, fmt.Errorf("rescore: write receptor: %w", err)
	}
	r, err := t.vina.Rescore(ctx, recPath, dk.Ligand{Name: name, PDBQT: ligPDBQT}, dk.RescoreOptions{Mode: req.Mode, Scoring: req.Scoring})
	if err != nil {
		return nil, fmt.Errorf("rescore: %w", err)
	}
	out := &RescoreResult{Rescored: *r, Receptor: receptor.ID, LigandPDBQT: ligPDBQT}
	if r.Molecule != nil {
		if d, err := dk.RMSD(dk.HeavyAtoms(in), dk.HeavyAtoms(r.Molecule)); err == nil {
			out.MovedRMSD = &d
		}
		if s != nil {
			// The optimised pose back onto the molecule (Meeko's remarks,
			// as for docked poses).
			pm, err := dk.NewPoseMap(r.Molecule)
			var p *dk.Pose
			if err == nil {
				p, err = pm.Pose(r.Molecule)
			}
			if err == nil {
				f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
				out.SDF, err = dk.PoseSDF(s, p, name, []dk.Tag{{Name: "affinity_kcal", Value: f(r.Affinity)},
					{Name: "inter_kcal", Value: f(r.Inter)}, {Name: "intra_kcal", Value: f(r.Intra)},
					{Name: "scoring", Value: r.Scoring}, {Name: "receptor", Value: receptor.ID}})
			}
			if err != nil {
				out.SDF = nil // the score stands; pose_pdbqt still has the pose
			}
		}
	}
	return out, nil
}
