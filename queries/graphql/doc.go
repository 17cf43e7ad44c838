// Package graphql serves molgraph's graph through GraphQL: a schema for
// Molecule, Calculation, Receptor, DockingJob and DockingPose with their
// links (molecule -> calculations; job -> receptor, ligands, poses -> ligand
// molecule), numeric filters, cursor pagination, introspection, and depth and
// cost limits.
//
// Queries are parsed and validated by github.com/vektah/gqlparser/v2; the
// executor (exec.go) and introspection (introspection.go) are ours, because
// gqlparser has none and gqlgen generates code for static Go types.
//
// # Mapping to the graph
//
// Each object is a node of the graph (spec/GRAPH.md). Literal fields read
// the predicates the service's mappings write: the mg: shortcut properties
// (mg:molecularWeight, mg:homoEnergy, ...), rdfs:label for names and PROV-O
// times; links follow occ:hasUniqueSpecies, prov:used, prov:wasGeneratedBy
// and mg:ligand. vocab.go names every predicate and class in one table and
// schema.go generates the schema text from it, so aligning a predicate is a
// one-line change. A node's outgoing triples are read once per request, with
// one subject lookup.
//
// # Lists
//
// Every list is a Relay-style connection (edges { cursor node }, nodes,
// pageInfo { hasNextPage endCursor }) taking first (default 20, at most
// Options.MaxPageSize) and after (an opaque cursor naming the last node
// seen). Root lists are in IRI order, so their cursors are keysets that stay
// valid when nodes are added or removed; lists of poses are ordered by
// binding affinity, most favourable first. Numeric fields marked as
// filterable add <field>Lt, Lte, Gt and Gte arguments (e.g.
// molecules(mwLt: 500, logpLt: 5)); a node without a value for a filtered
// field is left out. Only forward pagination (no last/before) is offered.
//
// # Limits
//
// Every query is bounded before work starts (limits.go): its tokens while
// parsing (Options.MaxTokens); before validation, whose overlapping-fields
// rule is quadratic, its selections with fragments expanded
// (MaxSelections), the fields merged under one response name
// (MaxFieldsPerName) and the distinct fragments spread into one selection
// (MaxFragmentSpreads); after validation its depth (nesting of fields,
// introspection excluded; MaxDepth) and its cost (MaxCost: every field 1,
// a structure search (similarTo, substructure) SearchCost more,
// the fields under a list once per requested element and at least once, so
// first: 0 is not free, and introspection counted exactly on the in-memory
// schema). Exceeding any is a request error wrapping ErrTooComplex with an
// extensions.code naming the limit. Validation errors suggest names ("Did
// you mean ...?") only for queries up to 4 KiB (each suggestion is an edit
// distance per candidate), and at most 100 are returned.
package graphql
