package handlers

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// TestParseLogMultiStep: an NWChem log with three tasks (SCF energy,
// optimisation, frequencies) becomes three calculations, each with its own
// record, triples and features, linked in order and grouped under the
// upload's id; GET of the group lists the steps; the feature table has one
// row per step and none for the group; a second upload answers 200 with the
// group.
func TestParseLogMultiStep(t *testing.T) {
	f, st := newQMGateFixture(t, 0)
	const rel = "nwchem/generated/water_hf_sto3g_sp_freq.out"
	data := qmtest.Read(t, rel)
	rec := f.parse(t, "water.out", data, "validate_ontology", "true")
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var g calculationGroupView
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Steps) != 3 || g.Program != "NWChem" || g.NAtoms != 3 || g.Formula != "H2O" || !g.NormalTermination ||
		g.Validation == nil || !g.Validation.Conforms || g.Source == nil || g.Source.Filename != "water.out" {
		t.Fatalf("group %+v", g)
	}
	wantJobs := []string{"energy", "optimization", "frequency"}
	for i, s := range g.Steps {
		if s.Index != i+1 || len(s.JobTypes) != 1 || s.JobTypes[0] != wantJobs[i] || !strings.HasPrefix(s.ID, g.ID+"-s") {
			t.Errorf("step %d: %+v", i+1, s)
		}
	}
	// The group, read back.
	got := f.do(t, http.MethodGet, "/v1/qm/calculations/"+g.ID, "read", nil)
	var g2 calculationGroupView
	if err := json.Unmarshal(got.Body.Bytes(), &g2); err != nil || got.Code != 200 || len(g2.Steps) != 3 || g2.Steps[2].ID != g.Steps[2].ID {
		t.Fatalf("GET group: %d %s", got.Code, got.Body)
	}
	// Each step is a calculation of its own, linked to the one before.
	energies := []float64{-74.963023128776, -74.965901191787, -74.965901191787} // printed by NWChem for each task
	for i, s := range g.Steps {
		v := decodeCalc(t, f.do(t, http.MethodGet, "/v1/qm/calculations/"+s.ID, "read", nil))
		if v.Step == nil || v.Step.Group != g.ID || v.Step.Index != i+1 || v.Links["group"] != "/v1/qm/calculations/"+g.ID {
			t.Errorf("step %d: step %+v links %v", i+1, v.Step, v.Links)
		}
		if i > 0 && (v.Step.Previous != g.Steps[i-1].ID || v.Links["previous"] == "") {
			t.Errorf("step %d: previous %q, want %q", i+1, v.Step.Previous, g.Steps[i-1].ID)
		}
		if v.Energies == nil || v.Energies.SCF == nil || *v.Energies.SCF != energies[i] {
			t.Errorf("step %d: energies %+v, want SCF %v", i+1, v.Energies, energies[i])
		}
		tr := f.do(t, http.MethodGet, "/v1/qm/calculations/"+s.ID+"/triples?format=ntriples", "read", nil)
		body := tr.Body.String()
		if !strings.Contains(body, "<https://w3id.org/molgraph/vocab#isStepOf>") ||
			i > 0 && !strings.Contains(body, "<https://w3id.org/molgraph/vocab#previousStep> <"+f.srv.calculationIRI(g.Steps[i-1].ID).String()[1:]) {
			t.Errorf("step %d triples lack the step links:\n%s", i+1, body[:min(len(body), 400)])
		}
	}
	freq := decodeCalc(t, f.do(t, http.MethodGet, "/v1/qm/calculations/"+g.Steps[2].ID, "read", nil))
	if freq.Frequencies == nil || len(freq.Frequencies.Wavenumbers) != 3 || freq.Optimization != nil {
		t.Errorf("frequency step: frequencies %+v optimization %+v", freq.Frequencies, freq.Optimization)
	}
	// Features: the group answers with its last step's.
	fr := f.do(t, http.MethodGet, "/v1/qm/calculations/"+g.ID+"/features", "read", nil)
	var fv struct {
		ID, Step string
		Features map[string]*float64
	}
	if err := json.Unmarshal(fr.Body.Bytes(), &fv); err != nil || fv.ID != g.ID || fv.Step != g.Steps[2].ID || len(fv.Features) == 0 {
		t.Errorf("group features: %s", fr.Body)
	}
	table := f.do(t, http.MethodGet, "/v1/qm/features?format=csv", "read", nil)
	rows, err := csv.NewReader(table.Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Errorf("feature table has %d rows, want a header and 3 steps", len(rows))
	}
	for _, r := range rows[1:] {
		if r[0] == g.ID {
			t.Error("the group is a row of the feature table")
		}
	}
	// The same bytes again: the stored group.
	before := countQuads(t, st)
	again := f.parse(t, "water.out", data)
	var g3 calculationGroupView
	if err := json.Unmarshal(again.Body.Bytes(), &g3); err != nil || again.Code != http.StatusOK || g3.ID != g.ID || len(g3.Steps) != 3 {
		t.Errorf("second upload: %d %s", again.Code, again.Body)
	}
	if countQuads(t, st) != before {
		t.Error("a second upload stored quads")
	}
}

// TestParseLogORCAMultiJob: ORCA 4.1's three jobs joined with $new_job
// (cclib issue 736's log) and ORCA 6's two-job compound script pass the
// ontology gate as linked calculations: per step its job types, basis and
// final SCF energy, the latter equal to the "FINAL SINGLE POINT ENERGY"
// ORCA printed for that job (a separate line from the SCF block we read).
func TestParseLogORCAMultiJob(t *testing.T) {
	type step struct {
		basis string
		jobs  string
		final float64 // FINAL SINGLE POINT ENERGY of the job's last geometry
	}
	for _, tc := range []struct {
		file   string
		natoms int
		steps  []step
	}{
		{"orca_from_issue_736.out", 11, []step{
			{"def2-SVP", "optimization", -264.598658642006},
			{"def2-TZVP", "optimization", -264.904690890468},
			{"def2-TZVP", "optimization,frequency", -264.904740226750},
		}},
		{"1618.out", 4, []step{
			{"pc-1", "optimization", -237.199466497155},
			{"pc-1", "energy", -237.199466497591},
		}},
	} {
		f, _ := newQMGateFixture(t, 0)
		data, err := os.ReadFile(filepath.Join("..", "parsers", "orca", "testdata", "multijob", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		rec := f.parse(t, tc.file, data, "validate_ontology", "true")
		if rec.Code != http.StatusCreated {
			t.Fatalf("%s: status %d: %s", tc.file, rec.Code, rec.Body)
		}
		var g calculationGroupView
		if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if len(g.Steps) != len(tc.steps) || g.Program != "ORCA" || g.NAtoms != tc.natoms || !g.NormalTermination || g.Validation == nil || !g.Validation.Conforms {
			t.Fatalf("%s: group %+v", tc.file, g)
		}
		for i, s := range g.Steps {
			w := tc.steps[i]
			if s.Index != i+1 || s.BasisSet != w.basis || strings.Join(s.JobTypes, ",") != w.jobs || s.SCF == nil || math.Abs(*s.SCF-w.final) > 1e-8 {
				t.Errorf("%s step %d: %+v (SCF %v), want %s %s %.9f", tc.file, i+1, s, deref(s.SCF), w.basis, w.jobs, w.final)
			}
			v := decodeCalc(t, f.do(t, http.MethodGet, "/v1/qm/calculations/"+s.ID, "read", nil))
			if v.Step == nil || v.Step.Group != g.ID || i > 0 && v.Step.Previous != g.Steps[i-1].ID {
				t.Errorf("%s step %d: %+v", tc.file, i+1, v.Step)
			}
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
