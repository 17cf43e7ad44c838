package search_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/search"
)

var (
	fuzzOnce sync.Once
	fuzzIdx  *search.Index
)

// FuzzSearch runs arbitrary requests (query text, type, format, options)
// against a small index: a query parses or is refused with ErrInvalidQuery
// or ErrBadOptions; nothing else may happen (no crash, no other error).
func FuzzSearch(f *testing.F) {
	for _, s := range []struct {
		typ, q, format string
	}{
		{"substructure", "c1ccccc1C(=O)N", ""},
		{"substructure", "[CX3](=O)[OX2H1]", "smarts"},
		{"substructure", "[$([#6]~[#7]),$(*=O)]", ""},
		{"substructure", "C1CC(", ""},
		{"substructure", "[D4;#6]", "smarts"},
		{"superstructure", "CC(=O)Nc1ccc(O)cc1", ""},
		{"similarity", "CC(=O)Oc1ccccc1C(=O)O", ""},
		{"similarity", "\n  RDKit\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\nM  END\n", "molfile"},
		{"exact", "BSYNRYMUTXBXSQ-UHFFFAOYSA-N", ""},
		{"exact", "InChI=1S/CH4/h1H4", ""},
		{"exact", "C[C@H](N)C(=O)O", "smiles"},
		{"substructure", "[#6]1~[#6]~[#6]~[#6]~[#6]~[#6]~1", "smarts"},
		{"substructure", "*~*~*~*~*~*~*~*~*", "smarts"},
		{"substructure", "[!$([#6,#7])&R2]", "smarts"},
	} {
		f.Add(s.typ, s.q, s.format, 0.5, 0, false)
	}
	f.Fuzz(func(t *testing.T, typ, q, format string, threshold float64, top int, chirality bool) {
		fuzzOnce.Do(func() {
			st, err := graph.OpenMemory(graph.Options{})
			if err != nil {
				panic(err)
			}
			register(t, st, nci(t, 60))
			if fuzzIdx, err = search.Open(context.Background(), st, testPool(t), base, search.Options{}); err != nil {
				panic(err)
			}
		})
		req := search.Request{Type: typ, Query: q, QueryFormat: format, Top: top % 100}
		if typ == search.TypeSimilarity {
			req.Threshold = &threshold
		} else {
			req.Top = 0
			if typ != search.TypeExact {
				req.Chirality = &chirality
			}
		}
		_, err := fuzzIdx.Search(context.Background(), req)
		if err != nil && !isClientError(err) {
			t.Fatalf("%+v: %v", req, err)
		}
	})
}

func isClientError(err error) bool {
	return errorsIs(err, search.ErrInvalidQuery) || errorsIs(err, search.ErrBadOptions)
}

var errorsIs = func(err, target error) bool { return errors.Is(err, target) }
