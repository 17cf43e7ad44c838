package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
)

// testGraph is the GRAPH.md-shaped fixture of the query packages.
const testGraph = "../../queries/graphql/testdata/graph.nq"

// seedDataDir writes testGraph into a Badger store in dir, one named graph
// per resource, and returns the quads.
func seedDataDir(t *testing.T, dir string) []quad.Quad {
	t.Helper()
	f, err := os.Open(testGraph)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := rdfio.ParseNQuads(f)
	if err != nil {
		t.Fatal(err)
	}
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byGraph := map[quad.IRI][]quad.Quad{}
	for _, q := range qs {
		byGraph[q.Label.(quad.IRI)] = append(byGraph[q.Label.(quad.IRI)], q)
	}
	for g, gq := range byGraph {
		if err := st.PutGraph(context.Background(), g, gq); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return qs
}

func readExport(t *testing.T, path string, f rdfio.Format) []quad.Quad {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var qs []quad.Quad
	err = rdfio.Parse(bytes.NewReader(b), f, rdfio.ParseOptions{}, func(q quad.Quad) error {
		qs = append(qs, q)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return qs
}

func triples(qs []quad.Quad) []quad.Quad {
	out := make([]quad.Quad, len(qs))
	for i, q := range qs {
		out[i] = quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}
	}
	return out
}

// TestExportCLI exports from the data directory, then from a running
// server (the real binary) on the same directory, where the local path is
// refused because Badger holds the directory lock.
func TestExportCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	data := seedDataDir(t, dir)
	out := t.TempDir()

	nq := filepath.Join(out, "dump.nq")
	code, _, errOut := runCLI(t, nil, "export", "--data-dir", dir, nq)
	if code != 0 {
		t.Fatalf("local export: %d %s", code, errOut)
	}
	if !rdfio.Isomorphic(readExport(t, nq, rdfio.NQuads), data) {
		t.Fatal("local N-Quads export differs from the data")
	}
	if !strings.Contains(errOut, "graphs") || !strings.Contains(errOut, "exported 75 quads from 9 graphs") {
		t.Fatalf("progress/summary on stderr: %q", errOut)
	}
	ttl := filepath.Join(out, "dump.ttl")
	if code, _, errOut := runCLI(t, nil, "export", "--data-dir", dir, "--quiet", ttl); code != 0 {
		t.Fatalf("turtle: %s", errOut)
	}
	if !rdfio.Isomorphic(readExport(t, ttl, rdfio.Turtle), triples(data)) {
		t.Fatal("Turtle export differs")
	}
	for _, bad := range [][]string{
		{"export", "--data-dir", dir},
		{"export", "--data-dir", dir, "--format", "rdfxml", "x"},
		{"export", "--server", "ftp://host/", "--key", "k", filepath.Join(out, "x.nq")},
	} {
		if code, _, _ := runCLI(t, nil, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}

	srv := startServer(t, buildBinary(t), dir)
	defer srv.stop(t)
	code, _, errOut = runCLI(t, nil, "export", "--data-dir", dir, "--quiet", filepath.Join(out, "locked.nq"))
	if code != 1 || !strings.Contains(errOut, "--server") {
		t.Fatalf("local export while serving: %d %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "locked.nq")); !os.IsNotExist(err) {
		t.Fatal("a failed export left its file")
	}
	gz := filepath.Join(out, "remote.jsonld.gz")
	code, _, errOut = runCLI(t, nil, "export", "--data-dir", dir, "--server", srv.url, gz)
	if code != 0 {
		t.Fatalf("remote export: %d %s", code, errOut)
	}
	if !rdfio.Isomorphic(readExport(t, gz, rdfio.JSONLD), data) {
		t.Fatal("remote JSON-LD export differs")
	}
	code, _, errOut = runCLI(t, map[string]string{"MOLGRAPH_API_KEY": "mgk_wrong-key-0000000000000000000000000000000"},
		"export", "--server", srv.url, "--quiet", filepath.Join(out, "denied.nq"))
	if code != 1 || !strings.Contains(errOut, "401") {
		t.Fatalf("bad key: %d %q", code, errOut)
	}
}
