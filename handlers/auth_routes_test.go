package handlers

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
)

// walkedRoutes returns "METHOD pattern" for every route chi serves.
func walkedRoutes(t *testing.T, s *Server) []string {
	t.Helper()
	var out []string
	err := chi.Walk(s.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		out = append(out, method+" "+route)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

var paramRE = regexp.MustCompile(`\{[^}]+\}`)

// concretePath fills a chi pattern's parameters with a placeholder.
func concretePath(pattern string) string {
	p := paramRE.ReplaceAllString(pattern, "x-test")
	return strings.ReplaceAll(p, "*", "x-test")
}

// TestEveryRouteEnforcesItsScope walks the router (so routes added later
// are covered without editing this test) and checks, for every route, the
// answer without a key, with dead keys, with each scope too weak for it,
// and with a sufficient key.
func TestEveryRouteEnforcesItsScope(t *testing.T) {
	f := newFixture(t, nil)
	declared := map[string]Route{}
	for _, rt := range f.srv.Routes() {
		declared[rt.Method+" "+rt.Pattern] = rt
	}
	walked := walkedRoutes(t, f.srv)
	if len(walked) != len(declared) {
		t.Errorf("router has %d routes, table declares %d", len(walked), len(declared))
	}
	var public []string
	for _, id := range walked {
		rt, ok := declared[id]
		if !ok {
			t.Errorf("%s is served but not declared in the route table", id)
			continue
		}
		if err := scopePolicy(rt); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		path := concretePath(rt.Pattern)
		t.Run(id, func(t *testing.T) {
			if rt.Scope == auth.ScopeNone {
				public = append(public, id)
				if rec := f.do(t, rt.Method, path, "", nil); rec.Code == 401 || rec.Code == 403 {
					t.Fatalf("public route answered %d", rec.Code)
				}
				return
			}
			rec := f.do(t, rt.Method, path, "", nil)
			problemOf(t, rec, 401, "unauthorized")
			if h := rec.Header().Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer ") {
				t.Fatalf("WWW-Authenticate %q", h)
			}
			for _, who := range []string{"expired", "revoked", "mgk_not-a-key-at-all-but-long-enough-xxxxxxx"} {
				rec := f.do(t, rt.Method, path, who, nil)
				problemOf(t, rec, 401, "unauthorized")
				if h := rec.Header().Get("WWW-Authenticate"); !strings.Contains(h, `error="invalid_token"`) {
					t.Fatalf("%s: WWW-Authenticate %q", who, h)
				}
			}
			for _, sc := range auth.Scopes() {
				rec := f.do(t, rt.Method, path, string(sc), nil)
				if sc.Includes(rt.Scope) {
					if rec.Code == 401 || rec.Code == 403 {
						t.Fatalf("%s key: %d, want access: %s", sc, rec.Code, rec.Body)
					}
					continue
				}
				problemOf(t, rec, 403, "forbidden")
				if h := rec.Header().Get("WWW-Authenticate"); !strings.Contains(h, fmt.Sprintf(`scope="%s"`, rt.Scope)) {
					t.Fatalf("%s key: WWW-Authenticate %q", sc, h)
				}
			}
		})
	}
	slices.Sort(public)
	if want := []string{"GET /", "GET /healthz", "GET /readyz", "GET /static/{name}"}; !slices.Equal(public, want) {
		t.Errorf("public routes %v, want exactly %v", public, want)
	}
}

// scopePolicy is API.md's Auth section as a rule on declared scopes:
// read covers GETs, write is needed to create or cancel anything, admin for
// key management and full dumps.
func scopePolicy(rt Route) error {
	least := auth.ScopeRead
	// POSTs write, except the query endpoints: API.md gives SPARQL and
	// GraphQL to read, and both protocols query with POST; a structure
	// search by POST (long queries, molfiles) is a query too.
	if rt.Method != http.MethodGet && rt.Method != http.MethodHead &&
		rt.Pattern != "/v1/sparql" && rt.Pattern != "/v1/graphql" && rt.Pattern != "/v1/molecules/search" {
		least = auth.ScopeWrite
	}
	if strings.HasPrefix(rt.Pattern, "/v1/keys") || strings.HasPrefix(rt.Pattern, "/v1/export") {
		least = auth.ScopeAdmin
	}
	// Public: the probes, and the query page with its static assets (they
	// hold no data; the queries the page runs go to /v1/sparql with a key).
	switch rt.Pattern {
	case "/healthz", "/readyz", "/", "/static/{name}":
		least = auth.ScopeNone
	}
	if rt.Scope != least && !rt.Scope.Includes(least) {
		return fmt.Errorf("declared scope %q is weaker than API.md's %q", rt.Scope, least)
	}
	return nil
}

func TestAuthorizationHeaderForms(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		header string
		status int
	}{
		{"Bearer " + f.tokens["read"], 200},
		{"bearer " + f.tokens["read"], 200},
		{"Bearer  " + f.tokens["read"] + " ", 200},
		{"Basic " + f.tokens["read"], 401},
		{"Bearer", 401},
		{"Bearer ", 401},
		{f.tokens["read"], 401},
	}
	for _, tt := range tests {
		rec := f.do(t, "GET", "/v1/openapi.json", "", nil, "Authorization", tt.header)
		if rec.Code != tt.status {
			t.Errorf("Authorization %q: %d, want %d", tt.header, rec.Code, tt.status)
		}
	}
}

// An unknown /v1 path is 401 without a key (nothing is revealed before
// authentication) and 404 with one.
func TestUnknownV1RouteNeedsKeyThen404(t *testing.T) {
	f := newFixture(t, nil)
	problemOf(t, f.do(t, "GET", "/v1/no-such-thing", "", nil), 401, "unauthorized")
	p := problemOf(t, f.do(t, "GET", "/v1/no-such-thing", "read", nil), 404, "not_found")
	if p.Instance != "/v1/no-such-thing" {
		t.Fatalf("instance %q", p.Instance)
	}
	problemOf(t, f.do(t, "GET", "/nowhere", "", nil), 404, "not_found")
}

func TestMethodNotAllowed(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		method, path, allow string
	}{
		{"PUT", "/v1/keys", "GET, HEAD, POST"},
		{"PATCH", "/v1/keys/key-x", "GET, HEAD, DELETE"},
		{"POST", "/v1/openapi.json", "GET, HEAD"},
		{"DELETE", "/healthz", "GET, HEAD"},
	}
	for _, tt := range tests {
		rec := f.do(t, tt.method, tt.path, "admin", nil)
		problemOf(t, rec, 405, "method_not_allowed")
		if got := rec.Header().Get("Allow"); got != tt.allow {
			t.Errorf("%s %s: Allow %q, want %q", tt.method, tt.path, got, tt.allow)
		}
	}
}

func TestHeadOnGetRoutes(t *testing.T) {
	f := newFixture(t, nil)
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	resp, err := http.Head(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("HEAD /healthz: %d %q %v", resp.StatusCode, body, resp.Header)
	}
}
