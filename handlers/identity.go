package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// Resource IRIs <BASE>id/<kind>/<id> dereference here (spec/API.md,
// "IRIs"): an Accept header that prefers an RDF media type gets the
// resource's named graph; anything else (a browser, */*, JSON) gets a 303
// See Other to the resource's /v1 record.

// recordPaths maps a resource kind to the /v1 path of its records.
func recordPaths() map[string]string {
	return map[string]string{
		ontology.KindMolecule:    "/v1/molecules/",
		ontology.KindCalculation: "/v1/qm/calculations/",
		ontology.KindReceptor:    "/v1/receptors/",
		ontology.KindDockingJob:  "/v1/docking/jobs/",
		ontology.KindBatchJob:    "/v1/molecules/batch/",
	}
}

func (s *Server) identityRoutes() []Route {
	return []Route{{
		Method: http.MethodGet, Pattern: "/id/{kind}/{id}", Scope: auth.ScopeRead, Handle: s.dereference,
		Doc: Doc{Tag: "graph", Summary: "Dereference a resource IRI: its triples for RDF media types, else 303 to its /v1 record",
			PathParams: map[string]string{"kind": "molecule, calculation, receptor, docking-job or batch-job.", "id": "The resource id."},
			Params:     triplesParams(),
			Responses: []Response{
				triplesResponse("The resource's named graph (Accept: text/turtle, application/ld+json, application/n-triples, or ?format=)."),
				{Status: 303, Description: "See Other: the resource's /v1 record (any other Accept).",
					Headers: map[string]string{"Location": "The /v1 URL of the record."}},
			}},
	}}
}

// wantsRDF reports whether the request asks for triples: ?format= given,
// or an Accept header that rates an RDF type above JSON and HTML.
func wantsRDF(r *http.Request) bool {
	if r.URL.Query().Get("format") != "" {
		return true
	}
	best, ok := negotiate(r.Header.Get("Accept"), []string{"application/json", "text/html",
		"text/turtle", "application/ld+json", "application/n-triples"})
	return ok && best != "application/json" && best != "text/html"
}

func (s *Server) dereference(w http.ResponseWriter, r *http.Request) error {
	kind, id := chi.URLParam(r, "kind"), chi.URLParam(r, "id")
	prefix, ok := recordPaths()[kind]
	if !ok || id == "" || strings.ContainsAny(id, "/#?") {
		return fmt.Errorf("%w: no resource kind %q", ErrNotFound, kind)
	}
	st := s.cfg.Graph
	if st == nil && s.cfg.Molecules.Registry != nil {
		st = s.cfg.Molecules.Registry.Store()
	}
	if st == nil {
		return fmt.Errorf("%w: no graph store configured", ErrNotReady)
	}
	iri := ontology.ResourceIRI(s.cfg.BaseIRI, kind, id)
	w.Header().Set("Vary", "Accept")
	if !wantsRDF(r) {
		has, err := st.HasGraph(r.Context(), iri)
		if err != nil {
			return err
		}
		if !has {
			return fmt.Errorf("%w: no %s %q", ErrNotFound, kind, id)
		}
		w.Header().Set("Location", prefix+id)
		w.WriteHeader(http.StatusSeeOther)
		return nil
	}
	qs, err := st.Graph(r.Context(), iri)
	if errors.Is(err, graph.ErrNotFound) {
		return fmt.Errorf("%w: no %s %q", ErrNotFound, kind, id)
	}
	if err != nil {
		return err
	}
	return writeTriples(w, r, qs)
}
