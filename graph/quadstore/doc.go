// Package quadstore is a native Cayley v0.7.7 quad store on Badger v4:
// dictionary-encoded terms, four permutation indexes, a numeric range
// index, snapshot reads and atomic commits of any size.
//
// Store implements Cayley's graph.QuadStore (so Cayley paths, shapes and
// its optimizer run on it) and adds molgraph's fast paths: Match (a pattern
// scan), NumericRange (an index range scan for filters such as
// mg:molecularWeight < 500), ReplaceGraphs (replace many named graphs in
// one commit, writing only the difference) and Snapshot/View (a whole
// Cayley query on one consistent state).
//
// # Key layout
//
// One Badger database in managed mode. Node ids are uint64: 8 bytes big
// endian in node keys; in index keys an order-preserving variable-length
// form (a length byte, then the significant bytes), so small ids are short:
//
//	t <term>            -> id            term dictionary (terms up to 512 bytes)
//	h <sha256(term)>    -> id            term dictionary (longer terms)
//	i <id>              -> counts term   node record: quads using the node as
//	                                     subject, predicate, object, label
//	                                     (4 uvarints), then the term encoding
//	S <s><p><o><g>      -> ""            SPOG index
//	P <p><o><s><g>      -> ""            POSG index
//	O <o><s><p><g>      -> ""            OSPG index
//	G <g><s><p><o>      -> ""            GSPO index
//	n <p><num><s><o><g> -> ""            numeric index: <num> is the object's
//	                                     value as an order-preserving float64
//	Mstate              -> version, next id, #quads, #nodes
//	Mpending, Mcommitted -> commit timestamps (see Commits)
//
// Terms are encoded by AppendTerm: a tag byte and the payload, so every
// quad.Value type (IRI, blank node, string, language-tagged and typed
// literal with any datatype, and Cayley's Int/Float/Bool/Time) round-trips
// exactly; XSD datatypes get a one-byte code. The label id 0 is Cayley's
// default graph. A pattern with bound terms is a prefix scan of the index
// whose key starts with the most of them; the two combinations no index
// starts with (predicate+graph, object+graph) scan the smaller of the two
// one-term prefixes (graphs are small) and filter.
//
// The node record counts make a node's quad count per direction one read
// (Cayley's size estimates are exact), tell when a node is no longer used
// (its dictionary entries are deleted; ids are never reused), and keep the
// store's node count exact.
//
// # Commits
//
// Badger runs in managed mode. A commit at timestamp T writes the key
// Mpending = T, then every entry at version T through a WriteBatch (which
// splits them into as many Badger transactions as needed), then Mcommitted
// = T. Readers read at the last committed timestamp, so the entries are
// invisible until the marker is written: a commit of any size is atomic.
// If the process dies in between, Open finds Mpending > Mcommitted and
// rolls back: every key with a version above the committed timestamp is
// restored to its committed value, as a new commit. A failed write is
// rolled back the same way at once.
//
// Writers are serialised. A write resolves its terms (an in-process cache,
// then the dictionary), computes the net change of its quads against the
// last commit, and writes the index entries, the changed node records and
// the state. Reads pin the commit timestamp they read, so Badger keeps the
// versions they need until they finish; Cayley iterators pin it from their
// first Next to their end (or Close).
package quadstore
