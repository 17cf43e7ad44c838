package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/ontology"
)

// TestSortByID checks the radix sort of hits against the strings' own
// order: random ids, ids that share their first 8 characters (ordered by
// the rest), duplicates, and lists whose keys differ in an odd or even
// number of bytes (the result then ends in the scratch arrays or not).
func TestSortByID(t *testing.T) {
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	r := rand.New(rand.NewPCG(1, 2))
	id := func(fixed string) string {
		var b strings.Builder
		b.WriteString(ontology.MoleculeIDPrefix)
		b.WriteString(fixed)
		for b.Len() < len(ontology.MoleculeIDPrefix)+idLen {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	cases := map[string][]string{"empty": nil, "one": {id("")}}
	var random, shared, dup []string
	for i := 0; i < 5000; i++ {
		random = append(random, id(""))
		shared = append(shared, id("abcdefgh"[:r.IntN(9)]))
	}
	for i := 0; i < 300; i++ {
		s := id("zzzzzzzz")
		dup = append(dup, s, s, id("zzzzzzz"))
	}
	cases["random"], cases["shared prefixes"], cases["duplicates"] = random, shared, dup
	for odd := 1; odd <= 8; odd++ {
		// keys that differ in the last odd bytes only
		var l []string
		for i := 0; i < 700; i++ {
			l = append(l, id("00000000"[:8-odd]))
		}
		cases["differ in "+string(rune('0'+odd))+" bytes"] = l
	}
	for name, ids := range cases {
		hits := make([]Hit, len(ids))
		for i, s := range ids {
			hits[i] = Hit{ID: s, Score: float64(i)}
		}
		sortByID(hits)
		want := slices.Clone(ids)
		slices.Sort(want)
		for i := range hits {
			if hits[i].ID != want[i] {
				t.Fatalf("%s: hit %d is %s, want %s", name, i, hits[i].ID, want[i])
			}
			if ids[int(hits[i].Score)] != hits[i].ID {
				t.Fatalf("%s: hit %d lost its score", name, i)
			}
		}
	}
}
