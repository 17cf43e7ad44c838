package graph

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/molgraph/molgraph/graph/quadstore"
)

// SideEntry is an entry of the side keyspace: data that is not quads but
// must commit with a graph (structure-search fingerprints). A nil Value
// deletes the key. Keys are at most quadstore.MaxSideKey bytes, values
// quadstore.MaxSideValue.
//
// On the native backend side entries are stored in the quad store's own
// keyspace ('X', graph/quadstore/side.go) in the same commit as the
// graphs they travel with (NamedGraph.Side), so a crash keeps both or
// neither. The memory backend keeps them in memory only, applied after
// the commit of their graphs.
type SideEntry = quadstore.KV

// OrderedFloat appends the order-preserving 8-byte encoding of f that the
// numeric range index uses (quadstore.OrderedFloat): side keys built with
// it list in numeric order.
func OrderedFloat(dst []byte, f float64) []byte { return quadstore.OrderedFloat(dst, f) }

// ErrInvalidSide: a side entry has an empty or oversized key or value.
var ErrInvalidSide = quadstore.ErrInvalidSide

// memSide is the side keyspace of the memory backend.
type memSide struct {
	mu sync.RWMutex
	m  map[string][]byte
}

func (m *memSide) apply(kvs []SideEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = make(map[string][]byte)
	}
	for _, kv := range kvs {
		if kv.Value == nil {
			delete(m.m, string(kv.Key))
		} else {
			m.m[string(kv.Key)] = bytes.Clone(kv.Value)
		}
	}
}

func checkSide(kvs []SideEntry) error {
	for _, kv := range kvs {
		if len(kv.Key) == 0 || len(kv.Key) > quadstore.MaxSideKey || len(kv.Value) > quadstore.MaxSideValue {
			return fmt.Errorf("%w: key of %d bytes, value of %d", ErrInvalidSide, len(kv.Key), len(kv.Value))
		}
	}
	return nil
}

// native returns the quad store when side entries commit with the quads.
func (s *Store) native() *quadstore.Store {
	if nb, ok := s.b.(*nativeBackend); ok {
		return nb.qs
	}
	return nil
}

// SideDurable reports whether side entries are stored durably with the
// graphs (the native backend) or kept in memory only.
func (s *Store) SideDurable() bool { return s.native() != nil }

// WatchSide registers fn to be called with the side entries of every
// commit of PutGraphs once that commit is visible to readers, in commit
// order, while the writer lock is held: fn must be quick and must not
// write to the store. PutSide does not call it.
func (s *Store) WatchSide(fn func([]SideEntry)) {
	s.sideMu.Lock()
	defer s.sideMu.Unlock()
	s.sideWatch = append(s.sideWatch, fn)
}

// committedSide runs after a chunk of graphs committed (s.wmu held).
func (s *Store) committedSide(chunk []normGraph) {
	var kvs []SideEntry
	for _, g := range chunk {
		kvs = append(kvs, g.side...)
	}
	if len(kvs) == 0 {
		return
	}
	if s.native() == nil {
		s.mside.apply(kvs)
	}
	s.sideMu.Lock()
	ws := slices.Clone(s.sideWatch)
	s.sideMu.Unlock()
	for _, fn := range ws {
		fn(kvs)
	}
}

// PutSide writes side entries in one commit of their own (no graph).
func (s *Store) PutSide(ctx context.Context, kvs []SideEntry) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := checkSide(kvs); err != nil {
		return err
	}
	if qs := s.native(); qs != nil {
		if err := qs.PutSide(ctx, kvs); err != nil {
			return fmt.Errorf("put side: %w", noSpace(err))
		}
		return s.sync()
	}
	s.mside.apply(kvs)
	return nil
}

// ScanSide calls fn in key order for every side entry whose key starts
// with prefix, read from one consistent state, until fn returns an error.
// Keys starting with a NUL byte are reserved to the store (its class
// index): they are passed only to a scan whose prefix starts with one.
// The slices are valid only during the call.
func (s *Store) ScanSide(ctx context.Context, prefix []byte, fn func(key, value []byte) error) error {
	return s.ScanSideFrom(ctx, prefix, nil, fn)
}

// ScanSideFrom is ScanSide starting at the first key >= from: the keys
// before it are skipped by a seek on the native backend, not read (pages
// of an ordered listing).
func (s *Store) ScanSideFrom(ctx context.Context, prefix, from []byte, fn func(key, value []byte) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if qs := s.native(); qs != nil {
		if len(prefix) == 0 || prefix[0] != 0 {
			// Keys starting with a NUL are the store's own (the class
			// index, classindex.go): a scan of every entry skips them.
			inner := fn
			fn = func(k, v []byte) error {
				if len(k) > 0 && k[0] == 0 {
					return nil
				}
				return inner(k, v)
			}
		}
		return qs.ScanSideFrom(ctx, prefix, from, fn)
	}
	s.mside.mu.RLock()
	keys := make([]string, 0, len(s.mside.m))
	for k := range s.mside.m {
		if bytes.HasPrefix([]byte(k), prefix) && k >= string(from) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	vals := make([][]byte, len(keys))
	for i, k := range keys {
		vals[i] = s.mside.m[k]
	}
	s.mside.mu.RUnlock()
	for i, k := range keys {
		if i%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn([]byte(k), vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// GetSide reads the side entries of keys from one consistent state and
// calls fn with each key's index and value (nil when absent); the value
// is valid only during the call.
func (s *Store) GetSide(ctx context.Context, keys [][]byte, fn func(i int, value []byte) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if qs := s.native(); qs != nil {
		return qs.GetSide(ctx, keys, fn)
	}
	vals := make([][]byte, len(keys))
	s.mside.mu.RLock()
	for i, k := range keys {
		vals[i] = s.mside.m[string(k)]
	}
	s.mside.mu.RUnlock()
	for i, v := range vals {
		if err := fn(i, v); err != nil {
			return err
		}
	}
	return nil
}
