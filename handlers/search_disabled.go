package handlers

import (
	"context"
	"fmt"
	"net/http"

	"github.com/molgraph/molgraph/queries/sparql"
	"github.com/molgraph/molgraph/search"
)

// A server may run without structure search (Config.SearchDisabled,
// molgraph serve --structure-search=false): registration then computes and
// stores no fingerprints, and every way in to search says so with 501
// search_disabled instead of answering as if nothing matched.

// searchDisabledResponse documents the search routes' 501.
var searchDisabledResponse = Response{Status: http.StatusNotImplemented,
	Description: "Structure search is disabled on this server (--structure-search=false): problem code search_disabled.",
	Content:     problemContent()}

// searchUnavailable is the error of a search route without an index:
// ErrSearchDisabled when search is off, else ErrNotReady.
func (s *Server) searchUnavailable() error {
	if s.cfg.SearchDisabled {
		return ErrSearchDisabled
	}
	return fmt.Errorf("%w: structure search is not configured", ErrNotReady)
}

// sparqlProcedures are the procedures SPARQL queries may call: the
// configured ones, or with search off procedures by the search IRIs that
// fail with ErrSearchDisabled (without them, a search pattern would be an
// ordinary triple pattern and match nothing, silently). The service
// description lists only configured procedures.
func (s *Server) sparqlProcedures() sparql.Procedures {
	if !s.cfg.SearchDisabled || s.cfg.SPARQLProcedures != nil {
		return s.cfg.SPARQLProcedures
	}
	procs := sparql.Procedures{}
	for iri := range search.ProcedureDescriptions() {
		procs[iri] = disabledProcedure{}
	}
	return procs
}

// disabledProcedure is a search procedure of a server without search.
type disabledProcedure struct{}

func (disabledProcedure) Call(context.Context, sparql.ProcCall, func(sparql.ProcHit) error) error {
	return ErrSearchDisabled
}
