package rdfio

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// scanner is the byte-level reader shared by the N-Triples, N-Quads and
// Turtle parsers. It keeps a sliding window over the input (so parsing
// streams) with arbitrary lookahead, and tracks line and column.
type scanner struct {
	r      io.Reader
	buf    []byte
	pos    int
	eof    bool
	rerr   error // read error other than io.EOF
	line   int
	col    int
	format string
	// maxTerm bounds one term (IRI, literal's lexical form, prefixed name,
	// blank node label, language tag, number) in bytes, so that neither
	// the window nor a term's builder grows without bound.
	maxTerm int
}

const scanChunk = 64 << 10

// DefaultMaxTermBytes is the default of ParseOptions.MaxTermBytes.
const DefaultMaxTermBytes = 4 << 20

func newScanner(r io.Reader, format string, maxTerm int) *scanner {
	if maxTerm <= 0 {
		maxTerm = DefaultMaxTermBytes
	}
	return &scanner{r: r, buf: make([]byte, 0, scanChunk), line: 1, col: 1, format: format, maxTerm: maxTerm}
}

// errTooLong reports a term, starting at line:col, longer than maxTerm.
func (s *scanner) errTooLong(line, col int, what string) error {
	return s.errAt(line, col, "%s longer than %d bytes (the limit)", what, s.maxTerm)
}

// fill makes sure n bytes are available after pos when the input has them;
// it reports whether they are.
func (s *scanner) fill(n int) bool {
	for len(s.buf)-s.pos < n {
		if s.eof {
			return false
		}
		if s.pos > 0 {
			m := copy(s.buf, s.buf[s.pos:])
			s.buf = s.buf[:m]
			s.pos = 0
		}
		if cap(s.buf)-len(s.buf) < scanChunk/2 {
			nb := make([]byte, len(s.buf), 2*cap(s.buf)+n)
			copy(nb, s.buf)
			s.buf = nb
		}
		k, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+k]
		if err != nil {
			s.eof = true
			if !errors.Is(err, io.EOF) {
				s.rerr = err
			}
		}
	}
	return true
}

// peek returns the byte at offset i from the current position, or -1.
func (s *scanner) peek(i int) int {
	if !s.fill(i + 1) {
		return -1
	}
	return int(s.buf[s.pos+i])
}

// atEOF reports whether the input is exhausted.
func (s *scanner) atEOF() bool { return s.peek(0) < 0 }

// peekRune decodes the rune at offset i (in bytes). size is 0 at EOF; an
// invalid UTF-8 sequence yields utf8.RuneError with size 1.
func (s *scanner) peekRune(i int) (rune, int) {
	if !s.fill(i + 1) {
		return 0, 0
	}
	s.fill(i + utf8.UTFMax)
	b := s.buf[s.pos+i:]
	if b[0] < utf8.RuneSelf {
		return rune(b[0]), 1
	}
	return utf8.DecodeRune(b)
}

// advance consumes n bytes (which must be available), updating the position.
func (s *scanner) advance(n int) {
	for _, c := range s.buf[s.pos : s.pos+n] {
		switch {
		case c == '\n':
			s.line++
			s.col = 1
		case c&0xC0 != 0x80:
			s.col++
		}
	}
	s.pos += n
}

// errAt builds a syntax error at the given position.
func (s *scanner) errAt(line, col int, format string, args ...any) error {
	return &SyntaxError{Format: s.format, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// errorf builds a syntax error at the current position.
func (s *scanner) errorf(format string, args ...any) error {
	if s.rerr != nil {
		return fmt.Errorf("rdfio: parse %s: read: %w", s.format, s.rerr)
	}
	return s.errAt(s.line, s.col, format, args...)
}

// describe names the character at the current position for error messages.
func (s *scanner) describe() string {
	r, n := s.peekRune(0)
	switch {
	case n == 0:
		return "end of input"
	case r == utf8.RuneError && n == 1:
		return "invalid UTF-8"
	case r == '\n':
		return `end of line`
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf("control character U+%04X", r)
	}
	return fmt.Sprintf("%q", r)
}

// expect consumes the literal byte string lit or fails.
func (s *scanner) expect(lit string, what string) error {
	for i := 0; i < len(lit); i++ {
		if s.peek(i) != int(lit[i]) {
			return s.errorf("expected %s, found %s", what, s.describe())
		}
	}
	s.advance(len(lit))
	return nil
}

// hasPrefix reports whether the input continues with lit (case-sensitive).
func (s *scanner) hasPrefix(lit string) bool {
	for i := 0; i < len(lit); i++ {
		if s.peek(i) != int(lit[i]) {
			return false
		}
	}
	return true
}

// hasPrefixFold reports whether the input continues with lit, ignoring
// ASCII case.
func (s *scanner) hasPrefixFold(lit string) bool {
	for i := 0; i < len(lit); i++ {
		c := s.peek(i)
		if c < 0 || !strings.EqualFold(string(rune(c)), lit[i:i+1]) {
			return false
		}
	}
	return true
}

func isHex(c int) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c int) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	default:
		return rune(c - 'A' + 10)
	}
}

// readUCHAR reads \uXXXX or \UXXXXXXXX at the current position (the
// backslash included) and returns the code point.
func (s *scanner) readUCHAR() (rune, error) {
	line, col := s.line, s.col
	n := 0
	switch s.peek(1) {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, s.errorf("invalid escape")
	}
	var r rune
	for i := 0; i < n; i++ {
		c := s.peek(2 + i)
		if !isHex(c) {
			return 0, s.errAt(line, col, "invalid \\%c escape: expected %d hex digits", rune(s.peek(1)), n)
		}
		r = r<<4 | hexVal(c)
	}
	if r > utf8.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
		return 0, s.errAt(line, col, "escape denotes no Unicode scalar value (U+%X)", r)
	}
	s.advance(2 + n)
	return r, nil
}

// readECHARorUCHAR reads a string escape at the current backslash.
func (s *scanner) readStringEscape(sb *strings.Builder) error {
	switch c := s.peek(1); c {
	case 't':
		sb.WriteByte('\t')
	case 'b':
		sb.WriteByte('\b')
	case 'n':
		sb.WriteByte('\n')
	case 'r':
		sb.WriteByte('\r')
	case 'f':
		sb.WriteByte('\f')
	case '"', '\'', '\\':
		sb.WriteByte(byte(c))
	case 'u', 'U':
		r, err := s.readUCHAR()
		if err != nil {
			return err
		}
		sb.WriteRune(r)
		return nil
	default:
		s.advance(1)
		return s.errorf("invalid string escape \\%s", s.describe())
	}
	s.advance(2)
	return nil
}

// readIRIREF reads '<' ... '>' and returns the unescaped IRI text.
func (s *scanner) readIRIREF() (string, error) {
	line, col := s.line, s.col
	if err := s.expect("<", "'<'"); err != nil {
		return "", err
	}
	// Fast path: plain ASCII up to '>' inside the current window.
	s.fill(256)
	for i, c := range s.buf[s.pos:] {
		if i > s.maxTerm {
			break // the slow path reports it
		}
		if c == '>' {
			iri := string(s.buf[s.pos : s.pos+i])
			s.advance(i + 1)
			return iri, nil
		}
		if c >= utf8.RuneSelf || !iriCharOK(rune(c)) {
			break
		}
	}
	var sb strings.Builder
	for {
		if sb.Len() > s.maxTerm {
			return "", s.errTooLong(line, col, "IRI")
		}
		c := s.peek(0)
		switch {
		case c < 0:
			return "", s.errorf("unterminated IRI")
		case c == '>':
			s.advance(1)
			return sb.String(), nil
		case c == '\\':
			line, col := s.line, s.col
			r, err := s.readUCHAR()
			if err != nil {
				return "", err
			}
			if !iriCharOK(r) {
				return "", s.errAt(line, col, "escape denotes character U+%04X, not allowed in an IRI", r)
			}
			sb.WriteRune(r)
		case c < utf8.RuneSelf:
			if !iriCharOK(rune(c)) {
				return "", s.errorf("character %s not allowed in an IRI", s.describe())
			}
			sb.WriteByte(byte(c))
			s.advance(1)
		default:
			r, n := s.peekRune(0)
			if r == utf8.RuneError && n == 1 {
				return "", s.errorf("invalid UTF-8 in IRI")
			}
			sb.WriteRune(r)
			s.advance(n)
		}
	}
}

// iriCharOK reports whether r may appear in an IRIREF (after unescaping).
func iriCharOK(r rune) bool {
	if r <= 0x20 {
		return false
	}
	switch r {
	case '<', '>', '"', '{', '}', '|', '^', '`', '\\':
		return false
	}
	return true
}

// readQuotedString reads a short string delimited by q ('"' or '\”) on the
// current line, handling escapes.
func (s *scanner) readShortString(q byte) (string, error) {
	line, col := s.line, s.col
	s.advance(1)
	// Fast path: plain ASCII up to the closing quote inside the window.
	s.fill(256)
	for i, c := range s.buf[s.pos:] {
		if i > s.maxTerm {
			break // the slow path reports it
		}
		if c == q {
			lex := string(s.buf[s.pos : s.pos+i])
			s.advance(i + 1)
			return lex, nil
		}
		if c >= utf8.RuneSelf || c == '\\' || c == '\n' || c == '\r' {
			break
		}
	}
	var sb strings.Builder
	for {
		if sb.Len() > s.maxTerm {
			return "", s.errTooLong(line, col, "string")
		}
		c := s.peek(0)
		switch {
		case c < 0:
			return "", s.errAt(line, col, "unterminated string")
		case c == int(q):
			s.advance(1)
			return sb.String(), nil
		case c == '\\':
			if err := s.readStringEscape(&sb); err != nil {
				return "", err
			}
		case c == '\n' || c == '\r':
			return "", s.errorf("line break in string (use \\n or a long string)")
		default:
			if err := s.copyChar(&sb, c); err != nil {
				return "", err
			}
		}
	}
}

// readLongString reads a string delimited by three q characters.
func (s *scanner) readLongString(q byte) (string, error) {
	line, col := s.line, s.col
	s.advance(3)
	var sb strings.Builder
	for {
		if sb.Len() > s.maxTerm {
			return "", s.errTooLong(line, col, "string")
		}
		c := s.peek(0)
		switch {
		case c < 0:
			return "", s.errAt(line, col, "unterminated long string")
		case c == int(q):
			if s.peek(1) == int(q) && s.peek(2) == int(q) {
				// The first three quotes close the string: the content
				// cannot end with a quote (Turtle grammar, STRING_LITERAL_LONG_*).
				s.advance(3)
				return sb.String(), nil
			}
			sb.WriteByte(q)
			s.advance(1)
		case c == '\\':
			if err := s.readStringEscape(&sb); err != nil {
				return "", err
			}
		default:
			if err := s.copyChar(&sb, c); err != nil {
				return "", err
			}
		}
	}
}

// copyChar appends the character at the read position, whose first byte is
// c, to sb and moves past it.
func (s *scanner) copyChar(sb *strings.Builder, c int) error {
	if c < utf8.RuneSelf {
		sb.WriteByte(byte(c))
		s.advance(1)
		return nil
	}
	r, n := s.peekRune(0)
	if r == utf8.RuneError && n == 1 {
		return s.errorf("invalid UTF-8 in string")
	}
	sb.WriteRune(r)
	s.advance(n)
	return nil
}

// readLangTag reads '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)* and returns the tag
// without '@'.
func (s *scanner) readLangTag() (string, error) {
	line, col := s.line, s.col
	s.advance(1)
	i := 0
	for isAlpha(s.peek(i)) {
		i++
		if i > s.maxTerm {
			return "", s.errTooLong(line, col, "language tag")
		}
	}
	if i == 0 {
		return "", s.errorf("invalid language tag")
	}
	for s.peek(i) == '-' {
		j := i + 1
		for isAlnum(s.peek(j)) {
			j++
			if j > s.maxTerm {
				return "", s.errTooLong(line, col, "language tag")
			}
		}
		if j == i+1 {
			return "", s.errorf("invalid language tag: empty subtag")
		}
		i = j
	}
	tag := string(s.buf[s.pos : s.pos+i])
	s.advance(i)
	return tag, nil
}

func isAlpha(c int) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isDigit(c int) bool { return c >= '0' && c <= '9' }
func isAlnum(c int) bool { return isAlpha(c) || isDigit(c) }

// PN_CHARS_BASE of the Turtle grammar.
func isPNCharsBase(r rune) bool {
	switch {
	case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		return true
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

// PN_CHARS_U.
func isPNCharsU(r rune) bool { return r == '_' || isPNCharsBase(r) }

// PN_CHARS.
func isPNChars(r rune) bool {
	switch {
	case isPNCharsU(r), r == '-', r >= '0' && r <= '9', r == 0xB7,
		r >= 0x300 && r <= 0x36F, r >= 0x203F && r <= 0x2040:
		return true
	}
	return false
}

// pnCharsEnd returns the offset, from the read position, where a run of
// PN_CHARS starting at offset i ends; dots may occur inside the run but not
// at its end. It stops past maxTerm (callers check).
func (s *scanner) pnCharsEnd(i int) int {
	for {
		if i > s.maxTerm {
			return i
		}
		r, n := s.peekRune(i)
		if n == 0 {
			return i
		}
		if isPNChars(r) {
			i += n
			continue
		}
		if r == '.' {
			j := i
			for s.peek(j) == '.' && j <= s.maxTerm {
				j++
			}
			if r2, n2 := s.peekRune(j); n2 > 0 && isPNChars(r2) {
				i = j
				continue
			}
		}
		return i
	}
}

// readBlankLabel reads '_:' label and returns the label.
func (s *scanner) readBlankLabel() (string, error) {
	if err := s.expect("_:", "'_:'"); err != nil {
		return "", err
	}
	r, n := s.peekRune(0)
	if n == 0 || !(isPNCharsU(r) || (r >= '0' && r <= '9')) {
		return "", s.errorf("invalid blank node label: found %s", s.describe())
	}
	i := s.pnCharsEnd(n)
	if i > s.maxTerm {
		return "", s.errorf("blank node label longer than %d bytes (the limit)", s.maxTerm)
	}
	label := string(s.buf[s.pos : s.pos+i])
	s.advance(i)
	return label, nil
}
