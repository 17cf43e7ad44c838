package shapes

import (
	"testing"

	"github.com/molgraph/molgraph/ontology"
)

// The calculation mapping (ontology.CalculationQuads) must produce graphs
// that pass the gate and use only declared terms. The record holds the values
// of The World Avatar's CO2 example (co2_linked_g09.log, Gaussian 09 opt+freq).
func TestCalculationMappingConforms(t *testing.T) {
	gate := newTestGate(t)
	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	rec := &ontology.CalculationRecord{
		Program: "Gaussian", ProgramVersion: "2009+D.01",
		JobTypes: []string{ontology.JobOptimization, ontology.JobFrequency},
		Method:   "RB3LYP", BasisSet: "6-311G(d,p)", Charge: i(0), Multiplicity: i(1),
		Formula: "CO2", NAtoms: 3,
		Geometry: []ontology.CalculationAtom{
			{Element: "C", X: -3.555363, Y: -0.513457, Z: 0},
			{Element: "O", X: -4.715866, Y: -0.521191, Z: 0},
			{Element: "O", X: -2.394861, Y: -0.505724, Z: 0},
		},
		Energies:            &ontology.CalculationEnergies{SCF: f(-188.641138764), ZPE: f(0.011717763999996578)},
		Optimization:        &ontology.CalculationOptimization{Converged: true, Steps: 5},
		Frequencies:         &ontology.CalculationFrequencies{Wavenumbers: []float64{666.8738, 666.8738, 1374.9931, 2434.8919}},
		Orbitals:            &ontology.CalculationOrbitals{HOMO: f(-10.2549), LUMO: f(0.8008)},
		RotationalConstants: []float64{11.729883},
		NormalTermination:   true,
		Source:              &ontology.CalculationSource{Filename: "co2_linked_g09.log", SHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", Bytes: 90000},
	}
	qs, err := ontology.CalculationQuads("http://localhost:8080/", "calc-co2", rec)
	if err != nil {
		t.Fatalf("CalculationQuads: %v", err)
	}
	rep, err := gate.Validate(qs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		t.Errorf("mapping output violates a shape: %s", r)
	}
	if u := gate.Undeclared(qs); len(u) > 0 {
		t.Errorf("mapping emits undeclared terms: %v", u)
	}

	// Without the basis set, the same record must be rejected.
	rec.BasisSet = ""
	qs, err = ontology.CalculationQuads("http://localhost:8080/", "calc-co2", rec)
	if err != nil {
		t.Fatalf("CalculationQuads: %v", err)
	}
	if rep, err := gate.Validate(qs); err != nil || rep.Conforms {
		t.Errorf("calculation without basis set: conforms=%v err=%v, want a violation", rep != nil && rep.Conforms, err)
	}
}
