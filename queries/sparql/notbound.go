package sparql

// OPTIONAL + !BOUND as an anti-join. The idiom
//
//	{ A OPTIONAL { P } FILTER(!BOUND(?v)) }
//
// keeps the solutions of A that no solution of P is compatible with. It is
// evaluated as
//
//	{ A FILTER NOT EXISTS { P } }
//
// whose anti-join is hashed (exists.go) instead of a left join that
// extends every solution of A and then drops the extended ones.
//
// The two are equal when (checked by rewriteNotBound; otherwise nothing
// changes):
//   - the filter's group is exactly LeftJoin(A, P) with no condition (a
//     FILTER inside the OPTIONAL is kept as a condition or inside P; a
//     pattern after the OPTIONAL in the group would be seen by NOT EXISTS
//     but not by the left join);
//   - P is one BGP without property paths in which ?v occurs, so every
//     solution of P binds ?v (no nested OPTIONAL, UNION, BIND or
//     sub-select in P);
//   - ?v is used nowhere else in the whole query: its only uses are its
//     occurrences in P and this one BOUND (counted by useCounter over the
//     query, so A does not bind ?v, nothing projects, orders, groups or
//     filters on it, and no other scope shares its slot);
//   - !BOUND(?v) is a condition of the filter or a conjunct of one (under
//     && only: under || or ! a matched row could survive).
//
// Then a solution μ of A with some compatible solution of P yields only
// rows with ?v bound, all dropped, exactly when NOT EXISTS { P } (P with
// μ substituted) is false; one without yields the single row μ, with P's
// variables unbound as without the OPTIONAL, and the other conditions
// and conjuncts see the same row either way (a conjunct false on the
// dropped rows makes && false whatever the rest is). Sharing a variable
// with A is not needed: a P sharing none is compatible with every μ or
// with none, on both sides.

// rewriteNotBound returns the filter x rewritten as above, or nil when it
// does not apply. The result is cached per execution, so plans memoized
// per node (splitFilters) are reused.
func (ex *exec) rewriteNotBound(x *nFilter) *nFilter {
	if ex.notBound == nil {
		return nil
	}
	if r, ok := ex.notBound[x]; ok {
		return r
	}
	var r *nFilter
	if lj, ok := x.p.(*nLeftJoin); ok && lj.cond == nil {
		if b, ok := lj.r.(*nBGP); ok && ex.bgpWithoutPaths(b) {
			conds := make([]expr, len(x.conds))
			changed := false
			for i, c := range x.conds {
				conds[i] = ex.replaceNotBound(c, b, &changed)
			}
			if changed {
				// A filter placed on A (placeFilters) merges with
				// this one, so a BGP below gets them all.
				r = &nFilter{conds: conds, p: lj.l}
				if f, ok := lj.l.(*nFilter); ok {
					r = &nFilter{conds: append(append([]expr{}, f.conds...), conds...), p: f.p}
				}
			}
		}
	}
	ex.notBound[x] = r
	return r
}

func (ex *exec) bgpWithoutPaths(b *nBGP) bool {
	for _, tp := range b.pats {
		if tp.path != nil {
			return false
		}
	}
	return len(b.pats) > 0
}

// replaceNotBound replaces the first !BOUND(?v) among the conjuncts of c
// whose ?v qualifies (see above) with NOT EXISTS { b }.
func (ex *exec) replaceNotBound(c expr, b *nBGP, changed *bool) expr {
	if *changed {
		return c
	}
	op, ok := c.(*eOp)
	if !ok {
		return c
	}
	switch op.op {
	case "&&":
		args := make([]expr, len(op.args))
		for i, a := range op.args {
			args[i] = ex.replaceNotBound(a, b, changed)
		}
		if *changed {
			return &eOp{op: "&&", args: args}
		}
	case "!":
		call, ok := op.args[0].(*eCall)
		if !ok || call.name != "BOUND" {
			return c
		}
		v, ok := call.args[0].(*eVar)
		if !ok || v.slot < 0 || v.slot >= len(ex.uses) {
			return c
		}
		occ := 0
		for _, tp := range b.pats {
			for _, t := range [3]term{tp.s, tp.p, tp.o} {
				if t.isVar() && t.slot == v.slot {
					occ++
				}
			}
		}
		// useCounter: 1 per occurrence in a triple pattern, 2 for
		// the read by BOUND.
		if occ > 0 && ex.uses[v.slot] == occ+2 {
			*changed = true
			return &eExists{not: true, p: b}
		}
	}
	return c
}
