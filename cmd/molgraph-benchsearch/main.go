// Command molgraph-benchsearch is `make bench-search`: structure search
// side by side with RDKit's Python tools on the same molecules, in one run.
//
// The molecules are drug-like products of bench/druglike.py (reaction-based
// enumeration from RDKit's NCI sample), cached in -cache. The search index
// is built directly from their SMILES, not through the HTTP API and without
// molecule graphs: each SMILES gets the side entries that registration
// commits (search.Prepare: Morgan and pattern fingerprints, RDKit pickle),
// written to a native (Badger) store in the cache, then search.Open loads
// them as the server does. Two stores: -n molecules for similarity, the
// first -nsub for substructure.
//
// Similarity: -queries molecules of the set (every n/queries-th) as
// queries, threshold 0.7 and top-10, wall time per query (each search uses
// every core), p50/p95; RDKit: BulkTanimotoSimilarity over the same
// fingerprints, one thread, on the first -pyqueries of the queries.
// Substructure: realistic SMARTS (bench/search_queries.txt), all -nsub
// molecules held in memory as RDKit molecules like SubstructLibrary's
// MolHolder (search.Options.CacheMolecules), the median of 3 runs each;
// RDKit: SubstructLibrary (MolHolder + PatternHolder, numThreads=1,
// useChirality=False as molgraph's default), the timing anchor. Hit counts
// are compared; where SubstructLibrary's differs, RDKit counts the query
// again with HasSubstructMatch over every molecule (no screen, untimed):
// RDKit 2022.09's pattern-fingerprint screen drops true hits of some SMARTS
// ([r{5-6};#7], [Z1;C], C/C=C/C), and only a difference from that unscreened
// count is a mismatch. Index memory: the bytes of the in-memory arrays per
// molecule, and the Go heap growth of Open.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/search"
)

func main() {
	n := flag.Int("n", 1000000, "molecules of the similarity set")
	nsub := flag.Int("nsub", 100000, "molecules of the substructure set (the first of the similarity set)")
	nq := flag.Int("queries", 100, "similarity queries (molecules of the set)")
	pyq := flag.Int("pyqueries", 20, "of which RDKit runs the first")
	seed := flag.Int("seed", 1, "bench/druglike.py seed")
	home, _ := os.UserHomeDir()
	cache := flag.String("cache", filepath.Join(home, ".cache", "molgraph", "bench-search"), "cache directory")
	qfile := flag.String("substructure-queries", "bench/search_queries.txt", "substructure queries, one SMARTS per line")
	sim := flag.Bool("similarity", true, "run the similarity part (false: substructure only)")
	match := flag.String("match", "", "run only the substructure queries this regexp matches")
	pains := flag.String("pains", "bench/search_pains.txt", `SMARTS of the second table, timed as one set ("" skips it)`)
	flag.IntVar(&searchWorkers, "workers", 0, "search.Options.Workers (0: GOMAXPROCS)")
	flag.BoolVar(&runRDKit, "rdkit", true, "time RDKit too (false: molgraph's substructure times only, to compare builds)")
	flag.IntVar(&subRounds, "rounds", 3, "runs of each substructure query (the median is reported; more for profiling)")
	flag.Parse()
	if err := run(*n, *nsub, *nq, *pyq, *seed, *cache, *qfile, *sim, *match, *pains); err != nil {
		fmt.Fprintln(os.Stderr, "bench-search:", err)
		os.Exit(1)
	}
}

// subRounds and searchWorkers are -rounds and -workers.
var (
	subRounds, searchWorkers int
	runRDKit                 bool
)

func run(n, nsub, nq, pyq, seed int, cache, qfile string, sim bool, match, painsFile string) error {
	if nsub > n {
		nsub = n
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	smiFile := filepath.Join(cache, fmt.Sprintf("druglike-%d-seed%d.smi", n, seed))
	if _, err := os.Stat(smiFile); err != nil {
		fmt.Printf("generating %d molecules (bench/druglike.py)...\n", n)
		t0 := time.Now()
		cmd := exec.Command("/usr/bin/python3", "bench/druglike.py", "-n", fmt.Sprint(n), "--seed", fmt.Sprint(seed), "-o", smiFile+".tmp")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("druglike.py: %w", err)
		}
		if err := os.Rename(smiFile+".tmp", smiFile); err != nil {
			return err
		}
		fmt.Printf("  %s\n", time.Since(t0).Round(time.Second))
	}
	smiles, err := readSMILES(smiFile)
	if err != nil {
		return err
	}
	if len(smiles) < n {
		fmt.Printf("note: the generator gave %d molecules, not %d\n", len(smiles), n)
		n = len(smiles)
	}
	pool, err := chem.NewPool(0)
	if err != nil {
		return err
	}
	defer pool.Close()
	ctx := context.Background()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("machine: %d cores (GOMAXPROCS), load %s", runtime.GOMAXPROCS(0), load)

	// --- similarity over n
	var queries []string
	var th, top []time.Duration
	var thHits []int
	if sim {
		simStore, simIdx, mem, err := index(ctx, pool, filepath.Join(cache, fmt.Sprintf("store-%d-seed%d", n, seed)), smiles[:n], 0)
		if err != nil {
			return err
		}
		fmt.Printf("\nindex of %d molecules: arrays %.0f bytes/molecule, Go heap growth of Open %.0f bytes/molecule (budget 600)\n",
			simIdx.Len(), float64(simIdx.Bytes())/float64(simIdx.Len()), mem)
		for i := 0; i < nq; i++ {
			queries = append(queries, smiles[(i*(n/nq)+n/(2*nq))%n])
		}
		for _, q := range queries {
			t0 := time.Now()
			h, err := simIdx.Similar(ctx, q, search.SimilarOptions{Threshold: 0.7})
			if err != nil {
				return err
			}
			th = append(th, time.Since(t0))
			thHits = append(thHits, len(h))
			t0 = time.Now()
			if _, err := simIdx.Similar(ctx, q, search.SimilarOptions{Top: 10}); err != nil {
				return err
			}
			top = append(top, time.Since(t0))
		}
		// the substructure store is this one when nsub == n: close it first
		simIdx.Close()
		simStore.Close()
	}
	// --- substructure over nsub
	subStore, subIdx, _, err := index(ctx, pool, filepath.Join(cache, fmt.Sprintf("store-%d-seed%d", nsub, seed)), smiles[:nsub], nsub)
	if err != nil {
		return err
	}
	defer subStore.Close()
	subQueries, err := readLines(qfile)
	if err != nil {
		return err
	}
	if match != "" {
		re, err := regexp.Compile(match)
		if err != nil {
			return fmt.Errorf("-match: %w", err)
		}
		subQueries = slices.DeleteFunc(subQueries, func(q string) bool { return !re.MatchString(q) })
	}
	type subResult struct {
		q    string
		hits int
		med  time.Duration
		cpu  time.Duration // process CPU time (all threads), median
	}
	var subs []subResult
	for _, q := range subQueries {
		var ts, cs []time.Duration
		var hits int
		for r := 0; r < max(1, subRounds); r++ {
			c0 := cpuTime()
			t0 := time.Now()
			h, err := subIdx.Substructure(ctx, q, search.SubOptions{Format: search.FormatSMARTS})
			if err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
			ts = append(ts, time.Since(t0))
			cs = append(cs, cpuTime()-c0)
			hits = len(h)
		}
		subs = append(subs, subResult{q, hits, median(ts), median(cs)})
	}
	// the PAINS set: each query once, CPU and wall time summed
	var pains []string
	var painsHits []int
	var painsWall, painsCPU time.Duration
	if painsFile != "" {
		if pains, err = readLines(painsFile); err != nil {
			return err
		}
		c0 := cpuTime()
		t0 := time.Now()
		for _, q := range pains {
			h, err := subIdx.Substructure(ctx, q, search.SubOptions{Format: search.FormatSMARTS})
			if err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
			painsHits = append(painsHits, len(h))
		}
		painsWall, painsCPU = time.Since(t0), cpuTime()-c0
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("molgraph done; load %s", load)
	if !runRDKit {
		for _, s := range subs {
			fmt.Printf("%-38s %7d %10s %10s\n", s.q, s.hits, s.med.Round(10*time.Microsecond), s.cpu.Round(10*time.Microsecond))
		}
		return nil
	}

	// --- RDKit
	expect := make([]int, len(subs))
	for i, s := range subs {
		expect[i] = s.hits
	}
	qj, _ := json.Marshal(map[string]any{"similarity": queries[:min(pyq, len(queries))], "threshold": 0.7, "top": 10,
		"substructure": subQueries, "nsub": nsub, "nsim": n, "expect": expect,
		"set": pains, "set_expect": painsHits})
	qpath := filepath.Join(cache, "queries.json")
	if err := os.WriteFile(qpath, qj, 0o644); err != nil {
		return err
	}
	if sim {
		fmt.Printf("RDKit Python (one thread): fingerprints of %d molecules, SubstructLibrary of %d...\n", n, nsub)
	} else {
		fmt.Printf("RDKit Python (one thread): SubstructLibrary of %d...\n", nsub)
	}
	cmd := exec.Command("/usr/bin/python3", "bench/search_rdkit.py", smiFile, qpath)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("search_rdkit.py: %w", err)
	}
	var py struct {
		FingerprintSeconds float64 `json:"fingerprint_seconds"`
		LibrarySeconds     float64 `json:"library_seconds"`
		Similarity         []struct {
			Hits             int     `json:"hits"`
			ThresholdSeconds float64 `json:"threshold_seconds"`
			TopSeconds       float64 `json:"top_seconds"`
		} `json:"similarity"`
		Substructure []struct {
			Hits    int     `json:"hits"`
			Seconds float64 `json:"seconds"`
			CPU     float64 `json:"cpu_seconds"`
			// HasSubstructMatch's count, only where Hits differs from ours
			Unscreened *int `json:"unscreened_hits"`
		} `json:"substructure"`
		Set struct {
			Hits       []int   `json:"hits"`
			Seconds    float64 `json:"seconds"`
			CPU        float64 `json:"cpu_seconds"`
			Unscreened []int   `json:"unscreened_hits"` // -1 where not counted
		} `json:"set"`
	}
	if err := json.Unmarshal(out, &py); err != nil {
		return err
	}
	var pth, ptop []time.Duration
	bad := 0
	for i, s := range py.Similarity {
		pth = append(pth, secs(s.ThresholdSeconds))
		ptop = append(ptop, secs(s.TopSeconds))
		if s.Hits != thHits[i] {
			bad++
			fmt.Printf("MISMATCH similarity query %d: molgraph %d hits, RDKit %d\n", i, thHits[i], s.Hits)
		}
	}
	if sim {
		fmt.Printf("\n== similarity over %d molecules (Morgan r2 2048, Tanimoto)\n", n)
		fmt.Printf("%-22s %12s %12s %12s\n", "", "p50", "p95", "target p50")
		fmt.Printf("%-22s %12s %12s %12s\n", "molgraph >= 0.7", median(th), pct(th, 95), "20ms")
		fmt.Printf("%-22s %12s %12s %12s\n", "molgraph top-10", median(top), pct(top, 95), "50ms")
		fmt.Printf("%-22s %12s %12s\n", "RDKit Bulk >= 0.7", median(pth), pct(pth, 95))
		fmt.Printf("%-22s %12s %12s\n", "RDKit Bulk top-10", median(ptop), pct(ptop, 95))
		fmt.Printf("hit counts (>= 0.7) equal on the %d queries RDKit ran: %v\n", len(py.Similarity), bad == 0)
	}
	fmt.Printf("\n== substructure over %d molecules (SMARTS; RDKit SubstructLibrary MolHolder+PatternHolder, 1 thread)\n", nsub)
	fmt.Printf("times: molgraph beside SubstructLibrary (the anchor). hits: molgraph's; where SubstructLibrary's differ,\n" +
		"checked against RDKit's unscreened HasSubstructMatch over the same molecules (not timed)\n")
	fmt.Printf("%-38s %7s %10s %10s %7s | %10s %10s %7s\n", "query", "hits", "molgraph", "RDKit", "ratio", "mg CPU", "RDKit CPU", "ratio")
	var ratios, cratios []float64
	dropped, badBefore := 0, bad
	for i, s := range subs {
		p := py.Substructure[i]
		ratio := p.Seconds / s.med.Seconds()
		ratios = append(ratios, ratio)
		cratio := p.CPU / max(s.cpu.Seconds(), 1e-6)
		cratios = append(cratios, cratio)
		mark := ""
		switch {
		case p.Hits == s.hits:
		case p.Unscreened != nil && *p.Unscreened == s.hits:
			mark = fmt.Sprintf("  equal to HasSubstructMatch (SubstructLibrary screen dropped %d)", s.hits-p.Hits)
			dropped++
		case p.Unscreened != nil:
			mark = fmt.Sprintf("  MISMATCH SubstructLibrary %d, HasSubstructMatch %d", p.Hits, *p.Unscreened)
			bad++
		default:
			mark = fmt.Sprintf("  MISMATCH SubstructLibrary %d (no unscreened count)", p.Hits)
			bad++
		}
		fmt.Printf("%-38s %7d %10s %10s %6.1fx | %10s %10s %6.1fx%s\n", s.q, s.hits, s.med.Round(10*time.Microsecond), secs(p.Seconds).Round(10*time.Microsecond), ratio,
			s.cpu.Round(10*time.Microsecond), secs(p.CPU).Round(10*time.Microsecond), cratio, mark)
	}
	fmt.Printf("hit counts: %d of %d queries equal to SubstructLibrary, %d more equal to unscreened HasSubstructMatch (SubstructLibrary's screen drops hits), %d mismatches\n",
		len(subs)-dropped-(bad-badBefore), len(subs), dropped, bad-badBefore)
	slices.Sort(ratios)
	slices.Sort(cratios)
	if len(ratios) > 0 {
		fmt.Printf("speed-up over SubstructLibrary (wall): min %.1fx, median %.1fx (target: every query >= 10x)\n", ratios[0], ratios[len(ratios)/2])
		fmt.Printf("CPU time ratio (RDKit's CPU / molgraph's CPU on all threads): min %.1fx, median %.1fx\n", cratios[0], cratios[len(cratios)/2])
	}
	if len(pains) > 0 {
		if len(py.Set.Hits) != len(pains) {
			return fmt.Errorf("search_rdkit.py answered %d of the %d set queries", len(py.Set.Hits), len(pains))
		}
		total, dropped, mism := 0, 0, 0
		for i, h := range painsHits {
			total += h
			switch p := py.Set.Hits[i]; {
			case p == h:
			case py.Set.Unscreened[i] == h:
				dropped++
			default:
				mism++
				fmt.Printf("MISMATCH %s: molgraph %d hits, SubstructLibrary %d, HasSubstructMatch %d\n", pains[i], h, p, py.Set.Unscreened[i])
			}
		}
		bad += mism
		fmt.Printf("\n== %s as one set: %d SMARTS over %d molecules, each once\n", painsFile, len(pains), nsub)
		fmt.Printf("%-22s %12s %12s %12s\n", "", "hits", "wall", "CPU")
		fmt.Printf("%-22s %12d %12s %12s\n", "molgraph", total, painsWall.Round(time.Millisecond), painsCPU.Round(time.Millisecond))
		fmt.Printf("%-22s %12s %12s %12s\n", "RDKit SubstructLibrary", "", secs(py.Set.Seconds).Round(time.Millisecond), secs(py.Set.CPU).Round(time.Millisecond))
		fmt.Printf("ratio (RDKit / molgraph): wall %.1fx, CPU %.1fx; hit counts: %d equal, %d equal to unscreened HasSubstructMatch (SubstructLibrary's screen drops hits), %d mismatches\n",
			py.Set.Seconds/max(painsWall.Seconds(), 1e-6), py.Set.CPU/max(painsCPU.Seconds(), 1e-6), len(pains)-dropped-mism, dropped, mism)
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("load at the end: %s", load)
	if bad > 0 {
		return fmt.Errorf("%d result mismatches", bad)
	}
	return nil
}

// index opens (building it on first use) a store of the molecules' search
// entries and loads the index; mem is the Go heap growth of Open per
// molecule.
func index(ctx context.Context, pool *chem.Pool, dir string, smiles []string, cacheMols int) (*graph.Store, *search.Index, float64, error) {
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err != nil {
		os.RemoveAll(dir)
		fmt.Printf("building the entries of %d molecules in %s...\n", len(smiles), dir)
		t0 := time.Now()
		st, err := graph.Open(dir, graph.Options{})
		if err != nil {
			return nil, nil, 0, err
		}
		const chunk = 4096
		var next atomic.Int64
		var mu sync.Mutex
		var werr error
		var wg sync.WaitGroup
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					start := int(next.Add(chunk)) - chunk
					if start >= len(smiles) {
						return
					}
					var kvs []graph.SideEntry
					for _, s := range smiles[start:min(start+chunk, len(smiles))] {
						e, err := search.Prepare(ontology.MoleculeID(s), s, "")
						if err != nil {
							continue
						}
						kvs = append(kvs, e...)
					}
					if err := st.PutSide(ctx, kvs); err != nil {
						mu.Lock()
						werr = err
						mu.Unlock()
						return
					}
				}
			}()
		}
		wg.Wait()
		if werr != nil {
			return nil, nil, 0, werr
		}
		st.Close()
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return nil, nil, 0, err
		}
		fmt.Printf("  %s\n", time.Since(t0).Round(time.Second))
	}
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		return nil, nil, 0, err
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rss0 := rssBytes()
	t0 := time.Now()
	x, err := search.Open(ctx, st, pool, "http://localhost:8080/", search.Options{NoGraphCheck: true, CacheMolecules: cacheMols, Workers: searchWorkers})
	if err != nil {
		st.Close()
		return nil, nil, 0, err
	}
	took := time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&after)
	fmt.Printf("loaded %d molecules in %s (%d held as RDKit molecules); RSS growth %.0f bytes/molecule\n",
		x.Len(), took.Round(time.Millisecond), cacheMols, float64(rssBytes()-rss0)/float64(max(1, x.Len())))
	return st, x, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(max(1, x.Len())), nil
}

// cpuTime is the CPU time the process has used (user + system, all
// threads): beside wall time, the figure a loaded machine disturbs least.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssBytes is the process's resident set (Linux), 0 if unknown.
func rssBytes() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			var kb int64
			fmt.Sscan(f[1], &kb)
			return kb << 10
		}
	}
	return 0
}

func readSMILES(path string) ([]string, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, strings.Fields(l)[0])
	}
	return out, nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func median(ts []time.Duration) time.Duration { return pct(ts, 50) }

func pct(ts []time.Duration, p int) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[min(len(s)-1, (len(s)*p)/100)].Round(10 * time.Microsecond)
}
