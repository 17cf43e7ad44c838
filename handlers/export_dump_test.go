package handlers

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
)

// TestExportDump is TestExport on a Badger store, whose N-Quads and
// N-Triples exports are dumped from the store's ids (graph.View.WriteNQuads):
// the dump parses back to the data, the graph header and the quad trailer
// count it, and Turtle still goes through the per-graph path.
func TestExportDump(t *testing.T) {
	in, err := os.Open(queryGraphFile)
	if err != nil {
		t.Fatal(err)
	}
	data, err := rdfio.ParseNQuads(in)
	in.Close()
	if err != nil {
		t.Fatal(err)
	}
	st, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	byGraph := map[quad.IRI][]quad.Quad{}
	for _, q := range data {
		byGraph[q.Label.(quad.IRI)] = append(byGraph[q.Label.(quad.IRI)], q)
	}
	var gs []graph.NamedGraph
	for g, qs := range byGraph {
		gs = append(gs, graph.NamedGraph{IRI: g, Quads: qs})
	}
	if err := st.PutGraphs(context.Background(), gs, nil); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *Config) { c.Graph = st })
	for _, tt := range []struct {
		format string
		parse  func([]byte) ([]quad.Quad, error)
		want   []quad.Quad
	}{
		{"nquads", func(b []byte) ([]quad.Quad, error) { return rdfio.ParseNQuads(bytes.NewReader(b)) }, data},
		{"ntriples", func(b []byte) ([]quad.Quad, error) { return rdfio.ParseNTriples(bytes.NewReader(b)) }, dropGraphs(data)},
		{"turtle", func(b []byte) ([]quad.Quad, error) { return rdfio.ParseTurtle(bytes.NewReader(b), "") }, dropGraphs(data)},
	} {
		t.Run(tt.format, func(t *testing.T) {
			rec := f.do(t, "GET", "/v1/export?format="+tt.format, "admin", nil)
			if rec.Code != 200 || rec.Header().Get(ExportHeader) != strconv.Itoa(len(byGraph)) {
				t.Fatalf("%d %v", rec.Code, rec.Header())
			}
			got, err := tt.parse(rec.Body.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !rdfio.Isomorphic(got, tt.want) {
				t.Fatalf("export differs from the data (%d vs %d quads)", len(got), len(tt.want))
			}
		})
	}
	t.Run("trailer over HTTP", func(t *testing.T) {
		req, _ := http.NewRequest("GET", listenQueryFixture(t, f)+"/v1/export", nil)
		req.Header.Set("Authorization", "Bearer "+f.tokens["admin"])
		resp, err := http.DefaultClient.Do(req) // gzip, decompressed by the client
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 || !resp.Uncompressed {
			t.Fatalf("%d %v (gzip: %v)", resp.StatusCode, err, resp.Uncompressed)
		}
		if got := resp.Trailer.Get(ExportTrailer); got != strconv.Itoa(len(data)) {
			t.Fatalf("trailer %s = %q, want %d", ExportTrailer, got, len(data))
		}
		got, err := rdfio.ParseNQuads(bytes.NewReader(body))
		if err != nil || !rdfio.Isomorphic(got, data) {
			t.Fatalf("gzip dump differs: %v", err)
		}
	})
}
