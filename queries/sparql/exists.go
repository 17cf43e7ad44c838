package sparql

import (
	"errors"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// Hashed semi-joins, anti-joins, left joins and joins.
//
// FILTER (NOT) EXISTS { P }, OPTIONAL { P } and a join with P evaluate P
// once per solution of their left side, with the solution's bindings
// substituted (an index nested loop: cheap per solution, costly for a
// hundred thousand). When P's result does not depend on the outer
// solution beyond the variables they share, the same answers come from
// evaluating P once alone and probing a hash table of its solutions keyed
// by the shared variables: EXISTS is then "some solution of P is
// compatible", NOT EXISTS "none is", OPTIONAL and the join merge the
// compatible ones. That holds for P a basic graph pattern without property
// paths or search procedures, a join or a UNION of such, a BIND over one
// whose expression only reads variables it binds in every solution, or a
// FILTER over a BGP whose conditions only read variables the BGP binds in
// every solution (a
// FILTER reading an outer variable sees it bound under substitution and
// unbound alone: those keep the per-solution path, as do property paths,
// whose zero-length matches of a substituted constant are not solutions
// of P alone, and GRAPH ?g, whose active graph changes per solution).
//
// The choice is made per execution with the counts the planner has (the
// ski-rental rule of hashjoin.go): P's cost alone is estimated as the sum
// of its patterns' counts (the store's per-predicate statistics); the
// per-solution path runs until the solutions evaluated, each at one
// lookup (hashSeekCost scanned triples) per pattern of P, would have paid
// for that, then P is evaluated once and the rest are probed. So a left side of a few solutions keeps
// its lookups, and a large one pays at most about twice the better choice.
//
// Keys are the terms themselves (fastGroupKey forms, termKey strings for
// several variables), confirmed with sameTerm: the engine's solutions
// carry decoded terms, and the store's term ids are only known inside
// one BGP, except for shared id variables (shared.go), bound to ids on
// both sides and keyed by them. The table and P's solutions are charged to Options.MaxMemory;
// one that would not fit is not built and the per-solution path goes on.

// rowIndex indexes solutions by the variables they bind, for probes by
// a solution binding some of them (here, and by MINUS: minus.go).
type rowIndex struct {
	groups []*rowGroup
}

// rowGroup are the indexed solutions that bind exactly slots.
type rowGroup struct {
	slots []int
	rows  []row
	// tables by the slots shared with the probing solutions (keyed by
	// their list, "s,"... as table and minusExcludes write it).
	tables map[string]*rowTable
	// lastShared and lastTable are the slots of the last table asked
	// for and that table: consecutive probes share the same slots.
	lastShared []int
	lastTable  *rowTable
}

// rowTable maps the key of the shared variables to the group's rows.
type rowTable struct {
	one   map[quad.Value][]int32 // one shared variable: by probeKey
	multi map[string][]int32     // several, or terms without a fast key
}

func newRowIndex(rows []row) *rowIndex {
	ix := &rowIndex{}
	bySig := map[string]*rowGroup{}
	var sig strings.Builder
	for _, b := range rows {
		sig.Reset()
		for i, v := range b {
			if v != nil {
				sig.WriteString(itoa(i))
			}
		}
		g := bySig[sig.String()]
		if g == nil {
			g = &rowGroup{tables: map[string]*rowTable{}}
			for i, v := range b {
				if v != nil {
					g.slots = append(g.slots, i)
				}
			}
			bySig[sig.String()] = g
			ix.groups = append(ix.groups, g)
		}
		g.rows = append(g.rows, b)
	}
	return ix
}

func itoa(i int) string {
	var b [12]byte
	n := len(b) - 1
	b[n] = ','
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}

// probeKey is fastGroupKey, and an id for a shared id variable's idTerm
// (a table's slot holds ids in every row or in none: see table).
func probeKey(v quad.Value) (quad.Value, bool) {
	if _, ok := v.(idTerm); ok {
		return v, true
	}
	return fastGroupKey(v)
}

// multiKey is the key of the values of a at slots.
func multiKey(a row, slots []int) string {
	var k strings.Builder
	for _, s := range slots {
		k.WriteString(termKey(a[s]))
		k.WriteByte(0)
	}
	return k.String()
}

// add indexes row i of a group of n rows, b, by its values at shared
// (one shared variable: by probeKey when it has one) and returns the
// bytes that costs.
func (t *rowTable) add(b row, shared []int, i, n int) int {
	if len(shared) == 1 {
		if k, ok := probeKey(b[shared[0]]); ok {
			if t.one == nil {
				t.one = make(map[quad.Value][]int32, n)
			}
			t.one[k] = append(t.one[k], int32(i))
			return mapEntryBytes + valueBytes + 4
		}
	}
	if t.multi == nil {
		if len(shared) == 1 {
			n = 0 // the terms without a fast key: few
		}
		t.multi = make(map[string][]int32, n)
	}
	k := multiKey(b, shared)
	t.multi[k] = append(t.multi[k], int32(i))
	return mapEntryBytes + len(k) + 4
}

// candidates returns the rows of t whose keys at shared are a's: those
// that may agree with a (agree confirms).
func (t *rowTable) candidates(a row, shared []int) []int32 {
	var cands []int32
	if len(shared) == 1 && t.one != nil {
		if k, ok := probeKey(a[shared[0]]); ok {
			cands = t.one[k]
		}
	}
	if t.multi != nil {
		cands = append(cands[:len(cands):len(cands)], t.multi[multiKey(a, shared)]...)
	}
	return cands
}

// agree reports whether a and b hold the same terms (sameTerm) at shared.
func agree(a, b row, shared []int) bool {
	for _, s := range shared {
		if !sameTerm(a[s], b[s]) {
			return false
		}
	}
	return true
}

// table returns g's table for the shared slots, building and charging it
// the first time; nil when it does not fit the memory budget.
func (ex *exec) table(g *rowGroup, shared []int, charged *int) *rowTable {
	if g.lastTable != nil && slices.Equal(g.lastShared, shared) {
		return g.lastTable
	}
	t := ex.buildTable(g, shared, charged)
	if t != nil {
		g.lastShared, g.lastTable = append(g.lastShared[:0], shared...), t
	}
	return t
}

func (ex *exec) buildTable(g *rowGroup, shared []int, charged *int) *rowTable {
	var sig strings.Builder
	for _, s := range shared {
		sig.WriteString(itoa(s))
	}
	if t, ok := g.tables[sig.String()]; ok {
		return t
	}
	t := &rowTable{}
	cost := 0
	// Shared variables are never value-read (valueVars: bound by several
	// BGPs), so their bindings are decoded terms; an idTerm would be
	// decoded first. Shared id variables (shared.go) are ids on both
	// sides and stay so.
	for _, b := range g.rows {
		for _, s := range shared {
			if ex.sharedIDs != nil && ex.sharedIDs[s] {
				continue
			}
			if v, ok := b[s].(idTerm); ok {
				d, err := ex.decodeID(v.id)
				if err != nil {
					return nil
				}
				b[s] = d
			}
		}
	}
	for i, b := range g.rows {
		cost += t.add(b, shared, i, len(g.rows))
	}
	if !ex.fits(cost) {
		return nil
	}
	_ = ex.alloc(cost)
	*charged += cost
	g.tables[sig.String()] = t
	return t
}

// probe calls fn for each indexed solution compatible with a (agreeing
// on every variable both bind). handled is false when a table did not fit
// the memory budget (nothing was reported then).
func (ex *exec) probe(ix *rowIndex, a row, charged *int, fn func(b row) error) (handled bool, err error) {
	// Two passes over the groups, both finding each group's shared slots
	// the same way: the first checks that every table exists (or is
	// built), the second reports; no allocation per probe.
	var buf [8]int
	sharedOf := func(g *rowGroup) ([]int, bool) {
		shared := buf[:0]
		for _, s := range g.slots {
			if a[s] != nil {
				shared = append(shared, s)
				if _, ok := a[s].(idTerm); ok && (ex.sharedIDs == nil || !ex.sharedIDs[s]) {
					return nil, false // see table
				}
			}
		}
		return shared, true
	}
	for _, g := range ix.groups {
		shared, ok := sharedOf(g)
		if !ok {
			return false, nil
		}
		if len(shared) > 0 && ex.table(g, shared, charged) == nil {
			return false, nil
		}
	}
	for _, g := range ix.groups {
		shared, _ := sharedOf(g)
		if len(shared) == 0 {
			for _, b := range g.rows {
				if err := fn(b); err != nil {
					return true, err
				}
			}
			continue
		}
		t := ex.table(g, shared, charged)
		for _, i := range t.candidates(a, shared) {
			if b := g.rows[i]; agree(a, b, shared) {
				if err := fn(b); err != nil {
					return true, err
				}
			}
		}
	}
	return true, nil
}

// hashState is the choice between substitution and a hash table for one
// right side (P of an EXISTS, OPTIONAL or join) in one active graph.
type hashState struct {
	lookups int
	cost    float64 // P's estimated cost alone, in scanned triples
	off     bool    // always substitute
	ix      *rowIndex
	charged int
}

// hashedRight returns the index of n's solutions when its solutions
// compatible with an outer solution should be found by a probe (see
// above), nil when n should be evaluated with the solution substituted.
// Each call counts as one outer solution.
func (ex *exec) hashedRight(n node, g gctx) *rowIndex {
	if g.gvar >= 0 || ex.noHashedRight {
		return nil
	}
	k := memoKey{n: n, label: g.label, named: g.named}
	st := ex.hashed[k]
	if st == nil {
		st = &hashState{}
		ex.hashed[k] = st
		if !ex.substInvariant(n) {
			st.off = true
		} else if st.cost = ex.aloneCost(n); st.cost > hashMaxTriples {
			st.off = true
		}
	}
	if st.off {
		return nil
	}
	if st.ix != nil {
		return st.ix
	}
	st.lookups++
	if float64(st.lookups)*ex.substCost()*float64(patternCount(n)) < st.cost {
		return nil
	}
	// P alone, within the memory budget (or not at all).
	var rows []row
	charged := 0
	full := false
	// P alone is P alone, also inside an enclosing EXISTS (its table
	// serves every later solution).
	saved := ex.subst
	ex.subst = nil
	defer func() { ex.subst = saved }()
	// P alone should cost about st.cost: past aloneRowsMax(st.cost)
	// solutions the estimate was wrong (patterns joined by nothing the
	// statistics see, fan-outs) and the lookups go on instead, so a
	// misjudged P costs a bounded multiple of what the lookups paid.
	maxRows := aloneRowsMax(st.cost)
	err := ex.eval(n, g, make(row, ex.nvars), func(r row) error {
		c := rowBytes(r)
		ex.aloneRows++
		if !ex.fits(c) || len(rows) >= maxRows {
			full = true
			return errStop
		}
		_ = ex.alloc(c)
		charged += c
		rows = append(rows, r.clone())
		return ex.tick()
	})
	if full || err != nil {
		// An error here (a timeout) comes back from the substituted
		// evaluation too.
		ex.free(charged)
		st.off = true
		return nil
	}
	st.charged = charged
	st.ix = newRowIndex(rows)
	return st.ix
}

// substInvariant reports whether evaluating n with an outer solution
// substituted gives exactly n's solutions alone that are compatible with
// it (see above).
func (ex *exec) substInvariant(n node) bool {
	switch x := n.(type) {
	case *nBGP:
		return len(x.pats) > 0 && !hasPaths(x) && ex.splitProcs(x) == nil
	case *nJoin:
		return ex.substInvariant(x.l) && ex.substInvariant(x.r)
	case *nUnion:
		// Each branch is evaluated with the solution substituted.
		return ex.substInvariant(x.l) && ex.substInvariant(x.r)
	case *nExtend:
		// BIND(e AS ?v) over P: the same as P's solutions extended when e
		// reads only variables P binds in every solution (a bound ?v is
		// then compared, as a probe compares it).
		if !ex.substInvariant(x.p) || hasExists(x.e) {
			return false
		}
		cert := ex.certainOf(x.p)
		vs := varSet{}
		exprVars(x.e, vs)
		for v := range vs {
			if !cert[v] {
				return false
			}
		}
		return true
	case *nFilter:
		b, ok := x.p.(*nBGP)
		if !ok || !ex.substInvariant(b) {
			return false
		}
		cert := ex.certainOf(b)
		for _, c := range x.conds {
			if !readsOnly(c, cert) {
				return false
			}
		}
		return true
	}
	return false
}

// patternCount is the number of triple patterns of n (a substituted
// evaluation looks each up at least once).
func patternCount(n node) int {
	switch x := n.(type) {
	case *nBGP:
		return len(x.pats)
	case *nJoin:
		return patternCount(x.l) + patternCount(x.r)
	case *nUnion:
		return patternCount(x.l) + patternCount(x.r)
	case *nFilter:
		return patternCount(x.p)
	case *nExtend:
		return patternCount(x.p)
	}
	return 1
}

// aloneRowsMax is the most solutions of a right side evaluated alone
// whose cost was estimated at cost scanned triples that hashedRight
// materializes.
func aloneRowsMax(cost float64) int {
	return int(min(4*cost+4096, hashMaxTriples))
}

// aloneCost estimates the triples read to evaluate n alone, and the
// solutions it has: the sum of its patterns' counts when they are joined
// by shared variables, their product when they are not (a BGP whose
// patterns fall into unconnected parts, or a join of two sides that share
// no variable, is a cross product: OPTIONAL { ?b p ?x . ?a q ?k } alone
// is every ?b with every ?a, while with ?a and ?b bound it is two
// lookups).
func (ex *exec) aloneCost(n node) float64 {
	switch x := n.(type) {
	case *nBGP:
		return ex.bgpAloneCost(x)
	case *nJoin:
		l, r := ex.aloneCost(x.l), ex.aloneCost(x.r)
		lv, rv := varSet{}, varSet{}
		allVars(x.l, lv)
		allVars(x.r, rv)
		for v := range lv {
			if rv[v] {
				return l + r
			}
		}
		return crossCost(l, r)
	case *nUnion:
		return ex.aloneCost(x.l) + ex.aloneCost(x.r)
	case *nFilter:
		return ex.aloneCost(x.p)
	case *nExtend:
		return ex.aloneCost(x.p)
	}
	return hashMaxTriples + 1
}

// existsHashed evaluates EXISTS { p } for r by a probe when hashedRight
// chooses it; handled is false otherwise.
func (ex *exec) existsHashed(p node, g gctx, r row) (found, handled bool, err error) {
	if found, handled, err = ex.existsIDs(p, g, r); handled || err != nil {
		return found, handled, err
	}
	ix := ex.hashedRight(p, g)
	if ix == nil {
		return false, false, nil
	}
	st := ex.hashed[memoKey{n: p, label: g.label, named: g.named}]
	handled, err = ex.probe(ix, r, &st.charged, func(row) error {
		found = true
		return errStop
	})
	if err == errStop {
		err = nil
	}
	return found, handled, err
}

// joinHashed calls emit with each solution of n compatible with in,
// merged with in, found by a probe when hashedRight chooses it; handled
// is false otherwise.
func (ex *exec) joinHashed(n node, g gctx, in row, emit emitFn) (handled bool, err error) {
	ix := ex.hashedRight(n, g)
	if ix == nil {
		return false, nil
	}
	st := ex.hashed[memoKey{n: n, label: g.label, named: g.named}]
	out := make(row, len(in))
	return ex.probe(ix, in, &st.charged, func(b row) error {
		copy(out, in)
		for i, v := range b {
			if v != nil {
				out[i] = v
			}
		}
		return emit(out)
	})
}

// joinDetachedMin is the fewest solutions of a pattern evaluated apart
// (evalDetached) that are indexed for the joins with outer solutions;
// fewer are compared one by one.
const joinDetachedMin = 32

// joinDetached joins rows, the solutions of n evaluated apart in g, with
// in: by a probe of their index (built once per execution) when they are
// many, else by comparing each.
func (ex *exec) joinDetached(n node, g gctx, rows []row, in row, emit emitFn) error {
	if len(rows) < joinDetachedMin || ex.noHashedRight {
		return ex.joinFull(rows, in, emit)
	}
	k := memoKey{n: n, label: g.label, named: g.named}
	st := ex.detIdx[k]
	if st == nil {
		st = &hashState{ix: newRowIndex(rows)}
		ex.detIdx[k] = st
	}
	out := make(row, len(in))
	handled, err := ex.probe(st.ix, in, &st.charged, func(b row) error {
		copy(out, in)
		for i, v := range b {
			if v != nil {
				out[i] = v
			}
		}
		return emit(out)
	})
	if !handled {
		return ex.joinFull(rows, in, emit)
	}
	return err
}

// crossCost is the estimated size of the cross product of two parts of
// estimated sizes a and b (at least their sum), capped past
// hashMaxTriples.
func crossCost(a, b float64) float64 {
	return min(max(a*b, a+b), 2*hashMaxTriples)
}

// bgpAloneCost is aloneCost of a BGP: its patterns grouped into the
// connected parts of their variables, the sum of the counts within a part,
// the product over parts.
func (ex *exec) bgpAloneCost(b *nBGP) float64 {
	n := len(b.pats)
	part := make([]int, n) // union-find over the patterns
	for i := range part {
		part[i] = i
	}
	var find func(i int) int
	find = func(i int) int {
		for part[i] != i {
			part[i] = part[part[i]]
			i = part[i]
		}
		return i
	}
	first := map[int]int{} // variable slot -> first pattern mentioning it
	for i := range b.pats {
		tp := &b.pats[i]
		for _, t := range [3]term{tp.s, tp.p, tp.o} {
			if !t.isVar() {
				continue
			}
			if j, ok := first[t.slot]; ok {
				part[find(i)] = find(j)
			} else {
				first[t.slot] = i
			}
		}
	}
	sums := map[int]float64{}
	for i := range b.pats {
		sums[find(i)] += ex.estimate(ex.ctx, &b.pats[i])
	}
	c := -1.0
	for _, s := range sums {
		if c < 0 {
			c = s
		} else {
			c = crossCost(c, s)
		}
	}
	return max(c, 0)
}

// EXISTS by ids. When the only variable of P an outer solution binds is a
// shared id variable (shared.go) bound to an id, the common "this
// molecule has / has no validation message", EXISTS { P } is "P alone
// binds it to that id" (P substitution-invariant, as for the hashed
// joins): P alone is streamed once into the set of the ids it binds the
// variable to (not materialized as rows, nor indexed by signature, nor
// decoded), and each outer solution is one set lookup. A solution of P
// that leaves the variable unbound is compatible with every outer
// solution (any). The choice between lookups and the set is hashedRight's
// ski-rental rule; a solution of P binding the variable to a term
// without an id, or a set past the memory budget, turns this off and the
// general paths go on.

// idSetState is the set of one EXISTS pattern's ids for one variable in
// one active graph.
type idSetState struct {
	lookups int
	cost    float64
	off     bool
	built   bool
	any     bool
	ids     map[uint64]struct{}
}

type idSetKey struct {
	memoKey
	slot int
}

// existsIDs evaluates EXISTS { p } for r by ids when that applies (see
// above); handled is false otherwise.
func (ex *exec) existsIDs(p node, g gctx, r row) (found, handled bool, err error) {
	if ex.sharedIDs == nil || g.gvar >= 0 || ex.noHashedRight {
		return false, false, nil
	}
	vars := ex.scopeOf(p)
	v := -1
	for s := range vars {
		if s < len(r) && r[s] != nil {
			if v >= 0 {
				return false, false, nil
			}
			v = s
		}
	}
	if v < 0 || !ex.sharedIDs[v] {
		return false, false, nil
	}
	id, ok := r[v].(idTerm)
	if !ok {
		return false, false, nil
	}
	if found, handled, err := ex.existsCursor(p, g, v, id.id); handled || err != nil {
		return found, handled, err
	}
	k := idSetKey{memoKey{n: p, label: g.label, named: g.named}, v}
	st := ex.idSets[k]
	if st == nil {
		st = &idSetState{}
		ex.idSets[k] = st
		if !ex.substInvariant(p) {
			st.off = true
		} else if st.cost = ex.aloneCost(p); st.cost > hashMaxTriples {
			st.off = true
		}
	}
	if st.off {
		return false, false, nil
	}
	if !st.built {
		st.lookups++
		if float64(st.lookups)*hashSeekCost*float64(patternCount(p)) < st.cost {
			return false, false, nil
		}
		if err := ex.buildIDSet(p, g, v, st); err != nil {
			return false, true, err
		}
		if st.off {
			return false, false, nil
		}
	}
	if st.any {
		return true, true, nil
	}
	_, found = st.ids[id.id]
	return found, true, nil
}

// buildIDSet streams p's solutions alone into st's set of the ids they
// bind slot v to; st.off when one binds it to a term without an id or the
// set outgrows the memory budget (what it charged is then returned).
func (ex *exec) buildIDSet(p node, g gctx, v int, st *idSetState) error {
	saved := ex.subst
	ex.subst = nil
	defer func() { ex.subst = saved }()
	ids := map[uint64]struct{}{}
	charged := 0
	stop := errors.New("stop")
	err := ex.eval(p, g, make(row, ex.nvars), func(b row) error {
		if err := ex.tick(); err != nil {
			return err
		}
		switch t := b[v].(type) {
		case nil:
			st.any = true
			return errStop
		case idTerm:
			if _, ok := ids[t.id]; ok {
				return nil
			}
			if !ex.fits(mapEntryBytes + 8) {
				return stop
			}
			ids[t.id] = struct{}{}
			charged += mapEntryBytes + 8
			return ex.alloc(mapEntryBytes + 8)
		}
		return stop
	})
	switch {
	case err == errStop:
	case err == stop:
		ex.free(charged)
		st.off = true
		return nil
	case err != nil:
		ex.free(charged)
		return err
	}
	st.ids, st.built = ids, true
	return nil
}

// scopeOf is inScopeVars of n, cached per execution.
func (ex *exec) scopeOf(n node) varSet {
	if s, ok := ex.scopes[n]; ok {
		return s
	}
	s := varSet{}
	inScopeVars(n, s)
	ex.scopes[n] = s
	return s
}

// existsCursor answers EXISTS { P } for P one triple pattern with a
// constant predicate whose subject (or object) is the shared id variable
// v, bound to id, and whose other end is a constant or a variable used
// nowhere else in P ("this molecule has a validation message"): a seek in
// the predicate's column (by subject or by object) through a cursor kept
// for the whole execution; the outer rows come in ascending id order from
// a column scan, so the cursor walks the column forward, a merge semi- or
// anti-join that neither evaluates P per row nor builds a set. handled is
// false for other patterns, graphs or views.
func (ex *exec) existsCursor(p node, g gctx, v int, id uint64) (found, handled bool, err error) {
	b, ok := p.(*nBGP)
	if !ok || len(b.pats) != 1 || !ex.cols || g.named || g.gvar >= 0 || ex.defaults != nil {
		return false, false, nil
	}
	tp := &b.pats[0]
	if tp.path != nil || tp.p.isVar() {
		return false, false, nil
	}
	bySubject := tp.s.isVar() && tp.s.slot == v
	if !bySubject && !(tp.o.isVar() && tp.o.slot == v) {
		return false, false, nil
	}
	other := tp.o
	if !bySubject {
		other = tp.s
	}
	if other.isVar() && other.slot == v {
		return false, false, nil // ?v p ?v
	}
	st := ex.cursors[b]
	if st == nil {
		st = &existsCur{}
		ex.cursors[b] = st
		cs, ok := ex.idm.(cursorSource)
		pred, isIRI := tp.p.v.(quad.IRI)
		if !ok || !isIRI {
			st.off = true
		} else if pid, err := ex.idm.TermID(pred); err != nil {
			return false, true, ex.sourceErr(err, nil)
		} else if pid == 0 {
			st.none = true // the predicate is not stored: nothing matches
		} else if st.c = cs.ColumnCursor(pid, bySubject); st.c == nil {
			st.off = true
		}
		if !other.isVar() && !st.off && !st.none {
			oid, err := ex.idm.TermID(other.v)
			if err != nil {
				return false, true, ex.sourceErr(err, nil)
			}
			if oid == 0 || oid >= 1<<32 {
				st.none = true
			}
			st.other, st.constOther = uint32(oid), true
		}
	}
	switch {
	case st.off:
		return false, false, nil
	case st.none:
		return false, true, nil
	}
	if err := ex.tick(); err != nil {
		return false, true, err
	}
	ids := st.c.Seek(id)
	if !st.constOther {
		return len(ids) > 0, true, nil
	}
	_, found = slices.BinarySearch(ids, st.other)
	return found, true, nil
}

// existsCur is existsCursor's state for one pattern: its column cursor
// (off: none; none: nothing can match) and a constant other end.
type existsCur struct {
	c          *graph.ColumnCursor
	off, none  bool
	other      uint32
	constOther bool
}

// substCost is what one substituted evaluation of a right side costs per
// pattern, in scanned triples: hashSeekCost, or a quarter of it when the
// patterns read the columns through cursors kept across evaluations
// (bgpCall): building the table decodes every solution of the right side
// alone, while most outer solutions need a few of them (bench 52, an
// OPTIONAL message per large molecule: 29.6 -> 8.5 ms; 42: 18.2 -> 11.3;
// no bench query slower).
func (ex *exec) substCost() float64 {
	if ex.cols && !ex.noCursor {
		return hashSeekCost / 4
	}
	return hashSeekCost
}
