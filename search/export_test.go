package search

import "github.com/molgraph/molgraph/queries/sparql"

// ProcedureScans is how many whole-index searches a procedure of
// Index.Procedures ran.
func ProcedureScans(p sparql.Procedure) int64 { return p.(*procedure).scans.Load() }
