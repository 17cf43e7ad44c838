package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
)

func newController(t *testing.T, l admission.Limits) *admission.Controller {
	t.Helper()
	c, err := admission.New(l)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// After a key's bucket (3 requests, refilled at one per 2 s) drains, its
// next request is a 429 problem with Retry-After and the draft's fields;
// another key is unaffected; /metrics counts the refusal.
func TestRateLimit429(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.Admission = newController(t, admission.Limits{Rate: 0.5, Burst: 3})
	})
	for i, want := range []string{`"key";r=2;t=2`, `"key";r=1;t=2`, `"key";r=0;t=2`} {
		rec := f.do(t, "GET", "/v1/keys", "admin", nil)
		if rec.Code != http.StatusOK || rec.Header().Get("RateLimit") != want ||
			rec.Header().Get("RateLimit-Policy") != `"key";q=3;w=6` {
			t.Fatalf("request %d: %d RateLimit %q Policy %q", i, rec.Code, rec.Header().Get("RateLimit"), rec.Header().Get("RateLimit-Policy"))
		}
	}
	rec := f.do(t, "GET", "/v1/keys", "admin", nil)
	p := problemOf(t, rec, http.StatusTooManyRequests, "rate_limited")
	if ra := rec.Header().Get("Retry-After"); ra != "2" {
		t.Errorf("Retry-After %q, want 2 (one token at 0.5/s)", ra)
	}
	if rl := rec.Header().Get("RateLimit"); rl != `"key";r=0;t=2` {
		t.Errorf("RateLimit %q", rl)
	}
	if !strings.Contains(p.Detail, "0.5 requests per second") {
		t.Errorf("detail %q", p.Detail)
	}
	// The refused request did not reach the handler: a write is refused too.
	problemOf(t, f.do(t, "POST", "/v1/keys", "admin", strings.NewReader(`{"name":"x","scopes":["read"]}`),
		"Content-Type", "application/json"), http.StatusTooManyRequests, "rate_limited")
	if keys, _ := f.keys.List(); len(keys) != 5 {
		t.Errorf("%d keys: a rate-limited POST created one", len(keys))
	}
	// Other keys have their own buckets; public routes have none.
	if rec := f.do(t, "GET", "/metrics", "read", nil); rec.Code != http.StatusOK ||
		!strings.Contains(rec.Body.String(), `molgraph_admission_rejections_total{class="light",reason="rate"} 2`) {
		t.Errorf("metrics %d:\n%s", rec.Code, grepLines(rec.Body.String(), "rejections"))
	}
	if rec := f.do(t, "GET", "/healthz", "", nil); rec.Code != http.StatusOK || rec.Header().Get("RateLimit") != "" {
		t.Errorf("/healthz %d %q", rec.Code, rec.Header().Get("RateLimit"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A full class answers 503 busy with Retry-After (CORS fields included on
// the SPARQL route); other classes are not held up; a freed place serves.
func TestClassFull503(t *testing.T) {
	adm := newController(t, admission.Limits{InFlight: map[admission.Class]int{admission.SPARQL: 1}, Wait: 30 * time.Millisecond})
	f := newFixture(t, func(c *Config) { c.Admission = adm })
	release, err := adm.Acquire(context.Background(), admission.SPARQL, "") // a query in flight
	if err != nil {
		t.Fatal(err)
	}
	rec := f.do(t, "GET", "/v1/sparql?query=ASK%7B%7D", "read", nil, "Origin", "https://example.net")
	problemOf(t, rec, http.StatusServiceUnavailable, "busy")
	if rec.Header().Get("Retry-After") != "1" || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("headers %v", rec.Header())
	}
	// GraphQL has its own class.
	if rec := f.do(t, "GET", "/v1/graphql?query=%7B__typename%7D", "read", nil); rec.Code == http.StatusServiceUnavailable &&
		strings.Contains(rec.Body.String(), `"busy"`) {
		t.Errorf("graphql refused while sparql is full: %s", rec.Body)
	}
	release()
	// With the place free the request reaches the handler (no graph here:
	// 503 not_ready, not busy).
	problemOf(t, f.do(t, "GET", "/v1/sparql?query=ASK%7B%7D", "read", nil), http.StatusServiceUnavailable, "not_ready")
	if adm.InFlight(admission.SPARQL) != 0 {
		t.Errorf("place not given back: %d in flight", adm.InFlight(admission.SPARQL))
	}
	m := f.do(t, "GET", "/metrics", "read", nil).Body.String()
	for _, want := range []string{
		`molgraph_admission_rejections_total{class="sparql",reason="wait_timeout"} 1`,
		`molgraph_limit_in_flight{class="sparql"} 1`,
		`molgraph_limit_waiting{class="sparql"} 4`,
		`molgraph_admission_in_flight{class="sparql"} 0`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s:\n%s", want, grepLines(m, "admission"))
		}
	}
}

// jobsFixture is a server with a real batch task and a runner that is
// never started, so that every accepted job stays queued.
func jobsFixture(t *testing.T, perKey, total int) (*fixture, *graph.Store) {
	t.Helper()
	pool, err := chem.NewPool(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const base = "http://example.org/"
	reg := batch.NewRegistry(st, pool, base, nil)
	task := batch.NewTask(reg, batch.TaskOptions{})
	runner, err := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{MaxUnfinished: total, MaxUnfinishedPerOwner: perKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Close() })
	f := newFixture(t, func(c *Config) {
		c.Graph = st
		c.Molecules = MoleculeServices{Registry: reg, Jobs: runner, Batch: task, MaxBatchRecords: 100}
		c.Admission = newController(t, admission.DefaultLimits())
	})
	return f, st
}

// The case: 100 batch jobs from one key in a burst. Past the
// key's cap of unfinished jobs they are refused with 429 too_many_jobs;
// another key may still submit until the service's cap is reached.
func TestQueuedJobCaps(t *testing.T) {
	f, st := jobsFixture(t, 4, 6)
	body := "CCO ethanol\nCCN ethylamine\n"
	accepted, refused := 0, 0
	for range 100 {
		rec := f.do(t, "POST", "/v1/molecules/batch", "write", strings.NewReader(body), "Content-Type", "text/plain")
		switch rec.Code {
		case http.StatusAccepted:
			accepted++
		case http.StatusTooManyRequests:
			refused++
			p := problemOf(t, rec, http.StatusTooManyRequests, "too_many_jobs")
			if rec.Header().Get("Retry-After") != "10" || rec.Header().Get("RateLimit") != `"jobs";r=0;t=10` ||
				!strings.Contains(strings.Join(rec.Header().Values("RateLimit-Policy"), ", "), `"jobs";q=4`) ||
				!strings.Contains(p.Detail, "4 of at most 4 unfinished jobs for this key") {
				t.Fatalf("refusal headers %v detail %q", rec.Header(), p.Detail)
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
	if accepted != 4 || refused != 96 {
		t.Fatalf("accepted %d, refused %d; want 4 and 96", accepted, refused)
	}
	// Another key: two more fit under the service's cap of 6, then 429.
	for i, want := range []int{202, 202, 429} {
		rec := f.do(t, "POST", "/v1/molecules/batch", "admin", strings.NewReader(body), "Content-Type", "text/plain")
		if rec.Code != want {
			t.Fatalf("admin job %d: %d, want %d: %s", i, rec.Code, want, rec.Body)
		}
		if want == 429 && !strings.Contains(problemOf(t, rec, 429, "too_many_jobs").Detail, "6 of at most 6 unfinished jobs in the service") {
			t.Errorf("detail %s", rec.Body)
		}
	}
	// Exactly six job graphs are stored.
	n := 0
	st.Match(context.Background(), graph.Pattern{Predicate: quad.IRI(ontology.MG + "status")}, func(quad.Quad) error { n++; return nil })
	if n != 6 {
		t.Errorf("%d job graphs stored, want 6", n)
	}
	m := f.do(t, "GET", "/metrics", "read", nil).Body.String()
	for _, want := range []string{
		`molgraph_admission_rejections_total{class="upload",reason="jobs_per_key"} 96`,
		`molgraph_admission_rejections_total{class="upload",reason="jobs_total"} 1`,
		`molgraph_limit_jobs_unfinished_per_key 4`,
		`molgraph_limit_jobs_unfinished 6`,
		`molgraph_limit_job_workers{class="BatchUploadJob"} 1`,
		`molgraph_jobs_running{class="BatchUploadJob"} 0`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s:\n%s", want, grepLines(m, "job"))
		}
	}
}

// A real CORS preflight (as a browser sends it, over HTTP) to the SPARQL
// and GraphQL routes is answered 204 without a key; a real request's
// answers, errors included, carry Access-Control-Allow-Origin. Routes
// without CORS still need a key for OPTIONS.
func TestCORSPreflight(t *testing.T) {
	f := newFixture(t, nil)
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	for _, path := range []string{"/v1/sparql", "/v1/graphql"} {
		req, _ := http.NewRequest(http.MethodOptions, ts.URL+path, nil)
		req.Header.Set("Origin", "https://query.example.net")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != http.StatusNoContent || len(body) != 0 ||
			h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Max-Age") != "86400" {
			t.Fatalf("%s preflight: %d %v %s", path, resp.StatusCode, h, body)
		}
		for _, m := range []string{"GET", "POST"} {
			if !strings.Contains(h.Get("Access-Control-Allow-Methods"), m) {
				t.Errorf("%s: Allow-Methods %q lacks %s", path, h.Get("Access-Control-Allow-Methods"), m)
			}
		}
		for _, hd := range []string{"Authorization", "Content-Type", "Accept"} {
			if !strings.Contains(h.Get("Access-Control-Allow-Headers"), hd) {
				t.Errorf("%s: Allow-Headers %q lacks %s", path, h.Get("Access-Control-Allow-Headers"), hd)
			}
		}
		// The real request without a key: 401, readable by the script.
		req, _ = http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader("x"))
		req.Header.Set("Origin", "https://query.example.net")
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Retry-After") {
			t.Errorf("%s without key: %d %v", path, resp.StatusCode, resp.Header)
		}
	}
	req, _ := http.NewRequest(http.MethodOptions, ts.URL+"/v1/keys", nil)
	req.Header.Set("Origin", "https://query.example.net")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("OPTIONS /v1/keys: %d %v", resp.StatusCode, resp.Header)
	}
	// With a key, a SPARQL error answer is readable cross-origin too.
	rec := f.do(t, "GET", "/v1/sparql?query=SELEC", "read", nil, "Origin", "https://query.example.net")
	if rec.Header().Get("Access-Control-Allow-Origin") != "*" || rec.Code < 400 {
		t.Errorf("sparql error: %d %v", rec.Code, rec.Header())
	}
}

// Every entry of routeClasses names a route, every route has a valid
// class, and the OpenAPI document lists 429/503 where they apply.
func TestRouteClassesAndOpenAPI(t *testing.T) {
	adm := newController(t, admission.DefaultLimits())
	f := newFixture(t, func(c *Config) { c.Admission = adm })
	have := map[string]admission.Class{}
	for _, rt := range f.srv.Routes() {
		have[rt.Method+" "+rt.Pattern] = rt.Class
		if !rt.Class.Valid() {
			t.Errorf("%s %s: class %q", rt.Method, rt.Pattern, rt.Class)
		}
	}
	for id, c := range routeClasses() {
		if have[id] != c {
			t.Errorf("routeClasses: %s is %q in the route table, want %q (renamed route?)", id, have[id], c)
		}
	}
	doc := fetchOpenAPI(t, f)
	op := func(method, path string) map[string]any {
		return doc["paths"].(map[string]any)[path].(map[string]any)[method].(map[string]any)["responses"].(map[string]any)
	}
	for _, tt := range []struct {
		method, path string
		has429       bool
		has503Busy   bool
	}{
		{"post", "/v1/molecules", true, true},
		{"get", "/v1/sparql", true, true},
		{"post", "/v1/molecules/batch", true, true},
		{"get", "/v1/keys", true, false},
		{"get", "/healthz", false, false},
	} {
		r := op(tt.method, tt.path)
		_, has429 := r["429"]
		busy := false
		if r503, ok := r["503"].(map[string]any); ok {
			busy = strings.Contains(fmt.Sprint(r503["description"]), "`busy`")
			if busy {
				if _, ok := r503["headers"].(map[string]any)["Retry-After"]; !ok {
					t.Errorf("%s %s: 503 without Retry-After", tt.method, tt.path)
				}
			}
		}
		if has429 != tt.has429 || busy != tt.has503Busy {
			t.Errorf("%s %s: 429 %v busy-503 %v, want %v %v", tt.method, tt.path, has429, busy, tt.has429, tt.has503Busy)
		}
	}
	limits, _ := doc["info"].(map[string]any)["x-molgraph-limits"].([]any)
	found := map[string]bool{}
	for _, l := range limits {
		e := l.(map[string]any)
		found[fmt.Sprint(e["name"], e["class"])] = true
	}
	for _, want := range []string{"rate_per_key_per_second<nil>", "in_flightsparql", "in_flightchem", "body_bytes<nil>"} {
		if !found[want] {
			t.Errorf("x-molgraph-limits lacks %s: %v", want, found)
		}
	}
	b, _ := json.Marshal(doc["info"])
	if !regexp.MustCompile(`CORS`).Match(b) {
		t.Error("info does not describe CORS")
	}
}

// idleTask is a job class whose jobs never run here (the runner is not
// started): it only lets jobs of the docking class be queued.
type idleTask struct{}

func (idleTask) Class() quad.IRI { return ontology.DockingJobClass }

func (idleTask) Run(ctx context.Context, _ jobs.Job, _ jobs.CommitFunc) error {
	<-ctx.Done()
	return ctx.Err()
}

// The docking-job route checks its key's cap of unfinished jobs before it
// reads the request.
func TestDockingJobCap(t *testing.T) {
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runner, err := jobs.NewRunner(st, "http://example.org/", []jobs.Task{idleTask{}}, jobs.Options{MaxUnfinishedPerOwner: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	f := newFixture(t, func(c *Config) { c.Docking = DockingServices{Jobs: runner} })
	key, err := f.keys.Authenticate(f.tokens["write"])
	if err != nil {
		t.Fatal(err)
	}
	id := jobs.NewID("docking", time.Now())
	if _, err := runner.Submit(jobs.WithOwner(context.Background(), key.ID),
		jobs.Job{ID: id, IRI: quad.IRI("http://example.org/id/docking/" + id), Class: ontology.DockingJobClass}); err != nil {
		t.Fatal(err)
	}
	body := `{"receptor":"rec-x","ligands":["mol-x"]}`
	rec := f.do(t, "POST", "/v1/docking/jobs", "write", strings.NewReader(body), "Content-Type", "application/json")
	problemOf(t, rec, http.StatusTooManyRequests, "too_many_jobs")
	if rec.Header().Get("Retry-After") != "10" {
		t.Errorf("Retry-After %q", rec.Header().Get("Retry-After"))
	}
	// Another key passes the cap and reaches the handler (no docking task
	// configured here: 503 not_ready).
	problemOf(t, f.do(t, "POST", "/v1/docking/jobs", "admin", strings.NewReader(body), "Content-Type", "application/json"),
		http.StatusServiceUnavailable, "not_ready")
}

// A client that leaves while its request waits for a place is a client
// abort (499), not a 5xx, and gives up its place in the waiting line.
func TestClientLeavesWhileWaiting(t *testing.T) {
	adm := newController(t, admission.Limits{InFlight: map[admission.Class]int{admission.SPARQL: 1}, Wait: 10 * time.Second})
	f := newFixture(t, func(c *Config) { c.Admission = adm })
	release, err := adm.Acquire(context.Background(), admission.SPARQL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest("GET", "/v1/sparql?query=ASK%7B%7D", nil).WithContext(ctx)
	req.Header.Set("Authorization", "Bearer "+f.tokens["read"])
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { f.srv.ServeHTTP(rec, req); close(done) }()
	for adm.Waiting(admission.SPARQL) == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	cancel()
	<-done
	if rec.Code != StatusClientClosedRequest || time.Since(start) > time.Second || adm.Waiting(admission.SPARQL) != 0 {
		t.Fatalf("status %d after %v, %d waiting", rec.Code, time.Since(start), adm.Waiting(admission.SPARQL))
	}
}

// The route passes the request's key to the class cap: a key at its share
// (one of two SPARQL places) waits and is refused; another key gets in.
func TestKeyShareByRoute(t *testing.T) {
	adm := newController(t, admission.Limits{InFlight: map[admission.Class]int{admission.SPARQL: 2}, Wait: 20 * time.Millisecond})
	f := newFixture(t, func(c *Config) { c.Admission = adm })
	key, err := f.keys.Authenticate(f.tokens["read"])
	if err != nil {
		t.Fatal(err)
	}
	release, err := adm.Acquire(context.Background(), admission.SPARQL, key.ID) // the read key's query in flight
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	p := problemOf(t, f.do(t, "GET", "/v1/sparql?query=ASK%7B%7D", "read", nil), http.StatusServiceUnavailable, "busy")
	if !strings.Contains(p.Detail, "this API key holds 1 of the 2 places") {
		t.Errorf("detail %q", p.Detail)
	}
	problemOf(t, f.do(t, "GET", "/v1/sparql?query=ASK%7B%7D", "admin", nil), http.StatusServiceUnavailable, "not_ready")
	if m := f.do(t, "GET", "/metrics", "admin", nil).Body.String(); !strings.Contains(m,
		`molgraph_admission_rejections_total{class="sparql",reason="key_share"} 1`) {
		t.Errorf("metrics:\n%s", grepLines(m, "rejections"))
	}
}
