package sparql

import (
	"github.com/cayleygraph/quad"
)

// Property path evaluation (section 18.4 of SPARQL 1.1). Sequences and
// alternatives keep duplicates; p*, p+ and p? produce each reachable node
// once per start node (the "ALP" semantics of the recommendation), and the
// zero-length part of p* and p? includes a constant start node even if it is
// not in the graph. Closures run a breadth-first search per start node.

func invertPath(p pathExpr) pathExpr {
	switch x := p.(type) {
	case pLink:
		return pInv{p: x}
	case pInv:
		return x.p
	case pSeq:
		return pSeq{a: invertPath(x.b), b: invertPath(x.a)}
	case pAlt:
		return pAlt{a: invertPath(x.a), b: invertPath(x.b)}
	case pMod:
		return pMod{p: invertPath(x.p), min: x.min, max: x.max}
	case pNeg:
		return pNeg{fwd: x.inv, inv: x.fwd}
	}
	return p
}

// pathFrom calls fn for every y with x path y.
func (ex *exec) pathFrom(g gctx, x quad.Value, p pathExpr, fn func(y quad.Value) error) error {
	if err := ex.tick(); err != nil {
		return err
	}
	switch pp := p.(type) {
	case pLink:
		return ex.match(g, x, pp.iri, nil, func(q quad.Quad) error { return fn(q.Object) })
	case pInv:
		if l, ok := pp.p.(pLink); ok {
			return ex.match(g, nil, l.iri, x, func(q quad.Quad) error { return fn(q.Subject) })
		}
		return ex.pathFrom(g, x, invertPath(pp.p), fn)
	case pSeq:
		return ex.pathFrom(g, x, pp.a, func(mid quad.Value) error {
			return ex.pathFrom(g, mid, pp.b, fn)
		})
	case pAlt:
		if err := ex.pathFrom(g, x, pp.a, fn); err != nil {
			return err
		}
		return ex.pathFrom(g, x, pp.b, fn)
	case pNeg:
		if len(pp.fwd) > 0 || len(pp.inv) == 0 {
			err := ex.match(g, x, nil, nil, func(q quad.Quad) error {
				if inIRIs(q.Predicate, pp.fwd) {
					return nil
				}
				return fn(q.Object)
			})
			if err != nil {
				return err
			}
		}
		if len(pp.inv) > 0 {
			return ex.match(g, nil, nil, x, func(q quad.Quad) error {
				if inIRIs(q.Predicate, pp.inv) {
					return nil
				}
				return fn(q.Subject)
			})
		}
		return nil
	case pMod:
		seen := map[quad.Value]bool{}
		var frontier []quad.Value
		// The visited set and the frontiers are charged to the memory
		// budget while the search runs.
		charged := 0
		defer func() { ex.free(charged) }()
		visit := func(y quad.Value) error {
			n := mapEntryBytes + 2*termBytes(y)
			charged += n
			seen[y] = true
			return ex.alloc(n)
		}
		if pp.min == 0 {
			if err := visit(x); err != nil {
				return err
			}
			if err := fn(x); err != nil {
				return err
			}
		}
		// First step.
		err := ex.pathFrom(g, x, pp.p, func(y quad.Value) error {
			if seen[y] {
				return nil
			}
			if err := visit(y); err != nil {
				return err
			}
			frontier = append(frontier, y)
			return fn(y)
		})
		if err != nil || pp.max == 1 {
			return err
		}
		for len(frontier) > 0 {
			var nextF []quad.Value
			for _, n := range frontier {
				err := ex.pathFrom(g, n, pp.p, func(y quad.Value) error {
					if seen[y] {
						return nil
					}
					if err := visit(y); err != nil {
						return err
					}
					nextF = append(nextF, y)
					return fn(y)
				})
				if err != nil {
					return err
				}
			}
			frontier = nextF
		}
		return nil
	}
	return nil
}

func inIRIs(v quad.Value, list []quad.IRI) bool {
	for _, l := range list {
		if v == quad.Value(l) {
			return true
		}
	}
	return false
}

// pathAll calls fn for every pair (x, y) with x path y.
func (ex *exec) pathAll(g gctx, p pathExpr, fn func(x, y quad.Value) error) error {
	switch pp := p.(type) {
	case pLink:
		return ex.match(g, nil, pp.iri, nil, func(q quad.Quad) error { return fn(q.Subject, q.Object) })
	case pInv:
		return ex.pathAll(g, pp.p, func(x, y quad.Value) error { return fn(y, x) })
	case pSeq:
		return ex.pathAll(g, pp.a, func(x, mid quad.Value) error {
			return ex.pathFrom(g, mid, pp.b, func(y quad.Value) error { return fn(x, y) })
		})
	case pAlt:
		if err := ex.pathAll(g, pp.a, fn); err != nil {
			return err
		}
		return ex.pathAll(g, pp.b, fn)
	case pNeg:
		if len(pp.fwd) > 0 || len(pp.inv) == 0 {
			err := ex.match(g, nil, nil, nil, func(q quad.Quad) error {
				if inIRIs(q.Predicate, pp.fwd) {
					return nil
				}
				return fn(q.Subject, q.Object)
			})
			if err != nil {
				return err
			}
		}
		if len(pp.inv) > 0 {
			return ex.match(g, nil, nil, nil, func(q quad.Quad) error {
				if inIRIs(q.Predicate, pp.inv) {
					return nil
				}
				return fn(q.Object, q.Subject)
			})
		}
		return nil
	case pMod:
		// Start nodes: every node of the graph for zero-length paths, else
		// the nodes where one step of the path starts.
		var starts []quad.Value
		seen := map[quad.Value]bool{}
		charged := 0
		defer func() { ex.free(charged) }()
		add := func(v quad.Value) error {
			if !seen[v] {
				n := mapEntryBytes + 2*termBytes(v)
				charged += n
				seen[v] = true
				starts = append(starts, v)
				return ex.alloc(n)
			}
			return nil
		}
		var err error
		if pp.min == 0 {
			err = ex.match(g, nil, nil, nil, func(q quad.Quad) error {
				if err := add(q.Subject); err != nil {
					return err
				}
				return add(q.Object)
			})
		} else {
			err = ex.pathAll(g, pp.p, func(x, _ quad.Value) error {
				return add(x)
			})
		}
		if err != nil {
			return err
		}
		for _, x := range starts {
			err := ex.pathFrom(g, x, pp, func(y quad.Value) error { return fn(x, y) })
			if err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// evalPathPattern binds a path pattern in row r and calls next for each
// match.
func (ex *exec) evalPathPattern(tp *triplePat, g gctx, r row, nodes varSet, next func() error) error {
	s, o := ex.resolve(tp.s, r), ex.resolve(tp.o, r)
	bind := func(t term, v quad.Value, f func() error) error {
		if !t.isVar() || r[t.slot] != nil {
			if sameTerm(ex.resolve(t, r), v) {
				return f()
			}
			return nil
		}
		r[t.slot] = v
		err := f()
		r[t.slot] = nil
		return err
	}
	path := tp.path
	// A zero-length path matches a node bound by an earlier pattern or
	// VALUES only if the node is in the graph (constants always match);
	// nodes are the variables earlier steps of the BGP matched as a
	// subject or object in the graph, known to be in it.
	if m, ok := path.(pMod); ok && m.min == 0 {
		start, startTerm := s, tp.s
		if start == nil {
			start, startTerm = o, tp.o
		}
		if start != nil && startTerm.isVar() && !nodes.has(startTerm.slot) {
			in, err := ex.nodeInGraph(g, start)
			if err != nil {
				return err
			}
			if !in {
				path = pMod{p: m.p, min: 1, max: m.max}
			}
		}
	}
	switch {
	case s != nil && o != nil:
		return ex.pathFrom(g, s, path, func(y quad.Value) error {
			if sameTerm(y, o) {
				return next()
			}
			return nil
		})
	case s != nil:
		return ex.pathFrom(g, s, path, func(y quad.Value) error {
			return bind(tp.o, y, next)
		})
	case o != nil:
		return ex.pathFrom(g, o, invertPath(path), func(x quad.Value) error {
			return bind(tp.s, x, next)
		})
	}
	return ex.pathAll(g, tp.path, func(x, y quad.Value) error {
		return bind(tp.s, x, func() error {
			return bind(tp.o, y, next)
		})
	})
}

// nodeInGraph reports whether v is the subject or object of a triple in the
// active graph.
func (ex *exec) nodeInGraph(g gctx, v quad.Value) (bool, error) {
	found := false
	stop := &stopSignal{}
	for _, pos := range [2]int{0, 2} {
		var s, o quad.Value
		if pos == 0 {
			s = v
		} else {
			o = v
		}
		err := ex.match(g, s, nil, o, func(quad.Quad) error {
			found = true
			return stop
		})
		if err != nil && err != error(stop) {
			return false, err
		}
		if found {
			return true, nil
		}
	}
	return false, nil
}
