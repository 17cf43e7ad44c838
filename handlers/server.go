package handlers

import (
	"github.com/prometheus/client_golang/prometheus"

	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/internal/subproc"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/queries/sparql"
	"github.com/molgraph/molgraph/search"
	"github.com/molgraph/molgraph/shapes"
)

// Readier reports whether a dependency (the graph store) can serve
// requests; *graph.Store implements it.
type Readier interface {
	Ready(ctx context.Context) error
}

// Defaults for Config fields left zero.
const (
	DefaultMaxBodyBytes = 64 << 20
	DefaultMaxJSONBytes = 1 << 20
	DefaultBaseIRI      = "http://localhost:8080/"
)

// Config wires a Server. Only cmd/molgraph fills it; handlers reads no
// environment or flags.
type Config struct {
	// BaseIRI is the service's base (default DefaultBaseIRI); problem
	// types are <BaseIRI>problems/<code>.
	BaseIRI string
	// MaxBodyBytes limits every request body (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// MaxJSONBytes limits JSON request bodies (default DefaultMaxJSONBytes).
	MaxJSONBytes int64
	// Keys authenticates API keys (required).
	Keys *auth.Keyring
	// Store is checked by /readyz (nil: never ready).
	Store Readier
	// Graph is the store that SPARQL, GraphQL and the export read (nil:
	// those routes answer 503 not_ready).
	Graph *graph.Store
	// QM parses quantum-chemistry logs (POST /v1/qm/parse).
	QM qm.Table
	// Gate validates resources against the SHACL shapes (nil:
	// validate_ontology=true answers 501).
	Gate *shapes.Gate
	// Molecules wires the molecule, batch and /id routes (molecules.go).
	Molecules MoleculeServices
	// Uploads bounds batch uploads (upload.go; zero fields take defaults).
	Uploads UploadLimits
	// Docking wires the docking-job routes (docking.go); a zero value makes
	// them answer 503.
	Docking DockingServices
	// TempDirs is where subprocesses (obabel) get working directories
	// (nil: under subproc.DefaultRoot).
	TempDirs *subproc.TempDirs
	// Query bounds SPARQL and GraphQL queries (zero fields take defaults).
	Query QueryLimits
	// Search is the structure-search index of /v1/molecules/search (nil:
	// the route answers 503 not_ready, or 501 search_disabled with
	// SearchDisabled).
	Search *search.Index
	// SearchDisabled: the server runs without structure search
	// (--structure-search=false); the search routes, GraphQL search
	// arguments and SPARQL search procedures answer ErrSearchDisabled.
	SearchDisabled bool
	// SearchTimeout bounds one structure search (default
	// DefaultSearchTimeout).
	SearchTimeout time.Duration
	// SearchJobs keeps the structure searches that outlive their request
	// (nil: New makes one with search.JobOptions' defaults over Search;
	// whoever passes one closes it).
	SearchJobs *search.Jobs
	// SPARQLProcedures are the search procedures SPARQL queries may call
	// (sparql.Options.Procedures; nil: none).
	SPARQLProcedures sparql.Procedures
	// SPARQLHelpers are the spare workers SPARQL queries share
	// (sparql.Options.Helpers; nil: every query runs on one goroutine).
	SPARQLHelpers *sparql.Helpers
	// GraphQL holds the GraphQL document limits (graphql.go; zero fields
	// take the graphql package's defaults).
	GraphQL GraphQLLimits
	// Admission holds the per-key token buckets and the caps per route
	// class (nil: neither; the caps on unfinished jobs are the job
	// runner's own).
	Admission *admission.Controller
	// Logger receives access logs and errors (default: discard).
	Logger *slog.Logger
	// Version is reported in the OpenAPI document.
	Version string
	// Collectors are more /metrics collectors (the docking commit and the
	// NATS queue, wired by serve).
	Collectors []prometheus.Collector
}

// Server is molgraph's HTTP handler.
type Server struct {
	cfg         Config
	log         *slog.Logger
	problemBase string
	routes      []Route
	mux         *chi.Mux
	cors        *chi.Mux // matches the CORS routes' paths
	metrics     *metrics
	openapi     []byte
	draining    atomic.Bool
}

// New builds the router from the route table. It fails with ErrBadRequest
// for an invalid configuration and on a malformed route table (duplicate
// route, public /v1 route, missing OpenAPI summary).
func New(cfg Config) (*Server, error) {
	if cfg.Keys == nil {
		return nil, fmt.Errorf("new server: %w: no keyring", ErrBadRequest)
	}
	if cfg.BaseIRI == "" {
		cfg.BaseIRI = DefaultBaseIRI
	}
	u, err := url.Parse(cfg.BaseIRI)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("new server: %w: base IRI %q is not an absolute http(s) URL", ErrBadRequest, cfg.BaseIRI)
	}
	if !strings.HasSuffix(cfg.BaseIRI, "/") {
		cfg.BaseIRI += "/"
	}
	if cfg.SearchJobs == nil && cfg.Search != nil {
		cfg.SearchJobs = search.NewJobs(cfg.Search.Search, search.JobOptions{})
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxJSONBytes <= 0 {
		cfg.MaxJSONBytes = DefaultMaxJSONBytes
	}
	if cfg.MaxJSONBytes > cfg.MaxBodyBytes {
		cfg.MaxJSONBytes = cfg.MaxBodyBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		cfg:         cfg,
		log:         cfg.Logger,
		problemBase: cfg.BaseIRI + "problems/",
		metrics:     newMetrics(),
	}
	s.routes = s.routeTable()
	for i := range s.routes {
		s.routes[i].Class = classOf(s.routes[i])
	}
	if err := checkRoutes(s.routes); err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	doc, err := s.openAPIDocument()
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	if s.openapi, err = json.MarshalIndent(doc, "", "  "); err != nil {
		return nil, fmt.Errorf("new server: openapi: %w", err)
	}
	s.cors = s.corsRouter()
	s.mux = s.buildRouter()
	s.metrics.registerLimits(s)
	for _, c := range cfg.Collectors {
		if err := s.metrics.reg.Register(c); err != nil {
			return nil, fmt.Errorf("new server: metrics: %w", err)
		}
	}
	return s, nil
}

// resource is what one resource file contributes: its routes and the
// OpenAPI component schemas they refer to.
type resource struct {
	routes  []Route
	schemas map[string]Schema
}

// resources lists every resource of the service, one function per file.
// Add new resources here; nothing else needs to change.
func (s *Server) resources() []resource {
	return []resource{
		s.opsResource(),
		s.keysResource(),
		s.queryResource(),
		s.qmResource(),
		s.moleculesResource(),
		s.depictResource(),
		s.receptorsResource(),
		s.dockingResource(),
		s.rescoreResource(),
		s.pageResource(),
		s.searchResource(),
	}
}

// routeTable is the routes of all resources.
func (s *Server) routeTable() []Route {
	var out []Route
	for _, res := range s.resources() {
		out = append(out, res.routes...)
	}
	return out
}

// checkRoutes rejects a malformed route table.
func checkRoutes(routes []Route) error {
	seen := map[string]bool{}
	for _, rt := range routes {
		id := rt.Method + " " + rt.Pattern
		switch {
		case seen[id]:
			return fmt.Errorf("%w: route %s declared twice", ErrBadRequest, id)
		case rt.Handle == nil:
			return fmt.Errorf("%w: route %s has no handler", ErrBadRequest, id)
		case rt.Doc.Summary == "":
			return fmt.Errorf("%w: route %s has no OpenAPI summary", ErrBadRequest, id)
		case rt.Scope != auth.ScopeNone && !rt.Scope.Valid():
			return fmt.Errorf("%w: route %s has invalid scope %q", ErrBadRequest, id, rt.Scope)
		case rt.Scope == auth.ScopeNone && isV1(rt.Pattern):
			return fmt.Errorf("%w: route %s is under /v1 but public", ErrBadRequest, id)
		case !rt.Class.Valid():
			return fmt.Errorf("%w: route %s has unknown admission class %q", ErrBadRequest, id, rt.Class)
		}
		seen[id] = true
	}
	return nil
}

// Routes returns a copy of the route table.
func (s *Server) Routes() []Route { return slices.Clone(s.routes) }

// Router returns the chi router (for chi.Walk in tests and tools).
func (s *Server) Router() chi.Routes { return s.mux }

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// BeginShutdown makes /readyz answer 503 so that load balancers stop
// sending traffic while in-flight requests finish.
func (s *Server) BeginShutdown() { s.draining.Store(true) }

func (s *Server) buildRouter() *chi.Mux {
	m := chi.NewRouter()
	m.Use(s.withRequestInfo, s.accessLog, s.recoverer, s.limitBody, middleware.GetHead, s.withCORS, s.authenticateV1)
	m.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, fmt.Errorf("%w: no route for %s", ErrNotFound, r.URL.Path))
	})
	m.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		allow := allowedMethods(m, r)
		if len(allow) == 0 {
			s.fail(w, r, fmt.Errorf("%w: no route for %s", ErrNotFound, r.URL.Path))
			return
		}
		s.fail(w, r, &methodError{method: r.Method, allow: allow})
	})
	for _, rt := range s.routes {
		m.Method(rt.Method, rt.Pattern, s.adapt(rt))
	}
	return m
}

// allowedMethods lists the methods the router serves at r's path (HEAD
// wherever GET is served).
func allowedMethods(m *chi.Mux, r *http.Request) []string {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	var allow []string
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		if m.Match(chi.NewRouteContext(), method, path) ||
			(method == http.MethodHead && slices.Contains(allow, http.MethodGet)) {
			allow = append(allow, method)
		}
	}
	return allow
}

// adapt turns a Route into an http.HandlerFunc: the key, its token
// bucket, the scope check, a place in the route's class (and the caps on
// unfinished jobs for a route that submits one), then the handler, then
// problem+json for a returned error.
func (s *Server) adapt(rt Route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		fail := func(err error) {
			if reason := rejectionReason(err); reason != "" {
				s.metrics.rejections.WithLabelValues(reason, string(rt.Class)).Inc()
			}
			s.fail(w, r, err)
		}
		var owner string
		if rt.Scope != auth.ScopeNone {
			key, err := s.authenticate(r)
			if err == nil {
				err = s.admitKey(w, key)
			}
			if err == nil {
				err = key.Require(rt.Scope)
			}
			if err != nil {
				fail(err)
				return
			}
			owner = key.ID
			// Jobs submitted by the handler count against this key's cap.
			r = r.WithContext(jobs.WithOwner(r.Context(), owner))
		}
		release, err := s.admitRoute(r, rt.Class, owner)
		if err != nil {
			fail(err)
			return
		}
		defer release()
		if err := rt.Handle(w, r); err != nil {
			fail(err)
		}
	}
}

// writeJSON writes v as a JSON response with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return writeJSONBody(w, v)
}

func writeJSONBody(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}
