// Package sparql is a SPARQL 1.1 query engine over a quad source such as
// *graph.Store.
//
// Parse turns query text into a Query (a syntax error is a *SyntaxError with
// line and column). A query nested deeper than MaxDepth is a syntax error
// too: the parser and every later pass recurse over the query's trees, and
// the bound keeps them far from the Go stack's limit (see MaxDepth); so is
// one with more than MaxPatterns triple patterns and operators. At
// execution, Options.MaxLiteral bounds the strings and numbers
// expressions build and Options.MaxMemory the tables a query holds. Exec runs a Query against a Source and a Dataset and
// returns a Result: solutions for SELECT (streamed through
// Result.Solutions), a boolean for ASK, triples for CONSTRUCT and DESCRIBE
// (streamed through Result.Triples). WriteJSON, WriteXML, WriteCSV and
// WriteTSV serialize SELECT and ASK results in the W3C result formats.
//
// Pipeline: the parser translates group graph patterns into the SPARQL
// algebra (section 18 of the recommendation); at execution a planner orders
// the triple patterns of each basic graph pattern by the source's
// EstimateCount and pushes filters down to the first point where their
// variables are bound, and when the source is a NumericRanger (the native
// store's numeric index) a pattern "?s <p> ?o" whose object those filters
// bound by numeric comparisons with constants is read by a range scan
// (the filters still run: the range only prunes; with columns and folded
// values, only a range under 1/16 of the predicate is, since a column read
// with a folded filter is far cheaper per triple). The evaluator is still
// tuple-at-a-time and push-based: every operator calls the next one for
// each solution, a row of decoded terms (type row), so solutions flow from
// the source to the result writer without intermediate tables, except
// where the algebra needs them (ORDER BY, GROUP BY, DISTINCT, the right
// side of MINUS, and sub-patterns whose correlated evaluation would be
// wrong). It is not the columnar, vectorized engine issue 16 asks for;
// what it has of one:
//
//   - Reads by term id from in-memory columns. The native store keeps,
//     for each commit, per predicate, the (subject, object) id pairs
//     sorted both ways (quadstore.Columns, 16 bytes a triple: a base plus
//     the sorted runs of the triples each commit added and deleted,
//     folded in the background). A query evaluates each BGP step with a
//     constant predicate in its commit's columns (matchColumns), keyed by
//     the ids the earlier steps bound, instead of a Badger seek (about
//     0.5 µs a quad scanned, 2-4 µs a seek) or a hash table. A step keyed
//     by subject or by object alone reads through a cursor kept for the
//     whole BGP evaluation (matchCursor, quadstore.ColumnCursor), which
//     gallops forward from the previous key: after a first step that
//     scans a column sorted by subject, the next steps see their keys in
//     ascending order, so each joined column is read nearly sequentially,
//     a merge join without materializing either side (a smaller key
//     is found by a binary search before the last one, as without a
//     cursor). Only a view of
//     a commit whose columns are not made yet (while they are built whole
//     after Open) reads Badger.
//   - Late decoding. Variables that are only counted (unused.go: one
//     occurrence, read by nothing but COUNT(?v)) or only joined on inside
//     one BGP by id are bound without decoding their terms; decoding is
//     most of the cost of a column scan.
//   - Values folded into ids (folded.go). The native store keeps a value
//     column: per term id, the value of an XSD integer, decimal, double,
//     float, boolean or dateTime literal in 64 bits and a kind byte
//     (quadstore.Values, 9 bytes an id, extended after commits). A
//     variable bound by one BGP's column reads and read only by
//     expressions, ORDER BY, GROUP BY, aggregates, a CONSTRUCT template or
//     the outermost projection (unused.go: value-read) is bound to its
//     term's id. FILTER comparisons and arithmetic, ABS/CEIL/FLOOR/ROUND,
//     isNumeric, ORDER BY keys and SUM/AVG/MIN/MAX read its number from
//     the column; GROUP BY decodes each distinct id once (and, with one
//     plain key, finds a solution's group by the key's id); the result
//     writer decodes the solutions it writes (top-k: the k kept). Whatever
//     the column has no number for is decoded and takes the decoded path,
//     so results are the decoded path's to the lexical form (tested with
//     folding on and off).
//   - Shared subject ids (shared.go). A variable that joins BGPs (a join
//     of groups, the right side of OPTIONAL, MINUS or FILTER (NOT)
//     EXISTS) and is bound to a subject wherever its value can reach a
//     solution is bound to its id by every BGP step and numeric range
//     scan, so the hashed semi-, anti- and left joins (exists.go) and
//     MINUS (minus.go) key and compare ids, and COUNT(DISTINCT ?v) counts
//     ids; nothing decodes the outer rows of "?m a mg:Molecule FILTER NOT
//     EXISTS { ?c occ:hasUniqueSpecies ?m }". Literals are left out (a
//     literal's id is not its term under sameTerm, which folds language
//     tags' case).
//   - Stars in id batches (star.go). A BGP whose plan starts with a star
//     (one subject variable, constant predicates, fresh or constant
//     objects) runs the star's steps over batches of 1,024 ids: the
//     first step's column scan fills the batch, each further step looks
//     its subjects up through its column cursor, and the filters placed
//     after a step that compare its object with a numeric constant run
//     on the object ids through the value column while the batch is
//     built; only the solutions that pass the whole star are bound into
//     a row. FILTER conditions are split into their && conjuncts first,
//     so each runs after the first step that binds its variables, and
//     the planner prefers, at equal cost, the step that completes a
//     filter.
//   - Stars on two cores (star_par.go). After a star's first 8 batches
//     (8,192 first-step triples), it borrows spare workers from
//     Options.Helpers (a pool shared by all queries, taken without
//     waiting: none free, it stays sequential; the server lends none by
//     default, since on the shared build machine it did not pay); from then on each raw
//     batch of the scan is run through the star's steps and folded
//     filters by an idle helper (its own column cursors) or, when none is
//     idle, by the query's goroutine, which binds the batches' outputs
//     strictly in scan order: everything after the star (expressions,
//     GROUP BY, aggregates, DISTINCT, ORDER BY, the row cap) sees the
//     sequential input in the sequential order. A batch that needs the
//     query's state (a filter on a term without a folded number) or
//     outgrows 8,192 solutions is run again sequentially at its turn.
//   - Batch filters (star.go). A star step's compiled filters (comparisons
//     and IN / NOT IN of the object with numeric constants) run over the
//     whole batch: the objects' values are read by one tight loop
//     (graph.TermValues.Gather), so the cache misses of the value column
//     (its ids are in no useful order) overlap instead of stalling one
//     by one, and doubles and integers are compared on their bits; the
//     values of the objects a batch binds by id are kept in a small
//     direct-mapped cache (valueCache) for the expressions, ORDER BY keys
//     and aggregates that read them next.
//   - Join over UNION (distribute.go). The parser rewrites a BGP joined
//     with a UNION into the UNION of the BGP merged into each branch when
//     the algebra allows it, so each branch is one BGP the planner orders
//     (the selective filtered pattern first); a variable in BGPs that are
//     alternatives of one UNION is still join-only or value-read in each
//     (unused.go).
//   - Substituted evaluations (bgpCall). A BGP evaluated once per outer
//     solution (the right side of an OPTIONAL, join or EXISTS) keeps its
//     plan, row buffers, continuations and column cursors across calls,
//     so each call costs its lookups, and with the columns' cursors a
//     lookup counts a quarter of hashSeekCost when deciding whether a
//     table of the right side alone pays (substCost).
//   - COUNT(DISTINCT ?v) of a variable that occurs only as a subject counts
//     ids (an IRI's or blank node's id is as distinct as its term): the ids
//     are collected and sorted, not hashed as decoded terms.
//   - ORDER BY parses its keys once per solution and, with a LIMIT, keeps
//     only OFFSET+LIMIT rows in a heap (order.go); MINUS is a hashed
//     anti-join (minus.go), by ids (a set of the right side's ids,
//     streamed, not materialized) when the only variable its sides can
//     share is a shared id variable; a group's filters are placed below
//     its MINUS operators, on their left side (MINUS keeps its left
//     solutions unchanged); MIN/MAX keep their best value parsed.
//
// Still per solution: expressions over decoded terms (strings, and
// numbers of variables bound elsewhere than by one BGP's column reads)
// parse lexical forms, an arithmetic result is built as a literal,
// DISTINCT and COUNT(DISTINCT) of other variables hash term strings,
// every operator after a BGP's leading star is a call per solution, and
// only a star's steps use a second core (not GROUP BY, DISTINCT, ORDER BY,
// joins after the star or scans that are not stars).
//
// Joins are index nested loops: the right side is evaluated with the left
// solution's bindings substituted, which is the SPARQL semantics whenever
// the right side's "risky" variables (those whose binding from outside would
// change its result: OPTIONAL right sides, FILTER and BIND scope) are not
// bound; otherwise it is evaluated once, cached, and joined by
// compatibility. FILTER (NOT) EXISTS, OPTIONAL and joins whose right side
// is a BGP (or a FILTER over one reading only its own variables) switch
// to a hashed semi-, anti-, left or inner join once the left side's
// solutions would have paid for evaluating the right side alone (its
// patterns' counts, multiplied across parts that share no variable: a
// right side such as { ?b p ?x . ?a q ?k } is a cross product alone and
// stays two lookups per row; one evaluated alone stops past four times
// its estimate; exists.go). (NOT) EXISTS whose pattern shares only a
// shared id variable with the row is a lookup in a streamed set of ids.
//
// Without columns, within a basic graph pattern over the default graph, a
// pattern looked up many times is switched to a hash join: its triples are
// read once into a table keyed by the join terms (by the store's term ids
// on the native store, so the keys are never decoded), once the lookups
// made would have paid for the scan, or at once when it follows a full or
// range scan large enough (see hashjoin.go).
// Each evaluation reads through the source's read view when it has one
// (ReadViewer: *graph.Store): one snapshot for the whole query, pooled
// iterators, and triples of the merged graphs reported once by the store
// (TripleMatcher) instead of being deduplicated here.
//
// Search procedures (Options.Procedures, see Procedure): a BGP's triples
// whose predicate is a registered procedure (with, in the blank-node form,
// the triples of their blank node) are taken out of the BGP and evaluated
// as calls whose hits bind the subject and outputs. A call runs before the
// BGP's other patterns unless its input or an argument is a variable those
// patterns bind; then it runs once per solution of them (a variable input
// or argument is read when the call runs; an input unbound then is an
// ArgError, an argument unbound then is an output). Hits stream into the
// rest of the evaluation (they are not materialized, so they count
// against the row cap and timeout, not the memory budget). Procedure
// patterns are not scoped by GRAPH: a search covers the whole store.
//
// Dataset: with no FROM/FROM NAMED and no protocol dataset, the default graph
// is the union of all named graphs of the source (molgraph's model) and the
// named graphs are all graphs. A Dataset gives an explicit default graph (the
// RDF merge of the listed graphs) and named graphs.
//
// Property paths are evaluated by the engine (not Cayley's recursive
// follow): p* and p+ run a breadth-first search per start node, with
// zero-length paths for constant terms even when they are not in the data.
package sparql
