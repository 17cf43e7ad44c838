package ontology_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/molgraph/molgraph/ontology"
)

// TestCalculationStepsRoundTrip: a step's link to its group and to the step
// before it, and the group's list of steps, read back as written.
func TestCalculationStepsRoundTrip(t *testing.T) {
	const base, group = "http://example.org/id/", "calc-0123456789abcdef0123456789abcdef"
	rec := ontology.CalculationRecord{Program: "NWChem", JobTypes: []string{"frequency"},
		Step: &ontology.CalculationStep{Group: group, Index: 3, Previous: ontology.StepID(group, 2)}}
	qs, err := ontology.CalculationQuads(base, ontology.StepID(group, 3), &rec)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ontology.CalculationFromQuads(qs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Step, rec.Step) || back.ID != group+"-s3" {
		t.Errorf("step %+v id %s, want %+v", back.Step, back.ID, rec.Step)
	}
	if ontology.IsCalculationGroup(qs) {
		t.Error("a step is not a group")
	}

	g := ontology.CalculationGroup{Steps: []string{ontology.StepID(group, 1), ontology.StepID(group, 2), ontology.StepID(group, 3)},
		Source:    &ontology.CalculationSource{Filename: "w.out", SHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", Bytes: 9},
		CreatedAt: time.Date(2026, 11, 25, 22, 0, 0, 0, time.UTC)}
	gq, err := ontology.CalculationGroupQuads(base, group, &g)
	if err != nil {
		t.Fatal(err)
	}
	if !ontology.IsCalculationGroup(gq) {
		t.Fatal("group quads hold no group")
	}
	gb, err := ontology.CalculationGroupFromQuads(gq)
	if err != nil {
		t.Fatal(err)
	}
	if gb.ID != group || !reflect.DeepEqual(gb.Steps, g.Steps) || !reflect.DeepEqual(gb.Source, g.Source) || !gb.CreatedAt.Equal(g.CreatedAt) {
		t.Errorf("group read back as %+v", gb)
	}
	if _, err := ontology.CalculationFromQuads(gq); !errors.Is(err, ontology.ErrNoCalculation) {
		t.Errorf("a group read as a calculation: %v", err)
	}
	bad := g
	bad.Steps = []string{ontology.StepID(group, 2), ontology.StepID(group, 1)}
	if _, err := ontology.CalculationGroupQuads(base, group, &bad); !errors.Is(err, ontology.ErrInvalidCalculation) {
		t.Errorf("steps out of order: %v", err)
	}
}
