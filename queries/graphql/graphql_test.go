package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
)

// newTestExecutor loads testdata/graph.nq (see testdata/README.md) into a
// memory store, one named graph per resource.
func newTestExecutor(t testing.TB, opts Options) *Executor {
	t.Helper()
	f, err := os.Open("testdata/graph.nq")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := rdfio.ParseNQuads(f)
	if err != nil {
		t.Fatal(err)
	}
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	byGraph := map[quad.IRI][]quad.Quad{}
	for _, q := range qs {
		byGraph[q.Label.(quad.IRI)] = append(byGraph[q.Label.(quad.IRI)], q)
	}
	for g, gq := range byGraph {
		if err := st.PutGraph(context.Background(), g, gq); err != nil {
			t.Fatal(err)
		}
	}
	if opts.BaseIRI == "" {
		opts.BaseIRI = "http://example.org/"
	}
	e, err := New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// run executes query and returns the response as generic JSON.
func run(t *testing.T, e *Executor, query string, vars map[string]any) (map[string]any, *Response) {
	t.Helper()
	res := e.Execute(context.Background(), Request{Query: query, Variables: vars})
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out, res
}

func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad expected JSON %v: %s", err, s)
	}
	return v
}

// Expected values are the literals of testdata/graph.nq.
func TestQueries(t *testing.T) {
	e := newTestExecutor(t, Options{})
	tests := []struct {
		name, query string
		vars        map[string]any
		want        string
	}{
		{"molecule by id with calculations",
			`{ molecule(id: "mol-aspirin") { id iri smiles inchiKey mw logp hbd validated has3D
			   calculations { nodes { id program method basisSet jobTypes homoEnergy charge } } } }`, nil,
			`{"molecule": {"id": "mol-aspirin", "iri": "http://example.org/id/molecule/mol-aspirin",
			  "smiles": "CC(=O)Oc1ccccc1C(=O)O", "inchiKey": "BSYNRYMUTXBXSQ-UHFFFAOYSA-N", "mw": 180.159, "logp": 1.3101,
			  "hbd": 1, "validated": true, "has3D": null,
			  "calculations": {"nodes": [
			    {"id": "calc-aspirin-b3lyp", "program": "Gaussian", "method": "B3LYP", "basisSet": "6-31G(d)",
			     "jobTypes": ["frequency", "optimization"], "homoEnergy": -0.2621, "charge": 0},
			    {"id": "calc-aspirin-pbe", "program": "ORCA", "method": null, "basisSet": null, "jobTypes": [],
			     "homoEnergy": -0.2204, "charge": null}]}}}`},
		{"unknown id is null", `{ molecule(id: "mol-nothing") { id } calculation(id: "mol-aspirin") { id } }`, nil,
			`{"molecule": null, "calculation": null}`},
		{"filter mwLt 500", `{ molecules(mwLt: 500) { nodes { id mw } pageInfo { hasNextPage } } }`, nil,
			`{"molecules": {"nodes": [{"id": "mol-aspirin", "mw": 180.159}, {"id": "mol-caffeine", "mw": 194.194},
			  {"id": "mol-imatinib", "mw": 493.615}], "pageInfo": {"hasNextPage": false}}}`},
		{"two filters", `{ molecules(mwLt: 500, logpGt: 0) { nodes { id } } }`, nil,
			`{"molecules": {"nodes": [{"id": "mol-aspirin"}, {"id": "mol-imatinib"}]}}`},
		{"inclusive bounds", `{ molecules(mwGte: 194.194, mwLte: 493.615) { nodes { id } } }`, nil,
			`{"molecules": {"nodes": [{"id": "mol-caffeine"}, {"id": "mol-imatinib"}]}}`},
		{"integer filter", `{ molecules(hbdGte: 1) { nodes { id hbd } } }`, nil,
			`{"molecules": {"nodes": [{"id": "mol-aspirin", "hbd": 1}, {"id": "mol-imatinib", "hbd": 2}]}}`},
		{"variables", `query Light($w: Float!) { molecules(mwLt: $w) { nodes { id } } }`, map[string]any{"w": 190},
			`{"molecules": {"nodes": [{"id": "mol-aspirin"}]}}`},
		{"calculation to molecule", `{ calculation(id: "calc-caffeine") { program homoEnergy molecule { id mw } } }`, nil,
			`{"calculation": {"program": "Psi4", "homoEnergy": -0.239, "molecule": {"id": "mol-caffeine", "mw": 194.194}}}`},
		{"calculations filtered", `{ calculations(homoEnergyLt: -0.23) { nodes { id } } }`, nil,
			`{"calculations": {"nodes": [{"id": "calc-aspirin-b3lyp"}, {"id": "calc-caffeine"}]}}`},
		{"job -> receptor, ligands, poses -> ligand (poses by affinity)",
			`{ dockingJob(id: "dock-1") { status exhaustiveness bestAffinity receptor { id name dockingJobs { nodes { id } } }
			   ligands { nodes { id } }
			   poses { edges { node { id mode bindingAffinity ligand { id inchiKey } job { id } } } } } }`, nil,
			`{"dockingJob": {"status": "succeeded", "exhaustiveness": 8, "bestAffinity": -12.5,
			  "receptor": {"id": "rec-abl1", "name": "ABL1 kinase (1iep)", "dockingJobs": {"nodes": [{"id": "dock-1"}]}},
			  "ligands": {"nodes": [{"id": "mol-aspirin"}, {"id": "mol-imatinib"}]},
			  "poses": {"edges": [
			    {"node": {"id": "pose-imatinib-1", "mode": 1, "bindingAffinity": -12.5, "ligand": {"id": "mol-imatinib", "inchiKey": "KTUFNOKKBVMGRW-UHFFFAOYSA-N"}, "job": {"id": "dock-1"}}},
			    {"node": {"id": "pose-imatinib-2", "mode": 2, "bindingAffinity": -11.2, "ligand": {"id": "mol-imatinib", "inchiKey": "KTUFNOKKBVMGRW-UHFFFAOYSA-N"}, "job": {"id": "dock-1"}}},
			    {"node": {"id": "pose-aspirin-1", "mode": 1, "bindingAffinity": -6.8, "ligand": {"id": "mol-aspirin", "inchiKey": "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"}, "job": {"id": "dock-1"}}}]}}}`},
		{"molecule -> poses filtered", `{ molecule(id: "mol-imatinib") { poses(bindingAffinityLt: -12) { nodes { mode } } } }`, nil,
			`{"molecule": {"poses": {"nodes": [{"mode": 1}]}}}`},
		{"aliases, fragments, typename, directives",
			`query($no: Boolean = false) { a: molecule(id: "mol-caffeine") { ...M __typename skipped: mw @skip(if: true) kept: mw @include(if: true) gone: logp @include(if: $no) }
			   b: molecule(id: "mol-aspirin") { ... on Molecule { id } } }
			 fragment M on Molecule { id smiles }`, nil,
			`{"a": {"id": "mol-caffeine", "smiles": "Cn1c(=O)c2c(ncn2C)n(C)c1=O", "__typename": "Molecule", "kept": 194.194},
			  "b": {"id": "mol-aspirin"}}`},
		{"receptors and jobs lists", `{ receptors { nodes { id } } dockingJobs(bestAffinityLt: -10) { nodes { id } } }`, nil,
			`{"receptors": {"nodes": [{"id": "rec-abl1"}]}, "dockingJobs": {"nodes": [{"id": "dock-1"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, res := run(t, e, tt.query, tt.vars)
			if len(res.Errors) > 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			if want := jsonOf(t, tt.want); !reflect.DeepEqual(out["data"], want) {
				got, _ := json.Marshal(out["data"])
				t.Fatalf("data\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// Response keys come in query order (GraphQL spec, section 7.2.2).
func TestFieldOrder(t *testing.T) {
	e := newTestExecutor(t, Options{})
	res := e.Execute(context.Background(), Request{Query: `{ molecule(id: "mol-aspirin") { mw smiles id } }`})
	b, _ := json.Marshal(res)
	if want := `{"data":{"molecule":{"mw":180.159,"smiles":"CC(=O)Oc1ccccc1C(=O)O","id":"mol-aspirin"}}}`; string(b) != want {
		t.Fatalf("%s\nwant %s", b, want)
	}
}

func TestPagination(t *testing.T) {
	e := newTestExecutor(t, Options{})
	const q = `query($after: String, $w: Float) { molecules(first: 2, after: $after, mwLt: $w) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`
	collect := func(vars map[string]any) []string {
		var ids []string
		for page := 0; page < 10; page++ {
			out, res := run(t, e, q, vars)
			if len(res.Errors) > 0 {
				t.Fatal(res.Errors)
			}
			c := out["data"].(map[string]any)["molecules"].(map[string]any)
			edges := c["edges"].([]any)
			for _, ed := range edges {
				ids = append(ids, ed.(map[string]any)["node"].(map[string]any)["id"].(string))
			}
			pi := c["pageInfo"].(map[string]any)
			if len(edges) > 0 && pi["endCursor"] != edges[len(edges)-1].(map[string]any)["cursor"] {
				t.Fatalf("endCursor %v is not the last edge's cursor", pi["endCursor"])
			}
			if pi["hasNextPage"] != true {
				return ids
			}
			vars["after"] = pi["endCursor"]
		}
		t.Fatal("pagination does not end")
		return nil
	}
	if got, want := collect(map[string]any{}), []string{"mol-aspirin", "mol-atorvastatin", "mol-caffeine", "mol-imatinib"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pages %v, want %v", got, want)
	}
	if got, want := collect(map[string]any{"w": 500}), []string{"mol-aspirin", "mol-caffeine", "mol-imatinib"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("filtered pages %v, want %v", got, want)
	}
	// Nested connection pagination (ordered by affinity).
	out, _ := run(t, e, `{ dockingJob(id: "dock-1") { poses(first: 1) { nodes { id } pageInfo { endCursor hasNextPage } } } }`, nil)
	p := out["data"].(map[string]any)["dockingJob"].(map[string]any)["poses"].(map[string]any)
	cur := p["pageInfo"].(map[string]any)["endCursor"].(string)
	out, _ = run(t, e, `query($c: String) { dockingJob(id: "dock-1") { poses(first: 5, after: $c) { nodes { id } pageInfo { hasNextPage } } } }`, map[string]any{"c": cur})
	want := jsonOf(t, `{"dockingJob": {"poses": {"nodes": [{"id": "pose-imatinib-2"}, {"id": "pose-aspirin-1"}], "pageInfo": {"hasNextPage": false}}}}`)
	if !reflect.DeepEqual(out["data"], want) {
		t.Fatalf("%v", out["data"])
	}
}

func TestFieldErrors(t *testing.T) {
	e := newTestExecutor(t, Options{})
	tests := []struct {
		name, query string
		path        []any
		sentinel    error
		data        string
	}{
		{"bad cursor", `{ molecules(after: "not-a-cursor") { nodes { id } } }`, []any{"molecules"}, ErrBadArgument, `null`},
		{"page too large", `{ molecule(id: "mol-aspirin") { id calculations(first: 1000) { nodes { id } } } }`,
			[]any{"molecule", "calculations"}, ErrBadArgument, `{"molecule": null}`},
		{"negative page", `{ receptors(first: -1) { nodes { id } } }`, []any{"receptors"}, ErrBadArgument, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, res := run(t, e, tt.query, nil)
			if !res.HasData || len(res.Errors) != 1 || !errors.Is(res.Errors[0].Err, tt.sentinel) {
				t.Fatalf("response %+v", out)
			}
			if got := out["errors"].([]any)[0].(map[string]any)["path"]; !reflect.DeepEqual(got, tt.path) {
				t.Fatalf("path %v, want %v", got, tt.path)
			}
			if !reflect.DeepEqual(out["data"], jsonOf(t, tt.data)) {
				t.Fatalf("data %v, want %s", out["data"], tt.data)
			}
		})
	}
}

func TestRequestErrors(t *testing.T) {
	e := newTestExecutor(t, Options{MaxDepth: 6, MaxCost: 500})
	tests := []struct {
		name, query, op string
		vars            map[string]any
		sentinel        error
		msg             string
	}{
		{"syntax", `{ molecule(id: "x" { id } }`, "", nil, ErrInvalidQuery, "Expected"},
		{"unknown field", `{ molecule(id: "x") { colour } }`, "", nil, ErrInvalidQuery, "colour"},
		{"unknown argument", `{ molecules(weightBelow: 3) { nodes { id } } }`, "", nil, ErrInvalidQuery, "weightBelow"},
		{"wrong argument type", `{ molecules(mwLt: "heavy") { nodes { id } } }`, "", nil, ErrInvalidQuery, "Float"},
		{"missing variable", `query($w: Float!) { molecules(mwLt: $w) { nodes { id } } }`, "", nil, ErrInvalidQuery, "variable $w"},
		{"bad variable", `query($w: Float!) { molecules(mwLt: $w) { nodes { id } } }`, "", map[string]any{"w": "x"}, ErrInvalidQuery, "variable $w"},
		{"mutation", `mutation { deleteEverything }`, "", nil, ErrInvalidQuery, "mutation"},
		{"two operations", `query A { receptors { nodes { id } } } query B { receptors { nodes { id } } }`, "", nil, ErrInvalidQuery, "operationName"},
		{"unknown operation", `query A { receptors { nodes { id } } }`, "B", nil, ErrInvalidQuery, "B"},
		{"empty", ` `, "", nil, ErrInvalidQuery, "no query"},
		{"too deep", `{ dockingJob(id: "d") { poses { nodes { ligand { poses { nodes { mode } } } } } } }`, "", nil, ErrTooComplex, "depth 7 exceeds the limit of 6"},
		// molecules: 1 + 20 × nodes; nodes: 1 + (id 1 + calculations: 1 + 20 × (nodes 1 + id 1)) = 43; 861 > 500
		{"too costly", `{ molecules { nodes { id calculations { nodes { id } } } } }`, "", nil, ErrTooComplex, "cost 861"},
		{"cost through fragments", `{ molecules(first: 100) { ...N } } fragment N on MoleculeConnection { nodes { id smiles mw logp qed } }`, "", nil, ErrTooComplex, "cost 601"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.Execute(context.Background(), Request{Query: tt.query, OperationName: tt.op, Variables: tt.vars})
			if res.HasData || len(res.Errors) == 0 {
				t.Fatalf("want a request error, got %+v", res)
			}
			if !errors.Is(res.Errors[0].Err, tt.sentinel) || !strings.Contains(res.Errors[0].Message, tt.msg) {
				t.Fatalf("error %v (%v), want %v containing %q", res.Errors[0].Message, res.Errors[0].Err, tt.sentinel, tt.msg)
			}
			b, _ := json.Marshal(res)
			if strings.Contains(string(b), `"data"`) {
				t.Fatalf("request error with data: %s", b)
			}
		})
	}
	// Introspection is charged: the full introspection query produces
	// more than 500 fields (its answer alone has more than 500 "name"
	// keys), so it does not pass a cost limit of 500; with the default
	// limits it does (TestLimitsAllowIntrospection).
	res := e.Execute(context.Background(), Request{Query: introspectionQuery})
	if len(res.Errors) == 0 || !errors.Is(res.Errors[0].Err, ErrTooComplex) {
		t.Fatalf("introspection under a cost limit of 500: %v", res.Errors)
	}
}

// introspectionQuery is graphql-js's getIntrospectionQuery() (v16, with
// descriptions, specifiedByURL and directive isRepeatable), as GraphiQL
// sends it.
const introspectionQuery = `
query IntrospectionQuery {
  __schema {
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types { ...FullType }
    directives { name description isRepeatable locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description specifiedByURL
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`

// TestIntrospection checks the introspection answer against the schema as
// gqlparser parsed it (an independent reading of the same SDL).
func TestIntrospection(t *testing.T) {
	e := newTestExecutor(t, Options{})
	out, res := run(t, e, introspectionQuery, nil)
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	schema := out["data"].(map[string]any)["__schema"].(map[string]any)
	if schema["queryType"].(map[string]any)["name"] != "Query" || schema["mutationType"] != nil {
		t.Fatalf("root types %v", schema)
	}
	ref := gqlparser.MustLoadSchema(&ast.Source{Input: schemaText(DefaultMaxPageSize)})
	types := map[string]map[string]any{}
	for _, ty := range schema["types"].([]any) {
		m := ty.(map[string]any)
		types[m["name"].(string)] = m
	}
	for name, def := range ref.Types {
		got, ok := types[name]
		if !ok {
			t.Errorf("type %s missing", name)
			continue
		}
		if got["kind"] != string(def.Kind) {
			t.Errorf("%s kind %v, want %s", name, got["kind"], def.Kind)
		}
		if def.Kind != ast.Object {
			continue
		}
		fields := map[string]map[string]any{}
		for _, f := range got["fields"].([]any) {
			fields[f.(map[string]any)["name"].(string)] = f.(map[string]any)
		}
		for _, fd := range def.Fields {
			if strings.HasPrefix(fd.Name, "__") {
				if _, ok := fields[fd.Name]; ok {
					t.Errorf("%s.%s listed", name, fd.Name)
				}
				continue
			}
			f, ok := fields[fd.Name]
			if !ok {
				t.Errorf("%s.%s missing", name, fd.Name)
				continue
			}
			if got := typeString(f["type"].(map[string]any)); got != fd.Type.String() {
				t.Errorf("%s.%s type %s, want %s", name, fd.Name, got, fd.Type.String())
			}
			if len(f["args"].([]any)) != len(fd.Arguments) {
				t.Errorf("%s.%s has %d args, want %d", name, fd.Name, len(f["args"].([]any)), len(fd.Arguments))
			}
		}
	}
	// The filter arguments of the brief's example exist with their types.
	out, _ = run(t, e, `{ __type(name: "Query") { fields { name args { name type { name } defaultValue } } } }`, nil)
	found := false
	for _, f := range out["data"].(map[string]any)["__type"].(map[string]any)["fields"].([]any) {
		fm := f.(map[string]any)
		if fm["name"] != "molecules" {
			continue
		}
		for _, a := range fm["args"].([]any) {
			am := a.(map[string]any)
			if am["name"] == "mwLt" && am["type"].(map[string]any)["name"] == "Float" {
				found = true
			}
			if am["name"] == "first" && am["defaultValue"] != "20" {
				t.Errorf("first defaultValue %v", am["defaultValue"])
			}
		}
	}
	if !found {
		t.Error("Query.molecules(mwLt: Float) not introspected")
	}
	out, _ = run(t, e, `{ __type(name: "NoSuchType") { name } }`, nil)
	if out["data"].(map[string]any)["__type"] != nil {
		t.Error("unknown type not null")
	}
}

// typeString renders an introspected type reference as GraphQL syntax.
func typeString(t map[string]any) string {
	switch t["kind"] {
	case "NON_NULL":
		return typeString(t["ofType"].(map[string]any)) + "!"
	case "LIST":
		return "[" + typeString(t["ofType"].(map[string]any)) + "]"
	}
	return t["name"].(string)
}

// Every predicate of the table is an mg: property declared in the TBox or
// a W3C/PROV-O term, and every scalar field of the SDL has a mapping. (A
// made-up predicate such as mg:name, which nothing writes, fails here.)
func TestVocabularyTable(t *testing.T) {
	tbox, err := rdfio.ParseTurtle(bytes.NewReader(ontology.TBox()), ontology.TBoxIRI)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[quad.Value]bool{}
	for _, q := range tbox {
		if q.Predicate == ontology.RDFType && (q.Object == quad.IRI(ontology.OWL+"DatatypeProperty") ||
			q.Object == quad.IRI(ontology.OWL+"ObjectProperty")) {
			declared[q.Subject] = true
		}
	}
	for _, ty := range types() {
		seen := map[string]bool{}
		for _, f := range ty.fields {
			if seen[f.name] {
				t.Errorf("%s.%s twice", ty.name, f.name)
			}
			seen[f.name] = true
			p := string(f.pred)
			switch {
			case strings.HasPrefix(p, ontology.MG):
				if !declared[f.pred] {
					t.Errorf("%s.%s: %s is not a property of the TBox", ty.name, f.name, p)
				}
			case strings.HasPrefix(p, ontology.PROV), p == ontology.RDFS+"label":
			default:
				t.Errorf("%s.%s: predicate %s outside mg:, prov: and rdfs:label", ty.name, f.name, p)
			}
			if f.filter && f.kind != kindFloat && f.kind != kindInt {
				t.Errorf("%s.%s: filter on a non-numeric field", ty.name, f.name)
			}
		}
	}
}

func TestContextDeadline(t *testing.T) {
	e := newTestExecutor(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := e.Execute(ctx, Request{Query: `{ molecules { nodes { id } } }`})
	if len(res.Errors) == 0 || !errors.Is(res.Errors[0].Err, ErrSource) {
		t.Fatalf("%+v", res)
	}
}

func FuzzExecute(f *testing.F) {
	for _, s := range []string{
		`{ molecules(mwLt: 500) { nodes { id mw } } }`,
		`{ dockingJob(id: "dock-1") { poses { edges { cursor node { ligand { id } } } } } }`,
		`query($a: String) { molecules(after: $a) { pageInfo { endCursor } } }`,
		`{ __schema { types { name } } }`,
		`fragment F on Molecule { ...F } { molecule(id: "x") { ...F } }`,
		`{ molecule(id: "mol-aspirin") { calculations(first: 1000) { nodes { id } } } }`,
		"{ a: molecule(id: \"\\u0000\") { id } }",
	} {
		f.Add(s)
	}
	e := newTestExecutor(f, Options{})
	f.Fuzz(func(t *testing.T, q string) {
		res := e.Execute(context.Background(), Request{Query: q, Variables: map[string]any{"a": "x"}})
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("response does not marshal: %v", err)
		}
		if !res.HasData && len(res.Errors) == 0 {
			t.Fatal("no data and no errors")
		}
	})
}
