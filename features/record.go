package features

import (
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/qm"
)

// Record converts a parsed calculation to the record that
// ontology.CalculationQuads maps to quads: the final geometry with element
// symbols, the Hill formula, energies, frontier orbitals in eV (converted
// with qm.HartreeToEV), frequencies with the imaginary count, and the other
// results as parsed. The fields the parser cannot know (ID, IRI,
// MoleculeID, Source, CreatedAt) are left for the caller. A nil c gives an
// empty record.
func Record(c *qm.Calculation) ontology.CalculationRecord {
	var r ontology.CalculationRecord
	if c == nil {
		return r
	}
	r.Program = string(c.Program)
	r.ProgramVersion = c.ProgramVersion
	jobs := make([]string, len(c.JobTypes))
	for i, j := range c.JobTypes {
		jobs[i] = string(j)
	}
	r.JobTypes = ontology.CanonicalJobTypes(jobs)
	r.Method = c.Method
	r.BasisSet = c.BasisSet
	if c.Charge != nil {
		r.Charge = qm.Int(*c.Charge)
	}
	if c.Multiplicity != nil {
		r.Multiplicity = qm.Int(*c.Multiplicity)
	}
	for _, a := range c.FinalGeometry() {
		r.Geometry = append(r.Geometry, ontology.CalculationAtom{Element: qm.Symbol(a.AtomicNumber), X: a.X, Y: a.Y, Z: a.Z})
	}
	r.NAtoms = len(r.Geometry)
	r.Formula = ontology.CalculationFormula(r.Geometry)
	if len(r.Geometry) == 0 && len(c.AtomicNumbers) > 0 {
		// The log named its atoms but printed no coordinates: elements only.
		r.Elements = make([]string, len(c.AtomicNumbers))
		for i, z := range c.AtomicNumbers {
			r.Elements[i] = qm.Symbol(z)
		}
		r.NAtoms = len(r.Elements)
		r.Formula = ontology.ElementsFormula(r.Elements)
	}

	var e ontology.CalculationEnergies
	if v, ok := c.FinalEnergy(); ok {
		e.SCF = qm.Float(v)
	}
	e.SCFSteps = c.SCFEnergies()
	e.ZPE, e.Enthalpy, e.Gibbs = copyFloat(c.Thermo.ZPE), copyFloat(c.Thermo.Enthalpy), copyFloat(c.Thermo.Gibbs)
	if len(c.Correlated) > 0 {
		e.Correlated = make(map[string]float64, len(c.Correlated))
		for _, x := range c.Correlated {
			e.Correlated[x.Method] = x.Energy
		}
	}
	if e.SCF != nil || e.ZPE != nil || e.Enthalpy != nil || e.Gibbs != nil || e.Correlated != nil {
		r.Energies = &e
	}
	if o := c.Optimization; o != nil {
		r.Optimization = &ontology.CalculationOptimization{Converged: o.Converged, Steps: o.Steps}
	}
	if len(c.Frequencies) > 0 {
		f := &ontology.CalculationFrequencies{Wavenumbers: append([]float64(nil), c.Frequencies...)}
		if len(c.IRIntensities) > 0 {
			f.IRIntensities = append([]float64(nil), c.IRIntensities...)
		}
		for _, w := range c.Frequencies {
			if w < 0 {
				f.ImaginaryCount++
			}
		}
		r.Frequencies = f
	}
	r.Orbitals = orbitals(c.Orbitals)
	if d := c.Dipole; d != nil {
		r.Dipole = &ontology.CalculationDipole{X: d.X, Y: d.Y, Z: d.Z, Total: d.Total}
	}
	if len(c.MullikenCharges) > 0 {
		r.MullikenCharges = append([]float64(nil), c.MullikenCharges...)
	}
	if len(c.RotationalConstants) > 0 {
		r.RotationalConstants = append([]float64(nil), c.RotationalConstants...)
	}
	r.NormalTermination = c.NormalTermination
	return r
}

func copyFloat(p *float64) *float64 {
	if p == nil {
		return nil
	}
	return qm.Float(*p)
}

// orbitals picks the frontier orbitals: the HOMO is the highest occupied
// orbital over all spins and the LUMO the lowest unoccupied one (the first
// spin wins ties); HOMO−1/−2 come from the HOMO's spin channel and
// LUMO+1/+2 from the LUMO's. Energies are converted from Eh to eV.
func orbitals(o *qm.Orbitals) *ontology.CalculationOrbitals {
	if o == nil {
		return nil
	}
	hs, ls := -1, -1
	var homo, lumo float64
	for s := range o.HOMO {
		if h, ok := o.HOMOEnergy(s); ok && (hs < 0 || h > homo) {
			hs, homo = s, h
		}
		if l, ok := o.LUMOEnergy(s); ok && (ls < 0 || l < lumo) {
			ls, lumo = s, l
		}
	}
	if hs < 0 && ls < 0 {
		return nil
	}
	at := func(s, i int) *float64 {
		e, ok := o.Energy(s, i)
		if !ok || i < 0 {
			return nil
		}
		return qm.Float(e * qm.HartreeToEV)
	}
	out := &ontology.CalculationOrbitals{}
	if hs >= 0 {
		h := o.HOMO[hs]
		out.HOMO, out.HOMOMinus1, out.HOMOMinus2 = at(hs, h), at(hs, h-1), at(hs, h-2)
	}
	if ls >= 0 {
		l := o.HOMO[ls] + 1
		out.LUMO, out.LUMOPlus1, out.LUMOPlus2 = at(ls, l), at(ls, l+1), at(ls, l+2)
	}
	if out.HOMO != nil && out.LUMO != nil {
		out.Gap = qm.Float(*out.LUMO - *out.HOMO)
	}
	return out
}
