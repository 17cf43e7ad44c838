// Command molgraph-benchsparql is molgraph's SPARQL benchmark against
// Virtuoso 7 (make bench-sparql, issue 16): the same realistic data in
// both stores, the same queries over HTTP, side by side in one run.
//
//  1. The store: bench/druglike.py writes N drug-like molecules
//     (reaction-based enumeration from RDKit's NCI sample); "molgraph serve"
//     registers them through the batch API (no 3D), a dozen reference drugs
//     through POST /v1/molecules, and the QM logs of ../shared/qm-corpus
//     through POST /v1/qm/parse (calculations linked to their molecules).
//     The data directory is cached under the cache directory, keyed by the
//     generator's version, N, the seed and this driver's store format
//     version, and rebuilt when the server cannot open it.
//  2. The export: GET /v1/export as N-Quads (timed: quads/s).
//  3. Virtuoso (Debian's virtuoso-opensource-7) in a temporary directory
//     with its own virtuoso.ini (bench/sparql/virtuoso.ini), loopback
//     ports, the export bulk-loaded (ld_dir, rdf_loader_run, checkpoint;
//     timed). Its system graph is made private so that its /sparql endpoint
//     sees only the loaded data, as molgraph's union default graph does.
//  4. Every query of bench/sparql/*.rq on both stores over HTTP: a warm-up,
//     then the median of -runs runs, each bounded by -timeout; the answers
//     of the two stores are compared (see answers.go).
//  5. A table: per-query medians, the ratio molgraph/Virtuoso, whether the
//     answers agree, the geometric mean of the ratios, the export rate and
//     the load times; printed and written as Markdown under the cache
//     directory.
//
// It exits 1 when an answer differs or a query fails (unless
// BENCH_CONTINUE=1), 2 when the benchmark could not run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// storeFormat is the version of what the driver puts in the store; bump
// it when the build changes (new inputs, other options) so that cached
// stores are rebuilt.
const storeFormat = 1

// baseIRI is the cached store's base IRI: fixed, so that a cached data
// directory means the same whatever port the server listens on.
const baseIRI = "https://bench.molgraph.example/"

type config struct {
	binary, python, generator, drugs, qmCorpus string
	cacheRoot, queriesDir, iniTemplate         string
	virtuosoBin, isqlBin                       string
	n, seed, runs                              int
	timeout                                    time.Duration
	only                                       *regexp.Regexp
	molgraphURL, molgraphKey, virtuosoURL      string
	export                                     bool
	keepGoing                                  bool
	serveVirtuoso, buildOnly                   bool
	virtuosoMem                                int64
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envBool(name string) bool {
	b, _ := strconv.ParseBool(os.Getenv(name))
	return b
}

func parseFlags(args []string) (config, error) {
	var c config
	home, _ := os.UserHomeDir()
	fs := flag.NewFlagSet("molgraph-benchsparql", flag.ContinueOnError)
	fs.StringVar(&c.binary, "binary", "bin/molgraph", "molgraph binary")
	fs.StringVar(&c.python, "python", "/usr/bin/python3", "Python with RDKit (Debian python3-rdkit)")
	fs.StringVar(&c.generator, "generator", "bench/druglike.py", "molecule generator")
	fs.StringVar(&c.drugs, "drugs", "bench/sparql/reference-drugs.smi", "reference drugs registered one by one")
	fs.StringVar(&c.qmCorpus, "qm-corpus", "../shared/qm-corpus", "QM logs posted to /v1/qm/parse")
	fs.StringVar(&c.cacheRoot, "cache", filepath.Join(home, ".cache", "molgraph", "bench-sparql"), "cache directory (stores, exports, reports)")
	fs.StringVar(&c.queriesDir, "queries", "bench/sparql", "directory of the .rq queries")
	fs.StringVar(&c.iniTemplate, "virtuoso-ini", "bench/sparql/virtuoso.ini", "virtuoso.ini template")
	fs.StringVar(&c.virtuosoBin, "virtuoso-t", "/usr/bin/virtuoso-t", "Virtuoso server binary")
	fs.StringVar(&c.isqlBin, "isql", "/usr/bin/isql-vt", "Virtuoso isql binary")
	fs.IntVar(&c.n, "n", envInt("N", 100_000), "molecules to generate (env N)")
	fs.IntVar(&c.seed, "seed", envInt("SEED", 1), "generator seed (env SEED)")
	fs.IntVar(&c.runs, "runs", envInt("BENCH_RUNS", 5), "timed runs per query and store, after one warm-up (env BENCH_RUNS)")
	fs.DurationVar(&c.timeout, "timeout", 120*time.Second, "per-query timeout on each store")
	only := fs.String("only", os.Getenv("BENCH_QUERIES"), "regular expression: run only the queries whose file name matches (env BENCH_QUERIES)")
	fs.StringVar(&c.molgraphURL, "molgraph", os.Getenv("BENCH_MOLGRAPH"), "base URL of a running molgraph to query instead of the cached store (env BENCH_MOLGRAPH; key: -key)")
	fs.StringVar(&c.molgraphKey, "key", os.Getenv("MOLGRAPH_API_KEY"), "API key of -molgraph (env MOLGRAPH_API_KEY)")
	fs.StringVar(&c.virtuosoURL, "virtuoso", os.Getenv("BENCH_VIRTUOSO"), "SPARQL endpoint of a running Virtuoso loaded with the same export, instead of starting one (env BENCH_VIRTUOSO)")
	fs.BoolVar(&c.export, "export", true, "export the store and measure it (off by default with -virtuoso; env BENCH_EXPORT=0/1)")
	fs.BoolVar(&c.keepGoing, "continue", envBool("BENCH_CONTINUE"), "exit 0 even when answers differ or queries fail (env BENCH_CONTINUE=1)")
	fs.BoolVar(&c.serveVirtuoso, "serve-virtuoso", false, "build/export as needed, start and load Virtuoso, print its endpoint and keep it running until SIGINT/SIGTERM")
	fs.BoolVar(&c.buildOnly, "build-only", false, "build (or check) the cached store, then exit")
	mem := fs.String("virtuoso-mem", "auto", "memory given to Virtuoso's buffers (e.g. 4GiB; auto: twice the export, at least 2 GiB, at most half the available memory)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.n < 1 || c.runs < 1 || c.timeout <= 0 {
		return c, errors.New("-n, -runs and -timeout must be positive")
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return c, fmt.Errorf("-only: %w", err)
		}
		c.only = re
	}
	if c.molgraphURL != "" && c.molgraphKey == "" {
		return c, errors.New("-molgraph needs -key (or MOLGRAPH_API_KEY)")
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if !explicit["export"] {
		c.export = c.virtuosoURL == ""
		if v := os.Getenv("BENCH_EXPORT"); v != "" {
			c.export, _ = strconv.ParseBool(v)
		}
	}
	if *mem != "auto" {
		v, err := parseBytes(*mem)
		if err != nil || v < 256<<20 {
			return c, fmt.Errorf("-virtuoso-mem %q: a size of at least 256MiB, or auto", *mem)
		}
		c.virtuosoMem = v
	}
	return c, nil
}

// parseBytes reads "4GiB", "512MiB", "2G" or a number of bytes.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.m
			break
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v * mult, err
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "molgraph-benchsparql:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ok, err := run(ctx, cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "molgraph-benchsparql:", err)
		os.Exit(2)
	}
	if !ok && !cfg.keepGoing {
		os.Exit(1)
	}
}

// run is the whole benchmark; ok is false when an answer differs or a
// query failed.
func run(ctx context.Context, cfg config, out io.Writer) (ok bool, err error) {
	queries, err := loadQueries(cfg.queriesDir, cfg.only)
	if err != nil {
		return false, err
	}
	if len(queries) == 0 && !cfg.serveVirtuoso && !cfg.buildOnly {
		return false, fmt.Errorf("no query in %s matches", cfg.queriesDir)
	}
	rep := &report{N: cfg.n, Seed: cfg.seed, Runs: cfg.runs, Timeout: cfg.timeout, Load0: loadAvg(), Commit: gitCommit(ctx)}
	storeDir := filepath.Join(cfg.cacheRoot, fmt.Sprintf("druglike-v%s-n%d-s%d-f%d", generatorVersion(ctx, cfg), cfg.n, cfg.seed, storeFormat))

	// molgraph: a running one, or the cached store (built when missing).
	base, key := strings.TrimSuffix(cfg.molgraphURL, "/"), cfg.molgraphKey
	var srv *server
	var lock *os.File
	if base == "" {
		if lock, err = lockStore(ctx, storeDir, out); err != nil {
			return false, err
		}
		defer lock.Close()
		var built *buildStats
		srv, built, err = openStore(ctx, cfg, storeDir, out)
		if err != nil {
			return false, err
		}
		defer srv.stop(out)
		base, key = srv.Base, srv.Key
		rep.Build = built
		fmt.Fprintf(out, "molgraph: serving %s on %s\n", filepath.Join(storeDir, "data"), base)
		if cfg.buildOnly {
			return true, nil
		}
	}
	mg := &endpoint{name: "molgraph", url: base + "/v1/sparql", key: key, client: httpClient(cfg.timeout)}

	// The export, and Virtuoso loaded with it.
	exportDir := filepath.Join(storeDir, "export")
	if cfg.export {
		st, err := exportNQuads(ctx, base, key, exportDir, out)
		if err != nil {
			return false, err
		}
		rep.Export = &st
	}
	vurl := cfg.virtuosoURL
	if vurl == "" {
		if _, err := os.Stat(filepath.Join(exportDir, exportFile)); err != nil {
			return false, fmt.Errorf("no export to load into Virtuoso (%v); run without BENCH_EXPORT=0", err)
		}
		v, err := startVirtuoso(ctx, cfg, exportDir, out)
		if err != nil {
			return false, err
		}
		defer v.stop(out)
		rep.VirtuosoLoad, rep.VirtuosoMem = v.loadTime, v.mem
		vurl = v.sparqlURL
		if cfg.serveVirtuoso {
			if srv != nil {
				srv.stop(out) // only Virtuoso stays up
				lock.Close()  // and other runs may open the store
			}
			fmt.Fprintf(out, "virtuoso: serving %s (pid %d); SIGINT or SIGTERM stops it and removes %s\n", vurl, v.cmd.Process.Pid, v.dir)
			fmt.Fprintf(out, "  BENCH_VIRTUOSO=%s make bench-sparql\n", vurl)
			<-ctx.Done()
			return true, nil
		}
	}
	vt := &endpoint{name: "virtuoso", url: vurl, client: httpClient(cfg.timeout), virtuoso: true, timeout: cfg.timeout}

	fmt.Fprintf(out, "running %d queries: a warm-up and %d timed runs each per store, timeout %s; load average %s\n",
		len(queries), cfg.runs, cfg.timeout, rep.Load0)
	for _, q := range queries {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		r := benchQuery(ctx, q, mg, vt, cfg.runs)
		rep.Results = append(rep.Results, r)
		fmt.Fprintln(out, r.line())
	}
	rep.Load1 = loadAvg()
	rep.VirtuosoServer = vt.server
	ok = rep.print(out)
	if err := rep.writeMarkdown(cfg.cacheRoot, out); err != nil {
		fmt.Fprintln(out, "report:", err)
	}
	return ok, nil
}

// generatorVersion is what `druglike.py --version` prints ("0" when it
// cannot run: the build will say why).
func generatorVersion(ctx context.Context, cfg config) string {
	b, err := commandOutput(ctx, cfg.python, cfg.generator, "--version")
	if v := strings.TrimSpace(string(b)); err == nil && v != "" {
		return v
	}
	return "0"
}

// gitCommit names the checkout the benchmark runs in ("" outside git).
func gitCommit(ctx context.Context) string {
	b, err := commandOutput(ctx, "git", "describe", "--always", "--dirty")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
