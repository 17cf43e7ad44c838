package handlers

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Real SPARQL clients against the endpoint on a real listener, as
// ../shared/rdf-conformance/README.md (section 5) describes them:
// SPARQLWrapper (Debian python3-sparqlwrapper) checked against rdflib
// (python3-rdflib) running the same queries on the N-Triples export of the
// same data; roqet (rasqal-utils) and Comunica 4.x (npm
// @comunica/query-sparql) checked against the endpoint's own JSON answer.
// Each client is skipped, with the reason, when it is not installed.

// clientQueries are run by every client: a filter, a two-hop join, an
// aggregate.
var clientQueries = []string{
	qLightMols,
	prefixes + "SELECT ?m ?c ?homo WHERE { ?c occ:hasUniqueSpecies ?m ; mg:homoEnergy ?homo }",
	prefixes + "SELECT ?prog (COUNT(?c) AS ?n) (AVG(?h) AS ?avg) WHERE { ?c mg:program ?prog ; mg:homoEnergy ?h } GROUP BY ?prog",
	prefixes + "SELECT ?j ?l ?aff WHERE { ?p mg:ligand ?l ; mg:bindingAffinity ?aff ; <http://www.w3.org/ns/prov#wasGeneratedBy> ?j } ORDER BY ?aff",
}

const clientConstruct = prefixes + "CONSTRUCT { ?m mg:molecularWeight ?w ; mg:calc ?c } WHERE { ?m mg:molecularWeight ?w . OPTIONAL { ?c occ:hasUniqueSpecies ?m } }"

// authGateway serves f with the read key added to every request, as an API
// gateway would, for clients that cannot send an Authorization header.
func authGateway(t *testing.T, f *fixture) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+f.tokens["read"])
		f.srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// ownAnswer is the endpoint's JSON answer: rows of "var=value" strings,
// sorted, for comparison with other clients.
func ownAnswer(t *testing.T, f *fixture, query string) []string {
	rec := f.do(t, "GET", "/v1/sparql?"+url.Values{"query": {query}}.Encode(), "read", nil)
	r := decodeResults(t, rec.Body.Bytes())
	var rows []string
	for _, b := range r.Results.Bindings {
		var cells []string
		for _, v := range r.Head.Vars {
			cells = append(cells, v+"="+b[v].Value)
		}
		rows = append(rows, strings.Join(cells, " "))
	}
	slices.Sort(rows)
	return rows
}

const sparqlWrapperScript = `
import json, math, sys
from SPARQLWrapper import SPARQLWrapper, JSON, TURTLE, POST, POSTDIRECTLY
import rdflib
from rdflib.compare import isomorphic

endpoint, token, ntfile = sys.argv[1:4]
queries = json.loads(sys.argv[4])
construct = sys.argv[5]
ref = rdflib.Graph()
ref.parse(ntfile, format="nt")
NUM = {"http://www.w3.org/2001/XMLSchema#" + t for t in ("double", "float", "decimal", "integer", "int", "long")}

def key(t, v, dt):
    if t == "literal" and dt in NUM:
        return ("num", round(float(v), 9))
    return (t, v)

def from_wrapper(res):
    rows = []
    for b in res["results"]["bindings"]:
        rows.append(tuple(sorted((k, key("uri" if c["type"] == "uri" else "literal", c["value"], c.get("datatype")))
                                 for k, c in b.items())))
    return sorted(rows)

def from_rdflib(res):
    rows = []
    for r in res:
        row = []
        for k, v in r.asdict().items():
            if isinstance(v, rdflib.URIRef):
                row.append((k, ("uri", str(v))))
            else:
                row.append((k, key("literal", str(v), str(v.datatype) if v.datatype else None)))
        rows.append(tuple(sorted(row)))
    return sorted(rows)

def client(method=None, request_method=None):
    sw = SPARQLWrapper(endpoint)
    sw.addCustomHttpHeader("Authorization", "Bearer " + token)
    if method:
        sw.setMethod(method)
    if request_method:
        sw.setRequestMethod(request_method)
    return sw

failures = 0
for i, q in enumerate(queries):
    want = from_rdflib(ref.query(q))
    for name, (m, rm) in {"GET": (None, None), "POST form": (POST, None), "POST direct": (POST, POSTDIRECTLY)}.items():
        sw = client(m, rm)
        sw.setQuery(q)
        sw.setReturnFormat(JSON)
        got = from_wrapper(sw.query().convert())
        if got != want:
            failures += 1
            print("query %d %s: SPARQLWrapper %r != rdflib %r" % (i, name, got, want))
        else:
            print("query %d %s: %d rows equal" % (i, name, len(got)))
sw = client()
sw.setQuery(construct)
sw.setReturnFormat(TURTLE)
got = rdflib.Graph()
got.parse(data=sw.query().convert(), format="turtle")
want = ref.query(construct).graph
if isomorphic(got, want):
    print("construct: %d triples isomorphic" % len(got))
else:
    failures += 1
    print("construct: not isomorphic: %d vs %d triples" % (len(got), len(want)))
sw = client()
sw.setQuery("ASK { ?s ?p ?o }")
sw.setReturnFormat(JSON)
if sw.query().convert().get("boolean") is not True:
    failures += 1
    print("ask: not true")
sys.exit(1 if failures else 0)
`

func TestSPARQLWrapperAgainstRDFLib(t *testing.T) {
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import SPARQLWrapper, rdflib").CombinedOutput(); err != nil {
		t.Skipf("needs Debian python3-sparqlwrapper and python3-rdflib: %v %s", err, out)
	}
	f, _ := newQueryFixture(t, QueryLimits{})
	ts := listenQueryFixture(t, f)
	rec := f.do(t, "GET", "/v1/export?format=ntriples", "admin", nil)
	nt := filepath.Join(t.TempDir(), "export.nt")
	if err := os.WriteFile(nt, rec.Body.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, _ := json.Marshal(clientQueries)
	cmd := exec.Command(py, "-c", sparqlWrapperScript, ts+"/v1/sparql", f.tokens["read"], nt, string(qs), clientConstruct)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("SPARQLWrapper vs rdflib: %v", err)
	}
}

func TestRoqetSelect(t *testing.T) {
	roqet, err := exec.LookPath("roqet")
	if err != nil {
		t.Skip("needs roqet (Debian rasqal-utils)")
	}
	f, _ := newQueryFixture(t, QueryLimits{})
	endpoint := authGateway(t, f) + "/v1/sparql"
	// rasqal 0.9.33 rewrites xsd:double values into its canonical form
	// when it reads SPARQL XML, and gets negative ones wrong (checked on a
	// results file, without any server: -0.2621 becomes "-2.621E-0", -11.2
	// becomes "-1.12E0"). So numbers are compared by value and the
	// queries are ones without negative doubles.
	queries := []string{
		clientQueries[0],
		prefixes + "SELECT ?c ?prog ?m WHERE { ?c mg:program ?prog . OPTIONAL { ?c occ:hasUniqueSpecies ?m } }",
		prefixes + "SELECT ?m (COUNT(?c) AS ?n) WHERE { ?c occ:hasUniqueSpecies ?m } GROUP BY ?m",
	}
	for i, q := range queries {
		// roqet -p always GETs with Accept: application/sparql-results+xml.
		out, err := exec.Command(roqet, "-q", "-p", endpoint, "-r", "csv", "-e", q).CombinedOutput()
		if err != nil {
			t.Fatalf("query %d: roqet: %v\n%s", i, err, out)
		}
		rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
		if err != nil || len(rows) == 0 {
			t.Fatalf("query %d: roqet CSV: %v\n%s", i, err, out)
		}
		var got []string
		for _, row := range rows[1:] {
			var cells []string
			for j, v := range rows[0] {
				cells = append(cells, v+"="+row[j])
			}
			got = append(got, strings.Join(cells, " "))
		}
		slices.Sort(got)
		if want := ownAnswer(t, f, q); !slices.EqualFunc(got, want, sameRow) {
			t.Errorf("query %d: roqet\n%q\nendpoint JSON\n%q", i, got, want)
		}
	}
}

// sameRow compares two "var=value ..." rows, numbers by value.
func sameRow(a, b string) bool {
	ca, cb := strings.Fields(a), strings.Fields(b)
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		if ca[i] == cb[i] {
			continue
		}
		ka, va, _ := strings.Cut(ca[i], "=")
		kb, vb, _ := strings.Cut(cb[i], "=")
		fa, ea := strconv.ParseFloat(va, 64)
		fb, eb := strconv.ParseFloat(vb, 64)
		if ka != kb || ea != nil || eb != nil || math.Abs(fa-fb) > 1e-9*math.Max(1, math.Abs(fa)) {
			return false
		}
	}
	return true
}

// comunicaBin finds comunica-sparql: $MOLGRAPH_COMUNICA, PATH, or the
// module root's node_modules.
func comunicaBin() string {
	if p := os.Getenv("MOLGRAPH_COMUNICA"); p != "" {
		return p
	}
	if p, err := exec.LookPath("comunica-sparql"); err == nil {
		return p
	}
	if p, err := filepath.Abs("../node_modules/.bin/comunica-sparql"); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func TestComunicaSelect(t *testing.T) {
	bin := comunicaBin()
	if bin == "" {
		t.Skip("needs Comunica 4.x: npm install @comunica/query-sparql@4.5.0 (or set MOLGRAPH_COMUNICA)")
	}
	f, _ := newQueryFixture(t, QueryLimits{})
	endpoint := authGateway(t, f) + "/v1/sparql"
	for i, q := range clientQueries {
		out, err := exec.Command(bin, "sparql@"+endpoint, q, "-t", "application/sparql-results+json").Output()
		if err != nil {
			t.Fatalf("query %d: comunica: %v\n%s", i, err, out)
		}
		var r sparqlJSON // Comunica adds a "metadata" member
		if err := json.Unmarshal(out, &r); err != nil || r.Results == nil {
			t.Fatalf("query %d: comunica output: %v\n%s", i, err, out)
		}
		var got []string
		for _, b := range r.Results.Bindings {
			var cells []string
			for _, v := range r.Head.Vars {
				cells = append(cells, v+"="+b[v].Value)
			}
			got = append(got, strings.Join(cells, " "))
		}
		slices.Sort(got)
		if want := ownAnswer(t, f, q); !slices.Equal(got, want) {
			t.Errorf("query %d: comunica\n%q\nendpoint\n%q", i, got, want)
		}
	}
	// Without the sparql@ prefix Comunica first reads the service
	// description (GET without a query) to identify the source.
	out, err := exec.Command(bin, endpoint, "ASK { ?s ?p ?o }", "-t", "application/sparql-results+json").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "true") {
		t.Fatalf("comunica with service description discovery: %v\n%s", err, out)
	}
}
