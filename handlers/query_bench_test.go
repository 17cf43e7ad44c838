package handlers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
)

// BenchmarkSPARQLEndpoint is the whole request path (auth, parsing,
// evaluation, JSON, spool) for a one-pattern query on the fixture graph.
func BenchmarkSPARQLEndpoint(b *testing.B) {
	st, _ := loadQueryGraph(b)
	f := newBenchFixture(b, st)
	target := "/v1/sparql?" + url.Values{"query": {prefixes + `SELECT ?w WHERE { <` + aspirin + `> mg:molecularWeight ?w }`}}.Encode()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest("GET", target, nil)
		req.Header.Set("Authorization", "Bearer "+f.tokens["read"])
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code, rec.Body)
		}
	}
}

// newBenchFixture is newFixture for benchmarks: a read and an admin key.
func newBenchFixture(b *testing.B, st *graph.Store) *fixture {
	return newKeyedFixture(b, st, QueryLimits{})
}

// newKeyedFixture is a server over st with a read and an admin key, for
// benchmarks and fuzz targets (newFixture needs a *testing.T).
func newKeyedFixture(b testing.TB, st *graph.Store, lim QueryLimits) *fixture {
	kr, err := auth.Open(b.TempDir(), auth.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f := &fixture{keys: kr, tokens: map[string]string{}}
	for _, sc := range []auth.Scope{auth.ScopeRead, auth.ScopeAdmin} {
		_, tok, err := kr.Create(auth.NewKey{Name: string(sc), Scopes: []auth.Scope{sc}})
		if err != nil {
			b.Fatal(err)
		}
		f.tokens[string(sc)] = tok
	}
	if f.srv, err = New(Config{Keys: kr, BaseIRI: "http://example.org/", Graph: st, Query: lim}); err != nil {
		b.Fatal(err)
	}
	return f
}

// syntheticMolecules stores n molecule graphs of 13 quads each, shaped as
// GRAPH.md describes (shortcuts plus one descriptor node).
func syntheticMolecules(b *testing.B, st *graph.Store, n int) int {
	base := "http://example.org/"
	var graphs []graph.NamedGraph
	total := 0
	for i := range n {
		m := ontology.ResourceIRI(base, ontology.KindMolecule, fmt.Sprintf("mol-%07d", i))
		mw := ontology.SubIRI(m, "mw")
		p := func(l string) quad.IRI { return quad.IRI(ontology.MG + l) }
		qs := []quad.Quad{
			{Subject: m, Predicate: ontology.RDFType, Object: p("Molecule")},
			{Subject: m, Predicate: p("canonicalSmiles"), Object: ontology.String(fmt.Sprintf("C%dCCO", i))},
			{Subject: m, Predicate: p("inchiKey"), Object: ontology.String(fmt.Sprintf("AAAAAAAAAAAAAA-%010d-N", i))},
			{Subject: m, Predicate: p("molecularWeight"), Object: ontology.Double(100 + float64(i%500))},
			{Subject: m, Predicate: p("logP"), Object: ontology.Double(float64(i%70)/10 - 2)},
			{Subject: m, Predicate: p("qed"), Object: ontology.Double(float64(i%100) / 100)},
			{Subject: m, Predicate: p("hbd"), Object: ontology.Integer(int64(i % 5))},
			{Subject: m, Predicate: p("validated"), Object: ontology.Boolean(true)},
			{Subject: m, Predicate: p("has3D"), Object: ontology.Boolean(false)},
			{Subject: m, Predicate: quad.IRI(ontology.SIO + "SIO_000008"), Object: mw},
			{Subject: mw, Predicate: ontology.RDFType, Object: quad.IRI(ontology.SIO + "CHEMINF_000334")},
			{Subject: mw, Predicate: quad.IRI(ontology.SIO + "SIO_000300"), Object: ontology.Double(100 + float64(i%500))},
			{Subject: mw, Predicate: quad.IRI(ontology.SIO + "SIO_000221"), Object: quad.IRI(ontology.UNIT + "DA")},
		}
		total += len(qs)
		graphs = append(graphs, graph.NamedGraph{IRI: m, Quads: qs})
	}
	if err := st.PutGraphs(context.Background(), graphs, nil); err != nil {
		b.Fatal(err)
	}
	return total
}

// BenchmarkExport measures the export path (N-Quads: the dump from ids;
// the others: list graphs, read each, sort, serialize) on a Badger store
// of 5,000 molecules (65,000 quads).
func BenchmarkExport(b *testing.B) {
	st, err := graph.Open(b.TempDir(), graph.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	n := syntheticMolecules(b, st, 5000)
	for _, f := range []rdfio.Format{rdfio.NQuads, rdfio.Turtle, rdfio.JSONLD} {
		b.Run(f.String(), func(b *testing.B) {
			var bytes int64
			for b.Loop() {
				cw := &countWriter{}
				st, err := Export(context.Background(), st, cw, f, nil)
				if err != nil || st.Quads != int64(n) {
					b.Fatal(err, st)
				}
				bytes = cw.n
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "quads/s")
			b.ReportMetric(float64(bytes)/1e6, "MB")
		})
	}
}

// BenchmarkEndpointsHTTP measures, over a real loopback listener on a
// Badger store of 5,000 molecules: a one-pattern SPARQL SELECT, a filtered
// GraphQL page, and the N-Quads export with and without gzip.
func BenchmarkEndpointsHTTP(b *testing.B) {
	st, err := graph.Open(b.TempDir(), graph.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	n := syntheticMolecules(b, st, 5000)
	f := newKeyedFixture(b, st, QueryLimits{})
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	get := func(b *testing.B, path, key string, gzip bool) int64 {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+f.tokens[key])
		if !gzip {
			req.Header.Set("Accept-Encoding", "identity")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		nb, _ := io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != 200 {
			b.Fatal(resp.Status)
		}
		return nb
	}
	b.Run("sparql-one-pattern", func(b *testing.B) {
		path := "/v1/sparql?" + url.Values{"query": {prefixes + `SELECT ?w WHERE { <http://example.org/id/molecule/mol-0000042> mg:molecularWeight ?w }`}}.Encode()
		for b.Loop() {
			get(b, path, "read", false)
		}
	})
	b.Run("sparql-filter-5000", func(b *testing.B) {
		path := "/v1/sparql?" + url.Values{"query": {prefixes + `SELECT ?m WHERE { ?m mg:molecularWeight ?w ; mg:logP ?l . FILTER(?w < 300 && ?l < 3) }`}}.Encode()
		for b.Loop() {
			get(b, path, "read", false)
		}
	})
	b.Run("graphql-filtered-page", func(b *testing.B) {
		path := "/v1/graphql?" + url.Values{"query": {`{ molecules(first: 100, mwLt: 300) { nodes { id mw logp smiles } } }`}}.Encode()
		for b.Loop() {
			get(b, path, "read", false)
		}
	})
	for _, gz := range []bool{false, true} {
		b.Run(fmt.Sprintf("export-nquads-gzip=%v", gz), func(b *testing.B) {
			var nb int64
			for b.Loop() {
				nb = get(b, "/v1/export", "admin", gz)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "quads/s")
			b.ReportMetric(float64(nb)/1e6, "MB")
		})
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
