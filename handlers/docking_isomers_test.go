package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
)

// rdkitPythonIsomers is the independent reference for stereoisomer
// enumeration: RDKit Python's EnumerateStereoisomers (defaults) of smiles
// as canonical isomeric SMILES, and ours canonicalized by RDKit Python,
// in the same order as ours.
func rdkitPythonIsomers(t *testing.T, smiles string, ours []string) (ref, canon []string) {
	t.Helper()
	script := `
import sys
from rdkit import Chem
from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers
print(" ".join(sorted(Chem.MolToSmiles(i) for i in EnumerateStereoisomers(Chem.MolFromSmiles(sys.argv[1])))))
print(" ".join(Chem.MolToSmiles(Chem.MolFromSmiles(s)) for s in sys.argv[2:]))
`
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", script, smiles}, ours...)...).Output()
	if err != nil {
		t.Skipf("needs Debian python3-rdkit: %v", err)
	}
	l := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(l) != 2 {
		t.Fatalf("python output %q", out)
	}
	return strings.Fields(l[0]), strings.Fields(l[1])
}

// obabelInChIKey is the standard InChIKey of smiles by Open Babel (its own
// InChI library: Debian's RDKit Python has no InChI).
func obabelInChIKey(t *testing.T, smiles string) string {
	t.Helper()
	out, err := exec.Command("obabel", "-:"+smiles, "-oinchikey").Output()
	if err != nil {
		t.Skipf("needs obabel: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestDockingStereoisomers: racemic ibuprofen, a molecule with an
// unspecified double bond (crotonic acid) and one with two unspecified
// stereocentres (threonine), all registered from SMILES without 3D, dock
// through the API as each of their stereoisomers (2, 2 and 4, the set RDKit
// Python enumerates); each result names the isomer of its best pose, whose
// InChIKey has a stereo layer and is Open Babel's key of that isomer, and
// whose pose file is that isomer. L-alanine (specified) is docked as
// itself. The isomer is in the graph (SPARQL) as in the JSON.
func TestDockingStereoisomers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Vina")
	}
	f, receptor, _ := newDockingFixture(t)
	cases := []struct {
		smiles string
		n      int
	}{
		{"CC(C)Cc1ccc(C(C)C(=O)O)cc1", 2}, // racemic ibuprofen
		{"CC=CC(=O)O", 2},                 // crotonic acid, double bond unspecified
		{"CC(O)C(N)C(=O)O", 4},            // threonine, two centres unspecified
		{"C[C@H](N)C(=O)O", 1},            // L-alanine, specified
	}
	ids := map[string]int{}
	var ligands []string
	for i, c := range cases {
		rec := f.do(t, http.MethodPost, "/v1/molecules", "write", strings.NewReader(`{"format":"smiles","content":"`+c.smiles+`"}`), "Content-Type", "application/json")
		if rec.Code != http.StatusCreated {
			t.Fatalf("%s: %d %s", c.smiles, rec.Code, rec.Body)
		}
		m := decode[map[string]any](t, rec)
		if m["has_3d"] != false {
			t.Fatalf("%s registered with 3D", c.smiles)
		}
		ids[m["id"].(string)] = i
		ligands = append(ligands, m["id"].(string))
	}
	rec := f.postJob(t, map[string]any{"receptor": receptor, "ligands": ligands, "pocket": "box",
		"box":            map[string]any{"center": []float64{15.190, 53.903, 16.917}, "size": []float64{14, 14, 14}},
		"exhaustiveness": 1, "num_modes": 3, "seed": 42,
		"ligand_ph": nil}) // docked as registered: the isomers are RDKit Python's of the registered SMILES
	if rec.Code != http.StatusAccepted {
		t.Fatalf("submit: %d %s", rec.Code, rec.Body)
	}
	id := decode[map[string]any](t, rec)["id"].(string)
	var job map[string]any
	deadline := time.Now().Add(15 * time.Minute)
	for {
		job = decode[map[string]any](t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id, "read", nil))
		if s := job["status"]; s == "succeeded" || s == "failed" || s == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %v after 15 minutes", job["status"])
		}
		time.Sleep(500 * time.Millisecond)
	}
	if job["status"] != "succeeded" || job["finished_ligands"].(float64) != float64(len(cases)) {
		t.Fatalf("job: %v", job)
	}
	if ph, ok := job["parameters"].(map[string]any)["ligand_ph"]; !ok || ph != nil {
		t.Errorf("parameters.ligand_ph %v, want null (docked as registered)", ph)
	}
	type isomer struct {
		SMILES   string   `json:"smiles"`
		InChIKey string   `json:"inchi_key"`
		Affinity *float64 `json:"affinity_kcal"`
		Error    string   `json:"error"`
	}
	var results struct {
		Results []struct {
			Ligand   string   `json:"ligand"`
			Affinity float64  `json:"affinity_kcal"`
			PoseURL  string   `json:"pose_url"`
			Isomer   *isomer  `json:"isomer"`
			Isomers  []isomer `json:"isomers"`
			Total    int      `json:"stereoisomers_total"`
		} `json:"results"`
	}
	body := f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/results", "read", nil)
	if err := json.Unmarshal(body.Body.Bytes(), &results); err != nil || len(results.Results) != len(cases) {
		t.Fatalf("results: %v %s", err, body.Body)
	}
	pool, err := chem.NewPool(1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, r := range results.Results {
		c := cases[ids[r.Ligand]]
		if r.Isomer == nil || len(r.Isomers) != c.n || r.Total != c.n {
			t.Errorf("%s: isomer %+v, %d isomers (total %d), want %d", c.smiles, r.Isomer, len(r.Isomers), r.Total, c.n)
			continue
		}
		var ours []string
		best := 0.0
		for k, iso := range r.Isomers {
			ours = append(ours, iso.SMILES)
			if iso.Affinity == nil || iso.Error != "" {
				t.Errorf("%s: isomer %s not docked: %s", c.smiles, iso.SMILES, iso.Error)
				continue
			}
			if k == 0 || *iso.Affinity < best {
				best = *iso.Affinity
			}
		}
		if r.Isomer.Affinity == nil || *r.Isomer.Affinity != r.Affinity || r.Affinity != best {
			t.Errorf("%s: result %v kcal/mol, its isomer %+v, best of the isomers %v", c.smiles, r.Affinity, r.Isomer, best)
		}
		ref, canon := rdkitPythonIsomers(t, c.smiles, append(ours, r.Isomer.SMILES))
		named := canon[len(canon)-1]
		canon = canon[:len(canon)-1]
		sorted := slices.Clone(canon)
		slices.Sort(sorted)
		if c.n > 1 && !slices.Equal(sorted, ref) {
			t.Errorf("%s: isomers docked %v, RDKit Python enumerates %v", c.smiles, sorted, ref)
		}
		if c.n == 1 && canon[0] != ref[0] {
			t.Errorf("%s: docked as %s, want itself (%s)", c.smiles, canon[0], ref[0])
		}
		if !slices.Contains(ref, named) {
			t.Errorf("%s: result names %s, not one of %v", c.smiles, named, ref)
		}
		key := obabelInChIKey(t, r.Isomer.SMILES)
		if r.Isomer.InChIKey != key || strings.Split(key, "-")[1] == "UHFFFAOYSA" {
			t.Errorf("%s: isomer %s has InChIKey %s, Open Babel %s (needs a stereo layer)", c.smiles, r.Isomer.SMILES, r.Isomer.InChIKey, key)
		}
		// The pose file is the isomer.
		pose := f.do(t, http.MethodGet, r.PoseURL, "read", nil)
		got, err := pool.Process(context.Background(), chem.Input{Format: chem.FormatMolfile, Content: pose.Body.String()})
		if err != nil || got.InChIKey != r.Isomer.InChIKey {
			t.Errorf("%s: pose file is %v (%v), the isomer %s", c.smiles, got, err, r.Isomer.InChIKey)
		}
		// The graph says the same.
		q := `PREFIX mg: <https://w3id.org/molgraph/vocab#>
SELECT ?key ?smiles WHERE { ?pose mg:mode 1 ; mg:ligand <http://example.org/id/molecule/` + r.Ligand + `> ;
  mg:stereoisomer ?iso . ?iso mg:isomerInChIKey ?key ; mg:isomericSmiles ?smiles .
  ?pose <http://www.w3.org/ns/prov#wasGeneratedBy> <http://example.org/id/docking-job/` + id + `> }`
		sq := f.do(t, http.MethodGet, "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil, "Accept", "application/sparql-results+json")
		var sr struct {
			Results struct {
				Bindings []map[string]struct{ Value string } `json:"bindings"`
			} `json:"results"`
		}
		if err := json.Unmarshal(sq.Body.Bytes(), &sr); err != nil || len(sr.Results.Bindings) != 1 ||
			sr.Results.Bindings[0]["key"].Value != r.Isomer.InChIKey || sr.Results.Bindings[0]["smiles"].Value != r.Isomer.SMILES {
			t.Errorf("%s: SPARQL %d %s", c.smiles, sq.Code, sq.Body)
		}
		t.Logf("%s: %d isomers, best %s (%s) %.3f kcal/mol", c.smiles, len(r.Isomers), r.Isomer.SMILES, r.Isomer.InChIKey, r.Affinity)
	}
}

// TestStructurePDBQTIsomers: GET .../structure?format=pdbqt&ph=7.4&isomer=N
// hands out every form a docking job at ligand_ph 7.4 docks for racemic
// ibuprofen registered from SMILES (both enantiomers, as carboxylates):
// X-Stereoisomers is the result's isomer count, isomer N is the result's
// isomers[N-1] (its REMARK SMILES), and raw vina on each file (the same
// box, seed and settings) gives that isomer's affinity, and the modes of
// the best one are the job's. Bad isomer numbers are 400 naming isomer.
func TestStructurePDBQTIsomers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Vina")
	}
	f, receptor, _ := newDockingFixture(t)
	rec := f.do(t, http.MethodPost, "/v1/molecules", "write", strings.NewReader(`{"format":"smiles","content":"CC(C)Cc1ccc(C(C)C(=O)O)cc1"}`), "Content-Type", "application/json")
	if rec.Code != http.StatusCreated {
		t.Fatalf("register: %d %s", rec.Code, rec.Body)
	}
	mol := decode[map[string]any](t, rec)["id"].(string)
	rec = f.postJob(t, map[string]any{"receptor": receptor, "ligands": []string{mol}, "pocket": "box",
		"box":            map[string]any{"center": []float64{15.190, 53.903, 16.917}, "size": []float64{14, 14, 14}},
		"exhaustiveness": 1, "num_modes": 3, "seed": 42}) // ligand_ph: the default, 7.4
	if rec.Code != http.StatusAccepted {
		t.Fatalf("submit: %d %s", rec.Code, rec.Body)
	}
	id := decode[map[string]any](t, rec)["id"].(string)
	deadline := time.Now().Add(10 * time.Minute)
	for {
		job := decode[map[string]any](t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id, "read", nil))
		if s := job["status"]; s == "succeeded" {
			break
		} else if s == "failed" || s == "cancelled" || time.Now().After(deadline) {
			t.Fatalf("job: %v", job)
		}
		time.Sleep(500 * time.Millisecond)
	}
	var results struct {
		Results []struct {
			Modes []struct {
				Affinity float64 `json:"affinity_kcal"`
			} `json:"modes"`
			Isomer  *dockingIsomer  `json:"isomer"`
			Isomers []dockingIsomer `json:"isomers"`
		} `json:"results"`
	}
	body := f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/results", "read", nil)
	if err := json.Unmarshal(body.Body.Bytes(), &results); err != nil || len(results.Results) != 1 || len(results.Results[0].Isomers) != 2 {
		t.Fatalf("results: %v %s", err, body.Body)
	}
	res := results.Results[0]
	recPDBQT := f.do(t, http.MethodGet, "/v1/receptors/"+receptor+"/structure?format=pdbqt", "read", nil).Body.Bytes()
	var best []docking.Mode
	for n, iso := range res.Isomers {
		r := f.do(t, http.MethodGet, "/v1/molecules/"+mol+"/structure?format=pdbqt&ph=7.4&isomer="+strconv.Itoa(n+1), "read", nil)
		if r.Code != http.StatusOK || r.Header().Get("X-Stereoisomers") != "2" {
			t.Fatalf("isomer %d: %d, X-Stereoisomers %q: %s", n+1, r.Code, r.Header().Get("X-Stereoisomers"), r.Body)
		}
		lig := r.Body.Bytes()
		if !strings.HasPrefix(string(lig), "REMARK SMILES "+iso.SMILES+"\n") || !strings.Contains(iso.SMILES, "[O-]") {
			t.Errorf("isomer %d is %q, the job docked %s (a carboxylate at pH 7.4)", n+1, strings.SplitN(string(lig), "\n", 2)[0], iso.SMILES)
		}
		modes := rawModes(t, recPDBQT, lig, "vina")
		if iso.Affinity == nil || *iso.Affinity != modes[0].Affinity {
			t.Errorf("isomer %d (%s): job %v kcal/mol, raw vina %v", n+1, iso.SMILES, iso.Affinity, modes[0].Affinity)
		}
		if best == nil || modes[0].Affinity < best[0].Affinity {
			best = modes
		}
		t.Logf("isomer %d %s: job %v, raw vina %v kcal/mol", n+1, iso.SMILES, *iso.Affinity, modes[0].Affinity)
	}
	if len(best) != len(res.Modes) {
		t.Fatalf("job %d modes, raw vina's best isomer %d", len(res.Modes), len(best))
	}
	for k := range best {
		if best[k].Affinity != res.Modes[k].Affinity {
			t.Errorf("mode %d: job %v, raw vina's best isomer %v", k+1, res.Modes[k].Affinity, best[k].Affinity)
		}
	}
	for _, bad := range []string{"0", "3", "9", "x", "1.0", " 1"} {
		p := problemOf(t, f.do(t, http.MethodGet, "/v1/molecules/"+mol+"/structure?format=pdbqt&ph=7.4&isomer="+url.QueryEscape(bad), "read", nil), http.StatusBadRequest, "invalid_request")
		if len(p.Errors) != 1 || p.Errors[0].Field != "isomer" {
			t.Errorf("isomer=%q: %+v", bad, p)
		}
	}
}
