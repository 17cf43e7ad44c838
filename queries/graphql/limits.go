package graphql

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Limits, in the order they are checked:
//
//  1. MaxTokens, while parsing (gqlparser's token limit; its own nesting
//     limit, parser.MaxNestingDepth, also applies).
//  2. MaxSelections, MaxFieldsPerName and MaxFragmentSpreads, on the
//     parsed document BEFORE validation. gqlparser's
//     OverlappingFieldsCanBeMerged compares every pair of fields that land
//     on the same response path, and every pair of fragments spread into
//     one selection, so a document of 20,000 copies of one field cost
//     17.8 s of CPU in validation alone (700 fragments spread into one
//     selection: 0.23 s);
//     both counts are taken with fragment spreads expanded, which also
//     bounds the work of every later pass that expands them (cost,
//     execution).
//  3. MaxDepth and MaxCost, after validation (they need the schema's field
//     definitions). Introspection fields are charged exactly: the schema is
//     in memory, so the fields an introspection selection would produce are
//     counted (stopping past the budget) instead of estimated.

// parseBounded parses query with the token limit and checks the selection
// limits; it returns the document only when it may be validated.
func (e *Executor) parseBounded(query string) (*ast.QueryDocument, *gqlerror.Error) {
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, e.opts.MaxTokens)
	if err != nil {
		var ge *gqlerror.Error
		if !errors.As(err, &ge) {
			ge = gqlerror.Wrap(err)
		}
		// gqlparser reports the token limit as a plain syntax error;
		// recognise it by its text to name the limit for the client.
		if strings.Contains(ge.Message, "exceeded token limit") {
			return nil, tooComplex(ge, "QUERY_TOO_MANY_TOKENS", fmt.Sprintf("the query has more than %d tokens (the limit)", e.opts.MaxTokens),
				map[string]any{"maxTokens": e.opts.MaxTokens})
		}
		if ge.Err == nil {
			ge.Err = ErrInvalidQuery
		}
		return nil, ge
	}
	if ge := e.checkSelections(doc); ge != nil {
		return nil, ge
	}
	return doc, nil
}

// suggestBytes is the longest query whose validation errors suggest names
// ("Did you mean ...?"). A suggestion costs an edit distance between the
// unknown name and every candidate, and a 1 MiB body of 1,000 unknown
// 1,000-character arguments took 3.4 s of CPU in validation; a query of a
// few KiB, as people write them, keeps its hints.
const suggestBytes = 4 << 10

// maxErrors bounds the validation errors returned (the rest are counted in
// a last error).
const maxErrors = 100

// validationRules returns gqlparser's default rules, or the same rules with
// the variants that suggest no names.
func validationRules(suggest bool) *rules.Rules {
	r := rules.NewDefaultRules()
	if !suggest {
		for _, rule := range []validator.Rule{rules.FieldsOnCorrectTypeRuleWithoutSuggestions, rules.KnownArgumentNamesRuleWithoutSuggestions,
			rules.KnownTypeNamesRuleWithoutSuggestions, rules.ScalarLeafsRuleWithoutSuggestions, rules.ValuesOfCorrectTypeRuleWithoutSuggestions} {
			r.ReplaceRule(strings.TrimSuffix(rule.Name, "WithoutSuggestions"), rule.RuleFunc)
		}
	}
	return r
}

// validate runs gqlparser's validation rules on a document that passed
// checkSelections; the query's length chooses whether errors suggest names.
func (e *Executor) validate(doc *ast.QueryDocument, queryLen int) gqlerror.List {
	r := e.rules
	if queryLen > suggestBytes {
		r = e.rulesTerse
	}
	errs := validator.ValidateWithRules(e.schema, doc, r)
	if len(errs) > maxErrors {
		more := len(errs) - maxErrors
		errs = append(errs[:maxErrors:maxErrors], gqlerror.Errorf("%d more validation errors", more))
	}
	return errs
}

func tooComplex(ge *gqlerror.Error, code, msg string, ext map[string]any) *gqlerror.Error {
	if ge == nil {
		ge = &gqlerror.Error{}
	}
	ge.Err = ErrTooComplex
	ge.Message = msg
	if ge.Extensions == nil {
		ge.Extensions = map[string]any{}
	}
	ge.Extensions["code"] = code
	for k, v := range ext {
		ge.Extensions[k] = v
	}
	return ge
}

// shapeCheck walks a parsed, unvalidated document the way CollectFields
// merges it: with fragment spreads expanded and the fields of one response
// path taken together. It stops as soon as a limit is passed.
type shapeCheck struct {
	frags      map[string]*ast.FragmentDefinition
	active     map[string]bool // fragments being expanded (a cycle is cut; validation reports it)
	used       map[string]bool // fragments expanded at least once
	selections int
	maxSel     int
	maxPerName int
	maxSpreads int
	err        *gqlerror.Error
}

// checkSelections enforces MaxSelections, MaxFieldsPerName and
// MaxFragmentSpreads.
func (e *Executor) checkSelections(doc *ast.QueryDocument) *gqlerror.Error {
	c := &shapeCheck{frags: map[string]*ast.FragmentDefinition{}, active: map[string]bool{}, used: map[string]bool{},
		maxSel: e.opts.MaxSelections, maxPerName: e.opts.MaxFieldsPerName, maxSpreads: e.opts.MaxFragmentSpreads}
	for _, f := range doc.Fragments {
		if _, dup := c.frags[f.Name]; !dup { // duplicates are a validation error
			c.frags[f.Name] = f
		}
	}
	for _, op := range doc.Operations {
		c.level([]ast.SelectionSet{op.SelectionSet})
	}
	// Fragments are counted where they are spread; an unused one (a
	// validation error) is still counted once, so it cannot be huge.
	for _, f := range doc.Fragments {
		if c.used[f.Name] {
			continue
		}
		c.active[f.Name] = true
		c.level([]ast.SelectionSet{f.SelectionSet})
		delete(c.active, f.Name)
	}
	return c.err
}

// level counts the fields of one response path: the union of sets (the
// selection sets of every field merged into this path), fragments
// expanded. It then descends into each response key.
func (c *shapeCheck) level(sets []ast.SelectionSet) {
	var keys []string
	groups := map[string][]ast.SelectionSet{}
	counts := map[string]int{}
	spread := map[string]bool{}
	var gather func(sel ast.SelectionSet)
	gather = func(sel ast.SelectionSet) {
		for _, s := range sel {
			if c.err != nil {
				return
			}
			c.selections++
			if c.selections > c.maxSel {
				c.err = tooComplex(nil, "QUERY_TOO_MANY_SELECTIONS",
					fmt.Sprintf("the query has more than %d selections, counting fragments where they are spread (the limit)", c.maxSel),
					map[string]any{"maxSelections": c.maxSel})
				return
			}
			switch s := s.(type) {
			case *ast.Field:
				key := s.Alias
				if key == "" {
					key = s.Name
				}
				if counts[key] == 0 {
					keys = append(keys, key)
				}
				counts[key]++
				if counts[key] > c.maxPerName {
					ge := &gqlerror.Error{}
					if s.Position != nil {
						ge.Locations = []gqlerror.Location{{Line: s.Position.Line, Column: s.Position.Column}}
					}
					c.err = tooComplex(ge, "QUERY_FIELD_REPEATED",
						fmt.Sprintf("more than %d fields answer under the response name %q in one selection (the limit)", c.maxPerName, key),
						map[string]any{"maxFieldsPerName": c.maxPerName, "responseName": key})
					return
				}
				if len(s.SelectionSet) > 0 {
					groups[key] = append(groups[key], s.SelectionSet)
				}
			case *ast.InlineFragment:
				gather(s.SelectionSet)
			case *ast.FragmentSpread:
				f := c.frags[s.Name]
				if f == nil || c.active[s.Name] {
					continue
				}
				if !spread[s.Name] {
					spread[s.Name] = true
					if len(spread) > c.maxSpreads {
						c.err = tooComplex(nil, "QUERY_TOO_MANY_FRAGMENTS",
							fmt.Sprintf("more than %d distinct fragments are spread into one selection (the limit)", c.maxSpreads),
							map[string]any{"maxFragmentSpreads": c.maxSpreads})
						return
					}
				}
				c.active[s.Name], c.used[s.Name] = true, true
				gather(f.SelectionSet)
				delete(c.active, s.Name)
			}
		}
	}
	for _, sel := range sets {
		gather(sel)
	}
	for _, k := range keys {
		if c.err != nil {
			return
		}
		if len(groups[k]) > 0 {
			c.level(groups[k])
		}
	}
}

// checkLimits computes the depth and the cost of op (after validation).
func (x *execution) checkLimits(op *ast.OperationDefinition) *gqlerror.Error {
	m := measurer{x: x, budget: int64(x.e.opts.MaxCost), visited: map[string]bool{}}
	depth, cost := m.measure(op.SelectionSet)
	atLeast := ""
	if m.stopped {
		atLeast = "at least "
	}
	if depth > x.e.opts.MaxDepth {
		return tooComplex(nil, "QUERY_TOO_DEEP", fmt.Sprintf("query depth %d exceeds the limit of %d", depth, x.e.opts.MaxDepth),
			map[string]any{"depth": depth, "maxDepth": x.e.opts.MaxDepth})
	}
	if cost > int64(x.e.opts.MaxCost) {
		return tooComplex(nil, "QUERY_TOO_COMPLEX", fmt.Sprintf("query cost %s%d exceeds the limit of %d (every field costs 1, a structure search (similarTo, substructure) %d more; fields under a list count once per requested element, at least once; introspection is counted exactly)", atLeast, cost, x.e.opts.MaxCost, SearchCost),
			map[string]any{"cost": cost, "maxCost": x.e.opts.MaxCost})
	}
	return nil
}

// measurer computes depth and cost; budget is MaxCost (counting stops a
// little past it, so the cost reported for a refused query is a lower
// bound).
type measurer struct {
	x       *execution
	budget  int64
	visited map[string]bool
	stopped bool // an introspection count stopped past the budget
}

// measure returns the depth and cost of a selection set. Fragments are
// expanded where they are spread (bounded by MaxSelections, which counted
// them the same way).
func (m *measurer) measure(sel ast.SelectionSet) (depth int, cost int64) {
	for _, s := range sel {
		var d int
		var c int64
		switch s := s.(type) {
		case *ast.Field:
			switch {
			case s.Name == "__schema" || s.Name == "__type":
				// Free of depth (introspection nests by design), charged
				// exactly.
				left := m.budget - cost
				c = 1 + m.x.countIntrospection(s, left)
				if c > left {
					m.stopped = true
				}
			case strings.HasPrefix(s.Name, "__"):
				c = 1 // __typename
			default:
				sd, sc := m.measure(s.SelectionSet)
				d = sd + 1
				c = 1 + m.x.pageSize(s)*sc
				if isSearch(s) {
					c += SearchCost
				}
			}
		case *ast.InlineFragment:
			d, c = m.measure(s.SelectionSet)
		case *ast.FragmentSpread:
			if s.Definition == nil || m.visited[s.Name] {
				continue
			}
			m.visited[s.Name] = true
			d, c = m.measure(s.Definition.SelectionSet)
			delete(m.visited, s.Name)
		}
		depth = max(depth, d)
		cost += c
		if cost > 1<<40 {
			cost = 1 << 40
		}
	}
	return depth, cost
}

// SearchCost is what a structure search (a list field with a similarTo or
// substructure argument) costs on top of its fields: the fields of a page
// are cheap reads, a search may scan the whole index. With DefaultMaxCost a
// query holds up to about 19 searches (each with a default page of ids);
// hundreds of aliased searches are refused before any runs.
const SearchCost = 500

// isSearch tells a structure-search field by its arguments (given, even as
// null or a variable: the charge is an upper bound).
func isSearch(f *ast.Field) bool {
	for _, a := range f.Arguments {
		if a.Name == "similarTo" || a.Name == "substructure" {
			return true
		}
	}
	return false
}

// pageSize is how many times a field's selection is charged: first (default
// DefaultPageSize) for a connection, at least 1 so that first: 0 still pays
// for the selection once; 1 for other fields.
func (x *execution) pageSize(f *ast.Field) int64 {
	if f.Definition == nil || !strings.HasSuffix(f.Definition.Type.NamedType, "Connection") {
		return 1
	}
	n, ok := argNumber(f.ArgumentMap(x.vars)["first"])
	switch {
	case !ok:
		return DefaultPageSize
	case n < 1:
		return 1
	case n > 1<<20:
		return 1 << 20 // out of range anyway (MaxPageSize); avoids overflow
	}
	return int64(n)
}

// countIntrospection counts the response fields and list elements that
// the introspection field f (__schema or __type) would produce, walking
// the schema the executor would walk; it stops once the count passes
// budget. Every field selected is charged, @skip or not (an upper bound
// that makes the walk's work proportional to the count).
func (x *execution) countIntrospection(f *ast.Field, budget int64) int64 {
	ctx := context.Background() // introspection objects do not read the graph
	v, err := rootObject{}.field(ctx, x, f, f.ArgumentMap(x.vars))
	if err != nil || f.Definition == nil {
		return 0
	}
	return x.countValue(ctx, f.Definition.Type, v, f.SelectionSet, budget)
}

func (x *execution) countValue(ctx context.Context, t *ast.Type, v any, sel ast.SelectionSet, budget int64) int64 {
	if v == nil || budget < 0 {
		return 0
	}
	if t.Elem != nil {
		items, _ := v.([]any)
		var n int64
		for _, it := range items {
			n++ // the element itself
			n += x.countValue(ctx, t.Elem, it, sel, budget-n)
			if n > budget {
				return n
			}
		}
		return n
	}
	obj, ok := v.(object)
	if !ok || len(sel) == 0 {
		return 0
	}
	var n int64
	var walk func(sel ast.SelectionSet, visited map[string]bool) bool
	walk = func(sel ast.SelectionSet, visited map[string]bool) bool {
		for _, s := range sel {
			switch s := s.(type) {
			case *ast.Field:
				n++
				if n > budget {
					return false
				}
				if len(s.SelectionSet) == 0 || s.Definition == nil {
					continue
				}
				fv, err := obj.field(ctx, x, s, s.ArgumentMap(x.vars))
				if err != nil {
					continue
				}
				n += x.countValue(ctx, s.Definition.Type, fv, s.SelectionSet, budget-n)
				if n > budget {
					return false
				}
			case *ast.InlineFragment:
				if !walk(s.SelectionSet, visited) {
					return false
				}
			case *ast.FragmentSpread:
				if s.Definition == nil || visited[s.Name] {
					continue
				}
				visited[s.Name] = true
				if !walk(s.Definition.SelectionSet, visited) {
					return false
				}
			}
		}
		return true
	}
	walk(sel, map[string]bool{})
	return n
}
