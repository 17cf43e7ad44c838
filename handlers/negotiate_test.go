package handlers

import (
	"errors"
	"net/http/httptest"
	"testing"
)

func TestNegotiate(t *testing.T) {
	offers := []string{"text/turtle", "application/ld+json", "application/n-triples"}
	tests := []struct {
		accept, want string
	}{
		{"", "text/turtle"},
		{"*/*", "text/turtle"},
		{"application/ld+json", "application/ld+json"},
		{"application/n-triples, application/ld+json;q=0.9", "application/n-triples"},
		{"application/ld+json;q=0.5, application/n-triples;q=0.8", "application/n-triples"},
		{"application/*;q=0.9, text/turtle;q=0.1", "application/ld+json"},
		// text/turtle excluded by q=0 even though */* would admit it.
		{"text/turtle;q=0, */*;q=0.1", "application/ld+json"},
		// RFC 9110: the most specific range sets an offer's quality.
		{"text/*;q=0.2, text/turtle;q=0.9, */*;q=0.5", "text/turtle"},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/turtle"},
		{"TEXT/TURTLE", "text/turtle"},
		{"text/html", ""},
		{"text/turtle;q=abc, application/ld+json", "application/ld+json"},
		{"text/turtle;q=2", ""},
		{`application/ld+json;profile="a,b", text/turtle;q=0.1`, "text/turtle"},
		{",,,;;;", ""},
		{"*/turtle", ""},
	}
	for _, tt := range tests {
		got, ok := negotiate(tt.accept, offers)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("negotiate(%q) = %q %v, want %q", tt.accept, got, ok, tt.want)
		}
	}
}

func TestPickFormat(t *testing.T) {
	formats := []format{
		{name: "turtle", aliases: []string{"ttl"}, mediaType: "text/turtle"},
		{name: "jsonld", aliases: []string{"json-ld"}, mediaType: "application/ld+json"},
		{name: "ntriples", aliases: []string{"nt"}, mediaType: "application/n-triples"},
	}
	tests := []struct {
		target, accept, want string
		err                  error
	}{
		{"/x", "", "turtle", nil},
		{"/x?format=TTL", "application/ld+json", "turtle", nil},
		{"/x?format=json-ld", "", "jsonld", nil},
		{"/x", "application/n-triples", "ntriples", nil},
		{"/x?format=rdfxml", "", "", ErrBadRequest},
		{"/x", "image/png", "", ErrNotAcceptable},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", tt.target, nil)
		if tt.accept != "" {
			r.Header.Set("Accept", tt.accept)
		}
		got, err := pickFormat(r, formats)
		if !errors.Is(err, tt.err) || got.name != tt.want {
			t.Errorf("%s Accept %q: %q %v, want %q %v", tt.target, tt.accept, got.name, err, tt.want, tt.err)
		}
	}
}
