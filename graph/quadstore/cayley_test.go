package quadstore

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/graphtest"
	"github.com/cayleygraph/cayley/graph/memstore"
	"github.com/cayleygraph/cayley/graph/path"
	"github.com/cayleygraph/quad"
)

// cayleyDir is the directory of the Cayley module in the module cache: its
// conformance suite reads its test data (data/testdata.nq,
// data/30kmoviedata.nq.gz) by paths relative to a backend's package.
func cayleyDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/cayleygraph/cayley").Output()
	if err != nil {
		t.Skipf("cannot locate the cayley module: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// testTrim is the table trimmer's interval in stores that tests open
// (0: the default).
var testTrim time.Duration

func testOptions() Options {
	return Options{CacheEntries: 1 << 16, MemTableMB: 16, BlockCacheMB: 16, TrimInterval: testTrim, TrimAboveMB: -1}
}

func openTest(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// knownCayleyFailures are subtests of Cayley's suite that fail for a
// reason in Cayley, each with the reason.
var knownCayleyFailures = map[string]string{
	"paths/follows_recursive_loop": "Cayley's recursive iterator tags depend on the order in which an " +
		"index lists a node's out-edges: its memstore gives the same answer when the quads are " +
		"inserted in another order (TestCayleyRecursiveTagsDependOnOrder)",
	"paths/follows_recursive_loop_(unoptimized)": "same as paths/follows_recursive_loop",
}

// TestCayleyChild runs Cayley's own backend suite, graphtest.TestAll
// (including the path morphisms and the integration queries over the
// 30k-movie data set), against the store, the way Cayley runs it for its
// memstore, from memstore's directory so that the suite's relative data
// paths resolve. It runs in a child process of TestCayleyConformance,
// which checks its results against the list of known failures.
func TestCayleyChild(t *testing.T) {
	if os.Getenv("QUADSTORE_CAYLEY_SUITE") == "" {
		t.Skip("started by TestCayleyConformance only")
	}
	t.Chdir(filepath.Join(cayleyDir(t), "graph", "memstore"))
	graphtest.TestAll(t, func(t testing.TB) (cgraph.QuadStore, cgraph.Options, func()) {
		s := openTest(t)
		return s, nil, func() { s.Close() }
	}, &graphtest.Config{AlwaysRunIntegration: true})
}

var resultLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): TestCayleyChild/(\S+)`)

// TestCayleyConformance requires every subtest of Cayley's suite to pass,
// except the known failures listed above.
func TestCayleyConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the 30k-movie data set")
	}
	cayleyDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCayleyChild$", "-test.v", "-test.count=1", "-test.timeout=20m")
	cmd.Env = append(os.Environ(), "QUADSTORE_CAYLEY_SUITE=1")
	out, _ := cmd.CombinedOutput()
	results := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := resultLine.FindStringSubmatch(sc.Text()); m != nil {
			results[m[2]] = m[1]
		}
	}
	if len(results) < 50 {
		t.Fatalf("the suite did not run (%d results):\n%s", len(results), out)
	}
	counts := map[string]int{}
	for name, res := range results {
		counts[res]++
		if res != "FAIL" {
			continue
		}
		if _, known := knownCayleyFailures[name]; known {
			continue
		}
		parent := false // a parent fails with its children
		for k := range knownCayleyFailures {
			if strings.HasPrefix(k, name+"/") {
				parent = true
			}
		}
		if !parent {
			t.Errorf("Cayley suite: %s failed", name)
		}
	}
	t.Logf("Cayley suite: %d passed, %d failed (known: %d), %d skipped", counts["PASS"], counts["FAIL"], len(knownCayleyFailures), counts["SKIP"])
	for name, res := range results {
		if res == "SKIP" {
			t.Logf("skipped: %s", name)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// TestCayleyRecursiveTagsDependOnOrder shows the Cayley behaviour behind
// the known failure: the suite's "follows recursive loop" query on Cayley's
// own memstore gives the suite's expected tags only for one insertion order
// of the same quads.
func TestCayleyRecursiveTagsDependOnOrder(t *testing.T) {
	quads := []quad.Quad{
		quad.MakeIRI("1", "relatesTo", "x", ""),
		quad.MakeIRI("2", "relatesTo", "x", ""),
		quad.MakeIRI("3", "relatesTo", "y", ""),
		quad.MakeIRI("1", "knows", "2", ""),
		quad.MakeIRI("2", "knows", "3", ""),
		quad.MakeIRI("2", "knows", "1", ""),
	}
	pidOf3 := func(qs []quad.Quad) quad.Value {
		m := memstore.New(qs...)
		p := path.StartPath(m, quad.IRI("1")).FollowRecursive(path.StartMorphism().Tag("pid").Out(quad.IRI("knows")), 2, nil).
			Has(quad.IRI("relatesTo")).Tag("id")
		var pid quad.Value
		err := p.Iterate(context.Background()).Paths(true).TagValues(m, func(tags map[string]quad.Value) {
			if tags["id"] == quad.IRI("3") {
				pid = tags["pid"]
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return pid
	}
	swapped := append(append([]quad.Quad(nil), quads[:4]...), quads[5], quads[4])
	if a, b := pidOf3(quads), pidOf3(swapped); a != quad.IRI("2") || b != quad.IRI("1") {
		t.Errorf("memstore: pid of 3 = %v and %v; this Cayley behaviour changed, revisit knownCayleyFailures", a, b)
	}
}
