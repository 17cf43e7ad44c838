package psi4_test

import (
	"bytes"
	"testing"

	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestCorpus checks every psi4 log of ../shared/qm-corpus against cclib
// master's values, EXPECTED.md, the golden files and truncated copies.
func TestCorpus(t *testing.T) { qmtest.RunCorpus(t, "psi4", psi4.Parse) }

// TestNotThisProgram: logs of the other programs and garbage yield no results.
func TestNotThisProgram(t *testing.T) { qmtest.NotThisProgram(t, psi4.Parse) }

// TestLongLine: a line longer than qm.MaxLine is cut, not fatal.
func TestLongLine(t *testing.T) { qmtest.LongLine(t, "psi4", psi4.Parse) }

func FuzzParse(f *testing.F) { qmtest.Fuzz(f, "psi4", psi4.Parse) }

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
