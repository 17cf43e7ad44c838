package qm

import (
	"fmt"
	"io"
)

// MaxSteps bounds the job steps of one log: a parser that has read
// MaxSteps steps reads the rest of the log into the last one (with a
// warning), so that a log of a million tiny tasks cannot make a million
// calculations.
const MaxSteps = 64

// Group returns the calculation of a multi-step log: Steps are the steps
// (at least two, in order) and its own fields summarise them as one merged
// calculation, the way a log was read before steps existed: geometries and
// SCF solutions of all steps in order (a geometry equal to the previous
// one is not repeated), job types in first-requested order, wall and CPU
// times summed, warnings of all steps, NormalTermination only if every
// step terminated normally, and every other field from the last step that
// has it. The steps' slices are shared, not copied.
func Group(steps []*Calculation) *Calculation {
	g := &Calculation{Steps: steps}
	for i, s := range steps {
		if i == 0 {
			g.Program, g.ProgramVersion = s.Program, s.ProgramVersion
			g.NormalTermination = true
		}
		g.NormalTermination = g.NormalTermination && s.NormalTermination
		if s.Method != "" {
			g.Method = s.Method
		}
		if s.BasisSet != "" {
			g.BasisSet = s.BasisSet
		}
		g.Unrestricted = g.Unrestricted || s.Unrestricted
		if s.SolventModel != "" {
			g.SolventModel = s.SolventModel
		}
		if s.Charge != nil {
			g.Charge = s.Charge
		}
		if s.Multiplicity != nil {
			g.Multiplicity = s.Multiplicity
		}
		for _, j := range s.JobTypes {
			g.AddJob(j)
		}
		for _, geom := range s.Geometries {
			if n := len(g.Geometries); n > 0 && SameGeometry(g.Geometries[n-1], geom) {
				continue
			}
			g.Geometries = append(g.Geometries, geom)
		}
		g.SCF = append(g.SCF, s.SCF...)
		for _, x := range s.Correlated {
			g.SetCorrelated(x.Method, x.Energy)
		}
		if s.Optimization != nil {
			g.Optimization = s.Optimization
		}
		if s.Orbitals != nil {
			g.Orbitals = s.Orbitals
		}
		if s.MullikenCharges != nil {
			g.MullikenCharges = s.MullikenCharges
		}
		if s.Dipole != nil {
			g.Dipole = s.Dipole
		}
		if s.RotationalConstants != nil {
			g.RotationalConstants = s.RotationalConstants
		}
		if s.Frequencies != nil {
			g.Frequencies, g.IRIntensities = s.Frequencies, s.IRIntensities
		}
		mergeThermo(&g.Thermo, s.Thermo)
		g.WallTime = addTime(g.WallTime, s.WallTime)
		g.CPUTime = addTime(g.CPUTime, s.CPUTime)
		for _, w := range s.Warnings {
			g.Warn(w)
		}
	}
	return g
}

func mergeThermo(dst *Thermo, t Thermo) {
	if t.ZPE != nil || t.Enthalpy != nil || t.Gibbs != nil {
		*dst = t
	}
}

func addTime(sum, t *float64) *float64 {
	switch {
	case t == nil:
		return sum
	case sum == nil:
		return Float(*t)
	}
	return Float(*sum + *t)
}

// SameGeometry reports whether a and b have the same atoms at the same
// positions (within 1e-6 Å).
func SameGeometry(a, b Geometry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		d := func(x, y float64) bool { return x-y > 1e-6 || y-x > 1e-6 }
		if a[i].AtomicNumber != b[i].AtomicNumber || d(a[i].X, b[i].X) || d(a[i].Y, b[i].Y) || d(a[i].Z, b[i].Z) {
			return false
		}
	}
	return true
}

// ParseSteps is ParseLines for parsers of logs that may hold several job
// steps: finish returns the steps in order. Empty steps are dropped; one
// step is returned as it is (a single-step log reads exactly as with
// ParseLines), several as their Group. Errors as ParseLines.
func ParseSteps(name string, r io.Reader, line func([]byte), finish func() []*Calculation) (*Calculation, error) {
	ln := NewLines(r)
	ln.Each(line)
	var steps []*Calculation
	for _, s := range finish() {
		if s != nil && !s.Empty() {
			steps = append(steps, s)
		}
	}
	var c *Calculation
	switch len(steps) {
	case 0:
		c = nil
	case 1:
		c = steps[0]
	default:
		c = Group(steps)
	}
	if c != nil {
		if n := ln.Truncated(); n > 0 {
			c.Warn(fmt.Sprintf("%d over-long lines cut to %d bytes", n, MaxLine))
		}
	}
	if err := ln.Err(); err != nil {
		if c == nil {
			c = &Calculation{}
		}
		return c, fmt.Errorf("%s: parse: read line %d: %w", name, ln.N(), err)
	}
	if c == nil {
		return nil, fmt.Errorf("%s: parse: %w", name, ErrNoResults)
	}
	return c, nil
}
