package sparql

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// Solution is one SELECT result row: values in the order of Result.Vars,
// nil for an unbound variable.
type Solution []quad.Value

// Result is the outcome of Exec. For SELECT, read the solutions once with
// Solutions (or All); for CONSTRUCT and DESCRIBE read the triples once with
// Triples (or Quads). ASK results are in Boolean. The evaluation runs while
// the results are read; Options.Timeout covers the reading.
type Result struct {
	// Form is the query form.
	Form Form
	// Vars are the result variable names of a SELECT query.
	Vars []string
	// Boolean is the answer of an ASK query.
	Boolean bool

	ex       *exec
	q        *Query
	cancel   context.CancelFunc
	maxRows  int
	consumed bool
}

// Exec runs q on src. The query is evaluated lazily: ASK is answered before
// Exec returns, SELECT solutions and CONSTRUCT/DESCRIBE triples are computed
// while Solutions/Triples run. Call Close when the result is not read to the
// end (it releases the timeout's timer).
func Exec(ctx context.Context, src Source, q *Query, opts Options) (*Result, error) {
	var cancel context.CancelFunc = func() {}
	if opts.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
	}
	r := &Result{Form: q.form, ex: newExec(ctx, src, q, opts), q: q, cancel: cancel, maxRows: opts.MaxRows}
	if q.form == Select {
		r.Vars = q.Vars()
	}
	if q.form == Ask {
		defer r.Close()
		r.consumed = true
		done, err := r.ex.open()
		if err != nil {
			return nil, err
		}
		err = r.ex.evalSelect(q.sel, defaultGraph, func(row) error {
			r.Boolean = true
			return errStop
		})
		done()
		if err != nil && err != errStop {
			return nil, err
		}
	}
	return r, nil
}

// Run parses and executes a query in one step; base resolves relative IRIs.
func Run(ctx context.Context, src Source, query, base string, opts Options) (*Result, error) {
	q, err := Parse(query, base)
	if err != nil {
		return nil, err
	}
	return Exec(ctx, src, q, opts)
}

// Close releases the resources of a result that is not read to the end.
func (r *Result) Close() {
	if r.cancel != nil {
		r.cancel()
	}
}

func (r *Result) start() error {
	if r.consumed {
		return fmt.Errorf("sparql: read results: %w: results already read", ErrUnsupported)
	}
	r.consumed = true
	return nil
}

// Solutions streams the solutions of a SELECT query to fn; fn must not keep
// the Solution after it returns (copy it). An error from fn stops the
// evaluation and is returned.
func (r *Result) Solutions(fn func(Solution) error) error {
	if r.Form != Select {
		return fmt.Errorf("sparql: read solutions: %w: %s query", ErrUnsupported, r.Form)
	}
	if err := r.start(); err != nil {
		return err
	}
	defer r.Close()
	done, err := r.ex.open()
	if err != nil {
		return err
	}
	defer done()
	sol := make(Solution, len(r.q.sel.proj))
	n := 0
	var userErr error
	err = r.ex.evalSelect(r.q.sel, defaultGraph, func(rw row) error {
		if r.maxRows > 0 && n >= r.maxRows {
			return fmt.Errorf("sparql: evaluate: %w (%d)", ErrRowLimit, r.maxRows)
		}
		n++
		for i, p := range r.q.sel.proj {
			v, err := r.ex.decoded(rw[p.slot])
			if err != nil {
				return err
			}
			sol[i] = v
		}
		if err := fn(sol); err != nil {
			userErr = err
			return err
		}
		return nil
	})
	if userErr != nil {
		return userErr
	}
	return finishErr(err)
}

func finishErr(err error) error {
	if err == nil || err == errStop {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("sparql: evaluate: %w", ErrTimeout)
	}
	return err
}

// All reads every solution into memory.
func (r *Result) All() ([]Solution, error) {
	var out []Solution
	err := r.Solutions(func(s Solution) error {
		out = append(out, append(Solution(nil), s...))
		return nil
	})
	return out, err
}

// Triples streams the triples of a CONSTRUCT or DESCRIBE result (each once;
// Label is nil).
func (r *Result) Triples(fn func(quad.Quad) error) error {
	if r.Form != Construct && r.Form != Describe {
		return fmt.Errorf("sparql: read triples: %w: %s query", ErrUnsupported, r.Form)
	}
	if err := r.start(); err != nil {
		return err
	}
	defer r.Close()
	done, err := r.ex.open()
	if err != nil {
		return err
	}
	defer done()
	seen := map[quad.Quad]bool{}
	n := 0
	var userErr error
	out := func(q quad.Quad) error {
		if seen[q] {
			return nil
		}
		if err := r.ex.alloc(mapEntryBytes + termBytes(q.Subject) + termBytes(q.Predicate) + termBytes(q.Object)); err != nil {
			return err
		}
		seen[q] = true
		if r.maxRows > 0 && n >= r.maxRows {
			return fmt.Errorf("sparql: evaluate: %w (%d)", ErrRowLimit, r.maxRows)
		}
		n++
		if err := fn(q); err != nil {
			userErr = err
			return err
		}
		return nil
	}
	if r.Form == Construct {
		err = r.ex.construct(out)
	} else {
		err = r.ex.describe(out)
	}
	if userErr != nil {
		return userErr
	}
	return finishErr(err)
}

// Quads reads every triple of a CONSTRUCT or DESCRIBE result into memory.
func (r *Result) Quads() ([]quad.Quad, error) {
	var out []quad.Quad
	err := r.Triples(func(q quad.Quad) error {
		out = append(out, q)
		return nil
	})
	return out, err
}

// ---- SELECT evaluation ----

// evalSelect evaluates a (sub-)select: pattern, grouping, HAVING, select
// expressions, ORDER BY, projection, DISTINCT/REDUCED, OFFSET/LIMIT. The
// emitted rows have only the projected slots bound.
func (ex *exec) evalSelect(sq *selectQuery, g gctx, emit emitFn) error {
	// Final stage: projection, distinct, slice.
	stop := &stopSignal{}
	final, release := ex.sliceStage(sq, emit, stop)
	defer release()
	final = ex.projectStage(sq, final)
	err := ex.evalSelectStages(sq, g, final)
	if err == error(stop) {
		return nil
	}
	return err
}

// stopSignal ends one select's evaluation when its LIMIT is reached; each
// select has its own, so a sub-select's LIMIT never stops the outer query.
type stopSignal struct{}

func (*stopSignal) Error() string { return "sparql: limit reached" }

func (ex *exec) evalSelectStages(sq *selectQuery, g gctx, final emitFn) error {
	var ordered emitFn = final
	var sorted []*sortedRow
	var flush func() error // emits the sorted rows
	charged := 0           // bytes of buffered rows and keys, returned when they are dropped
	defer func() { ex.free(charged) }()
	if len(sq.orderBy) > 0 {
		// k >= 0: keep only the first k solutions in order (top-k).
		k := int64(-1)
		if sq.limit >= 0 && !sq.distinct && !sq.reduced {
			k = sq.limit + max(sq.offset, 0)
		}
		top := &topK{ex: ex, items: sq.orderBy}
		seq := 0
		ordered = func(r row) error {
			keys := make([]sortKey, len(sq.orderBy))
			kb := 0
			for j, o := range sq.orderBy {
				var v quad.Value
				var err error
				if x, isVar := o.e.(*eVar); isVar && ex.vals != nil {
					// A variable bound to an id keeps it (sortKey).
					if v = r[x.slot]; v == nil {
						err = errEval
					}
				} else {
					v, err = ex.evalExpr(o.e, g, r)
				}
				if err != nil && err != errEval {
					return err
				}
				keys[j] = ex.sortKey(v)
				if k < 0 && !keys[j].isNum {
					// A full sort compares every key: terms bound to
					// ids are decoded now (and charged), but folded
					// numbers; top-k decodes only the keys a comparison
					// needs.
					ex.resolveKey(&keys[j])
					kb += keys[j].extra
				}
				if _, isVar := o.e.(*eVar); !isVar && v != nil {
					// A computed key is a new value (a variable's is in the row).
					kb += lexicalLen(v)
				}
			}
			sr := &sortedRow{keys: keys, seq: seq}
			seq++
			if k == 0 {
				return ex.tick()
			}
			if k > 0 && int64(top.Len()) == k {
				worst := top.rows[0]
				if !ex.orderLess(sq.orderBy, sr, worst) {
					if err := ex.checkDecoded(); err != nil {
						return err
					}
					return ex.tick()
				}
				heap.Pop(top)
				charged -= worst.bytes
				ex.free(worst.bytes)
			}
			for j := range keys {
				if k >= 0 {
					kb += keys[j].extra // decoded by the comparisons so far
				}
			}
			sr.bytes = rowBytes(r) + 24 + valueBytes*len(sq.orderBy) + kb
			charged += sr.bytes
			if err := ex.alloc(sr.bytes); err != nil {
				return err
			}
			sr.r = r.clone()
			if k > 0 {
				heap.Push(top, sr)
				if err := ex.checkDecoded(); err != nil {
					return err
				}
			} else {
				sorted = append(sorted, sr)
			}
			return ex.tick()
		}
		flush = func() error {
			if k > 0 {
				sorted = top.rows
			}
			sort.Slice(sorted, func(a, b int) bool { return ex.orderLess(sq.orderBy, sorted[a], sorted[b]) })
			if err := ex.checkDecoded(); err != nil {
				return err
			}
			for _, sr := range sorted {
				if err := final(sr.r); err != nil {
					return err
				}
			}
			return nil
		}
	}
	extend := ordered
	// rowSolution numbers the row whose SELECT expressions are evaluated
	// (see exec.solution).
	rowSolution := 0
	hasExprs := false
	for i := len(sq.proj) - 1; i >= 0; i-- {
		p := sq.proj[i]
		if p.e == nil {
			continue
		}
		hasExprs = true
		next := extend
		extend = func(r row) error {
			saved := ex.solution
			ex.solution = rowSolution
			v, err := ex.evalExpr(p.e, g, r)
			ex.solution = saved
			if err != nil && err != errEval {
				return err
			}
			old := r[p.slot]
			if err == nil {
				r[p.slot] = v
			}
			err = next(r)
			r[p.slot] = old
			return err
		}
	}
	if hasExprs {
		first := extend
		extend = func(r row) error {
			saved := rowSolution
			ex.bnodeSeq++
			rowSolution = ex.bnodeSeq
			err := first(r)
			rowSolution = saved
			return err
		}
	}
	source := func(out emitFn) error {
		in := make(row, ex.nvars)
		if sq.values != nil {
			return ex.eval(sq.where, g, in, func(r row) error {
				return ex.joinRows(sq.values.slots, sq.values.rows, r, out)
			})
		}
		return ex.eval(sq.where, g, in, out)
	}
	var err error
	if sq.grouped {
		err = ex.group(sq, g, source, extend)
	} else {
		err = source(extend)
	}
	if err != nil {
		return err
	}
	if flush != nil {
		return flush()
	}
	return nil
}

func (ex *exec) projectStage(sq *selectQuery, next emitFn) emitFn {
	out := make(row, ex.nvars)
	return func(r row) error {
		for i := range out {
			out[i] = nil
		}
		for _, p := range sq.proj {
			out[p.slot] = r[p.slot]
		}
		return next(out)
	}
}

// sliceStage is DISTINCT/REDUCED, OFFSET and LIMIT; release returns the
// memory DISTINCT charged once the select is done.
func (ex *exec) sliceStage(sq *selectQuery, next emitFn, stop error) (stage emitFn, release func()) {
	var seen map[string]bool
	var last string
	if sq.distinct {
		seen = map[string]bool{}
	}
	charged := 0
	offset, limit := sq.offset, sq.limit
	var skipped, emitted int64
	return func(r row) error {
		if sq.distinct || sq.reduced {
			k := rowKey(r, sq.proj)
			if sq.distinct {
				if seen[k] {
					return nil
				}
				charged += mapEntryBytes + len(k)
				if err := ex.alloc(mapEntryBytes + len(k)); err != nil {
					return err
				}
				seen[k] = true
			} else {
				if k == last && emitted+skipped > 0 {
					return nil
				}
				last = k
			}
		}
		if offset > 0 && skipped < offset {
			skipped++
			return nil
		}
		if limit >= 0 && emitted >= limit {
			return stop
		}
		emitted++
		if err := next(r); err != nil {
			return err
		}
		if limit >= 0 && emitted >= limit {
			return stop
		}
		return nil
	}, func() { ex.free(charged) }
}

func rowKey(r row, proj []projItem) string {
	var b strings.Builder
	for _, p := range proj {
		if v := r[p.slot]; v != nil {
			b.WriteString(termKey(v))
		}
		b.WriteByte(0)
	}
	return b.String()
}

// termKey is an injective string form of a term.
func termKey(v quad.Value) string {
	if ts, ok := v.(quad.TypedString); ok && ts.Type == xsdString {
		v = quad.String(ts.Value)
	}
	if l, ok := v.(quad.LangString); ok {
		v = quad.LangString{Value: l.Value, Lang: strings.ToLower(l.Lang)}
	}
	return v.String()
}

// ---- grouping and aggregates ----

// fastGroupKey returns a comparable form of v that is equal for two terms
// exactly when their termKeys are, for the term types where that is cheap
// to see (ok false otherwise).
func fastGroupKey(v quad.Value) (quad.Value, bool) {
	switch x := v.(type) {
	case quad.IRI, quad.BNode, quad.String:
		return v, true
	case quad.TypedString:
		if x.Type == xsdString {
			return quad.String(x.Value), true
		}
		return v, true
	case quad.LangString:
		return quad.LangString{Value: x.Value, Lang: strings.ToLower(x.Lang)}, true
	case quad.Int:
		return fastGroupKey(x.TypedString()) // String() is TypedString().String()
	case quad.Float:
		return fastGroupKey(x.TypedString())
	case quad.Time:
		return fastGroupKey(x.TypedString())
	}
	return nil, false
}

type aggState struct {
	count    int64
	sum      num
	hasSum   bool
	err      bool
	best     quad.Value
	bestKey  sortKey // best, parsed
	sample   quad.Value
	parts    []string
	size     int // GROUP_CONCAT: bytes of parts and separators
	charged  int // bytes charged to the memory budget (distinct, parts)
	lang     string
	langMix  bool
	distinct map[string]bool
	// ids are the ids COUNT(DISTINCT ?v) saw (countDistinctID): the
	// first uniq sorted and distinct, the rest as they came.
	ids  []uint64
	uniq int
	// byID, byKey: COUNT(DISTINCT) of a subject-only variable counts ids
	// (set at its first value, bound to its id) or term keys.
	byID, byKey bool
}

type groupState struct {
	first row // a representative row (group key values)
	aggs  []aggState
}

func (ex *exec) group(sq *selectQuery, g gctx, source func(emitFn) error, next emitFn) error {
	// Groups are found by their key terms (normalised as termKey does)
	// when there are few and each has a fast form, else by termKey strings.
	groups := map[string]*groupState{}
	fast := map[[4]quad.Value]*groupState{}
	var order []*groupState
	keyVals := make([]quad.Value, len(sq.groupBy))
	var kb strings.Builder
	charged := 0 // the groups' bytes, returned when group is done
	defer func() {
		for _, gs := range order {
			for i := range gs.aggs {
				charged += gs.aggs[i].charged
			}
		}
		ex.free(charged)
	}()
	// memo holds the decoded terms of the ids plain keys were bound to;
	// byID, with one plain key, the group of each id seen (distinct ids
	// may share a group: termKey folds language tags' case).
	var memo map[uint64]quad.Value
	var byID map[uint64]*groupState
	oneKey := -1
	if len(sq.groupBy) == 1 {
		if x, isVar := sq.groupBy[0].e.(*eVar); isVar {
			oneKey = x.slot
		}
	}
	err := source(func(r row) error {
		var gs *groupState
		var keyID uint64
		if oneKey >= 0 {
			if t, ok := r[oneKey].(idTerm); ok {
				keyID = t.id
				gs = byID[keyID]
			}
		}
		if gs == nil {
			var err error
			if gs, err = ex.findGroup(sq, g, r, fast, groups, &order, keyVals, &kb, &memo, &charged); err != nil {
				return err
			}
			if keyID != 0 {
				if byID == nil {
					byID = map[uint64]*groupState{}
				}
				charged += mapEntryBytes
				if err := ex.alloc(mapEntryBytes); err != nil {
					return err
				}
				byID[keyID] = gs
			}
		}
		for i, a := range sq.aggs {
			if err := ex.accumulate(a, &gs.aggs[i], g, r); err != nil {
				return err
			}
		}
		return ex.tick()
	})
	if err != nil {
		return err
	}
	if len(order) == 0 && len(sq.groupBy) == 0 {
		order = append(order, &groupState{first: make(row, ex.nvars), aggs: make([]aggState, len(sq.aggs))})
	}
	for _, gs := range order {
		r := gs.first
		for i, a := range sq.aggs {
			v, err := ex.decoded(finishAgg(a, &gs.aggs[i]))
			if err != nil {
				return err
			}
			r[a.slot] = v
		}
		ok := true
		for _, h := range sq.having {
			pass, err := ex.test(h, g, r)
			if err != nil {
				return err
			}
			if !pass {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if err := next(r); err != nil {
			return err
		}
	}
	return nil
}

// findGroup returns the group of solution r, made (and charged) when it
// is new.
func (ex *exec) findGroup(sq *selectQuery, g gctx, r row, fast map[[4]quad.Value]*groupState, groups map[string]*groupState, order *[]*groupState, keyVals []quad.Value, kb *strings.Builder, memo *map[uint64]quad.Value, charged *int) (*groupState, error) {
	var fk [4]quad.Value
	isFast := len(sq.groupBy) <= len(fk)
	for i, gi := range sq.groupBy {
		if x, isVar := gi.e.(*eVar); isVar {
			if t, ok := r[x.slot].(idTerm); ok {
				if *memo == nil {
					*memo = map[uint64]quad.Value{}
				}
				v, err := ex.groupTerm(*memo, t.id, charged)
				if err != nil {
					return nil, err
				}
				keyVals[i] = v
				if isFast {
					fk[i], isFast = fastGroupKey(v)
				}
				continue
			}
		}
		v, err := ex.evalExpr(gi.e, g, r)
		if err != nil && err != errEval {
			return nil, err
		}
		if err != nil {
			v = nil
		}
		keyVals[i] = v
		if isFast && v != nil {
			fk[i], isFast = fastGroupKey(v)
		}
	}
	var gs *groupState
	var k string
	if isFast {
		gs = fast[fk]
	} else {
		kb.Reset()
		for _, v := range keyVals {
			if v != nil {
				kb.WriteString(termKey(v))
			}
			kb.WriteByte(0)
		}
		k = kb.String()
		gs = groups[k]
	}
	if gs == nil {
		n := 24 + valueBytes*ex.nvars + 64*len(sq.aggs) + 2*mapEntryBytes + len(k)
		for _, v := range keyVals {
			if v != nil {
				n += lexicalLen(v)
			}
		}
		*charged += n
		if err := ex.alloc(n); err != nil {
			return nil, err
		}
		first := make(row, ex.nvars)
		for i, gi := range sq.groupBy {
			if gi.slot >= 0 {
				first[gi.slot] = keyVals[i]
			}
		}
		gs = &groupState{first: first, aggs: make([]aggState, len(sq.aggs))}
		if isFast {
			fast[fk] = gs
		} else {
			groups[k] = gs
		}
		*order = append(*order, gs)
	}
	return gs, nil
}

// countDistinctID counts id once in st (COUNT(DISTINCT ?v) of a shared id
// variable).
//
// The ids are appended to a list that is sorted and made distinct
// whenever it has doubled since the last time (and at the end, by
// distinctCount), which for a million ids is several times faster than a
// hash set (one random probe per id) and holds 8 bytes per id.
func (ex *exec) countDistinctID(st *aggState, id uint64) error {
	if len(st.ids) == cap(st.ids) {
		if st.uniq > 0 && len(st.ids) >= 2*st.uniq || len(st.ids) >= 1<<16 && st.uniq == 0 {
			dedupIDs(st)
		}
		if len(st.ids) == cap(st.ids) {
			grow := max(cap(st.ids), 64)
			if err := ex.alloc(8 * grow); err != nil {
				return err
			}
			st.charged += 8 * grow
			st.ids = append(make([]uint64, 0, cap(st.ids)+grow), st.ids...)
		}
	}
	st.ids = append(st.ids, id)
	return nil
}

// dedupIDs sorts st.ids and keeps each id once.
func dedupIDs(st *aggState) {
	slices.Sort(st.ids)
	st.ids = slices.Compact(st.ids)
	st.uniq = len(st.ids)
}

// distinctCount settles the count of a COUNT(DISTINCT ?v) counted by ids.
func distinctCount(st *aggState) {
	if st.ids != nil {
		dedupIDs(st)
		st.count = int64(st.uniq)
	}
}

func (ex *exec) accumulate(a *eAgg, st *aggState, g gctx, r row) error {
	if st.err {
		return nil
	}
	var v quad.Value
	if x, isVar := a.arg.(*eVar); isVar && a.name == "COUNT" && !a.distinct {
		// Counts bound values, which need not be decoded.
		if r[x.slot] != nil {
			st.count++
		}
		return nil
	}
	if x, isVar := a.arg.(*eVar); isVar && ex.vals != nil && !a.distinct {
		if t, ok := r[x.slot].(idTerm); ok {
			switch a.name {
			case "SUM", "AVG", "MIN", "MAX":
				if n, ok := ex.idNum(t.id); ok {
					return ex.accumulateNum(a, st, t, n)
				}
			}
		}
	}
	if x, isVar := a.arg.(*eVar); isVar && a.name == "COUNT" && a.distinct && ex.sharedIDs != nil && ex.sharedIDs[x.slot] {
		// A shared id variable's ids are as distinct as its terms
		// (shared.go): they are counted without decoding.
		if t, ok := r[x.slot].(idTerm); ok {
			return ex.countDistinctID(st, t.id)
		}
	}
	if x, isVar := a.arg.(*eVar); isVar && a.name == "COUNT" && a.distinct && ex.idm != nil && ex.subjOnly[x.slot] {
		// IRIs and blank nodes only: counted by id (unused.go) when the
		// first value is bound to its id; a term met after that is
		// looked up (rare: the same BGP binds all of them alike).
		switch t := r[x.slot].(type) {
		case nil:
			return nil
		case idTerm:
			if !st.byKey {
				st.byID = true
				return ex.countDistinctID(st, t.id)
			}
		default:
			if st.byID && t != quad.Value(unusedTerm) {
				if id, err := ex.idm.TermID(t); err == nil && id != 0 {
					return ex.countDistinctID(st, id)
				}
			}
		}
		st.byKey = true
	}
	if a.arg != nil {
		var err error
		v, err = ex.evalExpr(a.arg, g, r)
		if err != nil && err != errEval {
			return err
		}
		if err != nil || v == nil {
			if a.name != "COUNT" && a.name != "SAMPLE" {
				st.err = true
			}
			return nil
		}
	}
	if a.distinct {
		if st.distinct == nil {
			st.distinct = map[string]bool{}
		}
		var k string
		if a.arg == nil {
			k = rowKeyAll(r)
		} else {
			k = termKey(v)
		}
		if st.distinct[k] {
			return nil
		}
		st.charged += mapEntryBytes + len(k)
		if err := ex.alloc(mapEntryBytes + len(k)); err != nil {
			return err
		}
		st.distinct[k] = true
	}
	switch a.name {
	case "COUNT":
		st.count++
	case "SUM", "AVG":
		n, ok := ex.numOf(v)
		if !ok {
			st.err = true
			return nil
		}
		if !st.hasSum {
			st.sum, st.hasSum = n, true
		} else {
			s, err := arith("+", st.sum, n)
			if err != nil || ex.bigNum(s) {
				st.err = true
				return nil
			}
			st.sum = s
		}
		st.count++
	case "MIN", "MAX":
		// The best value's key is kept parsed (orderTerms parsed both
		// numbers at every comparison).
		k := sortKey{v: v}
		if orderRank(v) == 3 {
			k.n, k.isNum = ex.numOf(v)
		}
		ex.keepBest(a, st, k)
		if err := ex.checkDecoded(); err != nil {
			return err
		}
	case "SAMPLE":
		if st.sample == nil {
			st.sample = v
		}
	case "GROUP_CONCAT":
		s, lang, ok := stringLit(v)
		if !ok {
			if ts, isTS := v.(quad.TypedString); isTS {
				s, ok = string(ts.Value), true
			}
		}
		if !ok {
			st.err = true
			return nil
		}
		if len(st.parts) == 0 {
			st.lang = lang
		} else if st.lang != lang {
			st.langMix = true
		}
		if len(st.parts) > 0 {
			st.size += len(a.sep)
		}
		st.size += len(s)
		if ex.maxLiteral > 0 && st.size > ex.maxLiteral {
			// Past the literal limit the aggregate is an error (unbound);
			// the parts are dropped at once.
			st.err, st.parts = true, nil
			return nil
		}
		st.charged += valueBytes + len(s)
		if err := ex.alloc(valueBytes + len(s)); err != nil {
			return err
		}
		st.parts = append(st.parts, s)
	}
	return nil
}

// accumulateNum is accumulate for a SUM, AVG, MIN or MAX argument bound
// to the id t of a folded number n (folded.go).
func (ex *exec) accumulateNum(a *eAgg, st *aggState, t idTerm, n num) error {
	switch a.name {
	case "SUM", "AVG":
		if !st.hasSum {
			st.sum, st.hasSum = n, true
		} else {
			s, err := arith("+", st.sum, n)
			if err != nil || ex.bigNum(s) {
				st.err = true
				return nil
			}
			st.sum = s
		}
		st.count++
		return nil
	}
	ex.keepBest(a, st, sortKey{v: t, n: n, isNum: true, id: t.id})
	return ex.checkDecoded()
}

// keepBest makes k the best value of a MIN or MAX when it is better.
func (ex *exec) keepBest(a *eAgg, st *aggState, k sortKey) {
	if st.best == nil {
		st.best, st.bestKey = k.v, k
		return
	}
	c := ex.cmpSortKey(&k, &st.bestKey)
	if a.name == "MIN" && c < 0 || a.name == "MAX" && c > 0 {
		st.best, st.bestKey = k.v, k
	}
}

func rowKeyAll(r row) string {
	var b strings.Builder
	for _, v := range r {
		if v != nil {
			b.WriteString(termKey(v))
		}
		b.WriteByte(0)
	}
	return b.String()
}

func finishAgg(a *eAgg, st *aggState) quad.Value {
	if st.err {
		return nil
	}
	switch a.name {
	case "COUNT":
		distinctCount(st)
		return num{k: kInt, i: st.count}.value()
	case "SUM":
		if !st.hasSum {
			return num{k: kInt}.value()
		}
		if st.sum.k == kDec && st.sum.r.IsInt() {
			// integer sums that overflowed int64
			return intResult(st.sum)
		}
		return st.sum.value()
	case "AVG":
		if !st.hasSum {
			return num{k: kInt}.value()
		}
		avg, err := arith("/", st.sum, num{k: kInt, i: st.count})
		if err != nil {
			return nil
		}
		return avg.value()
	case "MIN", "MAX":
		return st.best
	case "SAMPLE":
		return st.sample
	case "GROUP_CONCAT":
		// A simple literal, as the SPARQL 1.1 tests expect even when all
		// parts share a language tag.
		return quad.String(strings.Join(st.parts, a.sep))
	}
	return nil
}

// ---- CONSTRUCT and DESCRIBE ----

func (ex *exec) construct(out func(quad.Quad) error) error {
	tmpl := ex.q.template
	seq := 0
	var dec row
	return ex.evalSelect(ex.q.sel, defaultGraph, func(r row) error {
		seq++
		// Terms bound to ids (folded.go) are decoded for the template.
		for i, v := range r {
			if it, ok := v.(idTerm); ok {
				if dec == nil {
					dec = make(row, len(r))
				}
				copy(dec, r)
				d, err := ex.decodeID(it.id)
				if err != nil {
					return err
				}
				dec[i] = d
				r = dec
			}
		}
		for _, tp := range tmpl {
			s := ex.instantiate(tp.s, r, seq)
			p := ex.instantiate(tp.p, r, seq)
			o := ex.instantiate(tp.o, r, seq)
			if s == nil || p == nil || o == nil || isLiteral(s) {
				continue
			}
			if _, ok := p.(quad.IRI); !ok {
				continue
			}
			if err := out(quad.Quad{Subject: s, Predicate: p, Object: o}); err != nil {
				return err
			}
		}
		return nil
	})
}

func (ex *exec) instantiate(t term, r row, seq int) quad.Value {
	if t.isVar() {
		v := r[t.slot]
		if isHidden(ex.q.vars[t.slot]) && ex.q.form == Construct && v == nil {
			return nil
		}
		return v
	}
	if b, ok := t.v.(quad.BNode); ok {
		return quad.BNode(fmt.Sprintf("%s_%d", b, seq))
	}
	return t.v
}

// describe emits, for each described resource, the triples with it as
// subject in the default graph and, recursively, those of blank nodes
// reached from them (a Concise Bounded Description without reification).
func (ex *exec) describe(out func(quad.Quad) error) error {
	var targets []quad.Value
	seen := map[quad.Value]bool{}
	var memErr error
	add := func(v quad.Value) {
		switch v.(type) {
		case quad.IRI, quad.BNode:
			if !seen[v] {
				if err := ex.alloc(mapEntryBytes + 2*termBytes(v)); err != nil && memErr == nil {
					memErr = err
				}
				seen[v] = true
				targets = append(targets, v)
			}
		}
	}
	var vars []int
	for _, t := range ex.q.describe {
		if t.isVar() {
			vars = append(vars, t.slot)
		} else {
			add(t.v)
		}
	}
	if ex.q.sel.star {
		for _, p := range ex.q.sel.proj {
			vars = append(vars, p.slot)
		}
	}
	if len(vars) > 0 {
		err := ex.evalSelect(ex.q.sel, defaultGraph, func(r row) error {
			for _, v := range vars {
				if r[v] != nil {
					add(r[v])
				}
			}
			return memErr
		})
		if err != nil && err != errStop {
			return err
		}
	}
	for i := 0; i < len(targets); i++ {
		err := ex.match(defaultGraph, targets[i], nil, nil, func(q quad.Quad) error {
			if _, ok := q.Object.(quad.BNode); ok {
				add(q.Object)
				if memErr != nil {
					return memErr
				}
			}
			return out(quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

var _ = graph.Pattern{}
