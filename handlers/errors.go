package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	jobsdocking "github.com/molgraph/molgraph/jobs/docking"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/queries/graphql"
	"github.com/molgraph/molgraph/queries/sparql"
	"github.com/molgraph/molgraph/search"
)

// Errors of the HTTP layer itself; handlers wrap them (fmt.Errorf with %w)
// or use badRequest / invalidInput to attach field errors.
var (
	// ErrBadRequest: a missing or invalid field value or query parameter (400).
	ErrBadRequest = errors.New("bad request")
	// ErrMalformedJSON: the body is not well-formed JSON (400).
	ErrMalformedJSON = errors.New("malformed json")
	// ErrUnauthorized: no bearer token was sent (401).
	ErrUnauthorized = errors.New("missing bearer token")
	// ErrNotFound: no route or resource at this path (404).
	ErrNotFound = errors.New("not found")
	// ErrMethodNotAllowed: the path exists but not for this method (405).
	ErrMethodNotAllowed = errors.New("method not allowed")
	// ErrNotAcceptable: no representation matches the Accept header (406).
	ErrNotAcceptable = errors.New("not acceptable")
	// ErrConflict: the request conflicts with the resource's state (409).
	ErrConflict = errors.New("conflict")
	// ErrBodyTooLarge: the body exceeds the configured limit (413).
	ErrBodyTooLarge = errors.New("request body too large")
	// ErrUnsupportedMediaType: the request's Content-Type is not accepted (415).
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrUnprocessable: well-formed but semantically invalid input (422).
	ErrUnprocessable = errors.New("unprocessable")
	// ErrNotReady: the service is starting, stopping or its store is down (503).
	ErrNotReady = errors.New("not ready")
	// ErrSearchDisabled: the server runs without structure search
	// (molgraph serve --structure-search=false): the search routes, GraphQL
	// search arguments and SPARQL search procedures answer 501
	// search_disabled.
	ErrSearchDisabled = errors.New("structure search is disabled on this server (--structure-search=false)")
	// ErrQueryTooLarge: a query text is longer than its configured limit
	// (413), checked before it is parsed.
	ErrQueryTooLarge = errors.New("query too large")
	// ErrClientClosedRequest: the client went away (its request's context
	// was cancelled) before the answer; fail wraps the handler's error in
	// it (499, nginx's "Client Closed Request": a client abort in the
	// access log and the metrics, never a 5xx).
	ErrClientClosedRequest = errors.New("client closed request")
)

// StatusClientClosedRequest is the status logged and counted for a client
// that disconnected before its answer (it never reaches the client).
const StatusClientClosedRequest = 499

// errorRow is one line of the error table.
type errorRow struct {
	match  func(error) bool
	status int
	code   string
}

func is(target error) func(error) bool { return func(err error) bool { return errors.Is(err, target) } }

func isMaxBytes(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

// errorTable is THE mapping from errors to HTTP status and problem code.
// The first matching row wins, so more specific errors come first. Later
// packages add their sentinels here (e.g. chem.ErrInvalidMolecule -> 422
// invalid_molecule). It is a function so that the table stays immutable.
func errorTable() []errorRow {
	return []errorRow{
		{is(ErrClientClosedRequest), StatusClientClosedRequest, "client_closed_request"},
		// auth
		{is(auth.ErrUnauthenticated), http.StatusUnauthorized, "unauthorized"},
		{is(ErrUnauthorized), http.StatusUnauthorized, "unauthorized"},
		{is(auth.ErrForbidden), http.StatusForbidden, "forbidden"},
		{is(auth.ErrNotFound), http.StatusNotFound, "key_not_found"},
		{is(auth.ErrInvalid), http.StatusBadRequest, "invalid_request"},
		// request framing
		{isMaxBytes, http.StatusRequestEntityTooLarge, "body_too_large"},
		{is(ErrBodyTooLarge), http.StatusRequestEntityTooLarge, "body_too_large"},
		{is(ErrMalformedJSON), http.StatusBadRequest, "malformed_json"},
		{is(ErrBadRequest), http.StatusBadRequest, "invalid_request"},
		{is(ErrUnsupportedMediaType), http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{is(ErrNotAcceptable), http.StatusNotAcceptable, "not_acceptable"},
		{is(ErrMethodNotAllowed), http.StatusMethodNotAllowed, "method_not_allowed"},
		{is(ErrNotFound), http.StatusNotFound, "not_found"},
		{is(ErrConflict), http.StatusConflict, "conflict"},
		{is(ErrUnprocessable), http.StatusUnprocessableEntity, "unprocessable"},
		// quantum-chemistry logs
		{is(qm.ErrUnknownProgram), http.StatusBadRequest, "invalid_request"},
		{is(qm.ErrUnsupportedLog), http.StatusUnprocessableEntity, "unsupported_log"},
		{is(qm.ErrEmptyLog), http.StatusUnprocessableEntity, "unsupported_log"},
		{is(qm.ErrBinaryInput), http.StatusUnprocessableEntity, "unsupported_log"},
		{is(qm.ErrNoResults), http.StatusUnprocessableEntity, "unsupported_log"},
		{is(ErrOntologyValidation), http.StatusUnprocessableEntity, "ontology_validation_failed"},
		{is(ErrValidationUnavailable), http.StatusNotImplemented, "not_implemented"},
		// disk full or below its reserve: before the rows that wrap it
		{is(graph.ErrNoSpace), http.StatusInsufficientStorage, "insufficient_storage"},
		// molecules and batch jobs
		{is(batch.ErrUploadTooLarge), http.StatusRequestEntityTooLarge, "upload_too_large"},
		{is(batch.ErrRecordTooLarge), http.StatusRequestEntityTooLarge, "record_too_large"},
		{is(chem.ErrInvalidMolecule), http.StatusUnprocessableEntity, "invalid_molecule"},
		{is(chem.ErrUnsupportedFormat), http.StatusBadRequest, "invalid_request"},
		{is(chem.ErrPoolClosed), http.StatusServiceUnavailable, "unavailable"},
		{is(chem.ErrTooLargeFor3D), http.StatusUnprocessableEntity, "too_large_for_3d"},
		{is(chem.ErrTooLargeFor2D), http.StatusUnprocessableEntity, "too_large_for_2d"},
		{is(chem.ErrEmbedTimeout), http.StatusServiceUnavailable, "embedding_timeout"},
		{is(batch.ErrBatchTooLarge), http.StatusRequestEntityTooLarge, "batch_too_large"},
		{is(batch.ErrBadUpload), http.StatusBadRequest, "invalid_upload"},
		{is(jobs.ErrNotFound), http.StatusNotFound, "not_found"},
		{is(jobs.ErrFinished), http.StatusConflict, "conflict"},
		{is(jobs.ErrClosed), http.StatusServiceUnavailable, "unavailable"},
		{is(jobs.ErrTooManyJobs), http.StatusTooManyRequests, "too_many_jobs"},
		// receptors (docking)
		{is(docking.ErrInvalidReceptor), http.StatusUnprocessableEntity, "invalid_receptor"},
		{is(ontology.ErrInvalidReceptorRecord), http.StatusUnprocessableEntity, "invalid_receptor"},
		{is(docking.ErrEngine), http.StatusServiceUnavailable, "engine_unavailable"},
		{is(docking.ErrTimeout), http.StatusServiceUnavailable, "timeout"},
		// docking jobs
		{is(jobsdocking.ErrInvalidRequest), http.StatusBadRequest, "invalid_request"},
		{is(jobsdocking.ErrUnknownReceptor), http.StatusUnprocessableEntity, "unknown_receptor"},
		{is(jobsdocking.ErrUnknownLigands), http.StatusUnprocessableEntity, "unknown_ligands"},
		{is(jobsdocking.ErrNoPocket), http.StatusUnprocessableEntity, "unknown_pocket"},
		{is(jobsdocking.ErrBoxOutsideReceptor), http.StatusUnprocessableEntity, "box_outside_receptor"},
		{is(jobsdocking.ErrUnknownPose), http.StatusUnprocessableEntity, "unknown_pose"},
		{is(docking.ErrInvalidParams), http.StatusBadRequest, "invalid_request"},
		{is(docking.ErrInvalidLigand), http.StatusUnprocessableEntity, "invalid_ligand"},
		{is(docking.ErrVinaFailed), http.StatusUnprocessableEntity, "vina_failed"},
		// graph store
		{is(graph.ErrNotFound), http.StatusNotFound, "not_found"},
		{is(graph.ErrInvalidQuad), http.StatusUnprocessableEntity, "invalid_data"},
		{is(graph.ErrClosed), http.StatusServiceUnavailable, "unavailable"},
		// SPARQL (handlers/sparql.go documents the choice of statuses)
		{is(sparql.ErrSyntax), http.StatusBadRequest, "malformed_query"},
		{is(ErrQueryTooLarge), http.StatusRequestEntityTooLarge, "query_too_large"},
		{is(sparql.ErrRowLimit), http.StatusBadRequest, "row_limit_exceeded"},
		{is(sparql.ErrMemoryLimit), http.StatusBadRequest, "query_memory_exceeded"},
		{is(sparql.ErrTimeout), http.StatusServiceUnavailable, "query_timeout"},
		{is(sparql.ErrUnsupported), http.StatusBadRequest, "unsupported_query"},
		{is(sparql.ErrBadCall), http.StatusBadRequest, "invalid_query"},
		// structure search (handlers/search.go)
		{is(search.ErrInvalidQuery), http.StatusUnprocessableEntity, "invalid_query"},
		{is(search.ErrTooManySearchJobs), http.StatusTooManyRequests, "too_many_jobs"},
		{is(search.ErrNoSearchJob), http.StatusNotFound, "not_found"},
		{is(search.ErrBadOptions), http.StatusBadRequest, "invalid_request"},
		{is(ErrSearchDisabled), http.StatusNotImplemented, "search_disabled"},
		// GraphQL: a query refused by a limit (handlers/graphql.go)
		{is(graphql.ErrTooComplex), http.StatusBadRequest, "query_too_complex"},
		// admission control (handlers/admission.go)
		{is(admission.ErrRateLimited), http.StatusTooManyRequests, "rate_limited"},
		{is(admission.ErrBusy), http.StatusServiceUnavailable, "busy"},
		// service state
		{is(ErrNotReady), http.StatusServiceUnavailable, "not_ready"},
		{is(context.DeadlineExceeded), http.StatusServiceUnavailable, "timeout"},
	}
}

// classify returns the status and problem code of err (500 internal_error
// when no row matches).
func classify(err error) (int, string) {
	for _, row := range errorTable() {
		if row.match(err) {
			return row.status, row.code
		}
	}
	return http.StatusInternalServerError, "internal_error"
}

// Problem is an RFC 9457 problem details object as molgraph writes it.
type Problem struct {
	Type      string       `json:"type"`
	Title     string       `json:"title"`
	Status    int          `json:"status"`
	Detail    string       `json:"detail,omitempty"`
	Code      string       `json:"code"`
	Instance  string       `json:"instance"`
	RequestID string       `json:"request_id"`
	Errors    []FieldError `json:"errors,omitempty"`
}

// FieldError names one invalid part of a request.
type FieldError struct {
	// Field is a JSON path ("scopes[1]"), a query parameter or a header.
	Field   string `json:"field"`
	Message string `json:"message"`
}

// InputError is bad input with per-field details. It matches its Err
// (e.g. ErrBadRequest) with errors.Is, which chooses the status.
type InputError struct {
	Err    error
	Fields []FieldError
}

// Error is the sentinel's text followed by the field messages.
func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	for i, f := range e.Fields {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if f.Field != "" {
			b.WriteString(f.Field + ": ")
		}
		b.WriteString(f.Message)
	}
	return b.String()
}

// Unwrap returns the sentinel that selects the status.
func (e *InputError) Unwrap() error { return e.Err }

// badRequest is a 400 naming one field.
func badRequest(field, format string, args ...any) error {
	return &InputError{Err: ErrBadRequest, Fields: []FieldError{{Field: field, Message: fmt.Sprintf(format, args...)}}}
}

// methodError is a 405 carrying the methods the path allows.
type methodError struct {
	method string
	allow  []string
}

func (e *methodError) Error() string {
	return fmt.Sprintf("%v: %s; this path allows %s", ErrMethodNotAllowed, e.method, strings.Join(e.allow, ", "))
}

func (e *methodError) Unwrap() error { return ErrMethodNotAllowed }

// clientGone reports whether err is the consequence of the client leaving:
// the request's context is cancelled (net/http does that when the
// connection closes) and err is that cancellation or would be a 5xx. A 4xx
// found before the client left keeps its status.
func clientGone(r *http.Request, err error) bool {
	if !errors.Is(r.Context().Err(), context.Canceled) {
		return false
	}
	status, _ := classify(err)
	return errors.Is(err, context.Canceled) || status >= 500
}

// statusTitle is the problem title of a status.
func statusTitle(status int) string {
	if status == StatusClientClosedRequest {
		return "Client Closed Request"
	}
	return http.StatusText(status)
}

// problemFor builds the problem for err and sets the headers it implies
// (WWW-Authenticate, Allow, Retry-After) on h.
func (s *Server) problemFor(err error, r *http.Request, h http.Header) Problem {
	status, code := classify(err)
	p := Problem{
		Type:      s.problemBase + code,
		Title:     statusTitle(status),
		Status:    status,
		Code:      code,
		Instance:  r.URL.Path,
		RequestID: RequestID(r.Context()),
	}
	if status != http.StatusInternalServerError {
		p.Detail = err.Error()
	} else {
		p.Detail = http.StatusText(status) + "; see the server log for request " + p.RequestID
	}
	var ie *InputError
	if errors.As(err, &ie) {
		p.Errors = ie.Fields
	}
	switch status {
	case http.StatusUnauthorized:
		v := `Bearer realm="molgraph"`
		if !errors.Is(err, ErrUnauthorized) {
			v += `, error="invalid_token"`
		}
		h.Set("WWW-Authenticate", v)
	case http.StatusForbidden:
		var se *auth.ScopeError
		if errors.As(err, &se) {
			h.Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="molgraph", error="insufficient_scope", scope="%s"`, se.Need))
		}
	case http.StatusMethodNotAllowed:
		var me *methodError
		if errors.As(err, &me) {
			h.Set("Allow", strings.Join(me.allow, ", "))
		}
	}
	if !admissionHeaders(err, h) && (status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests) {
		h.Set("Retry-After", "5")
	}
	if status == http.StatusInsufficientStorage {
		// Space comes back when an operator frees it: retry much later.
		h.Set("Retry-After", "60")
	}
	return p
}

// fail writes err as a problem+json response and logs it. If the response
// has already started, the connection is aborted instead.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r, err) {
		err = fmt.Errorf("%w: %w", ErrClientClosedRequest, err)
	}
	info := infoFrom(r.Context())
	if info != nil {
		info.err = err
	}
	if info != nil && info.rec != nil && info.rec.wroteHeader {
		// Too late for a problem: cut the response so the client cannot
		// mistake it for a complete one. The recoverer lets this through.
		panic(http.ErrAbortHandler)
	}
	p := s.problemFor(err, r, w.Header())
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Del("Content-Length")
	w.WriteHeader(p.Status)
	if r.Method != http.MethodHead {
		writeJSONBody(w, p)
	}
}
