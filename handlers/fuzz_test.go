package handlers

import (
	"errors"
	"strings"
	"testing"
)

func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"", "*/*", "text/turtle;q=0", `a/b;p="x,y";q=0.5, */*`, "text/*;q=0.3", ",;=\""} {
		f.Add(s)
	}
	offers := []string{"text/turtle", "application/ld+json"}
	f.Fuzz(func(t *testing.T, accept string) {
		got, ok := negotiate(accept, offers)
		if ok != (got != "") {
			t.Fatalf("negotiate(%q) = %q %v", accept, got, ok)
		}
		if ok && got != offers[0] && got != offers[1] {
			t.Fatalf("negotiate(%q) returned %q, not an offer", accept, got)
		}
	})
}

func FuzzDecodeJSONBody(f *testing.F) {
	for _, s := range []string{`{"name": "a", "scopes": ["read"]}`, `{"name": 1}`, `{`, ``, `[]`, `{"x": 1}`,
		`{"name": "a"} {}`, `{"expires_at": "2020-01-01T00:00:00Z"}`, `null`, `"\u0000"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var v keyCreateRequest
		err := decodeJSONBody(strings.NewReader(body), &v)
		if err == nil {
			return
		}
		if status, _ := classify(err); status != 400 {
			t.Fatalf("decode %q: %v maps to %d, want 400", body, err, status)
		}
		if !errors.Is(err, ErrBadRequest) && !errors.Is(err, ErrMalformedJSON) {
			t.Fatalf("decode %q: unexpected error %v", body, err)
		}
	})
}
