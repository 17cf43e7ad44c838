package handlers

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/queries/sparql"
)

// labelProc is a search procedure over the store for the endpoint test:
// its hits are the subjects of rdfs:label literals containing the input.
type labelProc struct{ st *graph.Store }

func (p labelProc) Call(ctx context.Context, c sparql.ProcCall, emit func(sparql.ProcHit) error) error {
	s, ok := c.Input.(quad.String)
	if !ok || s == "" {
		return sparql.BadCall(c, "the input must be a non-empty plain string")
	}
	return p.st.Match(ctx, graph.Pattern{Predicate: quad.IRI("http://www.w3.org/2000/01/rdf-schema#label")}, func(q quad.Quad) error {
		if l, ok := q.Object.(quad.String); ok && strings.Contains(string(l), string(s)) {
			return emit(sparql.ProcHit{Subject: q.Subject})
		}
		return nil
	})
}

// TestSPARQLProcedures: Config.SPARQLProcedures reach the engine, and a
// bad call is 400 invalid_query naming the procedure.
func TestSPARQLProcedures(t *testing.T) {
	st, _ := loadQueryGraph(t)
	f := newFixture(t, func(c *Config) {
		c.Graph = st
		c.SPARQLProcedures = sparql.Procedures{"http://t/label": labelProc{st}}
	})
	// Every labelled resource: the procedure's hits equal the plain
	// pattern's answer.
	get := func(q string) sparqlJSON {
		rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
		}
		return decodeResults(t, rec.Body.Bytes())
	}
	viaProc := get(`SELECT DISTINCT ?s { ?s <http://t/label> "e" }`).column("s")
	plain := get(`SELECT DISTINCT ?s { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l FILTER(CONTAINS(?l, "e")) }`).column("s")
	if len(plain) == 0 || strings.Join(viaProc, " ") != strings.Join(plain, " ") {
		t.Fatalf("procedure hits %q, want %q", viaProc, plain)
	}
	p := problemOf(t, f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {`SELECT ?s { ?s <http://t/label> 3 }`}}.Encode(), "read", nil), 400, "invalid_query")
	if !strings.Contains(p.Detail, "http://t/label") {
		t.Fatalf("detail %q", p.Detail)
	}
}
