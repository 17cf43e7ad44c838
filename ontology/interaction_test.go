package ontology

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestPoseInteractionsRoundTrip: two poses sharing a residue give one
// residue node (4 quads), one typed triple per fingerprint entry, and read
// back to the same entries, sorted by residue then type.
func TestPoseInteractionsRoundTrip(t *testing.T) {
	rec := quad.IRI("http://example.org/id/receptor/rec-1")
	met := PoseResidue{Chain: "A", Number: 318, Name: "MET"}
	thr := PoseResidue{Chain: "A", Number: 315, Name: "THR"}
	ins := PoseResidue{Chain: " ", Number: -5, ICode: "B", Name: "GLY"}
	pose := func(mode int, its ...PoseInteraction) DockingPoseRecord {
		return DockingPoseRecord{Ligand: "http://example.org/id/molecule/mol-1", Mode: mode, Affinity: -9, FileIRI: quad.IRI("http://example.org/blob/" + strings.Repeat("a", 63) + string(rune('0'+mode))),
			File: ReceptorFile{SHA256: strings.Repeat("a", 63) + string(rune('0'+mode)), Bytes: 10, MediaType: MediaTypeSDF}, Receptor: rec, Interactions: its}
	}
	poses := []DockingPoseRecord{
		pose(1, PoseInteraction{"hydrophobic", met}, PoseInteraction{"hbond", met}, PoseInteraction{"hbond", thr}),
		pose(2, PoseInteraction{"salt_bridge", ins}, PoseInteraction{"hbond", met}),
	}
	r := quad.IRI("http://example.org/id/docking-job/dock-1/ligand/mol-1")
	qs, err := DockingResultQuads(r, "http://example.org/id/docking-job/dock-1", poses, nil)
	if err != nil {
		t.Fatal(err)
	}
	typed, residueNodes := 0, map[quad.Value]int{}
	for _, q := range qs {
		if IsInteractionPredicate(q.Predicate) {
			typed++
		}
		if q.Predicate == RDFType && q.Object == ResidueClass {
			residueNodes[q.Subject]++
		}
	}
	if typed != 5 || len(residueNodes) != 3 {
		t.Errorf("%d typed triples (want 5), %d residue nodes (want 3)", typed, len(residueNodes))
	}
	for n, c := range residueNodes {
		if c != 1 {
			t.Errorf("residue %v typed %d times", n, c)
		}
	}
	if _, ok := residueNodes[quad.IRI(string(rec)+"#res-A-318")]; !ok {
		t.Errorf("no residue node %s#res-A-318 in %v", rec, residueNodes)
	}
	if _, ok := residueNodes[quad.IRI(string(rec)+"#res-%20--5B")]; !ok {
		t.Errorf("blank-like chain and insertion code not encoded: %v", residueNodes)
	}
	back, _, err := DockingResultFromQuads(qs)
	if err != nil {
		t.Fatal(err)
	}
	want1 := []PoseInteraction{{"hbond", thr}, {"hbond", met}, {"hydrophobic", met}}
	want2 := []PoseInteraction{{"salt_bridge", ins}, {"hbond", met}}
	if len(back) != 2 || !reflect.DeepEqual(back[0].Interactions, want1) || !reflect.DeepEqual(back[1].Interactions, want2) {
		t.Errorf("read back %+v / %+v", back[0].Interactions, back[1].Interactions)
	}
	bad := pose(3, PoseInteraction{"covalent", met})
	if _, err := DockingResultQuads(r, "http://example.org/id/docking-job/dock-1", []DockingPoseRecord{bad}, nil); !errors.Is(err, ErrInvalidDockingRecord) {
		t.Errorf("unknown type: %v", err)
	}
}
