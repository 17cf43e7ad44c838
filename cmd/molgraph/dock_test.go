package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// post sends body to url with the key and decodes the JSON reply.
func post(t *testing.T, url, key, contentType string, body []byte, out any) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, b)
	}
	return resp.StatusCode
}

// TestDockCLI runs "molgraph dock" against a real server: the 1iep
// receptor (the corpus's Meeko PDBQT) and two small registered ligands,
// docked cheaply (exhaustiveness 1, a 14 Å box at the documented 1iep
// site). The CLI must follow the job to "succeeded" and print both ligands
// ranked by affinity with the affinities the API reports; usage mistakes
// exit 2 and an unknown ligand exits 1 with the server's problem.
func TestDockCLI(t *testing.T) {
	if _, err := exec.LookPath("vina"); err != nil {
		t.Skip("vina not installed")
	}
	recFile, _ := filepath.Abs("../../../shared/docking-corpus/vina-examples/1iep/1iep_receptor.pdbqt")
	recData, err := os.ReadFile(recFile)
	if err != nil {
		t.Skipf("docking corpus: %v", err)
	}
	bin := buildBinary(t)
	key := "dock-cli-test-key-0123456789abcdefghijklmnopqrstuvwxyz"
	s := startServer(t, bin, t.TempDir(), "MOLGRAPH_API_KEY="+key)
	defer s.stop(t)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "1iep_receptor.pdbqt")
	fw.Write(recData)
	mw.Close()
	var rec struct{ ID string }
	if code := post(t, s.url+"/v1/receptors", key, mw.FormDataContentType(), body.Bytes(), &rec); code != 201 {
		t.Fatalf("receptor: %d %+v", code, rec)
	}
	var ids []string
	for _, smi := range []string{"OC(=O)c1ccccc1", "Nc1ccncc1"} {
		var m struct{ ID string }
		b, _ := json.Marshal(map[string]any{"format": "smiles", "content": smi, "generate_3d": true})
		if code := post(t, s.url+"/v1/molecules", key, "application/json", b, &m); code != 201 {
			t.Fatalf("molecule %s: %d", smi, code)
		}
		ids = append(ids, m.ID)
	}
	idFile := filepath.Join(t.TempDir(), "ligands.txt")
	os.WriteFile(idFile, []byte("# ligands\n"+ids[1]+"\n\n"), 0o644)

	dock := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, append([]string{"dock", "--server", s.url, "--key", key}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}

	code, out, errs := dock("--receptor", rec.ID, "--box", "15.190,53.903,16.917,14,14,14", "--exhaustiveness", "1",
		"--num-modes", "3", "--poll", "100ms", "--ligands", idFile, ids[0])
	if code != 0 {
		t.Fatalf("dock: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "docking job dock-") {
		t.Errorf("no job line on stderr:\n%s", errs)
	}
	m := regexp.MustCompile(`(dock-\S+) succeeded: 2 ligands, 2 docked, 0 failed`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary line:\n%s", out)
	}
	// The table: one row per ligand, ranks 1 and 2, affinities ascending and
	// equal to the API's.
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && (f[0] == "1" || f[0] == "2") {
			rows = append(rows, f)
		}
	}
	if len(rows) != 2 {
		t.Fatalf("want 2 result rows:\n%s", out)
	}
	status, page, _ := get(t, s.url+"/v1/docking/jobs/"+m[1]+"/results", key)
	var api struct {
		Results []struct {
			Ligand   string
			Affinity float64 `json:"affinity_kcal"`
		}
	}
	if status != 200 || json.Unmarshal([]byte(page), &api) != nil || len(api.Results) != 2 {
		t.Fatalf("results: %d %s", status, page)
	}
	var printed []string
	for i, r := range rows {
		a, err := strconv.ParseFloat(r[2], 64)
		if err != nil || r[1] != api.Results[i].Ligand || strconv.FormatFloat(a, 'f', 3, 64) != strconv.FormatFloat(api.Results[i].Affinity, 'f', 3, 64) {
			t.Errorf("row %d %v, API %+v", i+1, r, api.Results[i])
		}
		printed = append(printed, r[1])
	}
	slices.Sort(printed)
	if want := slices.Sorted(slices.Values(ids)); !slices.Equal(printed, want) {
		t.Errorf("ligands %v, want %v", printed, want)
	}

	// Mistakes.
	if code, _, errs := dock(ids[0]); code != 2 || !strings.Contains(errs, "--receptor is required") {
		t.Errorf("no receptor: exit %d %s", code, errs)
	}
	if code, _, errs := dock("--receptor", rec.ID, "--box", "1,2,3", ids[0]); code != 2 || !strings.Contains(errs, "cx,cy,cz,sx,sy,sz") {
		t.Errorf("bad box: exit %d %s", code, errs)
	}
	if code, _, errs := dock("--receptor", rec.ID, "mol-doesnotexist"); code != 1 || !strings.Contains(errs, "unknown_ligands") ||
		!strings.Contains(errs, "mol-doesnotexist") {
		t.Errorf("unknown ligand: exit %d %s", code, errs)
	}
}
