// Package graph is the only package that opens Cayley. It provides Store:
// molgraph's quad store with one named graph per resource, a
// content-addressed blob store beside it, and index-backed pattern matching
// for the query layers.
//
// # Backends
//
// Three backends implement the same Store API and pass the same conformance
// suite (graph/graphtest):
//
//   - native Badger (Open, the default): our own Cayley quad store on
//     Badger v4 (package graph/quadstore) with dictionary-encoded terms,
//     SPOG/POSG/OSPG/GSPO indexes, a numeric index for range filters, exact
//     counts, snapshot reads and atomic commits of any size, rolled back on
//     open after a crash;
//   - kv (OpenKV): Cayley v0.7.7's kv layer over our own hidalgo flat.KV
//     adapter (badgerkv.go), kept as a second implementation and as the
//     benchmarks' baseline. The adapter runs Badger in managed mode: every
//     Cayley write transaction is buffered, written with one commit
//     timestamp and becomes visible only when its commit marker is durable,
//     so a transaction of any size is atomic, and a crash mid-write is
//     rolled back on the next open;
//   - memory (OpenMemory): Cayley's memstore, for tests and ephemeral use.
//
// # Key layout of the kv backend
//
// Cayley's kv layer owns the keys it writes (meta/, log/, node and quad
// index buckets). We extend its index list (meta/indexes) with a
// predicate-first index (P,O,S) and a graph-first index (L,S,P), so that
// "?s <p> ?o" and "all quads of graph G" are prefix scans. The adapter adds
// two keys of its own under the reserved prefix "\x00mg/": the last fully
// committed timestamp and the timestamp of a write in progress. The native
// store documents its own layout (graph/quadstore/doc.go).
//
// # Named graphs
//
// Each resource's description is the named graph whose label is the
// resource's IRI. PutGraph replaces a graph atomically (only the difference
// to what is stored is written, so Cayley's reference counts never drift);
// PutGraphs writes many graphs in chunks of whole graphs, each chunk one
// transaction. The default graph seen by queries is the union of all named
// graphs.
//
// # Blobs
//
// Structure files, uploaded logs and poses are stored by SHA-256 in Blobs
// (files under <dir>/blobs/ab/cdef…, written to a temporary file and renamed),
// and linked from the graph by IRI, size and hash.
package graph
