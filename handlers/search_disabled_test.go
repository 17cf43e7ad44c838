package handlers

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// TestSearchDisabled: a server without structure search
// (--structure-search=false) answers every search route 501
// search_disabled, the SPARQL search procedures likewise (not an empty
// answer), GraphQL's search arguments with a field error saying so; the
// rest of the service works, and the OpenAPI document lists the 501.
func TestSearchDisabled(t *testing.T) {
	f := newMolFixture(t, 0)
	f.srv.cfg.SearchDisabled = true
	aspirin := f.register(t, "CC(=O)Oc1ccccc1C(=O)O")

	for _, c := range []struct{ method, target, who, body string }{
		{"GET", "/v1/molecules/search?type=similarity&query=CCO", "read", ""},
		{"POST", "/v1/molecules/search", "read", `{"type": "substructure", "query": "c1ccccc1"}`},
		{"GET", "/v1/molecules/search/jobs/srch-0123", "read", ""},
		{"DELETE", "/v1/molecules/search/jobs/srch-0123", "write", ""},
	} {
		var hdr []string
		if c.body != "" {
			hdr = []string{"Content-Type", "application/json"}
		}
		rec := f.do(t, c.method, c.target, c.who, strings.NewReader(c.body), hdr...)
		p := problemOf(t, rec, 501, "search_disabled")
		if !strings.Contains(p.Detail, "--structure-search=false") {
			t.Errorf("%s %s: detail %q does not say why", c.method, c.target, p.Detail)
		}
	}

	const prefix = "PREFIX mgs: <https://w3id.org/molgraph/search#>\n"
	for _, q := range []string{
		`SELECT ?m WHERE { ?m mgs:hasSubstructure "c1ccccc1" }`,
		`SELECT ?m ?s WHERE { ?m mgs:similarTo [ mgs:query "CCO" ; mgs:threshold 0.5 ; mgs:score ?s ] }`,
		`SELECT ?m WHERE { ?m mgs:sameStructureAs "BSYNRYMUTXBXSQ-UHFFFAOYSA-N" }`,
		`SELECT ?m WHERE { ?m mgs:substructureOf "CCO" }`,
	} {
		rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {prefix + q}}.Encode(), "read", nil, "Accept", "application/sparql-results+json")
		problemOf(t, rec, 501, "search_disabled")
	}
	// the service description lists no search procedure
	rec := f.do(t, "GET", "/v1/sparql", "read", nil, "Accept", "text/turtle")
	if rec.Code != 200 || strings.Contains(rec.Body.String(), "hasSubstructure") {
		t.Errorf("service description: %d, lists the disabled procedures: %v", rec.Code, strings.Contains(rec.Body.String(), "hasSubstructure"))
	}

	b, _ := json.Marshal(map[string]any{"query": `{ molecules(similarTo: "CCO") { nodes { id } } }`})
	rec = f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(string(b)), "Content-Type", "application/json")
	out := decodeGraphQL(t, rec.Body.Bytes())
	errs, _ := out["errors"].([]any)
	if len(errs) == 0 || !strings.Contains(errs[0].(map[string]any)["message"].(string), "--structure-search=false") {
		t.Errorf("GraphQL search: %d %s", rec.Code, rec.Body)
	}

	// the rest works: the molecule is there, readable by SPARQL
	if rec := f.do(t, "GET", "/v1/molecules/"+aspirin, "read", nil); rec.Code != 200 {
		t.Errorf("get molecule: %d %s", rec.Code, rec.Body)
	}
	q := `SELECT (COUNT(*) AS ?n) WHERE { ?m a <https://w3id.org/molgraph/vocab#Molecule> }`
	if rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil, "Accept", "application/sparql-results+json"); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"1"`) {
		t.Errorf("SPARQL count: %d %s", rec.Code, rec.Body)
	}

	var doc map[string]any
	if err := json.Unmarshal(f.do(t, "GET", "/v1/openapi.json", "read", nil).Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	op := doc["paths"].(map[string]any)["/v1/molecules/search"].(map[string]any)["get"].(map[string]any)
	if _, ok := op["responses"].(map[string]any)["501"]; !ok {
		t.Errorf("OpenAPI: GET /v1/molecules/search lists no 501")
	}
}
