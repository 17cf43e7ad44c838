package handlers

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// svgHighlight is RDKit's default highlight colour.
const svgHighlight = "#FF7F7F"

// svgInfo parses an SVG (failing the test if it is not XML) and returns
// its width and height attributes and the atom indexes of the ellipses
// filled with the highlight colour.
func svgInfo(t *testing.T, svg string) (w, h string, atoms []int) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	first := true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not XML: %v", err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		a := map[string]string{}
		for _, at := range el.Attr {
			a[at.Name.Local] = at.Value
		}
		if first {
			if el.Name.Local != "svg" {
				t.Fatalf("root %s", el.Name.Local)
			}
			w, h, first = a["width"], a["height"], false
		}
		if el.Name.Local == "ellipse" && strings.Contains(a["style"], "fill:"+svgHighlight) {
			if n, ok := strings.CutPrefix(a["class"], "atom-"); ok {
				v, err := strconv.Atoi(strings.TrimSpace(n))
				if err != nil {
					t.Fatalf("class %q", a["class"])
				}
				atoms = append(atoms, v)
			}
		}
	}
	slices.Sort(atoms)
	return w, h, atoms
}

// pythonMatch is RDKit Python's GetSubstructMatch of smarts on smiles,
// sorted (Debian python3-rdkit).
func pythonMatch(t *testing.T, smiles, smarts string) []int {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", "-c",
		"import sys, json\nfrom rdkit import Chem\nm = Chem.MolFromSmiles(sys.argv[1])\n"+
			"print(json.dumps(sorted(m.GetSubstructMatch(Chem.MolFromSmarts(sys.argv[2])))))", smiles, smarts).Output()
	if err != nil {
		t.Skipf("needs Debian python3-rdkit: %v", err)
	}
	var v []int
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMoleculeImage: a registered molecule is drawn at the asked size,
// the atoms highlighted are those RDKit Python matches on its stored
// SMILES, a repeat with the ETag is a 304 without a body, and bad options
// are 4xx naming them.
func TestMoleculeImage(t *testing.T) {
	f := newMolFixture(t, 0)
	imatinib := "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"
	id := f.register(t, imatinib)
	rec := f.do(t, "GET", "/v1/molecules/"+id, "read", nil)
	smiles := decode[map[string]any](t, rec)["smiles_canonical"].(string)

	const smarts = "c1ncccn1" // the pyrimidine
	path := "/v1/molecules/" + id + "/image.svg?width=400&height=250&highlight=" + url.QueryEscape(smarts)
	rec = f.do(t, "GET", path, "read", nil)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "image/svg+xml" {
		t.Errorf("Content-Type %q", ct)
	}
	w, h, atoms := svgInfo(t, rec.Body.String())
	if w != "400px" || h != "250px" {
		t.Errorf("size %s x %s", w, h)
	}
	want := pythonMatch(t, smiles, smarts)
	if len(want) != 6 || !slices.Equal(atoms, want) {
		t.Errorf("highlighted atoms %v, RDKit Python matches %v", atoms, want)
	}
	etag := rec.Header().Get("ETag")
	if etag == "" || !strings.Contains(rec.Header().Get("Cache-Control"), "max-age") {
		t.Errorf("ETag %q Cache-Control %q", etag, rec.Header().Get("Cache-Control"))
	}
	rec = f.do(t, "GET", path, "read", nil, "If-None-Match", etag)
	if rec.Code != 304 || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d, %d bytes", rec.Code, rec.Body.Len())
	}
	// other options: another ETag, no highlight colour
	rec = f.do(t, "GET", "/v1/molecules/"+id+"/image.svg", "read", nil, "If-None-Match", etag)
	if rec.Code != 200 || rec.Header().Get("ETag") == etag || strings.Contains(rec.Body.String(), svgHighlight) {
		t.Errorf("plain: %d, ETag %q", rec.Code, rec.Header().Get("ETag"))
	}
	if w, h, _ := svgInfo(t, rec.Body.String()); w != "300px" || h != "300px" {
		t.Errorf("default size %s x %s", w, h)
	}

	chain := f.register(t, strings.Repeat("C", 999))
	for _, c := range []struct {
		path, field string
		status      int
		code        string
	}{
		{"/v1/molecules/" + id + "/image.svg?width=5", "width", 400, "invalid_request"},
		{"/v1/molecules/" + id + "/image.svg?height=100000", "height", 400, "invalid_request"},
		{"/v1/molecules/" + id + "/image.svg?width=abc", "width", 400, "invalid_request"},
		{"/v1/molecules/" + id + "/image.svg?highlight=%5BC", "highlight", 400, "invalid_request"},
		{"/v1/molecules/" + id + "/image.svg?highlight=" + strings.Repeat("C", 2000), "highlight", 400, "invalid_request"},
		{"/v1/molecules/" + chain + "/image.svg", "", 422, "too_large_for_2d"},
		{"/v1/molecules/mol-" + strings.Repeat("a", 26) + "/image.svg", "", 404, "not_found"},
		{"/v1/depict?smiles=" + strings.Repeat("C", 10000), "smiles", 400, "invalid_request"},
		{"/v1/depict", "smiles", 400, "invalid_request"},
		{"/v1/depict?smiles=C1CC(((", "", 422, "invalid_molecule"},
		{"/v1/depict?smiles=C%20O", "", 422, "invalid_molecule"},
		{"/v1/depict?smiles=" + strings.Repeat("C", 400), "", 422, "too_large_for_2d"},
		{"/v1/depict?smiles=CCO&width=1e9", "width", 400, "invalid_request"},
	} {
		t0 := time.Now()
		rec := f.do(t, "GET", c.path, "read", nil)
		p := problemOf(t, rec, c.status, c.code)
		if c.field != "" && (len(p.Errors) != 1 || p.Errors[0].Field != c.field) {
			t.Errorf("%.60s: errors %+v, want one on %s", c.path, p.Errors, c.field)
		}
		if d := time.Since(t0); d > 2*time.Second {
			t.Errorf("%.60s: %v", c.path, d)
		}
	}
	problemOf(t, f.do(t, "GET", "/v1/depict?smiles=CCO", "", nil), 401, "unauthorized")

	// the bounds are published with their values
	doc := f.do(t, "GET", "/v1/openapi.json", "read", nil).Body.String()
	m := f.do(t, "GET", "/metrics", "read", nil).Body.String()
	for _, l := range []struct {
		name  string
		value int
	}{{"depict_min_size", 50}, {"depict_max_size", 2000}, {"depict_max_smiles_bytes", 4096},
		{"depict_max_highlight_bytes", 1024}, {"depict_highlight_match_steps", 1_000_000}} {
		if !strings.Contains(doc, `"name": "`+l.name+`"`) {
			t.Errorf("x-molgraph-limits lacks %s", l.name)
		}
		if !strings.Contains(m, "molgraph_limit_"+l.name+" "+strconv.Itoa(l.value)+"\n") &&
			!strings.Contains(m, "molgraph_limit_"+l.name+" "+strconv.FormatFloat(float64(l.value), 'e', -1, 64)+"\n") {
			t.Errorf("metrics lack molgraph_limit_%s %d", l.name, l.value)
		}
	}
}

// TestDepictSMILES: any SMILES is drawn as given, atom i of the SMILES
// highlighted as RDKit Python numbers it.
func TestDepictSMILES(t *testing.T) {
	f := newMolFixture(t, 0)
	const smiles, smarts = "OC(=O)c1ccccc1OC(C)=O", "C(=O)[OH]"
	rec := f.do(t, "GET", "/v1/depict?smiles="+url.QueryEscape(smiles)+"&highlight="+url.QueryEscape(smarts), "read", nil)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	_, _, atoms := svgInfo(t, rec.Body.String())
	if want := pythonMatch(t, smiles, smarts); len(want) != 3 || !slices.Equal(atoms, want) {
		t.Errorf("highlighted %v, RDKit Python %v", atoms, want)
	}
}
