package rdfio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

// turtleWriter writes Turtle, grouping consecutive quads by subject and
// predicate. Graph labels are dropped.
type turtleWriter struct {
	w        *bufio.Writer
	prefixes []ontology.Prefix // sorted by namespace length, longest first
	declared []ontology.Prefix // in declaration order
	started  bool              // header written
	open     bool              // a statement is open
	subj     []byte            // formatted subject of the open statement
	pred     []byte            // formatted predicate of the open statement
	buf      []byte
	out      []byte
	err      error
	closed   bool
}

func newTurtleWriter(w io.Writer, opts WriterOptions) *turtleWriter {
	pre := opts.Prefixes
	if pre == nil {
		pre = ontology.Prefixes()
	}
	sorted := append([]ontology.Prefix(nil), pre...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i].IRI) > len(sorted[j].IRI) })
	return &turtleWriter{w: bufio.NewWriterSize(w, 64<<10), prefixes: sorted, declared: pre}
}

func (tw *turtleWriter) fail(op string, err error) error {
	tw.err = fmt.Errorf("rdfio: %s turtle: %w", op, err)
	return tw.err
}

func (tw *turtleWriter) header() error {
	tw.started = true
	var b []byte
	for _, p := range tw.declared {
		if !validPrefixName(p.Name) {
			return fmt.Errorf("%w: prefix name %q", ErrInvalidTerm, p.Name)
		}
		if err := checkIRI(p.IRI); err != nil {
			return err
		}
		b = append(b, "@prefix "...)
		b = append(b, p.Name...)
		b = append(b, ": <"...)
		b = append(b, p.IRI...)
		b = append(b, "> .\n"...)
	}
	if len(b) > 0 {
		b = append(b, '\n')
	}
	_, err := tw.w.Write(b)
	return err
}

func (tw *turtleWriter) WriteQuad(q quad.Quad) error {
	if tw.closed {
		return fmt.Errorf("rdfio: write turtle: %w", ErrClosed)
	}
	if tw.err != nil {
		return tw.err
	}
	if err := checkQuad(q); err != nil {
		return fmt.Errorf("rdfio: write turtle: %w", err)
	}
	if !tw.started {
		if err := tw.header(); err != nil {
			return tw.fail("write", err)
		}
	}
	// Format the three terms first so that a bad term leaves the output
	// untouched.
	b := tw.buf[:0]
	var err error
	if b, err = tw.appendTerm(b, q.Subject); err != nil {
		return fmt.Errorf("rdfio: write turtle: %w", err)
	}
	ns := len(b)
	if q.Predicate == quad.IRI(rdfType) {
		b = append(b, 'a')
	} else if b, err = tw.appendTerm(b, q.Predicate); err != nil {
		return fmt.Errorf("rdfio: write turtle: %w", err)
	}
	np := len(b)
	if b, err = tw.appendTerm(b, q.Object); err != nil {
		return fmt.Errorf("rdfio: write turtle: %w", err)
	}
	tw.buf = b
	subj, pred, obj := b[:ns], b[ns:np], b[np:]
	out := tw.out[:0]
	switch {
	case tw.open && bytes.Equal(subj, tw.subj) && bytes.Equal(pred, tw.pred):
		out = append(out, ", "...)
	case tw.open && bytes.Equal(subj, tw.subj):
		out = append(out, " ;\n    "...)
		out = append(out, pred...)
		out = append(out, ' ')
		tw.pred = append(tw.pred[:0], pred...)
	default:
		if tw.open {
			out = append(out, " .\n\n"...)
		}
		out = append(out, subj...)
		out = append(out, ' ')
		out = append(out, pred...)
		out = append(out, ' ')
		tw.subj = append(tw.subj[:0], subj...)
		tw.pred = append(tw.pred[:0], pred...)
		tw.open = true
	}
	out = append(out, obj...)
	tw.out = out
	if _, err := tw.w.Write(out); err != nil {
		return tw.fail("write", err)
	}
	return nil
}

func (tw *turtleWriter) Close() error {
	if tw.closed {
		return fmt.Errorf("rdfio: close turtle: %w", ErrClosed)
	}
	tw.closed = true
	if tw.err != nil {
		return tw.err
	}
	if !tw.started {
		if err := tw.header(); err != nil {
			return tw.fail("close", err)
		}
	}
	if tw.open {
		if _, err := tw.w.WriteString(" .\n"); err != nil {
			return tw.fail("close", err)
		}
	}
	if err := tw.w.Flush(); err != nil {
		return tw.fail("close", err)
	}
	return nil
}

// appendIRI writes iri as a prefixed name when a declared namespace
// covers it and the rest is a valid PN_LOCAL needing no escapes, else as
// <iri>.
func (tw *turtleWriter) appendIRI(b []byte, iri string) ([]byte, error) {
	for _, p := range tw.prefixes {
		if strings.HasPrefix(iri, p.IRI) && validLocal(iri[len(p.IRI):]) {
			b = append(b, p.Name...)
			b = append(b, ':')
			return append(b, iri[len(p.IRI):]...), nil
		}
	}
	if err := checkIRI(iri); err != nil {
		return b, err
	}
	b = append(b, '<')
	b = append(b, iri...)
	return append(b, '>'), nil
}

func (tw *turtleWriter) appendTerm(b []byte, v quad.Value) ([]byte, error) {
	v, err := normalize(v)
	if err != nil {
		return b, err
	}
	switch t := v.(type) {
	case quad.IRI:
		return tw.appendIRI(b, string(t))
	case quad.BNode:
		return appendBlank(b, string(t)), nil
	case quad.String:
		return appendTurtleString(b, string(t))
	case quad.LangString:
		if err := checkLang(t.Lang); err != nil {
			return b, err
		}
		if b, err = appendTurtleString(b, string(t.Value)); err != nil {
			return b, err
		}
		b = append(b, '@')
		return append(b, t.Lang...), nil
	case quad.TypedString:
		if shortLiteral(string(t.Value), string(t.Type)) {
			return append(b, t.Value...), nil
		}
		if b, err = appendTurtleString(b, string(t.Value)); err != nil {
			return b, err
		}
		b = append(b, '^', '^')
		return tw.appendIRI(b, string(t.Type))
	}
	return b, fmt.Errorf("%w: unsupported value type %T", ErrInvalidTerm, v)
}

// shortLiteral reports whether lex^^dt can be written as a bare Turtle
// number or boolean: only when the token Turtle reads back has exactly
// this lexical form and datatype (INTEGER, DECIMAL, DOUBLE productions;
// "true"/"false").
func shortLiteral(lex, dt string) bool {
	switch dt {
	case xsdBoolean:
		return lex == "true" || lex == "false"
	case xsdInteger:
		return numberShape(lex) == xsdInteger
	case xsdDecimal:
		return numberShape(lex) == xsdDecimal
	case xsdDouble:
		return numberShape(lex) == xsdDouble
	}
	return false
}

// numberShape returns the datatype Turtle gives lex as a bare token
// (INTEGER, DECIMAL or DOUBLE), or "" when lex is not such a token.
func numberShape(lex string) string {
	i := 0
	if i < len(lex) && (lex[i] == '+' || lex[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(lex) && lex[i] >= '0' && lex[i] <= '9' {
			i++
			n++
		}
		return n
	}
	intDigits := digits()
	dot, frac := false, 0
	if i < len(lex) && lex[i] == '.' {
		dot = true
		i++
		frac = digits()
	}
	if i == len(lex) {
		switch {
		case !dot && intDigits > 0:
			return xsdInteger
		case dot && frac > 0:
			return xsdDecimal
		}
		return ""
	}
	if lex[i] != 'e' && lex[i] != 'E' || (intDigits == 0 && frac == 0) {
		return ""
	}
	i++
	if i < len(lex) && (lex[i] == '+' || lex[i] == '-') {
		i++
	}
	if digits() == 0 || i != len(lex) {
		return ""
	}
	return xsdDouble
}

// appendTurtleString writes s as a Turtle string: a long string
// ("""...""") when it holds line breaks, else a short one. Quotes and
// backslashes are escaped; control characters other than LF (and TAB) use
// ECHAR or \u escapes, so the output survives any reader.
func appendTurtleString(b []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return b, fmt.Errorf("%w: literal is not valid UTF-8", ErrInvalidTerm)
	}
	long := strings.IndexByte(s, '\n') >= 0
	if long {
		b = append(b, `"""`...)
	} else {
		b = append(b, '"')
	}
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			if long {
				continue
			}
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			continue
		case c == '\b':
			esc = `\b`
		case c == '\f':
			esc = `\f`
		case c < 0x20 || c == 0x7f:
			esc = fmt.Sprintf(`\u%04X`, c)
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	b = append(b, s[start:]...)
	if long {
		return append(b, `"""`...), nil
	}
	return append(b, '"'), nil
}

// validPrefixName reports whether p is a valid PN_PREFIX (or empty).
func validPrefixName(p string) bool {
	if p == "" {
		return true
	}
	if !utf8.ValidString(p) {
		return false
	}
	for i, r := range p {
		switch {
		case i == 0:
			if !isPNCharsBase(r) {
				return false
			}
		case r == '.':
			if i == len(p)-1 {
				return false
			}
		case !isPNChars(r):
			return false
		}
	}
	return true
}

// validLocal reports whether l can be written as a PN_LOCAL without
// escapes (percent escapes are kept, being part of the IRI).
func validLocal(l string) bool {
	if !utf8.ValidString(l) {
		return false
	}
	for i := 0; i < len(l); {
		r, n := utf8.DecodeRuneInString(l[i:])
		switch {
		case r == '%':
			if i+2 >= len(l) || !isHex(int(l[i+1])) || !isHex(int(l[i+2])) {
				return false
			}
			n = 3
		case r == ':':
		case i == 0:
			if !(isPNCharsU(r) || (r >= '0' && r <= '9')) {
				return false
			}
		case r == '.':
			if i+n == len(l) {
				return false
			}
		case !isPNChars(r):
			return false
		}
		i += n
	}
	return true
}
