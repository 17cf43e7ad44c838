package handlers

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/sdf"
)

// molFixture is a server with a real chem pool, a memory graph and a job
// runner.
type molFixture struct {
	*fixture
	store  *graph.Store
	runner *jobs.Runner
	pool   *chem.Pool
}

func newMolFixture(t *testing.T, maxBatch int) *molFixture {
	t.Helper()
	return newMolFixtureChem(t, maxBatch, chem.Options{})
}

// newMolFixtureChem is newMolFixture with a chem pool configured by o.
func newMolFixtureChem(t *testing.T, maxBatch int, o chem.Options) *molFixture {
	t.Helper()
	pool, err := chem.New(o)
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
	task := batch.NewTask(reg, batch.TaskOptions{ChunkRecords: 100})
	runner, err := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Close() })
	f := newFixture(t, func(c *Config) {
		c.Graph = st
		c.Molecules = MoleculeServices{Registry: reg, Jobs: runner, Batch: task, MaxBatchRecords: maxBatch}
	})
	return &molFixture{fixture: f, store: st, runner: runner, pool: pool}
}

func (f *molFixture) post(t *testing.T, body string) *httptest.ResponseRecorder {
	t.Helper()
	return f.do(t, "POST", "/v1/molecules", "write", strings.NewReader(body), "Content-Type", "application/json")
}

func decode[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	return v
}

func firstSDRecord(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../chem/testdata/molblocks_v2000.sdf")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sdf.NewSDReader(bytes.NewReader(data), 0).Next()
	if err != nil {
		t.Fatal(err)
	}
	return rec.Content
}

func TestMoleculeCreateAndGet(t *testing.T) {
	f := newMolFixture(t, 0)
	rec := f.post(t, `{"format": "smiles", "content": "CC(=O)Oc1ccccc1C(=O)O", "name": "aspirin"}`)
	if rec.Code != 201 {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body)
	}
	created := decode[map[string]any](t, rec)
	id := created["id"].(string)
	if rec.Header().Get("Location") != "/v1/molecules/"+id || created["inchi_key"] != "BSYNRYMUTXBXSQ-UHFFFAOYSA-N" ||
		created["iri"] != "http://example.org/id/molecule/"+id || created["name"] != "aspirin" {
		t.Fatalf("POST body %s", rec.Body)
	}
	// Projection equality: GET returns the POST body.
	get := f.do(t, "GET", "/v1/molecules/"+id, "read", nil)
	if get.Code != 200 || get.Body.String() != rec.Body.String() {
		t.Fatalf("GET differs:\n%s\n%s", get.Body, rec.Body)
	}
	// Idempotent: another spelling is 200 with the stored record.
	again := f.post(t, `{"format": "SMILES", "content": "OC(=O)c1ccccc1OC(C)=O", "name": "x"}`)
	if again.Code != 200 || again.Body.String() != rec.Body.String() {
		t.Fatalf("re-POST: %d %s", again.Code, again.Body)
	}
	// 3D on an existing molecule adds the conformer.
	with3D := f.post(t, `{"format": "smiles", "content": "CC(=O)Oc1ccccc1C(=O)O", "generate_3d": true}`)
	m := decode[map[string]any](t, with3D)
	if with3D.Code != 200 || m["has_3d"] != true || m["created_at"] != created["created_at"] {
		t.Fatalf("3D: %d %s", with3D.Code, with3D.Body)
	}
	xyz := f.do(t, "GET", "/v1/molecules/"+id+"/structure?format=xyz", "read", nil)
	if xyz.Code != 200 || !strings.HasPrefix(xyz.Body.String(), "21\n"+id+"\n") || xyz.Header().Get("Content-Type") != "chemical/x-xyz" {
		t.Fatalf("xyz: %d %q", xyz.Code, xyz.Body)
	}
}

func TestMoleculeFormats(t *testing.T) {
	f := newMolFixture(t, 0)
	molfile := firstSDRecord(t)
	pdbqt, err := os.ReadFile("../../shared/docking-corpus/derived/1iep_ligand_cleanroom_meeko_rules.pdbqt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		format, content, key string
	}{
		{"smiles", "CC(=O)Oc1ccccc1C(=O)O", "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"},
		{"inchi", "InChI=1S/C8H10N4O2/c1-10-4-9-6-5(10)7(13)12(3)8(14)11(6)2/h4H,1-3H3", "RYYVLZVUVIJVGH-UHFFFAOYSA-N"},
		{"sdf", molfile, "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"},
		{"mol", molfile, "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"},
		// Imatinib (PubChem CID 5291), from a Meeko-style PDBQT; the
		// protonated piperazine is neutralized.
		{"pdbqt", string(pdbqt), "KTUFNOKKBVMGRW-UHFFFAOYSA-N"},
	}
	for _, tt := range tests {
		body, _ := json.Marshal(map[string]any{"format": tt.format, "content": tt.content})
		rec := f.post(t, string(body))
		if rec.Code != 201 && rec.Code != 200 {
			t.Errorf("%s: %d %s", tt.format, rec.Code, rec.Body)
			continue
		}
		m := decode[map[string]any](t, rec)
		if m["inchi_key"] != tt.key {
			t.Errorf("%s: key %v, want %s", tt.format, m["inchi_key"], tt.key)
		}
	}
}

// TestMoleculeWithoutInChI: a structure that parses but has no standard
// InChI (a dummy atom) is stored with validated false and the reasons, not
// refused (spec/API.md, POST /v1/molecules).
func TestMoleculeWithoutInChI(t *testing.T) {
	f := newMolFixture(t, 0)
	rec := f.post(t, `{"format": "smiles", "content": "*CCO"}`)
	if rec.Code != 201 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	m := decode[map[string]any](t, rec)
	if m["validated"] != false || m["inchi"] != "" || m["inchi_key"] != "" || m["smiles_canonical"] != "*CCO" {
		t.Fatalf("molecule %v", m)
	}
	var codes []string
	for _, is := range m["validation"].([]any) {
		is := is.(map[string]any)
		if is["level"] == "error" {
			codes = append(codes, is["code"].(string))
		}
	}
	if !slices.Contains(codes, "inchi") || !slices.Contains(codes, "dummy_atom") {
		t.Errorf("validation errors %v", codes)
	}
	got := f.do(t, "GET", "/v1/molecules/"+m["id"].(string), "read", nil)
	if got.Code != 200 || decode[map[string]any](t, got)["validated"] != false {
		t.Fatalf("get: %d %s", got.Code, got.Body)
	}
}

func TestMoleculeErrors(t *testing.T) {
	f := newMolFixture(t, 0)
	tests := []struct {
		name, body, ct string
		status         int
		code, field    string
	}{
		{"unparseable", `{"format": "smiles", "content": "C1CC(("}`, "application/json", 422, "invalid_molecule", ""},
		{"valence", `{"format": "smiles", "content": "C(C)(C)(C)(C)C"}`, "application/json", 422, "invalid_molecule", ""},
		{"bad inchi", `{"format": "inchi", "content": "InChI=1S/garbage"}`, "application/json", 422, "invalid_molecule", ""},
		{"no format", `{"content": "C"}`, "application/json", 400, "invalid_request", "format"},
		{"unknown format", `{"format": "cml", "content": "C"}`, "application/json", 400, "invalid_request", "format"},
		{"empty content", `{"format": "smiles", "content": "  "}`, "application/json", 400, "invalid_request", "content"},
		{"unknown field", `{"format": "smiles", "content": "C", "generate3d": true}`, "application/json", 400, "invalid_request", "generate3d"},
		{"wrong type", `{"format": "smiles", "content": "C", "generate_3d": "yes"}`, "application/json", 400, "invalid_request", "generate_3d"},
		{"bad json", `{"format": `, "application/json", 400, "malformed_json", ""},
		{"wrong media type", `C`, "text/plain", 415, "unsupported_media_type", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, "POST", "/v1/molecules", "write", strings.NewReader(tt.body), "Content-Type", tt.ct)
			p := problemOf(t, rec, tt.status, tt.code)
			if tt.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tt.field) {
				t.Errorf("errors %+v, want field %s", p.Errors, tt.field)
			}
			if tt.code == "invalid_molecule" && !strings.Contains(p.Detail, "read "+strings.Split(tt.body, `"`)[3]+": ") {
				t.Errorf("detail %q", p.Detail)
			}
		})
	}
	// Nothing stored by any of them.
	if q, _, _ := f.store.Stats(context.Background()); q != 0 {
		t.Errorf("%d quads stored after bad input", q)
	}
	for _, tt := range []struct {
		path, who string
		status    int
		code      string
	}{
		{"/v1/molecules/mol-nope", "read", 404, "not_found"},
		{"/v1/molecules/xyz", "read", 404, "not_found"},
		{"/v1/molecules/mol-nope/structure", "read", 404, "not_found"},
		{"/v1/molecules/mol-nope/triples", "read", 404, "not_found"},
		{"/v1/molecules?limit=0", "read", 400, "invalid_request"},
		{"/v1/molecules?limit=1001", "read", 400, "invalid_request"},
		{"/v1/molecules?limit=ten", "read", 400, "invalid_request"},
		{"/v1/molecules?cursor=!!!", "read", 400, "invalid_request"},
		{"/v1/molecules?cursor=aTox", "read", 400, "invalid_request"},
		{"/v1/molecules?smiles=C1CC((", "read", 400, "invalid_request"},
		{"/id/nokind/x", "read", 404, "not_found"},
		{"/id/molecule/mol-nope", "read", 404, "not_found"},
		{"/v1/molecules/batch/batch-nope", "read", 404, "not_found"},
		{"/v1/molecules/batch/nope/items", "read", 404, "not_found"},
	} {
		t.Run(tt.path, func(t *testing.T) { problemOf(t, f.do(t, "GET", tt.path, tt.who, nil), tt.status, tt.code) })
	}
}

func TestMoleculeStructureTriplesAndIdentity(t *testing.T) {
	f := newMolFixture(t, 0)
	rec := f.post(t, `{"format": "smiles", "content": "OCC", "name": "ethanol"}`)
	id := decode[map[string]any](t, rec)["id"].(string)
	base := "/v1/molecules/" + id

	// Structure formats (2D coordinates: no conformer).
	for _, tt := range []struct{ q, accept, ct, prefix string }{
		{"", "", "chemical/x-mdl-sdfile", id + "\n"},
		{"?format=mol", "", "chemical/x-mdl-molfile", id + "\n"},
		{"?format=smiles", "", "chemical/x-daylight-smiles", "CCO\t" + id + "\n"},
		{"?format=xyz", "", "chemical/x-xyz", "3\n" + id + "\n"},
		{"", "chemical/x-xyz", "chemical/x-xyz", "3\n"},
	} {
		r := f.do(t, "GET", base+"/structure"+tt.q, "read", nil, "Accept", tt.accept)
		if r.Code != 200 || r.Header().Get("Content-Type") != tt.ct || !strings.HasPrefix(r.Body.String(), tt.prefix) {
			t.Errorf("structure%s (%s): %d %s %q", tt.q, tt.accept, r.Code, r.Header().Get("Content-Type"), r.Body)
		}
		if tt.ct == "chemical/x-mdl-sdfile" && !strings.HasSuffix(r.Body.String(), "M  END\n$$$$\n") {
			t.Errorf("sdf ends %q", r.Body)
		}
	}
	p := problemOf(t, f.do(t, "GET", base+"/structure?format=pdb", "read", nil), 400, "invalid_request")
	if !strings.Contains(p.Detail, "sdf, mol, smiles, xyz") {
		t.Errorf("detail %q", p.Detail)
	}

	// Triples: N-Triples, Turtle (rapper) and JSON-LD are the same graph.
	nt := f.do(t, "GET", base+"/triples?format=ntriples", "read", nil)
	qs, err := rdfio.ParseNTriples(nt.Body)
	if err != nil || len(qs) < 50 {
		t.Fatalf("ntriples: %v (%d triples)", err, len(qs))
	}
	ttl := f.do(t, "GET", base+"/triples", "read", nil, "Accept", "text/turtle")
	if ttl.Header().Get("Content-Type") != rdfio.Turtle.MediaType() {
		t.Errorf("turtle content type %q", ttl.Header().Get("Content-Type"))
	}
	fromTTL, err := rdfio.ParseTurtle(bytes.NewReader(ttl.Body.Bytes()), "")
	if err != nil || !rdfio.Isomorphic(fromTTL, qs) {
		t.Errorf("turtle: %v", err)
	}
	if rapper, err := exec.LookPath("rapper"); err == nil {
		cmd := exec.Command(rapper, "-q", "-i", "turtle", "-o", "ntriples", "-", "http://example.org/")
		cmd.Stdin = bytes.NewReader(ttl.Body.Bytes())
		out, err := cmd.Output()
		back, perr := rdfio.ParseNTriples(bytes.NewReader(out))
		if err != nil || perr != nil || !rdfio.Isomorphic(back, qs) {
			t.Errorf("rapper: %v %v", err, perr)
		}
	}
	jl := f.do(t, "GET", base+"/triples?format=jsonld", "read", nil)
	fromJL, err := rdfio.ParseJSONLD(jl.Body, "")
	if err != nil || !rdfio.Isomorphic(fromJL, qs) {
		t.Errorf("jsonld not isomorphic to ntriples: %v", err)
	}
	p = problemOf(t, f.do(t, "GET", base+"/triples?format=rdfxml", "read", nil), 400, "invalid_request")
	if !strings.Contains(p.Detail, "turtle, jsonld, ntriples") {
		t.Errorf("detail %q", p.Detail)
	}
	problemOf(t, f.do(t, "GET", base+"/triples", "read", nil, "Accept", "image/png"), 406, "not_acceptable")

	// /id/molecule/{id}: RDF for RDF types, else 303 to the record.
	for _, accept := range []string{"text/html", "application/json", "*/*", ""} {
		r := f.do(t, "GET", "/id/molecule/"+id, "read", nil, "Accept", accept)
		if r.Code != 303 || r.Header().Get("Location") != base {
			t.Errorf("Accept %q: %d %s", accept, r.Code, r.Header().Get("Location"))
		}
	}
	r := f.do(t, "GET", "/id/molecule/"+id, "read", nil, "Accept", "application/n-triples, text/html;q=0.5")
	back, err := rdfio.ParseNTriples(r.Body)
	if r.Code != 200 || err != nil || !rdfio.Isomorphic(back, qs) {
		t.Errorf("/id as n-triples: %d %v", r.Code, err)
	}
	problemOf(t, f.do(t, "GET", "/id/molecule/"+id, "", nil), 401, "unauthorized")
}

func TestMoleculeList(t *testing.T) {
	f := newMolFixture(t, 0)
	ids := map[string]bool{}
	for _, smi := range []string{"CCO", "CCN", "CCC", "c1ccccc1", "OC(=O)C"} {
		ids[decode[map[string]any](t, f.post(t, `{"format": "smiles", "content": "`+smi+`"}`))["id"].(string)] = true
	}
	// Pages of 2 through all five, each id once.
	seen := map[string]bool{}
	url := "/v1/molecules?limit=2"
	for pages := 0; ; pages++ {
		r := f.do(t, "GET", url, "read", nil)
		page := decode[struct {
			Molecules []map[string]any `json:"molecules"`
			Next      *string          `json:"next_cursor"`
		}](t, r)
		for _, m := range page.Molecules {
			id := m["id"].(string)
			if seen[id] || !ids[id] {
				t.Errorf("id %s repeated or unknown", id)
			}
			seen[id] = true
		}
		if page.Next == nil {
			break
		}
		if pages > 5 {
			t.Fatal("no end")
		}
		url = "/v1/molecules?limit=2&cursor=" + *page.Next
	}
	if len(seen) != 5 {
		t.Errorf("listed %d of 5", len(seen))
	}
	// Lookups: any SMILES spelling; the InChIKey of ethanol.
	for _, q := range []string{"smiles=OCC", "inchi_key=LFQSCWFLJHTTHZ-UHFFFAOYSA-N", "smiles=C(O)C&inchi_key=LFQSCWFLJHTTHZ-UHFFFAOYSA-N"} {
		r := f.do(t, "GET", "/v1/molecules?"+q, "read", nil)
		page := decode[struct {
			Molecules []map[string]any `json:"molecules"`
		}](t, r)
		if len(page.Molecules) != 1 || page.Molecules[0]["smiles_canonical"] != "CCO" {
			t.Errorf("%s: %s", q, r.Body)
		}
	}
	r := f.do(t, "GET", "/v1/molecules?smiles=CCCCCCCC", "read", nil)
	if !strings.Contains(r.Body.String(), `"molecules":[]`) {
		t.Errorf("no match: %s", r.Body)
	}
}

// gz compresses data.
func gz(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func waitBatch(t *testing.T, f *molFixture, id string) map[string]any {
	t.Helper()
	for i := 0; i < 600; i++ {
		r := f.do(t, "GET", "/v1/molecules/batch/"+id, "read", nil)
		if r.Code != 200 {
			t.Fatalf("GET job: %d %s", r.Code, r.Body)
		}
		m := decode[map[string]any](t, r)
		if s := m["status"].(string); jobs.Status(s).Finished() {
			return m
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("batch did not finish")
	return nil
}

func TestBatchEncodings(t *testing.T) {
	f := newMolFixture(t, 0)
	sdfData, err := os.ReadFile("../chem/testdata/molblocks_v2000.sdf")
	if err != nil {
		t.Fatal(err)
	}
	smiles := "CCO ethanol\nC1CC(( broken\nc1ccccc1 benzene\n"
	multipartBody := func(name string, data []byte, fields ...string) (string, *bytes.Buffer) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write(data)
		for i := 0; i+1 < len(fields); i += 2 {
			mw.WriteField(fields[i], fields[i+1])
		}
		mw.Close()
		return mw.FormDataContentType(), &b
	}
	ctSDF, bodySDF := multipartBody("mols.sdf.gz", gz(sdfData))
	ctSMI, bodySMI := multipartBody("upload.bin", []byte(smiles), "format", "smiles", "generate_3d", "false")
	jsonBody := `{"molecules": [{"format": "smiles", "content": "CCN", "name": "ethylamine"}, {"format": "inchi", "content": "InChI=1S/CH4/h1H4"}], "generate_3d": true}`
	tests := []struct {
		name    string
		ct, enc string
		body    []byte
		total   float64
		failed  float64
	}{
		{"multipart sdf gzip", ctSDF, "", bodySDF.Bytes(), 22, 0},
		{"multipart smiles after fields", ctSMI, "", bodySMI.Bytes(), 3, 1},
		{"raw sdf gzip", "chemical/x-mdl-sdfile", "gzip", gz(sdfData), 22, 0},
		{"raw smiles", "text/plain; charset=utf-8", "", []byte(smiles), 3, 1},
		{"json", "application/json", "", []byte(jsonBody), 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do(t, "POST", "/v1/molecules/batch", "write", bytes.NewReader(tt.body), "Content-Type", tt.ct, "Content-Encoding", tt.enc)
			if r.Code != 202 {
				t.Fatalf("%d %s", r.Code, r.Body)
			}
			acc := decode[map[string]any](t, r)
			id := acc["job_id"].(string)
			if acc["status"] != "queued" || r.Header().Get("Location") != "/v1/molecules/batch/"+id {
				t.Fatalf("accepted %s", r.Body)
			}
			m := waitBatch(t, f, id)
			if m["status"] != "succeeded" || m["total"] != tt.total || m["processed"] != tt.total || m["failed"] != tt.failed ||
				m["created"].(float64)+m["existing"].(float64)+m["failed"].(float64) != tt.total || m["progress"] != 1.0 {
				t.Fatalf("job %v", m)
			}
			if errs := m["errors"].([]any); len(errs) != int(tt.failed) {
				t.Errorf("errors %v", errs)
			}
			// Items, two per page.
			var items []map[string]any
			url := "/v1/molecules/batch/" + id + "/items?limit=2"
			for range 20 {
				page := decode[struct {
					Items []map[string]any `json:"items"`
					Next  *string          `json:"next_cursor"`
				}](t, f.do(t, "GET", url, "read", nil))
				items = append(items, page.Items...)
				if page.Next == nil {
					break
				}
				url = "/v1/molecules/batch/" + id + "/items?limit=2&cursor=" + *page.Next
			}
			if len(items) != int(tt.total) {
				t.Fatalf("%d items, want %v", len(items), tt.total)
			}
			for i, it := range items {
				if it["index"] != float64(i) {
					t.Errorf("item %d: %v", i, it)
				}
				if it["status"] != "failed" {
					mr := f.do(t, "GET", "/v1/molecules/"+it["molecule_id"].(string), "read", nil)
					if mr.Code != 200 {
						t.Errorf("item %d molecule: %d", i, mr.Code)
					}
				}
			}
			// A finished job cannot be cancelled.
			problemOf(t, f.do(t, "DELETE", "/v1/molecules/batch/"+id, "write", nil), 409, "conflict")
		})
	}
	// The JSON batch asked for 3D.
	r := f.do(t, "GET", "/v1/molecules?smiles=CCN", "read", nil)
	if !strings.Contains(r.Body.String(), `"has_3d":true`) || !strings.Contains(r.Body.String(), `"name":"ethylamine"`) {
		t.Errorf("json batch molecule: %s", r.Body)
	}
}

func TestBatchErrors(t *testing.T) {
	f := newMolFixture(t, 0)
	lines := strings.Repeat("C\n", 100001)
	count := func() (int64, int) {
		q, _, _ := f.store.Stats(context.Background())
		n := 0
		f.store.Graphs(context.Background(), func(quad.IRI) error { n++; return nil })
		return q, n
	}
	q0, g0 := count()
	tests := []struct {
		name, ct, enc, body string
		status              int
		code                string
	}{
		{"too many smiles", "text/plain", "", lines, 413, "batch_too_large"},
		{"too many gzip", "text/plain", "gzip", string(gz([]byte(lines))), 413, "batch_too_large"},
		{"too many json", "application/json", "", `{"molecules": [` + strings.Repeat(`{"format":"smiles","content":"C"},`, 100000) + `{"format":"smiles","content":"C"}]}`, 413, "batch_too_large"},
		{"empty", "text/plain", "", "\n\n# nothing\n", 400, "invalid_request"},
		{"no content type", "", "", "C\n", 415, "unsupported_media_type"},
		{"pdf", "application/pdf", "", "C\n", 415, "unsupported_media_type"},
		{"brotli", "text/plain", "br", "C\n", 415, "unsupported_media_type"},
		{"bad gzip", "text/plain", "gzip", "\x1f\x8b\x08garbage", 400, "invalid_request"},
		{"json bad format", "application/json", "", `{"molecules": [{"format": "cml", "content": "C"}]}`, 400, "invalid_request"},
		{"json no content", "application/json", "", `{"molecules": [{"format": "smiles"}]}`, 400, "invalid_request"},
		{"json unknown field", "application/json", "", `{"mols": []}`, 400, "invalid_request"},
		{"json malformed", "application/json", "", `{"molecules": [`, 400, "malformed_json"},
		{"bad generate_3d", "text/plain", "", "C\n", 400, "invalid_request"},
		{"multipart without file", "multipart/form-data; boundary=x", "", "--x\r\nContent-Disposition: form-data; name=\"format\"\r\n\r\nsdf\r\n--x--\r\n", 400, "invalid_request"},
		{"multipart malformed", "multipart/form-data; boundary=x", "", "garbage", 400, "invalid_request"},
		{"binary sdf", "chemical/x-mdl-sdfile", "", "a\x00b\n$$$$\n", 400, "invalid_upload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/v1/molecules/batch"
			if tt.name == "bad generate_3d" {
				path += "?generate_3d=maybe"
			}
			r := f.do(t, "POST", path, "write", strings.NewReader(tt.body), "Content-Type", tt.ct, "Content-Encoding", tt.enc)
			problemOf(t, r, tt.status, tt.code)
		})
	}
	// Nothing stored: no quads, no graphs, no blobs.
	if q, g := count(); q != q0 || g != g0 {
		t.Errorf("after refused batches: %d quads %d graphs, before %d %d", q, g, q0, g0)
	}
	problemOf(t, f.do(t, "GET", "/v1/molecules/batch/batch-x/items?cursor=!!", "read", nil), 404, "not_found")
}

func TestBatchCancelRoute(t *testing.T) {
	f := newMolFixture(t, 0)
	var b strings.Builder
	for i := 1; i <= 1500; i++ {
		fmt.Fprintf(&b, "%sO n%d\n", strings.Repeat("C", i%40+1), i) // repeats: fast
	}
	r := f.do(t, "POST", "/v1/molecules/batch", "write", strings.NewReader(b.String()), "Content-Type", "text/plain")
	id := decode[map[string]any](t, r)["job_id"].(string)
	d := f.do(t, "DELETE", "/v1/molecules/batch/"+id, "write", nil)
	m := decode[map[string]any](t, d)
	if d.Code != 200 || m["status"] != "cancelled" || m["finished_at"] == nil {
		t.Fatalf("cancel: %d %s", d.Code, d.Body)
	}
	problemOf(t, f.do(t, "DELETE", "/v1/molecules/batch/"+id, "write", nil), 409, "conflict")
	problemOf(t, f.do(t, "DELETE", "/v1/molecules/batch/"+id, "read", nil), 403, "forbidden")
	items := f.do(t, "GET", "/v1/molecules/batch/"+id+"/items?limit=1000", "read", nil)
	if items.Code != 200 || strconv.Itoa(int(m["processed"].(float64))) == "" {
		t.Errorf("items after cancel: %d", items.Code)
	}
}

// TestMoleculeResponsesMatchOpenAPI validates real responses of the
// molecule and batch routes against the schemas the OpenAPI document
// declares for them (problems included).
func TestMoleculeResponsesMatchOpenAPI(t *testing.T) {
	f := newMolFixture(t, 0)
	c, doc := openAPICompiler(t, f.fixture)
	paths := doc.(map[string]any)["paths"].(map[string]any)
	created := f.post(t, `{"format": "smiles", "content": "CCO", "name": "ethanol"}`)
	id := decode[map[string]any](t, created)["id"].(string)
	acc := f.do(t, "POST", "/v1/molecules/batch", "write", strings.NewReader("CCO\nC1CC((\n"), "Content-Type", "text/plain")
	job := decode[map[string]any](t, acc)["job_id"].(string)
	waitBatch(t, f, job)
	tests := []struct {
		method, pattern, path string
		rec                   *httptest.ResponseRecorder
	}{
		{"POST", "/v1/molecules", "", created},
		{"POST", "/v1/molecules", "", f.post(t, `{"format": "smiles", "content": "OCC"}`)},
		{"POST", "/v1/molecules", "", f.post(t, `{"format": "smiles", "content": "C1CC(("}`)},
		{"POST", "/v1/molecules/batch", "", acc},
		{"GET", "/v1/molecules/{id}", "/v1/molecules/" + id, nil},
		{"GET", "/v1/molecules/{id}", "/v1/molecules/mol-none", nil},
		{"GET", "/v1/molecules", "/v1/molecules?limit=1", nil},
		{"GET", "/v1/molecules", "/v1/molecules?inchi_key=LFQSCWFLJHTTHZ-UHFFFAOYSA-N", nil},
		{"GET", "/v1/molecules/batch/{job_id}", "/v1/molecules/batch/" + job, nil},
		{"GET", "/v1/molecules/batch/{job_id}/items", "/v1/molecules/batch/" + job + "/items?limit=1", nil},
		{"DELETE", "/v1/molecules/batch/{job_id}", "/v1/molecules/batch/" + job, nil},
	}
	for _, tt := range tests {
		rec := tt.rec
		if rec == nil {
			rec = f.do(t, tt.method, tt.path, "write", nil)
		}
		status := strconv.Itoa(rec.Code)
		op, ok := paths[tt.pattern].(map[string]any)[strings.ToLower(tt.method)].(map[string]any)
		if !ok {
			t.Fatalf("%s %s not documented", tt.method, tt.pattern)
		}
		responses := op["responses"].(map[string]any)
		key := status
		if _, ok := responses[key]; !ok {
			key = "default"
		}
		ct := rec.Header().Get("Content-Type")
		content, _ := responses[key].(map[string]any)["content"].(map[string]any)
		if _, ok := content[ct]; !ok {
			t.Errorf("%s %s -> %s %s: media type not documented", tt.method, tt.pattern, status, ct)
			continue
		}
		sch, err := c.Compile(docURL + "#/paths/" + pointerEscape(tt.pattern) + "/" + strings.ToLower(tt.method) + "/responses/" + key +
			"/content/" + pointerEscape(ct) + "/schema")
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Body.Bytes()))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.path, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s %s -> %s: %v\nbody: %s", tt.method, tt.path, status, err, rec.Body)
		}
	}
}

// embedHelperEnv makes this test binary the chem 3D helper process
// (chem.RunEmbedHelper). It is read in an init function rather than a
// TestMain so that the helper starts before any test machinery, whatever
// TestMain the package has.
const embedHelperEnv = "MOLGRAPH_HANDLERS_TEST_EMBED_HELPER"

func init() {
	if os.Getenv(embedHelperEnv) != "embed" {
		return
	}
	if err := chem.RunEmbedHelper(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// embedHelper is the command of a 3D helper process: this test binary.
func embedHelper() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), embedHelperEnv+"=embed")
	return cmd
}

// register POSTs a SMILES and returns the new molecule's id.
func (f *molFixture) register(t *testing.T, smiles string) string {
	t.Helper()
	rec := f.post(t, `{"format": "smiles", "content": "`+smiles+`"}`)
	if rec.Code != 201 {
		t.Fatalf("POST %.40s: %d %s", smiles, rec.Code, rec.Body)
	}
	return decode[map[string]any](t, rec)["id"].(string)
}

// TestMoleculeStructure3DBudget: a registered 999-carbon chain is refused
// 3D at once from its stored counts (422 too_large_for_3d naming the
// limit), with no embedding started and nothing stored; POST with
// generate_3d of a molecule over the rotatable-bond budget is refused the
// same way and stores nothing.
func TestMoleculeStructure3DBudget(t *testing.T) {
	f := newMolFixture(t, 0)
	id := f.register(t, strings.Repeat("C", 999))
	t0 := time.Now()
	rec := f.do(t, "GET", "/v1/molecules/"+id+"/structure?format=pdbqt", "read", nil)
	took := time.Since(t0)
	p := problemOf(t, rec, 422, "too_large_for_3d")
	if !strings.Contains(p.Detail, "999 heavy atoms, more than the 100") {
		t.Errorf("detail %q does not name the limit", p.Detail)
	}
	if took > time.Second {
		t.Errorf("refusal took %v", took)
	}
	if s := f.pool.EmbedStats(); s.Started != 0 || s.Refused != 1 {
		t.Errorf("embed stats %+v", s)
	}
	m := decode[map[string]any](t, f.do(t, "GET", "/v1/molecules/"+id, "read", nil))
	if m["has_3d"] != false || m["structure_file"] != nil {
		t.Errorf("refused molecule changed: %v", m)
	}
	// 2D coordinates computed on request are bounded too.
	for _, format := range []string{"xyz", "sdf"} {
		t0 = time.Now()
		p = problemOf(t, f.do(t, "GET", "/v1/molecules/"+id+"/structure?format="+format, "read", nil), 422, "too_large_for_2d")
		if !strings.Contains(p.Detail, "999 heavy atoms, more than the 300") || time.Since(t0) > time.Second {
			t.Errorf("%s: detail %q after %v", format, p.Detail, time.Since(t0))
		}
	}
	metrics := f.do(t, "GET", "/metrics", "read", nil).Body.String()
	for _, want := range []string{"molgraph_limit_3d_max_heavy_atoms 100", "molgraph_limit_3d_max_rotatable_bonds 30",
		"molgraph_limit_3d_timeout_seconds 20", "molgraph_limit_2d_max_heavy_atoms 300", `molgraph_chem_3d_embeddings_total{outcome="refused"} 1`, "molgraph_chem_3d_running 0"} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, grepLines(metrics, "3d"))
		}
	}

	c40 := strings.Repeat("C", 40)
	p = problemOf(t, f.post(t, `{"format": "smiles", "content": "`+c40+`", "generate_3d": true}`), 422, "too_large_for_3d")
	if !strings.Contains(p.Detail, "37 rotatable bonds, more than the 30") {
		t.Errorf("detail %q does not name the limit", p.Detail)
	}
	if has, err := f.store.HasGraph(context.Background(), quad.IRI("http://example.org/id/molecule/"+ontologyID(t, f, c40))); err != nil || has {
		t.Errorf("refused molecule stored (%v)", err)
	}
}

// ontologyID is the id a SMILES registers under.
func ontologyID(t *testing.T, f *molFixture, smiles string) string {
	t.Helper()
	res, err := f.pool.Process(context.Background(), chem.Input{Format: chem.FormatSMILES, Content: smiles})
	if err != nil {
		t.Fatal(err)
	}
	return ontology.MoleculeID(res.SMILES)
}

// TestMoleculeStructureReusesConformer: imatinib registered without 3D
// gets a docking PDBQT on the first GET, whose conformer is stored (the
// record then has has_3d and a structure file, and ?format=sdf serves it);
// later GETs reuse it: one embedding in all.
func TestMoleculeStructureReusesConformer(t *testing.T) {
	f := newMolFixtureChem(t, 0, chem.Options{Embed: chem.EmbedOptions{Helper: embedHelper}})
	id := f.register(t, "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1")
	first := f.do(t, "GET", "/v1/molecules/"+id+"/structure?format=pdbqt", "read", nil)
	if first.Code != 200 || !strings.Contains(first.Body.String(), "TORSDOF") || !strings.Contains(first.Body.String(), "REMARK SMILES") {
		t.Fatalf("pdbqt: %d %.300s", first.Code, first.Body)
	}
	m := decode[map[string]any](t, f.do(t, "GET", "/v1/molecules/"+id, "read", nil))
	if m["has_3d"] != true || m["structure_file"] == nil {
		t.Fatalf("conformer not stored: %v", m)
	}
	sdfRec := f.do(t, "GET", "/v1/molecules/"+id+"/structure?format=sdf", "read", nil)
	if sdfRec.Code != 200 || !strings.Contains(sdfRec.Body.String(), " H  ") {
		t.Errorf("sdf is not the stored 3D conformer with hydrogens: %.400s", sdfRec.Body)
	}
	for i := 0; i < 2; i++ {
		again := f.do(t, "GET", "/v1/molecules/"+id+"/structure?format=pdbqt", "read", nil)
		if again.Code != 200 || again.Body.String() != first.Body.String() {
			t.Fatalf("GET %d: %d, body differs: %v", i+2, again.Code, again.Body.String() != first.Body.String())
		}
	}
	if s := f.pool.EmbedStats(); s.Started != 1 || s.Embedded != 1 {
		t.Errorf("embed stats %+v, want exactly one embedding", s)
	}
}

// heavyChem lets a 300-carbon chain through the 3D budget: its embedding
// takes minutes, as the 999-carbon chain's did before there was a budget.
var heavyChem = chem.Options{Embed: chem.EmbedOptions{MaxHeavyAtoms: 1000, MaxRotatableBonds: 1000, Helper: embedHelper}}

// doCtx serves one request with ctx as its context.
func (f *molFixture) doCtx(ctx context.Context, method, target, who string, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body)).WithContext(ctx)
	req.Header.Set("Authorization", "Bearer "+f.tokens[who])
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, req)
	return rec
}

// TestMoleculeStructureAbandoned: two heavy 3D requests abandoned by
// their clients after 2 s answer 499 (not 422), free their embedding slots
// when they return, and a small POST /v1/molecules right after is not
// slowed by more than a second compared with one before them.
func TestMoleculeStructureAbandoned(t *testing.T) {
	f := newMolFixtureChem(t, 0, heavyChem)
	id := f.register(t, strings.Repeat("C", 300))
	small := func(smiles string) time.Duration {
		t0 := time.Now()
		f.register(t, smiles)
		return time.Since(t0)
	}
	before := small("CCN")
	codes := make(chan int, 2)
	for i := 0; i < 2; i++ {
		go func() {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(2*time.Second, cancel)
			codes <- f.doCtx(ctx, "GET", "/v1/molecules/"+id+"/structure?format=pdbqt", "read", "").Code
		}()
	}
	time.Sleep(2200 * time.Millisecond)
	after := small("CCCN")
	for i := 0; i < 2; i++ {
		if c := <-codes; c != 499 {
			t.Errorf("abandoned request answered %d, want 499", c)
		}
	}
	s := f.pool.EmbedStats()
	t.Logf("small POST before %v, after two abandoned 3D requests %v; embed stats %+v", before, after, s)
	if after > before+time.Second {
		t.Errorf("small POST took %v after the abandoned requests, %v before", after, before)
	}
	if s.Running != 0 || s.Cancelled != 2 {
		t.Errorf("embed stats %+v: slots still busy", s)
	}
	m := decode[map[string]any](t, f.do(t, "GET", "/v1/molecules/"+id, "read", nil))
	if m["has_3d"] != false {
		t.Errorf("abandoned embedding stored a conformer: %v", m)
	}
}

// TestMoleculeStructureTimeout: an embedding past its time limit is 503
// embedding_timeout with Retry-After, not 422.
func TestMoleculeStructureTimeout(t *testing.T) {
	o := heavyChem
	o.Embed.Timeout = 500 * time.Millisecond
	f := newMolFixtureChem(t, 0, o)
	id := f.register(t, strings.Repeat("C", 300))
	t0 := time.Now()
	rec := f.do(t, "GET", "/v1/molecules/"+id+"/structure?format=pdbqt", "read", nil)
	problemOf(t, rec, 503, "embedding_timeout")
	if rec.Header().Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	if took := time.Since(t0); took > 3*time.Second {
		t.Errorf("answered after %v", took)
	}
	if s := f.pool.EmbedStats(); s.TimedOut != 1 || s.Running != 0 {
		t.Errorf("embed stats %+v", s)
	}
}
