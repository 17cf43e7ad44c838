package quadstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// View is a read-only view of one commit for a run of many small reads, as
// a query's index nested-loop join makes: it keeps one Badger transaction
// and a pool of iterators that each lookup re-seeks (instead of a new
// transaction and iterator per call), remembers the ids of the terms it
// resolved and the node counts it read, and decodes only the positions of a
// matched quad that the pattern leaves open. A View is not safe for
// concurrent use; Close it when done.
type View struct {
	s      *Store
	ts     uint64
	txn    *badger.Txn
	free   []*badger.Iterator
	ids    map[quad.Value]uint64 // resolved terms; 0: not stored
	counts map[uint64][4]uint64
	buf    []byte
	closed bool
	pinned bool // Close unpins ts (NewView); a view at a caller's ts does not
	// cols are the store's columns when they were built from ts (nil
	// otherwise): triple scans with the predicate bound read them.
	cols *Columns
}

// MatchOptions tune View.Match and View.NumericRange.
type MatchOptions struct {
	// Triples reports each triple (subject, predicate, object) once however
	// many graphs hold it, skips the default graph (label 0) and leaves the
	// Label of the reported quads nil: the RDF merge of the named graphs,
	// without decoding graph names. It only applies when the pattern's
	// Label is nil.
	Triples bool
	// Skip lists positions (subject, predicate, object, label) whose terms
	// are not decoded (left nil) by MatchIDs and NumericRangeIDs: the
	// caller uses their ids.
	Skip [4]bool
}

// NewView returns a view of the last committed state.
func (s *Store) NewView() (*View, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	v := s.viewAt(s.pin())
	v.pinned = true
	return v, nil
}

// viewAt returns a view of the commit at ts, which the caller keeps pinned
// until the view is closed.
func (s *Store) viewAt(ts uint64) *View {
	v := &View{s: s, ts: ts, txn: s.db.NewTransactionAt(ts, false),
		ids: make(map[quad.Value]uint64), counts: make(map[uint64][4]uint64)}
	if c := s.cols.Load(); c != nil && c.ts == ts {
		v.cols = c
	}
	return v
}

// Columns returns the columns the view reads, nil when it has none (not
// built yet, or built from another commit).
func (v *View) Columns() *Columns { return v.cols }

// Close releases the view's iterators, transaction and snapshot. It always
// returns nil.
func (v *View) Close() error {
	if v.closed {
		return nil
	}
	v.closed = true
	for _, it := range v.free {
		it.Close()
	}
	v.free = nil
	v.txn.Discard()
	if v.pinned {
		v.s.unpin(v.ts)
	}
	return nil
}

// iterator returns an idle iterator of the view's transaction; put gives
// it back. Nested lookups (a callback that matches again) take another.
func (v *View) iterator() *badger.Iterator {
	if n := len(v.free); n > 0 {
		it := v.free[n-1]
		v.free = v.free[:n-1]
		return it
	}
	return v.txn.NewIterator(badger.IteratorOptions{})
}

func (v *View) put(it *badger.Iterator) { v.free = append(v.free, it) }

// cacheable reports whether a term can be a key of the view's id map
// (every comparable quad type; others are resolved each time).
func cacheable(t quad.Value) bool {
	switch t.(type) {
	case quad.IRI, quad.BNode, quad.String, quad.TypedString, quad.LangString, quad.Int, quad.Float, quad.Bool:
		return true
	}
	return false
}

// id returns the id of term t in the view's commit (0 when not stored).
func (v *View) id(t quad.Value) (uint64, error) {
	c := cacheable(t)
	if c {
		if id, ok := v.ids[t]; ok {
			return id, nil
		}
	}
	var err error
	v.buf, err = AppendTerm(v.buf[:0], t)
	if err != nil {
		return 0, err
	}
	id, found, err := v.s.lookupID(v.txn, v.ts, v.buf)
	if err != nil {
		return 0, err
	}
	if !found {
		id = 0
	}
	if c {
		v.ids[t] = id
	}
	return id, nil
}

func (v *View) resolve(terms [4]quad.Value) (bound ids, mask [4]bool, ok bool, err error) {
	for d, t := range terms {
		if t == nil {
			continue
		}
		id, err := v.id(t)
		if err != nil || id == 0 {
			return bound, mask, false, err
		}
		bound[d], mask[d] = id, true
	}
	return bound, mask, true, nil
}

func (v *View) nodeCounts(id uint64) ([4]uint64, error) {
	if c, ok := v.counts[id]; ok {
		return c, nil
	}
	c, _, err := v.s.counts(v.txn, id)
	if err != nil {
		return c, err
	}
	v.counts[id] = c
	return c, nil
}

// plan is Store.plan with the node counts remembered.
func (v *View) plan(bound ids, mask [4]bool) (scanSpec, error) {
	best, bestN := 0, -1
	var bestCount uint64
	for i, ix := range indexes {
		n := ix.prefixLen(mask)
		if n < bestN || n == bestN && n != 1 {
			continue
		}
		var c uint64 = math.MaxUint64
		if n == 1 {
			cs, err := v.nodeCounts(bound[ix.dims[0]])
			if err != nil {
				return scanSpec{}, err
			}
			c = cs[ix.dims[0]]
		}
		if n > bestN || c < bestCount {
			best, bestN, bestCount = i, n, c
		}
	}
	ix := indexes[best]
	return scanSpec{ix: ix, n: bestN, bound: bound, mask: mask, prefix: ix.prefixKey(bound, bestN)}, nil
}

// name returns the term of id (nil for 0, the default graph).
func (v *View) name(id uint64) (quad.Value, error) { return v.s.name(v.txn, id) }

// Match calls fn for every quad matching p (as Store.Match, or as the
// triples of the named graphs with opt.Triples), until fn returns an error,
// which Match returns. The bound terms of p are reported as given.
func (v *View) Match(ctx context.Context, p Pattern, opt MatchOptions, fn func(quad.Quad) error) error {
	opt.Skip = [4]bool{}
	return v.MatchIDs(ctx, p, opt, func(q quad.Quad, _ [4]uint64) error { return fn(q) })
}

// ID returns the id of term t in the view's commit, 0 when t is not stored.
func (v *View) ID(t quad.Value) (uint64, error) {
	if v.closed || v.s.closed.Load() {
		return 0, ErrClosed
	}
	return v.id(t)
}

// MatchIDs is Match that also passes the ids of each quad's terms (0 for
// the label with opt.Triples) and does not decode the positions in
// opt.Skip.
func (v *View) MatchIDs(ctx context.Context, p Pattern, opt MatchOptions, fn func(quad.Quad, [4]uint64) error) error {
	if v.closed || v.s.closed.Load() {
		return ErrClosed
	}
	terms := p.terms()
	bound, mask, ok, err := v.resolve(terms)
	if err != nil {
		return fmt.Errorf("match: %w", err)
	}
	if !ok {
		return nil
	}
	triples := opt.Triples && !mask[3]
	out := quad.Quad{Subject: terms[0], Predicate: terms[1], Object: terms[2], Label: terms[3]}
	// Bound terms are reported as given, but for types whose Go value
	// does not round-trip exactly (time zones), which are decoded.
	var decode [4]bool
	for d := range decode {
		decode[d] = (!mask[d] && !(d == 3 && triples) || mask[d] && !cacheable(terms[d])) && !opt.Skip[d]
	}
	if triples && mask[1] && v.cols != nil {
		return v.cols.scan(ctx, bound, mask, func(q ids) error {
			for d := 0; d < 3; d++ {
				if !decode[d] {
					continue
				}
				t, err := v.name(q[d])
				if err != nil {
					return fmt.Errorf("match: %w", err)
				}
				out.Set(quad.Direction(d+1), t)
			}
			return fn(out, q)
		})
	}
	sp, err := v.plan(bound, mask)
	if err != nil {
		return fmt.Errorf("match: %w", err)
	}
	it := v.iterator()
	defer v.put(it)
	var prev ids
	havePrev := false
	return scanIter(ctx, it, &sp, func(q ids) error {
		if triples {
			// With the label open, the label is the last dimension of
			// the index used, so copies of a triple are adjacent.
			if q[3] == 0 || havePrev && q[0] == prev[0] && q[1] == prev[1] && q[2] == prev[2] {
				return nil
			}
			prev, havePrev = q, true
		}
		for d := 0; d < 4; d++ {
			if !decode[d] {
				continue
			}
			t, err := v.name(q[d])
			if err != nil {
				return fmt.Errorf("match: %w", err)
			}
			out.Set(quad.Direction(d+1), t)
		}
		if triples {
			q[3] = 0
		}
		return fn(out, q)
	})
}

// Count is Store.Count read from the view.
func (v *View) Count(ctx context.Context, p Pattern) (int64, error) {
	if v.closed || v.s.closed.Load() {
		return 0, ErrClosed
	}
	bound, mask, ok, err := v.resolve(p.terms())
	if err != nil || !ok {
		return 0, err
	}
	switch boundCount(mask) {
	case 0:
		st, err := v.s.readState(v.ts)
		return int64(st.quads), err
	case 1:
		for d, b := range mask {
			if b {
				c, err := v.nodeCounts(bound[d])
				return int64(c[d]), err
			}
		}
	}
	sp, err := v.plan(bound, mask)
	if err != nil {
		return 0, err
	}
	it := v.iterator()
	defer v.put(it)
	var n int64
	err = scanIter(ctx, it, &sp, func(ids) error { n++; return nil })
	return n, err
}

// Estimate is Count, except that a pattern with two or more bound terms
// is counted only up to limit quads: beyond, the smallest use count of its
// bound terms (an upper bound) is returned, which spares a query planner a
// long scan.
func (v *View) Estimate(ctx context.Context, p Pattern, limit int64) (int64, error) {
	if v.closed || v.s.closed.Load() {
		return 0, ErrClosed
	}
	bound, mask, ok, err := v.resolve(p.terms())
	if err != nil || !ok {
		return 0, err
	}
	if boundCount(mask) < 2 {
		return v.Count(ctx, p)
	}
	upper := int64(math.MaxInt64)
	for d, b := range mask {
		if b {
			c, err := v.nodeCounts(bound[d])
			if err != nil {
				return 0, err
			}
			upper = min(upper, int64(c[d]))
		}
	}
	sp, err := v.plan(bound, mask)
	if err != nil {
		return 0, err
	}
	it := v.iterator()
	defer v.put(it)
	var n int64
	err = scanIter(ctx, it, &sp, func(ids) error {
		if n++; n > limit {
			return errLimit
		}
		return nil
	})
	if errors.Is(err, errLimit) {
		return upper, nil
	}
	return n, err
}

// errLimit stops Estimate's scan.
var errLimit = errors.New("limit reached")

func boundCount(mask [4]bool) int {
	n := 0
	for _, b := range mask {
		if b {
			n++
		}
	}
	return n
}

// NumericRange is Store.NumericRange read from the view; with opt.Triples
// each (subject, object) pair is reported once, default-graph quads are
// skipped and Label is nil.
func (v *View) NumericRange(ctx context.Context, predicate quad.Value, r Range, opt MatchOptions, fn func(quad.Quad) error) error {
	opt.Skip = [4]bool{}
	return v.NumericRangeIDs(ctx, predicate, r, opt, func(q quad.Quad, _ [4]uint64) error { return fn(q) })
}

// NumericRangeIDs is NumericRange that also passes the ids of each quad's
// terms (0 for the label with opt.Triples). opt.Skip can spare the
// subject, the object (decoded only at the range's ends, where the check
// needs it) and the label.
func (v *View) NumericRangeIDs(ctx context.Context, predicate quad.Value, r Range, opt MatchOptions, fn func(quad.Quad, [4]uint64) error) error {
	if v.closed || v.s.closed.Load() {
		return ErrClosed
	}
	if math.IsNaN(r.Min) || math.IsNaN(r.Max) || r.Min > r.Max {
		return nil
	}
	pid, err := v.id(predicate)
	if err != nil {
		return fmt.Errorf("numeric range: %w", err)
	}
	if pid == 0 {
		return nil
	}
	prefix := appendID([]byte{pNumeric}, pid)
	lo := orderedFloat(bytes.Clone(prefix), r.Min)
	hi := orderedFloat(nil, r.Max)
	loF := lo[len(prefix):]
	it := v.iterator()
	defer v.put(it)
	var prevS, prevO uint64
	havePrev := false
	n := 0
	for it.Seek(lo); it.ValidForPrefix(prefix); it.Next() {
		if n++; n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		k := it.Item().Key()
		if len(k) < len(prefix)+8 {
			return fmt.Errorf("numeric range: %w: key", ErrCorrupt)
		}
		f := k[len(prefix) : len(prefix)+8]
		c := bytes.Compare(f, hi)
		if c > 0 {
			break
		}
		sid, oid, gid, ok := decodeNumericTail(k[len(prefix)+8:])
		if !ok {
			return fmt.Errorf("numeric range: %w: key", ErrCorrupt)
		}
		if opt.Triples {
			// Copies of a triple differ only in the label, the last part
			// of the key: they are adjacent.
			if gid == 0 || havePrev && sid == prevS && oid == prevO {
				continue
			}
			prevS, prevO, havePrev = sid, oid, true
		}
		var obj quad.Value
		edge := c == 0 || bytes.Equal(f, loF)
		if !opt.Skip[2] || edge {
			if obj, err = v.name(oid); err != nil {
				return fmt.Errorf("numeric range: %w", err)
			}
		}
		if edge {
			num, ok := numericOf(obj)
			if !ok || !r.contains(num) {
				continue
			}
		}
		out := quad.Quad{Predicate: predicate}
		if !opt.Skip[2] {
			out.Object = obj
		}
		if !opt.Skip[0] {
			if out.Subject, err = v.name(sid); err != nil {
				return fmt.Errorf("numeric range: %w", err)
			}
		}
		if opt.Triples {
			gid = 0
		} else if !opt.Skip[3] {
			if out.Label, err = v.name(gid); err != nil {
				return fmt.Errorf("numeric range: %w", err)
			}
		}
		if err := fn(out, [4]uint64{sid, pid, oid, gid}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// CountNumericRange counts the numeric index entries of predicate whose
// value lies in r, in every graph, up to limit (a quad on an endpoint of r
// may be counted though the exact comparison would exclude it): a cheap
// estimate of NumericRange's size that reads keys only.
func (v *View) CountNumericRange(ctx context.Context, predicate quad.Value, r Range, limit int64) (int64, error) {
	if v.closed || v.s.closed.Load() {
		return 0, ErrClosed
	}
	if math.IsNaN(r.Min) || math.IsNaN(r.Max) || r.Min > r.Max {
		return 0, nil
	}
	pid, err := v.id(predicate)
	if err != nil || pid == 0 {
		return 0, err
	}
	prefix := appendID([]byte{pNumeric}, pid)
	lo := orderedFloat(bytes.Clone(prefix), r.Min)
	hi := orderedFloat(nil, r.Max)
	it := v.iterator()
	defer v.put(it)
	var n int64
	for it.Seek(lo); it.ValidForPrefix(prefix) && n < limit; it.Next() {
		k := it.Item().Key()
		if len(k) < len(prefix)+8 {
			return 0, fmt.Errorf("count numeric range: %w: key", ErrCorrupt)
		}
		if bytes.Compare(k[len(prefix):len(prefix)+8], hi) > 0 {
			break
		}
		n++
	}
	return n, ctx.Err()
}
