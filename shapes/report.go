package shapes

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cayleygraph/quad"
)

// Report is a SHACL validation report (SHACL 3.6.1).
type Report struct {
	// Conforms is true when there are no results (of any severity).
	Conforms bool
	// Results in the order the validator found them.
	Results []Result
}

// Result is one validation result (SHACL 3.6.2).
type Result struct {
	FocusNode quad.Value
	// Path is the result path; nil for results of node shapes.
	Path *Path
	// Value is the value node that caused the result; nil for components
	// that report none (minCount, maxCount, qualified counts, uniqueLang,
	// hasValue).
	Value                     quad.Value
	SourceShape               quad.Value
	SourceConstraintComponent quad.IRI
	Severity                  quad.IRI
	// Messages are the shape's sh:message values, or a message written by the
	// validator when the shape has none.
	Messages []quad.Value
	// Details are the results that made a value node fail a nested shape
	// (sh:node, sh:and, sh:or, sh:xone), written as sh:detail (SHACL 3.6.2.7).
	Details []Result
}

// jsonResult is the JSON form of a Result. Terms are written as strings:
// IRIs as they are, blank nodes as "_:label", literals in N-Triples syntax
// ("\"1.5\"^^<http://www.w3.org/2001/XMLSchema#double>"); the result path in
// SPARQL 1.1 property path syntax.
type jsonResult struct {
	FocusNode                 string       `json:"focus_node"`
	ResultPath                string       `json:"result_path,omitempty"`
	Value                     string       `json:"value,omitempty"`
	SourceShape               string       `json:"source_shape"`
	SourceConstraintComponent string       `json:"source_constraint_component"`
	Severity                  string       `json:"severity"`
	Message                   string       `json:"message,omitempty"`
	Details                   []jsonResult `json:"details,omitempty"`
}

type jsonReport struct {
	Conforms bool         `json:"conforms"`
	Results  []jsonResult `json:"results"`
}

// MarshalJSON writes {"conforms": bool, "results": [...]}, each result with
// focus_node, result_path, value, source_shape, source_constraint_component,
// severity and message.
func (r *Report) MarshalJSON() ([]byte, error) {
	out := jsonReport{Conforms: r.Conforms, Results: make([]jsonResult, 0, len(r.Results))}
	for _, res := range r.Results {
		out.Results = append(out.Results, res.jsonForm())
	}
	return json.Marshal(out)
}

// MarshalJSON writes the result as one JSON object (see Report.MarshalJSON).
func (r Result) MarshalJSON() ([]byte, error) { return json.Marshal(r.jsonForm()) }

func (r Result) jsonForm() jsonResult {
	j := jsonResult{
		FocusNode:                 termString(r.FocusNode),
		SourceShape:               termString(r.SourceShape),
		SourceConstraintComponent: string(r.SourceConstraintComponent),
		Severity:                  string(r.Severity),
		Message:                   r.Message(),
	}
	if r.Path != nil {
		j.ResultPath = r.Path.String()
	}
	if r.Value != nil {
		j.Value = termString(r.Value)
	}
	for _, d := range r.Details {
		j.Details = append(j.Details, d.jsonForm())
	}
	return j
}

// Leaves returns the results that explain the report most precisely: each
// result without details, and the leaves of the details of the others, each
// distinct result once.
func (r *Report) Leaves() []Result {
	var out []Result
	seen := map[string]bool{} // one shape can be reached by several routes
	var walk func(rs []Result)
	walk = func(rs []Result) {
		for _, x := range rs {
			if len(x.Details) == 0 {
				if k := x.String(); !seen[k] {
					seen[k] = true
					out = append(out, x)
				}
			} else {
				walk(x.Details)
			}
		}
	}
	walk(r.Results)
	return out
}

// Message returns the result's messages joined by "; " (lexical forms).
func (r Result) Message() string {
	var parts []string
	for _, m := range r.Messages {
		if s, ok := lexicalString(m); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

// String formats the result on one line, for logs and test failures.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: focus %s", strings.TrimPrefix(string(r.SourceConstraintComponent), nsSH), termString(r.FocusNode))
	if r.Path != nil {
		fmt.Fprintf(&b, " path %s", r.Path)
	}
	if r.Value != nil {
		fmt.Fprintf(&b, " value %s", termString(r.Value))
	}
	fmt.Fprintf(&b, " shape %s", termString(r.SourceShape))
	if m := r.Message(); m != "" {
		fmt.Fprintf(&b, " (%s)", m)
	}
	return b.String()
}

// termString renders a term: IRIs bare, blank nodes "_:x", literals in
// N-Triples syntax.
func termString(v quad.Value) string {
	switch t := v.(type) {
	case nil:
		return ""
	case quad.IRI:
		return string(t)
	case quad.BNode:
		return "_:" + string(t)
	case quad.String:
		return t.String()
	}
	return v.String()
}

func sortValues(vs []quad.Value) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].String() < vs[j].String() })
}

// Quads returns the report as an sh:ValidationReport graph (SHACL 3.6),
// with fresh blank nodes for the report, its results and complex result
// paths, in the default graph.
func (r *Report) Quads() []quad.Quad {
	n := 0
	bnode := func() quad.BNode {
		n++
		return quad.BNode(fmt.Sprintf("report%d", n))
	}
	rep := bnode()
	qs := []quad.Quad{
		{Subject: rep, Predicate: rdfType, Object: shValidationReport},
		{Subject: rep, Predicate: shConforms, Object: quad.TypedString{Value: quad.String(fmt.Sprint(r.Conforms)), Type: xsdBoolean}},
	}
	var write func(parent quad.Value, link quad.IRI, res Result)
	write = func(parent quad.Value, link quad.IRI, res Result) {
		node := bnode()
		qs = append(qs,
			quad.Quad{Subject: parent, Predicate: link, Object: node},
			quad.Quad{Subject: node, Predicate: rdfType, Object: shValidationResult},
			quad.Quad{Subject: node, Predicate: shFocusNode, Object: res.FocusNode},
		)
		if res.Path != nil {
			root, pqs := res.Path.Quads(bnode)
			qs = append(qs, quad.Quad{Subject: node, Predicate: shResultPath, Object: root})
			qs = append(qs, pqs...)
		}
		if res.Value != nil {
			qs = append(qs, quad.Quad{Subject: node, Predicate: shValue, Object: res.Value})
		}
		qs = append(qs,
			quad.Quad{Subject: node, Predicate: shSourceShape, Object: res.SourceShape},
			quad.Quad{Subject: node, Predicate: shSourceComponent, Object: res.SourceConstraintComponent},
			quad.Quad{Subject: node, Predicate: shResultSeverity, Object: res.Severity},
		)
		for _, m := range res.Messages {
			qs = append(qs, quad.Quad{Subject: node, Predicate: shResultMessage, Object: m})
		}
		for _, d := range res.Details {
			write(node, shDetail, d)
		}
	}
	for _, res := range r.Results {
		write(rep, shResult, res)
	}
	return qs
}
