package quadstore

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/ontology"
)

// crash closes Badger without a clean Close: the markers stay as a power
// loss right after the last fsync would leave them (nothing written after
// it is flushed by Close, which would sync).
func crash(s *Store) {
	s.closed.Store(true)
	s.stopBackground()
	s.db.Close()
}

// TestGroupCommitDurability checks that under SyncWrites a commit is kept
// across a crash only once Sync returned after it: the committed marker of
// the commits after the last Sync is not written, so reopening rolls them
// back, and the synced ones stay.
func TestGroupCommitDurability(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{SyncWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for v := 0; v < 4; v++ {
		if err := s.ReplaceGraphs(ctx, []Graph{crashVersion(v)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	for v := 4; v < 6; v++ { // visible, never synced
		if err := s.ReplaceGraphs(ctx, []Graph{crashVersion(v)}); err != nil {
			t.Fatal(err)
		}
	}
	checkCrashGraphs(t, s, 5)
	crash(s)
	s, err = Open(dir, Options{SyncWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Recovered() {
		t.Error("the commits after the last Sync were not rolled back")
	}
	checkCrashGraphs(t, s, 3)
	// A clean Close keeps everything.
	if err := s.ReplaceGraphs(ctx, []Graph{crashVersion(4)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{SyncWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Recovered() {
		t.Error("a clean close left a commit to roll back")
	}
	checkCrashGraphs(t, s, 4)
}

// TestGroupCommitShares checks that concurrent writers whose commits are
// visible share fsync rounds (fewer rounds than commits) and that every
// Sync that returned covers its caller's commit. In each round of the test
// all writers commit first and then Sync at once: with writers committing
// and syncing freely, whether rounds overlap depends on how fast the disk
// syncs against how fast a commit is (on a fast disk with an idle machine
// under -race every Sync finished before the next commit, one round each).
func TestGroupCommitShares(t *testing.T) {
	s, err := Open(t.TempDir(), Options{SyncWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const writers, each = 8, 6
	errs := make(chan error, writers*each*2)
	for i := 0; i < each; i++ {
		var ts [writers]uint64
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				name := crashGraph(100 + w)
				g := Graph{Name: name, Quads: []quad.Quad{{Subject: name, Predicate: quad.IRI(ontology.MG + "version"), Object: ontology.Integer(int64(i))}}}
				if err := s.ReplaceGraphs(ctx, []Graph{g}); err != nil {
					errs <- err
					return
				}
				ts[w] = s.readTs.Load()
			}(w)
		}
		wg.Wait()
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				if err := s.Sync(); err != nil {
					errs <- err
					return
				}
				if m := s.marker.Load(); m < ts[w] {
					errs <- fmt.Errorf("marker %d after Sync of commit %d", m, ts[w])
				}
			}(w)
		}
		wg.Wait()
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rounds := s.rounds.Load()
	t.Logf("%d commits, %d fsync rounds", writers*each, rounds)
	if rounds >= writers*each {
		t.Errorf("%d fsync rounds for %d commits: no group commit", rounds, writers*each)
	}
}
