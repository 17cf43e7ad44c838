package rdfio

import (
	"fmt"
	"mime"
	"sort"
	"strconv"
	"strings"
)

// Format is an RDF serialization.
type Format int

// The formats this package reads and writes.
const (
	Turtle   Format = iota + 1 // text/turtle
	JSONLD                     // application/ld+json
	NTriples                   // application/n-triples
	NQuads                     // application/n-quads
)

// Formats lists every format in the order of preference used when an
// Accept header gives no preference: Turtle, JSON-LD, N-Triples, N-Quads.
func Formats() []Format { return []Format{Turtle, JSONLD, NTriples, NQuads} }

// String returns the canonical name of f as spec/API.md spells it
// ("turtle", "jsonld", "ntriples", "nquads").
func (f Format) String() string {
	switch f {
	case Turtle:
		return "turtle"
	case JSONLD:
		return "jsonld"
	case NTriples:
		return "ntriples"
	case NQuads:
		return "nquads"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// MediaType returns the media type of f, with "; charset=utf-8" for the
// text formats that do not fix their charset.
func (f Format) MediaType() string {
	switch f {
	case Turtle:
		return "text/turtle; charset=utf-8"
	case JSONLD:
		return "application/ld+json"
	case NTriples:
		return "application/n-triples"
	case NQuads:
		return "application/n-quads"
	}
	return "application/octet-stream"
}

// Extension returns the usual file extension of f, with the dot.
func (f Format) Extension() string {
	switch f {
	case Turtle:
		return ".ttl"
	case JSONLD:
		return ".jsonld"
	case NTriples:
		return ".nt"
	case NQuads:
		return ".nq"
	}
	return ""
}

// formatNames maps every accepted name and alias to its format.
var formatNames = []struct {
	name string
	f    Format
}{
	{"turtle", Turtle}, {"ttl", Turtle},
	{"jsonld", JSONLD}, {"json-ld", JSONLD},
	{"ntriples", NTriples}, {"nt", NTriples},
	{"nquads", NQuads}, {"nq", NQuads},
}

// FormatNames returns every name ParseFormat accepts, aliases included.
func FormatNames() []string {
	out := make([]string, len(formatNames))
	for i, n := range formatNames {
		out[i] = n.name
	}
	return out
}

// ParseFormat maps a format name of spec/API.md (turtle|ttl, jsonld|json-ld,
// ntriples|nt, nquads|nq; case-insensitive) to its Format. Other names give
// an error wrapping ErrUnknownFormat that lists the allowed ones.
func ParseFormat(name string) (Format, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, fn := range formatNames {
		if fn.name == n {
			return fn.f, nil
		}
	}
	return 0, fmt.Errorf("rdfio: parse format %q: %w (allowed: %s)", name, ErrUnknownFormat,
		strings.Join(FormatNames(), ", "))
}

// mediaTypes maps media types (lower case, without parameters) to formats.
var mediaTypes = map[string]Format{
	"text/turtle":           Turtle,
	"application/x-turtle":  Turtle,
	"application/turtle":    Turtle,
	"application/ld+json":   JSONLD,
	"application/json":      JSONLD,
	"application/n-triples": NTriples,
	"text/plain":            NTriples,
	"application/n-quads":   NQuads,
	"text/x-nquads":         NQuads,
}

// FormatForMediaType chooses the format for an HTTP Accept header (RFC 9110
// content negotiation with q-values) among offers (all formats in the order
// of Formats when none are given). An empty header, "*/*" or a matching
// "type/*" chooses the first acceptable offer. When no offer is acceptable
// the error wraps ErrNotAcceptable. The media type to send back is
// Format.MediaType.
func FormatForMediaType(accept string, offers ...Format) (Format, error) {
	if len(offers) == 0 {
		offers = Formats()
	}
	if strings.TrimSpace(accept) == "" {
		return offers[0], nil
	}
	type rng struct {
		typ, sub string
		q        float64
		order    int
	}
	var ranges []rng
	for i, part := range strings.Split(accept, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mt, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue // ignore malformed ranges, as browsers send odd ones
		}
		q := 1.0
		if qs, ok := params["q"]; ok {
			if v, err := strconv.ParseFloat(qs, 64); err == nil && v >= 0 && v <= 1 {
				q = v
			}
		}
		typ, sub, _ := strings.Cut(mt, "/")
		ranges = append(ranges, rng{typ, sub, q, i})
	}
	// For each offer, the most specific matching range gives its quality.
	best, bestQ, bestSpec := Format(0), 0.0, -1
	for _, f := range offers {
		q, spec := 0.0, -1
		for _, r := range ranges {
			s := -1
			switch {
			case r.typ == "*" && r.sub == "*":
				s = 0
			case r.sub == "*" && r.typ == topType(f):
				s = 1
			case mediaTypes[r.typ+"/"+r.sub] == f:
				s = 2
			}
			if s > spec {
				q, spec = r.q, s
			}
		}
		if spec >= 0 && q > 0 && (q > bestQ || (q == bestQ && spec > bestSpec)) {
			best, bestQ, bestSpec = f, q, spec
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("rdfio: negotiate %q: %w (available: %s)", accept, ErrNotAcceptable,
			strings.Join(offeredTypes(offers), ", "))
	}
	return best, nil
}

// topType returns the top-level type of f's media type ("text").
func topType(f Format) string {
	t, _, _ := strings.Cut(f.MediaType(), "/")
	return t
}

func offeredTypes(offers []Format) []string {
	var out []string
	for _, f := range offers {
		mt, _, _ := strings.Cut(f.MediaType(), ";")
		out = append(out, mt)
	}
	sort.Strings(out)
	return out
}
