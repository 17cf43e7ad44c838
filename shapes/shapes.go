package shapes

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"sort"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
)

// ShapesBase is the namespace of molgraph's shapes (prefix mgsh:).
const ShapesBase = "https://w3id.org/molgraph/shapes#"

//go:embed *.ttl
var files embed.FS

// ErrNoTarget means a data graph given to Gate.Validate holds no node that
// any shape targets (no calculation, molecule, receptor, job or pose), so
// validating it would prove nothing.
var ErrNoTarget = errors.New("no node of a known resource kind")

func concat(names ...string) []byte {
	var b bytes.Buffer
	for i, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			// The names are constants of this package and the files are
			// embedded at build time; TestEmbedded covers every name.
			continue
		}
		if i > 0 {
			b.WriteString("\n")
		}
		b.Write(data)
	}
	return b.Bytes()
}

// Calculation returns the shapes for quantum-chemistry calculations (Turtle).
func Calculation() []byte { return concat("calculation.ttl") }

// Molecule returns the shapes for molecules (Turtle), with the file shape.
func Molecule() []byte { return concat("molecule.ttl", "file.ttl") }

// Receptor returns the shapes for receptors and pockets (Turtle), with the
// file shape.
func Receptor() []byte { return concat("receptor.ttl", "file.ttl") }

// DockingJob returns the shapes for docking jobs (Turtle), with the shape
// shared by all jobs.
func DockingJob() []byte { return concat("docking-job.ttl", "job.ttl") }

// BatchJob returns the shapes for batch upload jobs (Turtle), with the shape
// shared by all jobs.
func BatchJob() []byte { return concat("batch-job.ttl", "job.ttl") }

// Pose returns the shape for docking poses (Turtle), with the file shape.
func Pose() []byte { return concat("pose.ttl", "file.ttl") }

// All returns every shape as one Turtle document (served at GET /v1/shapes).
func All() []byte {
	return concat("calculation.ttl", "molecule.ttl", "receptor.ttl", "docking-job.ttl",
		"batch-job.ttl", "pose.ttl", "job.ttl", "file.ttl")
}

// ParseShapes parses a shapes document returned by this package into quads
// (base: ShapesBase).
func ParseShapes(turtle []byte) ([]quad.Quad, error) {
	qs, err := rdfio.ParseTurtle(bytes.NewReader(turtle), ShapesBase)
	if err != nil {
		return nil, fmt.Errorf("parse shapes: %w: %w", ErrEmbedded, err)
	}
	return qs, nil
}

// Gate validates resources against molgraph's shapes with the TBox, as the
// API does before storing (validate_ontology=true). Build one with NewGate at
// start-up and share it: it is immutable and safe for concurrent use.
type Gate struct {
	schema   *Schema
	tbox     []quad.Quad
	tboxG    *graph
	declared map[quad.Value]bool
}

// NewGate compiles All with the embedded TBox (ontology.TBox).
func NewGate() (*Gate, error) {
	sq, err := ParseShapes(All())
	if err != nil {
		return nil, fmt.Errorf("new gate: %w", err)
	}
	s, err := Compile(sq)
	if err != nil {
		return nil, fmt.Errorf("new gate: %w", err)
	}
	tbox, err := rdfio.ParseTurtle(bytes.NewReader(ontology.TBox()), ontology.TBoxIRI)
	if err != nil {
		return nil, fmt.Errorf("new gate: parse tbox: %w: %w", ErrEmbedded, err)
	}
	g := &Gate{schema: s, tbox: tbox, tboxG: newGraph(tbox), declared: make(map[quad.Value]bool)}
	for _, q := range tbox {
		if q.Predicate == rdfType {
			switch q.Object {
			case owlClass, rdfsClass, quad.IRI(nsOWL + "ObjectProperty"), quad.IRI(nsOWL + "DatatypeProperty"),
				quad.IRI(nsOWL + "AnnotationProperty"), quad.IRI(nsRDF + "Property"):
				g.declared[q.Subject] = true
			}
		}
	}
	return g, nil
}

// TBox returns the parsed TBox the gate uses for rdfs:subClassOf.
func (g *Gate) TBox() []quad.Quad { return append([]quad.Quad(nil), g.tbox...) }

// Validate checks a resource's graph (or several) against all shapes, with
// the TBox. It returns ErrNoTarget when no shape targets any node of data.
func (g *Gate) Validate(data []quad.Quad) (*Report, error) {
	rep, n := g.schema.validateGraphs(newGraph(data), g.tboxG)
	if n == 0 {
		return nil, fmt.Errorf("validate: %w", ErrNoTarget)
	}
	return rep, nil
}

// Undeclared returns, sorted, the predicates and classes (objects of
// rdf:type) of data that are neither declared in the TBox nor in one of
// ontology.ImportedVocabularies. Mappings must emit none.
func (g *Gate) Undeclared(data []quad.Quad) []quad.IRI {
	seen := make(map[quad.IRI]bool)
	check := func(v quad.Value) {
		iri, ok := v.(quad.IRI)
		if !ok || g.declared[iri] || ontology.IsImported(string(iri)) {
			return
		}
		seen[iri] = true
	}
	for _, q := range data {
		check(q.Predicate)
		if q.Predicate == rdfType {
			check(q.Object)
		}
	}
	out := make([]quad.IRI, 0, len(seen))
	for iri := range seen {
		out = append(out, iri)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
