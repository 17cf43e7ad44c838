package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
)

// dumpGraphs are graphs with every kind of term the store holds: IRIs
// (one with non-ASCII characters), blank nodes, plain strings needing
// escapes, language-tagged strings, XSD and custom typed literals, and
// values shared between graphs (so that they are cached across batches).
func dumpGraphs(n int) []NamedGraph {
	mg := func(l string) quad.IRI { return quad.IRI(ontology.MG + l) }
	var out []NamedGraph
	for i := range n {
		g := ontology.ResourceIRI("http://example.org/", "molecule", fmt.Sprintf("mol-%04d", i))
		d := ontology.SubIRI(g, "desc")
		qs := []quad.Quad{
			{Subject: g, Predicate: ontology.RDFType, Object: mg("Molecule")},
			{Subject: g, Predicate: mg("canonicalSmiles"), Object: ontology.String(fmt.Sprintf("C%dC(=O)O", i))},
			{Subject: g, Predicate: mg("name"), Object: quad.String(fmt.Sprintf("a \"quoted\" \\ name\nline 2\r%d", i))},
			{Subject: g, Predicate: mg("label"), Object: quad.LangString{Value: quad.String(fmt.Sprintf("Molekül %d", i)), Lang: "de"}},
			{Subject: g, Predicate: mg("molecularWeight"), Object: ontology.Double(100 + float64(i%7))},
			{Subject: g, Predicate: mg("heavyAtoms"), Object: ontology.Integer(int64(i % 5))},
			{Subject: g, Predicate: mg("custom"), Object: quad.TypedString{Value: quad.String(fmt.Sprint(i % 3)), Type: "http://example.org/dt#unit"}},
			{Subject: g, Predicate: mg("seeAlso"), Object: quad.IRI(fmt.Sprintf("http://example.org/é/%d", i))},
			{Subject: g, Predicate: mg("descriptor"), Object: d},
			{Subject: d, Predicate: mg("value"), Object: ontology.Double(float64(i) / 3)},
			{Subject: d, Predicate: mg("note"), Object: quad.BNode(fmt.Sprintf("n%d", i))},
			{Subject: quad.BNode(fmt.Sprintf("n%d", i)), Predicate: mg("flag"), Object: quad.TypedString{Value: "true", Type: "http://www.w3.org/2001/XMLSchema#boolean"}},
		}
		if i%10 == 0 { // a larger graph: several chunks of the graph index
			for j := range 300 {
				qs = append(qs, quad.Quad{Subject: ontology.SubIRI(g, fmt.Sprintf("atom-%d", j)), Predicate: mg("element"), Object: ontology.String("C")})
			}
		}
		out = append(out, NamedGraph{IRI: g, Quads: qs})
	}
	return out
}

// openDumpStore opens a Badger store in a temporary directory, closed
// when the test ends, holding gs.
func openDumpStore(t *testing.T, gs []NamedGraph) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.PutGraphs(context.Background(), gs, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// allQuads is the graphs' quads labelled with their graph.
func allQuads(gs []NamedGraph) []quad.Quad {
	var out []quad.Quad
	for _, g := range gs {
		for _, q := range g.Quads {
			q.Label = g.IRI
			out = append(out, q)
		}
	}
	return out
}

// referenceLines is each quad written by rdfio's N-Quads (or N-Triples)
// writer, one line each, sorted.
func referenceLines(t *testing.T, qs []quad.Quad, f rdfio.Format) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := rdfio.WriteAll(&buf, f, qs); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	lines = lines[:len(lines)-1]
	slices.Sort(lines)
	return lines
}

func dumpLines(out []byte) []string {
	lines := strings.SplitAfter(string(out), "\n")
	return lines[:len(lines)-1]
}

// TestWriteNQuads dumps a Badger store from its ids, with batches and a
// term cache small enough that terms are formatted in many batches by
// three resolvers and the cache starts afresh, and with one batch: the lines are those rdfio's
// writer makes of the stored quads, each graph's lines are together and
// each subject's lines are together, and the dump parses back to the data.
func TestWriteNQuads(t *testing.T) {
	ctx := context.Background()
	gs := dumpGraphs(120)
	s := openDumpStore(t, gs)
	data := allQuads(gs)
	// The dump is the same whatever the batches and resolvers.
	first := map[rdfio.Format][]byte{}
	for _, lim := range []dumpLimits{{batchQuads: 40, cacheBytes: 300, resolvers: 3}, {batchQuads: exportBatchQuads, cacheBytes: exportCacheBytes, resolvers: 1}} {
		for _, f := range []rdfio.Format{rdfio.NQuads, rdfio.NTriples} {
			t.Run(fmt.Sprintf("%s/%d", f, lim.batchQuads), func(t *testing.T) {
				v, err := s.ReadView(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer v.Close()
				if n, err := v.CountGraphs(ctx); err != nil || n != len(gs) {
					t.Fatalf("CountGraphs = %d, %v; want %d", n, err, len(gs))
				}
				var buf bytes.Buffer
				var calls []DumpStats
				st, err := v.writeNQuads(ctx, &buf, f == rdfio.NTriples, lim, func(st DumpStats) { calls = append(calls, st) })
				if err != nil {
					t.Fatal(err)
				}
				if st.Graphs != len(gs) || st.Quads != int64(len(data)) {
					t.Fatalf("stats %+v, want %d graphs, %d quads", st, len(gs), len(data))
				}
				if len(calls) == 0 || calls[len(calls)-1] != st || lim.batchQuads == 40 && len(calls) < 10 {
					t.Fatalf("progress calls %v", calls)
				}
				want := data
				if f == rdfio.NTriples {
					want = make([]quad.Quad, len(data))
					for i, q := range data {
						want[i] = quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}
					}
				}
				if prev, ok := first[f]; !ok {
					first[f] = bytes.Clone(buf.Bytes())
				} else if !bytes.Equal(prev, buf.Bytes()) {
					t.Fatal("the dump differs with other batches and resolvers")
				}
				lines := dumpLines(buf.Bytes())
				sorted := slices.Clone(lines)
				slices.Sort(sorted)
				if ref := referenceLines(t, want, f); !slices.Equal(sorted, ref) {
					t.Fatalf("dump lines differ from rdfio's writer (%d vs %d lines)", len(sorted), len(ref))
				}
				if f == rdfio.NQuads {
					got, err := rdfio.ParseNQuads(bytes.NewReader(buf.Bytes()))
					if err != nil || !rdfio.Isomorphic(got, data) {
						t.Fatalf("dump does not parse back to the data: %v", err)
					}
					// Graphs, and subjects within a graph, come together.
					seen := map[string]bool{}
					prevG, prevS := "", ""
					for _, q := range got {
						g := q.Label.String()
						s := g + " " + q.Subject.String()
						if g != prevG && seen[g] || s != prevS && seen[s] {
							t.Fatalf("%s is not contiguous", s)
						}
						seen[g], seen[s], prevG, prevS = true, true, g, s
					}
				}
			})
		}
	}
}

// TestWriteNQuadsSnapshot: a dump reads its view's commit, whatever was
// written since the view was opened.
func TestWriteNQuadsSnapshot(t *testing.T) {
	ctx := context.Background()
	gs := dumpGraphs(30)
	s := openDumpStore(t, gs[:20])
	v, err := s.ReadView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	// After the view: new graphs, a deleted one, a replaced one.
	if err := s.PutGraphs(ctx, gs[20:], nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteGraph(ctx, gs[0].IRI); err != nil {
		t.Fatal(err)
	}
	if err := s.PutGraph(ctx, gs[1].IRI, gs[1].Quads[:3]); err != nil {
		t.Fatal(err)
	}
	dump := func(v *View) []quad.Quad {
		t.Helper()
		var buf bytes.Buffer
		if _, err := v.writeNQuads(ctx, &buf, false, dumpLimits{batchQuads: 50, cacheBytes: 1000, resolvers: 2}, nil); err != nil {
			t.Fatal(err)
		}
		got, err := rdfio.ParseNQuads(&buf)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := dump(v); !rdfio.Isomorphic(got, allQuads(gs[:20])) {
		t.Fatalf("the old view's dump (%d quads) is not its commit", len(got))
	}
	now := append([]NamedGraph{{IRI: gs[1].IRI, Quads: gs[1].Quads[:3]}}, gs[2:]...)
	v2, err := s.ReadView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if got := dump(v2); !rdfio.Isomorphic(got, allQuads(now)) {
		t.Fatalf("a new view's dump (%d quads) is not the last commit", len(got))
	}
}

// failingWriter fails once more than n bytes were written.
type failingWriter struct{ n int }

var errWriterFull = errors.New("writer full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errWriterFull
	}
	return len(p), nil
}

// TestWriteNQuadsErrors: a failing writer and a cancelled context stop the
// dump with their error; a backend without ids has no dump.
func TestWriteNQuadsErrors(t *testing.T) {
	ctx := context.Background()
	s := openDumpStore(t, dumpGraphs(200))
	v, err := s.ReadView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	lim := dumpLimits{batchQuads: 100, cacheBytes: 1 << 20, resolvers: 2}
	if _, err := v.writeNQuads(ctx, &failingWriter{n: 1000}, false, lim, nil); !errors.Is(err, errWriterFull) {
		t.Errorf("failing writer: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	_, err = v.writeNQuads(cctx, &bytes.Buffer{}, false, lim, func(DumpStats) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	m, err := OpenMemory(Options{})
	if err != nil {
		t.Fatal(err)
	}
	mv, err := m.ReadView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer mv.Close()
	if _, err := mv.WriteNQuads(ctx, &bytes.Buffer{}, false, nil); !errors.Is(err, ErrNoDump) {
		t.Errorf("memory backend: %v", err)
	}
}
