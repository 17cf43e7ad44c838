package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSPARQLClientAbort: a client that disconnects mid-query stops the
// evaluation promptly and is logged and counted as a client abort (499),
// never as a 5xx (issue 15: it was a 500).
func TestSPARQLClientAbort(t *testing.T) {
	st, _ := loadQueryGraph(t)
	var logs syncBuffer
	f := newFixture(t, func(c *Config) {
		c.Graph = st
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	// 75^4 ≈ 32 million combinations: far longer than the client waits.
	q := "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/sparql", strings.NewReader(q))
	req.Header.Set("Content-Type", sparqlType)
	req.Header.Set("Authorization", "Bearer "+f.tokens["read"])
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("an answer: %d", resp.StatusCode)
		}
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v", err)
	}
	cancelled := time.Now()
	var entry map[string]any
	for entry == nil {
		if time.Since(cancelled) > 5*time.Second {
			t.Fatalf("no access log line 5 s after the client left; logs:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
		for _, line := range strings.Split(logs.String(), "\n") {
			var e map[string]any
			if json.Unmarshal([]byte(line), &e) == nil && e["msg"] == "request" && e["route"] == "/v1/sparql" {
				entry = e
			}
		}
	}
	if entry["status"] != float64(StatusClientClosedRequest) || entry["level"] != "INFO" ||
		!strings.Contains(fmt.Sprint(entry["error"]), "client closed request") {
		t.Fatalf("access log: %v", entry)
	}
	metrics := f.do(t, "GET", "/metrics", "read", nil).Body.String()
	if m := regexp.MustCompile(`molgraph_http_requests_total\{code="5\d\d"[^}]*\} [1-9]`).FindString(metrics); m != "" {
		t.Fatalf("a 5xx was counted: %s", m)
	}
	if !strings.Contains(metrics, `molgraph_http_requests_total{code="499",method="POST",route="/v1/sparql"} 1`) {
		t.Fatalf("no client abort counted:\n%s", metrics)
	}
}

// TestFailClientGone: for every route, fail turns an error caused by the
// client leaving, or a 5xx while it is gone, into 499
// client_closed_request; a 4xx found before keeps its status; with the
// client still there nothing changes.
func TestFailClientGone(t *testing.T) {
	f := newFixture(t, nil)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		ctx    context.Context
		err    error
		status int
	}{
		{gone, fmt.Errorf("read view: %w", context.Canceled), 499},
		{gone, errors.New("some failure"), 499},
		{gone, fmt.Errorf("%w: x", ErrBadRequest), 400},
		{context.Background(), fmt.Errorf("work: %w", context.Canceled), 500},
		{context.Background(), errors.New("some failure"), 500},
	} {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/v1/anything", nil).WithContext(tc.ctx)
		f.srv.fail(rec, r, tc.err)
		if rec.Code != tc.status {
			t.Errorf("%v (context %v): %d, want %d", tc.err, tc.ctx.Err(), rec.Code, tc.status)
		}
		if tc.status == 499 {
			var p Problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Code != "client_closed_request" || p.Title != "Client Closed Request" {
				t.Errorf("problem %+v %v", p, err)
			}
		}
	}
	// Through a whole route: a query whose client is already gone.
	st, _ := loadQueryGraph(t)
	fq := newFixture(t, func(c *Config) { c.Graph = st })
	req := httptest.NewRequest("GET", "/v1/sparql?query=ASK%7B%3Fs%20%3Fp%20%3Fo%7D", nil).WithContext(gone)
	req.Header.Set("Authorization", "Bearer "+fq.tokens["read"])
	rec := httptest.NewRecorder()
	fq.srv.ServeHTTP(rec, req)
	if rec.Code != 499 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
