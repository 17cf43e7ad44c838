package graphql

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// node is one resource (or pose) of the graph. Its outgoing triples are
// read once, on first use, with one subject lookup.
type node struct {
	typ   *objectType
	iri   quad.IRI
	props map[quad.IRI][]quad.Value
}

// node returns the cached node for iri.
func (x *execution) node(t *objectType, iri quad.IRI) *node {
	if n, ok := x.cache[iri]; ok && n.typ == t {
		return n
	}
	n := &node{typ: t, iri: iri}
	x.cache[iri] = n
	return n
}

func (x *execution) load(ctx context.Context, n *node) error {
	if n.props != nil {
		return nil
	}
	props := map[quad.IRI][]quad.Value{}
	err := x.e.src.Match(ctx, graph.Pattern{Subject: n.iri}, func(q quad.Quad) error {
		if p, ok := q.Predicate.(quad.IRI); ok && !slices.Contains(props[p], q.Object) {
			props[p] = append(props[p], q.Object)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSource, err)
	}
	n.props = props
	return nil
}

// hasType reports whether iri is typed class (in any graph).
func (x *execution) hasType(ctx context.Context, iri quad.IRI, class quad.IRI) (bool, error) {
	found := false
	err := x.e.src.Match(ctx, graph.Pattern{Subject: iri, Predicate: ontology.RDFType, Object: class}, func(quad.Quad) error {
		found = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrSource, err)
	}
	return found, nil
}

// lexical returns the lexical form of a literal.
func lexical(v quad.Value) (string, bool) {
	switch v := v.(type) {
	case quad.String:
		return string(v), true
	case quad.TypedString:
		return string(v.Value), true
	case quad.LangString:
		return string(v.Value), true
	}
	return "", false
}

// number parses a numeric literal (xsd:double, decimal, integer, ... as
// stored: TypedString with the lexical form).
func number(v quad.Value) (float64, bool) {
	ts, ok := v.(quad.TypedString)
	if !ok {
		return 0, false
	}
	s := strings.TrimSpace(string(ts.Value))
	switch s {
	case "INF", "+INF":
		return math.Inf(1), true
	case "-INF":
		return math.Inf(-1), true
	case "NaN":
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// convert turns a literal into the JSON value of a field of kind k; nil
// when the literal does not fit (it is then reported as null).
func convert(k scalarKind, v quad.Value) any {
	switch k {
	case kindFloat:
		f, ok := number(v)
		if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil // JSON has no infinities
		}
		return f
	case kindInt:
		s, ok := lexical(v)
		if !ok {
			return nil
		}
		i, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(s), "+"), 10, 32)
		if err != nil {
			return nil
		}
		return int(i)
	case kindBoolean:
		s, _ := lexical(v)
		switch strings.TrimSpace(s) {
		case "true", "1":
			return true
		case "false", "0":
			return false
		}
		return nil
	case kindDateTime:
		s, ok := lexical(v)
		if !ok {
			return nil
		}
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC().Format(time.RFC3339Nano)
		}
		return s
	}
	if iri, ok := v.(quad.IRI); ok {
		return string(iri)
	}
	s, ok := lexical(v)
	if !ok {
		return nil
	}
	return s
}

// sortedValues orders multiple values of one property deterministically.
func sortedValues(vs []quad.Value) []quad.Value {
	out := slices.Clone(vs)
	slices.SortFunc(out, func(a, b quad.Value) int { return cmp.Compare(a.String(), b.String()) })
	return out
}

// field resolves a field of a resource node.
func (n *node) field(ctx context.Context, x *execution, f *ast.Field, args map[string]any) (any, error) {
	switch f.Name {
	case "id":
		s := string(n.iri)
		if n.typ.kind == "" {
			if _, frag, ok := strings.Cut(s, "#"); ok {
				return frag, nil
			}
		}
		return s[strings.LastIndexByte(s, '/')+1:], nil
	case "iri":
		return string(n.iri), nil
	}
	if err := x.load(ctx, n); err != nil {
		return nil, err
	}
	for _, lf := range n.typ.fields {
		if lf.name != f.Name {
			continue
		}
		vs := sortedValues(n.props[lf.pred])
		if lf.list {
			out := make([]any, 0, len(vs))
			for _, v := range vs {
				if c := convert(lf.kind, v); c != nil {
					out = append(out, c)
				}
			}
			return out, nil
		}
		for _, v := range vs {
			if c := convert(lf.kind, v); c != nil {
				return c, nil
			}
		}
		return nil, nil
	}
	l, ok := x.e.links[n.typ.name][f.Name]
	if !ok {
		return nil, fmt.Errorf("internal: no resolver for %s.%s", n.typ.name, f.Name)
	}
	target := x.e.types[l.target]
	if !l.list {
		for _, v := range sortedValues(n.props[l.pred]) {
			iri, ok := v.(quad.IRI)
			if !ok {
				continue
			}
			if ok, err := x.hasType(ctx, iri, target.class); err != nil || ok {
				if err != nil {
					return nil, err
				}
				return x.node(target, iri), nil
			}
		}
		return nil, nil
	}
	page, err := x.pageArgs(target, args)
	if err != nil {
		return nil, err
	}
	var cands []quad.IRI
	if l.inverse {
		err = x.e.src.Match(ctx, graph.Pattern{Predicate: l.pred, Object: n.iri}, func(q quad.Quad) error {
			if iri, ok := q.Subject.(quad.IRI); ok {
				cands = append(cands, iri)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSource, err)
		}
	} else {
		for _, v := range n.props[l.pred] {
			if iri, ok := v.(quad.IRI); ok {
				cands = append(cands, iri)
			}
		}
	}
	return x.connection(ctx, target, cands, page)
}

// filter is one numeric bound of a list argument.
type filter struct {
	pred  quad.IRI
	op    string // Lt, Lte, Gt, Gte
	value float64
}

func (f filter) holds(v float64) bool {
	switch f.op {
	case "Lt":
		return v < f.value
	case "Lte":
		return v <= f.value
	case "Gt":
		return v > f.value
	}
	return v >= f.value
}

// page is the parsed arguments of a list field.
type page struct {
	first   int
	after   quad.IRI // decoded cursor; "" for the first page
	filters []filter
}

// argNumber reads a numeric argument value (ints arrive as int64 from
// literals and variables, floats as float64).
func argNumber(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func (x *execution) pageArgs(t *objectType, args map[string]any) (page, error) {
	p := page{first: DefaultPageSize}
	if v, ok := argNumber(args["first"]); ok {
		if v < 0 || v > float64(x.e.opts.MaxPageSize) {
			return p, fmt.Errorf("%w: first must be between 0 and %d", ErrBadArgument, x.e.opts.MaxPageSize)
		}
		p.first = int(v)
	}
	if c, ok := args["after"].(string); ok && c != "" {
		iri, err := decodeCursor(c)
		if err != nil {
			return p, err
		}
		p.after = iri
	}
	for _, lf := range t.fields {
		if !lf.filter {
			continue
		}
		for _, op := range filterOps {
			if v, ok := argNumber(args[lf.name+op.suffix]); ok {
				p.filters = append(p.filters, filter{pred: lf.pred, op: op.suffix, value: v})
			}
		}
	}
	return p, nil
}

const cursorPrefix = "mg1:"

func encodeCursor(iri quad.IRI) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + string(iri)))
}

func decodeCursor(c string) (quad.IRI, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) || len(b) == len(cursorPrefix) {
		return "", fmt.Errorf("%w: after: %q is not a cursor of this service", ErrBadArgument, c)
	}
	return quad.IRI(string(b[len(cursorPrefix):])), nil
}

// matches reports whether n satisfies every filter (a node without a
// numeric value for a filtered property does not).
func (x *execution) matches(ctx context.Context, n *node, fs []filter) (bool, error) {
	if len(fs) == 0 {
		return true, nil
	}
	if err := x.load(ctx, n); err != nil {
		return false, err
	}
	for _, f := range fs {
		ok := false
		for _, v := range n.props[f.pred] {
			if num, isNum := number(v); isNum && f.holds(num) {
				ok = true
				break
			}
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// orderKey orders the nodes of a list: poses by affinity (most favourable
// first), everything by IRI.
func (x *execution) less(ctx context.Context, t *objectType, a, b *node) int {
	if t.class == classDockingPose {
		fa, fb := x.affinity(ctx, a), x.affinity(ctx, b)
		if c := cmp.Compare(fa, fb); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.iri, b.iri)
}

func (x *execution) affinity(ctx context.Context, n *node) float64 {
	if x.load(ctx, n) != nil {
		return math.Inf(1)
	}
	best := math.Inf(1)
	for _, v := range n.props[mg("bindingAffinity")] {
		if f, ok := number(v); ok && f < best {
			best = f
		}
	}
	return best
}

// connection builds a page from candidate IRIs: typed as t, passing the
// filters, ordered, after the cursor.
func (x *execution) connection(ctx context.Context, t *objectType, cands []quad.IRI, p page) (any, error) {
	slices.Sort(cands)
	cands = slices.Compact(cands)
	var nodes []*node
	for _, iri := range cands {
		ok, err := x.hasType(ctx, iri, t.class)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		n := x.node(t, iri)
		if ok, err := x.matches(ctx, n, p.filters); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		nodes = append(nodes, n)
	}
	slices.SortFunc(nodes, func(a, b *node) int { return x.less(ctx, t, a, b) })
	start := 0
	if p.after != "" {
		i := slices.IndexFunc(nodes, func(n *node) bool { return n.iri == p.after })
		if i < 0 {
			return nil, fmt.Errorf("%w: after: the cursor's node is no longer in this list", ErrBadArgument)
		}
		start = i + 1
	}
	end := min(start+p.first, len(nodes))
	return &conn{nodes: nodes[start:end], hasNext: end < len(nodes)}, nil
}

// rootList lists resources of type t in IRI order: through the class
// index when there is no filter, else from the first filter's predicate.
func (x *execution) rootList(ctx context.Context, t *objectType, p page) (any, error) {
	if len(p.filters) == 0 {
		if p.first == 0 {
			// ListByClass reads a limit of 0 as "no limit"; an empty page
			// only needs to know whether a node follows.
			iris, _, err := x.e.src.ListByClass(ctx, t.class, p.after, 1)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrSource, err)
			}
			return &conn{hasNext: len(iris) > 0}, nil
		}
		iris, more, err := x.e.src.ListByClass(ctx, t.class, p.after, p.first)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSource, err)
		}
		c := &conn{hasNext: more}
		for _, iri := range iris {
			c.nodes = append(c.nodes, x.node(t, iri))
		}
		return c, nil
	}
	// Candidates: subjects with a value for the first filter's predicate
	// in range; then the type, the other filters, the cursor.
	f0 := p.filters[0]
	var cands []quad.IRI
	err := x.e.src.Match(ctx, graph.Pattern{Predicate: f0.pred}, func(q quad.Quad) error {
		iri, ok := q.Subject.(quad.IRI)
		if !ok || (p.after != "" && iri <= p.after) {
			return nil
		}
		if v, ok := number(q.Object); ok && f0.holds(v) {
			cands = append(cands, iri)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSource, err)
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	c := &conn{}
	for _, iri := range cands {
		ok, err := x.hasType(ctx, iri, t.class)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		n := x.node(t, iri)
		if ok, err := x.matches(ctx, n, p.filters[1:]); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		if len(c.nodes) == p.first {
			c.hasNext = true
			break
		}
		c.nodes = append(c.nodes, n)
	}
	return c, nil
}

// rootObject is the Query type.
type rootObject struct{}

func (rootObject) field(ctx context.Context, x *execution, f *ast.Field, args map[string]any) (any, error) {
	switch f.Name {
	case "__schema":
		return schemaObject{x.e.schema}, nil
	case "__type":
		name, _ := args["name"].(string)
		if def := x.e.schema.Types[name]; def != nil {
			return typeObject{s: x.e.schema, def: def}, nil
		}
		return nil, nil
	}
	for _, r := range rootLists() {
		t := x.e.types[r.typ]
		switch f.Name {
		case r.single:
			id, _ := args["id"].(string)
			if id == "" || strings.ContainsAny(id, "/#?<> ") {
				return nil, nil
			}
			iri := ontology.ResourceIRI(x.e.opts.BaseIRI, t.kind, id)
			ok, err := x.hasType(ctx, iri, t.class)
			if err != nil || !ok {
				return nil, err
			}
			return x.node(t, iri), nil
		case r.plural:
			p, err := x.pageArgs(t, args)
			if err != nil {
				return nil, err
			}
			if q, ok, err := searchArgsOf(t, args); err != nil || ok {
				if err != nil {
					return nil, err
				}
				return x.searchList(ctx, t, q, p)
			}
			return x.rootList(ctx, t, p)
		}
	}
	return nil, fmt.Errorf("internal: no resolver for Query.%s", f.Name)
}

// conn is a page of a connection.
type conn struct {
	nodes   []*node
	hasNext bool
	// scores, when set, are the search scores of nodes (nil entries: none).
	scores []*float64
}

func (c *conn) field(_ context.Context, _ *execution, f *ast.Field, _ map[string]any) (any, error) {
	switch f.Name {
	case "edges":
		out := make([]any, len(c.nodes))
		for i, n := range c.nodes {
			out[i] = edge{n: n}
			if i < len(c.scores) {
				out[i] = edge{n: n, score: c.scores[i]}
			}
		}
		return out, nil
	case "nodes":
		out := make([]any, len(c.nodes))
		for i, n := range c.nodes {
			out[i] = n
		}
		return out, nil
	case "pageInfo":
		return pageInfo{c}, nil
	}
	return nil, fmt.Errorf("internal: no resolver for connection field %s", f.Name)
}

type edge struct {
	n     *node
	score *float64
}

func (e edge) field(_ context.Context, _ *execution, f *ast.Field, _ map[string]any) (any, error) {
	switch f.Name {
	case "cursor":
		return encodeCursor(e.n.iri), nil
	case "node":
		return e.n, nil
	case "score":
		if e.score == nil {
			return nil, nil
		}
		return *e.score, nil
	}
	return nil, fmt.Errorf("internal: no resolver for edge field %s", f.Name)
}

type pageInfo struct{ c *conn }

func (p pageInfo) field(_ context.Context, _ *execution, f *ast.Field, _ map[string]any) (any, error) {
	switch f.Name {
	case "hasNextPage":
		return p.c.hasNext, nil
	case "endCursor":
		if len(p.c.nodes) == 0 {
			return nil, nil
		}
		return encodeCursor(p.c.nodes[len(p.c.nodes)-1].iri), nil
	}
	return nil, fmt.Errorf("internal: no resolver for PageInfo.%s", f.Name)
}
