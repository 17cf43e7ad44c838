package qm_test

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"
	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
	"github.com/molgraph/molgraph/parsers/xtb"
)

// bigLogSize is the size of the synthetic log of the big-log benchmark.
const bigLogSize = 100 << 20

// bigLog describes how to grow a corpus optimisation log: its first two
// optimisation steps (from the line holding the first occurrence of marker
// to the line holding the third) are repeated until the log reaches
// bigLogSize. Two steps, not one, so that consecutive geometries differ (the
// parsers rightly drop a geometry printed twice in a row).
type bigLog struct {
	name, rel, marker string
	parse             qmtest.ParseFunc
	noStepGeometry    bool // the program prints no geometry per optimisation step (xtb)
}

var bigLogs = []bigLog{
	{"gaussian", "gaussian/basicGaussian16/dvb_gopt.out", "Input orientation:", gaussian.Parse, false},
	{"orca", "orca/basicORCA5.0/dvb_gopt.out", "GEOMETRY OPTIMIZATION CYCLE", orca.Parse, false},
	{"nwchem", "nwchem/basicNWChem7.0/dvb_gopt_ks.out", "          Step   ", nwchem.Parse, false},
	{"xtb", "xtb/generated/water_gfn2_ohess.out", " CYCLE ", xtb.Parse, true},
}

// stepReader streams prefix, then step n times, then suffix, without
// materialising the whole log.
type stepReader struct {
	parts [3][]byte
	n     int // repetitions of parts[1] still to send after the current one
	cur   []byte
	stage int
}

func newStepReader(prefix, step, suffix []byte, n int) *stepReader {
	return &stepReader{parts: [3][]byte{prefix, step, suffix}, n: n, cur: prefix}
}

func (r *stepReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		switch {
		case r.stage == 0:
			r.stage, r.cur = 1, r.parts[1]
		case r.stage == 1 && r.n > 1:
			r.n--
			r.cur = r.parts[1]
		case r.stage == 1:
			r.stage, r.cur = 2, r.parts[2]
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// split cuts data at the starts of the lines holding the first and third
// occurrences of marker.
func split(tb testing.TB, data []byte, marker string) (prefix, step, suffix []byte) {
	tb.Helper()
	var starts []int
	for off := 0; len(starts) < 3; {
		i := bytes.Index(data[off:], []byte(marker))
		if i < 0 {
			tb.Fatalf("fewer than 3 occurrences of %q", marker)
		}
		at := off + i
		starts = append(starts, bytes.LastIndexByte(data[:at], '\n')+1)
		off = at + len(marker)
	}
	return data[:starts[0]], data[starts[0]:starts[2]], data[starts[2]:]
}

// memSample records, while a parse runs, the peak of the Go heap (live and
// not yet collected objects, from runtime/metrics) and of the process's
// resident set (/proc/self/statm, Linux; 0 elsewhere), sampled every 2 ms.
type memSample struct {
	stop          chan struct{}
	wg            sync.WaitGroup
	peak, rssPeak uint64
}

// rss returns the current resident set size in bytes (0 if unknown).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

func sampleHeap() *memSample {
	m := &memSample{stop: make(chan struct{})}
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > m.peak {
				m.peak = v
			}
			if v := rss(); v > m.rssPeak {
				m.rssPeak = v
			}
			select {
			case <-m.stop:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *memSample) done() (heap, rss uint64) { close(m.stop); m.wg.Wait(); return m.peak, m.rssPeak }

const mb = 1 << 20

// BenchmarkBigLog parses a ~100 MB Gaussian and ORCA log, made by repeating
// one optimisation step of a corpus log and streamed through an io.Reader
// (never held in memory). Goals (issue 6): ≤ 2 s per log and ≤ 50 MB RSS
// growth. It reports the parse time (s/log), the growth of the resident set
// during the parse (sampled peak of /proc/self/statm minus its value
// before), the growth of the process's peak RSS (getrusage maxrss, a
// high-water mark: 0 when an earlier phase of the process peaked higher), the growth of the Go runtime's memory from the
// OS (MemStats.Sys), the peak Go heap during the parse (live and garbage),
// the heap retained by the result after a GC (MemStats.HeapInuse), and the
// number of geometries the result keeps.
func BenchmarkBigLog(b *testing.B) {
	for _, bl := range bigLogs {
		b.Run(bl.name, func(b *testing.B) {
			data := qmtest.Read(b, bl.rel)
			prefix, step, suffix := split(b, data, bl.marker)
			n := (bigLogSize - len(prefix) - len(suffix)) / len(step)
			size := int64(len(prefix) + n*len(step) + len(suffix))
			b.SetBytes(size)

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			maxRSS0 := sharedtest.PeakRSSMB()
			var heapPeak, rssPeak uint64
			rss0 := rss()
			var c *qm.Calculation
			var err error
			var parseTime time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c = nil
				s := sampleHeap()
				t0 := time.Now()
				c, err = bl.parse(newStepReader(prefix, step, suffix, n))
				parseTime += time.Since(t0)
				h, r := s.done()
				heapPeak, rssPeak = max(heapPeak, h), max(rssPeak, r)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			sysGrowth := int64(after.Sys) - int64(before.Sys)
			runtime.GC()
			runtime.ReadMemStats(&after)
			retained := int64(after.HeapInuse) - int64(before.HeapInuse)
			maxRSSGrowthMB := sharedtest.PeakRSSMB() - maxRSS0
			rssGrowth := int64(rssPeak) - int64(rss0)

			// The stream must have been parsed as one long optimisation.
			if !c.NormalTermination || c.Optimization == nil || len(c.Geometries) < n && !bl.noStepGeometry || len(c.SCF) < n {
				b.Fatalf("%d MB %s log: normal termination %v, optimization %+v, %d geometries, %d SCF; want ≥ %d steps",
					size/mb, bl.name, c.NormalTermination, c.Optimization, len(c.Geometries), len(c.SCF), n)
			}
			runtime.KeepAlive(c)
			perLog := parseTime.Seconds() / float64(b.N)
			b.ReportMetric(perLog, "s/log")
			b.ReportMetric(float64(size)/mb, "MB_log")
			b.ReportMetric(float64(rssGrowth)/mb, "MB_rss_peak_growth")
			b.ReportMetric(maxRSSGrowthMB, "MB_maxrss_growth")
			b.ReportMetric(float64(sysGrowth)/mb, "MB_sys_growth")
			b.ReportMetric(float64(heapPeak-before.HeapAlloc)/mb, "MB_heap_peak_growth")
			b.ReportMetric(float64(retained)/mb, "MB_retained")
			b.ReportMetric(float64(len(c.Geometries)), "geometries")
			b.Logf("%s: %.0f MB (%d repetitions of %d B) in %.3f s; RSS peak +%.1f MB (getrusage maxrss +%.1f MB), Sys +%.1f MB, heap peak +%.1f MB, retained %.1f MB for %d geometries and %d SCF records (goals: ≤ 2 s, ≤ 50 MB)",
				bl.name, float64(size)/mb, n, len(step), perLog, float64(rssGrowth)/mb, maxRSSGrowthMB, float64(sysGrowth)/mb,
				float64(heapPeak-before.HeapAlloc)/mb, float64(retained)/mb, len(c.Geometries), len(c.SCF))
		})
	}
}

// TestBigLogStream checks the generator of BenchmarkBigLog and that a
// multi-step log grown from a corpus log parses as the original plus the
// repeated steps (a small stream, fast enough for every test run).
func TestBigLogStream(t *testing.T) {
	for _, bl := range bigLogs {
		t.Run(bl.name, func(t *testing.T) {
			data := qmtest.Read(t, bl.rel)
			prefix, step, suffix := split(t, data, bl.marker)
			got, err := io.ReadAll(newStepReader(prefix, step, suffix, 1))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("one repetition does not give back the log (%v)", err)
			}
			orig, err := bl.parse(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			// Each repetition adds the same number of geometries and SCF
			// solutions (ORCA counts optimisation cycles by their printed
			// number, which repeats, so steps are counted here by geometry).
			one, err := bl.parse(newStepReader(prefix, step, suffix, 2))
			if err != nil {
				t.Fatal(err)
			}
			dg, ds := len(one.Geometries)-len(orig.Geometries), len(one.SCF)-len(orig.SCF)
			if dg < 1 && !bl.noStepGeometry || ds < 1 {
				t.Fatalf("one more repetition added %d geometries and %d SCF solutions", dg, ds)
			}
			const extra = 10
			grown, err := bl.parse(newStepReader(prefix, step, suffix, 1+extra))
			if err != nil {
				t.Fatal(err)
			}
			if len(grown.Geometries) != len(orig.Geometries)+extra*dg || len(grown.SCF) != len(orig.SCF)+extra*ds ||
				grown.Optimization == nil || !grown.Optimization.Converged || !grown.NormalTermination {
				t.Errorf("grown log: %d geometries, %d SCF, optimization %+v, normal termination %v; want %d and %d",
					len(grown.Geometries), len(grown.SCF), grown.Optimization, grown.NormalTermination,
					len(orig.Geometries)+extra*dg, len(orig.SCF)+extra*ds)
			}
			fe, _ := orig.FinalEnergy()
			ge, _ := grown.FinalEnergy()
			if fe != ge || len(grown.Frequencies) != len(orig.Frequencies) {
				t.Errorf("final energy %v vs %v, %d vs %d frequencies", ge, fe, len(grown.Frequencies), len(orig.Frequencies))
			}
		})
	}
}

// cclibTimings returns cclib master's in-process parse times of the three
// largest corpus logs (cclib_reference_head.json, timing_3_largest_files:
// median of 3 runs of cclib.io.ccread on a 2-core Debian 12 VM).
func cclibTimings(tb testing.TB) map[string]float64 {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(qmtest.CorpusDir(tb), "cclib_reference_head.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var ref struct {
		Timing struct {
			Results map[string]struct {
				Bytes  int64     `json:"bytes"`
				Median float64   `json:"median_s"`
				Error  *string   `json:"error"`
				Runs   []float64 `json:"runs_s"`
			} `json:"results"`
		} `json:"timing_3_largest_files"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		tb.Fatal(err)
	}
	out := map[string]float64{}
	for rel, r := range ref.Timing.Results {
		if r.Error == nil && r.Median > 0 {
			out[rel] = r.Median
		}
	}
	if len(out) != 3 {
		tb.Fatalf("cclib timings: %d files, want 3", len(out))
	}
	return out
}

// parserFor returns the parser of a corpus path's program folder.
func parserFor(rel string) qmtest.ParseFunc {
	switch {
	case strings.HasPrefix(rel, "gaussian/"):
		return gaussian.Parse
	case strings.HasPrefix(rel, "orca/"):
		return orca.Parse
	case strings.HasPrefix(rel, "psi4/"):
		return psi4.Parse
	case strings.HasPrefix(rel, "nwchem/"):
		return nwchem.Parse
	case strings.HasPrefix(rel, "xtb/"):
		return xtb.Parse
	}
	return nil
}

// BenchmarkVsCclib parses the three largest corpus logs (those whose cclib
// master parse times the corpus records) and reports MB/s, our time per log
// and cclib's, and the speed-up cclib_s/our_s (goal ≥ 50).
func BenchmarkVsCclib(b *testing.B) {
	timings := cclibTimings(b)
	for _, rel := range slices.Sorted(maps.Keys(timings)) {
		b.Run(filepath.Base(filepath.Dir(rel))+"/"+filepath.Base(rel), func(b *testing.B) {
			data := qmtest.Read(b, rel)
			parse := parserFor(rel)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parse(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
			ours := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(ours*1e3, "ms/log")
			b.ReportMetric(timings[rel]*1e3, "cclib_ms/log")
			b.ReportMetric(timings[rel]/ours, "x_faster_than_cclib")
		})
	}
}

// BenchmarkParser reports MB/s per parser on each program's largest corpus
// log.
func BenchmarkParser(b *testing.B) {
	for _, folder := range []string{"gaussian", "orca", "psi4", "nwchem", "xtb"} {
		var largest string
		var size int64
		for _, rel := range qmtest.Logs(b, folder) {
			fi, err := os.Stat(filepath.Join(qmtest.CorpusDir(b), rel))
			if err != nil {
				b.Fatal(err)
			}
			if fi.Size() > size {
				largest, size = rel, fi.Size()
			}
		}
		b.Run(folder, func(b *testing.B) {
			data := qmtest.Read(b, largest)
			parse := parserFor(largest)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parse(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("%s: %s (%d B)", folder, largest, len(data))
		})
	}
}
