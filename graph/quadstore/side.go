package quadstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// The side keyspace holds data that is not quads but must commit with them
// (structure-search fingerprints, package search): keys under the prefix
// 'X' (doc.go lists the others), written in the same commit as the graphs
// of a ReplaceGraphs (Graph.Side) or on their own (PutSide), read from one
// snapshot (ScanSide, GetSide). A rollback restores them with the quads.

// sidePrefix starts every side key; no other key starts with it.
const sidePrefix = 'X'

// MaxSideKey and MaxSideValue bound one side entry.
const (
	MaxSideKey   = 1 << 10
	MaxSideValue = 1 << 20
)

// ErrInvalidSide: a side entry has an empty or oversized key or value.
var ErrInvalidSide = errors.New("invalid side entry")

// KV is one side entry; a nil Value deletes the key.
type KV struct {
	Key, Value []byte
}

func sideKey(k []byte) []byte {
	out := make([]byte, 0, len(k)+1)
	return append(append(out, sidePrefix), k...)
}

func checkSide(kvs []KV) error {
	for _, kv := range kvs {
		if len(kv.Key) == 0 || len(kv.Key) > MaxSideKey || len(kv.Value) > MaxSideValue {
			return fmt.Errorf("%w: key of %d bytes, value of %d", ErrInvalidSide, len(kv.Key), len(kv.Value))
		}
	}
	return nil
}

// writeSide writes side entries in a commit.
func writeSide(bw *batchWriter, kvs []KV) error {
	for _, kv := range kvs {
		var err error
		if kv.Value == nil {
			err = bw.del(sideKey(kv.Key))
		} else {
			err = bw.set(sideKey(kv.Key), kv.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// PutSide writes side entries in one atomic commit of their own.
func (s *Store) PutSide(ctx context.Context, kvs []KV) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := checkSide(kvs); err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := s.commit(commitOpts{estimate: len(kvs), changes: noColChanges}, func(bw *batchWriter) error { return writeSide(bw, kvs) })
	if err != nil {
		return fmt.Errorf("put side: %w", err)
	}
	return nil
}

// ScanSide calls fn, in key order, for every side entry whose key starts
// with prefix, all read from one snapshot, until fn returns an error. The
// slices passed to fn are valid only during the call.
func (s *Store) ScanSide(ctx context.Context, prefix []byte, fn func(key, value []byte) error) error {
	return s.ScanSideFrom(ctx, prefix, nil, fn)
}

// ScanSideFrom is ScanSide starting at the first key >= from (keys before
// it are skipped by a seek, not read): for pages of an ordered listing.
func (s *Store) ScanSideFrom(ctx context.Context, prefix, from []byte, fn func(key, value []byte) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	ts := s.pin()
	defer s.unpin(ts)
	txn := s.db.NewTransactionAt(ts, false)
	defer txn.Discard()
	p := sideKey(prefix)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: p, PrefetchValues: true, PrefetchSize: 256})
	defer it.Close()
	n := 0
	start := p
	if bytes.Compare(sideKey(from), p) > 0 {
		start = sideKey(from)
	}
	for it.Seek(start); it.Valid(); it.Next() {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		item := it.Item()
		k := item.Key()
		if !bytes.HasPrefix(k, p) {
			break
		}
		if err := item.Value(func(v []byte) error { return fn(k[1:], v) }); err != nil {
			return err
		}
	}
	return nil
}

// GetSide reads the side entries of keys from one snapshot and calls fn
// with each key's index and value (nil when absent). The value is valid
// only during the call.
func (s *Store) GetSide(ctx context.Context, keys [][]byte, fn func(i int, value []byte) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	ts := s.pin()
	defer s.unpin(ts)
	txn := s.db.NewTransactionAt(ts, false)
	defer txn.Discard()
	k := make([]byte, 0, 64)
	for i, key := range keys {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		k = append(append(k[:0], sidePrefix), key...)
		item, err := txn.Get(k)
		if errors.Is(err, badger.ErrKeyNotFound) {
			if err := fn(i, nil); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("get side: %w", err)
		}
		if err := item.Value(func(v []byte) error { return fn(i, v) }); err != nil {
			return err
		}
	}
	return nil
}
