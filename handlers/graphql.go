package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/queries/graphql"
)

// GraphQL over HTTP (https://graphql.github.io/graphql-over-http/draft/).
//
// POST application/json {"query", "operationName", "variables"} or
// application/graphql (the query as the body); GET ?query=&operationName=
// &variables= (JSON). GET with no query returns the schema (SDL). Answers
// are application/graphql-response+json when the client accepts it (then a
// request error - syntax, validation - is 400), else application/json with
// 200 for every well-formed request, as the spec says for that media type.
// HTTP-level problems (auth, body size, a body that is not a GraphQL
// request) are problem+json like everywhere else, and so are the refusals
// by a limit (tokens, selections, repeated fields, fragments, depth, cost:
// 400 query_too_complex naming the limit, whatever the Accept): they
// protect the service rather than answer the query, and a client must not
// mistake them for a GraphQL result.

const (
	mediaGraphQLResponse = "application/graphql-response+json"
	mediaGraphQL         = "application/graphql"
)

// GraphQLLimits bound a GraphQL document before it is validated (see
// queries/graphql, limits.go); zero fields take that package's defaults.
type GraphQLLimits struct {
	// MaxTokens bounds the lexical tokens (graphql.DefaultMaxTokens).
	MaxTokens int
	// MaxSelections bounds the selections, fragments counted where they
	// are spread (graphql.DefaultMaxSelections).
	MaxSelections int
	// MaxFieldsPerName bounds the fields under one response name in one
	// selection (graphql.DefaultMaxFieldsPerName).
	MaxFieldsPerName int
	// MaxFragmentSpreads bounds the distinct fragments spread into one
	// selection (graphql.DefaultMaxFragmentSpreads).
	MaxFragmentSpreads int
}

func (l GraphQLLimits) withDefaults() GraphQLLimits {
	for _, f := range []struct {
		v   *int
		def int
	}{{&l.MaxTokens, graphql.DefaultMaxTokens}, {&l.MaxSelections, graphql.DefaultMaxSelections},
		{&l.MaxFieldsPerName, graphql.DefaultMaxFieldsPerName}, {&l.MaxFragmentSpreads, graphql.DefaultMaxFragmentSpreads}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	return l
}

func graphqlSchemas() map[string]Schema {
	return map[string]Schema{
		"GraphQLRequest": {"type": "object", "required": []string{"query"}, "additionalProperties": false,
			"properties": Schema{
				"query":         Schema{"type": "string"},
				"operationName": Schema{"type": []string{"string", "null"}},
				"variables":     Schema{"type": []string{"object", "null"}},
				"extensions":    Schema{"type": []string{"object", "null"}},
			}},
		"GraphQLResponse": {"type": "object", "properties": Schema{
			"data":   Schema{"type": []string{"object", "null"}},
			"errors": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"message"}}},
		}},
	}
}

func (s *Server) graphqlRoutes() []Route {
	var exec *graphql.Executor
	var execErr error
	lim, gl := s.cfg.Query.withDefaults(), s.cfg.GraphQL.withDefaults()
	if s.cfg.Graph != nil {
		exec, execErr = graphql.New(s.cfg.Graph, graphql.Options{BaseIRI: s.cfg.BaseIRI,
			MaxDepth: lim.GraphQLMaxDepth, MaxCost: lim.GraphQLMaxCost, MaxPageSize: DefaultGraphQLMaxPageSize,
			MaxTokens: gl.MaxTokens, MaxSelections: gl.MaxSelections,
			MaxFieldsPerName: gl.MaxFieldsPerName, MaxFragmentSpreads: gl.MaxFragmentSpreads,
			Search: s.graphqlSearch})
	}
	handle := func(w http.ResponseWriter, r *http.Request) error {
		if execErr != nil {
			return execErr
		}
		if exec == nil {
			return fmt.Errorf("%w: no graph store configured", ErrNotReady)
		}
		return s.graphql(w, r, exec)
	}
	desc := "Schema: Molecule, Calculation, Receptor, DockingJob, DockingPose and their links, numeric filters " +
		"(e.g. molecules(mwLt: 500)), Relay cursor pagination (first/after), introspection. Limits (each a 400 " +
		fmt.Sprintf("problem+json with code query_too_complex naming the limit): tokens (%d, while parsing), selections "+
			"with fragments expanded (%d), fields under one response name (%d), distinct fragments spread into "+
			"one selection (%d), depth (%d, introspection excluded) and estimated cost (%d: every field 1, a structure search "+
			"(similarTo, substructure) %d more, fields under a "+
			"list once per requested element and at least once, introspection counted exactly). ",
			gl.MaxTokens, gl.MaxSelections, gl.MaxFieldsPerName, gl.MaxFragmentSpreads, lim.GraphQLMaxDepth, lim.GraphQLMaxCost, graphql.SearchCost) +
		"With Accept: application/graphql-response+json, other request errors are 400; with application/json " +
		"every well-formed request is 200 and errors are in the body. GET without a query returns the schema (SDL)."
	resp := []Response{{Status: 200, Description: "The GraphQL response.", Content: map[string]Schema{
		"application/json": ref("GraphQLResponse"), mediaGraphQLResponse: ref("GraphQLResponse")}},
		{Status: 400, Description: "A request error (application/graphql-response+json only), or a query refused by a limit (problem+json, query_too_complex).",
			Content: map[string]Schema{mediaGraphQLResponse: ref("GraphQLResponse"), "application/problem+json": ref("Problem")}}}
	return []Route{
		{
			Method: http.MethodPost, Pattern: "/v1/graphql", Scope: auth.ScopeRead, Handle: handle,
			Doc: Doc{Tag: "graph", Summary: "GraphQL query", Description: desc,
				Request: &Body{Required: true, Content: map[string]Schema{
					"application/json": ref("GraphQLRequest"), mediaGraphQL: {"type": "string"}}},
				Responses: resp},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/graphql", Scope: auth.ScopeRead, Handle: handle,
			Doc: Doc{Tag: "graph", Summary: "GraphQL query (GET); without a query, the schema in SDL", Description: desc,
				Params: []Param{
					{Name: "query", In: "query", Description: "The GraphQL document.", Schema: Schema{"type": "string"}},
					{Name: "operationName", In: "query", Description: "The operation to run.", Schema: Schema{"type": "string"}},
					{Name: "variables", In: "query", Description: "Variables as a JSON object.", Schema: Schema{"type": "string"}},
				},
				Responses: append(resp, Response{Status: 200, Description: "The schema (no query given).",
					Content: map[string]Schema{"text/plain": {"type": "string"}}})},
		},
	}
}

func (s *Server) graphql(w http.ResponseWriter, r *http.Request, exec *graphql.Executor) error {
	var req graphql.Request
	switch r.Method {
	case http.MethodPost:
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt == mediaGraphQL {
			body, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.MaxJSONBytes+1))
			if err != nil {
				return fmt.Errorf("read graphql request: %w", err)
			}
			if int64(len(body)) > s.cfg.MaxJSONBytes {
				return fmt.Errorf("%w: the query is larger than %d bytes", ErrBodyTooLarge, s.cfg.MaxJSONBytes)
			}
			req.Query = string(body)
		} else if err := s.decodeJSON(w, r, &req); err != nil {
			return err
		}
	default:
		q := r.URL.Query()
		if !q.Has("query") {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			_, err := io.WriteString(w, exec.SDL())
			return err
		}
		req.Query, req.OperationName = q.Get("query"), q.Get("operationName")
		if v := q.Get("variables"); v != "" {
			if err := checkJSONDepth([]byte(v)); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(v), &req.Variables); err != nil {
				return badRequest("variables", "not a JSON object: %v", err)
			}
		}
	}
	if strings.TrimSpace(req.Query) == "" {
		return badRequest("query", "required")
	}
	lim := s.cfg.Query.withDefaults()
	ctx, cancel := context.WithTimeout(r.Context(), lim.GraphQLTimeout)
	defer cancel()
	res := exec.Execute(ctx, req)
	if !res.HasData && len(res.Errors) > 0 && errors.Is(res.Errors[0].Err, graphql.ErrTooComplex) {
		return &InputError{Err: graphql.ErrTooComplex, Fields: []FieldError{{Field: "query", Message: res.Errors[0].Message}}}
	}
	ctype, _ := negotiate(r.Header.Get("Accept"), []string{"application/json", mediaGraphQLResponse})
	status := http.StatusOK
	if ctype == "" {
		ctype = "application/json"
	}
	if ctype == mediaGraphQLResponse && !res.HasData {
		status = http.StatusBadRequest
	}
	body, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("graphql: encode response: %w", err)
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Vary", "Accept")
	w.WriteHeader(status)
	_, err = w.Write(append(body, '\n'))
	return err
}
