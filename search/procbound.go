package search

import (
	"context"
	"fmt"
	"math/bits"
	"strings"
	"sync"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
)

// A procedure call whose subject is already bound (the procedure inside
// OPTIONAL, FILTER EXISTS or MINUS, or after a join that binds the
// molecule) runs once per outer row. Searching the whole index each time
// would make such a query cost rows x index; bound answers for the one
// molecule instead, with the hits a whole search would give:
//
//   - similarity with a threshold (no top): the molecule's Tanimoto score
//     from its stored fingerprint, a hit iff score >= threshold;
//   - substructure and superstructure: the pattern-fingerprint screen and
//     one match of the molecule;
//   - similarity with top, and exact search: whether the molecule is among
//     the top k depends on every other molecule, and an exact search is a
//     key lookup (after parsing the query), so these run the whole search
//     once and keep its hits (memo) for the calls that follow.
//
// The parsed query and the kept hits are memoized by request and index
// view: a view never changes, so a kept answer is the answer a new search
// would give; a commit makes a new view and so a new entry.

// memoEntries is how many requests a procedure keeps; memoMaxHits the most
// hits a kept whole search may have (larger ones are searched again).
const (
	memoEntries = 16
	memoMaxHits = 1 << 16
)

type memo struct {
	mu sync.Mutex
	e  []*memoEntry // oldest first
}

type memoEntry struct {
	key string
	v   *view
	// full: hits of a whole search, by id
	full bool
	hits map[string]float64
	// similarity with a threshold: the query's fingerprint
	fp        *chem.FP
	threshold float64
	// substructure or superstructure: the parsed query
	q     *chem.Query
	super bool
}

func memoKey(r Request) string {
	opt := func(b *bool) string {
		if b == nil {
			return "-"
		}
		return fmt.Sprint(*b)
	}
	th := "-"
	if r.Threshold != nil {
		th = fmt.Sprint(*r.Threshold)
	}
	return strings.Join([]string{strings.ToLower(r.Type), r.QueryFormat, th, fmt.Sprint(r.Top), r.Match,
		opt(r.Chirality), opt(r.Charges), opt(r.Isotopes), r.Query}, "\x00")
}

// bound answers req for the one molecule subj.
func (p *procedure) bound(ctx context.Context, req Request, subj quad.Value) ([]Hit, error) {
	e, err := p.entry(ctx, req)
	if err != nil {
		return nil, err
	}
	iri, ok := subj.(quad.IRI)
	if !ok {
		return nil, nil
	}
	id := p.x.idOf(iri)
	if id == "" {
		return nil, nil
	}
	if e.full {
		if sc, ok := e.hits[id]; ok {
			return []Hit{{ID: id, Score: sc}}, nil
		}
		return nil, nil
	}
	m, pat, err := p.x.fingerprints(ctx, id)
	if err != nil || m == nil {
		return nil, err
	}
	if e.fp != nil {
		c := 0
		for i := range m {
			c += bits.OnesCount64(e.fp[i] & m[i])
		}
		if sc := score(c, popcount(e.fp), popcount(m)); sc >= e.threshold {
			return []Hit{{ID: id, Score: sc}}, nil
		}
		return nil, nil
	}
	if !screen(e.q.Pattern[:], pat[:], e.super) {
		return nil, nil
	}
	mt, err := e.q.Matcher(e.super)
	if err != nil {
		return nil, fmt.Errorf("search: substructure: %w", err)
	}
	defer mt.Close()
	hits, err := p.x.matchIDs(ctx, mt, []string{id})
	if err != nil {
		return nil, fmt.Errorf("search: substructure: %w", err)
	}
	return hits, nil
}

// entry returns the memo entry of req for the current view, making it if
// needed (outside the lock: a whole search may take a while).
func (p *procedure) entry(ctx context.Context, req Request) (*memoEntry, error) {
	v := p.x.cur.Load()
	key := memoKey(req)
	p.memo.mu.Lock()
	for _, e := range p.memo.e {
		if e.v == v && e.key == key {
			p.memo.mu.Unlock()
			return e, nil
		}
	}
	p.memo.mu.Unlock()
	e, err := p.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	e.key, e.v = key, v
	if e.full && len(e.hits) > memoMaxHits {
		return e, nil
	}
	p.memo.mu.Lock()
	if len(p.memo.e) == memoEntries {
		p.memo.e = append(p.memo.e[:0], p.memo.e[1:]...)
	}
	p.memo.e = append(p.memo.e, e)
	p.memo.mu.Unlock()
	return e, nil
}

// prepare checks req as Search does and parses its query, or runs the
// whole search when a molecule cannot be answered alone.
func (p *procedure) prepare(ctx context.Context, req Request) (*memoEntry, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, fmt.Errorf("search: %w: the query is empty", ErrBadOptions)
	}
	if len(req.Query) > chem.MaxQueryBytes {
		return nil, fmt.Errorf("search: %w: %d bytes, more than the %d a query may have", ErrInvalidQuery, len(req.Query), chem.MaxQueryBytes)
	}
	format := strings.ToLower(strings.TrimSpace(req.QueryFormat))
	switch typ := strings.ToLower(req.Type); {
	case typ == TypeSimilarity && req.Top == 0:
		th := DefaultThreshold
		if req.Threshold != nil {
			th = *req.Threshold
		}
		if !(th >= 0 && th <= 1) {
			return nil, fmt.Errorf("search: %w: threshold %v is not between 0 and 1", ErrBadOptions, th)
		}
		kind := chem.QuerySMILES
		switch format {
		case "", FormatSMILES:
		case FormatMolfile:
			kind = chem.QueryMolfile
		default:
			return nil, fmt.Errorf("search: %w: a similarity query is a SMILES or a molfile, not %s", ErrBadOptions, format)
		}
		q, err := chem.ParseQuery(req.Query, kind, chem.MatchOptions{})
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		return &memoEntry{fp: &q.Morgan, threshold: th}, nil
	case typ == TypeSubstructure || typ == TypeSuperstructure:
		o, err := subOptions(req, format)
		if err != nil {
			return nil, err
		}
		super := typ == TypeSuperstructure
		q, err := ParseQuery(req.Query, o, super)
		if err != nil {
			return nil, err
		}
		return &memoEntry{q: q, super: super}, nil
	}
	p.scans.Add(1)
	hits, err := p.x.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	e := &memoEntry{full: true, hits: make(map[string]float64, len(hits))}
	for _, h := range hits {
		e.hits[h.ID] = h.Score
	}
	return e, nil
}

// fingerprints reads a molecule's Morgan and pattern fingerprints from its
// index entry (nil, nil when it has none).
func (x *Index) fingerprints(ctx context.Context, id string) (morgan, pattern *chem.FP, err error) {
	key := []byte(prefixFP + id)
	var val []byte
	err = x.store.GetSide(ctx, [][]byte{key}, func(_ int, v []byte) error {
		if v != nil {
			val = append([]byte(nil), v...)
		}
		return nil
	})
	if err != nil || val == nil {
		return nil, nil, err
	}
	if _, m, p, derr := decodeFP(key, val); derr == nil {
		return m, p, nil
	}
	return nil, nil, nil
}
