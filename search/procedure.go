package search

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/queries/sparql"
)

// NS is the namespace of the search procedures (spec/API.md, prefix mgs:).
const NS = "https://w3id.org/molgraph/search#"

// The procedures and their arguments.
const (
	HasSubstructure = quad.IRI(NS + "hasSubstructure") // ?m mgs:hasSubstructure "SMILES or SMARTS"
	SubstructureOf  = quad.IRI(NS + "substructureOf")  // ?m mgs:substructureOf "SMILES" (superstructure search)
	SimilarTo       = quad.IRI(NS + "similarTo")       // ?m mgs:similarTo [ mgs:query ...; mgs:threshold ...; mgs:top ...; mgs:score ?s ]
	SameStructureAs = quad.IRI(NS + "sameStructureAs") // ?m mgs:sameStructureAs "InChIKey, InChI or SMILES"

	ArgQuery     = quad.IRI(NS + "query")
	ArgFormat    = quad.IRI(NS + "queryFormat")
	ArgThreshold = quad.IRI(NS + "threshold")
	ArgTop       = quad.IRI(NS + "top")
	ArgScore     = quad.IRI(NS + "score")
	ArgMatch     = quad.IRI(NS + "match")
	ArgChirality = quad.IRI(NS + "chirality")
	ArgCharges   = quad.IRI(NS + "charges")
	ArgIsotopes  = quad.IRI(NS + "isotopes")
)

// procedure is one search procedure over an Index.
type procedure struct {
	x    *Index
	typ  string
	memo memo
	// scans counts the whole-index searches the procedure ran (tests).
	scans atomic.Int64
}

// Procedures returns the SPARQL procedures of the index, for
// sparql.Options.Procedures: the search binds the pattern's subject to the
// IRIs of the molecules found (and mgs:score to a similarity's Tanimoto
// score, an xsd:double), with the same hits as Index.Search (and so as the
// REST route). Both forms are accepted: a literal object (the query), or a
// blank node with mgs:query and the options mgs:queryFormat, mgs:threshold,
// mgs:top, mgs:match ("full" or "connectivity"), mgs:chirality, mgs:charges
// and mgs:isotopes.
func (x *Index) Procedures() sparql.Procedures {
	return sparql.Procedures{
		HasSubstructure: &procedure{x: x, typ: TypeSubstructure},
		SubstructureOf:  &procedure{x: x, typ: TypeSuperstructure},
		SimilarTo:       &procedure{x: x, typ: TypeSimilarity},
		SameStructureAs: &procedure{x: x, typ: TypeExact},
	}
}

// ProcedureDescriptions describes the procedures for the SPARQL service
// description, by IRI.
func ProcedureDescriptions() map[quad.IRI]string {
	return map[quad.IRI]string{
		HasSubstructure: "Substructure search: binds the subject to every molecule containing the object (SMILES or SMARTS).",
		SubstructureOf:  "Superstructure search: binds the subject to every molecule contained in the object (SMILES).",
		SimilarTo:       "Similarity search (Morgan radius 2, 2048 bits, Tanimoto): [ mgs:query; mgs:threshold; mgs:top; mgs:score ?score ].",
		SameStructureAs: "Exact search by InChIKey, InChI or SMILES (mgs:match \"connectivity\" for the InChIKey's first block).",
	}
}

func (p *procedure) Call(ctx context.Context, c sparql.ProcCall, emit func(sparql.ProcHit) error) error {
	req := Request{Type: p.typ}
	if c.Input != nil {
		s, ok := text(c.Input)
		if !ok {
			return sparql.BadCall(c, "the query must be a literal, not %v", c.Input)
		}
		req.Query = s
	}
	for prop, v := range c.Args {
		var err error
		switch prop {
		case ArgQuery:
			s, ok := text(v)
			if !ok {
				return sparql.BadCall(c, "mgs:query must be a literal")
			}
			req.Query = s
		case ArgFormat:
			req.QueryFormat, _ = text(v)
		case ArgThreshold:
			var f float64
			f, err = number(v)
			req.Threshold = &f
		case ArgTop:
			var f float64
			if f, err = number(v); err == nil && (f != float64(int(f)) || f < 1 || f > 1e9) {
				err = errors.New("not a positive integer")
			}
			req.Top = int(f)
		case ArgMatch:
			req.Match, _ = text(v)
		case ArgChirality, ArgCharges, ArgIsotopes:
			var b bool
			b, err = boolean(v)
			switch prop {
			case ArgChirality:
				req.Chirality = &b
			case ArgCharges:
				req.Charges = &b
			default:
				req.Isotopes = &b
			}
		default:
			return sparql.BadCall(c, "unknown argument %s", prop.String())
		}
		if err != nil {
			return sparql.BadCall(c, "%s %v: %v", prop.String(), v, err)
		}
	}
	score := -1
	for i, o := range c.Outputs {
		if o != ArgScore || p.typ != TypeSimilarity {
			return sparql.BadCall(c, "%s is not an output of this procedure (mgs:score is, of mgs:similarTo)", o.String())
		}
		score = i
	}
	if req.Query == "" {
		return sparql.BadCall(c, "no query (the object, or mgs:query of a blank node)")
	}
	var hits []Hit
	var err error
	if c.Subject != nil {
		// The subject is bound (an outer row, OPTIONAL, EXISTS, MINUS):
		// test that one molecule, not the whole index (bound.go).
		hits, err = p.bound(ctx, req, c.Subject)
	} else {
		p.scans.Add(1)
		hits, err = p.x.Search(ctx, req)
	}
	if err != nil {
		if errors.Is(err, ErrInvalidQuery) || errors.Is(err, ErrBadOptions) {
			return sparql.BadCall(c, "%v", err)
		}
		return err
	}
	for _, h := range hits {
		hit := sparql.ProcHit{Subject: p.x.IRI(h.ID)}
		if len(c.Outputs) > 0 {
			hit.Outputs = make([]quad.Value, len(c.Outputs))
			if score >= 0 {
				hit.Outputs[score] = ontology.Double(h.Score)
			}
		}
		if err := emit(hit); err != nil {
			return err
		}
	}
	return nil
}

// text reads a literal's lexical form.
func text(v quad.Value) (string, bool) {
	switch t := v.(type) {
	case quad.String:
		return string(t), true
	case quad.TypedString:
		return string(t.Value), true
	case quad.LangString:
		return string(t.Value), true
	}
	return "", false
}

func number(v quad.Value) (float64, error) {
	switch t := v.(type) {
	case quad.Float:
		return float64(t), nil
	case quad.Int:
		return float64(t), nil
	}
	s, ok := text(v)
	if !ok {
		return 0, errors.New("not a number")
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("not a number")
	}
	return f, nil
}

func boolean(v quad.Value) (bool, error) {
	if b, ok := v.(quad.Bool); ok {
		return bool(b), nil
	}
	s, _ := text(v)
	switch strings.TrimSpace(s) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, errors.New("not a boolean")
}
