// Package handlers is molgraph's HTTP layer: a chi router, authentication
// and scopes, RFC 9457 problem+json errors, request ids, access logs,
// Prometheus metrics, body limits and the OpenAPI 3.1 document.
//
// # Routes
//
// Every endpoint is one Route value (route.go): method, chi pattern, the
// least auth.Scope it needs, a HandlerFunc, and its OpenAPI description.
// Each resource is one file that returns its routes (ops.go, keys.go; later
// molecules.go, qm.go, ...), and Server.routeTable concatenates them. The
// router, the OpenAPI document and the auth tests are all derived from that
// table, so a route cannot be registered without a declared scope and an
// OpenAPI entry. Only GET /healthz, GET /readyz and the static query page
// (GET / and GET /static/{name}, which hold no data) are public.
//
// # Errors
//
// Handlers return error. One adapter (Server.fail) classifies it through the
// single table in errors.go (errors.Is on sentinel errors of this and other
// packages) and writes application/problem+json:
//
//	{"type": "<base>/problems/<code>", "title": "Not Found", "status": 404,
//	 "detail": "...", "code": "not_found", "instance": "/v1/keys/key-x",
//	 "request_id": "...", "errors": [{"field": "...", "message": "..."}]}
//
// A 500 problem never carries the internal error text (only the request
// id); the error is logged with that id. Other statuses (503 included) say
// what went wrong in detail. A panic in a handler is recovered into a 500 problem and
// logged with its stack; bad input must never cause one.
//
// # Authentication
//
// Every path under /v1 needs "Authorization: Bearer <key>" before routing,
// so an unknown /v1 path without a key is 401, not 404. Each route then
// checks its declared scope (admin ⊇ write ⊇ read): 401 with
// WWW-Authenticate: Bearer for missing, unknown, expired or revoked keys;
// 403 with error="insufficient_scope" for a key whose scope is too weak.
//
// # Request bodies
//
// Every body is limited to Config.MaxBodyBytes (413 body_too_large, checked
// against Content-Length up front and enforced while reading). JSON bodies
// (decodeJSON) are limited further to Config.MaxJSONBytes and decoded
// strictly: unknown fields, trailing data, wrong types and empty bodies are
// 400 with the field named in errors[]; bad syntax is 400 malformed_json; a
// Content-Type other than application/json (or a +json type) is 415. Unknown
// fields are rejected rather than ignored so that a misspelt option (say
// "generate3d") is reported instead of silently taking its default.
package handlers
