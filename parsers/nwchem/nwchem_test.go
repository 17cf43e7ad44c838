package nwchem_test

import (
	"bytes"
	"testing"

	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestCorpus checks every NWChem log of ../shared/qm-corpus against cclib
// master's values, EXPECTED.md, the golden files and truncated copies.
func TestCorpus(t *testing.T) { qmtest.RunCorpus(t, "nwchem", nwchem.Parse) }

// TestNotThisProgram: logs of the other programs and garbage yield no results.
func TestNotThisProgram(t *testing.T) { qmtest.NotThisProgram(t, nwchem.Parse) }

// TestLongLine: a line longer than qm.MaxLine is cut, not fatal.
func TestLongLine(t *testing.T) { qmtest.LongLine(t, "nwchem", nwchem.Parse) }

func FuzzParse(f *testing.F) { qmtest.Fuzz(f, "nwchem", nwchem.Parse) }

// BenchmarkParse reports MB/s on the largest NWChem log of the corpus.
func BenchmarkParse(b *testing.B) {
	data := qmtest.Read(b, "nwchem/NWChem6.0/dvb_gopt_hf_unconverged.out")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nwchem.Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
