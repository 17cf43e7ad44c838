package handlers

import (
	"net/url"
	"strings"
	"testing"
)

// TestSPARQLQueryTooLarge: the query-text cap applies to every way a
// query arrives and is checked before parsing. The 4 MB case is the crash
// of issue 15 (2,000,000 nested parentheses): now a 413 naming the limit.
func TestSPARQLQueryTooLarge(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{})
	crash := "SELECT * WHERE { FILTER(" + strings.Repeat("(", 2_000_000) + "1" + strings.Repeat(")", 2_000_000) + ") }"
	long := "SELECT * WHERE { ?s ?p ?o } #" + strings.Repeat("x", DefaultSPARQLMaxQuery) // a comment: valid, but too long
	for _, tc := range []struct {
		name   string
		method string
		target string
		body   string
		hdr    []string
	}{
		{"direct body", "POST", "/v1/sparql", crash, []string{"Content-Type", sparqlType}},
		{"direct body, comment", "POST", "/v1/sparql", long, []string{"Content-Type", sparqlType}},
		{"form body", "POST", "/v1/sparql", url.Values{"query": {long}}.Encode(), []string{"Content-Type", sparqlFormType}},
		{"form body, percent-encoded", "POST", "/v1/sparql", url.Values{"query": {crash}}.Encode(), []string{"Content-Type", sparqlFormType}},
		{"GET", "GET", "/v1/sparql?" + url.Values{"query": {long}}.Encode(), "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := problemOf(t, f.do(t, tc.method, tc.target, "read", strings.NewReader(tc.body), tc.hdr...), 413, "query_too_large")
			if !strings.Contains(p.Detail, "1048576 bytes") {
				t.Fatalf("the detail does not name the limit: %q", p.Detail)
			}
		})
	}
	// A form body whose query fits (percent-encoding makes it longer than
	// the cap) is accepted.
	fits := "SELECT * WHERE { ?s ?p ?o } LIMIT 1 #" + strings.Repeat("{", DefaultSPARQLMaxQuery-100)
	rec := f.do(t, "POST", "/v1/sparql", "read", strings.NewReader(url.Values{"query": {fits}}.Encode()), "Content-Type", sparqlFormType)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	// A configured cap.
	small, _ := newQueryFixture(t, QueryLimits{SPARQLMaxQuery: 100})
	p := problemOf(t, small.do(t, "POST", "/v1/sparql", "read", strings.NewReader("SELECT * { ?s ?p ?o } #"+strings.Repeat("x", 100)), "Content-Type", sparqlType), 413, "query_too_large")
	if !strings.Contains(p.Detail, "at most 100 bytes") {
		t.Fatalf("%q", p.Detail)
	}
}

// TestSPARQLDeepNesting: queries nested past the parser's limit, under the
// text cap (100,000 levels), are 400 malformed_query whose errors[0] gives
// the position and names the limit; before the limit, nested parentheses
// or groups overflowed the Go stack and killed the process.
func TestSPARQLDeepNesting(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{})
	const n = 100_000
	for name, q := range map[string]string{
		"parentheses": "SELECT * WHERE { FILTER(" + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + ") }",
		"groups":      "SELECT * WHERE " + strings.Repeat("{", n) + strings.Repeat("}", n),
		"unary":       "ASK { FILTER(" + strings.Repeat("!", n) + "true) }",
		"collections": "ASK { ?s ?p " + strings.Repeat("(", n) + strings.Repeat(")", n) + " }",
		"bnode lists": "ASK { ?s ?p " + strings.Repeat("[ ?p ", n) + "1" + strings.Repeat("]", n) + " }",
		"paths":       "ASK { ?s " + strings.Repeat("(", n) + "?p" + strings.Repeat(")", n) + " ?o }",
	} {
		t.Run(name, func(t *testing.T) {
			rec := f.do(t, "POST", "/v1/sparql", "read", strings.NewReader(q), "Content-Type", sparqlType)
			p := problemOf(t, rec, 400, "malformed_query")
			if len(p.Errors) != 1 || !strings.HasPrefix(p.Errors[0].Message, "line 1, column ") || !strings.Contains(p.Errors[0].Message, "256 levels") {
				t.Fatalf("errors %+v", p.Errors)
			}
		})
	}
}

// TestSPARQLLiteralLimit: the doubling query of issue 15 answers at once
// with the over-long steps unbound (SPARQL's error semantics), through the
// endpoint and its configured limit.
func TestSPARQLLiteralLimit(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{SPARQLMaxLiteral: 1 << 10})
	var b strings.Builder
	b.WriteString(`SELECT ?n9 ?v32 WHERE { BIND("ab" AS ?v0) `)
	for i := 0; i < 32; i++ {
		b.WriteString("BIND(CONCAT(?v" + queryItoa(i) + ", ?v" + queryItoa(i) + ") AS ?v" + queryItoa(i+1) + ") ")
	}
	b.WriteString("BIND(STRLEN(?v9) AS ?n9) }")
	rec := f.do(t, "POST", "/v1/sparql", "read", strings.NewReader(b.String()), "Content-Type", sparqlType)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	res := decodeResults(t, rec.Body.Bytes())
	if got := res.column("n9"); len(got) != 1 || got[0] != "1024" {
		t.Fatalf("n9 %v", got)
	}
	if got := res.column("v32"); len(got) != 1 || got[0] != "" {
		t.Fatalf("v32 %v", got)
	}
}

// TestSPARQLMemoryBudget: a query whose tables pass the per-query budget
// is 400 query_memory_exceeded naming the budget; the same query within
// the default budget answers.
func TestSPARQLMemoryBudget(t *testing.T) {
	q := "SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?o"
	small, _ := newQueryFixture(t, QueryLimits{SPARQLMaxMemory: 4 << 10})
	p := problemOf(t, small.do(t, "GET", "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil), 400, "query_memory_exceeded")
	if !strings.Contains(p.Detail, "4096 bytes") || !strings.Contains(p.Detail, "MOLGRAPH_SPARQL_MAX_MEMORY") {
		t.Fatalf("detail %q", p.Detail)
	}
	f, _ := newQueryFixture(t, QueryLimits{})
	if rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil); rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
