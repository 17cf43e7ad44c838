package handlers

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/rdfio"
)

// dropGraphs drops graph labels.
func dropGraphs(qs []quad.Quad) []quad.Quad {
	out := make([]quad.Quad, len(qs))
	for i, q := range qs {
		out[i] = quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}
	}
	return out
}

// The export, read back by our parsers (and by rapper when installed), is
// the data file: all quads with their graphs (N-Quads, JSON-LD) or all
// triples (Turtle, N-Triples).
func TestExport(t *testing.T) {
	f, data := newQueryFixture(t, QueryLimits{})
	tests := []struct {
		format, ctype, rapper string
		parse                 func([]byte) ([]quad.Quad, error)
		keepsGraphs           bool
	}{
		{"", "application/n-quads", "nquads", func(b []byte) ([]quad.Quad, error) { return rdfio.ParseNQuads(bytes.NewReader(b)) }, true},
		{"nquads", "application/n-quads", "nquads", func(b []byte) ([]quad.Quad, error) { return rdfio.ParseNQuads(bytes.NewReader(b)) }, true},
		{"ntriples", "application/n-triples", "ntriples", func(b []byte) ([]quad.Quad, error) { return rdfio.ParseNTriples(bytes.NewReader(b)) }, false},
		{"turtle", "text/turtle; charset=utf-8", "turtle", func(b []byte) ([]quad.Quad, error) { return rdfio.ParseTurtle(bytes.NewReader(b), "") }, false},
		{"jsonld", "application/ld+json", "", func(b []byte) ([]quad.Quad, error) { return rdfio.ParseJSONLD(bytes.NewReader(b), "") }, true},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			path := "/v1/export"
			if tt.format != "" {
				path += "?format=" + tt.format
			}
			rec := f.do(t, "GET", path, "admin", nil)
			if rec.Code != 200 || rec.Header().Get("Content-Type") != tt.ctype || rec.Header().Get(ExportHeader) != "9" {
				t.Fatalf("%d %v", rec.Code, rec.Header())
			}
			if rec.Header().Get("Content-Encoding") != "" {
				t.Fatal("compressed without Accept-Encoding")
			}
			got, err := tt.parse(rec.Body.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, rec.Body)
			}
			want := data
			if !tt.keepsGraphs {
				want = dropGraphs(data)
			}
			if !rdfio.Isomorphic(got, want) {
				t.Fatalf("export differs from the data (%d vs %d quads)", len(got), len(want))
			}
			if tt.rapper != "" {
				if _, err := exec.LookPath("rapper"); err == nil {
					cmd := exec.Command("rapper", "-q", "-i", tt.rapper, "-c", "-", "http://example.org/")
					cmd.Stdin = bytes.NewReader(rec.Body.Bytes())
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("rapper: %v %s", err, out)
					}
				}
			}
		})
	}
	t.Run("gzip", func(t *testing.T) {
		rec := f.do(t, "GET", "/v1/export?format=nt", "admin", nil, "Accept-Encoding", "br;q=1.0, gzip;q=0.8")
		if rec.Code != 200 || rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Vary") != "Accept-Encoding" {
			t.Fatalf("%d %v", rec.Code, rec.Header())
		}
		zr, err := gzip.NewReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rdfio.ParseNTriples(bytes.NewReader(plain))
		if err != nil || !rdfio.Isomorphic(got, dropGraphs(data)) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("gzip refused with q=0", func(t *testing.T) {
		rec := f.do(t, "GET", "/v1/export", "admin", nil, "Accept-Encoding", "gzip;q=0, identity")
		if rec.Header().Get("Content-Encoding") != "" {
			t.Fatal("gzip despite q=0")
		}
	})
	t.Run("errors", func(t *testing.T) {
		problemOf(t, f.do(t, "GET", "/v1/export?format=rdfxml", "admin", nil), 400, "invalid_request")
		problemOf(t, f.do(t, "GET", "/v1/export", "read", nil), 403, "forbidden")
	})
	t.Run("trailer over HTTP", func(t *testing.T) {
		url := listenQueryFixture(t, f)
		req, _ := http.NewRequest("GET", url+"/v1/export", nil)
		req.Header.Set("Authorization", "Bearer "+f.tokens["admin"])
		resp, err := http.DefaultClient.Do(req) // the client asks for gzip and decompresses
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d %v", resp.StatusCode, err)
		}
		if !resp.Uncompressed {
			t.Error("the transport did not receive gzip")
		}
		if got := resp.Trailer.Get(ExportTrailer); got != strconv.Itoa(len(data)) {
			t.Fatalf("trailer %s = %q, want %d", ExportTrailer, got, len(data))
		}
		if n := strings.Count(string(body), "\n"); n != len(data) {
			t.Fatalf("%d lines", n)
		}
	})
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "deflate, gzip;q=0.5": true, "gzip;q=0": false,
		"*": true, "*;q=0": false, "identity": false, "x-gzip": false, "br, gzip ; q=0.001": true,
	} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestOntologyRoutes(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{})
	for _, path := range []string{"/v1/ontology", "/v1/shapes"} {
		for _, accept := range []string{"", "application/n-triples", "application/ld+json"} {
			rec := f.do(t, "GET", path, "read", nil, "Accept", accept)
			if rec.Code != 200 {
				t.Fatalf("%s %s: %d %s", path, accept, rec.Code, rec.Body)
			}
			qs := parseRDFAnswer(t, rec.Header().Get("Content-Type"), rec.Body.Bytes())
			if len(qs) < 10 {
				t.Fatalf("%s %s: %d triples", path, accept, len(qs))
			}
			if accept == "" {
				rapperCheck(t, rec.Body.Bytes())
			}
		}
	}
	rec := f.do(t, "GET", "/v1/context.jsonld", "read", nil)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/ld+json" || !strings.Contains(rec.Body.String(), `"@context"`) {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
