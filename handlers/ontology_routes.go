package handlers

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/shapes"
)

// The vocabulary documents: the TBox, the SHACL shapes and the JSON-LD
// context. All are embedded in the binary and need the read scope, like
// every /v1 route. Because a JSON-LD processor fetching a remote context
// cannot send our bearer key, every JSON-LD document molgraph writes embeds
// the context inline; /v1/context.jsonld is for people and tools that want
// to reuse it.

func (s *Server) ontologyRoutes() []Route {
	rdfContent := map[string]Schema{"text/turtle": {"type": "string"}, "application/n-triples": {"type": "string"},
		"application/ld+json": {"type": "object"}}
	formatParam := []Param{{Name: "format", In: "query", Description: "turtle (default), ntriples or jsonld, instead of Accept.",
		Schema: Schema{"type": "string"}}}
	return []Route{
		{
			Method: http.MethodGet, Pattern: "/v1/ontology", Scope: auth.ScopeRead,
			Handle: func(w http.ResponseWriter, r *http.Request) error {
				return serveTurtleDocument(w, r, ontology.TBox(), ontology.TBoxIRI)
			},
			Doc: Doc{Tag: "graph", Summary: "The TBox: molgraph's vocabulary (mg:) and its alignments",
				Params: formatParam, Responses: []Response{{Status: 200, Description: "The TBox.", Content: rdfContent}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/shapes", Scope: auth.ScopeRead,
			Handle: func(w http.ResponseWriter, r *http.Request) error {
				return serveTurtleDocument(w, r, shapes.All(), shapes.ShapesBase)
			},
			Doc: Doc{Tag: "graph", Summary: "The SHACL shapes every stored resource satisfies",
				Params: formatParam, Responses: []Response{{Status: 200, Description: "The shapes graph.", Content: rdfContent}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/context.jsonld", Scope: auth.ScopeRead,
			Handle: func(w http.ResponseWriter, r *http.Request) error {
				w.Header().Set("Content-Type", "application/ld+json")
				w.Header().Set("Access-Control-Allow-Origin", "*")
				w.WriteHeader(http.StatusOK)
				_, err := w.Write(ontology.Context())
				return err
			},
			Doc: Doc{Tag: "graph", Summary: "The JSON-LD context of molgraph's JSON-LD output",
				Responses: []Response{{Status: 200, Description: "The context document ({\"@context\": {...}}).",
					Content: map[string]Schema{"application/ld+json": {"type": "object"}}}}},
		},
	}
}

// serveTurtleDocument serves an embedded Turtle document as is, or
// converted to N-Triples or JSON-LD when ?format= or Accept asks.
func serveTurtleDocument(w http.ResponseWriter, r *http.Request, doc []byte, base string) error {
	if err := r.ParseForm(); err != nil {
		return badRequest("query", "malformed query string: %v", err)
	}
	f, err := chooseFormat(r, graphFormats()[:3])
	if err != nil {
		return err
	}
	body := doc
	if f.rdf != rdfio.Turtle {
		qs, err := rdfio.ParseTurtle(bytes.NewReader(doc), base)
		if err != nil {
			return fmt.Errorf("embedded document: %w", err) // our bug: 500
		}
		var buf bytes.Buffer
		if err := rdfio.WriteAll(&buf, f.rdf, qs); err != nil {
			return err
		}
		body = buf.Bytes()
	}
	w.Header().Set("Content-Type", f.rdf.MediaType())
	w.Header().Set("Vary", "Accept")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	return err
}
