package handlers

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestQMGateXtbWithoutCoordinates: xtb single points and Hessian-only runs
// print no coordinates, only a charge table naming each atom. Posted with
// validate_ontology=true they are stored (201) with their atoms' elements,
// no invented geometry, and a geometry marked mg:hasCoordinates false.
// Expected values are read off the logs: the charge table ("#  Z covCN q"
// or GFN1's "Mulliken/CM5 charges"), ":: total charge", "TOTAL ENERGY",
// the program call (--chrg, --uhf).
func TestQMGateXtbWithoutCoordinates(t *testing.T) {
	f, _ := newQMGateFixture(t, 0)
	cases := []struct {
		file      string
		formula   string
		elements  []string // first atoms of the charge table
		natoms    int
		charge    int
		mult      int
		energy    float64
		frequency bool
	}{
		{"caffeine_sp.out", "C8H10N4O2", []string{"C", "N", "C", "N", "C", "C", "C", "O"}, 24, 0, 1, -42.124290633980, false},
		{"c2h4_hess.out", "C2H4", nil, 6, 0, 1, -6.270725550339, true},
		{"nh3_planar_hess.out", "H3N", nil, 4, 0, 1, -4.415744919371, true},
		{"gfn1_sp.out", "H2O", []string{"O", "H", "H"}, 3, 0, 1, -5.768640575450, false},
		{"gfn1_uhf.out", "H3N", nil, 4, 1, 2, -4.205661556394, false},
		{"nh3_cation.out", "H3N", []string{"N", "H", "H", "H"}, 4, 1, 2, -3.821200271121, false},
		{"atom_ne.out", "Ne", []string{"Ne"}, 1, 0, 1, -5.932215052758, false},
		{"oh_anion_gbsa.out", "HO", nil, 2, -1, 1, -4.820772437366, false},
		{"alpb_water.out", "H2O", nil, 3, 0, 1, -5.084828277923, false},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "parsers", "xtb", "testdata", "generated", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			rec := f.parse(t, tc.file, data, "validate_ontology", "true")
			if rec.Code != http.StatusCreated {
				t.Fatalf("status %d, want 201: %s", rec.Code, rec.Body)
			}
			v := decodeCalc(t, rec)
			if v.Validation == nil || !v.Validation.Conforms {
				t.Errorf("validation %+v", v.Validation)
			}
			if v.Program != "xtb" || v.Formula != tc.formula || v.NAtoms != tc.natoms || len(v.Elements) != tc.natoms ||
				len(v.Geometry) != 0 || len(v.MullikenCharges) != tc.natoms || !v.NormalTermination {
				t.Errorf("program %q formula %q natoms %d elements %v geometry %v charges %d normal %v",
					v.Program, v.Formula, v.NAtoms, v.Elements, v.Geometry, len(v.MullikenCharges), v.NormalTermination)
			}
			if tc.elements != nil && (len(v.Elements) < len(tc.elements) || !slices.Equal(v.Elements[:len(tc.elements)], tc.elements)) {
				t.Errorf("elements %v, want %v first", v.Elements, tc.elements)
			}
			if v.Charge == nil || *v.Charge != tc.charge || v.Multiplicity == nil || *v.Multiplicity != tc.mult {
				t.Errorf("charge %v multiplicity %v, want %d %d", v.Charge, v.Multiplicity, tc.charge, tc.mult)
			}
			if v.Energies == nil || v.Energies.SCF == nil || *v.Energies.SCF != tc.energy {
				t.Errorf("energies %+v, want SCF %v", v.Energies, tc.energy)
			}
			if (v.Frequencies != nil) != tc.frequency {
				t.Errorf("frequencies %+v", v.Frequencies)
			}
			// The triples say the log printed no coordinates and hold none.
			tr := f.do(t, http.MethodGet, "/v1/qm/calculations/"+v.ID+"/triples?format=nt", "read", nil)
			nt := tr.Body.String()
			if tr.Code != http.StatusOK || !strings.Contains(nt, "<https://w3id.org/molgraph/vocab#hasCoordinates> \"false\"") ||
				strings.Contains(nt, "hasAtomCoordinate") || !strings.Contains(nt, "periodictable/PeriodicTable.owl#"+v.Elements[0]+">") {
				t.Errorf("triples (%d) do not say the geometry has no coordinates, or hold some", tr.Code)
			}
			// GET reads the same elements back from the graph.
			got := decodeCalc(t, f.do(t, http.MethodGet, "/v1/qm/calculations/"+v.ID, "read", nil))
			if !slices.Equal(got.Elements, v.Elements) || got.NAtoms != v.NAtoms {
				t.Errorf("GET elements %v natoms %d", got.Elements, got.NAtoms)
			}
		})
	}
}

// TestQMGateFailedStepKept: Psi4's multi_err.out ran energy('scf') ("@DF-RHF
// Final Energy:   -74.96310991106664"), then energy('b3lyp') died ("Fatal Error:
// PSIO Error", "*** Psi4 encountered an error"). With validate_ontology=true
// the upload is stored: two linked steps, the second with
// normal_termination false and no energy, as a failed single-step log is
// recorded (its energy requirement is waived only for such a step).
func TestQMGateFailedStepKept(t *testing.T) {
	f, _ := newQMGateFixture(t, 0)
	data, err := os.ReadFile(filepath.Join("..", "parsers", "psi4", "testdata", "generated", "multi_err.out"))
	if err != nil {
		t.Fatal(err)
	}
	rec := f.parse(t, "multi_err.out", data, "validate_ontology", "true")
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d, want 201: %s", rec.Code, rec.Body)
	}
	var g calculationGroupView
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Steps) != 2 || g.Validation == nil || !g.Validation.Conforms {
		t.Fatalf("steps %+v validation %+v", g.Steps, g.Validation)
	}
	s1, s2 := g.Steps[0], g.Steps[1]
	if !s1.NormalTermination || s1.SCF == nil || *s1.SCF != -74.96310991106664 || s1.BasisSet != "STO-3G" {
		t.Errorf("step 1 %+v", s1)
	}
	if s2.NormalTermination || s2.SCF != nil || s2.Index != 2 {
		t.Errorf("step 2 %+v", s2)
	}
	v := decodeCalc(t, f.do(t, http.MethodGet, "/v1/qm/calculations/"+s2.ID, "read", nil))
	if v.NormalTermination || v.Energies != nil || v.Step == nil || v.Step.Previous != s1.ID || v.Step.Index != 2 ||
		v.Links["previous"] != "/v1/qm/calculations/"+s1.ID {
		t.Errorf("failed step record: normal %v energies %+v step %+v links %v", v.NormalTermination, v.Energies, v.Step, v.Links)
	}
}
