package handlers

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/internal/sharedtest"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/shapes"
)

// dockingCorpus reads a file of ../shared/docking-corpus (found from the
// module root); the test is skipped when the corpus is not there.
func dockingCorpus(t *testing.T, rel string) []byte {
	t.Helper()
	return sharedtest.ReadFile(t, "docking-corpus", rel)
}

func newReceptorFixture(t *testing.T) (*fixture, *graph.Store) {
	t.Helper()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newFixture(t, func(c *Config) { c.Graph = st }), st
}

func (f *fixture) postReceptor(t *testing.T, filename string, data []byte, values ...string) *httptest.ResponseRecorder {
	t.Helper()
	body, ct := upload(t, filename, data, values...)
	return f.do(t, http.MethodPost, "/v1/receptors", "write", body, "Content-Type", ct)
}

func decodeReceptor(t *testing.T, rec *httptest.ResponseRecorder) receptorView {
	t.Helper()
	var v receptorView
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	return v
}

// atomLines returns the ATOM/HETATM records of a PDB or PDBQT file and
// the number of distinct residues (chain, number, insertion code) in them.
func atomLines(data []byte) (lines []string, residues int) {
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "ATOM") || strings.HasPrefix(l, "HETATM") {
			lines = append(lines, l)
			if key := l[21:27]; !seen[key] {
				seen[key] = true
			}
		}
	}
	return lines, len(seen)
}

// sdfHeavyAtoms reads the heavy-atom coordinates of a V2000 molfile.
func sdfHeavyAtoms(t *testing.T, data []byte) [][3]float64 {
	t.Helper()
	ls := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	n, err := strconv.Atoi(strings.TrimSpace(ls[3][:3]))
	if err != nil {
		t.Fatal(err)
	}
	var out [][3]float64
	for _, l := range ls[4 : 4+n] {
		if strings.TrimSpace(l[31:34]) == "H" {
			continue
		}
		var p [3]float64
		for k := 0; k < 3; k++ {
			if p[k], err = strconv.ParseFloat(strings.TrimSpace(l[10*k:10*k+10]), 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, p)
	}
	return out
}

func withoutRemarks(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "REMARK") {
			out = append(out, strings.TrimRight(l, "\r"))
		}
	}
	return strings.Join(out, "\n")
}

// TestReceptorUpload1iep: the H-stripped 1iep receptor (a raw crystal
// structure stand-in, docking-corpus README section 4) through POST
// /v1/receptors with real Open Babel (route=obabel). References: the input PDB (heavy
// atoms, residues, chain A), the corpus rec_B file `obabel noH.pdb -xr -h
// -opdbqt` (471 HD; the prepared structure must equal it), and the crystal
// imatinib of 1iep_ligand.sdf (the top pocket within 4 Å, DCA).
func TestReceptorUpload1iep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs obabel")
	}
	f, st := newReceptorFixture(t)
	in := dockingCorpus(t, "derived/1iep_receptor_noH.pdb")
	want := dockingCorpus(t, "derived/1iep_receptor_obabel_xr_h.pdbqt")
	lig := sdfHeavyAtoms(t, dockingCorpus(t, "vina-examples/1iep/1iep_ligand.sdf"))

	res := f.postReceptor(t, "1iep_receptor_noH.pdb", in, "name", "c-Abl kinase (1iep)", "route", "obabel")
	if res.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", res.Code, res.Body)
	}
	v := decodeReceptor(t, res)
	if loc := res.Header().Get("Location"); loc != "/v1/receptors/"+v.ID || !strings.HasPrefix(v.ID, "rec-") {
		t.Errorf("id %q, Location %q", v.ID, loc)
	}
	inAtoms, inResidues := atomLines(in)
	wantAtoms, _ := atomLines(want)
	hd := 0
	for _, l := range wantAtoms {
		if strings.TrimSpace(l[77:]) == "HD" {
			hd++
		}
	}
	if hd != 471 {
		t.Fatalf("corpus rec_B has %d HD atoms, README says 471", hd)
	}
	if v.Atoms != len(inAtoms)+471 || v.Atoms != len(wantAtoms) || v.Residues != inResidues || v.Chains != 1 {
		t.Errorf("atoms %d (want %d heavy + 471 HD = %d), residues %d (want %d), chains %d (want 1)",
			v.Atoms, len(inAtoms), len(wantAtoms), v.Residues, inResidues, v.Chains)
	}
	if p := v.Preparation; v.Name != "c-Abl kinase (1iep)" || v.Format != "pdb" || p == nil || p.Route != "obabel" || p.PH != 7.4 ||
		p.Fallback != "" || len(p.Steps) != 1 || p.Steps[0].Tool != "Open Babel" || p.Steps[0].Version == "" ||
		!reflect.DeepEqual(p.Steps[0].Arguments, []string{"obabel", "-ipdb", "in.pdb", "-xr", "-h", "-opdbqt", "-O", "out.pdbqt"}) {
		t.Errorf("name %q, format %q, preparation %+v", v.Name, v.Format, v.Preparation)
	}
	if len(v.Pockets) == 0 {
		t.Fatal("no pockets")
	}
	for i, p := range v.Pockets {
		if p.ID != "p"+strconv.Itoa(i+1) || p.Rank != i+1 || (i > 0 && p.Score > v.Pockets[i-1].Score) {
			t.Errorf("pocket %d: %+v", i, p)
		}
	}
	dca := math.Inf(1)
	for _, a := range lig {
		dca = math.Min(dca, math.Sqrt(sq(a[0]-v.Pockets[0].Center[0])+sq(a[1]-v.Pockets[0].Center[1])+sq(a[2]-v.Pockets[0].Center[2])))
	}
	if dca > 4 {
		t.Errorf("p1 centre %v is %.1f Å from the crystal imatinib (want <= 4)", v.Pockets[0].Center, dca)
	}
	t.Logf("1iep: %d atoms, %d residues, %d pockets, p1 %+v (DCA %.1f Å), preparation %+v", v.Atoms, v.Residues, len(v.Pockets), v.Pockets[0], dca, v.Preparation)

	// GET gives the same record; the structure files are the prepared
	// PDBQT (identical to the corpus obabel file) and the upload.
	got := f.do(t, http.MethodGet, "/v1/receptors/"+v.ID, "read", nil)
	if got.Code != 200 || !reflect.DeepEqual(decodeReceptor(t, got), v) {
		t.Errorf("GET: %d %s", got.Code, got.Body)
	}
	pq := f.do(t, http.MethodGet, "/v1/receptors/"+v.ID+"/structure", "read", nil)
	if pq.Code != 200 || pq.Header().Get("Content-Type") != ontology.MediaTypePDBQT || withoutRemarks(pq.Body.Bytes()) != withoutRemarks(want) {
		t.Errorf("structure pdbqt: %d %q, equal to corpus: %v", pq.Code, pq.Header().Get("Content-Type"), withoutRemarks(pq.Body.Bytes()) == withoutRemarks(want))
	}
	pdb := f.do(t, http.MethodGet, "/v1/receptors/"+v.ID+"/structure?format=pdb", "read", nil)
	if pdb.Code != 200 || !bytes.Equal(pdb.Body.Bytes(), in) {
		t.Errorf("structure pdb: %d, same bytes as upload: %v", pdb.Code, bytes.Equal(pdb.Body.Bytes(), in))
	}
	problemOf(t, f.do(t, http.MethodGet, "/v1/receptors/"+v.ID+"/structure?format=mol2", "read", nil), 400, "invalid_request")

	// Re-upload: same id, 200, nothing new.
	again := f.postReceptor(t, "other-name.pdb", in, "route", "obabel")
	if again.Code != http.StatusOK || decodeReceptor(t, again).ID != v.ID {
		t.Errorf("re-upload: %d %s", again.Code, again.Body)
	}

	// Triples parse back to the same record, conform to the shapes and use
	// declared terms only.
	tr := f.do(t, http.MethodGet, "/v1/receptors/"+v.ID+"/triples?format=ntriples", "read", nil)
	if tr.Code != 200 {
		t.Fatalf("triples: %d %s", tr.Code, tr.Body)
	}
	qs, err := rdfio.ParseNTriples(bytes.NewReader(tr.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	back, err := ontology.ReceptorFromQuads(qs)
	if err != nil || !reflect.DeepEqual(back, v.ReceptorRecord) {
		t.Errorf("triples -> record: %v\n got %+v\nwant %+v", err, back, v.ReceptorRecord)
	}
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := gate.Validate(qs)
	if err != nil || !rep.Conforms {
		t.Errorf("shapes: %v %+v", err, rep)
	}
	if u := gate.Undeclared(qs); len(u) != 0 {
		t.Errorf("undeclared terms: %v", u)
	}
	if n := countReceptors(t, st); n != 1 {
		t.Errorf("%d receptors stored, want 1", n)
	}
}

func sq(x float64) float64 { return x * x }

func countReceptors(t *testing.T, st *graph.Store) int {
	t.Helper()
	iris, _, err := st.ListByClass(t.Context(), quad.IRI(ontology.MG+"Receptor"), "", 100)
	if err != nil {
		t.Fatal(err)
	}
	return len(iris)
}

// TestReceptorUploadPDBQT: a ready PDBQT (the Vina repo's 1iep receptor) is
// used as is; there is no PDB to return.
func TestReceptorUploadPDBQT(t *testing.T) {
	f, _ := newReceptorFixture(t)
	in := dockingCorpus(t, "vina-examples/1iep/1iep_receptor.pdbqt")
	res := f.postReceptor(t, "1iep_receptor.pdbqt", in, "keep_hetero", "true")
	if res.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", res.Code, res.Body)
	}
	v := decodeReceptor(t, res)
	atoms, residues := atomLines(in)
	if v.Format != "pdbqt" || v.Preparation != nil || v.Atoms != len(atoms) || v.Residues != residues || v.Name != "1iep_receptor" ||
		v.Source != v.Prepared || len(v.Pockets) == 0 {
		t.Errorf("record %+v", v)
	}
	pq := f.do(t, http.MethodGet, "/v1/receptors/"+v.ID+"/structure?format=pdbqt", "read", nil)
	if pq.Code != 200 || !bytes.Equal(pq.Body.Bytes(), in) {
		t.Errorf("structure pdbqt: %d", pq.Code)
	}
	problemOf(t, f.do(t, http.MethodGet, "/v1/receptors/"+v.ID+"/structure?format=pdb", "read", nil), 404, "not_found")
	// keep_hetero does not change a PDBQT: the same id.
	if again := f.postReceptor(t, "x.pdbqt", in); again.Code != http.StatusOK || decodeReceptor(t, again).ID != v.ID {
		t.Errorf("re-upload without option: %d %s", again.Code, again.Body)
	}
	problemOf(t, f.do(t, http.MethodGet, "/v1/receptors/rec-0000", "read", nil), 404, "not_found")
	problemOf(t, f.do(t, http.MethodGet, "/v1/receptors/calc-0000/triples", "read", nil), 404, "not_found")
}

func TestReceptorID(t *testing.T) {
	d := []byte("ATOM ...")
	opt := func(edit func(*receptorUpload)) *receptorUpload {
		up := &receptorUpload{ph: 7.4, route: "pdb2pqr"}
		if edit != nil {
			edit(up)
		}
		return up
	}
	base := receptorID(d, "pdb", opt(nil))
	for name, id := range map[string]string{
		"keep_hetero":  receptorID(d, "pdb", opt(func(u *receptorUpload) { u.keepHetero = true })),
		"keep_metals":  receptorID(d, "pdb", opt(func(u *receptorUpload) { u.keepMetals = true })),
		"ph 7.0":       receptorID(d, "pdb", opt(func(u *receptorUpload) { u.ph = 7 })),
		"route obabel": receptorID(d, "pdb", opt(func(u *receptorUpload) { u.route = "obabel" })),
		"pdbqt":        receptorID(d, "pdbqt", opt(nil)),
		"other bytes":  receptorID([]byte("ATOM ..,"), "pdb", opt(nil)),
	} {
		if id == base {
			t.Errorf("%s: same id as the plain upload", name)
		}
	}
	all := opt(func(u *receptorUpload) { u.keepHetero, u.keepMetals, u.ph, u.route = true, true, 3, "obabel" })
	if receptorID(d, "pdbqt", all) != receptorID(d, "pdbqt", opt(nil)) {
		t.Error("options change a PDBQT's id")
	}
}

// TestReceptorBadInput: unusable uploads are 4xx naming the problem and
// store nothing (no graph, no blob).
func TestReceptorBadInput(t *testing.T) {
	f, st := newReceptorFixture(t)
	water := "HETATM    1  O   HOH A   1      10.000  10.000  10.000  1.00 20.00           O\nEND\n"
	tests := []struct {
		name, filename, data string
		values               []string
		status               int
		code, detail         string
	}{
		{"not a PDB", "x.pdb", "hello, this is not a structure\n", nil, 422, "invalid_receptor", "no polymer ATOM records"},
		{"water only", "w.pdb", water, nil, 422, "invalid_receptor", "no polymer ATOM records"},
		{"ligand PDBQT", "lig.pdbqt", string(dockingCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt")), nil, 422, "invalid_receptor", "torsion tree"},
		{"bad option", "x.pdb", water, []string{"keep_hetero", "maybe"}, 400, "invalid_request", "keep_hetero"},
		{"ph 99", "x.pdb", water, []string{"ph", "99"}, 400, "invalid_request", "ph"},
		{"ph NaN", "x.pdb", water, []string{"ph", "NaN"}, 400, "invalid_request", "ph"},
		{"ph Inf", "x.pdb", water, []string{"ph", "Inf"}, 400, "invalid_request", "ph"},
		{"ph negative", "x.pdb", water, []string{"ph", "-1"}, 400, "invalid_request", "ph"},
		{"ph 14.5", "x.pdb", water, []string{"ph", "14.5"}, 400, "invalid_request", "ph"},
		{"ph hex float", "x.pdb", water, []string{"ph", "0x1p2"}, 400, "invalid_request", "ph"},
		{"ph exponent", "x.pdb", water, []string{"ph", "7e0"}, 400, "invalid_request", "ph"},
		{"ph comma", "x.pdb", water, []string{"ph", "7,4"}, 400, "invalid_request", "ph"},
		{"ph on a PDBQT", "lig.pdbqt", "ATOM", []string{"ph", "NaN"}, 400, "invalid_request", "ph"},
		{"route reduce", "x.pdb", water, []string{"route", "reduce"}, 400, "invalid_request", "route"},
		{"empty file", "x.pdb", "", nil, 400, "invalid_request", "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := problemOf(t, f.postReceptor(t, tc.filename, []byte(tc.data), tc.values...), tc.status, tc.code)
			if !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("detail %q does not name %q", p.Detail, tc.detail)
			}
			if tc.status == 400 && len(tc.values) > 0 && (len(p.Errors) != 1 || p.Errors[0].Field != tc.values[0]) {
				t.Errorf("errors %+v, want one naming the field %q", p.Errors, tc.values[0])
			}
			if st.Blobs().Has(hexSHA256([]byte(tc.data))) {
				t.Error("the upload was stored as a blob")
			}
		})
	}
	body, ct := upload(t, "", nil, "name", "x")
	problemOf(t, f.do(t, http.MethodPost, "/v1/receptors", "write", body, "Content-Type", ct), 400, "invalid_request")
	problemOf(t, f.do(t, http.MethodPost, "/v1/receptors", "write", strings.NewReader(water), "Content-Type", "chemical/x-pdb"), 415, "unsupported_media_type")
	problemOf(t, f.postReceptorAs(t, "read", "x.pdb", []byte(water)), 403, "forbidden")
	if n := countReceptors(t, st); n != 0 {
		t.Errorf("%d receptors stored after bad input", n)
	}
}

// TestReceptorUploadPH: a PDB upload goes the PDB2PQR route by default,
// at pH 7.4, and records it (route, pH, both command lines, versions) in
// the JSON and, read back through the triples, in the graph. References:
// the docking-corpus README section 4, rec_E (PDB2PQR with PROPKA at pH
// 7.4, then obabel -xr: 473 HD atoms); at pH 4 PROPKA protonates more
// (more HD); the two pH values are two receptors (two ids).
func TestReceptorUploadPH(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pdb2pqr and obabel")
	}
	if _, err := exec.LookPath("pdb2pqr30"); err != nil {
		t.Skip("pdb2pqr30 not installed (Debian pdb2pqr)")
	}
	f, st := newReceptorFixture(t)
	in := dockingCorpus(t, "derived/1iep_receptor_noH.pdb")
	inAtoms, inResidues := atomLines(in)
	res := f.postReceptor(t, "1iep.pdb", in, "route", "pdb2pqr")
	if res.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", res.Code, res.Body)
	}
	v := decodeReceptor(t, res)
	p := v.Preparation
	if p == nil || p.Route != "pdb2pqr" || p.PH != 7.4 || p.Fallback != "" || len(p.Steps) != 2 {
		t.Fatalf("preparation %+v", p)
	}
	if s := p.Steps[0]; s.Tool != "PDB2PQR" || !strings.HasPrefix(s.Version, "3.5.2") || s.Arguments[0] != "pdb2pqr30" ||
		!slices.Contains(s.Arguments, "--with-ph=7.4") || !slices.Contains(s.Arguments, "--titration-state-method=propka") {
		t.Errorf("step 1 %+v", s)
	}
	if s := p.Steps[1]; s.Tool != "Open Babel" || slices.Contains(s.Arguments, "-h") {
		t.Errorf("step 2 %+v", s)
	}
	pq := f.do(t, http.MethodGet, "/v1/receptors/"+v.ID+"/structure", "read", nil)
	lines, residues := atomLines(pq.Body.Bytes())
	hd := 0
	for _, l := range lines {
		if strings.TrimSpace(l[77:]) == "HD" {
			hd++
		}
	}
	// PDB2PQR rebuilds missing heavy atoms (1iep: the C-terminal OXT),
	// hence >=.
	if hd != 473 || residues != inResidues || v.Residues != inResidues || v.Atoms != len(lines) || len(lines) < len(inAtoms)+473 {
		t.Errorf("%d HD (want 473), %d residues (want %d), %d atoms", hd, residues, inResidues, v.Atoms)
	}
	tr := f.do(t, http.MethodGet, "/v1/receptors/"+v.ID+"/triples?format=ntriples", "read", nil)
	qs, err := rdfio.ParseNTriples(bytes.NewReader(tr.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ontology.ReceptorFromQuads(qs); err != nil || !reflect.DeepEqual(back.Preparation, v.Preparation) {
		t.Errorf("graph preparation %+v (%v), JSON %+v", back.Preparation, err, v.Preparation)
	}
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := gate.Validate(qs); err != nil || !rep.Conforms {
		t.Errorf("shapes: %v %+v", err, rep)
	}

	acid := f.postReceptor(t, "1iep.pdb", in, "ph", "4", "route", "pdb2pqr")
	if acid.Code != http.StatusCreated {
		t.Fatalf("pH 4: %d %s", acid.Code, acid.Body)
	}
	a := decodeReceptor(t, acid)
	if a.ID == v.ID || a.Preparation.PH != 4 || a.Atoms <= v.Atoms {
		t.Errorf("pH 4: id %s (pH 7.4 %s), preparation %+v, %d atoms (pH 7.4: %d)", a.ID, v.ID, a.Preparation, a.Atoms, v.Atoms)
	}
	if again := f.postReceptor(t, "x.pdb", in, "ph", "7.4", "route", "pdb2pqr"); again.Code != http.StatusOK || decodeReceptor(t, again).ID != v.ID {
		t.Errorf("explicit ph 7.4: %d, want 200 with %s", again.Code, v.ID)
	}
	if n := countReceptors(t, st); n != 2 {
		t.Errorf("%d receptors stored, want 2", n)
	}
}

func (f *fixture) postReceptorAs(t *testing.T, who, filename string, data []byte) *httptest.ResponseRecorder {
	body, ct := upload(t, filename, data)
	return f.do(t, http.MethodPost, "/v1/receptors", who, body, "Content-Type", ct)
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
