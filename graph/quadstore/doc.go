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
//	S <s><p><o><g>      -> <p><o><g>...  SPOG index, chunked: one key per
//	                                     chunk of up to 128 quads of subject
//	                                     s (chunk.go)
//	P <p><o><s><g>      -> ""            POSG index
//	O <o><s><p><g>      -> ""            OSPG index
//	G <g><s><p><o>      -> <s><p><o>...  GSPO index, chunked: one key per
//	                                     chunk of up to 128 quads of graph g,
//	                                     keyed by its first (s, p, o), the
//	                                     value lists them (chunk.go)
//	n <p><num><s><o><g> -> ""            numeric index: <num> is the object's
//	                                     value as an order-preserving float64
//	X <key>             -> value         side keyspace: entries that commit
//	                                     with the quads (side.go)
//	Mstate              -> version, next id, #quads, #nodes
//	Mpending, Mcommitted -> commit timestamps (see Commits)
//
// Terms are encoded by AppendTerm: a tag byte and the payload, so every
// quad.Value type (IRI, blank node, string, language-tagged and typed
// literal with any datatype, and Cayley's Int/Float/Bool/Time) round-trips
// exactly; XSD datatypes get a one-byte code. The label id 0 is Cayley's
// default graph. A pattern with bound terms is a prefix scan of the index
// whose key starts with the most of them (for the chunked indexes, the
// subject or graph only); the combinations no index starts with (predicate+graph,
// object+graph, and the subject or graph with more terms) scan the smaller of the
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
// Mpending = T, then every entry at version T, then Mcommitted = T.
// Readers read at the last committed timestamp, so the entries are
// invisible until the marker is written: a commit of any size is atomic.
// The entries go through Badger's KVLoader (the write path of a restore:
// no per-key transaction bookkeeping, no "Txn is too big"), in parts: a
// part is handed to Badger's writer on a goroutine while the next one is
// prepared, at most three parts are in flight, and Mcommitted is written
// only after all of them. If the process dies in between, Open finds
// Mpending > Mcommitted and rolls back: every key with a version above the
// committed timestamp is restored to its committed value, as a new commit.
// A failed write (or a write cancelled through its context after it began)
// is rolled back the same way at once. With Options.SyncWrites, a commit
// does not write Mcommitted itself: Sync (sync.go) fsyncs Badger's logs,
// then writes Mcommitted for the newest visible commit, then fsyncs again,
// once for every group of commits, so that after a power loss Mcommitted
// never names a commit whose entries did not reach the disk. Mpending is written just before the
// first entry, so a write that changes nothing writes nothing.
//
// Writers are serialised. A write resolves its terms (an in-process cache,
// then the dictionary; ReplaceGraphs does this for all its graphs first, on
// Options.Workers goroutines, so that bad input fails before anything is
// written), then computes the net change of its quads against the last
// commit part by part (some 4,096 quad changes each: a new graph needs no
// read of its old quads). For each part, new terms get the next ids in
// order of use, and the keys of each index and of the numeric index are
// sorted and encoded on their own goroutines and written in key order
// (Badger's memtable is a skiplist; ordered inserts stay in the CPU
// cache). The node count changes are summed over the whole commit and
// written once at its end, with the chunks the commit changed (each
// chunk key once per commit), the dictionary entries of new and deleted
// terms and the state.
//
// Badger's single write goroutine bounds a bulk load: some 3 entries per
// quad (2 indexes, the subject and graph chunks, the numeric index, the
// node records and dictionary entries of new terms). Memtables of 64 MB with up to 8 level-0 tables
// before compaction keep the flushing and compacting behind a load cheap;
// Options.MemoryLimitMB (or GOMEMLIMIT) keeps the garbage collector from
// letting the heap grow to twice Badger's memtables.
//
// A term is looked up in an in-process cache, then in a Bloom filter of
// the dictionary's keys (filter.go), and only if the filter does not rule
// it out, in Badger. Most terms of a new resource are new, and a Badger
// read that misses costs a search of every memtable and level. Open
// starts the filter's scan of the dictionary on a goroutine (Open itself
// reads no terms; until the scan is done lookups go to Badger); a commit
// adds its new terms before it becomes visible; a filter that fills up is
// replaced by one twice the size, scanned the same way. Deleted terms stay
// in the filter, so it serves snapshots at or after the commit it was
// scanned from.
//
// Badger maps its table files into the process and writes and compacts
// through those mappings, so without help every table a load writes or
// compacts stays in the process's resident set. On Linux a trimmer drops
// the mappings' resident pages when the file-backed part of the process's
// resident set is above Options.TrimAboveMB (checked every Options.TrimInterval; trim_linux.go);
// the pages stay in the page cache and fault back in when read.
//
// # Columns
//
// For scans, the triples of each recent commit are also kept in memory as
// sorted uint32 id columns per predicate (PSO and POS; columns.go): a base
// plus small sorted runs of the triples added and deleted since, made by
// each commit from its own changes and folded into a new base on a
// goroutine when they grow (columns_delta.go); views at a commit answer
// triple patterns with a bound predicate from that commit's columns
// (View.MatchIDs with Triples, View.MatchColumnIDs) instead of iterating
// Badger. The columns are derived: built whole from Badger at Open.
//
// # Values
//
// The value column (values.go) holds, per term id, the value of an XSD
// number, boolean or dateTime literal (a kind byte and 64 bits, 9 bytes an
// id), so that a query engine compares, sorts and sums without decoding
// terms. Ids never change meaning, so it only grows: a goroutine folds the
// ids allocated since its last run after Open and after commits
// (View.Values, Store.BuildValues). It is bounded as the columns are
// (Options.ColumnsMaxTriples ids).
//
// Reads pin the commit timestamp they read, so Badger keeps the versions
// they need until they finish; Cayley iterators pin it from their first
// Next to their end (or Close).
package quadstore
