package sparql

import (
	"errors"
	"fmt"

	"github.com/cayleygraph/quad"
)

// procPat is one procedure call recognised in a basic graph pattern (see
// Procedure): the call pattern and the argument triples it consumed.
type procPat struct {
	pred quad.IRI
	proc Procedure
	subj term
	// input is the call's object in the constant-object form (a constant,
	// or a variable whose value at call time is the input); unset (slot
	// -1, v nil) in the blank-node form.
	input term
	// args are the blank node's properties, in the order written: a
	// constant object is an argument; a variable object is an argument
	// when it is bound when the call runs, an output otherwise.
	args []procArg
}

type procArg struct {
	prop quad.IRI
	obj  term
}

// procSplit is a BGP with its procedure calls taken out: before run with
// the bindings the BGP is entered with, then the remaining patterns (rest),
// then after: calls whose input or argument variables the remaining
// patterns bind, run once per solution of rest.
type procSplit struct {
	before, after []*procPat
	rest          *nBGP
	err           error
}

// splitProcs separates the procedure calls of b (nil when it has none).
// Variables given as a call's input or arguments are read when the call
// runs: bound by the solution the BGP is entered with, or by the BGP's
// other patterns (the call then runs after them, once per solution); a
// variable argument unbound at that point is an output.
func (ex *exec) splitProcs(b *nBGP) *procSplit {
	if len(ex.procs) == 0 {
		return nil
	}
	if s, ok := ex.procSplits[b]; ok {
		return s
	}
	var sp *procSplit
	consumed := make([]bool, len(b.pats))
	var calls []*procPat
	for i := range b.pats {
		tp := &b.pats[i]
		if tp.path != nil || tp.p.isVar() {
			continue
		}
		iri, ok := tp.p.v.(quad.IRI)
		if !ok {
			continue
		}
		proc, ok := ex.procs[iri]
		if !ok {
			continue
		}
		if sp == nil {
			sp = &procSplit{}
		}
		consumed[i] = true
		c := &procPat{pred: iri, proc: proc, subj: tp.s, input: term{slot: -1}}
		if tp.o.isVar() {
			for j := range b.pats {
				at := &b.pats[j]
				if j == i || !at.s.isVar() || at.s.slot != tp.o.slot {
					continue
				}
				consumed[j] = true
				if at.path != nil || at.p.isVar() {
					sp.err = &ArgError{Predicate: iri, Msg: "an argument of the call needs an IRI as its property"}
					continue
				}
				prop, _ := at.p.v.(quad.IRI)
				c.args = append(c.args, procArg{prop: prop, obj: at.o})
			}
		}
		if c.args == nil {
			c.input = tp.o
		}
		calls = append(calls, c)
	}
	if sp == nil {
		ex.procSplits[b] = nil
		return nil
	}
	rest := &nBGP{}
	for i, tp := range b.pats {
		if !consumed[i] {
			rest.pats = append(rest.pats, tp)
		}
	}
	sp.rest = rest
	inRest := varSet{}
	inScopeVars(rest, inRest)
	for _, c := range calls {
		late := c.input.isVar() && inRest[c.input.slot]
		for _, a := range c.args {
			if a.obj.isVar() && inRest[a.obj.slot] {
				late = true
			}
		}
		if late {
			sp.after = append(sp.after, c)
		} else {
			sp.before = append(sp.before, c)
		}
	}
	ex.procSplits[b] = sp
	return sp
}

// evalProcBGP evaluates a BGP with procedure calls: the calls that need
// nothing from the other patterns first, then the other patterns, then the
// remaining calls. Filters pushed into the BGP go to its other patterns
// when no call follows them, and are checked at the end otherwise.
func (ex *exec) evalProcBGP(sp *procSplit, g gctx, in row, filters []pushed, emit emitFn) error {
	if sp.err != nil {
		return sp.err
	}
	r := in.clone()
	var after func(i int) error
	after = func(i int) error {
		if i == len(sp.after) {
			for _, f := range filters {
				ok, err := ex.test(f.e, g, r)
				if err != nil || !ok {
					return err
				}
			}
			return emit(r)
		}
		return ex.callProc(sp.after[i], r, func() error { return after(i + 1) })
	}
	var before func(i int) error
	before = func(i int) error {
		if i < len(sp.before) {
			return ex.callProc(sp.before[i], r, func() error { return before(i + 1) })
		}
		if len(sp.after) == 0 {
			return ex.evalBGP(sp.rest, g, r, filters, emit)
		}
		return ex.evalBGP(sp.rest, g, r, nil, func(a row) error {
			saved := r
			r = a
			err := after(0)
			r = saved
			return err
		})
	}
	return before(0)
}

// callProc runs one call with the bindings of r and calls next for each
// hit, with the hit's subject and outputs bound in r (and unbound again
// after).
func (ex *exec) callProc(c *procPat, r row, next func() error) error {
	call := ProcCall{Predicate: c.pred}
	if v := ex.resolve(c.subj, r); v != nil {
		call.Subject = v
	}
	if c.args == nil {
		call.Input = ex.resolve(c.input, r)
		if call.Input == nil {
			return &ArgError{Predicate: c.pred, Msg: fmt.Sprintf("the input ?%s is not bound when the call runs", ex.q.vars[c.input.slot])}
		}
	}
	var outs []int
	for _, a := range c.args {
		if v := ex.resolve(a.obj, r); v != nil {
			if call.Args == nil {
				call.Args = map[quad.IRI]quad.Value{}
			}
			call.Args[a.prop] = v
			continue
		}
		call.Outputs = append(call.Outputs, a.prop)
		outs = append(outs, a.obj.slot)
	}
	var cbErr error
	err := c.proc.Call(ex.ctx, call, func(h ProcHit) error {
		if err := ex.tick(); err != nil {
			cbErr = err
			return err
		}
		cbErr = ex.bindHit(c, call, h, r, outs, next)
		return cbErr
	})
	if err == nil || err == cbErr {
		return err
	}
	if errors.Is(err, ErrBadCall) {
		return err
	}
	if ctxE := ex.ctx.Err(); ctxE != nil {
		return ctxErr(ctxE)
	}
	return fmt.Errorf("sparql: procedure %s: %w: %w", c.pred.String(), ErrSource, err)
}

// bindHit binds a hit's subject and outputs, joining with what r holds.
func (ex *exec) bindHit(c *procPat, call ProcCall, h ProcHit, r row, outs []int, next func() error) error {
	if h.Subject == nil || isLiteral(h.Subject) {
		return nil
	}
	if len(h.Outputs) != len(outs) && len(h.Outputs) != 0 {
		return fmt.Errorf("sparql: procedure %s: %w: a hit has %d outputs for %d requested", c.pred.String(), ErrSource, len(h.Outputs), len(outs))
	}
	var set [8]int
	setn := set[:0]
	undo := func() {
		for _, s := range setn {
			r[s] = nil
		}
	}
	bind := func(slot int, v quad.Value) bool {
		if cur := r[slot]; cur != nil {
			return sameTerm(cur, v)
		}
		r[slot] = v
		setn = append(setn, slot)
		return true
	}
	if c.subj.isVar() {
		if !bind(c.subj.slot, h.Subject) {
			undo()
			return nil
		}
	} else if !sameTerm(c.subj.v, h.Subject) {
		return nil
	}
	for i, v := range h.Outputs {
		if v == nil {
			continue
		}
		if !bind(outs[i], v) {
			undo()
			return nil
		}
	}
	err := next()
	undo()
	return err
}
