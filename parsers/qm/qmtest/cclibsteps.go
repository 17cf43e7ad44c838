package qmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/molgraph/molgraph/parsers/qm"
)

// DebianPython is the interpreter of Debian's python3-cclib (a pyenv or
// virtualenv python3 on PATH may not see the Debian package).
const DebianPython = "/usr/bin/python3"

// cclibScript prints, for each file argument, the SCF energies cclib parses
// (converted back to Eh with cclib's own constant) and the vibrational
// wavenumbers (cm⁻¹), or null.
const cclibScript = `
import sys, json, logging
import cclib
out = []
for f in sys.argv[1:]:
    try:
        d = cclib.io.ccread(f, loglevel=logging.ERROR)
    except Exception as e:
        out.append({"error": repr(e)})
        continue
    e = getattr(d, "scfenergies", None) if d is not None else None
    v = getattr(d, "vibfreqs", None) if d is not None else None
    out.append({"scf": None if e is None else [float(x) / 27.21138505 for x in e],
                "vib": None if v is None else [float(x) for x in v]})
print(json.dumps(out))
`

// CclibStepEnergies splits data into job steps at the lines for which
// boundary returns true (split before them when before, after them
// otherwise), prefixes every step but the first with data[:prefixEnd] (the
// program's banner, which cclib needs to recognise the file), runs Debian's
// python3-cclib on each step as its own file and returns the SCF energies
// cclib parses per step (nil for a step cclib could not parse). It skips
// the test if python3-cclib is not installed.
func CclibStepEnergies(t *testing.T, data []byte, prefixEnd int, before bool, boundary func(line []byte) bool) [][]float64 {
	t.Helper()
	return StepSCF(CclibSteps(t, data, prefixEnd, before, boundary))
}

// StepSCF is the SCF energies of each of steps.
func StepSCF(steps []CclibStep) [][]float64 {
	energies := make([][]float64, len(steps))
	for i, s := range steps {
		energies[i] = s.SCF
	}
	return energies
}

// CclibStep is what Debian's cclib parses from one step's text: SCF
// energies (Eh) and vibrational wavenumbers (cm⁻¹), nil where it found none.
type CclibStep struct {
	SCF, Vib []float64
}

// CclibSteps is CclibStepEnergies with the wavenumbers too.
func CclibSteps(t *testing.T, data []byte, prefixEnd int, before bool, boundary func(line []byte) bool) []CclibStep {
	t.Helper()
	if _, err := os.Stat(DebianPython); err != nil {
		t.Skipf("%s not found: cclib reference for the steps not computed", DebianPython)
	}
	if err := exec.Command(DebianPython, "-c", "import cclib").Run(); err != nil {
		t.Skip("python3-cclib not installed (Debian package python3-cclib): cclib reference for the steps not computed")
	}
	var steps [][]byte
	start := 0
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		if boundary(data[off:next]) {
			cut := next
			if before {
				cut = off
			}
			if cut > start {
				steps = append(steps, data[start:cut])
			}
			start = cut
		}
		off = next
	}
	if start < len(data) && len(bytes.TrimSpace(data[start:])) > 0 {
		steps = append(steps, data[start:])
	}
	dir := t.TempDir()
	var files []string
	for i, s := range steps {
		f := filepath.Join(dir, fmt.Sprintf("step%d.out", i+1))
		content := s
		if i > 0 {
			content = append(append([]byte(nil), data[:prefixEnd]...), s...)
		}
		if err := os.WriteFile(f, content, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, DebianPython, append([]string{"-c", cclibScript}, files...)...).Output()
	if err != nil {
		t.Fatalf("cclib: %v", err)
	}
	var res []struct {
		SCF   []float64 `json:"scf"`
		Vib   []float64 `json:"vib"`
		Error string    `json:"error"`
	}
	out = bytes.TrimSpace(out) // the result is the last line, after any notices cclib prints
	out = out[bytes.LastIndexByte(out, '\n')+1:]
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(steps) {
		t.Fatalf("cclib output %s: %v", out, err)
	}
	parsed := make([]CclibStep, len(res))
	for i, r := range res {
		if r.Error != "" {
			t.Logf("cclib on step %d: %s", i+1, r.Error)
		}
		parsed[i] = CclibStep{SCF: r.SCF, Vib: r.Vib}
	}
	return parsed
}

// CheckStepEnergies compares each step's SCF energies with cclib's for that
// step (same count, each within TolEnergy) and returns the number compared.
func CheckStepEnergies(t *testing.T, name string, c *qm.Calculation, ref [][]float64) int {
	t.Helper()
	if len(c.Steps) != len(ref) {
		t.Fatalf("%s: %d steps, cclib was given %d", name, len(c.Steps), len(ref))
	}
	n := 0
	for i, s := range c.Steps {
		got := s.SCFEnergies()
		if ref[i] == nil {
			t.Errorf("%s step %d: cclib parsed no SCF energies", name, i+1)
			continue
		}
		if len(got) != len(ref[i]) {
			t.Errorf("%s step %d: %d SCF energies %v, cclib %d %v", name, i+1, len(got), got, len(ref[i]), ref[i])
			continue
		}
		for k := range got {
			n++
			if math.Abs(got[k]-ref[i][k]) > TolEnergy {
				t.Errorf("%s step %d SCF %d: %.9f, cclib %.9f", name, i+1, k+1, got[k], ref[i][k])
			}
		}
	}
	return n
}
