package ontology_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
	"github.com/molgraph/molgraph/shapes"
)

// moleculeInputs cover the record's features: plain, charged salt
// (fragment removal, neutralization), stereo, isotopes, an invalid-but-
// parseable radical, a molfile, and a 3D conformer.
var moleculeInputs = []struct {
	name string
	in   batch.Input
}{
	{"aspirin", batch.Input{Format: chem.FormatSMILES, Content: "CC(=O)Oc1ccccc1C(=O)O", Name: "aspirin"}},
	{"sodium benzoate", batch.Input{Format: chem.FormatSMILES, Content: "[Na+].[O-]C(=O)c1ccccc1"}},
	{"alanine", batch.Input{Format: chem.FormatSMILES, Content: "C[C@H](N)C(=O)O", Name: "L-alanine"}},
	{"deuterated", batch.Input{Format: chem.FormatSMILES, Content: "[2H]C([2H])([2H])O"}},
	{"methyl radical", batch.Input{Format: chem.FormatSMILES, Content: "[CH3]"}},
	{"caffeine inchi", batch.Input{Format: chem.FormatInChI, Content: "InChI=1S/C8H10N4O2/c1-10-4-9-6-5(10)7(13)12(3)8(14)11(6)2/h4H,1-3H3"}},
	{"ethanol 3d", batch.Input{Format: chem.FormatSMILES, Content: "CCO", Name: "ethanol", Generate3D: true}},
}

// prepareAll runs the inputs through real RDKit and returns their records
// as the registry builds them (CreatedAt and, for 3D, Structure set).
func prepareAll(t *testing.T) []ontology.MoleculeRecord {
	t.Helper()
	pool, err := chem.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	store, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	reg := batch.NewRegistry(store, pool, testBase, nil)
	var out []ontology.MoleculeRecord
	for i, m := range moleculeInputs {
		p, err := reg.Prepare(context.Background(), m.in)
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		rec := p.Rec
		rec.CreatedAt = time.Date(2026, 1, 2, 3, 4, 5, 6000*i, time.UTC)
		if p.SDF != nil {
			rec.Has3D = true
			rec.Structure = &ontology.MoleculeFile{SHA256: strings.Repeat("0f", 32), Bytes: int64(len(p.SDF)),
				MediaType: "chemical/x-mdl-sdfile", Filename: rec.ID + ".sdf"}
		}
		out = append(out, rec)
	}
	return out
}

func TestMoleculeRoundTrip(t *testing.T) {
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range prepareAll(t) {
		t.Run(rec.ID, func(t *testing.T) {
			qs, err := ontology.MoleculeQuads(testBase, &rec)
			if err != nil {
				t.Fatal(err)
			}
			want := rec
			want.IRI = string(ontology.ResourceIRI(testBase, ontology.KindMolecule, rec.ID))
			got, err := ontology.MoleculeFromQuads(qs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
			// Through N-Triples text (what a reopened store gives back is
			// the same values).
			var buf bytes.Buffer
			if err := rdfio.WriteAll(&buf, rdfio.NTriples, qs); err != nil {
				t.Fatal(err)
			}
			back, err := rdfio.ParseNTriples(&buf)
			if err != nil {
				t.Fatal(err)
			}
			got2, err := ontology.MoleculeFromQuads(back)
			if err != nil || !reflect.DeepEqual(got2, want) {
				t.Errorf("through N-Triples: %v\n got %+v\nwant %+v", err, got2, want)
			}
			// The shapes: the graph conforms and uses only declared terms.
			rep, err := gate.Validate(qs)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Conforms {
				for _, r := range rep.Leaves() {
					t.Errorf("shape violation: %v %v: %s", r.FocusNode, r.Path, r.Message())
				}
			}
			if u := gate.Undeclared(qs); len(u) > 0 {
				t.Errorf("undeclared terms: %v", u)
			}
			for _, q := range qs {
				if _, ok := q.Subject.(quad.BNode); ok {
					t.Errorf("blank node subject %v", q)
				}
				if q.Label != quad.IRI(want.IRI) {
					t.Errorf("quad in graph %v", q.Label)
				}
			}
		})
	}
}

// TestMoleculeReferenceValues checks records against published values:
// PubChem's InChIKey, formula and molecular weight of aspirin (CID 2244),
// benzoic acid (CID 243, from sodium benzoate after salt removal), caffeine
// (CID 2519) and the methyl radical (CID 3034819), which parses but fails
// validation.
func TestMoleculeReferenceValues(t *testing.T) {
	recs := prepareAll(t)
	tests := []struct {
		i              int
		key, formula   string
		mw             float64
		validated      bool
		removedWarning bool
	}{
		{0, "BSYNRYMUTXBXSQ-UHFFFAOYSA-N", "C9H8O4", 180.16, true, false},
		{1, "WPYMKLBDIGXBTP-UHFFFAOYSA-N", "C7H6O2", 122.12, true, true},
		{5, "RYYVLZVUVIJVGH-UHFFFAOYSA-N", "C8H10N4O2", 194.19, true, false},
		{4, "WCYWZMWISLQXQU-UHFFFAOYSA-N", "CH3", 15.035, false, false},
	}
	for _, tt := range tests {
		r := recs[tt.i]
		if r.InChIKey != tt.key || r.Formula != tt.formula || math.Abs(r.MW-tt.mw) > 0.01 || r.Validated != tt.validated {
			t.Errorf("%s: key %s formula %s mw %v validated %v; want %s %s %v %v", moleculeInputs[tt.i].name,
				r.InChIKey, r.Formula, r.MW, r.Validated, tt.key, tt.formula, tt.mw, tt.validated)
		}
		found := false
		for _, is := range r.Validation {
			found = found || is.Code == "multiple_fragments"
		}
		if found != tt.removedWarning {
			t.Errorf("%s: multiple_fragments warning %v, want %v (%+v)", moleculeInputs[tt.i].name, found, tt.removedWarning, r.Validation)
		}
	}
	if a, b := ontology.MoleculeID("CCO"), ontology.MoleculeID("CCO"); a != b || len(a) != 30 || !strings.HasPrefix(a, "mol-") {
		t.Errorf("MoleculeID: %q %q", a, b)
	}
	if ontology.MoleculeID("CCO") == ontology.MoleculeID("OCC") {
		t.Error("different SMILES, same id")
	}
}

// TestMoleculeGolden compares aspirin's Turtle with
// testdata/molecule/aspirin.ttl (go test -update rewrites it) and validates
// it with rapper when installed.
func TestMoleculeGolden(t *testing.T) {
	rec := prepareAll(t)[0]
	qs, err := ontology.MoleculeQuads(testBase, &rec)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rdfio.WriteAll(&buf, rdfio.Turtle, qs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "molecule", "aspirin.ttl")
	if *qmtest.Update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("Turtle differs from %s (go test -update rewrites it)", path)
	}
	if rapper, err := exec.LookPath("rapper"); err == nil {
		cmd := exec.Command(rapper, "-q", "-i", "turtle", "-o", "ntriples", "-", testBase)
		cmd.Stdin = bytes.NewReader(want)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("rapper rejects the Turtle: %v\n%s", err, out)
		}
		back, err := rdfio.ParseNTriples(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		triples := make([]quad.Quad, len(qs))
		for i, q := range qs {
			q.Label = nil
			triples[i] = q
		}
		if !rdfio.Isomorphic(back, triples) {
			t.Error("rapper's N-Triples differ from the quads")
		}
	}
}

func TestMoleculeQuadsErrors(t *testing.T) {
	good := ontology.MoleculeRecord{ID: "mol-x", SMILES: "C", InChI: "InChI=1S/CH4/h1H4", InChIKey: "VNWKTOKETHGBQD-UHFFFAOYSA-N", Formula: "CH4", MW: 16}
	if _, err := ontology.MoleculeQuads(testBase, &good); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		mod  func(*ontology.MoleculeRecord)
	}{
		{"no id", func(r *ontology.MoleculeRecord) { r.ID = "" }},
		{"bad id", func(r *ontology.MoleculeRecord) { r.ID = "mol-a/b" }},
		{"wrong prefix", func(r *ontology.MoleculeRecord) { r.ID = "calc-x" }},
		{"inchi without key", func(r *ontology.MoleculeRecord) { r.InChIKey = "" }},
		{"key without inchi", func(r *ontology.MoleculeRecord) { r.InChI = "" }},
		{"validated without inchi", func(r *ontology.MoleculeRecord) { r.InChI, r.InChIKey, r.Validated = "", "", true }},
		{"nan", func(r *ontology.MoleculeRecord) { r.LogP = math.NaN() }},
		{"bad issue", func(r *ontology.MoleculeRecord) { r.Validation = []ontology.MoleculeIssue{{Level: "", Code: "x"}} }},
		{"bad blob", func(r *ontology.MoleculeRecord) { r.Structure = &ontology.MoleculeFile{SHA256: "xyz"} }},
	}
	for _, tt := range tests {
		r := good
		tt.mod(&r)
		if _, err := ontology.MoleculeQuads(testBase, &r); !errors.Is(err, ontology.ErrInvalidMoleculeRecord) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
	if _, err := ontology.MoleculeQuads(testBase, nil); !errors.Is(err, ontology.ErrInvalidMoleculeRecord) {
		t.Errorf("nil: %v", err)
	}
}

// TestMoleculeWithoutInChI: a molecule libinchi refused maps without the
// InChI and InChIKey shortcuts and descriptors, and reads back as it was.
func TestMoleculeWithoutInChI(t *testing.T) {
	rec := ontology.MoleculeRecord{ID: "mol-x", SMILES: "*CCO", Formula: "C2H5O", MW: 45.06, HeavyAtoms: 4,
		Validation:    []ontology.MoleculeIssue{{Level: "error", Code: "inchi", Message: "no InChI: dummy or query atom: no InChI"}},
		Normalization: []string{"sanitize"}, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	qs, err := ontology.MoleculeQuads(testBase, &rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if q.Predicate == quad.IRI(ontology.MG+"inchi") || q.Predicate == ontology.MoleculeInChIKey ||
			strings.HasSuffix(q.Subject.String(), "#inchi>") || strings.HasSuffix(q.Subject.String(), "#inchikey>") {
			t.Errorf("quad about an absent InChI: %v", q)
		}
	}
	got, err := ontology.MoleculeFromQuads(qs)
	rec.IRI = string(ontology.ResourceIRI(testBase, ontology.KindMolecule, rec.ID))
	if err != nil || !reflect.DeepEqual(got, rec) {
		t.Fatalf("read back: %v\n got %+v\nwant %+v", err, got, rec)
	}
}

func TestMoleculeFromQuadsErrors(t *testing.T) {
	good := ontology.MoleculeRecord{ID: "mol-x", SMILES: "C", InChI: "InChI=1S/CH4/h1H4", InChIKey: "VNWKTOKETHGBQD-UHFFFAOYSA-N", Formula: "CH4", MW: 16}
	qs, _ := ontology.MoleculeQuads(testBase, &good)
	m := ontology.ResourceIRI(testBase, ontology.KindMolecule, "mol-x")
	replace := func(p string, o quad.Value) []quad.Quad {
		var out []quad.Quad
		for _, q := range qs {
			if q.Subject == m && q.Predicate == quad.IRI(ontology.MG+p) {
				q.Object = o
			}
			out = append(out, q)
		}
		return out
	}
	drop := func(p string) []quad.Quad {
		var out []quad.Quad
		for _, q := range qs {
			if !(q.Subject == m && q.Predicate == quad.IRI(ontology.MG+p)) {
				out = append(out, q)
			}
		}
		return out
	}
	second := append(append([]quad.Quad{}, qs...), quad.Quad{Subject: quad.IRI("http://x/m2"), Predicate: ontology.RDFType, Object: ontology.MoleculeClass})
	tests := []struct {
		name string
		qs   []quad.Quad
		want error
	}{
		{"empty", nil, ontology.ErrNoMolecule},
		{"two molecules", second, ontology.ErrNoMolecule},
		{"mw not a number", replace("molecularWeight", ontology.String("heavy")), ontology.ErrInvalidMoleculeRecord},
		{"mw bad lexical", replace("molecularWeight", quad.TypedString{Value: "x", Type: ontology.XSDDouble}), ontology.ErrInvalidMoleculeRecord},
		{"hbd double", replace("hbd", ontology.Double(1.5)), ontology.ErrInvalidMoleculeRecord},
		{"validated string", replace("validated", ontology.String("yes")), ontology.ErrInvalidMoleculeRecord},
		{"no smiles", drop("canonicalSmiles"), ontology.ErrInvalidMoleculeRecord},
		{"smiles iri", replace("canonicalSmiles", quad.IRI("http://x")), ontology.ErrInvalidMoleculeRecord},
		{"bad validation message", append(append([]quad.Quad{}, qs...), quad.Quad{Subject: m, Predicate: quad.IRI(ontology.MG + "validationMessage"), Object: ontology.String("no colon")}), ontology.ErrInvalidMoleculeRecord},
	}
	for _, tt := range tests {
		if _, err := ontology.MoleculeFromQuads(tt.qs); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
}

// FuzzMoleculeFromQuads feeds N-Triples documents to MoleculeFromQuads:
// it must return a record or an error, never panic, and a record it
// returns must map back to quads (or be refused with ErrInvalidMoleculeRecord).
func FuzzMoleculeFromQuads(f *testing.F) {
	rec := ontology.MoleculeRecord{ID: "mol-x", SMILES: "C", InChI: "InChI=1S/CH4/h1H4", InChIKey: "VNWKTOKETHGBQD-UHFFFAOYSA-N",
		Formula: "CH4", MW: 16.043, Validation: []ontology.MoleculeIssue{{Level: "warning", Code: "c", Message: "m"}},
		Normalization: []string{"sanitize"}, Structure: &ontology.MoleculeFile{SHA256: strings.Repeat("a", 64), Bytes: 3}}
	qs, _ := ontology.MoleculeQuads(testBase, &rec)
	var buf bytes.Buffer
	rdfio.WriteAll(&buf, rdfio.NTriples, qs)
	f.Add(buf.Bytes())
	f.Add([]byte(`<http://x/m> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://w3id.org/molgraph/vocab#Molecule> .`))
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := rdfio.ParseNTriples(bytes.NewReader(data))
		if err != nil {
			return
		}
		rec, err := ontology.MoleculeFromQuads(qs)
		if err != nil {
			if !errors.Is(err, ontology.ErrNoMolecule) && !errors.Is(err, ontology.ErrInvalidMoleculeRecord) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if _, err := ontology.MoleculeQuads(testBase, &rec); err != nil && !errors.Is(err, ontology.ErrInvalidMoleculeRecord) {
			t.Fatalf("record does not map back: %v", err)
		}
	})
}
