package rdfio

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
)

// normalize maps a value to one of the four RDF term types this package
// writes: quad.IRI, quad.BNode, quad.String, quad.LangString or
// quad.TypedString. Native cayley values (quad.Int, Float, Bool, Time),
// which molgraph never builds but foreign data may hold, become typed
// literals with XSD datatypes; "x"^^xsd:string becomes quad.String.
func normalize(v quad.Value) (quad.Value, error) {
	switch t := v.(type) {
	case quad.IRI, quad.BNode, quad.String, quad.LangString:
		return v, nil
	case quad.TypedString:
		if t.Type == xsdString {
			return t.Value, nil
		}
		return v, nil
	case quad.Int:
		return quad.TypedString{Value: quad.String(strconv.FormatInt(int64(t), 10)), Type: xsdInteger}, nil
	case quad.Float:
		f := float64(t)
		var s string
		switch {
		case math.IsInf(f, 1):
			s = "INF"
		case math.IsInf(f, -1):
			s = "-INF"
		case math.IsNaN(f):
			s = "NaN"
		default:
			s = strconv.FormatFloat(f, 'E', -1, 64)
		}
		return quad.TypedString{Value: quad.String(s), Type: xsdDouble}, nil
	case quad.Bool:
		return quad.TypedString{Value: quad.String(strconv.FormatBool(bool(t))), Type: xsdBoolean}, nil
	case quad.Time:
		return quad.TypedString{Value: quad.String(time.Time(t).Format(time.RFC3339Nano)),
			Type: xsdNS + "dateTime"}, nil
	case nil:
		return nil, fmt.Errorf("%w: missing term", ErrInvalidTerm)
	}
	return nil, fmt.Errorf("%w: unsupported value type %T", ErrInvalidTerm, v)
}

// checkIRI reports whether iri can be written inside <...> without
// escapes: valid UTF-8, and none of the characters IRIREF excludes.
func checkIRI(iri string) error {
	for i := 0; i < len(iri); {
		c := iri[i]
		if c < utf8.RuneSelf {
			if !iriCharOK(rune(c)) {
				return fmt.Errorf("%w: IRI %q holds character %q", ErrInvalidTerm, iri, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(iri[i:])
		if r == utf8.RuneError && n == 1 {
			return fmt.Errorf("%w: IRI %q is not valid UTF-8", ErrInvalidTerm, iri)
		}
		i += n
	}
	return nil
}

// checkLang reports whether tag matches LANGTAG ([a-zA-Z]+ ('-' [a-zA-Z0-9]+)*).
func checkLang(tag string) error {
	ok := tag != ""
	sub, first := 0, true
	for i := 0; ok && i < len(tag); i++ {
		c := int(tag[i])
		switch {
		case c == '-':
			ok = sub > 0
			sub, first = 0, false
		case isAlpha(c) || (!first && isDigit(c)):
			sub++
		default:
			ok = false
		}
	}
	if !ok || sub == 0 {
		return fmt.Errorf("%w: language tag %q", ErrInvalidTerm, tag)
	}
	return nil
}

// validBlankLabel reports whether l is a valid BLANK_NODE_LABEL body.
func validBlankLabel(l string) bool {
	if l == "" || !utf8.ValidString(l) {
		return false
	}
	for i, r := range l {
		switch {
		case i == 0:
			if !(isPNCharsU(r) || (r >= '0' && r <= '9')) {
				return false
			}
		case r == '.':
			if i == len(l)-1 {
				return false
			}
		case !isPNChars(r):
			return false
		}
	}
	return true
}

// appendBlank writes _:label; labels that are not valid BLANK_NODE_LABELs
// are written as "x" followed by the hex of their bytes (a deterministic,
// injective mapping apart from valid labels of that same shape).
func appendBlank(b []byte, l string) []byte {
	b = append(b, '_', ':')
	if validBlankLabel(l) {
		return append(b, l...)
	}
	b = append(b, "x_"...)
	const hexd = "0123456789abcdef"
	for i := 0; i < len(l); i++ {
		b = append(b, hexd[l[i]>>4], hexd[l[i]&15])
	}
	return b
}

// appendNTString writes s as an N-Triples string body in canonical form:
// only '"', '\', LF and CR are escaped, with ECHAR (RDF 1.1 N-Triples, 4).
func appendNTString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '\r':
			esc = `\r`
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendNTTerm writes v in canonical N-Triples form. It validates IRIs,
// language tags and UTF-8, returning errors wrapping ErrInvalidTerm.
func appendNTTerm(b []byte, v quad.Value) ([]byte, error) {
	v, err := normalize(v)
	if err != nil {
		return b, err
	}
	switch t := v.(type) {
	case quad.IRI:
		if err := checkIRI(string(t)); err != nil {
			return b, err
		}
		b = append(b, '<')
		b = append(b, t...)
		return append(b, '>'), nil
	case quad.BNode:
		return appendBlank(b, string(t)), nil
	case quad.String:
		if !utf8.ValidString(string(t)) {
			return b, fmt.Errorf("%w: literal is not valid UTF-8", ErrInvalidTerm)
		}
		return appendNTString(b, string(t)), nil
	case quad.LangString:
		if !utf8.ValidString(string(t.Value)) {
			return b, fmt.Errorf("%w: literal is not valid UTF-8", ErrInvalidTerm)
		}
		if err := checkLang(t.Lang); err != nil {
			return b, err
		}
		b = appendNTString(b, string(t.Value))
		b = append(b, '@')
		return append(b, t.Lang...), nil
	case quad.TypedString:
		if !utf8.ValidString(string(t.Value)) {
			return b, fmt.Errorf("%w: literal is not valid UTF-8", ErrInvalidTerm)
		}
		if err := checkIRI(string(t.Type)); err != nil {
			return b, err
		}
		b = appendNTString(b, string(t.Value))
		b = append(b, '^', '^', '<')
		b = append(b, t.Type...)
		return append(b, '>'), nil
	}
	return b, fmt.Errorf("%w: unsupported value type %T", ErrInvalidTerm, v)
}

// termKey is a canonical text key of a term for comparisons: N-Triples
// form without validation, with language tags in lower case (RDF 1.1
// compares them case-insensitively).
func termKey(v quad.Value) string {
	if v == nil {
		return ""
	}
	n, err := normalize(v)
	if err != nil {
		return fmt.Sprintf("?%T:%v", v, v)
	}
	switch t := n.(type) {
	case quad.IRI:
		return "<" + string(t) + ">"
	case quad.BNode:
		return "_:" + string(t)
	case quad.String:
		return string(appendNTString(nil, string(t)))
	case quad.LangString:
		return string(appendNTString(nil, string(t.Value))) + "@" + toLowerASCII(t.Lang)
	case quad.TypedString:
		return string(appendNTString(nil, string(t.Value))) + "^^<" + string(t.Type) + ">"
	}
	return fmt.Sprintf("?%T:%v", v, v)
}

func toLowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
