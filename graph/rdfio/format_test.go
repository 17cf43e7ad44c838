package rdfio

import (
	"errors"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	cases := map[string]Format{
		"turtle": Turtle, "ttl": Turtle, "TTL": Turtle, "jsonld": JSONLD, "json-ld": JSONLD,
		"ntriples": NTriples, "nt": NTriples, "nquads": NQuads, "nq": NQuads,
	}
	for name, want := range cases {
		if got, err := ParseFormat(name); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	_, err := ParseFormat("rdfxml")
	if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "turtle, ttl, jsonld, json-ld, ntriples, nt, nquads, nq") {
		t.Errorf("unknown format: %v", err)
	}
	for _, f := range Formats() {
		if back, err := ParseFormat(f.String()); err != nil || back != f {
			t.Errorf("%v does not round-trip through its name", f)
		}
	}
}

func TestFormatForMediaType(t *testing.T) {
	triples := []Format{Turtle, JSONLD, NTriples}
	cases := []struct {
		accept string
		offers []Format
		want   Format
		err    error
	}{
		{"", triples, Turtle, nil},
		{"*/*", triples, Turtle, nil},
		{"text/turtle", triples, Turtle, nil},
		{"application/ld+json", triples, JSONLD, nil},
		{"application/n-triples", triples, NTriples, nil},
		{"application/n-triples;q=0.9, application/ld+json", triples, JSONLD, nil},
		{"text/turtle;q=0.5, application/ld+json;q=0.8, */*;q=0.1", triples, JSONLD, nil},
		{"text/*", triples, Turtle, nil},
		{"application/*;q=0.9, text/turtle;q=0.2", triples, JSONLD, nil},
		{"text/html, application/xhtml+xml, */*;q=0.8", triples, Turtle, nil},
		{"application/n-quads", triples, 0, ErrNotAcceptable},
		{"application/n-quads", nil, NQuads, nil},
		{"text/turtle;q=0", triples, 0, ErrNotAcceptable},
		{"text/turtle;q=0, */*", triples, JSONLD, nil},
		{"image/png", triples, 0, ErrNotAcceptable},
		{"application/json", triples, JSONLD, nil},
		{"TEXT/Turtle; charset=utf-8", triples, Turtle, nil},
	}
	for _, c := range cases {
		got, err := FormatForMediaType(c.accept, c.offers...)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%q: got %v, %v; want error %v", c.accept, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %v, %v; want %v", c.accept, got, err, c.want)
		}
	}
	if mt := Turtle.MediaType(); mt != "text/turtle; charset=utf-8" {
		t.Errorf("turtle media type %q", mt)
	}
}
