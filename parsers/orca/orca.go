package orca

import (
	"bytes"
	"io"
	"math"
	"strings"

	"github.com/molgraph/molgraph/parsers/qm"
)

// Parser is the ORCA entry of a qm.Table.
type Parser struct{}

// Program returns qm.ORCA.
func (Parser) Program() qm.Program { return qm.ORCA }

// Parse parses an ORCA output file; see the package comment.
func (Parser) Parse(r io.Reader) (*qm.Calculation, error) { return Parse(r) }

// Parse reads an ORCA output file from r. Errors: qm.ErrNoResults when
// nothing ORCA-like was found, or the read error of r (wrapped, with the
// partial calculation).
func Parse(r io.Reader) (*qm.Calculation, error) {
	s := &stepper{p: &parser{c: &qm.Calculation{Program: qm.ORCA}}}
	return qm.ParseSteps("orca", r, s.line, s.finish)
}

// stepper splits a multi-job run into its jobs: each "$$$ JOB NUMBER n $$$"
// banner (inputs joined with $new_job) or "COMPOUND JOB n" banner (ORCA 6
// compound scripts; not "COMPOUND JOB MainJOB", the driver's own header)
// starts a step read by a fresh parser. What precedes the first job (the
// program banner, the input echo with every job's keywords, the basis set
// ORCA announces for each job, the compound driver's header) yields no
// step of its own: a parser that has read no geometry, SCF or frequencies
// when a job starts is replaced, and what it read of the header (version,
// per-job keywords and basis sets) passes to the next. A job followed by
// another terminated normally (ORCA ends the whole run at an error, so it
// starts the next job only after one has ended); the last one as a
// single-job log, by "ORCA TERMINATED NORMALLY".
type stepper struct {
	p      *parser
	steps  []*qm.Calculation
	capped bool
}

func (s *stepper) line(b []byte) {
	if n, compound, ok := jobBanner(b); ok {
		s.startJob(n, compound)
	}
	s.p.line(b)
}

func (s *stepper) startJob(n int, compound bool) {
	old := s.p
	if old.hasResults() {
		if len(s.steps) >= qm.MaxSteps-1 {
			if !s.capped {
				s.capped = true
				old.c.Warn("more than the maximum number of jobs: the rest of the log is read into the last one")
			}
			return
		}
		old.finish()
		old.c.NormalTermination = true
		s.steps = append(s.steps, old.c)
	}
	s.p = &parser{c: &qm.Calculation{Program: qm.ORCA, ProgramVersion: old.c.ProgramVersion}, multi: true}
	if !compound {
		// The header's input echo and basis announcements list every job.
		s.p.echo, s.p.bases, s.p.job = old.echo, old.bases, n-1
	} // a compound job echoes its own input and announces its own basis
}

func (s *stepper) finish() []*qm.Calculation {
	s.p.finish()
	return append(s.steps, s.p.c)
}

// jobBanner reads the job number of a "$$$ JOB NUMBER n $$$" or
// "COMPOUND JOB n" line (compound true).
func jobBanner(b []byte) (n int, compound, ok bool) {
	t := bytes.TrimLeft(b, " ")
	if len(t) == 0 || t[0] != '$' && t[0] != 'C' {
		return 0, false, false
	}
	t = bytes.Trim(t, " \t\r$*")
	var rest []byte
	switch {
	case bytes.HasPrefix(t, []byte("JOB NUMBER")):
		rest = t[len("JOB NUMBER"):]
	case bytes.HasPrefix(t, []byte("COMPOUND JOB")):
		rest, compound = t[len("COMPOUND JOB"):], true
	default:
		return 0, false, false
	}
	n, ok = qm.ParseInt(qm.TrimSpace(rest))
	return n, compound, ok && n >= 1 && n <= 1<<20
}

// hasResults reports whether p has read a geometry, an SCF or frequencies.
func (p *parser) hasResults() bool {
	return len(p.c.SCF) > 0 || len(p.c.Geometries) > 0 || len(p.geom) > 0 || p.scfPending || len(p.modes) > 0
}

type section int

const (
	secNone section = iota
	secGeom
	secSCF
	secOrbitals
	secMulliken
	secFreq
	secIR
)

type mode struct {
	n    int
	freq float64
}

type parser struct {
	c      *qm.Calculation
	sec    section
	fields [][]byte
	// ccBlock: inside a COUPLED CLUSTER ENERGY block (its E(TOT) is the
	// coupled-cluster energy).
	ccBlock bool
	ccTot   *float64 // the last such E(TOT)
	// dispSCF is len(c.SCF) when the dispersion correction was added to
	// the last SCF energy.
	dispSCF int
	geom    qm.Geometry

	// echo holds the simple-input keywords of the last input echo, one
	// list per job ($new_job starts the next); job is this parser's job
	// in it and in bases, the basis sets announced so far in order.
	echo       [][]string
	job        int
	bases      []string
	multi      bool // a job of a multi-job run
	hfHamilton bool

	modules    bool     // in the "Timings for individual modules" block
	moduleTime *float64 // its "Sum of individual times" (s)

	scfPending bool
	scfConv    bool
	scfIters   int

	spin    int
	eig     [2][]float64
	homo    [2]int
	hasBeta bool

	mull []float64

	modes    []mode
	irByN    map[int]float64
	irIntCol int

	rotCm    []float64
	rotMHz   bool // a MHz line was seen: more digits than the cm-1 line
	optCycle int
	optConv  bool
	isOpt    bool
}

func (p *parser) line(b []byte) {
	switch p.sec {
	case secGeom:
		if len(qm.TrimSpace(b)) == 0 {
			p.endGeom()
			p.sec = secNone
			return
		}
		if bytes.HasPrefix(b, []byte("---")) {
			return
		}
		p.geomRow(b)
		return
	case secSCF:
		if p.scfLine(b) {
			return
		}
		p.sec = secNone
	case secOrbitals:
		if p.orbLine(b) {
			return
		}
		p.endOrbitals()
	case secMulliken:
		t := qm.TrimSpace(b)
		if bytes.HasPrefix(t, []byte("Sum of atomic charges")) || len(p.mull) > 1<<20 {
			p.c.MullikenCharges = p.mull
			p.sec = secNone
			return
		}
		if i := bytes.IndexByte(t, ':'); i > 0 {
			fs := qm.Fields(t[i+1:], p.fields)
			p.fields = fs
			if len(fs) >= 1 {
				if v, ok := qm.ParseFloat(fs[0]); ok {
					p.mull = append(p.mull, v)
				}
			}
		}
		return
	case secFreq:
		t := qm.TrimSpace(b)
		if bytes.Contains(t, []byte("cm**-1")) {
			fs := qm.Fields(t, p.fields)
			p.fields = fs
			if len(fs) >= 3 && bytes.HasSuffix(fs[0], []byte(":")) {
				n, ok1 := qm.ParseInt(fs[0][:len(fs[0])-1])
				v, ok2 := qm.ParseFloat(fs[1])
				if ok1 && ok2 && len(p.modes) < 1<<20 {
					p.modes = append(p.modes, mode{n, v})
				}
			}
			return
		}
		if len(p.modes) > 0 && len(t) > 0 {
			p.sec = secNone
		} else {
			return
		}
	case secIR:
		t := qm.TrimSpace(b)
		if bytes.HasPrefix(t, []byte("Mode")) {
			if bytes.Contains(t, []byte("Int")) && bytes.Contains(t, []byte("eps")) {
				p.irIntCol = 3
			} else {
				p.irIntCol = 2
			}
			return
		}
		fs := qm.Fields(t, p.fields)
		p.fields = fs
		if len(fs) > p.irIntCol && bytes.HasSuffix(fs[0], []byte(":")) {
			n, ok1 := qm.ParseInt(fs[0][:len(fs[0])-1])
			v, ok2 := qm.ParseFloat(fs[p.irIntCol])
			if ok1 && ok2 && len(p.irByN) < 1<<20 {
				p.irByN[n] = v
			}
			return
		}
		if len(p.irByN) > 0 && len(t) > 0 && !bytes.HasPrefix(t, []byte("---")) {
			p.sec = secNone
		} else {
			return
		}
	}

	if len(b) == 0 {
		return
	}
	t := bytes.TrimLeft(b, " ")
	if len(t) == 0 {
		return
	}
	switch t[0] {
	case 'C':
		if bytes.HasPrefix(t, []byte("CARTESIAN COORDINATES (ANGSTROEM)")) {
			p.sec = secGeom
			p.geom = nil
		} else if bytes.HasPrefix(t, []byte("COUPLED CLUSTER ENERGY")) {
			p.ccBlock = true
		}
	case 'E':
		p.correlated(t)
	case 'D':
		// "Dispersion correction           -0.014719932" (DFT-D3/D4,
		// after the SCF of the same geometry): Gaussian's "SCF Done" and
		// NWChem's "Total DFT energy" include the empirical dispersion,
		// ORCA's "Total Energy" does not; the SCF energy includes it in
		// every program (as cclib's scfenergies). Once per SCF.
		if bytes.HasPrefix(t, []byte("Dispersion correction")) && p.dispSCF != len(p.c.SCF) {
			if v, ok := qm.FloatAfter(t, "correction"); ok && len(p.c.SCF) > 0 && p.c.SCF[len(p.c.SCF)-1].Energy != nil && math.Abs(v) < 10 {
				last := &p.c.SCF[len(p.c.SCF)-1]
				last.Energy = qm.Float(*last.Energy + v)
				p.dispSCF = len(p.c.SCF)
			}
		}
	case 'S':
		switch {
		case bytes.HasPrefix(t, []byte("SCF ITERATIONS")):
			p.sec = secSCF
			p.scfPending, p.scfConv, p.scfIters = true, false, 0
		case bytes.HasPrefix(t, []byte("SCF CONVERGED AFTER")):
			p.scfConv = true
			if n, ok := intAfter(t, "AFTER"); ok {
				p.scfIters = n
			}
		case bytes.HasPrefix(t, []byte("SCF NOT CONVERGED")):
			p.c.Warn("SCF not converged")
		case p.modules && bytes.HasPrefix(t, []byte("Sum of individual times")):
			p.modules = false
			if v, ok := qm.FloatAfter(t, "..."); ok {
				p.moduleTime = qm.Float(v)
			}
		}
	case '*':
		switch {
		case bytes.Contains(t, []byte("SCF CONVERGED AFTER")):
			p.scfConv = true
			if n, ok := intAfter(t, "AFTER"); ok {
				p.scfIters = n
			}
		case bytes.Contains(t, []byte("SCF NOT CONVERGED")):
			p.c.Warn("SCF not converged")
		case bytes.Contains(t, []byte("GEOMETRY OPTIMIZATION CYCLE")):
			if n, ok := intAfter(t, "CYCLE"); ok && n > p.optCycle {
				p.optCycle = n
			}
			p.isOpt = true
			p.c.AddJob(qm.JobOptimization)
		case bytes.Contains(t, []byte("THE OPTIMIZATION HAS CONVERGED")):
			p.optConv = true
		case bytes.Contains(t, []byte("ORCA TERMINATED NORMALLY")):
			p.c.NormalTermination = true
		}
	case 'T':
		switch {
		case bytes.HasPrefix(b, []byte("Total Energy       :")):
			p.scfEnergy(b)
		case bytes.HasPrefix(t, []byte("Total Charge")):
			if v, ok := intAfter(t, "...."); ok {
				p.c.Charge = qm.Int(v)
			}
		case bytes.HasPrefix(t, []byte("Total Dipole Moment")):
			var fs [6][]byte
			vs := qm.Floats(qm.Fields(t[bytes.IndexByte(t, ':')+1:], fs[:0]), nil)
			if len(vs) == 3 {
				d := &qm.Dipole{X: vs[0] * qm.AtomicUnitDipoleToDebye, Y: vs[1] * qm.AtomicUnitDipoleToDebye,
					Z: vs[2] * qm.AtomicUnitDipoleToDebye}
				d.Total = math.Sqrt(d.X*d.X + d.Y*d.Y + d.Z*d.Z)
				p.c.Dipole = d
			}
		case bytes.HasPrefix(t, []byte("Total Enthalpy")):
			if v, ok := qm.FloatAfter(t, "..."); ok {
				p.c.Thermo.Enthalpy = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("Temperature")) && bytes.Contains(t, []byte("...")):
			if v, ok := qm.FloatAfter(t, "..."); ok {
				p.c.Thermo.Temperature = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("Timings for individual modules")):
			p.modules = true
		case bytes.HasPrefix(t, []byte("TOTAL RUN TIME:")):
			if s, ok := runTime(t[len("TOTAL RUN TIME:"):]); ok {
				p.c.WallTime = qm.Float(s)
			}
		case bytes.Contains(t, []byte("The optimization did not converge")):
			p.c.Warn("optimization did not converge")
		}
	case 'P':
		switch {
		case bytes.HasPrefix(t, []byte("Program Version")):
			fs := qm.Fields(t, p.fields)
			p.fields = fs
			if len(fs) >= 3 && p.c.ProgramVersion == "" {
				p.c.ProgramVersion = string(fs[2])
			}
		case bytes.HasPrefix(t, []byte("Pressure")) && bytes.Contains(t, []byte("...")):
			if v, ok := qm.FloatAfter(t, "..."); ok {
				p.c.Thermo.Pressure = qm.Float(v)
			}
		}
	case 'M':
		switch {
		case bytes.HasPrefix(t, []byte("MP2 TOTAL ENERGY:")):
			// The MP2 module: "MP2 TOTAL ENERGY:      -74.999373815 Eh".
			if v, ok := qm.FloatAfter(t, ":"); ok {
				p.c.SetCorrelated("MP2", v)
			}
		case bytes.HasPrefix(t, []byte("Multiplicity ")) && bytes.Contains(t, []byte("....")):
			if v, ok := intAfter(t, "...."); ok {
				p.c.Multiplicity = qm.Int(v)
			}
		case bytes.HasPrefix(t, []byte("MULLIKEN ATOMIC CHARGES")):
			p.sec = secMulliken
			p.mull = nil
		case bytes.HasPrefix(t, []byte("Magnitude (Debye)")):
			if v, ok := qm.FloatAfter(t, ":"); ok && p.c.Dipole != nil {
				p.c.Dipole.Total = v
			}
		}
	case 'O':
		if bytes.HasPrefix(t, []byte("ORBITAL ENERGIES")) {
			p.sec = secOrbitals
			p.spin = 0
			p.eig = [2][]float64{}
			p.homo = [2]int{-1, -1}
			p.hasBeta = false
		}
	case 'V':
		if bytes.HasPrefix(t, []byte("VIBRATIONAL FREQUENCIES")) {
			p.sec = secFreq
			p.modes = nil
			p.irByN = map[int]float64{}
			p.c.AddJob(qm.JobFrequency)
		}
	case 'I':
		if bytes.Equal(qm.TrimSpace(t), []byte("INPUT FILE")) {
			p.echo = nil // a new input echo
		} else if bytes.HasPrefix(t, []byte("IR SPECTRUM")) {
			p.sec = secIR
			p.irIntCol = 2
			if p.irByN == nil {
				p.irByN = map[int]float64{}
			}
		}
	case 'Z':
		if bytes.HasPrefix(t, []byte("Zero point energy")) {
			if v, ok := qm.FloatAfter(t, "..."); ok {
				p.c.Thermo.ZPE = qm.Float(v)
			}
		}
	case 'F':
		if bytes.HasPrefix(t, []byte("Final Gibbs free")) {
			if v, ok := qm.FloatAfter(t, "..."); ok {
				p.c.Thermo.Gibbs = qm.Float(v)
			}
		}
	case 'R':
		switch {
		case bytes.HasPrefix(t, []byte("Rotational constants in cm-1:")):
			var fs [6][]byte
			p.rotCm = qm.Floats(qm.Fields(t[len("Rotational constants in cm-1:"):], fs[:0]), nil)
			if len(p.rotCm) == 3 && !p.rotMHz {
				rc := make([]float64, 3)
				for i, v := range p.rotCm {
					rc[i] = v * qm.WavenumberToGHz
				}
				p.c.RotationalConstants = rc
			}
		case bytes.HasPrefix(t, []byte("Rotational constants in MHz")):
			var fs [6][]byte
			vs := qm.Floats(qm.Fields(t[bytes.IndexByte(t, ':')+1:], fs[:0]), nil)
			if len(vs) == 3 {
				p.rotMHz = true
				for i := range vs {
					vs[i] *= qm.MHzToGHz
				}
				p.c.RotationalConstants = vs
			}
		}
	case 'Y':
		if bytes.HasPrefix(t, []byte("Your calculation utilizes the basis:")) {
			basis := strings.TrimSpace(string(t[len("Your calculation utilizes the basis:"):]))
			// In a job of a multi-job run the first announcement counts:
			// a compound driver announces its own basis again after the
			// last job.
			if !p.multi || p.c.BasisSet == "" {
				p.c.BasisSet = basis
			}
			if len(p.bases) < qm.MaxSteps {
				p.bases = append(p.bases, basis)
			}
		}
	case 'A':
		if bytes.HasPrefix(t, []byte("Ab initio Hamiltonian")) && bytes.Contains(t, []byte("Hartree-Fock")) {
			p.hfHamilton = true
		}
	case 'U':
		if bytes.HasPrefix(t, []byte("UHF")) || bytes.HasPrefix(t, []byte("UKS")) {
			p.c.Unrestricted = true
		}
	case '|':
		// Input echo: "|  1> ! B3LYP def2-SVP Opt", "| 10> $new_job".
		if i := bytes.Index(t, []byte("> ")); i > 0 && i < 8 {
			in := qm.TrimSpace(t[i+2:])
			switch {
			case len(in) > 0 && in[0] == '!':
				if len(p.echo) == 0 {
					p.echo = [][]string{nil}
				}
				kw := &p.echo[len(p.echo)-1]
				for _, k := range strings.Fields(string(in[1:])) {
					if k == "#" || strings.HasPrefix(k, "#") || len(*kw) >= 200 {
						break
					}
					*kw = append(*kw, k)
				}
			case bytes.HasPrefix(in, []byte("$new_job")) && len(p.echo) < qm.MaxSteps:
				if len(p.echo) == 0 {
					p.echo = [][]string{nil}
				}
				p.echo = append(p.echo, nil)
			}
		}
	}
}

func (p *parser) geomRow(b []byte) {
	fs := qm.Fields(b, p.fields)
	p.fields = fs
	if len(fs) < 4 || len(p.geom) > 100000 {
		return
	}
	z, ok := qm.AtomicNumber(string(fs[0]))
	x, ok1 := qm.ParseFloat(fs[1])
	y, ok2 := qm.ParseFloat(fs[2])
	zc, ok3 := qm.ParseFloat(fs[3])
	if !ok || !ok1 || !ok2 || !ok3 {
		return
	}
	p.geom = append(p.geom, qm.Atom{AtomicNumber: z, X: x, Y: y, Z: zc})
}

func (p *parser) endGeom() {
	g := p.geom
	p.geom = nil
	if len(g) == 0 {
		return
	}
	if n := len(p.c.Geometries); n > 0 && same(p.c.Geometries[n-1], g) {
		return
	}
	p.c.Geometries = append(p.c.Geometries, g)
}

func same(a, b qm.Geometry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// scfLine consumes lines of the SCF ITERATIONS section; false ends it.
func (p *parser) scfLine(b []byte) bool {
	t := qm.TrimSpace(b)
	switch {
	case bytes.Contains(t, []byte("ITERATION")) && bytes.HasPrefix(t, []byte("!")):
		p.scfIters++
		return true
	case bytes.Contains(t, []byte("SCF CONVERGED AFTER")) || bytes.Contains(t, []byte("SCF NOT CONVERGED")):
		return false
	case bytes.HasPrefix(t, []byte("TOTAL SCF ENERGY")):
		return false
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) >= 3 {
		if _, ok := qm.ParseInt(fs[0]); ok {
			if _, ok := qm.ParseFloat(fs[1]); ok {
				p.scfIters++
			}
		}
	}
	return true
}

func (p *parser) scfEnergy(b []byte) {
	v, ok := qm.FloatAfter(b, ":")
	if !ok {
		return
	}
	s := qm.SCF{Energy: qm.Float(v), Converged: p.scfConv, Iterations: p.scfIters}
	if !p.scfPending {
		s.Converged = true // energy printed without an iteration section (e.g. restart)
	}
	p.c.SCF = append(p.c.SCF, s)
	p.scfPending, p.scfConv, p.scfIters = false, false, 0
	if p.sec == secSCF {
		p.sec = secNone
	}
}

// orbLine consumes lines of the ORBITAL ENERGIES section; false ends it.
func (p *parser) orbLine(b []byte) bool {
	t := qm.TrimSpace(b)
	switch {
	case len(t) == 0, bytes.HasPrefix(t, []byte("---")), bytes.HasPrefix(t, []byte("NO ")):
		return true
	case bytes.HasPrefix(t, []byte("SPIN UP ORBITALS")):
		p.spin = 0
		return true
	case bytes.HasPrefix(t, []byte("SPIN DOWN ORBITALS")):
		p.spin = 1
		p.hasBeta = true
		return true
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 3 {
		return false
	}
	n, ok0 := qm.ParseInt(fs[0])
	occ, ok1 := qm.ParseFloat(fs[1])
	e, ok2 := qm.ParseFloat(fs[2])
	if !ok0 || !ok1 || !ok2 || len(p.eig[p.spin]) > 1<<20 {
		return false
	}
	p.eig[p.spin] = append(p.eig[p.spin], e)
	if occ > 0 {
		p.homo[p.spin] = n
	}
	return true
}

func (p *parser) endOrbitals() {
	p.sec = secNone
	if len(p.eig[0]) == 0 {
		return
	}
	o := &qm.Orbitals{Energies: [][]float64{p.eig[0]}, HOMO: []int{p.homo[0]}}
	if p.hasBeta {
		o.Energies = append(o.Energies, p.eig[1])
		o.HOMO = append(o.HOMO, p.homo[1])
		p.c.Unrestricted = true
	}
	p.c.Orbitals = o
}

func (p *parser) finish() {
	switch p.sec {
	case secGeom:
		p.endGeom()
	case secOrbitals:
		p.endOrbitals()
	}
	c := p.c
	if p.scfPending {
		c.SCF = append(c.SCF, qm.SCF{Converged: false, Iterations: p.scfIters})
	}
	if p.multi {
		// ORCA times the whole run only ("TOTAL RUN TIME"); a job's own
		// time is the sum of its modules' times.
		c.WallTime = p.moduleTime
		if c.BasisSet == "" && p.job < len(p.bases) {
			c.BasisSet = p.bases[p.job]
		}
	}
	// Keywords of this job: job types, method, basis fallback.
	var keywords []string
	if p.job < len(p.echo) {
		keywords = p.echo[p.job]
	}
	method := ""
	for _, k := range keywords {
		lk := strings.ToLower(k)
		switch {
		case lk == "opt" || lk == "copt" || lk == "zopt" || lk == "tightopt" || lk == "looseopt" || lk == "verytightopt":
			c.AddJob(qm.JobOptimization)
			p.isOpt = true
		case lk == "freq" || lk == "numfreq" || lk == "anfreq":
			c.AddJob(qm.JobFrequency)
		case lk == "sp" || lk == "energy":
			c.AddJob(qm.JobEnergy)
		case lk == "uhf" || lk == "uks":
			c.Unrestricted = true
		}
		if method == "" && isMethod(lk) {
			method = strings.ToUpper(k)
		}
		if c.BasisSet == "" && isBasis(lk) {
			c.BasisSet = k
		}
	}
	if method == "" && p.hfHamilton {
		method = "HF"
	}
	c.Method = method
	if p.ccTot != nil {
		// The ground-state CC energy of CC and EOM/STEOM-CC runs
		// ("EOM-CCSD", "bt-PNO-STEOM-CCSD", "DLPNO-CCSD(T)": CCSD).
		m := strings.ToUpper(method)
		if i := strings.LastIndex(m, "-CC"); i >= 0 {
			m = m[i+1:]
		} else if i := strings.LastIndex(m, "-QCI"); i >= 0 {
			m = m[i+1:]
		}
		if m = strings.TrimSuffix(strings.TrimSuffix(m, "(T1)"), "(T)"); m == "CCSD" || m == "QCISD" {
			if _, ok := c.CorrelatedEnergyOf(m); !ok {
				c.SetCorrelated(m, *p.ccTot)
			}
		}
	}
	if len(c.JobTypes) == 0 && (len(c.SCF) > 0 || len(keywords) > 0) {
		c.AddJob(qm.JobEnergy)
	}
	if p.isOpt {
		c.Optimization = &qm.Optimization{Converged: p.optConv, Steps: p.optCycle}
	}
	if len(p.modes) > 0 {
		var fr, ir []float64
		irOK := len(p.irByN) > 0
		for _, m := range p.modes {
			if m.freq == 0 {
				continue // translations and rotations
			}
			fr = append(fr, m.freq)
			v, ok := p.irByN[m.n]
			irOK = irOK && ok
			ir = append(ir, v)
		}
		c.Frequencies = fr
		if irOK {
			c.IRIntensities = ir
		}
	}
}

// correlated reads the total energies of ORCA's MDCI module: "E(MP2)  =
// -74.999374371   EC(MP2)= -0.0358" and "E(MP3)  = …" (MP3: total, then
// correlation energy), "E(CCSD) ... -75.013487814" and "E(CCSD(T)) ...
// -75.013556310" (after the triples), and a CCSD-only run's "E(TOT) ..."
// in its COUPLED CLUSTER ENERGY block. The MDCI initial guess's "E(MP2)
// ... -0.0358" (three dots) is a correlation energy, not a total: never
// read (cclib reads it, and EC(MP2), as MP2 totals).
func (p *parser) correlated(t []byte) {
	var method, marker string
	switch {
	case bytes.HasPrefix(t, []byte("E(MP2)  =")):
		method, marker = "MP2", "="
	case bytes.HasPrefix(t, []byte("E(MP3)  =")):
		method, marker = "MP3", "="
	case bytes.HasPrefix(t, []byte("E(CCSD) ")):
		method, marker = "CCSD", "..."
	case bytes.HasPrefix(t, []byte("E(CCSD(T)) ")):
		method, marker = "CCSD(T)", "..."
	case bytes.HasPrefix(t, []byte("E(QCISD) ")):
		method, marker = "QCISD", "..."
	case bytes.HasPrefix(t, []byte("E(QCISD(T)) ")):
		method, marker = "QCISD(T)", "..."
	case p.ccBlock && bytes.HasPrefix(t, []byte("E(TOT) ")):
		// "E(TOT)" of the COUPLED CLUSTER ENERGY block: the iterated
		// method of the input's level of theory (CCSD for CCSD(T)).
		// The input's keywords are read at the end (finish).
		p.ccBlock = false
		if v, ok := qm.FloatAfter(t, "..."); ok {
			p.ccTot = qm.Float(v)
		}
		return
	default:
		return
	}
	if v, ok := qm.FloatAfter(t, marker); ok {
		p.c.SetCorrelated(method, v)
	}
}

// isMethod recognises the level-of-theory keywords of ORCA's simple input.
func isMethod(k string) bool {
	k = strings.TrimPrefix(k, "ri-")
	// Variants of local and equation-of-motion coupled cluster
	// ("bt-PNO-EOM-CCSD", "STEOM-DLPNO-CCSD", "DLPNO-CCSD(T1)").
	for _, suf := range [...]string{"-ccsd", "-ccsd(t)", "-ccsd(t1)", "-mp2"} {
		if strings.HasSuffix(k, suf) && len(k) < 40 && strings.Trim(k, "abcdefghijklmnopqrstuvwxyz0123456789-()") == "" {
			return true
		}
	}
	switch k {
	case "hf", "rhf", "uhf", "rohf", "mp2", "scs-mp2", "mp3", "ccsd", "ccsd(t)", "qcisd", "qcisd(t)",
		"dlpno-ccsd", "dlpno-ccsd(t)", "dlpno-ccsd(t1)", "dlpno-mp2", "casscf", "nevpt2", "cisd",
		"eom-ccsd", "ip-eom-ccsd", "ea-eom-ccsd", "steom-ccsd", "bt-pno-steom-ccsd", "bt-pno-ip-eom-ccsd",
		"bt-pno-ea-eom-ccsd", "dlpno-steom-ccsd", "pno-steom-ccsd",
		"b3lyp", "b3lyp/g", "blyp", "bp86", "bp", "pbe", "pbe0", "pw91", "tpss", "tpssh", "tpss0", "m06",
		"m06-2x", "m062x", "m06l", "m06-l", "b97", "b97-d", "b97-d3", "wb97", "wb97x", "wb97x-d3", "wb97x-v",
		"wb97m-v", "wb97x-d4", "cam-b3lyp", "b2plyp", "revpbe", "revpbe0", "r2scan", "r2scan-3c", "b97-3c",
		"pbeh-3c", "hf-3c", "scan", "x3lyp", "o3lyp", "bhlyp", "pw6b95", "dsd-blyp", "dsd-pbep86", "lda",
		"svwn", "vwn", "olyp", "xlyp", "mpwlyp", "b3pw91", "pw1pw", "mpw1pw", "gfn2-xtb", "gfn1-xtb", "xtb",
		"am1", "pm3", "mndo", "zindo/s":
		return true
	}
	return false
}

// isBasis recognises common basis-set keywords.
func isBasis(k string) bool {
	for _, p := range []string{"sto-", "3-21g", "6-31", "6-311", "def2-", "def-", "cc-p", "aug-cc-", "ma-def2",
		"pc-", "pcseg", "aug-pc", "minix", "sv(p)", "svp", "tzvp", "qzvp", "ano-", "sarc-", "dkh-def2", "zora-def2"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

func intAfter(t []byte, marker string) (int, bool) {
	v, ok := qm.FloatAfter(t, marker)
	if !ok || v != math.Trunc(v) || math.Abs(v) > 1e9 {
		return 0, false
	}
	return int(v), true
}

// runTime reads "0 days 0 hours 0 minutes 30 seconds 852 msec".
func runTime(b []byte) (float64, bool) {
	var buf [12][]byte
	fs := qm.Fields(b, buf[:0])
	if len(fs) < 8 {
		return 0, false
	}
	mult := map[string]float64{"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1, "msec": 1e-3}
	total := 0.0
	for i := 0; i+1 < len(fs); i += 2 {
		v, ok := qm.ParseFloat(fs[i])
		m, ok2 := mult[string(fs[i+1])]
		if !ok || !ok2 {
			return 0, false
		}
		total += v * m
	}
	return total, true
}
