package psi4_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestCorpus checks every psi4 log of ../shared/qm-corpus against cclib
// master's values, EXPECTED.md, the golden files and truncated copies.
func TestCorpus(t *testing.T) { qmtest.RunCorpus(t, "psi4", psi4.Parse) }

// TestNotThisProgram: logs of the other programs and garbage yield no results.
func TestNotThisProgram(t *testing.T) {
	for _, in := range []string{"", "hello\nworld\n", strings.Repeat("x", 100000), "\x00\x01\x02binary"} {
		if _, err := psi4.Parse(strings.NewReader(in)); !errors.Is(err, qm.ErrNoResults) {
			t.Errorf("%.20q: got %v, want ErrNoResults", in, err)
		}
	}
}

// TestLongLine: a line longer than qm.MaxLine is cut, not fatal.
func TestLongLine(t *testing.T) {
	data := qmtest.Read(t, qmtest.Logs(t, "psi4")[0])
	in := append([]byte(strings.Repeat("y", 3*qm.MaxLine)+"\n"), data...)
	c, err := psi4.Parse(bytes.NewReader(in))
	if err != nil || len(c.Warnings) == 0 {
		t.Fatalf("got %v, warnings %v", err, c)
	}
}

func FuzzParse(f *testing.F) {
	for _, rel := range qmtest.Logs(f, "psi4") {
		data := qmtest.Read(f, rel)
		f.Add(data[:min(len(data), 20000)])
		f.Add(data[max(0, len(data)-20000):])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := psi4.Parse(bytes.NewReader(b))
		if err == nil && c == nil {
			t.Fatal("nil calculation without error")
		}
		if err != nil && !errors.Is(err, qm.ErrNoResults) {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// BenchmarkParse reports MB/s on the largest psi4 log of the corpus.
func BenchmarkParse(b *testing.B) {
	data := qmtest.Read(b, "psi4/basicPsi4-1.7/dvb_ir_rks.out")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := psi4.Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
