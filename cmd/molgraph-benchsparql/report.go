package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// report is the run's figures.
type report struct {
	N, Seed, Runs int
	Timeout       time.Duration
	Load0, Load1  string
	Commit        string
	// VirtuosoServer is the Server header of Virtuoso's answers (its version).
	VirtuosoServer string
	Build          *buildStats
	Export         *exportStats
	VirtuosoLoad   time.Duration
	VirtuosoMem    int64
	Results        []queryResult
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
}

func (s storeResult) cell() string {
	switch {
	case errors.Is(s.err, errTimeout):
		return "TIMEOUT"
	case s.err != nil:
		return "ERROR"
	}
	return ms(s.median)
}

// ratio is molgraph's median over Virtuoso's (0 when either failed).
func (r queryResult) ratio() float64 {
	if !r.mg.ok() || !r.vt.ok() || r.vt.median <= 0 {
		return 0
	}
	return float64(r.mg.median) / float64(r.vt.median)
}

func (r queryResult) verdict() string {
	switch {
	case !r.mg.ok() || !r.vt.ok():
		return "not compared"
	case r.mismatch != "":
		return "MISMATCH"
	}
	return "same"
}

func (r queryResult) rows() string {
	switch {
	case r.mg.ok():
		return strconv.Itoa(r.mg.ans.size())
	case r.vt.ok():
		return strconv.Itoa(r.vt.ans.size())
	}
	return "-"
}

func ratioText(x float64) string {
	if x == 0 {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 2, 64) + "x"
}

// line is the progress line printed after each query.
func (r queryResult) line() string {
	s := fmt.Sprintf("  %-28s molgraph %9s ms  virtuoso %9s ms  %8s  %s", r.q.name, r.mg.cell(), r.vt.cell(), ratioText(r.ratio()), r.verdict())
	for _, x := range []struct {
		name string
		s    storeResult
	}{{"molgraph", r.mg}, {"virtuoso", r.vt}} {
		if x.s.err != nil {
			s += fmt.Sprintf("\n    %s: %v", x.name, x.s.err)
		}
	}
	if r.mismatch != "" {
		s += "\n    !!! ANSWERS DIFFER: " + r.mismatch
	}
	return s
}

// geomean of the ratios of the queries both stores answered.
func (rep *report) geomean() (float64, int) {
	var sum float64
	var n int
	for _, r := range rep.Results {
		if x := r.ratio(); x > 0 {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Exp(sum / float64(n)), n
}

// print writes the summary table; ok is false when an answer differs or a
// query failed on either store.
func (rep *report) print(out io.Writer) (ok bool) {
	ok = true
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\trows\tmolgraph ms\tvirtuoso ms\tratio\tanswers\t")
	var over3 []string
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.q.name, r.rows(), r.mg.cell(), r.vt.cell(), ratioText(r.ratio()), r.verdict())
		if r.verdict() != "same" {
			ok = false
		}
		if r.ratio() > 3 {
			over3 = append(over3, r.q.name)
		}
	}
	tw.Flush()
	g, n := rep.geomean()
	fmt.Fprintf(out, "\ngeometric mean of the ratios (molgraph/virtuoso) over %d queries: %s; above 3x: %d %v\n", n, ratioText(g), len(over3), over3)
	if rep.Export != nil {
		fmt.Fprintf(out, "export: %d quads in %s: %.0f quads/s\n", rep.Export.Quads, rep.Export.Duration.Round(time.Millisecond),
			float64(rep.Export.Quads)/rep.Export.Duration.Seconds())
	}
	if rep.VirtuosoLoad > 0 {
		fmt.Fprintf(out, "virtuoso bulk load: %s (%.1f GiB of buffers)\n", rep.VirtuosoLoad.Round(time.Millisecond), float64(rep.VirtuosoMem)/(1<<30))
	}
	if b := rep.Build; b != nil {
		fmt.Fprintf(out, "store built: %d molecules (%d refused) in %s, %d calculations from %d QM logs\n", b.Molecules, b.Failed,
			b.Upload.Round(time.Second), b.Calculations, b.Logs)
	}
	fmt.Fprintf(out, "load average: %s before the queries, %s after\n", rep.Load0, rep.Load1)
	if !ok {
		fmt.Fprintln(out, "\n!!! SOME ANSWERS DIFFER OR SOME QUERIES FAILED (see above); BENCH_CONTINUE=1 makes this exit 0")
	}
	return ok
}

// writeMarkdown writes the report to dir/results-<time>.md and
// dir/latest.md.
func (rep *report) writeMarkdown(dir string, out io.Writer) error {
	var b strings.Builder
	now := time.Now().UTC()
	fmt.Fprintf(&b, "# make bench-sparql, %s\n\n", now.Format(time.RFC3339))
	if rep.Commit != "" {
		fmt.Fprintf(&b, "molgraph %s. ", rep.Commit)
	}
	if rep.VirtuosoServer != "" {
		fmt.Fprintf(&b, "%s. ", rep.VirtuosoServer)
	}
	fmt.Fprintf(&b, "%d generated molecules (seed %d); a warm-up and the median of %d runs per query and store; timeout %s; load average %s before the queries, %s after.\n\n",
		rep.N, rep.Seed, rep.Runs, rep.Timeout, rep.Load0, rep.Load1)
	b.WriteString("| query | what | rows | molgraph ms | Virtuoso ms | ratio | answers |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Results {
		verdict := r.verdict()
		if r.mismatch != "" {
			verdict = "**MISMATCH**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.q.name, strings.ReplaceAll(r.q.title, "|", "\\|"), r.rows(),
			r.mg.cell(), r.vt.cell(), ratioText(r.ratio()), verdict)
	}
	g, n := rep.geomean()
	fmt.Fprintf(&b, "\nGeometric mean of the ratios over %d queries: **%s**.\n", n, ratioText(g))
	if rep.Export != nil {
		fmt.Fprintf(&b, "\nExport (GET /v1/export, N-Quads, uncompressed): %d quads in %s, **%.0f quads/s**.\n",
			rep.Export.Quads, rep.Export.Duration.Round(time.Millisecond), float64(rep.Export.Quads)/rep.Export.Duration.Seconds())
	}
	if rep.VirtuosoLoad > 0 {
		fmt.Fprintf(&b, "\nVirtuoso bulk load (ld_dir, rdf_loader_run, checkpoint): %s.\n", rep.VirtuosoLoad.Round(time.Millisecond))
	}
	for _, r := range rep.Results {
		if r.mismatch != "" {
			fmt.Fprintf(&b, "\nMismatch in %s: %s\n", r.q.name, r.mismatch)
		}
		for _, x := range []struct {
			name string
			s    storeResult
		}{{"molgraph", r.mg}, {"Virtuoso", r.vt}} {
			if x.s.err != nil {
				fmt.Fprintf(&b, "\n%s failed %s: %v\n", x.name, r.q.name, x.s.err)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p := filepath.Join(dir, "results-"+now.Format("20060102T150405Z")+".md")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "latest.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "report: %s\n", p)
	return nil
}
