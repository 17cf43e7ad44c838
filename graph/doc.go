// Package graph is the only package that opens Cayley. It provides Store:
// molgraph's quad store with one named graph per resource, a
// content-addressed blob store beside it, and index-backed pattern matching
// for the query layers.
//
// # Backends
//
// Two backends implement the same Store API and pass the same conformance
// suite (graph/graphtest):
//
//   - native Badger (Open, the default): our own Cayley quad store on
//     Badger v4 (package graph/quadstore) with dictionary-encoded terms,
//     SPOG/POSG/OSPG/GSPO indexes, a numeric index for range filters, exact
//     counts, snapshot reads and atomic commits of any size, rolled back on
//     open after a crash; it documents its own key layout
//     (graph/quadstore/doc.go);
//   - memory (OpenMemory): Cayley's memstore, for tests and ephemeral use.
//
// A third, Cayley v0.7.7's kv layer over a Badger adapter, was the first
// baseline; slower at everything than the native store, it was retired
// once the memory backend served as the suite's second implementation.
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
// Structure files, uploaded logs, poses and batch spools are stored by
// SHA-256 in Blobs (files under <dir>/blobs/ab/cdef…, written to a
// temporary file, fsynced, renamed, and the directory fsynced), and linked
// from the graph by IRI, size and hash ("F mg:sha256 <hex>"). Nothing is
// deleted on write; BlobCollector deletes blobs that no quad names any more
// (after a grace period, or at once for the spool of an ended batch job),
// never a pinned one (a spool between its Put and its job's commit). The
// temporary files of a process that died are removed at Open.
//
// # Durability (Options.SyncWrites, on in the server by default)
//
// A write (PutGraphs, DeleteGraph) returns once its commit is on disk: on
// the native backend the commit is visible at once, then the writer waits
// for a group fsync (quadstore.Store.Sync) that covers it, outside the
// writer lock, so concurrent writers share one round of fsyncs and the
// next writer commits while the previous one waits. Precisely:
//
//   - a write that returned (a 201 or 202 sent) survives kill -9 and a power
//     loss; so does every blob it references (blobs are fsynced before the
//     commit that names them);
//   - a write that did not return may be lost by a power loss or a kill,
//     even if readers saw it (visibility comes before durability); the
//     next Open rolls back every commit after the last durable one, whole,
//     never part of one, so the store is what some prefix of the writes
//     made it;
//   - without SyncWrites, a returned write survives kill -9 (Badger's logs
//     are in the page cache) but not a power loss.
//
// # Disk full
//
// Badger writes its logs through memory mappings, where a full disk is a
// SIGBUS, not an error. So the Store keeps Options.MinFreeBytes in reserve
// on the data directory's file system: below it, writes and blob puts fail
// with ErrNoSpace before touching Badger (nothing is half-written), Ready
// reports it (the server's /readyz answers 503), reads go on, and writes
// work again as soon as space is freed (checked at every write and every
// Ready). An ENOSPC from a plain file write (a blob, a spool) is ErrNoSpace
// too, and leaves no partial file.
package graph
