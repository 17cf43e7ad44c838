package handlers

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/docking/interact"
	"github.com/molgraph/molgraph/jobs"
	jobsdocking "github.com/molgraph/molgraph/jobs/docking"
	"github.com/molgraph/molgraph/ontology"
)

// DockingMaxJSONBytes is the JSON body limit of POST /v1/docking/jobs
// when Config.MaxJSONBytes is smaller (and Config.MaxBodyBytes is not):
// jobsdocking.MaxLigands molecule ids of 30 characters are about 3.3 MB of
// JSON ("mol-...", plus quotes and commas), 4 MiB leaves room for spaces.
const DockingMaxJSONBytes = 4 << 20

// DockingServices wires the docking-job routes (docking.go).
type DockingServices struct {
	// Task knows docking jobs: validation, records, results, poses.
	Task *jobsdocking.Task
	// Jobs runs them (the same runner as batch uploads).
	Jobs *jobs.Runner
}

func (s *Server) dockingResource() resource {
	return resource{routes: s.dockingRoutes(), schemas: dockingSchemas()}
}

func dockingSchemas() map[string]Schema {
	vec := Schema{"type": "array", "items": Schema{"type": "number"}, "minItems": 3, "maxItems": 3}
	nullableNum := Schema{"type": []string{"number", "null"}}
	nullableTime := Schema{"type": []string{"string", "null"}, "format": "date-time"}
	failure := Schema{"type": "object", "properties": Schema{"ligand": Schema{"type": "string"}, "error": Schema{"type": "string"}}}
	isomer := Schema{"type": "object", "properties": Schema{
		"smiles":        Schema{"type": "string", "description": "RDKit canonical isomeric SMILES of the form docked: the stereoisomer in its protonation state at the job's ligand_ph."},
		"inchi_key":     Schema{"type": "string", "description": "Standard InChIKey of the form docked (its last letter gives the protonation: N neutral, O +1, M -1)."},
		"affinity_kcal": Schema{"type": "number", "description": "Best mode of this isomer's Vina run."},
		"error":         Schema{"type": "string", "description": "Why this isomer could not be docked."}}}
	checkNames := []string{}
	for _, c := range chem.PoseCheckSpecs() {
		checkNames = append(checkNames, c.Name)
	}
	poseValidity := Schema{
		"valid": Schema{"type": []string{"boolean", "null"},
			"description": "True when every pose check was computed and passed; null when the pose was not checked (see check_error)."},
		"checks": Schema{"type": "array", "items": ref("PoseCheck"),
			"description": "PoseBusters' physical-validity tests on the pose, in a fixed order."},
		"check_error": Schema{"type": "string", "description": "Why the pose was not checked (absent when it was)."},
	}
	mode := Schema{"type": "object", "properties": Schema{
		"mode": Schema{"type": "integer"}, "affinity_kcal": Schema{"type": "number"},
		"rmsd_lb": Schema{"type": "number"}, "rmsd_ub": Schema{"type": "number"}, "pose_url": Schema{"type": "string"},
		"interactions": Schema{"type": "array", "description": "The pose's interactions with receptor residues (docking/interact, PLIP's definitions), one per (residue, type); the atoms, distances and angles of each are in the pose SDF's interactions tag.",
			"items": Schema{"type": "object", "properties": Schema{
				"type": Schema{"type": "string", "enum": []string{"hbond", "salt_bridge", "pi_stacking", "pi_cation", "hydrophobic", "halogen_bond", "metal"}},
				"residue": Schema{"type": "object", "properties": Schema{"chain": Schema{"type": "string"}, "number": Schema{"type": "integer"},
					"icode": Schema{"type": "string"}, "name": Schema{"type": "string"}, "iri": Schema{"type": "string"}}}}}},
		"fingerprint": Schema{"type": "array", "items": Schema{"type": "string"}, "description": "Sorted <chain>-<number><icode>:<residue name>:<type> entries."}}}
	for k, v := range poseValidity {
		mode["properties"].(Schema)[k] = v
	}
	resultProps := Schema{
		"rank": Schema{"type": "integer"}, "ligand": Schema{"type": "string"},
		"modes":  Schema{"type": "array", "items": mode},
		"isomer": isomer,
		"isomers": Schema{"type": "array", "items": isomer, "maxItems": chem.MaxStereoisomers,
			"description": "Every stereoisomer docked, in RDKit's enumeration order: a ligand with unspecified stereocentres or double bonds is docked as each of its stereoisomers (at most 8), one Vina run each; a ligand with specified stereo is its only isomer."},
		"stereoisomers_total": Schema{"type": "integer", "description": "Stereoisomers of the ligand before the cap of 8 (2^n for n unspecified elements)."}}
	for k, v := range mode["properties"].(Schema) { // the top mode's fields
		resultProps[k] = v
	}
	return map[string]Schema{
		"PoseCheck": {"type": "object", "required": []string{"name", "pass", "value", "threshold", "limit"},
			"description": "One pose check: pass when value <= threshold (limit max) or value >= threshold (limit min); " +
				"stereo_inchikey has no value or threshold. pass and value are null when the check could not be computed.",
			"properties": Schema{
				"name":      Schema{"type": "string", "enum": checkNames},
				"pass":      Schema{"type": []string{"boolean", "null"}},
				"value":     Schema{"type": []string{"number", "null"}},
				"threshold": Schema{"type": []string{"number", "null"}},
				"limit":     Schema{"type": []string{"string", "null"}, "enum": []any{"max", "min", nil}},
			}},
		"DockingJobCreate": {"type": "object", "required": []string{"receptor", "ligands"}, "additionalProperties": false,
			"properties": Schema{
				"receptor":       Schema{"type": "string", "description": "Receptor id (rec-...)."},
				"ligands":        Schema{"type": "array", "minItems": 1, "maxItems": jobsdocking.MaxLigands, "items": Schema{"type": "string"}},
				"pocket":         Schema{"type": "string", "description": "auto (default), a pocket id of the receptor (p2), or box."},
				"box":            Schema{"type": "object", "properties": Schema{"center": vec, "size": vec}},
				"exhaustiveness": Schema{"type": "integer", "minimum": 1, "maximum": 64, "default": dk.DefaultExhaustiveness},
				"num_modes":      Schema{"type": "integer", "minimum": 1, "maximum": 20, "default": dk.DefaultNumModes},
				"energy_range":   Schema{"type": "number", "exclusiveMinimum": 0, "maximum": 10, "default": dk.DefaultEnergyRange},
				"seed":           Schema{"type": "integer", "default": dk.DefaultSeed},
				"scoring": Schema{"type": "string", "enum": []string{dk.ScoringVina, dk.ScoringVinardo}, "default": dk.ScoringVina,
					"description": "AutoDock Vina's scoring function (vina --scoring), recorded on the job (mg:scoringFunction)."},
				"ligand_ph": Schema{"type": []string{"number", "null"}, "minimum": dk.MinPH, "maximum": dk.MaxPH, "default": dk.DefaultPH,
					"description": "pH the ligands are docked at: each (each stereoisomer) is put in its major protonation state at that pH " +
						"(acid/base sites by SMARTS with literature pKa values, corrected for neighbouring groups and charges; e.g. imatinib's " +
						"N-methylpiperazine protonated, carboxylic acids as carboxylates) before its 3D structure is embedded; the stored molecule " +
						"is unchanged and the form docked is the result's isomer (smiles, inchi_key). The same default as receptors' ph. " +
						"null docks the ligands as registered (neutralized). Recorded on the job (mg:pH, parameters.ligand_ph)."},
			}},
		"DockingJob": {"type": "object", "required": []string{"id", "status", "finished_ligands", "failed_ligands", "total_ligands", "best_affinity_kcal", "links"},
			"properties": Schema{
				"id":                 Schema{"type": "string"},
				"status":             Schema{"type": "string", "enum": []string{"queued", "running", "succeeded", "failed", "cancelled"}},
				"finished_ligands":   Schema{"type": "integer"},
				"failed_ligands":     Schema{"type": "integer"},
				"total_ligands":      Schema{"type": "integer"},
				"best_affinity_kcal": nullableNum,
				"receptor":           Schema{"type": "string"},
				"pocket":             Schema{"type": "object", "properties": Schema{"method": Schema{"type": "string"}, "center": vec, "size": vec}},
				"parameters":         Schema{"type": "object", "additionalProperties": true},
				"engine":             Schema{"type": "object", "properties": Schema{"name": Schema{"type": "string"}, "version": Schema{"type": "string"}}},
				"error":              Schema{"type": "string"},
				"created_at":         Schema{"type": "string", "format": "date-time"},
				"started_at":         nullableTime,
				"finished_at":        nullableTime,
				"links":              Schema{"type": "object", "additionalProperties": Schema{"type": "string"}},
			}},
		"DockingResults": {"type": "object", "required": []string{"job_id", "status", "results", "failures", "next_cursor"},
			"properties": Schema{
				"job_id": Schema{"type": "string"}, "status": Schema{"type": "string"},
				"results": Schema{"type": "array", "items": Schema{"type": "object", "properties": resultProps}},
				"failures": Schema{"type": "array", "items": failure, "maxItems": MaxPageLimit,
					"description": "The first page of failed ligands (ligand id order, at most limit) on the first results page; empty on the others."},
				"failures_next_cursor": Schema{"type": []string{"string", "null"},
					"description": "On the first page: the cursor of the next page of failures (GET ...?kind=failures&cursor=...), null when they all fit."},
				"next_cursor": Schema{"type": []string{"string", "null"}},
			}},
		"DockingFailures": {"type": "object", "required": []string{"job_id", "status", "failures", "next_cursor"},
			"properties": Schema{
				"job_id": Schema{"type": "string"}, "status": Schema{"type": "string"},
				"failures":    Schema{"type": "array", "items": failure, "maxItems": MaxPageLimit},
				"next_cursor": Schema{"type": []string{"string", "null"}},
			}},
	}
}

func (s *Server) dockingRoutes() []Route {
	idParam := map[string]string{"id": "The docking job id (dock-...)."}
	job := jsonContent(ref("DockingJob"))
	return []Route{
		{
			Method: http.MethodPost, Pattern: "/v1/docking/jobs", Scope: auth.ScopeWrite, Handle: s.createDockingJob,
			Doc: Doc{Tag: "docking", Summary: "Submit an AutoDock Vina docking job",
				Description: "One Vina run per ligand on the receptor's pocket (auto: the best-ranked detected pocket). " +
					"A ligand with unspecified stereocentres or double bonds is docked as each of its stereoisomers " +
					"(at most 8, RDKit's enumeration order; one Vina run each, each bounded by the Vina timeout) and its result " +
					"names the isomer of the best pose. Each ligand is docked in its major protonation state at ligand_ph (default 7.4; null: as registered). " +
					"Unknown receptor or ligand ids are 422 naming them; parameters out of bounds are 400.",
				Request: &Body{Required: true, Content: jsonContent(ref("DockingJobCreate"))},
				Responses: []Response{{Status: 202, Description: "The queued job.", Content: job,
					Headers: map[string]string{"Location": "URL of the job."}}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/docking/jobs/{id}", Scope: auth.ScopeRead, Handle: s.getDockingJob,
			Doc: Doc{Tag: "docking", Summary: "Get a docking job's status and progress", PathParams: idParam,
				Responses: []Response{{Status: 200, Description: "The job.", Content: job}}},
		},
		{
			Method: http.MethodDelete, Pattern: "/v1/docking/jobs/{id}", Scope: auth.ScopeWrite, Handle: s.cancelDockingJob,
			Doc: Doc{Tag: "docking", Summary: "Cancel a docking job (409 if it has finished)", PathParams: idParam,
				Responses: []Response{{Status: 200, Description: "The job, cancelled or cancelling.", Content: job}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/docking/jobs/{id}/results", Scope: auth.ScopeRead, Handle: s.dockingResults,
			Doc: Doc{Tag: "docking", Summary: "Docking results sorted by affinity, most favourable first (partial while running)",
				Description: "Pages come from the job's results index, ordered by the affinity of mode 1 then ligand id; rank is the position in that order. " +
					"A cursor holds the last (affinity, ligand) and rank seen, not an offset: while the job runs, a page never repeats or skips a ligand " +
					"it would have shown, and results that arrive after a page was read appear on later pages only if they sort after the cursor " +
					"(a new result better than the cursor is seen by listing again from the first page; it is not counted in the ranks of later pages of the current walk). " +
					"kind=failures pages through the failed ligands (ligand id order) instead; the first results page carries their first page.",
				PathParams: idParam, Params: append(pageParams(), Param{Name: "kind", In: "query",
					Description: "results (default): docked ligands by affinity; failures: failed ligands by id.",
					Schema:      Schema{"type": "string", "enum": []string{"results", "failures"}}}),
				Responses: []Response{{Status: 200, Description: "One result per docked ligand, with every mode (kind=failures: DockingFailures).",
					Content: jsonContent(Schema{"oneOf": []Schema{ref("DockingResults"), ref("DockingFailures")}})}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/docking/jobs/{id}/poses/{ligand}/{mode}.sdf", Scope: auth.ScopeRead, Handle: s.dockingPose,
			Doc: Doc{Tag: "docking", Summary: "A reassembled pose as SDF (the form docked: the registered molecule, as its isomer and in its protonation state at the job's ligand_ph, at the docked coordinates)",
				PathParams: map[string]string{"id": "The docking job id.", "ligand": "The ligand's molecule id.", "mode": "Vina's mode number (1 = best)."},
				Responses: []Response{{Status: 200, Description: "One SDF record with SD tags for affinity, mode, RMSD bounds, receptor and job.",
					Content: map[string]Schema{"chemical/x-mdl-sdfile": {"type": "string"}}}}},
		},
	}
}

// dockingRequest is the body of POST /v1/docking/jobs.
type dockingRequest struct {
	Receptor string   `json:"receptor"`
	Ligands  []string `json:"ligands"`
	Pocket   string   `json:"pocket"`
	Box      *dk.Box  `json:"box"`
	// Pointers, so that an explicit 0 is refused rather than read as the
	// default.
	Exhaustiveness *int     `json:"exhaustiveness"`
	NumModes       *int     `json:"num_modes"`
	EnergyRange    *float64 `json:"energy_range"`
	Seed           *int64   `json:"seed"`
	Scoring        string   `json:"scoring"`
	// LigandPH: absent is docking.DefaultPH, null turns protonation off.
	LigandPH nullableNumber `json:"ligand_ph"`
}

// nullableNumber is a JSON number field that tells absent (Set false),
// null (Null) and a number apart.
type nullableNumber struct {
	Set, Null bool
	Value     float64
}

// UnmarshalJSON is called for a present field, null included.
func (n *nullableNumber) UnmarshalJSON(b []byte) error {
	n.Set = true
	if string(b) == "null" {
		n.Null = true
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}

func (s *Server) dockingServices() (DockingServices, error) {
	d := s.cfg.Docking
	if d.Task == nil || d.Jobs == nil {
		return d, fmt.Errorf("%w: docking is not configured", ErrNotReady)
	}
	return d, nil
}

func (s *Server) createDockingJob(w http.ResponseWriter, r *http.Request) error {
	d, err := s.dockingServices()
	if err != nil {
		return err
	}
	var req dockingRequest
	if err := s.decodeJSONLimit(w, r, &req, max(s.cfg.MaxJSONBytes, DockingMaxJSONBytes)); err != nil {
		return err
	}
	var fields []FieldError
	if req.Receptor == "" {
		fields = append(fields, FieldError{Field: "receptor", Message: "required: a receptor id (rec-...)"})
	}
	if len(req.Ligands) == 0 {
		fields = append(fields, FieldError{Field: "ligands", Message: "required: 1 to 100,000 molecule ids"})
	}
	for _, l := range req.Ligands {
		if l == "" {
			fields = append(fields, FieldError{Field: "ligands", Message: "an empty id (or null) is not a molecule id"})
			break
		}
	}
	if req.Box != nil {
		if err := req.Box.Validate(); err != nil {
			fields = append(fields, FieldError{Field: "box", Message: err.Error()})
		}
	}
	if req.Seed == nil {
		seed := int64(dk.DefaultSeed)
		req.Seed = &seed
	}
	p := dk.Params{Seed: *req.Seed} // zero fields take the defaults
	if v := req.Exhaustiveness; v != nil {
		if *v < 1 || *v > 64 {
			fields = append(fields, FieldError{Field: "exhaustiveness", Message: "must be 1..64"})
		}
		p.Exhaustiveness = *v
	}
	if v := req.NumModes; v != nil {
		if *v < 1 || *v > 20 {
			fields = append(fields, FieldError{Field: "num_modes", Message: "must be 1..20"})
		}
		p.NumModes = *v
	}
	if v := req.EnergyRange; v != nil {
		if !(*v > 0 && *v <= 10) { // NaN fails too
			fields = append(fields, FieldError{Field: "energy_range", Message: "must be in (0, 10] kcal/mol"})
		}
		p.EnergyRange = *v
	}
	if dk.CheckScoring(req.Scoring) != nil {
		fields = append(fields, FieldError{Field: "scoring", Message: "vina (default) or vinardo"})
	}
	p.Scoring = req.Scoring
	var ligandPH *float64
	switch ph := req.LigandPH; {
	case !ph.Set:
		v := dk.DefaultPH
		ligandPH = &v
	case ph.Null:
	case !dk.ValidPH(ph.Value):
		fields = append(fields, FieldError{Field: "ligand_ph", Message: "a pH in [0, 14], or null to dock ligands as registered"})
	default:
		ligandPH = &ph.Value
	}
	if len(fields) > 0 {
		return &InputError{Err: ErrBadRequest, Fields: fields}
	}
	id := jobs.NewID(jobsdocking.JobIDPrefix, time.Now())
	j, err := d.Task.NewJob(r.Context(), id, jobsdocking.Request{
		Receptor: req.Receptor, Ligands: req.Ligands, Pocket: req.Pocket, Box: req.Box, Params: p, LigandPH: ligandPH})
	if err != nil {
		return err
	}
	if _, err := d.Jobs.Submit(r.Context(), j); err != nil {
		return err
	}
	view, err := s.dockingJobView(r, d, id)
	if err != nil {
		return err
	}
	w.Header().Set("Location", view["links"].(map[string]string)["self"])
	return writeJSON(w, http.StatusAccepted, view)
}

// dockingJobView is the JSON of a job, projected from its graphs.
func (s *Server) dockingJobView(r *http.Request, d DockingServices, id string) (map[string]any, error) {
	if !strings.HasPrefix(id, jobsdocking.JobIDPrefix+"-") {
		return nil, fmt.Errorf("%w: no docking job %q", ErrNotFound, id)
	}
	rec, err := d.Task.RecordHead(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return dockingJobViewOf(id, rec), nil
}

// dockingJobViewOf is the JSON view of job id's record rec.
func dockingJobViewOf(id string, rec ontology.DockingJobRecord) map[string]any {
	self := "/v1/docking/jobs/" + id
	optTime := func(t *time.Time) any {
		if t == nil || t.IsZero() {
			return nil
		}
		return t.UTC()
	}
	v := map[string]any{
		"id":                 id,
		"iri":                string(rec.IRI),
		"status":             rec.Status,
		"finished_ligands":   rec.Progress.Finished,
		"failed_ligands":     rec.Progress.Failed,
		"total_ligands":      rec.Progress.Total,
		"best_affinity_kcal": rec.Progress.BestAffinity,
		"receptor":           jobsdocking.LigandID(rec.Receptor),
		"pocket":             map[string]any{"method": rec.Settings.PocketMethod, "center": rec.Settings.Center, "size": rec.Settings.Size},
		"parameters":         rec.Settings,
		"engine":             map[string]string{"name": rec.Engine, "version": rec.Version},
		"created_at":         rec.CreatedAt.UTC(),
		"started_at":         optTime(rec.StartedAt),
		"finished_at":        optTime(rec.EndedAt),
		"links":              map[string]string{"self": self, "results": self + "/results"},
	}
	if rec.Error != "" {
		v["error"] = rec.Error
	}
	return v
}

func (s *Server) getDockingJob(w http.ResponseWriter, r *http.Request) error {
	d, err := s.dockingServices()
	if err != nil {
		return err
	}
	v, err := s.dockingJobView(r, d, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

func (s *Server) cancelDockingJob(w http.ResponseWriter, r *http.Request) error {
	d, err := s.dockingServices()
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	if _, err := s.dockingJobView(r, d, id); err != nil {
		return err
	}
	if _, err := d.Jobs.Cancel(r.Context(), d.Task.JobIRI(id)); err != nil {
		return err
	}
	v, err := s.dockingJobView(r, d, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

// dockingMode is one pose in the results. Per-pose analyses are sibling
// fields: Valid and Checks (the pose checks).
type dockingMode struct {
	Mode         int                  `json:"mode"`
	Affinity     float64              `json:"affinity_kcal"`
	RMSDLB       float64              `json:"rmsd_lb"`
	RMSDUB       float64              `json:"rmsd_ub"`
	PoseURL      string               `json:"pose_url"`
	Valid        *bool                `json:"valid"`
	Checks       []poseCheck          `json:"checks"`
	CheckError   string               `json:"check_error,omitempty"`
	Interactions []dockingInteraction `json:"interactions"`
	Fingerprint  []string             `json:"fingerprint"`
}

// poseCheck is one pose check with its threshold (chem.PoseCheckSpecs).
type poseCheck struct {
	Name      string   `json:"name"`
	Pass      *bool    `json:"pass"`
	Value     *float64 `json:"value"`
	Threshold *float64 `json:"threshold"`
	Limit     *string  `json:"limit"`
}

// poseChecks lists the checks of a pose record in report order, every
// check present (null when the record lacks it); none for a pose that was
// not checked.
func poseChecks(p ontology.DockingPoseRecord) []poseCheck {
	out := []poseCheck{}
	if p.Valid == nil {
		return out
	}
	for _, spec := range chem.PoseCheckSpecs() {
		c := poseCheck{Name: spec.Name}
		if spec.Limit != "" {
			th, lim := spec.Threshold, spec.Limit
			c.Threshold, c.Limit = &th, &lim
		}
		for _, got := range p.Checks {
			if got.Name == spec.Name {
				c.Pass, c.Value = got.Pass, got.Value
			}
		}
		out = append(out, c)
	}
	return out
}

// dockingInteraction is one (residue, type) interaction of a pose.
type dockingInteraction struct {
	Type    string          `json:"type"`
	Residue dockingResidueV `json:"residue"`
}

type dockingResidueV struct {
	Chain  string `json:"chain"`
	Number int    `json:"number"`
	ICode  string `json:"icode,omitempty"`
	Name   string `json:"name"`
	IRI    string `json:"iri"`
}

// poseInteractionsView is the interactions and fingerprint of a pose
// record (never null in the JSON).
func poseInteractionsView(p ontology.DockingPoseRecord, receptor quad.IRI) ([]dockingInteraction, []string) {
	its := make([]dockingInteraction, 0, len(p.Interactions))
	fp := make([]string, 0, len(p.Interactions))
	for _, it := range p.Interactions {
		r := it.Residue
		its = append(its, dockingInteraction{Type: it.Type, Residue: dockingResidueV{Chain: r.Chain, Number: r.Number, ICode: r.ICode,
			Name: r.Name, IRI: string(ontology.ResidueIRI(receptor, r))}})
		fp = append(fp, interact.FingerprintEntry(interact.Residue{Chain: r.Chain, Number: r.Number, ICode: r.ICode, Name: r.Name}, interact.Type(it.Type)))
	}
	return its, fp
}

// dockingIsomer is a stereoisomer docked for a ligand.
type dockingIsomer struct {
	SMILES   string   `json:"smiles"`
	InChIKey string   `json:"inchi_key,omitempty"`
	Affinity *float64 `json:"affinity_kcal,omitempty"`
	Error    string   `json:"error,omitempty"`
}

type dockingResult struct {
	Rank   int    `json:"rank"`
	Ligand string `json:"ligand"`
	dockingMode
	Modes []dockingMode `json:"modes"`
	// Isomer is the stereoisomer the poses are (the best of Isomers, all
	// those docked); StereoisomersTotal counts them before the cap.
	Isomer             *dockingIsomer  `json:"isomer,omitempty"`
	Isomers            []dockingIsomer `json:"isomers,omitempty"`
	StereoisomersTotal int             `json:"stereoisomers_total,omitempty"`
	poses              []ontology.DockingPoseRecord
}

// dockingResults lists a job's docked ligands, best first, or with
// kind=failures its failed ligands, a page at a time from the job's
// results index (jobs/docking index.go): a page reads its own ligands'
// results graphs only. A cursor is the position of the previous page's last
// ligand (affinity, ligand id) and its rank, not an offset.
func (s *Server) dockingResults(w http.ResponseWriter, r *http.Request) error {
	d, err := s.dockingServices()
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	if !strings.HasPrefix(id, jobsdocking.JobIDPrefix+"-") {
		return fmt.Errorf("%w: no docking job %q", ErrNotFound, id)
	}
	limit, err := pageLimit(r)
	if err != nil {
		return err
	}
	kind := r.URL.Query().Get("kind")
	if kind != "" && kind != "results" && kind != "failures" {
		return badRequest("kind", "%q: want results (the default) or failures", kind)
	}
	rec, err := d.Task.RecordHead(r.Context(), id)
	if err != nil {
		return err
	}
	status := rec.Status
	if kind == "failures" {
		after, err := decodeIndexCursor(r, "dockf:", false)
		if err != nil {
			return err
		}
		failures, next, err := dockingFailuresPage(r, d, rec, after.pos, limit)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, map[string]any{"job_id": id, "status": status, "failures": failures, "next_cursor": next})
	}
	after, err := decodeIndexCursor(r, "dockr:", true)
	if err != nil {
		return err
	}
	pg, err := d.Task.Page(r.Context(), rec, jobsdocking.IndexAffinity, after.pos, limit)
	if errors.Is(err, jobsdocking.ErrBadCursor) {
		return errNotCursor()
	} else if err != nil {
		return err
	}
	page := make([]dockingResult, 0, len(pg.Results))
	for n, lr := range pg.Results {
		ligID, poses := lr.Ligand, lr.Poses
		res := dockingResult{Rank: after.rank + n + 1, Ligand: ligID, poses: poses} // poses come in mode order
		for _, p := range poses {
			// Interactions are built for the page only (a large job has
			// ~15 per pose).
			its, fp := poseInteractionsView(p, rec.Receptor)
			res.Modes = append(res.Modes, dockingMode{Mode: p.Mode, Affinity: p.Affinity, RMSDLB: p.RMSDLB, RMSDUB: p.RMSDUB,
				PoseURL: fmt.Sprintf("/v1/docking/jobs/%s/poses/%s/%d.sdf", id, ligID, p.Mode),
				Valid:   p.Valid, Checks: poseChecks(p), CheckError: p.CheckError, Interactions: its, Fingerprint: fp})
		}
		res.dockingMode = res.Modes[0]
		for _, iso := range lr.Isomers {
			v := dockingIsomer{SMILES: iso.SMILES, InChIKey: iso.InChIKey, Affinity: iso.Affinity, Error: iso.Error}
			res.Isomers = append(res.Isomers, v)
			res.StereoisomersTotal = iso.Total
			if iso.Index == poses[0].Isomer {
				res.Isomer = &v
			}
		}
		page = append(page, res)
	}
	var next any
	if pg.Next != nil {
		next = encodeIndexCursor("dockr:", after.rank+len(page), pg.Next)
	}
	out := map[string]any{"job_id": id, "status": status, "results": page, "next_cursor": next}
	// The first page carries the first page of failures too; the others
	// none (GET ...?kind=failures pages through them).
	failures := []map[string]string{}
	var failNext any
	if after.pos == nil {
		if failures, failNext, err = dockingFailuresPage(r, d, rec, nil, limit); err != nil {
			return err
		}
	}
	out["failures"], out["failures_next_cursor"] = failures, failNext
	return writeJSON(w, http.StatusOK, out)
}

// dockingFailuresPage is a page of job rec's failed ligands (ligand id
// order) after position after, and the cursor of the next (nil at the end).
func dockingFailuresPage(r *http.Request, d DockingServices, rec ontology.DockingJobRecord, after []byte, limit int) ([]map[string]string, any, error) {
	pg, err := d.Task.Page(r.Context(), rec, jobsdocking.IndexFailure, after, limit)
	if errors.Is(err, jobsdocking.ErrBadCursor) {
		return nil, nil, errNotCursor()
	} else if err != nil {
		return nil, nil, err
	}
	out := make([]map[string]string, 0, len(pg.Results))
	for _, lr := range pg.Results {
		msg := "docking: no poses"
		if lr.Failure != nil {
			msg = lr.Failure.Error
		}
		out = append(out, map[string]string{"ligand": lr.Ligand, "error": msg})
	}
	var next any
	if pg.Next != nil {
		next = encodeIndexCursor("dockf:", 0, pg.Next)
	}
	return out, next, nil
}

// indexCursor is a decoded results cursor: the index position of the
// previous page's last ligand and (results) its rank.
type indexCursor struct {
	rank int
	pos  []byte
}

// encodeIndexCursor makes the cursor of position pos at rank rank.
func encodeIndexCursor(prefix string, rank int, pos []byte) string {
	return encodeCursor(prefix + strconv.Itoa(rank) + ":" + hex.EncodeToString(pos))
}

// decodeIndexCursor decodes the request's cursor (the zero cursor without
// one); withRank: a results cursor, whose rank is at least 1.
func decodeIndexCursor(r *http.Request, prefix string, withRank bool) (indexCursor, error) {
	v, err := decodeCursor(r, prefix)
	if err != nil || v == "" {
		return indexCursor{}, err
	}
	rk, h, ok := strings.Cut(v, ":")
	rank, err := strconv.Atoi(rk)
	if !ok || err != nil || rank < 0 || (withRank && rank < 1) || len(h) > 2*jobsdocking.MaxCursorKey {
		return indexCursor{}, errNotCursor()
	}
	pos, err := hex.DecodeString(h)
	if err != nil || len(pos) == 0 {
		return indexCursor{}, errNotCursor()
	}
	return indexCursor{rank: rank, pos: pos}, nil
}

func (s *Server) dockingPose(w http.ResponseWriter, r *http.Request) error {
	d, err := s.dockingServices()
	if err != nil {
		return err
	}
	id, ligand := chi.URLParam(r, "id"), chi.URLParam(r, "ligand")
	mode, err := strconv.Atoi(chi.URLParam(r, "mode"))
	if err != nil || mode < 1 {
		return fmt.Errorf("%w: no mode %q", ErrNotFound, chi.URLParam(r, "mode"))
	}
	if _, err := s.dockingJobView(r, d, id); err != nil {
		return err
	}
	sdf, err := d.Task.PoseFile(r.Context(), d.Task.JobIRI(id), ligand, mode)
	if errors.Is(err, jobs.ErrNotFound) {
		return fmt.Errorf("%w: no pose %d of %s in job %s", ErrNotFound, mode, ligand, id)
	} else if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "chemical/x-mdl-sdfile")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(sdf)
	return err
}
