package quadstore

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
)

// sstRSS is the resident size (kB) of the process's mappings of table
// files in dir, from /proc/self/smaps.
func sstRSS(t *testing.T, dir string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer f.Close()
	var kb int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if strings.Contains(fields[0], "-") && len(fields) >= 5 { // a mapping's header line
			in = len(fields) == 6 && strings.HasSuffix(fields[5], ".sst") && filepath.Dir(fields[5]) == dir
			continue
		}
		if in && fields[0] == "Rss:" {
			n, _ := strconv.ParseInt(fields[1], 10, 64)
			kb += n
		}
	}
	return kb
}

// TestTrimTables: after a trim pass the table mappings hold no resident
// pages, and every quad still reads back.
func TestTrimTables(t *testing.T) {
	dir, err := filepath.Abs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{MemTableMB: 16, BlockCacheMB: 16, TrimInterval: -1}
	s, err := Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 40000
	var gs []Graph
	for i := 0; i < n/4; i++ {
		g := iri(fmt.Sprintf("r%d", i))
		gs = append(gs, Graph{Name: g, Quads: []quad.Quad{
			{Subject: g, Predicate: iri("name"), Object: quad.String(fmt.Sprintf("resource number %d", i))},
			{Subject: g, Predicate: iri("n"), Object: quad.Int(i)},
			{Subject: g, Predicate: iri("type"), Object: iri("Thing")},
			{Subject: iri(fmt.Sprintf("r%d#part", i)), Predicate: iri("of"), Object: g},
		}})
	}
	if err := s.ReplaceGraphs(ctx, gs); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // the memtable becomes a table
		t.Fatal(err)
	}
	if s, err = Open(dir, opt); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	count := func() int {
		c := 0
		err := s.Match(ctx, Pattern{}, func(quad.Quad) error { c++; return nil })
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := count(); c != n { // reads every table page
		t.Fatalf("%d quads, want %d", c, n)
	}
	if fileResidentBytes() <= 0 {
		t.Error("fileResidentBytes: no RssFile read from /proc/self/status")
	}
	before := sstRSS(t, dir)
	if before == 0 {
		t.Fatal("no resident table pages after a full scan: nothing to test")
	}
	advised := s.trimOnce(dir)
	after := sstRSS(t, dir)
	t.Logf("table pages resident: %d kB before, %d kB after a pass that advised %d kB", before, after, advised>>10)
	if advised == 0 || after > before/10 {
		t.Errorf("trim left %d of %d kB resident (advised %d bytes)", after, before, advised)
	}
	if c := count(); c != n {
		t.Fatalf("after trimming: %d quads, want %d", c, n)
	}
}
