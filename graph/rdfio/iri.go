package rdfio

import "strings"

// IRI reference resolution (RFC 3986, section 5.2). net/url is not used:
// it re-encodes non-ASCII characters and normalises percent escapes, while
// RDF needs the characters of the IRI exactly as written.

type iriParts struct {
	scheme, authority, path, query, fragment       string
	hasScheme, hasAuthority, hasQuery, hasFragment bool
}

func schemeLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
		case i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

// HasScheme reports whether iri is absolute (starts with a scheme).
func HasScheme(iri string) bool { return schemeLen(iri) > 0 }

func splitIRI(s string) iriParts {
	var p iriParts
	if n := schemeLen(s); n > 0 {
		p.scheme, p.hasScheme = s[:n], true
		s = s[n+1:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		p.fragment, p.hasFragment = s[i+1:], true
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		p.query, p.hasQuery = s[i+1:], true
		s = s[:i]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		p.authority, p.hasAuthority = s[:i], true
		s = s[i:]
	}
	p.path = s
	return p
}

func (p iriParts) String() string {
	var b strings.Builder
	if p.hasScheme {
		b.WriteString(p.scheme)
		b.WriteByte(':')
	}
	if p.hasAuthority {
		b.WriteString("//")
		b.WriteString(p.authority)
	}
	b.WriteString(p.path)
	if p.hasQuery {
		b.WriteByte('?')
		b.WriteString(p.query)
	}
	if p.hasFragment {
		b.WriteByte('#')
		b.WriteString(p.fragment)
	}
	return b.String()
}

// removeDotSegments implements RFC 3986 section 5.2.4.
func removeDotSegments(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	var out []string // output segments, each starting with "/" except maybe the first
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			start := 0
			if in[0] == '/' {
				start = 1
			}
			i := strings.IndexByte(in[start:], '/')
			if i < 0 {
				i = len(in)
			} else {
				i += start
			}
			out = append(out, in[:i])
			in = in[i:]
		}
	}
	return strings.Join(out, "")
}

// ResolveIRI resolves the reference ref against base (RFC 3986 5.2.2). An
// empty base leaves ref as it is.
func ResolveIRI(base, ref string) string {
	if base == "" {
		return ref
	}
	r := splitIRI(ref)
	if r.hasScheme {
		r.path = removeDotSegments(r.path)
		return r.String()
	}
	b := splitIRI(base)
	var t iriParts
	switch {
	case r.hasAuthority:
		t.authority, t.hasAuthority = r.authority, true
		t.path = removeDotSegments(r.path)
		t.query, t.hasQuery = r.query, r.hasQuery
	case r.path == "":
		t.authority, t.hasAuthority = b.authority, b.hasAuthority
		t.path = b.path
		if r.hasQuery {
			t.query, t.hasQuery = r.query, true
		} else {
			t.query, t.hasQuery = b.query, b.hasQuery
		}
	default:
		t.authority, t.hasAuthority = b.authority, b.hasAuthority
		if strings.HasPrefix(r.path, "/") {
			t.path = removeDotSegments(r.path)
		} else {
			var merged string
			if b.hasAuthority && b.path == "" {
				merged = "/" + r.path
			} else if i := strings.LastIndexByte(b.path, '/'); i >= 0 {
				merged = b.path[:i+1] + r.path
			} else {
				merged = r.path
			}
			t.path = removeDotSegments(merged)
		}
		t.query, t.hasQuery = r.query, r.hasQuery
	}
	t.scheme, t.hasScheme = b.scheme, b.hasScheme
	t.fragment, t.hasFragment = r.fragment, r.hasFragment
	return t.String()
}
