package ontology

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Terms linking the steps of a multi-step log (documented in the TBox).
var (
	mgCalculationGroup = quad.IRI(MG + "CalculationGroup")
	mgHasStep          = quad.IRI(MG + "hasStep")
	mgIsStepOf         = quad.IRI(MG + "isStepOf")
	mgStepIndex        = quad.IRI(MG + "stepIndex")
	mgStepCount        = quad.IRI(MG + "stepCount")
	mgPreviousStep     = quad.IRI(MG + "previousStep")
)

// CalculationGroup is one uploaded log that held several job steps
// (Gaussian Link1 jobs, NWChem tasks, ...): each step is a calculation of
// its own (with CalculationRecord.Step set) in its own named graph, and the
// group, in the named graph of the upload's id, lists them. Only Steps,
// Source and CreatedAt are stored with the group; the other fields
// summarise the steps and are filled by whoever reads them (program and
// version, the final step's formula and atom count, NormalTermination only
// if every step terminated normally).
type CalculationGroup struct {
	ID                string             `json:"id"`
	IRI               string             `json:"iri"`
	Program           string             `json:"program"`
	ProgramVersion    string             `json:"program_version,omitempty"`
	Formula           string             `json:"formula,omitempty"`
	NAtoms            int                `json:"natoms"`
	NormalTermination bool               `json:"normal_termination"`
	Steps             []string           `json:"-"` // step ids, in order
	Source            *CalculationSource `json:"source,omitempty"`
	CreatedAt         time.Time          `json:"created_at,omitzero"`
}

// StepID returns the id of step i (1-based) of the group with id group.
func StepID(group string, i int) string { return group + "-s" + strconv.Itoa(i) }

// stepIndexOf returns i for a StepID of group, 0 if id is not one.
func stepIndexOf(group, id string) int {
	rest, ok := strings.CutPrefix(id, group+"-s")
	if !ok {
		return 0
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 1 {
		return 0
	}
	return i
}

// CalculationGroupQuads maps a group to quads in its named graph
// <base>id/calculation/<id>:
//
//	G a mg:CalculationGroup ; mg:stepCount n ; mg:hasStep S1 … Sn ;
//	  prov:wasDerivedFrom B ; prov:generatedAtTime t .
//	B a mg:File ; mg:fileName ; mg:byteSize ; mg:sha256 .
//
// The steps S1 … Sn must be StepID(id, 1 … n), in order; each step's own
// graph says mg:isStepOf G, mg:stepIndex i and mg:previousStep S(i−1).
// g.ID and g.IRI are ignored. The error wraps ErrInvalidCalculation.
func CalculationGroupQuads(base, id string, g *CalculationGroup) ([]quad.Quad, error) {
	if g == nil || !validSegment(id) || len(g.Steps) < 2 {
		return nil, fmt.Errorf("ontology: calculation group quads: %q: %w", id, ErrInvalidCalculation)
	}
	for i, s := range g.Steps {
		if s != StepID(id, i+1) {
			return nil, fmt.Errorf("ontology: calculation group quads: step %d id %q: %w", i+1, s, ErrInvalidCalculation)
		}
	}
	if g.Source != nil && !validHex64(g.Source.SHA256) {
		return nil, fmt.Errorf("ontology: calculation group quads: source sha256 %q: %w", g.Source.SHA256, ErrInvalidCalculation)
	}
	c := ResourceIRI(base, KindCalculation, id)
	m := &mapper{graph: c}
	m.add(c, RDFType, mgCalculationGroup)
	m.add(c, mgStepCount, Integer(int64(len(g.Steps))))
	for _, s := range g.Steps {
		m.add(c, mgHasStep, ResourceIRI(base, KindCalculation, s))
	}
	if s := g.Source; s != nil {
		b := BlobIRI(base, s.SHA256)
		m.add(c, provWasDerivedFrom, b)
		m.add(b, RDFType, mgFile)
		m.add(b, mgFileName, String(s.Filename))
		m.add(b, mgByteSize, Integer(s.Bytes))
		m.add(b, mgSHA256, String(s.SHA256))
	}
	if !g.CreatedAt.IsZero() {
		m.add(c, provGeneratedAtTime, DateTime(g.CreatedAt))
	}
	return m.grouped(), nil
}

// IsCalculationGroup reports whether quads hold a calculation group node.
func IsCalculationGroup(qs []quad.Quad) bool {
	for _, q := range qs {
		if q.Predicate == RDFType && q.Object == mgCalculationGroup {
			return true
		}
	}
	return false
}

// CalculationGroupFromQuads reads a group back from the quads of its named
// graph. Errors wrap ErrNoCalculation (no group node) or
// ErrInvalidCalculation.
func CalculationGroupFromQuads(qs []quad.Quad) (CalculationGroup, error) {
	var g CalculationGroup
	idx := indexQuads(qs)
	var node quad.IRI
	for _, s := range idx.order {
		for _, t := range idx.sp[s][RDFType] {
			if t == mgCalculationGroup {
				if iri, ok := s.(quad.IRI); ok {
					node = iri
				}
			}
		}
	}
	if node == "" {
		return g, fmt.Errorf("ontology: calculation group from quads: %w", ErrNoCalculation)
	}
	r := reader{g: idx}
	g.IRI = string(node)
	g.ID = lastSegment(string(node))
	type step struct {
		i  int
		id string
	}
	var steps []step
	for _, o := range idx.objects(node, mgHasStep) {
		iri, ok := o.(quad.IRI)
		if !ok {
			return g, fmt.Errorf("ontology: calculation group from quads: step %v: %w", o, ErrInvalidCalculation)
		}
		id := lastSegment(string(iri))
		i := stepIndexOf(g.ID, id)
		if i == 0 {
			return g, fmt.Errorf("ontology: calculation group from quads: step id %q: %w", id, ErrInvalidCalculation)
		}
		steps = append(steps, step{i, id})
	}
	sort.Slice(steps, func(a, b int) bool { return steps[a].i < steps[b].i })
	for k, s := range steps {
		if s.i != k+1 {
			return g, fmt.Errorf("ontology: calculation group from quads: steps not 1..%d: %w", len(steps), ErrInvalidCalculation)
		}
		g.Steps = append(g.Steps, s.id)
	}
	g.Source = r.source(node)
	var err error
	if g.CreatedAt, err = r.createdAt(node); err != nil {
		return g, fmt.Errorf("ontology: calculation group from quads: %w", err)
	}
	if r.err != nil {
		return g, fmt.Errorf("ontology: calculation group from quads: %w", r.err)
	}
	return g, nil
}
