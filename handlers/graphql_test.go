package handlers

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

func decodeGraphQL(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("not JSON: %v: %s", err, body)
	}
	for k := range out {
		if k != "data" && k != "errors" && k != "extensions" {
			t.Fatalf("unexpected top-level key %q: %s", k, body)
		}
	}
	return out
}

func TestGraphQLEndpoint(t *testing.T) {
	f, _ := newQueryFixture(t, QueryLimits{GraphQLMaxDepth: 8, GraphQLMaxCost: 2000})
	const q = `query($w: Float) { molecules(mwLt: $w) { nodes { id mw } } }`
	want := map[string]any{"molecules": map[string]any{"nodes": []any{
		map[string]any{"id": "mol-aspirin", "mw": 180.159}, map[string]any{"id": "mol-caffeine", "mw": 194.194}}}}
	body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"w": 200}})
	tests := []struct {
		name, method, path, body string
		hdr                      []string
	}{
		{"post json", "POST", "/v1/graphql", string(body), []string{"Content-Type", "application/json"}},
		{"post graphql", "POST", "/v1/graphql", `{ molecules(mwLt: 200) { nodes { id mw } } }`, []string{"Content-Type", "application/graphql"}},
		{"get", "GET", "/v1/graphql?" + url.Values{"query": {q}, "variables": {`{"w": 200}`}}.Encode(), "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, tt.method, tt.path, "read", strings.NewReader(tt.body), tt.hdr...)
			if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
			}
			out := decodeGraphQL(t, rec.Body.Bytes())
			if out["errors"] != nil || !reflect.DeepEqual(out["data"], want) {
				t.Fatalf("%s", rec.Body)
			}
		})
	}
	t.Run("schema", func(t *testing.T) {
		rec := f.do(t, "GET", "/v1/graphql", "read", nil)
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
			t.Fatalf("%d", rec.Code)
		}
		s, err := gqlparser.LoadSchema(&ast.Source{Input: rec.Body.String()})
		if err != nil || s.Types["DockingPose"] == nil || s.Query.Fields.ForName("molecules").Arguments.ForName("mwLt") == nil {
			t.Fatalf("schema: %v", err)
		}
	})
	t.Run("request errors", func(t *testing.T) {
		for _, tt := range []struct {
			query, accept string
			status        int
			ctype, code   string
		}{
			{`{ molecules { colour } }`, "", 200, "application/json", ""},
			{`{ molecules { colour } }`, "application/graphql-response+json", 400, "application/graphql-response+json", ""},
			{`{ molecules(first: 100) { nodes { calculations(first: 100) { nodes { id } } } } }`, "application/graphql-response+json", 400,
				"application/graphql-response+json", "QUERY_TOO_COMPLEX"},
			{`{ dockingJob(id: "dock-1") { poses { nodes { ligand { poses { nodes { job { receptor { id } } } } } } } } }`, "application/json", 200,
				"application/json", "QUERY_TOO_DEEP"},
		} {
			b, _ := json.Marshal(map[string]any{"query": tt.query})
			rec := f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(string(b)), "Content-Type", "application/json", "Accept", tt.accept)
			if rec.Code != tt.status || rec.Header().Get("Content-Type") != tt.ctype {
				t.Fatalf("%s: %d %s", tt.query, rec.Code, rec.Header().Get("Content-Type"))
			}
			out := decodeGraphQL(t, rec.Body.Bytes())
			if _, has := out["data"]; has {
				t.Fatalf("request error with data: %s", rec.Body)
			}
			errs := out["errors"].([]any)
			if tt.code != "" {
				ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
				if ext["code"] != tt.code {
					t.Fatalf("extensions %v, want code %s", ext, tt.code)
				}
			}
		}
	})
	t.Run("http problems", func(t *testing.T) {
		problemOf(t, f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(`{"query": `), "Content-Type", "application/json"), 400, "malformed_json")
		problemOf(t, f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(`{"query": "{ receptors { nodes { id } } }", "extra": 1}`), "Content-Type", "application/json"), 400, "invalid_request")
		problemOf(t, f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(`{ receptors { nodes { id } } }`), "Content-Type", "text/plain"), 415, "unsupported_media_type")
		problemOf(t, f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(`{"query": ""}`), "Content-Type", "application/json"), 400, "invalid_request")
		problemOf(t, f.do(t, "GET", "/v1/graphql?query=x&variables=[1", "read", nil), 400, "invalid_request")
		problemOf(t, f.do(t, "POST", "/v1/graphql", "", strings.NewReader(`{"query": "{ receptors { nodes { id } } }"}`), "Content-Type", "application/json"), 401, "unauthorized")
	})
}
