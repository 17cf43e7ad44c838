package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	jobsdocking "github.com/molgraph/molgraph/jobs/docking"
)

// newDockingFixture is a server with a real chem pool, Vina, a memory graph
// and one runner for batch and docking jobs, holding the Vina example's
// 1iep receptor and imatinib (the crystal ligand, with its 3D coordinates).
func newDockingFixture(t *testing.T) (f *fixture, receptor, imatinib string) {
	t.Helper()
	if _, err := exec.LookPath("vina"); err != nil {
		t.Skip("vina not installed (apt autodock-vina)")
	}
	pool, err := chem.NewPool(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const base = "http://example.org/"
	reg := batch.NewRegistry(st, pool, base, nil)
	vina, err := docking.NewVina(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	btask := batch.NewTask(reg, batch.TaskOptions{})
	dtask := jobsdocking.NewTask(reg, vina, jobsdocking.Options{})
	runner, err := jobs.NewRunner(st, base, []jobs.Task{btask, dtask}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Close() })
	f = newFixture(t, func(c *Config) {
		c.Graph = st
		c.Molecules = MoleculeServices{Registry: reg, Jobs: runner, Batch: btask}
		c.Docking = DockingServices{Task: dtask, Jobs: runner}
	})
	rec := f.postReceptor(t, "1iep_receptor.pdbqt", dockingCorpus(t, "vina-examples/1iep/1iep_receptor.pdbqt"))
	if rec.Code != http.StatusCreated {
		t.Fatalf("receptor: %d %s", rec.Code, rec.Body)
	}
	receptor = decodeReceptor(t, rec).ID
	body, _ := json.Marshal(map[string]any{"format": "sdf", "content": string(dockingCorpus(t, "vina-examples/1iep/1iep_ligand.sdf")), "name": "imatinib"})
	mol := f.do(t, http.MethodPost, "/v1/molecules", "write", strings.NewReader(string(body)), "Content-Type", "application/json")
	if mol.Code != http.StatusCreated {
		t.Fatalf("imatinib: %d %s", mol.Code, mol.Body)
	}
	imatinib = decode[map[string]any](t, mol)["id"].(string)
	return f, receptor, imatinib
}

func (f *fixture) postJob(t *testing.T, body map[string]any) *httptest.ResponseRecorder {
	t.Helper()
	b, _ := json.Marshal(body)
	return f.do(t, http.MethodPost, "/v1/docking/jobs", "write", strings.NewReader(string(b)), "Content-Type", "application/json")
}

func TestDockingJobErrors(t *testing.T) {
	f, receptor, imatinib := newDockingFixture(t)
	cases := []struct {
		name   string
		body   map[string]any
		status int
		code   string
		field  string
	}{
		{"no receptor", map[string]any{"ligands": []string{imatinib}}, 400, "invalid_request", "receptor"},
		{"no ligands", map[string]any{"receptor": receptor}, 400, "invalid_request", "ligands"},
		{"exhaustiveness too high", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "exhaustiveness": 65}, 400, "invalid_request", "exhaustiveness"},
		{"num_modes too high", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "num_modes": 21}, 400, "invalid_request", "num_modes"},
		{"energy_range too high", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "energy_range": 10.5}, 400, "invalid_request", "energy_range"},
		{"exhaustiveness zero", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "exhaustiveness": 0}, 400, "invalid_request", "exhaustiveness"},
		{"num_modes zero", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "num_modes": 0}, 400, "invalid_request", "num_modes"},
		{"energy_range zero", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "energy_range": 0}, 400, "invalid_request", "energy_range"},
		{"ligand_ph too high", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "ligand_ph": 14.5}, 400, "invalid_request", "ligand_ph"},
		{"ligand_ph negative", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "ligand_ph": -0.1}, 400, "invalid_request", "ligand_ph"},
		{"ligand_ph a string", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "ligand_ph": "7.4"}, 400, "invalid_request", ""},
		{"unknown field", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "exhaustivness": 8}, 400, "invalid_request", ""},
		{"unknown receptor", map[string]any{"receptor": "rec-0000", "ligands": []string{imatinib}}, 422, "unknown_receptor", ""},
		{"unknown ligand", map[string]any{"receptor": receptor, "ligands": []string{imatinib, "mol-nope"}}, 422, "unknown_ligands", ""},
		{"unknown pocket", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "pocket": "p99"}, 422, "unknown_pocket", ""},
		{"box without a box", map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "pocket": "box"}, 400, "invalid_request", ""},
		{"duplicate ligands", map[string]any{"receptor": receptor, "ligands": []string{imatinib, imatinib}}, 400, "invalid_request", ""},
		// 100,001 ids are a 3.4 MB body: past the default JSON limit
		// (1 MiB) but within the docking route's, so the answer is the
		// ligand cap, not 413.
		{"too many ligands", map[string]any{"receptor": receptor, "ligands": manyIDs(jobsdocking.MaxLigands + 1)}, 400, "invalid_request", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := f.postJob(t, c.body)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, c.status, rec.Body)
			}
			p := decode[Problem](t, rec)
			if c.code != "" && p.Code != c.code {
				t.Errorf("code %q, want %q", p.Code, c.code)
			}
			if c.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != c.field) {
				t.Errorf("errors %+v, want field %q", p.Errors, c.field)
			}
			if c.name == "unknown ligand" && !strings.Contains(p.Detail+rec.Body.String(), "mol-nope") {
				t.Errorf("the problem does not name the unknown ligand: %s", rec.Body)
			}
		})
	}
	problemOf(t, f.do(t, http.MethodGet, "/v1/docking/jobs/dock-nope", "read", nil), http.StatusNotFound, "not_found")
	problemOf(t, f.do(t, http.MethodGet, "/v1/docking/jobs/nope", "read", nil), http.StatusNotFound, "not_found")
}

// TestDockingJob1iep docks imatinib into 1iep with pocket "auto" (the
// best-ranked detected pocket) at exhaustiveness 8 through the API: 202,
// progress to succeeded, sorted results, an SDF pose that is the registered
// molecule and sits in the crystal site (symmetry-aware RMSD to the crystal
// ligand below 2 Å; poses outside the site are ~12 Å away).
func TestDockingJob1iep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Vina")
	}
	f, receptor, imatinib := newDockingFixture(t)
	// Dimethyl selenide: RDKit and the molecule service take it, but Se has
	// no AutoDock Vina atom type, so that ligand fails and the job goes on.
	se := f.do(t, http.MethodPost, "/v1/molecules", "write", strings.NewReader(`{"format":"smiles","content":"C[Se]C"}`), "Content-Type", "application/json")
	if se.Code != http.StatusCreated {
		t.Fatalf("selenide: %d %s", se.Code, se.Body)
	}
	selenide := decode[map[string]any](t, se)["id"].(string)
	rec := f.postJob(t, map[string]any{"receptor": receptor, "ligands": []string{imatinib, selenide}, "pocket": "auto",
		"exhaustiveness": 8, "num_modes": 3, "seed": 42})
	if rec.Code != http.StatusAccepted {
		t.Fatalf("submit: %d %s", rec.Code, rec.Body)
	}
	job := decode[map[string]any](t, rec)
	id := job["id"].(string)
	if rec.Header().Get("Location") != "/v1/docking/jobs/"+id || job["total_ligands"].(float64) != 2 || job["best_affinity_kcal"] != nil {
		t.Errorf("submitted job: %s", rec.Body)
	}
	// About 2 minutes on 2 idle cores; at load 10 it took more than 6.
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
	if job["status"] != "succeeded" || job["finished_ligands"].(float64) != 1 || job["failed_ligands"].(float64) != 1 {
		t.Fatalf("job: %v", job)
	}
	// Imatinib's site scores about -12 to -14 kcal/mol here (docking-corpus
	// README: -13.357 in the documented box); a pose outside the site scores
	// far weaker.
	best := job["best_affinity_kcal"].(float64)
	if best > -9 || best < -15 {
		t.Errorf("best affinity %v kcal/mol", best)
	}
	res := f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/results", "read", nil)
	var results struct {
		Results []struct {
			Ligand   string  `json:"ligand"`
			Affinity float64 `json:"affinity_kcal"`
			PoseURL  string  `json:"pose_url"`
			Modes    []struct {
				Affinity float64 `json:"affinity_kcal"`
			} `json:"modes"`
		} `json:"results"`
		Failures []struct {
			Ligand string `json:"ligand"`
			Error  string `json:"error"`
		} `json:"failures"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &results); err != nil || len(results.Results) != 1 {
		t.Fatalf("results: %v %s", err, res.Body)
	}
	if len(results.Failures) != 1 || results.Failures[0].Ligand != selenide || results.Failures[0].Error == "" {
		t.Errorf("failures: %+v", results.Failures)
	}
	// The failures page on their own (kind=failures), a page of one each;
	// the first results page says there are no more failures.
	first := decode[map[string]any](t, res)
	if first["failures_next_cursor"] != nil || first["next_cursor"] != nil {
		t.Errorf("first page cursors: %v %v", first["failures_next_cursor"], first["next_cursor"])
	}
	fp := decode[map[string]any](t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/results?kind=failures&limit=1", "read", nil))
	if fs, _ := fp["failures"].([]any); len(fs) != 1 || fs[0].(map[string]any)["ligand"] != selenide || fp["next_cursor"] != nil || fp["results"] != nil {
		t.Errorf("failures page: %v", fp)
	}
	problemOf(t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/results?kind=best", "read", nil), http.StatusBadRequest, "invalid_request")
	problemOf(t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/results?cursor="+encodeCursor("dockr:0:61"), "read", nil), http.StatusBadRequest, "invalid_request")
	problemOf(t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/results?kind=failures&cursor="+encodeCursor("dockr:1:61"), "read", nil), http.StatusBadRequest, "invalid_request")
	r0 := results.Results[0]
	if r0.Ligand != imatinib || r0.Affinity != best || len(r0.Modes) == 0 {
		t.Errorf("result: %+v", r0)
	}
	for i := 1; i < len(r0.Modes); i++ {
		if r0.Modes[i].Affinity < r0.Modes[i-1].Affinity {
			t.Errorf("modes not sorted: %+v", r0.Modes)
		}
	}
	pose := f.do(t, http.MethodGet, r0.PoseURL, "read", nil)
	if pose.Code != http.StatusOK || pose.Header().Get("Content-Type") != "chemical/x-mdl-sdfile" || !strings.Contains(pose.Body.String(), "M  END") {
		t.Fatalf("pose: %d %s", pose.Code, pose.Header())
	}
	// The pose is the registered molecule: RDKit reads it back to the same
	// InChIKey.
	pool, err := chem.NewPool(1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	got, err := pool.Process(context.Background(), chem.Input{Format: chem.FormatMolfile, Content: pose.Body.String()})
	if err != nil {
		t.Fatal(err)
	}
	reg := decode[map[string]any](t, f.do(t, http.MethodGet, "/v1/molecules/"+imatinib, "read", nil))
	if got.InChIKey != reg["inchi_key"] {
		t.Errorf("pose InChIKey %s, registered %v", got.InChIKey, reg["inchi_key"])
	}
	crystal := sdfAtoms(t, dockingCorpus(t, "vina-examples/1iep/1iep_ligand.sdf"))
	if rmsd, err := docking.RMSD(crystal, sdfAtoms(t, pose.Body.Bytes())); err != nil || rmsd >= 2 {
		t.Errorf("pocket auto: top pose %.2f Å from the crystal ligand (%v)", rmsd, err)
	} else {
		t.Logf("pocket auto: best %.3f kcal/mol, top pose %.2f Å from the crystal", best, rmsd)
	}
	checkHBondSPARQL(t, f, id)
	problemOf(t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/poses/"+imatinib+"/99.sdf", "read", nil), http.StatusNotFound, "not_found")
	// A finished job cannot be cancelled.
	problemOf(t, f.do(t, http.MethodDelete, "/v1/docking/jobs/"+id, "write", nil), http.StatusConflict, "conflict")
}

// TestMoleculePDBQT: the docking-ready ligand of imatinib, registered from
// the Vina example's crystal SDF, carries Meeko's remarks and torsion tree
// with TORSDOF 7, as Meeko's file for 1iep in the docking corpus (the
// atom-by-atom comparison with that file is docking's TestPrepareLigandMeeko),
// and only atom types Vina accepts.
func TestMoleculePDBQT(t *testing.T) {
	f, _, imatinib := newDockingFixture(t)
	rec := f.do(t, http.MethodGet, "/v1/molecules/"+imatinib+"/structure?format=pdbqt", "read", nil)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "chemical/x-pdbqt" {
		t.Fatalf("%d %s: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	body := rec.Body.String()
	for _, want := range []string{"REMARK SMILES ", "REMARK SMILES IDX", "ROOT", "ENDROOT", "BRANCH", "TORSDOF 7"} {
		if !strings.Contains(body, want) {
			t.Errorf("PDBQT lacks %q", want)
		}
	}
	if err := docking.CheckLigand([]byte(body)); err != nil {
		t.Errorf("vina's atom types: %v", err)
	}
	if strings.Contains(body, "+]") {
		t.Errorf("the registered form is protonated:\n%s", body)
	}
	// ?ph=7.4: the form a docking job docks, imatinib with its
	// N-methylpiperazine protonated (one more HD), the same torsion tree.
	rec = f.do(t, http.MethodGet, "/v1/molecules/"+imatinib+"/structure?format=pdbqt&ph=7.4", "read", nil)
	prot := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(prot, "[NH+]") || !strings.Contains(prot, "TORSDOF 7") ||
		strings.Count(prot, " HD\n")+strings.Count(prot, " HD \n") != strings.Count(body, " HD\n")+strings.Count(body, " HD \n")+1 {
		t.Errorf("pH 7.4: %d\n%s", rec.Code, prot)
	}
	if err := docking.CheckLigand([]byte(prot)); err != nil {
		t.Errorf("pH 7.4: vina's atom types: %v", err)
	}
	for _, bad := range []string{"15", "-1", "NaN", "7.4e0", "x"} {
		problemOf(t, f.do(t, http.MethodGet, "/v1/molecules/"+imatinib+"/structure?format=pdbqt&ph="+bad, "read", nil), http.StatusBadRequest, "invalid_request")
	}
}

// sdfAtoms reads the heavy atoms of the first V2000 record of an SDF.
func sdfAtoms(t *testing.T, data []byte) []docking.Atom3D {
	t.Helper()
	ls := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	n, err := strconv.Atoi(strings.TrimSpace(ls[3][:3]))
	if err != nil {
		t.Fatal(err)
	}
	var out []docking.Atom3D
	for _, l := range ls[4 : 4+n] {
		el := strings.TrimSpace(l[31:34])
		if el == "H" {
			continue
		}
		a := docking.Atom3D{Element: el}
		for k, p := range []*float64{&a.X, &a.Y, &a.Z} {
			if *p, err = strconv.ParseFloat(strings.TrimSpace(l[10*k:10*k+10]), 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, a)
	}
	return out
}

// TestDocking1iepEndToEnd is issue 19's "1iep end to end with the pH
// route" through the API: the receptor from its H-stripped PDB prepared by
// PDB2PQR with PROPKA at pH 7.4 (route pdb2pqr, checked in the record),
// imatinib from the crystal SDF docked at the job's default ligand_ph 7.4
// (its N-methylpiperazine protonated: the isomer docked is [NH+], InChIKey
// flag O), the documented box (15.190, 53.903, 16.917; 20 Å),
// exhaustiveness 8, seed 42. The docking corpus records -13.357 kcal/mol
// for Vina alone on this system: the best affinity must be within 1
// kcal/mol of it, the top pose < 2 Å from the crystal ligand
// (symmetry-aware heavy-atom RMSD), pass every pose check, and
// hydrogen-bond the hinge Met318 and the gatekeeper Thr315 (the crystal's
// contacts, docking/interact's TestPLIP1iep). With MOLGRAPH_ROUTE_COMPARE=1
// the same job also runs on the Open Babel route's receptor and both are
// logged (the README's route comparison).
func TestDocking1iepEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Vina at exhaustiveness 8 (a few minutes)")
	}
	f, _, imatinib := newDockingFixture(t)
	routes := []string{docking.RoutePDB2PQR}
	if os.Getenv("MOLGRAPH_ROUTE_COMPARE") != "" {
		routes = append(routes, docking.RouteObabel)
	}
	for _, route := range routes {
		rec := f.postReceptor(t, "1iep_receptor_noH.pdb", dockingCorpus(t, "derived/1iep_receptor_noH.pdb"), "ph", "7.4", "route", route)
		if rec.Code != http.StatusCreated {
			t.Fatalf("receptor: %d %s", rec.Code, rec.Body)
		}
		rv := decodeReceptor(t, rec)
		if p := rv.Preparation; p == nil || p.Route != route || p.PH != 7.4 {
			t.Fatalf("receptor preparation %+v, want route %s at pH 7.4", p, route)
		}
		best, rmsd := dock1iep(t, f, rv.ID, imatinib, route == docking.RoutePDB2PQR)
		t.Logf("1iep, route %s, imatinib at pH 7.4: best %.3f kcal/mol, top pose %.2f Å from the crystal", route, best, rmsd)
	}
}

// dock1iep docks imatinib into receptor as TestDocking1iepEndToEnd says
// and returns the best affinity and the top pose's RMSD to the crystal;
// with check, it asserts the figures.
func dock1iep(t *testing.T, f *fixture, receptor, imatinib string, check bool) (best, rmsd float64) {
	t.Helper()
	errorf := t.Errorf
	if !check {
		errorf = t.Logf
	}
	sub := f.postJob(t, map[string]any{"receptor": receptor, "ligands": []string{imatinib}, "pocket": "box",
		"box":            map[string]any{"center": []float64{15.190, 53.903, 16.917}, "size": []float64{20, 20, 20}},
		"exhaustiveness": 8, "seed": 42})
	if sub.Code != http.StatusAccepted {
		t.Fatalf("submit: %d %s", sub.Code, sub.Body)
	}
	id := decode[map[string]any](t, sub)["id"].(string)
	var job map[string]any
	for deadline := time.Now().Add(30 * time.Minute); ; time.Sleep(time.Second) { // ~3 min idle
		job = decode[map[string]any](t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id, "read", nil))
		if s := job["status"]; s != "queued" && s != "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %v after 30 minutes", job["status"])
		}
	}
	if job["status"] != "succeeded" {
		t.Fatalf("job: %v", job)
	}
	if ph := job["parameters"].(map[string]any)["ligand_ph"]; ph != 7.4 {
		t.Errorf("parameters.ligand_ph %v, want the default 7.4", ph)
	}
	best = job["best_affinity_kcal"].(float64)
	if best < -13.357-1 || best > -13.357+1 {
		errorf("best affinity %.3f kcal/mol, want -13.357 ± 1", best)
	}
	var res struct {
		Results []struct {
			PoseURL string `json:"pose_url"`
			Valid   *bool  `json:"valid"`
			Checks  []struct {
				Name      string   `json:"name"`
				Pass      *bool    `json:"pass"`
				Value     *float64 `json:"value"`
				Threshold *float64 `json:"threshold"`
			} `json:"checks"`
			Fingerprint []string `json:"fingerprint"`
			Isomer      *struct {
				SMILES   string `json:"smiles"`
				InChIKey string `json:"inchi_key"`
			} `json:"isomer"`
		} `json:"results"`
	}
	json.Unmarshal(f.do(t, http.MethodGet, "/v1/docking/jobs/"+id+"/results", "read", nil).Body.Bytes(), &res)
	if len(res.Results) != 1 {
		t.Fatalf("results: %+v", res)
	}
	top := res.Results[0]
	// The form docked: imatinib with its N-methylpiperazine protonated.
	if iso := top.Isomer; iso == nil || !strings.Contains(iso.SMILES, "[NH+]") || !strings.HasSuffix(iso.InChIKey, "-O") {
		t.Errorf("isomer docked %+v, want the N-methylpiperazinium", top.Isomer)
	}
	// The top pose passes every check (issue 19).
	if top.Valid == nil || !*top.Valid || len(top.Checks) != 8 {
		errorf("top pose valid %v, %d checks", top.Valid, len(top.Checks))
	}
	for _, c := range top.Checks {
		if c.Pass == nil || !*c.Pass {
			errorf("top pose: %s failed (value %v, threshold %v)", c.Name, c.Value, c.Threshold)
		}
	}
	// The hinge contacts.
	for _, want := range []string{"A-318:MET:hbond", "A-315:THR:hbond"} {
		if !slices.Contains(top.Fingerprint, want) {
			errorf("top pose: no %s in %v", want, top.Fingerprint)
		}
	}
	pose := f.do(t, http.MethodGet, top.PoseURL, "read", nil).Body.Bytes()
	crystal := sdfAtoms(t, dockingCorpus(t, "vina-examples/1iep/1iep_ligand.sdf"))
	rmsd, err := docking.RMSD(crystal, sdfAtoms(t, pose))
	if err != nil {
		t.Fatal(err)
	}
	if rmsd >= 2 {
		errorf("top pose %.2f Å from the crystal ligand", rmsd)
	}
	t.Logf("fingerprint %v", top.Fingerprint)
	return best, rmsd
}

// manyIDs are n distinct molecule ids of the registry's length (30).
func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("mol-%026d", i)
	}
	return out
}
