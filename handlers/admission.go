package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/jobs"
)

// routeClasses is the admission class of every route that is not Light,
// by "METHOD pattern": one table for the whole service, so that the
// resource files need not know about admission. A Route that sets Class
// itself overrides it; a test checks that every entry names a route.
func routeClasses() map[string]admission.Class {
	return map[string]admission.Class{
		"GET /v1/sparql":                   admission.SPARQL,
		"POST /v1/sparql":                  admission.SPARQL,
		"GET /v1/graphql":                  admission.GraphQL,
		"POST /v1/graphql":                 admission.GraphQL,
		"POST /v1/molecules":               admission.Chem,
		"GET /v1/molecules/{id}/structure": admission.Chem,
		"POST /v1/molecules/batch":         admission.Upload,
		"POST /v1/qm/parse":                admission.QM,
		"POST /v1/receptors":               admission.Receptor,
		"POST /v1/docking/jobs":            admission.Docking,
		"GET /v1/export":                   admission.Export,
	}
}

// classOf is rt's admission class: its own Class, else routeClasses',
// else Light.
func classOf(rt Route) admission.Class {
	if rt.Class != "" {
		return rt.Class
	}
	if c, ok := routeClasses()[rt.Method+" "+rt.Pattern]; ok {
		return c
	}
	return admission.Light
}

// submitsJob reports whether routes of class c queue a background job, and
// so are subject to the caps on unfinished jobs.
func submitsJob(c admission.Class) bool { return c == admission.Upload || c == admission.Docking }

// corsClass reports whether routes of class c answer cross-origin requests
// from browsers (see cors).
func corsClass(c admission.Class) bool { return c == admission.SPARQL || c == admission.GraphQL }

// jobRetryAfter is the Retry-After of a refusal by a cap on unfinished
// jobs: the runner cannot know when a job will end; ten seconds is a poll
// interval that costs nothing and finds a short batch finished.
const jobRetryAfter = 10 * time.Second

// jobPolicy names the cap on unfinished jobs in the RateLimit fields.
const jobPolicy = "jobs"

// admitKey takes a token from key's bucket and sets the RateLimit fields;
// it returns the *admission.Rejection of an empty bucket.
func (s *Server) admitKey(w http.ResponseWriter, key auth.Key) error {
	if s.cfg.Admission == nil {
		return nil
	}
	q, ok, err := s.cfg.Admission.Allow(key.ID)
	if ok {
		h := w.Header()
		h.Set("RateLimit-Policy", q.PolicyHeader())
		h.Set("RateLimit", q.Header())
	}
	return err
}

// admitRoute takes a place in rt's class and, for a route that submits a
// job, checks the caps on unfinished jobs before the body is read. It
// returns the function that gives the place back.
func (s *Server) admitRoute(r *http.Request, class admission.Class, owner string) (func(), error) {
	release := func() {}
	if s.cfg.Admission != nil {
		var err error
		if release, err = s.cfg.Admission.Acquire(r.Context(), class, owner); err != nil {
			return nil, err
		}
	}
	if submitsJob(class) {
		if runner := s.jobRunner(class); runner != nil {
			if err := runner.Admit(owner); err != nil {
				release()
				return nil, err
			}
		}
	}
	return release, nil
}

// jobRunner is the runner that jobs of routes of class c go to (nil if
// none is configured: the handler then answers 503 itself).
func (s *Server) jobRunner(c admission.Class) *jobs.Runner {
	switch c {
	case admission.Upload:
		return s.cfg.Molecules.Jobs
	case admission.Docking:
		return s.cfg.Docking.Jobs
	}
	return nil
}

// rejectionReason is the metrics label of an admission refusal ("" for
// any other error).
func rejectionReason(err error) string {
	var rej *admission.Rejection
	if errors.As(err, &rej) {
		return rej.Reason
	}
	var qe *jobs.QuotaError
	if errors.As(err, &qe) {
		if qe.Owner != "" {
			return "jobs_per_key"
		}
		return "jobs_total"
	}
	return ""
}

// admissionHeaders sets Retry-After and, for a cap on unfinished jobs, the
// RateLimit fields of that cap (the request's own bucket fields are
// already set). It reports whether err was an admission refusal.
func admissionHeaders(err error, h http.Header) bool {
	var rej *admission.Rejection
	if errors.As(err, &rej) {
		h.Set("Retry-After", strconv.FormatInt(admission.Seconds(rej.RetryAfter), 10))
		return true
	}
	var qe *jobs.QuotaError
	if errors.As(err, &qe) {
		secs := admission.Seconds(jobRetryAfter)
		h.Set("Retry-After", strconv.FormatInt(secs, 10))
		h.Add("RateLimit-Policy", fmt.Sprintf(`"%s";q=%d`, jobPolicy, qe.Limit))
		// The draft asks for the policy with the least remaining: this one.
		h.Set("RateLimit", fmt.Sprintf(`"%s";r=0;t=%d`, jobPolicy, secs))
		return true
	}
	return false
}

// The CORS answer (item 8 of issue 15): the SPARQL and GraphQL routes are
// open to scripts of any origin. Keys travel in the Authorization header,
// never in cookies, so "Access-Control-Allow-Origin: *" lets no page use a
// visitor's credentials; browsers never send credentials with "*" anyway.
const (
	corsAllowHeaders  = "Authorization, Content-Type, Accept, X-Request-Id"
	corsExposeHeaders = "Content-Location, Location, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate, X-Request-Id"
	// corsMaxAge lets a browser reuse a preflight for a day (Firefox's
	// cap; Chromium caps it at two hours).
	corsMaxAge = "86400"
)

// corsRouter matches the paths of the CORS routes, to find them before
// routing (a preflight must be answered without a key).
func (s *Server) corsRouter() *chi.Mux {
	m := chi.NewRouter()
	for _, rt := range s.routes {
		if corsClass(rt.Class) {
			m.Method(rt.Method, rt.Pattern, http.NotFoundHandler())
		}
	}
	return m
}

// corsMethods lists the methods of the CORS routes at r's path (nil if it
// has none).
func (s *Server) corsMethods(r *http.Request) []string {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		if s.cors.Match(chi.NewRouteContext(), m, path) {
			out = append(out, m)
			if m == http.MethodGet {
				out = append(out, http.MethodHead)
			}
		}
	}
	return out
}

// withCORS answers preflights of the CORS routes (any OPTIONS request
// there: 204, no key needed) and marks their other responses, errors
// included, as readable cross-origin.
func (s *Server) withCORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		methods := s.corsMethods(r)
		if methods == nil {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method != http.MethodOptions {
			h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Access-Control-Allow-Methods", strings.Join(methods, ", "))
		h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		h.Set("Access-Control-Max-Age", corsMaxAge)
		h.Set("Allow", strings.Join(append(slices.Clone(methods), http.MethodOptions), ", "))
		w.WriteHeader(http.StatusNoContent)
	})
}
