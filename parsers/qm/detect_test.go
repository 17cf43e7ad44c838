package qm_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

func table() qm.Table { return qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}} }

// TestDetectCorpus: every corpus log is detected as the program of its folder.
func TestDetectCorpus(t *testing.T) {
	for folder, want := range map[string]qm.Program{"gaussian": qm.Gaussian, "orca": qm.ORCA, "psi4": qm.Psi4,
		"nwchem": qm.NWChem, "xtb": qm.XTB} {
		for _, rel := range qmtest.Logs(t, folder) {
			data := qmtest.Read(t, rel)
			got, err := qm.Detect(data[:min(len(data), qm.DetectSize)])
			if err != nil || got != want {
				t.Errorf("%s: detected %q, %v; want %q", rel, got, err, want)
			}
		}
	}
}

// TestTableParse: supported logs parse through the table; NWChem and xtb
// logs are refused with ErrUnsupportedLog; bad input gets its sentinel.
func TestTableParse(t *testing.T) {
	tb := table()
	for _, folder := range []string{"gaussian", "orca", "psi4"} {
		for _, rel := range qmtest.Logs(t, folder) {
			c, err := tb.Parse(bytes.NewReader(qmtest.Read(t, rel)), "")
			if err != nil || !strings.EqualFold(string(c.Program), folder) {
				t.Errorf("%s: %v", rel, err)
			}
		}
	}
	for _, folder := range []string{"nwchem", "xtb"} {
		for _, rel := range qmtest.Logs(t, folder) {
			if _, err := tb.Parse(bytes.NewReader(qmtest.Read(t, rel)), ""); !errors.Is(err, qm.ErrUnsupportedLog) {
				t.Errorf("%s: got %v, want ErrUnsupportedLog", rel, err)
			}
		}
	}
	cases := []struct {
		name, in, program string
		want              error
	}{
		{"empty", "", "", qm.ErrEmptyLog},
		{"blank", " \n\t\n", "", qm.ErrEmptyLog},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00", "", qm.ErrBinaryInput},
		{"garbage", "lorem ipsum dolor sit amet\n", "", qm.ErrUnsupportedLog},
		{"unknown program", "x", "gamess", qm.ErrUnknownProgram},
		{"override on garbage", "lorem ipsum\n", "orca", qm.ErrNoResults},
		{"nwchem override", "lorem ipsum\n", "nwchem", qm.ErrUnsupportedLog},
	}
	for _, c := range cases {
		if _, err := tb.Parse(strings.NewReader(c.in), c.program); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	// An explicit program overrides detection.
	c, err := tb.Parse(bytes.NewReader(qmtest.Read(t, "orca/ORCA4.2/dvb_sp.out")), "ORCA")
	if err != nil || c.Program != qm.ORCA {
		t.Errorf("override: %v", err)
	}
}

// TestUnits pins the CODATA 2018 constants against independent products.
func TestUnits(t *testing.T) {
	// Eh/(kJ/mol) = Eh[eV] · e · N_A / 1000, with e = 1.602176634e-19 C and N_A = 6.02214076e23 (exact).
	if d := qm.HartreeToEV*1.602176634e-19*6.02214076e23/1000 - qm.HartreeToKJPerMol; d > 1e-6 || d < -1e-6 {
		t.Errorf("HartreeToEV and HartreeToKJPerMol disagree by %g", d)
	}
	// e·a0 in D: e · a0 · c / 1e-21.
	if d := 1.602176634e-19*qm.BohrToAngstrom*1e-10*299792458/1e-21 - qm.AtomicUnitDipoleToDebye; d > 1e-8 || d < -1e-8 {
		t.Errorf("AtomicUnitDipoleToDebye off by %g", d)
	}
}

func FuzzDetect(f *testing.F) {
	for _, folder := range []string{"gaussian", "orca", "psi4", "nwchem", "xtb"} {
		for _, rel := range qmtest.Logs(f, folder) {
			data := qmtest.Read(f, rel)
			f.Add(data[:min(len(data), 4096)])
		}
	}
	// xtb's g98.out: a Gaussian banner over a file that is refused.
	if data, err := os.ReadFile(filepath.Join("..", "xtb", "testdata", "heldout", "water_hess.g98.out")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := qm.Detect(b)
		if (err == nil) == (p == "") {
			t.Fatalf("program %q with error %v", p, err)
		}
		c, err := table().Parse(bytes.NewReader(b), "")
		if err == nil && c == nil {
			t.Fatal("nil calculation without error")
		}
	})
}
