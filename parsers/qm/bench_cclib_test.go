package qm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// cclibTimingScript parses each file argument with Debian's python3-cclib
// (cclib.io.ccread, in process, after one untimed warm-up parse) `runs`
// times and prints the median wall time per file in seconds, or the error.
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
        ts = []
        for _ in range(runs):
            t0 = time.perf_counter()
            cclib.io.ccread(f, loglevel=logging.ERROR)
            ts.append(time.perf_counter() - t0)
        out[f] = {"median_s": statistics.median(ts), "runs_s": ts}
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
// ms/log for both and the speed-up (goal ≥ 50). cclib 1.6.2 has no xtb
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
			for b.Loop() {
				if _, err := parse(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
			ours := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(ours*1e3, "ms/log")
			if ref.Error != "" {
				b.Logf("%s: cclib 1.6.2: %s", rel, ref.Error)
				return
			}
			b.ReportMetric(ref.Median*1e3, "cclib_ms/log")
			b.ReportMetric(ref.Median/ours, "x_faster_than_cclib")
		})
	}
}
