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

// oxBenchQueries are the queries (a), (b), (c); the same text as
// BenchmarkNumericFilter, BenchmarkTwoHopJoin and BenchmarkAggregate.
var oxBenchQueries = []struct {
	name, query string
}{
	{"a-numeric-filter", `PREFIX mg: <` + ontology.MG + `>
SELECT ?m WHERE { ?m mg:molecularWeight ?w ; mg:logP ?l . FILTER(?w < 500 && ?l < 5) }`},
	{"b-two-hop-join", `PREFIX mg: <` + ontology.MG + `>
SELECT ?m ?h WHERE { ?m a mg:Molecule ; mg:hasCalculation ?c . ?c mg:homoEnergy ?h }`},
	{"c-aggregate", `PREFIX mg: <` + ontology.MG + `>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT ?bucket (COUNT(?m) AS ?n) (AVG(?l) AS ?avgLogP) WHERE {
  ?m mg:molecularWeight ?w ; mg:logP ?l .
  BIND(xsd:integer(?w / 100) AS ?bucket)
} GROUP BY ?bucket`},
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
		b.Skipf("skipping: npm oxigraph not installed in %s (npm install --prefix %s oxigraph@<version in testdata/oxigraph/package.json>)", prefix, prefix)
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
