package sparql

import (
	"context"
	"math"
	"sort"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// varSet is a set of variable slots.
type varSet map[int]bool

func (s varSet) add(v int)      { s[v] = true }
func (s varSet) has(v int) bool { return s[v] }
func (s varSet) addTerm(t term) {
	if t.isVar() {
		s[t.slot] = true
	}
}

// inScopeVars adds the variables that may be bound by solutions of n
// (section 18.2.1, "in-scope").
func inScopeVars(n node, s varSet) {
	switch x := n.(type) {
	case *nBGP:
		for _, tp := range x.pats {
			s.addTerm(tp.s)
			s.addTerm(tp.o)
			if tp.path == nil {
				s.addTerm(tp.p)
			}
		}
	case *nJoin:
		inScopeVars(x.l, s)
		inScopeVars(x.r, s)
	case *nLeftJoin:
		inScopeVars(x.l, s)
		inScopeVars(x.r, s)
	case *nUnion:
		inScopeVars(x.l, s)
		inScopeVars(x.r, s)
	case *nMinus:
		inScopeVars(x.l, s)
	case *nFilter:
		inScopeVars(x.p, s)
	case *nExtend:
		inScopeVars(x.p, s)
		s.add(x.slot)
	case *nValues:
		for _, v := range x.slots {
			s.add(v)
		}
	case *nGraph:
		s.addTerm(x.g)
		inScopeVars(x.p, s)
	case *nSub:
		for _, p := range x.q.proj {
			s.add(p.slot)
		}
	}
}

// certainVars adds the variables bound in every solution of n.
func certainVars(n node, s varSet) {
	switch x := n.(type) {
	case *nBGP:
		inScopeVars(x, s)
	case *nJoin:
		certainVars(x.l, s)
		certainVars(x.r, s)
	case *nLeftJoin:
		certainVars(x.l, s)
	case *nUnion:
		a, b := varSet{}, varSet{}
		certainVars(x.l, a)
		certainVars(x.r, b)
		for v := range a {
			if b[v] {
				s.add(v)
			}
		}
	case *nMinus:
		certainVars(x.l, s)
	case *nFilter:
		certainVars(x.p, s)
	case *nExtend:
		certainVars(x.p, s)
	case *nValues:
		if len(x.rows) == 0 {
			return
		}
	slots:
		for i, v := range x.slots {
			for _, r := range x.rows {
				if r[i] == nil {
					continue slots
				}
			}
			s.add(v)
		}
	case *nGraph:
		s.addTerm(x.g)
		certainVars(x.p, s)
	case *nSub:
		if x.q.grouped {
			return
		}
		inner := varSet{}
		certainVars(x.q.where, inner)
		for _, p := range x.q.proj {
			if p.e == nil && inner[p.slot] {
				s.add(p.slot)
			}
		}
	}
}

// exprVars adds the variables an expression reads, including every
// variable of EXISTS patterns.
func exprVars(e expr, s varSet) {
	switch x := e.(type) {
	case *eVar:
		s.add(x.slot)
	case *eOp:
		for _, a := range x.args {
			exprVars(a, s)
		}
	case *eCall:
		for _, a := range x.args {
			exprVars(a, s)
		}
	case *eFunc:
		for _, a := range x.args {
			exprVars(a, s)
		}
	case *eIn:
		exprVars(x.left, s)
		for _, a := range x.list {
			exprVars(a, s)
		}
	case *eExists:
		allVars(x.p, s)
	case *eAgg:
		s.add(x.slot)
	}
}

// allVars adds every variable mentioned anywhere in n. It visits each node
// once (it used to add inScopeVars at every level, quadratic in the depth,
// and riskyVars calls it at every level of nested OPTIONALs).
func allVars(n node, s varSet) {
	switch x := n.(type) {
	case *nBGP, *nValues, *nSub:
		inScopeVars(n, s)
	case *nJoin:
		allVars(x.l, s)
		allVars(x.r, s)
	case *nLeftJoin:
		allVars(x.l, s)
		allVars(x.r, s)
		if x.cond != nil {
			exprVars(x.cond, s)
		}
	case *nUnion:
		allVars(x.l, s)
		allVars(x.r, s)
	case *nMinus:
		allVars(x.l, s)
		allVars(x.r, s)
	case *nFilter:
		allVars(x.p, s)
		for _, c := range x.conds {
			exprVars(c, s)
		}
	case *nExtend:
		allVars(x.p, s)
		s.add(x.slot)
		exprVars(x.e, s)
	case *nGraph:
		s.addTerm(x.g)
		allVars(x.p, s)
	}
}

func hasExists(e expr) bool {
	switch x := e.(type) {
	case *eExists:
		return true
	case *eOp:
		for _, a := range x.args {
			if hasExists(a) {
				return true
			}
		}
	case *eCall:
		for _, a := range x.args {
			if hasExists(a) {
				return true
			}
		}
	case *eFunc:
		for _, a := range x.args {
			if hasExists(a) {
				return true
			}
		}
	case *eIn:
		if hasExists(x.left) {
			return true
		}
		for _, a := range x.list {
			if hasExists(a) {
				return true
			}
		}
	}
	return false
}

// riskyVars adds the variables that, when bound before n is evaluated,
// make substituting them into n differ from evaluating n alone and joining
// (the scoping of OPTIONAL, FILTER, BIND and MINUS).
func riskyVars(n node, s varSet) {
	switch x := n.(type) {
	case *nJoin:
		riskyVars(x.l, s)
		riskyVars(x.r, s)
	case *nUnion:
		riskyVars(x.l, s)
		riskyVars(x.r, s)
	case *nLeftJoin:
		// Binding a variable of the right side that the left side does not
		// always bind would turn "optional matched with another value" into
		// "optional did not match".
		riskyVars(x.l, s)
		riskyVars(x.r, s)
		all := varSet{}
		allVars(x.r, all)
		if x.cond != nil {
			exprVars(x.cond, all)
		}
		addUncertain(s, x.l, all)
	case *nMinus:
		riskyVars(x.l, s)
		all := varSet{}
		allVars(x.r, all)
		addUncertain(s, x.l, all)
	case *nFilter:
		riskyVars(x.p, s)
		all := varSet{}
		for _, e := range x.conds {
			exprVars(e, all)
		}
		addUncertain(s, x.p, all)
	case *nExtend:
		riskyVars(x.p, s)
		s.add(x.slot)
		all := varSet{}
		exprVars(x.e, all)
		addUncertain(s, x.p, all)
	case *nGraph:
		riskyVars(x.p, s)
	}
}

// addUncertain adds to s the variables of vars that n does not bind in
// every solution.
func addUncertain(s varSet, n node, vars varSet) {
	certain := varSet{}
	certainVars(n, certain)
	for v := range vars {
		if !certain[v] {
			s.add(v)
		}
	}
}

// ---- BGP planning ----

// pushed is a filter evaluated inside a BGP once its variables are bound.
type pushed struct {
	e    expr
	vars []int
}

// bgpPlan is an evaluation order of a BGP's patterns and, per step, the
// filters to check after it.
type bgpPlan struct {
	order   []int
	filters [][]expr // filters[i] run after step i; filters before the first step are in pre
	pre     []expr
	// ranges[i], when not nil, is the numeric interval step i's object is
	// scanned in through NumericRanger (nil slice: no range steps).
	ranges []*graph.Range
	// lazy marks the join-only variables of the BGP (unused.go) that its
	// steps bind without decoding when they read the columns (nil: none).
	lazy []bool
	// eagerHash: step 1 looks up every triple of step 0, a full scan of a
	// plain pattern without filters, and they are many enough for a hash
	// join to pay off at once (see hashLookup).
	eagerHash bool
	// star is the star the plan starts with, batched (star.go; nil:
	// none), once starDone.
	star     *starSeg
	starDone bool
}

// estimate returns the source's estimated count for a pattern with its
// constants (variables as wildcards), cached per execution.
func (ex *exec) estimate(ctx context.Context, tp *triplePat) float64 {
	if v, ok := ex.est[tp]; ok {
		return v
	}
	var e float64
	if tp.path != nil {
		e = 1e6
		if l, ok := pathBaseLink(tp.path); ok {
			pat := graph.Pattern{Predicate: l}
			if n, err := ex.src.EstimateCount(ctx, pat); err == nil {
				e = float64(n) * 2
			}
		}
	} else if n, ok := ex.columnCount(tp); ok {
		e = n
	} else {
		c := tp.constants()
		pat := graph.Pattern{Subject: c[0], Predicate: c[1], Object: c[2]}
		if n, err := ex.src.EstimateCount(ctx, pat); err == nil {
			e = float64(n)
		} else {
			e = 1e6
		}
	}
	ex.est[tp] = e
	return e
}

// columnCount counts the triples of a pattern with a constant predicate
// and exactly one constant of subject and object in the columns (a binary
// search), where the store's estimate would scan its index up to 10,000
// keys (6 ms of bench query 23's 38 for "?m a mg:Molecule"); ok is false
// without columns or for other shapes.
func (ex *exec) columnCount(tp *triplePat) (float64, bool) {
	cs, ok := ex.idm.(cursorSource)
	if !ok || !ex.cols || tp.p.isVar() || tp.s.isVar() == tp.o.isVar() {
		return 0, false
	}
	p, ok := tp.p.v.(quad.IRI)
	if !ok {
		return 0, false
	}
	key := tp.s.v
	if tp.s.isVar() {
		key = tp.o.v
	}
	pid, err := ex.idm.TermID(p)
	if err != nil {
		return 0, false
	}
	kid, err := ex.idm.TermID(key)
	if err != nil {
		return 0, false
	}
	if pid == 0 || kid == 0 {
		return 0, true
	}
	c := cs.ColumnCursor(pid, !tp.s.isVar())
	if c == nil {
		return 0, false
	}
	return float64(len(c.Seek(kid))), true
}

func pathBaseLink(p pathExpr) (quad.IRI, bool) {
	switch x := p.(type) {
	case pLink:
		return x.iri, true
	case pInv:
		return pathBaseLink(x.p)
	case pMod:
		return pathBaseLink(x.p)
	}
	return "", false
}

// planBGP orders the patterns greedily: the next pattern is the connected
// one (sharing a bound variable) with the lowest estimated cost, where each
// bound position divides the estimate (subject by 1000, object by 100,
// predicate by 10), except that a pattern keyed by its object alone costs
// its mean fan-out from that object when the columns' statistics give it. Filters run right after the step that binds their last
// variable.
func (ex *exec) planBGP(ctx context.Context, b *nBGP, bound varSet, filters []pushed) *bgpPlan {
	n := len(b.pats)
	used := make([]bool, n)
	bnd := varSet{}
	for v := range bound {
		bnd.add(v)
	}
	pl := &bgpPlan{filters: make([][]expr, n)}
	isBound := func(t term) bool { return !t.isVar() || bnd.has(t.slot) }
	_, canRange := ex.src.(NumericRanger)
	canRange = canRange && len(filters) > 0
	for step := 0; step < n; step++ {
		best, bestCost, bestConn := -1, math.Inf(1), false
		for i := range b.pats {
			if used[i] {
				continue
			}
			tp := &b.pats[i]
			cost := ex.estimate(ctx, tp)
			conn := false
			if tp.s.isVar() && bnd.has(tp.s.slot) {
				cost /= 1000
				conn = true
			}
			if tp.o.isVar() && bnd.has(tp.o.slot) {
				if sb := tp.s.isVar() && bnd.has(tp.s.slot); !sb && isBound(tp.p) {
					// Keyed by its object alone: the rows one object
					// gives, when the columns have statistics (a
					// molecule's QED value is shared by a few, its heavy
					// atom count by thousands, both 100,000 triples).
					if f, ok := ex.fanout(tp, false, true); ok {
						cost = f
					} else {
						cost /= 100
					}
				} else {
					cost /= 100
				}
				conn = true
			}
			if tp.path == nil && tp.p.isVar() && bnd.has(tp.p.slot) {
				cost /= 10
				conn = true
			}
			if tp.path != nil && !isBound(tp.s) && !isBound(tp.o) {
				cost *= 1000
			}
			if canRange {
				if _, ok := rangeCandidate(tp, bnd, filters); ok {
					// A numeric range scan reads part of the predicate.
					cost /= 2
				}
			}
			if tp.path == nil && completesFilter(tp, bnd, filters) {
				// A filter runs right after it and prunes what follows.
				cost /= 2
			}
			if len(bnd) == 0 {
				conn = true
			}
			if best < 0 || conn && !bestConn || conn == bestConn && cost < bestCost {
				best, bestCost, bestConn = i, cost, conn
			}
		}
		if step == 0 && len(bnd) == 0 {
			best = ex.fanoutStart(ctx, b, best, canRange, filters)
		}
		used[best] = true
		pl.order = append(pl.order, best)
		tp := &b.pats[best]
		bnd.addTerm(tp.s)
		bnd.addTerm(tp.o)
		if tp.path == nil {
			bnd.addTerm(tp.p)
		}
	}
	// Place each filter after the first step where all its variables are
	// bound.
	for _, f := range filters {
		at := -2
		seen := varSet{}
		for v := range bound {
			seen.add(v)
		}
		if allIn(f.vars, seen) {
			at = -1
		} else {
			for step, i := range pl.order {
				tp := &b.pats[i]
				seen.addTerm(tp.s)
				seen.addTerm(tp.o)
				if tp.path == nil {
					seen.addTerm(tp.p)
				}
				if allIn(f.vars, seen) {
					at = step
					break
				}
			}
		}
		switch at {
		case -2:
			// never fully bound: evaluate at the end (errors on unbound
			// variables are part of the semantics)
			if n == 0 {
				pl.pre = append(pl.pre, f.e)
			} else {
				pl.filters[n-1] = append(pl.filters[n-1], f.e)
			}
		case -1:
			pl.pre = append(pl.pre, f.e)
		default:
			pl.filters[at] = append(pl.filters[at], f.e)
		}
	}
	ex.planRanges(b, bound, filters, pl)
	ex.planLazy(b, pl)
	if n >= 2 && len(pl.pre) == 0 && len(pl.filters[0]) == 0 {
		first, second := &b.pats[pl.order[0]], &b.pats[pl.order[1]]
		scan := first.path == nil && second.path == nil
		for _, t := range []term{first.s, first.p, first.o} {
			if t.isVar() && bound.has(t.slot) {
				scan = false
			}
		}
		if scan {
			need := ex.estimate(ctx, second) / hashSeekCost
			if pl.ranges != nil && pl.ranges[0] != nil {
				// The range scan's size decides; counting its keys up to
				// the threshold is cheap.
				pl.eagerHash = ex.rangeAtLeast(first.p.v.(quad.IRI), *pl.ranges[0], need)
			} else {
				pl.eagerHash = ex.estimate(ctx, first) >= need
			}
		}
	}
	return pl
}

// fanoutStart reconsiders the first pattern of a plan that binds nothing
// before it: the cheapest pattern alone is a poor start when each of its
// rows fans out into many through every pattern joined to it (two batch
// jobs reaching 100,000 items) while another start, a little larger, is
// narrowed by what it joins (molecules with a selective filter, each with
// one item). With the columns' statistics (triples and distinct keys per
// predicate and order: the mean fan-out of one bound key), each start is
// costed as its estimate times the smallest fan-out of the patterns it
// joins, and a start at least twice cheaper that way replaces the greedy
// one. A greedy start that does not fan out stays, and so does one
// without statistics for every pattern involved.
func (ex *exec) fanoutStart(ctx context.Context, b *nBGP, greedy int, canRange bool, filters []pushed) int {
	n := len(b.pats)
	if n < 2 || n > 8 {
		return greedy
	}
	// size is the rows pattern i yields alone: its estimate, or with a
	// numeric range filter on its object the range's count, counted up
	// to limit (a larger one is no better start).
	size := func(i int, limit float64) float64 {
		tp := &b.pats[i]
		c := ex.estimate(ctx, tp)
		if tp.path != nil && tp.s.isVar() && tp.o.isVar() {
			return c * 1000 // as planBGP: a path from every node
		}
		if !canRange || c <= limit {
			return c
		}
		r, ok := rangeCandidate(tp, varSet{}, filters)
		if !ok {
			return c
		}
		lim := int64(math.Ceil(limit))
		if got, ok := ex.countRange(tp.p.v.(quad.IRI), r, lim); ok && got < lim {
			return float64(got)
		}
		return c
	}
	// after returns the start's size times the smallest fan-out of a
	// pattern sharing a variable with it (limit: of the product); ok is
	// false when a fan-out is unknown.
	after := func(i int, limit float64) (float64, bool) {
		start := &b.pats[i]
		bnd := varSet{}
		bnd.addTerm(start.s)
		bnd.addTerm(start.o)
		if start.path == nil {
			bnd.addTerm(start.p)
		}
		low, joined := math.Inf(1), false
		for j := range b.pats {
			if j == i {
				continue
			}
			tp := &b.pats[j]
			sb := tp.s.isVar() && bnd.has(tp.s.slot)
			ob := tp.o.isVar() && bnd.has(tp.o.slot)
			if !sb && !ob {
				continue
			}
			f, ok := ex.fanout(tp, sb, ob)
			if !ok {
				return 0, false
			}
			joined = true
			low = min(low, f)
		}
		if !joined {
			low = 1
		}
		low = max(low, 1e-3)
		return size(i, limit/low) * low, true
	}
	g, ok := after(greedy, math.Inf(1))
	if !ok || g <= size(greedy, math.Inf(1))*1.5 {
		// The greedy start does not fan out (a star: one row per
		// subject at each step, which the batched star reads best).
		return greedy
	}
	best, bestCost := greedy, g
	for i := range b.pats {
		if i == greedy {
			continue
		}
		c, ok := after(i, g/2)
		if !ok {
			return greedy
		}
		if c < bestCost {
			best, bestCost = i, c
		}
	}
	if best != greedy && bestCost*2 <= g {
		ex.fanoutStarts++
		return best
	}
	return greedy
}

// fanout estimates the rows one binding of tp's bound subject (sb) or
// object (ob) gives, from the columns' statistics: for a constant
// predicate its triples per distinct key, for a path of links, inverse
// links and sequences the product along it; ok is false when the view
// has no statistics or the pattern is of another shape.
func (ex *exec) fanout(tp *triplePat, sb, ob bool) (float64, bool) {
	if tp.path == nil {
		p, ok := tp.p.v.(quad.IRI)
		if tp.p.isVar() || !ok {
			return 0, false
		}
		var path pathExpr = pLink{iri: p}
		constOther := !tp.o.isVar()
		if ob && !sb {
			// The object bound: read backwards.
			path, constOther = pInv{p: path}, !tp.s.isVar()
		}
		f, ok := ex.pathFanout(path)
		if ok && (sb && ob || constOther) {
			// Both ends known: at most one row.
			f = min(f, 1)
		}
		return f, ok
	}
	if ob && !sb {
		return ex.pathFanout(invertPath(tp.path))
	}
	f, ok := ex.pathFanout(tp.path)
	if ok && (ob || !tp.o.isVar()) {
		f = min(f, 1)
	}
	return f, ok
}

// pathFanout is fanout for a path read from its subject.
func (ex *exec) pathFanout(p pathExpr) (float64, bool) {
	cs, ok := ex.idm.(cursorSource)
	if !ok || !ex.cols {
		return 0, false
	}
	link := func(iri quad.IRI, bySubject bool) (float64, bool) {
		id, err := ex.idm.TermID(iri)
		if err != nil {
			return 0, false
		}
		if id == 0 {
			return 0, true
		}
		c := cs.ColumnCursor(id, bySubject)
		if c == nil {
			return 0, false
		}
		n, keys := c.Stats()
		if keys == 0 {
			return 0, true
		}
		return float64(n) / float64(keys), true
	}
	switch x := p.(type) {
	case pLink:
		return link(x.iri, true)
	case pInv:
		if l, ok := x.p.(pLink); ok {
			return link(l.iri, false)
		}
	case pSeq:
		a, ok := ex.pathFanout(x.a)
		if !ok {
			return 0, false
		}
		b, ok := ex.pathFanout(x.b)
		return a * b, ok
	}
	return 0, false
}

// completesFilter reports whether some filter has all its variables bound
// once tp is, but not before.
func completesFilter(tp *triplePat, bnd varSet, filters []pushed) bool {
	has := func(v int) bool {
		return bnd.has(v) || tp.s.slot == v || tp.p.slot == v || tp.o.slot == v
	}
	for _, f := range filters {
		if allIn(f.vars, bnd) {
			continue
		}
		all := true
		for _, v := range f.vars {
			if !has(v) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// rangeAtLeast reports whether a numeric range scan of pred over r yields
// about n quads or more, when the source can count ranges (false when it
// cannot).
func (ex *exec) rangeAtLeast(pred quad.IRI, r graph.Range, n float64) bool {
	limit := int64(math.Ceil(n))
	got, ok := ex.countRange(pred, r, limit)
	return ok && got >= limit
}

// rangeCount is a count of a numeric range up to limit (n < limit: the
// exact count).
type rangeCount struct{ n, limit int64 }

type rangeCountKey struct {
	pred quad.IRI
	r    graph.Range
}

// countRange counts the triples of pred in the numeric range r up to
// limit through the source (ok false: it cannot), remembering the counts
// of the execution: the planner asks about the same range several times
// (the start's size, whether the range beats the columns), each a scan of
// the store's numeric index (6 ms of bench query 32's 24).
func (ex *exec) countRange(pred quad.IRI, r graph.Range, limit int64) (int64, bool) {
	k := rangeCountKey{pred, r}
	if c, ok := ex.rangeCounts[k]; ok && (c.n < c.limit || limit <= c.limit) {
		return min(c.n, limit), true
	}
	cr, ok := ex.src.(interface {
		CountNumericRange(ctx context.Context, pred quad.IRI, r graph.Range, limit int64) (int64, error)
	})
	if !ok {
		return 0, false
	}
	got, err := cr.CountNumericRange(ex.ctx, pred, r, limit)
	if err != nil {
		return 0, false
	}
	if ex.rangeCounts == nil {
		ex.rangeCounts = map[rangeCountKey]rangeCount{}
	}
	ex.rangeCounts[k] = rangeCount{got, limit}
	return got, true
}

func allIn(vs []int, s varSet) bool {
	for _, v := range vs {
		if !s[v] {
			return false
		}
	}
	return true
}

func sortedSlots(s varSet) []int {
	out := make([]int, 0, len(s))
	for v := range s {
		out = append(out, v)
	}
	sort.Ints(out)
	return out
}

// planLazy sets pl.lazy: the join-only and value-read variables of b
// (bound to unusedTerm and to their ids), but those of steps
// read by numeric range scans (which bind values) and those of a BGP
// with procedure calls (evaluated as calls and a BGP of the other
// patterns, a new nBGP that no variable's analysis names).
func (ex *exec) planLazy(b *nBGP, pl *bgpPlan) {
	if !ex.cols {
		return
	}
	var lazy []bool
	for v, jb := range ex.joinOnly {
		if jb.has(b) || ex.valueVars != nil && ex.valueVars[v].has(b) {
			if lazy == nil {
				lazy = make([]bool, len(ex.joinOnly))
			}
			lazy[v] = true
		}
	}
	if lazy == nil {
		return
	}
	for step, i := range pl.order {
		if pl.ranges != nil && pl.ranges[step] != nil {
			tp := &b.pats[i]
			for _, t := range [3]term{tp.s, tp.p, tp.o} {
				if t.isVar() {
					lazy[t.slot] = false
				}
			}
		}
	}
	pl.lazy = lazy
}
