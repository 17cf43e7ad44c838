package ontology_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

func pose(mode int) ontology.DockingPoseRecord {
	return ontology.DockingPoseRecord{Ligand: "http://x/id/molecule/mol-1", Mode: mode, Affinity: -9.5, RMSDLB: 0, RMSDUB: 0,
		FileIRI: quad.IRI("http://x/id/blob/" + strings.Repeat("a", 64)),
		File:    ontology.ReceptorFile{SHA256: strings.Repeat("a", 64), Bytes: 10, MediaType: ontology.MediaTypeSDF}}
}

// TestPoseChecksRoundTrip: a pose's checks and verdict are written as
// mg:<check>Passed / mg:<check>Value and mg:poseValid, and read back
// equal; a check not computed writes nothing.
func TestPoseChecksRoundTrip(t *testing.T) {
	yes, no := true, false
	v1, v2 := 0.05, 1.41
	p := pose(1)
	p.Valid = &no
	p.Checks = []ontology.PoseCheck{
		{Name: "bond_lengths", Pass: &yes, Value: &v1},
		{Name: "stereo_inchikey", Pass: &no},
		{Name: "energy_ratio", Pass: &yes, Value: &v2},
	}
	q := pose(2)
	q.CheckError = "too large for pose checks"
	r := quad.IRI("http://x/id/docking-job/dock-1/ligand/mol-1")
	qs, err := ontology.DockingResultQuads(r, "http://x/id/docking-job/dock-1", []ontology.DockingPoseRecord{p, q}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[quad.IRI]quad.Value{
		ontology.MGPoseValid:                           ontology.Boolean(false),
		quad.IRI(ontology.MG + "bondLengthsPassed"):    ontology.Boolean(true),
		quad.IRI(ontology.MG + "bondLengthsValue"):     ontology.Double(0.05),
		quad.IRI(ontology.MG + "stereoInchikeyPassed"): ontology.Boolean(false),
		quad.IRI(ontology.MG + "energyRatioValue"):     ontology.Double(1.41),
		ontology.MGPoseCheckError:                      ontology.String("too large for pose checks"),
	}
	for _, x := range qs {
		if w, ok := want[x.Predicate.(quad.IRI)]; ok {
			if x.Object != w {
				t.Errorf("%v = %v, want %v", x.Predicate, x.Object, w)
			}
			delete(want, x.Predicate.(quad.IRI))
		}
		if x.Predicate == quad.IRI(ontology.MG+"stereoInchikeyValue") {
			t.Error("a check without a value wrote one")
		}
	}
	if len(want) > 0 {
		t.Errorf("not written: %v", want)
	}
	got, _, err := ontology.DockingResultFromQuads(qs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0].Checks, p.Checks) || got[0].Valid == nil || *got[0].Valid ||
		got[1].Valid != nil || got[1].Checks != nil || got[1].CheckError != q.CheckError {
		t.Errorf("read back %+v", got)
	}
	// an unknown check or a non-finite value is refused
	bad := pose(1)
	bad.Checks = []ontology.PoseCheck{{Name: "vibes", Pass: &yes}}
	if _, err := ontology.DockingResultQuads(r, "http://x/j", []ontology.DockingPoseRecord{bad}, nil); !errors.Is(err, ontology.ErrInvalidDockingRecord) {
		t.Errorf("unknown check: %v", err)
	}
}

// TestPoseCheckTermsDeclared: every pose check term is in the TBox, the
// value properties with a threshold and a limit.
func TestPoseCheckTermsDeclared(t *testing.T) {
	qs := parseTBox(t)
	decl := declarations(qs)
	annotated := map[quad.Value]int{}
	for _, q := range qs {
		if q.Predicate == quad.IRI(ontology.MG+"checkThreshold") || q.Predicate == quad.IRI(ontology.MG+"checkLimit") {
			annotated[q.Subject]++
		}
	}
	for _, term := range []quad.IRI{ontology.MGPoseValid, ontology.MGPoseCheckError} {
		if len(decl[term]) == 0 {
			t.Errorf("%s not declared", term)
		}
	}
	for _, name := range ontology.PoseCheckNames() {
		passed, value := ontology.PoseCheckTerms(name)
		if len(decl[passed]) == 0 {
			t.Errorf("%s not declared", passed)
		}
		if name == "stereo_inchikey" {
			continue
		}
		if len(decl[value]) == 0 || annotated[value] != 2 {
			t.Errorf("%s: declared %v, %d annotations", value, decl[value], annotated[value])
		}
	}
}
