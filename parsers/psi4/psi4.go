package psi4

import (
	"bytes"
	"io"
	"math"
	"regexp"
	"strings"

	"github.com/molgraph/molgraph/parsers/qm"
)

// Parser is the Psi4 entry of a qm.Table.
type Parser struct{}

// Program returns qm.Psi4.
func (Parser) Program() qm.Program { return qm.Psi4 }

// Parse parses a Psi4 output file; see the package comment.
func (Parser) Parse(r io.Reader) (*qm.Calculation, error) { return Parse(r) }

// Parse reads a Psi4 output file from r. Errors: qm.ErrNoResults when
// nothing Psi4-like was found, or the read error of r (wrapped, with the
// partial calculation).
func Parse(r io.Reader) (*qm.Calculation, error) {
	s := &stepper{p: &parser{c: &qm.Calculation{Program: qm.Psi4}}}
	return qm.ParseSteps("psi4", r, s.line, s.finish)
}

// driverCall is one Psi4 driver call of the input: its job type.
type driverCall struct {
	job    qm.JobType
	method string // as written, lower case: "scf", "b3lyp", "mp2", "sapt0"
}

var (
	reCall = regexp.MustCompile(`(?:^|[^\w.])(energy|optimize|opt|frequency|frequencies|freq|hessian|gradient|properties|prop)\s*\(\s*['"]([^'"]*)['"]`)
	// Correlated and multireference methods run several modules per call,
	// each with its own tstart(): their calls cannot be told apart in the
	// output, so logs using them are read as one calculation.
	reCorrelated = regexp.MustCompile(`^(mp\d|mp2\.5|cc|ccsd|cisd|ci\d|fci|detci|casscf|rasscf|sapt|fisapt|eom|adc|omp|scs|sos|dlpno|zapt|mrcc|psimrcc|dmrg|qcisd|bccd|lccd|lccsd|dct|fno|cepa|olccd|remp|mp2-d|dsd)`)
)

// stepper splits a log into its driver calls when the input (echoed in the
// log) makes two or more SCF-level calls at top level (energy, optimize,
// frequency, ...; no loops, functions or correlated methods): a call ends
// when its work is done (energy/gradient/properties: its SCF energy;
// optimize: "Optimization is complete" or "Final optimized geometry";
// frequency: the Gibbs energy of its thermochemistry) and the next call
// starts at the next "tstart() called" line. Each call is read by a fresh
// parser; its job type is the call's.
type stepper struct {
	p          *parser
	steps      []*qm.Calculation
	calls      []driverCall
	input      int // 0 before the input echo, 1 inside, 2 after
	dashes     int
	splittable bool
	idx        int
	done       bool
}

func (s *stepper) line(b []byte) {
	t := qm.TrimSpace(b)
	switch s.input {
	case 0:
		if bytes.HasPrefix(t, []byte("==> Input File <==")) {
			s.input, s.splittable = 1, true
		}
	case 1:
		if bytes.HasPrefix(t, []byte("-----")) {
			if s.dashes++; s.dashes >= 2 {
				s.input = 2
				s.splittable = s.splittable && len(s.calls) >= 2
			}
		} else {
			s.inputLine(b, t)
		}
	}
	if s.input == 2 && s.splittable && s.idx+1 < len(s.calls) {
		switch {
		case s.done && bytes.HasPrefix(t, []byte("*** tstart() called")) && len(s.steps) < qm.MaxSteps-1:
			s.endStep()
		case !s.done:
			s.done = s.callDone(t)
		}
	}
	s.p.line(b)
}

func (s *stepper) inputLine(raw, t []byte) {
	l := strings.ToLower(string(t))
	if i := strings.IndexByte(l, '#'); i >= 0 {
		l = l[:i]
	}
	if l == "" {
		return
	}
	for _, kw := range []string{"for ", "while ", "def ", "if ", "import "} {
		if strings.HasPrefix(l, kw) {
			s.splittable = false
		}
	}
	calls := reCall.FindAllStringSubmatch(l, -1)
	if len(calls) > 0 && len(raw) > 0 && (raw[0] == ' ' || raw[0] == '\t') {
		s.splittable = false // a call indented inside a block (loop, function, condition)
	}
	for _, m := range calls {
		method := strings.TrimSpace(m[2])
		if i := strings.IndexByte(method, '/'); i >= 0 {
			method = method[:i] // "mp2/cc-pvdz": method/basis
		}
		if reCorrelated.MatchString(method) {
			s.splittable = false
		}
		job := qm.JobEnergy
		switch m[1] {
		case "optimize", "opt":
			job = qm.JobOptimization
		case "frequency", "frequencies", "freq", "hessian":
			job = qm.JobFrequency
		}
		if len(s.calls) < qm.MaxSteps {
			s.calls = append(s.calls, driverCall{job, method})
		}
	}
}

// callDone reports whether t shows the current call's work done.
func (s *stepper) callDone(t []byte) bool {
	switch s.calls[s.idx].job {
	case qm.JobOptimization:
		return bytes.Contains(t, []byte("Optimization is complete")) || bytes.HasPrefix(t, []byte("Final optimized geometry"))
	case qm.JobFrequency:
		return bytes.HasPrefix(t, []byte("Total G, Free enthalpy at"))
	}
	return len(t) > 0 && t[0] == '@' && bytes.Contains(t, []byte("Final Energy:"))
}

// correlated returns the correlated method (upper case: "MP2", "SAPT0",
// "CCSD(T)") of the input's last driver call, or "" if that call is not
// correlated. The calls of an unsplit input run in one calculation whose
// final results are the last call's: energy('scf') then energy('mp2') is
// an MP2 calculation, energy('cisd') then energy('casscf') a CASSCF one
// (both were labelled HF, their reference).
func (s *stepper) correlated() string {
	if len(s.calls) == 0 {
		return ""
	}
	last := s.calls[len(s.calls)-1].method
	if !reCorrelated.MatchString(last) || len(last) > 40 {
		return ""
	}
	return strings.ToUpper(last)
}

func (s *stepper) endStep() {
	s.p.finish()
	prev := s.p.c
	s.steps = append(s.steps, prev)
	s.p = &parser{c: &qm.Calculation{Program: qm.Psi4, ProgramVersion: prev.ProgramVersion}}
	s.idx++
	s.done = false
}

func (s *stepper) finish() []*qm.Calculation {
	s.p.finish()
	steps := append(s.steps, s.p.c)
	if len(steps) < 2 {
		if m := s.correlated(); m != "" {
			// The SCF energies are the reference's; the level of theory
			// is the correlated method the input asked for.
			steps[0].Method = m
		}
		return steps
	}
	// Psi4 prints the CPU time used since the start of the run: a step's
	// own is the difference to the step before.
	prevCPU := 0.0
	for _, c := range steps {
		if c.CPUTime != nil {
			cum := *c.CPUTime
			c.CPUTime = qm.Float(max(0, cum-prevCPU))
			prevCPU = cum
		}
	}
	for i, c := range steps {
		// The input echo (read by the first step's parser) named every
		// call's job: each step keeps its own call's.
		c.JobTypes = []qm.JobType{s.calls[i].job}
		if s.calls[i].job != qm.JobOptimization {
			c.Optimization = nil
		}
		if i < len(steps)-1 {
			c.NormalTermination = true // the call finished: the next one started
		}
	}
	return steps
}

type section int

const (
	secNone section = iota
	secInput
	secGeom
	secOrbitals
	secMulliken
	secDipole
)

type findif int

const (
	noFindif findif = iota
	findifFirst
	findifSkip
)

type parser struct {
	// dfmp2: inside dfmp2's "DF-MP2 Energies" block.
	dfmp2 bool
	// occOptimized: occ's MP2 block is of orbital-optimized MOs.
	occOptimized bool
	// iterN is the number of the last SCF iteration row (-1: none).
	iterN  int
	c      *qm.Calculation
	sec    section
	fields [][]byte

	inputDashes int
	geom        qm.Geometry
	geomScale   float64
	geomRows    bool

	fd        findif
	fdHaveSCF bool   // the reference-geometry SCF of a FINDIF run was read
	rotNote   string // Psi4's note that rotation-like modes were not projected

	scfPending bool
	scfConv    bool
	scfIters   int
	reference  string
	functional string

	orbKind  string // current sub-list: docc, socc, virt, aocc, avirt, bocc, bvirt
	orb      map[string][]float64
	mull     []float64
	dipAU    [3]float64
	dipN     int
	freqs    []float64
	irs      []float64
	optSteps int
	optDone  bool
	isOpt    bool
	cpu      float64
	haveCPU  bool
}

func (p *parser) skipping() bool { return p.fd == findifSkip }

// iterNumber reads the iteration number of an SCF iteration row
// ("@DF-RHF iter   6:" -> 6; "@RHF iter SAD:" -> 0), -1 if there is none.
func iterNumber(t []byte, buf [][]byte) int {
	fs := qm.Fields(t, buf[:0])
	for i := 0; i+1 < len(fs); i++ {
		if string(fs[i]) == "iter" {
			f := bytes.TrimSuffix(fs[i+1], []byte(":"))
			if string(f) == "SAD" {
				return 0
			}
			if n, ok := qm.ParseInt(f); ok && n >= 0 && n < 1<<20 {
				return int(n)
			}
			return -1
		}
	}
	return -1
}

// correlated reads the total energies of Psi4's correlated modules and
// reports whether t was one: ccenergy's "* MP2 total energy = …", "* CCSD
// total energy", "* CCSD(T) total energy" (and fnocc's QCISD, QCISD(T)),
// occ's "MP2 Total Energy (a.u.)  : …" and "MP3 Total Energy (a.u.)",
// and dfmp2's "Total Energy  = … [Eh]" in its "DF-MP2 Energies" block
// (SCS variants are not kept).
func (p *parser) correlated(t []byte) bool {
	switch t[0] {
	case '*':
		// ccenergy "* CCSD total energy                     =  -75.0177",
		// fnocc "* QCISD total energy:                  -76.2358" and
		// "* QCISD(T) total energy                 -76.2390".
		i := bytes.Index(t, []byte(" total energy"))
		if i < 3 {
			return false
		}
		m := string(bytes.TrimSpace(t[1:i]))
		if !qm.IsCorrelationMethod(m) {
			return false
		}
		if v, ok := qm.FloatAfter(t[i:], " energy"); ok {
			p.c.SetCorrelated(m, v)
		}
		return true
	case 'C':
		// occ prints its MP2 block twice for orbital-optimized methods:
		// "Computing MP2 energy using SCF MOs (Canonical MP2)..." and,
		// after the OMP2 iterations, "Computing MP2 energy using optimized
		// MOs...", whose "MP2 Total Energy" is the OMP2 energy.
		if bytes.HasPrefix(t, []byte("Computing MP2 energy using optimized MOs")) {
			p.occOptimized = true
			return true
		}
		if bytes.HasPrefix(t, []byte("Computing MP2 energy using SCF MOs")) {
			p.occOptimized = false
			return true
		}
	case 'O':
		// occ: "OMP2 Total Energy (a.u.)           :   -76.2316759791".
		for _, m := range [...]string{"OMP2", "OMP3"} {
			if bytes.HasPrefix(t, []byte(m+" Total Energy (a.u.)")) {
				if v, ok := qm.FloatAfter(t, ":"); ok {
					p.c.SetCorrelated(m, v)
				}
				return true
			}
		}
	case 'M':
		for _, m := range [...]string{"MP2", "MP3"} {
			if p.occOptimized {
				break
			}
			if bytes.HasPrefix(t, []byte(m+" Total Energy (a.u.)")) {
				if v, ok := qm.FloatAfter(t, ":"); ok {
					p.c.SetCorrelated(m, v)
				}
				return true
			}
		}
	case '=':
		if bytes.Contains(t, []byte("> DF-MP2 Energies <")) {
			p.dfmp2 = true
			return true
		}
	case 'T':
		if p.dfmp2 && bytes.HasPrefix(t, []byte("Total Energy ")) {
			p.dfmp2 = false
			if v, ok := qm.FloatAfter(t, "="); ok {
				p.c.SetCorrelated("MP2", v)
			}
			return true
		}
	}
	return false
}

// startFindif marks the start of a finite-difference frequency run: the
// SCF solutions of its displaced geometries are not kept.
func (p *parser) startFindif() {
	if p.fd == noFindif {
		p.fd = findifFirst
		p.fdHaveSCF = len(p.c.SCF) > 0
	}
}

func (p *parser) line(b []byte) {
	t := qm.TrimSpace(b)
	switch p.sec {
	case secInput:
		if bytes.HasPrefix(t, []byte("-----")) {
			p.inputDashes++
			if p.inputDashes >= 2 {
				p.sec = secNone
			}
			return
		}
		p.inputLine(t)
		return
	case secGeom:
		if p.geomLine(t) {
			return
		}
		p.endGeom()
	case secOrbitals:
		if p.orbLine(t) {
			return
		}
		p.endOrbitals()
	case secMulliken:
		fs := qm.Fields(t, p.fields)
		p.fields = fs
		if len(fs) >= 3 {
			if _, ok := qm.ParseInt(fs[0]); ok {
				if v, ok := qm.ParseFloat(fs[len(fs)-1]); ok && len(p.mull) < 1<<20 {
					p.mull = append(p.mull, v)
				}
				return
			}
		}
		if bytes.HasPrefix(t, []byte("Center")) {
			return
		}
		if !p.skipping() && len(p.mull) > 0 {
			p.c.MullikenCharges = p.mull
		}
		p.sec = secNone
	case secDipole:
		if len(t) == 0 {
			return
		}
		p.sec = secNone
		x, ok1 := qm.FloatAfter(t, "X:")
		y, ok2 := qm.FloatAfter(t, "Y:")
		z, ok3 := qm.FloatAfter(t, "Z:")
		tot, ok4 := qm.FloatAfter(t, "Total:")
		if ok1 && ok2 && ok3 && !p.skipping() {
			if !ok4 {
				tot = math.Sqrt(x*x + y*y + z*z)
			}
			p.c.Dipole = &qm.Dipole{X: x, Y: y, Z: z, Total: tot}
		}
		return
	}
	if len(t) == 0 {
		return
	}
	if !p.skipping() && p.correlated(t) {
		return
	}

	switch t[0] {
	case '@':
		switch {
		case bytes.Contains(t, []byte(" iter ")):
			// "@DF-RHF iter   6:   -76.0509861231   -2.1e-06 …": an
			// iteration number not above the last one starts a new SCF;
			// the one before ended without "Final Energy" (Psi4 raised
			// SCFConvergenceError, which the input may catch and go on:
			// it was counted as one SCF with both iteration counts).
			n := iterNumber(t, p.fields)
			if p.scfPending && n >= 0 && n <= p.iterN {
				if !p.skipping() {
					p.c.SCF = append(p.c.SCF, qm.SCF{Converged: false, Iterations: p.scfIters})
				}
				p.scfPending = false
			}
			p.iterN = n
			if !p.scfPending {
				p.scfPending, p.scfConv, p.scfIters = true, false, 0
				if p.fd == findifFirst && p.fdHaveSCF {
					p.fd = findifSkip // a displaced geometry's SCF starts
				}
			}
			p.scfIters++
		case bytes.Contains(t, []byte("Final Energy:")):
			p.scfEnergy(t)
		}
	case '=':
		switch {
		case bytes.HasPrefix(t, []byte("==> Input File <==")):
			p.sec = secInput
			p.inputDashes = 0
		case bytes.HasPrefix(t, []byte("=> Composite Functional:")):
			f := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(t[len("=> Composite Functional:"):])), "<="))
			if p.functional == "" && f != "" {
				p.functional = f
			}
		case bytes.HasPrefix(t, []byte("==> Harmonic Vibrational Analysis <==")):
			p.freqs, p.irs = nil, nil
			p.c.AddJob(qm.JobFrequency)
		case bytes.HasPrefix(t, []byte("==> Convergence Check <==")):
			p.optSteps++
		}
	case 'G':
		if bytes.HasPrefix(t, []byte("Geometry (in ")) {
			p.startGeom(t)
		}
	case 'N':
		// At a non-stationary geometry Psi4 projects translations only:
		// 'Note that "Vibration"s include 3 un-projected rotation-like
		// modes.' If they are not near zero it lists them among the
		// vibrations (usually imaginary); see finish.
		if bytes.HasPrefix(t, []byte(`Note that "Vibration"s include`)) {
			p.rotNote = string(t)
		}
	case 'F':
		switch {
		case bytes.HasPrefix(t, []byte("Freq [cm^-1]")):
			for _, f := range qm.Fields(t[len("Freq [cm^-1]"):], p.fields) {
				neg := 1.0
				if n := len(f); n > 1 && f[n-1] == 'i' {
					f, neg = f[:n-1], -1
				}
				if v, ok := qm.ParseFloat(f); ok && len(p.freqs) < 1<<20 {
					p.freqs = append(p.freqs, neg*v)
				}
			}
		case bytes.HasPrefix(t, []byte("Final optimized geometry")):
			p.optDone = true
		case bytes.Equal(t, []byte("FINDIF")):
			p.startFindif()
		}
	case 'U':
		// Psi4 1.2 and older print no FINDIF banner: "Using
		// finite-differences of gradients to determine vibrational
		// frequencies and".
		if bytes.HasPrefix(t, []byte("Using finite-differences of")) {
			p.startFindif()
		}
	case 'I':
		if bytes.HasPrefix(t, []byte("IR activ [km/mol]")) {
			p.irs = qm.Floats(qm.Fields(t[len("IR activ [km/mol]"):], p.fields), p.irs)
		}
	case 'O':
		switch {
		case bytes.HasPrefix(t, []byte("Orbital Energies")):
			p.sec = secOrbitals
			p.orb = map[string][]float64{}
			p.orbKind = ""
		case bytes.HasPrefix(t, []byte("OPTKING")):
			p.isOpt = true
			p.c.AddJob(qm.JobOptimization)
		case bytes.HasPrefix(t, []byte("Optimizer: Did not converge")):
			p.c.Warn("optimization did not converge")
		}
	case 'C':
		switch {
		case bytes.HasPrefix(t, []byte("Charge       =")):
			if v, ok := intAfter(t, "="); ok {
				p.c.Charge = qm.Int(v)
			}
		case bytes.HasPrefix(t, []byte("Correction ZPE")):
			if v, ok := beforeUnit(t, "[Eh]"); ok {
				p.c.Thermo.ZPE = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("Could not converge")):
			p.c.Warn(string(t))
		}
	case 'M':
		switch {
		case bytes.HasPrefix(t, []byte("Multiplicity =")):
			if v, ok := intAfter(t, "="); ok {
				p.c.Multiplicity = qm.Int(v)
			}
		case bytes.HasPrefix(t, []byte("Mulliken Charges:")):
			p.sec = secMulliken
			p.mull = nil
		}
	case 'B':
		if bytes.HasPrefix(t, []byte("Basis Set:")) && p.c.BasisSet == "" {
			p.c.BasisSet = strings.TrimSpace(string(t[len("Basis Set:"):]))
		}
	case 'E':
		if bytes.HasPrefix(t, []byte("Energy and wave function converged")) || bytes.HasPrefix(t, []byte("Energy converged")) {
			p.scfConv = true
		}
	case 'R':
		if bytes.HasPrefix(t, []byte("Rotational constants:")) && bytes.HasSuffix(t, []byte("[MHz]")) && !p.skipping() {
			p.rotConsts(t)
		}
	case 'D':
		switch {
		case bytes.HasPrefix(t, []byte("Dipole Moment: [D]")) || bytes.HasPrefix(t, []byte("Dipole Moment: (Debye)")):
			p.sec = secDipole
		case bytes.HasPrefix(t, []byte("Dipole X")), bytes.HasPrefix(t, []byte("Dipole Y")), bytes.HasPrefix(t, []byte("Dipole Z")):
			// Psi4 ≥ 1.4 multipole table: the last column is the total in e·a0.
			fs := qm.Fields(t, p.fields)
			p.fields = fs
			if len(fs) >= 4 {
				if v, ok := qm.ParseFloat(fs[len(fs)-1]); ok {
					k := int(t[7] - 'X')
					if k >= 0 && k < 3 {
						p.dipAU[k] = v
						p.dipN |= 1 << k
					}
					if p.dipN == 7 && !p.skipping() {
						d := &qm.Dipole{X: p.dipAU[0] * qm.AtomicUnitDipoleToDebye, Y: p.dipAU[1] * qm.AtomicUnitDipoleToDebye,
							Z: p.dipAU[2] * qm.AtomicUnitDipoleToDebye}
						d.Total = math.Sqrt(d.X*d.X + d.Y*d.Y + d.Z*d.Z)
						p.c.Dipole = d
						p.dipN = 0
					}
				}
			}
		}
	case 'T':
		switch {
		case bytes.HasPrefix(t, []byte("Total H, Enthalpy at")):
			if v, ok := beforeUnit(t, "[Eh]"); ok {
				p.c.Thermo.Enthalpy = qm.Float(v)
			}
			if v, ok := qm.FloatAfter(t, "at"); ok {
				p.c.Thermo.Temperature = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("Total G, Free enthalpy at")):
			if v, ok := beforeUnit(t, "[Eh]"); ok {
				p.c.Thermo.Gibbs = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("Translational S")) && bytes.Contains(t, []byte("P = ")):
			if v, ok := qm.FloatAfter(t, "P = "); ok {
				p.c.Thermo.Pressure = qm.Float(v / 101325)
			}
		}
	case 'P':
		switch {
		case bytes.HasPrefix(t, []byte("Psi4 wall time for execution:")):
			if s, ok := hms(t[len("Psi4 wall time for execution:"):]); ok {
				p.c.WallTime = qm.Float(s)
			}
		case (bytes.HasPrefix(t, []byte("Psi4 ")) || bytes.HasPrefix(t, []byte("PSI "))) && p.c.ProgramVersion == "":
			p.version(t)
		}
	case 'u':
		if bytes.HasPrefix(t, []byte("user time")) {
			if v, ok := qm.FloatAfter(t, "="); ok {
				p.cpu, p.haveCPU = v, true // cumulative over the run
			}
		}
	case '*':
		switch {
		case bytes.Contains(t, []byte("Optimization is complete")):
			p.optDone = true
		case bytes.Contains(t, []byte("exiting successfully")):
			p.c.NormalTermination = true
		}
	}
	if bytes.HasSuffix(t, []byte(" Reference")) && len(t) < 16 {
		p.setReference(t)
	}
	if bytes.Contains(t, []byte("Psi4 encountered an error")) || bytes.HasPrefix(t, []byte("PsiException")) {
		p.c.Warn(string(t))
	}
}

func (p *parser) setReference(t []byte) {
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) == 2 && p.reference == "" {
		p.reference = string(fs[0])
		if strings.HasPrefix(p.reference, "U") {
			p.c.Unrestricted = true
		}
	}
}

func (p *parser) inputLine(t []byte) {
	s := strings.ToLower(string(t))
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	switch {
	case strings.Contains(s, "optimize(") || strings.Contains(s, "opt("):
		p.c.AddJob(qm.JobOptimization)
		p.isOpt = true
	}
	if strings.Contains(s, "frequency(") || strings.Contains(s, "frequencies(") || strings.Contains(s, "freq(") || strings.Contains(s, "hessian(") {
		p.c.AddJob(qm.JobFrequency)
	}
	if strings.Contains(s, "energy(") {
		p.c.AddJob(qm.JobEnergy)
	}
}

func (p *parser) startGeom(t []byte) {
	p.sec = secGeom
	p.geom = nil
	p.geomRows = false
	p.geomScale = 1
	if bytes.Contains(t, []byte("(in Bohr)")) {
		p.geomScale = qm.BohrToAngstrom
	}
	if v, ok := intAfter(t, "charge ="); ok {
		p.c.Charge = qm.Int(v)
	}
	if v, ok := intAfter(t, "multiplicity ="); ok {
		p.c.Multiplicity = qm.Int(v)
	}
}

// geomLine consumes a line of a geometry block; false ends the block.
func (p *parser) geomLine(t []byte) bool {
	if len(t) == 0 {
		return !p.geomRows
	}
	if bytes.HasPrefix(t, []byte("Center")) || bytes.HasPrefix(t, []byte("---")) {
		return !p.geomRows
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 4 {
		return false
	}
	z, ok := qm.AtomicNumber(strings.TrimPrefix(string(fs[0]), "Gh("))
	x, ok1 := qm.ParseFloat(fs[1])
	y, ok2 := qm.ParseFloat(fs[2])
	zc, ok3 := qm.ParseFloat(fs[3])
	if !ok || !ok1 || !ok2 || !ok3 || len(p.geom) > 100000 {
		return false
	}
	p.geomRows = true
	p.geom = append(p.geom, qm.Atom{AtomicNumber: z, X: x * p.geomScale, Y: y * p.geomScale, Z: zc * p.geomScale})
	return true
}

func (p *parser) endGeom() {
	p.sec = secNone
	g := p.geom
	p.geom = nil
	if len(g) == 0 || p.skipping() || p.fd == findifFirst && p.fdHaveSCF {
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
		if a[i].AtomicNumber != b[i].AtomicNumber || math.Abs(a[i].X-b[i].X) > 1e-6 ||
			math.Abs(a[i].Y-b[i].Y) > 1e-6 || math.Abs(a[i].Z-b[i].Z) > 1e-6 {
			return false
		}
	}
	return true
}

func (p *parser) scfEnergy(t []byte) {
	v, ok := qm.FloatAfter(t, "Final Energy:")
	if !ok {
		return
	}
	if p.skipping() {
		p.scfPending, p.scfConv, p.scfIters = false, false, 0
		return
	}
	p.c.SCF = append(p.c.SCF, qm.SCF{Energy: qm.Float(v), Converged: p.scfConv || !p.scfPending, Iterations: p.scfIters})
	p.scfPending, p.scfConv, p.scfIters = false, false, 0
	if p.fd == findifFirst {
		p.fdHaveSCF = true
	}
}

// orbLine consumes a line of the orbital-energy section; false ends it.
func (p *parser) orbLine(t []byte) bool {
	switch {
	case len(t) == 0, bytes.HasPrefix(t, []byte("---")):
		return true
	case bytes.HasPrefix(t, []byte("Doubly Occupied:")):
		p.orbKind = "docc"
		return true
	case bytes.HasPrefix(t, []byte("Singly Occupied:")):
		p.orbKind = "socc"
		return true
	case bytes.HasPrefix(t, []byte("Virtual:")):
		p.orbKind = "virt"
		return true
	case bytes.HasPrefix(t, []byte("Alpha Occupied:")):
		p.orbKind = "aocc"
		return true
	case bytes.HasPrefix(t, []byte("Alpha Virtual:")):
		p.orbKind = "avirt"
		return true
	case bytes.HasPrefix(t, []byte("Beta Occupied:")):
		p.orbKind = "bocc"
		return true
	case bytes.HasPrefix(t, []byte("Beta Virtual:")):
		p.orbKind = "bvirt"
		return true
	}
	if p.orbKind == "" {
		return false
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 2 || len(fs)%2 != 0 {
		return false
	}
	for i := 1; i < len(fs); i += 2 {
		v, ok := qm.ParseFloat(fs[i])
		if !ok {
			return false
		}
		if len(p.orb[p.orbKind]) < 1<<20 {
			p.orb[p.orbKind] = append(p.orb[p.orbKind], v)
		}
	}
	return true
}

func (p *parser) endOrbitals() {
	p.sec = secNone
	if p.skipping() || len(p.orb) == 0 {
		return
	}
	o := &qm.Orbitals{}
	if a := len(p.orb["aocc"]); a > 0 || len(p.orb["avirt"]) > 0 {
		o.Energies = [][]float64{cat(p.orb["aocc"], p.orb["avirt"]), cat(p.orb["bocc"], p.orb["bvirt"])}
		o.HOMO = []int{a - 1, len(p.orb["bocc"]) - 1}
		p.c.Unrestricted = true
	} else {
		d, s := len(p.orb["docc"]), len(p.orb["socc"])
		e := cat(cat(p.orb["docc"], p.orb["socc"]), p.orb["virt"])
		o.Energies = [][]float64{e}
		o.HOMO = []int{d + s - 1}
		if s > 0 { // restricted open shell: β has only the doubly occupied ones
			o.Energies = append(o.Energies, e)
			o.HOMO = append(o.HOMO, d-1)
		}
	}
	p.c.Orbitals = o
}

func cat(a, b []float64) []float64 {
	out := make([]float64, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

func (p *parser) rotConsts(t []byte) {
	rc := make([]float64, 0, 3)
	for _, k := range []string{"A =", "B =", "C ="} {
		i := bytes.Index(t, []byte(k))
		if i < 0 {
			return
		}
		fs := qm.Fields(t[i+len(k):], p.fields)
		p.fields = fs
		if len(fs) == 0 {
			return
		}
		if bytes.HasPrefix(fs[0], []byte("***")) {
			rc = append(rc, 0) // infinite (linear molecule)
			continue
		}
		v, ok := qm.ParseFloat(fs[0])
		if !ok {
			return
		}
		rc = append(rc, v*qm.MHzToGHz)
	}
	p.c.RotationalConstants = rc
}

func (p *parser) version(t []byte) {
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 3 {
		return
	}
	// "Psi4 1.7 release", "Psi4 1.2.1 release", "PSI 4.0.0-beta5 Driver"
	if string(fs[0]) == "Psi4" && (string(fs[2]) == "release" || string(fs[2]) == "Driver") {
		p.c.ProgramVersion = string(fs[1])
	} else if string(fs[0]) == "PSI" && string(fs[2]) == "Driver" {
		p.c.ProgramVersion = string(fs[1])
	}
}

func (p *parser) finish() {
	switch p.sec {
	case secGeom:
		p.endGeom()
	case secOrbitals:
		p.endOrbitals()
	}
	c := p.c
	if p.scfPending && !p.skipping() {
		c.SCF = append(c.SCF, qm.SCF{Converged: false, Iterations: p.scfIters})
	}
	switch {
	case p.functional != "":
		c.Method = p.functional
	case strings.HasSuffix(p.reference, "HF"):
		c.Method = "HF"
	}
	if p.isOpt {
		c.Optimization = &qm.Optimization{Converged: p.optDone, Steps: p.optSteps}
	}
	if len(p.freqs) > 0 {
		c.Frequencies = p.freqs
		// More than 3N−6 vibrations: the rotation-like modes are among
		// them. They stay, as Psi4 printed them, with its note as a warning.
		if n := len(c.FinalGeometry()); p.rotNote != "" && n > 2 {
			nvib := 3*n - 6
			if len(c.RotationalConstants) == 3 && c.RotationalConstants[0] == 0 {
				nvib++ // linear: Psi4 prints A as "****", stored as 0
			}
			if len(p.freqs) > nvib {
				c.Warn(p.rotNote)
			}
		}
		if len(p.irs) == len(p.freqs) {
			c.IRIntensities = p.irs
		}
	}
	if len(c.JobTypes) == 0 && len(c.SCF) > 0 {
		c.AddJob(qm.JobEnergy)
	}
	if p.haveCPU {
		c.CPUTime = qm.Float(p.cpu)
	}
}

func intAfter(t []byte, marker string) (int, bool) {
	i := bytes.Index(t, []byte(marker))
	if i < 0 {
		return 0, false
	}
	fs := qm.Fields(t[i+len(marker):], nil)
	if len(fs) == 0 {
		return 0, false
	}
	return qm.ParseInt(bytes.TrimRight(fs[0], ",:"))
}

// beforeUnit returns the number just before the unit marker.
func beforeUnit(t []byte, unit string) (float64, bool) {
	i := bytes.Index(t, []byte(unit))
	if i < 0 {
		return 0, false
	}
	fs := qm.Fields(t[:i], nil)
	if len(fs) == 0 {
		return 0, false
	}
	return qm.ParseFloat(fs[len(fs)-1])
}

// hms reads "0:00:46.28" (hours:minutes:seconds).
func hms(b []byte) (float64, bool) {
	parts := strings.Split(strings.TrimSpace(string(b)), ":")
	if len(parts) != 3 {
		return 0, false
	}
	total := 0.0
	for i, m := range []float64{3600, 60, 1} {
		v, ok := qm.ParseFloat([]byte(parts[i]))
		if !ok {
			return 0, false
		}
		total += v * m
	}
	return total, true
}
