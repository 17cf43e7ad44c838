package gaussian_test

import (
	"bytes"
	"testing"

	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestCorpus checks every gaussian log of ../shared/qm-corpus against cclib
// master's values, EXPECTED.md, the golden files and truncated copies.
func TestCorpus(t *testing.T) { qmtest.RunCorpus(t, "gaussian", gaussian.Parse) }

// TestNotThisProgram: logs of the other programs and garbage yield no results.
func TestNotThisProgram(t *testing.T) { qmtest.NotThisProgram(t, gaussian.Parse) }

// TestLongLine: a line longer than qm.MaxLine is cut, not fatal.
func TestLongLine(t *testing.T) { qmtest.LongLine(t, "gaussian", gaussian.Parse) }

func FuzzParse(f *testing.F) { qmtest.Fuzz(f, "gaussian", gaussian.Parse) }

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
