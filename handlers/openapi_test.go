package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// fetchOpenAPI gets the served document and decodes it generically, as a
// client would.
func fetchOpenAPI(t *testing.T, f *fixture) map[string]any {
	t.Helper()
	rec := f.do(t, "GET", "/v1/openapi.json", "read", nil)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("openapi: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	var doc map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

var chiParamRE = regexp.MustCompile(`\{([^}:]+)(:[^}]*)?\}`)

// TestOpenAPIMatchesRouter compares the document's paths and methods with
// chi.Walk over the live router, both ways.
func TestOpenAPIMatchesRouter(t *testing.T) {
	f := newFixture(t, nil)
	doc := fetchOpenAPI(t, f)
	var documented []string
	for path, item := range doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	var served []string
	chi.Walk(f.srv.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		served = append(served, method+" "+chiParamRE.ReplaceAllString(route, "{$1}"))
		return nil
	})
	slices.Sort(documented)
	slices.Sort(served)
	for _, s := range served {
		if !slices.Contains(documented, s) {
			t.Errorf("served but not documented: %s", s)
		}
	}
	for _, d := range documented {
		if !slices.Contains(served, d) {
			t.Errorf("documented but not served: %s", d)
		}
	}
	if len(served) == 0 {
		t.Fatal("no routes")
	}
}

// TestOpenAPIStructure checks what the OpenAPI 3.1 specification requires
// of the parts we generate: version, info, unique operationIds, responses on
// every operation, path parameters declared, every $ref resolving.
func TestOpenAPIStructure(t *testing.T) {
	f := newFixture(t, nil)
	doc := fetchOpenAPI(t, f)
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi = %v", doc["openapi"])
	}
	info := doc["info"].(map[string]any)
	if info["title"] == "" || info["version"] == "" {
		t.Fatal("info.title/version missing")
	}
	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	if b := schemes["bearerAuth"].(map[string]any); b["type"] != "http" || b["scheme"] != "bearer" {
		t.Fatalf("bearerAuth = %v", b)
	}
	ids := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		wantParams := chiParamRE.FindAllStringSubmatch(path, -1)
		for method, o := range item.(map[string]any) {
			op := o.(map[string]any)
			where := strings.ToUpper(method) + " " + path
			id, _ := op["operationId"].(string)
			if id == "" || ids[id] {
				t.Errorf("%s: operationId %q missing or duplicate", where, id)
			}
			ids[id] = true
			if s, _ := op["summary"].(string); s == "" {
				t.Errorf("%s: no summary", where)
			}
			resps, _ := op["responses"].(map[string]any)
			if len(resps) == 0 {
				t.Errorf("%s: no responses", where)
			}
			for code, r := range resps {
				if d, _ := r.(map[string]any)["description"].(string); d == "" {
					t.Errorf("%s %s: response without description", where, code)
				}
			}
			var declared []string
			for _, p := range asSlice(op["parameters"]) {
				pm := p.(map[string]any)
				if pm["in"] == "path" {
					if pm["required"] != true {
						t.Errorf("%s: path parameter %v not required", where, pm["name"])
					}
					declared = append(declared, pm["name"].(string))
				}
			}
			for _, m := range wantParams {
				if !slices.Contains(declared, m[1]) {
					t.Errorf("%s: path parameter %s not declared", where, m[1])
				}
			}
			if op["x-molgraph-scope"] == "none" {
				if sec := asSlice(op["security"]); sec == nil || len(sec) != 0 {
					t.Errorf("%s: public operation without empty security", where)
				}
			} else if _, ok := resps["401"]; !ok {
				t.Errorf("%s: protected operation does not document 401", where)
			}
		}
	}
	checkRefs(t, doc, doc, "")
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// checkRefs fails for every "$ref" that does not resolve in root.
func checkRefs(t *testing.T, root, v any, at string) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			if k == "$ref" {
				if !resolves(root, child.(string)) {
					t.Errorf("%s: $ref %v does not resolve", at, child)
				}
				continue
			}
			checkRefs(t, root, child, at+"/"+k)
		}
	case []any:
		for i, child := range x {
			checkRefs(t, root, child, fmt.Sprintf("%s/%d", at, i))
		}
	}
}

func resolves(root any, ref string) bool {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	cur := root
	for _, seg := range strings.Split(p, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[seg]; !ok {
			return false
		}
	}
	return true
}
