package batch_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/search"
)

// sideEntries returns the store's side entries under prefix, by key.
func sideEntries(t *testing.T, st *graph.Store, prefix string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	if err := st.ScanSide(context.Background(), []byte(prefix), func(k, v []byte) error {
		out[string(k)] = bytes.Clone(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// registerAll registers lines as a batch job, plus one molecule by
// Register, through reg.
func registerAll(t *testing.T, st *graph.Store, reg *batch.Registry, lines []string) {
	t.Helper()
	runJobOn(t, st, batch.NewTask(reg, batch.TaskOptions{ChunkRecords: 100}), lines)
	if _, _, err := reg.Register(context.Background(), batch.Input{Format: chem.FormatSMILES, Content: "CC(=O)Oc1ccccc1C(=O)O"}); err != nil {
		t.Fatal(err)
	}
}

// TestRegistryWithoutStructureSearch: a registry with structure search off
// (molgraph serve --structure-search=false) stores no search entries, by
// batch or by POST; the same store opened with search on gets its index
// rebuilt from the graph, equal to the one registration builds: the same
// fingerprint and InChIKey entries, the same hits.
func TestRegistryWithoutStructureSearch(t *testing.T) {
	ctx := context.Background()
	lines := readNCI(t, 400)
	pool := newPool(t)

	on := openStore(t, t.TempDir())
	defer on.Close()
	registerAll(t, on, batch.NewRegistry(on, pool, base, nil), lines)

	dir := t.TempDir()
	off := openStore(t, dir)
	reg := batch.NewRegistry(off, pool, base, nil)
	reg.DisableStructureSearch()
	if reg.StructureSearch() {
		t.Fatal("StructureSearch after DisableStructureSearch")
	}
	registerAll(t, off, reg, lines)

	wantFP := sideEntries(t, on, "f")
	wantKeys := sideEntries(t, on, "k")
	if len(wantFP) < 350 || len(wantKeys) < 350 || len(sideEntries(t, on, "p")) != len(wantFP) {
		t.Fatalf("with search: %d fingerprint entries, %d InChIKey entries for %d records", len(wantFP), len(wantKeys), len(lines)+1)
	}
	for _, p := range []string{"f", "p", "k"} {
		if n := len(sideEntries(t, off, p)); n != 0 {
			t.Fatalf("without search: %d %q entries stored", n, p)
		}
	}
	// Restart with search on: rebuilt from the graph.
	off.Close()
	off = openStore(t, dir)
	defer off.Close()
	x, err := search.Open(ctx, off, pool, base, search.Options{CacheMolecules: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if x.Len() != len(wantFP) {
		t.Fatalf("rebuilt index holds %d molecules, registration indexed %d", x.Len(), len(wantFP))
	}
	gotFP := sideEntries(t, off, "f")
	if !maps.EqualFunc(gotFP, wantFP, bytes.Equal) {
		n := 0
		for k, v := range wantFP {
			if !bytes.Equal(gotFP[k], v) {
				n++
			}
		}
		t.Errorf("rebuilt fingerprints: %d of %d entries differ from registration's", n, len(wantFP))
	}
	if got := sideEntries(t, off, "k"); !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(wantKeys))) {
		t.Errorf("rebuilt InChIKey entries: %d, registration's %d", len(got), len(wantKeys))
	}
	if n := len(sideEntries(t, off, "p")); n != len(wantFP) {
		t.Errorf("rebuilt %d pickles for %d molecules", n, len(wantFP))
	}
	xOn, err := search.Open(ctx, on, pool, base, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer xOn.Close()
	for _, q := range []string{"C(=O)[OH]", "c1ccccc1N", "[#7;R]"} {
		want, err := xOn.Substructure(ctx, q, search.SubOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.Substructure(ctx, q, search.SubOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("substructure %s: %d hits after the rebuild, %d with registration's entries", q, len(got), len(want))
		}
	}
	want, err := xOn.Similar(ctx, "CC(=O)Oc1ccccc1C(=O)O", search.SimilarOptions{Threshold: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := x.Similar(ctx, "CC(=O)Oc1ccccc1C(=O)O", search.SimilarOptions{Threshold: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("similarity: %d hits after the rebuild, %d with registration's entries", len(got), len(want))
	}
}
