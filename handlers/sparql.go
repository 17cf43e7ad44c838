package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/queries/sparql"
)

// SPARQL endpoint (SPARQL 1.1 Protocol, https://www.w3.org/TR/sparql11-protocol/).
//
// Decisions, documented in the OpenAPI description too:
//
//   - The answer is computed completely before the first byte is sent
//     (spooled in memory up to spoolMemory, then in a temporary file), so a
//     timeout or the row cap is always a proper problem response and never a
//     truncated 200 (the failure mode Jena issue #3535 describes for
//     streaming endpoints). The row cap bounds what is spooled.
//   - Query timeout: 503 query_timeout, with Retry-After, as Fuseki does for
//     a cancelled query: the same query may finish on a less loaded server,
//     and the limit is the operator's (MOLGRAPH_SPARQL_TIMEOUT).
//   - Row cap: 400 row_limit_exceeded (API.md: a query error is 400): more
//     than MOLGRAPH_SPARQL_MAX_ROWS solutions (SELECT) or triples
//     (CONSTRUCT/DESCRIBE); the detail tells the client to page with
//     LIMIT/OFFSET. Virtuoso truncates silently instead; we do not, because
//     a silently partial answer is indistinguishable from a complete one.
//   - Memory budget: 400 query_memory_exceeded (MOLGRAPH_SPARQL_MAX_MEMORY,
//     default 256 MiB per query) when what a query holds at once (ORDER
//     BY, GROUP BY, DISTINCT, sub-queries, CONSTRUCT results, path
//     searches) passes it. A 400 like the row cap and not a 503: the
//     budget is a property of the query on this data, not of the server's
//     load, so the same request would fail again; the client must change
//     the query. We refuse rather than spill to disk: spilling sorts and
//     hash tables would be a second engine, and a query that big is
//     better paged.
//   - Syntax errors: 400 malformed_query with errors[0] = {"field": "query",
//     "message": "line L, column C: ..."}.
//   - Unknown parameters are ignored (SPARQLWrapper adds output= and
//     results=). An Accept header matching none of the formats falls back to
//     the default format (JSON, or Turtle for graphs), which the protocol
//     allows and roqet needs; a ?format= naming no format at all is 400.
//   - Relative IRIs in a query resolve against the service's base IRI, so
//     <id/molecule/mol-X> names a resource.
//   - GET with no query parameter returns the SPARQL Service Description.
//   - /.well-known/void (VoID) needs the read scope like every other read:
//     API.md lets only /healthz and /readyz go without a key, and the VoID
//     statistics describe the private dataset.

// Defaults of QueryLimits fields left zero.
const (
	DefaultSPARQLTimeout      = 30 * time.Second
	DefaultSPARQLMaxRows      = 100_000
	DefaultSPARQLMaxQuery     = 1 << 20
	DefaultGraphQLMaxDepth    = 10
	DefaultGraphQLMaxCost     = 10_000
	DefaultGraphQLMaxPageSize = 100
)

// spoolMemory is how much of a SPARQL answer is kept in memory before it
// spills to a temporary file.
const spoolMemory = 8 << 20

// QueryLimits bounds SPARQL and GraphQL queries.
type QueryLimits struct {
	// SPARQLTimeout bounds one SPARQL query, evaluation and serialization
	// (default DefaultSPARQLTimeout).
	SPARQLTimeout time.Duration
	// SPARQLMaxRows caps the solutions (SELECT) or triples
	// (CONSTRUCT/DESCRIBE) of one answer (default DefaultSPARQLMaxRows).
	SPARQLMaxRows int
	// SPARQLMaxQuery is the longest SPARQL query text in bytes, checked
	// before parsing (default DefaultSPARQLMaxQuery); longer is 413
	// query_too_large. A form body may be up to three times as long plus
	// 64 KiB, for the percent-encoding and the other parameters.
	SPARQLMaxQuery int
	// SPARQLMaxLiteral is the longest literal a SPARQL string function or
	// GROUP_CONCAT may build (sparql.Options.MaxLiteral; default
	// sparql.DefaultMaxLiteral); past it the expression is an error
	// (unbound, or false in FILTER), not a failed request.
	SPARQLMaxLiteral int
	// SPARQLMaxMemory is one SPARQL query's memory budget in bytes for its
	// tables (sparql.Options.MaxMemory; default sparql.DefaultMaxMemory);
	// past it: 400 query_memory_exceeded.
	SPARQLMaxMemory int64
	// GraphQLMaxDepth is the deepest selection nesting a GraphQL query may
	// have (default DefaultGraphQLMaxDepth).
	GraphQLMaxDepth int
	// GraphQLMaxCost is the largest estimated number of resolved objects
	// (default DefaultGraphQLMaxCost).
	GraphQLMaxCost int
	// GraphQLTimeout bounds one GraphQL request (default: SPARQLTimeout).
	GraphQLTimeout time.Duration
}

func (l QueryLimits) withDefaults() QueryLimits {
	if l.SPARQLTimeout <= 0 {
		l.SPARQLTimeout = DefaultSPARQLTimeout
	}
	if l.SPARQLMaxRows <= 0 {
		l.SPARQLMaxRows = DefaultSPARQLMaxRows
	}
	if l.SPARQLMaxQuery <= 0 {
		l.SPARQLMaxQuery = DefaultSPARQLMaxQuery
	}
	if l.GraphQLMaxDepth <= 0 {
		l.GraphQLMaxDepth = DefaultGraphQLMaxDepth
	}
	if l.GraphQLMaxCost <= 0 {
		l.GraphQLMaxCost = DefaultGraphQLMaxCost
	}
	if l.GraphQLTimeout <= 0 {
		l.GraphQLTimeout = l.SPARQLTimeout
	}
	return l
}

// sparqlMaxLiteral is the literal limit sparql.Options.MaxLiteral applies
// for the configured value v (0 when there is none).
func sparqlMaxLiteral(v int) int {
	switch {
	case v == 0:
		return sparql.DefaultMaxLiteral
	case v < 0:
		return 0
	}
	return v
}

// sparqlMaxMemory is the budget sparql.Options.MaxMemory applies for the
// configured value v (0 when there is none).
func sparqlMaxMemory(v int64) int64 {
	switch {
	case v == 0:
		return sparql.DefaultMaxMemory
	case v < 0:
		return 0
	}
	return v
}

// queryResource is the graph query surface: SPARQL, its service and dataset
// descriptions, GraphQL, the JSON-LD context and the full export.
func (s *Server) queryResource() resource {
	var routes []Route
	routes = append(routes, s.sparqlRoutes()...)
	routes = append(routes, s.graphqlRoutes()...)
	routes = append(routes, s.exportRoutes()...)
	routes = append(routes, s.ontologyRoutes()...)
	return resource{routes: routes, schemas: graphqlSchemas()}
}

// graphStore returns the configured graph or a 503.
func (s *Server) graphStore() (*graph.Store, error) {
	if s.cfg.Graph == nil {
		return nil, fmt.Errorf("%w: no graph store configured", ErrNotReady)
	}
	return s.cfg.Graph, nil
}

// resultFormat is one SPARQL answer format.
type resultFormat struct {
	names     []string // ?format= values, first is canonical
	mediaType string   // Content-Type sent
	accept    []string // media types that select it in Accept
	write     func(w io.Writer, r *sparql.Result) error
	rdf       rdfio.Format // for graph results
}

// Formats for SELECT and ASK results, default first.
func solutionFormats(form sparql.Form) []resultFormat {
	out := []resultFormat{
		{names: []string{"json", "srj"}, mediaType: sparql.MediaJSON,
			accept: []string{sparql.MediaJSON, "application/json"}, write: sparql.WriteJSON},
		{names: []string{"xml", "srx"}, mediaType: sparql.MediaXML,
			accept: []string{sparql.MediaXML, "application/xml", "text/xml"}, write: sparql.WriteXML},
	}
	if form == sparql.Select {
		out = append(out,
			resultFormat{names: []string{"csv"}, mediaType: sparql.MediaCSV + "; charset=utf-8",
				accept: []string{sparql.MediaCSV}, write: sparql.WriteCSV},
			resultFormat{names: []string{"tsv"}, mediaType: sparql.MediaTSV + "; charset=utf-8",
				accept: []string{sparql.MediaTSV}, write: sparql.WriteTSV})
	}
	return out
}

// Formats for CONSTRUCT and DESCRIBE results (and the service
// descriptions), default first.
func graphFormats() []resultFormat {
	return []resultFormat{
		{names: []string{"turtle", "ttl", "n3"}, rdf: rdfio.Turtle,
			accept: []string{"text/turtle", "application/turtle", "application/x-turtle", "text/n3"}},
		{names: []string{"ntriples", "nt"}, rdf: rdfio.NTriples,
			accept: []string{"application/n-triples", "text/plain"}},
		{names: []string{"jsonld", "json-ld", "json"}, rdf: rdfio.JSONLD,
			accept: []string{"application/ld+json", "application/json"}},
		{names: []string{"nquads", "nq"}, rdf: rdfio.NQuads,
			accept: []string{"application/n-quads"}},
	}
}

// allFormatNames lists every ?format= value the endpoint knows, for
// error messages and the OpenAPI description.
func allFormatNames() []string {
	var out []string
	for _, f := range append(solutionFormats(sparql.Select), graphFormats()...) {
		out = append(out, f.names...)
	}
	return append(out, "rdf")
}

// chooseFormat picks among formats: a ?format= value naming one of them
// wins; a value naming a format of the other kind of answer (xml for a
// graph, turtle for solutions) or RDF/XML falls through to Accept; a value
// naming nothing is 400. Accept picks by q-value among all media types;
// when nothing matches, the first (default) format is used.
func chooseFormat(r *http.Request, formats []resultFormat) (resultFormat, error) {
	if v := strings.ToLower(strings.TrimSpace(r.Form.Get("format"))); v != "" {
		for _, f := range formats {
			for _, n := range f.names {
				if v == n {
					return f, nil
				}
			}
		}
		known := false
		for _, n := range allFormatNames() {
			known = known || v == n
		}
		if !known {
			return resultFormat{}, badRequest("format", "unknown format %q; allowed: %s", v, strings.Join(allFormatNames(), ", "))
		}
	}
	var offers []string
	owner := map[string]int{}
	for i, f := range formats {
		for _, mt := range f.accept {
			if _, dup := owner[mt]; !dup {
				owner[mt] = i
				offers = append(offers, mt)
			}
		}
	}
	if mt, ok := negotiate(r.Header.Get("Accept"), offers); ok {
		return formats[owner[mt]], nil
	}
	return formats[0], nil
}

// sparqlRequest is a parsed protocol request.
type sparqlRequest struct {
	query   string
	dataset *sparql.Dataset
}

// parseSPARQLRequest reads the query and the protocol dataset from r
// (GET ?query=, POST form, POST application/sparql-query) and fills
// r.Form with the URL (and form body) parameters. found is false for a GET
// without a query parameter (a request for the service description).
func (s *Server) parseSPARQLRequest(r *http.Request) (req sparqlRequest, found bool, err error) {
	maxQuery := s.cfg.Query.withDefaults().SPARQLMaxQuery
	params := r.URL.Query()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost:
		ct := r.Header.Get("Content-Type")
		if ct == "" {
			return req, false, fmt.Errorf("%w: a POST needs Content-Type application/sparql-query or application/x-www-form-urlencoded", ErrUnsupportedMediaType)
		}
		mt, ps, perr := mime.ParseMediaType(ct)
		if perr != nil {
			return req, false, fmt.Errorf("%w: Content-Type %q: %v", ErrUnsupportedMediaType, ct, perr)
		}
		if cs := ps["charset"]; cs != "" && !strings.EqualFold(cs, "utf-8") {
			return req, false, fmt.Errorf("%w: charset %q; queries are UTF-8", ErrUnsupportedMediaType, cs)
		}
		// Only as much of the body is read as a query within the limit
		// can need: the text cap is checked before anything is parsed.
		maxBody := int64(maxQuery)
		if mt == "application/x-www-form-urlencoded" {
			maxBody = 3*maxBody + 64<<10
		}
		body, rerr := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if rerr != nil {
			return req, false, fmt.Errorf("read sparql request: %w", rerr)
		}
		if int64(len(body)) > maxBody {
			return req, false, fmt.Errorf("%w: the %s body is longer than %d bytes; the server accepts SPARQL queries of at most %d bytes (MOLGRAPH_SPARQL_MAX_QUERY)",
				ErrQueryTooLarge, mt, maxBody, maxQuery)
		}
		if !utf8.Valid(body) {
			return req, false, badRequest("query", "the request body is not valid UTF-8")
		}
		switch mt {
		case "application/sparql-query":
			if params.Has("query") {
				return req, false, badRequest("query", "a query in the body and another in the URL")
			}
			params["query"] = []string{string(body)}
		case "application/x-www-form-urlencoded":
			form, perr := url.ParseQuery(string(body))
			if perr != nil {
				return req, false, badRequest("body", "malformed form body: %v", perr)
			}
			if form.Has("update") {
				return req, false, badRequest("update", "SPARQL Update is not supported; this endpoint is read-only")
			}
			for k, vs := range form {
				params[k] = append(params[k], vs...)
			}
		default:
			return req, false, fmt.Errorf("%w: %q; use application/sparql-query or application/x-www-form-urlencoded", ErrUnsupportedMediaType, mt)
		}
	}
	r.Form = params
	qs := params["query"]
	switch {
	case len(qs) > 1:
		return req, false, badRequest("query", "%d query parameters; send exactly one", len(qs))
	case len(qs) == 0 && r.Method == http.MethodPost:
		return req, false, badRequest("query", "required")
	case len(qs) == 0:
		return req, false, nil
	}
	for _, v := range qs {
		if len(v) > maxQuery {
			return req, false, fmt.Errorf("%w: the query is %d bytes; the server accepts SPARQL queries of at most %d bytes (MOLGRAPH_SPARQL_MAX_QUERY)",
				ErrQueryTooLarge, len(v), maxQuery)
		}
		if !utf8.ValidString(v) {
			return req, false, badRequest("query", "not valid UTF-8")
		}
	}
	req.query = qs[0]
	if strings.TrimSpace(req.query) == "" {
		return req, false, badRequest("query", "empty")
	}
	dg, ng := params["default-graph-uri"], params["named-graph-uri"]
	if len(dg)+len(ng) > 0 {
		req.dataset = &sparql.Dataset{}
		for _, g := range dg {
			iri, err := absoluteIRI("default-graph-uri", g)
			if err != nil {
				return req, false, err
			}
			req.dataset.Default = append(req.dataset.Default, iri)
		}
		for _, g := range ng {
			iri, err := absoluteIRI("named-graph-uri", g)
			if err != nil {
				return req, false, err
			}
			req.dataset.Named = append(req.dataset.Named, iri)
		}
	}
	return req, true, nil
}

func absoluteIRI(field, v string) (quad.IRI, error) {
	u, err := url.Parse(v)
	if err != nil || !u.IsAbs() || strings.ContainsAny(v, "<>\"{}|^`\\ \t\n") {
		return "", badRequest(field, "%q is not an absolute IRI", v)
	}
	return quad.IRI(v), nil
}

func (s *Server) sparqlRoutes() []Route {
	desc := "SPARQL 1.1 Protocol query operation. SELECT/ASK answers: application/sparql-results+json " +
		"(default), application/sparql-results+xml, text/csv, text/tab-separated-values (CSV/TSV for SELECT). " +
		"CONSTRUCT/DESCRIBE: text/turtle (default), application/n-triples, application/ld+json, application/n-quads. " +
		"Chosen by ?format= or Accept; an Accept that matches nothing gets the default. " +
		"The default graph is the union of all named graphs unless default-graph-uri/named-graph-uri (or FROM) say otherwise. " +
		"Limits: the query timeout (503 query_timeout) and the row cap (400 row_limit_exceeded) are configured " +
		"with MOLGRAPH_SPARQL_TIMEOUT and MOLGRAPH_SPARQL_MAX_ROWS; a query text longer than MOLGRAPH_SPARQL_MAX_QUERY " +
		"(default 1 MiB) is 413 query_too_large; a syntax error, nesting deeper than 256 levels or more than 4096 triple " +
		"patterns and graph-pattern operators is 400 malformed_query with " +
		"the line and column in errors[0].message. A string function or GROUP_CONCAT that would build a literal longer than " +
		"MOLGRAPH_SPARQL_MAX_LITERAL (default 1 MiB) is an expression error (the variable stays unbound; FILTER is false). " +
		"A query whose ORDER BY, GROUP BY, DISTINCT, sub-queries, CONSTRUCT result or path searches hold more than " +
		"MOLGRAPH_SPARQL_MAX_MEMORY (default 256 MiB) is 400 query_memory_exceeded. " +
		"Unknown parameters are ignored."
	common := []Param{
		{Name: "default-graph-uri", In: "query", Description: "A graph of the default graph (repeatable); overrides FROM.", Schema: Schema{"type": "string"}},
		{Name: "named-graph-uri", In: "query", Description: "A named graph of the dataset (repeatable); overrides FROM NAMED.", Schema: Schema{"type": "string"}},
		{Name: "format", In: "query", Description: "Answer format, instead of Accept.", Schema: Schema{"type": "string", "enum": allFormatNames()}},
	}
	answers := []Response{{Status: 200, Description: "The answer.", Content: map[string]Schema{
		sparql.MediaJSON: {"type": "object"}, sparql.MediaXML: {"type": "string"},
		sparql.MediaCSV: {"type": "string"}, sparql.MediaTSV: {"type": "string"},
		"text/turtle": {"type": "string"}, "application/n-triples": {"type": "string"},
		"application/ld+json": {"type": "object"},
	}, Headers: map[string]string{"Vary": "Accept"}}}
	rdfOut := map[string]Schema{"text/turtle": {"type": "string"}, "application/n-triples": {"type": "string"}, "application/ld+json": {"type": "object"}}
	return []Route{
		{
			Method: http.MethodGet, Pattern: "/v1/sparql", Scope: auth.ScopeRead, Handle: s.sparqlQuery,
			Doc: Doc{Tag: "graph", Summary: "SPARQL query (GET ?query=); without a query, the Service Description",
				Description: desc + " Without a query parameter the answer is the SPARQL 1.1 Service Description (sd: vocabulary, Turtle by default).",
				Params:      append([]Param{{Name: "query", In: "query", Description: "The SPARQL 1.1 query.", Schema: Schema{"type": "string"}}}, common...),
				Responses:   answers},
		},
		{
			Method: http.MethodPost, Pattern: "/v1/sparql", Scope: auth.ScopeRead, Handle: s.sparqlQuery,
			Doc: Doc{Tag: "graph", Summary: "SPARQL query (POST form or application/sparql-query)", Description: desc,
				Params: common,
				Request: &Body{Required: true, Content: map[string]Schema{
					"application/sparql-query": {"type": "string"},
					"application/x-www-form-urlencoded": {"type": "object", "required": []string{"query"},
						"properties": Schema{"query": Schema{"type": "string"},
							"default-graph-uri": Schema{"type": "array", "items": Schema{"type": "string"}},
							"named-graph-uri":   Schema{"type": "array", "items": Schema{"type": "string"}}}},
				}},
				Responses: answers},
		},
		{
			Method: http.MethodGet, Pattern: "/.well-known/void", Scope: auth.ScopeRead, Handle: s.voidDescription,
			Doc: Doc{Tag: "graph", Summary: "VoID description of the dataset",
				Description: "A void:Dataset with the SPARQL endpoint, triple count, URI space, vocabularies, the data dump " +
					"and class partitions. Needs the read scope (only /healthz and /readyz are public).",
				Params:    []Param{{Name: "format", In: "query", Description: "turtle (default), ntriples or jsonld, instead of Accept.", Schema: Schema{"type": "string"}}},
				Responses: []Response{{Status: 200, Description: "The VoID description.", Content: rdfOut}}},
		},
	}
}

// sparqlQuery serves GET and POST /v1/sparql.
func (s *Server) sparqlQuery(w http.ResponseWriter, r *http.Request) error {
	req, found, err := s.parseSPARQLRequest(r)
	if err != nil {
		return err
	}
	store, err := s.graphStore()
	if err != nil {
		return err
	}
	if !found {
		return s.serviceDescription(w, r, store)
	}
	q, err := sparql.Parse(req.query, s.cfg.BaseIRI)
	if err != nil {
		return queryError(err)
	}
	lim := s.cfg.Query.withDefaults()
	var formats []resultFormat
	if f := q.Form(); f == sparql.Select || f == sparql.Ask {
		formats = solutionFormats(f)
	} else {
		formats = graphFormats()
	}
	f, err := chooseFormat(r, formats)
	if err != nil {
		return err
	}
	// The timeout covers evaluation and serialization into the spool (not
	// the client's reading), so it is enforced here as well as in the
	// engine.
	ctx, cancel := context.WithTimeout(r.Context(), lim.SPARQLTimeout)
	defer cancel()
	res, err := sparql.Exec(ctx, store, q, sparql.Options{Dataset: req.dataset, Timeout: lim.SPARQLTimeout, MaxRows: lim.SPARQLMaxRows,
		MaxLiteral: lim.SPARQLMaxLiteral, MaxMemory: lim.SPARQLMaxMemory, Procedures: s.sparqlProcedures(), Helpers: s.cfg.SPARQLHelpers})
	if err != nil {
		return s.execError(err, lim)
	}
	defer res.Close()
	sp := &spool{}
	defer sp.Close()
	var ctype string
	if f.write != nil {
		ctype = f.mediaType
		err = f.write(sp, res)
	} else {
		ctype = f.rdf.MediaType()
		err = writeGraphResult(sp, res, f.rdf)
	}
	if err == nil && ctx.Err() != nil {
		if r.Context().Err() != nil {
			// The client left (fail answers 499), not a timeout.
			err = fmt.Errorf("sparql: %w", r.Context().Err())
		} else {
			err = fmt.Errorf("sparql: %w after %s", sparql.ErrTimeout, lim.SPARQLTimeout)
		}
	}
	if err != nil {
		return s.execError(err, lim)
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Vary", "Accept")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Content-Length", strconv.FormatInt(sp.Len(), 10))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = sp.WriteTo(w)
	return err
}

// queryError turns a parse error into a 400 whose errors[0] gives the
// position.
func queryError(err error) error {
	var se *sparql.SyntaxError
	if errors.As(err, &se) {
		return &InputError{Err: fmt.Errorf("sparql %w", sparql.ErrSyntax), Fields: []FieldError{{Field: "query",
			Message: fmt.Sprintf("line %d, column %d: %s", se.Line, se.Column, se.Msg)}}}
	}
	return err
}

// execError explains the limits in the error the client sees.
func (s *Server) execError(err error, lim QueryLimits) error {
	switch {
	case errors.Is(err, sparql.ErrRowLimit):
		return fmt.Errorf("%w: the answer has more than %d rows (the server's row cap); page through it with LIMIT and OFFSET", err, lim.SPARQLMaxRows)
	case errors.Is(err, sparql.ErrMemoryLimit):
		return fmt.Errorf("%w (MOLGRAPH_SPARQL_MAX_MEMORY); make the query more selective, or sort, group or deduplicate fewer solutions", err)
	case errors.Is(err, sparql.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		if !errors.Is(err, sparql.ErrTimeout) {
			err = fmt.Errorf("%w: %w", sparql.ErrTimeout, err)
		}
		return fmt.Errorf("%w: the query ran longer than the server's limit of %s; make it more selective or add a LIMIT", err, lim.SPARQLTimeout)
	}
	return err
}

// writeGraphResult serializes a CONSTRUCT or DESCRIBE answer. The triples
// (at most the row cap) are sorted so that Turtle groups each subject once.
func writeGraphResult(w io.Writer, res *sparql.Result, f rdfio.Format) error {
	qs, err := res.Quads()
	if err != nil {
		return err
	}
	rdfio.SortQuads(qs)
	return rdfio.WriteAll(w, f, qs)
}

// spool holds a response body: in memory up to spoolMemory bytes, then in
// a temporary file.
type spool struct {
	mem  bytes.Buffer
	file *os.File
	n    int64
}

func (sp *spool) Write(p []byte) (int, error) {
	if sp.file == nil && sp.mem.Len()+len(p) > spoolMemory {
		f, err := os.CreateTemp("", "molgraph-spool-*")
		if err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
		sp.file = f
		if _, err := sp.mem.WriteTo(f); err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
	}
	var n int
	var err error
	if sp.file != nil {
		n, err = sp.file.Write(p)
	} else {
		n, err = sp.mem.Write(p)
	}
	sp.n += int64(n)
	return n, err
}

// Len is the number of bytes written.
func (sp *spool) Len() int64 { return sp.n }

// WriteTo copies the spooled bytes to w.
func (sp *spool) WriteTo(w io.Writer) (int64, error) {
	if sp.file == nil {
		return sp.mem.WriteTo(w)
	}
	if _, err := sp.file.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("spool: %w", err)
	}
	return io.Copy(w, sp.file)
}

// Close removes the temporary file, if any.
func (sp *spool) Close() {
	if sp.file != nil {
		sp.file.Close()
		os.Remove(sp.file.Name())
		sp.file = nil
	}
}

// Vocabularies of the descriptions.
const (
	sdNS      = "http://www.w3.org/ns/sparql-service-description#"
	voidNS    = "http://rdfs.org/ns/void#"
	formatsNS = "http://www.w3.org/ns/formats/"
	dctermsNS = "http://purl.org/dc/terms/"
)

// describePrefixes are the prefixes of the SD and VoID documents.
func describePrefixes() []ontology.Prefix {
	return append(ontology.Prefixes(),
		ontology.Prefix{Name: "sd", IRI: sdNS}, ontology.Prefix{Name: "void", IRI: voidNS},
		ontology.Prefix{Name: "formats", IRI: formatsNS}, ontology.Prefix{Name: "dcterms", IRI: dctermsNS})
}

// writeDescription negotiates an RDF format and writes quads.
func writeDescription(w http.ResponseWriter, r *http.Request, qs []quad.Quad) error {
	if err := r.ParseForm(); err != nil {
		return badRequest("query", "malformed query string: %v", err)
	}
	f, err := chooseFormat(r, graphFormats()[:3])
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	wr, err := rdfio.NewWriterOptions(&buf, f.rdf, rdfio.WriterOptions{Prefixes: describePrefixes()})
	if err != nil {
		return err
	}
	for _, q := range qs {
		if err := wr.WriteQuad(q); err != nil {
			return err
		}
	}
	if err := wr.Close(); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", f.rdf.MediaType())
	h.Set("Vary", "Accept")
	h.Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = buf.WriteTo(w)
	return err
}

func (s *Server) endpointIRI() quad.IRI { return quad.IRI(s.cfg.BaseIRI + "v1/sparql") }
func (s *Server) voidIRI() quad.IRI     { return quad.IRI(s.cfg.BaseIRI + ".well-known/void#dataset") }

// serviceDescription answers GET /v1/sparql without a query
// (https://www.w3.org/TR/sparql11-service-description/).
func (s *Server) serviceDescription(w http.ResponseWriter, r *http.Request, store *graph.Store) error {
	sd := func(l string) quad.IRI { return quad.IRI(sdNS + l) }
	svc := quad.IRI(s.cfg.BaseIRI + "v1/sparql#service")
	ds := s.voidIRI()
	dg := quad.BNode("defaultGraph")
	qs := []quad.Quad{
		{Subject: svc, Predicate: ontology.RDFType, Object: sd("Service")},
		{Subject: svc, Predicate: sd("endpoint"), Object: s.endpointIRI()},
		{Subject: svc, Predicate: sd("supportedLanguage"), Object: sd("SPARQL11Query")},
		{Subject: svc, Predicate: sd("feature"), Object: sd("UnionDefaultGraph")},
	}
	for _, f := range []string{"SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV",
		"Turtle", "N-Triples", "JSON-LD", "N-Quads"} {
		qs = append(qs, quad.Quad{Subject: svc, Predicate: sd("resultFormat"), Object: quad.IRI(formatsNS + f)})
	}
	qs = append(qs,
		quad.Quad{Subject: svc, Predicate: sd("defaultDataset"), Object: ds},
		quad.Quad{Subject: ds, Predicate: ontology.RDFType, Object: sd("Dataset")},
		quad.Quad{Subject: ds, Predicate: ontology.RDFType, Object: quad.IRI(voidNS + "Dataset")},
		quad.Quad{Subject: ds, Predicate: sd("defaultGraph"), Object: dg},
		quad.Quad{Subject: dg, Predicate: ontology.RDFType, Object: sd("Graph")},
	)
	if n, _, err := store.Stats(r.Context()); err == nil {
		qs = append(qs, quad.Quad{Subject: dg, Predicate: quad.IRI(voidNS + "triples"), Object: ontology.Integer(n)})
	}
	qs = append(qs, searchProcedureQuads(svc, sd, s.cfg.SPARQLProcedures)...)
	return writeDescription(w, r, qs)
}

// voidClasses are the classes whose partitions VoID reports.
func voidClasses() []quad.IRI {
	return []quad.IRI{
		quad.IRI(ontology.MG + "Molecule"), quad.IRI(ontology.MG + "Calculation"),
		quad.IRI(ontology.MG + "Receptor"), quad.IRI(ontology.MG + "DockingJob"),
		quad.IRI(ontology.MG + "DockingPose"), quad.IRI(ontology.MG + "BatchUploadJob"),
	}
}

// voidDescription serves /.well-known/void (https://www.w3.org/TR/void/).
func (s *Server) voidDescription(w http.ResponseWriter, r *http.Request) error {
	store, err := s.graphStore()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Query.withDefaults().SPARQLTimeout)
	defer cancel()
	v := func(l string) quad.IRI { return quad.IRI(voidNS + l) }
	ds := s.voidIRI()
	qs := []quad.Quad{
		{Subject: ds, Predicate: ontology.RDFType, Object: v("Dataset")},
		{Subject: ds, Predicate: quad.IRI(dctermsNS + "title"), Object: ontology.String("molgraph chemistry knowledge graph")},
		{Subject: ds, Predicate: v("sparqlEndpoint"), Object: s.endpointIRI()},
		{Subject: ds, Predicate: v("uriSpace"), Object: ontology.String(s.cfg.BaseIRI + "id/")},
		{Subject: ds, Predicate: v("dataDump"), Object: quad.IRI(s.cfg.BaseIRI + "v1/export?format=nquads")},
		{Subject: ds, Predicate: v("feature"), Object: quad.IRI(formatsNS + "N-Quads")},
	}
	for _, p := range ontology.Prefixes() {
		switch p.Name {
		case "xsd", "rdf", "rdfs", "owl", "sh":
			continue
		}
		qs = append(qs, quad.Quad{Subject: ds, Predicate: v("vocabulary"), Object: quad.IRI(p.IRI)})
	}
	n, _, err := store.Stats(ctx)
	if err != nil {
		return err
	}
	qs = append(qs, quad.Quad{Subject: ds, Predicate: v("triples"), Object: ontology.Integer(n)})
	for _, class := range voidClasses() {
		var c int64
		err := store.Match(ctx, graph.Pattern{Predicate: ontology.RDFType, Object: class}, func(quad.Quad) error {
			c++
			return nil
		})
		if err != nil {
			return err
		}
		if c == 0 {
			continue
		}
		part := quad.IRI(string(ds) + "-" + strings.TrimPrefix(string(class), ontology.MG))
		qs = append(qs,
			quad.Quad{Subject: ds, Predicate: v("classPartition"), Object: part},
			quad.Quad{Subject: part, Predicate: v("class"), Object: class},
			quad.Quad{Subject: part, Predicate: v("entities"), Object: ontology.Integer(c)})
		if class == voidClasses()[0] {
			if iris, _, err := store.ListByClass(ctx, class, "", 1); err == nil && len(iris) > 0 {
				qs = append(qs, quad.Quad{Subject: ds, Predicate: v("exampleResource"), Object: iris[0]})
			}
		}
	}
	return writeDescription(w, r, qs)
}
