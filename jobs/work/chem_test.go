package work

import (
	"context"
	"reflect"
	"testing"

	"github.com/molgraph/molgraph/chem"
)

// TestChemOutcomeWire: the prepared molecules of a chemistry unit (one
// with a 3D conformer, one invalid record) come back from their wire
// form equal, field for field, to what the executor computed.
func TestChemOutcomeWire(t *testing.T) {
	pool, err := chem.NewPool(1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	task := ChemTask{First: 200, Records: []ChemInput{
		{Format: chem.FormatSMILES, Content: "CC(=O)Oc1ccccc1C(=O)O", Name: " aspirin "},
		{Format: chem.FormatSMILES, Content: "c1ccncc1O", Generate3D: true},
		{Format: chem.FormatSMILES, Content: "C1CC"},
	}}
	o, err := Chemistry(context.Background(), pool, 2, task)
	if err != nil {
		t.Fatal(err)
	}
	if o.First != 200 || len(o.Results) != 3 || o.Results[0].Molecule == nil || o.Results[0].Molecule.Rec.Name != "aspirin" ||
		o.Results[1].Molecule == nil || o.Results[1].Molecule.SDF == nil || o.Results[1].Molecule.Fingerprints == nil ||
		o.Results[2].Error == "" || o.Results[2].Molecule != nil {
		t.Fatalf("outcome %+v", o)
	}
	body, err := EncodeChemOutcome(o)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeChemOutcome(body)
	if err != nil || !reflect.DeepEqual(back, o) {
		t.Fatalf("decoded %v:\n%+v\nwant\n%+v", err, back, o)
	}
	if _, err := DecodeChemOutcome(body[:len(body)/2]); err == nil {
		t.Error("a truncated outcome decoded")
	}
}

// FuzzDecodeChemOutcome: no body a worker (or a forger on the bus) sends
// panics or hangs the writer's decoder.
func FuzzDecodeChemOutcome(f *testing.F) {
	ok, _ := EncodeChemOutcome(ChemOutcome{First: 100, Results: []ChemResult{{Error: "invalid"}, {Molecule: &Molecule{SDF: []byte("x\n$$$$\n")}}}})
	f.Add(ok)
	f.Add([]byte{})
	f.Add([]byte("{\"first\":1}"))
	f.Add(ok[:len(ok)-3])
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = DecodeChemOutcome(body)
	})
}
