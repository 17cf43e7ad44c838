package ontology

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Errors of the calculation mapping.
var (
	// ErrInvalidCalculation: a CalculationRecord cannot be mapped (bad id,
	// element symbol, ...), or the quads of a calculation hold a term that
	// does not decode (a number that is not a number, a missing node).
	ErrInvalidCalculation = errors.New("invalid calculation")
	// ErrNoCalculation: the quads hold no calculation node (or more than one).
	ErrNoCalculation = errors.New("no calculation in quads")
)

// CalculationRecord is a parsed quantum-chemistry calculation as the graph
// stores it and as GET /v1/qm/calculations/{id} returns it (spec/API.md,
// "Quantum chemistry logs"): plain values, so that this package needs none
// of the parser packages. The parsers' model (parsers/qm.Calculation) is
// converted to a record by features.Record; CalculationQuads maps a record
// to quads and CalculationFromQuads reads it back losslessly.
//
// Units: energies in hartree (Eh), orbital energies in eV, coordinates in
// ångström, wavenumbers in cm⁻¹, IR intensities in km/mol, dipole moments in
// debye, rotational constants in GHz. Absent quantities are nil or empty and
// omitted from JSON, never 0.
type CalculationRecord struct {
	// ID is the calculation's id ("calc-…") and IRI its resource IRI; both
	// are set by CalculationFromQuads and ignored by CalculationQuads, which
	// takes them from its arguments.
	ID  string `json:"id"`
	IRI string `json:"iri"`
	// Program is "Gaussian", "ORCA", "Psi4", "NWChem" or "xtb";
	// ProgramVersion as the program prints it ("16 Rev. C.01", "4.2.0").
	Program        string `json:"program"`
	ProgramVersion string `json:"program_version,omitempty"`
	// JobTypes are "energy", "optimization" and "frequency", in that
	// canonical order (CalculationQuads sorts them; RDF has no order).
	JobTypes []string `json:"job_types,omitempty"`
	Method   string   `json:"method,omitempty"`
	BasisSet string   `json:"basis_set,omitempty"`
	// Charge in elementary charges and spin Multiplicity (2S+1).
	Charge       *int `json:"charge,omitempty"`
	Multiplicity *int `json:"multiplicity,omitempty"`
	// Formula is the Hill formula of the final geometry; NAtoms its size.
	Formula string `json:"formula,omitempty"`
	NAtoms  int    `json:"natoms"`
	// Geometry is the final geometry.
	Geometry []CalculationAtom `json:"geometry,omitempty"`
	// Elements are the element symbols of the atoms, in order, of a log
	// that named its atoms but printed no coordinates (xtb single points
	// and Hessians); empty whenever Geometry is set. Its triples mark the
	// geometry mg:hasCoordinates false, and its atoms carry elements only.
	Elements     []string                 `json:"elements,omitempty"`
	Energies     *CalculationEnergies     `json:"energies,omitempty"`
	Optimization *CalculationOptimization `json:"optimization,omitempty"`
	Frequencies  *CalculationFrequencies  `json:"frequencies,omitempty"`
	Orbitals     *CalculationOrbitals     `json:"orbitals,omitempty"`
	Dipole       *CalculationDipole       `json:"dipole_debye,omitempty"`
	// MullikenCharges per atom of the final geometry (e), in atom order.
	MullikenCharges []float64 `json:"mulliken_charges,omitempty"`
	// RotationalConstants A, B, C in GHz as the program prints them.
	RotationalConstants []float64 `json:"rotational_constants_ghz,omitempty"`
	NormalTermination   bool      `json:"normal_termination"`
	// MoleculeID is the id of the registered molecule (mg:Molecule) whose
	// InChIKey matches the final geometry, "" if none.
	MoleculeID string `json:"molecule_id,omitempty"`
	// Source is the uploaded log, kept as a blob.
	Source *CalculationSource `json:"source,omitempty"`
	// CreatedAt is when the calculation was stored (UTC); zero if unknown.
	CreatedAt time.Time `json:"created_at,omitzero"`
	// Step places the calculation in the multi-step log it was read from
	// (nil for a single-step log); see CalculationGroup.
	Step *CalculationStep `json:"step,omitempty"`
}

// CalculationStep places a calculation in its multi-step log: the group of
// the upload, its 1-based position, and the step before it (the
// calculation it was informed by, "" for the first).
type CalculationStep struct {
	Group    string `json:"group"`
	Index    int    `json:"index"`
	Previous string `json:"previous,omitempty"`
}

// CalculationAtom is one atom of a geometry: element symbol ("C"; "" for a
// ghost atom) and Cartesian coordinates in Å.
type CalculationAtom struct {
	Element string  `json:"element"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Z       float64 `json:"z"`
}

// CalculationEnergies are total energies in Eh.
type CalculationEnergies struct {
	// SCF is the final SCF energy, SCFSteps every SCF energy in order.
	SCF      *float64  `json:"scf_hartree,omitempty"`
	SCFSteps []float64 `json:"scf_steps_hartree,omitempty"`
	// ZPE is the zero-point correction; Enthalpy and Gibbs are the sums of
	// the electronic energy and the thermal enthalpy / free energy.
	ZPE      *float64 `json:"zpe_hartree,omitempty"`
	Enthalpy *float64 `json:"enthalpy_hartree,omitempty"`
	Gibbs    *float64 `json:"gibbs_hartree,omitempty"`
	// Correlated are the total energies of the post-Hartree-Fock methods
	// the log reports, by canonical method name ("MP2", "MP3",
	// "MP4(SDQ)", "MP4(SDTQ)", "CCSD", "CCSD(T)", "QCISD(T)", ...): the
	// lower orders a program prints on the way are kept beside the
	// method of the level of theory (see CorrelatedAtLevel).
	Correlated map[string]float64 `json:"correlated_hartree,omitempty"`
}

// CorrelatedAtLevel returns the correlated total energy of the level of
// theory method ("CCSD(T)", "MP2", Gaussian's "MP4" meaning MP4(SDTQ),
// ORCA's "DLPNO-CCSD(T)" and Psi4's "DF-MP2" by their canonical names), if
// the energies hold it.
func (e *CalculationEnergies) CorrelatedAtLevel(method string) (float64, bool) {
	if e == nil || len(e.Correlated) == 0 {
		return 0, false
	}
	m := strings.ToUpper(method)
	for _, pre := range [...]string{"DLPNO-", "RI-", "DF-", "CONV-"} {
		m = strings.TrimPrefix(m, pre)
	}
	switch m {
	case "MP4":
		m = "MP4(SDTQ)"
	case "CCSD-T":
		m = "CCSD(T)"
	case "QCISD-T":
		m = "QCISD(T)"
	}
	v, ok := e.Correlated[m]
	return v, ok
}

// CalculationOptimization summarises a geometry optimisation.
type CalculationOptimization struct {
	Converged bool `json:"converged"`
	Steps     int  `json:"steps"`
}

// CalculationFrequencies are the harmonic vibrational modes of the last
// frequency analysis: wavenumbers (cm⁻¹, imaginary as negative), IR
// intensities (km/mol; nil if not printed) and the number of imaginary modes.
type CalculationFrequencies struct {
	Wavenumbers    []float64 `json:"wavenumbers_cm1"`
	IRIntensities  []float64 `json:"ir_intensities_km_mol,omitempty"`
	ImaginaryCount int       `json:"imaginary_count"`
}

// CalculationOrbitals are frontier-orbital energies in eV. For unrestricted
// calculations HOMO is the highest occupied orbital of either spin and LUMO
// the lowest unoccupied one; HOMOMinus1/2 are the next lower orbitals of the
// HOMO's spin channel and LUMOPlus1/2 the next higher ones of the LUMO's.
// Gap is LUMO − HOMO.
type CalculationOrbitals struct {
	HOMO       *float64 `json:"homo_ev,omitempty"`
	LUMO       *float64 `json:"lumo_ev,omitempty"`
	Gap        *float64 `json:"gap_ev,omitempty"`
	HOMOMinus1 *float64 `json:"homo_minus_1_ev,omitempty"`
	HOMOMinus2 *float64 `json:"homo_minus_2_ev,omitempty"`
	LUMOPlus1  *float64 `json:"lumo_plus_1_ev,omitempty"`
	LUMOPlus2  *float64 `json:"lumo_plus_2_ev,omitempty"`
}

// CalculationDipole is a dipole moment in debye.
type CalculationDipole struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Z     float64 `json:"z"`
	Total float64 `json:"total"`
}

// CalculationSource describes the uploaded log blob.
type CalculationSource struct {
	Filename string `json:"filename"`
	SHA256   string `json:"sha256"` // lower-case hex
	Bytes    int64  `json:"bytes"`
}

// Job types of CalculationRecord.JobTypes, in canonical order.
const (
	JobEnergy       = "energy"
	JobOptimization = "optimization"
	JobFrequency    = "frequency"
)

// Calculation classes (CalculationClass) and other terms of the mapping.
var (
	mgCalculation       = quad.IRI(MG + "Calculation")
	occGaussian         = quad.IRI(OCC + "GaussianCalculation")
	occG03              = quad.IRI(OCC + "G03")
	occG09              = quad.IRI(OCC + "G09")
	occG16              = quad.IRI(OCC + "G16")
	mgOrcaCalculation   = quad.IRI(MG + "OrcaCalculation")
	mgPsi4Calculation   = quad.IRI(MG + "Psi4Calculation")
	mgNWChemCalculation = quad.IRI(MG + "NWChemCalculation")
	mgXtbCalculation    = quad.IRI(MG + "XtbCalculation")
	occHasUniqueSpecies = quad.IRI(OCC + "hasUniqueSpecies")
	provWasDerivedFrom  = quad.IRI(PROV + "wasDerivedFrom")
	provGeneratedAtTime = quad.IRI(PROV + "generatedAtTime")
	unitHartree         = quad.IRI(UNIT + "E_h")
	unitElectronVolt    = quad.IRI(UNIT + "EV")
	unitAngstrom        = quad.IRI(UNIT + "ANGSTROM")
	unitGigaHertz       = quad.IRI(UNIT + "GigaHZ")
	unitReciprocalCm    = quad.IRI(UNIT + "PER-CentiM")
	gcAtomicUnit        = quad.IRI(GC + "atomicUnit")
)

// CalculationClass returns the OntoCompChem / molgraph class of a
// calculation run with program at version: occ:G03, occ:G09 or occ:G16 for
// Gaussian versions starting with "03", "09", "16" (occ:GaussianCalculation
// otherwise), mg:OrcaCalculation, mg:Psi4Calculation, mg:NWChemCalculation,
// mg:XtbCalculation, and mg:Calculation for anything else.
func CalculationClass(program, version string) quad.IRI {
	if program == "Gaussian" {
		v := strings.TrimSpace(version)
		switch {
		case strings.HasPrefix(v, "03"), strings.HasPrefix(v, "2003"):
			return occG03
		case strings.HasPrefix(v, "09"), strings.HasPrefix(v, "2009"):
			return occG09
		case strings.HasPrefix(v, "16"), strings.HasPrefix(v, "2016"):
			return occG16
		}
		return occGaussian
	}
	switch program {
	case "ORCA":
		return mgOrcaCalculation
	case "Psi4":
		return mgPsi4Calculation
	case "NWChem":
		return mgNWChemCalculation
	case "xtb":
		return mgXtbCalculation
	}
	return mgCalculation
}

// isCalculationClass reports whether c is a class CalculationClass returns.
func isCalculationClass(c quad.IRI) bool {
	switch c {
	case mgCalculation, occGaussian, occG03, occG09, occG16,
		mgOrcaCalculation, mgPsi4Calculation, mgNWChemCalculation, mgXtbCalculation:
		return true
	}
	return false
}

// Predicates and classes of the mapping (unexported: CalculationQuads and
// CalculationFromQuads are the interface; the TBox documents the terms).
var (
	occHasEnvironment          = quad.IRI(OCC + "hasEnvironment")
	occHasInitialization       = quad.IRI(OCC + "hasInitialization")
	occHasProgram              = quad.IRI(OCC + "hasProgram")
	occHasProgramVersion       = quad.IRI(OCC + "hasProgramVersion")
	occHasOutputFile           = quad.IRI(OCC + "hasOutputFile")
	occInitializationModule    = quad.IRI(OCC + "InitializationModule")
	occLevelOfTheory           = quad.IRI(OCC + "LevelOfTheory")
	occHasLevelOfTheory        = quad.IRI(OCC + "hasLevelOfTheory")
	occHasSpinMultiplicity     = quad.IRI(OCC + "hasSpinMultiplicity")
	occScfEnergy               = quad.IRI(OCC + "ScfEnergy")
	occZeroPointEnergy         = quad.IRI(OCC + "ZeroPointEnergy")
	occElectronicAndZPEEnergy  = quad.IRI(OCC + "ElectronicAndZPEEnergy")
	occHasFrequencies          = quad.IRI(OCC + "hasFrequencies")
	occRotationalConstants     = quad.IRI(OCC + "RotationalConstants")
	occHasRotationalConstants  = quad.IRI(OCC + "hasRotationalConstants")
	occHasRotationalConstCount = quad.IRI(OCC + "hasRotationalConstantsCount")
	occGeometryType            = quad.IRI(OCC + "GeometryType")
	occHasGeometryType         = quad.IRI(OCC + "hasGeometryType")

	gcSourcePackage        = quad.IRI(GC + "SourcePackage")
	gcHasParameter         = quad.IRI(GC + "hasParameter")
	gcMethodologyFeature   = quad.IRI(GC + "MethodologyFeature")
	gcBasisSet             = quad.IRI(GC + "BasisSet")
	gcHasBasisSet          = quad.IRI(GC + "hasBasisSet")
	gcHasMoleculeProperty  = quad.IRI(GC + "hasMoleculeProperty")
	gcMoleculeProperty     = quad.IRI(GC + "MoleculeProperty")
	gcHasName              = quad.IRI(GC + "hasName")
	gcHasMolecule          = quad.IRI(GC + "hasMolecule")
	gcMolecule             = quad.IRI(GC + "Molecule")
	gcHasAtom              = quad.IRI(GC + "hasAtom")
	gcAtom                 = quad.IRI(GC + "Atom")
	gcIsElement            = quad.IRI(GC + "isElement")
	gcHasNumberOfAtoms     = quad.IRI(GC + "hasNumberOfAtoms")
	gcHasAtomCoordinate    = [3]quad.IRI{quad.IRI(GC + "hasAtomCoordinateX"), quad.IRI(GC + "hasAtomCoordinateY"), quad.IRI(GC + "hasAtomCoordinateZ")}
	gcHasFormalCharge      = quad.IRI(GC + "hasFormalCharge")
	gcIntegerValue         = quad.IRI(GC + "IntegerValue")
	gcFloatValue           = quad.IRI(GC + "FloatValue")
	gcHasValue             = quad.IRI(GC + "hasValue")
	gcHasUnit              = quad.IRI(GC + "hasUnit")
	gcIsCalculationOn      = quad.IRI(GC + "isCalculationOn")
	gcGeometryOptimization = quad.IRI(GC + "GeometryOptimization")
	gcVibrationalAnalysis  = quad.IRI(GC + "VibrationalAnalysis")
	gcHasResult            = quad.IRI(GC + "hasResult")
	gcFrequency            = quad.IRI(GC + "Frequency")
	gcHasVibrationCount    = quad.IRI(GC + "hasVibrationCount")
	gcHasElectronicEnergy  = quad.IRI(GC + "hasElectronicEnergy")

	mgSinglePoint     = quad.IRI(MG + "SinglePoint")
	mgEnthalpyEnergy  = quad.IRI(MG + "EnthalpyEnergy")
	mgGibbsFreeEnergy = quad.IRI(MG + "GibbsFreeEnergy")
	mgAtomIndex       = quad.IRI(MG + "atomIndex")
	mgMullikenCharge  = quad.IRI(MG + "mullikenCharge")
	mgIRIntensities   = quad.IRI(MG + "irIntensities")
	mgSCFEnergySteps  = quad.IRI(MG + "scfEnergySteps")
	mgHasCoordinates  = quad.IRI(MG + "hasCoordinates")

	mgCorrelatedEnergyClass = quad.IRI(MG + "CorrelatedEnergy")
	mgCorrelationMethod     = quad.IRI(MG + "correlationMethod")
	mgCorrelatedEnergy      = quad.IRI(MG + "correlatedEnergy")

	// Shortcuts on the calculation node.
	mgProgram            = quad.IRI(MG + "program")
	mgProgramVersion     = quad.IRI(MG + "programVersion")
	mgJobType            = quad.IRI(MG + "jobType")
	mgMethod             = quad.IRI(MG + "method")
	mgBasisSet           = quad.IRI(MG + "basisSet")
	mgCharge             = quad.IRI(MG + "charge")
	mgMultiplicity       = quad.IRI(MG + "multiplicity")
	mgAtomCount          = quad.IRI(MG + "atomCount")
	mgSCFEnergy          = quad.IRI(MG + "scfEnergy")
	mgZeroPointEnergy    = quad.IRI(MG + "zeroPointEnergy")
	mgEnthalpy           = quad.IRI(MG + "enthalpy")
	mgGibbsEnergy        = quad.IRI(MG + "gibbsEnergy")
	mgHomoEnergy         = quad.IRI(MG + "homoEnergy")
	mgLumoEnergy         = quad.IRI(MG + "lumoEnergy")
	mgHomoLumoGap        = quad.IRI(MG + "homoLumoGap")
	mgDipoleMoment       = quad.IRI(MG + "dipoleMoment")
	mgDipoleMomentXYZ    = [3]quad.IRI{quad.IRI(MG + "dipoleMomentX"), quad.IRI(MG + "dipoleMomentY"), quad.IRI(MG + "dipoleMomentZ")}
	mgNormalTermination  = quad.IRI(MG + "normalTermination")
	mgOptConverged       = quad.IRI(MG + "optimizationConverged")
	mgOptSteps           = quad.IRI(MG + "optimizationSteps")
	mgImaginaryFreqCount = quad.IRI(MG + "imaginaryFrequencyCount")
)

// orbitalTerms lists the OntoCompChem frontier-orbital classes, their value
// properties and the hash fragments of their nodes.
var orbitalTerms = [...]struct {
	class, prop quad.IRI
	frag        string
	get         func(*CalculationOrbitals) **float64
}{
	{quad.IRI(OCC + "HomoEnergy"), quad.IRI(OCC + "hasHomoEnergy"), "homo-energy", func(o *CalculationOrbitals) **float64 { return &o.HOMO }},
	{quad.IRI(OCC + "HomoMinusOneEnergy"), quad.IRI(OCC + "hasHomoMinusOneEnergy"), "homo-minus-one-energy", func(o *CalculationOrbitals) **float64 { return &o.HOMOMinus1 }},
	{quad.IRI(OCC + "HomoMinusTwoEnergy"), quad.IRI(OCC + "hasHomoMinusTwoEnergy"), "homo-minus-two-energy", func(o *CalculationOrbitals) **float64 { return &o.HOMOMinus2 }},
	{quad.IRI(OCC + "LumoEnergy"), quad.IRI(OCC + "hasLumoEnergy"), "lumo-energy", func(o *CalculationOrbitals) **float64 { return &o.LUMO }},
	{quad.IRI(OCC + "LumoPlusOneEnergy"), quad.IRI(OCC + "hasLumoPlusOneEnergy"), "lumo-plus-one-energy", func(o *CalculationOrbitals) **float64 { return &o.LUMOPlus1 }},
	{quad.IRI(OCC + "LumoPlusTwoEnergy"), quad.IRI(OCC + "hasLumoPlusTwoEnergy"), "lumo-plus-two-energy", func(o *CalculationOrbitals) **float64 { return &o.LUMOPlus2 }},
}

// energyTerms lists the total-energy result nodes (value on
// gc:hasElectronicEnergy, unit E_h) with their shortcut properties.
var energyTerms = [...]struct {
	class    quad.IRI
	frag     string
	shortcut quad.IRI
	get      func(*CalculationEnergies) **float64
}{
	{occScfEnergy, "scf-energy", mgSCFEnergy, func(e *CalculationEnergies) **float64 { return &e.SCF }},
	{occZeroPointEnergy, "zero-point-energy", mgZeroPointEnergy, func(e *CalculationEnergies) **float64 { return &e.ZPE }},
	{mgEnthalpyEnergy, "enthalpy", mgEnthalpy, func(e *CalculationEnergies) **float64 { return &e.Enthalpy }},
	{mgGibbsFreeEnergy, "gibbs-energy", mgGibbsEnergy, func(e *CalculationEnergies) **float64 { return &e.Gibbs }},
}

// jobOrder is the canonical order of job types, with the class and hash
// fragment of each job node.
var jobOrder = [...]struct {
	name  string
	class quad.IRI
	frag  string
}{
	{JobEnergy, mgSinglePoint, "single-point"},
	{JobOptimization, gcGeometryOptimization, "geometry-optimization"},
	{JobFrequency, gcVibrationalAnalysis, "vibrational-analysis"},
}

// CalculationQuads maps a calculation record to quads in the named graph of
// the calculation <base>id/calculation/<id>, following OntoCompChem v1 as The
// World Avatar writes it, with the deviations documented in the TBox
// (typed values, QUDT units, mg: classes for non-Gaussian programs, eV for
// orbital energies, hash IRIs for every sub-node). The layout (C is the
// calculation IRI, M the molecule, B the blob of the log):
//
//	C a <CalculationClass>, mg:Calculation ;
//	  occ:hasEnvironment C#environment ; occ:hasInitialization C#initialization ;
//	  gc:isCalculationOn C#single-point | C#geometry-optimization | C#vibrational-analysis,
//	      C#scf-energy, C#zero-point-energy, C#electronic-and-zpe-energy, C#enthalpy,
//	      C#gibbs-energy, C#homo-energy, C#homo-minus-{one,two}-energy, C#lumo-energy,
//	      C#lumo-plus-{one,two}-energy, C#rotational-constants, C#geometry-type ;
//	  occ:hasUniqueSpecies M ; prov:wasDerivedFrom B ; prov:generatedAtTime t ;
//	  mg:program, mg:programVersion, mg:jobType, mg:method, mg:basisSet, mg:charge,
//	  mg:multiplicity, mg:formula, mg:atomCount, mg:scfEnergy, mg:zeroPointEnergy,
//	  mg:enthalpy, mg:gibbsEnergy, mg:correlatedEnergy (at the level of theory), mg:homoEnergy, mg:lumoEnergy, mg:homoLumoGap,
//	  mg:dipoleMoment(X|Y|Z), mg:normalTermination, mg:optimizationConverged,
//	  mg:optimizationSteps, mg:imaginaryFrequencyCount (shortcuts).
//	C#environment a gc:SourcePackage ; occ:hasProgram ; occ:hasProgramVersion ; occ:hasOutputFile B .
//	C#initialization a occ:InitializationModule ; gc:hasParameter C#level-of-theory, C#basis-set ;
//	  gc:hasMoleculeProperty C#molecule-property .
//	C#level-of-theory a gc:MethodologyFeature, occ:LevelOfTheory ; occ:hasLevelOfTheory "B3LYP" .
//	C#basis-set a gc:BasisSet ; gc:hasBasisSet "6-31G(d)" .
//	C#molecule-property a gc:MoleculeProperty ; gc:hasName "C2H6O" ; gc:hasMolecule C#composition-C … .
//	C#composition-C a gc:Molecule ; gc:hasNumberOfAtoms 2 ; gc:hasAtom C#composition-C-atom .
//	C#composition-C-atom a gc:Atom ; gc:isElement pt:C .
//	C#<job> a mg:SinglePoint | gc:GeometryOptimization | gc:VibrationalAnalysis ; gc:hasMolecule C#molecule .
//	C#vibrational-analysis gc:hasResult C#frequencies .
//	C#frequencies a gc:Frequency ; gc:hasUnit unit:PER-CentiM ; gc:hasVibrationCount n ;
//	  occ:hasFrequencies "ν1 ν2 …" ; mg:irIntensities "I1 I2 …" .
//	C#molecule a gc:Molecule ; gc:hasAtom C#atom-1 … ; gc:hasFormalCharge C#formal-charge ;
//	  occ:hasSpinMultiplicity m ; mg:hasCoordinates false (only for rec.Elements: a log
//	  that printed no coordinates; its atoms then have mg:atomIndex, gc:isElement and
//	  mg:mullikenCharge only) .
//	C#formal-charge a gc:IntegerValue ; gc:hasValue q ; gc:hasUnit gc:atomicUnit .
//	C#atom-i a gc:Atom ; mg:atomIndex i ; gc:isElement pt:X ; mg:mullikenCharge q ;
//	  gc:hasAtomCoordinate{X,Y,Z} C#atom-i-{x,y,z} .
//	C#atom-i-x a gc:FloatValue ; gc:hasValue x ; gc:hasUnit unit:ANGSTROM .
//	C#scf-energy a occ:ScfEnergy ; gc:hasElectronicEnergy C#scf-energy-value ; mg:scfEnergySteps "E1 E2 …" .
//	C#<energy>-value a gc:FloatValue ; gc:hasValue E ; gc:hasUnit unit:E_h .
//	C#correlated-energy-<m> a mg:CorrelatedEnergy ; mg:correlationMethod "CCSD(T)" ;
//	  gc:hasElectronicEnergy C#correlated-energy-<m>-value .  (one per method; <m> is the
//	  method in lower case with runs of other characters as '-': "ccsd-t", "mp4-sdq")
//	C#homo-energy a occ:HomoEnergy ; occ:hasHomoEnergy C#homo-energy-value .  (unit:EV; likewise the others)
//	C#rotational-constants a occ:RotationalConstants ; gc:hasUnit unit:GigaHZ ;
//	  occ:hasRotationalConstants "A B C" ; occ:hasRotationalConstantsCount 3 .
//	C#geometry-type a occ:GeometryType ; occ:hasGeometryType "atomic" | "linear" | "nonlinear" .
//	B a mg:File ; mg:fileName ; mg:byteSize ; mg:sha256 .
//
// Vectors whose order matters (frequencies, IR intensities, rotational
// constants, SCF steps) are space-separated lists of shortest round-trip
// decimal numbers in an xsd:string, as OntoCompChem stores frequencies.
// C#electronic-and-zpe-energy (SCF + ZPE) and C#geometry-type are derived
// and not read back. rec.ID and rec.IRI are ignored. The error wraps
// ErrInvalidCalculation.
func CalculationQuads(base, id string, rec *CalculationRecord) ([]quad.Quad, error) {
	if rec == nil {
		return nil, fmt.Errorf("ontology: calculation quads: nil record: %w", ErrInvalidCalculation)
	}
	if !validSegment(id) {
		return nil, fmt.Errorf("ontology: calculation quads: id %q: %w", id, ErrInvalidCalculation)
	}
	if rec.MoleculeID != "" && !validSegment(rec.MoleculeID) {
		return nil, fmt.Errorf("ontology: calculation quads: molecule id %q: %w", rec.MoleculeID, ErrInvalidCalculation)
	}
	if rec.Source != nil && !validHex64(rec.Source.SHA256) {
		return nil, fmt.Errorf("ontology: calculation quads: source sha256 %q: %w", rec.Source.SHA256, ErrInvalidCalculation)
	}
	if st := rec.Step; st != nil && (!validSegment(st.Group) || st.Index < 1 || st.Previous != "" && !validSegment(st.Previous)) {
		return nil, fmt.Errorf("ontology: calculation quads: step %+v: %w", *st, ErrInvalidCalculation)
	}
	for i, a := range rec.Geometry {
		if a.Element != "" && !validElement(a.Element) {
			return nil, fmt.Errorf("ontology: calculation quads: atom %d: element %q: %w", i+1, a.Element, ErrInvalidCalculation)
		}
	}
	if len(rec.Elements) > 0 && len(rec.Geometry) > 0 {
		return nil, fmt.Errorf("ontology: calculation quads: both a geometry and an element list: %w", ErrInvalidCalculation)
	}
	for i, e := range rec.Elements {
		if !validElement(e) {
			return nil, fmt.Errorf("ontology: calculation quads: atom %d: element %q: %w", i+1, e, ErrInvalidCalculation)
		}
	}
	// composition is the atoms the composition is counted from.
	composition := rec.Geometry
	if len(composition) == 0 {
		for _, e := range rec.Elements {
			composition = append(composition, CalculationAtom{Element: e})
		}
	}
	jobs, err := canonicalJobs(rec.JobTypes)
	if err != nil {
		return nil, fmt.Errorf("ontology: calculation quads: %w", err)
	}

	c := ResourceIRI(base, KindCalculation, id)
	m := &mapper{graph: c}
	sub := func(frag string) quad.IRI { return SubIRI(c, frag) }

	m.add(c, RDFType, CalculationClass(rec.Program, rec.ProgramVersion))
	if CalculationClass(rec.Program, rec.ProgramVersion) != mgCalculation {
		m.add(c, RDFType, mgCalculation)
	}

	// Environment: program, version, output file.
	env := sub("environment")
	m.add(c, occHasEnvironment, env)
	m.add(env, RDFType, gcSourcePackage)
	if rec.Program != "" {
		m.add(env, occHasProgram, String(rec.Program))
		m.add(c, mgProgram, String(rec.Program))
	}
	if rec.ProgramVersion != "" {
		m.add(env, occHasProgramVersion, String(rec.ProgramVersion))
		m.add(c, mgProgramVersion, String(rec.ProgramVersion))
	}
	if s := rec.Source; s != nil {
		b := BlobIRI(base, s.SHA256)
		m.add(env, occHasOutputFile, b)
		m.add(c, provWasDerivedFrom, b)
		m.add(b, RDFType, mgFile)
		m.add(b, mgFileName, String(s.Filename))
		m.add(b, mgByteSize, Integer(s.Bytes))
		m.add(b, mgSHA256, String(s.SHA256))
	}

	// Initialization: level of theory, basis set, composition.
	ini := sub("initialization")
	m.add(c, occHasInitialization, ini)
	m.add(ini, RDFType, occInitializationModule)
	if rec.Method != "" {
		lot := sub("level-of-theory")
		m.add(ini, gcHasParameter, lot)
		m.add(lot, RDFType, gcMethodologyFeature)
		m.add(lot, RDFType, occLevelOfTheory)
		m.add(lot, occHasLevelOfTheory, String(rec.Method))
		m.add(c, mgMethod, String(rec.Method))
	}
	if rec.BasisSet != "" {
		bs := sub("basis-set")
		m.add(ini, gcHasParameter, bs)
		m.add(bs, RDFType, gcBasisSet)
		m.add(bs, gcHasBasisSet, String(rec.BasisSet))
		m.add(c, mgBasisSet, String(rec.BasisSet))
	}
	if rec.Formula != "" || len(composition) > 0 {
		mp := sub("molecule-property")
		m.add(ini, gcHasMoleculeProperty, mp)
		m.add(mp, RDFType, gcMoleculeProperty)
		if rec.Formula != "" {
			m.add(mp, gcHasName, String(rec.Formula))
			m.add(c, mgFormula, String(rec.Formula))
		}
		for _, ec := range elementCounts(composition) {
			cm := sub("composition-" + ec.symbol)
			ca := sub("composition-" + ec.symbol + "-atom")
			m.add(mp, gcHasMolecule, cm)
			m.add(cm, RDFType, gcMolecule)
			m.add(cm, gcHasNumberOfAtoms, Integer(int64(ec.n)))
			m.add(cm, gcHasAtom, ca)
			m.add(ca, RDFType, gcAtom)
			m.add(ca, gcIsElement, quad.IRI(PT+ec.symbol))
		}
	}
	if rec.NAtoms > 0 {
		m.add(c, mgAtomCount, Integer(int64(rec.NAtoms)))
	}

	// Geometry: the final structure with charge and multiplicity.
	mol := sub("molecule")
	natoms := max(len(rec.Geometry), len(rec.Elements), len(rec.MullikenCharges))
	hasMol := natoms > 0 || rec.Charge != nil || rec.Multiplicity != nil
	if hasMol {
		m.add(mol, RDFType, gcMolecule)
	}
	if len(rec.Elements) > 0 {
		// Said, not left to be inferred: the log printed no coordinates.
		m.add(mol, mgHasCoordinates, Boolean(false))
	}
	for i := 0; i < natoms; i++ {
		at := sub("atom-" + strconv.Itoa(i+1))
		m.add(mol, gcHasAtom, at)
		m.add(at, RDFType, gcAtom)
		m.add(at, mgAtomIndex, Integer(int64(i+1)))
		if i < len(rec.Geometry) {
			a := rec.Geometry[i]
			if a.Element != "" {
				m.add(at, gcIsElement, quad.IRI(PT+a.Element))
			}
			for k, v := range [3]float64{a.X, a.Y, a.Z} {
				vn := sub("atom-" + strconv.Itoa(i+1) + "-" + "xyz"[k:k+1])
				m.add(at, gcHasAtomCoordinate[k], vn)
				m.floatValue(vn, v, unitAngstrom)
			}
		} else if i < len(rec.Elements) {
			m.add(at, gcIsElement, quad.IRI(PT+rec.Elements[i]))
		}
		if i < len(rec.MullikenCharges) {
			m.add(at, mgMullikenCharge, Double(rec.MullikenCharges[i]))
		}
	}
	if rec.Charge != nil {
		fc := sub("formal-charge")
		m.add(mol, gcHasFormalCharge, fc)
		m.add(fc, RDFType, gcIntegerValue)
		m.add(fc, gcHasValue, Integer(int64(*rec.Charge)))
		m.add(fc, gcHasUnit, gcAtomicUnit)
		m.add(c, mgCharge, Integer(int64(*rec.Charge)))
	}
	if rec.Multiplicity != nil {
		m.add(mol, occHasSpinMultiplicity, Integer(int64(*rec.Multiplicity)))
		m.add(c, mgMultiplicity, Integer(int64(*rec.Multiplicity)))
	}

	// Job nodes.
	for _, j := range jobOrder {
		if !jobs[j.name] && !(j.name == JobFrequency && rec.Frequencies != nil) {
			continue
		}
		jn := sub(j.frag)
		m.add(c, gcIsCalculationOn, jn)
		m.add(jn, RDFType, j.class)
		if hasMol {
			m.add(jn, gcHasMolecule, mol)
		}
		if jobs[j.name] {
			m.add(c, mgJobType, String(j.name))
		}
	}
	if f := rec.Frequencies; f != nil {
		fr := sub("frequencies")
		m.add(sub("vibrational-analysis"), gcHasResult, fr)
		m.add(fr, RDFType, gcFrequency)
		m.add(fr, gcHasUnit, unitReciprocalCm)
		m.add(fr, gcHasVibrationCount, Integer(int64(len(f.Wavenumbers))))
		m.add(fr, occHasFrequencies, String(formatList(f.Wavenumbers)))
		if f.IRIntensities != nil {
			m.add(fr, mgIRIntensities, String(formatList(f.IRIntensities)))
		}
		m.add(c, mgImaginaryFreqCount, Integer(int64(f.ImaginaryCount)))
	}
	if o := rec.Optimization; o != nil {
		m.add(c, mgOptConverged, Boolean(o.Converged))
		m.add(c, mgOptSteps, Integer(int64(o.Steps)))
	}

	// Energies.
	if e := rec.Energies; e != nil {
		for _, t := range energyTerms {
			v := *t.get(e)
			steps := t.class == occScfEnergy && e.SCFSteps != nil
			if v == nil && !steps {
				continue
			}
			n := sub(t.frag)
			m.add(c, gcIsCalculationOn, n)
			m.add(n, RDFType, t.class)
			if v != nil {
				m.add(n, gcHasElectronicEnergy, sub(t.frag+"-value"))
				m.floatValue(sub(t.frag+"-value"), *v, unitHartree)
				m.add(c, t.shortcut, Double(*v))
			}
			if steps {
				m.add(n, mgSCFEnergySteps, String(formatList(e.SCFSteps)))
			}
		}
		methods := make([]string, 0, len(e.Correlated))
		for k := range e.Correlated {
			methods = append(methods, k)
		}
		sort.Strings(methods)
		seen := map[string]bool{}
		for _, k := range methods {
			frag := "correlated-energy-" + correlationSlug(k)
			if !validCorrelationMethod(k) || seen[frag] {
				return nil, fmt.Errorf("ontology: calculation quads: correlated method %q: %w", k, ErrInvalidCalculation)
			}
			seen[frag] = true
			n := sub(frag)
			m.add(c, gcIsCalculationOn, n)
			m.add(n, RDFType, mgCorrelatedEnergyClass)
			m.add(n, mgCorrelationMethod, String(k))
			m.add(n, gcHasElectronicEnergy, sub(frag+"-value"))
			m.floatValue(sub(frag+"-value"), e.Correlated[k], unitHartree)
		}
		if v, ok := e.CorrelatedAtLevel(rec.Method); ok {
			m.add(c, mgCorrelatedEnergy, Double(v))
		}
		if e.SCF != nil && e.ZPE != nil {
			n := sub("electronic-and-zpe-energy")
			m.add(c, gcIsCalculationOn, n)
			m.add(n, RDFType, occElectronicAndZPEEnergy)
			m.add(n, gcHasElectronicEnergy, sub("electronic-and-zpe-energy-value"))
			m.floatValue(sub("electronic-and-zpe-energy-value"), *e.SCF+*e.ZPE, unitHartree)
		}
	}

	// Frontier orbitals (eV).
	if o := rec.Orbitals; o != nil {
		for _, t := range orbitalTerms {
			v := *t.get(o)
			if v == nil {
				continue
			}
			n := sub(t.frag)
			m.add(c, gcIsCalculationOn, n)
			m.add(n, RDFType, t.class)
			m.add(n, t.prop, sub(t.frag+"-value"))
			m.floatValue(sub(t.frag+"-value"), *v, unitElectronVolt)
		}
		if o.HOMO != nil {
			m.add(c, mgHomoEnergy, Double(*o.HOMO))
		}
		if o.LUMO != nil {
			m.add(c, mgLumoEnergy, Double(*o.LUMO))
		}
		if o.Gap != nil {
			m.add(c, mgHomoLumoGap, Double(*o.Gap))
		}
	}

	if d := rec.Dipole; d != nil {
		m.add(c, mgDipoleMoment, Double(d.Total))
		for k, v := range [3]float64{d.X, d.Y, d.Z} {
			m.add(c, mgDipoleMomentXYZ[k], Double(v))
		}
	}
	if rc := rec.RotationalConstants; rc != nil {
		n := sub("rotational-constants")
		m.add(c, gcIsCalculationOn, n)
		m.add(n, RDFType, occRotationalConstants)
		m.add(n, gcHasUnit, unitGigaHertz)
		m.add(n, occHasRotationalConstants, String(formatList(rc)))
		m.add(n, occHasRotationalConstCount, Integer(int64(len(rc))))
	}
	if gt := geometryType(rec.Geometry); gt != "" {
		n := sub("geometry-type")
		m.add(c, gcIsCalculationOn, n)
		m.add(n, RDFType, occGeometryType)
		m.add(n, occHasGeometryType, String(gt))
	}

	m.add(c, mgNormalTermination, Boolean(rec.NormalTermination))
	if rec.MoleculeID != "" {
		m.add(c, occHasUniqueSpecies, ResourceIRI(base, KindMolecule, rec.MoleculeID))
	}
	if !rec.CreatedAt.IsZero() {
		m.add(c, provGeneratedAtTime, DateTime(rec.CreatedAt))
	}
	if st := rec.Step; st != nil {
		m.add(c, mgIsStepOf, ResourceIRI(base, KindCalculation, st.Group))
		m.add(c, mgStepIndex, Integer(int64(st.Index)))
		if st.Previous != "" {
			m.add(c, mgPreviousStep, ResourceIRI(base, KindCalculation, st.Previous))
		}
	}
	return m.grouped(), nil
}

type mapper struct {
	graph quad.IRI
	quads []quad.Quad
}

func (m *mapper) add(s quad.IRI, p quad.IRI, o quad.Value) {
	m.quads = append(m.quads, quad.Quad{Subject: s, Predicate: p, Object: o, Label: m.graph})
}

// grouped returns the quads with each subject's quads together, subjects in
// the order they first appeared and quads of a subject in insertion order,
// so that Turtle writers can group them in one statement each.
func (m *mapper) grouped() []quad.Quad {
	first := map[quad.Value]int{}
	for i, q := range m.quads {
		if _, ok := first[q.Subject]; !ok {
			first[q.Subject] = i
		}
	}
	sort.SliceStable(m.quads, func(i, j int) bool {
		return first[m.quads[i].Subject] < first[m.quads[j].Subject]
	})
	return m.quads
}

func (m *mapper) floatValue(n quad.IRI, v float64, unit quad.IRI) {
	m.add(n, RDFType, gcFloatValue)
	m.add(n, gcHasValue, Double(v))
	m.add(n, gcHasUnit, unit)
}

// canonicalJobs checks job type names and returns them as a set.
func canonicalJobs(jobs []string) (map[string]bool, error) {
	set := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		switch j {
		case JobEnergy, JobOptimization, JobFrequency:
			set[j] = true
		default:
			return nil, fmt.Errorf("job type %q: %w", j, ErrInvalidCalculation)
		}
	}
	return set, nil
}

// CanonicalJobTypes returns the known job types of jobs, deduplicated, in
// canonical order (energy, optimization, frequency), as CalculationFromQuads
// returns them; unknown names are dropped.
func CanonicalJobTypes(jobs []string) []string {
	var out []string
	for _, j := range jobOrder {
		for _, x := range jobs {
			if x == j.name {
				out = append(out, j.name)
				break
			}
		}
	}
	return out
}

type elementCount struct {
	symbol string
	n      int
}

// elementCounts counts the elements of a geometry in Hill order (C, H, then
// alphabetical; alphabetical without carbon). Ghost atoms are skipped.
func elementCounts(g []CalculationAtom) []elementCount {
	counts := map[string]int{}
	for _, a := range g {
		if a.Element != "" {
			counts[a.Element]++
		}
	}
	out := make([]elementCount, 0, len(counts))
	for s, n := range counts {
		out = append(out, elementCount{s, n})
	}
	_, carbon := counts["C"]
	rank := func(s string) int {
		switch {
		case carbon && s == "C":
			return 0
		case carbon && s == "H":
			return 1
		}
		return 2
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := rank(out[i].symbol), rank(out[j].symbol)
		if ri != rj {
			return ri < rj
		}
		return out[i].symbol < out[j].symbol
	})
	return out
}

// CalculationFormula returns the Hill formula of a geometry ("C2H6O", "H2O",
// "ClH"); ghost atoms (empty element) are skipped, "" for no atoms.
func CalculationFormula(g []CalculationAtom) string {
	var b strings.Builder
	for _, ec := range elementCounts(g) {
		b.WriteString(ec.symbol)
		if ec.n > 1 {
			b.WriteString(strconv.Itoa(ec.n))
		}
	}
	return b.String()
}

// ElementsFormula returns the Hill formula of a list of element symbols
// (the atoms of a log that printed no coordinates); "" for none.
func ElementsFormula(elements []string) string {
	g := make([]CalculationAtom, len(elements))
	for i, e := range elements {
		g[i].Element = e
	}
	return CalculationFormula(g)
}

// geometryType classifies a geometry as OntoCompChem does: "atomic" (one
// atom), "linear" (all atoms within 1e-3 Å of one line) or "nonlinear";
// "" for no geometry.
func geometryType(g []CalculationAtom) string {
	switch len(g) {
	case 0:
		return ""
	case 1:
		return "atomic"
	}
	p := [3]float64{g[0].X, g[0].Y, g[0].Z}
	far, dmax := -1, 0.0
	for i, a := range g {
		d := math.Hypot(math.Hypot(a.X-p[0], a.Y-p[1]), a.Z-p[2])
		if d > dmax {
			far, dmax = i, d
		}
	}
	if far < 0 || dmax == 0 {
		return "nonlinear" // coincident atoms: no defined axis
	}
	u := [3]float64{(g[far].X - p[0]) / dmax, (g[far].Y - p[1]) / dmax, (g[far].Z - p[2]) / dmax}
	for _, a := range g {
		v := [3]float64{a.X - p[0], a.Y - p[1], a.Z - p[2]}
		cx := v[1]*u[2] - v[2]*u[1]
		cy := v[2]*u[0] - v[0]*u[2]
		cz := v[0]*u[1] - v[1]*u[0]
		if math.Sqrt(cx*cx+cy*cy+cz*cz) > 1e-3 {
			return "nonlinear"
		}
	}
	return "linear"
}

// formatList writes numbers space-separated in shortest round-trip form.
func formatList(xs []float64) string {
	b := make([]byte, 0, len(xs)*10)
	for i, x := range xs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return string(b)
}

func parseList(s string) ([]float64, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, nil
	}
	out := make([]float64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("list item %q: %w", f, ErrInvalidCalculation)
		}
		out[i] = v
	}
	return out, nil
}

// validSegment reports whether s can be an IRI path segment as ids are
// minted: ASCII letters, digits, '-', '_', '.', '~', not empty.
func validSegment(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~') {
			return false
		}
	}
	return true
}

func validHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// validElement reports whether s is shaped like an element symbol: an upper
// case ASCII letter followed by at most two lower-case ones.
func validElement(s string) bool {
	if len(s) == 0 || len(s) > 3 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// CalculationFromQuads reads a calculation record back from the quads of its
// named graph (as CalculationQuads wrote them; graph labels are ignored).
// The calculation node is the one subject typed mg:Calculation (or one of
// its subclasses); its id is the last path segment of its IRI. Errors wrap
// ErrNoCalculation (none or several calculation nodes) or
// ErrInvalidCalculation (a value of the wrong type or form).
func CalculationFromQuads(qs []quad.Quad) (CalculationRecord, error) {
	var rec CalculationRecord
	g := indexQuads(qs)
	c, err := g.calculationNode()
	if err != nil {
		return rec, fmt.Errorf("ontology: calculation from quads: %w", err)
	}
	r := reader{g: g}
	sub := func(frag string) quad.IRI { return SubIRI(c, frag) }

	rec.IRI = string(c)
	rec.ID = string(c)[strings.LastIndexByte(string(c), '/')+1:]
	rec.Program = r.str(c, mgProgram)
	rec.ProgramVersion = r.str(c, mgProgramVersion)
	rec.Method = r.str(c, mgMethod)
	rec.BasisSet = r.str(c, mgBasisSet)
	rec.Formula = r.str(c, mgFormula)
	var jobs []string
	for _, o := range g.objects(c, mgJobType) {
		s, ok := stringOf(o)
		if !ok {
			return rec, fmt.Errorf("ontology: calculation from quads: job type %v: %w", o, ErrInvalidCalculation)
		}
		jobs = append(jobs, s)
	}
	if _, err := canonicalJobs(jobs); err != nil {
		return rec, fmt.Errorf("ontology: calculation from quads: %w", err)
	}
	rec.JobTypes = CanonicalJobTypes(jobs)
	if n, ok := r.integer(c, mgAtomCount); ok {
		rec.NAtoms = int(n)
	}
	if n, ok := r.integer(c, mgCharge); ok {
		v := int(n)
		rec.Charge = &v
	}
	if n, ok := r.integer(c, mgMultiplicity); ok {
		v := int(n)
		rec.Multiplicity = &v
	}
	rec.NormalTermination, _ = r.boolean(c, mgNormalTermination)

	// Atoms, in mg:atomIndex order.
	type indexed struct {
		i       int64
		node    quad.IRI
		hasXYZ  bool
		hasChrg bool
	}
	var elements []string // of the atoms without coordinates
	noCoords := false
	if b, ok := r.boolean(sub("molecule"), mgHasCoordinates); ok && !b {
		noCoords = true
	}
	var atoms []indexed
	for _, o := range g.objects(sub("molecule"), gcHasAtom) {
		at, ok := o.(quad.IRI)
		if !ok {
			return rec, fmt.Errorf("ontology: calculation from quads: atom %v: %w", o, ErrInvalidCalculation)
		}
		i, ok := r.integer(at, mgAtomIndex)
		if !ok {
			return rec, fmt.Errorf("ontology: calculation from quads: atom %s without index: %w", at, ErrInvalidCalculation)
		}
		atoms = append(atoms, indexed{i: i, node: at,
			hasXYZ:  len(g.objects(at, gcHasAtomCoordinate[0])) > 0,
			hasChrg: len(g.objects(at, mgMullikenCharge)) > 0})
	}
	sort.Slice(atoms, func(a, b int) bool { return atoms[a].i < atoms[b].i })
	for k, a := range atoms {
		if a.i != int64(k+1) {
			return rec, fmt.Errorf("ontology: calculation from quads: atom indices not 1..%d: %w", len(atoms), ErrInvalidCalculation)
		}
		if a.hasXYZ {
			if k != len(rec.Geometry) {
				return rec, fmt.Errorf("ontology: calculation from quads: atom %d has coordinates after atoms without: %w", k+1, ErrInvalidCalculation)
			}
			var xyz [3]float64
			for d := range xyz {
				vn, ok := g.object(a.node, gcHasAtomCoordinate[d]).(quad.IRI)
				if !ok {
					return rec, fmt.Errorf("ontology: calculation from quads: atom %d coordinate: %w", k+1, ErrInvalidCalculation)
				}
				if xyz[d], ok = r.double(vn, gcHasValue); !ok {
					return rec, fmt.Errorf("ontology: calculation from quads: atom %d coordinate value: %w", k+1, ErrInvalidCalculation)
				}
			}
			el := ""
			if e, ok := g.object(a.node, gcIsElement).(quad.IRI); ok {
				el = strings.TrimPrefix(string(e), PT)
			}
			rec.Geometry = append(rec.Geometry, CalculationAtom{Element: el, X: xyz[0], Y: xyz[1], Z: xyz[2]})
		}
		if noCoords {
			if a.hasXYZ {
				return rec, fmt.Errorf("ontology: calculation from quads: atom %d has coordinates in a geometry without: %w", k+1, ErrInvalidCalculation)
			}
			e, ok := g.object(a.node, gcIsElement).(quad.IRI)
			if !ok || !strings.HasPrefix(string(e), PT) {
				return rec, fmt.Errorf("ontology: calculation from quads: atom %d without element: %w", k+1, ErrInvalidCalculation)
			}
			elements = append(elements, strings.TrimPrefix(string(e), PT))
		}
		if a.hasChrg {
			if k != len(rec.MullikenCharges) {
				return rec, fmt.Errorf("ontology: calculation from quads: atom %d has a charge after atoms without: %w", k+1, ErrInvalidCalculation)
			}
			q, _ := r.double(a.node, mgMullikenCharge)
			rec.MullikenCharges = append(rec.MullikenCharges, q)
		}
	}
	if noCoords && len(elements) > 0 {
		rec.Elements = elements
	}

	// Energies.
	var en CalculationEnergies
	hasEn := false
	for _, t := range energyTerms {
		if v, ok := r.double(c, t.shortcut); ok {
			*t.get(&en) = &v
			hasEn = true
		}
	}
	if s, ok := r.optStr(sub("scf-energy"), mgSCFEnergySteps); ok {
		if en.SCFSteps, err = parseList(s); err != nil {
			return rec, fmt.Errorf("ontology: calculation from quads: scf steps: %w", err)
		}
		hasEn = true
	}
	for _, o := range g.objects(c, gcIsCalculationOn) {
		n, ok := o.(quad.IRI)
		if !ok || !g.hasType(n, mgCorrelatedEnergyClass) {
			continue
		}
		k, ok := r.optStr(n, mgCorrelationMethod)
		if !ok || !validCorrelationMethod(k) {
			return rec, fmt.Errorf("ontology: calculation from quads: correlated energy %s without a method: %w", n, ErrInvalidCalculation)
		}
		v, ok := r.double(r.g.object(n, gcHasElectronicEnergy), gcHasValue)
		if !ok {
			return rec, fmt.Errorf("ontology: calculation from quads: correlated energy %s without a value: %w", n, ErrInvalidCalculation)
		}
		if en.Correlated == nil {
			en.Correlated = map[string]float64{}
		}
		en.Correlated[k] = v
		hasEn = true
	}
	if hasEn {
		rec.Energies = &en
	}

	if conv, ok := r.boolean(c, mgOptConverged); ok {
		steps, _ := r.integer(c, mgOptSteps)
		rec.Optimization = &CalculationOptimization{Converged: conv, Steps: int(steps)}
	}

	if s, ok := r.optStr(sub("frequencies"), occHasFrequencies); ok {
		f := &CalculationFrequencies{}
		if f.Wavenumbers, err = parseList(s); err != nil {
			return rec, fmt.Errorf("ontology: calculation from quads: frequencies: %w", err)
		}
		if s, ok := r.optStr(sub("frequencies"), mgIRIntensities); ok {
			if f.IRIntensities, err = parseList(s); err != nil {
				return rec, fmt.Errorf("ontology: calculation from quads: ir intensities: %w", err)
			}
		}
		n, _ := r.integer(c, mgImaginaryFreqCount)
		f.ImaginaryCount = int(n)
		rec.Frequencies = f
	}

	var orb CalculationOrbitals
	hasOrb := false
	for _, t := range orbitalTerms {
		vn, ok := g.object(sub(t.frag), t.prop).(quad.IRI)
		if !ok {
			continue
		}
		v, ok := r.double(vn, gcHasValue)
		if !ok {
			return rec, fmt.Errorf("ontology: calculation from quads: %s value: %w", t.frag, ErrInvalidCalculation)
		}
		*t.get(&orb) = &v
		hasOrb = true
	}
	if v, ok := r.double(c, mgHomoLumoGap); ok {
		orb.Gap = &v
		hasOrb = true
	}
	if hasOrb {
		rec.Orbitals = &orb
	}

	if tot, ok := r.double(c, mgDipoleMoment); ok {
		d := &CalculationDipole{Total: tot}
		d.X, _ = r.double(c, mgDipoleMomentXYZ[0])
		d.Y, _ = r.double(c, mgDipoleMomentXYZ[1])
		d.Z, _ = r.double(c, mgDipoleMomentXYZ[2])
		rec.Dipole = d
	}
	if s, ok := r.optStr(sub("rotational-constants"), occHasRotationalConstants); ok {
		if rec.RotationalConstants, err = parseList(s); err != nil {
			return rec, fmt.Errorf("ontology: calculation from quads: rotational constants: %w", err)
		}
	}
	if sp, ok := g.object(c, occHasUniqueSpecies).(quad.IRI); ok {
		rec.MoleculeID = string(sp)[strings.LastIndexByte(string(sp), '/')+1:]
	}
	rec.Source = r.source(c)
	if rec.CreatedAt, err = r.createdAt(c); err != nil {
		return rec, fmt.Errorf("ontology: calculation from quads: %w", err)
	}
	if grp, ok := g.object(c, mgIsStepOf).(quad.IRI); ok {
		i, _ := r.integer(c, mgStepIndex)
		st := &CalculationStep{Group: lastSegment(string(grp)), Index: int(i)}
		if p, ok := g2iri(r.g.object(c, mgPreviousStep)); ok {
			st.Previous = lastSegment(p)
		}
		rec.Step = st
	}
	if r.err != nil {
		return rec, fmt.Errorf("ontology: calculation from quads: %w", r.err)
	}
	return rec, nil
}

// correlationSlug is the hash-fragment form of a correlated method name:
// lower case, each run of characters other than letters and digits one
// '-', none at the ends ("CCSD(T)" -> "ccsd-t", "MP4(SDQ)" -> "mp4-sdq").
func correlationSlug(m string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(m) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	return b.String()
}

// validCorrelationMethod: a method name of 1-32 printable ASCII
// characters with a letter (the parsers give canonical names; the graph
// refuses anything that would not make a fragment).
func validCorrelationMethod(m string) bool {
	if len(m) == 0 || len(m) > 32 || correlationSlug(m) == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		if m[i] <= ' ' || m[i] > '~' {
			return false
		}
	}
	return true
}

func lastSegment(iri string) string { return iri[strings.LastIndexByte(iri, '/')+1:] }

func g2iri(v quad.Value) (string, bool) {
	i, ok := v.(quad.IRI)
	return string(i), ok
}

// quadIndex maps subject and predicate to objects, in input order.
type quadIndex struct {
	sp    map[quad.Value]map[quad.IRI][]quad.Value
	order []quad.Value // subjects in first-seen order
}

func indexQuads(qs []quad.Quad) *quadIndex {
	g := &quadIndex{sp: map[quad.Value]map[quad.IRI][]quad.Value{}}
	for _, q := range qs {
		p, ok := q.Predicate.(quad.IRI)
		if !ok || q.Subject == nil || q.Object == nil {
			continue
		}
		m := g.sp[q.Subject]
		if m == nil {
			m = map[quad.IRI][]quad.Value{}
			g.sp[q.Subject] = m
			g.order = append(g.order, q.Subject)
		}
		m[p] = append(m[p], q.Object)
	}
	return g
}

func (g *quadIndex) objects(s quad.Value, p quad.IRI) []quad.Value { return g.sp[s][p] }

// hasType reports whether s has rdf:type class.
func (g *quadIndex) hasType(s quad.Value, class quad.IRI) bool {
	for _, o := range g.sp[s][RDFType] {
		if o == class {
			return true
		}
	}
	return false
}

func (g *quadIndex) object(s quad.Value, p quad.IRI) quad.Value {
	if os := g.sp[s][p]; len(os) > 0 {
		return os[0]
	}
	return nil
}

// calculationNode finds the one subject typed mg:Calculation or one of the
// calculation classes.
func (g *quadIndex) calculationNode() (quad.IRI, error) {
	var found []quad.IRI
	for _, s := range g.order {
		iri, ok := s.(quad.IRI)
		if !ok {
			continue
		}
		for _, t := range g.sp[s][RDFType] {
			if ti, ok := t.(quad.IRI); ok && isCalculationClass(ti) {
				found = append(found, iri)
				break
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", ErrNoCalculation
	}
	return "", fmt.Errorf("%d calculation nodes: %w", len(found), ErrNoCalculation)
}

// reader decodes literals, remembering the first error.
type reader struct {
	g   *quadIndex
	err error
}

// source reads the upload node of a calculation or group (prov:wasDerivedFrom
// with file name, digest and size); nil when it has none.
func (r *reader) source(node quad.Value) *CalculationSource {
	b, ok := r.g.object(node, provWasDerivedFrom).(quad.IRI)
	if !ok {
		return nil
	}
	n, _ := r.integer(b, mgByteSize)
	return &CalculationSource{Filename: r.str(b, mgFileName), SHA256: r.str(b, mgSHA256), Bytes: n}
}

// createdAt reads node's prov:generatedAtTime (zero when absent); a value
// that is not an xsd:dateTime is ErrInvalidCalculation.
func (r *reader) createdAt(node quad.Value) (time.Time, error) {
	o := r.g.object(node, provGeneratedAtTime)
	if o == nil {
		return time.Time{}, nil
	}
	ts, ok := o.(quad.TypedString)
	if !ok || ts.Type != XSDDateTime {
		return time.Time{}, fmt.Errorf("created at %v: %w", o, ErrInvalidCalculation)
	}
	t, err := time.Parse(time.RFC3339Nano, string(ts.Value))
	if err != nil {
		return time.Time{}, fmt.Errorf("created at %q: %w", ts.Value, ErrInvalidCalculation)
	}
	return t.UTC(), nil
}

func (r *reader) fail(s quad.Value, p quad.IRI, o quad.Value) {
	if r.err == nil {
		r.err = fmt.Errorf("%v %v: unexpected value %v: %w", s, p, o, ErrInvalidCalculation)
	}
}

func (r *reader) optStr(s quad.Value, p quad.IRI) (string, bool) {
	o := r.g.object(s, p)
	if o == nil {
		return "", false
	}
	v, ok := stringOf(o)
	if !ok {
		r.fail(s, p, o)
	}
	return v, ok
}

func (r *reader) str(s quad.Value, p quad.IRI) string {
	v, _ := r.optStr(s, p)
	return v
}

func stringOf(o quad.Value) (string, bool) {
	switch v := o.(type) {
	case quad.String:
		return string(v), true
	case quad.TypedString:
		if v.Type == XSDString {
			return string(v.Value), true
		}
	}
	return "", false
}

func (r *reader) double(s quad.Value, p quad.IRI) (float64, bool) {
	o := r.g.object(s, p)
	if o == nil {
		return 0, false
	}
	ts, ok := o.(quad.TypedString)
	if ok && (ts.Type == XSDDouble || ts.Type == XSDDecimal || ts.Type == XSDInteger) {
		lex := string(ts.Value)
		switch lex { // XSD spellings of the special values
		case "INF", "+INF":
			return math.Inf(1), true
		case "-INF":
			return math.Inf(-1), true
		}
		if v, err := strconv.ParseFloat(lex, 64); err == nil || lex == "NaN" {
			return v, true
		}
	}
	r.fail(s, p, o)
	return 0, false
}

func (r *reader) integer(s quad.Value, p quad.IRI) (int64, bool) {
	o := r.g.object(s, p)
	if o == nil {
		return 0, false
	}
	if ts, ok := o.(quad.TypedString); ok && ts.Type == XSDInteger {
		if v, err := strconv.ParseInt(string(ts.Value), 10, 64); err == nil {
			return v, true
		}
	}
	r.fail(s, p, o)
	return 0, false
}

func (r *reader) boolean(s quad.Value, p quad.IRI) (bool, bool) {
	o := r.g.object(s, p)
	if o == nil {
		return false, false
	}
	if ts, ok := o.(quad.TypedString); ok && ts.Type == XSDBoolean {
		switch ts.Value {
		case "true", "1":
			return true, true
		case "false", "0":
			return false, true
		}
	}
	r.fail(s, p, o)
	return false, false
}
