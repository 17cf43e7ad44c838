package handlers

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dockingResultsJSON is what the tests read of GET
// /v1/docking/jobs/{id}/results.
type dockingResultsJSON struct {
	Results []struct {
		Ligand string `json:"ligand"`
		Modes  []struct {
			Mode   int   `json:"mode"`
			Valid  *bool `json:"valid"`
			Checks []struct {
				Name string `json:"name"`
				Pass *bool  `json:"pass"`
			} `json:"checks"`
			Interactions []struct {
				Type    string `json:"type"`
				Residue struct {
					Chain  string `json:"chain"`
					Number int    `json:"number"`
					Name   string `json:"name"`
				} `json:"residue"`
			} `json:"interactions"`
			Fingerprint []string `json:"fingerprint"`
		} `json:"modes"`
	} `json:"results"`
}

// dockingResults reads the results of job id as JSON; body is the raw
// response for messages.
func dockingResults(t *testing.T, f *fixture, id string) (results dockingResultsJSON, body string) {
	t.Helper()
	res := f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/results", "read", nil)
	if err := json.Unmarshal(res.Body.Bytes(), &results); err != nil {
		t.Fatalf("results: %v %s", err, res.Body)
	}
	return results, res.Body.String()
}

// sparqlBindings runs SELECT query q through GET /v1/sparql and returns
// its bindings.
func sparqlBindings(t *testing.T, f *fixture, q string) []map[string]struct{ Value string } {
	t.Helper()
	rec := f.do(t, http.MethodGet, "/v1/sparql?query="+url.QueryEscape(q), "read", nil, "Accept", "application/sparql-results+json")
	if rec.Code != http.StatusOK {
		t.Fatalf("sparql: %d %s", rec.Code, rec.Body)
	}
	var sr struct {
		Results struct {
			Bindings []map[string]struct{ Value string } `json:"bindings"`
		} `json:"results"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &sr); err != nil {
		t.Fatal(err)
	}
	return sr.Results.Bindings
}

// poseKey is "ligand/mode" of a binding of ?ligand (the molecule's IRI)
// and ?mode, as the tests key the JSON results' modes.
func poseKey(b map[string]struct{ Value string }) string {
	lig := b["ligand"].Value
	return lig[strings.LastIndexByte(lig, '/')+1:] + "/" + b["mode"].Value
}

// hbondPoses asks SPARQL for the poses ("ligand/mode", sorted) of docking
// job iri that hydrogen-bond the residue named by chain, number and name,
// as a user would, and only the valid ones (mg:poseValid true) if
// validOnly.
func hbondPoses(t *testing.T, f *fixture, job, chain string, number int, name string, validOnly bool) []string {
	t.Helper()
	valid := ""
	if validOnly {
		valid = " mg:poseValid true ;"
	}
	var got []string
	for _, b := range sparqlBindings(t, f, `PREFIX mg: <https://w3id.org/molgraph/vocab#>
PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT DISTINCT ?ligand ?mode WHERE {
  ?pose a mg:DockingPose ; prov:wasGeneratedBy <`+job+`> ;`+valid+` mg:ligand ?ligand ; mg:mode ?mode ;
        mg:hydrogenBondWith ?res .
  ?res mg:chain "`+chain+`" ; mg:residueNumber `+strconv.Itoa(number)+` ; mg:residueName "`+name+`" .
}`) {
		got = append(got, poseKey(b))
	}
	sort.Strings(got)
	return got
}

// waitDockingJob polls docking job id until it has finished, for at most
// limit, and fails the test unless it succeeded.
func waitDockingJob(t *testing.T, f *fixture, id string, limit time.Duration) {
	t.Helper()
	var job map[string]any
	for deadline := time.Now().Add(limit); ; time.Sleep(500 * time.Millisecond) {
		job = decode[map[string]any](t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id, "read", nil))
		if s := job["status"]; s != "queued" && s != "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %v after %v", job["status"], limit)
		}
	}
	if job["status"] != "succeeded" {
		t.Fatalf("job: %v", job)
	}
}

// checkHBondSPARQL: for job id (finished), the poses that SPARQL says
// hydrogen-bond a residue are exactly the modes whose JSON results list
// an hbond with that residue, for every residue the JSON names in an
// hbond (there must be at least one: imatinib's poses in 1iep's pocket
// make several). The residue is named in the query by chain, number and
// name, as a user would.
func checkHBondSPARQL(t *testing.T, f *fixture, id string) {
	t.Helper()
	results, body := dockingResults(t, f, id)
	type resKey struct {
		chain  string
		number int
		name   string
	}
	want := map[resKey][]string{} // residue -> "ligand/mode" that H-bond it
	for _, r := range results.Results {
		for _, m := range r.Modes {
			if len(m.Interactions) != len(m.Fingerprint) {
				t.Errorf("%s mode %d: %d interactions, %d fingerprint entries", r.Ligand, m.Mode, len(m.Interactions), len(m.Fingerprint))
			}
			for _, it := range m.Interactions {
				if it.Type == "hbond" {
					k := resKey{it.Residue.Chain, it.Residue.Number, it.Residue.Name}
					want[k] = append(want[k], r.Ligand+"/"+strconv.Itoa(m.Mode))
				}
			}
		}
	}
	if len(want) == 0 {
		t.Fatalf("no pose of job %s has a hydrogen bond: %s", id, body)
	}
	job := "http://example.org/id/docking-job/" + id
	// The README's frequency query: ligands per (residue, type) over the
	// best modes, against the same count from the JSON.
	pred := map[string]string{"hbond": "hydrogenBondWith", "salt_bridge": "saltBridgeWith", "pi_stacking": "piStackingWith",
		"pi_cation": "piCationWith", "hydrophobic": "hydrophobicContactWith", "halogen_bond": "halogenBondWith", "metal": "metalContactWith"}
	freqJSON := map[string]int{}
	for _, r := range results.Results {
		seen := map[string]bool{}
		for _, m := range r.Modes {
			if m.Mode != 1 {
				continue
			}
			for _, it := range m.Interactions {
				k := it.Residue.Name + " " + strconv.Itoa(it.Residue.Number) + " " + pred[it.Type]
				if !seen[k] {
					seen[k] = true
					freqJSON[k]++
				}
			}
		}
	}
	freqSPARQL := map[string]int{}
	for _, b := range sparqlBindings(t, f, `PREFIX mg: <https://w3id.org/molgraph/vocab#>
PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT ?name ?number ?type (COUNT(DISTINCT ?ligand) AS ?ligands) WHERE {
  VALUES ?type { mg:hydrogenBondWith mg:saltBridgeWith mg:piStackingWith mg:piCationWith
                 mg:hydrophobicContactWith mg:halogenBondWith mg:metalContactWith }
  ?pose a mg:DockingPose ; prov:wasGeneratedBy <`+job+`> ; mg:mode 1 ; mg:ligand ?ligand ;
        ?type ?res .
  ?res mg:residueName ?name ; mg:residueNumber ?number .
} GROUP BY ?name ?number ?type ORDER BY DESC(?ligands)`) {
		typ := b["type"].Value
		n, err := strconv.Atoi(b["ligands"].Value)
		if err != nil {
			t.Fatalf("count %q", b["ligands"].Value)
		}
		freqSPARQL[b["name"].Value+" "+b["number"].Value+" "+typ[strings.LastIndexByte(typ, '#')+1:]] = n
	}
	if len(freqJSON) == 0 || !maps.Equal(freqJSON, freqSPARQL) {
		t.Errorf("interaction frequency: SPARQL %v, JSON %v", freqSPARQL, freqJSON)
	}
	for k, poses := range want {
		got := hbondPoses(t, f, job, k.chain, k.number, k.name, false)
		sort.Strings(poses)
		if !slices.Equal(got, slices.Compact(poses)) {
			t.Errorf("H-bond with %s %d %s: SPARQL %v, JSON %v", k.chain, k.number, k.name, got, poses)
		} else {
			t.Logf("H-bond with %s %s%d: %v (SPARQL = JSON)", k.chain, k.name, k.number, got)
		}
	}
}

// TestDockingInteractionsSPARQL docks imatinib into 1iep (Meeko receptor,
// the documented box, exhaustiveness 1 to stay quick) and checks the
// interactions end to end: the results JSON lists them per mode, the pose
// SDF carries them atom by atom in its interactions tag, and SPARQL over
// the job returns the poses that hydrogen-bond each named residue exactly
// as the JSON says (checkHBondSPARQL), and each pose's mg:poseValid and
// failed checks as the JSON says (checkPoseValiditySPARQL).
func TestDockingInteractionsSPARQL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Vina")
	}
	f, receptor, imatinib := newDockingFixture(t)
	sub := f.postJob(t, map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "pocket": "box",
		"box":            map[string]any{"center": []float64{15.190, 53.903, 16.917}, "size": []float64{20, 20, 20}},
		"exhaustiveness": 1, "num_modes": 9, "seed": 42})
	if sub.Code != http.StatusAccepted {
		t.Fatalf("submit: %d %s", sub.Code, sub.Body)
	}
	id := decode[map[string]any](t, sub)["id"].(string)
	waitDockingJob(t, f, id, 20*time.Minute)
	checkHBondSPARQL(t, f, id)
	checkPoseValiditySPARQL(t, f, id)
	pose := f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/poses/"+imatinib+"/1.sdf", "read", nil)
	body := pose.Body.String()
	i := strings.Index(body, "> <interactions>\n")
	if pose.Code != http.StatusOK || i < 0 {
		t.Fatalf("pose 1: %d, no interactions tag", pose.Code)
	}
	line, _, _ := strings.Cut(body[i+len("> <interactions>\n"):], "\n")
	var its []struct {
		Type          string `json:"type"`
		LigandAtoms   []int  `json:"ligand_atoms"`
		ReceptorAtoms []struct {
			Serial int    `json:"serial"`
			Name   string `json:"name"`
		} `json:"receptor_atoms"`
		Distance float64 `json:"distance"`
	}
	if err := json.Unmarshal([]byte(line), &its); err != nil || len(its) == 0 {
		t.Fatalf("interactions tag %q: %v", line, err)
	}
	for _, it := range its {
		if len(it.LigandAtoms) == 0 || len(it.ReceptorAtoms) == 0 || it.ReceptorAtoms[0].Name == "" || it.Distance <= 0 {
			t.Errorf("interaction without atoms: %+v", it)
		}
	}
}

// poseCheckPredicates names each pose check's mg:<check>Passed property as
// the README spells it for users (written out here rather than taken from
// ontology.PoseCheckTerms, so that a change of the vocabulary shows).
var poseCheckPredicates = map[string]string{
	"bond_lengths": "bondLengthsPassed", "bond_angles": "bondAnglesPassed", "internal_clash": "internalClashPassed",
	"aromatic_ring_flatness": "aromaticRingFlatnessPassed", "double_bond_flatness": "doubleBondFlatnessPassed",
	"stereo_inchikey": "stereoInchikeyPassed", "protein_clash": "proteinClashPassed", "energy_ratio": "energyRatioPassed",
}

// checkPoseValiditySPARQL: for job id (finished), SPARQL over the graph
// says of every pose what the JSON results say: mg:poseValid (absent when
// the JSON's valid is null), the checks that failed (mg:<check>Passed
// false, per ligand and mode), and the README's query for valid poses
// that hydrogen-bond a residue returns the modes whose JSON has valid true
// and an hbond with it. It returns the number of valid poses and of
// failed checks in the JSON, so that a caller can ask for both kinds.
func checkPoseValiditySPARQL(t *testing.T, f *fixture, id string) (valid, failed int) {
	t.Helper()
	results, body := dockingResults(t, f, id)
	validJSON := map[string]string{}    // "ligand/mode" -> "true", "false" or "" (not checked)
	failedJSON := map[string][]string{} // "ligand/mode" -> failed checks' predicates, sorted
	type resKey struct {
		chain  string
		number int
		name   string
	}
	validHBond := map[resKey][]string{} // residue -> valid poses that H-bond it
	for _, r := range results.Results {
		for _, m := range r.Modes {
			k := r.Ligand + "/" + strconv.Itoa(m.Mode)
			validJSON[k] = ""
			if m.Valid != nil {
				validJSON[k] = strconv.FormatBool(*m.Valid)
				if *m.Valid {
					valid++
				}
			}
			for _, c := range m.Checks {
				p, ok := poseCheckPredicates[c.Name]
				if !ok {
					t.Fatalf("%s: unknown check %q", k, c.Name)
				}
				if c.Pass != nil && !*c.Pass {
					failedJSON[k] = append(failedJSON[k], p)
					failed++
				}
			}
			sort.Strings(failedJSON[k])
			for _, it := range m.Interactions {
				if it.Type == "hbond" && m.Valid != nil && *m.Valid {
					rk := resKey{it.Residue.Chain, it.Residue.Number, it.Residue.Name}
					if !slices.Contains(validHBond[rk], k) {
						validHBond[rk] = append(validHBond[rk], k)
					}
				}
			}
		}
	}
	if len(validJSON) == 0 {
		t.Fatalf("job %s has no poses: %s", id, body)
	}
	job := "http://example.org/id/docking-job/" + id
	const prefixes = "PREFIX mg: <https://w3id.org/molgraph/vocab#>\nPREFIX prov: <http://www.w3.org/ns/prov#>\n"
	validSPARQL := map[string]string{}
	for _, b := range sparqlBindings(t, f, prefixes+`SELECT ?ligand ?mode ?valid WHERE {
  ?pose a mg:DockingPose ; prov:wasGeneratedBy <`+job+`> ; mg:ligand ?ligand ; mg:mode ?mode .
  OPTIONAL { ?pose mg:poseValid ?valid }
}`) {
		k := poseKey(b)
		if _, dup := validSPARQL[k]; dup {
			t.Errorf("SPARQL: pose %s twice (two mg:poseValid values?)", k)
		}
		validSPARQL[k] = b["valid"].Value
	}
	if !maps.Equal(validSPARQL, validJSON) {
		t.Errorf("mg:poseValid: SPARQL %v, JSON %v", validSPARQL, validJSON)
	}
	var checks []string
	for _, p := range poseCheckPredicates {
		checks = append(checks, "mg:"+p)
	}
	sort.Strings(checks)
	failedSPARQL := map[string][]string{}
	for _, b := range sparqlBindings(t, f, prefixes+`SELECT ?ligand ?mode ?check WHERE {
  VALUES ?check { `+strings.Join(checks, " ")+` }
  ?pose a mg:DockingPose ; prov:wasGeneratedBy <`+job+`> ; mg:ligand ?ligand ; mg:mode ?mode ; ?check false .
} ORDER BY ?ligand ?mode ?check`) {
		c := b["check"].Value
		k := poseKey(b)
		failedSPARQL[k] = append(failedSPARQL[k], c[strings.LastIndexByte(c, '#')+1:])
	}
	for k := range failedJSON {
		if len(failedJSON[k]) == 0 {
			delete(failedJSON, k)
		}
	}
	if !maps.EqualFunc(failedSPARQL, failedJSON, slices.Equal) {
		t.Errorf("failed checks: SPARQL %v, JSON %v", failedSPARQL, failedJSON)
	}
	for rk, want := range validHBond {
		got := hbondPoses(t, f, job, rk.chain, rk.number, rk.name, true)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("valid poses H-bonding %s %s%d: SPARQL %v, JSON %v", rk.chain, rk.name, rk.number, got, want)
		}
	}
	t.Logf("pose validity: %d poses, %d valid, %d failed checks (SPARQL = JSON): %v", len(validJSON), valid, failed, failedJSON)
	return valid, failed
}

// TestDockingPoseValiditySPARQL: SPARQL over a docking job gives each
// pose's mg:poseValid and failed checks as the JSON results do
// (checkPoseValiditySPARQL), on two jobs of phenol into 1iep (Meeko
// receptor, exhaustiveness 1): one in the documented box of the ATP
// pocket (valid poses), one in a 4 Å box centred on a buried atom (CB of
// Trp 423, 232 heavy atoms within 10 Å), where every pose lies inside the
// protein and fails protein_clash: a pose in the box has atoms within
// about 2 Å of receptor heavy atoms, ratio ~0.6 against
// chem.PoseProteinRatio 0.75.
func TestDockingPoseValiditySPARQL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Vina")
	}
	f, receptor, _ := newDockingFixture(t)
	ph := f.do(t, "POST", "/v1/molecules", "write", strings.NewReader(`{"format":"smiles","content":"Oc1ccccc1","name":"phenol"}`),
		"Content-Type", "application/json")
	if ph.Code != http.StatusCreated {
		t.Fatalf("phenol: %d %s", ph.Code, ph.Body)
	}
	phenol := decode[map[string]any](t, ph)["id"].(string)
	run := func(center, size []float64) string {
		t.Helper()
		sub := f.postJob(t, map[string]any{"receptor": receptor, "ligands": []string{phenol}, "pocket": "box",
			"box": map[string]any{"center": center, "size": size}, "exhaustiveness": 1, "seed": 42})
		if sub.Code != http.StatusAccepted {
			t.Fatalf("submit: %d %s", sub.Code, sub.Body)
		}
		id := decode[map[string]any](t, sub)["id"].(string)
		waitDockingJob(t, f, id, 10*time.Minute)
		return id
	}
	if valid, _ := checkPoseValiditySPARQL(t, f, run([]float64{15.190, 53.903, 16.917}, []float64{20, 20, 20})); valid == 0 {
		t.Error("pocket: no valid pose")
	}
	if _, failed := checkPoseValiditySPARQL(t, f, run([]float64{11.777, 51.111, 36.054}, []float64{4, 4, 4})); failed == 0 {
		t.Error("buried box: no failed check")
	}
}
