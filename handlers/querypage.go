package handlers

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/ontology"
)

// The query page: GET / serves a small HTML page on which a person types a
// SPARQL query and sees the answer as a table. The page, its script and its
// style sheet are embedded in the binary (no CDN, no network resource) and
// are public, like any static file: they hold no data. Every query the page
// runs goes to /v1/sparql with the API key typed into the page (kept in the
// tab's sessionStorage), so the graph stays behind the same Bearer keys and
// scopes as every other /v1 route.
//
// Security headers: a Content-Security-Policy that allows only this
// origin's script, style and fetch (no inline script or style, no frames,
// no form submission, so that a page without script cannot leak the key
// into a URL), nosniff, and no Referer. The script writes server data into
// the DOM only through textContent and attributes, and links only http(s)
// IRIs. Depictions (SMILES columns, molecule IRIs, the structure-search
// grid) are fetched with the key in the Authorization header and shown
// through blob: URLs (img-src blob:), so the key never appears in a URL.
//
// Caching: the page is "no-cache" with an ETag (revalidated, 304 when
// unchanged). Its assets are referenced as /static/<name>?v=<hash of the
// content>; a request with the current hash may be cached for a year
// (immutable), any other is "no-cache", so a new binary never runs with a
// stale script.

//go:embed static
var staticFiles embed.FS

// pageCSP is the Content-Security-Policy of the page and its assets.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' blob:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// asset is one embedded file as served.
type asset struct {
	body        []byte
	contentType string
	etag        string // strong ETag: quoted hex of the content's SHA-256 prefix
	version     string // the ?v= value that marks a request as immutable
}

func newAsset(body []byte, contentType string) asset {
	sum := sha256.Sum256(body)
	v := hex.EncodeToString(sum[:8])
	return asset{body: body, contentType: contentType, etag: `"` + v + `"`, version: v}
}

// queryPage is the rendered page and its assets.
type queryPage struct {
	index  asset
	assets map[string]asset // by file name under /static/
}

// pageData fills static/index.html.
type pageData struct {
	CSS, JS string // asset URLs with their version
	Example string // the example query in the text area
}

// exampleQuery is the query the page starts with: the service's prefixes
// and a molecule listing that works on any store with molecules.
func exampleQuery() string {
	var b strings.Builder
	for _, p := range ontology.Prefixes() {
		fmt.Fprintf(&b, "PREFIX %s: <%s>\n", p.Name, p.IRI)
	}
	b.WriteString(`
SELECT ?molecule ?name ?smiles ?mw WHERE {
  ?molecule a mg:Molecule ;
            mg:canonicalSmiles ?smiles ;
            mg:molecularWeight ?mw .
  OPTIONAL { ?molecule rdfs:label ?name }
}
ORDER BY ?mw
LIMIT 20
`)
	return b.String()
}

// newQueryPage renders the page from the embedded files. An error means the
// embedded files are broken (a bug in the binary, not in any input).
func newQueryPage() (*queryPage, error) {
	read := func(name string) ([]byte, error) {
		b, err := staticFiles.ReadFile("static/" + name)
		if err != nil {
			return nil, fmt.Errorf("query page: %w", err)
		}
		return b, nil
	}
	p := &queryPage{assets: map[string]asset{}}
	for name, ctype := range map[string]string{
		"query.js":  "text/javascript; charset=utf-8",
		"query.css": "text/css; charset=utf-8",
	} {
		b, err := read(name)
		if err != nil {
			return nil, err
		}
		p.assets[name] = newAsset(b, ctype)
	}
	src, err := read("index.html")
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("index").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("query page: %w", err)
	}
	var buf bytes.Buffer
	err = tmpl.Execute(&buf, pageData{
		CSS:     "/static/query.css?v=" + p.assets["query.css"].version,
		JS:      "/static/query.js?v=" + p.assets["query.js"].version,
		Example: exampleQuery(),
	})
	if err != nil {
		return nil, fmt.Errorf("query page: %w", err)
	}
	p.index = newAsset(buf.Bytes(), "text/html; charset=utf-8")
	return p, nil
}

// pageResource is the query page and its static assets (public routes).
func (s *Server) pageResource() resource {
	page, err := newQueryPage()
	fail := func(w http.ResponseWriter, r *http.Request) error { return err }
	serveIndex, serveAsset := fail, fail
	if err == nil {
		serveIndex = func(w http.ResponseWriter, r *http.Request) error {
			serveStatic(w, r, page.index, "no-cache")
			return nil
		}
		serveAsset = func(w http.ResponseWriter, r *http.Request) error {
			a, ok := page.assets[chi.URLParam(r, "name")]
			if !ok {
				return fmt.Errorf("%w: no static file %q", ErrNotFound, chi.URLParam(r, "name"))
			}
			cache := "no-cache"
			if r.URL.Query().Get("v") == a.version {
				cache = "public, max-age=31536000, immutable"
			}
			serveStatic(w, r, a, cache)
			return nil
		}
	}
	staticHeaders := map[string]string{
		"Content-Security-Policy": "The page's policy: this origin only, no inline script or style.",
		"Cache-Control":           "Caching policy (see the description).",
		"ETag":                    "Hash of the content; If-None-Match gives 304.",
	}
	return resource{routes: []Route{
		{
			Method: http.MethodGet, Pattern: "/", Scope: auth.ScopeNone, Handle: serveIndex,
			Doc: Doc{Tag: "graph", Summary: "Query page: type a SPARQL query, see the results table",
				Description: "A static HTML page embedded in the binary. It holds no data and needs no key; the queries it " +
					"runs go to /v1/sparql with the API key typed into the page (kept in the tab's sessionStorage). " +
					"Served with a strict Content-Security-Policy, Cache-Control: no-cache and an ETag.",
				Responses: []Response{
					{Status: 200, Description: "The page.", Content: map[string]Schema{"text/html": {"type": "string"}}, Headers: staticHeaders},
					{Status: 304, Description: "Not modified (If-None-Match matched the ETag)."},
				}},
		},
		{
			Method: http.MethodGet, Pattern: "/static/{name}", Scope: auth.ScopeNone, Handle: serveAsset,
			Doc: Doc{Tag: "graph", Summary: "Script and style sheet of the query page",
				Description: "query.js and query.css, embedded in the binary. With ?v= equal to the content's version (as " +
					"the page links them) the answer may be cached for a year; otherwise it is revalidated.",
				PathParams: map[string]string{"name": "query.js or query.css"},
				Params: []Param{{Name: "v", In: "query", Description: "Content version, as linked from the page.",
					Schema: Schema{"type": "string"}}},
				Responses: []Response{
					{Status: 200, Description: "The file.", Content: map[string]Schema{
						"text/javascript": {"type": "string"}, "text/css": {"type": "string"}}, Headers: staticHeaders},
					{Status: 304, Description: "Not modified (If-None-Match matched the ETag)."},
				}},
		},
	}}
}

// serveStatic writes an embedded file with its security and caching
// headers; http.ServeContent answers If-None-Match (304) and HEAD.
func serveStatic(w http.ResponseWriter, r *http.Request, a asset, cacheControl string) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", cacheControl)
	h.Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
