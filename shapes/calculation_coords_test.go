package shapes

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

// isCoordinate matches the coordinate quads of the CO2 calculation: the
// atoms' gc:hasAtomCoordinateX/Y/Z and the value nodes they point to.
func isCoordinate(q quad.Quad) bool {
	if strings.HasPrefix(string(q.Predicate.(quad.IRI)), gcNS+"hasAtomCoordinate") {
		return true
	}
	s := string(q.Subject.(quad.IRI))
	return strings.HasPrefix(s, calcNS+"atom-") && (strings.HasSuffix(s, "-x") || strings.HasSuffix(s, "-y") || strings.HasSuffix(s, "-z"))
}

var noCoordinates = quad.Quad{Subject: c("molecule"), Predicate: quad.IRI(ontology.MG + "hasCoordinates"), Object: ontology.Boolean(false)}

// TestGeometryWithoutCoordinates: a geometry whose log printed no
// coordinates conforms only when it says so (mg:hasCoordinates false) and
// no atom has any coordinate; a half-written geometry is refused either way.
func TestGeometryWithoutCoordinates(t *testing.T) {
	gate := newTestGate(t)
	base := loadTurtle(t, "testdata/calculation-co2.ttl")
	coordsMsg := regexp.MustCompile(`coordinate`)
	cases := []struct {
		name     string
		data     []quad.Quad
		conforms bool
	}{
		{"log printed no coordinates, said so", mutate(base, isCoordinate, noCoordinates), true},
		{"coordinates removed, not said", mutate(base, isCoordinate), false},
		{"half-written geometry (atom 2 lost z)", mutate(base, func(q quad.Quad) bool {
			return q.Subject == c("atom-2") && q.Predicate == quad.IRI(gcNS+"hasAtomCoordinateZ")
		}), false},
		{"half-written geometry said to have no coordinates", mutate(base, func(q quad.Quad) bool {
			return isCoordinate(q) && !strings.HasPrefix(string(q.Subject.(quad.IRI)), calcNS+"atom-2")
		}, noCoordinates), false},
		{"full geometry said to have no coordinates", mutate(base, nil, noCoordinates), false},
		{"no coordinates, an atom without element", mutate(base, func(q quad.Quad) bool {
			return isCoordinate(q) || q.Subject == c("atom-1") && q.Predicate == quad.IRI(gcNS+"isElement")
		}, noCoordinates), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := gate.Validate(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Conforms != tc.conforms {
				t.Fatalf("conforms %v, want %v: %v", rep.Conforms, tc.conforms, resultKeys(rep))
			}
			if tc.conforms {
				return
			}
			found := false
			for _, r := range rep.Leaves() {
				if coordsMsg.MatchString(r.Message()) || strings.Contains(r.Message(), "element") {
					found = true
				}
			}
			if !found {
				t.Errorf("no result names the coordinates or the element: %v", rep.Leaves())
			}
		})
	}
}

// TestFailedStepWithoutEnergy: only a step of a multi-step log that
// terminated abnormally may have no energy.
func TestFailedStepWithoutEnergy(t *testing.T) {
	gate := newTestGate(t)
	base := loadTurtle(t, "testdata/calculation-co2.ttl")
	mg := func(l string) quad.IRI { return quad.IRI(ontology.MG + l) }
	noEnergy := func(q quad.Quad) bool {
		return subjectIs("scf-energy", "zero-point-energy", "homo-energy", "lumo-energy")(q) || q.Predicate == mg("normalTermination")
	}
	calc := quad.IRI(calcIRI)
	step := []quad.Quad{
		{Subject: calc, Predicate: mg("isStepOf"), Object: quad.IRI(calcIRI + "-group")},
		{Subject: calc, Predicate: mg("stepIndex"), Object: ontology.Integer(2)},
	}
	failed := quad.Quad{Subject: calc, Predicate: mg("normalTermination"), Object: ontology.Boolean(false)}
	normal := quad.Quad{Subject: calc, Predicate: mg("normalTermination"), Object: ontology.Boolean(true)}
	cases := []struct {
		name     string
		data     []quad.Quad
		conforms bool
	}{
		{"failed step", mutate(base, noEnergy, append(step, failed)...), true},
		{"failed single-step log", mutate(base, noEnergy, failed), false},
		{"step that ended normally", mutate(base, noEnergy, append(step, normal)...), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := gate.Validate(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Conforms != tc.conforms {
				t.Fatalf("conforms %v, want %v: %v", rep.Conforms, tc.conforms, resultKeys(rep))
			}
			if !tc.conforms {
				found := false
				for _, r := range rep.Leaves() {
					if strings.Contains(r.Message(), "energy") {
						found = true
					}
				}
				if !found {
					t.Errorf("no result names the missing energy: %v", rep.Leaves())
				}
			}
		})
	}
}
