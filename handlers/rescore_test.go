package handlers

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/docking"
)

var rawAffinityRE = regexp.MustCompile(`Estimated Free Energy of Binding\s*:\s*(-?[0-9.]+)`)

// rawVina runs vina itself (the independent reference) with args, in a
// temporary directory holding the named files, and returns its stdout.
func rawVina(t *testing.T, files map[string][]byte, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("vina", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vina %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// rawScore is vina's "Estimated Free Energy of Binding" of a --score_only
// or --local_only run of ligand in receptor (grid: --autobox).
func rawScore(t *testing.T, receptor, ligand []byte, mode, scoring string) float64 {
	t.Helper()
	out := rawVina(t, map[string][]byte{"r.pdbqt": receptor, "l.pdbqt": ligand},
		"--receptor", "r.pdbqt", "--ligand", "l.pdbqt", "--autobox", "--cpu", "1", "--scoring", scoring, "--"+mode, "--out", "o.pdbqt")
	m := rawAffinityRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no affinity in vina output:\n%s", out)
	}
	a, _ := strconv.ParseFloat(m[1], 64)
	return a
}

type rescoreView struct {
	Mode        string   `json:"mode"`
	Scoring     string   `json:"scoring"`
	Receptor    string   `json:"receptor"`
	Affinity    float64  `json:"affinity_kcal"`
	Inter       float64  `json:"intermolecular_kcal"`
	LigandPDBQT string   `json:"ligand_pdbqt"`
	PosePDBQT   string   `json:"pose_pdbqt"`
	PoseSDF     string   `json:"pose_sdf"`
	MovedRMSD   *float64 `json:"moved_rmsd"`
}

func (f *fixture) postRescore(t *testing.T, body map[string]any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	return f.do(t, http.MethodPost, "/v1/docking/rescore", "write", strings.NewReader(string(b)), "Content-Type", "application/json").Result()
}

func decodeRescore(t *testing.T, resp *http.Response) rescoreView {
	t.Helper()
	defer resp.Body.Close()
	var v rescoreView
	if resp.StatusCode != http.StatusOK {
		buf, _ := io.ReadAll(resp.Body)
		t.Fatalf("rescore: %d %s", resp.StatusCode, buf)
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRescore: score_only and local_only with vina and vinardo on an
// uploaded complex (1iep: Meeko's receptor, the crystal imatinib as its
// PDBQT and as its SDF) and on a pose of a docking job, each equal to raw
// vina run on the same inputs; the SDF prepared here scores as Meeko's
// PDBQT of the same pose (-12.513 kcal/mol, docking-corpus README); bad
// requests are 4xx naming the problem.
func TestRescore(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Vina")
	}
	f, receptor, _ := newDockingFixture(t)
	recPDBQT := f.do(t, http.MethodGet, "/v1/receptors/"+receptor+"/structure?format=pdbqt", "read", nil).Body.Bytes()
	meeko := dockingCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt")
	sdf := dockingCorpus(t, "vina-examples/1iep/1iep_ligand.sdf")

	for _, scoring := range []string{"vina", "vinardo"} {
		// PDBQT as is: exactly raw vina's score.
		v := decodeRescore(t, f.postRescore(t, map[string]any{"mode": "score_only", "scoring": scoring, "receptor": receptor,
			"ligand": map[string]any{"format": "pdbqt", "content": string(meeko)}}))
		want := rawScore(t, recPDBQT, meeko, "score_only", scoring)
		if v.Affinity != want || v.Scoring != scoring || v.Receptor != receptor || v.LigandPDBQT != string(meeko) {
			t.Errorf("%s score_only of Meeko's PDBQT: %+v, raw vina %v", scoring, v, want)
		}
		if scoring == "vina" && want != -12.513 {
			t.Errorf("raw vina %v, docking-corpus README -12.513", want)
		}
		// SDF prepared here: raw vina on the file it made, and Meeko's
		// preparation of the same pose.
		v = decodeRescore(t, f.postRescore(t, map[string]any{"mode": "score_only", "scoring": scoring, "receptor": receptor,
			"ligand": map[string]any{"format": "sdf", "content": string(sdf)}}))
		if raw := rawScore(t, recPDBQT, []byte(v.LigandPDBQT), "score_only", scoring); v.Affinity != raw {
			t.Errorf("%s score_only of the SDF: %v, raw vina on its PDBQT %v", scoring, v.Affinity, raw)
		}
		if d := v.Affinity - want; d > 0.01 || d < -0.01 {
			t.Errorf("%s score_only of the SDF %v, of Meeko's PDBQT %v", scoring, v.Affinity, want)
		}
		// local_only: vina's optimisation, as raw vina does it.
		v = decodeRescore(t, f.postRescore(t, map[string]any{"mode": "local_only", "scoring": scoring, "receptor": receptor,
			"ligand": map[string]any{"format": "sdf", "content": string(sdf)}}))
		raw := rawScore(t, recPDBQT, []byte(v.LigandPDBQT), "local_only", scoring)
		if v.Affinity != raw || v.PosePDBQT == "" || !strings.Contains(v.PoseSDF, "M  END") || v.MovedRMSD == nil || *v.MovedRMSD > 2 {
			t.Errorf("%s local_only of the SDF: %v (moved %v), raw vina %v", scoring, v.Affinity, v.MovedRMSD, raw)
		}
		t.Logf("%s: score_only %v, local_only %v (raw vina %v)", scoring, want, v.Affinity, raw)
	}

	// A docking job scored with vinardo: recorded on the job and in the
	// graph, its affinity raw vina's for the same ligand file and box; its
	// pose rescored.
	mol := decode[map[string]any](t, f.do(t, http.MethodPost, "/v1/molecules", "write",
		strings.NewReader(`{"format":"smiles","content":"OC(=O)c1ccccc1O"}`), "Content-Type", "application/json"))["id"].(string)
	box := map[string]any{"center": []float64{15.190, 53.903, 16.917}, "size": []float64{14, 14, 14}}
	rec := f.postJob(t, map[string]any{"receptor": receptor, "ligands": []string{mol}, "pocket": "box", "box": box,
		"exhaustiveness": 1, "num_modes": 3, "seed": 42, "scoring": "vinardo"})
	if rec.Code != http.StatusAccepted {
		t.Fatalf("submit: %d %s", rec.Code, rec.Body)
	}
	job := decode[map[string]any](t, rec)
	id := job["id"].(string)
	if job["parameters"].(map[string]any)["scoring"] != "vinardo" {
		t.Errorf("job parameters %v", job["parameters"])
	}
	deadline := time.Now().Add(10 * time.Minute)
	for job["status"] != "succeeded" && job["status"] != "failed" {
		if time.Now().After(deadline) {
			t.Fatalf("job still %v", job["status"])
		}
		time.Sleep(500 * time.Millisecond)
		job = decode[map[string]any](t, f.do(t, http.MethodGet, "/v1/docking/jobs/"+id, "read", nil))
	}
	if job["status"] != "succeeded" {
		t.Fatalf("job %v", job)
	}
	// The job docks the ligand in its form at the default ligand_ph 7.4
	// (salicylate); ?ph=7.4 gives raw vina that same file.
	lig := f.do(t, http.MethodGet, "/v1/molecules/"+mol+"/structure?format=pdbqt&ph=7.4", "read", nil).Body.Bytes()
	modes := rawModes(t, recPDBQT, lig, "vinardo")
	if job["best_affinity_kcal"].(float64) != modes[0].Affinity {
		t.Errorf("vinardo job best %v, raw vina --scoring vinardo %v", job["best_affinity_kcal"], modes[0].Affinity)
	}
	q := `SELECT ?s WHERE { <http://example.org/id/docking-job/` + id + `> <https://w3id.org/molgraph/vocab#scoringFunction> ?s }`
	sq := f.do(t, http.MethodGet, "/v1/sparql?"+url.Values{"query": {q}}.Encode(), "read", nil, "Accept", "application/sparql-results+json")
	if !strings.Contains(sq.Body.String(), `"value":"vinardo"`) {
		t.Errorf("graph: %s", sq.Body)
	}
	for _, scoring := range []string{"vina", "vinardo"} {
		v := decodeRescore(t, f.postRescore(t, map[string]any{"mode": "score_only", "scoring": scoring,
			"pose": map[string]any{"job": id, "ligand": mol, "mode": 1}}))
		if raw := rawScore(t, recPDBQT, []byte(v.LigandPDBQT), "score_only", scoring); v.Affinity != raw || v.Receptor != receptor {
			t.Errorf("%s score_only of the pose: %+v, raw vina %v", scoring, v, raw)
		}
	}

	// Bad requests.
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
	}{
		{"no mode", map[string]any{"receptor": receptor, "ligand": map[string]any{"format": "pdbqt", "content": string(meeko)}}, 400, "invalid_request"},
		{"bad scoring", map[string]any{"mode": "score_only", "scoring": "ad4", "receptor": receptor, "ligand": map[string]any{"format": "pdbqt", "content": string(meeko)}}, 400, "invalid_request"},
		{"both", map[string]any{"mode": "score_only", "receptor": receptor, "ligand": map[string]any{"format": "pdbqt", "content": string(meeko)},
			"pose": map[string]any{"job": id, "ligand": mol, "mode": 1}}, 400, "invalid_request"},
		{"bad format", map[string]any{"mode": "score_only", "receptor": receptor, "ligand": map[string]any{"format": "mol2", "content": "x"}}, 400, "invalid_request"},
		{"too large", map[string]any{"mode": "score_only", "receptor": receptor, "ligand": map[string]any{"format": "pdbqt", "content": strings.Repeat("x", 600<<10)}}, 400, "invalid_request"},
		{"unknown receptor", map[string]any{"mode": "score_only", "receptor": "rec-nope", "ligand": map[string]any{"format": "pdbqt", "content": string(meeko)}}, 422, "unknown_receptor"},
		{"unknown pose", map[string]any{"mode": "score_only", "pose": map[string]any{"job": id, "ligand": mol, "mode": 99}}, 422, "unknown_pose"},
		{"receptor as ligand", map[string]any{"mode": "score_only", "receptor": receptor, "ligand": map[string]any{"format": "pdbqt", "content": string(recPDBQT[:2000])}}, 422, "invalid_ligand"},
		{"2D SDF", map[string]any{"mode": "score_only", "receptor": receptor, "ligand": map[string]any{"format": "sdf",
			"content": "\n  2D\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\n    1.5000    0.0000    0.0000 O   0  0\n  1  2  1  0\nM  END\n"}}, 422, "invalid_ligand"},
	} {
		b, _ := json.Marshal(tc.body)
		problemOf(t, f.do(t, http.MethodPost, "/v1/docking/rescore", "write", strings.NewReader(string(b)), "Content-Type", "application/json"), tc.status, tc.code)
	}
}

// rawModes docks ligand with raw vina (scoring function scoring, the
// job's box and settings) and returns the modes of its --out file.
func rawModes(t *testing.T, receptor, ligand []byte, scoring string) []docking.Mode {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string][]byte{"r.pdbqt": receptor, "l.pdbqt": ligand} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("vina", "--receptor", "r.pdbqt", "--ligand", "l.pdbqt",
		"--center_x", "15.190", "--center_y", "53.903", "--center_z", "16.917", "--size_x", "14.000", "--size_y", "14.000", "--size_z", "14.000",
		"--exhaustiveness", "1", "--num_modes", "3", "--energy_range", "3", "--seed", "42", "--cpu", "1", "--scoring", scoring, "--out", "o.pdbqt")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || (scoring == "vinardo") != strings.Contains(string(out), "Computing Vinardo grid") {
		t.Fatalf("vina: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "o.pdbqt"))
	if err != nil {
		t.Fatal(err)
	}
	modes, err := docking.ParseModes(data)
	if err != nil || len(modes) == 0 {
		t.Fatalf("raw vina modes: %v", err)
	}
	return modes
}
