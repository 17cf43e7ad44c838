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
	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/queries/sparql"
	"github.com/molgraph/molgraph/search"
)

// Structure search: GET|POST /v1/molecules/search (spec/API.md).
//
// A search runs as a search job (search.Jobs): when it finishes within
// the synchronous budget, Config.SearchTimeout (default
// DefaultSearchTimeout), its hits are the answer; otherwise it goes on in
// the background and the answer is 202 with the job, whose hits are read
// from /v1/molecules/search/jobs/{job_id} once it is done (PubChem's
// ListKey pattern). Every hit is available: format=json pages through them
// with cursors (limit at most 1000 a page, no cap on the pages),
// format=csv|ndjson|sdf streams all of them in one response. The searches
// themselves are package search's.

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
	hitsResponse := Response{Status: http.StatusOK, Description: "The hits: a page of them (json), or all of them (csv, ndjson, sdf).",
		Content: map[string]Schema{"application/json": ref("SearchResult"), "text/csv": {"type": "string"},
			"application/x-ndjson": {"type": "string"}, "chemical/x-mdl-sdfile": {"type": "string"}}}
	accepted := Response{Status: http.StatusAccepted, Description: "The search outlasts the synchronous budget and goes on as a search job.",
		Content: jsonContent(ref("SearchJob")), Headers: map[string]string{"Location": "URL of the job.", "Retry-After": "Seconds to wait before polling."}}
	responses := []Response{hitsResponse, accepted, searchDisabledResponse}
	desc := "Similarity uses RDKit Morgan radius-2 2048-bit fingerprints and Tanimoto (scores as RDKit's BulkTanimotoSimilarity), " +
		"hits sorted by score then id. Substructure screens with RDKit's pattern fingerprint and matches with RDKit's SubstructMatch; " +
		"superstructure finds the molecules contained in the query; both sorted by id. Exact matches the InChIKey (of an InChI), " +
		"its first block (match=connectivity), or the registered (normalized) form of a SMILES or molfile. " +
		"A search sees the molecules committed when it starts. One that finishes within the synchronous budget (30 s by default, " +
		"--search-timeout) is answered 200 with its hits; a longer one goes on as a search job (PubChem's ListKey pattern): " +
		"the answer is 202 with the job (SearchJob), its URL in Location, and its hits are read from GET /v1/molecules/search/jobs/{job_id} " +
		"once it is done. There is no cap on hits: json pages through all of them (total_hits counts them), csv/ndjson/sdf stream all of them."
	jobDesc := "Search jobs live in memory, visible only to the key that started them: a restart forgets them, and a finished job is " +
		"forgotten one hour after it finished (then 404 not_found: run the search again). A job runs within --search-job-timeout " +
		"(10 minutes by default; past it the job fails with 503 timeout). At most 4 search jobs run at once in the service and 2 per key " +
		"(a search that would need one more answers 429 too_many_jobs with Retry-After instead of 202); a key holds at most 16, " +
		"the oldest finished ones forgotten first. The finished jobs of all keys keep at most 256 MiB of hits (54 bytes each): past it the " +
		"oldest finished jobs are forgotten (404 not_found), never the one that just finished."
	routes := []Route{
		{Method: http.MethodGet, Pattern: "/v1/molecules/search", Scope: auth.ScopeRead, Class: admission.Chem, Handle: s.searchMolecules,
			Doc: Doc{Summary: "Structure search: exact, substructure, superstructure, similarity", Description: desc, Tag: "molecules",
				Params: params, Responses: responses}},
		{Method: http.MethodPost, Pattern: "/v1/molecules/search", Scope: auth.ScopeRead, Class: admission.Chem, Handle: s.searchMolecules,
			Doc: Doc{Summary: "Structure search with the parameters in a JSON body (long queries, molfiles)", Description: desc, Tag: "molecules",
				Request: &Body{Required: true, Content: jsonContent(ref("SearchRequest"))}, Responses: responses}},
	}
	jobParam := map[string]string{"job_id": "The search job id (srch-...)."}
	format := Param{Name: "format", In: "query", Description: "json (default, paged), or csv, ndjson, sdf: every hit streamed in one response.",
		Schema: Schema{"type": "string", "enum": []string{"json", "csv", "ndjson", "sdf"}}}
	routes = append(routes,
		Route{Method: http.MethodGet, Pattern: "/v1/molecules/search/jobs/{job_id}", Scope: auth.ScopeRead, Class: admission.Chem, Handle: s.searchJob,
			Doc: Doc{Summary: "A structure search job: 202 while it runs, its hits (as the search route gives them) once done", Description: jobDesc,
				Tag: "molecules", PathParams: jobParam, Params: append([]Param{format}, pageParams()...), Responses: []Response{hitsResponse, accepted, searchDisabledResponse}}},
		Route{Method: http.MethodDelete, Pattern: "/v1/molecules/search/jobs/{job_id}", Scope: auth.ScopeWrite, Handle: s.deleteSearchJob,
			Doc: Doc{Summary: "Stop and forget a structure search job (write scope, the key that started it)", Description: jobDesc, Tag: "molecules", PathParams: jobParam,
				Responses: []Response{{Status: http.StatusNoContent, Description: "Stopped and forgotten."}, searchDisabledResponse}}})
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
		"SearchJob": {"type": "object", "required": []string{"id", "status", "type", "query", "created_at", "status_url"}, "properties": Schema{
			"id": str, "status": Schema{"type": "string", "enum": []string{search.JobRunning, search.JobDone, search.JobFailed}},
			"type": str, "query": str, "created_at": Schema{"type": "string", "format": "date-time"}, "status_url": str,
		}},
		"SearchResult": {"type": "object", "required": []string{"type", "query", "total_hits", "hits", "next_cursor"}, "properties": Schema{
			"id":         Schema{"type": "string", "description": "The search job, when the hits are a job's."},
			"status":     Schema{"type": "string", "description": "done, when the hits are a job's."},
			"total_hits": Schema{"type": "integer", "description": "Hits of the whole search, over every page."},
			"type":       str, "query": str, "threshold": Schema{"type": "number"}, "top": Schema{"type": "integer"},
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

// searchParams is a validated search: the request and how to answer it.
type searchParams struct {
	req        search.Request
	query      string
	threshold  *float64
	top        *int
	limit      int
	after      *cursorPos
	format     string
	similarity bool
}

// searchParamsOf validates b.
func searchParamsOf(b searchBody) (searchParams, error) {
	if b.Type == "" {
		return searchParams{}, badRequest("type", "required: exact, substructure, superstructure or similarity")
	}
	if strings.TrimSpace(b.Query) == "" {
		return searchParams{}, badRequest("query", "required")
	}
	if b.Threshold != nil && !(*b.Threshold >= 0 && *b.Threshold <= 1) {
		return searchParams{}, badRequest("threshold", "%v is not from 0 to 1", *b.Threshold)
	}
	top := 0
	if b.Top != nil {
		if *b.Top < 1 {
			return searchParams{}, badRequest("top", "%d is not a positive integer", *b.Top)
		}
		top = *b.Top
	}
	p, err := pageOf(b)
	if err != nil {
		return p, err
	}
	p.req = search.Request{Type: b.Type, Query: b.Query, QueryFormat: b.QueryFormat, Threshold: b.Threshold, Top: top,
		Match: b.Match, Chirality: b.Chirality, Charges: b.Charges, Isotopes: b.Isotopes}
	p.query, p.top = b.Query, b.Top
	p.similarity = strings.EqualFold(b.Type, search.TypeSimilarity)
	if p.similarity {
		th := search.DefaultThreshold
		if top > 0 {
			th = 0
		}
		if b.Threshold != nil {
			th = *b.Threshold
		}
		p.threshold = &th
	}
	return p, nil
}

// pageOf reads the answer's fields of b: limit, cursor, format.
func pageOf(b searchBody) (searchParams, error) {
	p := searchParams{limit: DefaultPageLimit}
	if b.Limit != nil {
		if *b.Limit < 1 || *b.Limit > MaxPageLimit {
			return p, badRequest("limit", "%d is not an integer from 1 to %d", *b.Limit, MaxPageLimit)
		}
		p.limit = *b.Limit
	}
	p.format = strings.ToLower(b.Format)
	switch p.format {
	case "":
		p.format = "json"
	case "json", "csv", "ndjson", "sdf":
	default:
		return p, badRequest("format", "unknown format %q; allowed: json, csv, ndjson, sdf", b.Format)
	}
	if b.Cursor != "" {
		if p.format != "json" {
			return p, badRequest("cursor", "only format=json pages; the other formats stream every hit")
		}
		var err error
		if p.after, err = decodeSearchCursor(b.Cursor); err != nil {
			return p, err
		}
	}
	return p, nil
}

// keyID is the id of the request's key ("" without one: tests).
func keyID(r *http.Request) string {
	k, _ := KeyFrom(r.Context())
	return k.ID
}

// searchMolecules runs a search as a job: answered with its hits when it
// ends within the synchronous budget, else handed over to the background
// and answered 202 with the job (searchJobView).
func (s *Server) searchMolecules(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Search == nil {
		return s.searchUnavailable()
	}
	b, err := s.searchRequest(w, r)
	if err != nil {
		return err
	}
	p, err := searchParamsOf(b)
	if err != nil {
		return err
	}
	budget := s.cfg.SearchTimeout
	if budget <= 0 {
		budget = DefaultSearchTimeout
	}
	jobs := s.cfg.SearchJobs
	job, err := jobs.Start(keyID(r), p.req, false)
	if err != nil {
		return err
	}
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case <-job.Done():
		hits, err, _, _ := job.Result()
		if err != nil {
			return err
		}
		return s.writeHits(w, r, p, hits, nil)
	case <-r.Context().Done():
		job.Cancel()
		return r.Context().Err()
	case <-timer.C:
	}
	if err := jobs.Register(job); err != nil {
		job.Cancel()
		return fmt.Errorf("the structure search ran past the %s synchronous budget and cannot go on as a job: %w", budget, err)
	}
	return s.writeSearchJob(w, r, job)
}

// searchJobView is a search job that has not finished (202 Accepted).
type searchJobView struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	Type      string    `json:"type"`
	Query     string    `json:"query"`
	CreatedAt time.Time `json:"created_at"`
	StatusURL string    `json:"status_url"`
}

func searchJobPath(id string) string { return "/v1/molecules/search/jobs/" + id }

// writeSearchJob answers 202 with the job, its URL in Location.
func (s *Server) writeSearchJob(w http.ResponseWriter, r *http.Request, j *search.Job) error {
	u := searchJobPath(j.ID)
	w.Header().Set("Location", u)
	w.Header().Set("Retry-After", "2")
	return writeJSON(w, http.StatusAccepted, searchJobView{ID: j.ID, Status: j.Status(), Type: strings.ToLower(j.Request.Type),
		Query: j.Request.Query, CreatedAt: j.Created, StatusURL: u})
}

// searchJob answers GET /v1/molecules/search/jobs/{job_id}: 202 with the
// job while it runs, its error when it failed, else its hits as the
// synchronous route gives them (paged or streamed).
func (s *Server) searchJob(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Search == nil {
		return s.searchUnavailable()
	}
	q := r.URL.Query()
	for name := range q {
		switch name {
		case "limit", "cursor", "format":
		default:
			return badRequest(name, "unknown parameter %q; a search job takes limit, cursor and format", name)
		}
		if len(q[name]) > 1 {
			return badRequest(name, "given %d times", len(q[name]))
		}
	}
	j, err := s.cfg.SearchJobs.Get(keyID(r), chi.URLParam(r, "job_id"))
	if err != nil {
		return err
	}
	hits, jerr, _, ok := j.Result()
	if !ok {
		return s.writeSearchJob(w, r, j)
	}
	if jerr != nil {
		return jerr
	}
	b := searchBody{Type: j.Request.Type, Query: j.Request.Query, Threshold: j.Request.Threshold, Cursor: q.Get("cursor"), Format: q.Get("format")}
	if j.Request.Top > 0 {
		b.Top = &j.Request.Top
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return badRequest("limit", "%q is not an integer", v)
		}
		b.Limit = &n
	}
	p, err := searchParamsOf(b)
	if err != nil {
		return err
	}
	return s.writeHits(w, r, p, hits, j)
}

// deleteSearchJob answers DELETE /v1/molecules/search/jobs/{job_id}: the
// job is stopped and forgotten.
func (s *Server) deleteSearchJob(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Search == nil {
		return s.searchUnavailable()
	}
	if err := s.cfg.SearchJobs.Delete(keyID(r), chi.URLParam(r, "job_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// writeHits answers a finished search (of job j, or nil): a JSON page, or
// every hit streamed.
func (s *Server) writeHits(w http.ResponseWriter, r *http.Request, p searchParams, hits []search.Hit, j *search.Job) error {
	reg, err := s.registry()
	if err != nil {
		return err
	}
	record := func(h search.Hit) (searchHit, ontology.MoleculeRecord, error) {
		rec, err := reg.Get(r.Context(), h.ID)
		if err != nil {
			return searchHit{}, rec, err
		}
		out := searchHit{ID: h.ID, IRI: string(reg.IRI(h.ID)), SMILES: rec.SMILES, InChIKey: rec.InChIKey}
		if p.similarity {
			sc := h.Score
			out.Score = &sc
		}
		return out, rec, nil
	}
	view := func(h search.Hit) (searchHit, error) {
		v, _, err := record(h)
		return v, err
	}
	if p.format != "json" {
		return s.streamHits(w, r, p.format, hits, record, p.similarity)
	}
	start := 0
	if p.after != nil {
		for start < len(hits) && !p.after.before(hits[start], p.similarity) {
			start++
		}
	}
	end := min(start+p.limit, len(hits))
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
		ID         string      `json:"id,omitempty"`
		Status     string      `json:"status,omitempty"`
		Type       string      `json:"type"`
		Query      string      `json:"query"`
		Threshold  *float64    `json:"threshold,omitempty"`
		Top        *int        `json:"top,omitempty"`
		Total      int         `json:"total_hits"`
		Hits       []searchHit `json:"hits"`
		NextCursor *string     `json:"next_cursor"`
	}{Type: strings.ToLower(p.req.Type), Query: p.query, Threshold: p.threshold, Top: p.top, Total: len(hits), Hits: page}
	if j != nil {
		out.ID, out.Status = j.ID, j.Status()
	}
	if end < len(hits) && end > 0 {
		c := encodeSearchCursor(hits[end-1], p.similarity)
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
	record func(search.Hit) (searchHit, ontology.MoleculeRecord, error), similarity bool) error {
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
	reg := s.cfg.Molecules.Registry
	for i, h := range hits {
		if err := r.Context().Err(); err != nil {
			return err
		}
		v, rec, err := record(h)
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
			err = writeHitSDF(r.Context(), w, reg, rec, v, h, similarity)
		}
		if err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeHitSDF writes one hit as an SD record: the id as title, the
// coordinates of the molecule's stored conformer (as GET .../structure
// gives them) or 2D coordinates from its canonical SMILES, and the SMILES,
// InChIKey and score as data items. A molecule without a conformer and
// with more heavy atoms than 2D coordinates are computed for on a read
// (chem.Pool.Check2D: a 999-carbon chain took 3.7 s, per hit) is written
// without atoms, saying so in a "coordinates" data item: a stream of every
// hit never starts more chemistry per hit than a depiction would.
func writeHitSDF(ctx context.Context, w http.ResponseWriter, reg *batch.Registry, rec ontology.MoleculeRecord, v searchHit, h search.Hit, similarity bool) error {
	var rest, note string
	switch err := reg.Pool().Check2D(rec.HeavyAtoms); {
	case rec.Structure != nil:
		data, err := reg.Store().Blobs().Get(rec.Structure.SHA256)
		if err != nil {
			return err
		}
		_, rest, _ = strings.Cut(string(data), "\n")
	case err != nil:
		rest = "  molgraph\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n"
		note = err.Error()
	default:
		res, err := reg.Pool().Process(ctx, chem.Input{Format: chem.FormatSMILES, Content: v.SMILES, NoNormalize: true, Coordinates2D: true})
		if err != nil {
			return err
		}
		_, rest, _ = strings.Cut(res.Molfile, "\n")
	}
	if i := strings.Index(rest, "M  END"); i >= 0 {
		rest = rest[:i] + "M  END\n"
	}
	var sb strings.Builder
	sb.WriteString(v.ID + "\n" + rest)
	fmt.Fprintf(&sb, "> <id>\n%s\n\n> <smiles_canonical>\n%s\n\n> <inchi_key>\n%s\n\n", v.ID, v.SMILES, v.InChIKey)
	if note != "" {
		fmt.Fprintf(&sb, "> <coordinates>\nnone: %s\n\n", note)
	}
	if similarity {
		fmt.Fprintf(&sb, "> <score>\n%s\n\n", strconv.FormatFloat(h.Score, 'g', -1, 64))
	}
	sb.WriteString("$$$$\n")
	_, err := w.Write([]byte(sb.String()))
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
