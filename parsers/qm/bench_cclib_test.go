package qm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// cclibTimingScript parses each file argument with Debian's python3-cclib
// (cclib.io.ccread, in process, after one untimed warm-up parse) `runs`
// times and prints the median wall and CPU (process) time per file in
// seconds, or the error.
const cclibTimingScript = `
import sys, json, time, logging, statistics
import cclib
runs = int(sys.argv[1])
out = {}
for f in sys.argv[2:]:
    try:
        d = cclib.io.ccread(f, loglevel=logging.ERROR)
        if d is None:
            out[f] = {"error": "ccread returned None (format not recognised)"}
            continue
        ts, cs = [], []
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            cclib.io.ccread(f, loglevel=logging.ERROR)
            ts.append(time.perf_counter() - t0)
            cs.append(time.process_time() - c0)
        out[f] = {"median_s": statistics.median(ts), "cpu_median_s": statistics.median(cs), "runs_s": ts}
    except Exception as e:
        out[f] = {"error": repr(e)}
print(json.dumps(out))
`

// liveCclibFiles are the logs timed side by side with cclib in one run: the
// three largest NWChem logs and the xtb log of the corpus.
var liveCclibFiles = []string{
	"nwchem/NWChem6.0/dvb_gopt_hf_unconverged.out",
	"nwchem/basicNWChem7.0/dvb_gopt_ks.out",
	"nwchem/basicNWChem7.0/dvb_ir.out",
	"xtb/generated/water_gfn2_ohess.out",
}

// BenchmarkVsCclibLive times Debian's python3-cclib (in process, median of
// 5 parses) and our parser on the same files in the same run and reports
// wall and CPU ms/log for both and the ratios (goal ≥ 50). cclib is timed
// just before and just after our parser on each file and its faster
// median counts, so that a change of load during the run does not favour
// us; the CPU ratio is the one to trust on a loaded machine. cclib 1.6.2
// has no xtb parser (it hands the file to Open Babel, which reads the
// coordinates only): the xtb file reports our time and no ratio. Skips if
// python3-cclib is not installed.
func BenchmarkVsCclibLive(b *testing.B) {
	if err := exec.Command(qmtest.DebianPython, "-c", "import cclib").Run(); err != nil {
		b.Skip("python3-cclib not installed (Debian package python3-cclib)")
	}
	root := qmtest.CorpusDir(b)
	files := append([]string(nil), liveCclibFiles...)
	sort.Strings(files)
	for _, rel := range files {
		path := filepath.Join(root, rel)
		b.Run(filepath.Base(filepath.Dir(rel))+"/"+filepath.Base(rel), func(b *testing.B) {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			parse := parserFor(rel)
			before := cclibTiming(b, path)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := parse(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
			ours := b.Elapsed().Seconds() / float64(b.N)
			oursCPU := (processCPU() - cpu0) / float64(b.N)
			after := cclibTiming(b, path)
			b.ReportMetric(ours*1e3, "ms/log")
			b.ReportMetric(oursCPU*1e3, "cpu_ms/log")
			if strings.HasPrefix(rel, "xtb/") {
				b.Logf("%s: cclib 1.6.2 has no xtb parser (Open Babel reads the coordinates only): no ratio", rel)
				return
			}
			if before.Error != "" || after.Error != "" {
				b.Logf("%s: cclib 1.6.2: %s%s", rel, before.Error, after.Error)
				return
			}
			wall, cpu := min(before.Median, after.Median), min(before.CPU, after.CPU)
			b.ReportMetric(wall*1e3, "cclib_ms/log")
			b.ReportMetric(wall/ours, "x_faster_than_cclib")
			if oursCPU > 0 {
				b.ReportMetric(cpu*1e3, "cclib_cpu_ms/log")
				b.ReportMetric(cpu/oursCPU, "x_less_cpu_than_cclib")
			}
		})
	}
}

// cclibResult is one file's timing by cclibTimingScript.
type cclibResult struct {
	Median float64 `json:"median_s"`
	CPU    float64 `json:"cpu_median_s"`
	Error  string  `json:"error"`
}

// cclibTiming runs cclibTimingScript (5 timed parses) on one file.
func cclibTiming(b *testing.B, path string) cclibResult {
	b.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, qmtest.DebianPython, "-c", cclibTimingScript, "5", path).Output()
	if err != nil {
		b.Fatalf("cclib timing: %v", err)
	}
	// cclib may print notices ("Could not import openbabel") first: the
	// result is the last line.
	out = bytes.TrimSpace(out)
	out = out[bytes.LastIndexByte(out, '\n')+1:]
	var res map[string]cclibResult
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("cclib timing output %s: %v", out, err)
	}
	return res[path]
}

// processCPU returns the user and system CPU time of this process so far,
// in seconds (getrusage; 0 where unavailable).
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
