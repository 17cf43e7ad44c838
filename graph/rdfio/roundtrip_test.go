package rdfio

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
)

// dropLabels returns the triples of qs (graph labels removed).
func dropLabels(qs []quad.Quad) []quad.Quad {
	out := make([]quad.Quad, len(qs))
	for i, q := range qs {
		q.Label = nil
		out[i] = q
	}
	return out
}

func writeAll(t *testing.T, f Format, qs []quad.Quad) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteAll(&buf, f, qs); err != nil {
		t.Fatalf("write %v: %v", f, err)
	}
	return buf.Bytes()
}

// hasNUL reports whether a literal holds U+0000, which rapper 2.0.15
// truncates (rdf-conformance/README.md).
func hasNUL(qs []quad.Quad) bool {
	for _, q := range qs {
		if strings.Contains(termKey(q.Object), "\x00") {
			return true
		}
	}
	return false
}

// rapperNT runs `rapper -q -i <syntax> -o ntriples - <base>` on data and
// returns what it printed; it fails the test when rapper rejects the input.
func rapperNT(t *testing.T, syntax string, data []byte) []byte {
	t.Helper()
	path, err := exec.LookPath("rapper")
	if err != nil {
		t.Fatalf("rapper (Debian raptor2-utils) is required: %v", err)
	}
	cmd := exec.Command(path, "-q", "-i", syntax, "-o", "ntriples", "-", "http://example.org/base/")
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("rapper rejects our %s: %v\n%s\ninput:\n%s", syntax, err, stderr.Bytes(), data)
	}
	return stdout.Bytes()
}

// roundTrip writes qs in every format, reads each back with our parsers,
// checks the result is isomorphic to qs, and has rapper read the Turtle
// and N-Triples output.
func roundTrip(t *testing.T, qs []quad.Quad) {
	t.Helper()
	triples := dropLabels(qs)
	sorted := append([]quad.Quad(nil), triples...)
	SortQuads(sorted)

	ttl := writeAll(t, Turtle, sorted)
	back, err := ParseTurtle(bytes.NewReader(ttl), "")
	if err != nil {
		t.Fatalf("our Turtle does not parse: %v\n%s", err, ttl)
	}
	if !Isomorphic(back, triples) {
		t.Fatalf("Turtle round trip differs:\n%s", ttl)
	}
	// Unsorted input must give the same graph too (groups just repeat).
	ttl2 := writeAll(t, Turtle, triples)
	if back2, err := ParseTurtle(bytes.NewReader(ttl2), ""); err != nil || !Isomorphic(back2, triples) {
		t.Fatalf("unsorted Turtle round trip differs (err %v):\n%s", err, ttl2)
	}

	nt := writeAll(t, NTriples, triples)
	if back, err := ParseNTriples(bytes.NewReader(nt)); err != nil || !Isomorphic(back, triples) {
		t.Fatalf("N-Triples round trip differs (err %v):\n%s", err, nt)
	}
	nq := writeAll(t, NQuads, qs)
	if back, err := ParseNQuads(bytes.NewReader(nq)); err != nil || !Isomorphic(back, qs) {
		t.Fatalf("N-Quads round trip differs (err %v):\n%s", err, nq)
	}

	jl := writeAll(t, JSONLD, triples)
	if back, err := ParseJSONLD(bytes.NewReader(jl), ""); err != nil || !Isomorphic(back, triples) {
		t.Fatalf("JSON-LD expansion differs from the triples (err %v):\n%s\nwant:\n%s", err, jl, nt)
	}

	if hasNUL(qs) {
		return // rapper truncates literals at U+0000
	}
	for _, c := range []struct {
		syntax string
		data   []byte
	}{{"turtle", ttl}, {"ntriples", nt}} {
		out := rapperNT(t, c.syntax, c.data)
		got, err := ParseNTriples(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("rapper output does not parse: %v\n%s", err, out)
		}
		if !Isomorphic(got, triples) {
			t.Fatalf("rapper reads a different graph from our %s:\n%s\nrapper:\n%s", c.syntax, c.data, out)
		}
	}
}
