package handlers

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestBodyLimits(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxBodyBytes = 4096; c.MaxJSONBytes = 1024 })
	big := `{"name": "` + strings.Repeat("a", 2000) + `", "scopes": ["read"]}`
	huge := strings.Repeat(" ", 5000) + `{"name": "a", "scopes": ["read"]}`
	tests := []struct {
		name    string
		body    io.Reader
		chunked bool
	}{
		{"json over json limit", strings.NewReader(big), false},
		{"json over json limit, chunked", strings.NewReader(big), true},
		{"over body limit", strings.NewReader(huge), false},
		{"over body limit, chunked", strings.NewReader(huge), true},
	}
	for _, tt := range tests {
		req := httptest.NewRequest("POST", "/v1/keys", tt.body)
		if tt.chunked {
			req.ContentLength = -1 // unknown length: the limit applies while reading
		}
		req.Header.Set("Authorization", "Bearer "+f.tokens["admin"])
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, req)
		t.Run(tt.name, func(t *testing.T) { problemOf(t, rec, 413, "body_too_large") })
	}
	if keys, _ := f.keys.List(); len(keys) != 5 {
		t.Fatalf("an oversized request stored a key: %d keys", len(keys))
	}
	// Within the limits it works.
	rec := f.do(t, "POST", "/v1/keys", "admin", strings.NewReader(`{"name": "ok", "scopes": ["read"]}`), "Content-Type", "application/json")
	if rec.Code != 201 {
		t.Fatalf("small body: %d %s", rec.Code, rec.Body)
	}
}

// The 413 must also reach a real client over a real connection (the
// server closes the connection after an over-long body).
func TestBodyLimitOverHTTP(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxBodyBytes = 1 << 10 })
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/v1/keys", strings.NewReader(strings.Repeat("x", 1<<20)))
	req.Header.Set("Authorization", "Bearer "+f.tokens["admin"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestJSONDecodingErrors(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		name, body, ctype string
		status            int
		code, field       string
	}{
		{"syntax", `{"name": "a",`, "application/json", 400, "malformed_json", ""},
		{"syntax garbage", `name=a`, "application/json", 400, "malformed_json", ""},
		{"trailing data", `{"name": "a", "scopes": ["read"]} {}`, "application/json", 400, "malformed_json", ""},
		{"empty", ``, "application/json", 400, "invalid_request", ""},
		{"not an object", `[1, 2]`, "application/json", 400, "invalid_request", ""},
		{"unknown field", `{"name": "a", "scopes": ["read"], "scope": "x"}`, "application/json", 400, "invalid_request", "scope"},
		{"wrong type", `{"name": 5, "scopes": ["read"]}`, "application/json", 400, "invalid_request", "name"},
		{"bad time", `{"name": "a", "scopes": ["read"], "expires_at": "tomorrow"}`, "application/json", 400, "invalid_request", "expires_at"},
		{"missing name", `{"scopes": ["read"]}`, "application/json", 400, "invalid_request", "name"},
		{"unknown scope", `{"name": "a", "scopes": ["root"]}`, "application/json", 400, "invalid_request", "scopes[0]"},
		{"both expiries", `{"name": "a", "scopes": ["read"], "expires_in": "1h", "expires_at": "2099-01-01T00:00:00Z"}`, "application/json", 400, "invalid_request", "expires_in"},
		{"negative expiry", `{"name": "a", "scopes": ["read"], "expires_in": "-1h"}`, "application/json", 400, "invalid_request", "expires_in"},
		{"past expiry", `{"name": "a", "scopes": ["read"], "expires_at": "2001-01-01T00:00:00Z"}`, "application/json", 400, "invalid_request", ""},
		{"form content type", `{"name": "a", "scopes": ["read"]}`, "application/x-www-form-urlencoded", 415, "unsupported_media_type", ""},
		{"bad content type", `{"name": "a", "scopes": ["read"]}`, "application/json; =", 415, "unsupported_media_type", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, "POST", "/v1/keys", "admin", strings.NewReader(tt.body), "Content-Type", tt.ctype)
			p := problemOf(t, rec, tt.status, tt.code)
			if tt.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tt.field) {
				t.Fatalf("errors %+v, want field %q", p.Errors, tt.field)
			}
		})
	}
	if keys, _ := f.keys.List(); len(keys) != 5 {
		t.Fatalf("bad requests stored keys: %d keys", len(keys))
	}
}

func TestDecodeJSONTypeMessages(t *testing.T) {
	tests := []struct{ body, field, msg string }{
		{`{"expires_at": 5}`, "expires_at", "expected string, got number"},
		{`{"scopes": "read"}`, "scopes", "expected array, got string"},
		{`{"scopes": [1]}`, "scopes", "expected string, got number"},
		{`{"name": {}}`, "name", "expected string, got object"},
		{`5`, "", "expected a JSON object, got number"},
	}
	for _, tt := range tests {
		var v keyCreateRequest
		err := decodeJSONBody(strings.NewReader(tt.body), &v)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Fields[0].Field != tt.field || ie.Fields[0].Message != tt.msg {
			t.Errorf("%s: %v, want field %q message %q", tt.body, err, tt.field, tt.msg)
		}
	}
}

func TestDecodeJSONBodyErrorsAreSentinels(t *testing.T) {
	var v keyCreateRequest
	err := decodeJSONBody(strings.NewReader(`{"name": [}`), &v)
	if !errors.Is(err, ErrMalformedJSON) {
		t.Fatalf("err = %v", err)
	}
}

// Deeply nested JSON is refused before encoding/json recurses into it: a
// 1 MiB body of '[' (at the default size limit) and objects one level past
// MaxJSONDepth are 400 naming the depth; brackets inside strings do not count.
func TestJSONDepth(t *testing.T) {
	f := newFixture(t, nil)
	nested := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	for _, tt := range []struct{ name, body string }{
		{"1 MiB of [", strings.Repeat("[", DefaultMaxJSONBytes-1)},
		{"objects 65 deep", `{"name": "x", "scopes": ["read"], "extra": ` + nested(MaxJSONDepth) + `}`},
		{"arrays 65 deep", `{"name": "x", "scopes": ` + strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth) + `}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			rec := f.do(t, "POST", "/v1/keys", "admin", strings.NewReader(tt.body), "Content-Type", "application/json")
			p := problemOf(t, rec, 400, "invalid_request")
			if !strings.Contains(p.Detail, "JSON nested deeper than 64 levels") {
				t.Fatalf("detail %q", p.Detail)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("took %v", took)
			}
		})
	}
	// At the limit the depth check passes (the decoder then refuses the
	// unknown field), and brackets in strings are text.
	rec := f.do(t, "POST", "/v1/keys", "admin", strings.NewReader(`{"name": "x", "extra": `+nested(MaxJSONDepth-1)+`}`), "Content-Type", "application/json")
	if p := problemOf(t, rec, 400, "invalid_request"); strings.Contains(p.Detail, "nested") || !strings.Contains(p.Detail, "extra") {
		t.Fatalf("detail %q", p.Detail)
	}
	rec = f.do(t, "POST", "/v1/keys", "admin", strings.NewReader(`{"name": "`+strings.Repeat(`[{\"`, 66)+`", "scopes": ["read"]}`), "Content-Type", "application/json")
	if rec.Code != 201 {
		t.Fatalf("brackets in a string: %d %s", rec.Code, rec.Body)
	}
	// One pass, no per-level allocation.
	deep := []byte(strings.Repeat("[", DefaultMaxJSONBytes))
	if n := testing.AllocsPerRun(5, func() { _ = checkJSONDepth(deep) }); n > 10 {
		t.Fatalf("%v allocations", n)
	}
}
