package shapes

import (
	"fmt"

	"github.com/cayleygraph/quad"
)

// Options tune a validation.
type Options struct {
	// TBox is an ontology whose rdfs:subClassOf triples are used together
	// with those of the data graph to decide SHACL instances
	// (sh:targetClass, implicit class targets, sh:class).
	TBox []quad.Quad
}

// Validate compiles shapesGraph and validates dataGraph against it.
func Validate(shapesGraph, dataGraph []quad.Quad, opts Options) (*Report, error) {
	s, err := Compile(shapesGraph)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	return s.Validate(dataGraph, opts), nil
}

// Validate checks dataGraph against every shape of s that has a target and
// returns the validation report (SHACL 3.6). It never fails: problems in the
// data are results in the report.
func (s *Schema) Validate(dataGraph []quad.Quad, opts Options) *Report {
	rep, _ := s.validate(dataGraph, opts)
	return rep
}

// validate also returns the number of (shape, focus node) pairs checked.
func (s *Schema) validate(dataGraph []quad.Quad, opts Options) (*Report, int) {
	return s.validateGraphs(newGraph(dataGraph), newGraph(opts.TBox))
}

func (s *Schema) validateGraphs(data, tbox *graph) (*Report, int) {
	v := &validator{
		data:   data,
		tbox:   tbox,
		supers: make(map[quad.Value]map[quad.Value]bool),
		active: make(map[activeKey]int),
		memo:   make(map[activeKey]checked),
	}
	rep := &Report{Conforms: true}
	n := 0
	for _, sh := range s.targeted {
		if sh.deactivated {
			continue
		}
		for _, focus := range v.focusNodes(sh) {
			n++
			v.validate(sh, focus, func(r Result) { rep.Results = append(rep.Results, r) })
		}
	}
	rep.Conforms = len(rep.Results) == 0
	return rep, n
}

type activeKey struct {
	s     *shape
	focus quad.Value
}

type validator struct {
	data, tbox *graph
	supers     map[quad.Value]map[quad.Value]bool // class -> its superclasses (reflexive)
	active     map[activeKey]int                  // shapes being checked for a node (recursion guard)
	memo       map[activeKey]checked              // conformance results
	cutoffs    int                                // times the recursion guard fired
	sink       func(Result)                       // where the shape being validated reports
}

// superClasses returns c and all its superclasses over rdfs:subClassOf in the
// data graph and the TBox.
func (v *validator) superClasses(c quad.Value) map[quad.Value]bool {
	if m, ok := v.supers[c]; ok {
		return m
	}
	m := map[quad.Value]bool{c: true}
	queue := []quad.Value{c}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, g := range []*graph{v.data, v.tbox} {
			for _, sup := range g.objects(n, rdfsSubClass) {
				if !m[sup] {
					m[sup] = true
					queue = append(queue, sup)
				}
			}
		}
	}
	v.supers[c] = m
	return m
}

// isInstance reports whether n is a SHACL instance of class c (SHACL 1.5).
func (v *validator) isInstance(n, c quad.Value) bool {
	for _, t := range v.data.objects(n, rdfType) {
		if v.superClasses(t)[c] {
			return true
		}
	}
	return false
}

// instances returns the SHACL instances of c in the data graph.
func (v *validator) instances(c quad.Value, add func(quad.Value)) {
	seen := map[quad.Value]bool{c: true}
	queue := []quad.Value{c}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, x := range v.data.subjects(rdfType, n) {
			add(x)
		}
		for _, g := range []*graph{v.data, v.tbox} {
			for _, sub := range g.subjects(rdfsSubClass, n) {
				if !seen[sub] {
					seen[sub] = true
					queue = append(queue, sub)
				}
			}
		}
	}
}

// focusNodes returns the target nodes of s, each once (SHACL 2.1.3).
func (v *validator) focusNodes(s *shape) []quad.Value {
	var out []quad.Value
	seen := make(map[quad.Value]bool)
	add := func(n quad.Value) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range s.targetNodes {
		add(n)
	}
	for _, c := range s.targetClasses {
		v.instances(c, add)
	}
	for _, p := range s.targetSubjectsOf {
		for _, n := range v.data.pred[p] {
			add(n)
		}
	}
	for _, p := range s.targetObjectsOf {
		for _, n := range v.data.pred[p] {
			for _, o := range v.data.objects(n, p) {
				add(o)
			}
		}
	}
	return out
}

// maxDepth bounds the nesting of shape checks (sh:node, sh:not, ...).
const maxDepth = 256

// validate checks focus against s and reports each result.
func (v *validator) validate(s *shape, focus quad.Value, report func(Result)) {
	if s.deactivated {
		return
	}
	key := activeKey{s, focus}
	if v.active[key] > 0 || len(v.active) > maxDepth {
		v.cutoffs++
		return // recursive shape: undefined in SHACL 1.0, taken as conforming
	}
	v.active[key]++
	defer func() {
		if v.active[key]--; v.active[key] == 0 {
			delete(v.active, key)
		}
	}()
	prev := v.sink
	v.sink = report
	defer func() { v.sink = prev }()
	values := []quad.Value{focus}
	if s.path != nil {
		values = s.path.eval(v.data, focus)
	}
	for _, c := range s.constraints {
		c.eval(v, s, focus, values, func(value quad.Value, path *Path, msg string, details ...Result) {
			if path == nil {
				path = s.path
			}
			r := Result{
				FocusNode: focus, Path: path, Value: value, SourceShape: s.id,
				SourceConstraintComponent: c.comp, Severity: s.severity, Details: details,
			}
			if len(s.messages) > 0 {
				r.Messages = s.messages
			} else if msg != "" {
				r.Messages = []quad.Value{quad.String(msg)}
			}
			report(r)
		})
	}
}

type checked struct {
	ok      bool
	details []Result
}

// conforms reports whether focus conforms to s: validating it produces no
// result of any severity.
func (v *validator) conforms(s *shape, focus quad.Value) bool {
	ok, _ := v.check(s, focus)
	return ok
}

// check is conforms that also returns the results that made focus fail.
func (v *validator) check(s *shape, focus quad.Value) (bool, []Result) {
	key := activeKey{s, focus}
	if c, done := v.memo[key]; done {
		return c.ok, c.details
	}
	var details []Result
	cut := v.cutoffs
	v.validate(s, focus, func(r Result) { details = append(details, r) })
	c := checked{ok: len(details) == 0, details: details}
	if v.cutoffs == cut {
		v.memo[key] = c // cache only answers the recursion guard did not shape
	}
	return c.ok, c.details
}
