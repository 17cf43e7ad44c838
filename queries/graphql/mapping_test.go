package graphql

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// mappedGraph stores one resource of each type built by the service's own
// mappings (ontology.MoleculeQuads, CalculationQuads, ReceptorQuads and the
// docking statements), with every optional value filled, and returns the
// field values each GraphQL type must read back: the record's values, not
// the quads.
func mappedGraph(t *testing.T) (*Executor, map[string]map[string]any) {
	t.Helper()
	const base = "http://example.org/"
	ctx := context.Background()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	put := func(g quad.IRI, qs []quad.Quad) {
		t.Helper()
		for i := range qs {
			qs[i].Label = g
		}
		if err := st.PutGraph(ctx, g, qs); err != nil {
			t.Fatal(err)
		}
	}
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	stamp := created.Format(time.RFC3339Nano)
	sha := strings.Repeat("ab", 32)

	mol := ontology.MoleculeRecord{SMILES: "CC(=O)Oc1ccccc1C(=O)O",
		InChI:    "InChI=1S/C9H8O4/c1-6(10)13-8-5-3-2-4-7(8)9(11)12/h2-5H,1H3,(H,11,12)",
		InChIKey: "BSYNRYMUTXBXSQ-UHFFFAOYSA-N", Formula: "C9H8O4",
		MW: 180.159, ExactMass: 180.042259, LogP: 1.3101, QED: 0.5501, TPSA: 63.6,
		HBD: 1, HBA: 3, RotatableBonds: 2, HeavyAtoms: 13, AromaticRings: 1,
		Validated: true, Has3D: true, Name: "aspirin", CreatedAt: created,
		Structure: &ontology.MoleculeFile{SHA256: sha, Bytes: 10, MediaType: "chemical/x-mdl-sdfile"}}
	mol.ID = ontology.MoleculeID(mol.SMILES)
	molIRI := ontology.ResourceIRI(base, ontology.KindMolecule, mol.ID)
	qs, err := ontology.MoleculeQuads(base, &mol)
	if err != nil {
		t.Fatal(err)
	}
	put(molIRI, qs)

	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	calc := ontology.CalculationRecord{Program: "Gaussian", ProgramVersion: "16 Rev. A.03",
		JobTypes: []string{ontology.JobOptimization, ontology.JobFrequency}, Method: "B3LYP", BasisSet: "6-31G(d)",
		Charge: i(0), Multiplicity: i(1), Formula: "C9H8O4", NAtoms: 21,
		Energies:          &ontology.CalculationEnergies{SCF: f(-648.2), ZPE: f(0.1431), Enthalpy: f(-648.05), Gibbs: f(-648.1)},
		Optimization:      &ontology.CalculationOptimization{Converged: true, Steps: 7},
		Frequencies:       &ontology.CalculationFrequencies{Wavenumbers: []float64{-12.5, 50.1, 3100}, ImaginaryCount: 1},
		Orbitals:          &ontology.CalculationOrbitals{HOMO: f(-7.13), LUMO: f(-1.25), Gap: f(5.88)},
		Dipole:            &ontology.CalculationDipole{X: 1, Y: 2, Z: 2, Total: 3},
		NormalTermination: true, MoleculeID: mol.ID, CreatedAt: created}
	calcIRI := ontology.ResourceIRI(base, ontology.KindCalculation, "calc-1")
	if qs, err = ontology.CalculationQuads(base, "calc-1", &calc); err != nil {
		t.Fatal(err)
	}
	put(calcIRI, qs)

	rec := ontology.ReceptorRecord{Name: "ABL1 kinase (1iep)", Format: "pdbqt", Atoms: 4300, Residues: 274, Chains: 1,
		Source:   ontology.ReceptorFile{SHA256: sha, Bytes: 10, MediaType: ontology.MediaTypePDBQT},
		Prepared: ontology.ReceptorFile{SHA256: sha, Bytes: 10, MediaType: ontology.MediaTypePDBQT}, CreatedAt: created}
	recIRI := ontology.ResourceIRI(base, ontology.KindReceptor, "rec-1")
	if qs, err = ontology.ReceptorQuads(base, "rec-1", &rec); err != nil {
		t.Fatal(err)
	}
	put(recIRI, qs)

	// The docking job as jobs.Job.Quads and the docking task store it: the
	// job node (jobs/doc.go) with the statements of ontology.DockingStatements,
	// the inputs graph, and one ligand's result graph.
	job := ontology.ResourceIRI(base, ontology.KindDockingJob, "dock-1")
	settings := ontology.DockingSettings{PocketMethod: "p1", Center: [3]float64{15, 53, 17}, Size: [3]float64{20, 20, 20},
		Exhaustiveness: 8, NumModes: 9, EnergyRange: 3, Seed: 42}
	best := -12.3
	progress := ontology.DockingProgress{Total: 2, Finished: 1, Failed: 1, BestAffinity: &best}
	stmts, err := ontology.DockingStatements(settings, progress)
	if err != nil {
		t.Fatal(err)
	}
	started, ended := created.Add(time.Second), created.Add(time.Minute)
	jq := []quad.Quad{
		{Subject: job, Predicate: ontology.RDFType, Object: ontology.DockingJobClass},
		{Subject: job, Predicate: ontology.RDFType, Object: quad.IRI(ontology.PROV + "Activity")},
		{Subject: job, Predicate: quad.IRI(ontology.MG + "status"), Object: ontology.String("succeeded")},
		{Subject: job, Predicate: quad.IRI(ontology.MG + "createdAt"), Object: ontology.DateTime(created)},
		{Subject: job, Predicate: quad.IRI(ontology.PROV + "startedAtTime"), Object: ontology.DateTime(started)},
		{Subject: job, Predicate: quad.IRI(ontology.PROV + "endedAtTime"), Object: ontology.DateTime(ended)},
	}
	for _, s := range stmts {
		jq = append(jq, quad.Quad{Subject: job, Predicate: s[0], Object: s[1]})
	}
	put(job, jq)
	put(job+"/inputs", ontology.DockingInputsQuads(job, recIRI, []quad.IRI{molIRI}, job+"#engine", "AutoDock Vina", "1.2.3"))
	result := quad.IRI(string(job) + "/ligand/" + mol.ID)
	pose := ontology.DockingPoseRecord{Ligand: molIRI, Mode: 1, Affinity: best, RMSDLB: 0, RMSDUB: 0.5,
		File: ontology.ReceptorFile{SHA256: sha, Bytes: 10, MediaType: ontology.MediaTypeSDF}, FileIRI: ontology.BlobIRI(base, sha)}
	if qs, err = ontology.DockingResultQuads(result, job, []ontology.DockingPoseRecord{pose}, nil); err != nil {
		t.Fatal(err)
	}
	put(job+"/results-0", qs)

	e, err := New(st, Options{BaseIRI: base})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{
		"Molecule": {"name": mol.Name, "smiles": mol.SMILES, "inchi": mol.InChI, "inchiKey": mol.InChIKey,
			"formula": mol.Formula, "mw": mol.MW, "exactMass": mol.ExactMass, "logp": mol.LogP, "qed": mol.QED,
			"tpsa": mol.TPSA, "hbd": mol.HBD, "hba": mol.HBA, "rotatableBonds": mol.RotatableBonds,
			"heavyAtoms": mol.HeavyAtoms, "aromaticRings": mol.AromaticRings, "validated": mol.Validated,
			"has3D": mol.Has3D, "createdAt": stamp},
		"Calculation": {"program": calc.Program, "programVersion": calc.ProgramVersion, "method": calc.Method,
			"basisSet": calc.BasisSet, "jobTypes": []any{"frequency", "optimization"}, "formula": calc.Formula,
			"charge": *calc.Charge, "multiplicity": *calc.Multiplicity, "atomCount": calc.NAtoms,
			"scfEnergy": *calc.Energies.SCF, "zeroPointEnergy": *calc.Energies.ZPE, "enthalpy": *calc.Energies.Enthalpy,
			"gibbsEnergy": *calc.Energies.Gibbs, "homoEnergy": *calc.Orbitals.HOMO, "lumoEnergy": *calc.Orbitals.LUMO,
			"homoLumoGap": *calc.Orbitals.Gap, "dipoleMoment": calc.Dipole.Total,
			"normalTermination": calc.NormalTermination, "optimizationConverged": calc.Optimization.Converged,
			"optimizationSteps": calc.Optimization.Steps, "imaginaryFrequencyCount": calc.Frequencies.ImaginaryCount,
			"createdAt": stamp},
		"Receptor": {"name": rec.Name, "atoms": rec.Atoms, "residues": rec.Residues, "chains": rec.Chains, "createdAt": stamp},
		"DockingJob": {"status": "succeeded", "pocketMethod": settings.PocketMethod, "exhaustiveness": settings.Exhaustiveness,
			"numModes": settings.NumModes, "energyRange": settings.EnergyRange, "seed": int(settings.Seed),
			"finishedLigands": progress.Finished, "failedLigands": progress.Failed, "totalLigands": progress.Total,
			"bestAffinity": best, "createdAt": stamp, "startedAt": started.Format(time.RFC3339Nano),
			"endedAt": ended.Format(time.RFC3339Nano)},
		"DockingPose": {"mode": pose.Mode, "bindingAffinity": pose.Affinity, "rmsdLowerBound": pose.RMSDLB,
			"rmsdUpperBound": pose.RMSDUB},
	}
	return e, want
}

// selection lists every literal field of type name (for a query).
func selection(name string) string {
	for _, t := range types() {
		if t.name == name {
			var fs []string
			for _, f := range t.fields {
				fs = append(fs, f.name)
			}
			return strings.Join(fs, " ")
		}
	}
	return ""
}

// TestFieldsReadWhatTheMappingsWrite queries every literal field of every
// type from resources the mappings built, and the links between them. A
// field whose predicate the mappings do not write comes back null and
// fails; so does a field added without an expected value here.
func TestFieldsReadWhatTheMappingsWrite(t *testing.T) {
	e, want := mappedGraph(t)
	query := fmt.Sprintf(`{
	  molecules { nodes { %s calculations { nodes { id } } poses { nodes { mode } } } }
	  calculations { nodes { %s molecule { inchiKey } } }
	  receptors { nodes { %s dockingJobs { nodes { id } } } }
	  dockingJobs { nodes { %s receptor { name } ligands { nodes { inchiKey } }
	    poses { nodes { %s ligand { inchiKey } job { id } } } } }
	}`, selection("Molecule"), selection("Calculation"), selection("Receptor"), selection("DockingJob"), selection("DockingPose"))
	out, res := run(t, e, query, nil)
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	data := out["data"].(map[string]any)
	one := func(list string) map[string]any {
		t.Helper()
		nodes := data[list].(map[string]any)["nodes"].([]any)
		if len(nodes) != 1 {
			t.Fatalf("%s: %d nodes, want 1", list, len(nodes))
		}
		return nodes[0].(map[string]any)
	}
	jobNode := one("dockingJobs")
	poses := jobNode["poses"].(map[string]any)["nodes"].([]any)
	if len(poses) != 1 {
		t.Fatalf("poses: %v", poses)
	}
	got := map[string]map[string]any{
		"Molecule": one("molecules"), "Calculation": one("calculations"), "Receptor": one("receptors"),
		"DockingJob": jobNode, "DockingPose": poses[0].(map[string]any),
	}
	for _, typ := range types() {
		for _, f := range typ.fields {
			w, ok := want[typ.name][f.name]
			if !ok {
				t.Errorf("%s.%s: no expected value in this test", typ.name, f.name)
				continue
			}
			g := got[typ.name][f.name]
			if n, isInt := w.(int); isInt {
				w = float64(n) // JSON numbers
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s.%s (%s) = %v, want %v", typ.name, f.name, f.pred, g, w)
			}
		}
	}
	// Links, each way.
	inchiKey := want["Molecule"]["inchiKey"]
	checks := []struct {
		what string
		got  any
		want any
	}{
		{"Molecule.calculations", one("molecules")["calculations"], map[string]any{"nodes": []any{map[string]any{"id": "calc-1"}}}},
		{"Molecule.poses", one("molecules")["poses"], map[string]any{"nodes": []any{map[string]any{"mode": 1.0}}}},
		{"Calculation.molecule", one("calculations")["molecule"], map[string]any{"inchiKey": inchiKey}},
		{"Receptor.dockingJobs", one("receptors")["dockingJobs"], map[string]any{"nodes": []any{map[string]any{"id": "dock-1"}}}},
		{"DockingJob.receptor", jobNode["receptor"], map[string]any{"name": want["Receptor"]["name"]}},
		{"DockingJob.ligands", jobNode["ligands"], map[string]any{"nodes": []any{map[string]any{"inchiKey": inchiKey}}}},
		{"DockingPose.ligand", poses[0].(map[string]any)["ligand"], map[string]any{"inchiKey": inchiKey}},
		{"DockingPose.job", poses[0].(map[string]any)["job"], map[string]any{"id": "dock-1"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}
