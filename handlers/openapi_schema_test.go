package handlers

import (
	"bytes"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const (
	oasSchemaURL  = "https://spec.openapis.org/oas/3.1/schema/2022-10-07"
	oasSchemaFile = "testdata/oas-3.1-schema-2022-10-07.json"
	docURL        = "https://molgraph.test/openapi.json"
)

// openAPICompiler loads the official OAS 3.1 schema and our served
// document into one JSON Schema compiler.
func openAPICompiler(t *testing.T, f *fixture) (*jsonschema.Compiler, any) {
	t.Helper()
	raw, err := os.ReadFile(oasSchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	oas, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	rec := f.do(t, "GET", "/v1/openapi.json", "read", nil)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(oasSchemaURL, oas); err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(docURL, doc); err != nil {
		t.Fatal(err)
	}
	return c, doc
}

func TestOpenAPIValidatesAgainstOfficialSchema(t *testing.T) {
	f := newFixture(t, nil)
	c, doc := openAPICompiler(t, f)
	sch, err := c.Compile(oasSchemaURL)
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("/v1/openapi.json is not a valid OpenAPI 3.1 document:\n%v", err)
	}
	// Every component schema must itself be valid JSON Schema 2020-12
	// (the compiler checks each against the meta-schema).
	for name := range doc.(map[string]any)["components"].(map[string]any)["schemas"].(map[string]any) {
		if _, err := c.Compile(docURL + "#/components/schemas/" + name); err != nil {
			t.Errorf("component schema %s: %v", name, err)
		}
	}
}

// pointerEscape escapes a JSON pointer token.
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// TestResponsesMatchOpenAPI sends real requests and validates each body
// against the schema the document declares for that route, status and
// media type: the document describes what the server actually returns.
func TestResponsesMatchOpenAPI(t *testing.T) {
	f := newFixture(t, nil)
	c, doc := openAPICompiler(t, f)
	paths := doc.(map[string]any)["paths"].(map[string]any)
	created := f.do(t, "POST", "/v1/keys", "admin", strings.NewReader(`{"name": "n", "scopes": ["read"]}`), "Content-Type", "application/json")
	id := strings.TrimPrefix(created.Header().Get("Location"), "/v1/keys/")
	tests := []struct {
		method, pattern, path, who, body string
		rec                              *httptest.ResponseRecorder
	}{
		{"POST", "/v1/keys", "", "", "", created},
		{"GET", "/healthz", "/healthz", "", "", nil},
		{"GET", "/readyz", "/readyz", "", "", nil},
		{"GET", "/v1/keys", "/v1/keys", "admin", "", nil},
		{"GET", "/v1/keys/{id}", "/v1/keys/" + id, "admin", "", nil},
		{"DELETE", "/v1/keys/{id}", "/v1/keys/" + id, "admin", "", nil},
		{"GET", "/v1/keys/{id}", "/v1/keys/key-nope", "admin", "", nil},
		{"GET", "/v1/keys", "/v1/keys", "read", "", nil},
		{"GET", "/v1/keys", "/v1/keys", "", "", nil},
		{"POST", "/v1/keys", "/v1/keys", "admin", `{"name": 1}`, nil},
		{"POST", "/v1/keys", "/v1/keys", "admin", `{`, nil},
	}
	for _, tt := range tests {
		rec := tt.rec
		if rec == nil {
			var body *strings.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			if body != nil {
				rec = f.do(t, tt.method, tt.path, tt.who, body, "Content-Type", "application/json")
			} else {
				rec = f.do(t, tt.method, tt.path, tt.who, nil)
			}
		}
		ct := rec.Header().Get("Content-Type")
		status := strconv.Itoa(rec.Code)
		op, ok := paths[tt.pattern].(map[string]any)[strings.ToLower(tt.method)].(map[string]any)
		if !ok {
			t.Errorf("%s %s not documented", tt.method, tt.pattern)
			continue
		}
		responses := op["responses"].(map[string]any)
		key := status
		if _, ok := responses[key]; !ok {
			key = "default"
		}
		content, _ := responses[key].(map[string]any)["content"].(map[string]any)
		if _, ok := content[ct]; !ok {
			t.Errorf("%s %s -> %s %s: media type not documented for %s", tt.method, tt.pattern, status, ct, key)
			continue
		}
		ptr := "#/paths/" + pointerEscape(tt.pattern) + "/" + strings.ToLower(tt.method) + "/responses/" + key +
			"/content/" + pointerEscape(ct) + "/schema"
		sch, err := c.Compile(docURL + ptr)
		if err != nil {
			t.Fatalf("%s: %v", ptr, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Body.Bytes()))
		if err != nil {
			t.Fatalf("%s %s: body is not JSON: %v", tt.method, tt.path, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s %s -> %s: body does not match the documented schema:\n%v\nbody: %s", tt.method, tt.path, status, err, rec.Body)
		}
	}
}
