package rdfio

import (
	"strings"

	"github.com/cayleygraph/quad"
)

// maxNesting bounds the nesting of blank node property lists and
// collections, so hostile input cannot exhaust the stack.
const maxNesting = 512

// turtleParser is a recursive-descent parser for the Turtle 1.1 grammar
// (https://www.w3.org/TR/turtle/#sec-grammar). It emits each triple as soon
// as its object is read.
type turtleParser struct {
	s        *scanner
	bn       *blanks
	emit     func(quad.Quad) error
	graph    quad.Value
	base     string
	prefixes map[string]string
	depth    int
}

func (p *turtleParser) parse() error {
	for {
		p.ws()
		if p.s.atEOF() {
			if p.s.rerr != nil {
				return p.s.errorf("")
			}
			return nil
		}
		if err := p.statement(); err != nil {
			return err
		}
	}
}

// ws skips white space and comments.
func (p *turtleParser) ws() {
	s := p.s
	for {
		switch s.peek(0) {
		case ' ', '\t', '\r', '\n':
			s.advance(1)
		case '#':
			for c := s.peek(0); c >= 0 && c != '\n' && c != '\r'; c = s.peek(0) {
				s.advance(1)
			}
		default:
			return
		}
	}
}

// keywordAt reports whether the input continues with kw followed by
// something that cannot continue a name.
func (p *turtleParser) keywordAt(kw string, fold bool) bool {
	if fold {
		if !p.s.hasPrefixFold(kw) {
			return false
		}
	} else if !p.s.hasPrefix(kw) {
		return false
	}
	switch p.s.peek(len(kw)) {
	case ' ', '\t', '\r', '\n', '#', '<', -1:
		return true
	}
	return false
}

func (p *turtleParser) statement() error {
	s := p.s
	switch {
	case s.peek(0) == '@':
		switch {
		case p.keywordAt("@prefix", false):
			s.advance(len("@prefix"))
			return p.prefixDecl(true)
		case p.keywordAt("@base", false):
			s.advance(len("@base"))
			return p.baseDecl(true)
		}
		return s.errorf("unknown directive (expected @prefix or @base)")
	case p.keywordAt("PREFIX", true):
		s.advance(len("PREFIX"))
		return p.prefixDecl(false)
	case p.keywordAt("BASE", true):
		s.advance(len("BASE"))
		return p.baseDecl(false)
	}
	if err := p.triples(); err != nil {
		return err
	}
	p.ws()
	if s.peek(0) != '.' {
		return s.errorf("expected '.' at end of statement, found %s", s.describe())
	}
	s.advance(1)
	return nil
}

func (p *turtleParser) prefixDecl(dot bool) error {
	s := p.s
	p.ws()
	line, col := s.line, s.col
	name, err := p.pnPrefix()
	if err != nil {
		return err
	}
	if s.peek(0) != ':' {
		return s.errAt(line, col, "expected prefix name ending in ':', found %s", s.describe())
	}
	s.advance(1)
	p.ws()
	if s.peek(0) != '<' {
		return s.errorf("expected IRI in prefix declaration, found %s", s.describe())
	}
	iri, err := p.iriRef()
	if err != nil {
		return err
	}
	p.prefixes[name] = iri
	return p.directiveEnd(dot)
}

func (p *turtleParser) baseDecl(dot bool) error {
	s := p.s
	p.ws()
	if s.peek(0) != '<' {
		return s.errorf("expected IRI in base declaration, found %s", s.describe())
	}
	iri, err := p.iriRef()
	if err != nil {
		return err
	}
	p.base = iri
	return p.directiveEnd(dot)
}

func (p *turtleParser) directiveEnd(dot bool) error {
	if !dot {
		return nil
	}
	p.ws()
	if p.s.peek(0) != '.' {
		return p.s.errorf("expected '.' after directive, found %s", p.s.describe())
	}
	p.s.advance(1)
	return nil
}

// iriRef reads an IRIREF and resolves it against the base.
func (p *turtleParser) iriRef() (string, error) {
	iri, err := p.s.readIRIREF()
	if err != nil {
		return "", err
	}
	return ResolveIRI(p.base, iri), nil
}

// pnPrefix reads an optional PN_PREFIX (stopping before ':').
func (p *turtleParser) pnPrefix() (string, error) {
	s := p.s
	r, n := s.peekRune(0)
	if n == 0 || !isPNCharsBase(r) {
		return "", nil
	}
	i := s.pnCharsEnd(n)
	if i > s.maxTerm {
		return "", s.errorf("prefix longer than %d bytes (the limit)", s.maxTerm)
	}
	name := string(s.buf[s.pos : s.pos+i])
	s.advance(i)
	return name, nil
}

// pnLocalEsc lists the characters that PN_LOCAL_ESC may escape.
const pnLocalEsc = "_~.-!$&'()*+,;=/?#@%"

// pnLocal reads a PN_LOCAL (possibly empty), unescaping PN_LOCAL_ESC and
// keeping percent escapes as written.
func (p *turtleParser) pnLocal() (string, error) {
	s := p.s
	line, col := s.line, s.col
	var sb strings.Builder
	first := true
	for {
		if sb.Len() > s.maxTerm {
			return "", s.errTooLong(line, col, "local name")
		}
		c := s.peek(0)
		switch {
		case c == '%':
			if !isHex(s.peek(1)) || !isHex(s.peek(2)) {
				return "", s.errorf("invalid percent escape in local name")
			}
			sb.WriteString(string(s.buf[s.pos : s.pos+3]))
			s.advance(3)
		case c == '\\':
			e := s.peek(1)
			if e < 0 || !strings.ContainsRune(pnLocalEsc, rune(e)) {
				return "", s.errorf("invalid escape in local name")
			}
			sb.WriteByte(byte(e))
			s.advance(2)
		case c == ':':
			sb.WriteByte(':')
			s.advance(1)
		case c == '.' && !first:
			j := 0
			for s.peek(j) == '.' && j <= s.maxTerm {
				j++
			}
			r2, n2 := s.peekRune(j)
			if n2 == 0 || !(isPNChars(r2) || r2 == ':' || r2 == '%' || r2 == '\\') {
				return sb.String(), nil
			}
			for k := 0; k < j; k++ {
				sb.WriteByte('.')
			}
			s.advance(j)
		default:
			r, n := s.peekRune(0)
			if n == 0 {
				return sb.String(), nil
			}
			if isPNChars(r) && (!first || isPNCharsU(r) || (r >= '0' && r <= '9')) {
				sb.WriteRune(r)
				s.advance(n)
			} else {
				return sb.String(), nil
			}
		}
		first = false
	}
}

// nameOrKeyword reads a prefixed name (returned as an expanded IRI) or a
// bare word (returned as keyword, e.g. "a", "true").
func (p *turtleParser) nameOrKeyword() (iri string, keyword string, err error) {
	s := p.s
	line, col := s.line, s.col
	prefix, err := p.pnPrefix()
	if err != nil {
		return "", "", err
	}
	if s.peek(0) != ':' {
		if prefix == "" {
			return "", "", s.errorf("unexpected %s", s.describe())
		}
		return "", prefix, nil
	}
	s.advance(1)
	local, err := p.pnLocal()
	if err != nil {
		return "", "", err
	}
	ns, ok := p.prefixes[prefix]
	if !ok {
		return "", "", s.errAt(line, col, "undeclared prefix %q", prefix)
	}
	return ns + local, "", nil
}

// iri reads an IRIREF or a prefixed name.
func (p *turtleParser) iri(what string) (quad.IRI, error) {
	if p.s.peek(0) == '<' {
		iri, err := p.iriRef()
		return quad.IRI(iri), err
	}
	line, col := p.s.line, p.s.col
	iri, kw, err := p.nameOrKeyword()
	if err != nil {
		return "", err
	}
	if kw != "" {
		return "", p.s.errAt(line, col, "expected %s, found %q", what, kw)
	}
	return quad.IRI(iri), nil
}

func (p *turtleParser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return p.s.errorf("nesting deeper than %d", maxNesting)
	}
	return nil
}

func (p *turtleParser) triples() error {
	s := p.s
	if s.peek(0) == '[' {
		if err := p.enter(); err != nil {
			return err
		}
		s.advance(1)
		p.ws()
		subj := p.bn.fresh()
		if s.peek(0) == ']' {
			s.advance(1)
			p.depth--
			p.ws()
			return p.predicateObjectList(subj)
		}
		if err := p.predicateObjectList(subj); err != nil {
			return err
		}
		p.ws()
		if s.peek(0) != ']' {
			return s.errorf("expected ']', found %s", s.describe())
		}
		s.advance(1)
		p.depth--
		p.ws()
		if s.peek(0) == '.' {
			return nil
		}
		return p.predicateObjectList(subj)
	}
	var subj quad.Value
	var err error
	switch c := s.peek(0); {
	case c == '<':
		var iri string
		iri, err = p.iriRef()
		subj = quad.IRI(iri)
	case c == '_' && s.peek(1) == ':':
		var l string
		l, err = s.readBlankLabel()
		subj = p.bn.labeled(l)
	case c == '(':
		subj, err = p.collection()
	default:
		line, col := s.line, s.col
		var iri, kw string
		iri, kw, err = p.nameOrKeyword()
		if err == nil && kw != "" {
			err = s.errAt(line, col, "expected subject, found %q", kw)
		}
		subj = quad.IRI(iri)
	}
	if err != nil {
		return err
	}
	p.ws()
	return p.predicateObjectList(subj)
}

func (p *turtleParser) predicateObjectList(subj quad.Value) error {
	s := p.s
	for {
		verb, err := p.verb()
		if err != nil {
			return err
		}
		if err := p.objectList(subj, verb); err != nil {
			return err
		}
		p.ws()
		if s.peek(0) != ';' {
			return nil
		}
		for s.peek(0) == ';' {
			s.advance(1)
			p.ws()
		}
		switch s.peek(0) {
		case '.', ']', -1:
			return nil
		}
	}
}

func (p *turtleParser) verb() (quad.IRI, error) {
	s := p.s
	if s.peek(0) == '<' {
		iri, err := p.iriRef()
		return quad.IRI(iri), err
	}
	r, n := s.peekRune(0)
	if n == 0 || !(isPNCharsBase(r) || r == ':') {
		return "", s.errorf("expected predicate, found %s", s.describe())
	}
	line, col := s.line, s.col
	iri, kw, err := p.nameOrKeyword()
	if err != nil {
		return "", err
	}
	if kw == "a" {
		return quad.IRI(rdfType), nil
	}
	if kw != "" {
		return "", s.errAt(line, col, "expected predicate, found %q", kw)
	}
	return quad.IRI(iri), nil
}

func (p *turtleParser) objectList(subj quad.Value, pred quad.IRI) error {
	for {
		p.ws()
		obj, err := p.object()
		if err != nil {
			return err
		}
		if err := p.emit(quad.Quad{Subject: subj, Predicate: pred, Object: obj, Label: p.graph}); err != nil {
			return err
		}
		p.ws()
		if p.s.peek(0) != ',' {
			return nil
		}
		p.s.advance(1)
	}
}

func (p *turtleParser) object() (quad.Value, error) {
	s := p.s
	switch c := s.peek(0); {
	case c == '<':
		iri, err := p.iriRef()
		return quad.IRI(iri), err
	case c == '_' && s.peek(1) == ':':
		l, err := s.readBlankLabel()
		return p.bn.labeled(l), err
	case c == '[':
		if err := p.enter(); err != nil {
			return nil, err
		}
		s.advance(1)
		p.ws()
		b := p.bn.fresh()
		if s.peek(0) != ']' {
			if err := p.predicateObjectList(b); err != nil {
				return nil, err
			}
			p.ws()
			if s.peek(0) != ']' {
				return nil, s.errorf("expected ']', found %s", s.describe())
			}
		}
		s.advance(1)
		p.depth--
		return b, nil
	case c == '(':
		return p.collection()
	case c == '"' || c == '\'':
		return p.rdfLiteral(byte(c))
	case isDigit(c) || c == '+' || c == '-' || (c == '.' && isDigit(s.peek(1))):
		return p.number()
	case c < 0:
		return nil, s.errorf("expected object, found end of input")
	}
	line, col := s.line, s.col
	r, n := s.peekRune(0)
	if n == 0 || !(isPNCharsBase(r) || r == ':') {
		return nil, s.errorf("expected object, found %s", s.describe())
	}
	iri, kw, err := p.nameOrKeyword()
	if err != nil {
		return nil, err
	}
	switch kw {
	case "":
		return quad.IRI(iri), nil
	case "true", "false":
		return quad.TypedString{Value: quad.String(kw), Type: xsdBoolean}, nil
	}
	return nil, s.errAt(line, col, "expected object, found %q", kw)
}

func (p *turtleParser) collection() (quad.Value, error) {
	s := p.s
	if err := p.enter(); err != nil {
		return nil, err
	}
	s.advance(1) // '('
	var head, cur quad.Value
	for {
		p.ws()
		if s.peek(0) == ')' {
			s.advance(1)
			break
		}
		if s.atEOF() {
			return nil, s.errorf("unterminated collection")
		}
		node := p.bn.fresh()
		if head == nil {
			head = node
		} else if err := p.emit(quad.Quad{Subject: cur, Predicate: quad.IRI(rdfRest), Object: node, Label: p.graph}); err != nil {
			return nil, err
		}
		cur = node
		obj, err := p.object()
		if err != nil {
			return nil, err
		}
		if err := p.emit(quad.Quad{Subject: cur, Predicate: quad.IRI(rdfFirst), Object: obj, Label: p.graph}); err != nil {
			return nil, err
		}
	}
	p.depth--
	if head == nil {
		return quad.IRI(rdfNil), nil
	}
	if err := p.emit(quad.Quad{Subject: cur, Predicate: quad.IRI(rdfRest), Object: quad.IRI(rdfNil), Label: p.graph}); err != nil {
		return nil, err
	}
	return head, nil
}

func (p *turtleParser) rdfLiteral(q byte) (quad.Value, error) {
	s := p.s
	var lex string
	var err error
	if s.peek(1) == int(q) && s.peek(2) == int(q) {
		lex, err = s.readLongString(q)
	} else {
		lex, err = s.readShortString(q)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case s.peek(0) == '@':
		lang, err := s.readLangTag()
		if err != nil {
			return nil, err
		}
		return literal(lex, lang, ""), nil
	case s.hasPrefix("^^"):
		s.advance(2)
		dt, err := p.iri("datatype IRI")
		if err != nil {
			return nil, err
		}
		return literal(lex, "", string(dt)), nil
	}
	return literal(lex, "", ""), nil
}

// number reads INTEGER, DECIMAL or DOUBLE, keeping the lexical form.
func (p *turtleParser) number() (quad.Value, error) {
	s := p.s
	// digits returns the end of a run of digits at j, stopping past maxTerm.
	digits := func(j int) int {
		for isDigit(s.peek(j)) && j <= s.maxTerm {
			j++
		}
		return j
	}
	i := 0
	if c := s.peek(0); c == '+' || c == '-' {
		i++
	}
	intStart := i
	i = digits(i)
	intDigits := i - intStart
	fracDigits := 0
	dot := false
	// exponentAt reports the length of an exponent starting at j, or 0.
	exponentAt := func(j int) int {
		if c := s.peek(j); c != 'e' && c != 'E' {
			return 0
		}
		k := j + 1
		if c := s.peek(k); c == '+' || c == '-' {
			k++
		}
		if !isDigit(s.peek(k)) {
			return 0
		}
		return digits(k) - j
	}
	if s.peek(i) == '.' {
		switch {
		case isDigit(s.peek(i + 1)):
			dot = true
			i++
			end := digits(i)
			fracDigits = end - i
			i = end
		case intDigits > 0 && exponentAt(i+1) > 0:
			dot = true
			i++
		}
	}
	if intDigits == 0 && fracDigits == 0 {
		return nil, s.errorf("invalid number")
	}
	dt := xsdInteger
	if dot {
		dt = xsdDecimal
	}
	if e := exponentAt(i); e > 0 {
		i += e
		dt = xsdDouble
	}
	if i > s.maxTerm {
		return nil, s.errorf("number longer than %d bytes (the limit)", s.maxTerm)
	}
	lex := string(s.buf[s.pos : s.pos+i])
	s.advance(i)
	return quad.TypedString{Value: quad.String(lex), Type: quad.IRI(dt)}, nil
}
