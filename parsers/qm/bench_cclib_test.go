package qm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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
// wall and CPU ms/log for both and the ratios (goal ≥ 50); the CPU ratio
// is the one to trust on a loaded machine. cclib 1.6.2 has no xtb
// parser: the xtb file reports our time and cclib's error only. Skips if
// python3-cclib is not installed.
func BenchmarkVsCclibLive(b *testing.B) {
	if err := exec.Command(qmtest.DebianPython, "-c", "import cclib").Run(); err != nil {
		b.Skip("python3-cclib not installed (Debian package python3-cclib)")
	}
	root := qmtest.CorpusDir(b)
	args := []string{"-c", cclibTimingScript, "5"}
	for _, rel := range liveCclibFiles {
		args = append(args, filepath.Join(root, rel))
	}
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, qmtest.DebianPython, args...).Output()
	if err != nil {
		b.Fatalf("cclib timing: %v", err)
	}
	var cclib map[string]struct {
		Median float64 `json:"median_s"`
		CPU    float64 `json:"cpu_median_s"`
		Error  string  `json:"error"`
	}
	// cclib may print notices ("Could not import openbabel") first: the
	// result is the last line.
	out = bytes.TrimSpace(out)
	out = out[bytes.LastIndexByte(out, '\n')+1:]
	if err := json.Unmarshal(out, &cclib); err != nil {
		b.Fatalf("cclib timing output %s: %v", out, err)
	}
	files := append([]string(nil), liveCclibFiles...)
	sort.Strings(files)
	for _, rel := range files {
		ref := cclib[filepath.Join(root, rel)]
		b.Run(filepath.Base(filepath.Dir(rel))+"/"+filepath.Base(rel), func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				b.Fatal(err)
			}
			parse := parserFor(rel)
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
			b.ReportMetric(ours*1e3, "ms/log")
			b.ReportMetric(oursCPU*1e3, "cpu_ms/log")
			if ref.Error != "" {
				b.Logf("%s: cclib 1.6.2: %s", rel, ref.Error)
				return
			}
			b.ReportMetric(ref.Median*1e3, "cclib_ms/log")
			b.ReportMetric(ref.Median/ours, "x_faster_than_cclib")
			// CPU time is what a loaded machine distorts least.
			if oursCPU > 0 {
				b.ReportMetric(ref.CPU*1e3, "cclib_cpu_ms/log")
				b.ReportMetric(ref.CPU/oursCPU, "x_less_cpu_than_cclib")
			}
		})
	}
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
