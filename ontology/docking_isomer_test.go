package ontology_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/ontology"
)

// TestDockingIsomerQuads: the stereoisomers of a ligand's result and the
// pose's link to the one docked read back as written; a failed isomer's
// error is not read as the ligand's failure; every term is declared in the
// TBox; invalid records are refused.
func TestDockingIsomerQuads(t *testing.T) {
	const r = quad.IRI("http://example.org/id/docking-job/dock-1/ligand/mol-1")
	const job = quad.IRI("http://example.org/id/docking-job/dock-1")
	const lig = quad.IRI("http://example.org/id/molecule/mol-1")
	a := -6.25
	isomers := []ontology.DockingIsomer{
		{Ligand: lig, Index: 1, SMILES: "C[C@@H](O)c1ccccc1", InChIKey: "WAPNOHKVXSQRPX-ZCFIWIBFSA-N", Affinity: &a, Total: 2},
		{Ligand: lig, Index: 2, SMILES: "C[C@H](O)c1ccccc1", InChIKey: "WAPNOHKVXSQRPX-LURJTMIESA-N", Error: "vina failed", Total: 2},
	}
	iqs, err := ontology.DockingIsomerQuads(r, job, isomers)
	if err != nil {
		t.Fatal(err)
	}
	sha := strings.Repeat("ab", 32)
	pose := ontology.DockingPoseRecord{Ligand: lig, Mode: 1, Affinity: a, FileIRI: ontology.BlobIRI("http://example.org/", sha),
		File: ontology.ReceptorFile{SHA256: sha, Bytes: 10, MediaType: ontology.MediaTypeSDF}, Isomer: 1}
	pqs, err := ontology.DockingResultQuads(r, job, []ontology.DockingPoseRecord{pose}, nil)
	if err != nil {
		t.Fatal(err)
	}
	qs := append(pqs, iqs...)
	got, err := ontology.DockingIsomersFromQuads(qs)
	if err != nil || !reflect.DeepEqual(got, isomers) {
		t.Errorf("isomers read back %+v (%v), want %+v", got, err, isomers)
	}
	poses, failure, err := ontology.DockingResultFromQuads(qs)
	if err != nil || failure != nil || len(poses) != 1 || poses[0].Isomer != 1 {
		t.Errorf("poses %+v failure %+v err %v", poses, failure, err)
	}
	decl := declarations(parseTBox(t))
	for _, q := range iqs {
		for _, v := range []quad.Value{q.Predicate, q.Object} {
			if iri, ok := v.(quad.IRI); ok && strings.HasPrefix(string(iri), ontology.MG) && len(decl[iri]) == 0 {
				t.Errorf("%s is not declared in the TBox", iri)
			}
		}
	}
	if len(decl[ontology.MGStereoisomer]) == 0 {
		t.Errorf("%s is not declared in the TBox", ontology.MGStereoisomer)
	}
	for _, bad := range []ontology.DockingIsomer{
		{Ligand: lig, Index: 0, SMILES: "C", Affinity: &a, Total: 1},             // index
		{Ligand: lig, Index: 1, SMILES: "", Affinity: &a, Total: 1},              // SMILES
		{Ligand: lig, Index: 1, SMILES: "C", Total: 1},                           // neither affinity nor error
		{Ligand: lig, Index: 1, SMILES: "C", Affinity: &a, Error: "x", Total: 1}, // both
		{Ligand: lig, Index: 1, SMILES: "C", Affinity: &a},                       // total
	} {
		if _, err := ontology.DockingIsomerQuads(r, job, []ontology.DockingIsomer{bad}); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
