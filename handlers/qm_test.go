package handlers

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
	"github.com/molgraph/molgraph/shapes"
)

func newQMFixture(t *testing.T, withGate bool) (*fixture, *graph.Store) {
	t.Helper()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var gate *shapes.Gate
	if withGate {
		if gate, err = shapes.NewGate(); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t, func(c *Config) {
		c.Graph = st
		c.QM = qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}}
		c.Gate = gate
	})
	return f, st
}

// upload builds a multipart body with a file part and form values.
func upload(t *testing.T, filename string, data []byte, values ...string) (io.Reader, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	if filename != "" {
		fw, err := mw.CreateFormFile("file", filename)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	for i := 0; i+1 < len(values); i += 2 {
		mw.WriteField(values[i], values[i+1])
	}
	mw.Close()
	return &b, mw.FormDataContentType()
}

func (f *fixture) parse(t *testing.T, filename string, data []byte, values ...string) *httptest.ResponseRecorder {
	t.Helper()
	body, ct := upload(t, filename, data, values...)
	return f.do(t, http.MethodPost, "/v1/qm/parse", "write", body, "Content-Type", ct)
}

func decodeCalc(t *testing.T, rec *httptest.ResponseRecorder) calculationView {
	t.Helper()
	var v calculationView
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	return v
}

func TestParseLogStoresCalculation(t *testing.T) {
	f, st := newQMFixture(t, true)
	data := qmtest.Read(t, "gaussian/basicGaussian16/dvb_ir.out")
	rec := f.parse(t, "dvb_ir.out", data)
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	v := decodeCalc(t, rec)
	if !strings.HasPrefix(v.ID, "calc-") || rec.Header().Get("Location") != "/v1/qm/calculations/"+v.ID {
		t.Errorf("id %q, Location %q", v.ID, rec.Header().Get("Location"))
	}
	// EXPECTED.md (cclib's GaussianIRTest) for this file: natom = 20,
	// 54 frequencies, ZPE 0.1771 Eh ± 1e-3, enthalpy -382.12130689 Eh (3 dp).
	if v.NAtoms != 20 || v.Program != "Gaussian" || !v.NormalTermination {
		t.Errorf("natoms %d, program %q, normal termination %v", v.NAtoms, v.Program, v.NormalTermination)
	}
	if v.Frequencies == nil || len(v.Frequencies.Wavenumbers) != 54 {
		t.Fatalf("frequencies: %+v", v.Frequencies)
	}
	if v.Energies == nil || v.Energies.ZPE == nil || math.Abs(*v.Energies.ZPE-0.1771) > 1e-3 {
		t.Errorf("zpe: %+v", v.Energies)
	}
	if v.Energies.Enthalpy == nil || math.Abs(*v.Energies.Enthalpy-(-382.12130689)) > 5e-4 {
		t.Errorf("enthalpy: %v", v.Energies.Enthalpy)
	}
	if v.Source == nil || v.Source.Bytes != int64(len(data)) || v.Source.Filename != "dvb_ir.out" {
		t.Errorf("source: %+v", v.Source)
	}
	// The log itself is kept as a blob under its SHA-256.
	if got, err := st.Blobs().Get(v.Source.SHA256); err != nil || !bytes.Equal(got, data) {
		t.Errorf("log blob: %v", err)
	}

	// GET projects the same record from the graph.
	get := f.do(t, http.MethodGet, "/v1/qm/calculations/"+v.ID, "read", nil)
	if get.Code != http.StatusOK {
		t.Fatalf("get: %d %s", get.Code, get.Body)
	}
	var a, b map[string]any
	json.Unmarshal(rec.Body.Bytes(), &a)
	json.Unmarshal(get.Body.Bytes(), &b)
	delete(a, "validation")
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("POST and GET records differ:\n%s\n%s", ja, jb)
	}

	// The same bytes again: 200 and the same id, nothing new stored.
	again := f.parse(t, "renamed.log", data)
	if again.Code != http.StatusOK || decodeCalc(t, again).ID != v.ID {
		t.Errorf("re-upload: %d %s", again.Code, again.Body)
	}
}

func TestCalculationTriplesFormats(t *testing.T) {
	f, st := newQMFixture(t, false)
	rec := f.parse(t, "dvb_sp.out", qmtest.Read(t, "orca/basicORCA5.0/dvb_sp.out"))
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	id := decodeCalc(t, rec).ID
	stored, err := st.Graph(t.Context(), ontology.ResourceIRI("http://example.org/", ontology.KindCalculation, id))
	if err != nil {
		t.Fatal(err)
	}
	triples := make([]quad.Quad, len(stored))
	for i, q := range stored {
		q.Label = nil
		triples[i] = q
	}
	base := "/v1/qm/calculations/" + id + "/triples"
	cases := []struct {
		query, accept, ctype string
		parse                func(io.Reader) ([]quad.Quad, error)
	}{
		{"", "", "text/turtle", func(r io.Reader) ([]quad.Quad, error) { return rdfio.ParseTurtle(r, "") }},
		{"?format=ttl", "", "text/turtle", func(r io.Reader) ([]quad.Quad, error) { return rdfio.ParseTurtle(r, "") }},
		{"?format=nt", "", "application/n-triples", rdfio.ParseNTriples},
		{"?format=ntriples", "text/turtle", "application/n-triples", rdfio.ParseNTriples},
		{"?format=json-ld", "", "application/ld+json", func(r io.Reader) ([]quad.Quad, error) { return rdfio.ParseJSONLD(r, "") }},
		{"", "application/n-triples", "application/n-triples", rdfio.ParseNTriples},
		{"", "application/ld+json", "application/ld+json", func(r io.Reader) ([]quad.Quad, error) { return rdfio.ParseJSONLD(r, "") }},
	}
	for _, c := range cases {
		rec := f.do(t, http.MethodGet, base+c.query, "read", nil, "Accept", c.accept)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), c.ctype) {
			t.Errorf("%s Accept %q: %d %s", c.query, c.accept, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		got, err := c.parse(rec.Body)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if !rdfio.Isomorphic(got, triples) {
			t.Errorf("%s: %d triples, not the %d stored", c.query, len(got), len(triples))
		}
	}
	p := problemOf(t, f.do(t, http.MethodGet, base+"?format=rdfxml", "read", nil), http.StatusBadRequest, "invalid_request")
	if len(p.Errors) != 1 || !strings.Contains(p.Errors[0].Message, "turtle, jsonld, ntriples") {
		t.Errorf("unknown format: %+v", p.Errors)
	}
	problemOf(t, f.do(t, http.MethodGet, base, "read", nil, "Accept", "image/png"), http.StatusNotAcceptable, "not_acceptable")
	problemOf(t, f.do(t, http.MethodGet, "/v1/qm/calculations/calc-0000/triples", "read", nil), http.StatusNotFound, "not_found")
}

func TestParseLogValidation(t *testing.T) {
	f, st := newQMFixture(t, true)
	// A complete log conforms; the body reports it.
	rec := f.parse(t, "dvb_sp.out", qmtest.Read(t, "gaussian/basicGaussian16/dvb_sp.out"), "validate_ontology", "true")
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var body struct {
		Validation struct {
			Conforms bool  `json:"conforms"`
			Results  []any `json:"results"`
		} `json:"validation"`
	}
	json.Unmarshal(rec.Body.Bytes(), &body)
	if !body.Validation.Conforms || len(body.Validation.Results) != 0 {
		t.Errorf("validation: %s", rec.Body)
	}
	// A run killed before its first energy lacks what a calculation needs:
	// 422 with the SHACL results, and nothing stored.
	before := countQuads(t, st)
	bad := f.parse(t, "stopiter.out", qmtest.Read(t, "gaussian/Gaussian09/stopiter_gaussian.out"), "validate_ontology", "true")
	p := problemOf(t, bad, http.StatusUnprocessableEntity, "ontology_validation_failed")
	if len(p.Errors) == 0 {
		t.Error("no validation results in the problem")
	}
	if n := countQuads(t, st); n != before {
		t.Errorf("a rejected calculation stored %d quads", n-before)
	}
	// Without validation the same log is stored, flagged as not normally
	// terminated.
	ok := f.parse(t, "stopiter.out", qmtest.Read(t, "gaussian/Gaussian09/stopiter_gaussian.out"))
	if ok.Code != http.StatusCreated || decodeCalc(t, ok).NormalTermination {
		t.Errorf("unvalidated truncated log: %d %s", ok.Code, ok.Body)
	}
}

func countQuads(t *testing.T, st *graph.Store) int {
	n := 0
	if err := st.Match(t.Context(), graph.Pattern{}, func(quad.Quad) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestParseLogBadInput(t *testing.T) {
	f, st := newQMFixture(t, false)
	nwchem := qmtest.Read(t, "nwchem/basicNWChem7.0/dvb_ir.out")
	cases := []struct {
		name   string
		req    func() *httptest.ResponseRecorder
		status int
		code   string
	}{
		{"not a log", func() *httptest.ResponseRecorder {
			return f.parse(t, "notes.txt", []byte("just some text\nnothing to see\n"))
		}, 422, "unsupported_log"},
		{"binary", func() *httptest.ResponseRecorder {
			return f.parse(t, "x.bin", []byte{0x7f, 'E', 'L', 'F', 0, 0, 1, 2, 0, 0})
		}, 422, "unsupported_log"},
		{"log of another program than the one named", func() *httptest.ResponseRecorder {
			return f.parse(t, "dvb_ir.out", nwchem, "program", "gaussian")
		}, 422, "unsupported_log"},
		{"empty file", func() *httptest.ResponseRecorder { return f.parse(t, "empty.log", nil) }, 400, "invalid_request"},
		{"no file part", func() *httptest.ResponseRecorder { return f.parse(t, "", nil, "validate_ontology", "false") }, 400, "invalid_request"},
		{"bad boolean", func() *httptest.ResponseRecorder {
			return f.parse(t, "a.log", []byte("x"), "validate_ontology", "maybe")
		}, 400, "invalid_request"},
		{"unknown program", func() *httptest.ResponseRecorder {
			return f.parse(t, "a.log", []byte("x"), "program", "molpro")
		}, 400, "invalid_request"},
		{"validation without a gate", func() *httptest.ResponseRecorder {
			return f.parse(t, "a.log", []byte("x"), "validate_ontology", "true")
		}, 501, "not_implemented"},
		{"json instead of multipart", func() *httptest.ResponseRecorder {
			return f.do(t, http.MethodPost, "/v1/qm/parse", "write", strings.NewReader(`{"file":"x"}`), "Content-Type", "application/json")
		}, 415, "unsupported_media_type"},
		{"truncated multipart", func() *httptest.ResponseRecorder {
			body, ct := upload(t, "a.log", []byte("x"))
			b, _ := io.ReadAll(body)
			return f.do(t, http.MethodPost, "/v1/qm/parse", "write", bytes.NewReader(b[:len(b)/2]), "Content-Type", ct)
		}, 400, "invalid_request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problemOf(t, c.req(), c.status, c.code)
		})
	}
	if n := countQuads(t, st); n != 0 {
		t.Errorf("bad uploads stored %d quads", n)
	}
}

func TestFeaturesRoutes(t *testing.T) {
	f, _ := newQMFixture(t, false)
	var ids []string
	for _, rel := range []string{"gaussian/basicGaussian16/dvb_ir.out", "psi4/basicPsi4-1.7/dvb_ir_rks.out"} {
		rec := f.parse(t, rel, qmtest.Read(t, rel))
		if rec.Code != http.StatusCreated {
			t.Fatalf("%s: %d %s", rel, rec.Code, rec.Body)
		}
		ids = append(ids, decodeCalc(t, rec).ID)
	}
	one := f.do(t, http.MethodGet, "/v1/qm/calculations/"+ids[0]+"/features", "read", nil)
	var fv struct {
		ID       string              `json:"id"`
		Features map[string]*float64 `json:"features"`
		Units    map[string]string   `json:"units"`
	}
	if err := json.Unmarshal(one.Body.Bytes(), &fv); err != nil || fv.ID != ids[0] {
		t.Fatalf("%v: %s", err, one.Body)
	}
	if len(fv.Features) == 0 || len(fv.Units) != len(fv.Features) {
		t.Errorf("%d features, %d units", len(fv.Features), len(fv.Units))
	}
	table := f.do(t, http.MethodGet, "/v1/qm/features?format=csv", "read", nil)
	rows, err := csv.NewReader(table.Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || len(rows[0]) != len(fv.Features)+1 {
		t.Fatalf("csv: %d rows of %d columns", len(rows), len(rows[0]))
	}
	seen := map[string]bool{rows[1][0]: true, rows[2][0]: true}
	if !seen[ids[0]] || !seen[ids[1]] {
		t.Errorf("csv ids %v, want %v", seen, ids)
	}
	problemOf(t, f.do(t, http.MethodGet, "/v1/qm/features?format=xlsx", "read", nil), http.StatusBadRequest, "invalid_request")
}

// TestParseLogLinksMolecule: a neutral closed-shell calculation is linked
// to the molecule of its final geometry (registered if new); cclib's dvb
// logs are para-divinylbenzene.
func TestParseLogLinksMolecule(t *testing.T) {
	f := newMolFixture(t, 0)
	f.srv.cfg.QM = qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}}
	rec := f.parse(t, "dvb_gopt.out", qmtest.Read(t, "gaussian/basicGaussian16/dvb_gopt.out"))
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	calc := decodeCalc(t, rec)
	if calc.MoleculeID == "" {
		t.Fatal("calculation not linked to a molecule")
	}
	// The reference: RDKit's canonical form of p-divinylbenzene, registered
	// through the molecule route; it must be the same molecule.
	mol := f.post(t, `{"format": "smiles", "content": "C=Cc1ccc(C=C)cc1"}`)
	if mol.Code != http.StatusOK {
		t.Fatalf("p-divinylbenzene should exist already: %d %s", mol.Code, mol.Body)
	}
	if id := decode[map[string]any](t, mol)["id"]; id != calc.MoleculeID {
		t.Errorf("linked to %s, p-divinylbenzene is %v", calc.MoleculeID, id)
	}
	triples := f.do(t, http.MethodGet, "/v1/qm/calculations/"+calc.ID+"/triples?format=nt", "read", nil)
	if !strings.Contains(triples.Body.String(), "hasUniqueSpecies> <http://example.org/id/molecule/"+calc.MoleculeID+">") {
		t.Error("no occ:hasUniqueSpecies triple to the molecule")
	}
	// A cation is not linked: the xyz bond perception assumes neutral species.
	ion := f.parse(t, "CO2_cation.out", qmtest.Read(t, "orca/ORCA4.0/CO2_freqs.out"))
	if ion.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", ion.Code, ion.Body)
	}
	if v := decodeCalc(t, ion); v.Charge == nil || *v.Charge == 0 || v.MoleculeID != "" {
		t.Errorf("cation: charge %v, molecule %q", v.Charge, v.MoleculeID)
	}
}
