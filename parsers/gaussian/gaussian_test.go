package gaussian_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestCorpus checks every gaussian log of ../shared/qm-corpus against cclib
// master's values, EXPECTED.md, the golden files and truncated copies.
func TestCorpus(t *testing.T) { qmtest.RunCorpus(t, "gaussian", gaussian.Parse) }

// TestNotThisProgram: logs of the other programs and garbage yield no results.
func TestNotThisProgram(t *testing.T) {
	for _, in := range []string{"", "hello\nworld\n", strings.Repeat("x", 100000), "\x00\x01\x02binary"} {
		if _, err := gaussian.Parse(strings.NewReader(in)); !errors.Is(err, qm.ErrNoResults) {
			t.Errorf("%.20q: got %v, want ErrNoResults", in, err)
		}
	}
}

// TestLongLine: a line longer than qm.MaxLine is cut, not fatal.
func TestLongLine(t *testing.T) {
	data := qmtest.Read(t, qmtest.Logs(t, "gaussian")[0])
	in := append([]byte(strings.Repeat("y", 3*qm.MaxLine)+"\n"), data...)
	c, err := gaussian.Parse(bytes.NewReader(in))
	if err != nil || len(c.Warnings) == 0 {
		t.Fatalf("got %v, warnings %v", err, c)
	}
}

func FuzzParse(f *testing.F) {
	for _, rel := range qmtest.Logs(f, "gaussian") {
		data := qmtest.Read(f, rel)
		f.Add(data[:min(len(data), 20000)])
		f.Add(data[max(0, len(data)-20000):])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := gaussian.Parse(bytes.NewReader(b))
		if err == nil && c == nil {
			t.Fatal("nil calculation without error")
		}
		if err != nil && !errors.Is(err, qm.ErrNoResults) {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// BenchmarkParse reports MB/s on the largest gaussian log of the corpus.
func BenchmarkParse(b *testing.B) {
	data := qmtest.Read(b, "gaussian/Gaussian16/Benzene_anion.log")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gaussian.Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
