package orca_test

import (
	"bytes"
	"testing"

	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestCorpus checks every orca log of ../shared/qm-corpus against cclib
// master's values, EXPECTED.md, the golden files and truncated copies.
func TestCorpus(t *testing.T) { qmtest.RunCorpus(t, "orca", orca.Parse) }

// TestNotThisProgram: logs of the other programs and garbage yield no results.
func TestNotThisProgram(t *testing.T) { qmtest.NotThisProgram(t, orca.Parse) }

// TestLongLine: a line longer than qm.MaxLine is cut, not fatal.
func TestLongLine(t *testing.T) { qmtest.LongLine(t, "orca", orca.Parse) }

func FuzzParse(f *testing.F) { qmtest.Fuzz(f, "orca", orca.Parse) }

// BenchmarkParse reports MB/s on the largest orca log of the corpus.
func BenchmarkParse(b *testing.B) {
	data := qmtest.Read(b, "orca/basicORCA5.0/dvb_gopt.out")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := orca.Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
