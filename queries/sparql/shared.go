package sparql

import "github.com/cayleygraph/quad"

// Shared subject ids. A variable that occurs in several BGPs (a join
// between groups, the right side of an OPTIONAL, MINUS or FILTER (NOT)
// EXISTS) is not value-read (unused.go), so each BGP would decode its
// terms and the operators joining them would hash and compare those terms
// (exists.go, minus.go): for "?m a mg:Molecule . FILTER NOT EXISTS { ?c
// occ:hasUniqueSpecies ?m }" that is a decoded term per molecule on both
// sides. When the store's term ids are as good as the terms, such a
// variable is bound to its id (idTerm) by every BGP, and the joins compare
// ids.
//
// Ids are as good as terms for IRIs and blank nodes (one id per term); a
// literal's id is not (SPARQL's sameTerm folds a language tag's case,
// the store does not). So a shared id variable must be bound to a subject
// (an IRI or blank node) in every solution that carries it: every BGP it
// occurs in has it as the subject of one of its patterns, except BGPs
// whose bindings of it are only compared with solutions that already bind
// it (guarded): the right side of MINUS, the right side of an OPTIONAL
// whose left side binds it in every solution, and the patterns of an
// EXISTS in a FILTER over a pattern that binds it in every solution. A
// literal there never equals the subject it is compared with, by id or by
// term. Besides, as for value-read variables, every occurrence is in the
// subject or object of a pattern with a constant predicate, no property
// path, GRAPH, sub-select, VALUES or BIND target involves it, no BGP it
// occurs in calls a search procedure, and its other reads are reads that
// decode an idTerm (expressions, ORDER BY, GROUP BY, aggregates, the
// outermost projection). The query has no dataset, and the execution
// reads columns (exec.open); then every step that binds it, a column read
// (matchColumns) or a numeric range scan (matchRange), binds its id, so
// no solution carries its decoded term and ids are compared with ids only.
// COUNT(DISTINCT ?v) of such a variable keeps its ids, not its terms.

// sharedIDVars returns, per slot, whether the variable is a shared id
// variable of q (nil: none is).
func sharedIDVars(q *Query, procs Procedures) []bool {
	if q.form == Describe || q.Dataset() != nil {
		return nil
	}
	u := &useCounter{uses: make([]int, len(q.vars)), safe: make([]int, len(q.vars))}
	u.count(q)
	if u.bgp == nil {
		return nil
	}
	w := &sharedWalk{bad: make([]bool, len(q.vars)), procs: procs}
	w.sel(q.sel)
	var out []bool
	for v, b := range u.bgp {
		if b == nil || !u.multi[v] || u.inPred[v] || w.bad[v] || u.uses[v] != u.occ[v]+2*u.safe[v] {
			continue
		}
		if out == nil {
			out = make([]bool, len(q.vars))
		}
		out[v] = true
	}
	return out
}

// sharedWalk marks the variables that cannot be shared id variables.
type sharedWalk struct {
	bad   []bool
	procs Procedures
}

// guard is the set of variables whose bindings in a sub-pattern are only
// compared with bindings made before (all: every variable).
type guard struct {
	all bool
	s   varSet
}

func (g guard) has(v int) bool { return g.all || g.s[v] }

// with returns g plus the variables bound in every solution of n.
func (g guard) with(n node) guard {
	if g.all {
		return g
	}
	s := varSet{}
	for v := range g.s {
		s.add(v)
	}
	certainVars(n, s)
	return guard{s: s}
}

func (w *sharedWalk) mark(v int) {
	if v >= 0 && v < len(w.bad) {
		w.bad[v] = true
	}
}

func (w *sharedWalk) sel(sq *selectQuery) {
	w.node(sq.where, guard{}, false)
	for _, p := range sq.proj {
		if p.e != nil {
			w.expr(p.e, guard{}, false)
		}
	}
	for _, gi := range sq.groupBy {
		w.expr(gi.e, guard{}, false)
	}
	for _, h := range sq.having {
		w.expr(h, guard{}, false)
	}
	for _, o := range sq.orderBy {
		w.expr(o.e, guard{}, false)
	}
	for _, a := range sq.aggs {
		if a.arg != nil {
			w.expr(a.arg, guard{}, false)
		}
	}
	if sq.values != nil {
		w.node(sq.values, guard{}, true)
	}
}

// node walks n; inside (GRAPH, a sub-select) marks every variable.
func (w *sharedWalk) node(n node, g guard, inside bool) {
	switch x := n.(type) {
	case *nBGP:
		proc := false
		for _, tp := range x.pats {
			if iri, ok := tp.p.v.(quad.IRI); ok && !tp.p.isVar() && tp.path == nil {
				if _, ok := w.procs[iri]; ok {
					proc = true
				}
			}
		}
		for _, tp := range x.pats {
			for _, t := range [3]term{tp.s, tp.p, tp.o} {
				if !t.isVar() {
					continue
				}
				if inside || proc || tp.path != nil || !g.has(t.slot) && !subjectIn(x, t.slot) {
					w.mark(t.slot)
				}
			}
		}
	case *nJoin:
		w.node(x.l, g, inside)
		w.node(x.r, g, inside)
	case *nLeftJoin:
		w.node(x.l, g, inside)
		g2 := g.with(x.l)
		w.node(x.r, g2, inside)
		if x.cond != nil {
			w.expr(x.cond, g2, inside)
		}
	case *nUnion:
		w.node(x.l, g, inside)
		w.node(x.r, g, inside)
	case *nMinus:
		w.node(x.l, g, inside)
		w.node(x.r, guard{all: true}, inside)
	case *nFilter:
		w.node(x.p, g, inside)
		g2 := g.with(x.p)
		for _, c := range x.conds {
			w.expr(c, g2, inside)
		}
	case *nExtend:
		w.mark(x.slot)
		w.node(x.p, g, inside)
		w.expr(x.e, g.with(x.p), inside)
	case *nValues:
		for _, s := range x.slots {
			w.mark(s)
		}
	case *nGraph:
		if x.g.isVar() {
			w.mark(x.g.slot)
		}
		w.node(x.p, g, true)
	case *nSub:
		for _, p := range x.q.proj {
			w.mark(p.slot)
			if p.e != nil {
				w.expr(p.e, guard{}, true)
			}
		}
		w.node(x.q.where, guard{}, true)
		if x.q.values != nil {
			w.node(x.q.values, guard{}, true)
		}
		for _, e := range x.q.having {
			w.expr(e, guard{}, true)
		}
	}
}

func (w *sharedWalk) expr(e expr, g guard, inside bool) {
	switch x := e.(type) {
	case *eOp:
		for _, a := range x.args {
			w.expr(a, g, inside)
		}
	case *eCall:
		for _, a := range x.args {
			w.expr(a, g, inside)
		}
	case *eFunc:
		for _, a := range x.args {
			w.expr(a, g, inside)
		}
	case *eIn:
		w.expr(x.left, g, inside)
		for _, a := range x.list {
			w.expr(a, g, inside)
		}
	case *eExists:
		w.node(x.p, g, inside)
	}
}

// subjectIn reports whether v is the subject of a pattern of b.
func subjectIn(b *nBGP, v int) bool {
	for _, tp := range b.pats {
		if tp.path == nil && tp.s.isVar() && tp.s.slot == v {
			return true
		}
	}
	return false
}
