package handlers

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQMCorrelatedEnergies: cclib's Gaussian 16 water CCSD(T) log through
// POST /v1/qm/parse with the SHACL gate: the record's energies carry every
// correlated total the log prints ("CCSD(T)= -0.75017760422D+02", ...), the
// record read back by GET equals the answer, and the triples hold the
// mg:CorrelatedEnergy nodes and the mg:correlatedEnergy shortcut.
func TestQMCorrelatedEnergies(t *testing.T) {
	f, _ := newQMGateFixture(t, 0)
	data, err := os.ReadFile(filepath.Join("..", "parsers", "gaussian", "testdata", "cclib", "cclib_G16_water_ccsdt.log"))
	if err != nil {
		t.Fatal(err)
	}
	rec := f.parse(t, "water_ccsdt.log", data, "validate_ontology", "true")
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	v := decodeCalc(t, rec)
	if v.Validation == nil || !v.Validation.Conforms {
		t.Errorf("validation %+v", v.Validation)
	}
	want := map[string]float64{"MP2": -75.002282127453, "MP3": -75.012800931, "MP4(DQ)": -75.015901147,
		"MP4(SDQ)": -75.016013656, "CCSD": -75.017683639, "CCSD(T)": -75.017760422}
	if v.Method != "CCSD(T)" || v.Energies == nil || len(v.Energies.Correlated) != len(want) {
		t.Fatalf("method %q energies %+v", v.Method, v.Energies)
	}
	for m, e := range want {
		if v.Energies.Correlated[m] != e {
			t.Errorf("%s: %v, want %v", m, v.Energies.Correlated[m], e)
		}
	}
	get := f.do(t, http.MethodGet, "/v1/qm/calculations/"+v.ID, "read", nil)
	if get.Code != http.StatusOK || !strings.Contains(get.Body.String(), `"CCSD(T)":-75.017760422`) {
		t.Errorf("GET %d: %s", get.Code, get.Body)
	}
	nt := f.do(t, http.MethodGet, "/v1/qm/calculations/"+v.ID+"/triples?format=nt", "read", nil)
	body := nt.Body.String()
	if nt.Code != http.StatusOK || strings.Count(body, "<https://w3id.org/molgraph/vocab#CorrelatedEnergy>") != 6 ||
		!strings.Contains(body, `<https://w3id.org/molgraph/vocab#correlatedEnergy> "-75.017760422"`) ||
		!strings.Contains(body, `#correlated-energy-ccsd-t> <https://w3id.org/molgraph/vocab#correlationMethod> "CCSD(T)"`) {
		t.Errorf("triples %d:\n%s", nt.Code, body)
	}
}
