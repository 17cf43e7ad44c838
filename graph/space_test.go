package graph_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/graphtest"
)

func testGraph(i int) (quad.IRI, []quad.Quad) {
	g := quad.IRI("http://example.org/id/molecule/m" + string(rune('a'+i)))
	return g, []quad.Quad{{Subject: g, Predicate: quad.IRI("http://example.org/p"), Object: quad.String("v")}}
}

// TestDiskFull fills a small file system: below the reserve, writes and
// blob puts fail with ErrNoSpace, Ready reports it, reads go on and nothing
// stored before is damaged; once space is freed everything works again,
// also after a reopen. A blob put that meets a real ENOSPC leaves no
// temporary file.
func TestDiskFull(t *testing.T) {
	mnt := graphtest.MountTmpfs(t, 48<<20)
	ctx := context.Background()
	dir := filepath.Join(mnt, "data")
	opt := graph.Options{SyncWrites: true, MinFreeBytes: 8 << 20}
	s, err := graph.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	g1, q1 := testGraph(1)
	if err := s.PutGraph(ctx, g1, q1); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("ready before the disk fills: %v", err)
	}

	filler := graphtest.Fill(t, mnt, 4<<20)
	if err := s.Ready(ctx); !errors.Is(err, graph.ErrNoSpace) {
		t.Errorf("Ready on a full disk: %v, want ErrNoSpace", err)
	}
	g2, q2 := testGraph(2)
	if err := s.PutGraph(ctx, g2, q2); !errors.Is(err, graph.ErrNoSpace) {
		t.Errorf("PutGraph on a full disk: %v, want ErrNoSpace", err)
	}
	if err := s.DeleteGraph(ctx, g1); !errors.Is(err, graph.ErrNoSpace) {
		t.Errorf("DeleteGraph on a full disk: %v, want ErrNoSpace", err)
	}
	if _, err := s.Blobs().PutBytes([]byte("blob")); !errors.Is(err, graph.ErrNoSpace) {
		t.Errorf("blob put on a full disk: %v, want ErrNoSpace", err)
	}
	if got, err := s.Graph(ctx, g1); err != nil || len(got) != 1 {
		t.Errorf("read on a full disk: %v %v", got, err)
	}
	if ok, _ := s.HasGraph(ctx, g2); ok {
		t.Error("a refused write is visible")
	}

	// Space comes back: ready, writable, and what was stored is intact.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Errorf("Ready after space came back: %v", err)
	}
	if err := s.PutGraph(ctx, g2, q2); err != nil {
		t.Errorf("PutGraph after space came back: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = graph.Open(dir, opt); err != nil {
		t.Fatal(err)
	}
	if s.Recovered() {
		t.Error("reopen had a commit to roll back")
	}
	for _, g := range []quad.IRI{g1, g2} {
		if got, err := s.Graph(ctx, g); err != nil || len(got) != 1 {
			t.Errorf("graph %s after reopen: %v %v", g, got, err)
		}
	}

	// A real ENOSPC (no reserve on this second store; its graph is never
	// written, as Badger's mapped logs cannot report one).
	raw, err := graph.Open(filepath.Join(mnt, "raw"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	filler = graphtest.Fill(t, mnt, 1<<20)
	defer os.Remove(filler)
	if _, err := raw.Blobs().Put(bytes.NewReader(make([]byte, 3<<20))); !errors.Is(err, graph.ErrNoSpace) {
		t.Errorf("blob put past ENOSPC: %v, want ErrNoSpace", err)
	}
	tmps, _ := os.ReadDir(filepath.Join(mnt, "raw", "blobs", "tmp"))
	if len(tmps) != 0 {
		t.Errorf("%d temporary files left by the failed put", len(tmps))
	}
}
