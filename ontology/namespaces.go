package ontology

import (
	"strings"

	"github.com/cayleygraph/quad"
)

// Namespace IRIs (spec/GRAPH.md, "Vocabularies").
const (
	MG   = "https://w3id.org/molgraph/vocab#"
	OCC  = "http://www.theworldavatar.com/ontology/ontocompchem/ontocompchem.owl#"
	GC   = "http://purl.org/gc/"
	PT   = "http://www.daml.org/2003/01/periodictable/PeriodicTable.owl#"
	OS   = "http://www.theworldavatar.com/ontology/ontospecies/OntoSpecies.owl#"
	SIO  = "http://semanticscience.org/resource/"
	UNIT = "http://qudt.org/vocab/unit/"
	PROV = "http://www.w3.org/ns/prov#"
	XSD  = "http://www.w3.org/2001/XMLSchema#"
	RDF  = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	RDFS = "http://www.w3.org/2000/01/rdf-schema#"
	OWL  = "http://www.w3.org/2002/07/owl#"
	SH   = "http://www.w3.org/ns/shacl#"
)

// Prefix is one namespace binding declared by every serialization.
type Prefix struct {
	Name string // e.g. "mg"
	IRI  string // e.g. "https://w3id.org/molgraph/vocab#"
}

// Prefixes returns the prefixes of spec/GRAPH.md in their canonical order.
// The slice is freshly allocated; callers may modify it.
func Prefixes() []Prefix {
	return []Prefix{
		{"mg", MG}, {"occ", OCC}, {"gc", GC}, {"pt", PT}, {"os", OS},
		{"sio", SIO}, {"unit", UNIT}, {"prov", PROV}, {"xsd", XSD},
		{"rdf", RDF}, {"rdfs", RDFS}, {"owl", OWL}, {"sh", SH},
	}
}

// Well-known terms used across packages.
var (
	RDFType = quad.IRI(RDF + "type")

	XSDString   = quad.IRI(XSD + "string")
	XSDInteger  = quad.IRI(XSD + "integer")
	XSDDouble   = quad.IRI(XSD + "double")
	XSDDecimal  = quad.IRI(XSD + "decimal")
	XSDBoolean  = quad.IRI(XSD + "boolean")
	XSDDateTime = quad.IRI(XSD + "dateTime")
	RDFLangStr  = quad.IRI(RDF + "langString")
)

// Kinds of resources; each is the path segment of the resource's IRI.
const (
	KindMolecule    = "molecule"
	KindCalculation = "calculation"
	KindReceptor    = "receptor"
	KindDockingJob  = "docking-job"
	KindBatchJob    = "batch-job"
)

// ResourceIRI mints the IRI <base>id/<kind>/<id> of a resource; base must end
// with "/" (a missing slash is added).
func ResourceIRI(base, kind, id string) quad.IRI {
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return quad.IRI(base + "id/" + kind + "/" + id)
}

// SubIRI mints the hash IRI <resource>#<fragment> of a sub-node.
func SubIRI(resource quad.IRI, fragment string) quad.IRI {
	return quad.IRI(string(resource) + "#" + fragment)
}
