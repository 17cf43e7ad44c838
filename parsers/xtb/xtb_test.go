package xtb_test

import (
	"bytes"
	"testing"

	"github.com/molgraph/molgraph/parsers/qm/qmtest"
	"github.com/molgraph/molgraph/parsers/xtb"
)

// TestCorpus checks every xtb log of ../shared/qm-corpus against cclib
// master's values, EXPECTED.md, the golden files and truncated copies.
func TestCorpus(t *testing.T) { qmtest.RunCorpus(t, "xtb", xtb.Parse) }

// TestNotThisProgram: logs of the other programs and garbage yield no results.
func TestNotThisProgram(t *testing.T) { qmtest.NotThisProgram(t, xtb.Parse) }

// TestLongLine: a line longer than qm.MaxLine is cut, not fatal.
func TestLongLine(t *testing.T) { qmtest.LongLine(t, "xtb", xtb.Parse) }

func FuzzParse(f *testing.F) { qmtest.Fuzz(f, "xtb", xtb.Parse) }

// BenchmarkParse reports MB/s on the largest xtb log of the corpus.
func BenchmarkParse(b *testing.B) {
	data := qmtest.Read(b, "xtb/generated/water_gfn2_ohess.out")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := xtb.Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
