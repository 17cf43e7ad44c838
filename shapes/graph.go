package shapes

import "github.com/cayleygraph/quad"

// graph is a set of triples indexed by subject and by object. Graph labels
// are dropped: SHACL validates graphs, not datasets.
type graph struct {
	sp   map[quad.Value]map[quad.Value][]quad.Value // subject -> predicate -> objects
	op   map[quad.Value]map[quad.Value][]quad.Value // object -> predicate -> subjects
	pred map[quad.Value][]quad.Value                // predicate -> subjects (one entry per triple)
}

type triple struct{ s, p, o quad.Value }

func newGraph(qs ...[]quad.Quad) *graph {
	g := &graph{
		sp:   make(map[quad.Value]map[quad.Value][]quad.Value),
		op:   make(map[quad.Value]map[quad.Value][]quad.Value),
		pred: make(map[quad.Value][]quad.Value),
	}
	seen := make(map[triple]struct{})
	for _, list := range qs {
		for _, q := range list {
			if q.Subject == nil || q.Predicate == nil || q.Object == nil {
				continue
			}
			t := triple{norm(q.Subject), norm(q.Predicate), norm(q.Object)}
			if _, dup := seen[t]; dup {
				continue
			}
			seen[t] = struct{}{}
			g.add(t)
		}
	}
	return g
}

// norm maps the two spellings of an xsd:string literal to one term.
func norm(v quad.Value) quad.Value {
	if ts, ok := v.(quad.TypedString); ok && ts.Type == xsdString {
		return ts.Value
	}
	return v
}

func (g *graph) add(t triple) {
	m := g.sp[t.s]
	if m == nil {
		m = make(map[quad.Value][]quad.Value)
		g.sp[t.s] = m
	}
	m[t.p] = append(m[t.p], t.o)
	m = g.op[t.o]
	if m == nil {
		m = make(map[quad.Value][]quad.Value)
		g.op[t.o] = m
	}
	m[t.p] = append(m[t.p], t.s)
	g.pred[t.p] = append(g.pred[t.p], t.s)
}

// objects returns the objects of (s, p, ?).
func (g *graph) objects(s, p quad.Value) []quad.Value { return g.sp[s][p] }

// subjects returns the subjects of (?, p, o).
func (g *graph) subjects(p, o quad.Value) []quad.Value { return g.op[o][p] }

// one returns the single object of (s, p, ?), or nil.
func (g *graph) one(s, p quad.Value) quad.Value {
	if os := g.sp[s][p]; len(os) > 0 {
		return os[0]
	}
	return nil
}

// has reports whether the triple (s, p, o) is in the graph.
func (g *graph) has(s, p, o quad.Value) bool {
	for _, x := range g.sp[s][p] {
		if x == o {
			return true
		}
	}
	return false
}

// list reads the RDF list starting at head. ok is false when head is not a
// well-formed list (a node without exactly one rdf:first and one rdf:rest,
// or a cycle).
func (g *graph) list(head quad.Value) (items []quad.Value, ok bool) {
	seen := make(map[quad.Value]bool)
	for n := head; n != rdfNil; {
		if seen[n] {
			return nil, false
		}
		seen[n] = true
		firsts, rests := g.objects(n, rdfFirst), g.objects(n, rdfRest)
		if len(firsts) != 1 || len(rests) != 1 {
			return nil, false
		}
		items = append(items, firsts[0])
		n = rests[0]
	}
	return items, true
}

// isList reports whether n is rdf:nil or the head of a list node.
func (g *graph) isList(n quad.Value) bool {
	return n == rdfNil || len(g.objects(n, rdfFirst)) > 0
}
