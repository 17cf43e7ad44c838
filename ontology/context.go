package ontology

import (
	"bytes"
	_ "embed"
)

// contextJSONLD is the service's JSON-LD context (served at
// GET /v1/context.jsonld). It only maps the prefixes of spec/GRAPH.md
// (the same as Prefixes) to their namespaces, with no "@vocab", so that
// compacted documents use prefixed names ("mg:Molecule") and expand to
// exactly the IRIs stored in the graph. Every namespace ends in '#' or '/',
// which makes each term usable as a prefix under JSON-LD 1.1.
//
//go:embed context.jsonld
var contextJSONLD []byte

// Context returns the JSON-LD context document, a JSON object with one
// "@context" member. The slice is a fresh copy; callers may modify it.
func Context() []byte { return bytes.Clone(contextJSONLD) }
