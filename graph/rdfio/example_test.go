package rdfio_test

import (
	"os"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
)

func ExampleNewWriter() {
	mol := ontology.ResourceIRI("http://localhost:8080/", ontology.KindMolecule, "mol-X")
	mw := ontology.SubIRI(mol, "mw")
	qs := []quad.Quad{
		{Subject: mol, Predicate: ontology.RDFType, Object: quad.IRI(ontology.MG + "Molecule")},
		{Subject: mol, Predicate: ontology.RDFType, Object: quad.IRI(ontology.OS + "Species")},
		{Subject: mol, Predicate: quad.IRI(ontology.MG + "canonicalSmiles"), Object: ontology.String("CC(=O)Oc1ccccc1C(=O)O")},
		{Subject: mol, Predicate: quad.IRI(ontology.MG + "molecularWeight"), Object: ontology.Double(180.159)},
		{Subject: mol, Predicate: quad.IRI(ontology.MG + "validated"), Object: ontology.Boolean(true)},
		{Subject: mol, Predicate: quad.IRI(ontology.SIO + "SIO_000008"), Object: mw},
		{Subject: mw, Predicate: ontology.RDFType, Object: quad.IRI(ontology.SIO + "CHEMINF_000334")},
		{Subject: mw, Predicate: quad.IRI(ontology.SIO + "SIO_000300"), Object: ontology.Double(180.159)},
		{Subject: mw, Predicate: quad.IRI(ontology.SIO + "SIO_000221"), Object: quad.IRI(ontology.UNIT + "DA")},
	}
	w, err := rdfio.NewWriterOptions(os.Stdout, rdfio.Turtle, rdfio.WriterOptions{
		Prefixes: []ontology.Prefix{{Name: "mg", IRI: ontology.MG}, {Name: "os", IRI: ontology.OS},
			{Name: "sio", IRI: ontology.SIO}, {Name: "unit", IRI: ontology.UNIT}},
	})
	if err != nil {
		panic(err)
	}
	for _, q := range qs {
		if err := w.WriteQuad(q); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	// Output:
	// @prefix mg: <https://w3id.org/molgraph/vocab#> .
	// @prefix os: <http://www.theworldavatar.com/ontology/ontospecies/OntoSpecies.owl#> .
	// @prefix sio: <http://semanticscience.org/resource/> .
	// @prefix unit: <http://qudt.org/vocab/unit/> .
	//
	// <http://localhost:8080/id/molecule/mol-X> a mg:Molecule, os:Species ;
	//     mg:canonicalSmiles "CC(=O)Oc1ccccc1C(=O)O" ;
	//     mg:molecularWeight "180.159"^^<http://www.w3.org/2001/XMLSchema#double> ;
	//     mg:validated true ;
	//     sio:SIO_000008 <http://localhost:8080/id/molecule/mol-X#mw> .
	//
	// <http://localhost:8080/id/molecule/mol-X#mw> a sio:CHEMINF_000334 ;
	//     sio:SIO_000300 "180.159"^^<http://www.w3.org/2001/XMLSchema#double> ;
	//     sio:SIO_000221 unit:DA .
}
