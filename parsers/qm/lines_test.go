package qm_test

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/molgraph/molgraph/parsers/qm"
)

// TestLinesEndings: LF and CRLF endings are removed, a last line without
// ending is kept, and an over-long line is cut to MaxLine and counted.
func TestLinesEndings(t *testing.T) {
	long := strings.Repeat("x", qm.MaxLine+10)
	ln := qm.NewLines(strings.NewReader("a\nb\r\n\r\n" + long + "\r\nc"))
	var got []string
	for ln.Next() {
		got = append(got, ln.Text())
	}
	want := []string{"a", "b", "", long[:qm.MaxLine], "c"}
	if len(got) != len(want) || ln.Err() != nil || ln.Truncated() != 1 {
		t.Fatalf("got %d lines, err %v, %d truncated; want %d, nil, 1", len(got), ln.Err(), ln.Truncated(), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %.20q, want %.20q", i+1, got[i], want[i])
		}
	}
}

// TestParseLinesErrors pins the error texts of the parser driver.
func TestParseLinesErrors(t *testing.T) {
	nop := func([]byte) {}
	c, err := qm.ParseLines("orca", &qm.Calculation{}, strings.NewReader("a\nb\n"), nop, func() {})
	if c != nil || !errors.Is(err, qm.ErrNoResults) || err.Error() != "orca: parse: no results in log" {
		t.Errorf("empty: %v, %v", c, err)
	}
	broken := iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader("a\nb\n")))
	in := &qm.Calculation{}
	c, err = qm.ParseLines("psi4", in, broken, nop, func() {})
	if c != in || !errors.Is(err, iotest.ErrTimeout) || err.Error() != "psi4: parse: read line 1: timeout" {
		t.Errorf("read error: %v, %v", c, err)
	}
}
