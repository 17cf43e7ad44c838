package search_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/search"
)

// heldoutLines reads a text file (gzip-compressed if its name says so)
// line by line.
func heldoutLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r *bufio.Scanner
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		r = bufio.NewScanner(z)
	} else {
		r = bufio.NewScanner(f)
	}
	r.Buffer(make([]byte, 1<<20), 1<<20)
	var out []string
	for r.Scan() {
		out = append(out, r.Text())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHeldoutSMARTSEqualsRDKit matches SMARTS we did not write (every
// SMARTS RDKit ships as data: its filter catalogs' PAINS, Brenk, NIH, ZINC
// and ChEMBL sets, WEHI's PAINS, R. Lewis's, the functional groups,
// Crippen's and the fragment descriptors', NIBR's filters, mutants of
// them, and WEHI's PAINS as RDKit's FilterCatalog matches them, hydrogens
// merged) over molecules we did not pick (NCI, WEHI's PAINS test set, a
// sample of the bench's drug-like set, edge.smi), molecule by molecule
// against RDKit's HasSubstructMatch: testdata/heldout.py wrote the
// expected hits (heldout_hits.txt.gz) with Debian's python3-rdkit. A
// SMARTS RDKit cannot parse must be refused with ErrInvalidQuery.
func TestHeldoutSMARTSEqualsRDKit(t *testing.T) {
	smiles := heldoutLines(t, "testdata/heldout.smi")
	queries := heldoutLines(t, "testdata/heldout_smarts.txt")
	want := heldoutLines(t, "testdata/heldout_hits.txt.gz")
	ctx := context.Background()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	line := map[string]int{}
	var kvs []graph.SideEntry
	for i, s := range smiles {
		id := ontology.MoleculeID(s)
		line[id] = i
		e, err := search.Prepare(id, s, "")
		if err != nil {
			t.Fatalf("line %d %s: %v", i, s, err)
		}
		kvs = append(kvs, e...)
	}
	if err := st.PutSide(ctx, kvs); err != nil {
		t.Fatal(err)
	}
	// every molecule held in memory (the matcher of mg_match.cpp); a
	// second index reads them all from their pickles (RDKit's
	// SubstructMatch on each) for every 32nd query
	held, err := search.Open(ctx, st, nil, base, search.Options{NoGraphCheck: true, CacheMolecules: len(smiles)})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	pickled, err := search.Open(ctx, st, nil, base, search.Options{NoGraphCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pickled.Close()
	if held.Len() != len(smiles) {
		t.Fatalf("index holds %d molecules of %d", held.Len(), len(smiles))
	}
	k, refused, hits, bad := 0, 0, 0, 0
	for qi, q := range queries {
		o := search.SubOptions{Format: search.FormatSMARTS}
		if rest, ok := strings.CutPrefix(q, "!"); ok {
			_, err := held.Substructure(ctx, rest, o)
			if !errors.Is(err, search.ErrInvalidQuery) {
				t.Errorf("%q: RDKit cannot parse it; we answer %v", rest, err)
			}
			refused++
			continue
		}
		if k >= len(want) {
			t.Fatalf("heldout_hits.txt.gz has %d lines, fewer than the queries", len(want))
		}
		var exp []int
		last := -1
		for _, g := range strings.Fields(want[k]) {
			n, err := strconv.Atoi(g)
			if err != nil {
				t.Fatal(err)
			}
			last += n + 1
			exp = append(exp, last)
		}
		k++
		idxs := []*search.Index{held}
		if qi%32 == 0 {
			idxs = append(idxs, pickled)
		}
		for _, x := range idxs {
			got, err := x.Substructure(ctx, q, o)
			if err != nil {
				t.Errorf("%q: %v", q, err)
				bad++
				continue
			}
			gotSet := make(map[int]bool, len(got))
			for _, h := range got {
				gotSet[line[h.ID]] = true
			}
			var extra, missing []string
			for _, i := range exp {
				if !gotSet[i] {
					missing = append(missing, smiles[i])
				}
				delete(gotSet, i)
			}
			for i := range gotSet {
				extra = append(extra, smiles[i])
			}
			if len(extra)+len(missing) > 0 {
				bad++
				t.Errorf("%q: %d hits, RDKit %d; we miss %.3q, we add %.3q", q, len(got), len(exp), missing, extra)
			}
			hits += len(got)
		}
	}
	if k != len(want) {
		t.Errorf("heldout_hits.txt.gz has %d lines, %d queries parse", len(want), k)
	}
	t.Logf("%d SMARTS over %d molecules (%d hits), %d refused as RDKit refuses them; %d differ", k, len(smiles), hits, refused, bad)
}
