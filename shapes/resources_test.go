package shapes

import (
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

// Violations of the molecule, receptor, docking job, pose and batch job
// shapes, each made by one edit of a conforming testdata graph.
func TestResourceViolations(t *testing.T) {
	gate := newTestGate(t)
	const (
		mol  = "http://localhost:8080/id/molecule/mol-aspirin"
		rec  = "http://localhost:8080/id/receptor/rec-1iep"
		job  = "http://localhost:8080/id/docking-job/dock-1"
		pose = job + "#pose-mol-imatinib-1"
		bat  = "http://localhost:8080/id/batch-job/batch-1"
		file = "http://localhost:8080/blob/sha256-a3f1c0d2e4b5a6978899aabbccddeeff00112233445566778899aabbccddeeff"
		mg   = ontology.MG
		sio  = ontology.SIO
		prov = ontology.PROV
	)
	p := func(ns, local string) string { return "<" + ns + local + ">" }
	pred := func(ns, local string) func(quad.Quad) bool {
		return func(q quad.Quad) bool { return q.Predicate == quad.IRI(ns+local) }
	}
	set := func(s, ns, local string, o quad.Value) quad.Quad {
		return quad.Quad{Subject: quad.IRI(s), Predicate: quad.IRI(ns + local), Object: o}
	}
	molecule := loadTurtle(t, "testdata/molecule-aspirin.ttl")
	receptor := loadTurtle(t, "testdata/receptor-1iep.ttl")
	docking := loadTurtle(t, "testdata/docking-job.ttl")
	batch := loadTurtle(t, "testdata/batch-job.ttl")
	cases := []struct {
		name string
		data []quad.Quad
		want []want
	}{
		{
			name: "molecule: malformed InChIKey",
			data: mutate(molecule, pred(mg, "inchiKey"), set(mol, mg, "inchiKey", quad.String("BSYNRYMUTXBXSQ-UHFFFAOYSA"))),
			want: []want{{mol, p(mg, "inchiKey"), "Pattern", `"BSYNRYMUTXBXSQ-UHFFFAOYSA"`, 0}},
		},
		{
			name: "molecule: QED above 1 and weight as integer",
			data: mutate(molecule, func(q quad.Quad) bool { return pred(mg, "qed")(q) || pred(mg, "molecularWeight")(q) },
				set(mol, mg, "qed", ontology.Double(1.5)), set(mol, mg, "molecularWeight", ontology.Integer(180))),
			want: []want{
				{mol, p(mg, "qed"), "MaxInclusive", `"1.5"^^<http://www.w3.org/2001/XMLSchema#double>`, 0},
				{mol, p(mg, "molecularWeight"), "Datatype", `"180"^^<http://www.w3.org/2001/XMLSchema#integer>`, 0},
			},
		},
		{
			name: "molecule: no molecular weight descriptor, no os:Species type",
			data: mutate(molecule, func(q quad.Quad) bool {
				return q.Object == quad.IRI(mol+"#mw") || q.Subject == quad.IRI(mol+"#mw") ||
					q.Object == quad.IRI(ontology.OS+"Species")
			}),
			want: []want{
				{mol, p(sio, "SIO_000008"), "QualifiedMinCount", "", 0},
				{mol, p(ontology.RDF, "type"), "HasValue", "", 0},
			},
		},
		{
			name: "molecule: validated but without InChI and InChIKey",
			data: mutate(molecule, noInChI(mol)),
			want: []want{
				{mol, "", "Or", mol, 0},
				detail(1, want{mol, p(mg, "validated"), "HasValue", "", 0}),
				detail(1, want{mol, p(mg, "inchi"), "MinCount", "", 0}),
				detail(1, want{mol, p(mg, "inchiKey"), "MinCount", "", 0}),
				detail(1, want{mol, p(sio, "SIO_000008"), "QualifiedMinCount", "", 0}),
				detail(1, want{mol, p(sio, "SIO_000008"), "QualifiedMinCount", "", 0}),
			},
		},
		{
			name: "molecule: structure file without checksum",
			data: mutate(molecule, pred(mg, "sha256")),
			want: []want{
				{file, p(mg, "sha256"), "MinCount", "", 0},
				{mol, p(mg, "structureFile"), "Node", file, 0},
				detail(1, want{file, p(mg, "sha256"), "MinCount", "", 0}),
			},
		},
		{
			name: "receptor: pocket with zero size and bad id",
			data: mutate(receptor, func(q quad.Quad) bool {
				return q.Subject == quad.IRI(rec+"#pocket-p2") && (pred(mg, "sizeX")(q) || pred(mg, "pocketId")(q))
			}, set(rec+"#pocket-p2", mg, "sizeX", ontology.Double(0)), set(rec+"#pocket-p2", mg, "pocketId", quad.String("pocket2"))),
			want: []want{
				{rec + "#pocket-p2", p(mg, "sizeX"), "MinExclusive", `"0.0"^^<http://www.w3.org/2001/XMLSchema#double>`, 0},
				{rec + "#pocket-p2", p(mg, "pocketId"), "Pattern", `"pocket2"`, 0},
				{rec, p(mg, "pocket"), "Node", rec + "#pocket-p2", 0},
				detail(1, want{rec + "#pocket-p2", p(mg, "sizeX"), "MinExclusive", `"0.0"^^<http://www.w3.org/2001/XMLSchema#double>`, 0}),
				detail(1, want{rec + "#pocket-p2", p(mg, "pocketId"), "Pattern", `"pocket2"`, 0}),
			},
		},
		{
			name: "receptor: no prepared file",
			data: mutate(receptor, pred(mg, "preparedFile")),
			want: []want{{rec, p(mg, "preparedFile"), "MinCount", "", 0}},
		},
		{
			name: "docking job: out-of-range parameters and unknown status",
			data: mutate(docking, func(q quad.Quad) bool { return pred(mg, "exhaustiveness")(q) || pred(mg, "status")(q) },
				set(job, mg, "exhaustiveness", ontology.Integer(65)), set(job, mg, "status", quad.String("done"))),
			want: []want{
				{job, p(mg, "exhaustiveness"), "MaxInclusive", `"65"^^<http://www.w3.org/2001/XMLSchema#integer>`, 0},
				{job, p(mg, "status"), "In", `"done"`, 0},
			},
		},
		{
			name: "docking job: finished but no end time, more finished than total",
			data: mutate(docking, func(q quad.Quad) bool { return pred(prov, "endedAtTime")(q) || pred(mg, "finishedLigands")(q) },
				set(job, mg, "finishedLigands", ontology.Integer(2))),
			want: []want{
				{job, p(mg, "finishedLigands"), "LessThanOrEquals", `"2"^^<http://www.w3.org/2001/XMLSchema#integer>`, 0},
				{job, "", "Or", job, 0},
				detail(1, want{job, "", "Not", job, 0}),
				detail(1, want{job, p(prov, "endedAtTime"), "MinCount", "", 0}),
			},
		},
		{
			name: "docking job: engine without version",
			data: mutate(docking, pred(mg, "version")),
			want: []want{
				{job, p(prov, "wasAssociatedWith"), "Node", job + "#engine", 0},
				detail(1, want{job + "#engine", p(mg, "version"), "MinCount", "", 0}),
			},
		},
		{
			name: "pose: lower RMSD bound above upper, affinity missing",
			data: mutate(docking, func(q quad.Quad) bool { return pred(mg, "rmsdLowerBound")(q) || pred(mg, "bindingAffinity")(q) },
				set(pose, mg, "rmsdLowerBound", ontology.Double(1.5))),
			want: []want{
				{pose, p(mg, "rmsdLowerBound"), "LessThanOrEquals", `"1.5"^^<http://www.w3.org/2001/XMLSchema#double>`, 0},
				{pose, p(mg, "bindingAffinity"), "MinCount", "", 0},
			},
		},
		{
			name: "batch job: processed more than total, not a prov:Activity",
			data: mutate(batch, func(q quad.Quad) bool {
				return pred(mg, "processedRecords")(q) || q.Object == quad.IRI(prov+"Activity")
			},
				set(bat, mg, "processedRecords", ontology.Integer(101))),
			want: []want{
				{bat, p(mg, "processedRecords"), "LessThanOrEquals", `"101"^^<http://www.w3.org/2001/XMLSchema#integer>`, 0},
				{bat, p(ontology.RDF, "type"), "HasValue", "", 0},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := gate.Validate(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Conforms {
				t.Fatal("conforms, want violations")
			}
			got, exp := resultKeys(rep), wantKeys(tc.want)
			if strings.Join(got, "\n") != strings.Join(exp, "\n") {
				t.Errorf("results:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(exp, "\n  "))
			}
		})
	}
}

// noInChI drops a molecule's InChI and InChIKey, shortcuts and descriptor
// nodes, as the mapping does for a structure libinchi cannot represent.
func noInChI(mol string) func(quad.Quad) bool {
	return func(q quad.Quad) bool {
		for _, n := range []quad.Value{quad.IRI(mol + "#inchi"), quad.IRI(mol + "#inchikey")} {
			if q.Subject == n || q.Object == n {
				return true
			}
		}
		return q.Predicate == quad.IRI(ontology.MG+"inchi") || q.Predicate == quad.IRI(ontology.MG+"inchiKey")
	}
}

// A molecule stored with mg:validated false and no InChI (API.md: a
// structure that parses but fails a validation rule) conforms.
func TestUnvalidatedMoleculeWithoutInChIConforms(t *testing.T) {
	gate := newTestGate(t)
	const mol = "http://localhost:8080/id/molecule/mol-aspirin"
	validated := quad.IRI(ontology.MG + "validated")
	data := mutate(loadTurtle(t, "testdata/molecule-aspirin.ttl"),
		func(q quad.Quad) bool { return noInChI(mol)(q) || q.Predicate == validated },
		quad.Quad{Subject: quad.IRI(mol), Predicate: validated, Object: ontology.Boolean(false)})
	rep, err := gate.Validate(data)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Conforms {
		t.Fatalf("does not conform: %v", resultKeys(rep))
	}
}
