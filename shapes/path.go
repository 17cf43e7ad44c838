package shapes

import (
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"
)

// pathKind is the kind of a SHACL property path (SHACL 2.3.1).
type pathKind int

const (
	pathPredicate pathKind = iota
	pathSequence
	pathAlternative
	pathInverse
	pathZeroOrMore
	pathOneOrMore
	pathZeroOrOne
)

// Path is a SHACL property path.
type Path struct {
	kind pathKind
	iri  quad.IRI // pathPredicate
	subs []*Path  // sequence, alternative: members; others: one element
}

// maxPathDepth bounds the nesting of paths read from a shapes graph.
const maxPathDepth = 64

// parsePath reads the path whose node is n in the shapes graph g.
func parsePath(g *graph, n quad.Value, depth int, onStack map[quad.Value]bool) (*Path, error) {
	if depth > maxPathDepth {
		return nil, fmt.Errorf("path nested deeper than %d: %w", maxPathDepth, ErrShapesGraph)
	}
	if iri, ok := n.(quad.IRI); ok && iri != rdfNil {
		return &Path{kind: pathPredicate, iri: iri}, nil
	}
	if _, ok := n.(quad.BNode); !ok {
		return nil, fmt.Errorf("path node %v is neither an IRI nor a blank node: %w", n, ErrShapesGraph)
	}
	if onStack[n] {
		return nil, fmt.Errorf("cyclic path at %v: %w", n, ErrShapesGraph)
	}
	onStack[n] = true
	defer delete(onStack, n)
	sub := func(m quad.Value) (*Path, error) { return parsePath(g, m, depth+1, onStack) }
	subList := func(head quad.Value, min int, what string) ([]*Path, error) {
		items, ok := g.list(head)
		if !ok || len(items) < min {
			return nil, fmt.Errorf("%s path %v needs a list of at least %d paths: %w", what, n, min, ErrShapesGraph)
		}
		out := make([]*Path, len(items))
		for i, it := range items {
			p, err := sub(it)
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	}
	// A list node is a sequence path. A node that is both a list and
	// something else is ill-formed (w3c/data-shapes#124); the list wins.
	if g.isList(n) {
		subs, err := subList(n, 2, "sequence")
		if err != nil {
			return nil, err
		}
		return &Path{kind: pathSequence, subs: subs}, nil
	}
	for _, k := range []struct {
		p    quad.IRI
		kind pathKind
	}{
		{shAlternativePath, pathAlternative}, {shInversePath, pathInverse},
		{shZeroOrMorePath, pathZeroOrMore}, {shOneOrMorePath, pathOneOrMore},
		{shZeroOrOnePath, pathZeroOrOne},
	} {
		vals := g.objects(n, k.p)
		if len(vals) == 0 {
			continue
		}
		if len(vals) > 1 {
			return nil, fmt.Errorf("path %v has %d values of %v: %w", n, len(vals), k.p, ErrShapesGraph)
		}
		if k.kind == pathAlternative {
			subs, err := subList(vals[0], 2, "alternative")
			if err != nil {
				return nil, err
			}
			return &Path{kind: pathAlternative, subs: subs}, nil
		}
		s, err := sub(vals[0])
		if err != nil {
			return nil, err
		}
		return &Path{kind: k.kind, subs: []*Path{s}}, nil
	}
	return nil, fmt.Errorf("blank node %v is not a property path: %w", n, ErrShapesGraph)
}

// eval returns the distinct nodes reached from n through p in the data graph,
// in a deterministic order (first reached first).
func (p *Path) eval(g *graph, n quad.Value) []quad.Value {
	if p.kind == pathPredicate {
		return g.objects(n, p.iri) // distinct already: the graph holds a set of triples
	}
	var out []quad.Value
	seen := make(map[quad.Value]bool)
	p.walk(g, n, func(v quad.Value) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	})
	return out
}

// walk calls fn for every node reached from n (possibly more than once).
func (p *Path) walk(g *graph, n quad.Value, fn func(quad.Value)) {
	switch p.kind {
	case pathPredicate:
		for _, o := range g.objects(n, p.iri) {
			fn(o)
		}
	case pathInverse:
		inv := p.subs[0]
		if inv.kind == pathPredicate {
			for _, s := range g.subjects(inv.iri, n) {
				fn(s)
			}
			return
		}
		// Inverse of a complex path: every node from which n is reached.
		// Candidates are all nodes of the graph.
		for cand := range g.allNodes() {
			reached := false
			inv.walk(g, cand, func(v quad.Value) {
				if v == n {
					reached = true
				}
			})
			if reached {
				fn(cand)
			}
		}
	case pathSequence:
		cur := []quad.Value{n}
		for _, s := range p.subs {
			var next []quad.Value
			seen := make(map[quad.Value]bool)
			for _, c := range cur {
				s.walk(g, c, func(v quad.Value) {
					if !seen[v] {
						seen[v] = true
						next = append(next, v)
					}
				})
			}
			cur = next
		}
		for _, v := range cur {
			fn(v)
		}
	case pathAlternative:
		for _, s := range p.subs {
			s.walk(g, n, fn)
		}
	case pathZeroOrOne:
		fn(n)
		p.subs[0].walk(g, n, fn)
	case pathZeroOrMore, pathOneOrMore:
		seen := make(map[quad.Value]bool)
		if p.kind == pathZeroOrMore {
			seen[n] = true
			fn(n)
		}
		frontier := []quad.Value{n}
		for len(frontier) > 0 {
			var next []quad.Value
			for _, c := range frontier {
				p.subs[0].walk(g, c, func(v quad.Value) {
					if !seen[v] {
						seen[v] = true
						fn(v)
						next = append(next, v)
					}
				})
			}
			frontier = next
		}
	}
}

// allNodes returns the set of subjects and objects of g.
func (g *graph) allNodes() map[quad.Value]struct{} {
	m := make(map[quad.Value]struct{}, len(g.sp)+len(g.op))
	for s := range g.sp {
		m[s] = struct{}{}
	}
	for o := range g.op {
		m[o] = struct{}{}
	}
	return m
}

// Quads returns the path as an RDF node plus the triples describing it, with
// fresh blank nodes minted by bnode (SHACL 2.3.1 syntax).
func (p *Path) Quads(bnode func() quad.BNode) (quad.Value, []quad.Quad) {
	var qs []quad.Quad
	var build func(p *Path) quad.Value
	list := func(items []*Path) quad.Value {
		var head quad.Value = rdfNil
		for i := len(items) - 1; i >= 0; i-- {
			node := bnode()
			qs = append(qs, quad.Quad{Subject: node, Predicate: rdfFirst, Object: build(items[i])},
				quad.Quad{Subject: node, Predicate: rdfRest, Object: head})
			head = node
		}
		return head
	}
	build = func(p *Path) quad.Value {
		switch p.kind {
		case pathPredicate:
			return p.iri
		case pathSequence:
			return list(p.subs)
		}
		node := bnode()
		var pred quad.IRI
		var obj quad.Value
		switch p.kind {
		case pathAlternative:
			pred, obj = shAlternativePath, list(p.subs)
		case pathInverse:
			pred, obj = shInversePath, build(p.subs[0])
		case pathZeroOrMore:
			pred, obj = shZeroOrMorePath, build(p.subs[0])
		case pathOneOrMore:
			pred, obj = shOneOrMorePath, build(p.subs[0])
		case pathZeroOrOne:
			pred, obj = shZeroOrOnePath, build(p.subs[0])
		}
		qs = append(qs, quad.Quad{Subject: node, Predicate: pred, Object: obj})
		return node
	}
	root := build(p)
	return root, qs
}

// String returns the path in SPARQL 1.1 property path syntax
// ("<http://ex/p>/^<http://ex/q>*").
func (p *Path) String() string {
	var b strings.Builder
	p.write(&b, false)
	return b.String()
}

func (p *Path) write(b *strings.Builder, nested bool) {
	switch p.kind {
	case pathPredicate:
		b.WriteString("<" + string(p.iri) + ">")
		return
	case pathInverse:
		b.WriteString("^")
		p.subs[0].write(b, true)
		return
	case pathZeroOrMore, pathOneOrMore, pathZeroOrOne:
		if k := p.subs[0].kind; k != pathPredicate && k != pathSequence && k != pathAlternative {
			b.WriteString("(")
			p.subs[0].write(b, false)
			b.WriteString(")")
		} else {
			p.subs[0].write(b, true)
		}
		b.WriteString(map[pathKind]string{pathZeroOrMore: "*", pathOneOrMore: "+", pathZeroOrOne: "?"}[p.kind])
		return
	}
	sep := "/"
	if p.kind == pathAlternative {
		sep = "|"
	}
	if nested {
		b.WriteString("(")
	}
	for i, s := range p.subs {
		if i > 0 {
			b.WriteString(sep)
		}
		s.write(b, true)
	}
	if nested {
		b.WriteString(")")
	}
}
