package quadstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

// crashGraphs is how many named graphs the crash tests rewrite in turn.
const crashGraphs = 4

func crashGraph(j int) quad.IRI {
	return ontology.ResourceIRI(ex, "calculation", fmt.Sprintf("calc-%d", j))
}

// crashVersion is version v of graph v%crashGraphs: every third version is
// large (30,000 quads, some 150,000 Badger entries), the others small.
func crashVersion(v int) Graph {
	g := crashGraph(v % crashGraphs)
	n := 40
	if v%3 == 0 {
		n = 30000
	}
	qs := make([]quad.Quad, 0, n)
	qs = append(qs, quad.Quad{Subject: g, Predicate: quad.IRI(ontology.MG + "version"), Object: ontology.Integer(int64(v))})
	for i := 1; i < n; i++ {
		qs = append(qs, quad.Quad{
			Subject:   ontology.SubIRI(g, fmt.Sprintf("atom-%d", i/5)),
			Predicate: quad.IRI(fmt.Sprintf("%sp%d", ontology.MG, i%5)),
			Object:    ontology.Double(float64(v) + float64(i)/1000),
		})
	}
	return Graph{Name: g, Quads: qs}
}

// checkCrashGraphs verifies that every graph holds exactly one whole
// version, at least its last reported one and at most the one in flight,
// and that the counts and the numeric index agree with the quads.
func checkCrashGraphs(t *testing.T, s *Store, lastReported int) {
	t.Helper()
	ctx := context.Background()
	total := 0
	for j := 0; j < crashGraphs; j++ {
		got := all(t, s, Pattern{Label: crashGraph(j)})
		total += len(got)
		if len(got) == 0 {
			if lastReported >= j {
				t.Errorf("graph %d missing although version %d was reported", j, j)
			}
			continue
		}
		v := -1
		for q := range got {
			if q.Predicate == quad.IRI(ontology.MG+"version") {
				n, _ := strconv.Atoi(string(q.Object.(quad.TypedString).Value))
				if v != -1 {
					t.Errorf("graph %d holds two versions (%d and %d)", j, v, n)
				}
				v = n
			}
		}
		if v < 0 {
			t.Errorf("graph %d: %d quads without a version", j, len(got))
			continue
		}
		want := crashVersion(v)
		if len(got) != len(want.Quads) {
			t.Errorf("graph %d version %d: %d quads, want %d (a partial commit is visible)", j, v, len(got), len(want.Quads))
			continue
		}
		for _, q := range want.Quads {
			q.Label = want.Name
			if !got[q] {
				t.Errorf("graph %d version %d: missing %v", j, v, q)
				break
			}
		}
		if v > lastReported+1 {
			t.Errorf("graph %d holds version %d, beyond the write in flight (%d)", j, v, lastReported+1)
		}
		if v+crashGraphs <= lastReported {
			t.Errorf("graph %d holds version %d although %d was reported", j, v, v+crashGraphs)
		}
	}
	if q, _, err := s.Counts(); err != nil || q != int64(total) {
		t.Errorf("Counts: %d quads, %v; the graphs hold %d", q, err, total)
	}
	for p := 1; p < 5; p++ {
		n, want := 0, 0
		pred := quad.IRI(fmt.Sprintf("%sp%d", ontology.MG, p))
		s.NumericRange(ctx, pred, Range{Min: -1e300, Max: 1e300}, func(quad.Quad) error { n++; return nil })
		c, _ := s.Count(ctx, Pattern{Predicate: pred})
		if want = int(c); n != want {
			t.Errorf("numeric index of %s: %d entries, %d quads", pred, n, want)
		}
	}
}

// TestCrashChild is the writer process of TestKill9; it only runs when
// started by it.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("QUADSTORE_CRASH_DIR")
	if dir == "" {
		t.Skip("started by TestKill9 only")
	}
	start, _ := strconv.Atoi(os.Getenv("QUADSTORE_CRASH_START"))
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Printf("ERROR %v\n", err)
		os.Exit(2)
	}
	s.onWrite = func(n int) { fmt.Printf("WRITING %d %d\n", n, time.Now().UnixNano()) }
	ctx := context.Background()
	for v := start; ; v++ {
		fmt.Printf("BEGIN %d\n", v)
		if err := s.ReplaceGraphs(ctx, []Graph{crashVersion(v)}); err != nil {
			fmt.Printf("ERROR %v\n", err)
			os.Exit(2)
		}
		fmt.Printf("COMMITTED %d %d\n", v, time.Now().UnixNano())
	}
}

// TestKill9 kills a writing process with SIGKILL, several times, at random
// moments inside large commits, and checks after every reopen that only
// whole commits are visible and no reported commit is lost.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	last := -1
	recovered := 0
	for round := 0; round < 4; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "QUADSTORE_CRASH_DIR="+dir, fmt.Sprintf("QUADSTORE_CRASH_START=%d", last+1))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		larges := 0
		target := 1 + rng.Intn(2)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 0 {
				continue
			}
			switch f[0] {
			case "COMMITTED":
				last, _ = strconv.Atoi(f[1])
			case "ERROR":
				t.Fatalf("child: %s", sc.Text())
			case "WRITING":
				if n, _ := strconv.Atoi(f[1]); n > 100000 {
					if larges++; larges == target {
						// Writing a large version takes some 100s of ms
						// here; kill somewhere inside it.
						time.Sleep(time.Duration(rng.Intn(300)) * time.Millisecond)
						cmd.Process.Signal(syscall.SIGKILL)
					}
				}
			}
		}
		cmd.Wait()
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		if s.Recovered() {
			recovered++
		}
		checkCrashGraphs(t, s, last)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: killed after version %d committed; rollback on reopen: %v", round, last, s.Recovered())
	}
	if recovered == 0 {
		t.Error("no kill landed inside a commit; the test did not exercise recovery")
	}
}

// TestInterruptedCommitRollsBack stops a commit after part of its entries
// reached Badger, as a crash would, and checks that they stay invisible and
// that reopening rolls them back.
func TestInterruptedCommitRollsBack(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for v := 0; v < 6; v++ {
		if err := s.ReplaceGraphs(ctx, []Graph{crashVersion(v)}); err != nil {
			t.Fatal(err)
		}
	}
	s.failAfter = 100000
	if err := s.ReplaceGraphs(ctx, []Graph{crashVersion(6)}); !errors.Is(err, errSimulatedCrash) {
		t.Fatalf("interrupted commit: err = %v", err)
	}
	checkCrashGraphs(t, s, 5)
	s.failAfter = 0
	s.closed.Store(true)
	s.stopBackground()
	s.db.Close() // no clean Close: the markers stay as the crash left them
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Recovered() {
		t.Error("reopen did not roll back the interrupted commit")
	}
	checkCrashGraphs(t, s, 5)
	if err := s.ReplaceGraphs(ctx, []Graph{crashVersion(6)}); err != nil {
		t.Fatal(err)
	}
	checkCrashGraphs(t, s, 6)
}
