package search

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/molgraph/molgraph/chem"
)

// randomFP sets n random bits (with repeats) in the first words of a
// fingerprint (zero words follow, as in sparse Morgan fingerprints).
func randomFP(r *rand.Rand, n int, words int) *chem.FP {
	var f chem.FP
	for range n {
		i := r.IntN(words * 64)
		f[i/64] |= 1 << (i % 64)
	}
	return &f
}

// TestQueryScanExact: the early exit of a threshold or top-k scan drops
// exactly the molecules whose score (as RDKit computes it) is below the
// cut, and keeps the exact shared-bit count of the others; minShared is
// the least count whose score reaches the threshold.
func TestQueryScanExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	thresholds := []float64{0, 0.1, 1.0 / 3, 0.5, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1}
	for iter := 0; iter < 3000; iter++ {
		words := 1 + r.IntN(chem.FPWords)
		q := randomFP(r, r.IntN(120), words)
		m := randomFP(r, r.IntN(120), words)
		if iter%7 == 0 { // near-duplicates, where the hits are
			*m = *q
			for range r.IntN(6) {
				i := r.IntN(chem.FPWords * 64)
				m[i/64] ^= 1 << (i % 64)
			}
		}
		a, b := popcount(q), popcount(m)
		full := 0
		for i := range chem.FPWords {
			full += bits.OnesCount64(q[i] & m[i])
		}
		qs := newQueryScan(q)
		for _, th := range thresholds {
			cmin := minShared(a, b, th)
			for c := 0; c <= min(a, b); c++ {
				if (score(c, a, b) >= th) != (c >= cmin) {
					t.Fatalf("minShared(%d, %d, %v) = %d, score(%d) = %v", a, b, th, cmin, c, score(c, a, b))
				}
			}
			c, ok := qs.shared(m[:], cmin)
			if ok != (score(full, a, b) >= th) {
				t.Fatalf("a %d b %d shared %d, threshold %v: kept %v", a, b, full, th, ok)
			}
			if ok && c != full {
				t.Fatalf("kept with %d shared bits, not %d", c, full)
			}
		}
	}
}
