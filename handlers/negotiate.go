package handlers

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// A hand-written Accept parser: the usual library, munnerz/goautoneg, is
// unmaintained and sorts with a comparison that is not a strict weak
// ordering, and ignores q=0 ("not acceptable"). RFC 9110 §12.5.1 is small
// enough to follow directly.

// mediaRange is one element of an Accept header.
type mediaRange struct {
	typ, sub string
	params   map[string]string
	q        float64
}

// parseAccept parses an Accept header, skipping malformed elements.
func parseAccept(header string) []mediaRange {
	var out []mediaRange
	for _, part := range splitOutsideQuotes(header, ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mt, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		typ, sub, ok := strings.Cut(mt, "/")
		if !ok || typ == "" || sub == "" || (typ == "*" && sub != "*") {
			continue
		}
		mr := mediaRange{typ: typ, sub: sub, q: 1}
		if qs, ok := params["q"]; ok {
			q, err := strconv.ParseFloat(qs, 64)
			if err != nil || q < 0 || q > 1 {
				continue
			}
			mr.q = q
			delete(params, "q")
		}
		if len(params) > 0 {
			mr.params = params
		}
		out = append(out, mr)
	}
	return out
}

// splitOutsideQuotes splits s at sep outside double-quoted strings.
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// specificity of a range matching offer (-1: no match): exact type with
// parameters 3, exact type 2, type/* 1, */* 0.
func (mr mediaRange) specificity(offer string) int {
	mt, params, err := mime.ParseMediaType(offer)
	if err != nil {
		return -1
	}
	typ, sub, _ := strings.Cut(mt, "/")
	switch {
	case mr.typ == "*":
		return 0
	case mr.typ != typ:
		return -1
	case mr.sub == "*":
		return 1
	case mr.sub != sub:
		return -1
	}
	for k, v := range mr.params {
		if !strings.EqualFold(params[k], v) {
			return -1
		}
	}
	if len(mr.params) > 0 {
		return 3
	}
	return 2
}

// negotiate picks from offers (the server's media types, most preferred
// first) the one the Accept header rates highest. Each offer takes the q of
// the most specific range that matches it; q=0 excludes it; ties go to the
// earlier offer. An empty header accepts the first offer.
func negotiate(accept string, offers []string) (string, bool) {
	if len(offers) == 0 {
		return "", false
	}
	if strings.TrimSpace(accept) == "" {
		return offers[0], true
	}
	ranges := parseAccept(accept)
	best, bestQ := "", 0.0
	for _, offer := range offers {
		spec, q := -1, 0.0
		for _, mr := range ranges {
			if s := mr.specificity(offer); s > spec {
				spec, q = s, mr.q
			}
		}
		if spec >= 0 && q > bestQ {
			best, bestQ = offer, q
		}
	}
	return best, best != ""
}

// format is one representation a route can produce, chosen by ?format=
// (name or alias, case-insensitive) or by the Accept header (media type).
type format struct {
	name      string
	aliases   []string
	mediaType string
}

// pickFormat chooses among formats (preferred first): ?format= wins, else
// Accept. An unknown ?format= is 400 naming the allowed values; an Accept
// header that none matches is 406.
func pickFormat(r *http.Request, formats []format) (format, error) {
	if v := r.URL.Query().Get("format"); v != "" {
		var names []string
		for _, f := range formats {
			if strings.EqualFold(v, f.name) {
				return f, nil
			}
			for _, a := range f.aliases {
				if strings.EqualFold(v, a) {
					return f, nil
				}
			}
			names = append(names, f.name)
		}
		return format{}, badRequest("format", "unknown format %q; allowed: %s", v, strings.Join(names, ", "))
	}
	offers := make([]string, len(formats))
	for i, f := range formats {
		offers[i] = f.mediaType
	}
	mt, ok := negotiate(r.Header.Get("Accept"), offers)
	if !ok {
		return format{}, fmt.Errorf("%w: none of %s matches Accept %q", ErrNotAcceptable, strings.Join(offers, ", "), r.Header.Get("Accept"))
	}
	for _, f := range formats {
		if f.mediaType == mt {
			return f, nil
		}
	}
	return format{}, fmt.Errorf("%w: no format", ErrNotAcceptable)
}
