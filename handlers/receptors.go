package handlers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// receptorView is the JSON of a receptor: the record projected from its
// graph and its links.
type receptorView struct {
	ontology.ReceptorRecord
	Links map[string]string `json:"links"`
}

func (s *Server) receptorsResource() resource {
	return resource{routes: s.receptorRoutes(), schemas: receptorSchemas()}
}

func receptorSchemas() map[string]Schema {
	num := Schema{"type": "number"}
	vec := Schema{"type": "array", "items": num, "minItems": 3, "maxItems": 3}
	file := Schema{"type": "object", "required": []string{"sha256", "bytes", "media_type"}, "properties": Schema{
		"filename": Schema{"type": "string"}, "sha256": Schema{"type": "string", "pattern": "^[0-9a-f]{64}$"},
		"bytes": Schema{"type": "integer"}, "media_type": Schema{"type": "string"}}}
	return map[string]Schema{
		"Receptor": {"type": "object", "required": []string{"id", "iri", "format", "atoms", "residues", "chains", "pockets", "source", "prepared", "created_at", "links"},
			"properties": Schema{
				"id": Schema{"type": "string", "pattern": "^rec-"}, "iri": Schema{"type": "string"},
				"name":     Schema{"type": "string"},
				"format":   Schema{"type": "string", "enum": []string{"pdb", "pdbqt"}, "description": "The uploaded format."},
				"atoms":    Schema{"type": "integer", "description": "Atoms of the prepared PDBQT (heavy atoms and polar hydrogens)."},
				"residues": Schema{"type": "integer"}, "chains": Schema{"type": "integer"},
				"pockets": Schema{"type": "array", "description": "Detected pockets, best first.", "items": Schema{
					"type": "object", "required": []string{"id", "rank", "center", "size", "score"},
					"properties": Schema{"id": Schema{"type": "string", "pattern": "^p[1-9][0-9]*$"}, "rank": Schema{"type": "integer"},
						"center": vec, "size": vec, "score": Schema{"type": "number", "description": "Pocket volume, Å³."}}}},
				"source":   file,
				"prepared": file,
				"preparation": Schema{"type": "object", "required": []string{"route", "ph", "steps"},
					"description": "How a PDB upload became the PDBQT (absent for a PDBQT upload, used as is).",
					"properties": Schema{
						"route": Schema{"type": "string", "enum": []string{docking.RoutePDB2PQR, docking.RouteObabel},
							"description": "The route taken: pdb2pqr (PDB2PQR with PROPKA at ph, then Open Babel without adding hydrogens) or obabel (Open Babel adds the hydrogens; ph not applied)."},
						"ph":       Schema{"type": "number", "minimum": docking.MinPH, "maximum": docking.MaxPH, "description": "The pH asked for."},
						"fallback": Schema{"type": "string", "description": "Why the pdb2pqr route was asked for and not taken."},
						"steps": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"tool", "arguments"}, "properties": Schema{
							"tool": Schema{"type": "string"}, "version": Schema{"type": "string"},
							"arguments": Schema{"type": "array", "items": Schema{"type": "string"},
								"description": "The command line as run, the program name first (file names relative to the run's private directory)."}}}},
					}},
				"warnings":   Schema{"type": "array", "items": Schema{"type": "string"}},
				"created_at": Schema{"type": "string", "format": "date-time"},
				"links":      Schema{"type": "object", "additionalProperties": Schema{"type": "string"}},
			}},
	}
}

func (s *Server) receptorRoutes() []Route {
	idParam := map[string]string{"id": "The receptor id (rec-...)."}
	return []Route{
		{
			Method: http.MethodPost, Pattern: "/v1/receptors", Scope: auth.ScopeWrite, Handle: s.postReceptor,
			Doc: Doc{Tag: "docking", Summary: "Upload a receptor (PDB or PDBQT) and detect its pockets",
				Description: "A PDB is prepared for docking: waters and hetero groups removed (unless keep_hetero / keep_metals), " +
					"one alternate location, then protonated at ph by PDB2PQR with PROPKA (route pdb2pqr, the default) and written " +
					"as PDBQT by Open Babel (obabel -xr, no hydrogens added); when PDB2PQR fails (e.g. a residue it has no template for) " +
					"Open Babel adds the hydrogens instead (route obabel, obabel -xr -h) and the record's preparation.fallback says why. " +
					"Chains and residue numbers are kept. The route, pH and command lines are in preparation (JSON and graph). " +
					"A PDBQT is validated and used as is (ph and route do not apply). The same file bytes with the same options give the same id: " +
					"a second upload answers 200 with the stored record. A ph or route out of bounds is 400 naming the field; " +
					"a bad structure is 422 invalid_receptor; nothing is stored.",
				Request: &Body{Required: true, Content: map[string]Schema{"multipart/form-data": {"type": "object", "required": []string{"file"},
					"properties": Schema{
						"file":        Schema{"type": "string", "contentMediaType": "application/octet-stream"},
						"name":        Schema{"type": "string"},
						"keep_hetero": Schema{"type": "string", "enum": []string{"true", "false"}, "default": "false"},
						"keep_metals": Schema{"type": "string", "enum": []string{"true", "false"}, "default": "false"},
						"ph": Schema{"type": "string", "pattern": phSyntax.String(), "default": docking.FormatPH(docking.DefaultPH),
							"description": "pH of protonation, a decimal number in [0, 14] (PDB uploads)."},
						"route": Schema{"type": "string", "enum": []string{docking.RoutePDB2PQR, docking.RouteObabel}, "default": docking.DefaultRoute,
							"description": "Protonation route for a PDB upload (see the description)."},
					}}}},
				Responses: []Response{
					{Status: 201, Description: "The new receptor.", Content: jsonContent(ref("Receptor")),
						Headers: map[string]string{"Location": "URL of the receptor."}},
					{Status: 200, Description: "The same file and options were uploaded before: the stored receptor.",
						Content: jsonContent(ref("Receptor")), Headers: map[string]string{"Location": "URL of the receptor."}},
				}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/receptors/{id}", Scope: auth.ScopeRead, Handle: s.getReceptor,
			Doc: Doc{Tag: "docking", Summary: "Get a receptor record (projected from its graph)", PathParams: idParam,
				Responses: []Response{{Status: 200, Description: "The receptor.", Content: jsonContent(ref("Receptor"))}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/receptors/{id}/structure", Scope: auth.ScopeRead, Handle: s.receptorStructure,
			Doc: Doc{Tag: "docking", Summary: "The receptor's prepared PDBQT or uploaded file", PathParams: idParam,
				Params: []Param{{Name: "format", In: "query",
					Description: "pdbqt (default): the docking-ready file; pdb: the file as uploaded (a PDBQT upload has no PDB).",
					Schema:      Schema{"type": "string", "enum": []string{"pdbqt", "pdb"}}}},
				Responses: []Response{{Status: 200, Description: "The structure file.", Content: map[string]Schema{
					ontology.MediaTypePDBQT: {"type": "string"}, ontology.MediaTypePDB: {"type": "string"}}}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/receptors/{id}/triples", Scope: auth.ScopeRead, Handle: s.receptorTriples,
			Doc: Doc{Tag: "docking", Summary: "The receptor's triples", PathParams: idParam, Params: triplesParams(),
				Responses: []Response{triplesResponse("The receptor's named graph.")}},
		},
	}
}

// receptorUpload is the parsed multipart form of POST /v1/receptors.
type receptorUpload struct {
	data       []byte
	filename   string
	name       string
	keepHetero bool
	keepMetals bool
	ph         float64 // in [docking.MinPH, docking.MaxPH]
	route      string  // docking.RoutePDB2PQR or docking.RouteObabel
}

// readReceptorUpload reads the file part (required) and the name,
// keep_hetero, keep_metals, ph and route values.
func readReceptorUpload(r *http.Request) (*receptorUpload, error) {
	form, err := readFileForm(r, "the receptor (.pdb or .pdbqt)", "name", "keep_hetero", "keep_metals", "ph", "route")
	if err != nil {
		return nil, err
	}
	up := &receptorUpload{data: form.data, filename: form.filename, name: form.values["name"],
		ph: docking.DefaultPH, route: docking.DefaultRoute}
	if v := form.values["ph"]; v != "" {
		// strconv.ParseFloat also takes "NaN", "Inf" and hex floats: only
		// plain decimals in range are a pH.
		ph, err := strconv.ParseFloat(v, 64)
		if err != nil || !phSyntax.MatchString(v) || !docking.ValidPH(ph) {
			return nil, badRequest("ph", "%q is not a pH: a decimal number in [%v, %v]", truncate(v, 40), docking.MinPH, docking.MaxPH)
		}
		up.ph = ph
	}
	if v := form.values["route"]; v != "" {
		if v != docking.RoutePDB2PQR && v != docking.RouteObabel {
			return nil, badRequest("route", "%q is not a preparation route: %s or %s", truncate(v, 40), docking.RoutePDB2PQR, docking.RouteObabel)
		}
		up.route = v
	}
	if up.keepHetero, err = form.bool("keep_hetero"); err != nil {
		return nil, err
	}
	if up.keepMetals, err = form.bool("keep_metals"); err != nil {
		return nil, err
	}
	return up, nil
}

// phSyntax is the form of a ph value: digits, optionally a decimal part.
var phSyntax = regexp.MustCompile(`^[0-9]{1,2}(\.[0-9]{1,6})?$`)

// truncate shortens s to at most n bytes for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// receptorID is the content address of an upload: the file's bytes and the
// options that change the preparation (none for a PDBQT, used as is).
func receptorID(data []byte, format string, up *receptorUpload) string {
	h := sha256.New()
	if format == "pdb" {
		fmt.Fprintf(h, "molgraph receptor pdb keep_hetero=%t keep_metals=%t ph=%s route=%s\n",
			up.keepHetero, up.keepMetals, docking.FormatPH(up.ph), up.route)
	} else {
		fmt.Fprintf(h, "molgraph receptor pdbqt\n")
	}
	h.Write(data)
	return "rec-" + hex.EncodeToString(h.Sum(nil)[:16])
}

func (s *Server) receptorIRI(id string) quad.IRI {
	return ontology.ResourceIRI(s.cfg.BaseIRI, ontology.KindReceptor, id)
}

func receptorLinks(id string) map[string]string {
	self := "/v1/receptors/" + id
	return map[string]string{"self": self, "structure": self + "/structure?format=pdbqt",
		"source": self + "/structure?format=pdb", "triples": self + "/triples"}
}

func (s *Server) postReceptor(w http.ResponseWriter, r *http.Request) error {
	st, err := s.graphStore()
	if err != nil {
		return err
	}
	up, err := readReceptorUpload(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	format := docking.DetectReceptorFormat(up.data)
	id := receptorID(up.data, format, up)
	iri := s.receptorIRI(id)

	// The same upload was prepared before: answer with the stored record.
	if stored, err := st.Graph(ctx, iri); err == nil {
		view, err := receptorViewOf(stored)
		if err != nil {
			return err
		}
		w.Header().Set("Location", view.Links["self"])
		return writeJSON(w, http.StatusOK, view)
	} else if !errors.Is(err, graph.ErrNotFound) {
		return err
	}

	prep, err := docking.PrepareReceptor(ctx, up.data, docking.ReceptorOptions{
		Format: format, KeepHetero: up.keepHetero, KeepMetals: up.keepMetals, PH: &up.ph, Route: up.route, TempDirs: s.cfg.TempDirs})
	if err != nil {
		return err
	}
	if prep.Atoms == 0 || prep.Residues == 0 {
		return fmt.Errorf("receptor: %w: no atoms", docking.ErrInvalidReceptor)
	}
	pockets, err := docking.FindReceptorPockets(prep.Molecule, docking.PocketOptions{})
	if err != nil {
		return fmt.Errorf("receptor: pockets: %w", err)
	}

	rec := ontology.ReceptorRecord{
		Name: up.name, Format: format, Atoms: prep.Atoms, Residues: prep.Residues, Chains: max(len(prep.Chains), 1),
		Pockets:   make([]ontology.ReceptorPocket, 0, len(pockets)),
		Warnings:  prep.Warnings,
		CreatedAt: time.Now().UTC().Truncate(time.Millisecond),
	}
	if rec.Name == "" {
		rec.Name = strings.TrimSuffix(up.filename, path.Ext(up.filename))
	}
	for i, p := range pockets {
		rec.Pockets = append(rec.Pockets, ontology.ReceptorPocket{ID: p.ID, Rank: i + 1, Center: p.Center, Size: p.Size, Score: p.Score})
	}
	srcSum := sha256.Sum256(up.data)
	rec.Source = ontology.ReceptorFile{Filename: up.filename, SHA256: hex.EncodeToString(srcSum[:]), Bytes: int64(len(up.data)), MediaType: ontology.MediaTypePDB}
	if format == "pdbqt" {
		rec.Source.MediaType = ontology.MediaTypePDBQT
		rec.Prepared = rec.Source
	} else {
		stem := strings.TrimSuffix(up.filename, path.Ext(up.filename))
		if stem == "" {
			stem = id
		}
		prepSum := sha256.Sum256(prep.PDBQT)
		rec.Prepared = ontology.ReceptorFile{Filename: stem + ".pdbqt", SHA256: hex.EncodeToString(prepSum[:]),
			Bytes: int64(len(prep.PDBQT)), MediaType: ontology.MediaTypePDBQT}
		if p := prep.Preparation; p != nil {
			rec.Preparation = &ontology.ReceptorPreparation{Route: p.Route, PH: p.PH, Fallback: p.Fallback}
			for _, st := range p.Steps {
				rec.Preparation.Steps = append(rec.Preparation.Steps, ontology.ReceptorStep{Tool: st.Tool, Version: st.Version, Arguments: st.Args})
			}
		}
	}
	quads, err := ontology.ReceptorQuads(s.cfg.BaseIRI, id, &rec)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnprocessable, err)
	}
	// The files first: a graph never links a blob that is not there. A
	// failed graph write leaves unreferenced blobs, which is harmless.
	if _, err := st.Blobs().PutBytes(up.data); err != nil {
		return err
	}
	if format == "pdb" {
		if _, err := st.Blobs().PutBytes(prep.PDBQT); err != nil {
			return err
		}
	}
	if err := st.PutGraph(ctx, iri, quads); err != nil {
		return err
	}
	stored, err := st.Graph(ctx, iri)
	if err != nil {
		return err
	}
	view, err := receptorViewOf(stored)
	if err != nil {
		return err
	}
	w.Header().Set("Location", view.Links["self"])
	return writeJSON(w, http.StatusCreated, view)
}

func receptorViewOf(quads []quad.Quad) (*receptorView, error) {
	rec, err := ontology.ReceptorFromQuads(quads)
	if err != nil {
		return nil, err
	}
	return &receptorView{ReceptorRecord: rec, Links: receptorLinks(rec.ID)}, nil
}

// receptorGraph reads the graph of the receptor named in the path.
func (s *Server) receptorGraph(r *http.Request) ([]quad.Quad, error) {
	quads, _, err := s.resourceGraph(r, ontology.KindReceptor, "rec-", chi.URLParam(r, "id"))
	return quads, err
}

func (s *Server) getReceptor(w http.ResponseWriter, r *http.Request) error {
	quads, err := s.receptorGraph(r)
	if err != nil {
		return err
	}
	view, err := receptorViewOf(quads)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, view)
}

func (s *Server) receptorStructure(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "pdbqt"
	}
	if format != "pdbqt" && format != "pdb" {
		return badRequest("format", "unknown format %q; allowed: pdbqt, pdb", format)
	}
	quads, err := s.receptorGraph(r)
	if err != nil {
		return err
	}
	rec, err := ontology.ReceptorFromQuads(quads)
	if err != nil {
		return err
	}
	file := rec.Prepared
	if format == "pdb" {
		if rec.Format != "pdb" {
			return fmt.Errorf("%w: receptor %s was uploaded as %s; there is no PDB file (use format=pdbqt)", ErrNotFound, rec.ID, rec.Format)
		}
		file = rec.Source
	}
	data, err := s.cfg.Graph.Blobs().Get(file.SHA256)
	if err != nil {
		return err
	}
	name := file.Filename
	if name == "" {
		name = rec.ID + "." + format
	}
	w.Header().Set("Content-Type", file.MediaType)
	w.Header().Set("Content-Disposition", fmt.Sprintf("inline; filename=%q", name))
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	_, err = io.Copy(w, bytes.NewReader(data))
	return err
}

func (s *Server) receptorTriples(w http.ResponseWriter, r *http.Request) error {
	quads, err := s.receptorGraph(r)
	if err != nil {
		return err
	}
	return writeTriples(w, r, quads)
}
