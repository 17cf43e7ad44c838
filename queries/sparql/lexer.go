package sparql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind classifies a token of the SPARQL grammar's terminals.
type tokKind int

const (
	tkEOF     tokKind = iota
	tkIRI             // <...>, text is the unescaped IRI (unresolved)
	tkPName           // prefix:local, text is the raw name
	tkBNode           // _:label, text is the label
	tkVar             // ?x or $x, text is the name
	tkLang            // @en, text is the tag
	tkInteger         // text is the lexical form
	tkDecimal         //
	tkDouble          //
	tkString          // text is the unescaped value
	tkNil             // ( )
	tkAnon            // [ ]
	tkPunct           // operators and delimiters
	tkName            // a bare word: keyword, function name, a, true, false
)

type token struct {
	kind      tokKind
	text      string
	line, col int
	// spaceAfter records whether whitespace (or a comment) follows the token;
	// it distinguishes "-1" (a literal) from "- 1".
	spaceAfter bool
}

func (t token) String() string {
	switch t.kind {
	case tkEOF:
		return "end of query"
	case tkIRI:
		return "<" + t.text + ">"
	case tkVar:
		return "?" + t.text
	case tkString:
		return strconv.Quote(t.text)
	case tkBNode:
		return "_:" + t.text
	case tkLang:
		return "@" + t.text
	case tkNil:
		return "()"
	case tkAnon:
		return "[]"
	}
	return strconv.Quote(t.text)
}

// SyntaxError is a query parse error with its 1-based position. It wraps
// ErrSyntax.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("sparql: syntax error at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Unwrap makes errors.Is(err, ErrSyntax) true.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

type lexer struct {
	src       string
	pos       int
	line, col int
	toks      []token
}

func lex(src string) ([]token, error) {
	if !utf8.ValidString(src) {
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: "query is not valid UTF-8"}
	}
	l := &lexer{src: src, line: 1, col: 1}
	for {
		sp := l.skipSpace()
		if n := len(l.toks); n > 0 && sp {
			l.toks[n-1].spaceAfter = true
		}
		if l.pos >= len(l.src) {
			l.toks = append(l.toks, token{kind: tkEOF, line: l.line, col: l.col})
			return l.toks, nil
		}
		if err := l.next(); err != nil {
			return nil, err
		}
	}
}

func (l *lexer) errf(line, col int, format string, a ...any) error {
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, a...)}
}

func (l *lexer) peekRune(off int) rune {
	if l.pos+off >= len(l.src) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.pos+off:])
	return r
}

// advance moves n bytes forward, keeping line/column.
func (l *lexer) advance(n int) {
	end := l.pos + n
	for l.pos < end {
		r, size := utf8.DecodeRuneInString(l.src[l.pos:])
		l.pos += size
		if r == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
	}
}

func (l *lexer) skipSpace() bool {
	skipped := false
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.advance(1)
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.advance(1)
			}
		default:
			return skipped
		}
		skipped = true
	}
	return skipped
}

func (l *lexer) emit(k tokKind, text string, line, col int) {
	l.toks = append(l.toks, token{kind: k, text: text, line: line, col: col})
}

func isPNCharsBase(r rune) bool {
	return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' ||
		r >= 0xC0 && r <= 0xD6 || r >= 0xD8 && r <= 0xF6 || r >= 0xF8 && r <= 0x2FF ||
		r >= 0x370 && r <= 0x37D || r >= 0x37F && r <= 0x1FFF || r >= 0x200C && r <= 0x200D ||
		r >= 0x2070 && r <= 0x218F || r >= 0x2C00 && r <= 0x2FEF || r >= 0x3001 && r <= 0xD7FF ||
		r >= 0xF900 && r <= 0xFDCF || r >= 0xFDF0 && r <= 0xFFFD || r >= 0x10000 && r <= 0xEFFFF
}

func isPNCharsU(r rune) bool { return isPNCharsBase(r) || r == '_' }

func isPNChars(r rune) bool {
	return isPNCharsU(r) || r == '-' || r >= '0' && r <= '9' || r == 0xB7 ||
		r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}

func isVarChar(r rune) bool {
	return isPNCharsU(r) || r >= '0' && r <= '9' || r == 0xB7 ||
		r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (l *lexer) next() error {
	line, col := l.line, l.col
	c := l.src[l.pos]
	rest := l.src[l.pos:]
	switch {
	case c == '<':
		if iri, n, ok := l.scanIRI(); ok {
			l.advance(n)
			l.emit(tkIRI, iri, line, col)
			return nil
		}
		if strings.HasPrefix(rest, "<=") {
			l.advance(2)
			l.emit(tkPunct, "<=", line, col)
			return nil
		}
		l.advance(1)
		l.emit(tkPunct, "<", line, col)
		return nil
	case c == '?' || c == '$':
		n := 1
		for {
			r, size := utf8.DecodeRuneInString(l.src[l.pos+n:])
			if size == 0 || !isVarChar(r) {
				break
			}
			n += size
		}
		if n == 1 {
			if c == '$' {
				return l.errf(line, col, "empty variable name")
			}
			l.advance(1)
			l.emit(tkPunct, "?", line, col)
			return nil
		}
		l.emit(tkVar, l.src[l.pos+1:l.pos+n], line, col)
		l.advance(n)
		return nil
	case c == '"' || c == '\'':
		return l.scanString(line, col)
	case c == '@':
		n := 1
		for n < len(rest) && (rest[n] >= 'a' && rest[n] <= 'z' || rest[n] >= 'A' && rest[n] <= 'Z') {
			n++
		}
		if n == 1 {
			return l.errf(line, col, "bad language tag")
		}
		for n < len(rest) && rest[n] == '-' {
			m := n + 1
			for m < len(rest) && (rest[m] >= 'a' && rest[m] <= 'z' || rest[m] >= 'A' && rest[m] <= 'Z' || rest[m] >= '0' && rest[m] <= '9') {
				m++
			}
			if m == n+1 {
				return l.errf(line, col, "bad language tag")
			}
			n = m
		}
		l.emit(tkLang, rest[1:n], line, col)
		l.advance(n)
		return nil
	case c >= '0' && c <= '9' || c == '.' && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9':
		return l.scanNumber(line, col)
	case c == '_' && len(rest) > 1 && rest[1] == ':':
		n := 2
		r, size := utf8.DecodeRuneInString(rest[n:])
		if size == 0 || !(isPNCharsU(r) || r >= '0' && r <= '9') {
			return l.errf(line, col, "bad blank node label")
		}
		n += size
		for {
			r, size := utf8.DecodeRuneInString(rest[n:])
			if size == 0 || !(isPNChars(r) || r == '.') {
				break
			}
			n += size
		}
		for rest[n-1] == '.' {
			n--
		}
		l.emit(tkBNode, rest[2:n], line, col)
		l.advance(n)
		return nil
	case c == '(' || c == '[':
		closer := byte(')')
		kind := tkNil
		if c == '[' {
			closer, kind = ']', tkAnon
		}
		n := 1
		for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t' || rest[n] == '\n' || rest[n] == '\r') {
			n++
		}
		if n < len(rest) && rest[n] == closer {
			l.advance(n + 1)
			l.emit(kind, "", line, col)
			return nil
		}
		l.advance(1)
		l.emit(tkPunct, string(c), line, col)
		return nil
	}
	for _, p := range []string{"^^", "&&", "||", "!=", ">=", "<=", "{", "}", ")", "]", ".", ",", ";", "*", "+", "-", "/", "!", "^", "|", "=", ">"} {
		if strings.HasPrefix(rest, p) {
			l.advance(len(p))
			l.emit(tkPunct, p, line, col)
			return nil
		}
	}
	// Prefixed name or bare word.
	r, _ := utf8.DecodeRuneInString(rest)
	if isPNCharsBase(r) || c == ':' {
		return l.scanName(line, col)
	}
	return l.errf(line, col, "unexpected character %q", r)
}

// scanIRI tries to read an IRIREF at the current position.
func (l *lexer) scanIRI() (string, int, bool) {
	rest := l.src[l.pos:]
	var b strings.Builder
	i := 1
	for i < len(rest) {
		c := rest[i]
		switch {
		case c == '>':
			return b.String(), i + 1, true
		case c <= 0x20 || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`':
			return "", 0, false
		case c == '\\':
			r, n, ok := unescapeUChar(rest[i:])
			if !ok {
				return "", 0, false
			}
			b.WriteRune(r)
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, false
}

// unescapeUChar decodes \uXXXX or \UXXXXXXXX at the start of s.
func unescapeUChar(s string) (rune, int, bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	n := 0
	switch s[1] {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, 0, false
	}
	if len(s) < 2+n {
		return 0, 0, false
	}
	for i := 2; i < 2+n; i++ {
		if !isHex(s[i]) {
			return 0, 0, false
		}
	}
	v, err := strconv.ParseUint(s[2:2+n], 16, 32)
	if err != nil || v > unicode.MaxRune || v >= 0xD800 && v <= 0xDFFF {
		return 0, 0, false
	}
	return rune(v), 2 + n, true
}

func (l *lexer) scanString(line, col int) error {
	rest := l.src[l.pos:]
	q := rest[0]
	long := len(rest) >= 3 && rest[1] == q && rest[2] == q
	i := 1
	if long {
		i = 3
	}
	var b strings.Builder
	for {
		if i >= len(rest) {
			return l.errf(line, col, "unterminated string")
		}
		c := rest[i]
		if long {
			if c == q && i+2 < len(rest) && rest[i+1] == q && rest[i+2] == q {
				// A long string may end with up to two extra quotes.
				for i+3 < len(rest) && rest[i+3] == q {
					b.WriteByte(q)
					i++
				}
				i += 3
				break
			}
		} else {
			if c == q {
				i++
				break
			}
			if c == '\n' || c == '\r' {
				return l.errf(line, col, "newline in string")
			}
		}
		if c == '\\' {
			if i+1 >= len(rest) {
				return l.errf(line, col, "unterminated string")
			}
			switch rest[i+1] {
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			case '"':
				b.WriteByte('"')
			case '\'':
				b.WriteByte('\'')
			case '\\':
				b.WriteByte('\\')
			case 'u', 'U':
				r, n, ok := unescapeUChar(rest[i:])
				if !ok {
					return l.errf(line, col, "bad \\u escape in string")
				}
				b.WriteRune(r)
				i += n
				continue
			default:
				return l.errf(line, col, "bad escape \\%c in string", rest[i+1])
			}
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
	l.advance(i)
	l.emit(tkString, b.String(), line, col)
	return nil
}

func (l *lexer) scanNumber(line, col int) error {
	rest := l.src[l.pos:]
	i := 0
	digits := func() int {
		s := i
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		return i - s
	}
	kind := tkInteger
	digits()
	if i < len(rest) && rest[i] == '.' {
		save := i
		i++
		if digits() > 0 || save > 0 {
			kind = tkDecimal
		} else {
			i = save
		}
		if kind == tkDecimal && i == save+1 {
			// "1." followed by no digits: the dot ends a triple unless an
			// exponent follows.
			if !(i < len(rest) && (rest[i] == 'e' || rest[i] == 'E')) {
				i = save
				kind = tkInteger
			}
		}
	}
	if i < len(rest) && (rest[i] == 'e' || rest[i] == 'E') {
		save := i
		i++
		if i < len(rest) && (rest[i] == '+' || rest[i] == '-') {
			i++
		}
		if digits() == 0 {
			i = save
		} else {
			kind = tkDouble
		}
	}
	l.emit(kind, rest[:i], line, col)
	l.advance(i)
	return nil
}

func (l *lexer) scanName(line, col int) error {
	rest := l.src[l.pos:]
	i := 0
	// PN_PREFIX
	for i < len(rest) {
		r, size := utf8.DecodeRuneInString(rest[i:])
		if i == 0 && !isPNCharsBase(r) {
			break
		}
		if !(isPNChars(r) || r == '.') {
			break
		}
		i += size
	}
	for i > 0 && rest[i-1] == '.' {
		i--
	}
	if i >= len(rest) || rest[i] != ':' {
		word := rest[:i]
		if i == 0 {
			return l.errf(line, col, "unexpected character")
		}
		l.emit(tkName, word, line, col)
		l.advance(i)
		return nil
	}
	i++ // the colon
	// PN_LOCAL
	start := i
	lastEsc := -1 // length of local after the last escape
	var local strings.Builder
	for i < len(rest) {
		r, size := utf8.DecodeRuneInString(rest[i:])
		switch {
		case r == '\\':
			if i+1 < len(rest) && strings.IndexByte("_~.-!$&'()*+,;=/?#@%", rest[i+1]) >= 0 {
				local.WriteByte(rest[i+1])
				i += 2
				lastEsc = local.Len()
				continue
			}
			return l.errf(line, col, "bad escape in prefixed name")
		case r == '%':
			if i+2 < len(rest) && isHex(rest[i+1]) && isHex(rest[i+2]) {
				local.WriteString(rest[i : i+3])
				i += 3
				continue
			}
			return l.errf(line, col, "bad %% escape in prefixed name")
		case i == start && (isPNCharsU(r) || r == ':' || r >= '0' && r <= '9'):
		case i > start && (isPNChars(r) || r == ':' || r == '.'):
		default:
			goto done
		}
		local.WriteRune(r)
		i += size
	}
done:
	// A local name may not end with '.'.
	ls := local.String()
	for strings.HasSuffix(ls, ".") && len(ls) > lastEsc && i > start && rest[i-1] == '.' {
		ls = ls[:len(ls)-1]
		i--
	}
	l.emit(tkPName, rest[:strings.IndexByte(rest, ':')+1]+ls, line, col)
	l.advance(i)
	return nil
}
