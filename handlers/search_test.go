package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/search"
)

// searchFixture is a molecule server with the structure-search index and
// its SPARQL procedures, and a few registered drugs.
func searchFixture(t *testing.T) (*molFixture, map[string]string) {
	t.Helper()
	f := newMolFixture(t, 0)
	idx, err := search.Open(context.Background(), f.store, f.pool, "http://example.org/", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.cfg.Search = idx
	f.srv.cfg.SearchJobs = search.NewJobs(idx.Search, search.JobOptions{})
	t.Cleanup(f.srv.cfg.SearchJobs.Close)
	f.srv.cfg.SPARQLProcedures = idx.Procedures()
	ids := map[string]string{}
	for name, smi := range map[string]string{
		"aspirin":     "CC(=O)Oc1ccccc1C(=O)O",
		"salicylic":   "OC(=O)c1ccccc1O",
		"paracetamol": "CC(=O)Nc1ccc(O)cc1",
		"ibuprofen":   "CC(C)Cc1ccc(cc1)C(C)C(=O)O",
		"imatinib":    "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",
		"nilotinib":   "Cc1cn(-c2cc(NC(=O)c3ccc(C)c(Nc4nccc(-c5cccnc5)n4)c3)cc(C(F)(F)F)c2)cn1",
		"benzene":     "c1ccccc1",
		"phenol":      "Oc1ccccc1",
		"l-alanine":   "C[C@H](N)C(=O)O",
		"d-alanine":   "C[C@@H](N)C(=O)O",
	} {
		rec := f.post(t, `{"format": "smiles", "content": "`+smi+`"}`)
		if rec.Code != 201 {
			t.Fatalf("register %s: %d %s", name, rec.Code, rec.Body)
		}
		ids[name] = decode[map[string]any](t, rec)["id"].(string)
	}
	return f, ids
}

type searchPage struct {
	Hits []struct {
		ID       string   `json:"id"`
		IRI      string   `json:"iri"`
		SMILES   string   `json:"smiles_canonical"`
		InChIKey string   `json:"inchi_key"`
		Score    *float64 `json:"score"`
	} `json:"hits"`
	NextCursor *string `json:"next_cursor"`
}

func (p searchPage) ids() []string {
	var out []string
	for _, h := range p.Hits {
		out = append(out, h.ID)
	}
	return out
}

func TestSearchREST(t *testing.T) {
	f, ids := searchFixture(t)
	get := func(v url.Values) searchPage {
		t.Helper()
		rec := f.do(t, "GET", "/v1/molecules/search?"+v.Encode(), "read", nil)
		if rec.Code != 200 {
			t.Fatalf("GET %v: %d %s", v, rec.Code, rec.Body)
		}
		return decode[searchPage](t, rec)
	}
	sorted := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, ids[n])
		}
		slices.Sort(out)
		return out
	}
	// carboxylic acids (SMARTS, auto-detected: not a valid SMILES)
	p := get(url.Values{"type": {"substructure"}, "query": {"[CX3](=O)[OX2H1]"}})
	if want := sorted("aspirin", "salicylic", "ibuprofen", "l-alanine", "d-alanine"); !slices.Equal(p.ids(), want) {
		t.Errorf("acids: %v, want %v", p.ids(), want)
	}
	// chirality
	p = get(url.Values{"type": {"substructure"}, "query": {"C[C@H](N)C(=O)O"}, "chirality": {"true"}})
	if want := sorted("l-alanine"); !slices.Equal(p.ids(), want) {
		t.Errorf("chiral: %v, want %v", p.ids(), want)
	}
	// superstructure: what aspirin contains
	p = get(url.Values{"type": {"superstructure"}, "query": {"CC(=O)Oc1ccccc1C(=O)O"}})
	if want := sorted("aspirin", "benzene", "phenol", "salicylic"); !slices.Equal(p.ids(), want) {
		t.Errorf("superstructure: %v, want %v", p.ids(), want)
	}
	// exact by InChIKey and by connectivity
	p = get(url.Values{"type": {"exact"}, "query": {"BSYNRYMUTXBXSQ-UHFFFAOYSA-N"}})
	if want := sorted("aspirin"); !slices.Equal(p.ids(), want) {
		t.Errorf("exact: %v", p.ids())
	}
	p = get(url.Values{"type": {"exact"}, "query": {"QNAYBMKLOCPYGJ-REOHCLBHSA-N"}, "match": {"connectivity"}})
	if want := sorted("l-alanine", "d-alanine"); !slices.Equal(p.ids(), want) {
		t.Errorf("connectivity: %v, want %v", p.ids(), want)
	}
	p = get(url.Values{"type": {"exact"}, "query": {"OC(=O)c1ccccc1OC(C)=O.[Na+]"}})
	if want := sorted("aspirin"); !slices.Equal(p.ids(), want) {
		t.Errorf("exact SMILES (normalized): %v", p.ids())
	}
	// similarity, paged with cursors: every hit once, in order
	all := get(url.Values{"type": {"similarity"}, "query": {"Cc1ccc(NC(=O)c2ccccc2)cc1Nc1nccc(-c2cccnc2)n1"}, "threshold": {"0"}})
	if len(all.Hits) != len(ids) || all.NextCursor != nil {
		t.Fatalf("similarity threshold 0: %d hits, cursor %v", len(all.Hits), all.NextCursor)
	}
	if all.Hits[0].ID != ids["imatinib"] || all.Hits[0].Score == nil {
		t.Errorf("best hit %v", all.Hits[0])
	}
	var paged []string
	v := url.Values{"type": {"similarity"}, "query": {"Cc1ccc(NC(=O)c2ccccc2)cc1Nc1nccc(-c2cccnc2)n1"}, "threshold": {"0"}, "limit": {"3"}}
	for i := 0; ; i++ {
		p := get(v)
		paged = append(paged, p.ids()...)
		if p.NextCursor == nil {
			break
		}
		v.Set("cursor", *p.NextCursor)
		if i > 10 {
			t.Fatal("cursor loop")
		}
	}
	if !slices.Equal(paged, all.ids()) {
		t.Errorf("pages %v, want %v", paged, all.ids())
	}
	top := get(url.Values{"type": {"similarity"}, "query": {"Cc1ccc(NC(=O)c2ccccc2)cc1Nc1nccc(-c2cccnc2)n1"}, "top": {"2"}})
	if !slices.Equal(top.ids(), all.ids()[:2]) {
		t.Errorf("top 2: %v", top.ids())
	}
	// POST with a molfile; ndjson and csv stream every hit
	body, _ := json.Marshal(map[string]any{"type": "substructure", "query": "c1ccccc1", "format": "ndjson"})
	rec := f.do(t, "POST", "/v1/molecules/search", "read", strings.NewReader(string(body)), "Content-Type", "application/json")
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("ndjson: %d %s", rec.Code, rec.Body)
	}
	if n := strings.Count(rec.Body.String(), "\n"); n != 8 {
		t.Errorf("ndjson: %d lines, want 8 aromatic molecules: %s", n, rec.Body)
	}
	rec = f.do(t, "GET", "/v1/molecules/search?type=similarity&query=c1ccccc1O&threshold=0.1&format=csv", "read", nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), "id,iri,smiles_canonical,inchi_key,score\n") {
		t.Fatalf("csv: %d %s", rec.Code, rec.Body)
	}
	rec = f.do(t, "GET", "/v1/molecules/search?type=exact&query=Oc1ccccc1&format=sdf", "read", nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "M  END") || !strings.HasSuffix(rec.Body.String(), "$$$$\n") {
		t.Fatalf("sdf: %d %s", rec.Code, rec.Body)
	}
	// errors
	problemOf(t, f.do(t, "GET", "/v1/molecules/search?type=substructure&query=C1CC(", "read", nil), 422, "invalid_query")
	problemOf(t, f.do(t, "GET", "/v1/molecules/search?type=similarity&query=CCO&threshold=1.5", "read", nil), 400, "invalid_request")
	problemOf(t, f.do(t, "GET", "/v1/molecules/search?type=nearest&query=CCO", "read", nil), 400, "invalid_request")
	problemOf(t, f.do(t, "GET", "/v1/molecules/search?type=superstructure&query=[CX4]&query_format=smarts", "read", nil), 400, "invalid_request")
	problemOf(t, f.do(t, "GET", "/v1/molecules/search?type=exact&query=CCO&cursor=xyz", "read", nil), 400, "invalid_request")
	problemOf(t, f.do(t, "GET", "/v1/molecules/search?type=exact&query="+strings.Repeat("C", 70000), "read", nil), 422, "invalid_query")
	problemOf(t, f.do(t, "GET", "/v1/molecules/search?type=exact&query=CCO", "", nil), 401, "unauthorized")
}

// TestSearchSPARQL runs the procedures inside SPARQL: their hits equal
// the REST route's, and they join with docking results.
func TestSearchSPARQL(t *testing.T) {
	f, ids := searchFixture(t)
	ctx := context.Background()
	// Docking results of a job for three ligands (the mapping the docking
	// jobs write).
	job := quad.IRI("http://example.org/id/docking-job/job-1")
	aff := map[string]float64{"imatinib": -12.4, "nilotinib": -8.1, "aspirin": -6.0}
	for name, a := range aff {
		lig := quad.IRI("http://example.org/id/molecule/" + ids[name])
		r := ontology.SubIRI(job, "result-"+name)
		qs, err := ontology.DockingResultQuads(r, job, []ontology.DockingPoseRecord{{Ligand: lig, Mode: 1, Affinity: a,
			File:    ontology.ReceptorFile{SHA256: strings.Repeat("a", 64), Bytes: 1, MediaType: "chemical/x-mdl-sdfile", Filename: "p.sdf"},
			FileIRI: ontology.SubIRI(r, "file")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.store.PutGraphs(ctx, []graph.NamedGraph{{IRI: r, Quads: qs}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	sparqlIDs := func(q string) ([]string, map[string]float64) {
		t.Helper()
		rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil, "Accept", "application/sparql-results+json")
		if rec.Code != 200 {
			t.Fatalf("SPARQL %s: %d %s", q, rec.Code, rec.Body)
		}
		var res struct {
			Results struct {
				Bindings []map[string]struct{ Value string } `json:"bindings"`
			} `json:"results"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		var out []string
		scores := map[string]float64{}
		for _, b := range res.Results.Bindings {
			id := b["m"].Value[strings.LastIndexByte(b["m"].Value, '/')+1:]
			out = append(out, id)
			if s, ok := b["score"]; ok {
				v, err := strconv.ParseFloat(s.Value, 64)
				if err != nil {
					t.Fatalf("score %q: %v", s.Value, err)
				}
				scores[id] = v
			}
		}
		slices.Sort(out)
		return out, scores
	}
	restIDs := func(v url.Values) []string {
		rec := f.do(t, "GET", "/v1/molecules/search?"+v.Encode(), "read", nil)
		if rec.Code != 200 {
			t.Fatalf("REST %v: %d %s", v, rec.Code, rec.Body)
		}
		out := decode[searchPage](t, rec).ids()
		slices.Sort(out)
		return out
	}
	const prefix = "PREFIX mgs: <https://w3id.org/molgraph/search#> PREFIX mg: <" + ontology.MG + ">\n"
	for _, c := range []struct {
		sparql string
		rest   url.Values
	}{
		{`SELECT ?m WHERE { ?m mgs:hasSubstructure "c1ccccc1C(=O)O" }`, url.Values{"type": {"substructure"}, "query": {"c1ccccc1C(=O)O"}}},
		{`SELECT ?m WHERE { ?m mgs:hasSubstructure "[CX3](=O)[OX2H1]" }`, url.Values{"type": {"substructure"}, "query": {"[CX3](=O)[OX2H1]"}}},
		{`SELECT ?m WHERE { ?m mgs:substructureOf "CC(=O)Nc1ccc(O)cc1" }`, url.Values{"type": {"superstructure"}, "query": {"CC(=O)Nc1ccc(O)cc1"}}},
		{`SELECT ?m WHERE { ?m mgs:sameStructureAs "BSYNRYMUTXBXSQ-UHFFFAOYSA-N" }`, url.Values{"type": {"exact"}, "query": {"BSYNRYMUTXBXSQ-UHFFFAOYSA-N"}}},
		{`SELECT ?m ?score WHERE { ?m mgs:similarTo [ mgs:query "Cc1ccc(NC(=O)c2ccccc2)cc1Nc1nccc(-c2cccnc2)n1" ; mgs:threshold 0.3 ; mgs:score ?score ] }`,
			url.Values{"type": {"similarity"}, "query": {"Cc1ccc(NC(=O)c2ccccc2)cc1Nc1nccc(-c2cccnc2)n1"}, "threshold": {"0.3"}}},
		{`SELECT ?m WHERE { ?m mgs:similarTo [ mgs:query "CC(=O)Oc1ccccc1C(=O)O" ; mgs:top 3 ; mgs:score ?s ] }`,
			url.Values{"type": {"similarity"}, "query": {"CC(=O)Oc1ccccc1C(=O)O"}, "top": {"3"}}},
	} {
		got, _ := sparqlIDs(prefix + c.sparql)
		if want := restIDs(c.rest); !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s\nSPARQL %v\nREST   %v", c.sparql, got, want)
		}
	}
	// The join: analogues of imatinib (Tanimoto >= 0.3) with a pose better
	// than -9 kcal/mol in the job.
	got, scores := sparqlIDs(prefix + `SELECT ?m ?score ?a WHERE {
		?m mgs:similarTo [ mgs:query "Cc1ccc(NC(=O)c2ccccc2)cc1Nc1nccc(-c2cccnc2)n1" ; mgs:threshold 0.3 ; mgs:score ?score ] .
		?pose mg:ligand ?m ; mg:bindingAffinity ?a .
		FILTER(?a < -9)
	}`)
	if want := []string{ids["imatinib"]}; !slices.Equal(got, want) {
		t.Errorf("join: %v, want %v", got, want)
	}
	if s := scores[ids["imatinib"]]; !(s > 0.3 && s < 1) {
		t.Errorf("join score %v", s)
	}
	// a bad query is the client's fault
	rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {prefix + `SELECT ?m WHERE { ?m mgs:hasSubstructure "C1CC(" }`}}.Encode(), "read", nil)
	problemOf(t, rec, http.StatusBadRequest, "invalid_query")
	// the service description lists the procedures
	rec = f.do(t, "GET", "/v1/sparql", "read", nil, "Accept", "text/turtle")
	if !strings.Contains(rec.Body.String(), "https://w3id.org/molgraph/search#similarTo") {
		t.Errorf("service description lacks the procedures: %s", rec.Body)
	}
}

// TestSearchJobs: a search that outlasts the synchronous budget goes on
// as a job (202, Location), whose hits, once done, are the synchronous
// route's, paged over one list or streamed; jobs belong to their key,
// are bounded per key, fail past their own budget, and can be deleted.
func TestSearchJobs(t *testing.T) {
	f, _ := searchFixture(t)
	idx := f.srv.cfg.Search
	release := make(chan struct{})
	var released bool
	free := func() {
		if !released {
			close(release)
			released = true
		}
	}
	defer free()
	// Searches wait for release (or their context): slower than any budget.
	slow := func(ctx context.Context, req search.Request) ([]search.Hit, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return idx.Search(ctx, req)
	}
	jobs := search.NewJobs(slow, search.JobOptions{MaxRunningPerOwner: 2, Timeout: time.Minute})
	defer jobs.Close()
	f.srv.cfg.SearchJobs = jobs
	f.srv.cfg.SearchTimeout = 20 * time.Millisecond

	q := url.Values{"type": {"similarity"}, "query": {"Cc1ccc(NC(=O)c2ccccc2)cc1Nc1nccc(-c2cccnc2)n1"}, "threshold": {"0"}}
	rec := f.do(t, "GET", "/v1/molecules/search?"+q.Encode(), "read", nil)
	if rec.Code != 202 {
		t.Fatalf("slow search: %d %s, want 202", rec.Code, rec.Body)
	}
	job := decode[map[string]any](t, rec)
	loc := rec.Header().Get("Location")
	if job["status"] != "running" || loc == "" || loc != job["status_url"] || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("202 body %v, Location %q, Retry-After %q", job, loc, rec.Header().Get("Retry-After"))
	}
	if rec := f.do(t, "GET", loc, "read", nil); rec.Code != 202 {
		t.Fatalf("running job: %d %s", rec.Code, rec.Body)
	}
	// Another key does not see it.
	problemOf(t, f.do(t, "GET", loc, "admin", nil), 404, "not_found")
	// A second job for the key runs; a third is refused.
	if rec := f.do(t, "GET", "/v1/molecules/search?type=substructure&query=c1ccccc1", "read", nil); rec.Code != 202 {
		t.Fatalf("second job: %d %s", rec.Code, rec.Body)
	}
	rec = f.do(t, "GET", "/v1/molecules/search?type=substructure&query=CCO", "read", nil)
	problemOf(t, rec, 429, "too_many_jobs")
	if rec.Header().Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// A job of the write key, deleted below.
	rec = f.do(t, "GET", "/v1/molecules/search?type=exact&query=CCO", "write", nil)
	if rec.Code != 202 {
		t.Fatalf("write key's job: %d %s", rec.Code, rec.Body)
	}
	wloc := rec.Header().Get("Location")
	free()
	var done searchPage
	for i := 0; ; i++ {
		rec := f.do(t, "GET", loc, "read", nil)
		if rec.Code == 200 {
			done = decode[searchPage](t, rec)
			if m := decode[map[string]any](t, rec); m["status"] != "done" || m["id"] != job["id"] || m["total_hits"] != float64(10) {
				t.Errorf("done job: %v", m)
			}
			break
		}
		if rec.Code != 202 || i > 500 {
			t.Fatalf("polling: %d %s", rec.Code, rec.Body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The job's hits are the synchronous search's.
	f.srv.cfg.SearchJobs = search.NewJobs(idx.Search, search.JobOptions{})
	defer f.srv.cfg.SearchJobs.Close()
	f.srv.cfg.SearchTimeout = time.Minute
	rec = f.do(t, "GET", "/v1/molecules/search?"+q.Encode(), "read", nil)
	if rec.Code != 200 {
		t.Fatalf("sync: %d %s", rec.Code, rec.Body)
	}
	sync := decode[searchPage](t, rec)
	if len(sync.Hits) != 10 || !slices.Equal(done.ids(), sync.ids()) {
		t.Fatalf("job hits %v, sync hits %v", done.ids(), sync.ids())
	}
	for i := range sync.Hits {
		if *sync.Hits[i].Score != *done.Hits[i].Score {
			t.Errorf("hit %d: score %v, sync %v", i, *done.Hits[i].Score, *sync.Hits[i].Score)
		}
	}
	f.srv.cfg.SearchJobs = jobs
	// Paged with cursors over the job's list; streamed as CSV.
	var paged []string
	u := loc + "?limit=4"
	for i := 0; ; i++ {
		rec := f.do(t, "GET", u, "read", nil)
		if rec.Code != 200 || i > 10 {
			t.Fatalf("page: %d %s", rec.Code, rec.Body)
		}
		p := decode[searchPage](t, rec)
		paged = append(paged, p.ids()...)
		if p.NextCursor == nil {
			break
		}
		u = loc + "?limit=4&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	if !slices.Equal(paged, sync.ids()) {
		t.Errorf("job pages %v, want %v", paged, sync.ids())
	}
	rec = f.do(t, "GET", loc+"?format=csv", "read", nil)
	if rec.Code != 200 || strings.Count(rec.Body.String(), "\n") != 11 {
		t.Errorf("job csv: %d %s", rec.Code, rec.Body)
	}
	problemOf(t, f.do(t, "GET", loc+"?type=exact", "read", nil), 400, "invalid_request")
	// Delete: gone.
	// Deleting is a write (spec/API.md: DELETE needs write scope), by the
	// job's own key.
	problemOf(t, f.do(t, "DELETE", loc, "read", nil), 403, "forbidden")
	problemOf(t, f.do(t, "DELETE", loc, "write", nil), 404, "not_found") // not its job
	if rec := f.do(t, "DELETE", wloc, "write", nil); rec.Code != 204 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	problemOf(t, f.do(t, "GET", wloc, "write", nil), 404, "not_found")
	problemOf(t, f.do(t, "GET", "/v1/molecules/search/jobs/srch-nope", "read", nil), 404, "not_found")

	// A job past its own budget fails with 503 timeout.
	stuck := func(ctx context.Context, req search.Request) ([]search.Hit, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	short := search.NewJobs(stuck, search.JobOptions{Timeout: 100 * time.Millisecond})
	defer short.Close()
	f.srv.cfg.SearchJobs = short
	f.srv.cfg.SearchTimeout = 10 * time.Millisecond
	rec = f.do(t, "GET", "/v1/molecules/search?type=exact&query=CCO", "read", nil)
	if rec.Code != 202 {
		t.Fatalf("stuck search: %d %s", rec.Code, rec.Body)
	}
	loc = rec.Header().Get("Location")
	for i := 0; ; i++ {
		rec := f.do(t, "GET", loc, "read", nil)
		if rec.Code == 503 {
			problemOf(t, rec, 503, "timeout")
			break
		}
		if rec.Code != 202 || i > 500 {
			t.Fatalf("polling the stuck job: %d %s", rec.Code, rec.Body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSearchExactInvalid: an exact query that is no InChI or no standard
// InChIKey is 422 invalid_query (spec/API.md, Structure search), not an
// empty answer; a well-formed key of no molecule is 200 with no hits.
func TestSearchExactInvalid(t *testing.T) {
	f, _ := searchFixture(t)
	for _, v := range []url.Values{
		{"type": {"exact"}, "query": {"InChI=garbage"}},
		{"type": {"exact"}, "query": {"InChI=1S/garbage"}},
		{"type": {"exact"}, "query": {"InChI=1S/C2H6O/c1-2-9"}},
		{"type": {"exact"}, "query": {"garbage"}, "query_format": {"inchi"}},
		{"type": {"exact"}, "query": {"garbage"}, "query_format": {"inchikey"}},
		// key-shaped, but not a standard InChIKey (second block not ...SA)
		{"type": {"exact"}, "query": {"ABCDEFGHIJKLMN-ABCDEFGHIJ-Z"}},
		{"type": {"exact"}, "query": {"BSYNRYMUTXBXSQ-UHFFFAOYNA-N"}},
	} {
		problemOf(t, f.do(t, "GET", "/v1/molecules/search?"+v.Encode(), "read", nil), 422, "invalid_query")
	}
	rec := f.do(t, "GET", "/v1/molecules/search?type=exact&query=AAAAAAAAAAAAAA-BBBBBBBBSA-N", "read", nil)
	if p := decode[searchPage](t, rec); rec.Code != 200 || len(p.Hits) != 0 {
		t.Fatalf("a standard key of no molecule: %d %s", rec.Code, rec.Body)
	}
}
