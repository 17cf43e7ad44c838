package nwchem

import (
	"bytes"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/molgraph/molgraph/parsers/qm"
)

// Parser is the NWChem entry of a qm.Table.
type Parser struct{}

// Program returns qm.NWChem.
func (Parser) Program() qm.Program { return qm.NWChem }

// Parse parses an NWChem output file; see the package comment.
func (Parser) Parse(r io.Reader) (*qm.Calculation, error) { return Parse(r) }

// Parse reads an NWChem output file from r. Errors: qm.ErrNoResults when
// nothing NWChem-like was found, or the read error of r (wrapped, with the
// partial calculation).
func Parse(r io.Reader) (*qm.Calculation, error) {
	p := &parser{}
	p.st = p.newStep(nil)
	return qm.ParseSteps("nwchem", r, p.line, p.finish)
}

// Bounds on what one log can make the parser keep.
const (
	maxAtoms    = 100000
	maxVectors  = 1 << 18
	maxModes    = 3 * maxAtoms
	maxGeomKept = 1 << 20
)

type section int

const (
	secNone section = iota
	secGeom
	secBasis
	secEigen    // "Final eigenvalues" lists
	secMOA      // "Final … Molecular Orbital Analysis"
	secMulliken // Mulliken tables
	secMultipole
	secIR
	secXC
)

// step is the state of one task.
type step struct {
	c *qm.Calculation

	taskDone bool // "Task  times" printed
	failed   bool // an error banner ("… failed") was printed

	// SCF in progress.
	scfIters  int
	scfFailed bool
	lineSrch  bool // an optimisation "@" line was printed since the last geometry

	// Electron counts for HOMO indices and multiplicity.
	nAlpha, nBeta int
	haveCounts    bool
	closed, open  int
	haveShells    bool
	uhf           bool

	method string
	basis  []string

	// Orbitals of the last SCF solution: compact lists and analysis, per spin.
	eig    [2][]float64
	vec    [2]vectors
	orbSet bool

	isOpt    bool
	optConv  bool
	optSteps int
	lastStep int

	freqs, projFreqs []float64
	irs, irFreqs     []float64 // the projected IR table: intensities and wavenumbers (3 decimals)

	zpe, hcorr, entropy, temp *float64
}

type parser struct {
	st     *step
	steps  []*qm.Calculation
	fields [][]byte

	version  string
	runDone  bool // "Total times" printed
	newTask  bool // "Task  times" printed: the next module starts a new step
	sec      section
	spin     int
	geom     qm.Geometry
	geomBohr bool
	geomRows bool
	mull     []float64
	rule     bool // the previous line was a rule of dashes
	scfTable bool // inside the SCF module's "iter energy gnorm gmax time" table
	dip      [3]float64
	dipN     int
	dipDebye bool // the DMX/DMY/DMZ rows being read are in debye (property module, second block)
	tce      bool // inside the TCE module ("task tce")
	xc       []xcComponent
	xcNamed  bool   // the XC block named its functional ("… Method XC …")
	errMsg   string // the message of the last errquit banner
	basisRow bool
}

func (p *parser) newStep(prev *qm.Calculation) *step {
	s := &step{c: &qm.Calculation{Program: qm.NWChem, ProgramVersion: p.version}, lastStep: -1}
	if prev != nil {
		// A task continues from the database the previous task left.
		if g := prev.FinalGeometry(); g != nil {
			s.c.Geometries = []qm.Geometry{g}
		}
		s.c.Charge, s.c.Multiplicity = prev.Charge, prev.Multiplicity
	}
	return s
}

// startTask begins a new step if the previous task has ended.
func (p *parser) startTask() {
	if !p.newTask {
		return
	}
	p.newTask = false
	if len(p.steps) >= qm.MaxSteps-1 {
		p.st.c.Warn("more than the maximum number of tasks: the rest of the log is read into the last one")
		return
	}
	prev := p.st.c
	p.endStep()
	p.st = p.newStep(prev)
}

func (p *parser) line(b []byte) {
	// Rows that start with a digit outside a table (coefficients of the
	// orbital analysis, Z-matrix, gradients: a third of a log) are dropped
	// on their first character, before the rest of the line is trimmed.
	if p.sec == secNone || p.sec == secMOA {
		b = qm.TrimLeftBlanks(b)
		if len(b) > 0 && b[0] >= '0' && b[0] <= '9' {
			if p.sec == secNone {
				p.rule = false
				if p.scfTable {
					p.st.scfIters++ // one row per SCF-module iteration
				}
			}
			return
		}
	}
	t := qm.TrimSpace(b)
	switch p.sec {
	case secGeom:
		if p.geomLine(t) {
			return
		}
		p.endGeom()
	case secBasis:
		if p.basisLine(t) {
			return
		}
		p.sec = secNone
	case secEigen:
		if p.eigenLine(t) {
			return
		}
		p.sec = secNone
	case secMOA:
		if p.moaLine(t) {
			return
		}
		p.sec = secNone
	case secMulliken:
		if p.mullikenLine(t) {
			return
		}
		p.endMulliken()
	case secMultipole:
		if p.multipoleLine(t) {
			return
		}
		p.sec = secNone
	case secIR:
		if p.irLine(t) {
			return
		}
		p.sec = secNone
	case secXC:
		// "B3LYP Method XC Potential" names the functional; without it
		// (an "xc" line of components) the component rows are named.
		if len(t) > 0 && t[0] == '-' {
			return
		}
		if len(t) == 0 {
			if len(p.xc) > 0 || p.xcNamed {
				p.endXC()
			}
			return
		}
		fs := qm.Fields(t, p.fields)
		p.fields = fs
		if len(fs) >= 3 && string(fs[1]) == "Method" {
			p.st.method = string(fs[0])
			p.xcNamed = true
			return
		}
		if c, ok := xcComponentOf(fs); ok && len(p.xc) < 16 {
			p.xc = append(p.xc, c)
			return
		}
		p.endXC() // and read the line as any other
	}
	if len(t) == 0 {
		p.scfTable = false
		return
	}
	if t[0] >= '0' && t[0] <= '9' {
		p.rule = false // table rows (Z-matrix, gradients, distances): nothing starts with a digit
		return
	}
	if t[0] == 'i' && bytes.HasPrefix(t, []byte("iter")) && bytes.Contains(t, []byte("gnorm")) {
		p.scfTable = true
		return
	}
	st := p.st
	c := st.c

	switch t[0] {
	case 'N':
		switch {
		case bytes.HasPrefix(t, []byte("Northwest Computational Chemistry Package (NWChem)")):
			fs := qm.Fields(t, p.fields)
			p.fields = fs
			if p.version == "" && len(fs) > 0 {
				p.version = string(fs[len(fs)-1])
				c.ProgramVersion = p.version
			}
		case bytes.HasPrefix(t, []byte("NWChem ")) && !bytes.Equal(t, []byte("NWChem Input Module")) &&
			(bytes.HasSuffix(t, []byte("Module")) || bytes.Contains(t, []byte("Geometry Optimization")) ||
				bytes.Contains(t, []byte("Frequency Analysis")) || bytes.Contains(t, []byte("Hessian"))):
			p.startTask()
			st = p.st
			if bytes.Contains(t, []byte("Geometry Optimization")) {
				st.isOpt = true
				st.c.AddJob(qm.JobOptimization)
			}
			if bytes.Contains(t, []byte("Frequency Analysis")) {
				st.c.AddJob(qm.JobFrequency)
			}
			p.tce = bytes.HasPrefix(t, []byte("NWChem Extensible Many-Electron Theory Module"))
			if bytes.HasPrefix(t, []byte("NWChem MP2 ")) {
				// "task mp2": the SCF module ran first; the level of
				// theory is MP2 (the SCF energy stays the reference's).
				st.method = "MP2"
			}
		}
	case 'O':
		switch {
		case bytes.HasPrefix(t, []byte("Output coordinates in")):
			p.startTask()
			p.sec = secGeom
			p.geom = nil
			p.geomRows = false
			// "Output coordinates in angstroms (scale by 1.889725989 to convert to a.u.)"
			// or "Output coordinates in a.u. (scale by ...)".
			p.geomBohr = !bytes.HasPrefix(t, []byte("Output coordinates in angstroms"))
		case bytes.Equal(t, []byte("Optimization converged")):
			st.optConv = true
		}
	case 'S':
		if bytes.HasPrefix(t, []byte("Summary of \"ao basis\"")) {
			p.sec = secBasis
			p.basisRow = false
			st.basis = st.basis[:0]
		} else if bytes.HasPrefix(t, []byte("Spin multiplicity:")) {
			if v, ok := intAfter(t, ":"); ok {
				c.Multiplicity = qm.Int(v)
			}
		}
	case 'X':
		if bytes.Equal(t, []byte("XC Information")) {
			p.sec = secXC
			p.xc, p.xcNamed = p.xc[:0], false
		}
	case 'w':
		if bytes.HasPrefix(t, []byte("wavefunction")) && bytes.Contains(t, []byte("=")) {
			fs := qm.Fields(t, p.fields)
			p.fields = fs
			wf := string(fs[len(fs)-1])
			switch wf {
			case "RHF", "ROHF", "UHF":
				if st.method == "" || st.method == "HF" {
					st.method = "HF"
				}
				st.uhf = wf == "UHF"
				if st.uhf {
					c.Unrestricted = true
				}
			}
		}
	case 'W':
		if bytes.HasPrefix(t, []byte("Wavefunction type:")) && bytes.Contains(t, []byte("spin polarized")) {
			c.Unrestricted = true
			st.uhf = true
		}
	case 'c':
		switch {
		case bytes.HasPrefix(t, []byte("closed shells")):
			if v, ok := intAfter(t, "="); ok {
				st.closed, st.haveShells = v, true
			}
		case bytes.HasPrefix(t, []byte("charge")) && bytes.Contains(t, []byte("=")):
			if v, ok := qm.FloatAfter(t, "="); ok {
				c.Charge = qm.Int(int(math.Round(v)))
			}
		}
	case 'C':
		switch {
		case bytes.HasPrefix(t, []byte("Charge")) && bytes.Contains(t, []byte(":")) && len(t) < 40:
			if v, ok := intAfter(t, ":"); ok {
				c.Charge = qm.Int(v)
			}
		case bytes.HasPrefix(t, []byte("Calculation failed to converge")):
			st.scfFailed = true
			c.Warn("SCF failed to converge")
		case bytes.HasPrefix(t, []byte("Cv (constant volume")):
		}
	case 'o':
		if bytes.HasPrefix(t, []byte("open shells")) {
			if v, ok := intAfter(t, "="); ok {
				st.open = v
			}
		}
	case 'a':
		if bytes.HasPrefix(t, []byte("alpha electrons")) {
			if v, ok := intAfter(t, "="); ok {
				st.nAlpha, st.haveCounts = v, true
			}
		}
	case 'A':
		if bytes.HasPrefix(t, []byte("Alpha electrons :")) {
			if v, ok := intAfter(t, ":"); ok {
				st.nAlpha, st.haveCounts = v, true
			}
		} else if bytes.HasPrefix(t, []byte("A=")) {
			p.rotConst(t, 0)
		}
	case 'b':
		if bytes.HasPrefix(t, []byte("beta  electrons")) || bytes.HasPrefix(t, []byte("beta electrons")) {
			if v, ok := intAfter(t, "="); ok {
				st.nBeta = v
			}
		}
	case 'B':
		switch {
		case bytes.HasPrefix(t, []byte("Beta electrons :")):
			if v, ok := intAfter(t, ":"); ok {
				st.nBeta = v
			}
		case bytes.HasPrefix(t, []byte("B=")):
			p.rotConst(t, 1)
		}
	case 'd':
		if bytes.HasPrefix(t, []byte("d=")) {
			st.scfIters++
		}
	case 'l':
		// The CCSD module ("task ccsd", "task ccsd(t)"): "level of theory    ccsd".
		if bytes.HasPrefix(t, []byte("level of theory")) {
			if fs := qm.Fields(t, p.fields); len(fs) == 4 && len(fs[3]) < 20 {
				st.method = strings.ToUpper(string(fs[3]))
			}
		}
	case 'T':
		switch {
		case bytes.HasPrefix(t, []byte("Total SCF energy")) || bytes.HasPrefix(t, []byte("Total DFT energy")):
			p.scfEnergy(t)
		case bytes.HasPrefix(t, []byte("Total MP2 energy")) || bytes.HasPrefix(t, []byte("Total CCSD energy:")) ||
			bytes.HasPrefix(t, []byte("Total CCSD(T) energy:")):
			// The MP2 module ("Total MP2 energy           -75.0023787")
			// and the CCSD module ("Total MP2 energy:", "Total CCSD
			// energy:", "Total CCSD(T) energy:").
			method := string(bytes.TrimSuffix(bytes.Fields(t)[1], []byte(":")))
			if v, ok := qm.FloatAfter(t, " energy"); ok {
				c.SetCorrelated(method, v)
			}
		case bytes.HasPrefix(t, []byte("Task  times")):
			st.taskDone = true
			p.newTask = true
			if v, ok := seconds(t, "wall:"); ok {
				c.WallTime = qm.Float(v)
			}
			if v, ok := seconds(t, "cpu:"); ok {
				c.CPUTime = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("Total times")):
			p.runDone = true
		case bytes.HasPrefix(t, []byte("Total Density - Mulliken Population Analysis")):
			p.startMulliken()
		case bytes.HasPrefix(t, []byte("Temperature")) && bytes.Contains(t, []byte("=")):
			if v, ok := qm.ParseFloat(bytes.TrimSuffix(lastField(t), []byte("K"))); ok {
				st.temp = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("Thermal correction to Enthalpy")):
			if v, ok := qm.FloatAfter(t, "("); ok {
				st.hcorr = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("Total Entropy")):
			if v, ok := qm.FloatAfter(t, "="); ok {
				st.entropy = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("The SCF is already converged")):
			st.scfIters = 0
		}
	case 'Z':
		if bytes.HasPrefix(t, []byte("Zero-Point correction to Energy")) {
			if v, ok := qm.FloatAfter(t, "("); ok {
				st.zpe = qm.Float(v)
			}
		}
	case 'F':
		switch {
		case bytes.HasPrefix(t, []byte("Final eigenvalues")), bytes.HasPrefix(t, []byte("Final alpha eigenvalues")):
			p.sec, p.spin = secEigen, 0
			st.eig[0] = st.eig[0][:0]
			st.orbSet = true
		case bytes.HasPrefix(t, []byte("Final beta eigenvalues")):
			p.sec, p.spin = secEigen, 1
			st.eig[1] = st.eig[1][:0]
		case bytes.HasPrefix(t, []byte("Frequency ")) && bytes.IndexByte(t, '=') < 0:
			// Not "Frequency  =  0.0000000 / au" (the field frequency of
			// a response-property calculation).
			st.c.AddJob(qm.JobFrequency)
			st.freqs = freqRow(t, st.freqs, &p.fields)
		}
	case 'P':
		if bytes.HasPrefix(t, []byte("P.Frequency")) {
			st.c.AddJob(qm.JobFrequency)
			st.projFreqs = freqRow(t, st.projFreqs, &p.fields)
		}
	case 'M':
		switch {
		case bytes.HasPrefix(t, []byte("Mulliken analysis of the total density")):
			p.startMulliken()
		case bytes.HasPrefix(t, []byte("Multipole analysis of the density")):
			p.sec = secMultipole
			p.dipN, p.dipDebye = 0, false
		}
	case '-':
		if bytes.HasPrefix(t, []byte("----- Total")) && bytes.Contains(t, []byte("gross population on atoms")) {
			p.startMulliken()
		} else if bytes.Equal(t, []byte("-cosmo- solvent")) {
			c.SolventModel = "COSMO"
		}
	case '@':
		p.optLine(t)
	case 'D':
		if len(t) > 3 && t[1] == 'M' && (t[2] == 'X' || t[2] == 'Y' || t[2] == 'Z') && t[3] == ' ' {
			fs := qm.Fields(t, p.fields)
			p.fields = fs
			if len(fs) >= 2 {
				if v, ok := qm.ParseFloat(fs[1]); ok {
					k := int(t[2] - 'X')
					p.dip[k] = v
					p.dipN |= 1 << k
					if p.dipN == 7 {
						p.setDipole()
					}
				}
			}
		} else if bytes.HasPrefix(t, []byte("Dipole Moment")) {
			p.dipN, p.dipDebye = 0, false
		} else if bytes.HasPrefix(t, []byte("Dipole moment")) {
			// The property module prints the DMX/DMY/DMZ block twice, after
			// "Dipole moment  0.67 A.U." and "Dipole moment  1.72 Debye(s)".
			p.dipN = 0
			p.dipDebye = bytes.Contains(t, []byte("Debye"))
		}
	}
	if bytes.HasSuffix(t, []byte("Molecular Orbital Analysis")) && bytes.Contains(t, []byte("Final")) {
		p.sec = secMOA
		p.spin = 0
		if bytes.Contains(t, []byte("Beta")) {
			p.spin = 1
		} else {
			st.vec[0].reset()
			st.vec[1].reset()
		}
		st.orbSet = true
		return
	}
	if t[0] == 'N' && bytes.HasPrefix(t, []byte("Normal Eigenvalue")) && bytes.Contains(t, []byte("Projected Infra Red Intensities")) {
		p.sec = secIR
		st.irs, st.irFreqs = st.irs[:0], st.irFreqs[:0]
		return
	}
	if bytes.HasPrefix(t, []byte("C=")) {
		p.rotConst(t, 2)
	}
	// TCE: "CCSD total energy / hartree       =  -75.0124…"; the last
	// method printed (CCSD, then CCSD(T)) is the level of theory.
	if p.tce && t[0] >= 'A' && t[0] <= 'Z' {
		if i := bytes.Index(t, []byte(" total energy / hartree")); i > 0 && i < 24 && bytes.IndexByte(t[:i], ' ') < 0 {
			st.method = string(t[:i])
			if v, ok := qm.FloatAfter(t[i:], "="); ok {
				c.SetCorrelated(st.method, v)
			}
		}
	}
	// Error banners: a rule, then "scf energy failed   0", "dft optimize failed  0".
	afterRule := p.rule
	p.rule = len(t) > 20 && t[0] == '-' && t[len(t)-1] == '-'
	if afterRule && (bytes.HasPrefix(t, []byte("There is an error in")) || bytes.HasPrefix(t, []byte("This error has not yet been assigned"))) {
		// An error's category line ends the run: "There is an error in
		// the specified basis set" (input errors, before any module), or
		// "This error has not yet been assigned to a category". The
		// message of the errquit banner before it says more.
		st.failed = true
		if p.errMsg != "" {
			c.Warn(p.errMsg)
		}
		c.Warn(string(t))
	}
	if afterRule && !p.rule && len(t) < 200 {
		// errquit banners: a rule, "dft_input: xc huh?      0", a rule.
		if fs := qm.Fields(t, p.fields); len(fs) >= 2 {
			if _, ok := qm.ParseInt(fs[len(fs)-1]); ok {
				p.errMsg = string(qm.TrimSpace(t[:bytes.LastIndex(t, fs[len(fs)-1])]))
			}
		}
	}
	if afterRule && bytes.Contains(t, []byte(" failed")) {
		fs := qm.Fields(t, p.fields)
		p.fields = fs
		if len(fs) >= 3 && string(fs[len(fs)-2]) == "failed" {
			if _, ok := qm.ParseInt(fs[len(fs)-1]); ok {
				st.failed = true
				c.Warn(string(bytes.Join(fs[:len(fs)-1], []byte(" "))))
			}
		}
	}
}

func lastField(t []byte) []byte {
	i := bytes.LastIndexByte(t, ' ')
	return t[i+1:]
}

func (p *parser) scfEnergy(t []byte) {
	st := p.st
	v, ok := qm.FloatAfter(t, "=")
	if !ok {
		return
	}
	if st.lineSrch {
		st.scfIters, st.scfFailed = 0, false
		return
	}
	if len(st.c.SCF) < maxGeomKept {
		st.c.SCF = append(st.c.SCF, qm.SCF{Energy: qm.Float(v), Converged: !st.scfFailed, Iterations: st.scfIters})
	}
	st.scfIters, st.scfFailed = 0, false
}

func (p *parser) optLine(t []byte) {
	st := p.st
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 3 {
		return
	}
	n, ok := qm.ParseInt(fs[1])
	if !ok {
		return
	}
	if _, ok := qm.ParseFloat(fs[2]); !ok {
		return
	}
	st.lineSrch = true
	if n != st.lastStep {
		st.lastStep = n
		st.optSteps++
	}
}

// geomLine consumes a line of a geometry table; false ends it.
func (p *parser) geomLine(t []byte) bool {
	if len(t) == 0 || bytes.HasPrefix(t, []byte("No.")) || bytes.HasPrefix(t, []byte("----")) {
		return !p.geomRows
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 6 {
		return false
	}
	if _, ok := qm.ParseInt(fs[0]); !ok {
		return false
	}
	n := len(fs)
	q, ok0 := qm.ParseFloat(fs[n-4])
	x, ok1 := qm.ParseFloat(fs[n-3])
	y, ok2 := qm.ParseFloat(fs[n-2])
	z, ok3 := qm.ParseFloat(fs[n-1])
	if !ok0 || !ok1 || !ok2 || !ok3 || len(p.geom) >= maxAtoms {
		return false
	}
	zn, ok := qm.AtomicNumber(string(fs[1]))
	if !ok || zn == 0 {
		zn = int(math.Round(q)) // a tag that is not an element symbol: the nuclear charge
	}
	if zn < 0 || zn > 118 {
		zn = 0
	}
	s := 1.0
	if p.geomBohr {
		s = qm.BohrToAngstrom
	}
	p.geomRows = true
	p.geom = append(p.geom, qm.Atom{AtomicNumber: zn, X: x * s, Y: y * s, Z: z * s})
	return true
}

func (p *parser) endGeom() {
	p.sec = secNone
	g := p.geom
	p.geom = nil
	st := p.st
	st.lineSrch = false
	if len(g) == 0 {
		return
	}
	c := st.c
	if n := len(c.Geometries); n > 0 && qm.SameGeometry(c.Geometries[n-1], g) {
		return
	}
	if len(c.Geometries) < maxGeomKept {
		c.Geometries = append(c.Geometries, g)
	}
}

// basisLine reads the "Summary of "ao basis"" table: Tag, Description, Shells, Functions.
func (p *parser) basisLine(t []byte) bool {
	if len(t) == 0 {
		return !p.basisRow
	}
	if t[0] == '-' || bytes.HasPrefix(t, []byte("Tag")) {
		return true
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 4 {
		return false
	}
	p.basisRow = true
	// The description may contain spaces: everything between the tag and
	// the two counts before the types column.
	end := len(fs) - 3
	if end < 2 {
		return true
	}
	d := string(bytes.Join(fs[1:end], []byte(" ")))
	for _, b := range p.st.basis {
		if b == d {
			return true
		}
	}
	if len(p.st.basis) < 16 {
		p.st.basis = append(p.st.basis, d)
	}
	return true
}

// eigenLine reads "    1  -20.2419" rows of a Final eigenvalues list.
func (p *parser) eigenLine(t []byte) bool {
	if len(t) == 0 || t[0] == '-' {
		return len(p.st.eig[p.spin]) == 0
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) == 1 {
		_, ok := qm.ParseInt(fs[0]) // column header
		return ok
	}
	if len(fs) != 2 {
		return false
	}
	i, ok1 := qm.ParseInt(fs[0])
	v, ok2 := qm.ParseFloat(fs[1])
	if !ok1 || !ok2 || i != len(p.st.eig[p.spin])+1 || i > maxVectors {
		return false
	}
	p.st.eig[p.spin] = append(p.st.eig[p.spin], v)
	return true
}

// moaLine reads the Vector lines of a molecular-orbital analysis; it ends
// at the "center of mass" or a module header.
func (p *parser) moaLine(t []byte) bool {
	if len(t) == 0 {
		return true
	}
	switch t[0] {
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true // coefficient rows and rules, most of the section
	case 'V':
		if bytes.HasPrefix(t, []byte("Vector")) {
			// "Vector   11  Occ=2.000000D+00  E=-1.090299D+00  Symmetry=ag"
			i, ok := qm.ParseInt(token(t[len("Vector"):]))
			e, ok1 := numAfter(t, "E=")
			o, ok2 := numAfter(t, "Occ=")
			if ok && ok1 && ok2 && i >= 1 && i <= maxVectors {
				p.st.vec[p.spin].put(i, e, o)
			}
			return true
		}
	case 'c':
		if bytes.HasPrefix(t, []byte("center of mass")) {
			return false
		}
	case 'N':
		if bytes.HasPrefix(t, []byte("NWChem ")) {
			return false
		}
	case 'T':
		if bytes.HasPrefix(t, []byte("Task  times")) || bytes.HasPrefix(t, []byte("Total Density")) {
			return false
		}
	case 'M':
		if bytes.HasPrefix(t, []byte("Mulliken")) {
			return false
		}
	}
	return !bytes.HasSuffix(t, []byte("Molecular Orbital Analysis"))
}

func (p *parser) startMulliken() {
	p.sec = secMulliken
	p.mull = p.mull[:0]
}

// mullikenLine reads "1 O 8 8.37 …" (or "1 C 6.0 6.00441") rows: charge = Z − population.
func (p *parser) mullikenLine(t []byte) bool {
	if len(t) == 0 || t[0] == '-' || bytes.HasPrefix(t, []byte("Atom")) {
		return len(p.mull) == 0
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 4 {
		return false
	}
	if _, ok := qm.ParseInt(fs[0]); !ok {
		return false
	}
	z, ok1 := qm.ParseFloat(fs[2])
	pop, ok2 := qm.ParseFloat(fs[3])
	if !ok1 || !ok2 || len(p.mull) >= maxAtoms {
		return false
	}
	p.mull = append(p.mull, z-pop)
	return true
}

func (p *parser) endMulliken() {
	p.sec = secNone
	if len(p.mull) > 0 {
		p.st.c.MullikenCharges = append([]float64(nil), p.mull...)
	}
	p.mull = p.mull[:0]
}

// multipoleLine reads the L = 1 rows "1   1 0 0   total …" of a multipole analysis.
func (p *parser) multipoleLine(t []byte) bool {
	if len(t) == 0 || t[0] == '-' || t[0] == 'L' {
		return true
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 5 {
		return false
	}
	l, ok := qm.ParseInt(fs[0])
	if !ok {
		return false
	}
	if l != 1 {
		return l <= 2 // monopole and quadrupole rows
	}
	v, ok := qm.ParseFloat(fs[4])
	if !ok {
		return false
	}
	for k := 0; k < 3; k++ {
		if string(fs[1+k]) == "1" {
			p.dip[k] = v
			p.dipN |= 1 << k
		}
	}
	if p.dipN == 7 {
		p.setDipole()
	}
	return true
}

func (p *parser) setDipole() {
	f := qm.AtomicUnitDipoleToDebye
	if p.dipDebye {
		f = 1
	}
	d := &qm.Dipole{X: p.dip[0] * f, Y: p.dip[1] * f, Z: p.dip[2] * f}
	d.Total = math.Sqrt(d.X*d.X + d.Y*d.Y + d.Z*d.Z)
	p.st.c.Dipole = d
	p.dipN = 0
}

// irLine reads "1  -0.000 ||  0.019582  0.452  19.090  5.409" rows (km/mol is the 6th field).
func (p *parser) irLine(t []byte) bool {
	if len(t) == 0 || t[0] == '-' || bytes.HasPrefix(t, []byte("Mode")) {
		return true
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 6 || string(fs[2]) != "||" {
		return false
	}
	f, ok1 := qm.ParseFloat(fs[1])
	v, ok := qm.ParseFloat(fs[5])
	if !ok || !ok1 || len(p.st.irs) >= maxModes {
		return false
	}
	p.st.irs = append(p.st.irs, v)
	p.st.irFreqs = append(p.st.irFreqs, f)
	return true
}

func freqRow(t []byte, dst []float64, fields *[][]byte) []float64 {
	fs := qm.Fields(t, *fields)
	*fields = fs
	for _, f := range fs[1:] {
		if v, ok := qm.ParseFloat(f); ok && len(dst) < maxModes {
			dst = append(dst, v)
		}
	}
	return dst
}

func (p *parser) rotConst(t []byte, k int) {
	v, ok := qm.FloatAfter(t, "=")
	if !ok || !bytes.Contains(t, []byte("cm-1")) {
		return
	}
	c := p.st.c
	if k == 0 {
		c.RotationalConstants = c.RotationalConstants[:0:0]
	}
	if len(c.RotationalConstants) == k {
		c.RotationalConstants = append(c.RotationalConstants, v*qm.WavenumberToGHz)
	}
}

// endStep completes the current step and appends it to the steps.
// endXC ends an XC Information block: if it named no functional, the
// method is composed from its components.
func (p *parser) endXC() {
	p.sec = secNone
	if !p.xcNamed && len(p.xc) > 0 {
		p.st.method = xcName(p.xc)
	}
	p.xc = p.xc[:0]
}

func (p *parser) endStep() {
	switch p.sec {
	case secGeom:
		p.endGeom()
	case secMulliken:
		p.endMulliken()
	}
	p.sec = secNone
	st := p.st
	c := st.c
	if c.ProgramVersion == "" {
		c.ProgramVersion = p.version
	}
	if st.scfIters > 0 {
		// An SCF was running when the task (or the log) ended.
		c.SCF = append(c.SCF, qm.SCF{Converged: false, Iterations: st.scfIters})
		st.scfIters = 0
	}
	c.Method = st.method
	if len(st.basis) > 0 {
		c.BasisSet = strings.Join(st.basis, ", ")
	}
	switch {
	case st.haveCounts && st.uhf:
		c.Multiplicity = qm.Int(st.nAlpha - st.nBeta + 1)
	case st.haveShells:
		c.Multiplicity = qm.Int(st.open + 1)
		st.nAlpha, st.nBeta, st.haveCounts = st.closed+st.open, st.closed, true
	}
	if st.orbSet {
		c.Orbitals = p.orbitals()
	}
	if st.isOpt {
		c.Optimization = &qm.Optimization{Converged: st.optConv, Steps: st.optSteps}
	}
	p.frequencies()
	if st.zpe != nil || st.hcorr != nil {
		c.Thermo.ZPE = st.zpe
		c.Thermo.Temperature = st.temp
		c.Thermo.Pressure = qm.Float(1) // NWChem's thermochemistry is at 1 atm
		if e, ok := c.FinalEnergy(); ok && st.hcorr != nil {
			h := e + *st.hcorr
			c.Thermo.Enthalpy = qm.Float(h)
			if st.entropy != nil && st.temp != nil {
				c.Thermo.Gibbs = qm.Float(h - *st.temp**st.entropy/(1000*qm.HartreeToKcalPerMol))
			}
		}
	}
	if len(c.JobTypes) == 0 && len(c.SCF) > 0 {
		c.AddJob(qm.JobEnergy)
	}
	c.NormalTermination = st.taskDone && !st.failed
	p.steps = append(p.steps, c)
}

// orbitals builds the orbital energies of the last SCF solution.
func (p *parser) orbitals() *qm.Orbitals {
	st := p.st
	nspin := 1
	if st.uhf {
		nspin = 2
	}
	o := &qm.Orbitals{}
	first := -1
	for s := 0; s < nspin; s++ {
		n := len(st.eig[s])
		n = max(n, st.vec[s].len())
		if n == 0 {
			return nil
		}
		known := func(i int) (float64, bool) {
			if v, _, ok := st.vec[s].get(i); ok {
				return v, true
			}
			if i <= len(st.eig[s]) {
				return st.eig[s][i-1], true
			}
			return 0, false
		}
		// The printed window: from the highest vector down to the first gap.
		lo := n
		for lo > 1 {
			if _, ok := known(lo - 1); !ok {
				break
			}
			lo--
		}
		if first >= 0 && lo-1 != first {
			st.c.Warn("orbital energies: α and β windows differ: left out")
			return nil
		}
		first = lo - 1
		e := make([]float64, 0, n-lo+1)
		homo := -1
		for i := lo; i <= n; i++ {
			v, _ := known(i)
			e = append(e, v)
			if _, occ, _ := st.vec[s].get(i); occ > 0 {
				homo = max(homo, i-1)
			}
		}
		if st.haveCounts {
			homo = st.nAlpha - 1
			if s == 1 {
				homo = st.nBeta - 1
			}
		}
		o.Energies = append(o.Energies, e)
		o.HOMO = append(o.HOMO, homo)
	}
	o.First = first
	if nspin == 1 && st.haveCounts && st.nAlpha != st.nBeta {
		// Restricted open shell: β has only the doubly occupied orbitals.
		o.Energies = append(o.Energies, o.Energies[0])
		o.HOMO = []int{st.nAlpha - 1, st.nBeta - 1}
	}
	return o
}

// frequencies drops the translations and rotations from the 3N modes.
func (p *parser) frequencies() {
	st := p.st
	// The IR table prints the projected wavenumbers with one more decimal.
	f := st.irFreqs
	if len(f) != len(st.projFreqs) {
		f = st.projFreqs
	}
	if len(f) == 0 {
		f = st.freqs
	}
	if len(f) == 0 {
		return
	}
	c := st.c
	ir := st.irs
	if len(ir) != len(f) {
		ir = nil
	}
	n := len(c.FinalGeometry())
	drop := 6
	if n > 0 && isLinear(c.FinalGeometry()) {
		drop = 5
	}
	if n == 1 {
		drop = 3
	}
	if n == 0 || len(f) != 3*n || len(f) < drop {
		c.Frequencies, c.IRIntensities = append([]float64(nil), f...), append([]float64(nil), ir...)
		if len(ir) == 0 {
			c.IRIntensities = nil
		}
		c.Warn("frequencies: cannot tell the translations and rotations apart; all modes kept")
		return
	}
	idx := make([]int, len(f))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return math.Abs(f[idx[a]]) < math.Abs(f[idx[b]]) })
	dropped := map[int]bool{}
	for _, i := range idx[:drop] {
		dropped[i] = true
	}
	c.Frequencies = nil
	c.IRIntensities = nil
	for i, v := range f {
		if dropped[i] {
			continue
		}
		c.Frequencies = append(c.Frequencies, v)
		if ir != nil {
			c.IRIntensities = append(c.IRIntensities, ir[i])
		}
	}
}

// isLinear reports whether all atoms lie within 1e-3 Å of one line.
func isLinear(g qm.Geometry) bool {
	if len(g) < 3 {
		return len(g) == 2
	}
	a := g[0]
	far, dmax := 0, 0.0
	for i, b := range g {
		if d := math.Hypot(math.Hypot(b.X-a.X, b.Y-a.Y), b.Z-a.Z); d > dmax {
			far, dmax = i, d
		}
	}
	if dmax == 0 {
		return false
	}
	u := [3]float64{(g[far].X - a.X) / dmax, (g[far].Y - a.Y) / dmax, (g[far].Z - a.Z) / dmax}
	for _, b := range g {
		v := [3]float64{b.X - a.X, b.Y - a.Y, b.Z - a.Z}
		cx, cy, cz := v[1]*u[2]-v[2]*u[1], v[2]*u[0]-v[0]*u[2], v[0]*u[1]-v[1]*u[0]
		if math.Sqrt(cx*cx+cy*cy+cz*cz) > 1e-3 {
			return false
		}
	}
	return true
}

func (p *parser) finish() []*qm.Calculation {
	p.endStep()
	steps := p.steps
	// A task needs the final "Total times" to count as terminated normally
	// when it is the last one.
	if len(steps) > 0 && !p.runDone {
		steps[len(steps)-1].NormalTermination = false
	}
	// Some modules (QMD, molecular dynamics) print no "Task times": the
	// final "Total times" ends their task.
	if len(steps) > 0 && p.runDone && !p.st.taskDone && !p.st.failed {
		steps[len(steps)-1].NormalTermination = true
	}
	// A trailing step that only carried the previous task's state over
	// (nothing of its own) is not a step.
	if n := len(steps); n > 1 && len(steps[n-1].SCF) == 0 && len(steps[n-1].JobTypes) == 0 {
		steps = steps[:n-1]
	}
	return steps
}

func intAfter(t []byte, marker string) (int, bool) {
	i := bytes.Index(t, []byte(marker))
	if i < 0 {
		return 0, false
	}
	var tmp [4][]byte
	fs := qm.Fields(t[i+len(marker):], tmp[:0])
	if len(fs) == 0 {
		return 0, false
	}
	return qm.ParseInt(fs[0])
}

// seconds reads "12.3s" after marker.
func seconds(t []byte, marker string) (float64, bool) {
	i := bytes.Index(t, []byte(marker))
	if i < 0 {
		return 0, false
	}
	var tmp [4][]byte
	fs := qm.Fields(t[i+len(marker):], tmp[:0])
	if len(fs) == 0 {
		return 0, false
	}
	return qm.ParseFloat(bytes.TrimSuffix(fs[0], []byte("s")))
}

// vectors holds the energies and occupations of the vectors (1-based)
// printed in one spin's orbital analysis.
type vectors struct {
	e, occ []float64
	set    []bool
}

func (v *vectors) reset() { v.e, v.occ, v.set = v.e[:0], v.occ[:0], v.set[:0] }

func (v *vectors) len() int { return len(v.set) }

func (v *vectors) put(i int, e, occ float64) {
	for len(v.set) < i {
		v.e, v.occ, v.set = append(v.e, 0), append(v.occ, 0), append(v.set, false)
	}
	v.e[i-1], v.occ[i-1], v.set[i-1] = e, occ, true
}

func (v *vectors) get(i int) (e, occ float64, ok bool) {
	if i < 1 || i > len(v.set) || !v.set[i-1] {
		return 0, 0, false
	}
	return v.e[i-1], v.occ[i-1], true
}

// token returns the first run of non-blank bytes of b.
func token(b []byte) []byte {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j]
}

// numAfter parses the number right after marker ("E=-1.09D+00", "E= 6.05D-01").
func numAfter(t []byte, marker string) (float64, bool) {
	i := bytes.Index(t, []byte(marker))
	if i < 0 {
		return 0, false
	}
	return qm.ParseFloat(token(t[i+len(marker):]))
}
