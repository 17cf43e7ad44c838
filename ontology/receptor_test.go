package ontology_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/shapes"
)

const (
	shaA = "1111111111111111111111111111111111111111111111111111111111111111"
	shaB = "2222222222222222222222222222222222222222222222222222222222222222"
)

func sampleReceptor() ontology.ReceptorRecord {
	return ontology.ReceptorRecord{
		Name: "c-Abl kinase", Format: "pdb", Atoms: 4567, Residues: 273, Chains: 1,
		Pockets: []ontology.ReceptorPocket{
			{ID: "p1", Rank: 1, Center: [3]float64{15.19, 53.903, -16.917}, Size: [3]float64{22, 24.5, 18}, Score: 812},
			{ID: "p2", Rank: 2, Center: [3]float64{0.1, 1e-7, 3}, Size: [3]float64{18, 18, 18}, Score: 203.5},
		},
		Source:   ontology.ReceptorFile{Filename: "1iep.pdb", SHA256: shaA, Bytes: 201234, MediaType: ontology.MediaTypePDB},
		Prepared: ontology.ReceptorFile{Filename: "1iep.pdbqt", SHA256: shaB, Bytes: 300001, MediaType: ontology.MediaTypePDBQT},
		Preparation: &ontology.ReceptorPreparation{Route: "pdb2pqr", PH: 7.4, Steps: []ontology.ReceptorStep{
			{Tool: "PDB2PQR", Version: "3.5.2 (PROPKA 3.5.0)", Arguments: []string{"pdb2pqr30", "--ff=PARSE", "--keep-chain",
				"--titration-state-method=propka", "--with-ph=7.4", "--pdb-output=protonated.pdb", "in.pdb", "out.pqr"}},
			{Tool: "Open Babel", Version: "3.1.1", Arguments: []string{"obabel", "-ipdb", "in.pdb", "-xr", "-opdbqt", "-O", "out.pdbqt"}},
		}},
		Warnings:  []string{"removed hetero residue STI (1)", "altloc B dropped"},
		CreatedAt: time.Date(2024, 5, 6, 7, 8, 9, 123000000, time.UTC),
	}
}

// TestReceptorRoundTrip: record -> quads -> N-Triples -> quads -> record is
// lossless (warnings come back sorted), the graph conforms to the receptor
// shape and uses only declared terms.
func TestReceptorRoundTrip(t *testing.T) {
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	pdbqtUpload := sampleReceptor()
	pdbqtUpload.Format = "pdbqt"
	pdbqtUpload.Source = ontology.ReceptorFile{Filename: "r.pdbqt", SHA256: shaB, Bytes: 9, MediaType: ontology.MediaTypePDBQT}
	pdbqtUpload.Prepared = pdbqtUpload.Source
	pdbqtUpload.Preparation = nil
	pdbqtUpload.Warnings = nil
	pdbqtUpload.Pockets = []ontology.ReceptorPocket{}
	pdbqtUpload.Name = ""

	fallback := sampleReceptor()
	fallback.Preparation = &ontology.ReceptorPreparation{Route: "obabel", PH: 0, Fallback: "pdb2pqr has no template for residue MSE",
		Steps: []ontology.ReceptorStep{{Tool: "Open Babel", Arguments: []string{"obabel", "-ipdb", "in.pdb", "-xr", "-h", "-opdbqt", "-O", "out.pdbqt",
			"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}}}} // more than 9 arguments: rdf:_10 sorts before rdf:_2
	for name, rec := range map[string]ontology.ReceptorRecord{"pdb": sampleReceptor(), "pdbqt": pdbqtUpload, "fallback": fallback} {
		t.Run(name, func(t *testing.T) {
			qs, err := ontology.ReceptorQuads("http://example.org/", "rec-0123abcd", &rec)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := gate.Validate(qs)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Conforms {
				t.Errorf("does not conform: %+v", rep.Leaves())
			}
			if u := gate.Undeclared(qs); len(u) != 0 {
				t.Errorf("undeclared terms %v", u)
			}
			var buf bytes.Buffer
			if err := rdfio.WriteAll(&buf, rdfio.Turtle, qs); err != nil {
				t.Fatal(err)
			}
			back, err := rdfio.ParseTurtle(bytes.NewReader(buf.Bytes()), "")
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			if len(back) != len(qs) {
				t.Errorf("%d quads written, %d read back", len(qs), len(back))
			}
			got, err := ontology.ReceptorFromQuads(back)
			if err != nil {
				t.Fatal(err)
			}
			want := rec
			want.ID = "rec-0123abcd"
			want.IRI = "http://example.org/id/receptor/rec-0123abcd"
			if want.Warnings != nil {
				want.Warnings = []string{"altloc B dropped", "removed hetero residue STI (1)"}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestReceptorShapeCatches: the shape rejects a graph missing what the
// receptor shape requires (a check that the gate test above can fail).
func TestReceptorShapeCatches(t *testing.T) {
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	rec := sampleReceptor()
	qs, err := ontology.ReceptorQuads("http://example.org/", "rec-1", &rec)
	if err != nil {
		t.Fatal(err)
	}
	var cut []quad.Quad
	for _, q := range qs {
		if p := q.Predicate.(quad.IRI); p == quad.IRI(ontology.MG+"preparedFile") || p == quad.IRI(ontology.MG+"sizeX") {
			continue
		}
		cut = append(cut, q)
	}
	rep, err := gate.Validate(cut)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conforms || len(rep.Leaves()) < 3 { // no prepared file, two pockets without sizeX
		t.Errorf("expected violations, got conforms=%v %+v", rep.Conforms, rep.Leaves())
	}
}

func TestReceptorQuadsInvalid(t *testing.T) {
	for name, mutate := range map[string]func(*ontology.ReceptorRecord){
		"no atoms":       func(r *ontology.ReceptorRecord) { r.Atoms = 0 },
		"no chains":      func(r *ontology.ReceptorRecord) { r.Chains = 0 },
		"bad sha":        func(r *ontology.ReceptorRecord) { r.Source.SHA256 = "ABC" },
		"bad pocket id":  func(r *ontology.ReceptorRecord) { r.Pockets[0].ID = "pocket1" },
		"pocket twice":   func(r *ontology.ReceptorRecord) { r.Pockets[1].ID = "p1" },
		"zero size":      func(r *ontology.ReceptorRecord) { r.Pockets[1].Size[2] = 0 },
		"no time":        func(r *ontology.ReceptorRecord) { r.CreatedAt = time.Time{} },
		"same sha, diff": func(r *ontology.ReceptorRecord) { r.Prepared.SHA256 = shaA },
		"pH 99":          func(r *ontology.ReceptorRecord) { r.Preparation.PH = 99 },
		"pH NaN":         func(r *ontology.ReceptorRecord) { r.Preparation.PH = math.NaN() },
		"route reduce":   func(r *ontology.ReceptorRecord) { r.Preparation.Route = "reduce" },
		"no steps":       func(r *ontology.ReceptorRecord) { r.Preparation.Steps = nil },
		"step no args":   func(r *ontology.ReceptorRecord) { r.Preparation.Steps[1].Arguments = nil },
	} {
		rec := sampleReceptor()
		mutate(&rec)
		if _, err := ontology.ReceptorQuads("http://example.org/", "rec-1", &rec); !errors.Is(err, ontology.ErrInvalidReceptorRecord) {
			t.Errorf("%s: %v, want ErrInvalidReceptorRecord", name, err)
		}
	}
	if _, err := ontology.ReceptorQuads("http://example.org/", "rec/1", &ontology.ReceptorRecord{}); !errors.Is(err, ontology.ErrInvalidReceptorRecord) {
		t.Errorf("bad id: %v", err)
	}
}

func TestReceptorFromQuadsErrors(t *testing.T) {
	if _, err := ontology.ReceptorFromQuads(nil); !errors.Is(err, ontology.ErrNoReceptor) {
		t.Errorf("empty: %v", err)
	}
	rec := sampleReceptor()
	qs, err := ontology.ReceptorQuads("http://example.org/", "rec-1", &rec)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		if q.Predicate == quad.IRI(ontology.MG+"atomCount") {
			bad := append([]quad.Quad(nil), qs...)
			bad[i].Object = quad.String("many")
			if _, err := ontology.ReceptorFromQuads(bad); !errors.Is(err, ontology.ErrInvalidReceptorRecord) || !strings.Contains(err.Error(), "atomCount") {
				t.Errorf("string atom count: %v", err)
			}
		}
	}
}

// TestReceptorPreparationShape: the preparation shape rejects a graph
// whose preparation has a pH outside [0, 14], an unknown route or a
// program run without its command line (ReceptorQuads refuses such
// records; these graphs are edited after the mapping).
func TestReceptorPreparationShape(t *testing.T) {
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	rec := sampleReceptor()
	qs, err := ontology.ReceptorQuads("http://example.org/", "rec-1", &rec)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(q quad.Quad) (quad.Quad, bool){
		"pH 99": func(q quad.Quad) (quad.Quad, bool) {
			if q.Predicate == quad.IRI(ontology.MG+"pH") {
				q.Object = ontology.Double(99)
			}
			return q, true
		},
		"route reduce": func(q quad.Quad) (quad.Quad, bool) {
			if q.Predicate == quad.IRI(ontology.MG+"preparationRoute") {
				q.Object = quad.String("reduce")
			}
			return q, true
		},
		"no program name": func(q quad.Quad) (quad.Quad, bool) {
			return q, q.Predicate != quad.IRI(ontology.RDF+"_1")
		},
	} {
		var cut []quad.Quad
		for _, q := range qs {
			if q, keep := edit(q); keep {
				cut = append(cut, q)
			}
		}
		rep, err := gate.Validate(cut)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Conforms {
			t.Errorf("%s: conforms", name)
		}
	}
}
