package handlers

// The second round of the hostile suite (issue 15): the routes added since
// the first one -- structure search (GET and POST /v1/molecules/search,
// format=csv|ndjson|sdf streams, cursors, search jobs), the SPARQL search
// procedures, depictions with highlights, GET .../structure?format=pdbqt
// with ph and isomer, multi-step QM logs (NWChem tasks, xtb, Gaussian
// Link1), Vina rescoring -- and HEAD, OPTIONS, Accept and Unicode/NUL on
// them. The cases run in TestHostileRequests with the others.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// denseGraph is a SMILES/SMARTS of n atoms, every pair of them bonded
// (the complete graph K_n, written with %(N) ring closures). A few hundred
// bytes make a query graph whose every atom has n-1 neighbours: RDKit's
// pattern fingerprint of it enumerates every embedding of its small
// patterns, which grows as about n^6 (K_10 took 7.7 s, K_12 over 30 s, in
// a call nothing can interrupt).
func denseGraph(atom string, n int) string {
	var b strings.Builder
	next := 1
	open := map[[2]int]int{}
	for i := 0; i < n; i++ {
		b.WriteString(atom)
		for j := 0; j+1 < i; j++ {
			fmt.Fprintf(&b, "%%(%d)", open[[2]int{j, i}])
		}
		for j := i + 2; j < n; j++ {
			open[[2]int{i, j}] = next
			fmt.Fprintf(&b, "%%(%d)", next)
			next++
		}
	}
	return b.String()
}

// searchCursor forges a search cursor (the route's own encoding).
func searchCursor(raw string) string { return base64.RawURLEncoding.EncodeToString([]byte(raw)) }

// searchGet is the path of a GET search with the given parameters.
func searchGet(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return "/v1/molecules/search?" + v.Encode()
}

// searchJSON is a POST search body.
func searchJSON(fields map[string]any) func() io.Reader {
	return func() io.Reader {
		b, _ := json.Marshal(fields)
		return bytes.NewReader(b)
	}
}

// checkNot5xx is a check for answers without a body (HEAD) or whose
// status may be a success: no 5xx other than a 503 with Retry-After, and
// a 4xx is a problem (with a body unless the method is HEAD).
func checkNot5xx(method string) func(t *testing.T, resp *http.Response, body []byte) {
	return func(t *testing.T, resp *http.Response, body []byte) {
		t.Helper()
		switch s := resp.StatusCode; {
		case s == http.StatusServiceUnavailable || s == http.StatusTooManyRequests:
			if resp.Header.Get("Retry-After") == "" {
				t.Errorf("%d without Retry-After", s)
			}
		case s >= 500:
			t.Errorf("status %d: %.300s", s, body)
		case s >= 400 && resp.Header.Get("Content-Type") != "application/problem+json":
			t.Errorf("%d with Content-Type %q", s, resp.Header.Get("Content-Type"))
		case s >= 400 && method != http.MethodHead && len(body) == 0:
			t.Errorf("%d without a body", s)
		}
	}
}

// secondRoundCases are the cases of the routes added after the first
// round (see the file comment).
func secondRoundCases(t *testing.T) []hostileCase {
	const (
		getSearch  = "GET /v1/molecules/search"
		postSearch = "POST /v1/molecules/search"
		getJob     = "GET /v1/molecules/search/jobs/{job_id}"
		delJob     = "DELETE /v1/molecules/search/jobs/{job_id}"
		structure  = "GET /v1/molecules/{id}/structure"
		image      = "GET /v1/molecules/{id}/image.svg"
		depict     = "GET /v1/depict"
		sparqlPst  = "POST /v1/sparql"
		parseQM    = "POST /v1/qm/parse"
		rescore    = "POST /v1/docking/rescore"
	)
	js := "application/json"
	var cs []hostileCase
	add := func(c ...hostileCase) { cs = append(cs, c...) }
	get := func(name string, c hostileCase, kv ...string) hostileCase {
		c.name, c.route, c.who, c.path = "search/"+name, getSearch, "read", searchGet(kv...)
		return c
	}
	post := func(name string, c hostileCase, fields map[string]any) hostileCase {
		c.name, c.route, c.who, c.ctype, c.body = "search-post/"+name, postSearch, "read", js, searchJSON(fields)
		return c
	}
	sub := func(q string) []string { return []string{"type", "substructure", "query", q} }
	sim := func(kv ...string) []string { return append([]string{"type", "similarity", "query", "CCO"}, kv...) }
	bad := hostileCase{status: 400}
	invalidQuery := hostileCase{status: 422, code: "invalid_query", within: 10 * time.Second, maxRSS: 256}
	// Fixed in this round: dense query graphs (chem.MaxPathWork), query
	// text RDKit read in part and deep nesting (chem.MaxQueryNesting).
	denseQuery, textQuery := invalidQuery, invalidQuery

	// GET /v1/molecules/search: parameters.
	add(
		get("type-missing", bad, "query", "CCO"),
		get("type-bogus", bad, "type", "fuzzy", "query", "CCO"),
		get("type-nul", bad, "type", "substructure\x00", "query", "CCO"),
		get("query-missing", bad, "type", "substructure"),
		get("query-blank", bad, "type", "substructure", "query", " \t\n"),
		get("unknown-parameter", bad, append(sub("CCO"), "debug", "1")...),
		get("repeated-parameter", bad, "type", "substructure", "type", "exact", "query", "CCO"),
		get("query_format-bogus", bad, append(sub("CCO"), "query_format", "exe")...),
		get("threshold-NaN", bad, sim("threshold", "NaN")...),
		get("threshold-negative", bad, sim("threshold", "-1")...),
		get("threshold-2", bad, sim("threshold", "2")...),
		get("threshold-Inf", bad, sim("threshold", "+Inf")...),
		get("threshold-1e309", bad, sim("threshold", "1e309")...),
		get("threshold-hex", bad, sim("threshold", "0x1p-1x")...),
		get("top-0", bad, sim("top", "0")...),
		get("top-negative", bad, sim("top", "-5")...),
		get("top-overflow", bad, sim("top", "99999999999999999999")...),
		get("top-1e9", hostileCase{allow2xx: true, within: 10 * time.Second, maxRSS: 128}, sim("top", "1000000000")...),
		get("top-max-int64", hostileCase{allow2xx: true, within: 10 * time.Second, maxRSS: 128}, sim("top", strconv.Itoa(math.MaxInt64))...),
		get("top-on-substructure", bad, append(sub("CCO"), "top", "5")...),
		get("threshold-on-exact", bad, "type", "exact", "query", "CCO", "threshold", "0.5"),
		get("match-bogus", bad, "type", "exact", "query", "CCO", "match", "fuzzy"),
		get("chirality-maybe", bad, append(sub("CCO"), "chirality", "maybe")...),
		get("limit-0", bad, append(sub("C"), "limit", "0")...),
		get("limit-1001", bad, append(sub("C"), "limit", "1001")...),
		get("limit-overflow", bad, append(sub("C"), "limit", "99999999999999999999")...),
		get("format-xml", bad, append(sub("C"), "format", "xml")...),
		get("format-nul", bad, append(sub("C"), "format", "sdf\x00")...),
		// Cursors: garbage, foreign, forged, with a streaming format.
		get("cursor-garbage", bad, append(sub("C"), "cursor", "!!not-base64!!")...),
		get("cursor-100KB", bad, append(sub("C"), "cursor", strings.Repeat("A", 100_000))...),
		get("cursor-other-route", bad, append(sub("C"), "cursor", searchCursor("mol:mol-x"))...),
		get("cursor-no-molecule", bad, append(sub("C"), "cursor", searchCursor("s::rec-x"))...),
		get("cursor-bad-score", bad, append(sim(), "cursor", searchCursor("s:zz:mol-x"))...),
		get("cursor-forged-id", hostileCase{allow2xx: true}, append(sub("C"), "cursor", searchCursor("s::mol-"+strings.Repeat("z", 10_000)))...),
		get("cursor-NaN-score", hostileCase{allow2xx: true}, append(sim("threshold", "0"), "cursor", searchCursor("s:"+strconv.FormatUint(math.Float64bits(math.NaN()), 16)+":mol-0"))...),
		get("cursor-with-csv", bad, append(sub("C"), "format", "csv", "cursor", searchCursor("s::mol-0"))...),
		// Queries: sizes, nesting, garbage.
		get("query-64KiB-plus-1", invalidQuery, sub(strings.Repeat("C", 64<<10+1))...),
		get("query-1001-atoms", invalidQuery, sub(strings.Repeat("C", 1001))...),
		get("query-garbage", invalidQuery, sub("C1CC(((=N#")...),
		get("query-nul", invalidQuery, sub("CC\x00O")...),
		get("query-invalid-utf8", textQuery, sub("C\xff\xfeO")...),
		get("query-unicode", textQuery, sub("C\u202eO\u200bC")...),
		get("smarts-recursion-13000", textQuery, append(sub(nested("[$(", "C", ")]", 13_000)), "query_format", "smarts")...),
		get("smarts-recursion-1000", hostileCase{status: 200, within: 10 * time.Second, maxRSS: 256, check: checkNot5xx("GET")},
			append(sub(nested("[$(", "C", ")]", 1000)), "query_format", "smarts")...),
		get("smarts-parens-20000", invalidQuery, append(sub("C"+nested("(", "C", ")", 20_000)), "query_format", "smarts")...),
		get("smarts-ring-closures-8000", invalidQuery, append(sub("C"+strings.Repeat("%(99999)", 8000)), "query_format", "smarts")...),
		get("smarts-negations-60000", invalidQuery, append(sub("["+strings.Repeat("!", 60_000)+"C]"), "query_format", "smarts")...),
		get("smiles-ring-closures-100000", invalidQuery, sub(strings.Repeat("C%99", 15_000))...),
		get("smiles-branches-999", hostileCase{allow2xx: true, within: 15 * time.Second, maxRSS: 256}, sub(nested("C(", "C", ")", 999))...),
		get("superstructure-smarts", hostileCase{within: 10 * time.Second}, "type", "superstructure", "query", "[#6;R2]", "query_format", "smarts"),
		get("similarity-smarts", bad, append(sim(), "query_format", "smarts")...),
		get("exact-inchi-garbage", hostileCase{allow2xx: true}, "type", "exact", "query", "InChI=1S/"+strings.Repeat("C99/", 5000)),
		get("exact-inchikey-garbage", hostileCase{allow2xx: true}, "type", "exact", "query", "XXXXXXXXXXXXXX-YYYYYYYYYY-Z", "query_format", "inchikey"),
		// Dense query graphs: every atom bonded to every other.
		get("smarts-dense-K14", denseQuery, append(sub(denseGraph("*", 14)), "query_format", "smarts")...),
		get("smiles-dense-K14-dummies", denseQuery, sub(denseGraph("*", 14))...),
		get("smarts-dense-K30-uranium", denseQuery, append(sub(denseGraph("[U]", 30)), "query_format", "smarts")...),
		get("similarity-dense-K14", denseQuery, "type", "similarity", "query", denseGraph("*", 14)),
		// Everything, streamed: the 999-carbon chain among the hits.
		get("everything-sdf", hostileCase{within: 5 * time.Second, maxRSS: 256, check: checkSDFStream}, append(sub("*"), "format", "sdf", "query_format", "smarts")...),
		get("everything-csv", hostileCase{allow2xx: true, within: 10 * time.Second, maxRSS: 256}, append(sub("*"), "format", "csv", "query_format", "smarts")...),
		get("everything-ndjson", hostileCase{allow2xx: true, within: 10 * time.Second, maxRSS: 256}, append(sim("threshold", "0"), "format", "ndjson")...),
	)
	// Dense graphs as molecules: registration (write) and the reads that
	// run the registration pipeline on their input (lookup by SMILES,
	// exact search).
	k9, k12fe := denseGraph("*", 9), denseGraph("[Fe]", 12)
	add(
		hostileCase{name: "molecule/dense-K9-dummies", route: "POST /v1/molecules", who: "write", ctype: js, within: 5 * time.Second,
			body: searchJSON(map[string]any{"format": "smiles", "content": k9}), status: 422, code: "invalid_molecule"},
		hostileCase{name: "molecule/dense-K12-iron", route: "POST /v1/molecules", who: "write", ctype: js, within: 5 * time.Second,
			body: searchJSON(map[string]any{"format": "smiles", "content": k12fe}), status: 422, code: "invalid_molecule"},
		hostileCase{name: "molecule/dense-K20-iron-3d", route: "POST /v1/molecules", who: "write", ctype: js, within: 5 * time.Second,
			body: searchJSON(map[string]any{"format": "smiles", "content": denseGraph("[Fe]", 20), "generate_3d": true}), status: 422, code: "invalid_molecule"},
		hostileCase{name: "molecule/dense-molfile-K44-iron", route: "POST /v1/molecules", who: "write", ctype: js, within: 5 * time.Second,
			body: searchJSON(map[string]any{"format": "mol", "content": denseMolfile("Fe", 44)}), status: 422, code: "invalid_molecule"},
		hostileCase{name: "molecule/pdbqt-200-atoms-one-point", route: "POST /v1/molecules", who: "write", ctype: js, within: 10 * time.Second,
			body: searchJSON(map[string]any{"format": "pdbqt", "content": "ROOT\n" + strings.Repeat("ATOM      1  C   LIG     1       0.000   0.000   0.000  0.00  0.00    +0.000 C \n", 200) + "ENDROOT\nTORSDOF 0\n"})},
		hostileCase{name: "search-post/dense-molfile-K44-iron", route: postSearch, who: "read", ctype: js, within: 5 * time.Second,
			body: searchJSON(map[string]any{"type": "substructure", "query_format": "molfile", "query": denseMolfile("Fe", 44)}), status: 422, code: "invalid_query"},
		hostileCase{name: "list/smiles-dense-K12-iron", route: "GET /v1/molecules", path: "/v1/molecules?smiles=" + url.QueryEscape(k12fe), who: "read", within: 5 * time.Second},
		get("exact-dense-K12-iron", hostileCase{within: 5 * time.Second}, "type", "exact", "query", k12fe),
		get("superstructure-dense-K12-iron", hostileCase{within: 5 * time.Second}, "type", "superstructure", "query", k12fe),
	)

	// HEAD and OPTIONS, Accept.
	add(
		hostileCase{name: "search/HEAD", route: getSearch, method: http.MethodHead, path: searchGet(sub("C")...), who: "read", check: checkNot5xx(http.MethodHead)},
		hostileCase{name: "search/HEAD-bad", route: getSearch, method: http.MethodHead, path: searchGet("type", "bogus"), who: "read", check: checkNot5xx(http.MethodHead)},
		hostileCase{name: "search/OPTIONS", route: getSearch, method: http.MethodOptions, path: "/v1/molecules/search", who: "read", check: checkNot5xx(http.MethodOptions)},
		hostileCase{name: "search/accept-xml", route: getSearch, path: searchGet(sub("C")...), who: "read", hdr: []string{"Accept", "application/xml"}, check: checkNot5xx("GET")},
		hostileCase{name: "search/no-key", route: getSearch, path: searchGet(sub("C")...), status: 401, code: "unauthorized"},
	)

	// POST /v1/molecules/search: JSON.
	add(
		hostileCase{name: "search-post/malformed", route: postSearch, who: "read", ctype: js, body: lit(`{"type": "substructure", "query": `), status: 400, code: "malformed_json"},
		hostileCase{name: "search-post/text-plain", route: postSearch, who: "read", ctype: "text/plain", body: lit(`C`), status: 415},
		hostileCase{name: "search-post/deep-json", route: postSearch, who: "read", ctype: js, body: lit(deepJSON("query", 100_000))},
		hostileCase{name: "search-post/body-2MiB", route: postSearch, who: "read", ctype: js, body: lit(`{"type": "substructure", "query": "` + strings.Repeat("C", 2<<20) + `"}`), status: 413},
		hostileCase{name: "search-post/body-100MiB-chunked", route: postSearch, who: "read", ctype: js, body: streamOf(`{"type": "substructure", "query": "`+strings.Repeat("C", 1000), 100<<20), status: 413, maxRSS: 128},
		post("unknown-field", bad, map[string]any{"type": "substructure", "query": "C", "timeout": 0}),
		post("threshold-string", bad, map[string]any{"type": "similarity", "query": "CCO", "threshold": "NaN"}),
		post("threshold-negative", bad, map[string]any{"type": "similarity", "query": "CCO", "threshold": -1}),
		post("top-float", bad, map[string]any{"type": "similarity", "query": "CCO", "top": 1.5}),
		post("top-1e30", bad, map[string]any{"type": "similarity", "query": "CCO", "top": 1e30}),
		post("limit-negative", bad, map[string]any{"type": "substructure", "query": "C", "limit": -1}),
		post("query-array", bad, map[string]any{"type": "substructure", "query": []string{"C", "N"}}),
		post("query-nul", invalidQuery, map[string]any{"type": "substructure", "query": "C\x00C"}),
		post("query-8000-nuls", invalidQuery, map[string]any{"type": "substructure", "query": strings.Repeat("\x00", 8000)}),
		post("molfile-garbage", invalidQuery, map[string]any{"type": "substructure", "query_format": "molfile", "query": "not\na\nmolfile\n"}),
		post("molfile-v2000-counts-999", invalidQuery, map[string]any{"type": "substructure", "query_format": "molfile",
			"query": "\n  x\n\n999999  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n"}),
		post("molfile-v3000-counts-2e9", invalidQuery, map[string]any{"type": "substructure", "query_format": "molfile",
			"query": "\n  x\n\n  0  0  0     0  0            999 V3000\nM  V30 BEGIN CTAB\nM  V30 COUNTS 2000000000 2000000000 0 0 0\nM  V30 END CTAB\nM  END\n"}),
		post("molfile-v3000-1001-atoms", invalidQuery, map[string]any{"type": "substructure", "query_format": "molfile", "query": v3000Chain(1001)}),
		post("molfile-v3000-15000-atom-lines", invalidQuery, map[string]any{"type": "substructure", "query_format": "molfile", "query": v3000Chain(15_000)}),
		post("molfile-v3000-60000-atom-lines", hostileCase{status: 413}, map[string]any{"type": "substructure", "query_format": "molfile", "query": v3000Chain(60_000)}),
		post("molfile-similarity-no-end", invalidQuery, map[string]any{"type": "similarity", "query_format": "molfile", "query": "\n  x\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"}),
		post("smarts-dense-K14", denseQuery, map[string]any{"type": "substructure", "query_format": "smarts", "query": denseGraph("*", 14)}),
	)

	// Search jobs: unknown, foreign, hostile ids and parameters.
	add(
		hostileCase{name: "search-job/unknown", route: getJob, path: "/v1/molecules/search/jobs/srch-" + strings.Repeat("0", 32), who: "read", status: 404},
		hostileCase{name: "search-job/unknown-with-params", route: getJob, path: "/v1/molecules/search/jobs/srch-x?limit=abc&format=xml", who: "read"},
		hostileCase{name: "search-job/unknown-parameter", route: getJob, path: "/v1/molecules/search/jobs/srch-x?type=exact", who: "read", status: 400},
		hostileCase{name: "search-job/delete-unknown", route: delJob, path: "/v1/molecules/search/jobs/srch-" + strings.Repeat("0", 32), who: "write", status: 404},
		hostileCase{name: "search-job/delete-read-key", route: delJob, path: "/v1/molecules/search/jobs/srch-x", who: "read", status: 403},
	)

	// SPARQL search procedures: hostile arguments, calls per outer row.
	sparql := func(name, query string, c hostileCase) hostileCase {
		c.name, c.route, c.who, c.ctype, c.body = "sparql-search/"+name, sparqlPst, "read", "application/sparql-query",
			lit("PREFIX mgs: <https://w3id.org/molgraph/search#>\n"+query)
		return c
	}
	sq := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	add(
		sparql("query-garbage", `SELECT ?m WHERE { ?m mgs:hasSubstructure "C1CC(((" }`, hostileCase{status: 400}),
		sparql("query-iri", `SELECT ?m WHERE { ?m mgs:hasSubstructure <http://example.org/x> }`, hostileCase{status: 400}),
		sparql("query-unbound", `SELECT ?m WHERE { ?m mgs:hasSubstructure ?q }`, hostileCase{status: 400}),
		sparql("query-nul", `SELECT ?m WHERE { ?m mgs:hasSubstructure "C\u0000C" }`, hostileCase{status: 400}),
		sparql("query-1001-atoms", `SELECT ?m WHERE { ?m mgs:hasSubstructure "`+strings.Repeat("C", 1001)+`" }`, hostileCase{status: 400}),
		sparql("unknown-argument", `SELECT ?m WHERE { ?m mgs:similarTo [ mgs:query "CCO" ; mgs:timeout 0 ] }`, hostileCase{status: 400}),
		sparql("threshold-NaN", `SELECT ?m WHERE { ?m mgs:similarTo [ mgs:query "CCO" ; mgs:threshold "NaN"^^<http://www.w3.org/2001/XMLSchema#double> ] }`, hostileCase{status: 400}),
		sparql("threshold-2", `SELECT ?m WHERE { ?m mgs:similarTo [ mgs:query "CCO" ; mgs:threshold 2 ] }`, hostileCase{status: 400}),
		sparql("threshold-string", `SELECT ?m WHERE { ?m mgs:similarTo [ mgs:query "CCO" ; mgs:threshold "high" ] }`, hostileCase{status: 400}),
		sparql("top-1e9", `SELECT ?m WHERE { ?m mgs:similarTo [ mgs:query "CCO" ; mgs:top 1000000000 ] }`, hostileCase{allow2xx: true, within: 10 * time.Second, maxRSS: 128}),
		sparql("top-1e10", `SELECT ?m WHERE { ?m mgs:similarTo [ mgs:query "CCO" ; mgs:top 10000000000 ] }`, hostileCase{status: 400}),
		sparql("top-fraction", `SELECT ?m WHERE { ?m mgs:similarTo [ mgs:query "CCO" ; mgs:top 2.5 ] }`, hostileCase{status: 400}),
		sparql("score-on-substructure", `SELECT ?m WHERE { ?m mgs:hasSubstructure [ mgs:query "C" ; mgs:score ?s ] }`, hostileCase{status: 400}),
		sparql("superstructure-smarts", `SELECT ?m WHERE { ?m mgs:substructureOf [ mgs:query "[#6;R2]" ; mgs:queryFormat "smarts" ] }`, hostileCase{status: 400}),
		sparql("smarts-recursion-13000", `SELECT ?m WHERE { ?m mgs:hasSubstructure `+sq(nested("[$(", "C", ")]", 13_000))+` }`, hostileCase{status: 400, within: 10 * time.Second}),
		sparql("smarts-dense-K14", `SELECT ?m WHERE { ?m mgs:hasSubstructure [ mgs:query `+sq(denseGraph("*", 14))+` ; mgs:queryFormat "smarts" ] }`,
			hostileCase{status: 400, within: 10 * time.Second}),
		// A call after the other patterns runs once per their solution;
		// inside OPTIONAL, once per outer row.
		sparql("per-row-calls", `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o . ?m mgs:hasSubstructure "*" }`,
			hostileCase{allow2xx: true, within: 45 * time.Second, maxRSS: 256}),
		sparql("optional-per-row", `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o OPTIONAL { ?m mgs:similarTo [ mgs:query "CCO" ; mgs:threshold 0 ; mgs:score ?sc ] } }`,
			hostileCase{allow2xx: true, within: 45 * time.Second, maxRSS: 256}),
		sparql("nested-optional-cross", `SELECT (COUNT(*) AS ?n) WHERE { ?a mgs:hasSubstructure "*" OPTIONAL { ?b mgs:hasSubstructure "*" OPTIONAL { ?c mgs:hasSubstructure "*" OPTIONAL { ?d mgs:hasSubstructure "*" } } } }`,
			hostileCase{allow2xx: true, within: 45 * time.Second, maxRSS: 256}),
		// The subject bound by the outer row: one whole search per row.
		sparql("exists-per-row", `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER EXISTS { ?s mgs:similarTo [ mgs:query "CCO" ; mgs:threshold 0 ] } }`,
			hostileCase{allow2xx: true, within: 45 * time.Second, maxRSS: 256}),
		sparql("minus-per-row", `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o MINUS { ?s mgs:hasSubstructure "*" } }`,
			hostileCase{allow2xx: true, within: 45 * time.Second, maxRSS: 256}),
		sparql("data-as-queries", `SELECT ?m WHERE { ?s ?p ?o FILTER(isLiteral(?o)) ?m mgs:hasSubstructure ?o }`,
			hostileCase{allow2xx: true, within: 45 * time.Second, maxRSS: 256}),
		sparql("order-by-cross", `SELECT ?a ?b WHERE { ?a mgs:similarTo [ mgs:query "CCO" ; mgs:threshold 0 ; mgs:score ?x ] . ?b mgs:similarTo [ mgs:query "CCO" ; mgs:threshold 0 ; mgs:score ?y ] . ?s ?p ?o } ORDER BY ?x ?y ?o`,
			hostileCase{allow2xx: true, within: 45 * time.Second, maxRSS: 512}),
	)

	// GraphQL: many aliased searches in one query (each within the
	// search budget, the whole within the GraphQL timeout and cost).
	var aliases strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&aliases, " a%d: molecules(substructure: \"*\", first: 1) { edges { node { id } } }", i)
	}
	add(
		hostileCase{name: "graphql-search/300-aliased-searches", route: "POST /v1/graphql", who: "read", ctype: js, body: graphQLBody("{" + aliases.String() + " }"),
			hdr: []string{"Accept", mediaGraphQLResponse}, gql: true, allow2xx: true, within: 45 * time.Second, maxRSS: 256},
		hostileCase{name: "graphql-search/dense-K14", route: "POST /v1/graphql", who: "read", ctype: js,
			body: graphQLBody(`{ molecules(substructure: ` + sq(denseGraph("*", 14)) + `) { edges { node { id } } } }`),
			hdr:  []string{"Accept", mediaGraphQLResponse}, gql: true, allow2xx: true, within: 10 * time.Second},
		hostileCase{name: "graphql-search/query-unicode", route: "POST /v1/graphql", who: "read", ctype: js,
			body: graphQLBody(`{ molecules(similarTo: "C‮O", threshold: 0) { edges { node { id } } } }`),
			hdr:  []string{"Accept", mediaGraphQLResponse}, gql: true, allow2xx: true},
	)

	// Depictions: sizes, highlights, dense graphs, Unicode.
	add(
		hostileCase{name: "depict/width-0", route: depict, path: "/v1/depict?smiles=CCO&width=0", who: "read", status: 400},
		hostileCase{name: "depict/width-NaN", route: depict, path: "/v1/depict?smiles=CCO&width=NaN", who: "read", status: 400},
		hostileCase{name: "depict/height-overflow", route: depict, path: "/v1/depict?smiles=CCO&height=99999999999999999999", who: "read", status: 400},
		hostileCase{name: "depict/width-twice", route: depict, path: "/v1/depict?smiles=CCO&width=100&width=100000", who: "read", check: checkNot5xx("GET")},
		hostileCase{name: "depict/smiles-missing", route: depict, path: "/v1/depict?width=100", who: "read", status: 400},
		hostileCase{name: "depict/smiles-unicode", route: depict, path: "/v1/depict?smiles=" + url.QueryEscape("C\u202eC\u0301O"), who: "read", status: 422},
		hostileCase{name: "depict/smiles-dense-K14", route: depict, path: "/v1/depict?smiles=" + url.QueryEscape(denseGraph("*", 14)), who: "read", within: 10 * time.Second, check: checkNot5xx("GET")},
		hostileCase{name: "depict/smiles-dense-K22", route: depict, path: "/v1/depict?smiles=" + url.QueryEscape(denseGraph("*", 22)), who: "read", within: 10 * time.Second, check: checkNot5xx("GET")},
		hostileCase{name: "depict/smiles-dense-K22-highlight", route: depict, path: "/v1/depict?smiles=" + url.QueryEscape(denseGraph("*", 22)) + "&highlight=" + url.QueryEscape("*1****1"), who: "read", within: 10 * time.Second, check: checkNot5xx("GET")},
		hostileCase{name: "depict/highlight-dense-K14", route: depict, path: "/v1/depict?smiles=CCO&highlight=" + url.QueryEscape(denseGraph("*", 14)), who: "read", within: 10 * time.Second, check: checkNot5xx("GET")},
		hostileCase{name: "depict/highlight-recursion-2000", route: depict, path: "/v1/depict?smiles=CCO&highlight=" + url.QueryEscape(nested("[$(", "C", ")]", 800)), who: "read", within: 10 * time.Second, check: checkNot5xx("GET")},
		hostileCase{name: "depict/highlight-nul", route: depict, path: "/v1/depict?smiles=CCO&highlight=C%00C", who: "read", status: 400},
		hostileCase{name: "depict/HEAD", route: depict, method: http.MethodHead, path: "/v1/depict?smiles=CCO", who: "read", check: checkNot5xx(http.MethodHead)},
		hostileCase{name: "depict/if-none-match-huge", route: depict, path: "/v1/depict?smiles=CCO", who: "read", hdr: []string{"If-None-Match", strings.Repeat(`"x",`, 100_000)}, check: checkNot5xx("GET")},
		hostileCase{name: "image/highlight-dense-K14", route: image, path: "/v1/molecules/{mol}/image.svg?highlight=" + url.QueryEscape(denseGraph("*", 14)), who: "read", within: 10 * time.Second, check: checkNot5xx("GET")},
		hostileCase{name: "image/width-unicode-digits", route: image, path: "/v1/molecules/{mol}/image.svg?width=" + url.QueryEscape("３００"), who: "read", status: 400},
	)

	// The structure route's pdbqt options.
	st := func(name, q string, c hostileCase) hostileCase {
		c.name, c.route, c.who, c.path = "structure/"+name, structure, "read", "/v1/molecules/{mol}/structure?"+q
		if c.within == 0 {
			c.within = 30 * time.Second
		}
		return c
	}
	add(
		st("ph-NaN", "format=pdbqt&ph=NaN", hostileCase{check: problemNaming(400, "ph")}),
		st("ph-Inf", "format=pdbqt&ph=Inf", hostileCase{check: problemNaming(400, "ph")}),
		st("ph-negative", "format=pdbqt&ph=-1", hostileCase{check: problemNaming(400, "ph")}),
		st("ph-15", "format=pdbqt&ph=15", hostileCase{check: problemNaming(400, "ph")}),
		st("ph-1000-digits", "format=pdbqt&ph=7."+strings.Repeat("1", 1000), hostileCase{check: checkNot5xx("GET")}),
		st("ph-hex", "format=pdbqt&ph=0x7", hostileCase{check: problemNaming(400, "ph")}),
		st("ph-unicode-digit", "format=pdbqt&ph="+url.QueryEscape("７"), hostileCase{check: problemNaming(400, "ph")}),
		st("isomer-0", "format=pdbqt&isomer=0", hostileCase{check: problemNaming(400, "isomer")}),
		st("isomer-9", "format=pdbqt&isomer=9", hostileCase{check: problemNaming(400, "isomer")}),
		st("isomer-1e9", "format=pdbqt&isomer=1000000000", hostileCase{check: problemNaming(400, "isomer")}),
		st("isomer-space", "format=pdbqt&isomer=+1", hostileCase{check: problemNaming(400, "isomer")}),
		st("isomer-2-of-1", "format=pdbqt&isomer=2", hostileCase{check: problemNaming(400, "isomer")}),
		st("isomer-nul", "format=pdbqt&isomer=1%00", hostileCase{check: problemNaming(400, "isomer")}),
		// glycerol has no conformer: a refused request embeds nothing and
		// stores nothing (it used to store the conformer, then answer 400).
		hostileCase{name: "structure/no-conformer-ph-NaN", route: structure, path: "/v1/molecules/{bare}/structure?format=pdbqt&ph=NaN", who: "read", check: problemNaming(400, "ph")},
		hostileCase{name: "structure/no-conformer-isomer-0", route: structure, path: "/v1/molecules/{bare}/structure?format=pdbqt&ph=7&isomer=0", who: "read", check: problemNaming(400, "isomer")},
		hostileCase{name: "structure/cage-24-centres-isomer-1", route: structure, path: "/v1/molecules/{cage}/structure?format=pdbqt&isomer=1",
			who: "read", within: 20 * time.Second, check: checkNot5xx("GET")},
		hostileCase{name: "structure/cage-24-centres-isomer-8-ph", route: structure, path: "/v1/molecules/{cage}/structure?format=pdbqt&isomer=8&ph=7.4",
			who: "read", within: 20 * time.Second, check: checkNot5xx("GET")},
		hostileCase{name: "structure/999-carbon-pdbqt-ph-isomer", route: structure, path: "/v1/molecules/{chain}/structure?format=pdbqt&ph=7.4&isomer=1",
			who: "read", within: 5 * time.Second, maxRSS: 256, status: 422, code: "too_large_for_3d"},
		hostileCase{name: "structure/accept-pdbqt-999-carbon", route: structure, path: "/v1/molecules/{chain}/structure", who: "read",
			hdr: []string{"Accept", "chemical/x-pdbqt"}, within: 5 * time.Second, status: 422, code: "too_large_for_3d"},
		hostileCase{name: "structure/accept-garbage", route: structure, path: "/v1/molecules/{mol}/structure", who: "read",
			hdr: []string{"Accept", strings.Repeat("text/x-a;q=0.5, ", 10_000)}, check: checkNot5xx("GET")},
		hostileCase{name: "structure/HEAD-pdbqt-999-carbon", route: structure, method: http.MethodHead, path: "/v1/molecules/{chain}/structure?format=pdbqt",
			who: "read", within: 5 * time.Second, check: checkNot5xx(http.MethodHead)},
	)

	// Gaussian Link1 repeated 100,000 times, each job empty (the steps
	// of a log are capped at qm.MaxSteps; TestHostileQMSteps uploads
	// valid multi-step logs of many steps).
	link1Tiny, link1TinyCT := multipartOf("link1_tiny.log", func() []byte {
		return bytes.Repeat([]byte(" Entering Gaussian System, Link 0=g16\n Entering Link 1 = C:\\G16W\\l1.exe PID=      1234.\n Normal termination of Gaussian 16\n"), 100_000)
	})
	add(
		hostileCase{name: "qm/gaussian-link1-100000-empty", route: parseQM, who: "write", body: link1Tiny, ctype: link1TinyCT, within: 30 * time.Second, maxRSS: 400},
	)

	// Vina rescoring: hostile ligands (no run happens for any of them).
	rs := func(name, body string, c hostileCase) hostileCase {
		c.name, c.route, c.who, c.ctype, c.body = "rescore/"+name, rescore, "write", js, lit(body)
		return c
	}
	add(
		rs("malformed", `{"mode": `, hostileCase{status: 400}),
		rs("mode-bogus", `{"mode": "dock"}`, hostileCase{status: 400}),
		rs("both-pose-and-ligand", `{"mode": "score_only", "pose": {"job": "dock-x", "ligand": "mol-x", "mode": 1}, "receptor": "REC", "ligand": {"format": "sdf", "content": "x"}}`, hostileCase{status: 400}),
		rs("pose-mode-negative", `{"mode": "score_only", "pose": {"job": "dock-x", "ligand": "mol-x", "mode": -1}}`, hostileCase{}),
		rs("ligand-format-exe", `{"mode": "score_only", "receptor": "REC", "ligand": {"format": "exe", "content": "MZ"}}`, hostileCase{status: 400}),
		rs("ligand-1MiB", `{"mode": "score_only", "receptor": "REC", "ligand": {"format": "pdbqt", "content": "`+strings.Repeat("x", 1<<20)+`"}}`, hostileCase{}),
		rs("ligand-pdbqt-garbage", `{"mode": "score_only", "receptor": "REC", "ligand": {"format": "pdbqt", "content": "ROOT\nATOM garbage\nENDROOT\n"}}`, hostileCase{}),
		rs("ligand-sdf-no-3d", `{"mode": "local_only", "receptor": "REC", "ligand": {"format": "sdf", "content": "\n  x\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n$$$$\n"}}`, hostileCase{}),
		rs("ligand-pdbqt-nan-coords", `{"mode": "score_only", "receptor": "REC", "ligand": {"format": "pdbqt", "content": "ROOT\nATOM      1  C   LIG     1         NaN     Inf    -Inf  0.00  0.00    +0.000 C \nENDROOT\nTORSDOF 0\n"}}`, hostileCase{}),
		rs("unknown-receptor", `{"mode": "score_only", "receptor": "rec-nope", "ligand": {"format": "pdbqt", "content": "x"}}`, hostileCase{}),
	)
	return cs
}

// checkSDFStream: the stream of every hit is 200 with one SD record per
// hit (X-Total-Hits), and the 999-carbon chain, over the 2D limit and
// without a conformer, is written without coordinates, saying so (it
// used to get 2D coordinates computed for it: 3.7 s per such hit).
func checkSDFStream(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %.300s", resp.StatusCode, body)
	}
	n, _ := strconv.Atoi(resp.Header.Get("X-Total-Hits"))
	if got := bytes.Count(body, []byte("$$$$\n")); n == 0 || got != n {
		t.Errorf("%d SD records for X-Total-Hits %q", got, resp.Header.Get("X-Total-Hits"))
	}
	if !bytes.Contains(body, []byte("> <coordinates>\nnone: ")) {
		t.Errorf("no record without coordinates (the 999-carbon chain)")
	}
}

// denseMolfile is a V2000 molfile of n atoms of element el, every pair
// bonded (n(n-1)/2 bonds; at most 999, as V2000 counts allow).
func denseMolfile(el string, n int) string {
	var b strings.Builder
	bonds := n * (n - 1) / 2
	fmt.Fprintf(&b, "\n  hostile\n\n%3d%3d  0  0  0  0  0  0  0  0999 V2000\n", n, bonds)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%10.4f%10.4f%10.4f %-3s 0  0  0  0  0  0  0  0  0  0  0  0\n", float64(i), 0.0, 0.0, el)
	}
	for i := 1; i <= n; i++ {
		for j := i + 1; j <= n; j++ {
			fmt.Fprintf(&b, "%3d%3d  1  0\n", i, j)
		}
	}
	b.WriteString("M  END\n")
	return b.String()
}

// v3000Chain is a V3000 molfile of an n-carbon chain.
func v3000Chain(n int) string {
	var b strings.Builder
	b.WriteString("\n  hostile\n\n  0  0  0     0  0            999 V3000\nM  V30 BEGIN CTAB\n")
	fmt.Fprintf(&b, "M  V30 COUNTS %d %d 0 0 0\nM  V30 BEGIN ATOM\n", min(n, 4000), min(n-1, 4000))
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "M  V30 %d C %d 0 0 0\n", i, i)
	}
	b.WriteString("M  V30 END ATOM\nM  V30 BEGIN BOND\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "M  V30 %d 1 %d %d\n", i, i, i+1)
	}
	b.WriteString("M  V30 END BOND\nM  V30 END CTAB\nM  END\n")
	return b.String()
}

// TestHostileSearchJobFlood: one read key sends 60 structure searches
// from 8 connections with a synchronous budget of 1 ns, so that every
// search that has not finished at once becomes a search job. Every answer
// is 200, 202 with a job, or 429 with Retry-After (the caps on running
// jobs); another key sees none of the jobs and cannot delete them; a key
// holds at most 16; nothing is stored in the graph.
func TestHostileSearchJobFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("sets up the hostile server")
	}
	e := newHostileEnv(t, func(c *Config) { c.SearchTimeout = time.Nanosecond })
	before := e.footprint(t)
	queries := []string{
		searchGet("type", "substructure", "query", "c1ccccc1"),
		searchGet("type", "similarity", "query", "CC(=O)Oc1ccccc1C(=O)O", "threshold", "0"),
		searchGet("type", "substructure", "query", "[#6]", "query_format", "smarts", "format", "sdf"),
		searchGet("type", "superstructure", "query", "CC(=O)Oc1ccccc1C(=O)OCCCCCCN"),
	}
	type answer struct {
		status int
		hdr    http.Header
		body   []byte
	}
	answers := make(chan answer, 60)
	next := make(chan int, 60)
	for i := 0; i < 60; i++ {
		next <- i
	}
	close(next)
	done := make(chan struct{})
	for w := 0; w < 8; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range next {
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				resp, data, err := e.send(ctx, "GET", queries[i%len(queries)], "read", nil)
				cancel()
				if err != nil {
					t.Errorf("search %d: %v", i, err)
					continue
				}
				answers <- answer{resp.StatusCode, resp.Header, data}
			}
		}()
	}
	for w := 0; w < 8; w++ {
		<-done
	}
	close(answers)
	counts := map[int]int{}
	var jobs []string
	for a := range answers {
		counts[a.status]++
		switch a.status {
		case http.StatusOK:
		case http.StatusAccepted:
			var v struct {
				ID        string `json:"id"`
				StatusURL string `json:"status_url"`
			}
			if err := json.Unmarshal(a.body, &v); err != nil || v.ID == "" || a.hdr.Get("Location") != v.StatusURL {
				t.Errorf("202 without a job: %v %s", a.hdr, a.body)
			}
			jobs = append(jobs, v.ID)
		case http.StatusTooManyRequests:
			if a.hdr.Get("Retry-After") == "" || a.hdr.Get("Content-Type") != "application/problem+json" {
				t.Errorf("429 without Retry-After or problem: %v %s", a.hdr, a.body)
			}
		default:
			t.Errorf("status %d: %.300s", a.status, a.body)
		}
	}
	t.Logf("60 searches: %v, %d jobs", counts, len(jobs))
	held := 0
	for _, id := range jobs {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		// Another key: not found, and cannot delete it.
		resp, _, err := e.send(ctx, "GET", "/v1/molecules/search/jobs/"+id, "admin", nil)
		if err != nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("job %s read by another key: %v %v", id, resp, err)
		}
		resp, _, err = e.send(ctx, "DELETE", "/v1/molecules/search/jobs/"+id, "write", nil)
		if err != nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("job %s deleted by another key: %v %v", id, resp, err)
		}
		// Its own key: the hits once done, or 404 once the key's
		// oldest finished jobs made room for newer ones.
		for {
			resp, data, err := e.send(ctx, "GET", "/v1/molecules/search/jobs/"+id+"?limit=5", "read", nil)
			if err != nil {
				t.Fatalf("job %s: %v", id, err)
			}
			if resp.StatusCode == http.StatusAccepted {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			switch resp.StatusCode {
			case http.StatusOK:
				held++
			case http.StatusNotFound:
			default:
				checkHostileAnswer(t, hostileCase{}, resp, data)
			}
			break
		}
		cancel()
	}
	if held > 16 {
		t.Errorf("the key holds %d search jobs; at most 16", held)
	}
	if diff := before.storedDiff(e.footprint(t)); diff != "" {
		t.Errorf("the searches stored something: %s", diff)
	}
	e.checkAlive(t)
}

// TestHostileQMSteps: valid multi-step logs with far more steps than a
// log may have (an NWChem log of 3 tasks written 40 times: 120 tasks;
// a Gaussian log written 120 times, as Link1 jobs run back to back) are
// parsed within their time and memory bounds into at most qm.MaxSteps
// calculations.
func TestHostileQMSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("sets up the hostile server")
	}
	e := newHostileEnv(t, nil)
	for _, c := range []struct {
		name, rel string
		n         int
	}{
		{"nwchem-120-tasks.out", "nwchem/generated/water_hf_sto3g_sp_freq.out", 40},
		{"gaussian-120-jobs.log", "gaussian/basicGaussian16/dvb_sp.out", 120},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := bytes.Repeat(qmtest.Read(t, c.rel), c.n)
			body, ct := hostileUpload(t, c.name, data)
			debug.FreeOSMemory()
			rss := procStatus("VmRSS")
			peakOK := resetPeakRSS()
			ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
			defer cancel()
			start := time.Now()
			resp, out, err := e.send(ctx, "POST", "/v1/qm/parse", "write", body, "Content-Type", ct)
			if err != nil {
				t.Fatalf("%d bytes: %v", len(data), err)
			}
			t.Logf("%d bytes: %d in %s", len(data), resp.StatusCode, time.Since(start).Round(time.Millisecond))
			if peakOK && !raceBuild {
				if grew := (procStatus("VmHWM") - rss) >> 20; grew > 512 {
					t.Errorf("peak RSS grew by %d MiB", grew)
				}
			}
			switch resp.StatusCode {
			case http.StatusCreated, http.StatusOK:
				var v struct {
					Steps []json.RawMessage `json:"steps"`
				}
				if err := json.Unmarshal(out, &v); err != nil {
					t.Fatal(err)
				}
				if len(v.Steps) > qm.MaxSteps {
					t.Errorf("%d steps, more than qm.MaxSteps (%d)", len(v.Steps), qm.MaxSteps)
				}
				t.Logf("%d steps", len(v.Steps))
			default:
				checkHostileAnswer(t, hostileCase{}, resp, out)
			}
			e.checkAlive(t)
		})
	}
}
