package main

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"
)

// TestServeKill9DuringDocking: "molgraph serve" gets SIGKILL while vina
// docks a ligand of a six-ligand job (after at least one ligand is
// committed). Its vina must be gone within 2 s; the next start on the
// same data directory removes the dead server's working directories from
// <data-dir>/tmp, resumes the job and finishes it with one outcome per
// ligand; then no vina of the data directory runs and <data-dir>/tmp is
// empty.
func TestServeKill9DuringDocking(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	if _, err := exec.LookPath("vina"); err != nil {
		t.Skip("vina not installed")
	}
	recData := sharedtest.ReadFile(t, "docking-corpus", "vina-examples/1iep/1iep_receptor.pdbqt")
	bin := buildBinary(t)
	key := "dock-kill-test-key-0123456789abcdefghijklmnopqrstuvwxyz"
	dataDir := t.TempDir()
	tmpRoot := filepath.Join(dataDir, "tmp")
	s := startServer(t, bin, dataDir, "MOLGRAPH_API_KEY="+key)

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
	for _, smi := range []string{"Oc1ccccc1", "OC(=O)c1ccccc1", "c1ccc2ccccc2c1", "Nc1ccncc1", "Cc1ccccc1O", "NC(=O)c1ccccc1"} {
		var m struct{ ID string }
		b, _ := json.Marshal(map[string]any{"format": "smiles", "content": smi, "generate_3d": true})
		if code := post(t, s.url+"/v1/molecules", key, "application/json", b, &m); code != 201 {
			t.Fatalf("molecule %s: %d", smi, code)
		}
		ids = append(ids, m.ID)
	}
	req, _ := json.Marshal(map[string]any{"receptor": rec.ID, "ligands": ids, "pocket": "box",
		"box":            map[string]any{"center": []float64{15.190, 53.903, 16.917}, "size": []float64{14, 14, 14}},
		"exhaustiveness": 1, "num_modes": 3})
	var job struct{ ID string }
	if code := post(t, s.url+"/v1/docking/jobs", key, "application/json", req, &job); code != 202 {
		t.Fatalf("docking job: %d %+v", code, job)
	}
	view := func(url string) (status string, finished, failed int) {
		code, b, _ := get(t, url+"/v1/docking/jobs/"+job.ID, key)
		var v struct {
			Status   string
			Finished int `json:"finished_ligands"`
			Failed   int `json:"failed_ligands"`
		}
		if code != 200 || json.Unmarshal([]byte(b), &v) != nil {
			t.Fatalf("job view: %d %s", code, b)
		}
		return v.Status, v.Finished, v.Failed
	}

	// Kill while vina docks a ligand, after one is committed.
	for end := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, finished, _ := view(s.url); finished >= 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no ligand docked in 5 minutes\n%s", s.logs())
		}
	}
	pid := s.cmd.Process.Pid
	v, ok := sharedtest.WaitProc(func(p sharedtest.Proc) bool {
		return p.PPid == pid && filepath.Base(p.Args[0]) == "vina" && slices.Contains(p.Args, "--receptor")
	}, time.Minute, nil)
	if !ok {
		t.Fatalf("no vina running under the server\n%s", s.logs())
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.done
	if !sharedtest.GoneWithin(v.Pid, 2*time.Second) {
		syscall.Kill(v.Pid, syscall.SIGKILL)
		t.Errorf("vina %d outlived the killed server by 2 s", v.Pid)
	}
	left, _ := os.ReadDir(tmpRoot)
	if len(left) == 0 {
		t.Errorf("the killed server left nothing in %s (its batch and vina dirs expected)", tmpRoot)
	}

	// Restart: the job resumes and finishes.
	s2 := startServer(t, bin, dataDir, "MOLGRAPH_API_KEY="+key)
	if !strings.Contains(s2.logs(), "removed temporary directories left by dead processes") {
		t.Errorf("the restart logged no temp dir sweep\n%s", s2.logs())
	}
	var status string
	var finished, failed int
	for end := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if status, finished, failed = view(s2.url); status == "succeeded" || status == "failed" || status == "cancelled" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("job not finished after restart: %s\n%s", status, s2.logs())
		}
	}
	if status != "succeeded" || finished != len(ids) || failed != 0 {
		t.Fatalf("job after restart: %s, %d docked, %d failed; want succeeded, %d, 0", status, finished, failed, len(ids))
	}
	code, b, _ := get(t, s2.url+"/v1/docking/jobs/"+job.ID+"/results?limit=100", key)
	var res struct {
		Results  []struct{ Ligand string }
		Failures []any
	}
	if code != 200 || json.Unmarshal([]byte(b), &res) != nil {
		t.Fatalf("results: %d %s", code, b)
	}
	var got []string
	for _, r := range res.Results {
		got = append(got, r.Ligand)
	}
	slices.Sort(got)
	if want := slices.Sorted(slices.Values(ids)); !slices.Equal(got, want) || len(res.Failures) != 0 {
		t.Errorf("results for %v (failures %v), want one for each of %v", got, res.Failures, want)
	}
	s2.stop(t)
	if ps := sharedtest.Procs(func(p sharedtest.Proc) bool {
		return slices.ContainsFunc(p.Args, func(a string) bool { return strings.HasPrefix(a, dataDir) })
	}); len(ps) > 0 {
		t.Errorf("processes of the data directory still run: %+v", ps)
	}
	if left, _ := os.ReadDir(tmpRoot); len(left) != 0 {
		t.Errorf("temp dirs left: %v", left)
	}
}
