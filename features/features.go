package features

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/qm"
)

// Feature describes one column of the feature table.
type Feature struct {
	Name        string // column name, e.g. "homo_ev"
	Unit        string // "Eh", "eV", "D", "GHz", "cm-1", "Da", "e", "count", "1" (dimensionless), "bool" (0/1)
	Description string
}

// CoulombSize is the number of Coulomb-matrix eigenvalues in the vector.
const CoulombSize = 23

// countedElements are the elements with a count_<symbol> feature, in
// order. It is never modified.
var countedElements = [...]string{"H", "C", "N", "O", "F", "Si", "P", "S", "Cl", "Br", "I"}

// Indices of the scalar features, in order.
const (
	fNAtoms = iota
	fHeavyAtoms
	fElements // first element count; len(countedElements) of them
)

const (
	fMW = fElements + len(countedElements) + iota
	fCharge
	fMult
	fSCF
	fSCFPerAtom
	fZPE
	fU0
	fH
	fG
	fCorrelated
	fHOMO
	fLUMO
	fGap
	fIP
	fEA
	fChi
	fEta
	fOmega
	fDipole
	fRotA
	fRotB
	fRotC
	fFreqCount
	fFreqImag
	fFreqMin
	fFreqMax
	fFreqMean
	fOptConverged
	fOptSteps
	fNormalTermination
	fCoulomb    // first Coulomb eigenvalue; CoulombSize of them
	numFeatures = fCoulomb + CoulombSize
)

// List returns the features in table order (a fresh slice).
func List() []Feature {
	l := make([]Feature, 0, numFeatures)
	l = append(l,
		Feature{"natoms", "count", "atoms in the final geometry (ghost atoms excluded)"},
		Feature{"heavy_atoms", "count", "non-hydrogen atoms"},
	)
	for _, e := range countedElements {
		l = append(l, Feature{"count_" + e, "count", "atoms of element " + e})
	}
	l = append(l,
		Feature{"molecular_weight_da", "Da", "sum of standard atomic weights (RDKit 2022.09 table; null if an element is beyond Xe)"},
		Feature{"charge_e", "e", "total charge"},
		Feature{"multiplicity", "1", "spin multiplicity 2S+1"},
		Feature{"scf_energy_hartree", "Eh", "final SCF total energy"},
		Feature{"energy_per_atom_hartree", "Eh", "final SCF energy / natoms"},
		Feature{"zpe_hartree", "Eh", "zero-point vibrational energy correction"},
		Feature{"u0_hartree", "Eh", "SCF energy + ZPE (internal energy at 0 K)"},
		Feature{"enthalpy_hartree", "Eh", "sum of electronic and thermal enthalpies"},
		Feature{"gibbs_hartree", "Eh", "sum of electronic and thermal free energies"},
		Feature{"correlated_energy_hartree", "Eh", "total energy at the correlated level of theory (MP2, CCSD(T), ...; null for SCF/DFT methods)"},
		Feature{"homo_ev", "eV", "highest occupied orbital energy (over both spins)"},
		Feature{"lumo_ev", "eV", "lowest unoccupied orbital energy (over both spins)"},
		Feature{"gap_ev", "eV", "LUMO - HOMO"},
		Feature{"ip_koopmans_ev", "eV", "ionization potential estimate -HOMO (Koopmans)"},
		Feature{"ea_koopmans_ev", "eV", "electron affinity estimate -LUMO (Koopmans)"},
		Feature{"electronegativity_ev", "eV", "Mulliken electronegativity -(HOMO+LUMO)/2"},
		Feature{"hardness_ev", "eV", "chemical hardness (LUMO-HOMO)/2"},
		Feature{"electrophilicity_ev", "eV", "electrophilicity index electronegativity^2 / (2 hardness)"},
		Feature{"dipole_debye", "D", "dipole moment magnitude"},
		Feature{"rot_a_ghz", "GHz", "rotational constant A as printed (0 for linear molecules)"},
		Feature{"rot_b_ghz", "GHz", "rotational constant B"},
		Feature{"rot_c_ghz", "GHz", "rotational constant C"},
		Feature{"freq_count", "count", "vibrational modes"},
		Feature{"freq_imaginary_count", "count", "imaginary modes (printed as negative wavenumbers)"},
		Feature{"freq_min_cm1", "cm-1", "lowest wavenumber (negative if imaginary)"},
		Feature{"freq_max_cm1", "cm-1", "highest wavenumber"},
		Feature{"freq_mean_cm1", "cm-1", "mean wavenumber"},
		Feature{"optimization_converged", "bool", "1 if a geometry optimisation converged, 0 if not, null without optimisation"},
		Feature{"optimization_steps", "count", "geometry optimisation cycles"},
		Feature{"normal_termination", "bool", "1 if the program terminated normally"},
	)
	for i := 1; i <= CoulombSize; i++ {
		l = append(l, Feature{fmt.Sprintf("coulomb_eig_%02d", i), "Eh",
			fmt.Sprintf("Coulomb-matrix eigenvalue %d by decreasing absolute value (Rupp 2012, atomic units, distances in bohr; 0 padding)", i)})
	}
	return l
}

// Names returns the feature names in table order.
func Names() []string {
	l := List()
	out := make([]string, len(l))
	for i, f := range l {
		out[i] = f.Name
	}
	return out
}

// Units returns the feature units in table order.
func Units() []string {
	l := List()
	out := make([]string, len(l))
	for i, f := range l {
		out[i] = f.Unit
	}
	return out
}

// Vector holds one value per feature, in the order of Names; NaN marks a
// missing value.
type Vector []float64

// Get returns the value of the named feature; ok is false for an unknown
// name or a missing value.
func (v Vector) Get(name string) (float64, bool) {
	for i, n := range Names() {
		if n == name {
			if i >= len(v) || math.IsNaN(v[i]) {
				return 0, false
			}
			return v[i], true
		}
	}
	return 0, false
}

// MarshalJSON writes the vector as a JSON object of name: value in table
// order, with null for missing values.
func (v Vector) MarshalJSON() ([]byte, error) {
	if len(v) != numFeatures {
		return nil, fmt.Errorf("features: marshal json: %d values: %w", len(v), ErrVectorLength)
	}
	b := []byte{'{'}
	for i, n := range Names() {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, n)
		b = append(b, ':')
		b = appendJSONNumber(b, v[i])
	}
	return append(b, '}'), nil
}

func appendJSONNumber(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// FromCalculation computes the features of a parsed calculation
// (FromRecord of Record(c)).
func FromCalculation(c *qm.Calculation) Vector {
	r := Record(c)
	return FromRecord(&r)
}

// FromRecord computes the features of a calculation record. A nil record
// gives a vector of missing values.
func FromRecord(r *ontology.CalculationRecord) Vector {
	v := make(Vector, numFeatures)
	for i := range v {
		v[i] = math.NaN()
	}
	if r == nil {
		return v
	}
	set := func(i int, p *float64) {
		if p != nil {
			v[i] = *p
		}
	}

	// Composition (from the final geometry, or from the elements of a log
	// that printed no coordinates; the Coulomb matrix needs coordinates).
	elements := r.Elements
	if len(r.Geometry) > 0 {
		elements = make([]string, len(r.Geometry))
		for i, a := range r.Geometry {
			elements[i] = a.Element
		}
	}
	if len(elements) > 0 {
		counts := map[string]int{}
		n, heavy := 0, 0
		mw, mwOK := 0.0, true
		for _, e := range elements {
			if e == "" {
				continue // ghost atom
			}
			n++
			counts[e]++
			if e != "H" {
				heavy++
			}
			z, _ := qm.AtomicNumber(e)
			if w, ok := atomicWeight(z); ok {
				mw += w
			} else {
				mwOK = false
			}
		}
		v[fNAtoms], v[fHeavyAtoms] = float64(n), float64(heavy)
		for i, e := range countedElements {
			v[fElements+i] = float64(counts[e])
		}
		if mwOK && n > 0 {
			v[fMW] = mw
		}
		if eig, ok := coulombEigenvalues(r.Geometry); ok {
			copy(v[fCoulomb:], eig)
		}
	}
	if r.Charge != nil {
		v[fCharge] = float64(*r.Charge)
	}
	if r.Multiplicity != nil {
		v[fMult] = float64(*r.Multiplicity)
	}

	if e := r.Energies; e != nil {
		set(fSCF, e.SCF)
		set(fZPE, e.ZPE)
		set(fH, e.Enthalpy)
		set(fG, e.Gibbs)
		if e.SCF != nil && !math.IsNaN(v[fNAtoms]) && v[fNAtoms] > 0 {
			v[fSCFPerAtom] = *e.SCF / v[fNAtoms]
		}
		if e.SCF != nil && e.ZPE != nil {
			v[fU0] = *e.SCF + *e.ZPE
		}
		if x, ok := e.CorrelatedAtLevel(r.Method); ok {
			v[fCorrelated] = x
		}
	}

	if o := r.Orbitals; o != nil {
		set(fHOMO, o.HOMO)
		set(fLUMO, o.LUMO)
		set(fGap, o.Gap)
		if o.HOMO != nil {
			v[fIP] = -*o.HOMO
		}
		if o.LUMO != nil {
			v[fEA] = -*o.LUMO
		}
		if o.HOMO != nil && o.LUMO != nil {
			chi := -(*o.HOMO + *o.LUMO) / 2
			eta := (*o.LUMO - *o.HOMO) / 2
			v[fChi], v[fEta] = chi, eta
			if eta > 0 {
				v[fOmega] = chi * chi / (2 * eta)
			}
		}
	}
	if r.Dipole != nil {
		v[fDipole] = r.Dipole.Total
	}
	if rc := r.RotationalConstants; len(rc) == 3 {
		v[fRotA], v[fRotB], v[fRotC] = rc[0], rc[1], rc[2]
	}
	if f := r.Frequencies; f != nil && len(f.Wavenumbers) > 0 {
		w := f.Wavenumbers
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for _, x := range w {
			lo, hi, sum = math.Min(lo, x), math.Max(hi, x), sum+x
		}
		v[fFreqCount] = float64(len(w))
		v[fFreqImag] = float64(f.ImaginaryCount)
		v[fFreqMin], v[fFreqMax], v[fFreqMean] = lo, hi, sum/float64(len(w))
	}
	if o := r.Optimization; o != nil {
		v[fOptConverged] = b2f(o.Converged)
		v[fOptSteps] = float64(o.Steps)
	}
	v[fNormalTermination] = b2f(r.NormalTermination)
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// sortByAbsDesc sorts eigenvalues by decreasing absolute value (ties: larger
// value first, so the order is deterministic).
func sortByAbsDesc(x []float64) {
	sort.Slice(x, func(i, j int) bool {
		ai, aj := math.Abs(x[i]), math.Abs(x[j])
		if ai != aj {
			return ai > aj
		}
		return x[i] > x[j]
	})
}
