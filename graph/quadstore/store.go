package quadstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/pb"
)

// Errors returned by the store, wrapped with the operation.
var (
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("quad store closed")
	// ErrInvalidTerm: a value cannot be stored (nil where a term is
	// required, or a Go type the codec does not know).
	ErrInvalidTerm = errors.New("invalid term")
	// ErrCorrupt: stored bytes do not decode.
	ErrCorrupt = errors.New("corrupt data")
	// ErrReadOnly: a write through a read-only snapshot.
	ErrReadOnly = errors.New("read-only snapshot")
)

// Key prefixes (see doc.go).
const (
	pMeta    = 'M'
	pTerm    = 't'
	pHash    = 'h'
	pNode    = 'i'
	pNumeric = 'n'
)

var (
	keyCommitted = []byte("Mcommitted")
	keyPending   = []byte("Mpending")
	keyState     = []byte("Mstate")
)

// formatVersion is written into the state record; Open refuses other
// versions.
const formatVersion = 2

// Options configure a Store. The zero value is usable.
type Options struct {
	// SyncWrites makes every commit fsync before it returns.
	SyncWrites bool
	// CacheEntries bounds each of the two in-process term caches
	// (term -> id and id -> term). Default 1<<18.
	CacheEntries int
	// MemTableMB is Badger's memtable size (default 32); BlockCacheMB its
	// block cache (default 32).
	MemTableMB, BlockCacheMB int
	// Workers is the number of goroutines that encode and resolve terms in
	// a large write (default GOMAXPROCS).
	Workers int
}

func (o Options) withDefaults() Options {
	if o.CacheEntries <= 0 {
		o.CacheEntries = 1 << 18
	}
	if o.MemTableMB <= 0 {
		o.MemTableMB = 32
	}
	if o.BlockCacheMB <= 0 {
		o.BlockCacheMB = 32
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// state is the store-wide record written with every commit.
type state struct {
	nextID uint64 // next node id to allocate (ids start at 1)
	quads  uint64
	nodes  uint64
}

func (st state) encode() []byte {
	b := binary.AppendUvarint(nil, formatVersion)
	b = binary.AppendUvarint(b, st.nextID)
	b = binary.AppendUvarint(b, st.quads)
	return binary.AppendUvarint(b, st.nodes)
}

func decodeState(b []byte) (state, error) {
	var v [4]uint64
	for i := range v {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return state{}, fmt.Errorf("%w: state record", ErrCorrupt)
		}
		v[i], b = n, b[k:]
	}
	if v[0] != formatVersion {
		return state{}, fmt.Errorf("%w: store format %d, want %d", ErrCorrupt, v[0], formatVersion)
	}
	return state{nextID: v[1], quads: v[2], nodes: v[3]}, nil
}

// Store is a Cayley quad store on Badger v4. It implements Cayley's
// graph.QuadStore (every read operation and every iterator reads one
// consistent snapshot) and offers molgraph's fast paths: Match,
// NumericRange, ReplaceGraphs. It is safe for concurrent use; writers are
// serialised.
type Store struct {
	db  *badger.DB
	opt Options

	wmu    sync.Mutex // one writer at a time; guards nextTs, st, broken
	nextTs uint64
	st     state
	broken error

	readTs atomic.Uint64 // last committed timestamp

	rmu     sync.Mutex
	readers map[uint64]int // open snapshots per timestamp

	terms *termCache
	names *nameCache

	closed    atomic.Bool
	recovered bool

	// Test hooks: failAfter > 0 stops a commit after that many entries, as
	// a crash would; onWrite is called when a commit starts writing.
	failAfter int
	onWrite   func(entries int)
}

// Open opens (creating if needed) a store in dir. An interrupted commit of
// an earlier process is rolled back first.
func Open(dir string, opt Options) (*Store, error) {
	opt = opt.withDefaults()
	bopt := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithSyncWrites(opt.SyncWrites).
		WithNumVersionsToKeep(1).
		WithDetectConflicts(false).
		WithMetricsEnabled(false).
		WithMemTableSize(int64(opt.MemTableMB) << 20).
		WithNumMemtables(2).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(12).
		WithNumCompactors(2).
		WithBaseLevelSize(256 << 20).
		WithBlockCacheSize(int64(opt.BlockCacheMB) << 20).
		WithValueThreshold(1 << 10).
		WithCompression(options.None)
	db, err := badger.OpenManaged(bopt)
	if err != nil {
		return nil, fmt.Errorf("open quad store %s: %w", dir, err)
	}
	s := &Store{
		db:      db,
		opt:     opt,
		readers: make(map[uint64]int),
		terms:   newTermCache(opt.CacheEntries),
		names:   newNameCache(opt.CacheEntries),
	}
	if err := s.recover(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open quad store %s: %w", dir, err)
	}
	return s, nil
}

// Close closes the store. Further calls return ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return ErrClosed
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close quad store: %w", err)
	}
	return nil
}

// Recovered reports whether Open rolled back an interrupted commit.
func (s *Store) Recovered() bool { return s.recovered }

func (s *Store) readMarker(key []byte) (uint64, error) {
	txn := s.db.NewTransactionAt(math.MaxUint64, false)
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
			return fmt.Errorf("%w: marker %q", ErrCorrupt, key)
		}
		v = binary.BigEndian.Uint64(b)
		return nil
	})
	return v, err
}

func (s *Store) readState(ts uint64) (state, error) {
	txn := s.db.NewTransactionAt(ts, false)
	defer txn.Discard()
	item, err := txn.Get(keyState)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return state{nextID: 1}, nil
	} else if err != nil {
		return state{}, err
	}
	var st state
	err = item.Value(func(b []byte) error {
		st, err = decodeState(b)
		return err
	})
	return st, err
}

// recover reads the commit markers and rolls back a commit that did not
// finish (see doc.go).
func (s *Store) recover() error {
	committed, err := s.readMarker(keyCommitted)
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	pending, err := s.readMarker(keyPending)
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	s.readTs.Store(committed)
	s.nextTs = max(committed, pending, s.db.MaxVersion()) + 1
	if s.st, err = s.readState(committed); err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	if pending <= committed && s.db.MaxVersion() <= committed {
		return nil
	}
	s.recovered = true
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.rollback(committed)
}

// rollback restores every key whose newest version is above committed to
// its value at committed, as a new commit. Rolling back twice is harmless,
// so a crash during recovery is recovered as well. The caller holds wmu.
func (s *Store) rollback(committed uint64) error {
	top := s.nextTs - 1
	latest := s.db.NewTransactionAt(top, false)
	defer latest.Discard()
	old := s.db.NewTransactionAt(committed, false)
	defer old.Discard()
	type restore struct {
		key, val []byte
		del      bool
	}
	var restores []restore
	it := latest.NewIterator(badger.IteratorOptions{AllVersions: true, SinceTs: committed})
	var lastKey []byte
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		if lastKey != nil && string(item.Key()) == string(lastKey) {
			continue // newest version first: only that one counts
		}
		lastKey = item.KeyCopy(nil)
		if item.Version() <= committed || string(lastKey) == string(keyCommitted) || string(lastKey) == string(keyPending) {
			continue
		}
		prev, err := old.Get(lastKey)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
			if !item.IsDeletedOrExpired() {
				restores = append(restores, restore{key: lastKey, del: true})
			}
		case err != nil:
			it.Close()
			return fmt.Errorf("rollback: %w", err)
		default:
			val, err := prev.ValueCopy(nil)
			if err != nil {
				it.Close()
				return fmt.Errorf("rollback: %w", err)
			}
			restores = append(restores, restore{key: lastKey, val: val})
		}
	}
	it.Close()
	_, err := s.commit(len(restores), func(w *batchWriter) error {
		for _, r := range restores {
			var err error
			if r.del {
				err = w.del(r.key)
			} else {
				err = w.set(r.key, r.val)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}, false)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	s.st, err = s.readState(s.readTs.Load())
	return err
}

var errSimulatedCrash = errors.New("simulated crash")

// badgerBitDelete is Badger's on-disk meta bit of a deletion marker
// (value.go: bitDelete); KVLoader takes the meta byte as is.
const badgerBitDelete = 1

// batchWriter writes the entries of one commit at its timestamp through
// Badger's KVLoader: the entries go to Badger's write path in batches of
// the largest size it accepts, without the per-key bookkeeping of a
// transaction (conflict detection and pending-write maps), which a
// WriteBatch would do for every key. Atomicity comes from the markers.
type batchWriter struct {
	l         *badger.KVLoader
	kv        pb.KV // reused: KVLoader.Set copies the key and the fields
	meta      [1]byte
	n         int
	failAfter int
}

func (w *batchWriter) put(k, v []byte, meta byte) error {
	if w.failAfter > 0 && w.n >= w.failAfter {
		return errSimulatedCrash
	}
	w.n++
	w.kv.Key, w.kv.Value, w.kv.Meta = k, v, nil
	if meta != 0 {
		w.meta[0] = meta
		w.kv.Meta = w.meta[:]
	}
	return w.l.Set(&w.kv)
}

func (w *batchWriter) set(k, v []byte) error { return w.put(k, v, 0) }
func (w *batchWriter) del(k []byte) error    { return w.put(k, nil, badgerBitDelete) }

func putMarker(db *badger.DB, key []byte, ts uint64) error {
	txn := db.NewTransactionAt(math.MaxUint64, true)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], ts)
	if err := txn.Set(key, b[:]); err != nil {
		txn.Discard()
		return err
	}
	return txn.CommitAt(ts, nil)
}

// commit writes one transaction at a new timestamp T: the pending marker
// T, the entries (through a KVLoader, so any number of them), then the
// committed marker T. Readers read at the committed timestamp and so see
// all entries of T or none. If writing fails midway, what reached Badger is
// rolled back at once. entries is a size hint for the onWrite hook. The
// caller holds wmu.
func (s *Store) commit(entries int, write func(w *batchWriter) error, hooks bool) (uint64, error) {
	if s.broken != nil {
		return 0, s.broken
	}
	ts := s.nextTs
	s.nextTs++
	if err := putMarker(s.db, keyPending, ts); err != nil {
		return 0, fmt.Errorf("commit: pending marker: %w", err)
	}
	w := &batchWriter{l: s.db.NewKVLoader(4)}
	w.kv.Version = ts
	if hooks {
		w.failAfter = s.failAfter
		if s.onWrite != nil {
			s.onWrite(entries)
		}
	}
	err := write(w)
	if errors.Is(err, errSimulatedCrash) {
		w.l.Finish() // like a crash: what was written so far stays
		return 0, err
	}
	if ferr := w.l.Finish(); err == nil {
		err = ferr
	}
	if err == nil {
		err = putMarker(s.db, keyCommitted, ts)
	}
	if err == nil && s.opt.SyncWrites {
		err = s.db.Sync()
	}
	if err != nil {
		if rerr := s.rollback(s.readTs.Load()); rerr != nil {
			s.broken = fmt.Errorf("quad store: a failed commit could not be rolled back; reopen the store: %w", rerr)
		}
		return 0, fmt.Errorf("commit: %w", err)
	}
	s.readTs.Store(ts)
	s.updateDiscard()
	return ts, nil
}

// updateDiscard lets Badger drop versions no open snapshot can see.
func (s *Store) updateDiscard() {
	s.rmu.Lock()
	low := s.readTs.Load()
	for ts := range s.readers {
		low = min(low, ts)
	}
	s.rmu.Unlock()
	s.db.SetDiscardTs(low)
}

// pin registers a snapshot at the current timestamp and returns it.
func (s *Store) pin() uint64 {
	s.rmu.Lock()
	ts := s.readTs.Load()
	s.readers[ts]++
	s.rmu.Unlock()
	return ts
}

func (s *Store) unpin(ts uint64) {
	s.rmu.Lock()
	if s.readers[ts]--; s.readers[ts] <= 0 {
		delete(s.readers, ts)
	}
	s.rmu.Unlock()
}
