package sparql

import "strings"

// resolveIRI resolves reference ref against base per RFC 3986 section 5.2.
// It works on strings so that IRIs with non-ASCII characters stay as they
// are (net/url would percent-encode them).
func resolveIRI(base, ref string) string {
	if base == "" || hasScheme(ref) {
		return ref
	}
	bs, ba, bp, bq, _ := splitIRI(base)
	_, ra, rp, rq, rf := splitIRI(ref)
	var ta, tp, tq string
	switch {
	case ra != nil:
		ta, tp, tq = *ra, removeDots(rp), deref(rq)
	case rp == "":
		ta, tp = deref(ba), bp
		if rq != nil {
			tq = *rq
		} else {
			tq = deref(bq)
		}
	default:
		ta = deref(ba)
		if strings.HasPrefix(rp, "/") {
			tp = removeDots(rp)
		} else {
			tp = removeDots(merge(ba != nil, bp, rp))
		}
		tq = deref(rq)
	}
	out := bs + ":"
	if ra != nil || ba != nil {
		out += "//" + ta
	}
	out += tp
	if rq != nil || (rp == "" && ra == nil && bq != nil) {
		out += "?" + tq
	}
	if rf != nil {
		out += "#" + *rf
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return true
		default:
			return false
		}
	}
	return false
}

// splitIRI splits into scheme, authority, path, query and fragment; nil
// means the component is absent.
func splitIRI(s string) (scheme string, auth *string, path string, query, frag *string) {
	if hasScheme(s) {
		i := strings.IndexByte(s, ':')
		scheme, s = s[:i], s[i+1:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		f := s[i+1:]
		frag, s = &f, s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		q := s[i+1:]
		query, s = &q, s[:i]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		a := s[:i]
		auth, s = &a, s[i:]
	}
	return scheme, auth, s, query, frag
}

func merge(hasAuth bool, basePath, ref string) string {
	if hasAuth && basePath == "" {
		return "/" + ref
	}
	i := strings.LastIndexByte(basePath, '/')
	return basePath[:i+1] + ref
}

func removeDots(p string) string {
	var out []string
	in := p
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
				out = append(out, in)
				in = ""
			} else {
				out = append(out, in[:start+i])
				in = in[start+i:]
			}
		}
	}
	return strings.Join(out, "")
}
