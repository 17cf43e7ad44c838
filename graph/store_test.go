package graph_test

import (
	"testing"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/graphtest"
)

func TestMemory(t *testing.T) {
	graphtest.Run(t, func(t *testing.T, opt graph.Options) (*graph.Store, func(*graph.Store) *graph.Store) {
		s, err := graph.OpenMemory(opt)
		if err != nil {
			t.Fatal(err)
		}
		return s, nil
	})
}

func TestBadger(t *testing.T) { runOnDisk(t, graph.Open) }

func runOnDisk(t *testing.T, openStore func(string, graph.Options) (*graph.Store, error)) {
	graphtest.Run(t, func(t *testing.T, opt graph.Options) (*graph.Store, func(*graph.Store) *graph.Store) {
		dir := t.TempDir()
		s, err := openStore(dir, opt)
		if err != nil {
			t.Fatal(err)
		}
		reopen := func(old *graph.Store) *graph.Store {
			t.Helper()
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			s, err := openStore(dir, opt)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		return s, reopen
	})
}
