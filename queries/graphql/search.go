package graphql

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/molgraph/molgraph/ontology"
)

// Structure search in GraphQL: Query.molecules(similarTo: "...",
// threshold: 0.6, top: 10) and Query.molecules(substructure: "...") list
// the hits of a structure search as a MoleculeConnection whose edges carry
// the score. The search itself is the service's (package search, wired by
// handlers through Options.Search), so that GraphQL, REST and SPARQL give
// the same hits; this package only pages and filters them. A search list
// is charged like any other list (its first: elements).

// ErrSearchUnavailable: a search argument was given but the executor has
// no Options.Search.
var ErrSearchUnavailable = errors.New("structure search not configured")

// SearchQuery is a structure search of Query.molecules.
type SearchQuery struct {
	// Type is "similarity" (similarTo) or "substructure".
	Type string
	// Query is the SMILES (similarity) or SMILES/SMARTS (substructure).
	Query string
	// Threshold is the Tanimoto cut-off (nil: the search's default).
	Threshold *float64
	// Top keeps the Top best hits (0: all).
	Top int
}

// SearchHit is one hit of a search, in the search's order.
type SearchHit struct {
	ID    string  // molecule id, mol-...
	Score float64 // Tanimoto for similarity
}

// SearchFunc runs a structure search. An error wrapping ErrBadArgument is
// reported as a bad argument (a query that does not parse).
type SearchFunc func(ctx context.Context, q SearchQuery) ([]SearchHit, error)

// searchArgs are the search arguments of Query.molecules (SDL).
const searchArgs = `
    "Similarity search: a SMILES; the hits are the molecules whose Morgan radius-2 2048-bit Tanimoto to it is at least threshold, best first (edges carry score)."
    similarTo: String
    "Tanimoto cut-off of similarTo, 0..1 (default 0.7, or 0 with top)."
    threshold: Float
    "similarTo keeps only its top best hits (at least 1)."
    top: Int
    "Substructure search: a SMILES or SMARTS; the hits are the molecules that contain it, in IRI order."
    substructure: String`

// searchArgsOf reads the search arguments of a list of t; ok is false
// when there are none.
func searchArgsOf(t *objectType, args map[string]any) (q SearchQuery, ok bool, err error) {
	if t.name != "Molecule" {
		return q, false, nil
	}
	sim, _ := args["similarTo"].(string)
	sub, _ := args["substructure"].(string)
	_, hasSim := args["similarTo"].(string)
	_, hasSub := args["substructure"].(string)
	th, hasTh := argNumber(args["threshold"])
	top, hasTop := argNumber(args["top"])
	switch {
	case hasSim && hasSub:
		return q, false, fmt.Errorf("%w: similarTo and substructure are two searches; give one", ErrBadArgument)
	case !hasSim && !hasSub:
		if hasTh || hasTop {
			return q, false, fmt.Errorf("%w: threshold and top are options of similarTo", ErrBadArgument)
		}
		return q, false, nil
	case hasSub:
		if hasTh || hasTop {
			return q, false, fmt.Errorf("%w: threshold and top are options of similarTo, not substructure", ErrBadArgument)
		}
		if strings.TrimSpace(sub) == "" {
			return q, false, fmt.Errorf("%w: substructure: empty query", ErrBadArgument)
		}
		return SearchQuery{Type: "substructure", Query: sub}, true, nil
	}
	if strings.TrimSpace(sim) == "" {
		return q, false, fmt.Errorf("%w: similarTo: empty query", ErrBadArgument)
	}
	q = SearchQuery{Type: "similarity", Query: sim}
	if hasTh {
		if !(th >= 0 && th <= 1) {
			return q, false, fmt.Errorf("%w: threshold %v is not from 0 to 1", ErrBadArgument, th)
		}
		q.Threshold = &th
	}
	if hasTop {
		if top < 1 || top > 1<<31-1 {
			return q, false, fmt.Errorf("%w: top %v is not a positive integer", ErrBadArgument, top)
		}
		q.Top = int(top)
	}
	return q, true, nil
}

// searchList pages the hits of q: after the cursor's hit, those passing
// the numeric filters, first of them, in the search's order.
func (x *execution) searchList(ctx context.Context, t *objectType, q SearchQuery, p page) (any, error) {
	if x.e.opts.Search == nil {
		return nil, ErrSearchUnavailable
	}
	hits, err := x.e.opts.Search(ctx, q)
	if err != nil {
		arg := "similarTo"
		if q.Type == "substructure" {
			arg = "substructure"
		}
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	c := &conn{scores: []*float64{}}
	started := p.after == ""
	for _, h := range hits {
		iri := ontology.ResourceIRI(x.e.opts.BaseIRI, t.kind, h.ID)
		if !started {
			started = iri == p.after
			continue
		}
		n := x.node(t, iri)
		if ok, err := x.matches(ctx, n, p.filters); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		if len(c.nodes) == p.first {
			c.hasNext = true
			break
		}
		c.nodes = append(c.nodes, n)
		var score *float64
		if q.Type == "similarity" {
			s := h.Score
			score = &s
		}
		c.scores = append(c.scores, score)
	}
	if !started {
		return nil, fmt.Errorf("%w: after: the cursor's node is not a hit of this search", ErrBadArgument)
	}
	return c, nil
}
