package handlers

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

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
		paths[p][strings.ToLower(rt.Method)] = operation(rt)
	}
	return map[string]any{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
		"info": map[string]any{
			"title":       "molgraph",
			"version":     cmpOr(s.cfg.Version, "dev"),
			"description": "Chemistry knowledge graph: molecules, quantum-chemistry calculations, receptors and docking results as RDF, with JSON projections, SPARQL and GraphQL.",
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
