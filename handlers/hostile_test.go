package handlers

// The hostile-request suite (issue 15, item 9): requests that a hostile or
// careless client sends, over every route of the route table, against a
// server wired as `molgraph serve` wires it (Badger store in a data
// directory, the real chem pool, the job runner with batch and docking
// tasks, the QM parsers and the SHACL gate), served over real HTTP by an
// in-process httptest server.
//
// Every case asserts that the answer is a 4xx (or a 503 carrying
// Retry-After; never another 5xx, never a success) with an
// application/problem+json body naming a code; that it came within the
// case's time bound; that the process still answers /healthz; that nothing
// was stored (quads, keys, files in the data directory and in TMPDIR); and
// that the process's peak RSS grew by less than the case's bound.
//
// A case whose fix has not landed yet carries `pending` naming the fix; it
// is skipped with that reason unless MOLGRAPH_HOSTILE_PENDING=1 (then it
// runs, so the lead and the fixers can see which ones pass now). A case
// that would kill the whole test binary (a stack overflow is a fatal
// error, not a panic) is also marked crash and runs only with
// MOLGRAPH_HOSTILE_PENDING=all.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	jobsdocking "github.com/molgraph/molgraph/jobs/docking"
	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
	"github.com/molgraph/molgraph/parsers/xtb"
	"github.com/molgraph/molgraph/search"
	"github.com/molgraph/molgraph/shapes"
)

// The fixes that pending cases wait for (issue 15; one helper each).
const (
	fixQMBounds = "h-gql (a judgement): a Gaussian log whose first orientation has 800,000 atoms is stored (201, 57 MB blob, 0.6 s, memory bounded); bound the atoms or drop this case"
)

// hostileCase is one hostile request and what its answer must be.
type hostileCase struct {
	name string
	// route is the "METHOD pattern" of the route table the case exercises
	// ("" for paths that match no route); the suite checks that every
	// route has cases.
	route  string
	method string
	// path is the request target; {mol}, {chain}, {bare}, {cage}, {rec}, {calc},
	// {batch} and {dock} are replaced by the ids of the seeded resources.
	path string
	// who is the key: "" none, read/write/admin/expired/revoked, or a
	// literal token.
	who string
	// body builds the request body (nil: none). A *bytes.Reader or
	// *strings.Reader is sent with a Content-Length, anything else chunked.
	body  func() io.Reader
	ctype string
	hdr   []string
	// status is the exact status expected (0: any 4xx, or a 503 with
	// Retry-After). code is the problem code expected ("": any).
	status int
	code   string
	// gql accepts a GraphQL error response (400
	// application/graphql-response+json with errors and no data) as well
	// as a problem.
	gql bool
	// allow2xx accepts a success as well: the attack is on time and
	// memory, and a bounded answer may be a valid one (an over-long
	// SPARQL value is an expression error, so the variable is unbound).
	allow2xx bool
	// check replaces the status/problem checks (CORS preflight).
	check func(t *testing.T, resp *http.Response, body []byte)
	// within bounds the time to the complete answer (default 15 s).
	within time.Duration
	// maxRSS bounds the growth of the process's peak RSS in MiB (default
	// 512).
	maxRSS int64
	// pending names the fix the case waits for; crash marks a case that
	// would kill the test binary until then.
	pending string
	crash   bool
}

// hostileEnv is the server under attack and what the checks inspect.
type hostileEnv struct {
	*fixture
	ts      *httptest.Server
	client  *http.Client
	store   *graph.Store
	dataDir string
	tmpDir  string
	ids     map[string]string
}

// newHostileEnv wires a server as cmd/molgraph serve does (on-disk Badger
// store, chem pool, job runner with batch and, when vina is installed,
// docking) and seeds one resource of each kind: aspirin, a 999-carbon
// chain, the 1iep receptor, a Gaussian calculation, a finished batch job
// and a cancelled docking job.
func newHostileEnv(t *testing.T, mutate func(*Config)) *hostileEnv {
	t.Helper()
	dataDir := t.TempDir()
	st, err := graph.Open(dataDir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	pool, err := chem.NewPool(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	const base = "http://example.org/"
	reg := batch.NewRegistry(st, pool, base, nil)
	btask := batch.NewTask(reg, batch.TaskOptions{})
	tasks := []jobs.Task{btask}
	var dtask *jobsdocking.Task
	if _, err := exec.LookPath("vina"); err == nil {
		vina, err := docking.NewVina(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		dtask = jobsdocking.NewTask(reg, vina, jobsdocking.Options{})
		tasks = append(tasks, dtask)
	}
	// The caps on unfinished jobs and the admission limits are those
	// molgraph serve starts with (--max-jobs 256, --max-jobs-per-key 16,
	// admission.DefaultLimits).
	runner, err := jobs.NewRunner(st, base, tasks, jobs.Options{MaxUnfinished: 256, MaxUnfinishedPerOwner: 16})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Close() })
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	adm, err := admission.New(admission.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	// Structure search as molecule serve starts it: the index kept up to
	// date by every commit, search jobs, the SPARQL procedures.
	idx, err := search.Open(context.Background(), st, pool, base, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(idx.Close)
	searchJobs := search.NewJobs(idx.Search, search.JobOptions{})
	t.Cleanup(searchJobs.Close)
	f := newFixture(t, func(c *Config) {
		c.Graph = st
		c.Store = st
		c.Admission = adm
		c.QM = qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}, nwchem.Parser{}, xtb.Parser{}}
		c.Gate = gate
		c.Molecules = MoleculeServices{Registry: reg, Jobs: runner, Batch: btask}
		c.Search, c.SearchJobs, c.SPARQLProcedures = idx, searchJobs, idx.Procedures()
		if dtask != nil {
			c.Docking = DockingServices{Task: dtask, Jobs: runner}
		}
		if mutate != nil {
			mutate(c)
		}
	})
	ts := httptest.NewServer(f.srv)
	t.Cleanup(func() {
		// A case that hung leaves its handler running; ts.Close would
		// wait for it without end. Cut the connections and wait a while.
		ts.CloseClientConnections()
		done := make(chan struct{})
		go func() { ts.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Log("handlers still running 30 s after the last case (a case hung)")
		}
	})
	e := &hostileEnv{fixture: f, ts: ts, store: st, dataDir: dataDir, ids: map[string]string{},
		// No transparent decompression: the cases set Accept-Encoding
		// and Content-Encoding themselves.
		client: &http.Client{Transport: &http.Transport{DisableCompression: true}}}
	e.seed(t, dtask != nil)
	// Multipart parts past memory and other spools go to TMPDIR; watch
	// an empty one from here on.
	e.tmpDir = t.TempDir()
	t.Setenv("TMPDIR", e.tmpDir)
	return e
}

// send makes one request and reads the whole answer.
func (e *hostileEnv) send(ctx context.Context, method, target, who string, body io.Reader, hdr ...string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, e.ts.URL+target, body)
	if err != nil {
		return nil, nil, err
	}
	if who != "" {
		tok, ok := e.tokens[who]
		if !ok {
			tok = who
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

// mustSend is send for the seeds: it fails the test unless the status is
// one of want.
func (e *hostileEnv) mustSend(t *testing.T, method, target, who string, body io.Reader, want []int, hdr ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	resp, data, err := e.send(ctx, method, target, who, body, hdr...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	if !slices.Contains(want, resp.StatusCode) {
		t.Fatalf("%s %s: %d %s", method, target, resp.StatusCode, data)
	}
	var v map[string]any
	json.Unmarshal(data, &v)
	return v
}

func (e *hostileEnv) seed(t *testing.T, withDocking bool) {
	t.Helper()
	postMol := func(smiles string) string {
		b, _ := json.Marshal(map[string]any{"format": "smiles", "content": smiles})
		v := e.mustSend(t, "POST", "/v1/molecules", "write", bytes.NewReader(b), []int{201}, "Content-Type", "application/json")
		return v["id"].(string)
	}
	e.ids["mol"] = postMol("CC(=O)Oc1ccccc1C(=O)O")
	e.ids["chain"] = postMol(strings.Repeat("C", 999))
	// aspirin's docking-ready form (its conformer stored once, as the
	// first GET of it stores it); glycerol keeps none, so that a refused
	// GET of its pdbqt shows whether it stored one.
	e.mustSend(t, "GET", "/v1/molecules/"+e.ids["mol"]+"/structure?format=pdbqt", "read", nil, []int{200})
	e.ids["bare"] = postMol("OCC(O)CO")
	// A cage whose 24 potential stereocentres all give one molecule, with
	// its conformer (the stereoisomer enumeration of pdbqt&isomer used to
	// try all 2^24 assignments).
	cage, _ := json.Marshal(map[string]any{"format": "smiles", "generate_3d": true,
		"content": "C12C3C4C5C1C6C7C8C2C9C3C%10C4C%11C5C6C%12C7C%13C8C9C%10C%11C%12%13"})
	e.ids["cage"] = e.mustSend(t, "POST", "/v1/molecules", "write", bytes.NewReader(cage), []int{201}, "Content-Type", "application/json")["id"].(string)
	body, ct := hostileUpload(t, "1iep_receptor.pdbqt", dockingCorpus(t, "vina-examples/1iep/1iep_receptor.pdbqt"))
	e.ids["rec"] = e.mustSend(t, "POST", "/v1/receptors", "write", body, []int{201}, "Content-Type", ct)["id"].(string)
	body, ct = hostileUpload(t, "dvb_sp.out", qmtest.Read(t, "gaussian/basicGaussian16/dvb_sp.out"))
	e.ids["calc"] = e.mustSend(t, "POST", "/v1/qm/parse", "write", body, []int{201}, "Content-Type", ct)["id"].(string)
	e.ids["batch"] = e.mustSend(t, "POST", "/v1/molecules/batch", "write",
		strings.NewReader(`{"molecules": [{"format": "smiles", "content": "c1ccccc1O"}, {"format": "smiles", "content": "CCN(CC)CC"}]}`),
		[]int{202}, "Content-Type", "application/json")["job_id"].(string)
	e.waitJob(t, "/v1/molecules/batch/"+e.ids["batch"])
	e.ids["dock"] = "dock-not-seeded"
	if withDocking {
		b, _ := json.Marshal(map[string]any{"receptor": e.ids["rec"], "ligands": []string{e.ids["mol"]}, "exhaustiveness": 1, "num_modes": 1})
		e.ids["dock"] = e.mustSend(t, "POST", "/v1/docking/jobs", "write", bytes.NewReader(b), []int{202}, "Content-Type", "application/json")["id"].(string)
		e.mustSend(t, "DELETE", "/v1/docking/jobs/"+e.ids["dock"], "write", nil, []int{200, 202, 409})
		e.waitJob(t, "/v1/docking/jobs/"+e.ids["dock"])
	}
}

// waitJob polls a job until it has finished.
func (e *hostileEnv) waitJob(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		v := e.mustSend(t, "GET", path, "read", nil, []int{200})
		switch v["status"] {
		case "succeeded", "failed", "cancelled":
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not finish", path)
}

// hostileUpload is a multipart body with a file part and form values.
func hostileUpload(t testing.TB, filename string, data []byte, values ...string) (io.Reader, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for i := 0; i+1 < len(values); i += 2 {
		mw.WriteField(values[i], values[i+1])
	}
	if filename != "" {
		fw, err := mw.CreateFormFile("file", filename)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	mw.Close()
	return bytes.NewReader(b.Bytes()), mw.FormDataContentType()
}

// footprint is what a request may not change: the graph, the keys and the
// files the service keeps.
type footprint struct {
	quads int
	keys  int
	// files are the files of the data directory outside Badger's own
	// directory (blobs, spools) and of TMPDIR, with their sizes.
	files map[string]int64
	// badgerBytes is the disk space Badger's files take (they change on
	// their own, so only a large growth counts).
	badgerBytes int64
}

func (e *hostileEnv) footprint(t *testing.T) footprint {
	t.Helper()
	fp := footprint{files: map[string]int64{}}
	if err := e.store.Match(t.Context(), graph.Pattern{}, func(quad.Quad) error { fp.quads++; return nil }); err != nil {
		t.Fatal(err)
	}
	keys, err := e.keys.List()
	if err != nil {
		t.Fatal(err)
	}
	fp.keys = len(keys)
	for _, root := range []string{e.dataDir, e.tmpDir} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(e.dataDir, path)
			if strings.HasPrefix(rel, "quads"+string(filepath.Separator)) || strings.HasPrefix(rel, "graph"+string(filepath.Separator)) {
				if st, ok := info.Sys().(*syscall.Stat_t); ok {
					fp.badgerBytes += st.Blocks * 512
				}
				return nil
			}
			fp.files[path] = info.Size()
			return nil
		})
	}
	return fp
}

// storedDiff describes what a request stored ("" for nothing).
func (before footprint) storedDiff(after footprint) string {
	var out []string
	if after.quads != before.quads {
		out = append(out, fmt.Sprintf("%+d quads", after.quads-before.quads))
	}
	if after.keys != before.keys {
		out = append(out, fmt.Sprintf("%+d keys", after.keys-before.keys))
	}
	for p, n := range after.files {
		if m, ok := before.files[p]; !ok {
			out = append(out, fmt.Sprintf("new file %s (%d bytes)", p, n))
		} else if m != n {
			out = append(out, fmt.Sprintf("file %s changed size %d -> %d", p, m, n))
		}
	}
	if g := after.badgerBytes - before.badgerBytes; g > 16<<20 {
		out = append(out, fmt.Sprintf("Badger's files grew by %d MiB", g>>20))
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// procStatus reads a "VmXXX:  123 kB" field of /proc/self/status in bytes.
func procStatus(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// resetPeakRSS makes VmHWM start again from the current RSS (Linux 4.0+;
// false where it cannot, and the RSS bound is then not checked).
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// runPending reports whether pending cases run: "" no, "1" the ones that
// fail but do not crash, "all" every one.
func runPending() string { return os.Getenv("MOLGRAPH_HOSTILE_PENDING") }

// skipPending skips a test waiting for the fix named by pending ("" for
// none), unless MOLGRAPH_HOSTILE_PENDING asks to run it.
func skipPending(t *testing.T, pending string, crash bool) {
	t.Helper()
	if pending == "" {
		return
	}
	switch mode := runPending(); {
	case crash && mode != "all":
		t.Skipf("pending (crashes the test binary): %s", pending)
	case mode == "":
		t.Skipf("pending: %s", pending)
	}
}

// run sends one case and checks the answer, the time, the process, the
// footprint and the memory.
func (e *hostileEnv) run(t *testing.T, c hostileCase) {
	skipPending(t, c.pending, c.crash)
	within := c.within
	if within == 0 {
		within = 15 * time.Second
	}
	maxRSS := c.maxRSS
	if maxRSS == 0 {
		maxRSS = 512
	}
	if raceBuild {
		within *= 4
	}
	path := strings.NewReplacer("{mol}", e.ids["mol"], "{chain}", e.ids["chain"], "{bare}", e.ids["bare"], "{cage}", e.ids["cage"], "{rec}", e.ids["rec"],
		"{calc}", e.ids["calc"], "{batch}", e.ids["batch"], "{dock}", e.ids["dock"]).Replace(c.path)
	var body io.Reader
	if c.body != nil {
		body = c.body()
	}
	hdr := slices.Clone(c.hdr)
	if c.ctype != "" {
		hdr = append(hdr, "Content-Type", c.ctype)
	}

	before := e.footprint(t)
	if c.maxRSS > 0 {
		debug.FreeOSMemory()
	}
	rssBefore := procStatus("VmRSS")
	peakOK := resetPeakRSS()
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	start := time.Now()
	resp, data, err := e.send(ctx, c.method, path, c.who, body, hdr...)
	took := time.Since(start)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("no complete answer within %s (hung past its bound)", within)
		} else {
			t.Errorf("request failed after %s: %v", took.Round(time.Millisecond), err)
		}
	}
	if peakOK && rssBefore > 0 && !raceBuild {
		if grew := (procStatus("VmHWM") - rssBefore) >> 20; grew > maxRSS {
			t.Errorf("peak RSS grew by %d MiB (bound %d MiB)", grew, maxRSS)
		}
	}
	e.checkAlive(t)
	// Give work the handler left behind (it should leave none) a moment
	// to show in the footprint.
	if diff := before.storedDiff(e.footprint(t)); diff != "" {
		t.Errorf("the request stored something: %s", diff)
	}
	if resp == nil {
		return
	}
	code := ""
	var p struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(data, &p) == nil {
		code = p.Code
	}
	t.Logf("%d %s in %s", resp.StatusCode, code, took.Round(time.Millisecond))
	if c.check != nil {
		c.check(t, resp, data)
		return
	}
	checkHostileAnswer(t, c, resp, data)
}

// problemNaming is a check: the answer has the status and is a problem
// whose first field error names field.
func problemNaming(status int, field string) func(t *testing.T, resp *http.Response, body []byte) {
	return func(t *testing.T, resp *http.Response, body []byte) {
		t.Helper()
		checkHostileAnswer(t, hostileCase{status: status}, resp, body)
		var p Problem
		if err := json.Unmarshal(body, &p); err != nil || len(p.Errors) == 0 || p.Errors[0].Field != field {
			t.Errorf("the problem does not name the field %q: %s", field, body)
		}
	}
}

// checkHostileAnswer checks the status class and the problem body.
func checkHostileAnswer(t *testing.T, c hostileCase, resp *http.Response, data []byte) {
	t.Helper()
	status := resp.StatusCode
	show := data
	if len(show) > 600 {
		show = append(show[:600:600], "..."...)
	}
	if c.allow2xx && status >= 200 && status < 300 {
		return
	}
	switch {
	case c.status != 0 && status != c.status:
		t.Errorf("status %d, want %d: %s", status, c.status, show)
		return
	case status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests:
		if resp.Header.Get("Retry-After") == "" {
			t.Errorf("%d without Retry-After: %s", status, show)
		}
	case status >= 500:
		t.Errorf("status %d (a 5xx other than 503 with Retry-After): %s", status, show)
		return
	case status < 400:
		t.Errorf("status %d, want a 4xx: %s", status, show)
		return
	}
	ct := resp.Header.Get("Content-Type")
	if c.gql && status == http.StatusBadRequest && strings.HasPrefix(ct, mediaGraphQLResponse) {
		var r struct {
			Data   json.RawMessage `json:"data"`
			Errors []any           `json:"errors"`
		}
		if err := json.Unmarshal(data, &r); err != nil || len(r.Errors) == 0 || (len(r.Data) > 0 && string(r.Data) != "null") {
			t.Errorf("GraphQL 400 without errors or with data: %s", show)
		}
		return
	}
	if ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json: %s", ct, show)
		return
	}
	var p Problem
	if err := json.Unmarshal(data, &p); err != nil {
		t.Errorf("problem body: %v: %s", err, show)
		return
	}
	if p.Status != status || p.Code == "" || p.Title == "" {
		t.Errorf("problem status/code/title %d/%q/%q for a %d: %s", p.Status, p.Code, p.Title, status, show)
	}
	if c.code != "" && p.Code != c.code {
		t.Errorf("problem code %q, want %q: %s", p.Code, c.code, show)
	}
}

// checkAlive asks /healthz: the process is up and serving.
func (e *hostileEnv) checkAlive(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resp, _, err := e.send(ctx, "GET", "/healthz", "", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz after the case: %v %v", resp, err)
	}
}

// Hostile bodies. The big ones are built once per test binary.

func lit(s string) func() io.Reader { return func() io.Reader { return strings.NewReader(s) } }

func litBytes(b []byte) func() io.Reader { return func() io.Reader { return bytes.NewReader(b) } }

// streamOf sends n bytes of pattern chunked (no Content-Length), generated
// as they are read.
func streamOf(pattern string, n int64) func() io.Reader {
	return func() io.Reader {
		return &repeatReader{pattern: []byte(pattern), left: n}
	}
}

type repeatReader struct {
	pattern []byte
	off     int
	left    int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.pattern[r.off:])
		n += c
		r.off = (r.off + c) % len(r.pattern)
	}
	r.left -= int64(n)
	return n, nil
}

// gzipOf compresses data.
func gzipOf(data []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// gzipBomb is a gzip stream that inflates to n MiB of unit repeated: one
// member of 1 MiB, concatenated (gzip readers read multi-member streams as
// one), so building it costs one MiB of compression.
func gzipBomb(unit string, mib int) []byte {
	one := gzipOf(bytes.Repeat([]byte(unit), (1<<20)/len(unit)))
	return bytes.Repeat(one, mib)
}

var (
	bombOnce     sync.Once
	commentBomb  []byte // 1 GiB of SMILES comment lines
	longLineBomb []byte // 40 SMILES lines of 8 MiB
)

func bombs() {
	bombOnce.Do(func() {
		commentBomb = gzipBomb("# "+strings.Repeat("x", 1021)+"\n", 1024)
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		line := strings.Repeat("C", 8<<20)
		for i := 0; i < 40; i++ {
			fmt.Fprintf(zw, "%s long%d\n", line, i)
		}
		zw.Close()
		longLineBomb = b.Bytes()
	})
}

func commentBombBody() io.Reader { bombs(); return bytes.NewReader(commentBomb) }

func longLineBombBody() io.Reader { bombs(); return bytes.NewReader(longLineBomb) }

// multipartOf builds a multipart body lazily.
func multipartOf(filename string, data func() []byte, values ...string) (func() io.Reader, string) {
	boundary := "hostile-boundary-7c1f"
	return func() io.Reader {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		mw.SetBoundary(boundary)
		for i := 0; i+1 < len(values); i += 2 {
			mw.WriteField(values[i], values[i+1])
		}
		if filename != "" {
			fw, _ := mw.CreateFormFile("file", filename)
			fw.Write(data())
		}
		mw.Close()
		return bytes.NewReader(b.Bytes())
	}, "multipart/form-data; boundary=" + boundary
}

const streamBoundary = "hostile-stream-boundary-3e9a"

// multipartStream is a multipart body whose file part is n bytes of
// pattern, generated as it is sent (chunked).
func multipartStream(filename, pattern string, n int64) func() io.Reader {
	return func() io.Reader {
		head := "--" + streamBoundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename +
			"\"\r\nContent-Type: application/octet-stream\r\n\r\n"
		return io.MultiReader(strings.NewReader(head), streamOf(pattern, n)(), strings.NewReader("\r\n--"+streamBoundary+"--\r\n"))
	}
}

// nested is open n times, then inner, then close n times.
func nested(open, inner, close string, n int) string {
	var b strings.Builder
	b.Grow(n*(len(open)+len(close)) + len(inner))
	for i := 0; i < n; i++ {
		b.WriteString(open)
	}
	b.WriteString(inner)
	for i := 0; i < n; i++ {
		b.WriteString(close)
	}
	return b.String()
}

// concatDoubling is ~1 KB of SPARQL that doubles a string 32 times: a
// 4 GiB value without a literal-length limit.
func concatDoubling(times int) string {
	var b strings.Builder
	b.WriteString("SELECT ?v" + strconv.Itoa(times) + " WHERE { BIND(\"xxxxxxxxxxxxxxxx\" AS ?v0)\n")
	for i := 0; i < times; i++ {
		fmt.Fprintf(&b, "BIND(CONCAT(?v%d, ?v%d) AS ?v%d)\n", i, i, i+1)
	}
	b.WriteString("}")
	return b.String()
}

// graphQLRepeated is one query with the same field n times.
func graphQLRepeated(n int) string {
	return "{ molecules(first: 1) { " + strings.Repeat("id ", n) + "} }"
}

// graphQLIntrospection is n aliased full introspection trees.
func graphQLIntrospection(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " a%d: __schema { types { name fields { name type { name ofType { name ofType { name } } } args { name type { name } } } } }", i)
	}
	b.WriteString(" }")
	return b.String()
}

// graphQLFragmentBomb is fragments each spreading the previous one
// `fan` times, `levels` deep: fan^levels fields from a few KB.
func graphQLFragmentBomb(levels, fan int) string {
	var b strings.Builder
	b.WriteString("query { molecules(first: 1) { ...F" + strconv.Itoa(levels) + " } }\n")
	b.WriteString("fragment F0 on Molecule { id smiles_canonical }\n")
	for l := 1; l <= levels; l++ {
		fmt.Fprintf(&b, "fragment F%d on Molecule {", l)
		for i := 0; i < fan; i++ {
			fmt.Fprintf(&b, " a%d: id ...F%d", i, l-1)
		}
		b.WriteString(" }\n")
	}
	return b.String()
}

// graphQLBody wraps a query as a JSON request body.
func graphQLBody(query string) func() io.Reader {
	return func() io.Reader {
		b, _ := json.Marshal(map[string]any{"query": query})
		return bytes.NewReader(b)
	}
}

// deepJSON is a JSON object whose field value nests n arrays deep.
func deepJSON(field string, n int) string {
	return `{"` + field + `": ` + nested("[", "1", "]", n) + `}`
}

// gaussianHuge is a Gaussian log header with an orientation table of n
// atoms (about 70 bytes each).
func gaussianHuge(t *testing.T, n int) []byte {
	head := qmtest.Read(t, "gaussian/basicGaussian16/dvb_sp.out")
	i := bytes.Index(head, []byte("Standard orientation:"))
	if i < 0 {
		t.Fatal("dvb_sp.out has no Standard orientation")
	}
	var b bytes.Buffer
	b.Write(head[:i])
	b.WriteString("Standard orientation:\n ---------------------------------------------------------------------\n")
	b.WriteString(" Center     Atomic      Atomic             Coordinates (Angstroms)\n")
	b.WriteString(" Number     Number       Type             X           Y           Z\n")
	b.WriteString(" ---------------------------------------------------------------------\n")
	w := bufio.NewWriter(&b)
	for k := 1; k <= n; k++ {
		fmt.Fprintf(w, "%7d%11d%12d%16.6f%12.6f%12.6f\n", k, 6, 0, float64(k)*1.5, 0.0, 0.0)
	}
	w.Flush()
	b.WriteString(" ---------------------------------------------------------------------\n")
	b.Write(head[i:])
	return b.Bytes()
}

var hostileParamRE = regexp.MustCompile(`\{[^}]+\}`)

// fillParams replaces every {param} of a chi pattern with v.
func fillParams(pattern, v string) string { return hostileParamRE.ReplaceAllString(pattern, v) }

// seededPath fills a pattern's parameters with the seeded ids where the
// pattern names one (so the request reaches the handler's own checks).
func seededPath(pattern string) string {
	r := strings.NewReplacer(
		"/v1/molecules/batch/{job_id}", "/v1/molecules/batch/{batch}",
		"/v1/molecules/{id}", "/v1/molecules/{mol}",
		"/v1/receptors/{id}", "/v1/receptors/{rec}",
		"/v1/qm/calculations/{id}", "/v1/qm/calculations/{calc}",
		"/v1/docking/jobs/{id}", "/v1/docking/jobs/{dock}",
		"{ligand}", "{mol}", "{mode}", "1")
	return r.Replace(pattern)
}

// genericCases are derived from the route table, so a route added later
// is attacked without editing this file: every kind of bad key, a key
// one scope too weak, hostile path parameters and a wrong method.
func genericCases(routes []Route) []hostileCase {
	var out []hostileCase
	for _, rt := range routes {
		id := rt.Method + " " + rt.Pattern
		path := fillParams(rt.Pattern, "x-test")
		if rt.Scope != auth.ScopeNone {
			for _, who := range []string{"", "expired", "revoked", "mgk_not-a-key-at-all-but-long-enough-xxxxxxx", strings.Repeat("k", 64<<10)} {
				name := who
				switch {
				case who == "":
					name = "no-key"
				case len(who) > 100:
					name = "64KiB-key"
				case strings.HasPrefix(who, "mgk_"):
					name = "garbage-key"
				}
				out = append(out, hostileCase{name: id + "/" + name, route: id, method: rt.Method, path: path, who: who,
					status: http.StatusUnauthorized, code: "unauthorized"})
			}
			var weak string
			switch rt.Scope {
			case auth.ScopeWrite:
				weak = "read"
			case auth.ScopeAdmin:
				weak = "write"
			}
			if weak != "" {
				out = append(out, hostileCase{name: id + "/" + weak + "-key", route: id, method: rt.Method, path: path, who: weak,
					status: http.StatusForbidden, code: "forbidden"})
			}
		}
		who := string(rt.Scope)
		if rt.Scope == auth.ScopeNone {
			who = ""
		}
		if hostileParamRE.MatchString(rt.Pattern) {
			for _, p := range []struct{ name, value string }{
				{"traversal", "..%2F..%2F..%2F..%2Fetc%2Fpasswd"},
				{"dotdot", ".."},
				{"nul", "%00%FF%FE"},
				{"huge-id", strings.Repeat("a", 200_000)},
			} {
				out = append(out, hostileCase{name: id + "/" + p.name, route: id, method: rt.Method,
					path: fillParams(rt.Pattern, p.value), who: who})
			}
		}
		if !hasRoute(routes, http.MethodPut, rt.Pattern) {
			out = append(out, hostileCase{name: id + "/PUT", route: id, method: http.MethodPut, path: seededPath(rt.Pattern), who: who,
				body: lit("{}"), ctype: "application/json", status: http.StatusMethodNotAllowed, code: "method_not_allowed"})
		}
	}
	return out
}

func hasRoute(routes []Route, method, pattern string) bool {
	return slices.ContainsFunc(routes, func(rt Route) bool { return rt.Method == method && rt.Pattern == pattern })
}

// specificCases attack each route's own input.
func specificCases(t *testing.T) []hostileCase {
	const (
		postMol   = "POST /v1/molecules"
		listMol   = "GET /v1/molecules"
		getMol    = "GET /v1/molecules/{id}"
		structure = "GET /v1/molecules/{id}/structure"
		molTrip   = "GET /v1/molecules/{id}/triples"
		postBatch = "POST /v1/molecules/batch"
		getBatch  = "GET /v1/molecules/batch/{job_id}"
		delBatch  = "DELETE /v1/molecules/batch/{job_id}"
		items     = "GET /v1/molecules/batch/{job_id}/items"
		postKey   = "POST /v1/keys"
		delKey    = "DELETE /v1/keys/{id}"
		getKey    = "GET /v1/keys/{id}"
		parseQM   = "POST /v1/qm/parse"
		calcTrip  = "GET /v1/qm/calculations/{id}/triples"
		calcFeat  = "GET /v1/qm/calculations/{id}/features"
		features  = "GET /v1/qm/features"
		postRec   = "POST /v1/receptors"
		recStruct = "GET /v1/receptors/{id}/structure"
		recTrip   = "GET /v1/receptors/{id}/triples"
		postDock  = "POST /v1/docking/jobs"
		delDock   = "DELETE /v1/docking/jobs/{id}"
		results   = "GET /v1/docking/jobs/{id}/results"
		pose      = "GET /v1/docking/jobs/{id}/poses/{ligand}/{mode}.sdf"
		sparqlGet = "GET /v1/sparql"
		sparqlPst = "POST /v1/sparql"
		gqlPost   = "POST /v1/graphql"
		gqlGet    = "GET /v1/graphql"
		export    = "GET /v1/export"
		deref     = "GET /id/{kind}/{id}"
		static    = "GET /static/{name}"
	)
	js := "application/json"
	sq := "application/sparql-query"
	var cs []hostileCase
	add := func(c ...hostileCase) { cs = append(cs, c...) }
	molJSON := func(fields string) func() io.Reader { return lit(`{"format": "smiles", ` + fields + `}`) }

	// POST /v1/molecules: JSON strictness, sizes, garbage chemistry.
	add(
		hostileCase{name: "molecule/malformed-json", route: postMol, body: lit(`{"format": "smiles", "content": `), ctype: js, status: 400, code: "malformed_json"},
		hostileCase{name: "molecule/trailing-garbage", route: postMol, body: lit(`{"format": "smiles", "content": "C"} {"x": 1}`), ctype: js, status: 400},
		hostileCase{name: "molecule/unknown-field", route: postMol, body: molJSON(`"content": "CCO", "admin": true`), ctype: js, status: 400},
		hostileCase{name: "molecule/wrong-type", route: postMol, body: molJSON(`"content": 42`), ctype: js, status: 400},
		hostileCase{name: "molecule/generate_3d-string", route: postMol, body: molJSON(`"content": "CCO", "generate_3d": "yes"`), ctype: js, status: 400},
		hostileCase{name: "molecule/array-body", route: postMol, body: lit(`[{"format": "smiles", "content": "CCO"}]`), ctype: js, status: 400},
		hostileCase{name: "molecule/null-body", route: postMol, body: lit(`null`), ctype: js, status: 400},
		hostileCase{name: "molecule/empty-body", route: postMol, body: lit(``), ctype: js, status: 400},
		hostileCase{name: "molecule/missing-content", route: postMol, body: lit(`{"format": "smiles"}`), ctype: js, status: 400},
		hostileCase{name: "molecule/unknown-format", route: postMol, body: lit(`{"format": "exe", "content": "MZ"}`), ctype: js, status: 400},
		hostileCase{name: "molecule/deep-json-10000", route: postMol, body: lit(deepJSON("content", 10_000)), ctype: js, status: 400},
		hostileCase{name: "molecule/deep-json-500000", route: postMol, body: lit(deepJSON("content", 500_000)), ctype: js},
		hostileCase{name: "molecule/deep-json-object", route: postMol, body: lit(`{"name": ` + nested(`{"a":`, "1", "}", 100_000) + `}`), ctype: js},
		hostileCase{name: "molecule/json-2MiB", route: postMol, body: lit(`{"format": "smiles", "content": "` + strings.Repeat("C", 2<<20) + `"}`), ctype: js, status: 413},
		hostileCase{name: "molecule/body-100MiB-chunked", route: postMol, body: streamOf(`{"format": "smiles", "content": "`+strings.Repeat("C", 1000), 100<<20), ctype: js, status: 413, maxRSS: 128},
		hostileCase{name: "molecule/text-plain", route: postMol, body: lit(`CCO`), ctype: "text/plain", status: 415},
		hostileCase{name: "molecule/xml", route: postMol, body: lit(`<molecule/>`), ctype: "application/xml", status: 415},
		hostileCase{name: "molecule/json-ct-xml-body", route: postMol, body: lit(`<molecule format="smiles">CCO</molecule>`), ctype: js, status: 400},
		hostileCase{name: "molecule/smiles-garbage", route: postMol, body: molJSON(`"content": "C1CC(((=N#"`), ctype: js, status: 422, code: "invalid_molecule"},
		hostileCase{name: "molecule/smiles-900KB-line", route: postMol, body: molJSON(`"content": "` + strings.Repeat("C", 900_000) + `"`), ctype: js, status: 422, code: "invalid_molecule", within: 10 * time.Second},
		hostileCase{name: "molecule/smiles-1001-carbons", route: postMol, body: molJSON(`"content": "` + strings.Repeat("C", 1001) + `"`), ctype: js, status: 422, code: "invalid_molecule"},
		hostileCase{name: "molecule/smiles-deep-branches", route: postMol, body: molJSON(`"content": "` + nested("C(", "C", ")", 200_000) + `"`), ctype: js, status: 422, within: 10 * time.Second},
		hostileCase{name: "molecule/smiles-ring-closures", route: postMol, body: molJSON(`"content": "` + strings.Repeat("C%99", 100_000) + `"`), ctype: js, status: 422},
		hostileCase{name: "molecule/smiles-nul-bytes", route: postMol, body: molJSON(`"content": "CC\u0000O\u0000\u0000"`), ctype: js, status: 422},
		hostileCase{name: "molecule/smiles-invalid-utf8", route: postMol, body: litBytes([]byte("{\"format\": \"smiles\", \"content\": \"C\xff\xfeO\"}")), ctype: js, status: 422},
		hostileCase{name: "molecule/smiles-with-space", route: postMol, body: molJSON(`"content": "C O=O"`), ctype: js, status: 422},
		hostileCase{name: "molecule/smiles-empty", route: postMol, body: molJSON(`"content": ""`), ctype: js},
		hostileCase{name: "molecule/smiles-whitespace", route: postMol, body: molJSON(`"content": "   \n\t  "`), ctype: js},
		hostileCase{name: "molecule/smiles-isotope-overflow", route: postMol, body: molJSON(`"content": "[99999999999C]"`), ctype: js, status: 422},
		hostileCase{name: "molecule/smiles-charge-overflow", route: postMol, body: molJSON(`"content": "[C+99999999999]"`), ctype: js, status: 422},
		hostileCase{name: "molecule/inchi-garbage", route: postMol, body: lit(`{"format": "inchi", "content": "InChI=1S/` + strings.Repeat("C99/", 10_000) + `"}`), ctype: js, status: 422},
		hostileCase{name: "molecule/sdf-garbage", route: postMol, body: lit(`{"format": "sdf", "content": "not\na\nmolfile\n  999999999999 V2000\nM  END\n"}`), ctype: js, status: 422},
		hostileCase{name: "molecule/sdf-huge-counts", route: postMol, body: lit(`{"format": "sdf", "content": "\n  x\n\n999999999  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n"}`), ctype: js, status: 422},
		hostileCase{name: "molecule/sdf-v3000-huge-counts", route: postMol, body: lit(`{"format": "mol", "content": "\n  x\n\n  0  0  0     0  0            999 V3000\nM  V30 BEGIN CTAB\nM  V30 COUNTS 2000000000 2000000000 0 0 0\nM  V30 END CTAB\nM  END\n"}`), ctype: js, status: 422, maxRSS: 256},
		hostileCase{name: "molecule/pdbqt-garbage", route: postMol, body: lit(`{"format": "pdbqt", "content": "ROOT\nATOM  garbage\nENDROOT\nTORSDOF -5\n"}`), ctype: js, status: 422},
		hostileCase{name: "molecule/pdbqt-deep-branches", route: postMol, body: lit(`{"format": "pdbqt", "content": "` + nested(`BRANCH 1 2\\n`, `ATOM      1  C   LIG     1       0.000   0.000   0.000  0.00  0.00    +0.000 C \\n`, `ENDBRANCH 1 2\\n`, 20_000) + `"}`), ctype: js, status: 422},
		hostileCase{name: "molecule/name-1000-nuls", route: postMol, body: molJSON(`"content": "CCO", "name": "` + strings.Repeat(`\u0000`, 1000) + `"`), ctype: js, status: 400},
	)

	// GET /v1/molecules and its projections: query parameters.
	for _, q := range []string{"limit=-1", "limit=0", "limit=1e9", "limit=1001", "limit=99999999999999999999", "limit=abc", "limit=%00",
		"cursor=garbage", "cursor=" + strings.Repeat("A", 100_000), "cursor=%FF%FE", "limit=10&cursor=bW9sLXh4eA"} {
		add(hostileCase{name: "list/" + q[:min(len(q), 40)], route: listMol, path: "/v1/molecules?" + q, who: "read", status: 400})
	}
	add(
		hostileCase{name: "list/smiles-garbage", route: listMol, path: "/v1/molecules?smiles=C1CC(((", who: "read"},
		hostileCase{name: "molecule/get-unknown", route: getMol, path: "/v1/molecules/mol-" + strings.Repeat("0", 64), who: "read", status: 404},
		hostileCase{name: "structure/format-exe", route: structure, path: "/v1/molecules/{mol}/structure?format=exe", who: "read", status: 400},
		hostileCase{name: "structure/format-huge", route: structure, path: "/v1/molecules/{mol}/structure?format=" + strings.Repeat("x", 100_000), who: "read", status: 400},
		hostileCase{name: "structure/999-carbon-pdbqt", route: structure, path: "/v1/molecules/{chain}/structure?format=pdbqt", who: "read",
			within: 5 * time.Second, maxRSS: 256},
		hostileCase{name: "structure/999-carbon-xyz", route: structure, path: "/v1/molecules/{chain}/structure?format=xyz", who: "read",
			within: 5 * time.Second, maxRSS: 256},
		hostileCase{name: "image/width-huge", route: "GET /v1/molecules/{id}/image.svg", path: "/v1/molecules/{mol}/image.svg?width=100000000&height=100000000", who: "read", status: 400},
		hostileCase{name: "image/height-negative", route: "GET /v1/molecules/{id}/image.svg", path: "/v1/molecules/{mol}/image.svg?height=-300", who: "read", status: 400},
		hostileCase{name: "image/highlight-bad", route: "GET /v1/molecules/{id}/image.svg", path: "/v1/molecules/{mol}/image.svg?highlight=%5BC%28%28", who: "read", status: 400},
		hostileCase{name: "image/highlight-100KB", route: "GET /v1/molecules/{id}/image.svg", path: "/v1/molecules/{mol}/image.svg?highlight=" + strings.Repeat("C", 100_000), who: "read", status: 400},
		hostileCase{name: "image/999-carbon", route: "GET /v1/molecules/{id}/image.svg", path: "/v1/molecules/{chain}/image.svg", who: "read", status: 422, code: "too_large_for_2d", within: 2 * time.Second},
		hostileCase{name: "depict/smiles-10k", route: "GET /v1/depict", path: "/v1/depict?smiles=" + strings.Repeat("C", 10_000), who: "read", status: 400, within: 2 * time.Second},
		hostileCase{name: "depict/smiles-301-carbons", route: "GET /v1/depict", path: "/v1/depict?smiles=" + strings.Repeat("C", 301), who: "read", status: 422, code: "too_large_for_2d", within: 2 * time.Second},
		hostileCase{name: "depict/smiles-garbage", route: "GET /v1/depict", path: "/v1/depict?smiles=C1CC%28%28%28%3D%23", who: "read", status: 422, code: "invalid_molecule"},
		hostileCase{name: "depict/smiles-nul", route: "GET /v1/depict", path: "/v1/depict?smiles=CC%00O", who: "read", status: 422},
		hostileCase{name: "depict/size-huge", route: "GET /v1/depict", path: "/v1/depict?smiles=CCO&width=2001", who: "read", status: 400},
		hostileCase{name: "depict/highlight-recursion", route: "GET /v1/depict", path: "/v1/depict?smiles=CCO&highlight=" + url.QueryEscape(strings.Repeat("[$(", 100)+"C"+strings.Repeat(")]", 100)), who: "read", status: 400},
		hostileCase{name: "depict/highlight-exponential", route: "GET /v1/depict", who: "read", status: 400, within: 3 * time.Second,
			path: "/v1/depict?smiles=" + url.QueryEscape("C1CC2CC3CC4CC5CC6CC7CC8CC9CC%10CC%11CC%12CC%13CC%14CC%15CC(C1)C%15C%14C%13C%12C%11C%10C9C8C7C6C5C4C3C2") +
				"&highlight=" + url.QueryEscape("*"+strings.Repeat("~*", 40)+"~[#92]")},
		hostileCase{name: "molecule-triples/format-bogus", route: molTrip, path: "/v1/molecules/{mol}/triples?format=bogus", who: "read", status: 400},
		hostileCase{name: "molecule-triples/accept-bogus", route: molTrip, path: "/v1/molecules/{mol}/triples", who: "read", hdr: []string{"Accept", "image/png"}, status: 406},
	)

	// POST /v1/molecules/batch: encodings, bombs, sizes.
	mpBomb, mpCT := multipartOf("bomb.smi.gz", func() []byte { bombs(); return commentBomb })
	mpLong, mpLongCT := multipartOf("long.smi.gz", func() []byte { bombs(); return longLineBomb })
	mpNoFile, mpNoFileCT := multipartOf("", nil, "format", "smiles")
	mpEmpty, mpEmptyCT := multipartOf("empty.smi", func() []byte { return nil })
	mpExe, mpExeCT := multipartOf("x.exe", func() []byte { return []byte("MZ\x90\x00\x03") })
	many := func(n int) func() io.Reader {
		return func() io.Reader { return strings.NewReader(strings.Repeat("CCO\n", n)) }
	}
	add(
		hostileCase{name: "batch/gzip-comment-bomb-1GiB", route: postBatch, body: commentBombBody, ctype: "text/plain", hdr: []string{"Content-Encoding", "gzip"},
			status: 413, within: 20 * time.Second, maxRSS: 256},
		hostileCase{name: "batch/gzip-long-lines-320MiB", route: postBatch, body: longLineBombBody, ctype: "text/plain", hdr: []string{"Content-Encoding", "gzip"},
			within: 20 * time.Second, maxRSS: 256},
		hostileCase{name: "batch/multipart-gzip-bomb", route: postBatch, body: mpBomb, ctype: mpCT, status: 413, within: 20 * time.Second, maxRSS: 256},
		hostileCase{name: "batch/multipart-long-lines", route: postBatch, body: mpLong, ctype: mpLongCT, within: 20 * time.Second, maxRSS: 256},
		hostileCase{name: "batch/gzip-garbage", route: postBatch, body: lit("\x1f\x8b\x08\x00garbage-not-deflate"), ctype: "text/plain", hdr: []string{"Content-Encoding", "gzip"}, status: 400},
		hostileCase{name: "batch/gzip-truncated", route: postBatch, body: func() io.Reader {
			z := gzipOf([]byte(strings.Repeat("CCO\n", 1000)))
			return bytes.NewReader(z[:len(z)/2])
		}, ctype: "text/plain", hdr: []string{"Content-Encoding", "gzip"}, status: 400},
		hostileCase{name: "batch/content-encoding-br", route: postBatch, body: lit("CCO\n"), ctype: "text/plain", hdr: []string{"Content-Encoding", "br"}, status: 415},
		hostileCase{name: "batch/content-type-png", route: postBatch, body: lit("\x89PNG"), ctype: "image/png", status: 415},
		hostileCase{name: "batch/content-type-missing", route: postBatch, body: lit("CCO\n"), status: 415},
		hostileCase{name: "batch/content-type-garbage", route: postBatch, body: lit("CCO\n"), ctype: "text/plain; ;;charset", status: 415},
		hostileCase{name: "batch/empty-text", route: postBatch, body: lit(""), ctype: "text/plain", status: 400},
		hostileCase{name: "batch/only-comments", route: postBatch, body: lit("# nothing\n# here\n"), ctype: "text/plain", status: 400},
		hostileCase{name: "batch/json-empty-list", route: postBatch, body: lit(`{"molecules": []}`), ctype: js, status: 400},
		hostileCase{name: "batch/json-unknown-field", route: postBatch, body: lit(`{"molecules": [{"format": "smiles", "content": "C"}], "priority": 9}`), ctype: js, status: 400},
		hostileCase{name: "batch/json-malformed", route: postBatch, body: lit(`{"molecules": [`), ctype: js, status: 400},
		hostileCase{name: "batch/json-deep", route: postBatch, body: lit(deepJSON("molecules", 100_000)), ctype: js},
		hostileCase{name: "batch/100001-records", route: postBatch, body: many(100_001), ctype: "text/plain", status: 413, code: "batch_too_large"},
		hostileCase{name: "batch/body-70MiB-chunked", route: postBatch, body: streamOf("CCO\n", 70<<20), ctype: "text/plain", status: 413, maxRSS: 256},
		hostileCase{name: "batch/multipart-no-file", route: postBatch, body: mpNoFile, ctype: mpNoFileCT, status: 400},
		hostileCase{name: "batch/multipart-empty-file", route: postBatch, body: mpEmpty, ctype: mpEmptyCT, status: 400},
		hostileCase{name: "batch/multipart-exe", route: postBatch, body: mpExe, ctype: mpExeCT},
		hostileCase{name: "batch/multipart-bad-boundary", route: postBatch, body: lit("--nope\r\n\r\n"), ctype: "multipart/form-data; boundary=zzz", status: 400},
		hostileCase{name: "batch/multipart-no-boundary", route: postBatch, body: lit("x"), ctype: "multipart/form-data", status: 400},
		hostileCase{name: "batch/generate_3d-maybe", route: postBatch, path: "/v1/molecules/batch?generate_3d=maybe", body: lit("CCO\n"), ctype: "text/plain", status: 400},
		hostileCase{name: "batch/format-exe", route: postBatch, path: "/v1/molecules/batch?format=exe", body: lit("CCO\n"), ctype: "text/plain", status: 400},
		hostileCase{name: "batch/get-unknown", route: getBatch, path: "/v1/molecules/batch/batch-" + strings.Repeat("9", 40), who: "read", status: 404},
		hostileCase{name: "batch/cancel-finished", route: delBatch, path: "/v1/molecules/batch/{batch}", who: "write", status: 409},
		hostileCase{name: "batch/items-limit-negative", route: items, path: "/v1/molecules/batch/{batch}/items?limit=-1", who: "read", status: 400},
		hostileCase{name: "batch/items-limit-1e9", route: items, path: "/v1/molecules/batch/{batch}/items?limit=1e9", who: "read", status: 400},
		hostileCase{name: "batch/items-cursor-garbage", route: items, path: "/v1/molecules/batch/{batch}/items?cursor=not-a-cursor!", who: "read", status: 400},
		hostileCase{name: "batch/items-cursor-negative", route: items, path: "/v1/molecules/batch/{batch}/items?cursor=LTE", who: "read", status: 400},
	)
	for i := range cs {
		if cs[i].route == postBatch || cs[i].route == postMol {
			cs[i].who = "write"
		}
	}

	// Keys (admin).
	add(
		hostileCase{name: "keys/malformed", route: postKey, who: "admin", body: lit(`{"name": "x", "scopes": ["read"`), ctype: js, status: 400, code: "malformed_json"},
		hostileCase{name: "keys/unknown-field", route: postKey, who: "admin", body: lit(`{"name": "x", "scopes": ["read"], "hash": "00"}`), ctype: js, status: 400},
		hostileCase{name: "keys/scope-root", route: postKey, who: "admin", body: lit(`{"name": "x", "scopes": ["root"]}`), ctype: js, status: 400},
		hostileCase{name: "keys/no-scopes", route: postKey, who: "admin", body: lit(`{"name": "x", "scopes": []}`), ctype: js, status: 400},
		hostileCase{name: "keys/expires-negative", route: postKey, who: "admin", body: lit(`{"name": "x", "scopes": ["read"], "expires_in": "-1h"}`), ctype: js, status: 400},
		hostileCase{name: "keys/deep-json", route: postKey, who: "admin", body: lit(deepJSON("scopes", 200_000)), ctype: js},
		hostileCase{name: "keys/name-2MiB", route: postKey, who: "admin", body: lit(`{"name": "` + strings.Repeat("n", 2<<20) + `", "scopes": ["read"]}`), ctype: js, status: 413},
		hostileCase{name: "keys/text-plain", route: postKey, who: "admin", body: lit(`name=x`), ctype: "text/plain", status: 415},
		hostileCase{name: "keys/get-unknown", route: getKey, path: "/v1/keys/key-" + strings.Repeat("f", 32), who: "admin", status: 404},
		hostileCase{name: "keys/revoke-unknown", route: delKey, path: "/v1/keys/key-" + strings.Repeat("f", 32), who: "admin", status: 404},
	)

	// QM logs.
	qmGarbage, qmGarbageCT := multipartOf("garbage.log", func() []byte { return []byte(strings.Repeat("the quick brown fox\n", 1000)) })
	qmBinary, qmBinaryCT := multipartOf("binary.out", func() []byte { return bytes.Repeat([]byte{0, 1, 2, 0xff, 0xfe}, 10_000) })
	qmEmpty, qmEmptyCT := multipartOf("empty.out", func() []byte { return nil })
	qmProg, qmProgCT := multipartOf("dvb_sp.out", func() []byte { return qmtest.Read(t, "gaussian/basicGaussian16/dvb_sp.out") }, "program", "molpro")
	qmVal, qmValCT := multipartOf("dvb_sp.out", func() []byte { return qmtest.Read(t, "gaussian/basicGaussian16/dvb_sp.out") }, "validate_ontology", "maybe")
	qmBig, qmBigCT := multipartOf("big.log", func() []byte {
		return bytes.Repeat([]byte(" SCF Done:  E(RB3LYP) =  -382.308 garbage garbage\n"), 1_200_000)
	})
	qmLine, qmLineCT := multipartOf("oneline.log", func() []byte { return bytes.Repeat([]byte("Entering Gaussian System "), 2_400_000) })
	qmAtoms, qmAtomsCT := multipartOf("huge_orientation.out", func() []byte { return gaussianHuge(t, 800_000) })
	add(
		hostileCase{name: "qm/garbage", route: parseQM, body: qmGarbage, ctype: qmGarbageCT, status: 422, code: "unsupported_log"},
		hostileCase{name: "qm/binary", route: parseQM, body: qmBinary, ctype: qmBinaryCT, status: 422, code: "unsupported_log"},
		hostileCase{name: "qm/empty", route: parseQM, body: qmEmpty, ctype: qmEmptyCT},
		hostileCase{name: "qm/program-unknown", route: parseQM, body: qmProg, ctype: qmProgCT, status: 400},
		hostileCase{name: "qm/validate-maybe", route: parseQM, body: qmVal, ctype: qmValCT, status: 400},
		hostileCase{name: "qm/not-multipart", route: parseQM, body: lit("Entering Gaussian System"), ctype: "text/plain", status: 415},
		hostileCase{name: "qm/multipart-no-boundary", route: parseQM, body: lit("x"), ctype: "multipart/form-data", status: 400},
		hostileCase{name: "qm/60MB-garbage-lines", route: parseQM, body: qmBig, ctype: qmBigCT, within: 30 * time.Second, maxRSS: 400},
		hostileCase{name: "qm/60MB-one-line", route: parseQM, body: qmLine, ctype: qmLineCT, within: 30 * time.Second, maxRSS: 400},
		hostileCase{name: "qm/800k-atom-orientation", route: parseQM, body: qmAtoms, ctype: qmAtomsCT, within: 30 * time.Second, maxRSS: 400, pending: fixQMBounds},
		hostileCase{name: "qm/body-100MiB-chunked", route: parseQM, body: multipartStream("huge.log", "Entering Gaussian System\n", 100<<20), ctype: "multipart/form-data; boundary=" + streamBoundary, status: 413, maxRSS: 256},
		hostileCase{name: "qm/triples-format-bogus", route: calcTrip, path: "/v1/qm/calculations/{calc}/triples?format=bogus", who: "read", status: 400},
		hostileCase{name: "qm/all-features-format-bogus", route: features, path: "/v1/qm/features?format=bogus", who: "read", status: 400},
		hostileCase{name: "qm/all-features-format-huge", route: features, path: "/v1/qm/features?format=" + strings.Repeat("c", 100_000), who: "read", status: 400},
	)

	// Receptors.
	recGarbage, recGarbageCT := multipartOf("junk.pdb", func() []byte { return []byte(strings.Repeat("HELLO WORLD\n", 100)) })
	recEmpty, recEmptyCT := multipartOf("empty.pdbqt", func() []byte { return nil })
	recPH, recPHCT := multipartOf("rec.pdb", func() []byte { return dockingCorpus(t, "vina-examples/1iep/1iep_receptorH.pdb") }, "ph", "99")
	recPHs, recPHsCT := multipartOf("rec.pdb", func() []byte { return dockingCorpus(t, "vina-examples/1iep/1iep_receptorH.pdb") }, "ph", "NaN")
	recHet, recHetCT := multipartOf("rec.pdb", func() []byte { return dockingCorpus(t, "vina-examples/1iep/1iep_receptorH.pdb") }, "keep_hetero", "maybe")
	recLine, recLineCT := multipartOf("line.pdbqt", func() []byte { return append([]byte("ATOM  "), bytes.Repeat([]byte("9"), 50<<20)...) })
	recCoords, recCoordsCT := multipartOf("nan.pdbqt", func() []byte {
		return []byte(strings.Repeat("ATOM      1  N   ALA A   1         NaN     Inf -99999999.0  1.00  0.00     0.000 N \n", 3))
	})
	add(
		hostileCase{name: "receptor/garbage", route: postRec, body: recGarbage, ctype: recGarbageCT, status: 422},
		hostileCase{name: "receptor/empty", route: postRec, body: recEmpty, ctype: recEmptyCT},
		hostileCase{name: "receptor/ph-99", route: postRec, body: recPH, ctype: recPHCT, check: problemNaming(400, "ph")},
		hostileCase{name: "receptor/ph-NaN", route: postRec, body: recPHs, ctype: recPHsCT, check: problemNaming(400, "ph")},
		hostileCase{name: "receptor/keep_hetero-maybe", route: postRec, body: recHet, ctype: recHetCT, status: 400},
		hostileCase{name: "receptor/50MiB-line", route: postRec, body: recLine, ctype: recLineCT, within: 20 * time.Second, maxRSS: 400},
		hostileCase{name: "receptor/nan-coordinates", route: postRec, body: recCoords, ctype: recCoordsCT},
		hostileCase{name: "receptor/json", route: postRec, body: lit(`{"file": "x"}`), ctype: js, status: 415},
		hostileCase{name: "receptor/structure-format-bogus", route: recStruct, path: "/v1/receptors/{rec}/structure?format=bogus", who: "read", status: 400},
		hostileCase{name: "receptor/triples-format-bogus", route: recTrip, path: "/v1/receptors/{rec}/triples?format=bogus", who: "read", status: 400},
	)
	for i := range cs {
		if cs[i].route == postRec || cs[i].route == parseQM {
			cs[i].who = "write"
		}
	}

	// Docking jobs.
	dock := func(fields string) func() io.Reader {
		return func() io.Reader { return strings.NewReader(`{"receptor": "REC", "ligands": ["MOL"]` + fields + `}`) }
	}
	dockCases := []hostileCase{
		{name: "docking/malformed", body: lit(`{"receptor": `), status: 400},
		{name: "docking/unknown-field", body: dock(`, "cpu": 64`), status: 400},
		{name: "docking/exhaustiveness-0", body: dock(`, "exhaustiveness": 0`), status: 400},
		{name: "docking/exhaustiveness-1e9", body: dock(`, "exhaustiveness": 1000000000`), status: 400},
		{name: "docking/exhaustiveness-float", body: dock(`, "exhaustiveness": 8.5`), status: 400},
		{name: "docking/num_modes-21", body: dock(`, "num_modes": 21`), status: 400},
		{name: "docking/energy_range-0", body: dock(`, "energy_range": 0`), status: 400},
		{name: "docking/energy_range-1e308", body: dock(`, "energy_range": 1e308`), status: 400},
		{name: "docking/box-huge", body: dock(`, "pocket": "box", "box": {"center": [0, 0, 0], "size": [1e9, 1e9, 1e9]}`), status: 400},
		{name: "docking/box-negative", body: dock(`, "pocket": "box", "box": {"center": [0, 0, 0], "size": [-1, 10, 10]}`), status: 400},
		{name: "docking/box-missing", body: dock(`, "pocket": "box"`), status: 400},
		{name: "docking/pocket-unknown", body: dock(`, "pocket": "p999"`), status: 422},
		{name: "docking/scoring-unknown", body: dock(`, "scoring": "ad4-custom"`), status: 400},
		{name: "docking/ligand_ph-1e308", body: dock(`, "ligand_ph": 1e308`), status: 400},
		{name: "docking/ligand_ph-object", body: dock(`, "ligand_ph": {"value": 7}`), status: 400},
		{name: "docking/no-ligands", body: lit(`{"receptor": "REC", "ligands": []}`), status: 400},
		{name: "docking/10001-ligands", body: func() io.Reader {
			ids := make([]string, 10_001)
			for i := range ids {
				ids[i] = fmt.Sprintf("mol-%064d", i)
			}
			b, _ := json.Marshal(map[string]any{"receptor": "REC", "ligands": ids})
			return bytes.NewReader(b)
		}},
		{name: "docking/unknown-receptor", body: lit(`{"receptor": "rec-nope", "ligands": ["MOL"]}`), status: 422},
		{name: "docking/unknown-ligand", body: lit(`{"receptor": "REC", "ligands": ["mol-nope"]}`), status: 422},
		{name: "docking/traversal-receptor", body: lit(`{"receptor": "../../../../etc/passwd", "ligands": ["MOL"]}`)},
		{name: "docking/deep-json", body: lit(deepJSON("ligands", 100_000))},
	}
	for _, c := range dockCases {
		c.route, c.who, c.ctype = postDock, "write", js
		add(c)
	}
	add(
		hostileCase{name: "docking/cancel-cancelled", route: delDock, path: "/v1/docking/jobs/{dock}", who: "write", status: 409},
		hostileCase{name: "docking/results-limit-negative", route: results, path: "/v1/docking/jobs/{dock}/results?limit=-1", who: "read", status: 400},
		hostileCase{name: "docking/results-cursor-garbage", route: results, path: "/v1/docking/jobs/{dock}/results?cursor=garbage!", who: "read", status: 400},
		hostileCase{name: "docking/pose-mode-negative", route: pose, path: "/v1/docking/jobs/{dock}/poses/{mol}/-1.sdf", who: "read"},
		hostileCase{name: "docking/pose-mode-overflow", route: pose, path: "/v1/docking/jobs/{dock}/poses/{mol}/99999999999999999999999.sdf", who: "read"},
		hostileCase{name: "docking/pose-ligand-traversal", route: pose, path: "/v1/docking/jobs/{dock}/poses/..%2F..%2Fblobs/1.sdf", who: "read"},
	)

	// SPARQL.
	sparql := func(name, query string, c hostileCase) hostileCase {
		c.name, c.route, c.who, c.ctype, c.body = "sparql/"+name, sparqlPst, "read", sq, lit(query)
		return c
	}
	add(
		hostileCase{name: "sparql/get-garbage", route: sparqlGet, path: "/v1/sparql?query=SELEKT+garbage", who: "read", status: 400, code: "malformed_query"},
		hostileCase{name: "sparql/get-two-queries", route: sparqlGet, path: "/v1/sparql?query=ASK{}&query=ASK{}", who: "read", status: 400},
		hostileCase{name: "sparql/post-form-wrong-ct", route: sparqlPst, who: "read", body: lit("query=ASK{}"), ctype: "text/xml", status: 415},
		hostileCase{name: "sparql/post-update-form", route: sparqlPst, who: "read", body: lit("update=DROP+ALL"), ctype: "application/x-www-form-urlencoded", status: 400},
		sparql("update-insert", "INSERT DATA { <a:b> <a:c> <a:d> }", hostileCase{status: 400}),
		sparql("drop-all", "DROP ALL", hostileCase{status: 400}),
		sparql("load-ssrf", "LOAD <http://169.254.169.254/latest/meta-data/>", hostileCase{status: 400}),
		sparql("service-ssrf", "SELECT * WHERE { SERVICE <http://169.254.169.254/> { ?s ?p ?o } }", hostileCase{status: 400}),
		sparql("unterminated-string", `SELECT * WHERE { ?s ?p "`+strings.Repeat("a", 100_000), hostileCase{status: 400}),
		sparql("parens-2000000", "SELECT * WHERE { FILTER("+nested("(", "1", ")", 2_000_000)+") }", hostileCase{status: 0, within: 10 * time.Second, maxRSS: 256}),
		sparql("parens-200000", "SELECT * WHERE { FILTER("+nested("(", "1", ")", 200_000)+") }", hostileCase{status: 400, within: 10 * time.Second, maxRSS: 256}),
		sparql("groups-1000000", "SELECT * WHERE "+nested("{ ", "?s ?p ?o", " }", 1_000_000), hostileCase{within: 10 * time.Second, maxRSS: 256}),
		sparql("groups-100000", "SELECT * WHERE "+nested("{ ", "?s ?p ?o", " }", 100_000), hostileCase{status: 400, within: 10 * time.Second, maxRSS: 256}),
		sparql("optional-40000", "SELECT * WHERE { ?s ?p ?o "+nested("OPTIONAL { ?s ?p ?o ", "", "}", 40_000)+" }", hostileCase{status: 400, within: 10 * time.Second, maxRSS: 256}),
		sparql("path-30000", "SELECT * WHERE { ?s "+nested("(", "<http://example.org/p>", ")/<http://example.org/p>", 30_000)+" ?o }", hostileCase{status: 400, within: 10 * time.Second, maxRSS: 256}),
		sparql("function-calls-100000", "SELECT * WHERE { BIND("+nested("STR(", "1", ")", 100_000)+" AS ?x) }", hostileCase{status: 400, within: 10 * time.Second, maxRSS: 256}),
		sparql("collection-100000", "SELECT * WHERE { ?s <http://example.org/p> "+nested("(", "1", ")", 100_000)+" }", hostileCase{status: 400, within: 10 * time.Second, maxRSS: 256}),
		sparql("text-4MiB-comment", "#"+strings.Repeat("x", 4<<20)+"\nASK {}", hostileCase{status: 413}),
		sparql("literal-4MiB", `SELECT * WHERE { BIND("`+strings.Repeat("a", 4<<20)+`" AS ?x) }`, hostileCase{status: 413, maxRSS: 256}),
		sparql("concat-doubling-32", concatDoubling(32), hostileCase{allow2xx: true, within: 10 * time.Second, maxRSS: 512}),
		sparql("concat-doubling-24", concatDoubling(24), hostileCase{allow2xx: true, within: 10 * time.Second, maxRSS: 256}),
		sparql("group-concat-cross", "SELECT (GROUP_CONCAT(CONCAT(STR(?a), STR(?b), STR(?c))) AS ?g) WHERE { ?a ?p ?o . ?b ?q ?r . ?c ?x ?y }",
			hostileCase{allow2xx: true, within: 45 * time.Second, maxRSS: 512}),
		sparql("order-by-cross", "SELECT * WHERE { ?a ?p ?o . ?b ?q ?r . ?c ?x ?y } ORDER BY ?o ?r ?y",
			hostileCase{within: 45 * time.Second, maxRSS: 512}),
		sparql("distinct-cross", "SELECT DISTINCT ?o ?r ?y WHERE { ?a ?p ?o . ?b ?q ?r . ?c ?x ?y }",
			hostileCase{within: 45 * time.Second, maxRSS: 512}),
		sparql("order-by-10000-keys", "SELECT * WHERE { ?s ?p ?o } ORDER BY "+strings.Repeat("STR(?o) ", 10_000),
			hostileCase{allow2xx: true, within: 45 * time.Second, maxRSS: 512}),
		sparql("construct-cross", "CONSTRUCT { ?a ?p ?y } WHERE { ?a ?p ?o . ?b ?q ?r . ?c ?x ?y }",
			hostileCase{within: 45 * time.Second, maxRSS: 512}),
	)

	// GraphQL: well-formed requests are 200 with errors by the protocol;
	// the hostile ones ask for application/graphql-response+json so that
	// a refusal is a 400.
	gqlAccept := []string{"Accept", mediaGraphQLResponse}
	gql := func(name, query string, c hostileCase) hostileCase {
		c.name, c.route, c.who, c.ctype, c.body, c.hdr, c.gql = "graphql/"+name, gqlPost, "read", js, graphQLBody(query), gqlAccept, true
		return c
	}
	add(
		hostileCase{name: "graphql/malformed-json", route: gqlPost, who: "read", body: lit(`{"query": `), ctype: js, status: 400, code: "malformed_json"},
		hostileCase{name: "graphql/unknown-json-field", route: gqlPost, who: "read", body: lit(`{"query": "{__typename}", "extensions2": {}}`), ctype: js, status: 400},
		hostileCase{name: "graphql/variables-not-object", route: gqlPost, who: "read", body: lit(`{"query": "{__typename}", "variables": [1,2]}`), ctype: js, status: 400},
		hostileCase{name: "graphql/empty-query", route: gqlPost, who: "read", body: lit(`{"query": "   "}`), ctype: js, status: 400},
		hostileCase{name: "graphql/json-deep", route: gqlPost, who: "read", body: lit(`{"query": "{__typename}", "variables": {"v": ` + nested("[", "1", "]", 100_000) + `}}`), ctype: js, status: 400},
		hostileCase{name: "graphql/query-2MiB", route: gqlPost, who: "read", body: graphQLBody("{ __typename " + strings.Repeat(" ", 2<<20) + "}"), ctype: js, status: 413},
		hostileCase{name: "graphql/raw-2MiB", route: gqlPost, who: "read", body: lit("{ __typename " + strings.Repeat("#\n", 1<<20) + "}"), ctype: mediaGraphQL, status: 413},
		hostileCase{name: "graphql/get-variables-garbage", route: gqlGet, path: "/v1/graphql?query=%7B__typename%7D&variables=%7Bnot-json", who: "read", status: 400},
		hostileCase{name: "graphql/get-deep-selection", route: gqlGet, path: "/v1/graphql?query=" + strings.Repeat("%7Ba", 5000) + strings.Repeat("%7D", 5000), who: "read", hdr: gqlAccept, gql: true, within: 10 * time.Second},
		gql("syntax-error", "{ molecules( { id }", hostileCase{}),
		gql("unknown-field", "{ passwords { hash } }", hostileCase{}),
		gql("deep-selection-10000", nested("{ a ", "", "}", 10_000), hostileCase{within: 10 * time.Second}),
		gql("repeated-field-20000", graphQLRepeated(20_000), hostileCase{within: 5 * time.Second}),
		gql("repeated-field-100000", graphQLRepeated(100_000), hostileCase{within: 5 * time.Second}),
		gql("introspection-600", graphQLIntrospection(600), hostileCase{within: 5 * time.Second, maxRSS: 256}),
		gql("fragment-cycle", "{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }", hostileCase{within: 5 * time.Second}),
		gql("fragment-bomb", graphQLFragmentBomb(12, 8), hostileCase{within: 5 * time.Second, maxRSS: 256}),
		gql("aliases-50000", "{ "+strings.Repeat("x: __typename ", 50_000)+"}", hostileCase{within: 5 * time.Second}),
		gql("directives-50000", "{ __typename "+strings.Repeat("@skip(if: false) ", 50_000)+"}", hostileCase{within: 5 * time.Second}),
		gql("first-huge", "{ molecules(first: 99999999999) { id } }", hostileCase{}),
		gql("first-negative", "{ molecules(first: -1) { id } }", hostileCase{}),
		gql("mutation", "mutation { deleteEverything }", hostileCase{}),
		gql("subscription", "subscription { molecules { id } }", hostileCase{}),
	)

	// The rest: export, /id, static assets, unknown paths.
	add(
		hostileCase{name: "export/format-bogus", route: export, path: "/v1/export?format=bogus", who: "admin", status: 400},
		hostileCase{name: "export/format-huge", route: export, path: "/v1/export?format=" + strings.Repeat("n", 100_000), who: "admin", status: 400},
		hostileCase{name: "id/kind-unknown", route: deref, path: "/id/passwd/x", who: "read", status: 404},
		hostileCase{name: "id/traversal", route: deref, path: "/id/molecule/..%2F..%2F..%2Fetc%2Fpasswd", who: "read", hdr: []string{"Accept", "text/turtle"}, status: 404},
		hostileCase{name: "static/traversal", route: static, path: "/static/..%2Fserver.go", status: 404},
		hostileCase{name: "static/dot-env", route: static, path: "/static/.env", status: 404},
		hostileCase{name: "unknown/v1-dotdot", path: "/v1/molecules/../../../etc/passwd", who: "read", status: 404},
		hostileCase{name: "unknown/v1-no-key", path: "/v1/admin", status: 401},
		hostileCase{name: "unknown/long-path", path: "/v1/" + strings.Repeat("a/", 200_000), who: "read", status: 404},
		hostileCase{name: "unknown/double-slash", path: "//v1//keys", who: "read", status: 404},
	)
	add(
		hostileCase{name: "cors/preflight-sparql", route: sparqlPst, method: http.MethodOptions, path: "/v1/sparql",
			hdr:   []string{"Origin", "https://example.com", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type"},
			check: checkPreflight},
		hostileCase{name: "cors/preflight-graphql", route: gqlPost, method: http.MethodOptions, path: "/v1/graphql",
			hdr:   []string{"Origin", "https://example.com", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type"},
			check: checkPreflight},
	)

	add(secondRoundCases(t)...)

	// Fill the defaults: method and path from the route.
	for i := range cs {
		c := &cs[i]
		if c.route != "" {
			method, pattern, _ := strings.Cut(c.route, " ")
			if c.method == "" {
				c.method = method
			}
			if c.path == "" {
				c.path = seededPath(pattern)
			}
		}
		if c.method == "" {
			c.method = http.MethodGet
		}
	}
	return cs
}

// checkPreflight: a CORS preflight from a browser is answered without a
// key, allowing the method and the Authorization header.
func checkPreflight(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		t.Errorf("preflight: %d %s", resp.StatusCode, body)
	}
	h := resp.Header
	if h.Get("Access-Control-Allow-Origin") == "" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Errorf("preflight headers: %v", h)
	}
}

// hostileRSSGuard stops the test binary when a case makes the process
// this large.
const hostileRSSGuard = 3 << 30

// TestHostileRequests runs every case against one server.
func TestHostileRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile suite takes minutes")
	}
	e := newHostileEnv(t, nil)
	routes := e.srv.Routes()
	cases := append(genericCases(routes), specificCases(t)...)
	// The seeded docking request bodies name the seeded receptor and
	// ligand.
	for i := range cases {
		if (cases[i].route == "POST /v1/docking/jobs" || cases[i].route == "POST /v1/docking/rescore") && cases[i].body != nil {
			body := cases[i].body
			cases[i].body = func() io.Reader {
				b, _ := io.ReadAll(body())
				b = bytes.ReplaceAll(b, []byte(`"REC"`), []byte(`"`+e.ids["rec"]+`"`))
				return bytes.NewReader(bytes.ReplaceAll(b, []byte(`"MOL"`), []byte(`"`+e.ids["mol"]+`"`)))
			}
		}
	}
	if len(cases) < 150 {
		t.Fatalf("%d cases; the suite promises at least 150", len(cases))
	}
	// Every route of the table is attacked.
	covered := map[string]int{}
	names := map[string]bool{}
	for _, c := range cases {
		covered[c.route]++
		if names[c.name] {
			t.Fatalf("two cases named %q", c.name)
		}
		names[c.name] = true
	}
	for _, rt := range routes {
		if covered[rt.Method+" "+rt.Pattern] == 0 {
			t.Errorf("no hostile case for %s %s", rt.Method, rt.Pattern)
		}
	}
	// A case that runs away with memory would take the machine with it
	// (the OOM killer picks whatever is largest); stop the binary first,
	// naming the case.
	guard := int64(hostileRSSGuard)
	if raceBuild {
		guard *= 3
	}
	var current atomic.Value
	current.Store("(setup)")
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if rss := procStatus("VmRSS"); rss > guard {
					fmt.Fprintf(os.Stderr, "FATAL: hostile case %s: RSS %d MiB, past the guard of %d MiB\n", current.Load(), rss>>20, guard>>20)
					os.Exit(3)
				}
			}
		}
	}()
	pending := 0
	for _, c := range cases {
		if c.pending != "" {
			pending++
		}
		current.Store(c.name)
		t.Run(c.name, func(t *testing.T) { e.run(t, c) })
	}
	t.Logf("%d cases over %d routes, %d pending", len(cases), len(routes), pending)
	e.checkAlive(t)
}

// TestHostileBatchBurst: one key submits 100 batch uploads (40 NCI
// molecules each) from 8 connections as fast as it can. Past the key's cap
// on unfinished jobs the answer is 429 with Retry-After and the RateLimit
// fields, a full upload class is 503 with Retry-After, and nothing else; a
// refused upload stores no job, and every accepted job finishes.
func TestHostileBatchBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("the burst runs 100 uploads")
	}
	e := newHostileEnv(t, nil)
	lines := hostileNCI(t, 4000)
	jobsBefore := e.countClass(t, batch.Class)
	type answer struct {
		status int
		hdr    http.Header
		body   []byte
	}
	answers := make(chan answer, 100)
	next := make(chan int, 100)
	for i := 0; i < 100; i++ {
		next <- i
	}
	close(next)
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body := strings.Join(lines[i*40:(i+1)*40], "\n") + "\n"
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				resp, data, err := e.send(ctx, "POST", "/v1/molecules/batch", "write", strings.NewReader(body), "Content-Type", "text/plain")
				cancel()
				if err != nil {
					t.Errorf("upload %d: %v", i, err)
					continue
				}
				answers <- answer{resp.StatusCode, resp.Header, data}
			}
		}()
	}
	wg.Wait()
	close(answers)
	took := time.Since(start)
	counts := map[int]int{}
	var accepted []string
	for a := range answers {
		counts[a.status]++
		switch a.status {
		case http.StatusAccepted:
			var v struct {
				JobID string `json:"job_id"`
			}
			json.Unmarshal(a.body, &v)
			accepted = append(accepted, v.JobID)
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			if a.hdr.Get("Retry-After") == "" || a.hdr.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%d without Retry-After or problem: %v %s", a.status, a.hdr, a.body)
			}
			if a.status == http.StatusTooManyRequests && a.hdr.Get("RateLimit-Policy") == "" {
				t.Errorf("429 without RateLimit-Policy: %v %s", a.hdr, a.body)
			}
		default:
			t.Errorf("status %d: %s", a.status, a.body)
		}
	}
	t.Logf("100 uploads in %s: %v", took.Round(time.Millisecond), counts)
	if counts[http.StatusTooManyRequests] == 0 {
		t.Errorf("no 429 in a burst of 100 uploads from one key: %v", counts)
	}
	if counts[http.StatusAccepted] == 0 {
		t.Errorf("no upload accepted: %v", counts)
	}
	for _, id := range accepted {
		e.waitJob(t, "/v1/molecules/batch/"+id)
	}
	if n := e.countClass(t, batch.Class) - jobsBefore; n != len(accepted) {
		t.Errorf("%d batch jobs stored for %d accepted uploads", n, len(accepted))
	}
	e.checkAlive(t)
}

// countClass counts the resources of an RDF class.
func (e *hostileEnv) countClass(t *testing.T, class quad.IRI) int {
	t.Helper()
	n := 0
	err := e.store.Match(t.Context(), graph.Pattern{Predicate: quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), Object: class},
		func(quad.Quad) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// hostileNCI reads the first n SMILES of RDKit's NCI sample (Debian
// rdkit-data), skipping the test without it.
func hostileNCI(t *testing.T, n int) []string {
	t.Helper()
	data, err := os.ReadFile("/usr/share/RDKit/Data/NCI/first_5K.smi")
	if err != nil {
		t.Skipf("RDKit's NCI sample: %v (apt rdkit-data)", err)
	}
	var out []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	if len(out) < n {
		t.Skipf("the NCI sample has %d lines, want %d", len(out), n)
	}
	return out[:n]
}

// TestHostileClientDisconnect: a client that gives up on a long SPARQL
// query (a streamed cross product, which holds no memory and so runs into
// the timeout) is not a server error: no 5xx in the metrics, the process serves
// on, and the query's work stops (the next query is not kept waiting).
func TestHostileClientDisconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cross-product query")
	}
	e := newHostileEnv(t, nil)
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		resp, data, err := e.send(ctx, "POST", "/v1/sparql", "read",
			strings.NewReader("SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?o . ?b ?q ?r . ?c ?x ?y FILTER(STRLEN(CONCAT(STR(?o), STR(?r), STR(?y))) < 0) }"), "Content-Type", "application/sparql-query")
		cancel()
		if err == nil {
			t.Fatalf("the cross-product query answered within 300 ms (%d %s); the test needs a slow one", resp.StatusCode, data)
		}
	}
	// The handler notices the disconnect when its context is cancelled;
	// give it a moment, then read the counters.
	deadline := time.Now().Add(20 * time.Second)
	var fives []string
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		resp, data, err := e.send(ctx, "GET", "/metrics", "read", nil)
		cancel()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("/metrics: %v %v", resp, err)
		}
		fives = fives[:0]
		sparqlSeen := false
		for line := range strings.SplitSeq(string(data), "\n") {
			if !strings.HasPrefix(line, "molgraph_http_requests_total{") || !strings.Contains(line, "/v1/sparql") {
				continue
			}
			sparqlSeen = true
			if strings.Contains(line, `code="5`) || strings.Contains(line, `status="5`) {
				fives = append(fives, line)
			}
		}
		if sparqlSeen || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(fives) > 0 {
		t.Errorf("client disconnects counted as server errors:\n%s", strings.Join(fives, "\n"))
	}
	// The abandoned queries free their capacity: a small one answers
	// promptly.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resp, _, err := e.send(ctx, "GET", "/v1/sparql?query=ASK%7B%7D", "read", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a small query after the disconnects: %v %v", resp, err)
	}
	e.checkAlive(t)
}
