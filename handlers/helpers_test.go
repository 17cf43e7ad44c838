package handlers

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/molgraph/molgraph/auth"
)

// clock is a settable time source for key expiry.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// readyFunc adapts a function to Readier.
type readyFunc func(context.Context) error

func (f readyFunc) Ready(ctx context.Context) error { return f(ctx) }

// fixture is a Server with a real keyring holding one key per case.
type fixture struct {
	srv    *Server
	keys   *auth.Keyring
	clock  *clock
	tokens map[string]string // read, write, admin, expired, revoked
}

func newFixture(t *testing.T, mutate func(*Config)) *fixture {
	t.Helper()
	c := &clock{now: time.Now()}
	kr, err := auth.Open(t.TempDir(), auth.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{keys: kr, clock: c, tokens: map[string]string{}}
	for _, sc := range auth.Scopes() {
		_, tok, err := kr.Create(auth.NewKey{Name: string(sc), Scopes: []auth.Scope{sc}})
		if err != nil {
			t.Fatal(err)
		}
		f.tokens[string(sc)] = tok
	}
	_, tok, err := kr.Create(auth.NewKey{Name: "expired", Scopes: []auth.Scope{auth.ScopeAdmin}, ExpiresAt: c.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	f.tokens["expired"] = tok
	c.Add(2 * time.Minute)
	rk, tok, err := kr.Create(auth.NewKey{Name: "revoked", Scopes: []auth.Scope{auth.ScopeAdmin}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Revoke(rk.ID); err != nil {
		t.Fatal(err)
	}
	f.tokens["revoked"] = tok
	cfg := Config{Keys: kr, Store: readyFunc(func(context.Context) error { return nil }), BaseIRI: "http://example.org/"}
	if mutate != nil {
		mutate(&cfg)
	}
	f.srv, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// do sends a request with the token of who ("" for none).
func (f *fixture) do(t *testing.T, method, target, who string, body io.Reader, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	if who != "" {
		tok, ok := f.tokens[who]
		if !ok {
			tok = who
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, req)
	return rec
}

// problemOf checks that rec is a problem+json response with status and
// code and returns it.
func problemOf(t *testing.T, rec *httptest.ResponseRecorder, status int, code string) Problem {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	var p Problem
	dec := json.NewDecoder(strings.NewReader(rec.Body.String()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("problem body: %v: %s", err, rec.Body)
	}
	if p.Status != status || p.Code != code {
		t.Fatalf("problem status/code %d/%q, want %d/%q: %+v", p.Status, p.Code, status, code, p)
	}
	if p.Type != "http://example.org/problems/"+code || p.Title == "" || p.Instance == "" {
		t.Fatalf("problem type/title/instance wrong: %+v", p)
	}
	if p.RequestID == "" || p.RequestID != rec.Header().Get("X-Request-Id") {
		t.Fatalf("problem request_id %q, header %q", p.RequestID, rec.Header().Get("X-Request-Id"))
	}
	return p
}
