package xtb_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/xtb"
)

// TestG98Refused: the g98.out files xtb 6.5.1 wrote beside three held-out
// runs (--hess on water, --ohess on NH4+ and on glycine with ALPB; see
// testdata/heldout) start with a Gaussian 98 banner but hold only the
// geometry and normal modes. They were parsed as an empty Gaussian
// calculation; now detection refuses them with ErrUnsupportedLog naming
// the file, also when the caller names a program. The run's standard
// output beside each is an xtb log with the same frequencies.
func TestG98Refused(t *testing.T) {
	tb := qm.Table{gaussian.Parser{}, xtb.Parser{}}
	for _, name := range []string{"water_hess", "nh4_ohess", "glycine_alpb"} {
		data, err := os.ReadFile(filepath.Join("testdata", "heldout", name+".g98.out"))
		if err != nil {
			t.Fatal(err)
		}
		if p, err := qm.Detect(data); !errors.Is(err, qm.ErrUnsupportedLog) || !strings.Contains(err.Error(), "g98.out") {
			t.Errorf("%s: detected %q, %v", name, p, err)
		}
		for _, program := range []string{"", "gaussian", "xtb"} {
			if c, err := tb.Parse(bytes.NewReader(data), program); !errors.Is(err, qm.ErrUnsupportedLog) || !strings.Contains(err.Error(), "xtb's standard output") {
				t.Errorf("%s (program %q): %v, %v", name, program, c, err)
			}
		}
		// The standard output of the same run is an xtb log with the
		// frequencies the g98.out lists ("Frequencies --  1558.9182 …").
		log, err := os.ReadFile(filepath.Join("testdata", "heldout", name+".out"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := tb.Parse(bytes.NewReader(log), "")
		if err != nil || c.Program != qm.XTB || len(c.Frequencies) == 0 {
			t.Fatalf("%s.out: %v %v", name, c, err)
		}
		g98 := printed(t, data, `Frequencies --\s+(\S+)`)
		if c.Frequencies[0] != round2(g98[0]) {
			t.Errorf("%s: first frequency %v, g98.out %v", name, c.Frequencies[0], g98[0])
		}
	}
}

// round2: the standard output prints wavenumbers with two decimals, the
// g98.out with four.
func round2(x float64) float64 {
	return float64(int64(x*100+0.5*sign(x))) / 100
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
