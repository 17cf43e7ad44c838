package shapes

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
)

// Schema is a compiled shapes graph: the shapes it defines, ready to validate
// data graphs. A Schema is immutable and safe for concurrent use.
type Schema struct {
	shapes   map[quad.Value]*shape
	targeted []*shape // shapes with at least one target, in shapes-graph order
}

// shape is a node shape (path == nil) or a property shape.
type shape struct {
	id          quad.Value
	path        *Path
	deactivated bool
	severity    quad.IRI
	messages    []quad.Value

	targetClasses    []quad.Value // explicit sh:targetClass plus the implicit class target
	targetNodes      []quad.Value
	targetSubjectsOf []quad.Value
	targetObjectsOf  []quad.Value

	constraints []constraint
}

func (s *shape) hasTargets() bool {
	return len(s.targetClasses)+len(s.targetNodes)+len(s.targetSubjectsOf)+len(s.targetObjectsOf) > 0
}

// evalFunc checks one constraint for a focus node and its value nodes and
// calls emit once per violation.
type evalFunc func(v *validator, s *shape, focus quad.Value, values []quad.Value, emit emitFunc)

// emitFunc records a violation; value may be nil (no sh:value), path
// overrides the shape's path when not nil (sh:closed reports the predicate).
// details are the results that explain a failed nested shape (sh:detail).
type emitFunc func(value quad.Value, path *Path, msg string, details ...Result)

type constraint struct {
	comp quad.IRI
	eval evalFunc
}

// Compile reads a shapes graph into a Schema. It fails with ErrShapesGraph
// when a shape that the graph defines or references is ill-formed; nodes that
// are not shapes are ignored.
func Compile(shapesGraph []quad.Quad) (*Schema, error) {
	c := &compiler{g: newGraph(shapesGraph), s: &Schema{shapes: make(map[quad.Value]*shape)}}
	seen := make(map[quad.Value]bool)
	for _, q := range shapesGraph {
		if q.Subject == nil || q.Predicate == nil || q.Object == nil {
			continue
		}
		subj, pred, obj := norm(q.Subject), norm(q.Predicate), norm(q.Object)
		isShape := false
		switch pred {
		case shTargetClass, shTargetNode, shTargetSubjectsOf, shTargetObjectsOf, shPath:
			isShape = true
		case rdfType:
			isShape = obj == shNodeShape || obj == shPropertyShape
		}
		if !isShape || seen[subj] {
			continue
		}
		seen[subj] = true
		s, err := c.shape(subj)
		if err != nil {
			return nil, fmt.Errorf("compile shapes: %w", err)
		}
		if s.hasTargets() {
			c.s.targeted = append(c.s.targeted, s)
		}
	}
	return c.s, nil
}

type compiler struct {
	g *graph
	s *Schema
}

// shape compiles the shape whose node is id (memoized; cycles are fine).
func (c *compiler) shape(id quad.Value) (*shape, error) {
	if s, ok := c.s.shapes[id]; ok {
		return s, nil
	}
	if isLiteral(id) {
		return nil, fmt.Errorf("literal %v used as a shape: %w", id, ErrShapesGraph)
	}
	g := c.g
	s := &shape{id: id, severity: Violation}
	c.s.shapes[id] = s

	if paths := g.objects(id, shPath); len(paths) > 0 {
		if len(paths) > 1 {
			return nil, fmt.Errorf("shape %v has %d sh:path values: %w", id, len(paths), ErrShapesGraph)
		}
		p, err := parsePath(g, paths[0], 0, make(map[quad.Value]bool))
		if err != nil {
			return nil, fmt.Errorf("shape %v: %w", id, err)
		}
		s.path = p
	}
	if b, ok := boolValue(g.one(id, shDeactivated)); ok && b {
		s.deactivated = true
	}
	if sev, ok := g.one(id, shSeverity).(quad.IRI); ok {
		s.severity = sev
	}
	s.messages = g.objects(id, shMessage)

	s.targetClasses = append(s.targetClasses, g.objects(id, shTargetClass)...)
	if g.has(id, rdfType, rdfsClass) || g.has(id, rdfType, owlClass) {
		s.targetClasses = append(s.targetClasses, id) // implicit class target
	}
	s.targetNodes = g.objects(id, shTargetNode)
	s.targetSubjectsOf = g.objects(id, shTargetSubjectsOf)
	s.targetObjectsOf = g.objects(id, shTargetObjectsOf)

	if err := c.constraints(s); err != nil {
		return nil, fmt.Errorf("shape %v: %w", id, err)
	}
	return s, nil
}

func boolValue(v quad.Value) (bool, bool) {
	lex, dt, _, ok := literalParts(v)
	if !ok || dt != xsdBoolean {
		return false, false
	}
	// Only the literals true and false are SHACL booleans: "1"^^xsd:boolean
	// is a different term and does not activate a parameter (the W3C test
	// property/uniqueLang-002 relies on this).
	switch lex {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func intValue(v quad.Value) (int, bool) {
	lex, dt, _, ok := literalParts(v)
	if !ok || !strings.HasPrefix(string(dt), nsXSD) || !isIntegerType(strings.TrimPrefix(string(dt), nsXSD)) {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(lex, "+"))
	return n, err == nil
}

func (c *compiler) shapeList(head quad.Value, param quad.IRI) ([]*shape, error) {
	items, ok := c.g.list(head)
	if !ok {
		return nil, fmt.Errorf("%v value is not a well-formed list: %w", param, ErrShapesGraph)
	}
	out := make([]*shape, len(items))
	for i, it := range items {
		s, err := c.shape(it)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// constraints reads the constraint parameters of s (SHACL section 4).
func (c *compiler) constraints(s *shape) error {
	g, id := c.g, s.id
	add := func(name string, f evalFunc) {
		s.constraints = append(s.constraints, constraint{comp: component(name), eval: f})
	}
	isProp := s.path != nil

	for _, cls := range g.objects(id, shClass) {
		add("Class", classConstraint(cls))
	}
	for _, dt := range g.objects(id, shDatatype) {
		iri, ok := dt.(quad.IRI)
		if !ok {
			return fmt.Errorf("sh:datatype %v is not an IRI: %w", dt, ErrShapesGraph)
		}
		add("Datatype", datatypeConstraint(iri))
	}
	for _, nk := range g.objects(id, shNodeKind) {
		iri, ok := nk.(quad.IRI)
		if !ok || !validNodeKind(iri) {
			return fmt.Errorf("sh:nodeKind %v is not a node kind: %w", nk, ErrShapesGraph)
		}
		add("NodeKind", nodeKindConstraint(iri))
	}
	if isProp {
		for _, v := range g.objects(id, shMinCount) {
			n, ok := intValue(v)
			if !ok {
				return fmt.Errorf("sh:minCount %v is not an integer: %w", v, ErrShapesGraph)
			}
			add("MinCount", minCountConstraint(n))
		}
		for _, v := range g.objects(id, shMaxCount) {
			n, ok := intValue(v)
			if !ok {
				return fmt.Errorf("sh:maxCount %v is not an integer: %w", v, ErrShapesGraph)
			}
			add("MaxCount", maxCountConstraint(n))
		}
	}
	for _, r := range []struct {
		p    quad.IRI
		name string
		ok   func(int) bool
		op   string
	}{
		{shMinExclusive, "MinExclusive", func(c int) bool { return c > 0 }, ">"},
		{shMinInclusive, "MinInclusive", func(c int) bool { return c >= 0 }, ">="},
		{shMaxExclusive, "MaxExclusive", func(c int) bool { return c < 0 }, "<"},
		{shMaxInclusive, "MaxInclusive", func(c int) bool { return c <= 0 }, "<="},
	} {
		for _, bound := range g.objects(id, r.p) {
			if !isLiteral(bound) {
				return fmt.Errorf("%v %v is not a literal: %w", r.p, bound, ErrShapesGraph)
			}
			add(r.name, rangeConstraint(bound, r.ok, r.op))
		}
	}
	for _, r := range []struct {
		p    quad.IRI
		name string
		min  bool
	}{{shMinLength, "MinLength", true}, {shMaxLength, "MaxLength", false}} {
		for _, v := range g.objects(id, r.p) {
			n, ok := intValue(v)
			if !ok {
				return fmt.Errorf("%v %v is not an integer: %w", r.p, v, ErrShapesGraph)
			}
			add(r.name, lengthConstraint(n, r.min))
		}
	}
	if pats := g.objects(id, shPattern); len(pats) > 0 {
		flags := ""
		if f := g.one(id, shFlags); f != nil {
			lex, _, _, ok := literalParts(f)
			if !ok {
				return fmt.Errorf("sh:flags %v is not a literal: %w", f, ErrShapesGraph)
			}
			flags = lex
		}
		for _, p := range pats {
			lex, _, _, ok := literalParts(p)
			if !ok {
				return fmt.Errorf("sh:pattern %v is not a literal: %w", p, ErrShapesGraph)
			}
			re, err := compilePattern(lex, flags)
			if err != nil {
				return fmt.Errorf("sh:pattern %q: %v: %w", lex, err, ErrShapesGraph)
			}
			add("Pattern", patternConstraint(re))
		}
	}
	for _, l := range g.objects(id, shLanguageIn) {
		items, ok := g.list(l)
		if !ok {
			return fmt.Errorf("sh:languageIn value is not a list: %w", ErrShapesGraph)
		}
		var langs []string
		for _, it := range items {
			lex, _, _, ok := literalParts(it)
			if !ok {
				return fmt.Errorf("sh:languageIn member %v is not a literal: %w", it, ErrShapesGraph)
			}
			langs = append(langs, lex)
		}
		add("LanguageIn", languageInConstraint(langs))
	}
	if isProp {
		for _, v := range g.objects(id, shUniqueLang) {
			if b, ok := boolValue(v); ok && b {
				add("UniqueLang", uniqueLangConstraint())
			}
		}
	}
	for _, r := range []struct {
		p    quad.IRI
		name string
		prop bool
		f    func(quad.IRI) evalFunc
	}{
		{shEquals, "Equals", false, equalsConstraint},
		{shDisjoint, "Disjoint", false, disjointConstraint},
		{shLessThan, "LessThan", true, func(p quad.IRI) evalFunc { return lessThanConstraint(p, false) }},
		{shLessThanOrEquals, "LessThanOrEquals", true, func(p quad.IRI) evalFunc { return lessThanConstraint(p, true) }},
	} {
		if r.prop && !isProp {
			continue
		}
		for _, v := range g.objects(id, r.p) {
			iri, ok := v.(quad.IRI)
			if !ok {
				return fmt.Errorf("%v %v is not an IRI: %w", r.p, v, ErrShapesGraph)
			}
			add(r.name, r.f(iri))
		}
	}
	for _, v := range g.objects(id, shNot) {
		sub, err := c.shape(v)
		if err != nil {
			return err
		}
		add("Not", notConstraint(sub))
	}
	for _, r := range []struct {
		p    quad.IRI
		name string
		ok   func(n, total int) bool
	}{
		{shAnd, "And", func(n, t int) bool { return n == t }},
		{shOr, "Or", func(n, t int) bool { return n > 0 }},
		{shXone, "Xone", func(n, t int) bool { return n == 1 }},
	} {
		for _, v := range g.objects(id, r.p) {
			subs, err := c.shapeList(v, r.p)
			if err != nil {
				return err
			}
			add(r.name, logicalConstraint(subs, r.ok, r.name))
		}
	}
	for _, v := range g.objects(id, shNode) {
		sub, err := c.shape(v)
		if err != nil {
			return err
		}
		add("Node", nodeConstraint(sub))
	}
	for _, v := range g.objects(id, shProperty) {
		sub, err := c.shape(v)
		if err != nil {
			return err
		}
		if g.one(v, shPath) == nil {
			return fmt.Errorf("sh:property %v has no sh:path: %w", v, ErrShapesGraph)
		}
		add("Property", propertyConstraint(sub))
	}
	if isProp {
		if err := c.qualified(s, add); err != nil {
			return err
		}
	}
	if b, ok := boolValue(g.one(id, shClosed)); ok && b {
		allowed := make(map[quad.Value]bool)
		for _, ps := range g.objects(id, shProperty) {
			if p, ok := g.one(ps, shPath).(quad.IRI); ok {
				allowed[p] = true
			}
		}
		for _, l := range g.objects(id, shIgnoredProps) {
			items, ok := g.list(l)
			if !ok {
				return fmt.Errorf("sh:ignoredProperties value is not a list: %w", ErrShapesGraph)
			}
			for _, it := range items {
				allowed[it] = true
			}
		}
		add("Closed", closedConstraint(allowed))
	}
	for _, v := range g.objects(id, shHasValue) {
		add("HasValue", hasValueConstraint(v))
	}
	for _, l := range g.objects(id, shIn) {
		items, ok := g.list(l)
		if !ok {
			return fmt.Errorf("sh:in value is not a list: %w", ErrShapesGraph)
		}
		add("In", inConstraint(items))
	}
	return nil
}

// qualified reads sh:qualifiedValueShape with its counts (SHACL 4.7.3).
func (c *compiler) qualified(s *shape, add func(string, evalFunc)) error {
	g, id := c.g, s.id
	qs := g.objects(id, shQualifiedShape)
	if len(qs) == 0 {
		return nil
	}
	minV, maxV := g.one(id, shQualifiedMin), g.one(id, shQualifiedMax)
	disjoint, _ := boolValue(g.one(id, shQualifiedDisj))
	for _, qv := range qs {
		q, err := c.shape(qv)
		if err != nil {
			return err
		}
		var siblings []*shape
		if disjoint {
			seen := map[quad.Value]bool{qv: true}
			for _, parent := range g.subjects(shProperty, id) {
				for _, ps := range g.objects(parent, shProperty) {
					for _, sv := range g.objects(ps, shQualifiedShape) {
						if seen[sv] {
							continue
						}
						seen[sv] = true
						sib, err := c.shape(sv)
						if err != nil {
							return err
						}
						siblings = append(siblings, sib)
					}
				}
			}
		}
		if minV != nil {
			n, ok := intValue(minV)
			if !ok {
				return fmt.Errorf("sh:qualifiedMinCount %v is not an integer: %w", minV, ErrShapesGraph)
			}
			add("QualifiedMinCount", qualifiedConstraint(q, siblings, n, true))
		}
		if maxV != nil {
			n, ok := intValue(maxV)
			if !ok {
				return fmt.Errorf("sh:qualifiedMaxCount %v is not an integer: %w", maxV, ErrShapesGraph)
			}
			add("QualifiedMaxCount", qualifiedConstraint(q, siblings, n, false))
		}
	}
	return nil
}

// compilePattern translates an XPath regular expression with flags (XPath
// and XQuery Functions 3.1, 5.6.2) to Go's RE2 syntax.
func compilePattern(pattern, flags string) (*regexp.Regexp, error) {
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i':
			prefix += "i"
		case 's':
			prefix += "s"
		case 'm':
			prefix += "m"
		case 'x':
			var b strings.Builder
			inClass := false
			for _, r := range pattern {
				switch {
				case r == '[':
					inClass = true
				case r == ']':
					inClass = false
				case !inClass && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
					continue
				}
				b.WriteRune(r)
			}
			pattern = b.String()
		case 'q':
			pattern = regexp.QuoteMeta(pattern)
		default:
			return nil, fmt.Errorf("unknown flag %q", f)
		}
	}
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	return regexp.Compile(pattern)
}
