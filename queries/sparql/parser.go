package sparql

import (
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"
)

// The parser is hand-written recursive descent over the SPARQL 1.1 grammar
// (https://www.w3.org/TR/sparql11-query/#grammar). There is no maintained Go
// SPARQL 1.1 parser on the module proxy (Cayley has none; knakk/sparql is a
// client with query templates), and a generated parser would still need the
// same hand-written translation to algebra (section 18.2), so we write it.

const (
	nsXSD = "http://www.w3.org/2001/XMLSchema#"
	nsRDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
)

var (
	rdfType  = quad.IRI(nsRDF + "type")
	rdfFirst = quad.IRI(nsRDF + "first")
	rdfRest  = quad.IRI(nsRDF + "rest")
	rdfNil   = quad.IRI(nsRDF + "nil")
)

// Form is the query form.
type Form int

// Query forms.
const (
	Select Form = iota
	Ask
	Construct
	Describe
)

func (f Form) String() string {
	return [...]string{"SELECT", "ASK", "CONSTRUCT", "DESCRIBE"}[f]
}

// Query is a parsed SPARQL query. It is immutable and may be executed many
// times, concurrently.
type Query struct {
	form      Form
	sel       *selectQuery
	template  []triplePat // CONSTRUCT; blank nodes are quad.BNode constants
	describe  []term
	from      []quad.IRI
	fromNamed []quad.IRI
	vars      []string // slot -> name; hidden slots start with a space
	base      string
}

// Form reports whether q is a SELECT, ASK, CONSTRUCT or DESCRIBE query.
func (q *Query) Form() Form { return q.form }

// Dataset returns the dataset named by FROM and FROM NAMED, or nil if the
// query names none.
func (q *Query) Dataset() *Dataset {
	if len(q.from) == 0 && len(q.fromNamed) == 0 {
		return nil
	}
	return &Dataset{Default: append([]quad.IRI(nil), q.from...), Named: append([]quad.IRI(nil), q.fromNamed...)}
}

// Vars returns the names of the result variables of a SELECT query, in
// order.
func (q *Query) Vars() []string {
	out := make([]string, 0, len(q.sel.proj))
	for _, p := range q.sel.proj {
		out = append(out, q.vars[p.slot])
	}
	return out
}

// MaxDepth is the deepest nesting Parse accepts: a query whose parse (group
// graph patterns, OPTIONAL/MINUS/UNION/GRAPH, sub-selects, EXISTS,
// bracketed expressions, unary operators, function arguments, property
// paths, collections and blank-node property lists) or whose resulting
// algebra and expression trees go deeper is a *SyntaxError naming the limit
// and the position where it was passed. Left-nested chains count one level
// per link: a sequence of group elements (OPTIONAL, MINUS, BIND, VALUES,
// GRAPH, sub-groups), arithmetic operators, comparison, property path
// steps and alternatives. Chains of || and && and of UNION are built
// balanced (the operators are associative under SPARQL's three-valued logic
// and bag union), so n alternatives cost about log2(n) levels.
//
// The bound exists because the parser and every later pass over the
// query (scoping, planning, evaluation) recurse over these trees: without
// it two million nested parentheses overflowed the Go stack, a fatal error
// that ends the whole process. Every recursive pass of the package is
// bounded by the depth of these trees, so a query Parse accepts cannot
// overflow the stack. Real queries nest fewer than 20 levels.
const MaxDepth = 256

// MaxPatterns is the most triple patterns (property paths, collections and
// blank-node lists expanded) plus graph-pattern operators (join, OPTIONAL,
// UNION, MINUS, FILTER, BIND, GRAPH, sub-select) one query may have; more
// is a *SyntaxError naming the limit. Planning a basic graph pattern is
// quadratic in its size and evaluation nests one call per pattern and
// operator (a BGP of 60,000 patterns, 1.4 MB of text, planned for six
// minutes without looking at its deadline); real queries have fewer than a
// hundred. Expressions do not count: a FILTER may list thousands of
// alternatives.
const MaxPatterns = 4096

type parser struct {
	toks     []token
	i        int
	base     string
	prefixes map[string]string
	q        *Query
	slots    map[string]int
	bnodes   map[string]int // label -> hidden slot
	bnodeBGP map[string]int // label -> id of the BGP that used it
	bgpID    int
	aggs     *[]*eAgg // where aggregates go; nil where they are not allowed
	tmplMode bool     // parsing a CONSTRUCT template
	anon     int
	// depth counts the parser's own recursion (enter/leave).
	depth int
	// depths is the depth of each node and expression tree built so far
	// (built); leaves (variables, constants, BGPs without paths) are absent
	// and count 1. Paths are values, not all comparable, so their depth
	// travels with them as return values and reaches their BGP through
	// pathDepth.
	depths map[any]int
	// pathDepth is the deepest property path of the triples being parsed.
	pathDepth int
	// patterns counts triple patterns and operators against MaxPatterns.
	patterns int
}

// Parse parses a SPARQL 1.1 query. Relative IRIs are resolved against base
// (which may be empty) unless the query sets BASE. A syntax error is a
// *SyntaxError (wrapping ErrSyntax) with the line and column.
func Parse(query, base string) (q *Query, err error) {
	toks, err := lex(query)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, base: base, prefixes: map[string]string{}, q: &Query{},
		slots: map[string]int{}, bnodes: map[string]int{}, bnodeBGP: map[string]int{}, depths: map[any]int{}}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*SyntaxError)
			if !ok {
				panic(r)
			}
			q, err = nil, se
		}
	}()
	p.parseQuery()
	p.q.base = p.base
	return p.q, nil
}

// fail aborts parsing with a syntax error at token t. Parsing uses panics
// internally; Parse recovers them into an error value.
func (p *parser) fail(t token, format string, a ...any) {
	panic(&SyntaxError{Line: t.line, Column: t.col, Msg: fmt.Sprintf(format, a...)})
}

// enter counts one level of the parser's recursion; past MaxDepth the query
// is refused at the current token, before the stack grows any further.
func (p *parser) enter() {
	p.depth++
	if p.depth > MaxDepth {
		p.tooDeep(p.peek())
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) tooDeep(t token) {
	p.fail(t, "the query nests more than %d levels deep (the server's nesting limit)", MaxDepth)
}

// built records the tree depth of x, a node or expression made of kids
// (nodes, expressions or nil), and refuses the query at token at when it
// passes MaxDepth.
func (p *parser) built(at token, x any, kids ...any) {
	d := 0
	for _, k := range kids {
		d = max(d, p.treeDepth(k))
	}
	p.setDepth(at, x, d+1)
	switch x.(type) {
	case *nJoin, *nLeftJoin, *nUnion, *nMinus, *nFilter, *nExtend, *nGraph, *nSub:
		p.counted(at, 1)
	}
}

// counted adds n triple patterns or operators at token at and refuses the
// query past MaxPatterns.
func (p *parser) counted(at token, n int) {
	p.patterns += n
	if p.patterns > MaxPatterns {
		p.fail(at, "the query has more than %d triple patterns and graph-pattern operators (the server's limit)", MaxPatterns)
	}
}

func (p *parser) setDepth(at token, x any, d int) {
	if d > MaxDepth {
		p.tooDeep(at)
	}
	if d > 1 {
		p.depths[x] = d
	}
}

// treeDepth is the depth of a node or expression built by the parser.
func (p *parser) treeDepth(x any) int {
	if x == nil {
		return 0
	}
	if d, ok := p.depths[x]; ok {
		return d
	}
	return 1
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekN(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) nextTok() token {
	t := p.toks[p.i]
	if t.kind != tkEOF {
		p.i++
	}
	return t
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tkPunct && t.text == s
}

func (p *parser) isKw(kw string) bool {
	t := p.peek()
	return t.kind == tkName && strings.EqualFold(t.text, kw)
}

func (p *parser) acceptPunct(s string) bool {
	if p.isPunct(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectPunct(s string) {
	if !p.acceptPunct(s) {
		p.fail(p.peek(), "expected %q, found %s", s, p.peek())
	}
}

func (p *parser) expectKw(kw string) {
	if !p.acceptKw(kw) {
		p.fail(p.peek(), "expected %s, found %s", kw, p.peek())
	}
}

// slot returns the slot of a named variable, creating it.
func (p *parser) slot(name string) int {
	if s, ok := p.slots[name]; ok {
		return s
	}
	s := len(p.q.vars)
	p.q.vars = append(p.q.vars, name)
	p.slots[name] = s
	return s
}

// hidden allocates an anonymous slot (blank nodes, path steps, aggregates).
func (p *parser) hidden(kind string) int {
	s := len(p.q.vars)
	p.q.vars = append(p.q.vars, fmt.Sprintf(" %s%d", kind, s))
	return s
}

func isHidden(name string) bool { return strings.HasPrefix(name, " ") }

func (p *parser) parseQuery() {
	p.parsePrologue()
	t := p.peek()
	sq := &selectQuery{limit: -1, offset: -1}
	p.q.sel = sq
	switch {
	case p.acceptKw("SELECT"):
		p.q.form = Select
		p.parseSelectClause(sq)
		p.parseDatasetClauses()
		p.parseWhere(sq, false)
		p.parseSolutionModifiers(sq)
	case p.acceptKw("ASK"):
		p.q.form = Ask
		p.parseDatasetClauses()
		p.parseWhere(sq, false)
		p.parseSolutionModifiers(sq)
		sq.star = true
	case p.acceptKw("CONSTRUCT"):
		p.q.form = Construct
		sq.star = true
		if p.isPunct("{") {
			p.nextTok()
			p.tmplMode = true
			p.q.template = p.parseTriplesTemplate("}")
			p.tmplMode = false
			p.counted(p.peek(), len(p.q.template))
			p.expectPunct("}")
			p.parseDatasetClauses()
			p.parseWhere(sq, false)
		} else {
			p.parseDatasetClauses()
			p.expectKw("WHERE")
			open := p.peek()
			p.expectPunct("{")
			p.bgpID++
			pats := p.parseTriplesTemplate("}")
			p.counted(open, len(pats))
			p.expectPunct("}")
			for _, tp := range pats {
				if tp.path != nil {
					p.fail(open, "property paths are not allowed in CONSTRUCT WHERE")
				}
			}
			sq.where = &nBGP{pats: pats}
			// The template is the pattern with variables for blank nodes.
			p.q.template = pats
		}
		p.parseSolutionModifiers(sq)
	case p.acceptKw("DESCRIBE"):
		p.q.form = Describe
		if p.acceptPunct("*") {
			sq.star = true
		} else {
			for {
				t := p.peek()
				if t.kind == tkVar {
					p.nextTok()
					p.q.describe = append(p.q.describe, varTerm(p.slot(t.text)))
				} else if t.kind == tkIRI || t.kind == tkPName {
					p.q.describe = append(p.q.describe, constTerm(p.parseIRI()))
				} else {
					break
				}
			}
			if len(p.q.describe) == 0 {
				p.fail(p.peek(), "expected a variable, an IRI or * after DESCRIBE")
			}
			// The described variables are the pattern's projection (without
			// it the projection was empty and DESCRIBE ?x described nothing).
			for _, t := range p.q.describe {
				if t.isVar() {
					sq.proj = append(sq.proj, projItem{slot: t.slot})
				}
			}
		}
		p.parseDatasetClauses()
		if p.isKw("WHERE") || p.isPunct("{") {
			p.parseWhere(sq, false)
		} else {
			sq.where = &nBGP{}
		}
		p.parseSolutionModifiers(sq)
	default:
		p.fail(t, "expected SELECT, ASK, CONSTRUCT or DESCRIBE, found %s", t)
	}
	if p.acceptKw("VALUES") {
		sq.values = p.parseDataBlock()
	}
	if t := p.peek(); t.kind != tkEOF {
		p.fail(t, "unexpected %s after the query", t)
	}
	p.finishSelect(sq, p.peek())
}

func (p *parser) parsePrologue() {
	for {
		switch {
		case p.acceptKw("BASE"):
			t := p.nextTok()
			if t.kind != tkIRI {
				p.fail(t, "expected an IRI after BASE")
			}
			p.base = resolveIRI(p.base, t.text)
		case p.acceptKw("PREFIX"):
			t := p.nextTok()
			if t.kind != tkPName || strings.IndexByte(t.text, ':') != len(t.text)-1 {
				p.fail(t, "expected a prefix name after PREFIX")
			}
			it := p.nextTok()
			if it.kind != tkIRI {
				p.fail(it, "expected an IRI after PREFIX %s", t.text)
			}
			p.prefixes[strings.TrimSuffix(t.text, ":")] = resolveIRI(p.base, it.text)
		default:
			return
		}
	}
}

func (p *parser) parseDatasetClauses() {
	for p.acceptKw("FROM") {
		named := p.acceptKw("NAMED")
		iri := p.parseIRI()
		if named {
			p.q.fromNamed = append(p.q.fromNamed, iri)
		} else {
			p.q.from = append(p.q.from, iri)
		}
	}
}

func (p *parser) parseIRI() quad.IRI {
	t := p.nextTok()
	switch t.kind {
	case tkIRI:
		return quad.IRI(resolveIRI(p.base, t.text))
	case tkPName:
		k := strings.IndexByte(t.text, ':')
		ns, ok := p.prefixes[t.text[:k]]
		if !ok {
			p.fail(t, "undefined prefix %q", t.text[:k])
		}
		return quad.IRI(ns + t.text[k+1:])
	}
	p.fail(t, "expected an IRI, found %s", t)
	return ""
}

func (p *parser) parseSelectClause(sq *selectQuery) {
	if p.acceptKw("DISTINCT") {
		sq.distinct = true
	} else if p.acceptKw("REDUCED") {
		sq.reduced = true
	}
	if p.acceptPunct("*") {
		sq.star = true
		return
	}
	aggs := &sq.aggs
	seen := map[int]bool{}
	for {
		t := p.peek()
		if t.kind == tkVar {
			p.nextTok()
			s := p.slot(t.text)
			if seen[s] {
				p.fail(t, "variable ?%s is projected twice", t.text)
			}
			seen[s] = true
			sq.proj = append(sq.proj, projItem{slot: s})
			continue
		}
		if t.kind == tkPunct && t.text == "(" {
			p.nextTok()
			p.aggs = aggs
			e := p.parseExpr()
			p.aggs = nil
			p.expectKw("AS")
			vt := p.nextTok()
			if vt.kind != tkVar {
				p.fail(vt, "expected a variable after AS")
			}
			p.expectPunct(")")
			s := p.slot(vt.text)
			if seen[s] {
				p.fail(vt, "variable ?%s is projected twice", vt.text)
			}
			seen[s] = true
			sq.proj = append(sq.proj, projItem{slot: s, e: e})
			continue
		}
		break
	}
	if len(sq.proj) == 0 {
		p.fail(p.peek(), "expected variables or * after SELECT")
	}
}

func (p *parser) parseWhere(sq *selectQuery, optionalWhere bool) {
	p.acceptKw("WHERE")
	sq.where = p.parseGroupGraphPattern()
}

func (p *parser) parseSolutionModifiers(sq *selectQuery) {
	if p.isKw("GROUP") {
		p.nextTok()
		p.expectKw("BY")
		for first := true; first || p.startsCondition(true); first = false {
			t := p.peek()
			gi := groupItem{slot: -1}
			switch {
			case t.kind == tkVar:
				p.nextTok()
				gi.slot = p.slot(t.text)
				gi.e = &eVar{slot: gi.slot}
			case t.kind == tkPunct && t.text == "(":
				p.nextTok()
				gi.e = p.parseExpr()
				if p.acceptKw("AS") {
					vt := p.nextTok()
					if vt.kind != tkVar {
						p.fail(vt, "expected a variable after AS")
					}
					gi.slot = p.slot(vt.text)
				} else if v, ok := gi.e.(*eVar); ok {
					gi.slot = v.slot
				}
				p.expectPunct(")")
			case p.startsCondition(false):
				gi.e = p.parseBuiltinOrFunction()
			default:
				p.fail(t, "expected a group condition, found %s", t)
			}
			sq.groupBy = append(sq.groupBy, gi)
		}
	}
	if p.acceptKw("HAVING") {
		p.aggs = &sq.aggs
		for first := true; first || p.startsCondition(false); first = false {
			sq.having = append(sq.having, p.parseConstraint())
		}
		p.aggs = nil
	}
	if p.isKw("ORDER") {
		p.nextTok()
		p.expectKw("BY")
		p.aggs = &sq.aggs
		for first := true; first || p.startsCondition(true) || p.isKw("ASC") || p.isKw("DESC"); first = false {
			var oi orderItem
			t := p.peek()
			switch {
			case p.isKw("ASC") || p.isKw("DESC"):
				oi.desc = p.isKw("DESC")
				p.nextTok()
				if !p.isPunct("(") {
					p.fail(p.peek(), "expected ( after ASC/DESC")
				}
				p.nextTok()
				oi.e = p.parseExpr()
				p.expectPunct(")")
			case t.kind == tkVar:
				p.nextTok()
				oi.e = &eVar{slot: p.slot(t.text)}
			case p.startsCondition(false):
				oi.e = p.parseConstraint()
			default:
				p.fail(t, "expected an order condition, found %s", t)
			}
			sq.orderBy = append(sq.orderBy, oi)
		}
		p.aggs = nil
	}
	for i := 0; i < 2; i++ {
		if p.acceptKw("LIMIT") {
			if sq.limit >= 0 {
				p.fail(p.peek(), "LIMIT given twice")
			}
			sq.limit = p.parseNonNegInt()
		} else if p.acceptKw("OFFSET") {
			if sq.offset >= 0 {
				p.fail(p.peek(), "OFFSET given twice")
			}
			sq.offset = p.parseNonNegInt()
		}
	}
}

// startsCondition reports whether the next token starts a constraint
// (bracketed expression, built-in call or function call), or, with vars, a
// variable.
func (p *parser) startsCondition(vars bool) bool {
	t := p.peek()
	switch t.kind {
	case tkVar:
		return vars
	case tkIRI, tkPName:
		return true
	case tkPunct:
		return t.text == "("
	case tkName:
		n := strings.ToUpper(t.text)
		_, ok := builtinArity[n]
		return ok || aggregateNames[n] || n == "EXISTS" || n == "NOT"
	}
	return false
}

func (p *parser) parseNonNegInt() int64 {
	t := p.nextTok()
	if t.kind != tkInteger {
		p.fail(t, "expected an integer, found %s", t)
	}
	var n int64
	for _, c := range t.text {
		n = n*10 + int64(c-'0')
		if n > 1<<53 {
			p.fail(t, "integer too large")
		}
	}
	return n
}

// finishSelect checks the scoping rules of a (sub-)select and fills the
// projection of SELECT *.
func (p *parser) finishSelect(sq *selectQuery, at token) {
	sq.grouped = len(sq.groupBy) > 0 || len(sq.aggs) > 0
	if sq.star && sq.grouped && (p.q.form == Select || sq != p.q.sel) {
		p.fail(at, "SELECT * is not allowed with GROUP BY or aggregates")
	}
	if sq.star {
		inScope := varSet{}
		inScopeVars(sq.where, inScope)
		if sq.values != nil {
			for _, s := range sq.values.slots {
				inScope.add(s)
			}
		}
		sq.proj = nil
		for s := range p.q.vars {
			if inScope.has(s) && !isHidden(p.q.vars[s]) {
				sq.proj = append(sq.proj, projItem{slot: s})
			}
		}
		return
	}
	inScope := varSet{}
	inScopeVars(sq.where, inScope)
	if sq.grouped {
		groupVars := varSet{}
		for _, g := range sq.groupBy {
			if g.slot >= 0 {
				groupVars.add(g.slot)
			}
			if g.slot >= 0 && inScope.has(g.slot) {
				if _, isVar := g.e.(*eVar); !isVar {
					p.fail(at, "GROUP BY ... AS ?%s: variable already in scope", p.q.vars[g.slot])
				}
			}
		}
		for _, pi := range sq.proj {
			if pi.e == nil {
				if !groupVars.has(pi.slot) {
					p.fail(at, "variable ?%s is neither grouped nor aggregated", p.q.vars[pi.slot])
				}
				continue
			}
			p.checkGrouped(pi.e, groupVars, at)
			groupVars.add(pi.slot)
		}
	}
	for _, pi := range sq.proj {
		if pi.e != nil {
			if inScope.has(pi.slot) {
				p.fail(at, "variable ?%s in (expr AS ?%s) is already in scope", p.q.vars[pi.slot], p.q.vars[pi.slot])
			}
			inScope.add(pi.slot)
		}
	}
}

// checkGrouped verifies that expression e uses only grouped variables
// outside aggregates.
func (p *parser) checkGrouped(e expr, groupVars varSet, at token) {
	switch x := e.(type) {
	case *eVar:
		if !groupVars.has(x.slot) {
			p.fail(at, "variable ?%s is neither grouped nor aggregated", p.q.vars[x.slot])
		}
	case *eAgg:
	case *eOp:
		for _, a := range x.args {
			p.checkGrouped(a, groupVars, at)
		}
	case *eCall:
		for _, a := range x.args {
			p.checkGrouped(a, groupVars, at)
		}
	case *eFunc:
		for _, a := range x.args {
			p.checkGrouped(a, groupVars, at)
		}
	case *eIn:
		p.checkGrouped(x.left, groupVars, at)
		for _, a := range x.list {
			p.checkGrouped(a, groupVars, at)
		}
	}
}

// parseGroupGraphPattern parses '{' ... '}' and returns its algebra.
func (p *parser) parseGroupGraphPattern() node {
	open := p.peek()
	g, filters := p.parseGroupParts()
	if len(filters) > 0 {
		g = p.placeFilters(open, g, conjuncts(filters, nil))
	}
	return g
}

// placeFilters applies a group's filter conjuncts to its pattern n, each
// as deep as it keeps its meaning, so that it runs before the operators
// above it (often inside a BGP, before a left join or a join reads the
// solutions it drops):
//   - below MINUS, onto its left side: MINUS keeps solutions of its left
//     side unchanged, so Filter(Minus(L, R)) = Minus(Filter(L), R);
//   - below OPTIONAL, onto its left side, a conjunct whose variables the
//     left side binds in every solution: the left join extends each left
//     solution with values that agree on those variables, so
//     Filter(e, LeftJoin(L, R)) = LeftJoin(Filter(e, L), R);
//   - onto a side of a join that binds all its variables in every
//     solution, and below BIND when the pattern under it binds them.
//
// Conjuncts with EXISTS stay where they are (a substitution into the
// EXISTS pattern sees every variable of the solution).
func (p *parser) placeFilters(at token, n node, conds []expr) node {
	if len(conds) == 0 {
		return n
	}
	var keep []expr
	// downTo reports whether c can go onto a pattern that binds cert in
	// every solution.
	downTo := func(c expr, cert varSet) bool {
		if hasExists(c) {
			return false
		}
		vs := varSet{}
		exprVars(c, vs)
		if len(vs) == 0 {
			return false
		}
		for v := range vs {
			if !cert[v] {
				return false
			}
		}
		return true
	}
	certain := func(n node) varSet {
		s := varSet{}
		certainVars(n, s)
		return s
	}
	switch x := n.(type) {
	case *nMinus:
		x.l = p.placeFilters(at, x.l, conds)
		p.setDepth(at, x, max(p.treeDepth(x.l), p.treeDepth(x.r))+1)
		return x
	case *nLeftJoin:
		cl := certain(x.l)
		var down []expr
		for _, c := range conds {
			if downTo(c, cl) {
				down = append(down, c)
			} else {
				keep = append(keep, c)
			}
		}
		if len(down) > 0 {
			x.l = p.placeFilters(at, x.l, down)
			p.setDepth(at, x, max(p.treeDepth(x.l), p.treeDepth(x.r), p.treeDepth(x.cond))+1)
		}
	case *nJoin:
		cl, cr := certain(x.l), certain(x.r)
		var left, right []expr
		for _, c := range conds {
			switch {
			case downTo(c, cl):
				left = append(left, c)
			case downTo(c, cr):
				right = append(right, c)
			default:
				keep = append(keep, c)
			}
		}
		if len(left)+len(right) > 0 {
			x.l = p.placeFilters(at, x.l, left)
			x.r = p.placeFilters(at, x.r, right)
			p.setDepth(at, x, max(p.treeDepth(x.l), p.treeDepth(x.r))+1)
		}
	case *nUnion:
		// Filter(F, Union(A, B)) = Union(Filter(F, A), Filter(F, B)):
		// each branch places the conditions as far down as it can.
		x.l = p.placeFilters(at, x.l, conds)
		x.r = p.placeFilters(at, x.r, conds)
		p.setDepth(at, x, max(p.treeDepth(x.l), p.treeDepth(x.r))+1)
		return x
	case *nExtend:
		cp := certain(x.p)
		var down []expr
		for _, c := range conds {
			vs := varSet{}
			exprVars(c, vs)
			if !vs[x.slot] && downTo(c, cp) {
				down = append(down, c)
			} else {
				keep = append(keep, c)
			}
		}
		if len(down) > 0 {
			x.p = p.placeFilters(at, x.p, down)
			p.setDepth(at, x, max(p.treeDepth(x.p), p.treeDepth(x.e))+1)
		}
	default:
		keep = conds
	}
	if len(keep) == 0 {
		return n
	}
	f := &nFilter{conds: keep, p: n}
	kids := []any{n}
	for _, c := range keep {
		kids = append(kids, c)
	}
	p.built(at, f, kids...)
	return f
}

// parseGroupParts parses a group graph pattern and returns its pattern and
// its own FILTER expressions separately (OPTIONAL turns the latter into the
// left join's condition).
func (p *parser) parseGroupParts() (node, []expr) {
	open := p.peek()
	p.expectPunct("{")
	p.enter()
	defer p.leave()
	if p.isKw("SELECT") {
		n := p.parseSubSelect(open)
		p.expectPunct("}")
		return n, nil
	}
	var g node = &nBGP{}
	var filters []expr
	p.bgpID++
	var cur *nBGP // the BGP being extended by adjacent triples blocks
	// scope is inScopeVars(g), kept up to date as g grows (BIND checks it;
	// recomputing it per BIND made long chains quadratic).
	scope := varSet{}
	join := func(at token, r node) {
		cur = nil
		g = p.joinNodes(at, g, r)
		inScopeVars(r, scope)
	}
	needDot := false
	for {
		t := p.peek()
		if !p.startsTerm(t) {
			needDot = false
		}
		switch {
		case t.kind == tkPunct && t.text == "}":
			p.nextTok()
			return g, filters
		case t.kind == tkEOF:
			p.fail(open, "unterminated group pattern")
		case p.isKw("FILTER"):
			p.nextTok()
			filters = append(filters, p.parseConstraint())
		case p.isKw("OPTIONAL"):
			p.nextTok()
			p.bgpID++
			r, fs := p.parseGroupParts()
			var cond expr
			if len(fs) > 0 {
				cond = p.andAll(t, fs)
			}
			cur = nil
			lj := &nLeftJoin{l: g, r: r, cond: cond}
			p.built(t, lj, g, r, cond)
			g = lj
			inScopeVars(r, scope)
			p.bgpID++
		case p.isKw("MINUS"):
			p.nextTok()
			p.bgpID++
			r := p.parseGroupGraphPattern()
			cur = nil
			m := &nMinus{l: g, r: r}
			p.built(t, m, g, r)
			g = m
			p.bgpID++
		case p.isKw("GRAPH"):
			p.nextTok()
			gt := p.parseVarOrIRI()
			p.bgpID++
			r := p.parseGroupGraphPattern()
			gn := &nGraph{g: gt, p: r}
			p.built(t, gn, r)
			join(t, gn)
			p.bgpID++
		case p.isKw("SERVICE"):
			p.fail(t, "SERVICE is not supported")
		case p.isKw("BIND"):
			p.nextTok()
			p.expectPunct("(")
			e := p.parseExpr()
			p.expectKw("AS")
			vt := p.nextTok()
			if vt.kind != tkVar {
				p.fail(vt, "expected a variable after AS")
			}
			p.expectPunct(")")
			s := p.slot(vt.text)
			if scope.has(s) {
				p.fail(vt, "BIND: variable ?%s is already in scope", vt.text)
			}
			cur = nil
			x := &nExtend{p: g, slot: s, e: e}
			p.built(t, x, g, e)
			g = x
			scope.add(s)
			p.bgpID++
		case p.isKw("VALUES"):
			p.nextTok()
			join(t, p.parseDataBlock())
			p.bgpID++
		case t.kind == tkPunct && t.text == "{":
			p.bgpID++
			branches := []any{p.parseGroupGraphPattern()}
			var ops []token
			for p.isKw("UNION") {
				ops = append(ops, p.nextTok())
				p.bgpID++
				branches = append(branches, p.parseGroupGraphPattern())
			}
			join(t, p.balanced(ops, branches, func(l, r any) any { return &nUnion{l: l, r: r} }))
			p.bgpID++
		default:
			if needDot {
				p.fail(t, "expected \".\" before %s", t)
			}
			p.pathDepth = 0
			pats, dot := p.parseTriplesBlock()
			p.counted(t, len(pats))
			needDot = !dot
			inScopeVars(&nBGP{pats: pats}, scope)
			if cur == nil {
				cur = &nBGP{}
				g = p.joinNodes(t, g, cur)
			}
			cur.pats = append(cur.pats, pats...)
			if d := p.pathDepth + 1; d > p.treeDepth(cur) {
				// A path makes the BGP deeper; g is cur or joins it.
				p.setDepth(t, cur, d)
				if j, ok := g.(*nJoin); ok && j.r == node(cur) {
					p.built(t, j, j.l, cur)
				}
			}
			continue
		}
		p.acceptPunct(".")
	}
}

// andAll is the conjunction of es, built balanced.
func (p *parser) andAll(at token, es []expr) expr {
	xs := make([]any, len(es))
	ops := make([]token, len(es)-1)
	for i, e := range es {
		xs[i] = e
	}
	for i := range ops {
		ops[i] = at
	}
	return p.balanced(ops, xs, func(l, r any) any { return &eOp{op: "&&", args: []expr{l, r}} })
}

// balanced combines xs, in order, into a balanced binary tree with mk (for
// associative operators: ||, && and UNION), so that a chain of n costs
// about log2(n) levels of MaxDepth; ops[i] is the operator token between
// xs[i] and xs[i+1], where a tree too deep is reported.
func (p *parser) balanced(ops []token, xs []any, mk func(l, r any) any) any {
	if len(xs) == 1 {
		return xs[0]
	}
	m := len(xs) / 2
	l := p.balanced(ops[:m-1], xs[:m], mk)
	r := p.balanced(ops[m:], xs[m:], mk)
	x := mk(l, r)
	p.built(ops[m-1], x, l, r)
	return x
}

// joinNodes joins two patterns (recording the join's depth), dropping the
// empty BGP (the join identity).
func (p *parser) joinNodes(at token, l, r node) node {
	if b, ok := l.(*nBGP); ok && len(b.pats) > 0 {
		if u, ok := r.(*nUnion); ok {
			if d := p.distribute(at, b, u); d != nil {
				return d
			}
		}
	}
	n := joinNodes(l, r)
	if j, ok := n.(*nJoin); ok {
		p.built(at, j, l, r)
	}
	return n
}

// joinNodes joins two patterns, dropping the empty BGP (the join identity).
func joinNodes(l, r node) node {
	if b, ok := l.(*nBGP); ok && len(b.pats) == 0 {
		if _, isBGP := r.(*nBGP); !isBGP {
			return r
		}
		if b != r {
			return r
		}
	}
	return &nJoin{l: l, r: r}
}

func (p *parser) parseSubSelect(open token) node {
	p.expectKw("SELECT")
	sq := &selectQuery{limit: -1, offset: -1}
	saved := p.aggs
	p.parseSelectClause(sq)
	p.parseWhere(sq, false)
	p.parseSolutionModifiers(sq)
	if p.acceptKw("VALUES") {
		sq.values = p.parseDataBlock()
	}
	p.aggs = saved
	at := p.peek()
	if sq.star && (len(sq.groupBy) > 0 || len(sq.aggs) > 0) {
		p.fail(at, "SELECT * is not allowed with GROUP BY or aggregates")
	}
	p.finishSelect(sq, at)
	n := &nSub{q: sq}
	kids := []any{sq.where}
	for _, pi := range sq.proj {
		kids = append(kids, pi.e)
	}
	for _, gi := range sq.groupBy {
		kids = append(kids, gi.e)
	}
	for _, h := range sq.having {
		kids = append(kids, h)
	}
	for _, o := range sq.orderBy {
		kids = append(kids, o.e)
	}
	p.built(open, n, kids...)
	return n
}

func (p *parser) parseVarOrIRI() term {
	t := p.peek()
	if t.kind == tkVar {
		p.nextTok()
		return varTerm(p.slot(t.text))
	}
	return constTerm(p.parseIRI())
}

func (p *parser) parseDataBlock() *nValues {
	v := &nValues{}
	t := p.peek()
	single := false
	switch {
	case t.kind == tkVar:
		p.nextTok()
		v.slots = []int{p.slot(t.text)}
		single = true
	case t.kind == tkNil:
		p.nextTok()
	case t.kind == tkPunct && t.text == "(":
		p.nextTok()
		for p.peek().kind == tkVar {
			v.slots = append(v.slots, p.slot(p.nextTok().text))
		}
		p.expectPunct(")")
	default:
		p.fail(t, "expected variables after VALUES")
	}
	p.expectPunct("{")
	for !p.acceptPunct("}") {
		if single {
			v.rows = append(v.rows, []quad.Value{p.parseDataValue()})
			continue
		}
		t := p.peek()
		if t.kind == tkNil {
			p.nextTok()
			if len(v.slots) != 0 {
				p.fail(t, "VALUES row has 0 values, expected %d", len(v.slots))
			}
			v.rows = append(v.rows, []quad.Value{})
			continue
		}
		p.expectPunct("(")
		var row []quad.Value
		for !p.acceptPunct(")") {
			if p.peek().kind == tkEOF {
				p.fail(t, "unterminated VALUES row")
			}
			row = append(row, p.parseDataValue())
		}
		if len(row) != len(v.slots) {
			p.fail(t, "VALUES row has %d values, expected %d", len(row), len(v.slots))
		}
		v.rows = append(v.rows, row)
	}
	return v
}

func (p *parser) parseDataValue() quad.Value {
	if p.acceptKw("UNDEF") {
		return nil
	}
	t := p.peek()
	switch t.kind {
	case tkIRI, tkPName:
		return p.parseIRI()
	case tkString, tkInteger, tkDecimal, tkDouble:
		return p.parseLiteral()
	case tkName:
		if p.isKw("true") || p.isKw("false") {
			return p.parseLiteral()
		}
	case tkPunct:
		if t.text == "-" || t.text == "+" {
			return p.parseLiteral()
		}
	}
	p.fail(t, "expected a data value, found %s", t)
	return nil
}

// parseLiteral parses an RDF literal, numeric literal or boolean.
func (p *parser) parseLiteral() quad.Value {
	t := p.nextTok()
	sign := ""
	if t.kind == tkPunct && (t.text == "-" || t.text == "+") {
		n := p.peek()
		if t.spaceAfter || !(n.kind == tkInteger || n.kind == tkDecimal || n.kind == tkDouble) {
			p.fail(t, "expected a number after %s", t.text)
		}
		sign = t.text
		t = p.nextTok()
	}
	switch t.kind {
	case tkInteger:
		return quad.TypedString{Value: quad.String(sign + t.text), Type: xsdInteger}
	case tkDecimal:
		return quad.TypedString{Value: quad.String(sign + t.text), Type: xsdDecimal}
	case tkDouble:
		return quad.TypedString{Value: quad.String(sign + t.text), Type: xsdDouble}
	case tkString:
		if n := p.peek(); n.kind == tkLang {
			p.nextTok()
			return quad.LangString{Value: quad.String(t.text), Lang: strings.ToLower(n.text)}
		}
		if p.acceptPunct("^^") {
			dt := p.parseIRI()
			if dt == xsdString {
				return quad.String(t.text)
			}
			return quad.TypedString{Value: quad.String(t.text), Type: dt}
		}
		return quad.String(t.text)
	case tkName:
		if strings.EqualFold(t.text, "true") || strings.EqualFold(t.text, "false") {
			return quad.TypedString{Value: quad.String(strings.ToLower(t.text)), Type: xsdBoolean}
		}
	}
	p.fail(t, "expected a literal, found %s", t)
	return nil
}

// ---- triples ----

// parseTriplesBlock parses TriplesSameSubjectPath ('.' TriplesSameSubjectPath?)*.
func (p *parser) parseTriplesBlock() ([]triplePat, bool) {
	var out []triplePat
	for {
		t := p.peek()
		if !p.startsTerm(t) {
			if len(out) == 0 {
				p.fail(t, "unexpected %s in group pattern", t)
			}
			return out, true
		}
		out = p.parseTriplesSameSubject(out, true)
		if !p.acceptPunct(".") {
			return out, false
		}
	}
}

// parseTriplesTemplate parses triples (no paths) up to the closing token.
func (p *parser) parseTriplesTemplate(end string) []triplePat {
	var out []triplePat
	for !p.isPunct(end) {
		t := p.peek()
		if !p.startsTerm(t) {
			p.fail(t, "unexpected %s in triples template", t)
		}
		out = p.parseTriplesSameSubject(out, !p.tmplMode)
		if !p.acceptPunct(".") {
			break
		}
	}
	return out
}

func (p *parser) startsTerm(t token) bool {
	switch t.kind {
	case tkVar, tkIRI, tkPName, tkBNode, tkString, tkInteger, tkDecimal, tkDouble, tkNil, tkAnon:
		return true
	case tkPunct:
		return t.text == "[" || t.text == "(" || t.text == "-" || t.text == "+"
	case tkName:
		return p.isKw("true") || p.isKw("false")
	}
	return false
}

func (p *parser) parseTriplesSameSubject(out []triplePat, paths bool) []triplePat {
	t := p.peek()
	if t.kind == tkPunct && t.text == "[" {
		p.nextTok()
		s := p.newBNode()
		p.enter()
		out = p.parsePropertyList(s, out, paths)
		p.leave()
		p.expectPunct("]")
		if p.startsVerb(p.peek()) {
			out = p.parsePropertyList(s, out, paths)
		}
		return out
	}
	if t.kind == tkPunct && t.text == "(" {
		var s term
		s, out = p.parseCollection(out, paths)
		if p.startsVerb(p.peek()) {
			out = p.parsePropertyList(s, out, paths)
		}
		return out
	}
	s, out := p.parseGraphNode(out, paths)
	if !p.startsVerb(p.peek()) {
		p.fail(p.peek(), "expected a predicate, found %s", p.peek())
	}
	return p.parsePropertyList(s, out, paths)
}

func (p *parser) startsVerb(t token) bool {
	switch t.kind {
	case tkVar, tkIRI, tkPName:
		return true
	case tkName:
		return t.text == "a"
	case tkPunct:
		return t.text == "^" || t.text == "!" || t.text == "("
	}
	return false
}

func (p *parser) newBNode() term {
	p.anon++
	if p.tmplMode {
		return constTerm(quad.BNode(fmt.Sprintf("t%d", p.anon)))
	}
	return varTerm(p.hidden("b"))
}

func (p *parser) parsePropertyList(s term, out []triplePat, paths bool) []triplePat {
	for {
		var pred term
		var path pathExpr
		t := p.peek()
		if t.kind == tkVar {
			p.nextTok()
			pred = varTerm(p.slot(t.text))
		} else {
			if !paths {
				if t.kind == tkName && t.text == "a" {
					p.nextTok()
					pred = constTerm(rdfType)
				} else {
					pred = constTerm(p.parseIRI())
				}
			} else {
				var d int
				path, d = p.parsePath()
				p.pathDepth = max(p.pathDepth, d)
				if l, ok := path.(pLink); ok {
					pred, path = constTerm(l.iri), nil
				}
			}
		}
		for {
			var o term
			o, out = p.parseGraphNode(out, paths)
			out = p.addTriple(out, s, pred, path, o)
			if !p.acceptPunct(",") {
				break
			}
		}
		if !p.acceptPunct(";") {
			return out
		}
		for p.acceptPunct(";") {
		}
		if !p.startsVerb(p.peek()) {
			return out
		}
	}
}

// addTriple appends a triple pattern, expanding sequence and inverse paths
// into plain patterns joined through hidden variables (section 18.2.2.4).
func (p *parser) addTriple(out []triplePat, s, pred term, path pathExpr, o term) []triplePat {
	switch x := path.(type) {
	case nil:
		return append(out, triplePat{s: s, p: pred, o: o})
	case pLink:
		return append(out, triplePat{s: s, p: constTerm(x.iri), o: o})
	case pInv:
		return p.addTriple(out, o, term{}, x.p, s)
	case pSeq:
		mid := varTerm(p.hidden("p"))
		out = p.addTriple(out, s, term{}, x.a, mid)
		return p.addTriple(out, mid, term{}, x.b, o)
	}
	return append(out, triplePat{s: s, o: o, path: path, p: term{slot: -1}})
}

// parseGraphNode parses an object/subject: a term, [ ... ] or ( ... ).
func (p *parser) parseGraphNode(out []triplePat, paths bool) (term, []triplePat) {
	t := p.peek()
	switch {
	case t.kind == tkPunct && t.text == "[":
		p.nextTok()
		s := p.newBNode()
		p.enter()
		out = p.parsePropertyList(s, out, paths)
		p.leave()
		p.expectPunct("]")
		return s, out
	case t.kind == tkPunct && t.text == "(":
		return p.parseCollection(out, paths)
	}
	return p.parseVarOrTerm(), out
}

func (p *parser) parseCollection(out []triplePat, paths bool) (term, []triplePat) {
	p.expectPunct("(")
	p.enter()
	defer p.leave()
	var items []term
	for !p.acceptPunct(")") {
		if p.peek().kind == tkEOF {
			p.fail(p.peek(), "unterminated collection")
		}
		var it term
		it, out = p.parseGraphNode(out, paths)
		items = append(items, it)
	}
	if len(items) == 0 {
		return constTerm(rdfNil), out
	}
	head := p.newBNode()
	cur := head
	for i, it := range items {
		out = append(out, triplePat{s: cur, p: constTerm(rdfFirst), o: it})
		next := constTerm(rdfNil)
		if i < len(items)-1 {
			next = p.newBNode()
		}
		out = append(out, triplePat{s: cur, p: constTerm(rdfRest), o: next})
		cur = next
	}
	return head, out
}

func (p *parser) parseVarOrTerm() term {
	t := p.peek()
	switch t.kind {
	case tkVar:
		p.nextTok()
		return varTerm(p.slot(t.text))
	case tkIRI, tkPName:
		return constTerm(p.parseIRI())
	case tkBNode:
		p.nextTok()
		if p.tmplMode {
			return constTerm(quad.BNode("l" + t.text))
		}
		if id, ok := p.bnodeBGP[t.text]; ok && id != p.bgpID {
			p.fail(t, "blank node label _:%s is used in two basic graph patterns", t.text)
		}
		p.bnodeBGP[t.text] = p.bgpID
		s, ok := p.bnodes[t.text]
		if !ok {
			s = p.hidden("b")
			p.bnodes[t.text] = s
		}
		return varTerm(s)
	case tkAnon:
		p.nextTok()
		return p.newBNode()
	case tkNil:
		p.nextTok()
		return constTerm(rdfNil)
	}
	return constTerm(p.parseLiteral())
}

// ---- property paths ----

// The path parsers return the path and its tree depth (1 for a link);
// sequences and alternatives are left-nested chains and count one level per
// link.

func (p *parser) parsePath() (pathExpr, int) {
	p.enter()
	defer p.leave()
	a, da := p.parsePathSeq()
	for p.isPunct("|") {
		op := p.nextTok()
		b, db := p.parsePathSeq()
		a, da = pAlt{a: a, b: b}, p.pathLevel(op, da, db)
	}
	return a, da
}

// pathLevel is the depth of a path node over paths of depths a and b.
func (p *parser) pathLevel(at token, a, b int) int {
	d := max(a, b) + 1
	if d > MaxDepth {
		p.tooDeep(at)
	}
	return d
}

func (p *parser) parsePathSeq() (pathExpr, int) {
	a, da := p.parsePathEltOrInverse()
	for p.isPunct("/") {
		op := p.nextTok()
		b, db := p.parsePathEltOrInverse()
		a, da = pSeq{a: a, b: b}, p.pathLevel(op, da, db)
	}
	return a, da
}

func (p *parser) parsePathEltOrInverse() (pathExpr, int) {
	if p.isPunct("^") {
		op := p.nextTok()
		e, d := p.parsePathElt()
		return pInv{p: e}, p.pathLevel(op, d, 0)
	}
	return p.parsePathElt()
}

func (p *parser) parsePathElt() (pathExpr, int) {
	prim, d := p.parsePathPrimary()
	t := p.peek()
	if t.kind == tkPunct {
		switch t.text {
		case "*":
			p.nextTok()
			return pMod{p: prim, min: 0, max: -1}, p.pathLevel(t, d, 0)
		case "+":
			p.nextTok()
			return pMod{p: prim, min: 1, max: -1}, p.pathLevel(t, d, 0)
		case "?":
			p.nextTok()
			return pMod{p: prim, min: 0, max: 1}, p.pathLevel(t, d, 0)
		}
	}
	return prim, d
}

func (p *parser) parsePathPrimary() (pathExpr, int) {
	t := p.peek()
	switch {
	case t.kind == tkName && t.text == "a":
		p.nextTok()
		return pLink{iri: rdfType}, 1
	case t.kind == tkIRI || t.kind == tkPName:
		return pLink{iri: p.parseIRI()}, 1
	case t.kind == tkPunct && t.text == "!":
		p.nextTok()
		neg := pNeg{}
		one := func() {
			inv := p.acceptPunct("^")
			var iri quad.IRI
			if p.peek().kind == tkName && p.peek().text == "a" {
				p.nextTok()
				iri = rdfType
			} else {
				iri = p.parseIRI()
			}
			if inv {
				neg.inv = append(neg.inv, iri)
			} else {
				neg.fwd = append(neg.fwd, iri)
			}
		}
		if p.peek().kind == tkNil {
			p.nextTok()
			return neg, 1
		}
		if p.acceptPunct("(") {
			one()
			for p.acceptPunct("|") {
				one()
			}
			p.expectPunct(")")
		} else {
			one()
		}
		return neg, 1
	case t.kind == tkPunct && t.text == "(":
		p.nextTok()
		e, d := p.parsePath()
		p.expectPunct(")")
		return e, d
	}
	p.fail(t, "expected a property path, found %s", t)
	return nil, 0
}

// ---- expressions ----

func (p *parser) parseConstraint() expr {
	if p.isPunct("(") {
		p.nextTok()
		e := p.parseExpr()
		p.expectPunct(")")
		return e
	}
	return p.parseBuiltinOrFunction()
}

func (p *parser) parseBuiltinOrFunction() expr {
	t := p.peek()
	if t.kind == tkIRI || t.kind == tkPName {
		iri := p.parseIRI()
		return p.call(t, &eFunc{iri: iri, args: p.parseArgList()})
	}
	if t.kind == tkName {
		return p.parseBuiltin()
	}
	p.fail(t, "expected a constraint, found %s", t)
	return nil
}

func (p *parser) parseArgList() []expr {
	if p.peek().kind == tkNil {
		p.nextTok()
		return nil
	}
	p.expectPunct("(")
	p.acceptKw("DISTINCT")
	var args []expr
	for {
		args = append(args, p.parseExpr())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	return args
}

func (p *parser) parseExpr() expr {
	p.enter()
	defer p.leave()
	return p.parseLogical("||", p.parseAnd)
}

func (p *parser) parseAnd() expr {
	return p.parseLogical("&&", p.parseRelational)
}

// parseLogical parses operands separated by op (|| or &&) into a balanced
// tree.
func (p *parser) parseLogical(op string, operand func() expr) expr {
	a := operand()
	if !p.isPunct(op) {
		return a
	}
	xs := []any{a}
	var ops []token
	for p.isPunct(op) {
		ops = append(ops, p.nextTok())
		xs = append(xs, operand())
	}
	return p.balanced(ops, xs, func(l, r any) any { return &eOp{op: op, args: []expr{l, r}} })
}

// binary is the operator op applied to a and b, its depth recorded.
func (p *parser) binary(at token, op string, a, b expr) expr {
	x := &eOp{op: op, args: []expr{a, b}}
	p.built(at, x, a, b)
	return x
}

// call records the depth of a function call or operator over its
// arguments.
func (p *parser) call(at token, x expr) expr {
	var args []expr
	switch c := x.(type) {
	case *eCall:
		args = c.args
	case *eFunc:
		args = c.args
	case *eOp:
		args = c.args
	}
	kids := make([]any, len(args))
	for i, a := range args {
		kids[i] = a
	}
	p.built(at, x, kids...)
	return x
}

func (p *parser) parseRelational() expr {
	a := p.parseAdditive()
	t := p.peek()
	if t.kind == tkPunct {
		switch t.text {
		case "=", "!=", "<", ">", "<=", ">=":
			p.nextTok()
			return p.binary(t, t.text, a, p.parseAdditive())
		}
	}
	not := false
	if p.isKw("NOT") && strings.EqualFold(p.peekN(1).text, "IN") && p.peekN(1).kind == tkName {
		p.nextTok()
		not = true
	}
	if p.acceptKw("IN") {
		var list []expr
		if p.peek().kind == tkNil {
			p.nextTok()
		} else {
			p.expectPunct("(")
			for {
				list = append(list, p.parseExpr())
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct(")")
		}
		in := &eIn{not: not, left: a, list: list}
		kids := []any{a}
		for _, e := range list {
			kids = append(kids, e)
		}
		p.built(t, in, kids...)
		return in
	}
	return a
}

func (p *parser) parseAdditive() expr {
	a := p.parseMultiplicative()
	for {
		t := p.peek()
		if t.kind == tkPunct && (t.text == "+" || t.text == "-") {
			p.nextTok()
			a = p.binary(t, t.text, a, p.parseMultiplicative())
			continue
		}
		return a
	}
}

func (p *parser) parseMultiplicative() expr {
	a := p.parseUnary()
	for {
		t := p.peek()
		if t.kind == tkPunct && (t.text == "*" || t.text == "/") {
			p.nextTok()
			a = p.binary(t, t.text, a, p.parseUnary())
			continue
		}
		return a
	}
}

func (p *parser) parseUnary() expr {
	t := p.peek()
	if t.kind == tkPunct {
		switch t.text {
		case "!":
			p.nextTok()
			return p.call(t, &eOp{op: "!", args: []expr{p.unaryOperand()}})
		case "-", "+":
			n := p.peekN(1)
			if !t.spaceAfter && (n.kind == tkInteger || n.kind == tkDecimal || n.kind == tkDouble) {
				return newConst(p.parseLiteral())
			}
			p.nextTok()
			op := "neg"
			if t.text == "+" {
				op = "pos"
			}
			return p.call(t, &eOp{op: op, args: []expr{p.unaryOperand()}})
		}
	}
	return p.parsePrimary()
}

// unaryOperand parses the operand of a unary operator, one level deeper.
func (p *parser) unaryOperand() expr {
	p.enter()
	defer p.leave()
	return p.parseUnary()
}

func (p *parser) parsePrimary() expr {
	t := p.peek()
	switch t.kind {
	case tkPunct:
		if t.text == "(" {
			p.nextTok()
			e := p.parseExpr()
			p.expectPunct(")")
			return e
		}
	case tkVar:
		p.nextTok()
		return &eVar{slot: p.slot(t.text)}
	case tkIRI, tkPName:
		iri := p.parseIRI()
		n := p.peek()
		if n.kind == tkNil || n.kind == tkPunct && n.text == "(" {
			return p.call(t, &eFunc{iri: iri, args: p.parseArgList()})
		}
		return newConst(iri)
	case tkString, tkInteger, tkDecimal, tkDouble:
		return newConst(p.parseLiteral())
	case tkName:
		if p.isKw("true") || p.isKw("false") {
			return newConst(p.parseLiteral())
		}
		return p.parseBuiltin()
	}
	p.fail(t, "expected an expression, found %s", t)
	return nil
}

// builtinArity gives the allowed argument counts of built-in functions
// (min, max; max -1 = any).
var builtinArity = map[string][2]int{
	"STR": {1, 1}, "LANG": {1, 1}, "LANGMATCHES": {2, 2}, "DATATYPE": {1, 1}, "BOUND": {1, 1},
	"IRI": {1, 1}, "URI": {1, 1}, "BNODE": {0, 1}, "RAND": {0, 0}, "ABS": {1, 1}, "CEIL": {1, 1},
	"FLOOR": {1, 1}, "ROUND": {1, 1}, "CONCAT": {0, -1}, "STRLEN": {1, 1}, "UCASE": {1, 1},
	"LCASE": {1, 1}, "ENCODE_FOR_URI": {1, 1}, "CONTAINS": {2, 2}, "STRSTARTS": {2, 2},
	"STRENDS": {2, 2}, "STRBEFORE": {2, 2}, "STRAFTER": {2, 2}, "YEAR": {1, 1}, "MONTH": {1, 1},
	"DAY": {1, 1}, "HOURS": {1, 1}, "MINUTES": {1, 1}, "SECONDS": {1, 1}, "TIMEZONE": {1, 1},
	"TZ": {1, 1}, "NOW": {0, 0}, "UUID": {0, 0}, "STRUUID": {0, 0}, "MD5": {1, 1}, "SHA1": {1, 1},
	"SHA256": {1, 1}, "SHA384": {1, 1}, "SHA512": {1, 1}, "COALESCE": {0, -1}, "IF": {3, 3},
	"STRLANG": {2, 2}, "STRDT": {2, 2}, "SAMETERM": {2, 2}, "ISIRI": {1, 1}, "ISURI": {1, 1},
	"ISBLANK": {1, 1}, "ISLITERAL": {1, 1}, "ISNUMERIC": {1, 1}, "REGEX": {2, 3},
	"SUBSTR": {2, 3}, "REPLACE": {3, 4},
}

var aggregateNames = map[string]bool{"COUNT": true, "SUM": true, "MIN": true, "MAX": true,
	"AVG": true, "SAMPLE": true, "GROUP_CONCAT": true}

func (p *parser) parseBuiltin() expr {
	t := p.nextTok()
	name := strings.ToUpper(t.text)
	switch {
	case name == "NOT" && p.isKw("EXISTS"):
		p.nextTok()
		x := &eExists{not: true, p: p.parseExistsPattern()}
		p.built(t, x, x.p)
		return x
	case name == "EXISTS":
		x := &eExists{p: p.parseExistsPattern()}
		p.built(t, x, x.p)
		return x
	case aggregateNames[name]:
		if p.aggs == nil {
			p.fail(t, "aggregate %s is not allowed here", name)
		}
		aggs := p.aggs
		p.aggs = nil // no nested aggregates
		a := &eAgg{name: name, sep: " "}
		p.expectPunct("(")
		if p.acceptKw("DISTINCT") {
			a.distinct = true
		}
		if name == "COUNT" && p.acceptPunct("*") {
		} else {
			a.arg = p.parseExpr()
		}
		if name == "GROUP_CONCAT" && p.acceptPunct(";") {
			p.expectKw("SEPARATOR")
			p.expectPunct("=")
			st := p.nextTok()
			if st.kind != tkString {
				p.fail(st, "expected a string after SEPARATOR=")
			}
			a.sep = st.text
		}
		p.expectPunct(")")
		p.aggs = aggs
		a.slot = p.hidden("agg")
		*aggs = append(*aggs, a)
		p.built(t, a, a.arg)
		return a
	}
	ar, ok := builtinArity[name]
	if !ok {
		p.fail(t, "unknown function %s", t.text)
	}
	var args []expr
	if name == "BOUND" {
		p.expectPunct("(")
		vt := p.nextTok()
		if vt.kind != tkVar {
			p.fail(vt, "BOUND takes a variable")
		}
		p.expectPunct(")")
		return p.call(t, &eCall{name: name, args: []expr{&eVar{slot: p.slot(vt.text)}}})
	}
	if p.peek().kind == tkNil {
		p.nextTok()
	} else {
		p.expectPunct("(")
		for {
			args = append(args, p.parseExpr())
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(")")
	}
	if len(args) < ar[0] || ar[1] >= 0 && len(args) > ar[1] {
		p.fail(t, "%s takes %d to %d arguments, got %d", name, ar[0], ar[1], len(args))
	}
	return p.call(t, &eCall{name: name, args: args})
}

func (p *parser) parseExistsPattern() node {
	saved := p.aggs
	p.aggs = nil
	n := p.parseGroupGraphPattern()
	p.aggs = saved
	return n
}
