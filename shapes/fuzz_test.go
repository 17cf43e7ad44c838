package shapes

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/molgraph/molgraph/graph/rdfio"
)

// FuzzCompile: reading any Turtle document as a shapes graph, and validating
// the same document as data against it, must not panic or hang.
func FuzzCompile(f *testing.F) {
	// Small seeds: the full shapes files (20 KB) make each mutated input slow
	// to parse; these cover every constraint kind in a few lines.
	f.Add([]byte(prefixes + `ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:closed true ; sh:ignoredProperties ( rdf:type ) ;
  sh:property [ sh:path ( ex:p [ sh:inversePath ex:q ] ) ; sh:minCount 1 ; sh:maxCount 2 ; sh:datatype xsd:integer ;
    sh:minInclusive 0 ; sh:maxExclusive 10 ; sh:lessThan ex:r ; sh:equals ex:p ; sh:disjoint ex:s ] ;
  sh:property [ sh:path [ sh:alternativePath ( ex:a [ sh:zeroOrMorePath ex:b ] [ sh:oneOrMorePath ex:c ] [ sh:zeroOrOnePath ex:d ] ) ] ;
    sh:pattern "^a" ; sh:flags "i" ; sh:minLength 1 ; sh:maxLength 5 ; sh:languageIn ( "en" ) ; sh:uniqueLang true ;
    sh:qualifiedValueShape [ sh:class ex:D ] ; sh:qualifiedMinCount 1 ; sh:qualifiedValueShapesDisjoint true ] ;
  sh:or ( [ sh:nodeKind sh:IRI ] [ sh:hasValue ex:x ] ) ; sh:xone ( [ sh:in ( 1 2 ) ] ) ; sh:not [ sh:node ex:S ] .
ex:i a ex:C ; ex:p 1 ; ex:r 2 ; ex:a "abc"@en .`))
	f.Add([]byte(prefixes + `ex:S sh:targetSubjectsOf ex:p ; sh:targetObjectsOf ex:p ; sh:severity sh:Warning ; sh:message "m" ;
  sh:deactivated false ; sh:class ex:C . ex:a ex:p ex:b . ex:b a ex:D . ex:D rdfs:subClassOf ex:C .`))
	if b, err := os.ReadFile(filepath.Join("testdata", "batch-job.ttl")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`@prefix sh: <http://www.w3.org/ns/shacl#> . _:p sh:inversePath _:p . <s> a sh:NodeShape ; sh:targetNode <s> ; sh:property [ sh:path _:p ; sh:minCount 1 ] .`))
	f.Add([]byte(`@prefix sh: <http://www.w3.org/ns/shacl#> . <s> a sh:NodeShape ; sh:targetNode <a> ; sh:node <s> ; sh:or ( <s> [ sh:not <s> ] ) ; sh:in <l> . <l> <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <l> .`))
	f.Add([]byte(`@prefix sh: <http://www.w3.org/ns/shacl#> . <s> sh:targetNode "x" ; sh:pattern "(" ; sh:minLength "a" .`))
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := rdfio.ParseTurtle(bytes.NewReader(data), "http://example.org/")
		if err != nil {
			return
		}
		s, err := Compile(qs)
		if err != nil {
			return
		}
		rep := s.Validate(qs, Options{TBox: qs})
		_ = rep.Quads()
		if _, err := rep.MarshalJSON(); err != nil {
			t.Fatalf("marshal report: %v", err)
		}
	})
}
