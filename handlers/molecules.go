package handlers

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cayleygraph/quad"
	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	jobsdocking "github.com/molgraph/molgraph/jobs/docking"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/sdf"
)

// Molecules: POST /v1/molecules registers one molecule (jobs/batch.Registry:
// chem normalizes it, its id is the hash of its canonical SMILES); GET
// reads it back from its named graph (ontology.MoleculeFromQuads), so the
// JSON is always a projection of the stored triples.

// MoleculeServices wire the molecule and batch routes; a nil Registry
// makes them answer 503 not_ready.
type MoleculeServices struct {
	Registry *batch.Registry
	// Jobs runs Batch (nil: the batch routes answer 503).
	Jobs  *jobs.Runner
	Batch *batch.Task
	// MaxBatchRecords bounds one batch upload (default DefaultMaxBatchRecords).
	MaxBatchRecords int
}

// Pagination and batch defaults (spec/API.md).
const (
	DefaultPageLimit       = 100
	MaxPageLimit           = 1000
	DefaultMaxBatchRecords = 100000
)

// moleculeView is the JSON of a molecule.
type moleculeView struct {
	ontology.MoleculeRecord
	Links map[string]string `json:"links"`
}

func moleculeLinks(id string) map[string]string {
	self := "/v1/molecules/" + id
	return map[string]string{"self": self, "triples": self + "/triples", "structure": self + "/structure"}
}

// moleculeCreate is the body of POST /v1/molecules.
type moleculeCreate struct {
	Format     string `json:"format"`
	Content    string `json:"content"`
	Generate3D bool   `json:"generate_3d"`
	Name       string `json:"name"`
}

// moleculeFormats are the format names POST accepts.
const moleculeFormats = "smiles, inchi, sdf (alias mol), pdbqt"

func (s *Server) moleculesResource() resource {
	var routes []Route
	routes = append(routes, s.moleculeRoutes()...)
	routes = append(routes, s.batchRoutes()...)
	routes = append(routes, s.identityRoutes()...)
	schemas := moleculeSchemas()
	for k, v := range batchSchemas() {
		schemas[k] = v
	}
	return resource{routes: routes, schemas: schemas}
}

func moleculeSchemas() map[string]Schema {
	str, num, integer, boolean := Schema{"type": "string"}, Schema{"type": "number"}, Schema{"type": "integer", "minimum": 0}, Schema{"type": "boolean"}
	return map[string]Schema{
		"Molecule": {"type": "object",
			"required": []string{"id", "iri", "smiles_canonical", "inchi", "inchi_key", "formula", "mw", "exact_mass", "logp", "qed",
				"tpsa", "hbd", "hba", "rotatable_bonds", "heavy_atoms", "aromatic_rings", "validated", "validation", "normalization",
				"has_3d", "created_at", "links"},
			"properties": Schema{
				"id": Schema{"type": "string", "pattern": "^mol-[a-z2-7]{26}$"}, "iri": str,
				"smiles_canonical": str, "inchi": str, "inchi_key": Schema{"type": "string", "pattern": "^([A-Z]{14}-[A-Z]{10}-[A-Z])?$",
					"description": "Standard InChIKey; empty (as inchi) when libinchi refuses the structure, which is then not validated."},
				"formula": str, "mw": num, "exact_mass": num, "logp": num, "qed": num, "tpsa": num,
				"hbd": integer, "hba": integer, "rotatable_bonds": integer, "heavy_atoms": integer, "aromatic_rings": integer,
				"validated": boolean,
				"validation": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"level", "code", "message"},
					"properties": Schema{"level": Schema{"type": "string", "enum": []string{"error", "warning"}}, "code": str, "message": str}}},
				"normalization": Schema{"type": "array", "items": str},
				"has_3d":        boolean, "input_format": Schema{"type": "string", "enum": []string{"smiles", "inchi", "sdf", "pdbqt"}},
				"name": str, "created_at": Schema{"type": "string", "format": "date-time"},
				"structure_file": Schema{"type": "object", "required": []string{"sha256", "bytes"}, "properties": Schema{
					"sha256": str, "bytes": integer, "media_type": str, "filename": str}},
				"links": Schema{"type": "object", "additionalProperties": str},
			}},
		"MoleculeCreate": {"type": "object", "required": []string{"format", "content"}, "additionalProperties": false,
			"properties": Schema{
				"format":      Schema{"type": "string", "description": "smiles, inchi, sdf (alias mol) or pdbqt; case-insensitive."},
				"content":     Schema{"type": "string", "minLength": 1},
				"generate_3d": Schema{"type": "boolean", "default": false},
				"name": Schema{"type": "string", "maxLength": MaxNameBytes,
					"description": "At most 1,024 bytes, no control characters (400 invalid_request)."},
			}},
		"MoleculeList": {"type": "object", "required": []string{"molecules", "next_cursor"}, "properties": Schema{
			"molecules":   Schema{"type": "array", "items": ref("Molecule")},
			"next_cursor": Schema{"type": []string{"string", "null"}},
		}},
	}
}

func pageParams() []Param {
	return []Param{
		{Name: "limit", In: "query", Description: "Page size (default 100, at most 1000).", Schema: Schema{"type": "integer", "minimum": 1, "maximum": MaxPageLimit}},
		{Name: "cursor", In: "query", Description: "The next_cursor of the previous page.", Schema: Schema{"type": "string"}},
	}
}

func (s *Server) moleculeRoutes() []Route {
	idParam := map[string]string{"id": "The molecule id (mol-...)."}
	molBody := jsonContent(ref("Molecule"))
	return []Route{
		{
			Method: http.MethodPost, Pattern: "/v1/molecules", Scope: auth.ScopeWrite, Handle: s.createMolecule,
			Doc: Doc{Tag: "molecules", Summary: "Register a molecule (idempotent: the id is derived from the normalized structure)",
				Description: "Normalizes the structure (sanitize, clean-up, largest organic fragment, neutralize) and computes identity " +
					"and descriptors with RDKit and InChI. generate_3d adds an ETKDG+MMFF94 conformer (also to an existing molecule " +
					"without one), within the 3D limits (422 too_large_for_3d; 503 embedding_timeout). Content that is not a " +
					"molecule is 422 invalid_molecule; nothing is stored. SMILES and InChI content is one token of printable " +
					"ASCII (surrounding whitespace is ignored; a name goes in name): anything else is 422 invalid_molecule.",
				Request: &Body{Required: true, Content: jsonContent(ref("MoleculeCreate"))},
				Responses: []Response{
					{Status: 201, Description: "A new molecule.", Content: molBody, Headers: map[string]string{"Location": "URL of the molecule."}},
					{Status: 200, Description: "The molecule existed; its stored record.", Content: molBody, Headers: map[string]string{"Location": "URL of the molecule."}},
				}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/molecules", Scope: auth.ScopeRead, Handle: s.listMolecules,
			Doc: Doc{Tag: "molecules", Summary: "Look up molecules by InChIKey or SMILES, or list them",
				Description: "smiles is normalized like a POST, so any spelling of the structure finds it. Without filters, " +
					"every molecule in id order.",
				Params: append([]Param{
					{Name: "inchi_key", In: "query", Description: "Standard InChIKey (tautomers share one, so several molecules may match).", Schema: Schema{"type": "string"}},
					{Name: "smiles", In: "query", Description: "A SMILES of the structure.", Schema: Schema{"type": "string"}},
				}, pageParams()...),
				Responses: []Response{{Status: 200, Description: "A page of molecules.", Content: jsonContent(ref("MoleculeList"))}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/molecules/{id}", Scope: auth.ScopeRead, Handle: s.getMolecule,
			Doc: Doc{Tag: "molecules", Summary: "Get a molecule, projected from its named graph", PathParams: idParam,
				Responses: []Response{{Status: 200, Description: "The molecule.", Content: molBody}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/molecules/{id}/structure", Scope: auth.ScopeRead, Handle: s.moleculeStructure,
			Doc: Doc{Tag: "molecules", Summary: "The structure file: the 3D conformer if there is one, else 2D coordinates", PathParams: idParam,
				Description: "pdbqt needs a 3D conformer: a molecule without one is embedded (ETKDGv3 + MMFF94) once and the conformer " +
					"is stored (has_3d, structure_file) and reused by later requests and docking. Embedding is bounded: a molecule " +
					"with more heavy atoms or rotatable bonds than the 3D limits (x-molgraph-limits 3d_max_heavy_atoms, " +
					"3d_max_rotatable_bonds) is 422 too_large_for_3d before any work; one that runs past 3d_timeout_seconds is " +
					"stopped: 503 embedding_timeout with Retry-After (as is a wait for a free embedding slot that runs out: 503 timeout). " +
					"Without a conformer, sdf, mol and xyz give 2D coordinates computed on request, for molecules with at most " +
					"2d_max_heavy_atoms heavy atoms (more: 422 too_large_for_2d).",
				Params: []Param{{Name: "format", In: "query", Description: "sdf (default), mol, smiles, xyz or pdbqt (the docking-ready ligand); without it, Accept chooses.",
					Schema: Schema{"type": "string", "enum": []string{"sdf", "mol", "smiles", "xyz", "pdbqt"}}},
					{Name: "ph", In: "query", Description: "With format=pdbqt: the ligand in its major protonation state at this pH (a decimal in [0, 14]), " +
						"as a docking job with that ligand_ph docks it (the stored conformer's isomer; embedded again when the protonation changes it). " +
						"Without it, the registered (neutral) form. Anything else is 400 naming ph.",
						Schema: Schema{"type": "string", "pattern": phSyntax.String()}},
					{Name: "isomer", In: "query", Description: "With format=pdbqt: stereoisomer N (1-based) exactly as a docking job with that " +
						"ligand_ph (ph; without it, ligand_ph null) prepares and docks it, the result's isomers[N-1]: a molecule with unspecified " +
						"stereocentres or double bonds is docked as each of its stereoisomers (RDKit's enumeration order, at most 8), one with " +
						"specified stereo as itself (isomer 1). The response's X-Stereoisomers header says how many the job docks. " +
						"Not an integer from 1 to 8: 400 naming isomer; past the molecule's count: 400; an isomer that cannot be prepared: 422. " +
						"Without it, the stored conformer's isomer.",
						Schema: Schema{"type": "integer", "minimum": 1, "maximum": chem.MaxStereoisomers}}},
				Responses: []Response{{Status: 200, Description: "The structure.", Headers: map[string]string{
					stereoisomersHeader: "With format=pdbqt&isomer=N: the number of stereoisomers a docking job docks for this molecule."},
					Content: map[string]Schema{
						"chemical/x-mdl-sdfile": {"type": "string"}, "chemical/x-mdl-molfile": {"type": "string"},
						"chemical/x-daylight-smiles": {"type": "string"}, "chemical/x-xyz": {"type": "string"},
						"chemical/x-pdbqt": {"type": "string"}}}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/molecules/{id}/triples", Scope: auth.ScopeRead, Handle: s.moleculeTriples,
			Doc: Doc{Tag: "molecules", Summary: "The molecule's named graph as Turtle, JSON-LD or N-Triples", PathParams: idParam,
				Params: triplesParams(), Responses: []Response{triplesResponse("The molecule's triples, as stored.")}},
		},
	}
}

// registry returns the molecule registry or a 503.
func (s *Server) registry() (*batch.Registry, error) {
	if s.cfg.Molecules.Registry == nil {
		return nil, fmt.Errorf("%w: molecule registration is not configured", ErrNotReady)
	}
	return s.cfg.Molecules.Registry, nil
}

// parseMoleculeFormat maps a format name to chem's, or a 400 naming field.
func parseMoleculeFormat(field, name string) (chem.Format, error) {
	if strings.TrimSpace(name) == "" {
		return "", badRequest(field, "required: one of %s", moleculeFormats)
	}
	f, err := chem.ParseFormat(strings.TrimSpace(name))
	if err != nil {
		return "", badRequest(field, "unknown format %q; allowed: %s", name, moleculeFormats)
	}
	return f, nil
}

func (s *Server) createMolecule(w http.ResponseWriter, r *http.Request) error {
	reg, err := s.registry()
	if err != nil {
		return err
	}
	var req moleculeCreate
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	f, err := parseMoleculeFormat("format", req.Format)
	if err != nil {
		return err
	}
	if strings.TrimSpace(req.Content) == "" {
		return badRequest("content", "required: the structure as text")
	}
	if len(req.Content) > chem.MaxContentBytes {
		return fmt.Errorf("%w: content has %d bytes, at most %d", ErrBodyTooLarge, len(req.Content), chem.MaxContentBytes)
	}
	if err := checkLineNotation(f, req.Content); err != nil {
		return err
	}
	if len(req.Name) > MaxNameBytes {
		return badRequest("name", "%d bytes, at most %d", len(req.Name), MaxNameBytes)
	}
	if i := strings.IndexFunc(req.Name, unicode.IsControl); i >= 0 {
		return badRequest("name", "a control character at byte %d", i)
	}
	rec, created, err := reg.Register(r.Context(), batch.Input{Format: f, Content: req.Content, Name: req.Name, Generate3D: req.Generate3D})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	w.Header().Set("Location", "/v1/molecules/"+rec.ID)
	return writeJSON(w, status, moleculeView{rec, moleculeLinks(rec.ID)})
}

// moleculeGraph reads the graph of the molecule named in the path.
func (s *Server) moleculeGraph(r *http.Request) (*batch.Registry, []quad.Quad, error) {
	reg, err := s.registry()
	if err != nil {
		return nil, nil, err
	}
	id := chi.URLParam(r, "id")
	if !strings.HasPrefix(id, ontology.MoleculeIDPrefix) {
		return nil, nil, fmt.Errorf("%w: no molecule %q", ErrNotFound, id)
	}
	qs, err := reg.Store().Graph(r.Context(), reg.IRI(id))
	if errors.Is(err, graph.ErrNotFound) {
		return nil, nil, fmt.Errorf("%w: no molecule %q", ErrNotFound, id)
	}
	return reg, qs, err
}

func (s *Server) getMolecule(w http.ResponseWriter, r *http.Request) error {
	_, qs, err := s.moleculeGraph(r)
	if err != nil {
		return err
	}
	rec, err := ontology.MoleculeFromQuads(qs)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, moleculeView{rec, moleculeLinks(rec.ID)})
}

func (s *Server) moleculeTriples(w http.ResponseWriter, r *http.Request) error {
	_, qs, err := s.moleculeGraph(r)
	if err != nil {
		return err
	}
	return writeTriples(w, r, qs)
}

// structureFormats are the structure file formats, default first.
func structureFormats() []format {
	return []format{
		{name: "sdf", aliases: []string{"sd"}, mediaType: "chemical/x-mdl-sdfile"},
		{name: "mol", aliases: []string{"molfile"}, mediaType: "chemical/x-mdl-molfile"},
		{name: "smiles", aliases: []string{"smi"}, mediaType: "chemical/x-daylight-smiles"},
		{name: "xyz", mediaType: "chemical/x-xyz"},
		{name: "pdbqt", mediaType: "chemical/x-pdbqt"},
	}
}

func (s *Server) moleculeStructure(w http.ResponseWriter, r *http.Request) error {
	f, err := pickFormat(r, structureFormats())
	if err != nil {
		return err
	}
	reg, qs, err := s.moleculeGraph(r)
	if err != nil {
		return err
	}
	rec, err := ontology.MoleculeFromQuads(qs)
	if err != nil {
		return err
	}
	var out string
	switch f.name {
	case "smiles":
		out = rec.SMILES + "\t" + rec.ID + "\n"
	case "pdbqt":
		// The docking-ready ligand: AutoDock types, Gasteiger charges,
		// merged non-polar H, torsion tree and Meeko's REMARK lines, made
		// from the stored conformer, which is embedded and stored first if
		// the molecule has none.
		// The parameters are checked before any work: a request refused
		// for them neither embeds nor stores a conformer.
		var ph *float64 // ?ph=: the form a docking job at that pH docks
		if v := r.URL.Query().Get("ph"); v != "" {
			p, err := strconv.ParseFloat(v, 64)
			if err != nil || !phSyntax.MatchString(v) || !docking.ValidPH(p) {
				return badRequest("ph", "%q is not a pH: a decimal number in [%v, %v]", truncate(v, 40), docking.MinPH, docking.MaxPH)
			}
			ph = &p
		}
		isomer := 0
		if v := r.URL.Query().Get("isomer"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > chem.MaxStereoisomers || strings.TrimSpace(v) != v {
				return badRequest("isomer", "%q is not a stereoisomer number: an integer from 1 to %d", truncate(v, 40), chem.MaxStereoisomers)
			}
			isomer = n
		}
		ctx, cancel := context.WithTimeout(r.Context(), reg.Pool().EmbedLimits().Timeout+structureSlotWait)
		defer cancel()
		if rec.Structure == nil {
			if err := storeConformer(ctx, reg, &rec); err != nil {
				return err
			}
		}
		if n := isomer; n > 0 {
			// ?isomer=N: stereoisomer N as a docking job at that pH
			// prepares and docks it (the result's isomers[N-1]).
			p, err := jobsdocking.LigandIsomers(ctx, reg, rec.ID, ph)
			if err != nil {
				return ligandError(err)
			}
			if n > len(p.Isomers) {
				return badRequest("isomer", "molecule %s is docked as %d stereoisomer(s); isomer %d does not exist", rec.ID, len(p.Isomers), n)
			}
			if p.Structs[n-1] == nil {
				return fmt.Errorf("%w: molecule %s: stereoisomer %d (%s) cannot be docked: %s", ErrUnprocessable, rec.ID, n, p.Isomers[n-1].SMILES, p.Isomers[n-1].Failure)
			}
			w.Header().Set(stereoisomersHeader, strconv.Itoa(len(p.Isomers)))
			out = string(p.PDBQT[n-1])
			break
		}
		_, data, err := jobsdocking.LigandPDBQT(ctx, reg, rec.ID, ph)
		if err != nil {
			return ligandError(err)
		}
		out = string(data)
	default:
		var molfile string
		if rec.Structure != nil {
			data, err := reg.Store().Blobs().Get(rec.Structure.SHA256)
			if err != nil {
				return err
			}
			molfile = string(data)
		} else {
			// 2D coordinates are computed on each request (they are not
			// stored): only for molecules whose depiction is cheap.
			if err := reg.Pool().Check2D(rec.HeavyAtoms); err != nil {
				return fmt.Errorf("molecule %s: %w", rec.ID, err)
			}
			res, err := reg.Pool().Process(r.Context(), chem.Input{Format: chem.FormatSMILES, Content: rec.SMILES, NoNormalize: true, Coordinates2D: true})
			if err != nil {
				return err
			}
			_, rest, _ := strings.Cut(res.Molfile, "\n")
			molfile = rec.ID + "\n" + rest
		}
		if i := strings.Index(molfile, "M  END"); i >= 0 {
			molfile = molfile[:i] + "M  END\n"
		}
		switch f.name {
		case "sdf":
			out = molfile + "$$$$\n"
		case "mol":
			out = molfile
		case "xyz":
			if out, err = sdf.MolfileXYZ(molfile, rec.ID); err != nil {
				return err
			}
		}
	}
	w.Header().Set("Content-Type", f.mediaType)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Content-Disposition", fmt.Sprintf("inline; filename=%q", rec.ID+"."+f.name))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write([]byte(out))
	return err
}

// stereoisomersHeader, on GET .../structure?format=pdbqt&isomer=N, is how
// many stereoisomers a docking job docks for the molecule (the length of
// its result's isomers), so a client fetches isomer=1 and knows the rest.
const stereoisomersHeader = "X-Stereoisomers"

// structureSlotWait is how long GET .../structure?format=pdbqt waits for
// a free 3D embedding slot (beyond the embedding's own time limit) before
// it answers 503 timeout with Retry-After.
const structureSlotWait = 10 * time.Second

// storeConformer embeds the molecule of rec, which has no conformer, and
// stores the conformer once: an SDF blob linked from the molecule's graph
// (mg:structureFile), exactly as POST with generate_3d does, so that later
// requests, and docking, reuse it. A molecule over the 3D budget is refused
// from its stored counts before any chemistry (422 too_large_for_3d).
func storeConformer(ctx context.Context, reg *batch.Registry, rec *ontology.MoleculeRecord) error {
	pool := reg.Pool()
	if err := pool.Check3D(rec.HeavyAtoms, rec.RotatableBonds); err != nil {
		return fmt.Errorf("molecule %s: %w", rec.ID, err)
	}
	// The stored SMILES is the normalized molecule: no second normalization.
	res, err := pool.Process(ctx, chem.Input{Format: chem.FormatSMILES, Content: rec.SMILES, NoNormalize: true, Generate3D: true})
	if err != nil {
		return err
	}
	if !res.Has3D {
		return fmt.Errorf("%w: molecule %s: RDKit found no 3D coordinates", ErrUnprocessable, rec.ID)
	}
	_, rest, _ := strings.Cut(res.Molfile, "\n")
	ref, err := reg.Store().Blobs().PutBytes([]byte(rec.ID + "\n" + strings.TrimSuffix(rest, "\n") + "\n$$$$\n"))
	if err != nil {
		return fmt.Errorf("store conformer of %s: %w", rec.ID, err)
	}
	// Re-read the graph so that nothing written since the handler read it
	// is lost, and keep a conformer stored meanwhile.
	cur, err := reg.Get(ctx, rec.ID)
	if err != nil {
		return err
	}
	if cur.Structure == nil {
		cur.Has3D = true
		cur.Structure = &ontology.MoleculeFile{SHA256: ref.SHA256, Bytes: ref.Size,
			MediaType: "chemical/x-mdl-sdfile", Filename: rec.ID + ".sdf"}
		qs, err := ontology.MoleculeQuads(reg.Base(), &cur)
		if err != nil {
			return err
		}
		if err := reg.Store().PutGraph(ctx, reg.IRI(rec.ID), qs); err != nil {
			return fmt.Errorf("store conformer of %s: %w", rec.ID, err)
		}
	}
	*rec = cur
	return nil
}

// ligandError maps an error of ligand preparation: what is about the
// molecule is 422, while a cancelled request, a timeout, a refusal by the
// 3D budget or a closing pool keep their own status.
func ligandError(err error) error {
	for _, keep := range []error{context.Canceled, context.DeadlineExceeded, chem.ErrEmbedTimeout,
		chem.ErrTooLargeFor3D, chem.ErrPoolClosed, graph.ErrClosed} {
		if errors.Is(err, keep) {
			return err
		}
	}
	return fmt.Errorf("%w: %v", ErrUnprocessable, err)
}

// pageLimit reads ?limit= (default 100, 1..1000).
func pageLimit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return DefaultPageLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxPageLimit {
		return 0, badRequest("limit", "%q is not an integer from 1 to %d", v, MaxPageLimit)
	}
	return n, nil
}

// encodeCursor and decodeCursor make a position opaque.
func encodeCursor(pos string) string { return base64.RawURLEncoding.EncodeToString([]byte(pos)) }

func decodeCursor(r *http.Request, prefix string) (string, error) {
	v := r.URL.Query().Get("cursor")
	if v == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil || !strings.HasPrefix(string(b), prefix) {
		return "", errNotCursor()
	}
	return strings.TrimPrefix(string(b), prefix), nil
}

// decodeOffsetCursor decodes a cursor holding an offset (0 without one).
func decodeOffsetCursor(r *http.Request, prefix string) (int, error) {
	pos, err := decodeCursor(r, prefix)
	if err != nil || pos == "" {
		return 0, err
	}
	n, err := strconv.Atoi(pos)
	if err != nil || n < 0 {
		return 0, errNotCursor()
	}
	return n, nil
}

func errNotCursor() error {
	return badRequest("cursor", "not a cursor of this listing; use next_cursor of the previous page")
}

func (s *Server) listMolecules(w http.ResponseWriter, r *http.Request) error {
	reg, err := s.registry()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	limit, err := pageLimit(r)
	if err != nil {
		return err
	}
	after, err := decodeCursor(r, "m:")
	if err != nil {
		return err
	}
	ctx := r.Context()
	inchiKey, smiles := strings.TrimSpace(q.Get("inchi_key")), q.Get("smiles")
	var ids []string
	more := false
	if inchiKey != "" || smiles != "" {
		var cand []string
		if smiles != "" {
			res, err := reg.Pool().Process(ctx, chem.Input{Format: chem.FormatSMILES, Content: smiles})
			if err != nil {
				if errors.Is(err, chem.ErrInvalidMolecule) {
					return badRequest("smiles", "%v", err)
				}
				return err
			}
			id := ontology.MoleculeID(res.SMILES)
			has, err := reg.Store().HasGraph(ctx, reg.IRI(id))
			if err != nil {
				return err
			}
			if has {
				cand = append(cand, id)
			}
		}
		if inchiKey != "" {
			var byKey []string
			err := reg.Store().Match(ctx, graph.Pattern{Predicate: ontology.MoleculeInChIKey, Object: ontology.String(inchiKey)}, func(qd quad.Quad) error {
				if s, ok := qd.Subject.(quad.IRI); ok && qd.Label == s {
					byKey = append(byKey, string(s)[strings.LastIndexByte(string(s), '/')+1:])
				}
				return nil
			})
			if err != nil {
				return err
			}
			if smiles != "" {
				var both []string
				for _, c := range cand {
					for _, k := range byKey {
						if c == k {
							both = append(both, c)
						}
					}
				}
				cand = both
			} else {
				cand = byKey
			}
		}
		slices.Sort(cand)
		cand = slices.Compact(cand)
		for _, id := range cand {
			if id <= after {
				continue
			}
			if len(ids) == limit {
				more = true
				break
			}
			ids = append(ids, id)
		}
	} else {
		var afterIRI quad.IRI
		if after != "" {
			afterIRI = reg.IRI(after)
		}
		iris, m, err := reg.Store().ListByClass(ctx, ontology.MoleculeClass, afterIRI, limit)
		if err != nil {
			return err
		}
		more = m
		for _, iri := range iris {
			ids = append(ids, string(iri)[strings.LastIndexByte(string(iri), '/')+1:])
		}
	}
	out := struct {
		Molecules  []moleculeView `json:"molecules"`
		NextCursor *string        `json:"next_cursor"`
	}{Molecules: []moleculeView{}}
	for _, id := range ids {
		rec, err := reg.Get(ctx, id)
		if errors.Is(err, graph.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return err
		}
		out.Molecules = append(out.Molecules, moleculeView{rec, moleculeLinks(rec.ID)})
	}
	if more && len(ids) > 0 {
		c := encodeCursor("m:" + ids[len(ids)-1])
		out.NextCursor = &c
	}
	return writeJSON(w, http.StatusOK, out)
}

// MaxNameBytes bounds a molecule's name (ChEMBL's preferred names have at
// most 255 characters).
const MaxNameBytes = 1024

// checkLineNotation refuses SMILES and InChI content that is not one token
// of printable ASCII (both notations are ASCII): RDKit reads a SMILES up to
// its first space or unexpected byte and would take the rest as a name, so
// "C O=O", or "C\ufffdO" after JSON decoding replaced bytes that were not
// UTF-8, would be stored as methane. The name has its own field.
func checkLineNotation(f chem.Format, content string) error {
	if f != chem.FormatSMILES && f != chem.FormatInChI {
		return nil
	}
	text := strings.TrimSpace(content)
	for i, r := range text {
		if r < '!' || r > '~' {
			return fmt.Errorf("%w: content holds %q at byte %d: one %s of printable ASCII characters is expected (a name goes in the name field)",
				chem.ErrInvalidMolecule, r, i, f)
		}
	}
	return nil
}
