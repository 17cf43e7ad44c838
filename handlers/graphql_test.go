package handlers

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
	"github.com/molgraph/molgraph/parsers/xtb"
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
	// A query refused by a limit is a problem naming the limit, whatever
	// the Accept; the two reproductions are refused fast.
	t.Run("limits", func(t *testing.T) {
		var trees strings.Builder
		for i := range 600 {
			fmt.Fprintf(&trees, " a%d: __schema { types { name } }", i)
		}
		for _, tt := range []struct{ query, accept, detail string }{
			{`{ molecules(first: 100) { nodes { calculations(first: 100) { nodes { id } } } } }`, "application/graphql-response+json", "cost 20201 exceeds the limit of 2000"},
			{`{ dockingJob(id: "dock-1") { poses { nodes { ligand { poses { nodes { job { receptor { id } } } } } } } } }`, "application/json", "depth 9 exceeds the limit of 8"},
			{`{ molecules(first: 1) { nodes {` + strings.Repeat(" id", 20000) + ` } } }`, "", "more than 10000 tokens"},
			{"{" + trees.String() + " }", "", "exceeds the limit of 2000 (every field"},
			{`{ molecules(first: 1) { nodes {` + strings.Repeat(" id", 101) + ` } } }`, "", `more than 100 fields answer under the response name "id"`},
		} {
			b, _ := json.Marshal(map[string]any{"query": tt.query})
			start := time.Now()
			rec := f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(string(b)), "Content-Type", "application/json", "Accept", tt.accept)
			took := time.Since(start)
			p := problemOf(t, rec, 400, "query_too_complex")
			if !strings.Contains(p.Detail, tt.detail) || len(p.Errors) != 1 || p.Errors[0].Field != "query" {
				t.Errorf("%.60s: %+v, want detail naming %q", tt.query, p, tt.detail)
			}
			if took > 2*time.Second {
				t.Errorf("%.60s: refused in %v", tt.query, took)
			}
		}
	})
	t.Run("http problems", func(t *testing.T) {
		problemOf(t, f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(`{"query": `), "Content-Type", "application/json"), 400, "malformed_json")
		problemOf(t, f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(`{"query": "{ receptors { nodes { id } } }", "extra": 1}`), "Content-Type", "application/json"), 400, "invalid_request")
		problemOf(t, f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(`{ receptors { nodes { id } } }`), "Content-Type", "text/plain"), 415, "unsupported_media_type")
		problemOf(t, f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(`{"query": ""}`), "Content-Type", "application/json"), 400, "invalid_request")
		problemOf(t, f.do(t, "GET", "/v1/graphql?query=x&variables=[1", "read", nil), 400, "invalid_request")
		if p := problemOf(t, f.do(t, "GET", "/v1/graphql?query=x&variables="+strings.Repeat("%5B", 100000), "read", nil), 400, "invalid_request"); !strings.Contains(p.Detail, "nested deeper") {
			t.Errorf("deep variables: %s", p.Detail)
		}
		problemOf(t, f.do(t, "POST", "/v1/graphql", "", strings.NewReader(`{"query": "{ receptors { nodes { id } } }"}`), "Content-Type", "application/json"), 401, "unauthorized")
	})
}

// graphqlData posts a GraphQL query and returns its data (failing on
// errors).
func graphqlData(t *testing.T, f *fixture, query string, vars map[string]any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	rec := f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(string(b)), "Content-Type", "application/json")
	if rec.Code != 200 {
		t.Fatalf("graphql: %d %s", rec.Code, rec.Body)
	}
	out := decodeGraphQL(t, rec.Body.Bytes())
	if out["errors"] != nil {
		t.Fatalf("graphql errors: %s", rec.Body)
	}
	return out["data"].(map[string]any)
}

// sameField compares a GraphQL value with the REST record's value: numbers
// as float64, times as instants, absent as null.
func sameField(t *testing.T, what string, got, want any) {
	t.Helper()
	switch w := want.(type) {
	case int:
		want = float64(w)
	case *int:
		want = nil
		if w != nil {
			want = float64(*w)
		}
	case *float64:
		want = nil
		if w != nil {
			want = *w
		}
	case time.Time:
		g, _ := got.(string)
		gt, err := time.Parse(time.RFC3339Nano, g)
		if err != nil || !gt.Equal(w) {
			t.Errorf("%s: GraphQL %v, REST %v", what, got, w)
		}
		return
	case []string:
		ws := slices.Sorted(slices.Values(w))
		want = []any{}
		for _, s := range ws {
			want = append(want.([]any), s)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: GraphQL %v (%T), REST %v (%T)", what, got, got, want, want)
	}
}

// TestGraphQLReadsWhatTheAPIWrites creates a molecule (with a name), two
// calculations (Gaussian logs of p-divinylbenzene, so both link to it) and
// a receptor through the API, and reads every GraphQL field back: each
// must equal the REST record of the same resource, and the values known
// independently (the name sent, RDKit's canonical SMILES, formula and
// weight, cclib's reference thermochemistry for dvb_ir) must come through.
func TestGraphQLReadsWhatTheAPIWrites(t *testing.T) {
	f := newMolFixture(t, 0)
	f.srv.cfg.QM = qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}, nwchem.Parser{}, xtb.Parser{}}

	molRec := f.post(t, `{"format": "smiles", "content": "C(=C)c1ccc(C=C)cc1", "name": "p-divinylbenzene"}`)
	if molRec.Code != 201 {
		t.Fatalf("molecule: %d %s", molRec.Code, molRec.Body)
	}
	mol := decode[ontology.MoleculeRecord](t, molRec)
	var calcs []ontology.CalculationRecord
	for _, log := range []string{"gaussian/basicGaussian16/dvb_gopt.out", "gaussian/basicGaussian16/dvb_ir.out"} {
		rec := f.parse(t, path.Base(log), qmtest.Read(t, log))
		if rec.Code != 201 {
			t.Fatalf("%s: %d %s", log, rec.Code, rec.Body)
		}
		calcs = append(calcs, decodeCalc(t, rec).CalculationRecord)
	}
	recRec := f.postReceptor(t, "1iep_receptor.pdbqt", dockingCorpus(t, "vina-examples/1iep/1iep_receptor.pdbqt"), "name", "ABL1 kinase (1iep)")
	if recRec.Code != 201 {
		t.Fatalf("receptor: %d %s", recRec.Code, recRec.Body)
	}
	receptor := decodeReceptor(t, recRec)

	data := graphqlData(t, f.fixture, `query($m: ID!, $c0: ID!, $c1: ID!, $r: ID!) {
	  molecule(id: $m) { id name smiles inchi inchiKey formula mw exactMass logp qed tpsa hbd hba rotatableBonds
	    heavyAtoms aromaticRings validated has3D createdAt calculations { nodes { id } } }
	  c0: calculation(id: $c0) { ...C }
	  c1: calculation(id: $c1) { ...C }
	  receptor(id: $r) { id name atoms residues chains createdAt }
	}
	fragment C on Calculation { id program programVersion method basisSet jobTypes formula charge multiplicity atomCount
	  scfEnergy zeroPointEnergy enthalpy gibbsEnergy homoEnergy lumoEnergy homoLumoGap dipoleMoment normalTermination
	  optimizationConverged optimizationSteps imaginaryFrequencyCount createdAt molecule { id } }`,
		map[string]any{"m": mol.ID, "c0": calcs[0].ID, "c1": calcs[1].ID, "r": receptor.ID})

	// The molecule: the name as sent, RDKit's values, and the REST record.
	m := data["molecule"].(map[string]any)
	if m["name"] != "p-divinylbenzene" || m["smiles"] != "C=Cc1ccc(C=C)cc1" || m["formula"] != "C10H10" ||
		math.Abs(m["mw"].(float64)-130.19) > 0.005 {
		t.Errorf("molecule %v; want the name sent and RDKit's SMILES, formula and weight", m)
	}
	for field, want := range map[string]any{"id": mol.ID, "name": mol.Name, "smiles": mol.SMILES, "inchi": mol.InChI,
		"inchiKey": mol.InChIKey, "formula": mol.Formula, "mw": mol.MW, "exactMass": mol.ExactMass, "logp": mol.LogP,
		"qed": mol.QED, "tpsa": mol.TPSA, "hbd": mol.HBD, "hba": mol.HBA, "rotatableBonds": mol.RotatableBonds,
		"heavyAtoms": mol.HeavyAtoms, "aromaticRings": mol.AromaticRings, "validated": mol.Validated,
		"has3D": mol.Has3D, "createdAt": mol.CreatedAt} {
		sameField(t, "Molecule."+field, m[field], want)
	}
	var linked []string
	for _, n := range m["calculations"].(map[string]any)["nodes"].([]any) {
		linked = append(linked, n.(map[string]any)["id"].(string))
	}
	if want := slices.Sorted(slices.Values([]string{calcs[0].ID, calcs[1].ID})); !slices.Equal(linked, want) {
		t.Errorf("Molecule.calculations %v, want %v", linked, want)
	}

	// The calculations: the REST record field by field.
	for i, c := range calcs {
		g := data[fmt.Sprintf("c%d", i)].(map[string]any)
		var e ontology.CalculationEnergies
		if c.Energies != nil {
			e = *c.Energies
		}
		var o ontology.CalculationOrbitals
		if c.Orbitals != nil {
			o = *c.Orbitals
		}
		want := map[string]any{"id": c.ID, "program": c.Program, "programVersion": c.ProgramVersion, "method": c.Method,
			"basisSet": c.BasisSet, "jobTypes": c.JobTypes, "formula": c.Formula, "charge": c.Charge,
			"multiplicity": c.Multiplicity, "atomCount": c.NAtoms, "scfEnergy": e.SCF, "zeroPointEnergy": e.ZPE,
			"enthalpy": e.Enthalpy, "gibbsEnergy": e.Gibbs, "homoEnergy": o.HOMO, "lumoEnergy": o.LUMO,
			"homoLumoGap": o.Gap, "normalTermination": c.NormalTermination, "createdAt": c.CreatedAt,
			"molecule":     map[string]any{"id": c.MoleculeID},
			"dipoleMoment": nil, "optimizationConverged": nil, "optimizationSteps": nil, "imaginaryFrequencyCount": nil}
		if c.Dipole != nil {
			want["dipoleMoment"] = c.Dipole.Total
		}
		if c.Optimization != nil {
			want["optimizationConverged"], want["optimizationSteps"] = c.Optimization.Converged, c.Optimization.Steps
		}
		if c.Frequencies != nil {
			want["imaginaryFrequencyCount"] = c.Frequencies.ImaginaryCount
		}
		for field, w := range want {
			if s, ok := w.(string); ok && s == "" {
				w = nil // omitted in the record: absent in the graph
			}
			sameField(t, fmt.Sprintf("c%d.%s", i, field), g[field], w)
		}
	}
	// cclib's reference values for dvb_ir (qm-corpus/EXPECTED.md): 20 atoms,
	// ZPE 0.1771 ± 1e-3 Eh, H -382.12130689 and G -382.16491500 Eh (3 dp).
	ir := data["c1"].(map[string]any)
	if ir["atomCount"] != 20.0 || math.Abs(ir["zeroPointEnergy"].(float64)-0.1771) > 1e-3 ||
		math.Abs(ir["enthalpy"].(float64)+382.12130689) > 5e-4 || math.Abs(ir["gibbsEnergy"].(float64)+382.16491500) > 5e-4 ||
		ir["imaginaryFrequencyCount"] != 0.0 {
		t.Errorf("dvb_ir through GraphQL: %v", ir)
	}
	if gopt := data["c0"].(map[string]any); gopt["optimizationConverged"] != true || gopt["optimizationSteps"] == nil {
		t.Errorf("dvb_gopt through GraphQL: %v", gopt)
	}

	// The receptor.
	r := data["receptor"].(map[string]any)
	if r["name"] != "ABL1 kinase (1iep)" {
		t.Errorf("Receptor.name %v, want the name sent", r["name"])
	}
	for field, want := range map[string]any{"id": receptor.ID, "name": receptor.Name, "atoms": receptor.Atoms,
		"residues": receptor.Residues, "chains": receptor.Chains, "createdAt": receptor.CreatedAt} {
		sameField(t, "Receptor."+field, r[field], want)
	}
}

// TestGraphQLReadsDockingResults runs a small docking job through the API
// (phenol into 1iep's documented box, exhaustiveness 1) and reads the job
// and its poses through GraphQL: each field must equal the REST job and
// results.
func TestGraphQLReadsDockingResults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Vina")
	}
	f, receptor, _ := newDockingFixture(t)
	ph := f.do(t, "POST", "/v1/molecules", "write", strings.NewReader(`{"format":"smiles","content":"Oc1ccccc1","name":"phenol"}`),
		"Content-Type", "application/json")
	if ph.Code != 201 {
		t.Fatalf("phenol: %d %s", ph.Code, ph.Body)
	}
	phenol := decode[map[string]any](t, ph)["id"].(string)
	sub := f.postJob(t, map[string]any{"receptor": receptor, "ligands": []string{phenol}, "pocket": "box",
		"box":            map[string]any{"center": []float64{15.190, 53.903, 16.917}, "size": []float64{20, 20, 20}},
		"exhaustiveness": 1, "num_modes": 3, "seed": 42})
	if sub.Code != 202 {
		t.Fatalf("submit: %d %s", sub.Code, sub.Body)
	}
	id := decode[map[string]any](t, sub)["id"].(string)
	var job map[string]any
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		job = decode[map[string]any](t, f.do(t, "GET", "/v1/docking/jobs/"+id, "read", nil))
		if s := job["status"]; s != "queued" && s != "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %v", job["status"])
		}
	}
	if job["status"] != "succeeded" {
		t.Fatalf("job %v", job)
	}
	var results struct {
		Results []struct {
			Ligand string `json:"ligand"`
			Modes  []struct {
				Mode     int     `json:"mode"`
				Affinity float64 `json:"affinity_kcal"`
				RMSDLB   float64 `json:"rmsd_lb"`
				RMSDUB   float64 `json:"rmsd_ub"`
			} `json:"modes"`
		} `json:"results"`
	}
	if err := json.Unmarshal(f.do(t, "GET", "/v1/docking/jobs/"+id+"/results", "read", nil).Body.Bytes(), &results); err != nil ||
		len(results.Results) != 1 || len(results.Results[0].Modes) == 0 {
		t.Fatalf("results %+v (%v)", results, err)
	}

	data := graphqlData(t, f, `query($j: ID!) { dockingJob(id: $j) { id status pocketMethod exhaustiveness numModes
	  energyRange seed finishedLigands failedLigands totalLigands bestAffinity createdAt startedAt endedAt
	  receptor { id name } ligands { nodes { id name } }
	  poses(first: 20) { nodes { mode bindingAffinity rmsdLowerBound rmsdUpperBound ligand { id } job { id } } } } }`,
		map[string]any{"j": id})
	g := data["dockingJob"].(map[string]any)
	params := job["parameters"].(map[string]any)
	parseTime := func(v any) any {
		if v == nil {
			return nil
		}
		tm, err := time.Parse(time.RFC3339Nano, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for field, want := range map[string]any{"id": id, "status": job["status"],
		"pocketMethod": job["pocket"].(map[string]any)["method"], "exhaustiveness": params["exhaustiveness"],
		"numModes": params["num_modes"], "energyRange": params["energy_range"], "seed": params["seed"],
		"finishedLigands": job["finished_ligands"], "failedLigands": job["failed_ligands"],
		"totalLigands": job["total_ligands"], "bestAffinity": job["best_affinity_kcal"],
		"createdAt": parseTime(job["created_at"]), "startedAt": parseTime(job["started_at"]),
		"endedAt": parseTime(job["finished_at"])} {
		sameField(t, "DockingJob."+field, g[field], want)
	}
	if g["exhaustiveness"] != 1.0 || g["numModes"] != 3.0 || g["seed"] != 42.0 || g["pocketMethod"] != "box" {
		t.Errorf("parameters sent do not come back: %v", g)
	}
	if r := g["receptor"].(map[string]any); r["id"] != receptor {
		t.Errorf("DockingJob.receptor %v", r)
	}
	if l := g["ligands"].(map[string]any)["nodes"].([]any); len(l) != 1 || l[0].(map[string]any)["id"] != phenol ||
		l[0].(map[string]any)["name"] != "phenol" {
		t.Errorf("DockingJob.ligands %v", l)
	}
	poses := g["poses"].(map[string]any)["nodes"].([]any)
	modes := results.Results[0].Modes
	if len(poses) != len(modes) {
		t.Fatalf("%d poses through GraphQL, %d modes through REST", len(poses), len(modes))
	}
	for i, p := range poses {
		p := p.(map[string]any)
		m := modes[i] // both most favourable first
		for field, want := range map[string]any{"mode": m.Mode, "bindingAffinity": m.Affinity,
			"rmsdLowerBound": m.RMSDLB, "rmsdUpperBound": m.RMSDUB} {
			sameField(t, fmt.Sprintf("pose %d.%s", i, field), p[field], want)
		}
		if p["ligand"].(map[string]any)["id"] != phenol || p["job"].(map[string]any)["id"] != id {
			t.Errorf("pose %d links %v", i, p)
		}
	}
}

// Config.GraphQL reaches the executor, and the OpenAPI description states
// the limits in force.
func TestGraphQLLimitsConfigured(t *testing.T) {
	st, _ := loadQueryGraph(t)
	f := newFixture(t, func(c *Config) {
		c.Graph = st
		c.GraphQL = GraphQLLimits{MaxTokens: 20, MaxSelections: 5}
	})
	post := func(q string) *httptest.ResponseRecorder {
		b, _ := json.Marshal(map[string]any{"query": q})
		return f.do(t, "POST", "/v1/graphql", "read", strings.NewReader(string(b)), "Content-Type", "application/json")
	}
	if rec := post(`{ receptors { nodes { id iri } } }`); rec.Code != 200 {
		t.Fatalf("within the limits: %d %s", rec.Code, rec.Body)
	}
	if p := problemOf(t, post(`{ receptors { nodes { id iri } pageInfo { hasNextPage } } }`), 400, "query_too_complex"); !strings.Contains(p.Detail, "more than 5 selections") {
		t.Errorf("%s", p.Detail)
	}
	if p := problemOf(t, post(`{ receptors(first: 1, after: null) { nodes { id } pageInfo { hasNextPage } } }`), 400, "query_too_complex"); !strings.Contains(p.Detail, "more than 20 tokens") {
		t.Errorf("%s", p.Detail)
	}
	rec := f.do(t, "GET", "/v1/openapi.json", "read", nil)
	if !strings.Contains(rec.Body.String(), "tokens (20, while parsing), selections with fragments expanded (5)") {
		t.Errorf("OpenAPI description does not state the limits")
	}
	m := f.do(t, "GET", "/metrics", "read", nil).Body.String()
	for _, want := range []string{"molgraph_limit_graphql_max_tokens 20", "molgraph_limit_graphql_max_selections 5",
		"molgraph_limit_graphql_max_fields_per_name 100", "molgraph_limit_graphql_max_fragment_spreads 200", "molgraph_limit_json_max_depth 64"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
