// Package search is molgraph's structure search: exact, substructure,
// superstructure and similarity search over the registered molecules, for
// the REST route /v1/molecules/search (handlers/search.go), GraphQL and the
// SPARQL procedures of the mgs: namespace (procedure.go).
//
// # What is stored
//
// Registration (jobs/batch) computes, for the molecule RDKit's
// MolFromSmiles reads from its canonical SMILES (chem.FingerprintsOf), its
// Morgan radius-2 2048-bit fingerprint, its 2048-bit pattern fingerprint and
// a binary pickle, and commits them with the molecule's graph, in the graph
// store's side keyspace (graph.SideEntry, Entries). They come from the chem
// call that normalizes the molecule (chem.Input.Fingerprints: one parse),
// computed on the pipeline's own molecule where no standardization step
// changed it, else on the canonical SMILES parsed again:
//
//	f <id>                 -> v1 | morgan (256 bytes) | pattern (256 bytes)
//	p <id>                 -> RDKit pickle of the molecule
//	k <inchikey> <id>      -> ""  (exact search by InChIKey or its first block)
//
// where <id> is the molecule id ("mol-" and 26 base-32 characters) and all
// fingerprint words are little-endian uint64s (chem.FP bit order).
//
// # The index in memory
//
// Open reads the f entries into contiguous arrays ordered by the Morgan
// fingerprint's popcount (the chemfp/FPSim2 layout): one bucket per
// popcount 0..2048, each holding its molecules' Morgan words, pattern words
// and id suffixes back to back (32+32 words and 26 bytes, 538 bytes per
// molecule). Buckets only grow: a commit's new molecules are appended (the
// store calls the index back after each commit, graph.Store.WatchSide), and
// a search works on an immutable copy of the bucket headers taken when it
// starts, so it sees exactly the molecules committed before it began.
//
// Open checks the loaded entries against the graph: every molecule
// (ontology.MoleculeClass) must have one, and every entry a molecule. If
// the counts differ (a store of another backend, an older store without
// fingerprints, a store written without the index), the missing entries
// are computed from the molecules' canonical SMILES and stored, and stray
// ones deleted. The entries commit with the molecules, so a crash (kill
// -9) cannot leave one without the other on the native backend.
//
// # Searches
//
// Similarity: Tanimoto on the Morgan fingerprints, equal to RDKit's
// BulkTanimotoSimilarity (c / (a + b - c); 1 for two empty fingerprints).
// With threshold t only buckets whose popcount b satisfies
// min(a,b)/max(a,b) >= t can hold a hit (Swamidass and Baldi's bound) and
// only they are scanned; a top-k search visits buckets from the best bound
// down and stops when the bound falls below its k-th score. Large scans are
// split across all cores.
//
// Substructure: the query's pattern fingerprint must be a subset of the
// molecule's (RDKit's screen, as SubstructLibrary uses it), and for a
// molecule held in memory its chem.Summary must meet the query's chem.Need
// (atom-kind counts, hetero bond kinds, the lengths of its simple cycles,
// and those of the recursive SMARTS every image of a query atom
// satisfies); candidates are
// then matched with RDKit's SubstructMatch on their pickles, in batches on
// one goroutine per core, each with its own copy of the query (recursive
// SMARTS queries cache state). Superstructure reverses both: the stored
// molecule's pattern bits must be a subset of the query's, and the stored
// molecule must match inside the query.
//
// Exact: by InChIKey (all of it, or the first block: match=connectivity),
// InChI (its key), or a SMILES or molfile, registered-normalized through the
// chem pool to its canonical SMILES and so its id.
package search
