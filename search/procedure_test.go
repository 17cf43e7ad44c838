package search_test

import (
	"context"
	"slices"
	"testing"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/queries/sparql"
	"github.com/molgraph/molgraph/search"
)

// TestProcedureBoundSubject: a search procedure whose molecule is already
// bound (FILTER EXISTS, MINUS, OPTIONAL) gives the answers of the unbound
// form, and tests each molecule alone instead of searching the whole index
// once per outer row (at most one whole search per distinct call).
func TestProcedureBoundSubject(t *testing.T) {
	ctx := context.Background()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := search.Open(ctx, st, testPool(t), base, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	register(t, st, nci(t, 200))
	procs := x.Procedures()
	n := len(allIDs(t, x))
	if n < 150 {
		t.Fatalf("%d molecules indexed", n)
	}
	run := func(q string) []string {
		t.Helper()
		res, err := sparql.Run(ctx, st, "PREFIX mgs: <"+search.NS+">\n"+q, base, sparql.Options{Procedures: procs})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		if err := res.Solutions(func(s sparql.Solution) error {
			row := ""
			for _, v := range s {
				if v != nil {
					row += v.String() + " "
				}
			}
			out = append(out, row)
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		slices.Sort(out)
		return out
	}
	mols := "?m a <" + string(ontology.MoleculeClass) + "> ."
	smi := nci(t, 200)
	for _, c := range []struct {
		name, unbound, bound string
		maxScans             int64 // whole searches of the bound form
	}{
		{"substructure-exists", `SELECT ?m { ?m mgs:hasSubstructure "c1ccccc1" }`,
			`SELECT ?m { ` + mols + ` FILTER EXISTS { ?m mgs:hasSubstructure "c1ccccc1" } }`, 0},
		{"smarts-minus", `SELECT ?m { ` + mols + ` MINUS { ?m mgs:hasSubstructure "[#7;R]" } }`,
			`SELECT ?m { ` + mols + ` FILTER NOT EXISTS { ?m mgs:hasSubstructure "[#7;R]" } }`, 0},
		{"superstructure-exists", `SELECT ?m { ?m mgs:substructureOf "` + smi[0] + `" }`,
			`SELECT ?m { ` + mols + ` FILTER EXISTS { ?m mgs:substructureOf "` + smi[0] + `" } }`, 0},
		{"similarity-optional", `SELECT ?m ?s { ?m mgs:similarTo [ mgs:query "CC(=O)Nc1ccccc1" ; mgs:threshold 0.2 ; mgs:score ?s ] }`,
			`SELECT ?m ?s { ` + mols + ` OPTIONAL { ?m mgs:similarTo [ mgs:query "CC(=O)Nc1ccccc1" ; mgs:threshold 0.2 ; mgs:score ?s ] } FILTER(BOUND(?s)) }`, 0},
		{"similarity-default-threshold", `SELECT ?m { ?m mgs:similarTo "` + smi[1] + `" }`,
			`SELECT ?m { ` + mols + ` FILTER EXISTS { ?m mgs:similarTo "` + smi[1] + `" } }`, 0},
		{"top-k-exists", `SELECT ?m ?s { ?m mgs:similarTo [ mgs:query "c1ccccc1O" ; mgs:top 7 ; mgs:score ?s ] }`,
			`SELECT ?m ?s { ` + mols + ` OPTIONAL { ?m mgs:similarTo [ mgs:query "c1ccccc1O" ; mgs:top 7 ; mgs:score ?s ] } FILTER(BOUND(?s)) }`, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := run(c.unbound)
			p := procs[search.HasSubstructure]
			if c.name[:3] == "sup" {
				p = procs[search.SubstructureOf]
			} else if c.name[:3] == "sim" || c.name[:3] == "top" {
				p = procs[search.SimilarTo]
			}
			before := search.ProcedureScans(p)
			got := run(c.bound)
			if len(want) == 0 || len(want) == n {
				t.Fatalf("unbound form: %d of %d molecules: the case tests nothing", len(want), n)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("bound form: %d answers, unbound %d", len(got), len(want))
			}
			if scans := search.ProcedureScans(p) - before; scans > c.maxScans {
				t.Fatalf("bound form over %d molecules ran %d whole searches, want <= %d", n, scans, c.maxScans)
			}
		})
	}
}
