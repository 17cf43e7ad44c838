package qm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// MaxLine is the longest line Lines returns; longer lines are cut to this
// length (and counted in Truncated), so memory stays bounded whatever the input.
const MaxLine = 64 << 10

// Lines reads a log line by line with bounded memory. It is the reader every
// program parser uses: bufio.Scanner stops at the first over-long line, Lines
// cuts it and goes on.
//
// Why not bufio.Reader.ReadSlice: Lines splits its own read buffer with one
// bytes.IndexByte per line and keeps the line as offsets; splitting by
// ReadSlice (its bookkeeping, the error checks around it and a slice stored
// per line) took 1.6 times the CPU time on an NWChem log.
type Lines struct {
	r          io.Reader
	buf        []byte // read buffer; buf[start:end] is read and not yet returned
	start, end int
	long       []byte // a line longer than buf, assembled (up to MaxLine)
	// The current line is buf[lo:hi], or long[lo:hi] if inLong. Offsets, not
	// a slice: storing a pointer per line in this heap object costs a
	// write barrier whenever the garbage collector is marking.
	lo, hi    int
	inLong    bool
	n         int
	truncated int
	read      int64 // bytes read from r
	err       error
	eof       bool // r returned an error (io.EOF or another): no more reads
}

// readBuffer is the size of Lines' read buffer. Lines longer than it (rare
// in logs) are assembled in a second buffer, up to MaxLine: a MaxLine read
// buffer per parse was most of a parse's allocation, and its garbage
// collection a fifth of the CPU time of parsing a small log.
const readBuffer = 16 << 10

// maxEmptyReads is how many reads in a row may return nothing before Lines
// gives up with io.ErrNoProgress (bufio's limit).
const maxEmptyReads = 100

// NewLines returns a Lines reading from r.
func NewLines(r io.Reader) *Lines {
	return &Lines{r: r, buf: make([]byte, readBuffer)}
}

// ParseLines is the driver of every program parser: it passes each line of
// r to line (valid only during the call), calls finish at the end of input
// and returns c, with a warning if over-long lines were cut. On a read error
// it returns c too, with the error wrapped as "<name>: parse: read line N:";
// if c is Empty it returns nil and ErrNoResults wrapped as "<name>: parse:".
func ParseLines(name string, c *Calculation, r io.Reader, line func([]byte), finish func()) (*Calculation, error) {
	ln := NewLines(r)
	ln.Each(line)
	finish()
	if n := ln.Truncated(); n > 0 {
		c.Warn(fmt.Sprintf("%d over-long lines cut to %d bytes", n, MaxLine))
	}
	if err := ln.Err(); err != nil {
		return c, fmt.Errorf("%s: parse: read line %d: %w", name, ln.N(), err)
	}
	if c.Empty() {
		return nil, fmt.Errorf("%s: parse: %w", name, ErrNoResults)
	}
	return c, nil
}

// Next advances to the next line; it returns false at the end of input or
// on a read error (the text read before the error is a last line).
func (l *Lines) Next() bool {
	for {
		if i := bytes.IndexByte(l.buf[l.start:l.end], '\n'); i >= 0 {
			// The common case, inline: the line holds no other '\n'.
			lo, hi := l.start, l.start+i
			l.start = hi + 1
			for hi > lo && l.buf[hi-1] == '\r' {
				hi--
			}
			l.lo, l.hi, l.inLong = lo, hi, false
			l.n++
			return true
		}
		switch {
		case l.eof && l.start == l.end:
			return false
		case l.eof:
			// The last line, without an ending.
			l.set(l.start, l.end, false)
			l.start = l.end
			return true
		case l.end-l.start == len(l.buf):
			l.longLine()
			return true
		}
		l.fill()
	}
}

// Each calls fn with every line, as `for l.Next() { fn(l.Bytes()) }` does
// (the line is valid only during the call), but splits the lines already
// read in a loop of its own: Next's per-line loads and stores of Lines'
// fields were a tenth of the instructions of parsing an NWChem log.
func (l *Lines) Each(fn func([]byte)) {
	for {
		b := l.buf[l.start:l.end]
		for {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				break
			}
			line := b[:i]
			b = b[i+1:]
			for len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			l.n++
			fn(line)
		}
		l.start = l.end - len(b)
		if !l.Next() { // refills, long lines, the last line
			return
		}
		fn(l.Bytes())
	}
}

// set makes buf[lo:hi] (long[lo:hi] if inLong), without its trailing
// line-ending bytes, the current line.
func (l *Lines) set(lo, hi int, inLong bool) {
	b := l.buf
	if inLong {
		b = l.long
	}
	for hi > lo && (b[hi-1] == '\n' || b[hi-1] == '\r') {
		hi-- // bytes.TrimRight builds a set per call: slow per line
	}
	l.lo, l.hi, l.inLong = lo, hi, inLong
	l.n++
}

// fill moves the unread bytes to the front of buf and reads more after
// them: at least one byte, or until r reports an error.
func (l *Lines) fill() {
	if l.start > 0 {
		l.end = copy(l.buf, l.buf[l.start:l.end])
		l.start = 0
	}
	for range maxEmptyReads {
		n, err := l.r.Read(l.buf[l.end:])
		if n < 0 || n > len(l.buf)-l.end {
			n, err = 0, errNegativeRead
		}
		l.end += n
		l.read += int64(n)
		if err != nil {
			l.eof = true
			if err != io.EOF {
				l.err = err
			}
			return
		}
		if n > 0 {
			return
		}
	}
	l.eof, l.err = true, io.ErrNoProgress
}

// errNegativeRead reports a reader that claims to have read more than asked
// or a negative count (as bufio does).
var errNegativeRead = errors.New("qm: reader returned an invalid count")

// longLine reads a line longer than the read buffer (which holds its start):
// it keeps the line's first MaxLine bytes and skips the rest of it.
func (l *Lines) longLine() {
	l.long = append(l.long[:0], l.buf[l.start:l.end]...)
	n := l.end - l.start
	l.start = l.end
	ended := false
	for !ended && !l.eof {
		l.fill()
		chunk := l.buf[l.start:l.end]
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			chunk, ended = chunk[:i+1], true
		}
		l.start += len(chunk)
		n += len(chunk)
		if room := MaxLine - len(l.long); room > 0 {
			l.long = append(l.long, chunk[:min(room, len(chunk))]...)
		}
	}
	if ended {
		n-- // the line ending
	}
	if n >= MaxLine {
		l.truncated++
	}
	l.set(0, len(l.long), true)
}

// Bytes returns the current line without its line ending; valid until the next call to Next.
func (l *Lines) Bytes() []byte {
	if l.inLong {
		return l.long[l.lo:l.hi]
	}
	return l.buf[l.lo:l.hi]
}

// Text returns the current line as a string.
func (l *Lines) Text() string { return string(l.Bytes()) }

// N returns the 1-based number of the current line.
func (l *Lines) N() int { return l.n }

// BytesRead returns the number of input bytes consumed so far.
func (l *Lines) BytesRead() int64 { return l.read - int64(l.end-l.start) }

// Truncated returns how many lines were longer than MaxLine and were cut.
func (l *Lines) Truncated() int { return l.truncated }

// Err returns the first read error other than io.EOF.
func (l *Lines) Err() error { return l.err }

// TrimSpace is bytes.TrimSpace, faster on log lines: it skips the runs of
// blanks that indent and pad them eight bytes at a time and leaves anything
// else at either end (tabs, other white space, non-ASCII) to
// bytes.TrimSpace. Why: bytes.TrimSpace's byte loops, whose exits a branch
// predictor cannot guess on lines indented by varying amounts, were a sixth
// of the CPU time of parsing an NWChem log.
func TrimSpace(b []byte) []byte {
	const blanks = 0x2020202020202020
	i, j := 0, len(b)
	for j-i >= 8 {
		if w := binary.LittleEndian.Uint64(b[i:]) ^ blanks; w != 0 {
			i += bits.TrailingZeros64(w) >> 3
			goto right
		}
		i += 8
	}
	for i < j && b[i] == ' ' {
		i++
	}
	if i == j {
		return nil
	}
right:
	// b[i] is not a blank: both loops stop at it.
	for j-i >= 8 {
		if w := binary.LittleEndian.Uint64(b[j-8:]) ^ blanks; w != 0 {
			j -= bits.LeadingZeros64(w) >> 3
			goto ends
		}
		j -= 8
	}
	for b[j-1] == ' ' {
		j--
	}
ends:
	if c, d := b[i], b[j-1]; c <= ' ' || c >= utf8.RuneSelf || d <= ' ' || d >= utf8.RuneSelf {
		return bytes.TrimSpace(b[i:j])
	}
	return b[i:j:j]
}

// TrimLeftBlanks returns b without its leading blanks (' ' only), skipped
// eight at a time as in TrimSpace: for a parser that needs only a line's
// first character to drop it (TrimSpace of the result is TrimSpace(b)).
func TrimLeftBlanks(b []byte) []byte {
	const blanks = 0x2020202020202020
	i := 0
	for len(b)-i >= 8 {
		if w := binary.LittleEndian.Uint64(b[i:]) ^ blanks; w != 0 {
			return b[i+bits.TrailingZeros64(w)>>3:]
		}
		i += 8
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return b[i:]
}

// Fields splits b around runs of ASCII white space, appending to dst[:0]; it
// allocates only when dst is too small. Runs of blanks and of other bytes
// are crossed eight bytes at a time (skipBlanks, fieldEnd): byte loops made
// Fields an eighth of the instructions of parsing an NWChem log.
func Fields(b []byte, dst [][]byte) [][]byte {
	dst = dst[:0]
	i := 0
	for {
		i = skipBlanks(b, i)
		for i < len(b) && isSpace(b[i]) {
			i = skipBlanks(b, i+1)
		}
		if i >= len(b) {
			return dst
		}
		j := fieldEnd(b, i+1)
		for j < len(b) && !isSpace(b[j]) {
			j = fieldEnd(b, j+1) // a control character inside the field
		}
		dst = append(dst, b[i:j])
		i = j
	}
}

// skipBlanks returns the index of the first byte of b at or after i that
// is not ' ' (len(b) if none).
func skipBlanks(b []byte, i int) int {
	const blanks = 0x2020202020202020
	for len(b)-i >= 8 {
		if w := binary.LittleEndian.Uint64(b[i:]) ^ blanks; w != 0 {
			return i + bits.TrailingZeros64(w)>>3
		}
		i += 8
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

// fieldEnd returns the index of the first byte of b at or after j that is
// below '!' (white space or a control character; len(b) if none).
func fieldEnd(b []byte, j int) int {
	const ones, highs = 0x2121212121212121, 0x8080808080808080
	for len(b)-j >= 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		// The high bit of each byte below 0x21 (exact for the lowest one).
		if m := (w - ones) &^ w & highs; m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
		j += 8
	}
	for j < len(b) && b[j] > ' ' {
		j++
	}
	return j
}

// isSpace reports whether c is ASCII white space (one compare and a bit
// test instead of six compares).
func isSpace(c byte) bool {
	const mask uint64 = 1<<' ' | 1<<'\t' | 1<<'\r' | 1<<'\n' | 1<<'\f' | 1<<'\v'
	return c <= ' ' && mask>>c&1 != 0
}

// ParseFloat parses a decimal number as programs print it, accepting Fortran
// exponents (1.0D-03) and rejecting NaN and infinities.
//
// Why not strconv.ParseFloat alone: its generality (underscores,
// hexadecimal, infinities, the copy a Fortran "D" needs) made it a quarter of
// the CPU time of parsing an NWChem log. Numbers of at most 19 digits
// digits whose value is an integer below 2⁵³ times or divided by a power of
// ten up to 10²² (nearly all a log prints) are computed directly: both
// factors are exact doubles, so the one IEEE operation rounds correctly
// (Clinger's fast path, which strconv takes for them too) and the result is
// strconv's to the bit (FuzzParseFloat). strconv reads the rest.
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 64 {
		return 0, false
	}
	if v, ok := fastFloat(b); ok {
		return v, true
	}
	return parseFloatStrconv(b)
}

// fastFloat is ParseFloat's fast path; false means "not decided here".
func fastFloat(b []byte) (float64, bool) {
	i, neg := 0, false
	if b[0] == '-' || b[0] == '+' {
		neg, i = b[0] == '-', 1
	}
	// The digits before and after the point; more than 19 (leading zeros
	// included) may have overflowed mant and are left to strconv.
	var mant uint64
	start := i
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		mant = mant*10 + uint64(b[i]-'0')
	}
	nd, exp := i-start, 0
	if i < len(b) && b[i] == '.' {
		i++
		frac := i
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			mant = mant*10 + uint64(b[i]-'0')
		}
		nd += i - frac
		exp = frac - i
	}
	if nd == 0 || nd > 19 {
		return 0, false
	}
	if i < len(b) {
		if c := b[i]; c != 'e' && c != 'E' && c != 'd' && c != 'D' {
			return 0, false
		}
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) || len(b)-i > 3 {
			return 0, false
		}
		e := 0
		for ; i < len(b); i++ {
			if b[i] < '0' || b[i] > '9' {
				return 0, false
			}
			e = e*10 + int(b[i]-'0')
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if mant > 1<<53 {
		return 0, false
	}
	var v float64
	switch f := float64(mant); {
	case mant == 0 || exp == 0:
		v = f
	case exp > 0 && exp <= 22:
		v = f * math.Pow10(exp)
	case exp < 0 && exp >= -22:
		v = f / math.Pow10(-exp)
	default:
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseFloatStrconv is ParseFloat by strconv.ParseFloat alone.
func parseFloatStrconv(b []byte) (float64, bool) {
	var tmp [64]byte
	s := tmp[:0]
	for _, c := range b {
		switch {
		case c == 'D' || c == 'd':
			c = 'e'
		case (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E':
		default:
			return 0, false
		}
		s = append(s, c)
	}
	v, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// ParseInt parses a decimal integer of at most 18 characters (strconv.Atoi's
// syntax: an optional sign and digits), without the string conversion
// strconv.Atoi would need.
func ParseInt(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	i, neg := 0, false
	if b[0] == '-' || b[0] == '+' {
		if len(b) == 1 {
			return 0, false
		}
		neg, i = b[0] == '-', 1
	}
	v := 0
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// FloatAfter parses the first number in the fields that follow the first
// occurrence of marker in line.
func FloatAfter(line []byte, marker string) (float64, bool) {
	i := bytes.Index(line, []byte(marker))
	if i < 0 {
		return 0, false
	}
	var tmp [8][]byte
	for _, f := range Fields(line[i+len(marker):], tmp[:0]) {
		if v, ok := ParseFloat(f); ok {
			return v, true
		}
	}
	return 0, false
}

// Floats parses every field of fs that is a number, appending to dst.
func Floats(fs [][]byte, dst []float64) []float64 {
	for _, f := range fs {
		if v, ok := ParseFloat(f); ok {
			dst = append(dst, v)
		}
	}
	return dst
}
