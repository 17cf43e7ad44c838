package ontology

import (
	"bytes"
	_ "embed"
	"strings"
)

// tboxTurtle is molgraph's TBox (served at GET /v1/ontology): the mg: classes
// and properties, the OntoCompChem v1 and Gainesville Core terms molgraph
// writes (re-declared in the "www" OntoCompChem namespace the data uses), and
// the deliberate deviations from OntoCompChem v1, written as comments at the
// top of the file.
//
//go:embed tbox.ttl
var tboxTurtle []byte

// TBoxIRI is the IRI of the molgraph ontology (the owl:Ontology node of the
// TBox), also a good name for the graph the TBox is stored in.
const TBoxIRI = "https://w3id.org/molgraph/vocab"

// TBox returns the TBox as Turtle. The slice is a fresh copy; callers may
// modify it.
func TBox() []byte { return bytes.Clone(tboxTurtle) }

// Vocabulary is an external vocabulary whose terms molgraph uses without
// declaring them in its TBox.
type Vocabulary struct {
	Prefix    string // the prefix of Prefixes, or a conventional one
	Namespace string
	Title     string
}

// ImportedVocabularies returns the vocabularies whose terms count as declared
// without a declaration in the TBox: an IRI is declared when the TBox declares
// it (mg:, occ: and gc: terms must be) or when it starts with one of these
// namespaces. The slice is freshly allocated.
func ImportedVocabularies() []Vocabulary {
	return []Vocabulary{
		{"pt", PT, "Periodic table (DAML), elements for gc:isElement"},
		{"os", OS, "OntoSpecies"},
		{"sio", SIO, "Semanticscience Integrated Ontology and CHEMINF"},
		{"unit", UNIT, "QUDT units"},
		{"prov", PROV, "PROV-O"},
		{"xsd", XSD, "XML Schema datatypes"},
		{"rdf", RDF, "RDF"},
		{"rdfs", RDFS, "RDF Schema"},
		{"owl", OWL, "OWL 2"},
		{"sh", SH, "SHACL"},
		{"dcterms", "http://purl.org/dc/terms/", "DCMI Metadata Terms"},
	}
}

// IsImported reports whether iri belongs to one of ImportedVocabularies.
func IsImported(iri string) bool {
	for _, v := range ImportedVocabularies() {
		if strings.HasPrefix(iri, v.Namespace) && len(iri) > len(v.Namespace) {
			return true
		}
	}
	return false
}
