package handlers

import (
	"bufio"
	"net/http"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/rdfio"
)

// rdfFormats are the serializations of a resource's triples, Turtle first
// (the default): ?format= takes the names of spec/API.md and their
// aliases, else Accept chooses by media type.
func rdfFormats() []format {
	return []format{
		{name: "turtle", aliases: []string{"ttl"}, mediaType: "text/turtle"},
		{name: "jsonld", aliases: []string{"json-ld"}, mediaType: "application/ld+json"},
		{name: "ntriples", aliases: []string{"nt"}, mediaType: "application/n-triples"},
	}
}

// triplesParams documents ?format= of the triples routes.
func triplesParams() []Param {
	return []Param{{Name: "format", In: "query",
		Description: "turtle (default; alias ttl), jsonld (alias json-ld) or ntriples (alias nt). Without it, Accept chooses.",
		Schema:      Schema{"type": "string", "enum": []string{"turtle", "ttl", "jsonld", "json-ld", "ntriples", "nt"}}}}
}

// triplesResponse documents a triples route's 200.
func triplesResponse(what string) Response {
	return Response{Status: 200, Description: what, Content: map[string]Schema{
		"text/turtle":           {"type": "string"},
		"application/ld+json":   {"type": "object"},
		"application/n-triples": {"type": "string"},
	}}
}

// writeTriples serializes quads (one resource's named graph, as
// graph.Store.Graph returns it: already in rdfio.SortQuads order, which the
// Turtle writer needs to group subjects) in the format the request asks
// for. Errors before the first byte are returned (400 for an unknown
// ?format=, 406 for an unmatched Accept).
func writeTriples(w http.ResponseWriter, r *http.Request, quads []quad.Quad) error {
	f, err := pickFormat(r, rdfFormats())
	if err != nil {
		return err
	}
	var rf rdfio.Format
	switch f.name {
	case "turtle":
		rf = rdfio.Turtle
	case "jsonld":
		rf = rdfio.JSONLD
	default:
		rf = rdfio.NTriples
	}
	w.Header().Set("Content-Type", rf.MediaType())
	w.Header().Set("Vary", "Accept")
	bw := bufio.NewWriter(w)
	out, err := rdfio.NewWriter(bw, rf)
	if err != nil {
		return err
	}
	for _, q := range quads {
		if err := out.WriteQuad(q); err != nil {
			return err
		}
	}
	if err := out.Close(); err != nil {
		return err
	}
	return bw.Flush()
}
