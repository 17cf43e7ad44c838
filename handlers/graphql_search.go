package handlers

import (
	"context"
	"errors"
	"fmt"

	"github.com/molgraph/molgraph/queries/graphql"
	"github.com/molgraph/molgraph/search"
)

// graphqlSearch runs the structure searches of GraphQL's
// molecules(similarTo:, substructure:) on the search index that
// /v1/molecules/search uses, within the same time budget, so that the
// hits are the REST route's. It reads s.cfg.Search at each call.
func (s *Server) graphqlSearch(ctx context.Context, q graphql.SearchQuery) ([]graphql.SearchHit, error) {
	idx := s.cfg.Search
	if idx == nil {
		if s.cfg.SearchDisabled {
			return nil, fmt.Errorf("%w: %w", graphql.ErrSearchUnavailable, ErrSearchDisabled)
		}
		return nil, graphql.ErrSearchUnavailable
	}
	timeout := s.cfg.SearchTimeout
	if timeout <= 0 {
		timeout = DefaultSearchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hits, err := idx.Search(ctx, search.Request{Type: q.Type, Query: q.Query, Threshold: q.Threshold, Top: q.Top})
	switch {
	case errors.Is(err, search.ErrInvalidQuery), errors.Is(err, search.ErrBadOptions):
		return nil, fmt.Errorf("%w: %w", graphql.ErrBadArgument, err)
	case err != nil:
		return nil, err
	}
	out := make([]graphql.SearchHit, len(hits))
	for i, h := range hits {
		out[i] = graphql.SearchHit{ID: h.ID, Score: h.Score}
	}
	return out, nil
}
