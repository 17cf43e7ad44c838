package sparql

import (
	"errors"
	"strconv"
)

// MINUS is an anti-join: a solution of the left side is dropped when some
// solution of the right side shares a variable with it and agrees on
// every shared one. The right side is evaluated once (exec.detached) and
// indexed as the hashed joins index theirs (rowIndex, exists.go): its rows
// are grouped by the set of variables they bind, and each group is hashed
// on the variables it shares with a left solution (built the first time
// that set of shared variables occurs), so a left solution costs one probe
// per group instead of a pass over every right row. Keys are, for one
// shared variable, probeKey forms (the ids of a shared id variable,
// shared.go; fastGroupKey forms of terms), termKey strings otherwise; a
// hit is confirmed with sameTerm. Unlike the hashed joins' tables, a
// table MINUS cannot fit in Options.MaxMemory fails the query: MINUS has
// no per-solution path to fall back on.

// minusIndex is the right side's rows and minusExcludes' buffers.
type minusIndex struct {
	*rowIndex
	sig    []byte
	shared []int
}

func newMinusIndex(rights []row) *minusIndex {
	return &minusIndex{rowIndex: newRowIndex(rights)}
}

// excludes reports whether a right row is compatible with a on at least
// one shared variable; it charges the hash tables it builds.
func (ex *exec) minusExcludes(ix *minusIndex, a row, charged *int) (bool, error) {
	for _, g := range ix.groups {
		sig, shared := ix.sig[:0], ix.shared[:0]
		for _, s := range g.slots {
			if a[s] != nil {
				shared = append(shared, s)
				sig = strconv.AppendInt(sig, int64(s), 10)
				sig = append(sig, ',')
			}
		}
		ix.sig, ix.shared = sig, shared
		if len(shared) == 0 {
			continue
		}
		tab, ok := g.tables[string(sig)]
		if !ok {
			tab = &rowTable{}
			for i, b := range g.rows {
				n := tab.add(b, shared, i, len(g.rows))
				*charged += n
				if err := ex.alloc(n); err != nil {
					return false, err
				}
			}
			g.tables[string(sig)] = tab
		}
		for _, i := range tab.candidates(a, shared) {
			if agree(a, g.rows[i], shared) {
				return true, nil
			}
		}
	}
	return false, nil
}

// minusIDs evaluates MINUS as an anti-join by ids when the only variable
// its sides can share is a shared id variable (shared.go), the common
// "solutions of L but not of R about the same subject": the right side is
// streamed into a set of the ids it binds that variable to (not
// materialized as rows, nor grouped by signature), and a left solution is
// dropped when its id is in the set. A right solution that does not bind
// the variable shares none with any left solution and drops nothing.
// handled is false when this does not apply (nothing was evaluated
// then), or when a right solution binds the variable to a term without
// an id (the general path then evaluates the right side again); a left
// solution that binds it to such a term takes the general path too.
func (ex *exec) minusIDs(x *nMinus, g gctx, in row, emit emitFn) (handled bool, err error) {
	if ex.sharedIDs == nil {
		return false, nil
	}
	left, right := varSet{}, varSet{}
	inScopeVars(x.l, left)
	for v, b := range in {
		if b != nil {
			left.add(v)
		}
	}
	inScopeVars(x.r, right)
	v := -1
	for s := range right {
		if !left.has(s) {
			continue
		}
		if v >= 0 {
			return false, nil // two could be shared
		}
		v = s
	}
	if v < 0 || !ex.sharedIDs[v] {
		return false, nil
	}
	set := map[uint64]struct{}{}
	charged := 0
	defer func() { ex.free(charged) }()
	errNoID := errors.New("no id")
	err = ex.eval(x.r, g, make(row, ex.nvars), func(b row) error {
		if err := ex.tick(); err != nil {
			return err
		}
		switch t := b[v].(type) {
		case nil:
			return nil
		case idTerm:
			if _, ok := set[t.id]; ok {
				return nil
			}
			set[t.id] = struct{}{}
			charged += mapEntryBytes + 8
			return ex.alloc(mapEntryBytes + 8)
		}
		return errNoID
	})
	if errors.Is(err, errNoID) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	// When the left side is a BGP (under its filters), its leading star
	// drops the subjects in the set as it scans them (evalStar), before
	// their other steps are read: such a solution would be dropped here
	// anyway, since a BGP's bindings reach its solutions unchanged.
	lp := x.l
	if f, ok := lp.(*nFilter); ok {
		lp = f.p
	}
	if b, ok := lp.(*nBGP); ok {
		saved := ex.anti
		ex.anti = &antiIDs{b: b, slot: v, ids: set}
		defer func() { ex.anti = saved }()
	}
	var general *minusIndex
	return true, ex.eval(x.l, g, in, func(a row) error {
		switch t := a[v].(type) {
		case nil:
			return emit(a)
		case idTerm:
			if _, ok := set[t.id]; ok {
				return nil
			}
			return emit(a)
		}
		if general == nil {
			rights, err := ex.detached(x.r, g)
			if err != nil {
				return err
			}
			general = newMinusIndex(rights)
		}
		out, err := ex.minusExcludes(general, a, &charged)
		if err != nil || out {
			return err
		}
		return emit(a)
	})
}

// antiIDs are the ids a MINUS by ids drops for slot, which the leading
// star of the BGP b (its left side) drops while it scans.
type antiIDs struct {
	b    *nBGP
	slot int
	ids  map[uint64]struct{}
}
