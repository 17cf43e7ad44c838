package ontology_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/internal/sharedtest"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
)

const (
	owlNS  = "http://www.w3.org/2002/07/owl#"
	rdfsNS = "http://www.w3.org/2000/01/rdf-schema#"
	// occPublished is the namespace the published OntoCompChem OWL file uses.
	occPublished = "http://theworldavatar.com/ontology/ontocompchem/ontocompchem.owl#"
)

func parseTBox(t *testing.T) []quad.Quad {
	t.Helper()
	qs, err := rdfio.ParseTurtle(bytes.NewReader(ontology.TBox()), ontology.TBoxIRI)
	if err != nil {
		t.Fatalf("parse TBox: %v", err)
	}
	return qs
}

// declarations maps each term the TBox declares to its rdf:type objects.
func declarations(qs []quad.Quad) map[quad.Value][]quad.Value {
	out := make(map[quad.Value][]quad.Value)
	for _, q := range qs {
		if q.Predicate != ontology.RDFType {
			continue
		}
		switch q.Object {
		case quad.IRI(owlNS + "Class"), quad.IRI(owlNS + "ObjectProperty"), quad.IRI(owlNS + "DatatypeProperty"),
			quad.IRI(owlNS + "AnnotationProperty"):
			out[q.Subject] = append(out[q.Subject], q.Object)
		}
	}
	return out
}

func TestTBoxParses(t *testing.T) {
	qs := parseTBox(t)
	if len(qs) < 800 {
		t.Errorf("TBox has %d triples, expected the full vocabulary (> 800)", len(qs))
	}
	decl := declarations(qs)
	// Terms spec/GRAPH.md names must be declared.
	for _, term := range []string{
		ontology.MG + "Molecule", ontology.MG + "Receptor", ontology.MG + "Pocket", ontology.MG + "DockingJob",
		ontology.MG + "DockingPose", ontology.MG + "BatchUploadJob", ontology.MG + "OrcaCalculation",
		ontology.MG + "Psi4Calculation", ontology.MG + "canonicalSmiles", ontology.MG + "inchiKey",
		ontology.MG + "molecularWeight", ontology.MG + "logP", ontology.MG + "qed", ontology.MG + "validated",
		ontology.MG + "has3D", ontology.MG + "structureFile", ontology.MG + "exhaustiveness", ontology.MG + "numModes",
		ontology.MG + "energyRange", ontology.MG + "seed", ontology.MG + "status", ontology.MG + "finishedLigands",
		ontology.MG + "totalLigands", ontology.MG + "bestAffinity", ontology.MG + "ligand", ontology.MG + "mode",
		ontology.MG + "bindingAffinity", ontology.MG + "rmsdLowerBound", ontology.MG + "rmsdUpperBound",
		ontology.MG + "poseFile", ontology.OCC + "hasEnvironment", ontology.OCC + "hasInitialization",
		ontology.OCC + "hasUniqueSpecies", ontology.OCC + "ScfEnergy", ontology.GC + "hasAtom",
	} {
		if len(decl[quad.IRI(term)]) == 0 {
			t.Errorf("%s is not declared", term)
		}
	}
	// ORCA and Psi4 classes are subclasses of the OntoCompChem calculation
	// class; logP and QED descriptors subclasses of CHEMINF classes.
	want := map[[2]string]bool{
		{ontology.MG + "OrcaCalculation", ontology.OCC + "GaussianCalculation"}: false,
		{ontology.MG + "Psi4Calculation", ontology.OCC + "GaussianCalculation"}: false,
		{ontology.MG + "CrippenLogP", ontology.SIO + "CHEMINF_000251"}:          false,
		{ontology.MG + "QEDDescriptor", ontology.SIO + "CHEMINF_000123"}:        false,
		{ontology.MG + "DockingJob", ontology.MG + "Job"}:                       false,
		{ontology.MG + "Job", ontology.PROV + "Activity"}:                       false,
	}
	for _, q := range qs {
		if q.Predicate == quad.IRI(rdfsNS+"subClassOf") {
			k := [2]string{string(q.Subject.(quad.IRI)), termIRI(q.Object)}
			if _, ok := want[k]; ok {
				want[k] = true
			}
		}
	}
	for k, found := range want {
		if !found {
			t.Errorf("missing %s rdfs:subClassOf %s", k[0], k[1])
		}
	}
}

func termIRI(v quad.Value) string {
	if iri, ok := v.(quad.IRI); ok {
		return string(iri)
	}
	return ""
}

// Every mg: term is labelled, every mg: property has a range, and every mg:,
// occ: or gc: IRI the TBox mentions is declared in it.
func TestTBoxSelfContained(t *testing.T) {
	qs := parseTBox(t)
	decl := declarations(qs)
	labels := make(map[quad.Value]bool)
	ranges := make(map[quad.Value]bool)
	for _, q := range qs {
		switch q.Predicate {
		case quad.IRI(rdfsNS + "label"):
			labels[q.Subject] = true
		case quad.IRI(rdfsNS + "range"):
			ranges[q.Subject] = true
		}
	}
	for term, types := range decl {
		s := termIRI(term)
		if !strings.HasPrefix(s, ontology.MG) {
			continue
		}
		if !labels[term] {
			t.Errorf("%s has no rdfs:label", s)
		}
		if types[0] == quad.IRI(owlNS+"DatatypeProperty") || types[0] == quad.IRI(owlNS+"ObjectProperty") {
			if !ranges[term] {
				t.Errorf("property %s has no rdfs:range", s)
			}
		}
	}
	for _, q := range qs {
		if q.Predicate == quad.IRI(rdfsNS+"seeAlso") {
			continue // documents, not terms
		}
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object} {
			s := termIRI(v)
			if s == "" || s == ontology.TBoxIRI {
				continue
			}
			for _, ns := range []string{ontology.MG, ontology.OCC, ontology.GC} {
				if strings.HasPrefix(s, ns) && len(decl[v]) == 0 {
					t.Errorf("%s is used but not declared", s)
				}
			}
			if !strings.HasPrefix(s, ontology.MG) && !strings.HasPrefix(s, ontology.OCC) && !strings.HasPrefix(s, ontology.GC) &&
				!strings.HasPrefix(s, occPublished) && !ontology.IsImported(s) {
				t.Errorf("%s belongs to no declared or imported vocabulary", s)
			}
		}
	}
}

// sharedDir returns ../shared beside the module root.
func sharedDir(t *testing.T) string {
	t.Helper()
	return sharedtest.Dir(t)
}

// The OntoCompChem and Gainesville Core terms the TBox re-declares exist in
// the published OntoCompChem OWL file (../shared/qm-corpus/ontology), the
// "www" terms through owl:equivalentClass/equivalentProperty.
func TestTBoxMatchesOntoCompChem(t *testing.T) {
	owl, err := os.ReadFile(filepath.Join(sharedDir(t), "qm-corpus", "ontology", "ontocompchem.owl"))
	if err != nil {
		t.Fatal(err)
	}
	published := make(map[string]bool)
	for _, m := range regexp.MustCompile(`rdf:about="([^"]+)"`).FindAllSubmatch(owl, -1) {
		published[string(m[1])] = true
	}
	if len(published) < 100 {
		t.Fatalf("read only %d terms from ontocompchem.owl", len(published))
	}
	qs := parseTBox(t)
	equiv := make(map[string]string)
	for _, q := range qs {
		if q.Predicate == quad.IRI(owlNS+"equivalentClass") || q.Predicate == quad.IRI(owlNS+"equivalentProperty") {
			equiv[termIRI(q.Subject)] = termIRI(q.Object)
		}
	}
	n := 0
	for term := range declarations(qs) {
		s := termIRI(term)
		switch {
		case strings.HasPrefix(s, ontology.OCC):
			n++
			eq := equiv[s]
			if eq == occPublished+strings.TrimPrefix(s, ontology.OCC) {
				if !published[eq] {
					t.Errorf("%s: %s is not in ontocompchem.owl", s, eq)
				}
				continue
			}
			// A term TWA's data uses that the OWL declares elsewhere.
			if !published[eq] {
				t.Errorf("%s has no equivalent term in ontocompchem.owl (equivalent: %q)", s, eq)
			}
		case strings.HasPrefix(s, ontology.GC):
			n++
			if !published[s] {
				t.Errorf("%s is not a Gainesville Core term of ontocompchem.owl", s)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d OntoCompChem/GC terms declared", n)
	}
}

// rapper (raptor2-utils, the W3C-conformant reference parser) accepts the
// TBox and reads the same number of triples as our parser.
func TestTBoxRapper(t *testing.T) {
	if _, err := exec.LookPath("rapper"); err != nil {
		t.Skip("rapper not installed (apt raptor2-utils)")
	}
	cmd := exec.Command("rapper", "-i", "turtle", "-o", "ntriples", "-", ontology.TBoxIRI)
	cmd.Stdin = bytes.NewReader(ontology.TBox())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rapper: %v\n%s", err, stderr.String())
	}
	theirs, err := rdfio.ParseNTriples(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("parse rapper's N-Triples: %v", err)
	}
	if ours := parseTBox(t); !rdfio.Isomorphic(ours, theirs) {
		t.Errorf("rapper's graph (%d triples) differs from ours (%d)", len(theirs), len(ours))
	}
}

func TestImportedVocabularies(t *testing.T) {
	for _, v := range ontology.ImportedVocabularies() {
		if !strings.HasSuffix(v.Namespace, "#") && !strings.HasSuffix(v.Namespace, "/") {
			t.Errorf("%s: namespace %q must end in # or /", v.Prefix, v.Namespace)
		}
		if v.Namespace == ontology.MG || v.Namespace == ontology.OCC || v.Namespace == ontology.GC {
			t.Errorf("%s terms must be declared in the TBox, not imported", v.Prefix)
		}
	}
	for _, tc := range []struct {
		iri  string
		want bool
	}{
		{ontology.PROV + "Activity", true},
		{ontology.UNIT + "E_h", true},
		{ontology.MG + "Molecule", false},
		{ontology.OCC + "ScfEnergy", false},
		{ontology.PROV, false},
		{"http://example.org/x", false},
	} {
		if got := ontology.IsImported(tc.iri); got != tc.want {
			t.Errorf("IsImported(%q) = %v, want %v", tc.iri, got, tc.want)
		}
	}
}
