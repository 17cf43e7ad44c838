package sparql

import (
	"context"
	"fmt"
	"math"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// NumericRanger is an optional interface of a Source: NumericRange calls fn
// for every quad (of any graph) with predicate pred whose object is a
// numeric literal with a value in r. *graph.Store implements it (an index
// range scan on the native backend). The planner uses it for a triple
// pattern "?s <p> ?o" whose object a FILTER of the same group bounds by
// numeric comparisons with constants; the FILTER still runs, the range only
// prunes quads that cannot pass it.
type NumericRanger interface {
	NumericRange(ctx context.Context, pred quad.IRI, r graph.Range, fn func(quad.Quad) error) error
}

// fullRange is the interval of every number.
var fullRange = graph.Range{Min: math.Inf(-1), Max: math.Inf(1)}

// numericRangeFor returns the interval that the value of slot must lie in
// for every filter in filters to be true, or false when no filter bounds
// it. Only conjunctions (&&) of "?v op c" and "c op ?v" with op one of
// < <= > >= = and c a numeric constant other than NaN count: any such
// comparison is false or a type error for a non-numeric ?v (SPARQL 1.1
// section 17.3), and an error or false conjunct makes the whole && not
// true, so pruning the quads outside the interval cannot change the
// FILTER's result. A disjunction (||) contributes nothing.
//
// The interval is widened outward by one double step and two float steps
// and made inclusive: the engine compares in the promoted type (a float
// data value against a decimal constant compares as floats, rounded twice)
// while the store compares the literal's exact value, so the bounds must
// contain every value the engine could find equal to the constant.
func numericRangeFor(slot int, filters []pushed) (graph.Range, bool) {
	r := fullRange
	found := false
	var walk func(e expr)
	walk = func(e expr) {
		op, ok := e.(*eOp)
		if !ok || len(op.args) != 2 {
			return
		}
		if op.op == "&&" {
			walk(op.args[0])
			walk(op.args[1])
			return
		}
		name := op.op
		c, okc := numConst(op.args[1])
		if !isSlot(op.args[0], slot) || !okc {
			c, okc = numConst(op.args[0])
			if !isSlot(op.args[1], slot) || !okc {
				return
			}
			name = flipCmp(name)
		}
		lo, hi := widenDown(c), widenUp(c)
		switch name {
		case "<", "<=":
			r.Max = math.Min(r.Max, hi)
		case ">", ">=":
			r.Min = math.Max(r.Min, lo)
		case "=":
			r.Min = math.Max(r.Min, lo)
			r.Max = math.Min(r.Max, hi)
		default:
			return
		}
		found = true
	}
	for _, f := range filters {
		walk(f.e)
	}
	return r, found
}

func isSlot(e expr, slot int) bool {
	v, ok := e.(*eVar)
	return ok && v.slot == slot
}

// numConst reads a numeric constant (not NaN) as a double.
func numConst(e expr) (float64, bool) {
	c, ok := e.(*eConst)
	if !ok {
		return 0, false
	}
	n, ok := toNum(c.v)
	if !ok {
		return 0, false
	}
	f := n.float()
	if math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// flipCmp turns "c op ?v" into "?v op' c".
func flipCmp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// widenDown returns a number below f by at least one double step and two
// float steps (see numericRangeFor).
func widenDown(f float64) float64 {
	if math.IsInf(f, -1) {
		return f
	}
	down := float32(math.Inf(-1))
	g := math.Nextafter32(math.Nextafter32(float32(f), down), down)
	return math.Min(math.Nextafter(f, math.Inf(-1)), float64(g))
}

// widenUp is widenDown upward.
func widenUp(f float64) float64 {
	if math.IsInf(f, 1) {
		return f
	}
	up := float32(math.Inf(1))
	g := math.Nextafter32(math.Nextafter32(float32(f), up), up)
	return math.Max(math.Nextafter(f, math.Inf(1)), float64(g))
}

// planRanges marks, for each step of pl, a numeric range scan where the
// step's pattern is "?s <p> ?o" with ?s and ?o distinct and unbound before
// the step and the filters bound ?o.
func (ex *exec) planRanges(b *nBGP, bound varSet, filters []pushed, pl *bgpPlan) {
	if _, ok := ex.src.(NumericRanger); !ok || len(filters) == 0 {
		return
	}
	bnd := varSet{}
	for v := range bound {
		bnd.add(v)
	}
	for step, i := range pl.order {
		tp := &b.pats[i]
		if r, ok := rangeCandidate(tp, bnd, filters); ok && ex.rangeBeatsColumns(tp, r) {
			if pl.ranges == nil {
				pl.ranges = make([]*graph.Range, len(pl.order))
			}
			pl.ranges[step] = &r
		}
		bnd.addTerm(tp.s)
		bnd.addTerm(tp.o)
		if tp.path == nil {
			bnd.addTerm(tp.p)
		}
	}
}

// rangeBeatsColumns reports whether the range scan r of tp is cheaper
// than reading tp's predicate from the columns and filtering it with
// folded values (folded.go): a range scan reads Badger and decodes its
// objects, about 1 µs a triple, a column read with a folded filter some
// 30 ns, so the range must hold under 1/16 of the predicate. Without
// columns and values the range scan always wins.
func (ex *exec) rangeBeatsColumns(tp *triplePat, r graph.Range) bool {
	if !ex.cols || ex.vals == nil {
		return true
	}
	p, ok := tp.p.v.(quad.IRI)
	if !ok {
		return true
	}
	return !ex.rangeAtLeast(p, r, ex.estimate(ex.ctx, tp)/16)
}

// rangeCandidate reports the range for tp when it qualifies given the
// variables bound before it.
func rangeCandidate(tp *triplePat, bnd varSet, filters []pushed) (graph.Range, bool) {
	if tp.path != nil || tp.p.isVar() || !tp.s.isVar() || !tp.o.isVar() ||
		tp.s.slot == tp.o.slot || bnd.has(tp.s.slot) || bnd.has(tp.o.slot) {
		return graph.Range{}, false
	}
	if _, ok := tp.p.v.(quad.IRI); !ok {
		return graph.Range{}, false
	}
	return numericRangeFor(tp.o.slot, filters)
}

// rangeWorth reports whether a range scan over the whole predicate is
// worth it in the active graph: always for the union default graph and
// for GRAPH ?g over all named graphs; for explicit graphs only when they
// hold at least a quarter of the predicate's quads (otherwise the
// label-bound Match is cheaper than scanning and dropping other graphs).
func (ex *exec) rangeWorth(g gctx, p quad.IRI) bool {
	var labels []quad.IRI
	switch {
	case g.named:
		labels = []quad.IRI{g.label}
	case g.gvar >= 0:
		if ex.namedAll {
			return true
		}
		labels = ex.named
	case ex.defaults == nil:
		return true
	default:
		labels = ex.defaults
	}
	key := rangeWorthKey{p: p, label: g.label, named: g.named, gvar: g.gvar >= 0}
	if w, ok := ex.rangeWorthy[key]; ok {
		return w
	}
	total, err := ex.src.EstimateCount(ex.ctx, graph.Pattern{Predicate: p})
	w := err == nil
	if w {
		var in int64
		for _, l := range labels {
			n, err := ex.src.EstimateCount(ex.ctx, graph.Pattern{Predicate: p, Label: l})
			if err != nil {
				w = false
				break
			}
			in += n
		}
		w = w && in*4 >= total
	}
	ex.rangeWorthy[key] = w
	return w
}

type rangeWorthKey struct {
	p     quad.IRI
	label quad.IRI
	named bool
	gvar  bool
}

// matchRange binds the pattern "?s <p> ?o" from a numeric range scan,
// keeping only quads of the active graph and reporting a triple of the
// merged default graph once, exactly as match does.
func (ex *exec) matchRange(tp *triplePat, rg graph.Range, g gctx, r row, rid []uint64, next func() error) error {
	gv := g
	if g.gvar >= 0 && r[g.gvar] != nil {
		l, ok := r[g.gvar].(quad.IRI)
		if !ok || !ex.namedAll && !ex.namedSet[l] {
			return nil
		}
		gv = gctx{label: l, named: true, gvar: -1}
	}
	p := tp.p.v.(quad.IRI)
	s, o := tp.s.slot, tp.o.slot
	if r[s] != nil || r[o] != nil || gv.gvar == s || gv.gvar == o || !ex.rangeWorth(gv, p) {
		return ex.matchPattern(tp, g, r, rid, false, nil, nil, next)
	}
	var keep func(q quad.Quad) bool
	dedup := false
	switch {
	case gv.named:
		keep = func(q quad.Quad) bool { return q.Label == gv.label }
	case gv.gvar >= 0:
		keep = func(q quad.Quad) bool {
			_, isIRI := q.Label.(quad.IRI)
			return isIRI && (ex.namedAll || ex.namedSet[q.Label])
		}
	case ex.defaults == nil:
		keep = func(quad.Quad) bool { return true }
		dedup = true
	default:
		set := map[quad.Value]bool{}
		for _, l := range ex.defaults {
			set[l] = true
		}
		keep = func(q quad.Quad) bool { return set[q.Label] }
		dedup = len(set) > 1
	}
	if rid != nil && dedup && ex.defaults == nil {
		// The source reports each triple of the merged graphs once, with
		// the ids of its terms.
		var cbErr error
		sharedS := ex.sharedIDs != nil && ex.sharedIDs[s]
		// A value-read object (folded.go) is bound to its id, and not
		// decoded: the filters that chose the range read its number
		// from the value column.
		idO := ex.idBound(o)
		err := ex.idm.NumericRangeTriplesIDs(ex.ctx, p, rg, sharedS, idO, func(q quad.Quad, id [3]uint64) error {
			if err := ex.tick(); err != nil {
				cbErr = err
				return err
			}
			if isLiteral(q.Subject) {
				return nil
			}
			r[s], r[o], rid[s], rid[o] = q.Subject, q.Object, id[0], id[2]
			// Shared id variables are bound to ids (shared.go).
			if sharedS {
				r[s] = idTerm{id[0]}
			}
			if idO {
				r[o] = idTerm{id[2]}
			}
			cbErr = next()
			r[s], r[o], rid[s], rid[o] = nil, nil, 0, 0
			return cbErr
		})
		return ex.sourceErr(err, cbErr)
	}
	scan := ex.src.(NumericRanger).NumericRange
	var seen map[[2]quad.Value]bool
	if tm, ok := ex.src.(TripleMatcher); ok && dedup && ex.defaults == nil {
		// The source reports each triple of the merged graphs once.
		scan = tm.NumericRangeTriples
	} else if dedup {
		seen = map[[2]quad.Value]bool{}
	}
	var cbErr error
	err := scan(ex.ctx, p, rg, func(q quad.Quad) error {
		if err := ex.tick(); err != nil {
			cbErr = err
			return err
		}
		if !keep(q) || isLiteral(q.Subject) {
			return nil
		}
		if seen != nil {
			k := [2]quad.Value{q.Subject, q.Object}
			if seen[k] {
				return nil
			}
			seen[k] = true
		}
		r[s], r[o] = q.Subject, q.Object
		if gv.gvar >= 0 {
			r[gv.gvar] = q.Label
		}
		cbErr = next()
		r[s], r[o] = nil, nil
		if gv.gvar >= 0 {
			r[gv.gvar] = nil
		}
		return cbErr
	})
	if err == nil || err == cbErr {
		return err
	}
	if ctxE := ex.ctx.Err(); ctxE != nil {
		return ctxErr(ctxE)
	}
	return fmt.Errorf("sparql: numeric range: %w: %w", ErrSource, err)
}
