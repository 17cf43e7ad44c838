package shapes

import (
	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/ontology"
)

// Namespaces used by the validator (ontology owns their spelling).
const (
	nsSH   = ontology.SH
	nsRDF  = ontology.RDF
	nsRDFS = ontology.RDFS
	nsXSD  = ontology.XSD
	nsOWL  = ontology.OWL
)

// Severities of validation results (SHACL 2.1.5).
const (
	Violation = quad.IRI(nsSH + "Violation")
	Warning   = quad.IRI(nsSH + "Warning")
	Info      = quad.IRI(nsSH + "Info")
)

const (
	rdfType      = quad.IRI(nsRDF + "type")
	rdfFirst     = quad.IRI(nsRDF + "first")
	rdfRest      = quad.IRI(nsRDF + "rest")
	rdfNil       = quad.IRI(nsRDF + "nil")
	rdfLangStr   = quad.IRI(nsRDF + "langString")
	rdfsClass    = quad.IRI(nsRDFS + "Class")
	rdfsSubClass = quad.IRI(nsRDFS + "subClassOf")
	owlClass     = quad.IRI(nsOWL + "Class")
	xsdString    = quad.IRI(nsXSD + "string")
	xsdBoolean   = quad.IRI(nsXSD + "boolean")

	shNodeShape     = quad.IRI(nsSH + "NodeShape")
	shPropertyShape = quad.IRI(nsSH + "PropertyShape")

	shTargetClass      = quad.IRI(nsSH + "targetClass")
	shTargetNode       = quad.IRI(nsSH + "targetNode")
	shTargetSubjectsOf = quad.IRI(nsSH + "targetSubjectsOf")
	shTargetObjectsOf  = quad.IRI(nsSH + "targetObjectsOf")

	shPath             = quad.IRI(nsSH + "path")
	shInversePath      = quad.IRI(nsSH + "inversePath")
	shAlternativePath  = quad.IRI(nsSH + "alternativePath")
	shZeroOrMorePath   = quad.IRI(nsSH + "zeroOrMorePath")
	shOneOrMorePath    = quad.IRI(nsSH + "oneOrMorePath")
	shZeroOrOnePath    = quad.IRI(nsSH + "zeroOrOnePath")
	shDeactivated      = quad.IRI(nsSH + "deactivated")
	shSeverity         = quad.IRI(nsSH + "severity")
	shMessage          = quad.IRI(nsSH + "message")
	shClass            = quad.IRI(nsSH + "class")
	shDatatype         = quad.IRI(nsSH + "datatype")
	shNodeKind         = quad.IRI(nsSH + "nodeKind")
	shMinCount         = quad.IRI(nsSH + "minCount")
	shMaxCount         = quad.IRI(nsSH + "maxCount")
	shMinExclusive     = quad.IRI(nsSH + "minExclusive")
	shMinInclusive     = quad.IRI(nsSH + "minInclusive")
	shMaxExclusive     = quad.IRI(nsSH + "maxExclusive")
	shMaxInclusive     = quad.IRI(nsSH + "maxInclusive")
	shMinLength        = quad.IRI(nsSH + "minLength")
	shMaxLength        = quad.IRI(nsSH + "maxLength")
	shPattern          = quad.IRI(nsSH + "pattern")
	shFlags            = quad.IRI(nsSH + "flags")
	shLanguageIn       = quad.IRI(nsSH + "languageIn")
	shUniqueLang       = quad.IRI(nsSH + "uniqueLang")
	shEquals           = quad.IRI(nsSH + "equals")
	shDisjoint         = quad.IRI(nsSH + "disjoint")
	shLessThan         = quad.IRI(nsSH + "lessThan")
	shLessThanOrEquals = quad.IRI(nsSH + "lessThanOrEquals")
	shNot              = quad.IRI(nsSH + "not")
	shAnd              = quad.IRI(nsSH + "and")
	shOr               = quad.IRI(nsSH + "or")
	shXone             = quad.IRI(nsSH + "xone")
	shNode             = quad.IRI(nsSH + "node")
	shProperty         = quad.IRI(nsSH + "property")
	shQualifiedShape   = quad.IRI(nsSH + "qualifiedValueShape")
	shQualifiedMin     = quad.IRI(nsSH + "qualifiedMinCount")
	shQualifiedMax     = quad.IRI(nsSH + "qualifiedMaxCount")
	shQualifiedDisj    = quad.IRI(nsSH + "qualifiedValueShapesDisjoint")
	shClosed           = quad.IRI(nsSH + "closed")
	shIgnoredProps     = quad.IRI(nsSH + "ignoredProperties")
	shHasValue         = quad.IRI(nsSH + "hasValue")
	shIn               = quad.IRI(nsSH + "in")

	shIRI                = quad.IRI(nsSH + "IRI")
	shBlankNode          = quad.IRI(nsSH + "BlankNode")
	shLiteral            = quad.IRI(nsSH + "Literal")
	shBlankNodeOrIRI     = quad.IRI(nsSH + "BlankNodeOrIRI")
	shBlankNodeOrLiteral = quad.IRI(nsSH + "BlankNodeOrLiteral")
	shIRIOrLiteral       = quad.IRI(nsSH + "IRIOrLiteral")

	shValidationReport = quad.IRI(nsSH + "ValidationReport")
	shValidationResult = quad.IRI(nsSH + "ValidationResult")
	shConforms         = quad.IRI(nsSH + "conforms")
	shResult           = quad.IRI(nsSH + "result")
	shFocusNode        = quad.IRI(nsSH + "focusNode")
	shResultPath       = quad.IRI(nsSH + "resultPath")
	shValue            = quad.IRI(nsSH + "value")
	shSourceShape      = quad.IRI(nsSH + "sourceShape")
	shSourceComponent  = quad.IRI(nsSH + "sourceConstraintComponent")
	shResultSeverity   = quad.IRI(nsSH + "resultSeverity")
	shResultMessage    = quad.IRI(nsSH + "resultMessage")
	shDetail           = quad.IRI(nsSH + "detail")
)

// component returns the IRI of the constraint component named name
// ("MinCount" -> sh:MinCountConstraintComponent).
func component(name string) quad.IRI { return quad.IRI(nsSH + name + "ConstraintComponent") }
