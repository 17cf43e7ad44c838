package graphql

import (
	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/ontology"
)

// This file is the one place that names the graph's predicates and classes
// (spec/GRAPH.md). Every predicate is the one that the service's mappings
// write (ontology/molecule.go, calculation.go, receptor.go, docking.go and
// the job node of jobs/job.go); mapping_test.go builds resources with those
// mappings and checks that every field reads its value back.

func mg(local string) quad.IRI   { return quad.IRI(ontology.MG + local) }
func occ(local string) quad.IRI  { return quad.IRI(ontology.OCC + local) }
func prov(local string) quad.IRI { return quad.IRI(ontology.PROV + local) }
func rdfs(local string) quad.IRI { return quad.IRI(ontology.RDFS + local) }

// Classes of the resources (rdf:type in their own named graph).
var (
	classMolecule    = mg("Molecule")
	classCalculation = mg("Calculation")
	classReceptor    = mg("Receptor")
	classDockingJob  = mg("DockingJob")
	classDockingPose = mg("DockingPose")
)

// Links between resources.
var (
	// calculation -> molecule (GRAPH.md: occ:hasUniqueSpecies).
	predUniqueSpecies = occ("hasUniqueSpecies")
	// job -> receptor and each ligand (GRAPH.md: prov:used).
	predUsed = prov("used")
	// pose -> job (GRAPH.md: prov:wasGeneratedBy).
	predGeneratedBy = prov("wasGeneratedBy")
	// pose -> ligand molecule (GRAPH.md: mg:ligand).
	predLigand = mg("ligand")
)

// scalarKind is the GraphQL type of a literal field.
type scalarKind int

const (
	kindString scalarKind = iota
	kindFloat
	kindInt
	kindBoolean
	kindDateTime // an xsd:dateTime, served as an RFC 3339 String
)

func (k scalarKind) gql() string {
	switch k {
	case kindFloat:
		return "Float"
	case kindInt:
		return "Int"
	case kindBoolean:
		return "Boolean"
	}
	return "String"
}

// literalField maps a GraphQL field to the predicate of its value.
type literalField struct {
	name string
	kind scalarKind
	pred quad.IRI
	// list fields collect every value (sorted); others take one.
	list bool
	// filter adds <name>Lt/Lte/Gt/Gte arguments to the type's list fields
	// (numeric kinds only).
	filter bool
	doc    string
}

// objectType is one resource type of the schema.
type objectType struct {
	name   string // GraphQL type name
	class  quad.IRI
	kind   string // IRI path segment (ontology.KindMolecule, ...); "" for sub-nodes
	doc    string
	fields []literalField
}

// types lists the resource types and their literal fields. Links are
// declared in the schema text (schema.go) and resolved in resolve.go.
func types() []objectType {
	return []objectType{
		{name: "Molecule", class: classMolecule, kind: ontology.KindMolecule,
			doc: "A normalized molecule (mg:Molecule).",
			fields: []literalField{
				{name: "name", kind: kindString, pred: rdfs("label"), doc: "Name given at upload (rdfs:label)."},
				{name: "smiles", kind: kindString, pred: mg("canonicalSmiles"), doc: "Canonical SMILES (mg:canonicalSmiles)."},
				{name: "inchi", kind: kindString, pred: mg("inchi"), doc: "Standard InChI (mg:inchi)."},
				{name: "inchiKey", kind: kindString, pred: mg("inchiKey"), doc: "Standard InChIKey (mg:inchiKey)."},
				{name: "formula", kind: kindString, pred: mg("formula"), doc: "Molecular formula (mg:formula)."},
				{name: "mw", kind: kindFloat, pred: mg("molecularWeight"), filter: true, doc: "Average molecular weight, g/mol (mg:molecularWeight)."},
				{name: "exactMass", kind: kindFloat, pred: mg("exactMass"), filter: true, doc: "Monoisotopic mass, Da (mg:exactMass)."},
				{name: "logp", kind: kindFloat, pred: mg("logP"), filter: true, doc: "Wildman-Crippen logP (mg:logP)."},
				{name: "qed", kind: kindFloat, pred: mg("qed"), filter: true, doc: "QED, Bickerton 2012 (mg:qed)."},
				{name: "tpsa", kind: kindFloat, pred: mg("tpsa"), filter: true, doc: "Topological polar surface area, Å² (mg:tpsa)."},
				{name: "hbd", kind: kindInt, pred: mg("hbd"), filter: true, doc: "Hydrogen-bond donors (mg:hbd)."},
				{name: "hba", kind: kindInt, pred: mg("hba"), filter: true, doc: "Hydrogen-bond acceptors (mg:hba)."},
				{name: "rotatableBonds", kind: kindInt, pred: mg("rotatableBonds"), filter: true, doc: "Rotatable bonds (mg:rotatableBonds)."},
				{name: "heavyAtoms", kind: kindInt, pred: mg("heavyAtoms"), filter: true, doc: "Heavy atoms (mg:heavyAtoms)."},
				{name: "aromaticRings", kind: kindInt, pred: mg("aromaticRings"), filter: true, doc: "Aromatic rings (mg:aromaticRings)."},
				{name: "validated", kind: kindBoolean, pred: mg("validated"), doc: "Passed every validation rule (mg:validated)."},
				{name: "has3D", kind: kindBoolean, pred: mg("has3D"), doc: "Has a 3D conformer (mg:has3D)."},
				{name: "createdAt", kind: kindDateTime, pred: prov("generatedAtTime"), doc: "When it was stored (prov:generatedAtTime)."},
			}},
		{name: "Calculation", class: classCalculation, kind: ontology.KindCalculation,
			doc: "A quantum-chemistry calculation parsed from a log (OntoCompChem, with mg: shortcut properties).",
			fields: []literalField{
				{name: "program", kind: kindString, pred: mg("program"), doc: "Program: Gaussian, ORCA, Psi4, ... (mg:program)."},
				{name: "programVersion", kind: kindString, pred: mg("programVersion"), doc: "Program version (mg:programVersion)."},
				{name: "method", kind: kindString, pred: mg("method"), doc: "Method / level of theory (mg:method)."},
				{name: "basisSet", kind: kindString, pred: mg("basisSet"), doc: "Basis set (mg:basisSet)."},
				{name: "jobTypes", kind: kindString, pred: mg("jobType"), list: true, doc: "Job types: energy, optimization, frequency (mg:jobType)."},
				{name: "formula", kind: kindString, pred: mg("formula"), doc: "Formula of the final geometry (mg:formula)."},
				{name: "charge", kind: kindInt, pred: mg("charge"), filter: true, doc: "Total charge (mg:charge)."},
				{name: "multiplicity", kind: kindInt, pred: mg("multiplicity"), filter: true, doc: "Spin multiplicity (mg:multiplicity)."},
				{name: "atomCount", kind: kindInt, pred: mg("atomCount"), filter: true, doc: "Number of atoms (mg:atomCount)."},
				{name: "scfEnergy", kind: kindFloat, pred: mg("scfEnergy"), filter: true, doc: "Final SCF energy, hartree (mg:scfEnergy)."},
				{name: "zeroPointEnergy", kind: kindFloat, pred: mg("zeroPointEnergy"), filter: true, doc: "Zero-point energy, hartree (mg:zeroPointEnergy)."},
				{name: "enthalpy", kind: kindFloat, pred: mg("enthalpy"), filter: true, doc: "Enthalpy, hartree (mg:enthalpy)."},
				{name: "gibbsEnergy", kind: kindFloat, pred: mg("gibbsEnergy"), filter: true, doc: "Gibbs free energy, hartree (mg:gibbsEnergy)."},
				{name: "homoEnergy", kind: kindFloat, pred: mg("homoEnergy"), filter: true, doc: "HOMO energy, eV (mg:homoEnergy)."},
				{name: "lumoEnergy", kind: kindFloat, pred: mg("lumoEnergy"), filter: true, doc: "LUMO energy, eV (mg:lumoEnergy)."},
				{name: "homoLumoGap", kind: kindFloat, pred: mg("homoLumoGap"), filter: true, doc: "HOMO-LUMO gap, eV (mg:homoLumoGap)."},
				{name: "dipoleMoment", kind: kindFloat, pred: mg("dipoleMoment"), filter: true, doc: "Dipole moment magnitude, debye (mg:dipoleMoment)."},
				{name: "normalTermination", kind: kindBoolean, pred: mg("normalTermination"), doc: "The program ended normally (mg:normalTermination)."},
				{name: "optimizationConverged", kind: kindBoolean, pred: mg("optimizationConverged"), doc: "The geometry optimization converged (mg:optimizationConverged)."},
				{name: "optimizationSteps", kind: kindInt, pred: mg("optimizationSteps"), filter: true, doc: "Geometry optimization steps (mg:optimizationSteps)."},
				{name: "imaginaryFrequencyCount", kind: kindInt, pred: mg("imaginaryFrequencyCount"), filter: true, doc: "Imaginary vibrational frequencies (mg:imaginaryFrequencyCount)."},
				{name: "createdAt", kind: kindDateTime, pred: prov("generatedAtTime"), doc: "When it was stored (prov:generatedAtTime)."},
			}},
		{name: "Receptor", class: classReceptor, kind: ontology.KindReceptor,
			doc: "A docking receptor (mg:Receptor).",
			fields: []literalField{
				{name: "name", kind: kindString, pred: rdfs("label"), doc: "Name (rdfs:label)."},
				{name: "atoms", kind: kindInt, pred: mg("atomCount"), filter: true, doc: "Atoms of the prepared PDBQT (mg:atomCount)."},
				{name: "residues", kind: kindInt, pred: mg("residueCount"), filter: true, doc: "Residues (mg:residueCount)."},
				{name: "chains", kind: kindInt, pred: mg("chainCount"), filter: true, doc: "Chains (mg:chainCount)."},
				{name: "createdAt", kind: kindDateTime, pred: prov("generatedAtTime"), doc: "When it was stored (prov:generatedAtTime)."},
			}},
		{name: "DockingJob", class: classDockingJob, kind: ontology.KindDockingJob,
			doc: "A docking job (mg:DockingJob, a prov:Activity).",
			fields: []literalField{
				{name: "status", kind: kindString, pred: mg("status"), doc: "queued, running, succeeded, failed or cancelled (mg:status)."},
				{name: "pocketMethod", kind: kindString, pred: mg("pocketMethod"), doc: "How the box was chosen: auto, a pocket id (p1, ...) or box (mg:pocketMethod)."},
				{name: "exhaustiveness", kind: kindInt, pred: mg("exhaustiveness"), filter: true, doc: "Vina exhaustiveness (mg:exhaustiveness)."},
				{name: "numModes", kind: kindInt, pred: mg("numModes"), filter: true, doc: "Poses per ligand (mg:numModes)."},
				{name: "energyRange", kind: kindFloat, pred: mg("energyRange"), filter: true, doc: "Energy range, kcal/mol (mg:energyRange)."},
				{name: "seed", kind: kindInt, pred: mg("seed"), doc: "Random seed (mg:seed)."},
				{name: "finishedLigands", kind: kindInt, pred: mg("finishedLigands"), filter: true, doc: "Ligands done (mg:finishedLigands)."},
				{name: "failedLigands", kind: kindInt, pred: mg("failedLigands"), filter: true, doc: "Ligands that could not be docked (mg:failedLigands)."},
				{name: "totalLigands", kind: kindInt, pred: mg("totalLigands"), filter: true, doc: "Ligands in the job (mg:totalLigands)."},
				{name: "bestAffinity", kind: kindFloat, pred: mg("bestAffinity"), filter: true, doc: "Most favourable affinity so far, kcal/mol (mg:bestAffinity)."},
				{name: "createdAt", kind: kindDateTime, pred: mg("createdAt"), doc: "When it was submitted (mg:createdAt)."},
				{name: "startedAt", kind: kindDateTime, pred: prov("startedAtTime"), doc: "prov:startedAtTime."},
				{name: "endedAt", kind: kindDateTime, pred: prov("endedAtTime"), doc: "prov:endedAtTime."},
			}},
		{name: "DockingPose", class: classDockingPose,
			doc: "One docked pose of one ligand (mg:DockingPose).",
			fields: []literalField{
				{name: "mode", kind: kindInt, pred: mg("mode"), filter: true, doc: "Vina mode number, 1 = best (mg:mode)."},
				{name: "bindingAffinity", kind: kindFloat, pred: mg("bindingAffinity"), filter: true, doc: "Affinity, kcal/mol (mg:bindingAffinity)."},
				{name: "rmsdLowerBound", kind: kindFloat, pred: mg("rmsdLowerBound"), filter: true, doc: "RMSD lower bound to mode 1, Å (mg:rmsdLowerBound)."},
				{name: "rmsdUpperBound", kind: kindFloat, pred: mg("rmsdUpperBound"), filter: true, doc: "RMSD upper bound to mode 1, Å (mg:rmsdUpperBound)."},
			}},
	}
}
