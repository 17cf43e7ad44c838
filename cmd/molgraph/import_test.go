package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// substituents are 90 distinct groups for distinctMolecules.
func substituents() []string {
	var out []string
	for _, p := range []string{"", "O", "N", "S", "C(=O)", "C(F)(F)", "OC(=O)", "C#C"} {
		for k := 1; k <= 10; k++ {
			out = append(out, p+strings.Repeat("C", k))
		}
	}
	out = append(out, "Cl", "Br", "F", "I", "O", "N", "C#N", "C(=O)O", "C(=O)N", "[N+](=O)[O-]")
	return out
}

// distinctMolecules returns n SMILES lines of distinct molecules: 2,3,5-
// trisubstituted pyridines (the three positions are not equivalent, so
// every combination is a different structure), named m0, m1, ...
func distinctMolecules(n int) []string {
	rs := substituents()
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		a, b, c := rs[i%len(rs)], rs[(i/len(rs))%len(rs)], rs[(i/len(rs)/len(rs))%len(rs)]
		out = append(out, fmt.Sprintf("c1(%s)cc(%s)c(%s)nc1 m%d", a, b, c, len(out)))
	}
	return out
}

type jobState struct {
	ID                                          string
	Status                                      string
	Total, Processed, Created, Existing, Failed int64
}

func jobStatus(t *testing.T, jobURL, key string) jobState {
	t.Helper()
	code, body, _ := get(t, jobURL, key)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", jobURL, code, body)
	}
	var st jobState
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestImportCrashResume kills the server with SIGKILL in the middle of a
// batch of distinct molecules (20,000 by default; MOLGRAPH_CRASH_N; 2,000
// with -short), restarts it, and checks that the job finishes with every
// record once: as many items as records, every molecule created exactly
// once, and exactly that many molecules stored.
func TestImportCrashResume(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	if v, err := strconv.Atoi(os.Getenv("MOLGRAPH_CRASH_N")); err == nil && v > 0 {
		n = v
	}
	bin := buildBinary(t)
	dataDir := t.TempDir()
	key := "crash-test-key-0123456789abcdefghijklmnopqrstuvwxyz"
	env := "MOLGRAPH_API_KEY=" + key
	s := startServer(t, bin, dataDir, env)
	file := filepath.Join(t.TempDir(), "mols.smi")
	if err := os.WriteFile(file, []byte(strings.Join(distinctMolecules(n), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(s.url + "/")
	c := &apiClient{base: base, key: key, http: http0()}
	jobURL, err := c.submit(context.Background(), file, "smiles", false)
	if err != nil {
		t.Fatal(err)
	}
	// Kill it once some chunks are committed.
	killAt := int64(n / 5)
	deadline := time.Now().Add(20 * time.Minute)
	for {
		st := jobStatus(t, jobURL, key)
		if st.Processed >= killAt {
			break
		}
		if st.Status == "succeeded" || time.Now().After(deadline) {
			t.Fatalf("job ended before the kill: %+v", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
	s2 := startServer(t, bin, dataDir, env)
	defer s2.stop(t)
	jobURL = strings.Replace(jobURL, s.url, s2.url, 1)
	st := jobStatus(t, jobURL, key)
	t.Logf("killed at %d of %d processed", st.Processed, n)
	if st.Processed >= int64(n) || st.Status != "running" {
		t.Fatalf("after the kill: %+v", st)
	}
	for st.Status == "running" || st.Status == "queued" {
		if time.Now().After(deadline) {
			t.Fatalf("timeout: %+v", st)
		}
		time.Sleep(250 * time.Millisecond)
		st = jobStatus(t, jobURL, key)
	}
	if st.Status != "succeeded" || st.Total != int64(n) || st.Processed != int64(n) || st.Created != int64(n) || st.Existing != 0 || st.Failed != 0 {
		t.Fatalf("final %+v", st)
	}
	// Items: n, indices 0..n-1, each once, all created, distinct molecules.
	mols := map[string]bool{}
	next, count := jobURL+"/items?limit=1000", 0
	for next != "" {
		code, body, _ := get(t, next, key)
		var page struct {
			Items []struct {
				Index      int
				Status     string
				MoleculeID string `json:"molecule_id"`
			}
			NextCursor *string `json:"next_cursor"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("items: %d %s", code, body)
		}
		for _, it := range page.Items {
			if it.Index != count || it.Status != "created" || mols[it.MoleculeID] {
				t.Fatalf("item %d: %+v (duplicate molecule: %v)", count, it, mols[it.MoleculeID])
			}
			mols[it.MoleculeID] = true
			count++
		}
		next = ""
		if page.NextCursor != nil {
			next = jobURL + "/items?limit=1000&cursor=" + *page.NextCursor
		}
	}
	if count != n {
		t.Fatalf("%d items, want %d", count, n)
	}
	// The store holds exactly n molecules, the ones the items name.
	stored := 0
	next = s2.url + "/v1/molecules?limit=1000"
	for next != "" {
		code, body, _ := get(t, next, key)
		var page struct {
			Molecules  []struct{ ID string }
			NextCursor *string `json:"next_cursor"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("molecules: %d %.300s", code, body)
		}
		for _, m := range page.Molecules {
			if !mols[m.ID] {
				t.Fatalf("stored molecule %s is in no item", m.ID)
			}
			stored++
		}
		next = ""
		if page.NextCursor != nil {
			next = s2.url + "/v1/molecules?limit=1000&cursor=" + *page.NextCursor
		}
	}
	if stored != n {
		t.Fatalf("%d molecules stored, want %d", stored, n)
	}

	// The CLI: import a small SMILES file (all existing now, plus one bad line).
	small := filepath.Join(t.TempDir(), "small.smi")
	os.WriteFile(small, []byte(strings.Join(distinctMolecules(5), "\n")+"\nC1CC(( bad\n"), 0o644)
	out, err := exec.Command(bin, "import", "--server", s2.url, "--key", key, "--poll", "50ms", small).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "succeeded: 6 records, 0 created, 5 existing, 1 failed") ||
		!strings.Contains(string(out), `record 5 "bad"`) {
		t.Fatalf("import CLI: %v\n%s", err, out)
	}
}

func http0() *http.Client { return &http.Client{Timeout: 5 * time.Minute} }
