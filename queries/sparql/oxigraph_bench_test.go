package sparql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	execpkg "os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
)

// The side-by-side benchmark with Oxigraph (issue 9, make bench): the
// 100,000-molecule data of benchData is dumped from the native store as
// N-Triples, loaded into Oxigraph (npm, WASM) by testdata/oxigraph/bench.mjs
// in a node subprocess, and the same three queries are timed on both
// engines. Result counts must agree (and, for the aggregate, the per-bucket
// COUNT and AVG values). Run with
//
//	go test -run '^$' -bench Oxigraph ./queries/sparql/
//
// Oxigraph is found in $MOLGRAPH_OXIGRAPH or $HOME/.cache/molgraph/oxigraph
// (see testdata/oxigraph/package.json); without node or the package the
// benchmark is skipped.

// oxigraphRuns is how many timed runs bench.mjs makes per query and result
// mode, after one warm-up run.
const oxigraphRuns = 5

// oxBenchQueries are the queries (a), (b), (c), as run by
// BenchmarkNumericFilter, BenchmarkTwoHopJoin and BenchmarkAggregate.
var oxBenchQueries = []struct {
	name, query string
}{
	{"a-numeric-filter", benchQueryFilter},
	{"b-two-hop-join", benchQueryTwoHop},
	{"c-aggregate", benchQueryAggregate},
}

// oxReport is bench.mjs's output.
type oxReport struct {
	Version string  `json:"oxigraph"`
	Triples int     `json:"triples"`
	LoadMs  float64 `json:"load_ms"`
	Queries []struct {
		Name     string              `json:"name"`
		Mode     string              `json:"mode"`
		Rows     int                 `json:"rows"`
		Ms       []float64           `json:"ms"`
		MinMs    float64             `json:"min_ms"`
		MedianMs float64             `json:"median_ms"`
		Sample   []map[string]string `json:"sample"`
	} `json:"queries"`
}

// oxigraphScript returns the path of bench.mjs, or skips b when node or the
// npm package is missing.
func oxigraphScript(b testing.TB) (node, script string) {
	node, err := execpkg.LookPath("node")
	if err != nil {
		b.Skip("skipping: node not found in PATH (Debian: apt-get install nodejs npm)")
	}
	prefix := os.Getenv("MOLGRAPH_OXIGRAPH")
	if prefix == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			b.Skipf("skipping: no home directory for the oxigraph cache: %v", err)
		}
		prefix = filepath.Join(home, ".cache", "molgraph", "oxigraph")
	}
	if _, err := os.Stat(filepath.Join(prefix, "node_modules", "oxigraph", "package.json")); err != nil {
		version := "<version in testdata/oxigraph/package.json>"
		var pkg struct {
			Dependencies map[string]string `json:"dependencies"`
		}
		if data, err := os.ReadFile(filepath.Join("testdata", "oxigraph", "package.json")); err == nil && json.Unmarshal(data, &pkg) == nil && pkg.Dependencies["oxigraph"] != "" {
			version = pkg.Dependencies["oxigraph"]
		}
		b.Skipf("skipping: npm oxigraph not installed in %s (install: npm install --prefix %s --no-audit --no-fund oxigraph@%s)", prefix, prefix, version)
	}
	script, err = filepath.Abs(filepath.Join("testdata", "oxigraph", "bench.mjs"))
	if err != nil {
		b.Fatal(err)
	}
	return node, script
}

// dumpNTriples writes every quad of st to path as N-Triples (graph labels
// dropped, so Oxigraph's default graph holds all triples, as molgraph's
// union default graph does) and returns the number of triples.
func dumpNTriples(ctx context.Context, st Source, path string) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w, err := rdfio.NewWriter(f, rdfio.NTriples)
	if err != nil {
		return 0, err
	}
	n := 0
	if err := st.Match(ctx, graph.Pattern{}, func(q quad.Quad) error {
		n++
		return w.WriteQuad(q)
	}); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return n, f.Close()
}

func runOxigraph(b testing.TB, node, script, ntPath string) *oxReport {
	type q struct {
		Name  string `json:"name"`
		Query string `json:"query"`
	}
	spec := struct {
		Runs    int `json:"runs"`
		Queries []q `json:"queries"`
	}{Runs: oxigraphRuns}
	for _, bq := range oxBenchQueries {
		spec.Queries = append(spec.Queries, q{bq.name, bq.query})
	}
	in, err := json.Marshal(spec)
	if err != nil {
		b.Fatal(err)
	}
	cmd := execpkg.Command(node, script, ntPath)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *execpkg.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			b.Skipf("skipping: %s", strings.TrimSpace(stderr.String()))
		}
		b.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	var rep oxReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		b.Fatalf("bench.mjs output: %v\n%s", err, stdout.String())
	}
	if len(rep.Queries) != len(oxBenchQueries) {
		b.Fatalf("bench.mjs answered %d queries, want %d", len(rep.Queries), len(oxBenchQueries))
	}
	return &rep
}

// benchExpected recomputes, from the value formulas of benchData
// (benchValues), the number of rows of query (a) and the COUNT per bucket of
// query (c): an oracle independent of both engines.
func benchExpected() (rowsA int, buckets map[string]int) {
	buckets = map[string]int{}
	for i := 0; i < benchMolecules; i++ {
		mw, logp, _ := benchValues(i)
		if mw < 500 && logp < 5 {
			rowsA++
		}
		buckets[strconv.FormatInt(int64(mw/100), 10)]++
	}
	return rowsA, buckets
}

// lexicalForm is the lexical form of a term, as bench.mjs reports it.
func lexicalForm(v quad.Value) string {
	switch v := v.(type) {
	case nil:
		return ""
	case quad.IRI:
		return string(v)
	case quad.BNode:
		return string(v)
	case quad.String:
		return string(v)
	case quad.LangString:
		return string(v.Value)
	case quad.TypedString:
		return string(v.Value)
	}
	return v.String()
}

// compareAggregate checks our (c) rows against Oxigraph's: equal COUNT per
// bucket and AVG equal within 1e-9 relative.
func compareAggregate(vars []string, ours []Solution, theirs []map[string]string) error {
	col := map[string]int{}
	for i, v := range vars {
		col[v] = i
	}
	type agg struct {
		n   string
		avg float64
	}
	parse := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	}
	want := map[string]agg{}
	for _, r := range theirs {
		want[r["bucket"]] = agg{r["n"], parse(r["avgLogP"])}
	}
	if len(want) != len(ours) {
		return fmt.Errorf("%d buckets, oxigraph %d", len(ours), len(want))
	}
	for _, s := range ours {
		bucket := lexicalForm(s[col["bucket"]])
		got := agg{lexicalForm(s[col["n"]]), parse(lexicalForm(s[col["avgLogP"]]))}
		w, ok := want[bucket]
		switch {
		case !ok:
			return fmt.Errorf("bucket %q not in oxigraph's result", bucket)
		case got.n != w.n:
			return fmt.Errorf("bucket %s: COUNT %s, oxigraph %s", bucket, got.n, w.n)
		case !(math.Abs(got.avg-w.avg) <= 1e-9*math.Max(1, math.Abs(w.avg))):
			return fmt.Errorf("bucket %s: AVG %v, oxigraph %v", bucket, got.avg, w.avg)
		}
	}
	return nil
}

// BenchmarkOxigraph times queries (a), (b), (c) on the native store and
// reports, per query, Oxigraph's median time (oxigraph-ms) and the ratio of
// our time per query to it (ours/oxigraph: below 1 means faster).
func BenchmarkOxigraph(b *testing.B) {
	node, script := oxigraphScript(b)
	ctx := context.Background()
	st := benchData(b, "native")

	ntPath := filepath.Join(b.TempDir(), "bench.nt")
	start := time.Now()
	triples, err := dumpNTriples(ctx, st, ntPath)
	if err != nil {
		b.Fatalf("dump n-triples: %v", err)
	}
	b.Logf("dumped %d triples as N-Triples in %v", triples, time.Since(start).Round(time.Millisecond))
	rep := runOxigraph(b, node, script, ntPath)
	if rep.Triples != triples {
		b.Fatalf("oxigraph loaded %d triples, want %d", rep.Triples, triples)
	}
	b.Logf("oxigraph %s (node, WASM) loaded %d triples in %.0f ms", rep.Version, rep.Triples, rep.LoadMs)

	wantA, wantBuckets := benchExpected()
	for i, want := range []int{wantA, benchMolecules, len(wantBuckets)} {
		if got := rep.Queries[i].Rows; got != want {
			b.Fatalf("%s: oxigraph %d rows, the generator's formula gives %d", oxBenchQueries[i].name, got, want)
		}
	}
	for _, r := range rep.Queries[2].Sample {
		if want := wantBuckets[r["bucket"]]; r["n"] != strconv.Itoa(want) {
			b.Fatalf("c-aggregate bucket %s: oxigraph COUNT %s, the generator's formula gives %d", r["bucket"], r["n"], want)
		}
	}

	type row struct {
		name       string
		rows       int
		ours, them float64 // ms per query
		mode       string
	}
	var table []row
	for i, bq := range oxBenchQueries {
		ox := rep.Queries[i]
		if ox.Name != bq.name {
			b.Fatalf("bench.mjs answered %q, want %q", ox.Name, bq.name)
		}
		q, err := Parse(bq.query, "")
		if err != nil {
			b.Fatal(err)
		}
		var last row
		b.Run(bq.name, func(b *testing.B) {
			b.ReportAllocs()
			var sols []Solution
			var vars []string
			for i := 0; i < b.N; i++ {
				res, err := Exec(ctx, st, q, Options{})
				if err != nil {
					b.Fatal(err)
				}
				vars, sols = res.Vars, sols[:0]
				n := 0
				if err := res.Solutions(func(s Solution) error {
					n++
					if len(ox.Sample) > 0 {
						sols = append(sols, append(Solution(nil), s...))
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if n != ox.Rows {
					b.Fatalf("%d rows, oxigraph %d", n, ox.Rows)
				}
			}
			b.StopTimer()
			if bq.name == "c-aggregate" {
				if err := compareAggregate(vars, sols, ox.Sample); err != nil {
					b.Fatal(err)
				}
			}
			ours := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / 1e6
			b.ReportMetric(ox.MedianMs, "oxigraph-ms")
			b.ReportMetric(ours/ox.MedianMs, "ours/oxigraph")
			last = row{bq.name, ox.Rows, ours, ox.MedianMs, ox.Mode}
		})
		if last.name != "" {
			table = append(table, last)
		}
	}
	sort.SliceStable(table, func(i, j int) bool { return table[i].name < table[j].name })
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-18s %8s %12s %14s %14s\n", "query", "rows", "ours ms", "oxigraph ms", "ours/oxigraph")
	for _, r := range table {
		fmt.Fprintf(&sb, "%-18s %8d %12.1f %14.1f %14.2f  (oxigraph: median of %d, %s results)\n",
			r.name, r.rows, r.ours, r.them, r.ours/r.them, oxigraphRuns, r.mode)
	}
	b.Log(sb.String())
}

// TestOxigraphBenchScript runs bench.mjs and our engine on three molecules
// whose answers are worked out by hand, so the subprocess wiring, the JSON
// exchange and the result comparison are checked by a plain go test.
func TestOxigraphBenchScript(t *testing.T) {
	node, script := oxigraphScript(t)
	ctx := context.Background()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mg := func(s string) quad.IRI { return quad.IRI(ontology.MG + s) }
	mol := func(id string, mw, logp float64, homo *float64) []graph.NamedGraph {
		m := quad.IRI("http://localhost:8080/molecules/" + id)
		gs := []graph.NamedGraph{{IRI: m, Quads: []quad.Quad{
			{Subject: m, Predicate: rdfType, Object: mg("Molecule")},
			{Subject: m, Predicate: mg("molecularWeight"), Object: ontology.Double(mw)},
			{Subject: m, Predicate: mg("logP"), Object: ontology.Double(logp)},
		}}}
		if homo != nil {
			c := quad.IRI("http://localhost:8080/calculations/" + id)
			gs[0].Quads = append(gs[0].Quads, quad.Quad{Subject: m, Predicate: mg("hasCalculation"), Object: c})
			gs = append(gs, graph.NamedGraph{IRI: c, Quads: []quad.Quad{
				{Subject: c, Predicate: rdfType, Object: mg("Calculation")},
				{Subject: c, Predicate: mg("homoEnergy"), Object: ontology.Double(*homo)},
			}})
		}
		return gs
	}
	h1, h2 := -0.25, -0.21
	var graphs []graph.NamedGraph
	graphs = append(graphs, mol("m1", 300.5, 2, &h1)...)   // (a) yes; bucket 3
	graphs = append(graphs, mol("m2", 620, 1, &h2)...)     // (a) no: weight; bucket 6
	graphs = append(graphs, mol("m3", 450, 6, nil)...)     // (a) no: logP; bucket 4
	graphs = append(graphs, mol("m4", 399.9, 4.5, nil)...) // (a) yes; bucket 3
	if err := st.PutGraphs(ctx, graphs, nil); err != nil {
		t.Fatal(err)
	}
	ntPath := filepath.Join(t.TempDir(), "small.nt")
	n, err := dumpNTriples(ctx, st, ntPath)
	if err != nil {
		t.Fatal(err)
	}
	if n != 18 { // 4+2 for m1 and m2, 3 for m3 and m4
		t.Fatalf("dumped %d triples, want 18", n)
	}
	rep := runOxigraph(t, node, script, ntPath)
	if rep.Triples != n {
		t.Fatalf("oxigraph loaded %d triples, want %d", rep.Triples, n)
	}
	// (c) by hand: bucket 3 = m1, m4 (avg logP 3.25); 4 = m3 (6); 6 = m2 (1).
	wantC := []map[string]string{
		{"bucket": "3", "n": "2", "avgLogP": "3.25"},
		{"bucket": "4", "n": "1", "avgLogP": "6"},
		{"bucket": "6", "n": "1", "avgLogP": "1"},
	}
	for i, tc := range []struct{ rows int }{{2}, {2}, {3}} {
		bq, ox := oxBenchQueries[i], rep.Queries[i]
		t.Run(bq.name, func(t *testing.T) {
			if ox.Rows != tc.rows {
				t.Errorf("oxigraph: %d rows, want %d", ox.Rows, tc.rows)
			}
			q, err := Parse(bq.query, "")
			if err != nil {
				t.Fatal(err)
			}
			res, err := Exec(ctx, st, q, Options{})
			if err != nil {
				t.Fatal(err)
			}
			sols, err := res.All()
			if err != nil {
				t.Fatal(err)
			}
			if len(sols) != tc.rows {
				t.Errorf("ours: %d rows, want %d", len(sols), tc.rows)
			}
			if bq.name == "c-aggregate" {
				if err := compareAggregate(res.Vars, sols, wantC); err != nil {
					t.Errorf("ours vs hand-computed: %v", err)
				}
				if err := compareAggregate(res.Vars, sols, ox.Sample); err != nil {
					t.Errorf("ours vs oxigraph: %v", err)
				}
				// compareAggregate must notice a wrong COUNT and a wrong AVG.
				for _, bad := range []map[string]string{
					{"bucket": "3", "n": "3", "avgLogP": "3.25"},
					{"bucket": "3", "n": "2", "avgLogP": "3.2500001"},
				} {
					mutated := append([]map[string]string{bad}, wantC[1:]...)
					if compareAggregate(res.Vars, sols, mutated) == nil {
						t.Errorf("compareAggregate accepted %v", bad)
					}
				}
			}
		})
	}
}
