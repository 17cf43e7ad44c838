package handlers

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/features"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/shapes"
)

// Errors of the quantum-chemistry routes.
var (
	// ErrOntologyValidation: the calculation's triples do not conform to the
	// shapes (422 ontology_validation_failed).
	ErrOntologyValidation = errors.New("ontology validation failed")
	// ErrValidationUnavailable: validate_ontology=true without a SHACL gate
	// configured (501).
	ErrValidationUnavailable = errors.New("ontology validation is not available")
)

// calculationView is the JSON of a calculation: the record projected from
// the graph, its links, and the validation report when one was asked for.
type calculationView struct {
	ontology.CalculationRecord
	Validation *shapes.Report    `json:"validation,omitempty"`
	Links      map[string]string `json:"links"`
}

func (s *Server) qmResource() resource {
	return resource{routes: s.qmRoutes(), schemas: qmSchemas()}
}

func qmSchemas() map[string]Schema {
	num := Schema{"type": "number"}
	nums := Schema{"type": "array", "items": num}
	return map[string]Schema{
		"Calculation": {"type": "object", "required": []string{"id", "iri", "program", "natoms", "normal_termination", "links"},
			"properties": Schema{
				"id": Schema{"type": "string", "pattern": "^calc-"}, "iri": Schema{"type": "string"},
				"program": Schema{"type": "string"}, "program_version": Schema{"type": "string"},
				"job_types": Schema{"type": "array", "items": Schema{"type": "string", "enum": []string{"energy", "optimization", "frequency"}}},
				"method":    Schema{"type": "string"}, "basis_set": Schema{"type": "string"},
				"charge": Schema{"type": "integer"}, "multiplicity": Schema{"type": "integer"},
				"formula": Schema{"type": "string"}, "natoms": Schema{"type": "integer"},
				"geometry": Schema{"type": "array", "items": Schema{"type": "object",
					"properties": Schema{"element": Schema{"type": "string"}, "x": num, "y": num, "z": num}}},
				"elements": Schema{"type": "array", "items": Schema{"type": "string"},
					"description": "Element symbols in atom order, only when the log named its atoms but printed no coordinates (xtb single points and Hessians); geometry is then absent."},
				"energies": Schema{"type": "object", "description": "Total energies in hartree; absent ones omitted.", "properties": Schema{
					"scf_hartree": num, "scf_steps_hartree": nums, "zpe_hartree": num, "enthalpy_hartree": num, "gibbs_hartree": num,
					"correlated_hartree": Schema{"type": "object", "additionalProperties": num,
						"description": "Total energies of the post-Hartree-Fock methods the log reports, by method (MP2, MP3, MP4(DQ), MP4(SDQ), MP4(SDTQ), MP5, CCD, CCSD, CCSD(T), CCSDT, QCISD, QCISD(T), CISD, OMP2, OMP3); lower orders printed on the way are included."}}},
				"optimization":             Schema{"type": "object", "additionalProperties": true},
				"frequencies":              Schema{"type": "object", "additionalProperties": true},
				"orbitals":                 Schema{"type": "object", "additionalProperties": true},
				"dipole_debye":             Schema{"type": "object", "additionalProperties": true},
				"mulliken_charges":         nums,
				"rotational_constants_ghz": nums,
				"normal_termination":       Schema{"type": "boolean"},
				"molecule_id":              Schema{"type": "string"},
				"source": Schema{"type": "object", "properties": Schema{
					"filename": Schema{"type": "string"}, "sha256": Schema{"type": "string"}, "bytes": Schema{"type": "integer"}}},
				"created_at": Schema{"type": "string", "format": "date-time"},
				"validation": Schema{"type": "object", "properties": Schema{
					"conforms": Schema{"type": "boolean"}, "results": Schema{"type": "array"}}},
				"links": Schema{"type": "object", "additionalProperties": Schema{"type": "string"}},
				"step": Schema{"type": "object", "description": "For one job step of a multi-step log: its group, 1-based index and previous step.",
					"properties": Schema{"group": Schema{"type": "string"}, "index": Schema{"type": "integer"}, "previous": Schema{"type": "string"}}},
				"steps": Schema{"type": "array", "description": "For a multi-step log (the group): its job steps in order, each a calculation of its own.",
					"items": Schema{"type": "object", "required": []string{"id", "index", "links"}, "properties": Schema{
						"id": Schema{"type": "string"}, "index": Schema{"type": "integer"},
						"job_types": Schema{"type": "array", "items": Schema{"type": "string"}},
						"method":    Schema{"type": "string"}, "basis_set": Schema{"type": "string"}, "scf_hartree": num,
						"normal_termination": Schema{"type": "boolean"},
						"links":              Schema{"type": "object", "additionalProperties": Schema{"type": "string"}}}}},
			}},
		"CalculationFeatures": {"type": "object", "required": []string{"id", "features", "units"},
			"properties": Schema{
				"id":       Schema{"type": "string"},
				"features": Schema{"type": "object", "additionalProperties": Schema{"type": []string{"number", "null"}}},
				"units":    Schema{"type": "object", "additionalProperties": Schema{"type": "string"}},
			}},
	}
}

func (s *Server) qmRoutes() []Route {
	idParam := map[string]string{"id": "The calculation id (calc-...)."}
	return []Route{
		{
			Method: http.MethodPost, Pattern: "/v1/qm/parse", Scope: auth.ScopeWrite, Handle: s.parseLog,
			Doc: Doc{Tag: "qm", Summary: "Parse a quantum-chemistry log into a calculation",
				Description: "Gaussian, ORCA, Psi4, NWChem and xtb logs, detected from their content. The same file bytes give the same id: " +
					"a second upload answers 200 with the stored record. With validate_ontology=true the triples are checked " +
					"against the SHACL shapes (GET /v1/shapes) before anything is stored. A log with several job steps " +
					"(Gaussian Link1 jobs, NWChem tasks, Psi4 driver calls, ORCA multi-job and compound runs) becomes one calculation per step, linked in order; the answer is " +
					"their group, whose steps lists them (each with its own record, triples and features).",
				Request: &Body{Required: true, Content: map[string]Schema{"multipart/form-data": {"type": "object", "required": []string{"file"},
					"properties": Schema{
						"file":              Schema{"type": "string", "contentMediaType": "application/octet-stream"},
						"validate_ontology": Schema{"type": "string", "enum": []string{"true", "false"}, "default": "false"},
						"program":           Schema{"type": "string", "enum": []string{"gaussian", "orca", "psi4", "nwchem", "xtb"}},
					}}}},
				Responses: []Response{
					{Status: 201, Description: "The new calculation.", Content: jsonContent(ref("Calculation")),
						Headers: map[string]string{"Location": "URL of the calculation."}},
					{Status: 200, Description: "The file was parsed before: the stored calculation.", Content: jsonContent(ref("Calculation")),
						Headers: map[string]string{"Location": "URL of the calculation."}},
				}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/qm/calculations/{id}", Scope: auth.ScopeRead, Handle: s.getCalculation,
			Doc: Doc{Tag: "qm", Summary: "Get a calculation record (projected from its graph)", PathParams: idParam,
				Responses: []Response{{Status: 200, Description: "The calculation.", Content: jsonContent(ref("Calculation"))}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/qm/calculations/{id}/triples", Scope: auth.ScopeRead, Handle: s.calculationTriples,
			Doc: Doc{Tag: "qm", Summary: "The calculation's OntoCompChem triples", PathParams: idParam, Params: triplesParams(),
				Responses: []Response{triplesResponse("The calculation's named graph.")}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/qm/calculations/{id}/features", Scope: auth.ScopeRead, Handle: s.calculationFeatures,
			Doc: Doc{Tag: "qm", Summary: "ML features of a calculation (missing ones null)", PathParams: idParam,
				Responses: []Response{{Status: 200, Description: "Named features in their fixed order, with units.",
					Content: jsonContent(ref("CalculationFeatures"))}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/qm/features", Scope: auth.ScopeRead, Handle: s.allFeatures,
			Doc: Doc{Tag: "qm", Summary: "ML features of every calculation as one table",
				Params: []Param{{Name: "format", In: "query", Description: "csv (default) or jsonl.",
					Schema: Schema{"type": "string", "enum": []string{"csv", "jsonl"}}}},
				Responses: []Response{{Status: 200, Description: "One row per calculation, id first.",
					Content: map[string]Schema{"text/csv": {"type": "string"}, "application/x-ndjson": {"type": "string"}}}}},
		},
	}
}

// calculationID is the content address of a log (from its SHA-256): the same bytes always
// give the same id.
func calculationID(sum [sha256.Size]byte) string {
	return "calc-" + hex.EncodeToString(sum[:16])
}

func (s *Server) calculationIRI(id string) quad.IRI {
	return ontology.ResourceIRI(s.cfg.BaseIRI, ontology.KindCalculation, id)
}

func calculationLinks(id string) map[string]string {
	self := "/v1/qm/calculations/" + id
	return map[string]string{"self": self, "triples": self + "/triples", "features": self + "/features"}
}

// logUpload is the parsed multipart form of POST /v1/qm/parse.
type logUpload struct {
	data     []byte
	filename string
	validate bool
	program  string
}

// readLogUpload reads the multipart form: the file part (required) and
// the validate_ontology and program values.
func readLogUpload(r *http.Request) (*logUpload, error) {
	form, err := readFileForm(r, "the log", "validate_ontology", "program")
	if err != nil {
		return nil, err
	}
	up := &logUpload{data: form.data, filename: form.filename, program: form.values["program"]}
	if up.validate, err = form.bool("validate_ontology"); err != nil {
		return nil, err
	}
	return up, nil
}

func (s *Server) parseLog(w http.ResponseWriter, r *http.Request) error {
	st, err := s.graphStore()
	if err != nil {
		return err
	}
	up, err := readLogUpload(r)
	if err != nil {
		return err
	}
	if up.validate && s.cfg.Gate == nil {
		return fmt.Errorf("%w: no SHACL gate configured", ErrValidationUnavailable)
	}
	if up.program != "" {
		if _, err := qm.ProgramByName(up.program); err != nil {
			return badRequest("program", "unknown program %q; allowed: gaussian, orca, psi4, nwchem, xtb", up.program)
		}
	}
	sum := sha256.Sum256(up.data)
	id := calculationID(sum)
	iri := s.calculationIRI(id)
	ctx := r.Context()

	// The same bytes were parsed before: answer with the stored record.
	if stored, err := st.Graph(ctx, iri); err == nil {
		var rep *shapes.Report
		if up.validate {
			if rep, err = s.cfg.Gate.Validate(stored); err != nil {
				return err
			}
		}
		if ontology.IsCalculationGroup(stored) {
			view, err := s.groupView(ctx, st, stored)
			if err != nil {
				return err
			}
			view.Validation = rep
			w.Header().Set("Location", view.Links["self"])
			return writeJSON(w, http.StatusOK, view)
		}
		view, err := s.calculationView(stored)
		if err != nil {
			return err
		}
		view.Validation = rep
		w.Header().Set("Location", view.Links["self"])
		return writeJSON(w, http.StatusOK, view)
	} else if !errors.Is(err, graph.ErrNotFound) {
		return err
	}

	calc, err := s.cfg.QM.Parse(bytes.NewReader(up.data), up.program)
	if err != nil {
		return err
	}
	if len(calc.Steps) > 1 {
		return s.storeSteps(w, r, st, up, sum, calc)
	}
	rec := features.Record(calc)
	rec.Source = &ontology.CalculationSource{Filename: up.filename, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(up.data))}
	rec.CreatedAt = time.Now().UTC().Truncate(time.Millisecond)
	quads, err := ontology.CalculationQuads(s.cfg.BaseIRI, id, &rec)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnprocessable, err)
	}
	var report *shapes.Report
	if up.validate {
		if report, err = s.cfg.Gate.Validate(quads); err != nil {
			return err
		}
		if !report.Conforms {
			return validationError(report)
		}
	}
	// Only a calculation that will be stored registers its molecule.
	if warning := s.linkMolecule(ctx, &rec); warning != "" {
		s.log.Info("calculation not linked to a molecule", "calculation", id, "reason", warning)
	} else if rec.MoleculeID != "" {
		if quads, err = ontology.CalculationQuads(s.cfg.BaseIRI, id, &rec); err != nil {
			return fmt.Errorf("%w: %v", ErrUnprocessable, err)
		}
	}
	// The log first: a graph never links a blob that is not there. A failed
	// graph write leaves an unreferenced blob, which is harmless.
	if _, err := st.Blobs().PutBytes(up.data); err != nil {
		return err
	}
	if err := st.PutGraph(ctx, iri, quads); err != nil {
		return err
	}
	stored, err := st.Graph(ctx, iri)
	if err != nil {
		return err
	}
	view, err := s.calculationView(stored)
	if err != nil {
		return err
	}
	view.Validation = report
	w.Header().Set("Location", view.Links["self"])
	return writeJSON(w, http.StatusCreated, view)
}

// validationError is the 422 of a non-conforming calculation, one error
// per most specific SHACL result.
func validationError(rep *shapes.Report) error {
	var fields []FieldError
	for _, res := range rep.Leaves() {
		field := ""
		if res.Path != nil {
			field = res.Path.String()
		}
		fields = append(fields, FieldError{Field: field, Message: res.String()})
	}
	return &InputError{Err: ErrOntologyValidation, Fields: fields}
}

func (s *Server) calculationView(quads []quad.Quad) (*calculationView, error) {
	rec, err := ontology.CalculationFromQuads(quads)
	if err != nil {
		return nil, err
	}
	links := calculationLinks(rec.ID)
	if rec.Step != nil {
		links["group"] = "/v1/qm/calculations/" + rec.Step.Group
		if rec.Step.Previous != "" {
			links["previous"] = "/v1/qm/calculations/" + rec.Step.Previous
		}
	}
	return &calculationView{CalculationRecord: rec, Links: links}, nil
}

// calculationGraph reads the graph of the calculation named in the path.
func (s *Server) calculationGraph(r *http.Request) ([]quad.Quad, error) {
	quads, _, err := s.resourceGraph(r, ontology.KindCalculation, "calc-", chi.URLParam(r, "id"))
	return quads, err
}

func (s *Server) getCalculation(w http.ResponseWriter, r *http.Request) error {
	quads, err := s.calculationGraph(r)
	if err != nil {
		return err
	}
	if ontology.IsCalculationGroup(quads) {
		st, err := s.graphStore()
		if err != nil {
			return err
		}
		view, err := s.groupView(r.Context(), st, quads)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, view)
	}
	view, err := s.calculationView(quads)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, view)
}

func (s *Server) calculationTriples(w http.ResponseWriter, r *http.Request) error {
	quads, err := s.calculationGraph(r)
	if err != nil {
		return err
	}
	return writeTriples(w, r, quads)
}

func (s *Server) calculationFeatures(w http.ResponseWriter, r *http.Request) error {
	quads, err := s.calculationGraph(r)
	if err != nil {
		return err
	}
	id := ""
	if ontology.IsCalculationGroup(quads) {
		// A multi-step log's features are those of its last step, the
		// result of the whole job (each step has its own features too).
		g, err := ontology.CalculationGroupFromQuads(quads)
		if err != nil {
			return err
		}
		st, err := s.graphStore()
		if err != nil {
			return err
		}
		id = g.ID
		if quads, err = st.Graph(r.Context(), s.calculationIRI(g.Steps[len(g.Steps)-1])); err != nil {
			return err
		}
	}
	rec, err := ontology.CalculationFromQuads(quads)
	if err != nil {
		return err
	}
	if id == "" {
		id = rec.ID
	}
	units := map[string]string{}
	for _, f := range features.List() {
		units[f.Name] = f.Unit
	}
	out := map[string]any{"id": id, "features": features.FromRecord(&rec), "units": units}
	if id != rec.ID {
		out["step"] = rec.ID
	}
	return writeJSON(w, http.StatusOK, out)
}

// allFeatures streams the feature table of every calculation.
func (s *Server) allFeatures(w http.ResponseWriter, r *http.Request) error {
	st, err := s.graphStore()
	if err != nil {
		return err
	}
	name := r.URL.Query().Get("format")
	if name == "" {
		name = "csv"
	}
	f, err := features.ParseFormat(name)
	if err != nil {
		return badRequest("format", "unknown format %q; allowed: csv, jsonl", name)
	}
	ctx := r.Context()
	class := quad.IRI(ontology.MG + "Calculation")
	bw := bufio.NewWriter(w)
	w.Header().Set("Content-Type", f.MediaType())
	fw, err := features.NewWriter(bw, f)
	if err != nil {
		return err
	}
	after := quad.IRI("")
	for {
		page, more, err := st.ListByClass(ctx, class, after, 500)
		if err != nil {
			return err
		}
		for _, iri := range page {
			quads, err := st.Graph(ctx, iri)
			if errors.Is(err, graph.ErrNotFound) {
				continue // deleted meanwhile
			} else if err != nil {
				return err
			}
			rec, err := ontology.CalculationFromQuads(quads)
			if err != nil {
				return err
			}
			if err := fw.Write(rec.ID, features.FromRecord(&rec)); err != nil {
				return err
			}
		}
		if !more {
			break
		}
		after = page[len(page)-1]
	}
	if err := fw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}
