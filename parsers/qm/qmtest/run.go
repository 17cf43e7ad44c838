package qmtest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/qm"
)

// RunCorpus parses every log of a corpus folder and checks it against
// cclib master, EXPECTED.md, the golden files and truncated copies.
func RunCorpus(t *testing.T, folder string, parse ParseFunc) {
	refs := References(t)
	exp := Expected()
	tally := NewTally()
	nexp := 0
	for _, rel := range Logs(t, folder) {
		data := Read(t, rel)
		c, err := parse(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if r, ok := refs[rel]; ok {
			CompareCclib(t, rel, c, r, tally)
		} else {
			t.Errorf("%s: no cclib reference", rel)
		}
		if e, ok := exp[rel]; ok {
			nexp += CheckExpected(t, rel, c, e)
		}
		Golden(t, rel, c)
		Truncations(t, rel, data, parse, c, 12)
	}
	t.Logf("%s vs cclib master (pass/compared per field):\n%s  skipped (convention): %v\n  EXPECTED.md assertions checked: %d",
		folder, tally, tally.Skip, nexp)
}

// NotThisProgram checks that logs of other programs and garbage yield
// ErrNoResults.
func NotThisProgram(t *testing.T, parse ParseFunc) {
	t.Helper()
	for _, in := range []string{"", "hello\nworld\n", strings.Repeat("x", 100000), "\x00\x01\x02binary"} {
		if _, err := parse(strings.NewReader(in)); !errors.Is(err, qm.ErrNoResults) {
			t.Errorf("%.20q: got %v, want ErrNoResults", in, err)
		}
	}
}

// LongLine checks that a line longer than qm.MaxLine before the first log
// of folder is cut with a warning, not fatal.
func LongLine(t *testing.T, folder string, parse ParseFunc) {
	t.Helper()
	data := Read(t, Logs(t, folder)[0])
	in := append([]byte(strings.Repeat("y", 3*qm.MaxLine)+"\n"), data...)
	c, err := parse(bytes.NewReader(in))
	if err != nil || len(c.Warnings) == 0 {
		t.Fatalf("got %v, warnings %v", err, c)
	}
}

// Fuzz seeds f with the head and tail of every log of folder and of the
// package's own testdata/generated and testdata/cclib logs, and checks that parse returns a
// calculation or ErrNoResults.
func Fuzz(f *testing.F, folder string, parse ParseFunc) {
	for _, rel := range Logs(f, folder) {
		data := Read(f, rel)
		f.Add(data[:min(len(data), 20000)])
		f.Add(data[max(0, len(data)-20000):])
	}
	// The package's own logs (testdata/generated, testdata/cclib,
	// testdata/heldout with xtb's g98.out files), if any.
	var own []string
	for _, pat := range []string{"generated/*.out", "cclib/*.out", "cclib/*.log", "heldout/*.out"} {
		more, _ := filepath.Glob(filepath.Join("testdata", filepath.FromSlash(pat)))
		own = append(own, more...)
	}
	for _, path := range own {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 20000)])
		f.Add(data[max(0, len(data)-20000):])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parse(bytes.NewReader(b))
		if err == nil && c == nil {
			t.Fatal("nil calculation without error")
		}
		if err != nil && !errors.Is(err, qm.ErrNoResults) {
			t.Fatalf("unexpected error %v", err)
		}
	})
}
