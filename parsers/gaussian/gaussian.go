package gaussian

import (
	"bytes"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/molgraph/molgraph/parsers/qm"
)

// Parser is the Gaussian entry of a qm.Table.
type Parser struct{}

// Program returns qm.Gaussian.
func (Parser) Program() qm.Program { return qm.Gaussian }

// Parse parses a Gaussian log; see the package comment.
func (Parser) Parse(r io.Reader) (*qm.Calculation, error) { return Parse(r) }

// Parse reads a Gaussian log from r. Errors: qm.ErrNoResults when nothing
// Gaussian-like was found, or the read error of r (wrapped), in which case
// the partial calculation is returned too.
func Parse(r io.Reader) (*qm.Calculation, error) {
	s := &stepper{p: newParser(nil)}
	return qm.ParseSteps("gaussian", r, s.line, s.finish)
}

func newParser(prev *qm.Calculation) *parser {
	p := &parser{c: &qm.Calculation{Program: qm.Gaussian}, homo: [2]int{-1, -1}}
	if prev != nil {
		// A job step starts from the previous one's checkpoint: the same
		// program, and the same charge and multiplicity unless it prints its own.
		p.c.ProgramVersion = prev.ProgramVersion
		p.c.Charge, p.c.Multiplicity = prev.Charge, prev.Multiplicity
	}
	return p
}

// stepper splits a log into its job steps: after a "Normal termination"
// line, "Link1:  Proceeding to internal job step" (opt freq and other
// compound routes) or a new "Entering Gaussian System" header (jobs joined
// with --Link1--) starts the next step, read by a fresh parser.
type stepper struct {
	p     *parser
	steps []*qm.Calculation
}

func (s *stepper) line(b []byte) {
	if s.p.normal && len(s.steps) < qm.MaxSteps-1 {
		t := qm.TrimSpace(b)
		if bytes.HasPrefix(t, []byte("Link1:  Proceeding to internal job step")) || bytes.HasPrefix(t, []byte("Entering Gaussian System")) {
			s.p.finish()
			s.steps = append(s.steps, s.p.c)
			s.p = newParser(s.p.c)
		}
	}
	s.p.line(b)
}

func (s *stepper) finish() []*qm.Calculation {
	s.p.finish()
	steps := append(s.steps, s.p.c)
	// A compound route ("opt freq") names every job in the first step's
	// route; a job that a later step performed is not the earlier one's.
	for i, st := range steps[:len(steps)-1] {
		if st.HasJob(qm.JobFrequency) && len(st.Frequencies) == 0 {
			for _, later := range steps[i+1:] {
				if len(later.Frequencies) > 0 {
					st.JobTypes = slices.DeleteFunc(st.JobTypes, func(j qm.JobType) bool { return j == qm.JobFrequency })
					break
				}
			}
		}
	}
	return steps
}

type section int

const (
	secNone section = iota
	secRoute
	secGeomHeader
	secGeom
	secMulliken
	secDipole
)

type parser struct {
	// prevDashes: the line before was a rule (" ---…").
	prevDashes bool
	c          *qm.Calculation
	sec        section
	skip       int // header lines still to skip in secGeomHeader
	fields     [][]byte

	route      strings.Builder
	routeDone  bool // first route read (method/basis taken from it)
	routeSeen  int
	routeScrf  bool
	orientStd  bool // block being read is a Standard orientation
	geom       qm.Geometry
	pending    qm.Geometry // input-orientation geometry not yet stored
	scfLabel   string
	scfPending bool
	scfNotConv bool
	scfCycles  int

	isOpt     bool // some job step optimises
	curOpt    bool // the current job step optimises
	optDone   bool
	optSteps  int
	normal    bool
	cpu, wall float64
	haveCPU   bool
	haveWall  bool

	inEig     bool
	eig       [2][]float64
	nocc      [2]int
	homo      [2]int
	hasBeta   bool
	mulliken  []float64
	freqBlock bool
}

var (
	pDashes = []byte(" ---")
)

func (p *parser) line(b []byte) {
	afterDashes := p.prevDashes
	p.prevDashes = bytes.HasPrefix(b, pDashes)
	// Sections spanning several lines.
	switch p.sec {
	case secRoute:
		if bytes.HasPrefix(b, pDashes) {
			p.endRoute()
			p.sec = secNone
			return
		}
		// Gaussian wraps the route at a fixed width, even inside a keyword,
		// after one leading space: keep a trailing space, which separates
		// keywords across lines.
		p.route.Write(bytes.TrimLeft(bytes.TrimPrefix(b, []byte(" ")), "\t"))
		if p.route.Len() > 4096 { // not a route section after all
			p.endRoute()
			p.sec = secNone
		}
		return
	case secGeomHeader:
		p.skip--
		if p.skip <= 0 {
			p.sec = secGeom
			p.geom = p.geom[:0:0]
		}
		return
	case secGeom:
		if bytes.HasPrefix(b, pDashes) || len(qm.TrimSpace(b)) == 0 {
			p.endGeom()
			p.sec = secNone
			return
		}
		p.geomRow(b)
		return
	case secMulliken:
		if bytes.Contains(b, []byte("Sum of Mulliken")) || len(p.mulliken) > 1<<20 {
			p.c.MullikenCharges = p.mulliken
			p.sec = secNone
			return
		}
		fs := qm.Fields(b, p.fields)
		p.fields = fs
		if len(fs) >= 3 {
			if _, ok := qm.ParseInt(fs[0]); ok {
				if v, ok := qm.ParseFloat(fs[2]); ok {
					p.mulliken = append(p.mulliken, v)
				}
			}
		}
		return
	case secDipole:
		p.sec = secNone
		x, ok1 := qm.FloatAfter(b, "X=")
		y, ok2 := qm.FloatAfter(b, "Y=")
		z, ok3 := qm.FloatAfter(b, "Z=")
		t, ok4 := qm.FloatAfter(b, "Tot=")
		if ok1 && ok2 && ok3 && ok4 {
			p.c.Dipole = &qm.Dipole{X: x, Y: y, Z: z, Total: t}
		}
		return
	}

	// Orbital eigenvalue blocks.
	if isEig(b) {
		p.eigLine(b)
		return
	}
	if p.inEig {
		p.endEig()
	}

	t := bytes.TrimLeft(b, " ")
	if len(t) == 0 {
		return
	}
	switch t[0] {
	case '#':
		// The route section: " #p …" right after a rule. The archive at
		// the end wraps its copy of the route at any point, so that a
		// line may start with "#" there too ("  #SP\\BH3CO sp\\0,1\\B,…"):
		// taken for a route, it swallowed "Normal termination".
		if !afterDashes || len(b) < 2 || b[0] != ' ' || b[1] != '#' {
			return
		}
		p.route.Reset()
		p.route.Write(bytes.TrimPrefix(b, []byte(" ")))
		p.sec = secRoute
	case 'C', 'Q':
		// "CCSD(T)= -0.75017760422D+02", "QCISD(T)= …": the archive at the
		// end repeats them without a D exponent ("CCSD(T)=-75.0177604\RMSD=…").
		for _, m := range [...]string{"CCSD(T)", "QCISD(T)"} {
			if bytes.HasPrefix(t, []byte(m+"=")) {
				// Only the D-exponent value of the link's own line.
				if v := qm.TrimSpace(t[len(m)+1:]); bytes.IndexByte(v, 'D') > 0 && bytes.IndexByte(v, '\\') < 0 {
					p.correlated(t, m, m)
				}
				return
			}
		}
		switch {
		case bytes.HasPrefix(t, []byte("Charge =")):
			ch, ok1 := intAfter(t, "Charge =")
			m, ok2 := intAfter(t, "Multiplicity =")
			if ok1 {
				p.c.Charge = qm.Int(ch)
			}
			if ok2 {
				p.c.Multiplicity = qm.Int(m)
			}
		case bytes.HasPrefix(t, []byte("Cycle ")):
			if !p.scfPending {
				p.scfPending, p.scfNotConv, p.scfCycles = true, false, 0
			}
			p.scfCycles++
		case bytes.HasPrefix(t, []byte("Convergence failure")):
			p.scfNotConv = true
			p.c.Warn("SCF convergence failure")
			p.flushPendingSCF()
		case bytes.HasPrefix(t, []byte("Converged?")):
		}
	case 'S':
		switch {
		case bytes.HasPrefix(t, []byte("SCF Done:")):
			p.scfDone(t)
		case bytes.HasPrefix(t, []byte("Standard orientation:")):
			p.startGeom(true)
		case bytes.HasPrefix(t, []byte("Standard basis:")):
			s := strings.TrimSpace(string(t[len("Standard basis:"):]))
			if i := strings.Index(s, " ("); i > 0 {
				s = s[:i]
			}
			if s != "" {
				p.c.BasisSet = s
			}
		case bytes.HasPrefix(t, []byte("Sum of electronic and thermal Enthalpies=")):
			if v, ok := qm.FloatAfter(t, "="); ok {
				p.c.Thermo.Enthalpy = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("Sum of electronic and thermal Free Energies=")):
			if v, ok := qm.FloatAfter(t, "="); ok {
				p.c.Thermo.Gibbs = qm.Float(v)
			}
		}
	case 'I':
		switch {
		case bytes.HasPrefix(t, []byte("Input orientation:")):
			p.startGeom(false)
		case bytes.HasPrefix(t, []byte("IR Inten")) && p.freqBlock:
			p.c.IRIntensities = appendAfterDashes(p.c.IRIntensities, t, &p.fields)
		case p.curOpt && bytes.HasPrefix(t, []byte("Item ")) && bytes.Contains(t, []byte("Converged?")):
			p.optSteps++
		}
	case 'Z':
		switch {
		case bytes.HasPrefix(t, []byte("Z-Matrix orientation:")):
			p.startGeom(false)
		case bytes.HasPrefix(t, []byte("Zero-point correction=")):
			if v, ok := qm.FloatAfter(t, "="); ok {
				p.c.Thermo.ZPE = qm.Float(v)
			}
		}
	case 'M':
		if bytes.Equal(t, []byte("Mulliken charges:")) || bytes.Equal(t, []byte("Mulliken atomic charges:")) ||
			bytes.Equal(t, []byte("Mulliken charges and spin densities:")) {
			p.sec = secMulliken
			p.mulliken = nil
		}
	case 'D':
		switch {
		case bytes.HasPrefix(t, []byte("DEMP5 =")):
			// "DEMP5 =  -0.11048812312D-02 MP5 =  -0.75017172926D+02"
			p.correlated(t, " MP5", "MP5")
		case bytes.HasPrefix(t, []byte("DE(Corr)=")):
			// A coupled-cluster (or QCI) iteration: "DE(Corr)= -0.533548E-01
			// E(CORR)=     -75.017683639     Delta=-3.61D-08"; the last
			// one is the converged energy of the route's method without (T).
			if m := ccBase(p.c.Method); m != "" {
				p.correlated(t, "E(CORR)", m)
			}
		}
		if bytes.HasPrefix(t, []byte("Dipole moment (field-independent basis, Debye):")) {
			p.sec = secDipole
		}
	case 'R':
		if bytes.HasPrefix(t, []byte("Rotational constants (GHZ):")) {
			var rc []float64
			for _, f := range qm.Fields(t[len("Rotational constants (GHZ):"):], p.fields) {
				if v, ok := qm.ParseFloat(f); ok {
					rc = append(rc, v)
				}
			}
			if len(rc) == 3 {
				p.c.RotationalConstants = rc
			}
		}
	case 'H':
		if bytes.HasPrefix(t, []byte("Harmonic frequencies")) {
			p.freqBlock = true
			p.c.Frequencies, p.c.IRIntensities = nil, nil
			p.c.AddJob(qm.JobFrequency)
		}
	case 'F':
		if bytes.HasPrefix(t, []byte("Frequencies --")) && !bytes.HasPrefix(t, []byte("Frequencies ---")) && p.freqBlock {
			p.c.Frequencies = appendAfterDashes(p.c.Frequencies, t, &p.fields)
		}
	case 'T':
		if bytes.HasPrefix(t, []byte("Temperature ")) && bytes.Contains(t, []byte("Kelvin.")) {
			if v, ok := qm.FloatAfter(t, "Temperature"); ok {
				p.c.Thermo.Temperature = qm.Float(v)
			}
			if v, ok := qm.FloatAfter(t, "Pressure"); ok {
				p.c.Thermo.Pressure = qm.Float(v)
			}
		} else if bytes.HasPrefix(t, []byte("Thermochemistry")) {
			p.freqBlock = false
		}
	case 'O':
		switch {
		case bytes.HasPrefix(t, []byte("Optimization completed")) && p.curOpt:
			p.optDone = true
		case bytes.HasPrefix(t, []byte("Optimization stopped")):
			p.c.Warn("optimization stopped")
		}
	case '-':
		if bytes.HasPrefix(t, []byte("-- Stationary point found")) && p.curOpt {
			p.optDone = true
		} else if bytes.HasPrefix(t, []byte("-- Number of steps exceeded")) {
			p.c.Warn("optimization: number of steps exceeded")
		}
	case 'J':
		if bytes.HasPrefix(t, []byte("Job cpu time:")) {
			if s, ok := dhms(t[len("Job cpu time:"):]); ok {
				p.cpu += s
				p.haveCPU = true
			}
		}
	case 'E':
		switch {
		case bytes.HasPrefix(t, []byte("E2 ")) || bytes.HasPrefix(t, []byte("E2=")):
			// " E2 =    -0.3795333610D-01 EUMP2 =    -0.75002282127454D+02"
			p.correlated(t, "EUMP2", "MP2")
		case bytes.HasPrefix(t, []byte("E3=")):
			p.correlated(t, "EUMP3", "MP3")
		case bytes.HasPrefix(t, []byte("E4(")):
			// "E4(SDQ)=  -0.32127249D-02        UMP4(SDQ)=  -0.75016013656D+02"
			for _, m := range [...]string{"DQ", "SDQ", "SDTQ"} {
				if bytes.HasPrefix(t, []byte("E4("+m+")=")) {
					p.correlated(t, "UMP4("+m+")", "MP4("+m+")")
				}
			}
		case bytes.HasPrefix(t, []byte("Elapsed time:")):
			if s, ok := dhms(t[len("Elapsed time:"):]); ok {
				p.wall += s
				p.haveWall = true
			}
		case bytes.HasPrefix(t, []byte("Error termination")):
			p.normal = false
			p.c.Warn(strings.TrimSpace(string(t)))
		}
	case 'N':
		if bytes.HasPrefix(t, []byte("Normal termination of Gaussian")) {
			p.normal = true
		}
	case 'L':
		if bytes.HasPrefix(t, []byte("Link1:")) {
			p.normal = false
		}
	case 'G':
		if p.c.ProgramVersion == "" && bytes.HasPrefix(t, []byte("Gaussian ")) {
			p.version(t)
		}
	case '>':
		if bytes.Contains(t, []byte("Convergence criterion not met")) {
			p.scfNotConv = true
			p.c.Warn("SCF convergence criterion not met")
		}
	}
}

func (p *parser) endRoute() {
	route := p.route.String()
	p.route.Reset()
	p.routeSeen++
	lower := strings.ToLower(route)
	jobs := 0
	p.curOpt = false
	for _, tk := range strings.Fields(strings.TrimPrefix(lower, "#")) {
		tk = strings.TrimLeft(tk, "#") // "#p gfinput #HF/6-31G* #SP": '#' may start any keyword
		switch {
		case tk == "opt" || strings.HasPrefix(tk, "opt=") || strings.HasPrefix(tk, "opt(") ||
			tk == "optimize" || strings.HasPrefix(tk, "optimize="):
			p.c.AddJob(qm.JobOptimization)
			p.isOpt, p.curOpt = true, true
			jobs++
		case tk == "freq" || strings.HasPrefix(tk, "freq=") || strings.HasPrefix(tk, "freq(") ||
			tk == "frequency" || strings.HasPrefix(tk, "frequency="):
			p.c.AddJob(qm.JobFrequency)
			jobs++
		case tk == "sp":
			p.c.AddJob(qm.JobEnergy)
			jobs++
		case strings.HasPrefix(tk, "scrf"):
			p.routeScrf = true
			switch {
			case strings.Contains(tk, "smd"):
				p.c.SolventModel = "SMD-IEFPCM"
			case strings.Contains(tk, "cpcm"):
				p.c.SolventModel = "CPCM"
			case strings.Contains(tk, "check"):
			default:
				if p.c.SolventModel == "" {
					p.c.SolventModel = "IEFPCM"
				}
			}
		}
	}
	if jobs == 0 && p.routeSeen == 1 {
		p.c.AddJob(qm.JobEnergy)
	}
	if p.routeDone {
		return
	}
	p.routeDone = true
	// Level of theory: the first "method/basis" keyword of the route, keeping the original case.
	orig := strings.Fields(strings.TrimLeft(route, "#pPnNtT "))
	for k := range orig {
		orig[k] = strings.TrimLeft(orig[k], "#")
	}
	defer func() {
		if p.c.Method != "" {
			return
		}
		// "#p EOMCCSD=(nstates=10) STO-3G": a correlated method without
		// "/basis" (the basis comes from "Standard basis:"); the SCF
		// label would name only its HF reference.
		for _, tk := range orig {
			name := tk
			if i := strings.IndexByte(name, '='); i > 0 {
				name = name[:i]
			}
			if m, ok := routeMethod(name); ok && gaussianCorrelated[strings.ToLower(m)] {
				p.c.Method = strings.ToUpper(m)
				return
			}
		}
	}()
	for _, tk := range orig {
		i := strings.IndexByte(tk, '/')
		if i <= 0 {
			continue
		}
		m, ok := routeMethod(tk[:i])
		if !ok {
			continue
		}
		p.c.Method = strings.ToUpper(m)
		if p.c.BasisSet == "" {
			b := tk[i+1:]
			if j := strings.IndexByte(b, '/'); j >= 0 {
				b = b[:j]
			}
			p.c.BasisSet = b
		}
		break
	}
}

func (p *parser) startGeom(std bool) {
	p.sec = secGeomHeader
	p.skip = 4
	p.orientStd = std
}

func (p *parser) geomRow(b []byte) {
	fs := qm.Fields(b, p.fields)
	p.fields = fs
	if len(fs) < 5 || len(p.geom) > 100000 {
		return
	}
	z, ok := qm.ParseInt(fs[1])
	if !ok {
		return
	}
	n := len(fs)
	x, ok1 := qm.ParseFloat(fs[n-3])
	y, ok2 := qm.ParseFloat(fs[n-2])
	zc, ok3 := qm.ParseFloat(fs[n-1])
	if !ok1 || !ok2 || !ok3 || z < 0 {
		return // dummy atoms (-1) are not atoms
	}
	p.geom = append(p.geom, qm.Atom{AtomicNumber: z, X: x, Y: y, Z: zc})
}

func (p *parser) endGeom() {
	g := p.geom
	p.geom = nil
	if len(g) == 0 {
		return
	}
	if p.orientStd {
		// The standard orientation supersedes the input orientation of the same geometry.
		p.pending = nil
		p.addGeom(g)
		return
	}
	p.flushGeom()
	p.pending = g
}

// flushGeom stores a geometry read in input orientation that no standard
// orientation followed (NoSymm runs).
func (p *parser) flushGeom() {
	if p.pending != nil {
		p.addGeom(p.pending)
		p.pending = nil
	}
}

func (p *parser) addGeom(g qm.Geometry) {
	gs := p.c.Geometries
	if len(gs) > 0 && sameGeometry(gs[len(gs)-1], g) {
		return
	}
	p.c.Geometries = append(gs, g)
}

func sameGeometry(a, b qm.Geometry) bool {
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

// scfDone reads "SCF Done:  E(RB3LYP) =  -382.308266602     A.U. after   10 cycles".
func (p *parser) scfDone(t []byte) {
	var s qm.SCF
	if v, ok := qm.FloatAfter(t, "="); ok {
		s.Energy = qm.Float(v)
	}
	if n, ok := intAfter(t, "after"); ok {
		s.Iterations = n
	} else {
		s.Iterations = p.scfCycles
	}
	s.Converged = !p.scfNotConv && s.Energy != nil
	if i, j := bytes.IndexByte(t, '('), bytes.IndexByte(t, ')'); i > 0 && j > i {
		label := string(t[i+1 : j])
		if p.scfLabel == "" {
			p.scfLabel = label
		}
	}
	p.flushGeom()
	p.c.SCF = append(p.c.SCF, s)
	p.scfPending, p.scfNotConv, p.scfCycles = false, false, 0
}

func (p *parser) flushPendingSCF() {
	if p.scfPending {
		p.c.SCF = append(p.c.SCF, qm.SCF{Converged: false, Iterations: p.scfCycles})
		p.scfPending, p.scfCycles = false, 0
	}
}

// isEig reports an orbital eigenvalue line (" Alpha  occ. eigenvalues --").
func isEig(b []byte) bool {
	return len(b) > 28 && (bytes.HasPrefix(b, []byte(" Alpha ")) || bytes.HasPrefix(b, []byte("  Beta ")) ||
		bytes.HasPrefix(b, []byte(" Beta "))) && bytes.Contains(b[:30], []byte("eigenvalues --"))
}

func (p *parser) eigLine(b []byte) {
	if !p.inEig {
		p.inEig = true
		p.eig = [2][]float64{}
		p.nocc = [2]int{}
		p.hasBeta = false
	}
	spin := 0
	if bytes.Contains(b[:8], []byte("Beta")) {
		spin = 1
		p.hasBeta = true
	}
	occ := bytes.Contains(b[:20], []byte("occ."))
	i := bytes.Index(b, []byte("--"))
	vals := b[i+2:]
	if len(vals) > 0 && vals[0] == ' ' {
		vals = vals[1:] // the label ends with "-- "
	}
	// Values are printed in 10-character columns (5F10.5) and can touch
	// each other ("-10.01399-10.01399"): cut by width.
	for len(vals) > 0 {
		w := 10
		if w > len(vals) {
			w = len(vals)
		}
		f := qm.TrimSpace(vals[:w])
		vals = vals[w:]
		if len(f) == 0 {
			continue
		}
		v, ok := qm.ParseFloat(f)
		if !ok {
			v = math.NaN() // overflow field (*********): keep the position
		}
		if len(p.eig[spin]) < 1<<20 {
			p.eig[spin] = append(p.eig[spin], v)
			if occ {
				p.nocc[spin]++
			}
		}
	}
}

func (p *parser) endEig() {
	p.inEig = false
	o := &qm.Orbitals{}
	n := 1
	if p.hasBeta {
		n = 2
	}
	for s := 0; s < n; s++ {
		o.Energies = append(o.Energies, p.eig[s])
		o.HOMO = append(o.HOMO, p.nocc[s]-1)
	}
	p.c.Orbitals = o
	if p.hasBeta {
		p.c.Unrestricted = true
	}
}

func (p *parser) version(t []byte) {
	// "Gaussian 16:  ES64L-G16RevC.01  3-Jul-2019"
	s := string(t)
	i := strings.Index(s, "Rev")
	if i < 3 || !strings.HasPrefix(s, "Gaussian ") || !strings.Contains(s[:i], ":") {
		return
	}
	major := strings.TrimSpace(s[len("Gaussian "):strings.Index(s, ":")])
	rev := s[i+3:]
	if j := strings.IndexAny(rev, " \t"); j >= 0 {
		rev = rev[:j]
	}
	p.c.ProgramVersion = major + " Rev. " + rev
}

func (p *parser) finish() {
	switch p.sec {
	case secGeom:
		p.endGeom()
	case secMulliken:
		// truncated inside the Mulliken block: keep nothing partial
	case secRoute:
		p.endRoute()
	}
	if p.inEig {
		p.endEig()
	}
	p.flushGeom()
	p.flushPendingSCF()
	c := p.c
	if p.isOpt {
		c.Optimization = &qm.Optimization{Converged: p.optDone, Steps: p.optSteps}
	}
	if p.scfLabel != "" {
		label := p.scfLabel
		switch {
		case strings.HasPrefix(label, "RO"):
			label = label[2:]
		case strings.HasPrefix(label, "R"), strings.HasPrefix(label, "U"):
			if strings.HasPrefix(label, "U") {
				c.Unrestricted = true
			}
			label = label[1:]
		}
		m := strings.ToUpper(c.Method)
		if m == "" || strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(m, "RO"), "R"), "U") == strings.ToUpper(label) ||
			strings.TrimPrefix(m, "U") == strings.ToUpper(label) || strings.TrimPrefix(m, "R") == strings.ToUpper(label) {
			c.Method = label
		}
	}
	if p.haveCPU {
		c.CPUTime = qm.Float(p.cpu)
	}
	if p.haveWall {
		c.WallTime = qm.Float(p.wall)
	}
	c.NormalTermination = p.normal
	if n := len(c.Frequencies); n > 0 && len(c.IRIntensities) != n {
		c.IRIntensities = nil
	}
}

// gaussianCorrelated are Gaussian's post-SCF method keywords, read as the
// level of theory when the route names them without "/basis".
var gaussianCorrelated = map[string]bool{
	"mp2": true, "mp3": true, "mp4": true, "mp4(dq)": true, "mp4(sdq)": true, "mp4(sdtq)": true, "mp5": true,
	"ccd": true, "ccsd": true, "ccsd(t)": true, "ccsd-t": true, "qcisd": true, "qcisd(t)": true, "cid": true,
	"cisd": true, "cis": true, "cis(d)": true, "eomccsd": true, "bd": true, "bd(t)": true, "sac-ci": true,
}

// routeMethod reads the method of a route's "method/basis" keyword:
// parentheses belong to the name ("CCSD(T)", "MP4(SDQ)", "QCISD(T)"),
// options inside them do not ("CIS(D,50-50,NStates=5)" is CIS(D)). A
// keyword whose '/' is inside parentheses or after '=' ("iop(3/76=1)",
// "scrf=(…)") is not a method (false).
func routeMethod(m string) (string, bool) {
	open := strings.IndexByte(m, '(')
	if open < 0 {
		return m, m != "" && !strings.ContainsRune(m, '=')
	}
	if open == 0 || strings.ContainsRune(m[:open], '=') || !strings.HasSuffix(m, ")") || strings.Count(m, "(") != 1 || strings.Count(m, ")") != 1 {
		return "", false
	}
	opts := strings.Split(m[open+1:len(m)-1], ",")
	if strings.ContainsRune(opts[0], '=') || opts[0] == "" {
		return m[:open], true
	}
	return m[:open] + "(" + opts[0] + ")", true
}

// correlated records the total energy printed after "marker =" (or
// "marker=") in t as that of the correlated method.
func (p *parser) correlated(t []byte, marker, method string) {
	i := bytes.Index(t, []byte(marker))
	if i < 0 {
		return
	}
	rest := bytes.TrimLeft(t[i+len(marker):], " ")
	if len(rest) == 0 || rest[0] != '=' {
		return
	}
	var buf [4][]byte
	if fs := qm.Fields(rest[1:], buf[:0]); len(fs) > 0 {
		if v, ok := qm.ParseFloat(fs[0]); ok {
			p.c.SetCorrelated(method, v)
		}
	}
}

// ccBase names the iterated method of a coupled-cluster or QCI route
// ("CCSD(T)" and "EOMCCSD" iterate CCSD, "QCISD(T)" QCISD), "" for other
// methods.
func ccBase(method string) string {
	m := strings.ToUpper(method)
	for _, pre := range [...]string{"RO", "R", "U"} {
		m = strings.TrimPrefix(m, pre)
	}
	m = strings.TrimPrefix(m, "EOM") // EOM-CCSD solves the CCSD ground state first
	m = strings.TrimSuffix(strings.TrimSuffix(m, "(T)"), "-T")
	switch m {
	case "CCSD", "QCISD", "CCD":
		return m
	}
	return ""
}

// appendAfterDashes appends the numbers after "--" in t.
func appendAfterDashes(dst []float64, t []byte, buf *[][]byte) []float64 {
	i := bytes.Index(t, []byte("--"))
	if i < 0 || len(dst) > 1<<20 {
		return dst
	}
	fs := qm.Fields(t[i+2:], *buf)
	*buf = fs
	return qm.Floats(fs, dst)
}

func intAfter(t []byte, marker string) (int, bool) {
	v, ok := qm.FloatAfter(t, marker)
	if !ok || v != math.Trunc(v) || math.Abs(v) > 1e9 {
		return 0, false
	}
	return int(v), true
}

// dhms reads "0 days  0 hours 10 minutes 34.7 seconds." into seconds.
func dhms(b []byte) (float64, bool) {
	var buf [12][]byte
	fs := qm.Fields(b, buf[:0])
	if len(fs) < 8 {
		return 0, false
	}
	mult := [4]float64{86400, 3600, 60, 1}
	total := 0.0
	for k := 0; k < 4; k++ {
		v, ok := qm.ParseFloat(fs[2*k])
		if !ok {
			return 0, false
		}
		total += v * mult[k]
	}
	return total, true
}
