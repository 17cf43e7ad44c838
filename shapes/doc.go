// Package shapes is molgraph's ontology gate: a SHACL Core validator
// (W3C Recommendation "Shapes Constraint Language", 2017, sections 2–4) and the
// shapes that every stored resource kind must satisfy.
//
// # Validator
//
// No maintained SHACL library for Go is available from the Go module proxy
// (the W3C implementation report lists none, and the few repositories that
// exist are unpublished or unmaintained), so the validator is written here,
// from the Recommendation, and checked against the W3C SHACL Core test suite
// (../shared/rdf-conformance/shacl/core) by w3c_test.go.
//
// Graphs are plain []quad.Quad (graph labels are ignored; a graph is the set
// of its triples). Compile turns a shapes graph into a *Schema, the shape
// model; Schema.Validate checks a data graph against it and returns a
// *Report, which serializes as an sh:ValidationReport (Report.Quads) and as
// JSON. Options.TBox adds rdfs:subClassOf triples to those of the data graph
// when computing SHACL instances (sh:targetClass, implicit class targets and
// sh:class).
//
// Every SHACL Core feature is supported: all four target kinds and implicit
// class targets; node and property shapes; predicate, sequence, alternative,
// inverse, zero-or-more, one-or-more and zero-or-one paths; and the 28 core
// constraint components (class, datatype with ill-formed literal detection,
// nodeKind, min/maxCount, min/max Inclusive/Exclusive, min/maxLength,
// pattern with flags, languageIn, uniqueLang, equals, disjoint, lessThan,
// lessThanOrEquals, not, and, or, xone, node, property,
// qualifiedValueShape with qualifiedMin/MaxCount and
// qualifiedValueShapesDisjoint, closed with ignoredProperties, hasValue, in),
// plus sh:deactivated, sh:severity and sh:message. SHACL-SPARQL is not
// supported. sh:pattern uses Go's RE2 engine, which differs from XPath regular
// expressions in rare constructs (no back-references).
//
// Recursive shapes are not defined by SHACL 1.0; the validator treats a
// shape that is re-entered for the same focus node as conforming, so
// validation always terminates.
//
// # molgraph's shapes
//
// The shapes graphs for calculations, molecules, receptors, docking jobs and
// docking poses are embedded Turtle files (calculation.ttl, molecule.ttl,
// receptor.ttl, docking-job.ttl, pose.ttl), returned by Calculation,
// Molecule, Receptor, DockingJob, Pose and, concatenated, by All (served at
// GET /v1/shapes).
package shapes
