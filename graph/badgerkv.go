package graph

// This file is our hidalgo flat.KV adapter over Badger v4. hidalgo ships an
// adapter for Badger v1 only, and Cayley's registration of it does not run
// under Go >= 1.21; we also need more than a plain adapter: atomic commits
// of unbounded size and crash recovery, which no published adapter offers.
//
// Badger runs in managed mode. Every write transaction Cayley opens is
// buffered in memory (reads see their own writes through the buffer); on
// commit the buffer is written with one commit timestamp T:
//
//  1. the key pendingKey = T, at version T, in a small synchronous txn;
//  2. every buffered entry, at version T, through a WriteBatch (which splits
//     the entries into as many internal Badger transactions as it needs, so
//     "Txn is too big" never reaches Cayley);
//  3. the key committedKey = T, at version T.
//
// Readers read at the last committed timestamp, so the entries of step 2
// are invisible until step 3 has happened: a transaction of any size becomes
// visible all at once. After a crash between 1 and 3, open finds
// pending > committed and rolls back: every key with a version above the
// committed timestamp is restored to its value at that timestamp, with a
// new version, and the rollback is itself committed with a marker. Rolling
// back twice is harmless, so a crash during recovery is recovered as well.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/hidal-go/hidalgo/kv/flat"
)

var (
	reservedPrefix = []byte("\x00mg/")
	committedKey   = []byte("\x00mg/committed")
	pendingKey     = []byte("\x00mg/pending")
)

// badgerKV implements flat.KV on a managed-mode Badger v4 database.
type badgerKV struct {
	db   *badger.DB
	sync bool

	wmu sync.Mutex // one writer at a time; guards nextTs

	mu      sync.Mutex // guards readTs and readers
	readTs  uint64
	nextTs  uint64
	readers map[uint64]int // open read snapshots per timestamp, for SetDiscardTs

	// group, when not nil, collects the writes of every write transaction
	// until endGroup commits them as one (see Group).
	group map[string]*entry

	// recovered records that open rolled back an interrupted commit.
	recovered bool
	// broken is set when a failed commit could not be rolled back; every
	// later write returns it.
	broken error

	// Test hooks: failAfter, when > 0, makes a commit stop after writing
	// that many data entries and return as if the process had died there;
	// onWrite is called when a commit starts writing its data entries.
	failAfter int
	onWrite   func(entries int)
}

var _ flat.KV = (*badgerKV)(nil)

// openBadgerKV opens (or creates) a Badger database in dir and recovers an
// interrupted commit if there is one.
func openBadgerKV(dir string, syncWrites bool) (*badgerKV, error) {
	opts := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithSyncWrites(syncWrites).
		WithNumVersionsToKeep(1).
		WithMetricsEnabled(false)
	db, err := badger.OpenManaged(opts)
	if err != nil {
		return nil, fmt.Errorf("open badger %s: %w", dir, err)
	}
	k := &badgerKV{db: db, sync: syncWrites, readers: make(map[uint64]int)}
	if err := k.recover(); err != nil {
		db.Close()
		return nil, err
	}
	return k, nil
}

func (k *badgerKV) readMarker(key []byte) (uint64, error) {
	txn := k.db.NewTransactionAt(math.MaxUint64, false)
	defer txn.Discard()
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	var v uint64
	err = item.Value(func(b []byte) error {
		if len(b) != 8 {
			return fmt.Errorf("marker %q: bad length %d", key, len(b))
		}
		v = binary.BigEndian.Uint64(b)
		return nil
	})
	return v, err
}

// recover reads the commit markers and rolls back a commit that did not
// finish.
func (k *badgerKV) recover() error {
	committed, err := k.readMarker(committedKey)
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	pending, err := k.readMarker(pendingKey)
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	k.readTs = committed
	k.nextTs = max(committed, pending, k.db.MaxVersion()) + 1
	if pending <= committed && k.db.MaxVersion() <= committed {
		return nil
	}
	k.recovered = true
	k.wmu.Lock()
	defer k.wmu.Unlock()
	return k.rollback(committed)
}

// rollback restores every key whose newest version is above committed to
// its value at committed, and commits that as a new transaction. The caller
// holds k.wmu.
func (k *badgerKV) rollback(committed uint64) error {
	entries := make(map[string]*entry)
	latest := k.db.NewTransactionAt(math.MaxUint64, false)
	defer latest.Discard()
	old := k.db.NewTransactionAt(committed, false)
	defer old.Discard()
	it := latest.NewIterator(badger.IteratorOptions{AllVersions: true})
	defer it.Close()
	var lastKey []byte
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		if lastKey != nil && bytes.Equal(item.Key(), lastKey) {
			continue // versions come newest first: only the newest counts
		}
		lastKey = item.KeyCopy(lastKey[:0])
		if item.Version() <= committed || bytes.HasPrefix(lastKey, reservedPrefix) {
			continue
		}
		prev, err := old.Get(lastKey)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
			if !item.IsDeletedOrExpired() {
				entries[string(lastKey)] = &entry{del: true}
			}
		case err != nil:
			return fmt.Errorf("rollback: %w", err)
		default:
			val, err := prev.ValueCopy(nil)
			if err != nil {
				return fmt.Errorf("rollback: %w", err)
			}
			entries[string(lastKey)] = &entry{val: val}
		}
	}
	return k.write(entries)
}

type entry struct {
	val []byte
	del bool
}

func putMarker(txn *badger.Txn, key []byte, ts uint64) error {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], ts)
	return txn.Set(key, b[:])
}

// commit writes entries atomically as described at the top of the file.
// If the write fails midway, the entries that reached Badger are rolled
// back at once (they would become visible with the next commit otherwise).
// The caller holds k.wmu.
func (k *badgerKV) commit(entries map[string]*entry) error {
	if k.broken != nil {
		return k.broken
	}
	err := k.write(entries)
	if err == nil || errors.Is(err, errSimulatedCrash) {
		return err
	}
	k.mu.Lock()
	committed := k.readTs
	k.mu.Unlock()
	if rerr := k.rollback(committed); rerr != nil {
		k.broken = fmt.Errorf("badger kv: a failed commit could not be rolled back; reopen the store: %w", rerr)
	}
	return err
}

// write performs the three steps of a commit.
func (k *badgerKV) write(entries map[string]*entry) error {
	ts := k.nextTs
	k.nextTs++

	txn := k.db.NewTransactionAt(math.MaxUint64, true)
	if err := putMarker(txn, pendingKey, ts); err != nil {
		txn.Discard()
		return err
	}
	if err := txn.CommitAt(ts, nil); err != nil {
		return fmt.Errorf("commit: pending marker: %w", err)
	}

	keys := make([]string, 0, len(entries))
	for key := range entries {
		keys = append(keys, key)
	}
	sort.Strings(keys) // sorted keys make Badger's memtable inserts cheaper
	if k.onWrite != nil {
		k.onWrite(len(keys))
	}
	wb := k.db.NewWriteBatchAt(ts)
	for i, key := range keys {
		if k.failAfter > 0 && i >= k.failAfter {
			// Like a crash: what the batch committed so far stays.
			wb.Flush()
			return errSimulatedCrash
		}
		e := entries[key]
		var err error
		if e.del {
			err = wb.Delete([]byte(key))
		} else {
			err = wb.Set([]byte(key), e.val)
		}
		if err != nil {
			wb.Cancel()
			return fmt.Errorf("commit: %w", err)
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("commit: flush: %w", err)
	}

	txn = k.db.NewTransactionAt(math.MaxUint64, true)
	if err := putMarker(txn, committedKey, ts); err != nil {
		txn.Discard()
		return err
	}
	if err := txn.CommitAt(ts, nil); err != nil {
		return fmt.Errorf("commit: committed marker: %w", err)
	}
	if k.sync && !k.db.Opts().SyncWrites {
		if err := k.db.Sync(); err != nil {
			return fmt.Errorf("commit: sync: %w", err)
		}
	}

	k.mu.Lock()
	k.readTs = ts
	k.updateDiscardLocked()
	k.mu.Unlock()
	return nil
}

var errSimulatedCrash = errors.New("simulated crash")

// updateDiscardLocked lets Badger drop versions no open snapshot can see.
func (k *badgerKV) updateDiscardLocked() {
	low := k.readTs
	for ts := range k.readers {
		if ts < low {
			low = ts
		}
	}
	k.db.SetDiscardTs(low)
}

func (k *badgerKV) snapshot() (*badger.Txn, uint64) {
	k.mu.Lock()
	ts := k.readTs
	k.readers[ts]++
	k.mu.Unlock()
	return k.db.NewTransactionAt(ts, false), ts
}

func (k *badgerKV) release(ts uint64) {
	k.mu.Lock()
	if k.readers[ts]--; k.readers[ts] <= 0 {
		delete(k.readers, ts)
	}
	k.mu.Unlock()
}

// Close closes the database.
func (k *badgerKV) Close() error { return k.db.Close() }

// Group runs fn, during which the write transactions Cayley opens and
// commits do not reach Badger but accumulate; if fn succeeds, all of them
// are committed as one transaction, else none is. Writers other than fn's
// must not run meanwhile (the Store's writer lock guarantees it).
func (k *badgerKV) Group(fn func() error) error {
	k.wmu.Lock()
	defer k.wmu.Unlock()
	k.group = make(map[string]*entry)
	defer func() { k.group = nil }()
	if err := fn(); err != nil {
		return err
	}
	if len(k.group) == 0 {
		return nil
	}
	return k.commit(k.group)
}

// Tx opens a read snapshot, or a buffered write transaction that holds the
// writer lock until Commit or Close.
func (k *badgerKV) Tx(rw bool) (flat.Tx, error) {
	grouped := rw && k.group != nil // only fn of Group writes then
	if rw && !grouped {
		k.wmu.Lock()
	}
	txn, ts := k.snapshot()
	t := &badgerTx{kv: k, txn: txn, ts: ts, rw: rw, grouped: grouped}
	switch {
	case grouped:
		t.buf = k.group
	case rw:
		t.buf = make(map[string]*entry)
	}
	return t, nil
}

type badgerTx struct {
	kv      *badgerKV
	txn     *badger.Txn
	ts      uint64
	rw      bool
	grouped bool // writes go to the open group, committed by Group
	buf     map[string]*entry
	done    bool
}

func (t *badgerTx) Commit(ctx context.Context) error {
	if t.done {
		return errors.New("badger kv: commit after close")
	}
	if !t.rw {
		return t.Close()
	}
	defer t.Close()
	if len(t.buf) == 0 || t.grouped {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return t.kv.commit(t.buf)
}

func (t *badgerTx) Close() error {
	if t.done {
		return nil
	}
	t.done = true
	t.txn.Discard()
	t.kv.release(t.ts)
	if t.rw && !t.grouped {
		t.buf = nil
		t.kv.wmu.Unlock()
	}
	return nil
}

func (t *badgerTx) Get(ctx context.Context, key flat.Key) (flat.Value, error) {
	if t.rw {
		if e, ok := t.buf[string(key)]; ok {
			if e.del {
				return nil, flat.ErrNotFound
			}
			return e.val, nil
		}
	}
	item, err := t.txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, flat.ErrNotFound
	} else if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

func (t *badgerTx) GetBatch(ctx context.Context, keys []flat.Key) ([]flat.Value, error) {
	return flat.GetBatch(ctx, t, keys)
}

func (t *badgerTx) Put(k flat.Key, v flat.Value) error {
	if !t.rw {
		return flat.ErrReadOnly
	}
	if bytes.HasPrefix(k, reservedPrefix) {
		return fmt.Errorf("badger kv: key %q is reserved", k)
	}
	t.buf[string(k)] = &entry{val: append([]byte(nil), v...)}
	return nil
}

func (t *badgerTx) Del(k flat.Key) error {
	if !t.rw {
		return flat.ErrReadOnly
	}
	t.buf[string(k)] = &entry{del: true}
	return nil
}

// Scan iterates over keys with the prefix, merging the write buffer of a
// write transaction over the snapshot.
func (t *badgerTx) Scan(pref flat.Key) flat.Iterator {
	it := t.txn.NewIterator(badger.IteratorOptions{Prefix: pref, PrefetchValues: false})
	base := &badgerIter{it: it, pref: pref}
	if !t.rw || len(t.buf) == 0 {
		return base
	}
	var keys []string
	for key := range t.buf {
		if bytes.HasPrefix([]byte(key), pref) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return &mergeIter{base: base, buf: t.buf, keys: keys}
}

// badgerIter adapts a Badger iterator, skipping the adapter's own keys.
type badgerIter struct {
	it      *badger.Iterator
	pref    []byte
	started bool
	err     error
	val     []byte
}

func (it *badgerIter) Next(ctx context.Context) bool {
	for {
		if !it.started {
			it.started = true
			it.it.Seek(it.pref)
		} else {
			it.it.Next()
		}
		if !it.it.ValidForPrefix(it.pref) {
			return false
		}
		if bytes.HasPrefix(it.it.Item().Key(), reservedPrefix) {
			continue
		}
		it.val, it.err = it.it.Item().ValueCopy(it.val[:0])
		return it.err == nil
	}
}

func (it *badgerIter) Err() error      { return it.err }
func (it *badgerIter) Close() error    { it.it.Close(); return nil }
func (it *badgerIter) Key() flat.Key   { return it.it.Item().Key() }
func (it *badgerIter) Val() flat.Value { return it.val }

// mergeIter merges sorted buffered writes over a snapshot iterator.
type mergeIter struct {
	base     *badgerIter
	buf      map[string]*entry
	keys     []string
	i        int  // next buffered key
	baseOK   bool // base is positioned on a valid key not yet consumed
	started  bool
	key, val []byte
}

func (m *mergeIter) Next(ctx context.Context) bool {
	if !m.started {
		m.started = true
		m.baseOK = m.base.Next(ctx)
	}
	for {
		var bufKey []byte
		if m.i < len(m.keys) {
			bufKey = []byte(m.keys[m.i])
		}
		switch {
		case bufKey == nil && !m.baseOK:
			return false
		case bufKey == nil || (m.baseOK && bytes.Compare(m.base.Key(), bufKey) < 0):
			m.key = append(m.key[:0], m.base.Key()...)
			m.val = append(m.val[:0], m.base.Val()...)
			m.baseOK = m.base.Next(ctx)
			return true
		default:
			if m.baseOK && bytes.Equal(m.base.Key(), bufKey) {
				m.baseOK = m.base.Next(ctx) // the buffer shadows the snapshot
			}
			m.i++
			e := m.buf[string(bufKey)]
			if e.del {
				continue
			}
			m.key, m.val = bufKey, e.val
			return true
		}
	}
}

func (m *mergeIter) Err() error      { return m.base.Err() }
func (m *mergeIter) Close() error    { return m.base.Close() }
func (m *mergeIter) Key() flat.Key   { return m.key }
func (m *mergeIter) Val() flat.Value { return m.val }
