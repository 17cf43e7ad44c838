package qm_test

import (
	"bytes"
	"errors"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// integer matches a run of digits standing alone (not part of a decimal).
var integer = regexp.MustCompile(`(^|[\s=:(])-?\d+($|[\s,)])`)

// allocated returns the bytes allocated while f runs (one goroutine).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// No count read from a log sizes an allocation: with every integer of a
// corpus log replaced by 999999999 ("NAtoms= 999999999", orbital counts,
// atom numbers, cycle counts), each parser finishes as fast and allocates
// about as much as on the log itself, and fails, if at all, with
// ErrNoResults.
func TestHugeCountsAllocateNothing(t *testing.T) {
	for _, tc := range []struct {
		folder string
		parse  qmtest.ParseFunc
	}{
		{"gaussian", gaussian.Parse},
		{"orca", orca.Parse},
		{"psi4", psi4.Parse},
	} {
		logs := qmtest.Logs(t, tc.folder)
		if len(logs) > 4 {
			logs = logs[:4]
		}
		for _, rel := range logs {
			t.Run(rel, func(t *testing.T) {
				data := qmtest.Read(t, rel)
				huge := integer.ReplaceAll(data, []byte("${1}999999999${2}"))
				if bytes.Equal(huge, data) {
					t.Fatal("no integer replaced")
				}
				base := allocated(func() { _, _ = tc.parse(bytes.NewReader(data)) })
				var err error
				start := time.Now()
				got := allocated(func() { _, err = tc.parse(bytes.NewReader(huge)) })
				took := time.Since(start)
				if err != nil && !errors.Is(err, qm.ErrNoResults) {
					t.Fatalf("error %v", err)
				}
				t.Logf("%d bytes: %v, %d bytes allocated (%d for the log itself)", len(huge), took, got, base)
				if got > 4*base+uint64(len(huge))+1<<20 {
					t.Errorf("allocated %d bytes, %d for the log itself", got, base)
				}
				if took > 5*time.Second {
					t.Errorf("took %v", took)
				}
			})
		}
	}
}
