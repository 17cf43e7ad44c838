// Package ontology holds molgraph's vocabulary: the namespaces every
// serialization declares, IRI minting for resources, term constants, typed
// literal constructors, the embedded TBox and JSON-LD context, and the
// mappings between domain values (molecules, calculations, ...) and quads.
//
// # IRI layout
//
// Every resource is an RDF node <BASE>id/<kind>/<id>, where BASE is the
// service's configurable base IRI (default http://localhost:8080/) and kind is
// one of molecule, calculation, receptor, docking-job, batch-job. The
// resource's description lives in one named graph whose name is that same
// IRI. Sub-nodes (descriptors, atoms, energies, poses) are hash IRIs under the
// resource IRI (<…/calc-X#atom-3>), never blank nodes, so that a resource's
// graph can be read, replaced or deleted as a unit and serialized exactly as
// stored.
//
// # Literals
//
// Literals are always built with the constructors of this package
// (Double, Integer, Boolean, DateTime, String, LangString), which produce
// cayley quad values with exact lexical forms and full XSD datatype IRIs.
// quad.Int, quad.Float, quad.Bool and quad.Time are never used: their text
// forms change between quad versions and lose the datatype on round trips.
//
// This package imports none of molgraph's other packages.
package ontology
