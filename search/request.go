package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/molgraph/molgraph/chem"
)

// Search types (Request.Type).
const (
	TypeExact          = "exact"
	TypeSubstructure   = "substructure"
	TypeSuperstructure = "superstructure"
	TypeSimilarity     = "similarity"
)

// DefaultThreshold is the Tanimoto cut-off of a similarity search that
// gives neither a threshold nor top (spec/API.md).
const DefaultThreshold = 0.7

// Request is one search as the REST route, GraphQL and SPARQL take it
// (spec/API.md, Structure search). Nil pointers take the defaults.
type Request struct {
	// Type is exact, substructure, superstructure or similarity.
	Type string
	// Query is a SMILES, SMARTS, molfile, InChI or InChIKey.
	Query string
	// QueryFormat: smiles, smarts, molfile, inchi, inchikey, or "" (see
	// the options of each search).
	QueryFormat string
	// Threshold (similarity): default DefaultThreshold, or 0 when Top is
	// given.
	Threshold *float64
	// Top (similarity) keeps the Top best hits; 0 keeps all.
	Top int
	// Match (exact): full (default) or connectivity.
	Match string
	// Chirality, Charges and Isotopes (substructure, superstructure):
	// defaults false, true, true (PubChem's options).
	Chirality, Charges, Isotopes *bool
}

// Search runs req. Errors: ErrBadOptions for a request that is not
// well-formed (an unknown type, a threshold out of range), an error
// wrapping ErrInvalidQuery for a query that does not parse, the context's
// error when ctx ends first.
func (x *Index) Search(ctx context.Context, req Request) ([]Hit, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, fmt.Errorf("search: %w: the query is empty", ErrBadOptions)
	}
	if len(req.Query) > chem.MaxQueryBytes {
		return nil, fmt.Errorf("search: %w: %d bytes, more than the %d a query may have", ErrInvalidQuery, len(req.Query), chem.MaxQueryBytes)
	}
	format := strings.ToLower(strings.TrimSpace(req.QueryFormat))
	switch strings.ToLower(req.Type) {
	case TypeSimilarity:
		o := SimilarOptions{Top: req.Top, Format: format, Threshold: DefaultThreshold}
		if req.Top > 0 {
			o.Threshold = 0
		}
		if req.Threshold != nil {
			o.Threshold = *req.Threshold
		}
		if format != "" && format != FormatSMILES && format != FormatMolfile {
			return nil, fmt.Errorf("search: %w: a similarity query is a SMILES or a molfile, not %s", ErrBadOptions, format)
		}
		return x.Similar(ctx, req.Query, o)
	case TypeSubstructure, TypeSuperstructure:
		o, err := subOptions(req, format)
		if err != nil {
			return nil, err
		}
		if strings.ToLower(req.Type) == TypeSuperstructure {
			return x.Superstructure(ctx, req.Query, o)
		}
		return x.Substructure(ctx, req.Query, o)
	case TypeExact:
		if req.Top != 0 || req.Threshold != nil || req.Chirality != nil || req.Charges != nil || req.Isotopes != nil {
			return nil, fmt.Errorf("search: %w: exact search takes match only", ErrBadOptions)
		}
		o := ExactOptions{Format: format}
		switch strings.ToLower(req.Match) {
		case "", "full":
		case "connectivity":
			o.Connectivity = true
		default:
			return nil, fmt.Errorf("search: %w: match %q is not full or connectivity", ErrBadOptions, req.Match)
		}
		return x.Exact(ctx, req.Query, o)
	case "":
		return nil, fmt.Errorf("search: %w: type is required (exact, substructure, superstructure or similarity)", ErrBadOptions)
	}
	return nil, fmt.Errorf("search: %w: type %q is not exact, substructure, superstructure or similarity", ErrBadOptions, req.Type)
}

// subOptions reads the options of a substructure or superstructure
// request (ErrBadOptions for those of other search types).
func subOptions(req Request, format string) (SubOptions, error) {
	if req.Top != 0 || req.Threshold != nil || req.Match != "" {
		return SubOptions{}, fmt.Errorf("search: %w: threshold, top and match are options of other search types", ErrBadOptions)
	}
	o := SubOptions{Format: format}
	if req.Chirality != nil {
		o.Chirality = *req.Chirality
	}
	if req.Charges != nil {
		o.IgnoreCharges = !*req.Charges
	}
	if req.Isotopes != nil {
		o.IgnoreIsotopes = !*req.Isotopes
	}
	return o, nil
}
