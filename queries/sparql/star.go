package sparql

import (
	"math"
	"slices"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// Star joins in id batches. The commonest BGP over molecules is a star:
// one subject variable and several constant predicates, each object a
// fresh variable or a constant ("?m a mg:Molecule ; mg:logP ?l ; mg:hbd
// ?h"), with filters over the objects. Evaluated step by step, each triple
// of each step costs a bound variable, a continuation call and a filter
// evaluation per solution (most of the time of a star over 100,000
// molecules). When a BGP's plan starts with such a star (starSegment), the
// steps of the star run over batches of ids instead: the first step's
// column scan fills a batch of (subject, object) ids; each further step
// looks the batch's subjects up through its column cursor (in ascending
// order, so the cursor walks its column forward, a merge join) and
// appends the objects it finds, and the filters placed after a step that
// compare its object with a numeric constant are evaluated on the object
// ids through the value column (folded.go) while the batch is built, so a
// pruned solution is never bound. Only the solutions that pass every
// step of the star are bound into the row (decoding then only the terms
// of variables that need them) and go on through the rest of the plan.
// Results are those of the step-by-step evaluation, in the same order.

// starBatch is the number of solutions a batch holds before it is passed
// on to the next step.
const starBatch = 1024

// starSeg is the star a BGP's plan starts with: its first len(steps) steps.
type starSeg struct {
	subj  int // the subject's slot
	steps []starStep
	// kind of each slot the star binds: how it is bound (starDecode,
	// starID, starUnused), as matchColumns and matchCursor bind it.
	kind map[int]starKind
}

// starStep is one step of a star.
type starStep struct {
	tp   *triplePat
	obj  int       // the object's slot; -1: the object is a constant
	comp []starCmp // the step's filters, compiled over the object's id
	rest []expr    // its other filters (only the star's last step has any)
}

// starCmp is a filter "?obj op c" with c a numeric constant and ?obj
// bound to its id (the variable's side normalized to the left).
type starCmp struct {
	e  expr // the filter, evaluated as a term for ids without a number
	op string
	c  num
	// The comparison on the commonest folded kinds without building a
	// num: want holds the outcomes of the comparison (cmpLess, cmpEqual,
	// cmpMore) that pass; cd is c promoted to a double (a double or an
	// integer compared with a double constant), ci c as an integer when
	// it is one (cInt).
	want uint8
	cd   float64
	ci   int64
	cInt bool
	// in, when set, makes the filter "?obj IN (c1, ...)" (NOT IN with
	// notIn): each an "=" comparison, passed when one passes (none).
	in    []starCmp
	notIn bool
}

// The outcomes of a comparison, as bits of starCmp.want.
const (
	cmpLess uint8 = 1 << iota
	cmpEqual
	cmpMore
)

// wantOf is the set of outcomes that pass the comparison op.
func wantOf(op string) uint8 {
	switch op {
	case "=":
		return cmpEqual
	case "!=":
		return cmpLess | cmpMore
	case "<":
		return cmpLess
	case ">":
		return cmpMore
	case "<=":
		return cmpLess | cmpEqual
	}
	return cmpMore | cmpEqual
}

type starKind uint8

const (
	starDecode starKind = iota
	starID
	starUnused
)

// starSegment returns the star the plan pl of b starts with (nil when it
// does not start with one worth batching); bound are the variables bound
// before the BGP. It is computed once per plan.
func (ex *exec) starSegment(b *nBGP, pl *bgpPlan, bound varSet) *starSeg {
	if pl.starDone {
		return pl.star
	}
	pl.starDone = true
	if !ex.cols || ex.idm == nil {
		return nil
	}
	kindOf := func(slot int) starKind {
		skip := ex.unused[slot] || pl.lazy != nil && pl.lazy[slot] || ex.sharedIDs != nil && ex.sharedIDs[slot]
		switch {
		case !skip:
			return starDecode
		case ex.idBound(slot):
			return starID
		}
		return starUnused
	}
	sg := &starSeg{subj: -1, kind: map[int]starKind{}}
	for i, pi := range pl.order {
		tp := &b.pats[pi]
		if tp.path != nil || tp.p.isVar() || !tp.s.isVar() || bound.has(tp.s.slot) {
			break
		}
		if _, ok := tp.p.v.(quad.IRI); !ok {
			break
		}
		if pl.ranges != nil && pl.ranges[i] != nil {
			break
		}
		if i == 0 {
			sg.subj = tp.s.slot
			sg.kind[sg.subj] = kindOf(sg.subj)
		} else if tp.s.slot != sg.subj {
			break
		}
		st := starStep{tp: tp, obj: -1}
		if tp.o.isVar() {
			if _, seen := sg.kind[tp.o.slot]; seen || bound.has(tp.o.slot) {
				break
			}
			st.obj = tp.o.slot
			sg.kind[st.obj] = kindOf(st.obj)
		}
		for _, f := range pl.filters[i] {
			if c, ok := ex.starCompile(f, st.obj, sg.kind); ok {
				st.comp = append(st.comp, c)
			} else {
				st.rest = append(st.rest, f)
			}
		}
		sg.steps = append(sg.steps, st)
		if len(st.rest) > 0 {
			break
		}
	}
	if len(sg.steps) < 2 && (len(sg.steps) == 0 || len(sg.steps[0].comp) == 0) {
		return nil
	}
	pl.star = sg
	return sg
}

// starCompile compiles a filter comparing the object in slot obj, bound
// to its id, with a numeric constant.
func (ex *exec) starCompile(f expr, obj int, kind map[int]starKind) (starCmp, bool) {
	if obj < 0 || kind[obj] != starID || ex.vals == nil {
		return starCmp{}, false
	}
	if x, ok := f.(*eIn); ok {
		return starCompileIn(f, x, obj)
	}
	x, ok := f.(*eOp)
	if !ok || len(x.args) != 2 {
		return starCmp{}, false
	}
	switch x.op {
	case "=", "!=", "<", ">", "<=", ">=":
	default:
		return starCmp{}, false
	}
	op := x.op
	v, okv := x.args[0].(*eVar)
	c, okc := x.args[1].(*eConst)
	if !okv || !okc {
		v, okv = x.args[1].(*eVar)
		c, okc = x.args[0].(*eConst)
		op = flipCmp(op)
	}
	if !okv || !okc || v.slot != obj || !c.isNum {
		return starCmp{}, false
	}
	sc := starCmp{e: f, op: op, c: c.n, want: wantOf(op), cd: c.n.as(kDouble).f}
	sc.ci, sc.cInt = c.n.i, c.n.k == kInt
	return sc, true
}

// starCompileIn compiles "?obj IN (c1, ...)" or NOT IN over numeric
// constants, as foldedIn evaluates it on a folded number (equal to one of
// the constants by numeric comparison).
func starCompileIn(f expr, x *eIn, obj int) (starCmp, bool) {
	v, ok := x.left.(*eVar)
	if !ok || v.slot != obj || len(x.list) == 0 {
		return starCmp{}, false
	}
	sc := starCmp{e: f, notIn: x.not}
	for _, it := range x.list {
		c, ok := it.(*eConst)
		if !ok || !c.isNum {
			return starCmp{}, false
		}
		eq := starCmp{e: f, op: "=", c: c.n, want: cmpEqual, cd: c.n.as(kDouble).f}
		eq.ci, eq.cInt = c.n.i, c.n.k == kInt
		sc.in = append(sc.in, eq)
	}
	return sc, true
}

// starPass evaluates the compiled filters of st on the object id o, as
// foldedOp would on the variable bound to it; an id the value column has
// no number for is evaluated as a term, with the variable bound in r.
func (ex *exec) starPass(st *starStep, o uint64, g gctx, r row) (bool, error) {
	for i := range st.comp {
		c := &st.comp[i]
		n, ok := ex.idNum(o)
		if !ok {
			r[st.obj] = idTerm{o}
			pass, err := ex.test(c.e, g, r)
			r[st.obj] = nil
			if err != nil || !pass {
				return false, err
			}
			continue
		}
		if !c.pass(n) {
			return false, nil
		}
	}
	return true, nil
}

// pass reports whether the number n passes the comparison c.
func (c *starCmp) pass(n num) bool {
	if c.in != nil {
		for i := range c.in {
			if c.in[i].pass(n) {
				return !c.notIn
			}
		}
		return c.notIn
	}
	d, ok := cmpNum(n, c.c)
	switch c.op {
	case "=":
		return ok && d == 0
	case "!=":
		return !(ok && d == 0)
	case "<":
		return ok && d < 0
	case ">":
		return ok && d > 0
	case "<=":
		return ok && d <= 0
	}
	return ok && d >= 0
}

// passBits is pass on a folded value read from the value column, for a
// double compared with any numeric constant or an integer compared with
// an integer or a double (numeric promotion, 17.3 of the recommendation,
// turns both sides into doubles, or leaves two integers); fast is false
// for the other kinds, which take pass.
func (c *starCmp) passBits(k graph.ValueKind, bits uint64) (pass, fast bool) {
	if c.in != nil {
		for i := range c.in {
			p, fast := c.in[i].passBits(k, bits)
			if !fast {
				return false, false
			}
			if p {
				return !c.notIn, true
			}
		}
		return c.notIn, true
	}
	var out uint8
	switch {
	case k == graph.ValueDouble || k == graph.ValueInteger && !c.cInt && c.c.k == kDouble:
		f := math.Float64frombits(bits)
		if k == graph.ValueInteger {
			f = float64(int64(bits))
		}
		switch {
		case f < c.cd:
			out = cmpLess
		case f > c.cd:
			out = cmpMore
		case f == c.cd:
			out = cmpEqual
		default: // NaN: no order; only != passes
			return c.want == cmpLess|cmpMore, true
		}
	case k == graph.ValueInteger && c.cInt:
		switch i := int64(bits); {
		case i < c.ci:
			out = cmpLess
		case i > c.ci:
			out = cmpMore
		default:
			out = cmpEqual
		}
	default:
		return false, false
	}
	return c.want&out != 0, true
}

// passFolded evaluates the compiled filters of st on a folded value (as
// starPass on an id with that value); ok is false when the value is no
// number (the filters then need the term).
func (st *starStep) passFolded(tv graph.TermValue) (pass, ok bool) {
	for i := range st.comp {
		c := &st.comp[i]
		p, fast := c.passBits(tv.Kind, tv.Bits)
		if !fast {
			n, ok := numOf(tv)
			if !ok {
				return false, false
			}
			p = c.pass(n)
		}
		if !p {
			return false, true
		}
	}
	return true, true
}

// passBatch sets keep[i] to whether object objs[i] passes the compiled
// filters of st, reading the values of the whole batch from the value
// column at once (graph.TermValues.Gather) before comparing them; an id
// without a folded number is evaluated as a term (starPass).
func (sr *starRun) passBatch(st *starStep, objs []uint32, keep []bool) error {
	if len(st.comp) == 0 {
		for i := range objs {
			keep[i] = true
		}
		return nil
	}
	if cap(sr.kinds) < len(objs) {
		sr.kinds = make([]graph.ValueKind, len(objs))
		sr.bits = make([]uint64, len(objs))
	}
	kinds, bits := sr.kinds[:len(objs)], sr.bits[:len(objs)]
	sr.vals.Gather(objs, kinds, bits)
	ex := sr.ex
	for i := range objs {
		pass, ok := st.passFolded(graph.TermValue{Kind: kinds[i], Bits: bits[i]})
		if ok {
			ex.folds += len(st.comp)
			keep[i] = pass
			continue
		}
		pass, err := ex.starPass(st, uint64(objs[i]), sr.g, sr.r)
		if err != nil {
			return err
		}
		keep[i] = pass
	}
	return nil
}

// filterFirst keeps the solutions of the batch in (the raw output of the
// star's first step's scan) that pass the first step's compiled filters.
func (sr *starRun) filterFirst(in *starLevel) error {
	first := &sr.sg.steps[0]
	if first.obj < 0 || len(first.comp) == 0 || len(in.s) == 0 {
		return nil
	}
	keep := sr.keepBuf(len(in.s))
	if err := sr.passBatch(first, in.o[0], keep); err != nil {
		return err
	}
	n := 0
	for t, k := range keep {
		if k {
			in.s[n], in.o[0][n] = in.s[t], in.o[0][t]
			n++
		}
	}
	in.s, in.o[0] = in.s[:n], in.o[0][:n]
	return nil
}

// keepBuf returns sr's keep buffer with room for n flags.
func (sr *starRun) keepBuf(n int) []bool {
	if cap(sr.keep) < n {
		sr.keep = make([]bool, n)
	}
	return sr.keep[:n]
}

// starLevel is the batch of solutions entering one step of a star: the
// subjects' ids and, per earlier step with a variable object, the
// objects' ids.
type starLevel struct {
	s []uint32
	o [][]uint32
}

func (l *starLevel) reset() {
	l.s = l.s[:0]
	for i := range l.o {
		l.o[i] = l.o[i][:0]
	}
}

// starRun is one evaluation of a star.
type starRun struct {
	ex   *exec
	sg   *starSeg
	g    gctx
	r    row
	rid  []uint64
	then func() error
	curs []*graph.ColumnCursor
	cs   cursorSource
	// vals is ex.vals, read by the helpers (star_par.go).
	vals *graph.TermValues
	// pid are the ids of the steps' predicates, oid those of their
	// constant objects.
	pid, oid []uint64
	lv       []starLevel // lv[j]: the batch entering step j (j >= 1)
	// Buffers of passBatch and filterFirst: the values of a batch's
	// objects and the flags of those that pass; cands[j], step j's
	// candidates (levelFiltered; one per step, since a step's flush runs
	// the next steps before it is done).
	kinds []graph.ValueKind
	bits  []uint64
	keep  []bool
	cands []starCands
}

// starCands are a filtered step's candidate objects, the index of the
// solution each extends, and whether each passes.
type starCands struct {
	o    []uint32
	t    []int32
	keep []bool
}

// evalStar evaluates the star sg of the BGP b in id batches and calls
// then for each solution it binds into r (and its ids into rid), leaving
// out the subjects of a MINUS by ids whose left side b is (ex.anti);
// handled is
// false when the view cannot read the star's columns (nothing was
// called then).
func (ex *exec) evalStar(b *nBGP, sg *starSeg, g gctx, r row, rid []uint64, then func() error) (handled bool, err error) {
	var anti map[uint64]struct{}
	if a := ex.anti; a != nil && a.b == b && a.slot == sg.subj {
		anti = a.ids
	}
	cs, ok := ex.idm.(cursorSource)
	if !ok {
		return false, nil
	}
	k := len(sg.steps)
	sr := &starRun{ex: ex, sg: sg, g: g, r: r, rid: rid, then: then, cs: cs, vals: ex.vals,
		curs: make([]*graph.ColumnCursor, k), oid: make([]uint64, k), lv: make([]starLevel, k+1)}
	var pred [3]uint64
	sr.pid = make([]uint64, k)
	for j := range sg.steps {
		st := &sg.steps[j]
		p, err := ex.idm.TermID(st.tp.p.v)
		if err != nil {
			return true, ex.sourceErr(err, nil)
		}
		if p == 0 {
			return true, nil // not stored: nothing matches
		}
		sr.pid[j] = p
		if st.obj < 0 {
			if sr.oid[j], err = ex.idm.TermID(st.tp.o.v); err != nil {
				return true, ex.sourceErr(err, nil)
			}
			if sr.oid[j] == 0 {
				return true, nil
			}
		}
		if j == 0 {
			pred = [3]uint64{0, p, sr.oid[0]}
			continue
		}
		if sr.curs[j] = cs.ColumnCursor(p, true); sr.curs[j] == nil {
			return false, nil
		}
	}
	for j := 1; j <= k; j++ {
		sr.lv[j].o = make([][]uint32, k)
	}
	first := &sg.steps[0]
	in := &sr.lv[1]
	var cbErr error
	// After parAfter batches run here, the rest may be shared with
	// helper goroutines (star_par.go): the scan then passes its raw
	// batches (before the first step's filters) to par.
	var par *starPar
	batches := 0
	defer func() {
		if par != nil {
			par.stop()
		}
	}()
	handled, err = ex.idm.MatchTriplesBoundIDs(ex.ctx, pred, [3]bool{true, false, true}, func(_ [3]quad.Value, id [3]uint64) error {
		if err := ex.tick(); err != nil {
			cbErr = err
			return err
		}
		if anti != nil {
			if _, out := anti[id[0]]; out {
				return nil
			}
		}
		if par != nil {
			cbErr = par.add(uint32(id[0]), uint32(id[2]))
			return cbErr
		}
		if first.obj >= 0 {
			in.o[0] = append(in.o[0], uint32(id[2]))
		}
		in.s = append(in.s, uint32(id[0]))
		if len(in.s) >= starBatch {
			if cbErr = sr.filterFirst(in); cbErr == nil {
				cbErr = sr.level(1)
			}
			in.reset()
			if batches++; cbErr == nil && batches >= ex.parAfter {
				par = sr.startPar()
			}
		}
		return cbErr
	})
	if !handled {
		return false, nil
	}
	if err != nil || cbErr != nil {
		return true, ex.sourceErr(err, cbErr)
	}
	// The last batch's errors (sourceErr would drop them: err is nil).
	if len(in.s) > 0 {
		if err = sr.filterFirst(in); err == nil {
			err = sr.level(1)
		}
		in.reset()
	}
	if err == nil && par != nil {
		err = par.finish()
	}
	return true, err
}

// level runs the batch lv[j] through step j (or binds its solutions when
// j is past the star's last step).
func (sr *starRun) level(j int) error {
	ex := sr.ex
	if err := ex.ctx.Err(); err != nil {
		return ctxErr(err)
	}
	in := &sr.lv[j]
	if j == len(sr.sg.steps) {
		return sr.bind(in)
	}
	st := &sr.sg.steps[j]
	out := &sr.lv[j+1]
	cur := sr.curs[j]
	if st.obj >= 0 && len(st.comp) > 0 {
		return sr.levelFiltered(j)
	}
	for t, s := range in.s {
		objs := cur.Seek(uint64(s))
		if len(objs) == 0 {
			continue
		}
		if st.obj < 0 {
			if _, found := slices.BinarySearch(objs, uint32(sr.oid[j])); found {
				sr.push(in, t, j, 0)
			}
		} else {
			for _, o := range objs {
				if len(st.comp) > 0 {
					pass, err := ex.starPass(st, uint64(o), sr.g, sr.r)
					if err != nil {
						return err
					}
					if !pass {
						continue
					}
				}
				sr.push(in, t, j, o)
			}
		}
		if len(out.s) >= starBatch {
			if err := sr.level(j + 1); err != nil {
				return err
			}
			out.reset()
		}
	}
	if len(out.s) > 0 {
		err := sr.level(j + 1)
		out.reset()
		return err
	}
	return nil
}

// levelFiltered is level for a step with a variable object and compiled
// filters: the objects the batch's subjects have are collected first and
// filtered together (passBatch), then the solutions that pass are pushed
// on in the same order as level would.
func (sr *starRun) levelFiltered(j int) error {
	in := &sr.lv[j]
	st := &sr.sg.steps[j]
	out := &sr.lv[j+1]
	cur := sr.curs[j]
	if sr.cands == nil {
		sr.cands = make([]starCands, len(sr.sg.steps))
	}
	c := &sr.cands[j]
	flush := func() error {
		if cap(c.keep) < len(c.o) {
			c.keep = make([]bool, len(c.o))
		}
		keep := c.keep[:len(c.o)]
		if err := sr.passBatch(st, c.o, keep); err != nil {
			return err
		}
		for i, k := range keep {
			if !k {
				continue
			}
			sr.push(in, int(c.t[i]), j, c.o[i])
			if len(out.s) >= starBatch {
				if err := sr.level(j + 1); err != nil {
					return err
				}
				out.reset()
			}
		}
		c.o, c.t = c.o[:0], c.t[:0]
		return nil
	}
	c.o, c.t = c.o[:0], c.t[:0]
	for t, s := range in.s {
		for _, o := range cur.Seek(uint64(s)) {
			c.o = append(c.o, o)
			c.t = append(c.t, int32(t))
		}
		if len(c.o) >= starBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if len(c.o) > 0 {
		if err := flush(); err != nil {
			return err
		}
	}
	if len(out.s) > 0 {
		err := sr.level(j + 1)
		out.reset()
		return err
	}
	return nil
}

// push appends solution t of in, extended by step j's object o, to the
// batch entering step j+1.
func (sr *starRun) push(in *starLevel, t, j int, o uint32) {
	pushTo(sr.sg.steps, in, &sr.lv[j+1], t, j, o)
}

// pushTo appends solution t of in, extended by step j's object o, to out.
func pushTo(steps []starStep, in, out *starLevel, t, j int, o uint32) {
	out.s = append(out.s, in.s[t])
	for i := 0; i < j; i++ {
		if steps[i].obj >= 0 {
			out.o[i] = append(out.o[i], in.o[i][t])
		}
	}
	if steps[j].obj >= 0 {
		out.o[j] = append(out.o[j], o)
	}
}

// value is what slot is bound to for the term with id id.
func (sr *starRun) value(slot int, id uint64) (quad.Value, error) {
	switch sr.sg.kind[slot] {
	case starID:
		return idTerm{id}, nil
	case starUnused:
		return unusedTerm, nil
	}
	v, err := sr.ex.idm.Term(id)
	if err != nil {
		return nil, sr.ex.sourceErr(err, nil)
	}
	return v, nil
}

// bind binds each solution of the batch into the row (and its ids into
// rid), checks the last step's other filters and calls then.
func (sr *starRun) bind(in *starLevel) (err error) {
	sg, r, rid := sr.sg, sr.r, sr.rid
	last := &sg.steps[len(sg.steps)-1]
	if sr.vals != nil {
		// The values of the objects bound to their ids, for what reads
		// them next (valueCache).
		for i, st := range sg.steps {
			if st.obj < 0 || sg.kind[st.obj] != starID || len(in.o[i]) == 0 {
				continue
			}
			if sr.ex.vcache == nil {
				sr.ex.vcache = &valueCache{}
			}
			n := len(in.o[i])
			if cap(sr.kinds) < n {
				sr.kinds = make([]graph.ValueKind, n)
				sr.bits = make([]uint64, n)
			}
			sr.ex.vcache.fill(sr.vals, in.o[i], sr.kinds[:n], sr.bits[:n])
		}
	}
	defer func() {
		r[sg.subj], rid[sg.subj] = nil, 0
		for _, st := range sg.steps {
			if st.obj >= 0 {
				r[st.obj], rid[st.obj] = nil, 0
			}
		}
	}()
next:
	for t, s := range in.s {
		if r[sg.subj], err = sr.value(sg.subj, uint64(s)); err != nil {
			return err
		}
		rid[sg.subj] = uint64(s)
		for i, st := range sg.steps {
			if st.obj < 0 {
				continue
			}
			o := uint64(in.o[i][t])
			if r[st.obj], err = sr.value(st.obj, o); err != nil {
				return err
			}
			rid[st.obj] = o
		}
		for _, f := range last.rest {
			ok, err := sr.ex.test(f, sr.g, r)
			if err != nil {
				return err
			}
			if !ok {
				continue next
			}
		}
		if err := sr.then(); err != nil {
			return err
		}
	}
	return nil
}
