package chem_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/chem"
)

// TestWorkerNice: with Options.Nice the pool's worker threads, and only
// they, run at that nice value (read back from /proc, per thread).
func TestWorkerNice(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc/self/task")
	}
	niced := func() int {
		stats, _ := filepath.Glob("/proc/self/task/*/stat")
		n := 0
		for _, p := range stats {
			b, err := os.ReadFile(p)
			if err != nil {
				continue // the thread ended
			}
			s := string(b)
			f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
			if v, err := strconv.Atoi(f[16]); err == nil && v == 7 { // field 19: nice
				n++
			}
		}
		return n
	}
	before := niced()
	p, err := chem.New(chem.Options{Workers: 2, Nice: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := niced() - before; got != 2 {
		t.Errorf("%d threads at nice 7, want the 2 workers", got)
	}
}
