package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/graph"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{fmt.Errorf("get molecule: %w", graph.ErrNotFound), 404, "not_found"},
		{fmt.Errorf("put: %w", graph.ErrInvalidQuad), 422, "invalid_data"},
		{fmt.Errorf("read: %w", graph.ErrClosed), 503, "unavailable"},
		{fmt.Errorf("authenticate: %w", auth.ErrExpired), 401, "unauthorized"},
		{fmt.Errorf("authenticate: %w", auth.ErrRevoked), 401, "unauthorized"},
		{ErrUnauthorized, 401, "unauthorized"},
		{&auth.ScopeError{Need: auth.ScopeAdmin}, 403, "forbidden"},
		{fmt.Errorf("revoke: %w", auth.ErrNotFound), 404, "key_not_found"},
		{fmt.Errorf("create: %w", auth.ErrInvalid), 400, "invalid_request"},
		{&http.MaxBytesError{Limit: 10}, 413, "body_too_large"},
		{fmt.Errorf("x: %w", ErrMalformedJSON), 400, "malformed_json"},
		{badRequest("f", "bad"), 400, "invalid_request"},
		{&InputError{Err: ErrUnprocessable}, 422, "unprocessable"},
		{&methodError{allow: []string{"GET"}}, 405, "method_not_allowed"},
		{ErrNotAcceptable, 406, "not_acceptable"},
		{ErrConflict, 409, "conflict"},
		{ErrUnsupportedMediaType, 415, "unsupported_media_type"},
		{context.DeadlineExceeded, 503, "timeout"},
		{ErrNotReady, 503, "not_ready"},
		{errors.New("disk on fire"), 500, "internal_error"},
		{fmt.Errorf("keys: %w", auth.ErrCorrupt), 500, "internal_error"},
	}
	for _, tt := range tests {
		status, code := classify(tt.err)
		if status != tt.status || code != tt.code {
			t.Errorf("classify(%v) = %d %q, want %d %q", tt.err, status, code, tt.status, tt.code)
		}
	}
}

// Internal errors are logged, but their text never reaches the client.
func TestInternalErrorIsNotLeaked(t *testing.T) {
	var logs bytes.Buffer
	f := newFixture(t, func(c *Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
		c.Store = readyFunc(func(context.Context) error { return nil })
	})
	req := httptest.NewRequest("GET", "/x", nil)
	rec := httptest.NewRecorder()
	h := f.srv.withRequestInfo(f.srv.accessLog(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.srv.fail(w, r, errors.New("secret path /var/lib/thing"))
	})))
	h.ServeHTTP(rec, req)
	p := problemOf(t, rec, 500, "internal_error")
	if strings.Contains(rec.Body.String(), "secret") || !strings.Contains(p.Detail, p.RequestID) {
		t.Fatalf("500 body leaks or lacks the request id: %s", rec.Body)
	}
	if !strings.Contains(logs.String(), "secret path") || !strings.Contains(logs.String(), p.RequestID) {
		t.Fatalf("log lacks the error: %s", logs.String())
	}
}

func TestPanicBecomes500(t *testing.T) {
	var logs bytes.Buffer
	f := newFixture(t, func(c *Config) { c.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
	h := f.srv.withRequestInfo(f.srv.accessLog(f.srv.recoverer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		var m map[string]int
		m["boom"]++ // nil map write: a real runtime panic
	}))))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/x", nil))
	problemOf(t, rec, 500, "internal_error")
	for _, want := range []string{`"msg":"panic"`, "assignment to entry in nil map", "goroutine", `"status":500`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

// A handler that fails after starting its response gets its connection
// aborted: the client sees an error, not a short but complete body.
func TestFailAfterWriteAborts(t *testing.T) {
	f := newFixture(t, nil)
	h := f.srv.withRequestInfo(f.srv.accessLog(f.srv.recoverer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		io.WriteString(w, "partial")
		f.srv.fail(w, r, errors.New("stream broke"))
	}))))
	ts := httptest.NewServer(h)
	defer ts.Close()
	resp, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Fatal("truncated response read without error")
	}
}

func TestRequestID(t *testing.T) {
	f := newFixture(t, nil)
	rec := f.do(t, "GET", "/healthz", "", nil, "X-Request-Id", "abc-123.x")
	if got := rec.Header().Get("X-Request-Id"); got != "abc-123.x" {
		t.Fatalf("valid request id not echoed: %q", got)
	}
	for _, bad := range []string{"a b", strings.Repeat("a", 129), "x\x01y", "é"} {
		rec := f.do(t, "GET", "/healthz", "", nil, "X-Request-Id", bad)
		got := rec.Header().Get("X-Request-Id")
		if got == bad || !validRequestID(got) {
			t.Errorf("request id %q: replaced by %q", bad, got)
		}
	}
	a := f.do(t, "GET", "/healthz", "", nil).Header().Get("X-Request-Id")
	b := f.do(t, "GET", "/healthz", "", nil).Header().Get("X-Request-Id")
	if a == "" || a == b {
		t.Fatalf("generated ids %q %q", a, b)
	}
}

func TestAccessLog(t *testing.T) {
	var logs bytes.Buffer
	f := newFixture(t, func(c *Config) { c.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
	f.do(t, "GET", "/v1/keys", "admin", nil, "X-Request-Id", "req-42")
	line := logs.String()
	for _, want := range []string{`"msg":"request"`, `"request_id":"req-42"`, `"method":"GET"`, `"route":"/v1/keys"`,
		`"status":200`, `"key_id":"key-`, `"duration_ms":`} {
		if !strings.Contains(line, want) {
			t.Errorf("access log lacks %s:\n%s", want, line)
		}
	}
	if strings.Contains(line, f.tokens["admin"]) {
		t.Fatal("access log contains the token")
	}
}
