package shapes

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
)

// The constraint components of SHACL Core (SHACL section 4). Each returns
// the evalFunc that checks one parameter value.

func classConstraint(cls quad.Value) evalFunc {
	return func(v *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			if isLiteral(x) || !v.isInstance(x, cls) {
				emit(x, nil, fmt.Sprintf("value is not an instance of %s", termString(cls)))
			}
		}
	}
}

func datatypeConstraint(dt quad.IRI) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			lex, got, _, ok := literalParts(x)
			if !ok || got != dt || !wellFormed(lex, dt) {
				emit(x, nil, fmt.Sprintf("value is not a well-formed literal of datatype %s", termString(dt)))
			}
		}
	}
}

func validNodeKind(k quad.IRI) bool {
	switch k {
	case shIRI, shBlankNode, shLiteral, shBlankNodeOrIRI, shBlankNodeOrLiteral, shIRIOrLiteral:
		return true
	}
	return false
}

func nodeKindConstraint(k quad.IRI) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			_, isIRI := x.(quad.IRI)
			_, isBlank := x.(quad.BNode)
			isLit := isLiteral(x)
			var ok bool
			switch k {
			case shIRI:
				ok = isIRI
			case shBlankNode:
				ok = isBlank
			case shLiteral:
				ok = isLit
			case shBlankNodeOrIRI:
				ok = isBlank || isIRI
			case shBlankNodeOrLiteral:
				ok = isBlank || isLit
			case shIRIOrLiteral:
				ok = isIRI || isLit
			}
			if !ok {
				emit(x, nil, fmt.Sprintf("value is not of node kind %s", termString(k)))
			}
		}
	}
}

func minCountConstraint(n int) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		if len(values) < n {
			emit(nil, nil, fmt.Sprintf("%d values, at least %d required", len(values), n))
		}
	}
}

func maxCountConstraint(n int) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		if len(values) > n {
			emit(nil, nil, fmt.Sprintf("%d values, at most %d allowed", len(values), n))
		}
	}
}

// rangeConstraint checks value op bound; ok tells from compare(value, bound)
// whether the value is in range. Incomparable values violate.
func rangeConstraint(bound quad.Value, ok func(int) bool, op string) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			if c, comparable := compare(x, bound); !comparable || !ok(c) {
				emit(x, nil, fmt.Sprintf("value is not %s %s", op, termString(bound)))
			}
		}
	}
}

// lexicalString is SPARQL str(): the IRI or the lexical form.
func lexicalString(x quad.Value) (string, bool) {
	if iri, ok := x.(quad.IRI); ok {
		return string(iri), true
	}
	lex, _, _, ok := literalParts(x)
	return lex, ok
}

func lengthConstraint(n int, isMin bool) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			s, ok := lexicalString(x)
			l := utf8.RuneCountInString(s)
			switch {
			case !ok:
				emit(x, nil, "a blank node has no string length")
			case isMin && l < n:
				emit(x, nil, fmt.Sprintf("length %d is less than %d", l, n))
			case !isMin && l > n:
				emit(x, nil, fmt.Sprintf("length %d is more than %d", l, n))
			}
		}
	}
}

func patternConstraint(re *regexp.Regexp) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			if s, ok := lexicalString(x); !ok || !re.MatchString(s) {
				emit(x, nil, fmt.Sprintf("value does not match pattern %q", re.String()))
			}
		}
	}
}

// langMatches is SPARQL langMatches: basic filtering of RFC 4647.
func langMatches(tag, rng string) bool {
	tag, rng = strings.ToLower(tag), strings.ToLower(rng)
	if rng == "*" {
		return tag != ""
	}
	return tag == rng || strings.HasPrefix(tag, rng+"-")
}

func languageInConstraint(langs []string) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			_, _, lang, ok := literalParts(x)
			match := false
			for _, l := range langs {
				if ok && lang != "" && langMatches(lang, l) {
					match = true
					break
				}
			}
			if !match {
				emit(x, nil, fmt.Sprintf("language tag is not one of %v", langs))
			}
		}
	}
}

func uniqueLangConstraint() evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		count := make(map[string]int)
		var order []string
		for _, x := range values {
			if _, _, lang, ok := literalParts(x); ok && lang != "" {
				l := strings.ToLower(lang)
				if count[l] == 0 {
					order = append(order, l)
				}
				count[l]++
			}
		}
		for _, l := range order {
			if count[l] > 1 {
				emit(nil, nil, fmt.Sprintf("language %q used by %d values", l, count[l]))
			}
		}
	}
}

func contains(vs []quad.Value, x quad.Value) bool {
	for _, v := range vs {
		if v == x {
			return true
		}
	}
	return false
}

func equalsConstraint(p quad.IRI) evalFunc {
	return func(v *validator, _ *shape, focus quad.Value, values []quad.Value, emit emitFunc) {
		others := v.data.objects(focus, p)
		for _, x := range values {
			if !contains(others, x) {
				emit(x, nil, fmt.Sprintf("value is not a value of %s", termString(p)))
			}
		}
		for _, o := range others {
			if !contains(values, o) {
				emit(o, nil, fmt.Sprintf("value of %s is missing", termString(p)))
			}
		}
	}
}

func disjointConstraint(p quad.IRI) evalFunc {
	return func(v *validator, _ *shape, focus quad.Value, values []quad.Value, emit emitFunc) {
		others := v.data.objects(focus, p)
		for _, x := range values {
			if contains(others, x) {
				emit(x, nil, fmt.Sprintf("value is also a value of %s", termString(p)))
			}
		}
	}
}

func lessThanConstraint(p quad.IRI, orEqual bool) evalFunc {
	op := "<"
	if orEqual {
		op = "<="
	}
	return func(v *validator, _ *shape, focus quad.Value, values []quad.Value, emit emitFunc) {
		others := v.data.objects(focus, p)
		for _, x := range values {
			for _, o := range others {
				c, ok := compare(x, o)
				if !ok || c > 0 || (c == 0 && !orEqual) {
					emit(x, nil, fmt.Sprintf("value is not %s %s of %s", op, termString(o), termString(p)))
				}
			}
		}
	}
}

func notConstraint(sub *shape) evalFunc {
	return func(v *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			if v.conforms(sub, x) {
				emit(x, nil, fmt.Sprintf("value conforms to %s", termString(sub.id)))
			}
		}
	}
}

func logicalConstraint(subs []*shape, ok func(n, total int) bool, name string) evalFunc {
	return func(v *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			n := 0
			var details []Result
			for _, s := range subs {
				if ok, d := v.check(s, x); ok {
					n++
				} else {
					details = append(details, d...)
				}
			}
			if !ok(n, len(subs)) {
				if name == "Xone" && n > 1 {
					details = nil // too many conforming shapes: no failure to show
				}
				emit(x, nil, fmt.Sprintf("value conforms to %d of %d shapes (sh:%s)", n, len(subs), strings.ToLower(name)), details...)
			}
		}
	}
}

func nodeConstraint(sub *shape) evalFunc {
	return func(v *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			if ok, details := v.check(sub, x); !ok {
				emit(x, nil, fmt.Sprintf("value does not conform to %s", termString(sub.id)), details...)
			}
		}
	}
}

// propertyConstraint validates each value node against a property shape
// and passes its results on unchanged (sh:property produces no result of its
// own, SHACL 4.8.2).
func propertyConstraint(sub *shape) evalFunc {
	return func(v *validator, _ *shape, _ quad.Value, values []quad.Value, _ emitFunc) {
		for _, x := range values {
			v.validate(sub, x, v.sink)
		}
	}
}

func qualifiedConstraint(q *shape, siblings []*shape, n int, isMin bool) evalFunc {
	return func(v *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		count := 0
		for _, x := range values {
			if !v.conforms(q, x) {
				continue
			}
			inSibling := false
			for _, s := range siblings {
				if v.conforms(s, x) {
					inSibling = true
					break
				}
			}
			if !inSibling {
				count++
			}
		}
		switch {
		case isMin && count < n:
			emit(nil, nil, fmt.Sprintf("%d values conform to %s, at least %d required", count, termString(q.id), n))
		case !isMin && count > n:
			emit(nil, nil, fmt.Sprintf("%d values conform to %s, at most %d allowed", count, termString(q.id), n))
		}
	}
}

func closedConstraint(allowed map[quad.Value]bool) evalFunc {
	return func(v *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			props := v.data.sp[x]
			// Deterministic order: predicates sorted by their text.
			preds := make([]quad.Value, 0, len(props))
			for p := range props {
				if !allowed[p] {
					preds = append(preds, p)
				}
			}
			sortValues(preds)
			for _, p := range preds {
				iri, _ := p.(quad.IRI)
				for _, o := range props[p] {
					emit(o, &Path{kind: pathPredicate, iri: iri}, fmt.Sprintf("predicate %s is not allowed (closed shape)", termString(p)))
				}
			}
		}
	}
}

func hasValueConstraint(want quad.Value) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		if !contains(values, want) {
			emit(nil, nil, fmt.Sprintf("missing value %s", termString(want)))
		}
	}
}

func inConstraint(items []quad.Value) evalFunc {
	return func(_ *validator, _ *shape, _ quad.Value, values []quad.Value, emit emitFunc) {
		for _, x := range values {
			if !contains(items, norm(x)) {
				emit(x, nil, "value is not in the allowed list")
			}
		}
	}
}
