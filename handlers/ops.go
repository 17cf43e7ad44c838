package handlers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/molgraph/molgraph/auth"
)

// readyTimeout bounds one readiness check of the store.
const readyTimeout = 2 * time.Second

// status is the body of /healthz and /readyz.
type status struct {
	Status string `json:"status"`
}

// opsResource is the operational endpoints: health, readiness, metrics and
// the OpenAPI document.
func (s *Server) opsResource() resource {
	return resource{routes: s.opsRoutes(), schemas: map[string]Schema{
		"Status": {"type": "object", "required": []string{"status"},
			"properties": Schema{"status": Schema{"type": "string", "enum": []string{"ok", "ready"}}}},
	}}
}

func (s *Server) opsRoutes() []Route {
	metrics := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	statusBody := jsonContent(ref("Status"))
	return []Route{
		{
			Method: http.MethodGet, Pattern: "/healthz", Scope: auth.ScopeNone,
			Handle: func(w http.ResponseWriter, r *http.Request) error {
				return writeJSON(w, http.StatusOK, status{Status: "ok"})
			},
			Doc: Doc{Tag: "operations", Summary: "Liveness: the process is up",
				Responses: []Response{{Status: 200, Description: "The process is up.", Content: statusBody}}},
		},
		{
			Method: http.MethodGet, Pattern: "/readyz", Scope: auth.ScopeNone,
			Handle: s.readyz,
			Doc: Doc{Tag: "operations", Summary: "Readiness: the graph store is open, answering and has disk space for writes",
				Responses: []Response{
					{Status: 200, Description: "Ready to serve.", Content: statusBody},
					{Status: 503, Description: "Not ready (starting, shutting down, store unavailable, or the data directory's disk below its reserve: writes would answer 507 insufficient_storage); checked again at every call.",
						Content: problemContent(), Headers: map[string]string{"Retry-After": "Seconds to wait before retrying."}},
				}},
		},
		{
			Method: http.MethodGet, Pattern: "/metrics", Scope: auth.ScopeRead,
			Handle: func(w http.ResponseWriter, r *http.Request) error {
				metrics.ServeHTTP(w, r)
				return nil
			},
			Doc: Doc{Tag: "operations", Summary: "Prometheus metrics",
				Responses: []Response{{Status: 200, Description: "Metrics in the Prometheus text exposition format.",
					Content: map[string]Schema{"text/plain": {"type": "string"}}}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/openapi.json", Scope: auth.ScopeRead,
			Handle: func(w http.ResponseWriter, r *http.Request) error {
				w.Header().Set("Content-Type", "application/json")
				_, err := w.Write(s.openapi)
				return err
			},
			Doc: Doc{Tag: "operations", Summary: "This OpenAPI 3.1 document",
				Responses: []Response{{Status: 200, Description: "The OpenAPI document.",
					Content: jsonContent(Schema{"type": "object"})}}},
		},
	}
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	if s.draining.Load() {
		return fmt.Errorf("%w: shutting down", ErrNotReady)
	}
	if s.cfg.Store == nil {
		return fmt.Errorf("%w: no graph store configured", ErrNotReady)
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.cfg.Store.Ready(ctx); err != nil {
		// Not 500: readiness failures are expected states, reported as 503
		// with the reason.
		return fmt.Errorf("%w: graph store: %v", ErrNotReady, err)
	}
	return writeJSON(w, http.StatusOK, status{Status: "ready"})
}
