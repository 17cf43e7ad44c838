package handlers

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// gqlHits runs a molecules(...) search in GraphQL, following endCursor
// page by page (first: page), and returns the ids and the edges' scores.
func gqlHits(t *testing.T, f *molFixture, args string, page int) (ids []string, scores []*float64) {
	t.Helper()
	after := ""
	for i := 0; i < 100; i++ {
		q := `query($after: String) { molecules(` + args + `, first: ` + jsonNum(page) + `, after: $after) {
		  edges { score node { id smiles } } pageInfo { hasNextPage endCursor } } }`
		vars := map[string]any{}
		if after != "" {
			vars["after"] = after
		}
		data := graphqlData(t, f.fixture, q, vars)
		conn := data["molecules"].(map[string]any)
		for _, e := range conn["edges"].([]any) {
			e := e.(map[string]any)
			ids = append(ids, e["node"].(map[string]any)["id"].(string))
			if s, ok := e["score"].(float64); ok {
				scores = append(scores, &s)
			} else {
				scores = append(scores, nil)
			}
		}
		pi := conn["pageInfo"].(map[string]any)
		if pi["hasNextPage"] != true {
			return ids, scores
		}
		after = pi["endCursor"].(string)
	}
	t.Fatal("more than 100 pages")
	return nil, nil
}

func jsonNum(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestGraphQLStructureSearch: molecules(similarTo:, threshold:, top:) and
// molecules(substructure:) give the REST search's hits in its order, with
// its scores on the edges, paged by cursor and combined with the numeric
// filters; bad searches are field errors; the cost model charges a search
// list as any list.
func TestGraphQLStructureSearch(t *testing.T) {
	f, _ := searchFixture(t)
	rest := func(v url.Values) (ids []string, scores []*float64) {
		t.Helper()
		v.Set("limit", "1000")
		rec := f.do(t, "GET", "/v1/molecules/search?"+v.Encode(), "read", nil)
		if rec.Code != 200 {
			t.Fatalf("REST %v: %d %s", v, rec.Code, rec.Body)
		}
		for _, h := range decode[searchPage](t, rec).Hits {
			ids, scores = append(ids, h.ID), append(scores, h.Score)
		}
		return ids, scores
	}
	same := func(what string, gotIDs []string, got []*float64, wantIDs []string, want []*float64) {
		t.Helper()
		eq := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
		if len(wantIDs) == 0 || !slices.Equal(gotIDs, wantIDs) || !slices.EqualFunc(got, want, eq) {
			t.Errorf("%s: GraphQL %v, REST %v", what, gotIDs, wantIDs)
			for i := range min(len(got), len(want)) {
				if !eq(got[i], want[i]) {
					t.Errorf("  score %d: %v vs %v", i, got[i], want[i])
				}
			}
		}
	}
	aspirin := "CC(=O)Oc1ccccc1C(=O)O"
	for _, c := range []struct {
		name, args string
		rest       url.Values
		page       int
	}{
		{"similarity 0.2", `similarTo: "` + aspirin + `", threshold: 0.2`, url.Values{"type": {"similarity"}, "query": {aspirin}, "threshold": {"0.2"}}, 2},
		{"similarity default", `similarTo: "` + aspirin + `"`, url.Values{"type": {"similarity"}, "query": {aspirin}}, 20},
		{"similarity top 3", `similarTo: "Cc1ccc(NC(=O)c2ccccc2)cc1", top: 3`, url.Values{"type": {"similarity"}, "query": {"Cc1ccc(NC(=O)c2ccccc2)cc1"}, "top": {"3"}}, 1},
		{"substructure benzene", `substructure: "c1ccccc1"`, url.Values{"type": {"substructure"}, "query": {"c1ccccc1"}}, 3},
		{"substructure SMARTS", `substructure: "[CX3](=O)[OX2H1]"`, url.Values{"type": {"substructure"}, "query": {"[CX3](=O)[OX2H1]"}, "query_format": {"smarts"}}, 100},
	} {
		ids, scores := gqlHits(t, f, c.args, c.page)
		wantIDs, wantScores := rest(c.rest)
		same(c.name, ids, scores, wantIDs, wantScores)
	}

	// a search joined with a numeric filter: the REST hits whose mw is < 200
	ids, _ := gqlHits(t, f, `substructure: "c1ccccc1", mwLt: 200`, 100)
	all, _ := rest(url.Values{"type": {"substructure"}, "query": {"c1ccccc1"}})
	var light []string
	for _, id := range all {
		rec := decode[map[string]any](t, f.do(t, "GET", "/v1/molecules/"+id, "read", nil))
		if rec["mw"].(float64) < 200 {
			light = append(light, id)
		}
	}
	if len(light) == 0 || len(light) == len(all) || !slices.Equal(ids, light) {
		t.Errorf("substructure with mwLt 200: %v, want %v (of %v)", ids, light, all)
	}

	// bad searches: field errors naming the problem, no data for the list
	post := func(q string) *httptest.ResponseRecorder {
		b, _ := json.Marshal(map[string]any{"query": q})
		return f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(string(b)), "Content-Type", "application/json")
	}
	for _, c := range []struct{ q, want string }{
		{`{ molecules(similarTo: "C1CC(((") { nodes { id } } }`, "similarTo"},
		{`{ molecules(substructure: "[C") { nodes { id } } }`, ""},
		{`{ molecules(similarTo: "CCO", substructure: "C") { nodes { id } } }`, "give one"},
		{`{ molecules(similarTo: "CCO", threshold: 1.5) { nodes { id } } }`, "threshold"},
		{`{ molecules(substructure: "CCO", top: 3) { nodes { id } } }`, "top"},
		{`{ molecules(threshold: 0.5) { nodes { id } } }`, "similarTo"},
	} {
		rec := post(c.q)
		out := decodeGraphQL(t, rec.Body.Bytes())
		errs, _ := out["errors"].([]any)
		if len(errs) == 0 || (out["data"] != nil && out["data"].(map[string]any)["molecules"] != nil) {
			t.Errorf("%s: %d %s", c.q, rec.Code, rec.Body)
			continue
		}
		if msg := errs[0].(map[string]any)["message"].(string); !strings.Contains(msg, c.want) {
			t.Errorf("%s: message %q lacks %q", c.q, msg, c.want)
		}
	}

	// cost: a search list is charged like any list
	heavy := `molecules(%s first: 100) { edges { score node { calculations(first: 100) { nodes { id } } } } }`
	for _, args := range []string{``, `similarTo: "CCO",`} {
		q := "{ " + strings.Replace(heavy, "%s", args, 1) + " }"
		problemOf(t, post(q), 400, "query_too_complex")
	}
}
