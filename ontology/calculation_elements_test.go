package ontology_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/molgraph/molgraph/ontology"
)

// TestCalculationElementsRoundTrip: a record with elements and no
// coordinates (an xtb single point) maps to atoms with elements only and a
// geometry marked mg:hasCoordinates false, and reads back the same; a
// record with both a geometry and elements is refused.
func TestCalculationElementsRoundTrip(t *testing.T) {
	q, m := 0, 1
	rec := &ontology.CalculationRecord{Program: "xtb", ProgramVersion: "6.5.1", Method: "GFN2-xTB",
		JobTypes: []string{"energy"}, Charge: &q, Multiplicity: &m, Formula: "H2O", NAtoms: 3,
		Elements: []string{"O", "H", "H"}, MullikenCharges: []float64{-0.565, 0.282, 0.283}}
	qs, err := ontology.CalculationQuads("http://example.org/", "calc-x", rec)
	if err != nil {
		t.Fatal(err)
	}
	marked, coords := false, 0
	for _, x := range qs {
		switch x.Predicate.String() {
		case "<" + ontology.MG + "hasCoordinates>":
			marked = x.Object.String() == `"false"^^<http://www.w3.org/2001/XMLSchema#boolean>`
		case "<" + ontology.GC + "hasAtomCoordinateX>", "<" + ontology.GC + "hasAtomCoordinateY>", "<" + ontology.GC + "hasAtomCoordinateZ>":
			coords++
		}
	}
	if !marked || coords != 0 {
		t.Errorf("marked %v, %d coordinates", marked, coords)
	}
	back, err := ontology.CalculationFromQuads(qs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Elements, rec.Elements) || back.Geometry != nil || back.NAtoms != 3 || back.Formula != "H2O" ||
		!slices.Equal(back.MullikenCharges, rec.MullikenCharges) {
		t.Errorf("read back %+v", back)
	}
	rec.Geometry = []ontology.CalculationAtom{{Element: "O"}, {Element: "H", X: 1}, {Element: "H", Y: 1}}
	if _, err := ontology.CalculationQuads("http://example.org/", "calc-x", rec); !errors.Is(err, ontology.ErrInvalidCalculation) {
		t.Errorf("geometry and elements: %v", err)
	}
}
