package quadstore

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/molgraph/molgraph/graph/rdfio"
)

// Values is a per-term-id value column ("inlined values", as QLever folds
// numbers into its ids and Oxigraph inlines small literals): for each term
// id, the kind of its XSD value (integer, decimal, double, float, boolean,
// dateTime, or none) and the value in 64 bits. A query engine compares,
// sorts, groups and sums numbers by reading it instead of decoding the
// term (a dictionary read) and parsing its lexical form per solution.
//
// Ids never change meaning (a deleted term's id is not reused), so the
// column only grows: a builder goroutine extends it, after Open and after
// commits, to the ids allocated since its last run (one scan of the new
// node records, independent of the columns' rebuilds). A Values is an
// immutable snapshot covering the ids below Len; an id at or above it (a
// term newer than the last extension) has no value, and readers decode it
// as before. A store with more ids than Options.ColumnsMaxTriples (the
// columns' bound; negative: neither is built) stops extending it.
// Memory: 9 bytes per id (a kind byte and 8 bytes), see Bytes.
//
// Only literals of an XSD datatype in the dictionary's short form ('X')
// are folded, and only lexical forms whose value the 64 bits hold
// exactly: integers (xsd:integer and its derived types) that fit an
// int64; decimals with at most 18 fraction digits whose digits fit an
// int64 (the value is mantissa / 10^scale); doubles and floats (INF, -INF
// and NaN included; a float is rounded to float32 precision); booleans
// ("true", "false", "1", "0"); dateTimes with a timezone (as UTC
// nanoseconds, years 1678 to 2261; ValueDateTimeUTC when the timezone is
// Z, +00:00 or -00:00, so that the lexical form's fields are the UTC
// time's, else ValueDateTime). A term that is no XSD number literal
// at all (an IRI, a blank node, a string, a literal of another datatype,
// a Go-native term such as quad.Int) is ValueOther; anything else (a
// number literal the 64 bits cannot hold or an ill-typed one, a boolean
// or dateTime not folded) is ValueNone.
type Values struct {
	kind []ValueKind
	bits []uint64
}

// ValueKind is the kind of a term's folded value.
type ValueKind uint8

// The kinds of folded values. A decimal's kind is ValueDecimal plus its
// scale (0 to 18).
const (
	ValueNone ValueKind = iota
	ValueInteger
	ValueDouble
	ValueFloat
	ValueBoolean
	ValueDateTime
	ValueOther
	ValueDateTimeUTC
	ValueDecimal ValueKind = 16
)

// maxDecimalScale is the largest scale of a folded decimal.
const maxDecimalScale = 18

// TermValue is the folded value of one term.
type TermValue struct {
	Kind ValueKind
	Bits uint64
}

// Int is the value of a ValueInteger.
func (t TermValue) Int() int64 { return int64(t.Bits) }

// Float is the value of a ValueDouble or ValueFloat.
func (t TermValue) Float() float64 { return math.Float64frombits(t.Bits) }

// Decimal returns the mantissa and scale of a decimal (value mant /
// 10^scale); ok is false for other kinds.
func (t TermValue) Decimal() (mant int64, scale int, ok bool) {
	if t.Kind < ValueDecimal || t.Kind > ValueDecimal+maxDecimalScale {
		return 0, 0, false
	}
	return int64(t.Bits), int(t.Kind - ValueDecimal), true
}

// Bool is the value of a ValueBoolean.
func (t TermValue) Bool() bool { return t.Bits != 0 }

// Time is the value of a ValueDateTime or ValueDateTimeUTC, in UTC.
func (t TermValue) Time() time.Time { return time.Unix(0, int64(t.Bits)).UTC() }

// Len is the number of ids the snapshot covers: ids below it.
func (v *Values) Len() uint64 {
	if v == nil {
		return 0
	}
	return uint64(len(v.kind))
}

// Get returns the folded value of id (ValueNone when it has none or is
// not covered).
func (v *Values) Get(id uint64) TermValue {
	if v == nil || id >= uint64(len(v.kind)) {
		return TermValue{}
	}
	return TermValue{v.kind[id], v.bits[id]}
}

// Gather reads the values of a batch of ids at once: kinds[i] and
// bits[i] get the value of ids[i] (ValueNone when not covered); kinds and
// bits must be at least as long as ids. One tight loop over the batch
// lets the processor overlap the cache misses of the random reads, which
// a read per id between other work cannot (the ids of a column's objects
// are in no useful order).
func (v *Values) Gather(ids []uint32, kinds []ValueKind, bits []uint64) {
	if v == nil {
		clear(kinds[:len(ids)])
		return
	}
	kind, vb := v.kind, v.bits[:len(v.kind)]
	n := len(kind)
	for i, id := range ids {
		if int(id) < n {
			kinds[i], bits[i] = kind[id], vb[id]
		} else {
			kinds[i] = ValueNone
		}
	}
}

// Bytes is the memory the column holds.
func (v *Values) Bytes() int64 {
	if v == nil {
		return 0
	}
	return int64(cap(v.kind)) + 8*int64(cap(v.bits))
}

// Values returns the value column the view may read (nil when none is
// built yet). Its snapshot may be older or newer than the view; both are
// right for the ids it covers.
func (v *View) Values() *Values {
	if b := v.s.valb; b != nil {
		return b.cur.Load()
	}
	return nil
}

// Term decodes the term of id as the view sees it.
func (v *View) Term(id uint64) (quad.Value, error) { return v.name(id) }

// valueBuilder extends the value column when kicked.
type valueBuilder struct {
	cur      atomic.Pointer[Values]
	kick     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
	// mu serializes extensions (the goroutine's and BuildValues');
	// full: more ids than the bound, no more extensions.
	mu   sync.Mutex
	full bool
}

// startValues starts the value column's builder (when the columns may be
// built: Options.ColumnsMaxTriples >= 0).
func (s *Store) startValues() {
	if s.opt.ColumnsMaxTriples < 0 {
		return
	}
	b := &valueBuilder{kick: make(chan struct{}, 1), stop: make(chan struct{})}
	s.valb = b
	b.done.Add(1)
	go func() {
		defer b.done.Done()
		for {
			select {
			case <-b.stop:
				return
			case <-b.kick:
			}
			// An error (the store closing) leaves the column as it is;
			// the next kick retries.
			_ = s.extendValues(s.bgCtx)
		}
	}()
	b.kickNow()
}

func (b *valueBuilder) kickNow() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// kickValues asks for an extension of the value column after a commit.
func (s *Store) kickValues() {
	if s.valb != nil {
		s.valb.kickNow()
	}
}

// stopValues stops the builder and waits for it.
func (s *Store) stopValues() {
	if b := s.valb; b != nil {
		b.stopOnce.Do(func() { close(b.stop) })
		b.done.Wait()
	}
}

// extendValues folds the ids allocated since the last extension, from one
// snapshot of the node records.
func (s *Store) extendValues(ctx context.Context) error {
	b := s.valb
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.full {
		return nil
	}
	ts := s.pin()
	defer s.unpin(ts)
	st, err := s.readState(ts)
	if err != nil {
		return err
	}
	old := b.cur.Load()
	from := old.Len()
	if from == 0 {
		from = 1 // ids start at 1
	}
	if st.nextID <= from {
		return nil
	}
	if s.opt.ColumnsMaxTriples > 0 && st.nextID > uint64(s.opt.ColumnsMaxTriples)+1 {
		b.full = true
		return nil
	}
	n := st.nextID
	var kind []ValueKind
	var bits []uint64
	if old != nil {
		kind, bits = old.kind, old.bits
	}
	// Appending past the old snapshot's length leaves what its readers
	// see untouched, whether or not the arrays move.
	kind = append(kind, make([]ValueKind, int(n)-len(kind))...)
	bits = append(bits, make([]uint64, int(n)-len(bits))...)
	txn := s.db.NewTransactionAt(ts, false)
	defer txn.Discard()
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{pNode}, PrefetchValues: false})
	defer it.Close()
	i := 0
	for it.Seek(nodeKey(from)); it.ValidForPrefix([]byte{pNode}); it.Next() {
		if i++; i&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		key := it.Item().Key()
		if len(key) != 9 {
			continue
		}
		id := uint64(0)
		for _, c := range key[1:] {
			id = id<<8 | uint64(c)
		}
		if id >= n {
			break
		}
		err := it.Item().Value(func(val []byte) error {
			_, enc, err := decodeNode(val)
			if err != nil {
				return err
			}
			tv := foldTerm(enc)
			kind[id], bits[id] = tv.Kind, tv.Bits
			return nil
		})
		if err != nil {
			return err
		}
	}
	b.cur.Store(&Values{kind: kind, bits: bits})
	return nil
}

// BuildValues extends the value column to the last commit now (when
// Options.ColumnsMaxTriples allows it); it is otherwise extended on a
// goroutine after Open and commits.
func (s *Store) BuildValues(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if s.valb == nil {
		return nil
	}
	if err := s.extendValues(ctx); err != nil {
		return fmt.Errorf("build values: %w", err)
	}
	return nil
}

// foldTerm returns the folded value of a term encoding (see Values).
func foldTerm(enc []byte) TermValue {
	if len(enc) == 0 {
		return TermValue{}
	}
	if enc[0] != 'X' {
		return TermValue{Kind: ValueOther}
	}
	if len(enc) < 2 || enc[1] == 0 || int(enc[1]) > len(xsdTypes) {
		return TermValue{}
	}
	s := string(enc[2:])
	switch nk := numKind(enc[1]); {
	case nk == numInteger:
		if !rdfio.ValidInteger(s) {
			return TermValue{}
		}
		i, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
		if err != nil {
			return TermValue{}
		}
		return TermValue{ValueInteger, uint64(i)}
	case nk == numDecimal:
		return foldDecimal(s)
	case nk == numDouble, nk == numFloat:
		f, ok := rdfio.ParseDouble(s)
		if !ok {
			return TermValue{}
		}
		if nk == numFloat {
			return TermValue{ValueFloat, math.Float64bits(float64(float32(f)))}
		}
		return TermValue{ValueDouble, math.Float64bits(f)}
	}
	switch xsdTypes[enc[1]-1] {
	case "boolean":
		switch s {
		case "true", "1":
			return TermValue{ValueBoolean, 1}
		case "false", "0":
			return TermValue{ValueBoolean, 0}
		}
		return TermValue{}
	case "dateTime":
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil || strings.HasSuffix(s, "z") || t.Year() < 1678 || t.Year() > 2261 {
			return TermValue{}
		}
		if _, off := t.Zone(); off == 0 {
			return TermValue{ValueDateTimeUTC, uint64(t.UnixNano())}
		}
		return TermValue{ValueDateTime, uint64(t.UnixNano())}
	}
	return TermValue{Kind: ValueOther}
}

// foldDecimal folds an XSD decimal lexical form ([+-]? digits with at
// most one '.', at least one digit) whose digits fit an int64 and whose
// scale is at most maxDecimalScale.
func foldDecimal(s string) TermValue {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var m uint64
	digits, scale, dot := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if dot {
				scale++
			}
			if m > (math.MaxInt64-9)/10 {
				return TermValue{}
			}
			m = m*10 + uint64(c-'0')
		case c == '.' && !dot:
			dot = true
		default:
			return TermValue{}
		}
	}
	if digits == 0 || scale > maxDecimalScale {
		return TermValue{}
	}
	v := int64(m)
	if neg {
		v = -v
	}
	return TermValue{ValueDecimal + ValueKind(scale), uint64(v)}
}
