package sparql

import "github.com/cayleygraph/quad"

// Unused variables. A variable that occurs once in the whole query, in one
// triple pattern, and is read nowhere else (not projected, not in an
// expression, not joined) but possibly counted by COUNT(?v), only needs to
// be bound, not known: "?s a ?c" in SELECT ?c (COUNT(?s) AS ?n) ... GROUP
// BY ?c. Scans leave such a variable's term undecoded and bind it to
// unusedTerm, which no one sees. Decoding is most of the cost of a scan
// served from the store's columns.

// unusedTerm is what an unused variable is bound to.
const unusedTerm = quad.BNode("\x00unused")

// Join-only variables. A variable whose every occurrence is in one BGP,
// in the subject or object of triple patterns with a constant predicate,
// and whose value nothing else reads (COUNT(?v) aside) is only joined on
// inside that BGP. When the BGP reads the store's columns, those joins go
// by term id (matchColumns), so the variable is bound to unusedTerm
// without decoding its terms, as unused variables are (bgpPlan.lazy says
// where; not for steps read by numeric range scans, which read values).

// A variable may also occur in several BGPs that are branches of one
// UNION (directly or deeper, never joined with each other: "{ ?m p ?x }
// UNION { ?m q ?x }", or the branches a BGP was distributed into,
// distribute.go): each solution then has its binding from exactly one of
// them, so it is join-only or value-read in each, as in one BGP.

// bgpSet is the BGPs of a join-only or value-read variable (nil: it is
// none).
type bgpSet []*nBGP

// has reports whether b is one of s.
func (s bgpSet) has(b *nBGP) bool {
	for _, x := range s {
		if x == b {
			return true
		}
	}
	return false
}

// joinOnlyVars returns, per slot, the BGPs whose join-only variable it is
// (nil: none).
func joinOnlyVars(q *Query) []bgpSet {
	u := &useCounter{uses: make([]int, len(q.vars))}
	u.count(q)
	out := make([]bgpSet, len(q.vars))
	if q.form == Describe {
		return out
	}
	for v, b := range u.bgp {
		if b != nil && u.uses[v] == u.occ[v] && !u.multi[v] && !u.inPred[v] {
			out[v] = u.bgpsOf(v)
		}
	}
	return out
}

// Value-read variables (folded.go). A variable whose every occurrence is
// in one BGP, in the subject or object of triple patterns with a constant
// predicate, as for join-only variables, and which is otherwise read only
// by expressions (FILTER, BIND, SELECT expressions, ORDER BY, GROUP BY
// keys, HAVING, aggregates' arguments), as a plain GROUP BY key, by a
// CONSTRUCT template or as a projected variable of the outermost SELECT
// without DISTINCT or REDUCED, is bound by the BGP's column reads to its
// term's id (idTerm), which all those readers decode or read through the
// value column. Read elsewhere (VALUES, a BIND target, GRAPH, a property
// path, a sub-select's projection, COUNT(DISTINCT *), DESCRIBE), it is
// decoded as before.

// valueVars returns, per slot, the BGP whose value-read variable it is
// (nil: none; a nil slice: no variable is).
func valueVars(q *Query) []bgpSet {
	if q.form == Describe {
		return nil
	}
	u := &useCounter{uses: make([]int, len(q.vars)), safe: make([]int, len(q.vars))}
	u.count(q)
	var out []bgpSet
	for v, b := range u.bgp {
		if b != nil && u.safe[v] > 0 && u.uses[v] == u.occ[v]+2*u.safe[v] && !u.multi[v] && !u.inPred[v] {
			if out == nil {
				out = make([]bgpSet, len(q.vars))
			}
			out[v] = u.bgpsOf(v)
		}
	}
	return out
}

// unusedVars returns, per slot, whether the variable is unused in q.
func unusedVars(q *Query) []bool {
	uses := make([]int, len(q.vars))
	u := &useCounter{uses: uses}
	u.count(q)
	out := make([]bool, len(q.vars))
	if q.form == Describe {
		return out
	}
	for v, n := range uses {
		out[v] = n == 1 && u.inBGP[v]
	}
	return out
}

func (u *useCounter) count(q *Query) {
	u.sel(q.sel, true)
	for _, tp := range q.template {
		u.safeTerm(tp.s)
		u.safeTerm(tp.p)
		u.safeTerm(tp.o)
	}
	for _, t := range q.describe {
		u.term(t, 2)
	}
}

// useCounter counts the uses of each variable: 1 for an occurrence in a
// triple pattern, 2 for a read of its value.
type useCounter struct {
	uses  []int
	inBGP map[int]bool
	// occ counts occurrences in triple patterns; bgp is the BGP of the
	// first, multi tells there are several BGPs, inPred an occurrence as
	// a predicate (or with a variable predicate).
	occ           []int
	bgp           []*nBGP
	multi, inPred map[int]bool
	// at are the BGPs each variable occurs in, with the UNION branches
	// they are in; branch is the branches the walk is in now (a UNION's
	// number times 2, plus 1 in its right branch).
	at     map[int][]bgpAt
	branch []int
	unions int
	// notSubj marks the variables that occur anywhere but as the
	// subject of a triple pattern (subjectOnlyVars).
	notSubj map[int]bool
	// safe counts the reads (of 2) that an id binding allows (nil: not
	// counted; see valueVars).
	safe []int
}

// safeRead counts a read of slot s that an id binding allows.
func (u *useCounter) safeRead(s int) {
	u.slot(s, 2)
	if u.safe != nil && s >= 0 && s < len(u.safe) {
		u.safe[s]++
	}
}

func (u *useCounter) safeTerm(t term) {
	if t.isVar() {
		u.safeRead(t.slot)
	}
}

func (u *useCounter) slot(s, n int) {
	if s >= 0 && s < len(u.uses) {
		u.uses[s] += n
	}
}

func (u *useCounter) term(t term, n int) {
	if t.isVar() {
		u.slot(t.slot, n)
	}
}

func (u *useCounter) sel(sq *selectQuery, top bool) {
	for _, p := range sq.proj {
		if p.e == nil && top && !sq.distinct && !sq.reduced {
			u.safeRead(p.slot) // decoded by the result writer
		} else {
			u.slot(p.slot, 2)
		}
		if p.e != nil {
			u.expr(p.e)
		}
	}
	for _, g := range sq.groupBy {
		u.expr(g.e)
		if v, ok := g.e.(*eVar); ok && v.slot == g.slot {
			u.safeRead(g.slot) // a plain key: decoded once per id
		} else {
			u.slot(g.slot, 2)
		}
	}
	for _, h := range sq.having {
		u.expr(h)
	}
	for _, a := range sq.aggs {
		u.slot(a.slot, 2)
		if a.arg == nil && a.distinct {
			// COUNT(DISTINCT *) compares whole solutions.
			for v := range u.uses {
				u.slot(v, 2)
			}
		}
		if _, isVar := a.arg.(*eVar); isVar && a.name == "COUNT" && !a.distinct {
			continue // counts bound values: the value is not read
		}
		if a.arg != nil {
			u.expr(a.arg)
		}
	}
	for _, o := range sq.orderBy {
		u.expr(o.e)
	}
	if sq.values != nil {
		u.node(sq.values)
	}
	u.node(sq.where)
}

func (u *useCounter) node(n node) {
	switch x := n.(type) {
	case *nBGP:
		if u.occ == nil {
			u.occ = make([]int, len(u.uses))
			u.bgp = make([]*nBGP, len(u.uses))
			u.inBGP, u.multi, u.inPred = map[int]bool{}, map[int]bool{}, map[int]bool{}
		}
		for _, tp := range x.pats {
			if tp.path != nil {
				u.term(tp.s, 2)
				u.term(tp.o, 2)
				u.notSubject(tp.s)
				u.notSubject(tp.o)
				continue
			}
			u.notSubject(tp.p)
			u.notSubject(tp.o)
			for i, t := range [3]term{tp.s, tp.p, tp.o} {
				if !t.isVar() || t.slot >= len(u.uses) {
					continue
				}
				u.slot(t.slot, 1)
				u.inBGP[t.slot] = true
				u.occ[t.slot]++
				u.occurs(t.slot, x)
				u.bgp[t.slot] = x
				// A variable predicate's pattern reads the columns
				// predicate by predicate (matchAnyPredicate), binding its
				// subject and object by id as a constant predicate's,
				// unless the predicate is also its subject or object.
				if i == 1 || tp.p.isVar() && (tp.p.slot == tp.s.slot || tp.p.slot == tp.o.slot) {
					u.inPred[t.slot] = true
				}
			}
		}
	case *nJoin:
		u.node(x.l)
		u.node(x.r)
	case *nLeftJoin:
		u.node(x.l)
		u.node(x.r)
		if x.cond != nil {
			u.expr(x.cond)
		}
	case *nUnion:
		n := u.unions
		u.unions++
		u.branch = append(u.branch, 2*n)
		u.node(x.l)
		u.branch[len(u.branch)-1] = 2*n + 1
		u.node(x.r)
		u.branch = u.branch[:len(u.branch)-1]
	case *nMinus:
		u.node(x.l)
		u.node(x.r)
	case *nFilter:
		for _, c := range x.conds {
			u.expr(c)
		}
		u.node(x.p)
	case *nExtend:
		u.slot(x.slot, 2)
		u.expr(x.e)
		u.node(x.p)
	case *nValues:
		for _, s := range x.slots {
			u.slot(s, 2)
		}
	case *nGraph:
		u.term(x.g, 2)
		u.node(x.p)
	case *nSub:
		u.sel(x.q, false)
	}
}

func (u *useCounter) expr(e expr) {
	switch x := e.(type) {
	case *eVar:
		u.safeRead(x.slot) // evalExpr decodes an id
	case *eOp:
		for _, a := range x.args {
			u.expr(a)
		}
	case *eCall:
		for _, a := range x.args {
			u.expr(a)
		}
	case *eFunc:
		for _, a := range x.args {
			u.expr(a)
		}
	case *eIn:
		u.expr(x.left)
		for _, a := range x.list {
			u.expr(a)
		}
	case *eExists:
		u.node(x.p)
	case *eAgg:
		u.slot(x.slot, 2)
	}
}

// bgpAt is a BGP and the UNION branches it is in.
type bgpAt struct {
	b      *nBGP
	branch []int
}

// occurs records an occurrence of slot in the BGP x: a variable in two
// BGPs is in several (multi) unless the two are in different branches of
// one UNION.
func (u *useCounter) occurs(slot int, x *nBGP) {
	if u.at == nil {
		u.at = map[int][]bgpAt{}
	}
	for _, a := range u.at[slot] {
		if a.b == x {
			return
		}
	}
	for _, a := range u.at[slot] {
		if !exclusive(a.branch, u.branch) {
			u.multi[slot] = true
		}
	}
	u.at[slot] = append(u.at[slot], bgpAt{x, append([]int(nil), u.branch...)})
}

// exclusive reports whether two BGPs in the UNION branches a and b are
// alternatives: the first UNION where their branches part is the same
// UNION.
func exclusive(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i]/2 == b[i]/2
		}
	}
	return false
}

// bgpsOf is the BGPs slot occurs in.
func (u *useCounter) bgpsOf(slot int) bgpSet {
	var s bgpSet
	for _, a := range u.at[slot] {
		s = append(s, a.b)
	}
	return s
}

// notSubject marks t's variable as occurring elsewhere than as a subject.
func (u *useCounter) notSubject(t term) {
	if !t.isVar() {
		return
	}
	if u.notSubj == nil {
		u.notSubj = map[int]bool{}
	}
	u.notSubj[t.slot] = true
}

// Subject-only variables. A variable that occurs in triple patterns only
// as their subject (not in a path) is bound to IRIs and blank nodes only,
// whose store ids are as distinct as their terms (no literal, where
// sameTerm and the id part ways), so COUNT(DISTINCT ?v) may count its
// ids (query.go: accumulate) instead of decoding every term: the instances
// per class of a whole store ("?s a ?c", a million subjects) took 18 s
// decoded.

// subjectOnlyVars returns, per slot, whether the variable is subject-only.
func subjectOnlyVars(q *Query) []bool {
	u := &useCounter{uses: make([]int, len(q.vars))}
	u.count(q)
	out := make([]bool, len(q.vars))
	for v := range out {
		out[v] = u.occ != nil && u.occ[v] > 0 && !u.notSubj[v]
	}
	return out
}
