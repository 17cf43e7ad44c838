package handlers

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
)

// openAPIDocument builds the OpenAPI 3.1 document from the resources'
// routes and schemas. Error responses are added per route from what the
// adapter can return: 401/403 by scope, 400/413/415 for request bodies,
// and a problem+json default.
func (s *Server) openAPIDocument() (map[string]any, error) {
	schemas := commonSchemas()
	for _, res := range s.resources() {
		for name, sc := range res.schemas {
			if _, dup := schemas[name]; dup {
				return nil, fmt.Errorf("openapi: %w: schema %s defined twice", ErrBadRequest, name)
			}
			schemas[name] = sc
		}
	}
	paths := map[string]map[string]any{}
	for _, rt := range s.routes {
		p := openAPIPath(rt.Pattern)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		op := operation(rt)
		s.admissionResponses(rt, op)
		paths[p][strings.ToLower(rt.Method)] = op
	}
	return map[string]any{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
		"info": map[string]any{
			"title":             "molgraph",
			"version":           cmpOr(s.cfg.Version, "dev"),
			"description":       "Chemistry knowledge graph: molecules, quantum-chemistry calculations, receptors and docking results as RDF, with JSON projections, SPARQL and GraphQL.\n\n" + limitsDescription,
			"x-molgraph-limits": s.limitsDocument(),
		},
		"servers":  []any{map[string]any{"url": strings.TrimSuffix(s.cfg.BaseIRI, "/")}},
		"security": []any{map[string]any{"bearerAuth": []string{}}},
		"paths":    paths,
		"components": map[string]any{
			"schemas": schemas,
			"securitySchemes": map[string]any{
				"bearerAuth": map[string]any{"type": "http", "scheme": "bearer",
					"description": "An API key (mgk_...). Scopes: read ⊂ write ⊂ admin."},
			},
		},
	}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// operation is the OpenAPI operation object of a route.
func operation(rt Route) map[string]any {
	op := map[string]any{
		"summary":          rt.Doc.Summary,
		"operationId":      operationID(rt),
		"x-molgraph-scope": string(rt.Scope),
	}
	if rt.Doc.Description != "" {
		op["description"] = rt.Doc.Description
	}
	if rt.Doc.Tag != "" {
		op["tags"] = []string{rt.Doc.Tag}
	}
	if rt.Scope == auth.ScopeNone {
		op["security"] = []any{}
		op["x-molgraph-scope"] = "none"
	}
	var params []any
	for _, name := range pathParams(rt.Pattern) {
		params = append(params, map[string]any{"name": name, "in": "path", "required": true,
			"description": cmpOr(rt.Doc.PathParams[name], name), "schema": Schema{"type": "string"}})
	}
	for _, p := range rt.Doc.Params {
		param := map[string]any{"name": p.Name, "in": p.In, "required": p.Required,
			"schema": p.Schema}
		if p.Description != "" {
			param["description"] = p.Description
		}
		params = append(params, param)
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if b := rt.Doc.Request; b != nil {
		op["requestBody"] = map[string]any{"required": b.Required, "content": contentObject(b.Content),
			"description": cmpOr(b.Description, "Request body.")}
	}
	responses := map[string]any{}
	for _, resp := range rt.Doc.Responses {
		r := map[string]any{"description": resp.Description}
		if len(resp.Content) > 0 {
			r["content"] = contentObject(resp.Content)
		}
		if len(resp.Headers) > 0 {
			hs := map[string]any{}
			for name, desc := range resp.Headers {
				hs[name] = map[string]any{"description": desc, "schema": Schema{"type": "string"}}
			}
			r["headers"] = hs
		}
		responses[strconv.Itoa(resp.Status)] = r
	}
	addProblem := func(status int, desc string) {
		if _, ok := responses[strconv.Itoa(status)]; !ok {
			responses[strconv.Itoa(status)] = map[string]any{"description": desc, "content": contentObject(problemContent())}
		}
	}
	if rt.Scope != auth.ScopeNone {
		addProblem(http.StatusUnauthorized, "Missing, unknown, expired or revoked API key (WWW-Authenticate: Bearer).")
		if rt.Scope != auth.ScopeRead {
			addProblem(http.StatusForbidden, fmt.Sprintf("The key lacks the %s scope.", rt.Scope))
		}
	}
	if rt.Doc.Request != nil {
		addProblem(http.StatusBadRequest, "Malformed JSON, unknown field, or invalid field value.")
		addProblem(http.StatusRequestEntityTooLarge, "Body larger than the configured limit.")
		addProblem(http.StatusUnsupportedMediaType, "Unsupported Content-Type.")
	}
	if len(pathParams(rt.Pattern)) > 0 {
		addProblem(http.StatusNotFound, "No such resource.")
	}
	responses["default"] = map[string]any{"description": "Error (RFC 9457 problem details).", "content": contentObject(problemContent())}
	op["responses"] = responses
	return op
}

// operationID derives a stable id such as "get_v1_keys_id".
func operationID(rt Route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.Method))
	for _, seg := range strings.Split(openAPIPath(rt.Pattern), "/") {
		seg = strings.Trim(seg, "{}")
		if seg == "" {
			continue
		}
		b.WriteByte('_')
		for _, c := range seg {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				b.WriteRune(c)
			} else {
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}

func contentObject(c map[string]Schema) map[string]any {
	out := map[string]any{}
	for _, mt := range slices.Sorted(maps.Keys(c)) {
		out[mt] = map[string]any{"schema": c[mt]}
	}
	return out
}

func problemContent() map[string]Schema {
	return map[string]Schema{"application/problem+json": ref("Problem")}
}

// commonSchemas are the schemas every resource may refer to.
func commonSchemas() map[string]Schema {
	return map[string]Schema{
		"Problem": {
			"type":        "object",
			"description": "RFC 9457 problem details.",
			"required":    []string{"type", "title", "status", "code", "instance", "request_id"},
			"properties": Schema{
				"type":       Schema{"type": "string", "format": "uri", "description": "<base>/problems/<code>"},
				"title":      Schema{"type": "string"},
				"status":     Schema{"type": "integer"},
				"detail":     Schema{"type": "string"},
				"code":       Schema{"type": "string", "description": "Machine-readable error code, e.g. not_found, malformed_json."},
				"instance":   Schema{"type": "string", "description": "The request path."},
				"request_id": Schema{"type": "string", "description": "Also in the X-Request-Id response header."},
				"errors":     Schema{"type": "array", "items": ref("FieldError")},
			},
		},
		"FieldError": {
			"type":     "object",
			"required": []string{"field", "message"},
			"properties": Schema{
				"field":   Schema{"type": "string"},
				"message": Schema{"type": "string"},
			},
		},
	}
}

// limitsDescription explains the limits in the document's info.
const limitsDescription = "**Limits.** Every limit of this server is listed with its value in `x-molgraph-limits` " +
	"(and as `molgraph_limit_*` gauges in /metrics). Each API key has a token bucket: past it requests get " +
	"`429 rate_limited` with `Retry-After`; every keyed response carries the IETF draft fields " +
	"`RateLimit-Policy: \"key\";q=<bucket>;w=<seconds to refill>` and `RateLimit: \"key\";r=<left>;t=<seconds to the next token>`. " +
	"Routes that queue a job (batch uploads, docking) are refused with `429 too_many_jobs` while the key, or the service, " +
	"has as many queued or running jobs as allowed (`RateLimit: \"jobs\";r=0;t=<s>`). Heavy routes (SPARQL, GraphQL, " +
	"chemistry, uploads, QM parsing, receptors, docking submission, export) have a cap on requests in flight; a request " +
	"of a full class waits briefly, then gets `503 busy` with `Retry-After`; one key holds at most half of a class's places. " +
	"**CORS.** The SPARQL and GraphQL routes answer browsers of any origin: a preflight (OPTIONS) gets 204 without a key, " +
	"and every answer, errors included, carries `Access-Control-Allow-Origin: *` (keys go in the Authorization header, never in cookies)."

// limitsDocument is x-molgraph-limits: every limit, its value and what
// passing it answers.
func (s *Server) limitsDocument() []any {
	var out []any
	for _, l := range s.limits() {
		e := map[string]any{"name": l.name, "value": l.value, "description": l.help}
		for k, v := range l.labels {
			e[k] = v
		}
		out = append(out, e)
	}
	return out
}

// admissionResponses documents the admission refusals that apply to rt
// on this server: 429 where a key's bucket or a job cap can refuse it, 503
// where its class has a cap; and CORS on the routes that allow it.
func (s *Server) admissionResponses(rt Route, op map[string]any) {
	responses := op["responses"].(map[string]any)
	retry := map[string]any{"description": "Seconds to wait before retrying.", "schema": Schema{"type": "integer", "minimum": 1}}
	rlHeaders := map[string]any{
		"Retry-After":      retry,
		"RateLimit":        map[string]any{"description": "IETF draft-ietf-httpapi-ratelimit-headers: the quota left, e.g. `\"key\";r=0;t=1`.", "schema": Schema{"type": "string"}},
		"RateLimit-Policy": map[string]any{"description": "The quota policies, e.g. `\"key\";q=400;w=2`.", "schema": Schema{"type": "string"}},
	}
	var al admission.Limits
	if s.cfg.Admission != nil {
		al = s.cfg.Admission.Limits()
	}
	var why []string
	if rt.Scope != auth.ScopeNone && al.Rate > 0 {
		why = append(why, fmt.Sprintf("`rate_limited`: the key sent more than %g requests per second (bursts of %d)", al.Rate, al.Burst))
	}
	if submitsJob(rt.Class) {
		if runner := s.jobRunner(rt.Class); runner != nil {
			if jl := runner.Limits(); jl.MaxUnfinished > 0 || jl.MaxUnfinishedPerOwner > 0 {
				why = append(why, fmt.Sprintf("`too_many_jobs`: the key has %d, or the service %d, queued or running jobs",
					jl.MaxUnfinishedPerOwner, jl.MaxUnfinished))
			}
		}
	}
	// add documents a problem response, or extends the route's own.
	add := func(status int, desc string, headers map[string]any) {
		key := strconv.Itoa(status)
		if old, ok := responses[key].(map[string]any); ok {
			old["description"] = fmt.Sprint(old["description"]) + " Or " + desc
			hs, _ := old["headers"].(map[string]any)
			if hs == nil {
				hs = map[string]any{}
			}
			for k, v := range headers {
				hs[k] = v
			}
			old["headers"] = hs
			return
		}
		responses[key] = map[string]any{"description": desc, "headers": headers, "content": contentObject(problemContent())}
	}
	if len(why) > 0 {
		add(http.StatusTooManyRequests, "Too many requests: "+strings.Join(why, "; ")+".", rlHeaders)
	}
	if n := al.InFlight[rt.Class]; n > 0 {
		add(http.StatusServiceUnavailable, fmt.Sprintf("`busy`: %d %s requests are in flight and more are waiting (at most %d, for up to %v).",
			n, rt.Class, admission.WaitingFactor*n, al.Wait), map[string]any{"Retry-After": retry})
	}
	op["x-molgraph-class"] = string(rt.Class)
	if corsClass(rt.Class) {
		op["x-molgraph-cors"] = true
	}
}
