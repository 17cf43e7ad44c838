package ontology_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/shapes"
)

// TestCalculationCorrelated: correlated-energy logs (cclib's Gaussian 16
// CCSD(T) and MP4, ORCA 5.0 CCSD(T), Psi4 1.7 CCSD and DF-MP2) map to
// one mg:CorrelatedEnergy node per method with its value in E_h and the
// mg:correlatedEnergy shortcut at the level of theory; the graph conforms
// to the shapes and reads back to the same record.
func TestCalculationCorrelated(t *testing.T) {
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path    string
		methods int
		level   float64 // the shortcut's value as the log prints it
	}{
		{"../parsers/gaussian/testdata/cclib/cclib_G16_water_ccsdt.log", 6, -75.017760422},
		{"../parsers/gaussian/testdata/cclib/cclib_G16_water_mp4.log", 5, -75.016068053}, // "MP4" is MP4(SDTQ)
		{"../parsers/orca/testdata/cclib/ORCA5.0_water_ccsd_t.out", 2, -75.013556310},
		{"../parsers/psi4/testdata/cclib/Psi4-1.7_water_ccsd.out", 2, -75.017758177656503},
		{"../parsers/psi4/testdata/cclib/Psi4-1.7_water_mp2.out", 1, -75.0024556907484765},
	} {
		data, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		rec := corpusRecord(t, filepath.Base(tc.path), data)
		if rec.Energies == nil || len(rec.Energies.Correlated) != tc.methods {
			t.Fatalf("%s: energies %+v, want %d correlated", tc.path, rec.Energies, tc.methods)
		}
		id := "calc-corr"
		qs, err := ontology.CalculationQuads(testBase, id, &rec)
		if err != nil {
			t.Fatal(err)
		}
		calc := ontology.ResourceIRI(testBase, ontology.KindCalculation, id)
		rep, err := gate.Validate(qs)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Conforms {
			t.Errorf("%s: does not conform: %+v", tc.path, rep.Leaves())
		}
		nodes, shortcut := 0, 0
		for _, q := range qs {
			if q.Predicate == quad.IRI(ontology.RDFType) && q.Object == quad.IRI(ontology.MG+"CorrelatedEnergy") {
				nodes++
				if !strings.HasPrefix(string(q.Subject.(quad.IRI)), string(calc)+"#correlated-energy-") {
					t.Errorf("%s: node %v", tc.path, q.Subject)
				}
			}
			if q.Subject == calc && q.Predicate == quad.IRI(ontology.MG+"correlatedEnergy") {
				shortcut++
				if q.Object != ontology.Double(tc.level) {
					t.Errorf("%s: shortcut %v, want %v", tc.path, q.Object, tc.level)
				}
			}
		}
		if nodes != tc.methods || shortcut != 1 {
			t.Errorf("%s: %d correlated nodes, %d shortcuts", tc.path, nodes, shortcut)
		}
		back, err := ontology.CalculationFromQuads(qs)
		if err != nil {
			t.Fatal(err)
		}
		want := rec
		want.ID, want.IRI = id, string(calc)
		if !reflect.DeepEqual(back, want) {
			t.Errorf("%s: record changed through quads:\n got %+v\nwant %+v", tc.path, back.Energies, want.Energies)
		}
	}
}

// TestCalculationCorrelatedRefused: a method name that would not make a
// node fragment is refused by the mapping; one outside the canonical list
// is refused by the shape.
func TestCalculationCorrelatedRefused(t *testing.T) {
	e := -1.0
	for _, m := range []string{"", "()", "MP2\n", strings.Repeat("M", 40)} {
		rec := ontology.CalculationRecord{Program: "Gaussian", Energies: &ontology.CalculationEnergies{SCF: &e, Correlated: map[string]float64{m: -1.1}}}
		if _, err := ontology.CalculationQuads(testBase, "calc-x", &rec); err == nil {
			t.Errorf("method %q accepted", m)
		}
	}
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	rec := ontology.CalculationRecord{Program: "Gaussian", Energies: &ontology.CalculationEnergies{SCF: &e, Correlated: map[string]float64{"MP7": -1.1}},
		Source: &ontology.CalculationSource{Filename: "x.log", SHA256: strings.Repeat("ab", 32), Bytes: 1}}
	qs, err := ontology.CalculationQuads(testBase, "calc-x", &rec)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := gate.Validate(qs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conforms {
		t.Error("MP7 conforms")
	}
}
