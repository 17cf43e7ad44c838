package quadstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

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
const formatVersion = 4

// Options configure a Store. The zero value is usable.
type Options struct {
	// SyncWrites makes commits durable against power loss through Sync
	// (group commit): a commit becomes visible when it returns, but its
	// committed marker is written only by Sync, after the commit's entries
	// are on disk, so a crash or power loss before Sync rolls the commit
	// back at the next Open. Call Sync before acknowledging a commit.
	// Without it, a commit writes its marker itself and survives the death
	// of the process (kill -9), not a power loss.
	SyncWrites bool
	// CacheEntries bounds each of the two in-process term caches
	// (term -> id and id -> term). Default 1<<18.
	CacheEntries int
	// MemTableMB is Badger's memtable size (default 64); BlockCacheMB its
	// block cache (default 32). Badger holds up to three memtables (one
	// being written, one being flushed, one waiting).
	MemTableMB, BlockCacheMB int
	// Workers is the number of goroutines that encode and resolve terms in
	// a large write (default GOMAXPROCS).
	Workers int
	// MemoryLimitMB, if > 0, is set as the Go runtime's soft memory limit
	// (debug.SetMemoryLimit) by Open, unless the process already has one
	// (GOMEMLIMIT or an earlier SetMemoryLimit). Badger's memtables are
	// large short-lived allocations; without a limit the garbage collector
	// lets the heap grow to twice the live memory before it returns them,
	// and a bulk load's peak RSS is some 200 MB higher.
	MemoryLimitMB int
	// TrimInterval is how often the table trimmer (trim_linux.go) checks
	// the file-backed part of the process's resident set (default 500 ms,
	// negative: never); when it is above TrimAboveMB (default 512;
	// negative: always), the resident pages of Badger's table mappings are
	// dropped. Below it they stay, so reads do not fault them back in.
	TrimInterval time.Duration
	TrimAboveMB  int
	// ColumnsMaxTriples bounds the in-memory columns (columns.go): a
	// store with more quads builds none (default DefaultColumnsMaxTriples,
	// 16 bytes per triple; negative: never build them).
	ColumnsMaxTriples int64
}

// DefaultColumnsMaxTriples is Options.ColumnsMaxTriples when it is 0:
// 32 M triples, 512 MB of columns.
const DefaultColumnsMaxTriples = 32 << 20

func (o Options) withDefaults() Options {
	if o.CacheEntries <= 0 {
		o.CacheEntries = 1 << 18
	}
	if o.MemTableMB <= 0 {
		o.MemTableMB = 64
	}
	if o.BlockCacheMB <= 0 {
		o.BlockCacheMB = 32
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.TrimInterval == 0 {
		o.TrimInterval = 500 * time.Millisecond
	}
	if o.TrimAboveMB == 0 {
		o.TrimAboveMB = 512
	}
	if o.ColumnsMaxTriples == 0 {
		o.ColumnsMaxTriples = DefaultColumnsMaxTriples
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
	recs  map[uint64]nodeRec // the writer's node records (write_builder.go); guarded by wmu

	// filter holds every dictionary key since its scan (filter.go); nil
	// until the first scan after Open is done. building is a filter being
	// scanned, which the writer adds new terms to as well.
	filter, building atomic.Pointer[termFilter]
	bg               sync.WaitGroup // the running filter scan
	bgCtx            context.Context
	bgStop           context.CancelFunc

	trimStop, trimDone chan struct{} // the table trimmer (trim_linux.go)

	// cols are the columns of a recent commit (columns.go); colb builds
	// them.
	cols atomic.Pointer[Columns]
	colb *columnBuilder
	// valb extends the value column (values.go).
	valb *valueBuilder

	closed    atomic.Bool
	recovered bool

	dir string
	// Group commit (SyncWrites; sync.go): marker is the committed
	// timestamp last written to disk by Sync; smu guards syncing.
	marker  atomic.Uint64
	smu     sync.Mutex
	scond   *sync.Cond
	syncing bool
	rounds  atomic.Int64 // markers written by Sync (tests)

	// Test hooks: failAfter > 0 stops a commit after that many entries, as
	// a crash would; onWrite is called when a commit starts writing.
	failAfter int
	onWrite   func(entries int)
}

// Open opens (creating if needed) a store in dir. An interrupted commit of
// an earlier process is rolled back first.
func Open(dir string, opt Options) (*Store, error) {
	opt = opt.withDefaults()
	if opt.MemoryLimitMB > 0 && debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(int64(opt.MemoryLimitMB) << 20)
	}
	// A writer's cost is dominated by Badger's single write goroutine and
	// by flushing and compacting what it wrote. Large memtables and up to
	// 8 level-0 tables before compaction make a bulk load of a million
	// quads flush a few tables and compact little (15-25% less CPU than
	// 32 MB and 4 tables); one memtable waiting for its flush (besides the
	// one being flushed) bounds the memory.
	bopt := badger.DefaultOptions(dir).
		WithLogger(nil).
		// Badger's own SyncWrites fsyncs every write request (the pending
		// marker, each loader part, the committed marker: 3+ fsyncs per
		// commit, serialised by our one writer) and, unlike Sync, never syncs
		// a rotated memtable's log. Sync does the fsyncs once per group.
		WithSyncWrites(false).
		WithNumVersionsToKeep(1).
		WithDetectConflicts(false).
		WithMetricsEnabled(false).
		WithMemTableSize(int64(opt.MemTableMB) << 20).
		WithNumMemtables(1).
		WithNumLevelZeroTables(8).
		WithNumLevelZeroTablesStall(16).
		WithNumCompactors(2).
		WithBaseLevelSize(256 << 20).
		WithBlockCacheSize(int64(opt.BlockCacheMB) << 20).
		WithValueThreshold(4 << 10).
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
		recs:    make(map[uint64]nodeRec),
		dir:     dir,
	}
	s.scond = sync.NewCond(&s.smu)
	if err := s.recover(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open quad store %s: %w", dir, err)
	}
	// The term filter is scanned from the dictionary on a goroutine, so
	// that Open does not read every term.
	s.bgCtx, s.bgStop = context.WithCancel(context.Background())
	s.wmu.Lock()
	s.startFilterBuild(2 * s.st.nodes)
	s.wmu.Unlock()
	s.startColumns()
	s.startValues()
	if opt.TrimInterval > 0 {
		s.trimStop, s.trimDone = make(chan struct{}), make(chan struct{})
		go s.trimTables(dir, opt.TrimInterval, int64(opt.TrimAboveMB)<<20)
	}
	return s, nil
}

// Close closes the store. Further calls return ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return ErrClosed
	}
	s.stopBackground()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	// A clean close keeps every commit: the last marker is written.
	serr := s.sync()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close quad store: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("close quad store: %w", serr)
	}
	return nil
}

// stopBackground stops the store's goroutines: the term filter's scan and
// the table trimmer.
func (s *Store) stopBackground() {
	s.bgStop()
	s.stopColumns()
	s.stopValues()
	s.bg.Wait()
	s.stopTrim()
}

// stopTrim stops the table trimmer, if it runs.
func (s *Store) stopTrim() {
	if s.trimStop != nil {
		close(s.trimStop)
		<-s.trimDone
		s.trimStop = nil
	}
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
	s.marker.Store(committed)
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
	_, err := s.commit(commitOpts{estimate: len(restores), always: true}, func(w *batchWriter) error {
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
	})
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
// Badger's KVLoader: the entries go to Badger's write path in batches,
// without the per-key bookkeeping of a transaction (conflict detection and
// pending-write maps), which a WriteBatch would do for every key.
// Atomicity comes from the markers.
//
// A KVLoader hands its entries to Badger's writer only when it holds
// Badger's largest batch (15% of a memtable) or when it finishes, and its
// Finish waits for them. So that Badger writes while the store prepares
// the next part of a large commit, the writer cuts the commit into parts:
// cut finishes the current loader on a goroutine and the next entries go
// to a new one. At most maxParts parts are in flight (memory stays
// bounded); finish waits for all of them. Parts of one commit hold
// different keys, so their order in Badger does not matter.
type batchWriter struct {
	s         *Store
	ts        uint64
	started   bool
	estimate  int
	hooks     bool
	l         *badger.KVLoader
	inPart    int   // entries in the current loader
	kv        pb.KV // reused: KVLoader.Set copies the key and the fields
	meta      [1]byte
	n         int
	failAfter int

	slots chan struct{}  // one per part in flight
	wg    sync.WaitGroup // parts in flight
	emu   sync.Mutex
	err   error // first error of a part
}

// maxParts bounds the parts of a commit that are handed to Badger but not
// yet written.
const maxParts = 3

// begin writes the pending marker; the first entry calls it.
func (w *batchWriter) begin() error {
	if w.started {
		return nil
	}
	if err := putMarker(w.s.db, keyPending, w.ts); err != nil {
		return fmt.Errorf("pending marker: %w", err)
	}
	w.started = true
	if w.hooks && w.s.onWrite != nil {
		w.s.onWrite(w.estimate)
	}
	return nil
}

func (w *batchWriter) put(k, v []byte, meta byte) error {
	if !w.started {
		if err := w.begin(); err != nil {
			return err
		}
	}
	if w.failAfter > 0 && w.n >= w.failAfter {
		return errSimulatedCrash
	}
	if w.l == nil {
		w.l = w.s.db.NewKVLoader(2)
	}
	w.n++
	w.inPart++
	w.kv.Key, w.kv.Value, w.kv.Meta = k, v, nil
	if meta != 0 {
		w.meta[0] = meta
		w.kv.Meta = w.meta[:]
	}
	return w.l.Set(&w.kv)
}

func (w *batchWriter) set(k, v []byte) error { return w.put(k, v, 0) }
func (w *batchWriter) del(k []byte) error    { return w.put(k, nil, badgerBitDelete) }

// cut hands the entries written since the last cut to Badger and returns
// at once (unless maxParts parts are in flight); later entries go to a
// new loader.
func (w *batchWriter) cut() error {
	if w.l == nil || w.inPart == 0 {
		return w.partErr()
	}
	w.slots <- struct{}{}
	l := w.l
	w.l, w.inPart = nil, 0
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		err := l.Finish()
		<-w.slots
		if err != nil {
			w.emu.Lock()
			if w.err == nil {
				w.err = err
			}
			w.emu.Unlock()
		}
	}()
	return w.partErr()
}

func (w *batchWriter) partErr() error {
	w.emu.Lock()
	defer w.emu.Unlock()
	return w.err
}

// finish hands the last entries to Badger and waits until every part is
// written.
func (w *batchWriter) finish() error {
	if w.l != nil {
		l := w.l
		w.l = nil
		if err := l.Finish(); err != nil {
			w.wg.Wait()
			return err
		}
	}
	w.wg.Wait()
	return w.partErr()
}

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

// commitOpts are the options of one commit.
type commitOpts struct {
	// estimate is the expected number of entries, for the onWrite hook.
	estimate int
	// hooks enables the test hooks (failAfter, onWrite).
	hooks bool
	// always commits even if write writes no entry (a rollback must
	// leave committed >= pending).
	always bool
	// changes returns the commit's changes to the triples for the columns
	// (columns_delta.go), read once the entries are in Badger at ts; nil:
	// unknown (a rollback), the columns are built again.
	changes func(ts uint64) *colChanges
}

// commit writes one transaction at a new timestamp T: the pending marker
// T (just before the first entry), the entries (through KVLoaders, so any
// number of them), then the committed marker T. Readers read at the
// committed timestamp and so see all entries of T or none. If writing
// fails midway, what reached Badger is rolled back at once. A commit that
// writes no entry writes nothing and returns 0 (unless o.always). The
// caller holds wmu.
func (s *Store) commit(o commitOpts, write func(w *batchWriter) error) (uint64, error) {
	if s.broken != nil {
		return 0, s.broken
	}
	ts := s.nextTs
	s.nextTs++
	w := &batchWriter{s: s, ts: ts, estimate: o.estimate, hooks: o.hooks, slots: make(chan struct{}, maxParts)}
	w.kv.Version = ts
	if o.hooks {
		w.failAfter = s.failAfter
	}
	var err error
	if o.always {
		err = w.begin()
	}
	if err == nil {
		err = write(w)
	}
	if errors.Is(err, errSimulatedCrash) {
		w.finish() // like a crash: what was written so far stays
		return 0, err
	}
	if ferr := w.finish(); err == nil {
		err = ferr
	}
	if err == nil && !w.started {
		return 0, nil // nothing to commit
	}
	if err == nil && (!s.opt.SyncWrites || o.always) {
		// Under SyncWrites, Sync writes the marker once the entries are
		// on disk (a rollback's marker is written at once).
		if s.opt.SyncWrites {
			err = s.syncFiles()
		}
		if err == nil {
			err = putMarker(s.db, keyCommitted, ts)
		}
		if err == nil && s.opt.SyncWrites {
			err = s.syncFiles()
		}
		if err == nil {
			s.marker.Store(ts)
		}
	}
	if err != nil {
		if w.started {
			if rerr := s.rollback(s.readTs.Load()); rerr != nil {
				s.broken = fmt.Errorf("quad store: a failed commit could not be rolled back; reopen the store: %w", rerr)
			}
		}
		return 0, fmt.Errorf("commit: %w", err)
	}
	var ch *colChanges
	if o.changes != nil && s.colb != nil {
		ch = o.changes(ts)
	}
	s.publishTs(ts, ch)
	s.updateDiscard()
	s.kickValues()
	return ts, nil
}

// updateDiscard lets Badger drop versions no open snapshot can see.
func (s *Store) updateDiscard() {
	s.rmu.Lock()
	// Versions a rollback to the marker on disk needs stay too.
	low := min(s.readTs.Load(), s.marker.Load())
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
