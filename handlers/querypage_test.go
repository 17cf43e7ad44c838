package handlers

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// pageMolecules are the molecules of the page tests: reference identities
// (PubChem) and RDKit average molecular weights. The aspirin name is
// hostile on purpose: the page must show it as text.
var pageMolecules = []ontology.MoleculeRecord{
	{SMILES: "CC(=O)Oc1ccccc1C(=O)O", InChI: "InChI=1S/C9H8O4/c1-6(10)13-8-5-3-2-4-7(8)9(11)12/h2-5H,1H3,(H,11,12)",
		InChIKey: "BSYNRYMUTXBXSQ-UHFFFAOYSA-N", Formula: "C9H8O4", MW: 180.159,
		Name: `aspirin <img src=x onerror="document.title='pwned'">`},
	{SMILES: "CCO", InChI: "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3", InChIKey: "LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
		Formula: "C2H6O", MW: 46.069, Name: "ethanol"},
	{SMILES: "Cn1c(=O)c2c(ncn2C)n(C)c1=O", InChI: "InChI=1S/C8H10N4O2/c1-10-4-9-6-5(10)7(13)12(3)8(14)11(6)2/h4H,1-3H3",
		InChIKey: "RYYVLZVUVIJVGH-UHFFFAOYSA-N", Formula: "C8H10N4O2", MW: 194.194}, // no name
}

const (
	pageBase = "http://example.org/"
	pageNote = pageBase + "id/note/1"
	// hostileIRI must never become a link.
	hostileIRI = "javascript:document.title='pwned'"
)

// newPageFixture is a server whose memory store holds pageMolecules (as the
// molecule mapping writes them) and a note graph with a language-tagged
// label and a javascript: IRI.
func newPageFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	for _, m := range pageMolecules {
		m.ID = ontology.MoleculeID(m.SMILES)
		m.Validated = true
		m.CreatedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		qs, err := ontology.MoleculeQuads(pageBase, &m)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutGraph(ctx, ontology.ResourceIRI(pageBase, ontology.KindMolecule, m.ID), qs); err != nil {
			t.Fatal(err)
		}
	}
	note := quad.IRI(pageNote)
	err = st.PutGraph(ctx, note, []quad.Quad{
		{Subject: note, Predicate: quad.IRI(ontology.RDFS + "label"), Object: ontology.LangString("Notiz", "de"), Label: note},
		{Subject: note, Predicate: quad.IRI(ontology.RDFS + "seeAlso"), Object: quad.IRI(hostileIRI), Label: note},
	})
	if err != nil {
		t.Fatal(err)
	}
	return newFixture(t, func(c *Config) { c.Graph = st; c.BaseIRI = pageBase })
}

func TestQueryPageHeaders(t *testing.T) {
	f := newPageFixture(t)
	rec := f.do(t, "GET", "/", "", nil)
	if rec.Code != 200 {
		t.Fatalf("GET /: %d %s", rec.Code, rec.Body)
	}
	h := rec.Header()
	want := map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": pageCSP,
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Cache-Control":           "no-cache",
	}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s: %q, want %q", k, h.Get(k), v)
		}
	}
	for _, directive := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "form-action 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(pageCSP, directive) {
			t.Errorf("CSP lacks %s", directive)
		}
	}
	if strings.Contains(pageCSP, "unsafe-") {
		t.Errorf("CSP allows unsafe sources: %s", pageCSP)
	}
	etag := h.Get("ETag")
	if !regexp.MustCompile(`^"[0-9a-f]{16}"$`).MatchString(etag) {
		t.Fatalf("ETag %q", etag)
	}
	if rec := f.do(t, "GET", "/", "", nil, "If-None-Match", etag); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d, %d bytes", rec.Code, rec.Body.Len())
	}

	html := rec.Body.String()
	// No external resource: every src/href is a path on this server.
	refs := regexp.MustCompile(`(?i)\b(?:src|href)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(html, -1)
	if len(refs) != 2 {
		t.Fatalf("want 2 asset references, got %v", refs)
	}
	for _, m := range refs {
		if !strings.HasPrefix(m[1], "/static/") || strings.HasPrefix(m[1], "//") {
			t.Errorf("external or unexpected reference %q", m[1])
		}
		// The linked version is immutable; any other is revalidated.
		asset := f.do(t, "GET", m[1], "", nil)
		if asset.Code != 200 || asset.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			asset.Header().Get("Content-Security-Policy") != pageCSP || asset.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %v", m[1], asset.Code, asset.Header())
		}
		ctype := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
		path, _, _ := strings.Cut(m[1], "?")
		ext := path[strings.LastIndexByte(path, '.'):]
		if got := asset.Header().Get("Content-Type"); got != ctype[ext] {
			t.Errorf("%s: Content-Type %q", m[1], got)
		}
		if stale := f.do(t, "GET", path+"?v=old", "", nil); stale.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("%s?v=old: Cache-Control %q", path, stale.Header().Get("Cache-Control"))
		}
		if regexp.MustCompile(`\.(inner|outer)HTML\s*=|insertAdjacentHTML|document\.write|\beval\(|url\(`).Match(asset.Body.Bytes()) {
			t.Errorf("%s writes HTML, evaluates strings or loads a URL", m[1])
		}
	}
	if strings.Contains(html, "<style") || regexp.MustCompile(`<script>|\son[a-z]+=`).MatchString(html) {
		t.Error("inline script, style or event handler in the page (the CSP would block it)")
	}
	problemOf(t, f.do(t, "GET", "/static/index.html", "", nil), 404, "not_found")
	problemOf(t, f.do(t, "GET", "/static/nope.js", "", nil), 404, "not_found")
	head := f.do(t, "HEAD", "/", "", nil)
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Security-Policy") != pageCSP {
		t.Errorf("HEAD /: %d", head.Code)
	}
}

// The page's example query runs as it stands and lists the molecules.
func TestQueryPageExampleQueryRuns(t *testing.T) {
	f := newPageFixture(t)
	rec := f.do(t, "POST", "/v1/sparql", "read", strings.NewReader(exampleQuery()),
		"Content-Type", "application/sparql-query", "Accept", "application/sparql-results+json")
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	res := decodeResults(t, rec.Body.Bytes())
	if !slices.Equal(res.Head.Vars, []string{"molecule", "name", "smiles", "mw"}) || len(res.Results.Bindings) != len(pageMolecules) {
		t.Fatalf("answer %s", rec.Body)
	}
}

// cell is one table cell as the browser shows it.
type cell struct {
	Text  string `json:"text"`  // the value's text (IRI, literal, or "" when unbound)
	Href  string `json:"href"`  // the link target, "" when not a link
	Extra string `json:"extra"` // the datatype or @lang shown beside a literal
}

// pageState is what the test reads back from the page.
type pageState struct {
	Head   []string `json:"head"`
	Rows   [][]cell `json:"rows"`
	Status string   `json:"status"`
	Error  string   `json:"error"`
	Pre    string   `json:"pre"`
	Bool   string   `json:"bool"`
	Images int      `json:"images"`
	Title  string   `json:"title"`
}

const readPageJS = `(() => {
  const q = (s, r) => (r || document).querySelector(s);
  const qa = (s, r) => Array.from((r || document).querySelectorAll(s));
  const t = q('#results table');
  const e = q('#error');
  return {
    head: t ? qa('thead th', t).map(th => th.textContent) : [],
    rows: t ? qa('tbody tr', t).map(tr => Array.from(tr.children).map(td => {
      const v = q('.v, .iri, .bnode', td), a = q('a', td), x = q('.dt, .lang', td);
      return {text: v ? v.textContent : td.textContent, href: a ? a.getAttribute('href') : '', extra: x ? x.textContent : ''};
    })) : [],
    status: q('#status').textContent,
    error: e && !e.hidden ? e.textContent : '',
    pre: q('#results pre') ? q('#results pre').textContent : '',
    bool: q('#results .boolean') ? q('#results .boolean').textContent : '',
    images: qa('#results img:not(.depiction), #error img').length,
    title: document.title,
  };
})()`

// cspWatch records Content-Security-Policy violations from the first
// script of every document on (DevTools-injected, so the CSP does not
// apply to it).
const cspWatch = `window.__csp = []; document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`

// TestQueryPageInChromium drives the page in headless Chromium: type the
// key and queries, run them with the button and with Ctrl+Enter, and read
// the table, the ASK and CONSTRUCT answers and an error back from the DOM.
func TestQueryPageInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (Debian package chromium; make deps installs it)")
	}
	f := newPageFixture(t)
	ts := httptest.NewServer(f.srv)
	defer ts.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.DisableGPU)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to sandbox as root
	}
	parent, cancelTimeout := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancelTimeout()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	defer cancelAlloc()
	var mu sync.Mutex
	var exceptions []string
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithListener(func(ev any) {
		if ev, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			exceptions = append(exceptions, ev.ExceptionDetails.Text)
			mu.Unlock()
		}
	}))
	defer cancel()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch}); err != nil {
		t.Fatal(err)
	}

	read := func() pageState {
		t.Helper()
		st, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](readPageJS))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// run starts a query with the given action and waits until the status
	// line reports the end of the run.
	run := func(start chromedp.Action[chromedp.Void]) pageState {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`document.getElementById('status').textContent = ''`),
			start,
			chromedp.Poll[chromedp.Void](`/ ms$/.test(document.getElementById('status').textContent)`,
				chromedp.WithPollingTimeout(20*time.Second)))
		if err != nil {
			t.Fatalf("run: %v; page: %+v", err, read())
		}
		return read()
	}
	click := chromedp.Click(chromedp.CSS("#run"))
	setQuery := func(q string) chromedp.Action[chromedp.Void] { return chromedp.SetValue(chromedp.CSS("#query"), q) }

	token := f.tokens["read"]
	if err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#run")),
		chromedp.SendKeys(chromedp.CSS("#api-key"), token),
	); err != nil {
		t.Fatal(err)
	}

	// 1. The example query, as the page offers it, with the Run button.
	example, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#query")))
	if err != nil || example != exampleQuery() {
		t.Fatalf("text area holds %q (%v), want the example query", example, err)
	}
	st := run(click)
	wantRows := expectedMoleculeRows()
	if !slices.Equal(st.Head, []string{"molecule", "name", "smiles", "mw"}) || st.Error != "" {
		t.Fatalf("head %v, error %q", st.Head, st.Error)
	}
	if !slices.EqualFunc(st.Rows, wantRows, slices.Equal) {
		t.Errorf("rows\n got %v\nwant %v", st.Rows, wantRows)
	}
	if !strings.HasPrefix(st.Status, "3 rows · ") {
		t.Errorf("status %q", st.Status)
	}

	// 2. A typed query over the note: a language tag, prefixed IRIs as
	// links, and a javascript: IRI that must stay text.
	typed := "SELECT ?p ?o WHERE { <" + pageNote + "> ?p ?o } ORDER BY ?p"
	// (SetValue cannot set "": chromedp drops the empty argument.)
	clear := chromedp.Evaluate[chromedp.Void](`document.getElementById('query').value = ''`)
	st = run(chromedp.Steps(clear, chromedp.SendKeys(chromedp.CSS("#query"), typed), click))
	want := [][]cell{
		{{Text: "rdfs:label", Href: ontology.RDFS + "label"}, {Text: "Notiz", Extra: "@de"}},
		{{Text: "rdfs:seeAlso", Href: ontology.RDFS + "seeAlso"}, {Text: hostileIRI}},
	}
	if !slices.Equal(st.Head, []string{"p", "o"}) || !slices.EqualFunc(st.Rows, want, slices.Equal) || !strings.HasPrefix(st.Status, "2 rows · ") {
		t.Errorf("note query: %+v, want rows %v", st, want)
	}

	// 3. ASK and CONSTRUCT.
	st = run(chromedp.Steps(setQuery("ASK { ?m a <"+string(ontology.MoleculeClass)+"> }"), click))
	if st.Bool != "true" || len(st.Rows) != 0 || !strings.HasPrefix(st.Status, "ASK · ") {
		t.Errorf("ASK: %+v", st)
	}
	label := "<" + ontology.RDFS + "label>"
	st = run(chromedp.Steps(setQuery("CONSTRUCT { ?m "+label+" ?n } WHERE { ?m a <"+string(ontology.MoleculeClass)+"> ; "+label+" ?n }"), click))
	for _, m := range pageMolecules {
		if m.Name == "" {
			continue
		}
		iri := string(ontology.ResourceIRI(pageBase, ontology.KindMolecule, ontology.MoleculeID(m.SMILES)))
		if !strings.Contains(st.Pre, iri) {
			t.Errorf("CONSTRUCT text lacks %s:\n%s", iri, st.Pre)
		}
	}
	if !strings.Contains(st.Pre, "ethanol") || !strings.Contains(st.Pre, "<img src=x") || !strings.HasPrefix(st.Status, "text/turtle, ") {
		t.Errorf("CONSTRUCT: %+v", st)
	}

	// 4. A syntax error, run with Ctrl+Enter: the page shows the problem's
	// detail and the position, as the API reports them.
	bad := "SELECT ?s WHERE { ?s ?p }"
	st = run(chromedp.Steps(setQuery(bad), chromedp.Focus(chromedp.CSS("#query")),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl))))
	problem := directProblem(t, ts.URL, token, bad)
	if problem.Detail == "" || len(problem.Errors) == 0 || !strings.Contains(problem.Errors[0].Message, "line 1, column ") {
		t.Fatalf("API problem %+v", problem)
	}
	for _, part := range []string{problem.Title + " (400)", problem.Detail, "query: " + problem.Errors[0].Message} {
		if !strings.Contains(st.Error, part) {
			t.Errorf("error box %q lacks %q", st.Error, part)
		}
	}
	if len(st.Head) != 0 || !strings.HasPrefix(st.Status, "failed · ") {
		t.Errorf("after the error: %+v", st)
	}

	// 5. The key survives a reload (sessionStorage); a wrong key is a 401
	// shown with its problem.
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#run"))); err != nil {
		t.Fatal(err)
	}
	if key, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#api-key"))); err != nil || key != token {
		t.Errorf("key after reload %q (%v)", key, err)
	}
	st = run(chromedp.Steps(chromedp.SetValue(chromedp.CSS("#api-key"), "mgk_wrong-key-xxxxxxxxxxxxxxxxxxxxxxxx"), click))
	if !strings.Contains(st.Error, "(401)") || !strings.Contains(st.Error, "Check the API key.") {
		t.Errorf("wrong key: %+v", st)
	}

	// Nothing ran that should not have: no injected markup, no exception,
	// no CSP violation; and the CSP is live (a positive control: an inline
	// script is blocked and reported).
	if st.Images != 0 || st.Title != "molgraph · SPARQL query" {
		t.Errorf("injected markup ran: %d images, title %q", st.Images, st.Title)
	}
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp`))
	if err != nil || len(violations) != 0 {
		t.Errorf("CSP violations %v (%v)", violations, err)
	}
	blocked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.createElement('script');
	  s.textContent = 'window.__inline = 1'; document.head.append(s); return window.__inline === undefined; })()`))
	if err != nil || !blocked {
		t.Errorf("inline script was not blocked (%v)", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`window.__csp.length === 1`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("the CSP watch did not see the blocked inline script: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(exceptions) != 0 {
		t.Errorf("uncaught exceptions: %v", exceptions)
	}
}

// expectedMoleculeRows is the example query's table computed from
// pageMolecules: ordered by weight, the molecule IRI as a link, the name
// (empty when unbound), the SMILES, and the weight as the stored lexical
// form with its datatype.
func expectedMoleculeRows() [][]cell {
	ms := slices.Clone(pageMolecules)
	sort.Slice(ms, func(i, j int) bool { return ms[i].MW < ms[j].MW })
	var out [][]cell
	for _, m := range ms {
		iri := string(ontology.ResourceIRI(pageBase, ontology.KindMolecule, ontology.MoleculeID(m.SMILES)))
		mw := ontology.Double(m.MW).(quad.TypedString)
		out = append(out, []cell{
			{Text: iri, Href: iri},
			{Text: m.Name},
			{Text: m.SMILES},
			{Text: string(mw.Value), Extra: "xsd:double"},
		})
	}
	return out
}

// directProblem sends a query to the API without the page and returns the
// problem it answers with.
func directProblem(t *testing.T, base, token, query string) Problem {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/sparql", strings.NewReader(query))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/sparql-query")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var p Problem
	if resp.StatusCode != 400 || json.Unmarshal(body, &p) != nil {
		t.Fatalf("direct query: %d %s", resp.StatusCode, body)
	}
	return p
}
