package handlers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/graph"
)

func TestHealthAndReady(t *testing.T) {
	if rec := newFixture(t, nil).do(t, "GET", "/healthz", "", nil); rec.Code != 200 || rec.Body.String() != "{\"status\":\"ok\"}\n" {
		t.Fatalf("healthz: %d %s", rec.Code, rec.Body)
	}
	tests := []struct {
		name  string
		store Readier
		drain bool
		want  int
	}{
		{"ready", readyFunc(func(context.Context) error { return nil }), false, 200},
		{"no store", nil, false, 503},
		{"store down", readyFunc(func(context.Context) error { return errors.New("badger: closed") }), false, 503},
		{"deadline", readyFunc(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }), false, 503},
		{"draining", readyFunc(func(context.Context) error { return nil }), true, 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.Store = tt.store })
			if tt.drain {
				f.srv.BeginShutdown()
			}
			rec := f.do(t, "GET", "/readyz", "", nil)
			if tt.want == 200 {
				if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"ready"`) {
					t.Fatalf("%d %s", rec.Code, rec.Body)
				}
				return
			}
			problemOf(t, rec, 503, "not_ready")
			if rec.Header().Get("Retry-After") == "" {
				t.Fatal("no Retry-After")
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	f := newFixture(t, nil)
	f.do(t, "GET", "/healthz", "", nil)
	f.do(t, "GET", "/v1/nowhere", "read", nil)
	rec := f.do(t, "GET", "/metrics", "read", nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	body := rec.Body.String()
	for _, want := range []string{
		`molgraph_http_requests_total{code="200",method="GET",route="/healthz"} 1`,
		`molgraph_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		"molgraph_http_request_duration_seconds_bucket",
		"go_goroutines",
		"process_resident_memory_bytes",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// /readyz against the real graph store, both backends: ready while open,
// 503 once closed.
func TestReadyWithRealStore(t *testing.T) {
	open := map[string]func(t *testing.T) (*graph.Store, error){
		"memory": func(*testing.T) (*graph.Store, error) { return graph.OpenMemory(graph.Options{}) },
		"badger": func(t *testing.T) (*graph.Store, error) { return graph.Open(t.TempDir(), graph.Options{}) },
	}
	for name, openFn := range open {
		t.Run(name, func(t *testing.T) {
			st, err := openFn(t)
			if err != nil {
				t.Fatal(err)
			}
			f := newFixture(t, func(c *Config) { c.Store = st })
			if rec := f.do(t, "GET", "/readyz", "", nil); rec.Code != 200 {
				t.Fatalf("open store: %d %s", rec.Code, rec.Body)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			p := problemOf(t, f.do(t, "GET", "/readyz", "", nil), 503, "not_ready")
			if !strings.Contains(p.Detail, "store closed") {
				t.Fatalf("detail %q does not name the cause", p.Detail)
			}
		})
	}
}
