package ontology_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/features"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

const testBase = "http://localhost:8080/"

var parsers = qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}}

// corpusRecord parses a corpus log and completes its record with the
// fields the handler sets (source, molecule, time).
func corpusRecord(t *testing.T, rel string, data []byte) ontology.CalculationRecord {
	t.Helper()
	c, err := parsers.Parse(bytes.NewReader(data), "")
	if err != nil {
		t.Fatalf("%s: parse: %v", rel, err)
	}
	rec := features.Record(c)
	rec.Source = &ontology.CalculationSource{Filename: filepath.Base(rel), SHA256: strings.Repeat("ab", 32), Bytes: int64(len(data))}
	rec.MoleculeID = "mol-test"
	rec.CreatedAt = time.Date(2026, 11, 21, 23, 2, 0, 123456789, time.UTC)
	return rec
}

func corpusLogs(t *testing.T) []string {
	var logs []string
	for _, dir := range []string{"gaussian", "orca", "psi4"} {
		logs = append(logs, qmtest.Logs(t, dir)...)
	}
	if len(logs) < 40 {
		t.Fatalf("only %d corpus logs", len(logs))
	}
	return logs
}

// checkShape checks the invariants every calculation graph keeps: one named
// graph (the calculation IRI), no blank nodes, subjects under the
// calculation IRI (or the log's blob), literals only as xsd:string or typed
// literals with a full XSD datatype IRI.
func checkShape(t *testing.T, name string, calc quad.IRI, qs []quad.Quad) {
	t.Helper()
	for _, q := range qs {
		if q.Label != calc {
			t.Fatalf("%s: quad %v in graph %v", name, q, q.Label)
		}
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object} {
			switch x := v.(type) {
			case quad.BNode:
				t.Fatalf("%s: blank node in %v", name, q)
			case quad.IRI, quad.String:
			case quad.TypedString:
				if !strings.HasPrefix(string(x.Type), ontology.XSD) {
					t.Fatalf("%s: datatype %v in %v", name, x.Type, q)
				}
			default:
				t.Fatalf("%s: term %T in %v", name, v, q)
			}
		}
		s := string(q.Subject.(quad.IRI))
		if s != string(calc) && !strings.HasPrefix(s, string(calc)+"#") && !strings.HasPrefix(s, testBase+"blob/sha256-") {
			t.Fatalf("%s: subject %s outside the calculation", name, s)
		}
	}
}

// TestCalculationRoundTripCorpus maps every Gaussian, ORCA and Psi4 corpus
// log to quads and reads the record back: directly, through Turtle and
// through N-Quads. The record must come back unchanged.
func TestCalculationRoundTripCorpus(t *testing.T) {
	for _, rel := range corpusLogs(t) {
		data := qmtest.Read(t, rel)
		rec := corpusRecord(t, rel, data)
		id := "calc-" + strings.NewReplacer("/", "-", ".", "-").Replace(rel)
		qs, err := ontology.CalculationQuads(testBase, id, &rec)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		calc := ontology.ResourceIRI(testBase, ontology.KindCalculation, id)
		checkShape(t, rel, calc, qs)
		want := rec
		want.ID, want.IRI = id, string(calc)

		got, err := ontology.CalculationFromQuads(qs)
		if err != nil {
			t.Fatalf("%s: from quads: %v", rel, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: record changed through quads:\n got %+v\nwant %+v", rel, got, want)
		}

		for _, f := range []rdfio.Format{rdfio.Turtle, rdfio.NQuads} {
			var buf bytes.Buffer
			if err := rdfio.WriteAll(&buf, f, qs); err != nil {
				t.Fatalf("%s: write %v: %v", rel, f, err)
			}
			var back []quad.Quad
			if f == rdfio.Turtle {
				back, err = rdfio.ParseTurtle(&buf, "")
			} else {
				back, err = rdfio.ParseNQuads(&buf)
			}
			if err != nil {
				t.Fatalf("%s: parse %v: %v", rel, f, err)
			}
			got, err := ontology.CalculationFromQuads(back)
			if err != nil {
				t.Fatalf("%s: from %v: %v", rel, f, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: record changed through %v:\n got %+v\nwant %+v", rel, f, got, want)
			}
		}
	}
}

// TestCalculationQuadsTerms checks individual triples against the model of
// spec/GRAPH.md for one log, by hand: Gaussian 16 DVB optimisation.
func TestCalculationQuadsTerms(t *testing.T) {
	rel := "gaussian/basicGaussian16/dvb_gopt.out"
	rec := corpusRecord(t, rel, qmtest.Read(t, rel))
	qs, err := ontology.CalculationQuads(testBase, "calc-1", &rec)
	if err != nil {
		t.Fatal(err)
	}
	c := "http://localhost:8080/id/calculation/calc-1"
	has := map[string]bool{}
	for _, q := range qs {
		has[q.Subject.String()+" "+q.Predicate.String()+" "+q.Object.String()] = true
	}
	const (
		occ  = "http://www.theworldavatar.com/ontology/ontocompchem/ontocompchem.owl#"
		gc   = "http://purl.org/gc/"
		mg   = "https://w3id.org/molgraph/vocab#"
		rdfT = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
	)
	for _, want := range []string{
		"<" + c + "> " + rdfT + " <" + occ + "G16>",
		"<" + c + "> " + rdfT + " <" + mg + "Calculation>",
		"<" + c + "> <" + occ + "hasEnvironment> <" + c + "#environment>",
		"<" + c + "#environment> <" + occ + "hasProgram> \"Gaussian\"",
		"<" + c + "#environment> <" + occ + "hasProgramVersion> \"16 Rev. A.03\"",
		"<" + c + "> <" + gc + "isCalculationOn> <" + c + "#geometry-optimization>",
		"<" + c + "#geometry-optimization> " + rdfT + " <" + gc + "GeometryOptimization>",
		"<" + c + "#geometry-optimization> <" + gc + "hasMolecule> <" + c + "#molecule>",
		"<" + c + "#molecule> <" + gc + "hasAtom> <" + c + "#atom-1>",
		"<" + c + "#atom-1> <" + gc + "isElement> <http://www.daml.org/2003/01/periodictable/PeriodicTable.owl#C>",
		"<" + c + "#atom-20> <" + gc + "isElement> <http://www.daml.org/2003/01/periodictable/PeriodicTable.owl#H>",
		"<" + c + "#atom-1-x> <" + gc + "hasUnit> <http://qudt.org/vocab/unit/ANGSTROM>",
		"<" + c + "#scf-energy> " + rdfT + " <" + occ + "ScfEnergy>",
		"<" + c + "#scf-energy-value> <" + gc + "hasUnit> <http://qudt.org/vocab/unit/E_h>",
		"<" + c + "#homo-energy-value> <" + gc + "hasUnit> <http://qudt.org/vocab/unit/EV>",
		"<" + c + "#level-of-theory> <" + occ + "hasLevelOfTheory> \"B3LYP\"",
		"<" + c + "#basis-set> <" + gc + "hasBasisSet> \"STO-3G\"",
		"<" + c + "> <" + mg + "formula> \"C10H10\"",
		"<" + c + "#composition-C> <" + gc + "hasNumberOfAtoms> \"10\"^^<http://www.w3.org/2001/XMLSchema#integer>",
		"<" + c + "> <" + mg + "atomCount> \"20\"^^<http://www.w3.org/2001/XMLSchema#integer>",
		"<" + c + "> <" + mg + "multiplicity> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer>",
		"<" + c + "> <" + occ + "hasUniqueSpecies> <http://localhost:8080/id/molecule/mol-test>",
		"<" + c + "> <http://www.w3.org/ns/prov#wasDerivedFrom> <http://localhost:8080/blob/sha256-" + strings.Repeat("ab", 32) + ">",
		"<" + c + "> <" + mg + "normalTermination> \"true\"^^<http://www.w3.org/2001/XMLSchema#boolean>",
		"<" + c + "> <" + mg + "jobType> \"optimization\"",
		"<" + c + "#geometry-type> <" + occ + "hasGeometryType> \"nonlinear\"",
	} {
		if !has[want] {
			t.Errorf("missing triple %s", want)
		}
	}
}

func TestCalculationProgramClasses(t *testing.T) {
	const occ = "http://www.theworldavatar.com/ontology/ontocompchem/ontocompchem.owl#"
	const mg = "https://w3id.org/molgraph/vocab#"
	for _, tc := range []struct{ program, version, want string }{
		{"Gaussian", "09 Rev. D.01", occ + "G09"},
		{"Gaussian", "16 Rev. C.01", occ + "G16"},
		{"Gaussian", "03 Rev. B.04", occ + "G03"},
		{"Gaussian", "98", occ + "GaussianCalculation"},
		{"ORCA", "5.0.1", mg + "OrcaCalculation"},
		{"Psi4", "1.7", mg + "Psi4Calculation"},
		{"NWChem", "7.0.2", mg + "NWChemCalculation"},
		{"xtb", "6.5.1", mg + "XtbCalculation"},
		{"Q-Chem", "6", mg + "Calculation"},
	} {
		if got := ontology.CalculationClass(tc.program, tc.version); string(got) != tc.want {
			t.Errorf("CalculationClass(%q, %q) = %s, want %s", tc.program, tc.version, got, tc.want)
		}
	}
}

func TestCalculationFormula(t *testing.T) {
	atoms := func(s ...string) []ontology.CalculationAtom {
		var g []ontology.CalculationAtom
		for _, e := range s {
			g = append(g, ontology.CalculationAtom{Element: e})
		}
		return g
	}
	for _, tc := range []struct {
		g    []ontology.CalculationAtom
		want string
	}{
		{atoms("O", "H", "H"), "H2O"},
		{atoms("O", "C", "O"), "CO2"},
		{atoms("C", "C", "O", "H", "H", "H", "H", "H", "H"), "C2H6O"},
		{atoms("Cl", "H"), "ClH"},
		{atoms("H", "Br", "C", "H", "H"), "CH3Br"},
		{atoms("", "He"), "He"},
		{nil, ""},
	} {
		if got := ontology.CalculationFormula(tc.g); got != tc.want {
			t.Errorf("CalculationFormula(%v) = %q, want %q", tc.g, got, tc.want)
		}
	}
}

func TestCalculationQuadsErrors(t *testing.T) {
	ok := ontology.CalculationRecord{Program: "ORCA"}
	for _, tc := range []struct {
		name string
		id   string
		rec  *ontology.CalculationRecord
	}{
		{"nil record", "calc-1", nil},
		{"empty id", "", &ok},
		{"id with slash", "a/b", &ok},
		{"id with space", "a b", &ok},
		{"bad element", "calc-1", &ontology.CalculationRecord{Geometry: []ontology.CalculationAtom{{Element: "c>"}}}},
		{"bad job", "calc-1", &ontology.CalculationRecord{JobTypes: []string{"dance"}}},
		{"bad sha", "calc-1", &ontology.CalculationRecord{Source: &ontology.CalculationSource{SHA256: "xyz"}}},
		{"bad molecule id", "calc-1", &ontology.CalculationRecord{MoleculeID: "mol 1"}},
	} {
		if _, err := ontology.CalculationQuads(testBase, tc.id, tc.rec); !errors.Is(err, ontology.ErrInvalidCalculation) {
			t.Errorf("%s: err = %v, want ErrInvalidCalculation", tc.name, err)
		}
	}
}

func TestCalculationFromQuadsErrors(t *testing.T) {
	rec := ontology.CalculationRecord{Program: "Psi4", Charge: qm.Int(0), JobTypes: []string{"frequency"}, NAtoms: 2,
		Geometry:     []ontology.CalculationAtom{{Element: "H"}, {Element: "H", Z: 0.74}},
		Energies:     &ontology.CalculationEnergies{SCF: qm.Float(-1.1)},
		Frequencies:  &ontology.CalculationFrequencies{Wavenumbers: []float64{4400}},
		Optimization: &ontology.CalculationOptimization{Converged: true, Steps: 3}}
	good, err := ontology.CalculationQuads(testBase, "calc-h2", &rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ontology.CalculationFromQuads(good); err != nil {
		t.Fatalf("good quads: %v", err)
	}
	if _, err := ontology.CalculationFromQuads(nil); !errors.Is(err, ontology.ErrNoCalculation) {
		t.Errorf("no quads: err = %v, want ErrNoCalculation", err)
	}
	two, _ := ontology.CalculationQuads(testBase, "calc-h2b", &rec)
	if _, err := ontology.CalculationFromQuads(append(append([]quad.Quad(nil), good...), two...)); !errors.Is(err, ontology.ErrNoCalculation) {
		t.Errorf("two calculations: err = %v, want ErrNoCalculation", err)
	}
	// Replace one object at a time by a term of the wrong kind.
	replace := func(pred string, o quad.Value) []quad.Quad {
		out := append([]quad.Quad(nil), good...)
		found := false
		for i, q := range out {
			if strings.HasSuffix(string(q.Predicate.(quad.IRI)), pred) {
				out[i].Object, found = o, true
			}
		}
		if !found {
			t.Fatalf("no predicate %s", pred)
		}
		return out
	}
	for _, tc := range []struct {
		pred string
		o    quad.Value
	}{
		{"#scfEnergy", quad.String("minus one")},
		{"#scfEnergy", ontology.Boolean(true)},
		{"#charge", ontology.Double(0.5)},
		{"#atomCount", quad.String("2")},
		{"hasValue", quad.TypedString{Value: "x", Type: ontology.XSDDouble}},
		{"hasFrequencies", quad.String("4400 abc")},
		{"#atomIndex", ontology.Integer(7)},
		{"#optimizationConverged", quad.TypedString{Value: "yes", Type: ontology.XSDBoolean}},
		{"#jobType", quad.String("dance")},
		{"#program", ontology.Integer(1)},
	} {
		if _, err := ontology.CalculationFromQuads(replace(tc.pred, tc.o)); !errors.Is(err, ontology.ErrInvalidCalculation) {
			t.Errorf("%s = %v: err = %v, want ErrInvalidCalculation", tc.pred, tc.o, err)
		}
	}
}

// goldenLogs are the corpus logs whose Turtle is kept in testdata.
var goldenLogs = []struct{ name, rel string }{
	{"gaussian16_dvb_gopt", "gaussian/basicGaussian16/dvb_gopt.out"},
	{"gaussian16_dvb_un_sp", "gaussian/basicGaussian16/dvb_un_sp_b.log"},
	{"orca42_dvb_ir", "orca/ORCA4.2/dvb_ir.out"},
	{"orca40_co2_freqs", "orca/ORCA4.0/CO2_freqs.out"},
	{"psi4_ch4_hf_opt_freq", "psi4/Psi4-1.2/ch4_hf_opt_freq.out"},
	{"psi4_stopiter_dft", "psi4/Psi4-beta5/stopiter_psi_dft.out"},
}

// TestCalculationGolden compares the Turtle and N-Quads of a few logs with
// the files in testdata/calculation (go test -update rewrites them), parses
// each back (isomorphic to the quads) and validates the Turtle with rapper.
func TestCalculationGolden(t *testing.T) {
	rapper, rapperErr := exec.LookPath("rapper")
	for _, g := range goldenLogs {
		rec := corpusRecord(t, g.rel, qmtest.Read(t, g.rel))
		qs, err := ontology.CalculationQuads(testBase, "calc-"+g.name, &rec)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := rdfio.WriteAll(&buf, rdfio.Turtle, qs); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "calculation", g.name+".ttl")
		if *qmtest.Update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run go test -update)", g.name, err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: Turtle differs from %s (go test -update rewrites it)", g.name, path)
		}
		// The N-Quads golden keeps the named graph, as stored.
		var nq bytes.Buffer
		if err := rdfio.WriteAll(&nq, rdfio.NQuads, qs); err != nil {
			t.Fatal(err)
		}
		nqPath := filepath.Join("testdata", "calculation", g.name+".nq")
		if *qmtest.Update {
			if err := os.WriteFile(nqPath, nq.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if wantNQ, err := os.ReadFile(nqPath); err != nil {
			t.Fatalf("%s: %v (run go test -update)", g.name, err)
		} else if !bytes.Equal(nq.Bytes(), wantNQ) {
			t.Errorf("%s: N-Quads differ from %s (go test -update rewrites it)", g.name, nqPath)
		} else if fromNQ, err := rdfio.ParseNQuads(bytes.NewReader(wantNQ)); err != nil || !rdfio.Isomorphic(fromNQ, qs) {
			t.Errorf("%s: golden N-Quads do not read back to the quads: %v", g.name, err)
		}
		back, err := rdfio.ParseTurtle(bytes.NewReader(want), "")
		if err != nil {
			t.Fatalf("%s: golden does not parse: %v", g.name, err)
		}
		// Turtle has no graphs: compare triples.
		triples := make([]quad.Quad, len(qs))
		for i, q := range qs {
			triples[i] = quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}
		}
		if !rdfio.Isomorphic(back, triples) {
			t.Errorf("%s: golden Turtle is not isomorphic to the quads", g.name)
		}
		// JSON-LD (compacted with the service's context) expands to the same triples.
		var ld bytes.Buffer
		if err := rdfio.WriteAll(&ld, rdfio.JSONLD, qs); err != nil {
			t.Fatalf("%s: json-ld: %v", g.name, err)
		}
		fromLD, err := rdfio.ParseJSONLD(&ld, "")
		if err != nil {
			t.Fatalf("%s: parse json-ld: %v", g.name, err)
		}
		for i := range fromLD {
			fromLD[i].Label = nil
		}
		if !rdfio.Isomorphic(fromLD, triples) {
			t.Errorf("%s: JSON-LD is not isomorphic to the quads (%d vs %d triples)", g.name, len(fromLD), len(triples))
		}
		if rapperErr != nil {
			t.Logf("rapper not installed (apt raptor2-utils): not checked")
			continue
		}
		out, err := exec.Command(rapper, "-i", "turtle", "-c", path).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("returned")) {
			t.Errorf("%s: rapper -i turtle -c: %v\n%s", g.name, err, out)
		}
	}
	if rapperErr != nil && os.Getenv("CI") != "" {
		t.Errorf("rapper is required in CI: %v", rapperErr)
	}
}

// FuzzCalculationFromTurtle feeds arbitrary Turtle to CalculationFromQuads,
// which must return a record or an error and never panic. The seeds are
// small (the Go fuzzer minimizes every new input, which takes long for the
// 20–40 kB goldens): the Turtle of a hydrogen molecule with every part of
// the record, and a calculation node with a malformed value.
func FuzzCalculationFromTurtle(f *testing.F) {
	h2 := ontology.CalculationRecord{Program: "Psi4", ProgramVersion: "1.7", JobTypes: []string{"optimization", "frequency"},
		Method: "HF", BasisSet: "STO-3G", Charge: qm.Int(0), Multiplicity: qm.Int(1), Formula: "H2", NAtoms: 2,
		Geometry:     []ontology.CalculationAtom{{Element: "H"}, {Element: "H", Z: 0.712}},
		Energies:     &ontology.CalculationEnergies{SCF: qm.Float(-1.117), SCFSteps: []float64{-1.1, -1.117}, ZPE: qm.Float(0.01)},
		Optimization: &ontology.CalculationOptimization{Converged: true, Steps: 3},
		Frequencies:  &ontology.CalculationFrequencies{Wavenumbers: []float64{5481}, IRIntensities: []float64{0}},
		Orbitals:     &ontology.CalculationOrbitals{HOMO: qm.Float(-16.2), LUMO: qm.Float(19.3), Gap: qm.Float(35.5)},
		Dipole:       &ontology.CalculationDipole{}, MullikenCharges: []float64{0, 0},
		MoleculeID: "mol-h2", Source: &ontology.CalculationSource{Filename: "h2.out", SHA256: strings.Repeat("0f", 32), Bytes: 10},
		CreatedAt: time.Unix(1e9, 0).UTC(),
	}
	qs, err := ontology.CalculationQuads("http://x/", "calc-h2", &h2)
	if err != nil {
		f.Fatal(err)
	}
	var seed bytes.Buffer
	if err := rdfio.WriteAll(&seed, rdfio.Turtle, qs); err != nil {
		f.Fatal(err)
	}
	f.Add(seed.Bytes())
	f.Add([]byte(`<http://x/c> a <https://w3id.org/molgraph/vocab#Calculation> ; <https://w3id.org/molgraph/vocab#charge> "x" .`))
	f.Fuzz(func(t *testing.T, b []byte) {
		qs, err := rdfio.ParseTurtle(bytes.NewReader(b), "http://x/")
		if err != nil {
			return
		}
		rec, err := ontology.CalculationFromQuads(qs)
		if err != nil {
			if !errors.Is(err, ontology.ErrInvalidCalculation) && !errors.Is(err, ontology.ErrNoCalculation) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		// Whatever was read maps back without panicking.
		if rec.ID != "" && rec.Source == nil {
			_, _ = ontology.CalculationQuads("http://x/", rec.ID, &rec)
		}
	})
}

// TestCalculationRecordJSON checks the record's JSON against the shape of
// GET /v1/qm/calculations/{id} in spec/API.md (links are the handler's).
func TestCalculationRecordJSON(t *testing.T) {
	rel := "gaussian/basicGaussian16/dvb_ir.out"
	rec := corpusRecord(t, rel, qmtest.Read(t, rel))
	rec.ID, rec.IRI = "calc-1", testBase+"id/calculation/calc-1"
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	api := map[string][]string{
		"id": nil, "iri": nil, "program": nil, "program_version": nil, "job_types": nil,
		"method": nil, "basis_set": nil, "charge": nil, "multiplicity": nil, "formula": nil,
		"natoms": nil, "geometry": {"element", "x", "y", "z"},
		"energies":         {"scf_hartree", "scf_steps_hartree", "zpe_hartree", "enthalpy_hartree", "gibbs_hartree"},
		"frequencies":      {"wavenumbers_cm1", "ir_intensities_km_mol", "imaginary_count"},
		"orbitals":         {"homo_ev", "lumo_ev", "gap_ev"},
		"dipole_debye":     {"x", "y", "z", "total"},
		"mulliken_charges": nil, "rotational_constants_ghz": nil, "normal_termination": nil,
		"molecule_id": nil, "source": {"filename", "sha256", "bytes"}, "created_at": nil,
		"optimization": {"converged", "steps"},
	}
	for k, sub := range api {
		raw, ok := m[k]
		if !ok {
			if k != "optimization" { // a frequency job of this log: no optimisation
				t.Errorf("JSON has no %q", k)
			}
			continue
		}
		if sub == nil {
			continue
		}
		var obj map[string]any
		if k == "geometry" {
			var arr []map[string]any
			if err := json.Unmarshal(raw, &arr); err != nil || len(arr) != 20 {
				t.Fatalf("geometry: %v", err)
			}
			obj = arr[0]
		} else if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		for _, s := range sub {
			if _, ok := obj[s]; !ok {
				t.Errorf("%s has no %q", k, s)
			}
		}
	}
	for k := range m {
		if _, ok := api[k]; !ok {
			t.Errorf("JSON key %q is not in API.md", k)
		}
	}
}
