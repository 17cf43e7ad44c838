package handlers

import (
	"context"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/queries/sparql"
	"github.com/molgraph/molgraph/search"
)

// Structure search: GET|POST /v1/molecules/search (spec/API.md).
//
// A search runs synchronously within Config.SearchTimeout (default
// DefaultSearchTimeout); one that would take longer is stopped and answered
// 503 timeout with Retry-After, and the client narrows it (a higher
// threshold, top, a more specific substructure). Every hit is available:
// format=json pages through them with cursors (limit at most 1000 a page,
// no cap on the pages), format=csv|ndjson|sdf streams all of them in one
// response. The searches themselves are package search's.

// DefaultSearchTimeout bounds one structure search.
const DefaultSearchTimeout = 30 * time.Second

// searchBody is the JSON body of POST /v1/molecules/search and, field by
// field, the query parameters of GET.
type searchBody struct {
	Type        string   `json:"type"`
	Query       string   `json:"query"`
	QueryFormat string   `json:"query_format,omitempty"`
	Threshold   *float64 `json:"threshold,omitempty"`
	Top         *int     `json:"top,omitempty"`
	Limit       *int     `json:"limit,omitempty"`
	Cursor      string   `json:"cursor,omitempty"`
	Match       string   `json:"match,omitempty"`
	Chirality   *bool    `json:"chirality,omitempty"`
	Charges     *bool    `json:"charges,omitempty"`
	Isotopes    *bool    `json:"isotopes,omitempty"`
	Format      string   `json:"format,omitempty"`
}

// searchHit is one hit of the JSON and NDJSON formats.
type searchHit struct {
	ID       string   `json:"id"`
	IRI      string   `json:"iri"`
	SMILES   string   `json:"smiles_canonical"`
	InChIKey string   `json:"inchi_key"`
	Score    *float64 `json:"score,omitempty"`
}

func (s *Server) searchResource() resource {
	params := []Param{
		{Name: "type", In: "query", Required: true, Description: "exact, substructure, superstructure or similarity.",
			Schema: Schema{"type": "string", "enum": []string{"exact", "substructure", "superstructure", "similarity"}}},
		{Name: "query", In: "query", Required: true, Description: "SMILES; SMARTS for substructure; InChI or InChIKey for exact (a molfile by POST). At most 65,536 bytes and 1,000 atoms (422 invalid_query).",
			Schema: Schema{"type": "string", "maxLength": chem.MaxQueryBytes}},
		{Name: "query_format", In: "query", Description: "smiles (default; for substructure a query that is not a valid SMILES is read as SMARTS), smarts, molfile, inchi, inchikey.",
			Schema: Schema{"type": "string", "enum": []string{"smiles", "smarts", "molfile", "inchi", "inchikey"}}},
		{Name: "threshold", In: "query", Description: "similarity: Tanimoto cut-off, 0..1 (default 0.7; 0 when top is given).",
			Schema: Schema{"type": "number", "minimum": 0, "maximum": 1}},
		{Name: "top", In: "query", Description: "similarity: only the top best hits (any score unless threshold is given).",
			Schema: Schema{"type": "integer", "minimum": 1}},
		{Name: "match", In: "query", Description: "exact: full (default) or connectivity (the InChIKey's first block: every stereo, isotope and charge form).",
			Schema: Schema{"type": "string", "enum": []string{"full", "connectivity"}}},
		{Name: "chirality", In: "query", Description: "substructure/superstructure: stereo must match (default false).", Schema: Schema{"type": "boolean"}},
		{Name: "charges", In: "query", Description: "substructure: charges written in a SMILES or molfile query must match (default true; a neutral query atom matches any charge, as in RDKit). SMARTS say what they mean.", Schema: Schema{"type": "boolean"}},
		{Name: "isotopes", In: "query", Description: "substructure: isotopes written in a SMILES or molfile query must match (default true).", Schema: Schema{"type": "boolean"}},
		{Name: "format", In: "query", Description: "json (default, paged), or csv, ndjson, sdf: every hit streamed in one response.",
			Schema: Schema{"type": "string", "enum": []string{"json", "csv", "ndjson", "sdf"}}},
	}
	params = append(params, pageParams()...)
	responses := []Response{{Status: http.StatusOK, Description: "The hits: a page of them (json), or all of them (csv, ndjson, sdf).",
		Content: map[string]Schema{"application/json": ref("SearchResult"), "text/csv": {"type": "string"},
			"application/x-ndjson": {"type": "string"}, "chemical/x-mdl-sdfile": {"type": "string"}}}}
	desc := "Similarity uses RDKit Morgan radius-2 2048-bit fingerprints and Tanimoto (scores as RDKit's BulkTanimotoSimilarity), " +
		"hits sorted by score then id. Substructure screens with RDKit's pattern fingerprint and matches with RDKit's SubstructMatch; " +
		"superstructure finds the molecules contained in the query; both sorted by id. Exact matches the InChIKey (of an InChI), " +
		"its first block (match=connectivity), or the registered (normalized) form of a SMILES or molfile. " +
		"A search sees the molecules committed when it starts. It runs within the synchronous budget (30 s by default, " +
		"--search-timeout); a longer one is stopped with 503 timeout and Retry-After: narrow it (a higher threshold, top, a more specific query). " +
		"There is no cap on hits: json pages through all of them, csv/ndjson/sdf stream all of them."
	routes := []Route{
		{Method: http.MethodGet, Pattern: "/v1/molecules/search", Scope: auth.ScopeRead, Class: admission.Chem, Handle: s.searchMolecules,
			Doc: Doc{Summary: "Structure search: exact, substructure, superstructure, similarity", Description: desc, Tag: "molecules",
				Params: params, Responses: responses}},
		{Method: http.MethodPost, Pattern: "/v1/molecules/search", Scope: auth.ScopeRead, Class: admission.Chem, Handle: s.searchMolecules,
			Doc: Doc{Summary: "Structure search with the parameters in a JSON body (long queries, molfiles)", Description: desc, Tag: "molecules",
				Request: &Body{Required: true, Content: jsonContent(ref("SearchRequest"))}, Responses: responses}},
	}
	str := Schema{"type": "string"}
	schemas := map[string]Schema{
		"SearchRequest": {"type": "object", "required": []string{"type", "query"}, "additionalProperties": false,
			"properties": Schema{
				"type": str, "query": Schema{"type": "string", "maxLength": chem.MaxQueryBytes}, "query_format": str,
				"threshold": Schema{"type": "number", "minimum": 0, "maximum": 1}, "top": Schema{"type": "integer", "minimum": 1},
				"limit": Schema{"type": "integer", "minimum": 1, "maximum": MaxPageLimit}, "cursor": str, "match": str,
				"chirality": Schema{"type": "boolean"}, "charges": Schema{"type": "boolean"}, "isotopes": Schema{"type": "boolean"},
				"format": str,
			}},
		"SearchResult": {"type": "object", "required": []string{"type", "query", "hits", "next_cursor"}, "properties": Schema{
			"type": str, "query": str, "threshold": Schema{"type": "number"}, "top": Schema{"type": "integer"},
			"hits": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"id", "iri", "smiles_canonical", "inchi_key"},
				"properties": Schema{"id": str, "iri": str, "smiles_canonical": str, "inchi_key": str, "score": Schema{"type": "number"}}}},
			"next_cursor": Schema{"type": []string{"string", "null"}},
		}},
	}
	return resource{routes: routes, schemas: schemas}
}

// searchRequest reads the parameters of a GET (query string) or POST
// (JSON body).
func (s *Server) searchRequest(w http.ResponseWriter, r *http.Request) (searchBody, error) {
	var b searchBody
	if r.Method == http.MethodPost {
		if err := s.decodeJSON(w, r, &b); err != nil {
			return b, err
		}
		return b, nil
	}
	q := r.URL.Query()
	for name := range q {
		switch name {
		case "type", "query", "query_format", "threshold", "top", "limit", "cursor", "match", "chirality", "charges", "isotopes", "format":
		default:
			return b, badRequest(name, "unknown parameter %q", name)
		}
		if len(q[name]) > 1 {
			return b, badRequest(name, "given %d times", len(q[name]))
		}
	}
	b.Type, b.Query, b.QueryFormat = q.Get("type"), q.Get("query"), q.Get("query_format")
	b.Cursor, b.Match, b.Format = q.Get("cursor"), q.Get("match"), q.Get("format")
	if v := q.Get("threshold"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return b, badRequest("threshold", "%q is not a number from 0 to 1", v)
		}
		b.Threshold = &f
	}
	for name, dst := range map[string]**int{"top": &b.Top, "limit": &b.Limit} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return b, badRequest(name, "%q is not an integer", v)
			}
			*dst = &n
		}
	}
	for name, dst := range map[string]**bool{"chirality": &b.Chirality, "charges": &b.Charges, "isotopes": &b.Isotopes} {
		if v := q.Get(name); v != "" {
			t, err := strconv.ParseBool(v)
			if err != nil {
				return b, badRequest(name, "%q is not true or false", v)
			}
			*dst = &t
		}
	}
	return b, nil
}

func (s *Server) searchMolecules(w http.ResponseWriter, r *http.Request) error {
	idx := s.cfg.Search
	if idx == nil {
		return fmt.Errorf("%w: structure search is not configured", ErrNotReady)
	}
	b, err := s.searchRequest(w, r)
	if err != nil {
		return err
	}
	if b.Type == "" {
		return badRequest("type", "required: exact, substructure, superstructure or similarity")
	}
	if strings.TrimSpace(b.Query) == "" {
		return badRequest("query", "required")
	}
	if b.Threshold != nil && !(*b.Threshold >= 0 && *b.Threshold <= 1) {
		return badRequest("threshold", "%v is not from 0 to 1", *b.Threshold)
	}
	limit := DefaultPageLimit
	if b.Limit != nil {
		if *b.Limit < 1 || *b.Limit > MaxPageLimit {
			return badRequest("limit", "%d is not an integer from 1 to %d", *b.Limit, MaxPageLimit)
		}
		limit = *b.Limit
	}
	top := 0
	if b.Top != nil {
		if *b.Top < 1 {
			return badRequest("top", "%d is not a positive integer", *b.Top)
		}
		top = *b.Top
	}
	format := strings.ToLower(b.Format)
	switch format {
	case "":
		format = "json"
	case "json", "csv", "ndjson", "sdf":
	default:
		return badRequest("format", "unknown format %q; allowed: json, csv, ndjson, sdf", b.Format)
	}
	var after *cursorPos
	if b.Cursor != "" {
		if format != "json" {
			return badRequest("cursor", "only format=json pages; the other formats stream every hit")
		}
		if after, err = decodeSearchCursor(b.Cursor); err != nil {
			return err
		}
	}
	timeout := s.cfg.SearchTimeout
	if timeout <= 0 {
		timeout = DefaultSearchTimeout
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	req := search.Request{Type: b.Type, Query: b.Query, QueryFormat: b.QueryFormat, Threshold: b.Threshold, Top: top,
		Match: b.Match, Chirality: b.Chirality, Charges: b.Charges, Isotopes: b.Isotopes}
	hits, err := idx.Search(ctx, req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil {
			return fmt.Errorf("structure search stopped after the %s budget: %w", timeout, err)
		}
		return err
	}
	similarity := strings.EqualFold(b.Type, search.TypeSimilarity)
	reg, err := s.registry()
	if err != nil {
		return err
	}
	view := func(h search.Hit) (searchHit, error) {
		rec, err := reg.Get(r.Context(), h.ID)
		if err != nil {
			return searchHit{}, err
		}
		out := searchHit{ID: h.ID, IRI: string(reg.IRI(h.ID)), SMILES: rec.SMILES, InChIKey: rec.InChIKey}
		if similarity {
			sc := h.Score
			out.Score = &sc
		}
		return out, nil
	}
	if format != "json" {
		return s.streamHits(w, r, format, hits, view, similarity)
	}
	start := 0
	if after != nil {
		for start < len(hits) && !after.before(hits[start], similarity) {
			start++
		}
	}
	end := min(start+limit, len(hits))
	page := []searchHit{}
	for _, h := range hits[start:end] {
		v, err := view(h)
		if errors.Is(err, graph.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		page = append(page, v)
	}
	out := struct {
		Type       string      `json:"type"`
		Query      string      `json:"query"`
		Threshold  *float64    `json:"threshold,omitempty"`
		Top        *int        `json:"top,omitempty"`
		Hits       []searchHit `json:"hits"`
		NextCursor *string     `json:"next_cursor"`
	}{Type: strings.ToLower(b.Type), Query: b.Query, Hits: page}
	if similarity {
		th := search.DefaultThreshold
		if top > 0 {
			th = 0
		}
		if b.Threshold != nil {
			th = *b.Threshold
		}
		out.Threshold = &th
		out.Top = b.Top
	}
	if end < len(hits) && end > 0 {
		c := encodeSearchCursor(hits[end-1], similarity)
		out.NextCursor = &c
	}
	return writeJSON(w, http.StatusOK, out)
}

// cursorPos is the last hit of a page.
type cursorPos struct {
	score float64
	id    string
}

// before reports whether h comes after the cursor's hit in the order of
// the search (score descending then id, or id).
func (c *cursorPos) before(h search.Hit, similarity bool) bool {
	if similarity && h.Score != c.score {
		return h.Score < c.score
	}
	return h.ID > c.id
}

func encodeSearchCursor(h search.Hit, similarity bool) string {
	if similarity {
		return encodeCursor("s:" + strconv.FormatUint(math.Float64bits(h.Score), 16) + ":" + h.ID)
	}
	return encodeCursor("s::" + h.ID)
}

func decodeSearchCursor(v string) (*cursorPos, error) {
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil || !strings.HasPrefix(string(raw), "s:") {
		return nil, errNotCursor()
	}
	b := string(raw[2:])
	bitsText, id, ok := strings.Cut(b, ":")
	if !ok || !strings.HasPrefix(id, ontology.MoleculeIDPrefix) {
		return nil, errNotCursor()
	}
	c := &cursorPos{id: id}
	if bitsText != "" {
		u, err := strconv.ParseUint(bitsText, 16, 64)
		if err != nil {
			return nil, errNotCursor()
		}
		c.score = math.Float64frombits(u)
	}
	return c, nil
}

// streamHits writes every hit in one response.
func (s *Server) streamHits(w http.ResponseWriter, r *http.Request, format string, hits []search.Hit,
	view func(search.Hit) (searchHit, error), similarity bool) error {
	switch format {
	case "csv":
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	case "ndjson":
		w.Header().Set("Content-Type", "application/x-ndjson")
	case "sdf":
		w.Header().Set("Content-Type", "chemical/x-mdl-sdfile")
	}
	w.Header().Set("X-Total-Hits", strconv.Itoa(len(hits)))
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	if format == "csv" {
		head := []string{"id", "iri", "smiles_canonical", "inchi_key"}
		if similarity {
			head = append(head, "score")
		}
		if err := cw.Write(head); err != nil {
			return err
		}
	}
	pool := s.cfg.Molecules.Registry.Pool()
	for i, h := range hits {
		if err := r.Context().Err(); err != nil {
			return err
		}
		v, err := view(h)
		if errors.Is(err, graph.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		switch format {
		case "csv":
			row := []string{v.ID, v.IRI, v.SMILES, v.InChIKey}
			if similarity {
				row = append(row, strconv.FormatFloat(h.Score, 'g', -1, 64))
			}
			err = cw.Write(row)
			if i%256 == 255 {
				cw.Flush()
				err = cw.Error()
			}
		case "ndjson":
			err = writeJSONBody(w, v)
		case "sdf":
			err = writeHitSDF(r.Context(), w, pool, v, h, similarity)
		}
		if err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeHitSDF writes one hit as an SD record: 2D coordinates from its
// canonical SMILES, the id as title, the SMILES, InChIKey and score as
// data items.
func writeHitSDF(ctx context.Context, w http.ResponseWriter, pool *chem.Pool, v searchHit, h search.Hit, similarity bool) error {
	res, err := pool.Process(ctx, chem.Input{Format: chem.FormatSMILES, Content: v.SMILES, NoNormalize: true, Coordinates2D: true})
	if err != nil {
		return err
	}
	_, rest, _ := strings.Cut(res.Molfile, "\n")
	if i := strings.Index(rest, "M  END"); i >= 0 {
		rest = rest[:i] + "M  END\n"
	}
	var sb strings.Builder
	sb.WriteString(v.ID + "\n" + rest)
	fmt.Fprintf(&sb, "> <id>\n%s\n\n> <smiles_canonical>\n%s\n\n> <inchi_key>\n%s\n\n", v.ID, v.SMILES, v.InChIKey)
	if similarity {
		fmt.Fprintf(&sb, "> <score>\n%s\n\n", strconv.FormatFloat(h.Score, 'g', -1, 64))
	}
	sb.WriteString("$$$$\n")
	_, err = w.Write([]byte(sb.String()))
	return err
}

// searchProcedureQuads lists the SPARQL search procedures in the service
// description: sd:extensionFunction, typed sd:Function, with a comment.
func searchProcedureQuads(svc quad.IRI, sd func(string) quad.IRI, procs sparql.Procedures) []quad.Quad {
	iris := make([]quad.IRI, 0, len(procs))
	for iri := range procs {
		iris = append(iris, iri)
	}
	slices.Sort(iris)
	desc := search.ProcedureDescriptions()
	var qs []quad.Quad
	for _, iri := range iris {
		qs = append(qs, quad.Quad{Subject: svc, Predicate: sd("extensionFunction"), Object: iri},
			quad.Quad{Subject: iri, Predicate: ontology.RDFType, Object: sd("Function")})
		if d, ok := desc[iri]; ok {
			qs = append(qs, quad.Quad{Subject: iri, Predicate: quad.IRI("http://www.w3.org/2000/01/rdf-schema#comment"), Object: ontology.String(d)})
		}
	}
	return qs
}
