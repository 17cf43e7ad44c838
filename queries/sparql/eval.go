package sparql

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// Source is the data a query runs on. *graph.Store implements it; nil terms
// in a pattern are wildcards, a nil Label matches every named graph, and
// every quad a source returns carries its graph label.
type Source interface {
	Match(ctx context.Context, p graph.Pattern, fn func(quad.Quad) error) error
	EstimateCount(ctx context.Context, p graph.Pattern) (int64, error)
	Graphs(ctx context.Context, fn func(quad.IRI) error) error
}

// Dataset is an RDF dataset description: the default graph is the merge of
// the Default graphs, and Named lists the named graphs. A nil *Dataset (or
// one with both lists empty) means molgraph's dataset: the default graph is
// the union of all graphs and every graph is a named graph.
type Dataset struct {
	Default []quad.IRI
	Named   []quad.IRI
}

// Options control one execution.
type Options struct {
	// Dataset overrides the query's FROM / FROM NAMED (the protocol's
	// default-graph-uri and named-graph-uri). Nil keeps the query's dataset.
	Dataset *Dataset
	// Timeout bounds the whole evaluation, including streaming the results
	// (0 = no limit besides the context's deadline). Exceeding it returns
	// ErrTimeout.
	Timeout time.Duration
	// MaxRows caps the number of solutions (SELECT) or triples
	// (CONSTRUCT/DESCRIBE); producing more returns ErrRowLimit after the
	// first MaxRows were delivered (0 = no cap).
	MaxRows int
	// Now fixes the value of NOW() (zero: the time the query starts).
	Now time.Time
	// MaxLiteral is the longest literal (in bytes of its lexical form) a
	// string function (CONCAT, REPLACE, UCASE, ENCODE_FOR_URI, SUBSTR,
	// STRBEFORE, IRI, BNODE, ...) or GROUP_CONCAT may build, and bounds the
	// size of decimal arithmetic results the same way (digits of their
	// literal). A longer result is an expression error, with SPARQL's error
	// semantics: the variable of a BIND or SELECT expression stays unbound,
	// a FILTER is false, the aggregate is unbound. It is checked before the
	// result is built where the result could be much longer than its
	// arguments. 0 means DefaultMaxLiteral; negative, no limit.
	MaxLiteral int
	// MaxMemory is the query's memory budget in bytes: an approximate
	// count (values' lexical lengths plus fixed overheads) of what its
	// tables hold: ORDER BY buffers and sort keys, GROUP BY groups and
	// their aggregates' state, DISTINCT's seen set, materialized sub-patterns
	// (sub-selects, MINUS right sides, patterns evaluated apart), the
	// triples of a CONSTRUCT or DESCRIBE answer and property paths' visited
	// sets. Past it evaluation stops with ErrMemoryLimit. A hash join's
	// table is charged too, but one that would not fit is not built: the
	// join keeps its index lookups. 0 means DefaultMaxMemory; negative, no
	// budget.
	MaxMemory int64
	// Procedures are the search procedures the query may call (see
	// Procedure); nil: none, and their predicates are ordinary IRIs.
	Procedures Procedures
	// Helpers are the spare workers a large star may borrow to run on
	// more than one core (star_par.go); nil: the query runs on one
	// goroutine.
	Helpers *Helpers
	// parAfter is the number of batches a star runs before it asks for
	// helpers (0: defaultParAfter; tests set it low).
	parAfter int
	// noFold turns the folded values off (folded.go): every variable is
	// bound to its decoded term. Tests compare both paths.
	noFold bool
	// noHashedRight turns the hashed semi-, anti- and left joins off
	// (exists.go), for tests that compare them with substitution.
	noHashedRight bool
	// noCursor turns the BGP steps' column cursors off (matchCursor).
	noCursor bool
	// noShared turns the shared id variables off (shared.go).
	noShared bool
	// noNotBound turns the OPTIONAL + !BOUND rewrite off (notbound.go).
	noNotBound bool
}

// DefaultMaxMemory is Options.MaxMemory when it is 0: 256 MiB.
const DefaultMaxMemory = 256 << 20

// DefaultMaxLiteral is Options.MaxLiteral when it is 0: 1 MiB. Without a
// limit, 32 chained BIND(CONCAT(?v, ?v) AS ?w) built a 4 GiB string.
const DefaultMaxLiteral = 1 << 20

// row is a solution: one value per variable slot, nil when unbound.
type row []quad.Value

func (r row) clone() row { return append(row(nil), r...) }

// gctx is the active graph: the dataset's default graph (label ""), one
// named graph, or "the graph bound to slot gvar" for GRAPH ?g over a BGP.
type gctx struct {
	label quad.IRI
	named bool
	gvar  int // >= 0: match any allowed named graph and bind its label
}

var defaultGraph = gctx{gvar: -1}

// exec is the state of one execution.
type exec struct {
	ctx      context.Context
	src      Source
	q        *Query
	nvars    int
	defaults []quad.IRI // nil: union of all graphs
	named    []quad.IRI // nil with namedAll: all graphs
	namedAll bool
	namedSet map[quad.Value]bool
	est      map[*triplePat]float64
	memo     map[memoKey][]row
	risky    map[node][]int
	certain  map[node]varSet
	calls    map[bgpCallKey]*bgpCall
	pushable map[*nFilter][]pushed
	// rangeCounts caches countRange.
	rangeCounts map[rangeCountKey]rangeCount
	// rangeWorthy caches rangeWorth per predicate and active graph.
	rangeWorthy map[rangeWorthKey]bool
	bnodeSeq    int
	// solution is the number of the solution mapping whose expressions
	// are being evaluated (0: none), for BNODE(str), which must give the
	// same blank node for the same string within one solution.
	solution int
	now      time.Time
	ticks    int
	strs     map[string]quad.Value
	hashes   map[hashKey]*hashTable
	// hashed: the hash tables of EXISTS, OPTIONAL and join right sides
	// (exists.go).
	hashed map[memoKey]*hashState
	detIdx map[memoKey]*hashState
	// idSets: the id sets of EXISTS patterns (existsIDs), scopes
	// inScopeVars per node.
	idSets map[idSetKey]*idSetState
	scopes map[node]varSet
	// cursors: the column cursors of single-pattern EXISTS
	// (existsCursor).
	cursors       map[*nBGP]*existsCur
	noHashedRight bool
	// subst is the solution substituted into the pattern of the EXISTS
	// being evaluated (nil: none; see evalExists), targets caches
	// bindTargets per node.
	subst    row
	targets  map[node]varSet
	noCursor bool
	// notBound caches the OPTIONAL + !BOUND rewrite per filter (nil
	// entry: none applies; notbound.go); uses counts each variable's uses
	// in the query for it (nil when the rewrite is off).
	notBound map[*nFilter]*nFilter
	uses     []int
	// sharedIDs marks the shared id variables when the execution reads
	// columns (shared.go; nil otherwise), shareable those of the query.
	sharedIDs, shareable []bool
	// idm is the read view's term ids, when it has them (nil otherwise):
	// BGPs then track the id of each term they bind from the source.
	idm idSource
	// maxLiteral is Options.MaxLiteral with the default applied (0: none).
	maxLiteral int
	// mem is the bytes charged against maxMem (Options.MaxMemory with the
	// default applied; 0: none) by alloc and returned by free.
	mem, maxMem int64
	// procs are Options.Procedures; procSplits caches, per BGP, its
	// procedure calls (nil: none).
	procs      Procedures
	procSplits map[*nBGP]*procSplit
	// unused marks the variables scans need not decode, joinOnly the
	// BGP of a join-only variable (unused.go).
	unused   []bool
	joinOnly []bgpSet
	// anyPreds are the predicates of the view's columns and predTerms
	// their terms, for patterns with a variable predicate
	// (matchAnyPredicate; nil: not read yet).
	anyPreds  []uint64
	predTerms map[uint64]quad.Value
	// vcache holds the values of the ids the current star batch bound
	// (folded.go; nil: none yet).
	vcache *valueCache
	// subjOnly marks the subject-only variables (unused.go).
	subjOnly []bool
	// cols: the read view has in-memory columns (matchColumns).
	cols bool
	// The last computed dateTime term dateOperand parsed (lastDateOK:
	// one was), its instant and whether it has one it can use.
	lastDateTerm               quad.TypedString
	lastDateNs                 int64
	lastDateOK, lastDateUsable bool
	// The last number parsed by numOf.
	lastNumTerm          quad.TypedString
	lastNum              num
	lastIsNum, lastNumOK bool
	// vals is the read view's value column when value-read variables
	// are bound to ids (folded.go; nil otherwise); valueVars marks them
	// (unused.go), foldable the variables that could be.
	vals                *graph.TermValues
	valueVars, foldable []bgpSet
	// decodeErr is the first error of a decoding done inside a sort
	// comparison (resolveKey).
	decodeErr error
	// anti is the set of a MINUS by ids being evaluated (minusIDs; nil:
	// none).
	anti *antiIDs
	// helpers lend workers to large stars after parAfter batches
	// (star_par.go).
	helpers  *Helpers
	parAfter int
	// parJobs counts the batches of stars' parallel parts, parHelped
	// those a helper ran, parFallbacks those run again sequentially
	// (tests).
	parJobs, parHelped, parFallbacks int
	// decodes counts the ids decoded by the evaluator, folds the numbers
	// read from the value column (tests).
	decodes, folds int
	// aloneRows counts the solutions of right sides evaluated alone for a
	// hashed join (exists.go; for tests).
	aloneRows int
	// fanoutStarts counts the BGP plans whose start fanoutStart changed
	// (for tests).
	fanoutStarts int
}

// alloc charges n bytes of a table to the query's memory budget.
func (ex *exec) alloc(n int) error {
	ex.mem += int64(n)
	if ex.maxMem > 0 && ex.mem > ex.maxMem {
		return fmt.Errorf("sparql: evaluate: %w: the query needs more than %d bytes for its tables (ORDER BY, GROUP BY, DISTINCT, sub-queries, CONSTRUCT results, property paths)", ErrMemoryLimit, ex.maxMem)
	}
	return nil
}

// free returns n bytes of a table that is dropped.
func (ex *exec) free(n int) { ex.mem -= int64(n) }

// fits reports whether n more bytes stay within the budget.
func (ex *exec) fits(n int) bool { return ex.maxMem <= 0 || ex.mem+int64(n) <= ex.maxMem }

// Approximate sizes for the memory budget: a value is an interface (16
// bytes) plus its lexical form; a map entry costs about 48 bytes besides
// its key and value.
const (
	valueBytes    = 16
	mapEntryBytes = 48
)

// rowBytes is the approximate size of a copy of r.
func rowBytes(r row) int {
	n := 24 + valueBytes*len(r)
	for _, v := range r {
		if v != nil {
			n += lexicalLen(v)
		}
	}
	return n
}

// termBytes is the approximate size of a stored term.
func termBytes(v quad.Value) int {
	n := valueBytes + lexicalLen(v)
	if l, ok := v.(quad.LangString); ok {
		n += len(l.Lang)
	}
	return n
}

type memoKey struct {
	n     node
	label quad.IRI
	named bool
}

func newExec(ctx context.Context, src Source, q *Query, opts Options) *exec {
	ex := &exec{ctx: ctx, src: src, q: q, nvars: len(q.vars),
		est: map[*triplePat]float64{}, memo: map[memoKey][]row{}, risky: map[node][]int{}, targets: map[node]varSet{},
		certain: map[node]varSet{}, pushable: map[*nFilter][]pushed{},
		rangeWorthy: map[rangeWorthKey]bool{}, hashes: map[hashKey]*hashTable{}, hashed: map[memoKey]*hashState{}, detIdx: map[memoKey]*hashState{}, idSets: map[idSetKey]*idSetState{}, scopes: map[node]varSet{}, cursors: map[*nBGP]*existsCur{}, now: opts.Now,
		procs: opts.Procedures, procSplits: map[*nBGP]*procSplit{}, unused: unusedVars(q), joinOnly: joinOnlyVars(q), subjOnly: subjectOnlyVars(q)}
	if !opts.noFold {
		ex.foldable = valueVars(q)
	}
	if ex.now.IsZero() {
		ex.now = time.Now()
	}
	ex.noHashedRight = opts.noHashedRight
	ex.helpers, ex.parAfter = opts.Helpers, opts.parAfter
	if ex.parAfter <= 0 {
		ex.parAfter = defaultParAfter
	}
	ex.noCursor = opts.noCursor
	if !opts.noNotBound && q.form != Describe {
		u := &useCounter{uses: make([]int, len(q.vars))}
		u.count(q)
		ex.uses, ex.notBound = u.uses, map[*nFilter]*nFilter{}
	}
	if !opts.noShared {
		ex.shareable = sharedIDVars(q, opts.Procedures)
	}
	switch {
	case opts.MaxLiteral == 0:
		ex.maxLiteral = DefaultMaxLiteral
	case opts.MaxLiteral > 0:
		ex.maxLiteral = opts.MaxLiteral
	}
	switch {
	case opts.MaxMemory == 0:
		ex.maxMem = DefaultMaxMemory
	case opts.MaxMemory > 0:
		ex.maxMem = opts.MaxMemory
	}
	ds := opts.Dataset
	if ds == nil || len(ds.Default) == 0 && len(ds.Named) == 0 {
		ds = q.Dataset()
	}
	if ds == nil || len(ds.Default) == 0 && len(ds.Named) == 0 {
		ex.namedAll = true
	} else {
		ex.defaults = ds.Default
		if ex.defaults == nil {
			ex.defaults = []quad.IRI{}
		}
		ex.named = ds.Named
		ex.namedSet = map[quad.Value]bool{}
		for _, g := range ds.Named {
			ex.namedSet[g] = true
		}
	}
	return ex
}

// tick checks the context now and then.
func (ex *exec) tick() error {
	ex.ticks++
	if ex.ticks&255 == 0 {
		if err := ex.ctx.Err(); err != nil {
			return ctxErr(err)
		}
	}
	return nil
}

func ctxErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("sparql: evaluate: %w", ErrTimeout)
	}
	return fmt.Errorf("sparql: evaluate: %w", err)
}

// fromSource runs the source's matcher m for pat, counting each quad
// against the query's budget (tick), and tells the source's errors from the
// callback's (sourceErr).
func (ex *exec) fromSource(m func(context.Context, graph.Pattern, func(quad.Quad) error) error, pat graph.Pattern, fn func(quad.Quad) error) error {
	var cbErr error
	err := m(ex.ctx, pat, func(q quad.Quad) error {
		if err := ex.tick(); err != nil {
			cbErr = err
			return err
		}
		cbErr = fn(q)
		return cbErr
	})
	return ex.sourceErr(err, cbErr)
}

// match streams the triples of the active graph matching s, p, o (nil =
// any). For the union default graph and merged default graphs, a triple in
// several graphs is reported once (RDF merge).
func (ex *exec) match(g gctx, s, p, o quad.Value, fn func(q quad.Quad) error) error {
	call := func(label quad.Value, f func(q quad.Quad) error) error {
		return ex.fromSource(ex.src.Match, graph.Pattern{Subject: s, Predicate: p, Object: o, Label: label}, f)
	}
	if g.named {
		return call(g.label, fn)
	}
	if g.gvar >= 0 {
		return call(nil, func(q quad.Quad) error {
			if !ex.namedAll && !ex.namedSet[q.Label] {
				return nil
			}
			return fn(q)
		})
	}
	if ex.defaults == nil {
		if tm, ok := ex.src.(TripleMatcher); ok {
			// The source merges the graphs itself.
			return ex.fromSource(tm.MatchTriples, graph.Pattern{Subject: s, Predicate: p, Object: o}, fn)
		}
	}
	var labels []quad.Value
	if ex.defaults == nil {
		labels = []quad.Value{nil}
	} else {
		for _, l := range ex.defaults {
			labels = append(labels, l)
		}
	}
	if len(labels) == 1 && labels[0] != nil {
		return call(labels[0], fn)
	}
	if s != nil && p != nil && o != nil {
		// One answer at most.
		found := false
		stop := &stopSignal{}
		for _, l := range labels {
			err := call(l, func(q quad.Quad) error {
				found = true
				if err := fn(q); err != nil {
					return err
				}
				return stop
			})
			if err != nil && err != error(stop) {
				return err
			}
			if found {
				return nil
			}
		}
		return nil
	}
	// Duplicates are remembered in a short slice first: most lookups in a
	// join have a bound subject and few answers.
	var small [][3]quad.Value
	var seen map[[3]quad.Value]bool
	charged := 0
	defer func() { ex.free(charged) }()
	for _, l := range labels {
		err := call(l, func(q quad.Quad) error {
			k := [3]quad.Value{q.Subject, q.Predicate, q.Object}
			if seen != nil {
				if seen[k] {
					return nil
				}
				seen[k] = true
				n := mapEntryBytes + termBytes(k[0]) + termBytes(k[1]) + termBytes(k[2])
				charged += n
				if err := ex.alloc(n); err != nil {
					return err
				}
				return fn(q)
			}
			for _, x := range small {
				if x == k {
					return nil
				}
			}
			if len(small) < 16 {
				small = append(small, k)
			} else {
				seen = make(map[[3]quad.Value]bool, 64)
				for _, x := range small {
					seen[x] = true
				}
				seen[k] = true
			}
			return fn(q)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sourceErr turns the error of a source call into the evaluation's error:
// cbErr, the error the callback returned, passes unchanged.
func (ex *exec) sourceErr(err, cbErr error) error {
	if err == nil || err == cbErr {
		return err
	}
	// The error comes from the source itself.
	if ctxE := ex.ctx.Err(); ctxE != nil {
		return ctxErr(ctxE)
	}
	return fmt.Errorf("sparql: match: %w: %w", ErrSource, err)
}

// ReadViewer is an optional interface of a Source: ReadView returns a view
// that one evaluation reads through, for a consistent snapshot and cheaper
// lookups. *graph.Store implements it.
type ReadViewer interface {
	ReadView(ctx context.Context) (*graph.View, error)
}

// TripleMatcher is an optional interface of a Source: MatchTriples reports
// each triple matching p (Label nil) once, over the merge of all graphs
// (molgraph's default graph), and NumericRangeTriples does the same for
// NumericRange. *graph.View implements it.
type TripleMatcher interface {
	MatchTriples(ctx context.Context, p graph.Pattern, fn func(quad.Quad) error) error
	NumericRangeTriples(ctx context.Context, pred quad.IRI, r graph.Range, fn func(quad.Quad) error) error
}

// idSource is a source view with term ids (*graph.View with HasIDs):
// ids are equal exactly when the stored terms are the same.
type idSource interface {
	TermID(t quad.Value) (uint64, error)
	MatchTriplesIDs(ctx context.Context, p graph.Pattern, skip [3]bool, fn func(quad.Quad, [3]uint64) error) error
	NumericRangeTriplesIDs(ctx context.Context, pred quad.IRI, r graph.Range, skipSubject, skipObject bool, fn func(quad.Quad, [3]uint64) error) error
	HasColumns() bool
	MatchTriplesBoundIDs(ctx context.Context, bound [3]uint64, skip [3]bool, fn func(t [3]quad.Value, id [3]uint64) error) (bool, error)
	Term(id uint64) (quad.Value, error)
	TermValues() *graph.TermValues
}

// open switches the execution to a read view of its source when the
// source has one; the returned function switches back and releases it.
func (ex *exec) open() (func(), error) {
	rv, ok := ex.src.(ReadViewer)
	if !ok {
		return func() {}, nil
	}
	v, err := rv.ReadView(ex.ctx)
	if err != nil {
		if ctxE := ex.ctx.Err(); ctxE != nil {
			return nil, ctxErr(ctxE)
		}
		return nil, fmt.Errorf("sparql: open: %w: %w", ErrSource, err)
	}
	src := ex.src
	ex.src = v
	if v.HasIDs() {
		ex.idm = v
		ex.cols = v.HasColumns()
		if ex.cols && ex.defaults == nil {
			ex.sharedIDs = ex.shareable
		}
		if ex.cols && ex.foldable != nil {
			if ex.vals = v.TermValues(); ex.vals != nil {
				ex.valueVars = ex.foldable
			}
		}
	}
	return func() {
		ex.src, ex.idm, ex.vals, ex.valueVars, ex.sharedIDs = src, nil, nil, nil, nil
		v.Close()
	}, nil
}

// ---- the evaluator ----

type emitFn func(r row) error

func (ex *exec) riskyOf(n node) []int {
	if r, ok := ex.risky[n]; ok {
		return r
	}
	s := varSet{}
	riskyVars(n, s)
	r := sortedSlots(s)
	ex.risky[n] = r
	return r
}

func (ex *exec) certainOf(n node) varSet {
	if c, ok := ex.certain[n]; ok {
		return c
	}
	c := varSet{}
	certainVars(n, c)
	ex.certain[n] = c
	return c
}

// eval emits every solution of n compatible with in, merged with in. The
// row passed to emit is only valid during the call.
func (ex *exec) eval(n node, g gctx, in row, emit emitFn) error {
	if _, isSub := n.(*nSub); isSub {
		return ex.evalDetached(n, g, in, emit)
	}
	for _, v := range ex.riskyOf(n) {
		if in[v] != nil && !ex.substituted(n, v) {
			return ex.evalDetached(n, g, in, emit)
		}
	}
	switch x := n.(type) {
	case *nBGP:
		return ex.evalBGP(x, g, in, nil, emit)
	case *nJoin:
		return ex.eval(x.l, g, in, func(a row) error {
			if handled, err := ex.joinHashed(x.r, g, a, emit); handled {
				return err
			}
			return ex.eval(x.r, g, a, emit)
		})
	case *nLeftJoin:
		return ex.eval(x.l, g, in, func(a row) error {
			found := false
			right := func(b row) error {
				if x.cond != nil {
					ok, err := ex.test(x.cond, g, b)
					if err != nil {
						return err
					}
					if !ok {
						return nil
					}
				}
				found = true
				return emit(b)
			}
			handled, err := ex.joinHashed(x.r, g, a, right)
			if !handled {
				err = ex.eval(x.r, g, a, right)
			}
			if err != nil || found {
				return err
			}
			return emit(a)
		})
	case *nUnion:
		if err := ex.eval(x.l, g, in, emit); err != nil {
			return err
		}
		return ex.eval(x.r, g, in, emit)
	case *nMinus:
		if handled, err := ex.minusIDs(x, g, in, emit); handled {
			return err
		}
		rights, seeded, err := ex.detachedRows(x.r, g)
		if err != nil {
			return err
		}
		ix := newMinusIndex(rights)
		charged := seeded
		defer func() { ex.free(charged) }()
		return ex.eval(x.l, g, in, func(a row) error {
			out, err := ex.minusExcludes(ix, a, &charged)
			if err != nil || out {
				return err
			}
			return emit(a)
		})
	case *nFilter:
		if r := ex.rewriteNotBound(x); r != nil {
			x = r
		}
		conds := x.conds
		if b, ok := x.p.(*nBGP); ok {
			push, rest := ex.splitFilters(x)
			return ex.evalBGP(b, g, in, push, func(a row) error {
				return ex.filterEmit(rest, g, a, emit)
			})
		}
		return ex.eval(x.p, g, in, func(a row) error {
			return ex.filterEmit(conds, g, a, emit)
		})
	case *nExtend:
		return ex.eval(x.p, g, in, func(a row) error {
			v, err := ex.evalInSolution(x.e, g, a)
			if err != nil && err != errEval {
				return err
			}
			if err == nil && v != nil {
				a[x.slot] = v
				err := emit(a)
				a[x.slot] = nil
				return err
			}
			return emit(a)
		})
	case *nValues:
		return ex.joinRows(x.slots, x.rows, in, emit)
	case *nGraph:
		return ex.evalGraph(x, g, in, emit)
	}
	return fmt.Errorf("sparql: evaluate: %w: node %T", ErrUnsupported, n)
}

func (ex *exec) filterEmit(conds []expr, g gctx, a row, emit emitFn) error {
	for _, c := range conds {
		ok, err := ex.test(c, g, a)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
	}
	return emit(a)
}

// splitFilters separates the filters of x (over a BGP) into those that can
// run inside the BGP as soon as their variables are bound and the rest.
// A condition A && B is split into its conjuncts first, so each runs at
// the first step where its own variables are bound (a FILTER keeps a
// solution only when its condition is true, and A && B is true exactly
// when both are: an error or false in either drops the solution either
// way).
func (ex *exec) splitFilters(x *nFilter) ([]pushed, []expr) {
	if p, ok := ex.pushable[x]; ok {
		var rest []expr
		for _, c := range conjuncts(x.conds, nil) {
			if !containsExpr(p, c) {
				rest = append(rest, c)
			}
		}
		return p, rest
	}
	cert := ex.certainOf(x.p)
	var push []pushed
	for _, c := range conjuncts(x.conds, nil) {
		if hasExists(c) {
			continue
		}
		vs := varSet{}
		exprVars(c, vs)
		if len(vs) == 0 {
			continue
		}
		ok := true
		for v := range vs {
			if !cert[v] {
				ok = false
			}
		}
		if ok {
			push = append(push, pushed{e: c, vars: sortedSlots(vs)})
		}
	}
	ex.pushable[x] = push
	return ex.splitFilters(x)
}

// conjuncts appends the conjuncts of the conditions conds to out: the
// operands of && (recursively), other conditions as they are.
func conjuncts(conds []expr, out []expr) []expr {
	for _, c := range conds {
		if op, ok := c.(*eOp); ok && op.op == "&&" && len(op.args) == 2 {
			out = conjuncts(op.args, out)
			continue
		}
		out = append(out, c)
	}
	return out
}

func containsExpr(p []pushed, e expr) bool {
	for _, x := range p {
		if x.e == e {
			return true
		}
	}
	return false
}

// test evaluates a filter condition: errors are false.
func (ex *exec) test(e expr, g gctx, r row) (bool, error) {
	v, err := ex.evalExpr(e, g, r)
	if err == errEval {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	b, err := ebv(v)
	if err != nil {
		return false, nil
	}
	return b, nil
}

// evalDetached evaluates n on its own (cached) and joins the result with in.
func (ex *exec) evalDetached(n node, g gctx, in row, emit emitFn) error {
	if seed := ex.substSeed(n); seed != nil {
		// n alone, after the substitution of an enclosing EXISTS (its
		// solutions depend on the substituted values: not cached).
		out := make(row, len(in))
		return ex.eval(n, g, seed, func(r row) error {
			if !mergeRow(out, in, r) {
				return nil
			}
			return emit(out)
		})
	}
	rows, err := ex.detached(n, g)
	if err != nil {
		return err
	}
	return ex.joinDetached(n, g, rows, in, emit)
}

// detachedRows is detached, or n's solutions after the substitution of an
// enclosing EXISTS when n reads substituted variables (substSeed); those
// are not cached and charged is the memory they hold, for the caller to
// free.
func (ex *exec) detachedRows(n node, g gctx) (rows []row, charged int, err error) {
	seed := ex.substSeed(n)
	if seed == nil {
		rows, err = ex.detached(n, g)
		return rows, 0, err
	}
	err = ex.eval(n, g, seed, func(r row) error {
		c := rowBytes(r)
		if err := ex.alloc(c); err != nil {
			return err
		}
		charged += c
		rows = append(rows, r.clone())
		return ex.tick()
	})
	if err != nil {
		ex.free(charged)
		return nil, 0, err
	}
	return rows, charged, nil
}

// EXISTS by substitution. FILTER EXISTS { P } on a solution μ is true when
// P with each variable of μ replaced by its value has a solution (SPARQL
// 1.1 section 18.6, substitute): a FILTER, OPTIONAL or MINUS inside P
// sees μ's values, which evaluating P alone and joining with μ would not
// (there, FILTER(?q2 > ?q) inside P reads an unbound ?q). So while P is
// evaluated, ex.subst holds μ: a risky variable of a node (riskyOf) that
// μ binds does not make the node be evaluated apart, and a node evaluated
// apart for another variable starts from μ's values of the variables it
// mentions (substSeed) instead of nothing. BIND targets stay apart
// (BIND(e AS ?v) with ?v substituted by a constant has no meaning), as
// do sub-selects (their variables are their own).

// evalExists evaluates EXISTS { p } on r by substitution.
func (ex *exec) evalExists(p node, g gctx, r row) (bool, error) {
	saved := ex.subst
	ex.subst = r.clone()
	defer func() { ex.subst = saved }()
	found := false
	err := ex.eval(p, g, r, func(row) error {
		found = true
		return errStop
	})
	if err != nil && err != errStop {
		return false, err
	}
	return found, nil
}

// substituted reports whether v, risky for n, is bound by the
// substitution of an enclosing EXISTS and may be substituted into n.
func (ex *exec) substituted(n node, v int) bool {
	return ex.subst != nil && ex.subst[v] != nil && !ex.bindTargets(n)[v]
}

// substSeed is the row n alone starts from inside an EXISTS: the
// substituted values of the variables n mentions (not BIND targets); nil
// when there are none or n is a sub-select.
func (ex *exec) substSeed(n node) row {
	if ex.subst == nil {
		return nil
	}
	if _, isSub := n.(*nSub); isSub {
		return nil
	}
	all := varSet{}
	allVars(n, all)
	targets := ex.bindTargets(n)
	var seed row
	for v := range all {
		if v < len(ex.subst) && ex.subst[v] != nil && !targets[v] {
			if seed == nil {
				seed = make(row, len(ex.subst))
			}
			seed[v] = ex.subst[v]
		}
	}
	return seed
}

// bindTargets returns the variables BIND assigns in n (outside
// sub-selects).
func (ex *exec) bindTargets(n node) varSet {
	if t, ok := ex.targets[n]; ok {
		return t
	}
	t := varSet{}
	var walk func(n node)
	walk = func(n node) {
		switch x := n.(type) {
		case *nJoin:
			walk(x.l)
			walk(x.r)
		case *nLeftJoin:
			walk(x.l)
			walk(x.r)
		case *nUnion:
			walk(x.l)
			walk(x.r)
		case *nMinus:
			walk(x.l)
			walk(x.r)
		case *nFilter:
			walk(x.p)
		case *nExtend:
			t.add(x.slot)
			walk(x.p)
		case *nGraph:
			walk(x.p)
		}
	}
	walk(n)
	ex.targets[n] = t
	return t
}

func (ex *exec) joinFull(rows []row, in row, emit emitFn) error {
	out := make(row, len(in))
	for _, r := range rows {
		if mergeRow(out, in, r) {
			if err := emit(out); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeRow writes in joined with r into out and reports whether the two
// are compatible (every variable bound in both holds the same term).
func mergeRow(out, in, r row) bool {
	copy(out, in)
	for i, v := range r {
		if v == nil {
			continue
		}
		if out[i] == nil {
			out[i] = v
		} else if !sameTerm(out[i], v) {
			return false
		}
	}
	return true
}

func (ex *exec) joinRows(slots []int, rows [][]quad.Value, in row, emit emitFn) error {
	out := make(row, len(in))
	for _, r := range rows {
		copy(out, in)
		ok := true
		for i, v := range r {
			if v == nil {
				continue
			}
			s := slots[i]
			if out[s] == nil {
				out[s] = v
			} else if !sameTerm(out[s], v) {
				ok = false
				break
			}
		}
		if ok {
			if err := emit(out); err != nil {
				return err
			}
		}
	}
	return nil
}

// detached returns all solutions of n evaluated alone in graph g.
func (ex *exec) detached(n node, g gctx) ([]row, error) {
	k := memoKey{n: n, label: g.label, named: g.named}
	if rows, ok := ex.memo[k]; ok {
		return rows, nil
	}
	var rows []row
	collect := func(r row) error {
		if err := ex.alloc(rowBytes(r)); err != nil {
			return err
		}
		rows = append(rows, r.clone())
		return ex.tick()
	}
	// Cached for every later use: evaluated alone, without an enclosing
	// EXISTS's substitution (n mentions none of its variables, or is a
	// sub-select: substSeed).
	saved := ex.subst
	ex.subst = nil
	defer func() { ex.subst = saved }()
	var err error
	if s, ok := n.(*nSub); ok {
		err = ex.evalSelect(s.q, g, collect)
	} else {
		err = ex.eval(n, g, make(row, ex.nvars), collect)
	}
	if err != nil {
		return nil, err
	}
	ex.memo[k] = rows
	return rows, nil
}

func (ex *exec) evalGraph(x *nGraph, g gctx, in row, emit emitFn) error {
	allowed := func(l quad.Value) bool {
		_, isIRI := l.(quad.IRI)
		return isIRI && (ex.namedAll || ex.namedSet[l])
	}
	if !x.g.isVar() {
		if !allowed(x.g.v) {
			return nil
		}
		return ex.eval(x.p, gctx{label: x.g.v.(quad.IRI), named: true, gvar: -1}, in, emit)
	}
	slot := x.g.slot
	// The inner pattern is evaluated without the graph variable, which is
	// then joined in (GRAPH ?g P = the union over graphs of P joined with
	// {?g -> graph}).
	run := func(l quad.IRI) error {
		saved := in[slot]
		in[slot] = nil
		err := ex.eval(x.p, gctx{label: l, named: true, gvar: -1}, in, func(r row) error {
			if r[slot] != nil {
				if !sameTerm(r[slot], l) {
					return nil
				}
				return emit(r)
			}
			r[slot] = l
			err := emit(r)
			r[slot] = nil
			return err
		})
		in[slot] = saved
		return err
	}
	if v := in[slot]; v != nil {
		if !allowed(v) {
			return nil
		}
		return run(v.(quad.IRI))
	}
	if b, ok := x.p.(*nBGP); ok && len(b.pats) > 0 && !hasPaths(b) {
		return ex.evalBGP(b, gctx{gvar: slot}, in, nil, emit)
	}
	graphs, err := ex.namedGraphs()
	if err != nil {
		return err
	}
	for _, l := range graphs {
		if err := run(l); err != nil {
			return err
		}
	}
	return nil
}

func hasPaths(b *nBGP) bool {
	for _, tp := range b.pats {
		if tp.path != nil {
			return true
		}
	}
	return false
}

func (ex *exec) namedGraphs() ([]quad.IRI, error) {
	if !ex.namedAll {
		return ex.named, nil
	}
	var out []quad.IRI
	err := ex.src.Graphs(ex.ctx, func(g quad.IRI) error {
		out = append(out, g)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sparql: list graphs: %w: %w", ErrSource, err)
	}
	return out, nil
}

// evalBGP evaluates a basic graph pattern by index nested loops in planned
// order, checking pushed filters as soon as their variables are bound.
func (ex *exec) evalBGP(b *nBGP, g gctx, in row, filters []pushed, emit emitFn) error {
	if sp := ex.splitProcs(b); sp != nil {
		return ex.evalProcBGP(sp, g, in, filters, emit)
	}
	c := ex.bgpCallFor(b, g, in, filters)
	if c.busy {
		// Evaluated again from inside its own evaluation: a state of
		// its own.
		c = ex.newBGPCall(b, c.pl, c.bound)
	}
	c.busy = true
	defer func() { c.busy = false }()
	c.g, c.emit = g, emit
	if len(c.r) != len(in) {
		c.r = make(row, len(in))
		if c.rid != nil {
			c.rid = make([]uint64, len(in))
		}
	}
	copy(c.r, in)
	clear(c.rid)
	pl, r := c.pl, c.r
	for _, f := range pl.pre {
		ok, err := ex.test(f, g, r)
		if err != nil || !ok {
			return err
		}
	}
	if c.curs != nil && c.rid != nil && !g.named && g.gvar < 0 && ex.defaults == nil {
		if sg := ex.starSegment(b, pl, c.bound); sg != nil {
			k := len(sg.steps)
			if handled, err := ex.evalStar(b, sg, g, r, c.rid, func() error { return c.step(k) }); handled {
				return err
			}
		}
	}
	return c.step(0)
}

// bgpCall is the state of the evaluations of one BGP with one set of
// variables bound before it (and one set of pushed filters): its plan,
// the row and ids its steps bind, the continuation of each step and the
// steps' column cursors. A BGP evaluated once per outer solution (the
// right side of an OPTIONAL, a join or EXISTS, substituted) reuses it,
// so each call costs its lookups, not a plan lookup and a dozen
// allocations, and its cursors walk forward from the previous call's keys
// (outer solutions come in the order of a column scan).
type bgpCall struct {
	x     *exec
	b     *nBGP
	pl    *bgpPlan
	bound varSet
	busy  bool
	// The current call's active graph and continuation.
	g    gctx
	emit emitFn
	// r is the solution the steps extend; rid[v] is the source's id of
	// the term a step bound to v, 0 when unknown (bound before, or by a
	// path).
	r   row
	rid []uint64
	// nodes[i] are the variables that steps before i matched as the
	// subject or object of a triple of the active graph (plain patterns,
	// not paths): nodes of the graph, which a zero-length path from them
	// need not look up again (nodeInGraph, a seek per row).
	nodes []varSet
	nexts []func() error
	curs  []colCursor
}

// bgpCallKey identifies a bgpCall: the BGP, the variables bound before
// it (a bit per slot, for queries of up to 64 variables; others key by
// the sorted slots) and the pushed filters.
type bgpCallKey struct {
	b       *nBGP
	mask    uint64
	slots   string
	filters *pushed
}

// bgpCallFor returns the state of b's evaluations with in's bindings
// and filters, made and planned at the first.
func (ex *exec) bgpCallFor(b *nBGP, g gctx, in row, filters []pushed) *bgpCall {
	k := bgpCallKey{b: b}
	if len(filters) > 0 {
		k.filters = &filters[0]
	}
	wide := len(in) > 64
	var bound varSet
	mark := func(v int) {
		if in[v] == nil {
			return
		}
		if !wide {
			k.mask |= 1 << uint(v)
			return
		}
		if bound == nil {
			bound = varSet{}
		}
		bound.add(v)
	}
	for i := range b.pats {
		tp := &b.pats[i]
		for _, t := range [3]term{tp.s, tp.p, tp.o} {
			if t.isVar() {
				mark(t.slot)
			}
		}
	}
	for _, f := range filters {
		for _, v := range f.vars {
			mark(v)
		}
	}
	if g.gvar >= 0 {
		mark(g.gvar)
	}
	if wide {
		k.slots = fmt.Sprint(sortedSlots(bound))
	}
	if c, ok := ex.calls[k]; ok {
		return c
	}
	if !wide {
		bound = varSet{}
		for v := 0; v < 64; v++ {
			if k.mask&(1<<uint(v)) != 0 {
				bound.add(v)
			}
		}
	} else if bound == nil {
		bound = varSet{}
	}
	c := ex.newBGPCall(b, ex.planBGP(ex.ctx, b, bound, filters), bound)
	if ex.calls == nil {
		ex.calls = map[bgpCallKey]*bgpCall{}
	}
	ex.calls[k] = c
	return c
}

// newBGPCall makes the state of evaluations of b with the plan pl.
func (ex *exec) newBGPCall(b *nBGP, pl *bgpPlan, bound varSet) *bgpCall {
	c := &bgpCall{x: ex, b: b, pl: pl, bound: bound, r: make(row, ex.nvars)}
	if ex.idm != nil {
		c.rid = make([]uint64, ex.nvars)
	}
	c.nodes = make([]varSet, len(pl.order))
	seen := varSet{}
	for i, j := range pl.order {
		tp := &b.pats[j]
		if tp.path != nil {
			c.nodes[i] = seen
			continue
		}
		if seen.has(tp.s.slot) && seen.has(tp.o.slot) || !tp.s.isVar() && !tp.o.isVar() {
			continue
		}
		next := varSet{}
		for v := range seen {
			next.add(v)
		}
		next.addTerm(tp.s)
		next.addTerm(tp.o)
		seen = next
	}
	if ex.cols && !ex.noCursor {
		c.curs = make([]colCursor, len(pl.order))
	}
	c.nexts = make([]func() error, len(pl.order))
	for i := range c.nexts {
		filters := pl.filters[i]
		c.nexts[i] = func() error {
			for _, f := range filters {
				ok, err := ex.test(f, c.g, c.r)
				if err != nil {
					return err
				}
				if !ok {
					return nil
				}
			}
			return c.step(i + 1)
		}
	}
	return c
}

// step runs step i of the plan on the current solution.
func (c *bgpCall) step(i int) error {
	if i == len(c.pl.order) {
		return c.emit(c.r)
	}
	ex := c.x
	tp := &c.b.pats[c.pl.order[i]]
	next := c.nexts[i]
	if tp.path != nil {
		return ex.evalPathPattern(tp, c.g, c.r, c.nodes[i], next)
	}
	if c.pl.ranges != nil && c.pl.ranges[i] != nil {
		return ex.matchRange(tp, *c.pl.ranges[i], c.g, c.r, c.rid, next)
	}
	var cur *colCursor
	if c.curs != nil {
		cur = &c.curs[i]
	}
	return ex.matchPattern(tp, c.g, c.r, c.rid, i == 1 && c.pl.eagerHash, c.pl.lazy, cur, next)
}

func (ex *exec) resolve(t term, r row) quad.Value {
	if t.isVar() {
		return r[t.slot]
	}
	return t.v
}

// matchPattern binds one triple pattern against the source; rid (nil
// without ids) receives the ids of the terms it binds; eager asks for a
// hash join at once (bgpPlan.eagerHash); cur (nil: none) is the step's
// column cursor (matchColumns).
func (ex *exec) matchPattern(tp *triplePat, g gctx, r row, rid []uint64, eager bool, lazy []bool, cur *colCursor, next func() error) error {
	s, p, o := ex.resolve(tp.s, r), ex.resolve(tp.p, r), ex.resolve(tp.o, r)
	gv := g
	if g.gvar >= 0 && r[g.gvar] != nil {
		l, ok := r[g.gvar].(quad.IRI)
		if !ok || !ex.namedAll && !ex.namedSet[l] {
			return nil
		}
		gv = gctx{label: l, named: true, gvar: -1}
	}
	// Literals cannot be subjects, only IRIs are predicates.
	if s != nil && isLiteral(s) {
		return nil
	}
	if p != nil {
		if _, ok := p.(quad.IRI); !ok {
			return nil
		}
	}
	if rid != nil && ex.cols && !gv.named && gv.gvar < 0 && ex.defaults == nil {
		if handled, err := ex.matchColumns(tp, [3]quad.Value{s, p, o}, r, rid, lazy, cur, next); handled {
			return err
		}
	}
	// A term bound to an id (folded.go) is decoded for the other reads.
	for _, t := range [3]*quad.Value{&s, &p, &o} {
		if it, ok := (*t).(idTerm); ok {
			v, err := ex.decodeID(it.id)
			if err != nil {
				return err
			}
			*t = v
		}
	}
	if handled, err := ex.hashLookup(tp, gv, [3]quad.Value{s, p, o}, r, rid, eager, next); handled {
		return err
	}
	if rid != nil && !gv.named && gv.gvar < 0 && ex.defaults == nil {
		var cbErr error
		// Unused variables are bound without decoding their terms.
		var skip [3]bool
		for i, t := range [3]term{tp.s, tp.p, tp.o} {
			skip[i] = t.isVar() && ex.unused[t.slot] && r[t.slot] == nil
		}
		err := ex.idm.MatchTriplesIDs(ex.ctx, graph.Pattern{Subject: s, Predicate: p, Object: o}, skip, func(q quad.Quad, id [3]uint64) error {
			if err := ex.tick(); err != nil {
				cbErr = err
				return err
			}
			t := [3]quad.Value{q.Subject, q.Predicate, q.Object}
			for i, sk := range skip {
				if sk {
					t[i] = unusedTerm
				}
			}
			cbErr = ex.bindTriple(tp, r, rid, t, &id, next)
			return cbErr
		})
		return ex.sourceErr(err, cbErr)
	}
	return ex.match(gv, s, p, o, func(q quad.Quad) error {
		var set [4]int
		n := 0
		ok := true
		bind := func(t term, v quad.Value) {
			if !ok || !t.isVar() {
				return
			}
			if cur := r[t.slot]; cur != nil {
				if !sameTerm(cur, v) {
					ok = false
				}
				return
			}
			r[t.slot] = v
			set[n] = t.slot
			n++
		}
		bind(tp.s, q.Subject)
		bind(tp.p, q.Predicate)
		bind(tp.o, q.Object)
		if gv.gvar >= 0 {
			bind(varTerm(gv.gvar), q.Label)
		}
		var err error
		if ok {
			err = next()
		}
		for i := 0; i < n; i++ {
			r[set[i]] = nil
		}
		return err
	})
}

// matchColumns matches tp, whose terms spo are bound (nil: open), in the
// read view's columns by term ids: the ids of variables bound by earlier
// steps of the BGP are known (rid), others are looked up once per view.
// An in-memory lookup is a binary search, so the hash joins (hashjoin.go)
// are not needed there; with a cursor (cur not nil), a lookup by subject
// or by object alone walks the column forward from the previous key
// (colCursor). handled is false when the columns cannot answer (an open
// predicate).
func (ex *exec) matchColumns(tp *triplePat, spo [3]quad.Value, r row, rid []uint64, lazy []bool, cur *colCursor, next func() error) (bool, error) {
	if spo[1] == nil {
		return ex.matchAnyPredicate(tp, spo, r, rid, lazy, cur, next)
	}
	var bound [3]uint64
	var skip [3]bool
	slots := [3]int{-1, -1, -1}
	for i, t := range [3]term{tp.s, tp.p, tp.o} {
		if spo[i] == nil {
			skip[i] = t.isVar() && (ex.unused[t.slot] || lazy != nil && lazy[t.slot] || ex.sharedIDs != nil && ex.sharedIDs[t.slot])
			if skip[i] {
				slots[i] = t.slot
			}
			continue
		}
		if t.isVar() && rid[t.slot] != 0 {
			bound[i] = rid[t.slot]
			continue
		}
		if it, ok := spo[i].(idTerm); ok {
			bound[i] = it.id
			continue
		}
		if cur != nil && !t.isVar() && cur.constOK[i] {
			bound[i] = cur.constID[i] // the step's constant, looked up before
			continue
		}
		id, err := ex.idm.TermID(spo[i])
		if err != nil {
			return true, ex.sourceErr(err, nil)
		}
		if cur != nil && !t.isVar() {
			cur.constID[i], cur.constOK[i] = id, true
		}
		if id == 0 {
			return true, nil // not stored: nothing matches
		}
		bound[i] = id
	}
	if cur != nil && (bound[0] != 0) != (bound[2] != 0) {
		if handled, err := ex.matchCursor(tp, cur, bound, skip, slots, r, rid, next); handled {
			return true, err
		}
	}
	return ex.matchColumnsScan(tp, bound, skip, slots, r, rid, next)
}

// colCursor is one BGP step's column cursor: the predicate and order it
// reads (a step whose predicate is a variable may change them).
type colCursor struct {
	c         *graph.ColumnCursor
	pred      uint64
	bySubject bool
	made      bool
	// constID caches the ids of the step's constant terms (constOK: looked
	// up; 0: not stored), which matchColumns would look up per solution.
	constID [3]uint64
	constOK [3]bool
	// anyPred are the cursors of a step with a variable predicate, one
	// per predicate (matchAnyPredicate).
	anyPred map[uint64]*colCursor
	// lastKey is the subject this predicate's cursor was last sought
	// with by matchAnyPredicate (0: none).
	lastKey uint64
}

// matchCursor matches tp, with its predicate and exactly one of subject
// and object bound to the ids in bound, through the step's cursor. The
// steps after a scan of a column sorted by subject see their subjects in
// ascending order, so the cursor reads each column they join nearly
// sequentially. handled is false when the view has no cursor.
func (ex *exec) matchCursor(tp *triplePat, cur *colCursor, bound [3]uint64, skip [3]bool, slots [3]int, r row, rid []uint64, next func() error) (bool, error) {
	bySubject := bound[0] != 0
	if !cur.made || cur.pred != bound[1] || cur.bySubject != bySubject {
		vs, ok := ex.idm.(cursorSource)
		if !ok {
			return false, nil
		}
		cur.c, cur.pred, cur.bySubject, cur.made = vs.ColumnCursor(bound[1], bySubject), bound[1], bySubject, true
	}
	if cur.c == nil {
		return false, nil
	}
	key, open := bound[0], 2
	if !bySubject {
		key, open = bound[2], 0
	}
	var t [3]quad.Value
	id := bound
	for _, other := range cur.c.Seek(key) {
		if err := ex.tick(); err != nil {
			return true, err
		}
		id[open] = uint64(other)
		switch {
		case !skip[open]:
			v, err := ex.idm.Term(id[open])
			if err != nil {
				return true, ex.sourceErr(err, nil)
			}
			t[open] = v
		case ex.idBound(slots[open]):
			t[open] = idTerm{id[open]}
		default:
			t[open] = unusedTerm
		}
		if err := ex.bindTriple(tp, r, rid, t, &id, next); err != nil {
			return true, err
		}
	}
	return true, nil
}

// idBound reports whether a scan binds the variable in slot (-1: none)
// to its term's id: a value-read variable (folded.go) or a shared id
// variable (shared.go).
func (ex *exec) idBound(slot int) bool {
	return slot >= 0 && (ex.valueVars != nil && ex.valueVars[slot] != nil || ex.sharedIDs != nil && ex.sharedIDs[slot])
}

// cursorSource is a read view with column cursors (*graph.View).
type cursorSource interface {
	ColumnCursor(p uint64, bySubject bool) *graph.ColumnCursor
	ColumnPredicates() []uint64
}

// (Every predicate is tried for each outer solution, even on a store with
// very many predicates: the After skip makes an absent one a comparison,
// the timeout bounds the rest, and falling back to the store's index for
// some solutions would bind the pattern's join-only variables to decoded
// terms beside others bound to ids.)
//
// matchAnyPredicate matches a pattern whose predicate is an unbound
// variable ("?s ?p ?o", "<m> ?p ?o") as the union of the columns of every
// predicate, binding the variable to each predicate in turn (decoded once
// per predicate, or not at all when nothing reads it); without it such a
// pattern scans Badger and decodes every term of every quad (counting
// the distinct subjects of a 7.6 M-quad store took 18 s).
func (ex *exec) matchAnyPredicate(tp *triplePat, spo [3]quad.Value, r row, rid []uint64, lazy []bool, cur *colCursor, next func() error) (bool, error) {
	cs, ok := ex.idm.(cursorSource)
	if !ok || !tp.p.isVar() || tp.path != nil || tp.p.slot == tp.s.slot || tp.p.slot == tp.o.slot {
		return false, nil
	}
	if ex.anyPreds == nil {
		// Once per execution: the view's columns do not change.
		ex.anyPreds = cs.ColumnPredicates()
		ex.predTerms = map[uint64]quad.Value{}
	}
	preds := ex.anyPreds
	if preds == nil {
		return false, nil
	}
	slot := tp.p.slot
	skip := ex.unused[slot] || lazy != nil && lazy[slot] || ex.sharedIDs != nil && ex.sharedIDs[slot]
	// The subject's id when it alone is bound (a lookup per outer
	// solution): a predicate whose column has no subject between the
	// last one sought and the next it has is skipped without a seek.
	var key uint64
	if tp.s.isVar() && spo[0] != nil && spo[2] == nil {
		key = rid[tp.s.slot]
		if it, ok := spo[0].(idTerm); ok && key == 0 {
			key = it.id
		}
	}
	defer func() { r[slot], rid[slot] = nil, 0 }()
	for _, pid := range preds {
		if err := ex.tick(); err != nil {
			return true, err
		}
		var pv quad.Value = unusedTerm
		switch {
		case skip:
		case ex.idBound(slot):
			pv = idTerm{pid}
		default:
			v, ok := ex.predTerms[pid]
			if !ok {
				var err error
				if v, err = ex.idm.Term(pid); err != nil {
					return true, ex.sourceErr(err, nil)
				}
				ex.predTerms[pid] = v
			}
			pv = v
		}
		r[slot], rid[slot] = pv, pid
		spo[1] = pv
		// With the subject or object bound (once per outer solution),
		// each predicate's cursor walks forward from the last key.
		var pc *colCursor
		if cur != nil {
			if cur.anyPred == nil {
				cur.anyPred = map[uint64]*colCursor{}
			}
			if pc = cur.anyPred[pid]; pc == nil {
				pc = &colCursor{}
				cur.anyPred[pid] = pc
			}
			if key != 0 && pc.c != nil && pc.bySubject && key > pc.lastKey && key < pc.c.After() {
				continue
			}
			pc.lastKey = key
		}
		if _, err := ex.matchColumns(tp, spo, r, rid, lazy, pc, next); err != nil {
			return true, err
		}
	}
	return true, nil
}

// matchColumnsScan matches tp through the view's column scan
// (MatchTriplesBoundIDs).
func (ex *exec) matchColumnsScan(tp *triplePat, bound [3]uint64, skip [3]bool, slots [3]int, r row, rid []uint64, next func() error) (bool, error) {
	var cbErr error
	handled, err := ex.idm.MatchTriplesBoundIDs(ex.ctx, bound, skip, func(t [3]quad.Value, id [3]uint64) error {
		if err := ex.tick(); err != nil {
			cbErr = err
			return err
		}
		for i, sk := range skip {
			if sk {
				t[i] = unusedTerm
				if ex.idBound(slots[i]) {
					t[i] = idTerm{id[i]}
				}
			}
		}
		cbErr = ex.bindTriple(tp, r, rid, t, &id, next)
		return cbErr
	})
	if !handled {
		return false, nil
	}
	return true, ex.sourceErr(err, cbErr)
}

// bindTriple binds the variables of tp to the terms of triple t, calls next
// when they agree with r and unbinds them again. With ids (rid and id not
// nil) it records the ids of the terms it binds; a nil term of t is one
// the caller knows to equal the bound value (a hash join key matched by
// id).
// idOnly reports whether v stands for a term known only by its id
// (unusedTerm, idTerm), which sameTerm cannot compare.
func idOnly(v quad.Value) bool {
	if v == quad.Value(unusedTerm) {
		return true
	}
	_, ok := v.(idTerm)
	return ok
}

func (ex *exec) bindTriple(tp *triplePat, r row, rid []uint64, t [3]quad.Value, id *[3]uint64, next func() error) error {
	var set [3]int
	n := 0
	for i, pt := range [3]term{tp.s, tp.p, tp.o} {
		if !pt.isVar() {
			continue
		}
		if cur := r[pt.slot]; cur != nil {
			differ := t[i] != nil && !sameTerm(cur, t[i])
			if (idOnly(cur) || idOnly(t[i])) && rid != nil && id != nil && rid[pt.slot] != 0 && id[i] != 0 {
				// A variable bound without its term (twice in one
				// pattern, "?a ex:self ?a"): its ids tell.
				differ = rid[pt.slot] != id[i]
			}
			if differ {
				for j := 0; j < n; j++ {
					r[set[j]] = nil
					if rid != nil {
						rid[set[j]] = 0
					}
				}
				return nil
			}
			continue
		}
		r[pt.slot] = t[i]
		if rid != nil && id != nil {
			rid[pt.slot] = id[i]
		}
		set[n] = pt.slot
		n++
	}
	err := next()
	for j := 0; j < n; j++ {
		r[set[j]] = nil
		if rid != nil {
			rid[set[j]] = 0
		}
	}
	return err
}

// evalInSolution evaluates e as an expression of the solution r (a BIND or
// a SELECT expression): BNODE(str) calls in it share blank nodes per
// string.
func (ex *exec) evalInSolution(e expr, g gctx, r row) (quad.Value, error) {
	saved := ex.solution
	ex.bnodeSeq++
	ex.solution = ex.bnodeSeq
	v, err := ex.evalExpr(e, g, r)
	ex.solution = saved
	return v, err
}
