package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/molgraph/molgraph/graph"
)

// Errors of the package; a Response's errors wrap them (gqlerror.Error.Err).
var (
	// ErrInvalidQuery: the document does not parse or validate against the
	// schema, names an unknown operation, or its variables do not coerce.
	ErrInvalidQuery = errors.New("invalid graphql query")
	// ErrTooComplex: the query passes one of the limits of Options
	// (MaxTokens, MaxSelections, MaxFieldsPerName, MaxFragmentSpreads,
	// MaxDepth, MaxCost).
	ErrTooComplex = errors.New("graphql query too complex")
	// ErrBadArgument: an argument value is out of range (page size,
	// cursor).
	ErrBadArgument = errors.New("bad argument")
	// ErrSource: reading the graph failed (including the deadline).
	ErrSource = errors.New("graph read failed")
)

// Source is the graph a query reads; *graph.Store implements it.
type Source interface {
	Match(ctx context.Context, p graph.Pattern, fn func(quad.Quad) error) error
	ListByClass(ctx context.Context, class quad.IRI, after quad.IRI, limit int) ([]quad.IRI, bool, error)
}

// Defaults of Options fields left zero.
const (
	DefaultMaxDepth    = 10
	DefaultMaxCost     = 10_000
	DefaultMaxPageSize = 100
	DefaultPageSize    = 20
	// DefaultMaxTokens bounds the lexical tokens of a query (GraphiQL's
	// full introspection query has about 300).
	DefaultMaxTokens = 10_000
	// DefaultMaxSelections bounds the selections of a query, fragments
	// counted where they are spread (the introspection query has about 400).
	DefaultMaxSelections = 2_000
	// DefaultMaxFieldsPerName bounds the fields merged into one response
	// path (e.g. "{ a a a }" has 3 under "a").
	DefaultMaxFieldsPerName = 100
	// DefaultMaxFragmentSpreads bounds the distinct fragments spread into
	// one (merged) selection.
	DefaultMaxFragmentSpreads = 200
)

// Options configure an Executor.
type Options struct {
	// BaseIRI mints resource IRIs from ids (<BaseIRI>id/<kind>/<id>).
	BaseIRI string
	// MaxDepth is the deepest field nesting allowed (introspection fields
	// excluded; default DefaultMaxDepth).
	MaxDepth int
	// MaxCost bounds the estimated number of resolved fields: every field
	// costs 1 (a structure search SearchCost more), and the fields below a
	// list field count once per requested page element (first, default
	// 20). Default DefaultMaxCost.
	MaxCost int
	// MaxPageSize bounds first: (default DefaultMaxPageSize).
	MaxPageSize int
	// MaxTokens bounds the query's lexical tokens, checked while parsing
	// (default DefaultMaxTokens).
	MaxTokens int
	// MaxSelections bounds the fields, inline fragments and fragment
	// spreads of the query with fragments expanded where they are spread,
	// checked before validation (default DefaultMaxSelections).
	MaxSelections int
	// MaxFieldsPerName bounds how many fields answer under one response
	// name in one (merged) selection, checked before validation (default
	// DefaultMaxFieldsPerName).
	MaxFieldsPerName int
	// MaxFragmentSpreads bounds the distinct fragments spread into one
	// (merged) selection, checked before validation (default
	// DefaultMaxFragmentSpreads).
	MaxFragmentSpreads int
	// Search runs the structure searches of Query.molecules (similarTo,
	// substructure; see search.go); nil: those arguments give a field
	// error wrapping ErrSearchUnavailable.
	Search SearchFunc
}

// Executor runs GraphQL queries on a Source. It is safe for concurrent use.
type Executor struct {
	src    Source
	opts   Options
	sdl    string
	schema *ast.Schema
	types  map[string]*objectType
	links  map[string]map[string]linkField // owner -> field name -> link
	// rules and rulesTerse are the validation rules with and without name
	// suggestions (see validate).
	rules, rulesTerse *rules.Rules
}

// New builds the schema and returns an Executor over src.
func New(src Source, opts Options) (*Executor, error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	if opts.MaxCost <= 0 {
		opts.MaxCost = DefaultMaxCost
	}
	if opts.MaxPageSize <= 0 {
		opts.MaxPageSize = DefaultMaxPageSize
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.MaxSelections <= 0 {
		opts.MaxSelections = DefaultMaxSelections
	}
	if opts.MaxFieldsPerName <= 0 {
		opts.MaxFieldsPerName = DefaultMaxFieldsPerName
	}
	if opts.MaxFragmentSpreads <= 0 {
		opts.MaxFragmentSpreads = DefaultMaxFragmentSpreads
	}
	if opts.BaseIRI != "" && !strings.HasSuffix(opts.BaseIRI, "/") {
		opts.BaseIRI += "/"
	}
	e := &Executor{src: src, opts: opts, sdl: schemaText(opts.MaxPageSize),
		types: map[string]*objectType{}, links: map[string]map[string]linkField{},
		rules: validationRules(true), rulesTerse: validationRules(false)}
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: "molgraph.graphql", Input: e.sdl})
	if err != nil {
		return nil, fmt.Errorf("graphql: schema: %w", err)
	}
	e.schema = schema
	for _, t := range types() {
		e.types[t.name] = &t
	}
	for _, l := range links() {
		if e.links[l.owner] == nil {
			e.links[l.owner] = map[string]linkField{}
		}
		e.links[l.owner][l.name] = l
	}
	return e, nil
}

// SDL returns the schema in GraphQL schema definition language.
func (e *Executor) SDL() string { return e.sdl }

// Request is a GraphQL-over-HTTP request body.
type Request struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName,omitempty"`
	Variables     map[string]any `json:"variables,omitempty"`
	Extensions    map[string]any `json:"extensions,omitempty"`
}

// Response is a GraphQL response: Data is absent (HasData false) when the
// request failed before execution (a request error), else it is the
// result object (or null) with any field errors in Errors.
type Response struct {
	Data    *OrderedMap
	HasData bool
	Errors  gqlerror.List
}

// MarshalJSON writes {"errors": [...], "data": ...} with data omitted for
// request errors.
func (r *Response) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if len(r.Errors) > 0 {
		errs, err := json.Marshal(r.Errors)
		if err != nil {
			return nil, err
		}
		b.WriteString(`"errors":`)
		b.Write(errs)
	}
	if r.HasData {
		if len(r.Errors) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"data":`)
		if r.Data == nil {
			b.WriteString("null")
		} else {
			d, err := json.Marshal(r.Data)
			if err != nil {
				return nil, err
			}
			b.Write(d)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// OrderedMap is a JSON object that keeps its keys in insertion order, as
// GraphQL responses must.
type OrderedMap struct {
	Keys   []string
	Values map[string]any
}

func newOrderedMap(n int) *OrderedMap {
	return &OrderedMap{Keys: make([]string, 0, n), Values: make(map[string]any, n)}
}

func (m *OrderedMap) set(k string, v any) {
	if _, ok := m.Values[k]; !ok {
		m.Keys = append(m.Keys, k)
	}
	m.Values[k] = v
}

// Get returns the value of key k.
func (m *OrderedMap) Get(k string) any { return m.Values[k] }

// MarshalJSON writes the object with its keys in order.
func (m *OrderedMap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range m.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(m.Values[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// requestError is a Response for an error before execution.
func requestError(sentinel error, list gqlerror.List) *Response {
	for _, e := range list {
		switch {
		case e.Err == nil:
			e.Err = sentinel
		case errors.Is(e.Err, sentinel):
		default:
			e.Err = fmt.Errorf("%w: %w", sentinel, e.Err)
		}
	}
	return &Response{Errors: list}
}

// Execute runs one request. Request errors (syntax, validation, unknown
// operation, bad variables, limits) give a Response without data; field
// errors give partial data and errors, as the GraphQL spec says.
func (e *Executor) Execute(ctx context.Context, req Request) *Response {
	if strings.TrimSpace(req.Query) == "" {
		return requestError(ErrInvalidQuery, gqlerror.List{gqlerror.Errorf("no query")})
	}
	doc, ge := e.parseBounded(req.Query)
	if ge != nil {
		if errors.Is(ge.Err, ErrTooComplex) {
			return requestError(ErrTooComplex, gqlerror.List{ge})
		}
		return requestError(ErrInvalidQuery, gqlerror.List{ge})
	}
	if errs := e.validate(doc, len(req.Query)); len(errs) > 0 {
		return requestError(ErrInvalidQuery, errs)
	}
	var op *ast.OperationDefinition
	switch {
	case req.OperationName != "":
		op = doc.Operations.ForName(req.OperationName)
		if op == nil {
			return requestError(ErrInvalidQuery, gqlerror.List{gqlerror.Errorf("no operation named %q", req.OperationName)})
		}
	case len(doc.Operations) == 1:
		op = doc.Operations[0]
	default:
		return requestError(ErrInvalidQuery, gqlerror.List{gqlerror.Errorf("the document has %d operations; give operationName", len(doc.Operations))})
	}
	if op.Operation != ast.Query {
		return requestError(ErrInvalidQuery, gqlerror.List{gqlerror.Errorf("only query operations are supported, not %s", op.Operation)})
	}
	vars, err := validator.VariableValues(e.schema, op, req.Variables)
	if err != nil {
		var ge *gqlerror.Error
		if !errors.As(err, &ge) {
			ge = gqlerror.Wrap(err)
		}
		if len(ge.Path) == 2 && ge.Path[0] == ast.PathName("variable") {
			ge.Message = fmt.Sprintf("variable $%s: %s", ge.Path[1], ge.Message)
		}
		return requestError(ErrInvalidQuery, gqlerror.List{ge})
	}
	x := &execution{e: e, vars: vars, cache: map[quad.IRI]*node{}}
	if err := x.checkLimits(op); err != nil {
		return requestError(ErrTooComplex, gqlerror.List{err})
	}
	data, _ := x.selectionSet(ctx, rootObject{}, "Query", op.SelectionSet, ast.Path{})
	return &Response{Data: data, HasData: true, Errors: x.errors}
}

// object is a value whose fields the executor resolves.
type object interface {
	// field returns the value of field name: nil, a scalar (string, int,
	// float64, bool), an object, or a []any of those.
	field(ctx context.Context, x *execution, f *ast.Field, args map[string]any) (any, error)
}

// execution is the state of one Execute.
type execution struct {
	e      *Executor
	vars   map[string]any
	errors gqlerror.List
	cache  map[quad.IRI]*node
}

func (x *execution) addError(path ast.Path, f *ast.Field, err error) {
	ge := &gqlerror.Error{Err: err, Message: err.Error(), Path: append(ast.Path(nil), path...)}
	if f != nil && f.Position != nil {
		ge.Locations = []gqlerror.Location{{Line: f.Position.Line, Column: f.Position.Column}}
	}
	x.errors = append(x.errors, ge)
}

// included evaluates @skip and @include.
func (x *execution) included(dirs ast.DirectiveList) bool {
	if d := dirs.ForName("skip"); d != nil {
		if v, _ := d.ArgumentMap(x.vars)["if"].(bool); v {
			return false
		}
	}
	if d := dirs.ForName("include"); d != nil {
		if v, _ := d.ArgumentMap(x.vars)["if"].(bool); !v {
			return false
		}
	}
	return true
}

// collect groups the fields of sel that apply to typeName by response
// key, in order (GraphQL spec, CollectFields).
func (x *execution) collect(typeName string, sel ast.SelectionSet, keys *[]string, groups map[string][]*ast.Field, visited map[string]bool) {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if !x.included(s.Directives) {
				continue
			}
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			if _, ok := groups[key]; !ok {
				*keys = append(*keys, key)
			}
			groups[key] = append(groups[key], s)
		case *ast.InlineFragment:
			if !x.included(s.Directives) || (s.TypeCondition != "" && s.TypeCondition != typeName) {
				continue
			}
			x.collect(typeName, s.SelectionSet, keys, groups, visited)
		case *ast.FragmentSpread:
			if !x.included(s.Directives) || visited[s.Name] || s.Definition == nil {
				continue
			}
			visited[s.Name] = true
			if s.Definition.TypeCondition != typeName {
				continue
			}
			x.collect(typeName, s.Definition.SelectionSet, keys, groups, visited)
		}
	}
}

// selectionSet executes sel on obj of type typeName. ok is false when a
// non-null field was null, which makes the whole object null.
func (x *execution) selectionSet(ctx context.Context, obj object, typeName string, sel ast.SelectionSet, path ast.Path) (*OrderedMap, bool) {
	var keys []string
	groups := map[string][]*ast.Field{}
	x.collect(typeName, sel, &keys, groups, map[string]bool{})
	out := newOrderedMap(len(keys))
	for _, key := range keys {
		fields := groups[key]
		f := fields[0]
		fpath := append(append(ast.Path(nil), path...), ast.PathName(key))
		if f.Name == "__typename" {
			out.set(key, typeName)
			continue
		}
		var sub ast.SelectionSet
		for _, g := range fields {
			sub = append(sub, g.SelectionSet...)
		}
		var v any
		var err error
		if cerr := ctx.Err(); cerr != nil {
			err = fmt.Errorf("%w: %w", ErrSource, cerr)
		} else {
			v, err = obj.field(ctx, x, f, f.ArgumentMap(x.vars))
		}
		if err != nil {
			x.addError(fpath, f, err)
			v = nil
		}
		c, ok := x.complete(ctx, f, f.Definition.Type, v, sub, fpath, err != nil)
		if !ok {
			return nil, false
		}
		out.set(key, c)
	}
	return out, true
}

// complete shapes v according to type t (GraphQL spec, CompleteValue).
func (x *execution) complete(ctx context.Context, f *ast.Field, t *ast.Type, v any, sel ast.SelectionSet, path ast.Path, reported bool) (any, bool) {
	if v == nil {
		if t.NonNull {
			if !reported {
				x.addError(path, f, fmt.Errorf("non-null field %s returned null", f.Name))
			}
			return nil, false
		}
		return nil, true
	}
	if t.Elem != nil {
		items, _ := v.([]any)
		out := make([]any, len(items))
		for i, it := range items {
			c, ok := x.complete(ctx, f, t.Elem, it, sel, append(append(ast.Path(nil), path...), ast.PathIndex(i)), false)
			if !ok {
				if t.NonNull {
					return nil, false
				}
				return nil, true
			}
			out[i] = c
		}
		return out, true
	}
	def := x.e.schema.Types[t.NamedType]
	if def == nil || def.Kind != ast.Object {
		return v, true // scalars and enums are returned in their JSON form
	}
	obj, isObj := v.(object)
	if !isObj {
		x.addError(path, f, fmt.Errorf("internal: %s is not an object", t.NamedType))
		return nil, !t.NonNull
	}
	m, ok := x.selectionSet(ctx, obj, def.Name, sel, path)
	if !ok {
		return nil, !t.NonNull
	}
	return m, true
}
