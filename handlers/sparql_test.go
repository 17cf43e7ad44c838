package handlers

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
)

// queryGraphFile is the hand-made GRAPH.md-shaped graph shared with the
// GraphQL tests (base IRI http://example.org/, as the fixture's).
const queryGraphFile = "../queries/graphql/testdata/graph.nq"

// loadQueryGraph opens a memory store holding queryGraphFile, one named
// graph per resource, and returns it with the quads.
func loadQueryGraph(t testing.TB) (*graph.Store, []quad.Quad) {
	t.Helper()
	f, err := os.Open(queryGraphFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := rdfio.ParseNQuads(f)
	if err != nil {
		t.Fatal(err)
	}
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	byGraph := map[quad.IRI][]quad.Quad{}
	var order []quad.IRI
	for _, q := range qs {
		g := q.Label.(quad.IRI)
		if _, ok := byGraph[g]; !ok {
			order = append(order, g)
		}
		byGraph[g] = append(byGraph[g], q)
	}
	for _, g := range order {
		if err := st.PutGraph(context.Background(), g, byGraph[g]); err != nil {
			t.Fatal(err)
		}
	}
	return st, qs
}

// newQueryFixture is a fixture whose server reads the query graph.
func newQueryFixture(t *testing.T, lim QueryLimits) (*fixture, []quad.Quad) {
	t.Helper()
	st, qs := loadQueryGraph(t)
	f := newFixture(t, func(c *Config) {
		c.Graph = st
		c.Query = lim
	})
	return f, qs
}

// sparqlJSON is the SPARQL 1.1 JSON results format.
type sparqlJSON struct {
	Head struct {
		Vars []string `json:"vars"`
	} `json:"head"`
	Results *struct {
		Bindings []map[string]struct {
			Type     string `json:"type"`
			Value    string `json:"value"`
			Datatype string `json:"datatype"`
			Lang     string `json:"xml:lang"`
		} `json:"bindings"`
	} `json:"results"`
	Boolean *bool `json:"boolean"`
}

func decodeResults(t *testing.T, body []byte) sparqlJSON {
	t.Helper()
	var r sparqlJSON
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("not SPARQL JSON results: %v: %s", err, body)
	}
	return r
}

// column returns the values of variable v, sorted.
func (r sparqlJSON) column(v string) []string {
	var out []string
	if r.Results == nil {
		return nil
	}
	for _, b := range r.Results.Bindings {
		out = append(out, b[v].Value)
	}
	slices.Sort(out)
	return out
}

const (
	prefixes       = "PREFIX mg: <https://w3id.org/molgraph/vocab#>\nPREFIX occ: <http://www.theworldavatar.com/ontology/ontocompchem/ontocompchem.owl#>\n"
	qLightMols     = prefixes + "SELECT ?m ?w WHERE { ?m a mg:Molecule ; mg:molecularWeight ?w ; mg:logP ?l . FILTER(?w < 500 && ?l < 5) }"
	aspirin        = "http://example.org/id/molecule/mol-aspirin"
	caffeine       = "http://example.org/id/molecule/mol-caffeine"
	imatinib       = "http://example.org/id/molecule/mol-imatinib"
	atorvastatin   = "http://example.org/id/molecule/mol-atorvastatin"
	sparqlFormType = "application/x-www-form-urlencoded"
	sparqlType     = "application/sparql-query"
)

// The W3C SPARQL 1.1 protocol tests (sparql11/protocol/manifest.ttl) are
// descriptive; these follow their intent, one case per test name.
func TestSPARQLProtocolQueryOperation(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{})
	light := []string{aspirin, caffeine, imatinib}
	form := url.Values{"query": {qLightMols}}
	tests := []struct {
		name         string
		method, path string
		body         string
		hdr          []string
		want         []string
	}{
		{"query_get", "GET", "/v1/sparql?" + form.Encode(), "", nil, light},
		{"query_post_form", "POST", "/v1/sparql", form.Encode(), []string{"Content-Type", sparqlFormType}, light},
		{"query_post_direct", "POST", "/v1/sparql", qLightMols, []string{"Content-Type", sparqlType}, light},
		{"query_post_direct charset", "POST", "/v1/sparql", qLightMols, []string{"Content-Type", sparqlType + "; charset=UTF-8"}, light},
		{"query_dataset_default_graphs_get", "GET", "/v1/sparql?" + url.Values{"query": {qLightMols},
			"default-graph-uri": {aspirin, caffeine}}.Encode(), "", nil, []string{aspirin, caffeine}},
		{"query_dataset_default_graphs_post", "POST", "/v1/sparql", url.Values{"query": {qLightMols},
			"default-graph-uri": {imatinib}}.Encode(), []string{"Content-Type", sparqlFormType}, []string{imatinib}},
		{"query_dataset_default_graph direct", "POST", "/v1/sparql?" + url.Values{"default-graph-uri": {imatinib}}.Encode(),
			qLightMols, []string{"Content-Type", sparqlType}, []string{imatinib}},
		// A dataset with only named graphs has an empty default graph.
		{"query_dataset_named_graphs_get", "GET", "/v1/sparql?" + url.Values{
			"query":           {prefixes + "SELECT ?m ?w { GRAPH ?g { ?m mg:molecularWeight ?w } }"},
			"named-graph-uri": {caffeine, atorvastatin}}.Encode(), "", nil, []string{atorvastatin, caffeine}},
		{"query_dataset_named_graphs_post", "POST", "/v1/sparql", url.Values{
			"query":           {prefixes + "SELECT ?m ?w { ?m mg:molecularWeight ?w }"},
			"named-graph-uri": {caffeine}}.Encode(), []string{"Content-Type", sparqlFormType}, nil},
		{"query_dataset_full", "GET", "/v1/sparql?" + url.Values{
			"query":             {prefixes + "SELECT ?m ?w { { ?m mg:molecularWeight ?w } UNION { GRAPH ?g { ?m mg:logP ?w } } }"},
			"default-graph-uri": {aspirin}, "named-graph-uri": {caffeine}}.Encode(), "", nil, []string{aspirin, caffeine}},
		// The protocol's dataset overrides FROM in the query.
		{"query_multiple_dataset", "GET", "/v1/sparql?" + url.Values{
			"query":             {prefixes + "SELECT ?m ?w FROM <" + caffeine + "> { ?m mg:molecularWeight ?w }"},
			"default-graph-uri": {aspirin}}.Encode(), "", nil, []string{aspirin}},
		{"FROM without protocol dataset", "GET", "/v1/sparql?" + url.Values{
			"query": {prefixes + "SELECT ?m ?w FROM <" + caffeine + "> { ?m mg:molecularWeight ?w }"}}.Encode(), "", nil, []string{caffeine}},
		// Clients add parameters of their own (SPARQLWrapper: format, output, results).
		{"unknown parameters ignored", "GET", "/v1/sparql?" + url.Values{"query": {qLightMols}, "output": {"json"},
			"results": {"json"}, "format": {"json"}, "timeout": {"0"}, "debug": {"on"}}.Encode(), "", nil, light},
		// Relative IRIs resolve against the base IRI.
		{"relative IRI", "GET", "/v1/sparql?" + url.Values{"query": {prefixes +
			"SELECT ?m ?w { BIND(<id/molecule/mol-caffeine> AS ?m) ?m mg:molecularWeight ?w }"}}.Encode(), "", nil, []string{caffeine}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body *strings.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			var rec = f.do(t, tt.method, tt.path, "read", nilIfEmpty(body), tt.hdr...)
			if rec.Code != 200 {
				t.Fatalf("%d: %s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/sparql-results+json" {
				t.Fatalf("Content-Type %q", ct)
			}
			if rec.Header().Get("Vary") != "Accept" || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Fatalf("headers %v", rec.Header())
			}
			r := decodeResults(t, rec.Body.Bytes())
			if got := r.column("m"); !slices.Equal(got, tt.want) {
				t.Fatalf("?m = %v, want %v", got, tt.want)
			}
		})
	}
}

func nilIfEmpty(r *strings.Reader) *strings.Reader {
	if r == nil {
		return strings.NewReader("")
	}
	return r
}

// Expected literals come from the data file: the values as stored.
func TestSPARQLResultFormats(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{})
	q := prefixes + `SELECT ?m ?w ?s WHERE { ?m mg:molecularWeight ?w ; mg:canonicalSmiles ?s FILTER(?w < 190) }`
	get := func(t *testing.T, query string, hdr ...string) (string, []byte) {
		rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {query}}.Encode(), "read", nil, hdr...)
		if rec.Code != 200 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		return rec.Header().Get("Content-Type"), rec.Body.Bytes()
	}
	t.Run("json", func(t *testing.T) {
		ct, body := get(t, q, "Accept", "application/sparql-results+json")
		r := decodeResults(t, body)
		if ct != "application/sparql-results+json" || !slices.Equal(r.Head.Vars, []string{"m", "w", "s"}) || len(r.Results.Bindings) != 1 {
			t.Fatalf("%s %s", ct, body)
		}
		b := r.Results.Bindings[0]
		if b["m"].Type != "uri" || b["m"].Value != aspirin || b["w"].Type != "literal" || b["w"].Value != "180.159" ||
			b["w"].Datatype != "http://www.w3.org/2001/XMLSchema#double" || b["s"].Value != "CC(=O)Oc1ccccc1C(=O)O" || b["s"].Datatype != "" {
			t.Fatalf("binding %+v", b)
		}
	})
	t.Run("xml", func(t *testing.T) {
		ct, body := get(t, q, "Accept", "application/sparql-results+xml")
		var doc struct {
			XMLName xml.Name `xml:"http://www.w3.org/2005/sparql-results# sparql"`
			Vars    []struct {
				Name string `xml:"name,attr"`
			} `xml:"head>variable"`
			Results []struct {
				Bindings []struct {
					Name    string `xml:"name,attr"`
					URI     string `xml:"uri"`
					Literal struct {
						Value    string `xml:",chardata"`
						Datatype string `xml:"datatype,attr"`
					} `xml:"literal"`
				} `xml:"binding"`
			} `xml:"results>result"`
		}
		if err := xml.Unmarshal(body, &doc); err != nil || ct != "application/sparql-results+xml" {
			t.Fatalf("%s %v: %s", ct, err, body)
		}
		if len(doc.Vars) != 3 || len(doc.Results) != 1 || doc.Results[0].Bindings[0].URI != aspirin ||
			doc.Results[0].Bindings[1].Literal.Value != "180.159" || doc.Results[0].Bindings[1].Literal.Datatype != "http://www.w3.org/2001/XMLSchema#double" {
			t.Fatalf("%+v", doc)
		}
	})
	t.Run("csv", func(t *testing.T) {
		ct, body := get(t, q, "Accept", "text/csv")
		rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil || ct != "text/csv; charset=utf-8" {
			t.Fatalf("%s %v: %s", ct, err, body)
		}
		want := [][]string{{"m", "w", "s"}, {aspirin, "180.159", "CC(=O)Oc1ccccc1C(=O)O"}}
		if len(rows) != 2 || !slices.Equal(rows[0], want[0]) || !slices.Equal(rows[1], want[1]) {
			t.Fatalf("%q", rows)
		}
	})
	t.Run("tsv", func(t *testing.T) {
		ct, body := get(t, q, "Accept", "text/tab-separated-values")
		want := "?m\t?w\t?s\n<" + aspirin + ">\t\"180.159\"^^<http://www.w3.org/2001/XMLSchema#double>\t\"CC(=O)Oc1ccccc1C(=O)O\"\n"
		if ct != "text/tab-separated-values; charset=utf-8" || string(body) != want {
			t.Fatalf("%s %q", ct, body)
		}
	})
	t.Run("format parameter wins over Accept", func(t *testing.T) {
		rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {q}, "format": {"csv"}}.Encode(), "read", nil, "Accept", "application/sparql-results+xml")
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" {
			t.Fatalf("%d %s", rec.Code, rec.Header().Get("Content-Type"))
		}
	})
	t.Run("q-values", func(t *testing.T) {
		ct, _ := get(t, q, "Accept", "application/sparql-results+json;q=0.5, text/tab-separated-values;q=0.9, */*;q=0.1")
		if ct != "text/tab-separated-values; charset=utf-8" {
			t.Fatalf("%s", ct)
		}
	})
	t.Run("unacceptable falls back to JSON", func(t *testing.T) {
		ct, body := get(t, q, "Accept", "application/rdf+xml")
		if ct != "application/sparql-results+json" || len(decodeResults(t, body).Results.Bindings) != 1 {
			t.Fatalf("%s", ct)
		}
	})
	t.Run("ask json", func(t *testing.T) {
		ct, body := get(t, prefixes+"ASK { ?m mg:molecularWeight ?w FILTER(?w > 550) }")
		r := decodeResults(t, body)
		if ct != "application/sparql-results+json" || r.Boolean == nil || !*r.Boolean || r.Results != nil {
			t.Fatalf("%s %s", ct, body)
		}
	})
	t.Run("ask xml", func(t *testing.T) {
		ct, body := get(t, prefixes+"ASK { ?m mg:molecularWeight ?w FILTER(?w > 600) }", "Accept", "application/sparql-results+xml")
		var doc struct {
			Boolean string `xml:"boolean"`
		}
		if err := xml.Unmarshal(body, &doc); err != nil || ct != "application/sparql-results+xml" || doc.Boolean != "false" {
			t.Fatalf("%s %v %s", ct, err, body)
		}
	})
	t.Run("ask csv falls back to JSON", func(t *testing.T) {
		ct, _ := get(t, prefixes+"ASK { ?m mg:molecularWeight ?w }", "Accept", "text/csv")
		if ct != "application/sparql-results+json" {
			t.Fatalf("%s", ct)
		}
	})
	t.Run("head", func(t *testing.T) {
		rec := f.do(t, "HEAD", "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil)
		if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "application/sparql-results+json" {
			t.Fatalf("%d %q", rec.Code, rec.Body)
		}
	})
}

// CONSTRUCT and DESCRIBE answers parse back, with our own parsers, into
// the triples expected from the data file.
func TestSPARQLGraphResults(t *testing.T) {
	f, data := newQueryFixture(t, QueryLimits{})
	construct := prefixes + `CONSTRUCT { ?c mg:about ?m . ?m mg:molecularWeight ?w } WHERE { ?c occ:hasUniqueSpecies ?m . ?m mg:molecularWeight ?w }`
	mw := quad.IRI("https://w3id.org/molgraph/vocab#molecularWeight")
	about := quad.IRI("https://w3id.org/molgraph/vocab#about")
	dbl := func(s string) quad.Value {
		return quad.TypedString{Value: quad.String(s), Type: "http://www.w3.org/2001/XMLSchema#double"}
	}
	want := []quad.Quad{
		{Subject: quad.IRI("http://example.org/id/calculation/calc-aspirin-b3lyp"), Predicate: about, Object: quad.IRI(aspirin)},
		{Subject: quad.IRI("http://example.org/id/calculation/calc-aspirin-pbe"), Predicate: about, Object: quad.IRI(aspirin)},
		{Subject: quad.IRI("http://example.org/id/calculation/calc-caffeine"), Predicate: about, Object: quad.IRI(caffeine)},
		{Subject: quad.IRI(aspirin), Predicate: mw, Object: dbl("180.159")},
		{Subject: quad.IRI(caffeine), Predicate: mw, Object: dbl("194.194")},
	}
	parse := map[string]func([]byte) ([]quad.Quad, error){
		"text/turtle; charset=utf-8": func(b []byte) ([]quad.Quad, error) { return rdfio.ParseTurtle(bytes.NewReader(b), "") },
		"application/n-triples":      func(b []byte) ([]quad.Quad, error) { return rdfio.ParseNTriples(bytes.NewReader(b)) },
		"application/ld+json":        func(b []byte) ([]quad.Quad, error) { return rdfio.ParseJSONLD(bytes.NewReader(b), "") },
	}
	for _, tt := range []struct{ accept, format, ctype string }{
		{"", "", "text/turtle; charset=utf-8"},
		{"text/turtle", "", "text/turtle; charset=utf-8"},
		{"application/n-triples", "", "application/n-triples"},
		{"application/ld+json", "", "application/ld+json"},
		{"application/sparql-results+json", "", "text/turtle; charset=utf-8"}, // fallback
		{"", "ntriples", "application/n-triples"},
		{"", "json", "application/ld+json"},
		{"application/rdf+xml", "xml", "text/turtle; charset=utf-8"}, // SPARQLWrapper's default for CONSTRUCT
	} {
		t.Run(tt.accept+" "+tt.format, func(t *testing.T) {
			v := url.Values{"query": {construct}}
			if tt.format != "" {
				v.Set("format", tt.format)
			}
			var hdr []string
			if tt.accept != "" {
				hdr = []string{"Accept", tt.accept}
			}
			rec := f.do(t, "GET", "/v1/sparql?"+v.Encode(), "read", nil, hdr...)
			ct := rec.Header().Get("Content-Type")
			if rec.Code != 200 || ct != tt.ctype {
				t.Fatalf("%d %q: %s", rec.Code, ct, rec.Body)
			}
			got, err := parse[ct](rec.Body.Bytes())
			if err != nil {
				t.Fatalf("%v: %s", err, rec.Body)
			}
			if !rdfio.Isomorphic(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
		})
	}
	t.Run("describe", func(t *testing.T) {
		rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {"DESCRIBE <" + caffeine + ">"}}.Encode(), "read", nil, "Accept", "application/n-triples")
		got, err := rdfio.ParseNTriples(bytes.NewReader(rec.Body.Bytes()))
		if rec.Code != 200 || err != nil {
			t.Fatalf("%d %v %s", rec.Code, err, rec.Body)
		}
		var subjectTriples []quad.Quad
		for _, q := range data {
			if q.Subject == quad.IRI(caffeine) {
				subjectTriples = append(subjectTriples, quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object})
			}
		}
		for _, q := range subjectTriples {
			if !slices.Contains(got, q) {
				t.Errorf("DESCRIBE lacks %v", q)
			}
		}
	})
}

func TestSPARQLProtocolErrors(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{})
	q := url.Values{"query": {"ASK {}"}}.Encode()
	tests := []struct {
		name         string
		method, path string
		body         string
		hdr          []string
		status       int
		code         string
	}{
		{"bad_query_method", "PUT", "/v1/sparql?" + q, "", nil, 405, "method_not_allowed"},
		{"bad_query_method delete", "DELETE", "/v1/sparql?" + q, "", nil, 405, "method_not_allowed"},
		{"bad_multiple_queries", "GET", "/v1/sparql?" + q + "&" + q, "", nil, 400, "invalid_request"},
		{"bad_multiple_queries form", "POST", "/v1/sparql", q + "&" + q, []string{"Content-Type", sparqlFormType}, 400, "invalid_request"},
		{"bad_multiple_queries direct+url", "POST", "/v1/sparql?" + q, "ASK {}", []string{"Content-Type", sparqlType}, 400, "invalid_request"},
		{"bad_query_wrong_media_type", "POST", "/v1/sparql", "ASK {}", []string{"Content-Type", "text/plain"}, 415, "unsupported_media_type"},
		{"bad_query_missing_form_type", "POST", "/v1/sparql", q, nil, 415, "unsupported_media_type"},
		{"bad_query_missing_direct_type", "POST", "/v1/sparql", "ASK {}", nil, 415, "unsupported_media_type"},
		{"bad_query_non_utf8", "POST", "/v1/sparql", "ASK { ?s ?p \"\xff\xfe\" }", []string{"Content-Type", sparqlType}, 400, "invalid_request"},
		{"bad_query_non_utf8 form", "POST", "/v1/sparql", "query=ASK%20%7B%7D%FF", []string{"Content-Type", sparqlFormType}, 400, "invalid_request"},
		{"latin-1 charset", "POST", "/v1/sparql", "ASK {}", []string{"Content-Type", sparqlType + "; charset=iso-8859-1"}, 415, "unsupported_media_type"},
		{"bad_query_syntax", "GET", "/v1/sparql?" + url.Values{"query": {"SELECT * WHERE { ?s ?p ?o } LIMT 3"}}.Encode(), "", nil, 400, "malformed_query"},
		{"empty query", "GET", "/v1/sparql?query=", "", nil, 400, "invalid_request"},
		{"post without query", "POST", "/v1/sparql", "default-graph-uri=http%3A%2F%2Fexample.org%2Fg", []string{"Content-Type", sparqlFormType}, 400, "invalid_request"},
		{"update is refused", "POST", "/v1/sparql", "update=CLEAR%20ALL", []string{"Content-Type", sparqlFormType}, 400, "invalid_request"},
		{"relative default-graph-uri", "GET", "/v1/sparql?" + q + "&default-graph-uri=g1", "", nil, 400, "invalid_request"},
		{"unknown format", "GET", "/v1/sparql?" + q + "&format=yaml", "", nil, 400, "invalid_request"},
		{"SERVICE", "GET", "/v1/sparql?" + url.Values{"query": {"SELECT * { SERVICE <http://example.org/sparql> { ?s ?p ?o } }"}}.Encode(), "", nil, 400, "malformed_query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, tt.method, tt.path, "read", strings.NewReader(tt.body), tt.hdr...)
			problemOf(t, rec, tt.status, tt.code)
		})
	}
	t.Run("syntax error position", func(t *testing.T) {
		for _, tt := range []struct{ query, want string }{
			{"SELECT * WHERE { ?s ?p ?o } LIMT 3", "line 1, column 29"},
			{"PREFIX mg: <https://w3id.org/molgraph/vocab#>\nSELECT ?m WHERE {\n  ?m mg:logP ?l .\n  FILTER(?l <)\n}", "line 4, column 14"},
		} {
			rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {tt.query}}.Encode(), "read", nil)
			p := problemOf(t, rec, 400, "malformed_query")
			if len(p.Errors) != 1 || p.Errors[0].Field != "query" || !strings.HasPrefix(p.Errors[0].Message, tt.want+":") {
				t.Errorf("%q: errors %+v, want position %s", tt.query, p.Errors, tt.want)
			}
		}
	})
	t.Run("no graph store", func(t *testing.T) {
		f := newFixture(t, nil)
		problemOf(t, f.do(t, "GET", "/v1/sparql?"+q, "read", nil), 503, "not_ready")
	})
}

func TestSPARQLLimits(t *testing.T) {
	t.Run("row cap", func(t *testing.T) {
		f, _ := newQueryFixture(t, QueryLimits{SPARQLMaxRows: 3})
		// 4 molecules > 3: a clear error, not a silently truncated answer.
		q := prefixes + "SELECT ?m WHERE { ?m a mg:Molecule }"
		for _, accept := range []string{"application/sparql-results+json", "text/csv"} {
			p := problemOf(t, f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil, "Accept", accept), 400, "row_limit_exceeded")
			if !strings.Contains(p.Detail, "more than 3 rows") || !strings.Contains(p.Detail, "LIMIT") {
				t.Fatalf("detail %q", p.Detail)
			}
		}
		rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {q + " LIMIT 3"}}.Encode(), "read", nil)
		if rec.Code != 200 || len(decodeResults(t, rec.Body.Bytes()).column("m")) != 3 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		// Exactly at the cap is fine.
		rec = f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {prefixes + "SELECT ?c { ?c a mg:Calculation }"}}.Encode(), "read", nil)
		if rec.Code != 200 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		// CONSTRUCT counts triples.
		problemOf(t, f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {"CONSTRUCT WHERE { ?s ?p ?o }"}}.Encode(), "read", nil), 400, "row_limit_exceeded")
	})
	t.Run("timeout", func(t *testing.T) {
		f, _ := newQueryFixture(t, QueryLimits{SPARQLTimeout: 50 * time.Millisecond})
		// 75^4 ≈ 32 million combinations: far more than 50 ms.
		q := "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
		start := time.Now()
		rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil)
		p := problemOf(t, rec, 503, "query_timeout")
		if el := time.Since(start); el > 5*time.Second {
			t.Fatalf("timeout took %s", el)
		}
		if !strings.Contains(p.Detail, "50ms") || rec.Header().Get("Retry-After") == "" {
			t.Fatalf("detail %q, headers %v", p.Detail, rec.Header())
		}
	})
}

func TestSpoolSpillsToDisk(t *testing.T) {
	sp := &spool{}
	defer sp.Close()
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 1<<12) // 64 KiB
	var want bytes.Buffer
	for want.Len() <= spoolMemory+len(chunk) {
		sp.Write(chunk)
		want.Write(chunk)
	}
	if sp.file == nil {
		t.Fatal("no temporary file past the memory limit")
	}
	name := sp.file.Name()
	var got bytes.Buffer
	if n, err := sp.WriteTo(&got); err != nil || n != int64(want.Len()) || sp.Len() != int64(want.Len()) || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("WriteTo: %d %v", n, err)
	}
	sp.Close()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("temporary file left behind: %v", err)
	}
}

// parseRDFAnswer parses an RDF answer by its Content-Type.
func parseRDFAnswer(t *testing.T, ct string, body []byte) []quad.Quad {
	t.Helper()
	var qs []quad.Quad
	var err error
	switch {
	case strings.HasPrefix(ct, "text/turtle"):
		qs, err = rdfio.ParseTurtle(bytes.NewReader(body), "")
	case ct == "application/n-triples":
		qs, err = rdfio.ParseNTriples(bytes.NewReader(body))
	case ct == "application/ld+json":
		qs, err = rdfio.ParseJSONLD(bytes.NewReader(body), "")
	default:
		t.Fatalf("unexpected Content-Type %q", ct)
	}
	if err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return qs
}

func hasQueryTriple(qs []quad.Quad, s, p, o quad.Value) bool {
	for _, q := range qs {
		if (s == nil || q.Subject == s) && q.Predicate == p && q.Object == o {
			return true
		}
	}
	return false
}

// rapperCheck validates Turtle with raptor's rapper when it is installed.
func rapperCheck(t *testing.T, body []byte) {
	t.Helper()
	if _, err := exec.LookPath("rapper"); err != nil {
		t.Log("rapper not installed; Turtle validity not checked by raptor")
		return
	}
	cmd := exec.Command("rapper", "-q", "-i", "turtle", "-c", "-", "http://example.org/")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rapper rejects the Turtle: %v: %s\n%s", err, out, body)
	}
}

func TestSPARQLServiceDescription(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{})
	sd := func(l string) quad.IRI { return quad.IRI("http://www.w3.org/ns/sparql-service-description#" + l) }
	rdfType := quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
	for _, accept := range []string{"", "text/turtle", "application/ld+json", "application/n-triples", "*/*"} {
		t.Run(accept, func(t *testing.T) {
			rec := f.do(t, "GET", "/v1/sparql", "read", nil, "Accept", accept)
			if rec.Code != 200 {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			ct := rec.Header().Get("Content-Type")
			qs := parseRDFAnswer(t, ct, rec.Body.Bytes())
			if strings.HasPrefix(ct, "text/turtle") {
				rapperCheck(t, rec.Body.Bytes())
			}
			svc := quad.IRI("http://example.org/v1/sparql#service")
			for _, want := range [][2]quad.Value{
				{rdfType, sd("Service")},
				{sd("endpoint"), quad.IRI("http://example.org/v1/sparql")},
				{sd("supportedLanguage"), sd("SPARQL11Query")},
				{sd("feature"), sd("UnionDefaultGraph")},
				{sd("resultFormat"), quad.IRI("http://www.w3.org/ns/formats/SPARQL_Results_JSON")},
				{sd("resultFormat"), quad.IRI("http://www.w3.org/ns/formats/Turtle")},
				{sd("defaultDataset"), quad.IRI("http://example.org/.well-known/void#dataset")},
			} {
				if !hasQueryTriple(qs, svc, want[0], want[1]) {
					t.Errorf("service description lacks <service> %v %v", want[0], want[1])
				}
			}
		})
	}
	// A GET whose only parameters are unknown ones is still a description.
	rec := f.do(t, "GET", "/v1/sparql?output=json", "read", nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/turtle") {
		t.Fatalf("%d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
}

func TestVoID(t *testing.T) {
	f, data := newQueryFixture(t, QueryLimits{})
	problemOf(t, f.do(t, "GET", "/.well-known/void", "", nil), 401, "unauthorized")
	rec := f.do(t, "GET", "/.well-known/void", "read", nil)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	rapperCheck(t, rec.Body.Bytes())
	qs := parseRDFAnswer(t, rec.Header().Get("Content-Type"), rec.Body.Bytes())
	v := func(l string) quad.IRI { return quad.IRI("http://rdfs.org/ns/void#" + l) }
	ds := quad.IRI("http://example.org/.well-known/void#dataset")
	integer := func(n int) quad.Value {
		return quad.TypedString{Value: quad.String(queryItoa(n)), Type: "http://www.w3.org/2001/XMLSchema#integer"}
	}
	for _, want := range [][2]quad.Value{
		{v("sparqlEndpoint"), quad.IRI("http://example.org/v1/sparql")},
		{v("triples"), integer(len(data))},
		{v("uriSpace"), quad.String("http://example.org/id/")},
		{v("vocabulary"), quad.IRI("https://w3id.org/molgraph/vocab#")},
		{v("dataDump"), quad.IRI("http://example.org/v1/export?format=nquads")},
		{v("exampleResource"), quad.IRI(aspirin)},
	} {
		if !hasQueryTriple(qs, ds, want[0], want[1]) {
			t.Errorf("VoID lacks %v %v", want[0], want[1])
		}
	}
	// Class partitions, counted in the data file by hand: 4 molecules, 3
	// calculations, 1 receptor, 1 job, 3 poses.
	for class, n := range map[string]int{"Molecule": 4, "Calculation": 3, "Receptor": 1, "DockingJob": 1, "DockingPose": 3} {
		part := quad.IRI(string(ds) + "-" + class)
		if !hasQueryTriple(qs, ds, v("classPartition"), part) || !hasQueryTriple(qs, part, v("class"), quad.IRI("https://w3id.org/molgraph/vocab#"+class)) ||
			!hasQueryTriple(qs, part, v("entities"), integer(n)) {
			t.Errorf("class partition %s with %d entities missing", class, n)
		}
	}
}

func queryItoa(n int) string { return strconv.Itoa(n) }

// listenQueryFixture serves f on a real listener for the length of the test.
func listenQueryFixture(t *testing.T, f *fixture) string {
	t.Helper()
	ts := httptest.NewServer(f.srv)
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestSPARQLOverHTTP runs the endpoint on a real listener: the answer is
// complete (Content-Length) and gzip is not applied to query answers.
func TestSPARQLOverHTTP(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{})
	ts := listenQueryFixture(t, f)
	req, _ := http.NewRequest("POST", ts+"/v1/sparql", strings.NewReader(qLightMols))
	req.Header.Set("Content-Type", sparqlType)
	req.Header.Set("Authorization", "Bearer "+f.tokens["read"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != 200 || resp.ContentLength != int64(buf.Len()) {
		t.Fatalf("%d, Content-Length %d, body %d bytes", resp.StatusCode, resp.ContentLength, buf.Len())
	}
	if got := decodeResults(t, buf.Bytes()).column("m"); len(got) != 3 {
		t.Fatalf("%v", got)
	}
}

// FuzzSPARQLEndpoint sends arbitrary queries, content types and format
// parameters through the whole endpoint: the answer is never a 500.
func FuzzSPARQLEndpoint(f *testing.F) {
	for _, s := range []string{qLightMols, "ASK {}", "CONSTRUCT WHERE { ?s ?p ?o }", "DESCRIBE <x>",
		"SELECT * { ?s ?p ?o } LIMIT 2", "SELECT (AVG(?x) AS ?a) { ?s ?p ?x } GROUP BY ?s", "SELECT * {", "\xff",
		"PREFIX : <http://x/> SELECT * { :a :b* ?c }", "SELECT * { SERVICE <x> { } }"} {
		f.Add(s, "application/sparql-query", "json")
		f.Add(s, "application/x-www-form-urlencoded", "turtle")
	}
	st, _ := loadQueryGraph(f)
	fx := newKeyedFixture(f, st, QueryLimits{SPARQLTimeout: 200 * time.Millisecond, SPARQLMaxRows: 50})
	f.Fuzz(func(t *testing.T, query, ctype, format string) {
		body := query
		if ctype == "application/x-www-form-urlencoded" {
			body = url.Values{"query": {query}}.Encode()
		}
		req := httptest.NewRequest("POST", "/v1/sparql?"+url.Values{"format": {format}}.Encode(), strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Authorization", "Bearer "+fx.tokens["read"])
		rec := httptest.NewRecorder()
		fx.srv.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != 503 {
			t.Fatalf("%q (%s, format %q): %d %s", query, ctype, format, rec.Code, rec.Body)
		}
	})
}
