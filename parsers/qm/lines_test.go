package qm_test

import (
	"bytes"
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

// TestLinesLong: lines around the read buffer's and MaxLine's sizes come
// back whole below MaxLine and cut to MaxLine (counted) from it on (a
// '\r' before the '\n' counts), as with a MaxLine read buffer.
func TestLinesLong(t *testing.T) {
	for _, n := range []int{16<<10 - 1, 16 << 10, 16<<10 + 1, 40 << 10, qm.MaxLine - 1, qm.MaxLine, qm.MaxLine + 1, 3 * qm.MaxLine} {
		for _, end := range []string{"\n", "\r\n", ""} {
			long := strings.Repeat("z", n)
			in := "a\n" + long + end + "b\n"
			ln := qm.NewLines(strings.NewReader(in))
			var got []string
			for ln.Next() {
				if len(got) == 0 && ln.BytesRead() != 2 {
					t.Errorf("line of %d bytes ending %q: %d bytes read after the first line, want 2", n, end, ln.BytesRead())
				}
				got = append(got, ln.Text())
			}
			if ln.BytesRead() != int64(len(in)) {
				t.Errorf("line of %d bytes ending %q: %d bytes read at the end, want %d", n, end, ln.BytesRead(), len(in))
			}
			// The line as read up to its '\n' (a missing ending joins the
			// next line), cut at MaxLine, its '\r' removed.
			content := long + strings.TrimSuffix(end, "\n")
			if end == "" {
				content += "b"
			}
			want, cut := content, 0
			if len(content) >= qm.MaxLine {
				want, cut = content[:qm.MaxLine], 1
			}
			want = strings.TrimRight(want, "\r")
			wantN := 3
			if end == "" {
				wantN = 2
			}
			if len(got) != wantN || got[0] != "a" || got[1] != want || ln.Truncated() != cut || ln.Err() != nil {
				t.Errorf("line of %d bytes ending %q: %d lines, second %d bytes, %d cut; want %d, %d, %d", n, end, len(got), len(got[min(1, len(got)-1)]), ln.Truncated(), wantN, len(want), cut)
			}
		}
	}
}

// trimCases are lines as logs indent and pad them, and the edges of
// TrimSpace's eight-byte steps and of its hand-over to bytes.TrimSpace.
var trimCases = []string{
	"", " ", "        ", "         ", "x", " x ", "       x", "        x", "         x", "x        ",
	"  Total DFT energy =   -382.308266602      ", "\t x \t", " \r\n", "\u00a0x\u00a0", " \u0085 x", "  é  ",
	"                 Vector    1  Occ=2.000000D+00  E=-1.002024D+01  Symmetry=bu                 ",
	"a b", "\x00 a \x00", " \v\f ",
}

// FuzzTrimSpace: TrimSpace equals bytes.TrimSpace, nil for nil;
// TrimLeftBlanks equals bytes.TrimLeft(b, " ").
func FuzzTrimSpace(f *testing.F) {
	for _, s := range trimCases {
		f.Add([]byte(s))
	}
	f.Fuzz(checkTrim)
}

func TestTrimSpaceCases(t *testing.T) {
	for _, s := range trimCases {
		checkTrim(t, []byte(s))
	}
}

func checkTrim(t *testing.T, b []byte) {
	got, want := qm.TrimSpace(b), bytes.TrimSpace(b)
	if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
		t.Errorf("TrimSpace(%q) = %q, want %q", b, got, want)
	}
	if got, want := qm.TrimLeftBlanks(b), bytes.TrimLeft(b, " "); !bytes.Equal(got, want) {
		t.Errorf("TrimLeftBlanks(%q) = %q, want %q", b, got, want)
	}
}

// FuzzFields: Fields splits as a byte-by-byte split at ASCII white space.
func FuzzFields(f *testing.F) {
	for _, s := range trimCases {
		f.Add([]byte(s))
	}
	for _, s := range []string{"    1 C                    6.0000     0.27180012    -1.40744922     0.00000000",
		"a\x01b c", "\x01\x02 \x03", "12345678 123456789\t\t x\u00a0y  ", "\x7f\x80\xff \x1f"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want [][]byte
		for i := 0; i < len(b); {
			for i < len(b) && strings.IndexByte(" \t\r\n\f\v", b[i]) >= 0 {
				i++
			}
			j := i
			for j < len(b) && strings.IndexByte(" \t\r\n\f\v", b[j]) < 0 {
				j++
			}
			if j > i {
				want = append(want, b[i:j])
			}
			i = j
		}
		got := qm.Fields(b, nil)
		if len(got) != len(want) {
			t.Fatalf("Fields(%q) = %q, want %q", b, got, want)
		}
		for k := range got {
			if !bytes.Equal(got[k], want[k]) {
				t.Fatalf("Fields(%q) = %q, want %q", b, got, want)
			}
		}
	})
}

// TestLinesEach: Each yields the lines Next does, and counts them, on
// lines around the read buffer's size and MaxLine, with and without
// endings, and up to a read error.
func TestLinesEach(t *testing.T) {
	var inputs []string
	for _, n := range []int{0, 1, 16<<10 - 2, 16<<10 - 1, 16 << 10, 16<<10 + 1, qm.MaxLine, 3 * qm.MaxLine} {
		for _, end := range []string{"\n", "\r\n", "\r\r\n", ""} {
			inputs = append(inputs, "a\n"+strings.Repeat("z", n)+end+"b\n\nc"+end, strings.Repeat("line\n", n/5)+end)
		}
	}
	for _, in := range inputs {
		for _, oneByte := range []bool{false, true} {
			open := func() *qm.Lines {
				if oneByte {
					return qm.NewLines(iotest.OneByteReader(strings.NewReader(in)))
				}
				return qm.NewLines(strings.NewReader(in))
			}
			var want, got []string
			ln := open()
			for ln.Next() {
				want = append(want, ln.Text())
			}
			le := open()
			le.Each(func(b []byte) { got = append(got, string(b)) })
			if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) || le.N() != ln.N() ||
				le.Truncated() != ln.Truncated() || le.BytesRead() != int64(len(in)) {
				t.Errorf("input of %d bytes (one byte per read %v): Each gave %d lines (N %d, %d cut, %d bytes read), Next %d (N %d, %d cut)",
					len(in), oneByte, len(got), le.N(), le.Truncated(), le.BytesRead(), len(want), ln.N(), ln.Truncated())
			}
		}
	}
	broken := qm.NewLines(iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader("a\nb\n"))))
	var got []string
	broken.Each(func(b []byte) { got = append(got, string(b)) })
	if len(got) != 1 || got[0] != "a" || broken.N() != 1 || !errors.Is(broken.Err(), iotest.ErrTimeout) {
		t.Errorf("read error: lines %q, N %d, err %v; want [a], 1, timeout", got, broken.N(), broken.Err())
	}
}
