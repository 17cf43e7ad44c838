package qm

// Program names a quantum-chemistry program, as it is spelled in records.
type Program string

// Programs this package can detect. Only those with a parser in the caller's
// Table can be parsed; the others are detected so that they can be refused
// with ErrUnsupportedLog.
const (
	Gaussian Program = "Gaussian"
	ORCA     Program = "ORCA"
	Psi4     Program = "Psi4"
	NWChem   Program = "NWChem"
	XTB      Program = "xtb"
)

// JobType is one task a calculation performed.
type JobType string

// Job types, in the spelling of the API's job_types.
const (
	JobEnergy       JobType = "energy"       // single point
	JobOptimization JobType = "optimization" // geometry optimisation
	JobFrequency    JobType = "frequency"    // vibrational analysis
)

// Atom is one atom of a geometry: atomic number and Cartesian coordinates in Å.
type Atom struct {
	AtomicNumber int     `json:"atomic_number"`
	X            float64 `json:"x"`
	Y            float64 `json:"y"`
	Z            float64 `json:"z"`
}

// Geometry is one printed molecular geometry.
type Geometry []Atom

// SCF is one self-consistent-field solution (one per geometry, or several
// per geometry in multi-step jobs), in the order printed.
type SCF struct {
	// Energy is the converged (or last printed) total SCF energy in Eh; nil if
	// the SCF never printed an energy (killed in its first iterations).
	Energy *float64 `json:"energy_hartree,omitempty"`
	// Converged is true only if the program reported convergence.
	Converged bool `json:"converged"`
	// Iterations is the number of SCF cycles printed or reported (0 if unknown).
	Iterations int `json:"iterations,omitempty"`
}

// CorrelatedEnergy is the total energy (Eh) of one post-Hartree-Fock
// method, named canonically: "MP2", "MP3", "MP4(DQ)", "MP4(SDQ)",
// "MP4(SDTQ)", "MP5", "CCD", "CCSD", "CCSD(T)", "QCISD", "QCISD(T)",
// "CISD", "OMP2", "OMP3" (correlationMethods).
type CorrelatedEnergy struct {
	Method string  `json:"method"`
	Energy float64 `json:"energy_hartree"`
}

// correlationMethods are the canonical method names SetCorrelated keeps.
var correlationMethods = map[string]bool{
	"MP2": true, "MP3": true, "MP4(DQ)": true, "MP4(SDQ)": true, "MP4(SDTQ)": true, "MP5": true,
	"CCD": true, "CCSD": true, "CCSD(T)": true, "CCSDT": true, "QCISD": true, "QCISD(T)": true, "CISD": true,
	"OMP2": true, "OMP3": true,
}

// IsCorrelationMethod reports whether name is a canonical correlated-method
// name (see CorrelatedEnergy).
func IsCorrelationMethod(name string) bool { return correlationMethods[name] }

// SetCorrelated records the total energy e (Eh) of the correlated method
// (a canonical name; others are ignored): a method printed again (the next
// optimisation geometry, the next iteration's summary) replaces its value.
func (c *Calculation) SetCorrelated(method string, e float64) {
	if !correlationMethods[method] {
		return
	}
	for i := range c.Correlated {
		if c.Correlated[i].Method == method {
			c.Correlated[i].Energy = e
			return
		}
	}
	c.Correlated = append(c.Correlated, CorrelatedEnergy{Method: method, Energy: e})
}

// CorrelatedEnergyOf returns the recorded energy of method, if any.
func (c *Calculation) CorrelatedEnergyOf(method string) (float64, bool) {
	for _, x := range c.Correlated {
		if x.Method == method {
			return x.Energy, true
		}
	}
	return 0, false
}

// Optimization summarises a geometry optimisation.
type Optimization struct {
	// Converged is true if the program reported a converged stationary point.
	Converged bool `json:"converged"`
	// Steps is the number of optimisation cycles (convergence checks printed).
	Steps int `json:"steps"`
}

// Orbitals holds the molecular-orbital energies of the last printed set.
type Orbitals struct {
	// Energies in Eh, one slice per spin: one for restricted, two (α, β) for
	// unrestricted calculations; ascending as printed.
	Energies [][]float64 `json:"energies_hartree"`
	// HOMO is the 0-based index of the highest occupied orbital per spin
	// (-1 if a spin has no occupied orbital), as cclib's homos.
	HOMO []int `json:"homo_index"`
	// First is the 0-based index of the orbital Energies[s][0] stands for:
	// 0 when all orbitals are listed, more when the program printed only a
	// window around the frontier orbitals (xtb, NWChem for large molecules).
	First int `json:"first_index,omitempty"`
}

// Energy returns the energy (Eh) of orbital i (0-based, counting all
// orbitals) of spin s, if it was printed.
func (o *Orbitals) Energy(s, i int) (float64, bool) {
	if o == nil || s < 0 || s >= len(o.Energies) {
		return 0, false
	}
	i -= o.First
	if i < 0 || i >= len(o.Energies[s]) {
		return 0, false
	}
	return o.Energies[s][i], true
}

// HOMOEnergy returns the HOMO energy (Eh) of spin s (0 = α, 1 = β).
func (o *Orbitals) HOMOEnergy(s int) (float64, bool) {
	if o == nil || s < 0 || s >= len(o.HOMO) || s >= len(o.Energies) {
		return 0, false
	}
	if o.HOMO[s] < 0 {
		return 0, false
	}
	return o.Energy(s, o.HOMO[s])
}

// LUMOEnergy returns the LUMO energy (Eh) of spin s (0 = α, 1 = β).
func (o *Orbitals) LUMOEnergy(s int) (float64, bool) {
	if o == nil || s < 0 || s >= len(o.HOMO) || s >= len(o.Energies) {
		return 0, false
	}
	return o.Energy(s, o.HOMO[s]+1)
}

// Dipole is a dipole moment in debye.
type Dipole struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Z     float64 `json:"z"`
	Total float64 `json:"total"`
}

// Thermo holds the thermochemistry of a frequency calculation.
type Thermo struct {
	// ZPE is the zero-point vibrational energy correction in Eh.
	ZPE *float64 `json:"zpe_hartree,omitempty"`
	// Enthalpy is the total enthalpy (electronic + thermal) in Eh.
	Enthalpy *float64 `json:"enthalpy_hartree,omitempty"`
	// Gibbs is the total Gibbs free energy (electronic + thermal) in Eh.
	Gibbs *float64 `json:"gibbs_hartree,omitempty"`
	// Temperature in K and Pressure in atm of the thermochemistry.
	Temperature *float64 `json:"temperature_k,omitempty"`
	Pressure    *float64 `json:"pressure_atm,omitempty"`
}

// Calculation is everything parsed from one log. Pointers and nil slices
// mark absent quantities.
type Calculation struct {
	Program Program `json:"program"`
	// ProgramVersion as the program prints it, e.g. "16 Rev. C.01", "4.2.0", "1.7".
	ProgramVersion string `json:"program_version,omitempty"`
	// Method is the level of theory: functional (e.g. "B3LYP") or wave-function method ("HF", "MP2").
	Method string `json:"method,omitempty"`
	// BasisSet as printed (e.g. "6-31G(d,p)", "STO-3G").
	BasisSet string `json:"basis_set,omitempty"`
	// Unrestricted is true for open-shell (UHF/UKS) references.
	Unrestricted bool `json:"unrestricted,omitempty"`
	// SolventModel names an implicit solvent model if one was used (e.g. "SMD-IEFPCM", "CPCM").
	SolventModel string `json:"solvent_model,omitempty"`
	Charge       *int   `json:"charge,omitempty"`
	Multiplicity *int   `json:"multiplicity,omitempty"`
	// JobTypes in the order first requested.
	JobTypes []JobType `json:"job_types,omitempty"`
	// Geometries are all geometries printed, in order: the input geometry
	// first, then every optimisation step; the last is the final geometry.
	Geometries []Geometry `json:"geometries,omitempty"`
	// AtomicNumbers lists the atoms in order when the log names them but
	// prints no coordinates (xtb's single points and Hessian-only runs list
	// atoms only in their charge table); nil when a geometry was printed
	// (its atoms are the list) or the log names no atoms. Never used to
	// invent coordinates.
	AtomicNumbers []int `json:"atomic_numbers,omitempty"`
	// SCF lists every SCF solution in order; the last one with an energy is the final SCF energy.
	SCF []SCF `json:"scf,omitempty"`
	// Correlated are the total energies of the post-Hartree-Fock methods
	// the log reports (MP2, MP3, MP4(SDQ), CCSD, CCSD(T), ...), one per
	// method in the order first printed, each the method's last printed
	// value (the final geometry's); nil if none. See SetCorrelated.
	Correlated   []CorrelatedEnergy `json:"correlated_energies,omitempty"`
	Optimization *Optimization      `json:"optimization,omitempty"`
	Orbitals     *Orbitals          `json:"orbitals,omitempty"`
	// MullikenCharges per atom (e), from the last population analysis.
	MullikenCharges []float64 `json:"mulliken_charges,omitempty"`
	Dipole          *Dipole   `json:"dipole_debye,omitempty"`
	// RotationalConstants A, B, C in GHz for the last geometry (A is 0 for linear molecules).
	RotationalConstants []float64 `json:"rotational_constants_ghz,omitempty"`
	// Frequencies (cm⁻¹; imaginary as negative) and IRIntensities (km/mol) of
	// the last vibrational analysis; IRIntensities is nil if not printed.
	Frequencies   []float64 `json:"frequencies_cm1,omitempty"`
	IRIntensities []float64 `json:"ir_intensities_km_mol,omitempty"`
	Thermo        Thermo    `json:"thermo"`
	// WallTime and CPUTime in seconds, summed over the job steps of the log.
	WallTime *float64 `json:"wall_time_s,omitempty"`
	CPUTime  *float64 `json:"cpu_time_s,omitempty"`
	// NormalTermination is true only if the log ends with the program's normal-termination message.
	NormalTermination bool `json:"normal_termination"`
	// Warnings are notable messages (SCF not converged, errors, truncated lines), deduplicated.
	Warnings []string `json:"warnings,omitempty"`
	// Steps are the job steps of a multi-step log (Gaussian Link1 jobs,
	// NWChem tasks, ...), in order, each a complete calculation of its own;
	// nil for a single-step log. A Calculation with Steps is the group
	// Group built: its own fields summarise the steps. Steps never nest.
	Steps []*Calculation `json:"steps,omitempty"`
}

// InputGeometry returns the first geometry (nil if none).
func (c *Calculation) InputGeometry() Geometry {
	if len(c.Geometries) == 0 {
		return nil
	}
	return c.Geometries[0]
}

// FinalGeometry returns the last geometry (nil if none).
func (c *Calculation) FinalGeometry() Geometry {
	if len(c.Geometries) == 0 {
		return nil
	}
	return c.Geometries[len(c.Geometries)-1]
}

// FinalEnergy returns the last SCF energy in Eh.
func (c *Calculation) FinalEnergy() (float64, bool) {
	for i := len(c.SCF) - 1; i >= 0; i-- {
		if c.SCF[i].Energy != nil {
			return *c.SCF[i].Energy, true
		}
	}
	return 0, false
}

// SCFEnergies returns the energies of all SCF solutions that printed one, in Eh.
func (c *Calculation) SCFEnergies() []float64 {
	var out []float64
	for _, s := range c.SCF {
		if s.Energy != nil {
			out = append(out, *s.Energy)
		}
	}
	return out
}

// NAtoms returns the number of atoms of the final geometry (0 if none).
func (c *Calculation) NAtoms() int { return len(c.FinalGeometry()) }

// HasJob reports whether the calculation performed job type j.
func (c *Calculation) HasJob(j JobType) bool {
	for _, x := range c.JobTypes {
		if x == j {
			return true
		}
	}
	return false
}

// AddJob appends j to JobTypes unless present.
func (c *Calculation) AddJob(j JobType) {
	if !c.HasJob(j) {
		c.JobTypes = append(c.JobTypes, j)
	}
}

// Warn appends a warning unless the same text is already recorded; at most
// MaxWarnings are kept so that a pathological log cannot grow the list without bound.
func (c *Calculation) Warn(msg string) {
	if len(c.Warnings) >= MaxWarnings {
		return
	}
	for _, w := range c.Warnings {
		if w == msg {
			return
		}
	}
	c.Warnings = append(c.Warnings, msg)
}

// MaxWarnings bounds Calculation.Warnings.
const MaxWarnings = 50

// Empty reports whether nothing at all was parsed (no geometry, no SCF, no version).
func (c *Calculation) Empty() bool {
	return len(c.Geometries) == 0 && len(c.SCF) == 0 && c.ProgramVersion == "" &&
		c.Charge == nil && c.Method == "" && c.BasisSet == ""
}

// Float returns a pointer to v, for the optional fields of the model.
func Float(v float64) *float64 { return &v }

// Int returns a pointer to v, for the optional fields of the model.
func Int(v int) *int { return &v }
