package qm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// MaxLine is the longest line Lines returns; longer lines are cut to this
// length (and counted in Truncated), so memory stays bounded whatever the input.
const MaxLine = 64 << 10

// Lines reads a log line by line with bounded memory. It is the reader every
// program parser uses: bufio.Scanner stops at the first over-long line, Lines
// cuts it and goes on.
type Lines struct {
	r         *bufio.Reader
	line      []byte
	buf       []byte
	n         int
	truncated int
	bytes     int64
	err       error
	done      bool
}

// readBuffer is the size of Lines' read buffer. Lines longer than it (rare
// in logs) are assembled in a second buffer, up to MaxLine: a MaxLine read
// buffer per parse was most of a parse's allocation, and its garbage
// collection a fifth of the CPU time of parsing a small log.
const readBuffer = 16 << 10

// NewLines returns a Lines reading from r.
func NewLines(r io.Reader) *Lines {
	if br, ok := r.(*bufio.Reader); ok && br.Size() >= readBuffer {
		return &Lines{r: br}
	}
	return &Lines{r: bufio.NewReaderSize(r, readBuffer)}
}

// ParseLines is the driver of every program parser: it passes each line of
// r to line (valid only during the call), calls finish at the end of input
// and returns c, with a warning if over-long lines were cut. On a read error
// it returns c too, with the error wrapped as "<name>: parse: read line N:";
// if c is Empty it returns nil and ErrNoResults wrapped as "<name>: parse:".
func ParseLines(name string, c *Calculation, r io.Reader, line func([]byte), finish func()) (*Calculation, error) {
	ln := NewLines(r)
	for ln.Next() {
		line(ln.Bytes())
	}
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

// Next advances to the next line; it returns false at the end of input or on a read error.
func (l *Lines) Next() bool {
	if l.done {
		return false
	}
	b, err := l.r.ReadSlice('\n')
	l.bytes += int64(len(b))
	if errors.Is(err, bufio.ErrBufferFull) {
		// A line longer than the read buffer: keep its first MaxLine
		// bytes, skip the rest of it.
		l.buf = append(l.buf[:0], b...)
		n := len(b)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = l.r.ReadSlice('\n')
			l.bytes += int64(len(b))
			n += len(b)
			if room := MaxLine - len(l.buf); room > 0 {
				l.buf = append(l.buf, b[:min(room, len(b))]...)
			}
		}
		if err == nil {
			n-- // the line ending
		}
		if n >= MaxLine {
			l.truncated++
		}
		b = l.buf
	}
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		l.done = true
		if err != io.EOF {
			l.err = err
		}
		if len(b) == 0 {
			return false
		}
	}
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1] // bytes.TrimRight builds a set per call: slow per line
	}
	l.line = b
	l.n++
	return true
}

// Bytes returns the current line without its line ending; valid until the next call to Next.
func (l *Lines) Bytes() []byte { return l.line }

// Text returns the current line as a string.
func (l *Lines) Text() string { return string(l.line) }

// N returns the 1-based number of the current line.
func (l *Lines) N() int { return l.n }

// BytesRead returns the number of input bytes consumed so far.
func (l *Lines) BytesRead() int64 { return l.bytes }

// Truncated returns how many lines were longer than MaxLine and were cut.
func (l *Lines) Truncated() int { return l.truncated }

// Err returns the first read error other than io.EOF.
func (l *Lines) Err() error { return l.err }

// Fields splits b around runs of ASCII white space, appending to dst[:0]; it
// allocates only when dst is too small.
func Fields(b []byte, dst [][]byte) [][]byte {
	dst = dst[:0]
	i := 0
	for i < len(b) {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			break
		}
		j := i
		for j < len(b) && !isSpace(b[j]) {
			j++
		}
		dst = append(dst, b[i:j])
		i = j
	}
	return dst
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'
}

// ParseFloat parses a decimal number as programs print it, accepting Fortran
// exponents (1.0D-03) and rejecting NaN and infinities.
//
// Why not strconv.ParseFloat alone: its generality (underscores,
// hexadecimal, infinities, the copy a Fortran "D" needs) made it a quarter of
// the CPU time of parsing an NWChem log. Numbers of at most 19 significant
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
	var mant uint64
	nd, exp := 0, 0
	digits, point := false, false
digits:
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			digits = true
			if point {
				exp--
			}
			if mant == 0 && c == '0' {
				continue // leading zeros are no significant digits
			}
			if nd == 19 {
				return 0, false
			}
			mant = mant*10 + uint64(c-'0')
			nd++
		case c == '.' && !point:
			point = true
		default:
			break digits
		}
	}
	if !digits {
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
