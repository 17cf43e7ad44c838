package handlers

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
)

// HandlerFunc handles a request: it writes a success response, or returns
// an error that the adapter turns into a problem+json response. A handler
// that has already started its response and then fails has its connection
// aborted, so the client sees a truncated reply rather than a complete one.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Route declares one endpoint. The router, the OpenAPI document and the
// auth tests are all derived from a table of Routes.
type Route struct {
	// Method is the HTTP method (GET, POST, DELETE, ...).
	Method string
	// Pattern is the full chi pattern, e.g. "/v1/keys/{id}".
	Pattern string
	// Scope is the least scope a key needs; auth.ScopeNone makes the route
	// public (allowed only for /healthz, /readyz and the static query page).
	Scope auth.Scope
	// Class is the route's admission class (admission.SPARQL, ...); empty
	// takes the class routeClasses gives its method and pattern, else
	// admission.Light.
	Class admission.Class
	// Handle serves the route.
	Handle HandlerFunc
	// Doc describes the route in the OpenAPI document.
	Doc Doc
}

// Schema is a JSON Schema (2020-12, as used by OpenAPI 3.1) written as Go
// values; {"$ref": "#/components/schemas/Key"} refers to a component.
type Schema = map[string]any

// Doc is the OpenAPI description of a Route.
type Doc struct {
	// Summary is a one-line description (required).
	Summary string
	// Description is optional longer text (CommonMark).
	Description string
	// Tag groups operations (e.g. "keys", "operations").
	Tag string
	// PathParams describe the {name} parameters of the pattern; a
	// parameter without an entry is documented as a plain string.
	PathParams map[string]string
	// Params are query and header parameters.
	Params []Param
	// Request is the request body, if any.
	Request *Body
	// Responses are the success responses; the adapter's error responses
	// (problem+json) are added automatically.
	Responses []Response
}

// Param is a query or header parameter.
type Param struct {
	Name        string
	In          string // "query" or "header"
	Description string
	Required    bool
	Schema      Schema
}

// Body is a request body.
type Body struct {
	Description string
	Required    bool
	// Content maps media types to schemas.
	Content map[string]Schema
}

// Response is a documented response.
type Response struct {
	Status      int
	Description string
	// Content maps media types to schemas; empty for no body.
	Content map[string]Schema
	// Headers maps response header names to descriptions.
	Headers map[string]string
}

// ref returns a $ref schema to a component schema.
func ref(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }

// jsonContent is a Content map with one application/json schema.
func jsonContent(s Schema) map[string]Schema { return map[string]Schema{"application/json": s} }

var pathParamRE = regexp.MustCompile(`\{([^}:]+)(:[^}]*)?\}`)

// pathParams lists the {name} parameters of a chi pattern, in order.
func pathParams(pattern string) []string {
	var out []string
	for _, m := range pathParamRE.FindAllStringSubmatch(pattern, -1) {
		out = append(out, m[1])
	}
	return out
}

// openAPIPath converts a chi pattern to an OpenAPI path template
// ("{id:[0-9]+}" becomes "{id}").
func openAPIPath(pattern string) string {
	return pathParamRE.ReplaceAllString(pattern, "{$1}")
}

// isV1 reports whether path is under /v1 (and so needs a key).
func isV1(path string) bool { return path == "/v1" || strings.HasPrefix(path, "/v1/") }
