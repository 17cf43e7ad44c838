package quadstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Group commit (Options.SyncWrites).
//
// A commit writes its entries and becomes visible; Sync makes every commit
// visible so far durable: it fsyncs Badger's logs, then writes the
// committed marker of the newest of those commits, then fsyncs again.
// Concurrent callers share one round: a caller whose commit was visible
// when a round started waits for that round; the others wait for the next
// one, which covers all of them. So a burst of commits costs one or two
// rounds, not one per commit, and the writer goes on committing while a
// round runs.
//
// Why by hand: Badger's SyncWrites fsyncs every write request (three or
// more per commit here, serialised behind our one writer), and Badger's
// DB.Sync fsyncs only the active memtable's log and value log: a memtable
// that was rotated but not yet flushed keeps an unsynced log, and a power
// loss could keep a later log's committed marker without the earlier log's
// entries. syncFiles fsyncs every log file in the directory (writeback
// covers pages written through Badger's mappings) and the directory.
//
// The marker is written only after the entries it covers are on disk, so
// after a power loss Open finds either a marker whose commits are all on
// disk or an older one, and rolls back everything above it (commits that
// were visible but never acknowledged through Sync).

// Sync makes every commit visible so far durable (see above). Without
// Options.SyncWrites it does nothing: each commit wrote its marker and the
// store survives the death of the process, not a power loss.
func (s *Store) Sync() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.sync()
}

func (s *Store) sync() error {
	if !s.opt.SyncWrites {
		return nil
	}
	want := s.readTs.Load()
	s.smu.Lock()
	defer s.smu.Unlock()
	for s.marker.Load() < want {
		if s.syncing {
			s.scond.Wait()
			continue
		}
		s.syncing = true
		t := s.readTs.Load()
		s.smu.Unlock()
		err := s.syncTo(t)
		s.smu.Lock()
		s.syncing = false
		s.scond.Broadcast()
		if err != nil {
			return fmt.Errorf("sync: %w", err)
		}
	}
	return nil
}

// syncTo makes the commits up to t durable and writes t as the committed
// marker.
func (s *Store) syncTo(t uint64) error {
	if err := s.syncFiles(); err != nil {
		return err
	}
	if t <= s.marker.Load() {
		return nil
	}
	if err := putMarker(s.db, keyCommitted, t); err != nil {
		return fmt.Errorf("committed marker: %w", err)
	}
	if err := s.syncFiles(); err != nil {
		return err
	}
	s.rounds.Add(1)
	for {
		m := s.marker.Load()
		if m >= t || s.marker.CompareAndSwap(m, t) {
			break
		}
	}
	s.updateDiscard()
	return nil
}

// syncFiles fsyncs Badger's memtable logs (*.mem) and value logs (*.vlog)
// and the directory. Tables and the manifest Badger syncs itself; a log
// that disappears meanwhile was flushed to a table.
func (s *Store) syncFiles() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".mem") && !strings.HasSuffix(name, ".vlog") {
			continue
		}
		if err := fsyncPath(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return fsyncPath(s.dir)
}

// fsyncPath fsyncs a file or directory.
func fsyncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
