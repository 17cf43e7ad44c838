package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/features"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/shapes"
)

// calculationGroupView is the JSON of a multi-step log: a summary of its
// steps (program and version of the first, formula and atom count of the
// last, job types of all, normal termination only if every step terminated
// normally) and the steps in order, each with its own links.
type calculationGroupView struct {
	ontology.CalculationGroup
	JobTypes   []string             `json:"job_types,omitempty"`
	Steps      []calculationStepRef `json:"steps"`
	Validation *shapes.Report       `json:"validation,omitempty"`
	Links      map[string]string    `json:"links"`
}

// calculationStepRef is one step in a group's listing.
type calculationStepRef struct {
	ID                string            `json:"id"`
	Index             int               `json:"index"`
	JobTypes          []string          `json:"job_types,omitempty"`
	Method            string            `json:"method,omitempty"`
	BasisSet          string            `json:"basis_set,omitempty"`
	SCF               *float64          `json:"scf_hartree,omitempty"`
	NormalTermination bool              `json:"normal_termination"`
	Links             map[string]string `json:"links"`
}

// storeSteps stores a multi-step log: one calculation per step, each in its
// own named graph with its own record, triples and features, linked to the
// step before it and to the group, and the group under the upload's id.
// Every graph is validated (with validate_ontology=true) before anything is
// stored, and all are written in one PutGraphs call (one transaction for
// logs of qm.MaxSteps small steps).
func (s *Server) storeSteps(w http.ResponseWriter, r *http.Request, st *graph.Store, up *logUpload, sum [sha256.Size]byte, calc *qm.Calculation) error {
	ctx := r.Context()
	id := calculationID(sum)
	src := &ontology.CalculationSource{Filename: up.filename, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(up.data))}
	now := time.Now().UTC().Truncate(time.Millisecond)
	group := ontology.CalculationGroup{Source: src, CreatedAt: now}
	recs := make([]ontology.CalculationRecord, len(calc.Steps))
	var report *shapes.Report
	if up.validate {
		report = &shapes.Report{Conforms: true}
	}
	check := func(quads []quad.Quad) error {
		if !up.validate {
			return nil
		}
		rep, err := s.cfg.Gate.Validate(quads)
		if err != nil {
			return err
		}
		if !rep.Conforms {
			return validationError(rep)
		}
		report.Results = append(report.Results, rep.Results...)
		return nil
	}
	for i, step := range calc.Steps {
		sid := ontology.StepID(id, i+1)
		rec := features.Record(step)
		rec.Source, rec.CreatedAt = src, now
		rec.Step = &ontology.CalculationStep{Group: id, Index: i + 1}
		if i > 0 {
			rec.Step.Previous = ontology.StepID(id, i)
		}
		quads, err := ontology.CalculationQuads(s.cfg.BaseIRI, sid, &rec)
		if err != nil {
			return fmt.Errorf("%w: step %d: %v", ErrUnprocessable, i+1, err)
		}
		if err := check(quads); err != nil {
			return err
		}
		recs[i] = rec
		group.Steps = append(group.Steps, sid)
	}
	gquads, err := ontology.CalculationGroupQuads(s.cfg.BaseIRI, id, &group)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnprocessable, err)
	}
	if err := check(gquads); err != nil {
		return err
	}
	// Only calculations that will be stored register their molecules.
	graphs := make([]graph.NamedGraph, 0, len(recs)+1)
	for i := range recs {
		sid := group.Steps[i]
		if warning := s.linkMolecule(ctx, &recs[i]); warning != "" {
			s.log.Info("calculation step not linked to a molecule", "calculation", sid, "reason", warning)
		}
		quads, err := ontology.CalculationQuads(s.cfg.BaseIRI, sid, &recs[i])
		if err != nil {
			return fmt.Errorf("%w: %v", ErrUnprocessable, err)
		}
		graphs = append(graphs, graph.NamedGraph{IRI: s.calculationIRI(sid), Quads: quads})
	}
	// The group last: it is what makes the upload visible as parsed.
	graphs = append(graphs, graph.NamedGraph{IRI: s.calculationIRI(id), Quads: gquads})
	if _, err := st.Blobs().PutBytes(up.data); err != nil {
		return err
	}
	if err := st.PutGraphs(ctx, graphs, nil); err != nil {
		return err
	}
	stored, err := st.Graph(ctx, s.calculationIRI(id))
	if err != nil {
		return err
	}
	view, err := s.groupView(ctx, st, stored)
	if err != nil {
		return err
	}
	view.Validation = report
	w.Header().Set("Location", view.Links["self"])
	return writeJSON(w, http.StatusCreated, view)
}

// groupView reads a group and its steps.
func (s *Server) groupView(ctx context.Context, st *graph.Store, quads []quad.Quad) (*calculationGroupView, error) {
	g, err := ontology.CalculationGroupFromQuads(quads)
	if err != nil {
		return nil, err
	}
	view := &calculationGroupView{Links: calculationLinks(g.ID)}
	g.NormalTermination = len(g.Steps) > 0
	var jobs []string
	for i, sid := range g.Steps {
		sq, err := st.Graph(ctx, s.calculationIRI(sid))
		if err != nil {
			return nil, fmt.Errorf("step %d of %s: %w", i+1, g.ID, err)
		}
		rec, err := ontology.CalculationFromQuads(sq)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			g.Program, g.ProgramVersion = rec.Program, rec.ProgramVersion
		}
		g.Formula, g.NAtoms = rec.Formula, rec.NAtoms
		g.NormalTermination = g.NormalTermination && rec.NormalTermination
		jobs = append(jobs, rec.JobTypes...)
		ref := calculationStepRef{ID: rec.ID, Index: i + 1, JobTypes: rec.JobTypes, Method: rec.Method, BasisSet: rec.BasisSet,
			NormalTermination: rec.NormalTermination, Links: calculationLinks(rec.ID)}
		if rec.Energies != nil {
			ref.SCF = rec.Energies.SCF
		}
		view.Steps = append(view.Steps, ref)
	}
	view.CalculationGroup = g
	view.JobTypes = ontology.CanonicalJobTypes(jobs)
	return view, nil
}
