package handlers

import (
	"net/http"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	jobsdocking "github.com/molgraph/molgraph/jobs/docking"
)

// rescoreRequest is the body of POST /v1/docking/rescore.
type rescoreRequest struct {
	Mode    string `json:"mode"`
	Scoring string `json:"scoring"`
	Pose    *struct {
		Job    string `json:"job"`
		Ligand string `json:"ligand"`
		Mode   int    `json:"mode"`
	} `json:"pose"`
	Receptor string `json:"receptor"`
	Ligand   *struct {
		Format  string `json:"format"`
		Content string `json:"content"`
	} `json:"ligand"`
}

func rescoreSchemas() map[string]Schema {
	scoring := Schema{"type": "string", "enum": []string{dk.ScoringVina, dk.ScoringVinardo}, "default": dk.ScoringVina,
		"description": "AutoDock Vina's scoring function (vina --scoring)."}
	return map[string]Schema{
		"RescoreRequest": {"type": "object", "required": []string{"mode"}, "additionalProperties": false,
			"description": "A pose of a docking job (pose), or an uploaded complex (receptor and ligand), not both.",
			"properties": Schema{
				"mode": Schema{"type": "string", "enum": []string{dk.ScoreOnly, dk.LocalOnly},
					"description": "score_only: the pose as given (vina --score_only); local_only: Vina's local optimisation of the pose in the receptor, then its score (vina --local_only)."},
				"scoring": scoring,
				"pose": Schema{"type": "object", "required": []string{"job", "ligand", "mode"}, "additionalProperties": false,
					"properties": Schema{"job": Schema{"type": "string", "description": "Docking job id (dock-...)."},
						"ligand": Schema{"type": "string", "description": "Ligand molecule id (mol-...)."},
						"mode":   Schema{"type": "integer", "minimum": 1, "description": "Vina's mode number of the pose."}}},
				"receptor": Schema{"type": "string", "description": "Receptor id (rec-...) of an uploaded complex."},
				"ligand": Schema{"type": "object", "required": []string{"format", "content"}, "additionalProperties": false,
					"properties": Schema{"format": Schema{"type": "string", "enum": []string{"sdf", "pdbqt"}},
						"content": Schema{"type": "string", "maxLength": jobsdocking.MaxRescoreLigandBytes,
							"description": "One ligand with its own 3D coordinates: an SDF record (prepared for Vina as docking ligands are, charges and hydrogens as given) or a ligand PDBQT (used as is). At most 500 atoms."}}},
			}},
		"Rescore": {"type": "object", "required": []string{"mode", "scoring", "receptor", "affinity_kcal"},
			"properties": Schema{
				"mode": Schema{"type": "string"}, "scoring": Schema{"type": "string"}, "receptor": Schema{"type": "string"},
				"affinity_kcal":       Schema{"type": "number", "description": "Vina's estimated free energy of binding."},
				"intermolecular_kcal": Schema{"type": "number"}, "internal_kcal": Schema{"type": "number"}, "torsional_kcal": Schema{"type": "number"},
				"ligand_pdbqt": Schema{"type": "string", "description": "The ligand file vina was given (with the receptor's PDBQT it reproduces the run)."},
				"pose_pdbqt":   Schema{"type": "string", "description": "local_only: the optimised ligand as vina wrote it."},
				"pose_sdf":     Schema{"type": "string", "description": "local_only of a pose or an SDF ligand: the optimised pose as SDF."},
				"moved_rmsd":   Schema{"type": "number", "description": "local_only: heavy-atom RMSD of the optimised pose from the input (Å)."},
				"engine":       Schema{"type": "object", "properties": Schema{"name": Schema{"type": "string"}, "version": Schema{"type": "string"}}},
			}},
	}
}

func (s *Server) rescoreRoute() Route {
	return Route{
		Method: http.MethodPost, Pattern: "/v1/docking/rescore", Scope: auth.ScopeWrite, Handle: s.rescore, Class: admission.Docking,
		Doc: Doc{Tag: "docking", Summary: "Rescore a pose with AutoDock Vina (score_only or local_only), synchronously",
			Description: "One vina process (--cpu 1, the grid around the ligand: --autobox), at most 2 minutes, in the docking admission class " +
				"(and counted like a docking submission against the key's job quota); nothing is stored. " +
				"Unknown receptor or pose: 422 unknown_receptor / unknown_pose; a ligand without 3D coordinates or not a ligand PDBQT: 422 invalid_ligand; " +
				"a ligand over 512 KiB or 500 atoms, or bad mode, scoring or format: 400 invalid_request; vina's own refusal: 422 vina_failed; " +
				"past the time limit: 503 timeout.",
			Request: &Body{Required: true, Content: jsonContent(ref("RescoreRequest"))},
			Responses: []Response{{Status: 200, Description: "The score (and the optimised pose for local_only).",
				Content: jsonContent(ref("Rescore"))}}},
	}
}

func (s *Server) rescore(w http.ResponseWriter, r *http.Request) error {
	d, err := s.dockingServices()
	if err != nil {
		return err
	}
	var req rescoreRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	var fields []FieldError
	if req.Mode != dk.ScoreOnly && req.Mode != dk.LocalOnly {
		fields = append(fields, FieldError{Field: "mode", Message: "required: score_only or local_only"})
	}
	if dk.CheckScoring(req.Scoring) != nil {
		fields = append(fields, FieldError{Field: "scoring", Message: "vina (default) or vinardo"})
	}
	if (req.Pose == nil) == (req.Ligand == nil && req.Receptor == "") {
		fields = append(fields, FieldError{Field: "pose", Message: "give either a pose {job, ligand, mode} or a receptor and a ligand {format, content}"})
	} else if req.Pose == nil && (req.Ligand == nil || req.Receptor == "") {
		fields = append(fields, FieldError{Field: "ligand", Message: "an uploaded complex needs a receptor id and a ligand {format, content}"})
	}
	if len(fields) > 0 {
		return &InputError{Err: ErrBadRequest, Fields: fields}
	}
	rr := jobsdocking.RescoreRequest{Mode: req.Mode, Scoring: req.Scoring, Receptor: req.Receptor}
	if req.Pose != nil {
		rr.Job, rr.Ligand, rr.PoseMode = req.Pose.Job, req.Pose.Ligand, req.Pose.Mode
	} else {
		rr.Format, rr.Content = req.Ligand.Format, req.Ligand.Content
	}
	res, err := d.Task.Rescore(r.Context(), rr)
	if err != nil {
		return err
	}
	v := map[string]any{"mode": res.Mode, "scoring": res.Scoring, "receptor": res.Receptor,
		"affinity_kcal": res.Affinity, "intermolecular_kcal": res.Inter, "internal_kcal": res.Intra, "torsional_kcal": res.Torsion,
		"ligand_pdbqt": string(res.LigandPDBQT),
		"engine":       map[string]string{"name": d.Task.Vina().Name(), "version": d.Task.Vina().Version()}}
	if req.Pose != nil {
		v["pose"] = req.Pose
	}
	if res.Output != nil {
		v["pose_pdbqt"] = string(res.Output)
	}
	if res.SDF != nil {
		v["pose_sdf"] = string(res.SDF)
	}
	if res.MovedRMSD != nil {
		v["moved_rmsd"] = *res.MovedRMSD
	}
	return writeJSON(w, http.StatusOK, v)
}

func (s *Server) rescoreResource() resource {
	return resource{routes: []Route{s.rescoreRoute()}, schemas: rescoreSchemas()}
}

// rescoreLimits are the bounds of stereoisomer enumeration and rescoring
// (x-molgraph-limits).
func rescoreLimits() []limit {
	return []limit{
		{name: "docking_max_stereoisomers", help: "Most stereoisomers docked per ligand with unspecified stereo (RDKit's enumeration order; one Vina run each).",
			value: chem.MaxStereoisomers},
		{name: "rescore_max_ligand_bytes", help: "Largest ligand file of POST /v1/docking/rescore (400 invalid_request).", value: jobsdocking.MaxRescoreLigandBytes},
		{name: "rescore_max_atoms", help: "Most ligand atoms of POST /v1/docking/rescore (400 invalid_request).", value: jobsdocking.MaxRescoreAtoms},
		{name: "rescore_timeout_seconds", help: "Longest vina run of POST /v1/docking/rescore (503 timeout).", value: dk.DefaultRescoreTimeout.Seconds()},
	}
}
