package xtb

import (
	"bytes"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/molgraph/molgraph/parsers/qm"
)

// Parser is the xtb entry of a qm.Table.
type Parser struct{}

// Program returns qm.XTB.
func (Parser) Program() qm.Program { return qm.XTB }

// Parse parses an xtb output file; see the package comment.
func (Parser) Parse(r io.Reader) (*qm.Calculation, error) { return Parse(r) }

// Parse reads xtb's standard output from r. Errors: qm.ErrNoResults when
// nothing xtb-like was found, or the read error of r (wrapped, with the
// partial calculation).
func Parse(r io.Reader) (*qm.Calculation, error) {
	p := &parser{c: &qm.Calculation{Program: qm.XTB}}
	return qm.ParseLines("xtb", p.c, r, p.line, p.finish)
}

// Bounds on what one log can make the parser keep.
const (
	maxAtoms    = 100000
	maxOrbitals = 1 << 20
	maxModes    = 3 * maxAtoms
	maxKept     = 1 << 20
)

type section int

const (
	secNone section = iota
	secOrbitals
	secFinal // "final structure:" xyz or $coord block
	secCharges
	secIR
	secThermoT
	secDipole
	secDipole1  // GFN1's "dipole moment from electron density (au)"
	secCharges1 // GFN1's "Mulliken/CM5 charges"
	secFFGeom   // GFN-FF's topology table, with the input coordinates (bohr)
	secWall
)

type parser struct {
	c      *qm.Calculation
	sec    section
	fields [][]byte

	box       string // title of the last "::  TITLE  ::" box
	uhf       int    // unpaired electrons from the program call (-1: not given)
	uhfGiven  bool
	electrons int
	haveElec  bool

	scfIters    int
	scfPending  bool
	scfConv     bool
	inOpt       bool
	cycle       int
	optConv     bool
	optDone     bool
	finalSP     bool // the "Final Singlepoint" of an optimisation is running
	lastFromCyc bool // the last SCF energy came from an optimisation cycle (rounded)
	ff          bool // GFN-FF: a force field, its energies need no SCC

	orbNo   []int
	orbE    []float64
	orbHOMO int
	orbOK   bool

	geom     qm.Geometry
	geomBohr bool
	geomN    int
	geomRows int

	charges []float64
	zs      []int // atomic numbers of the charge table's rows (0: not readable)
	freqs   []float64
	irs     []float64
	nvib    int // "# frequencies" of the thermochemistry: the real ones
	nimag   int // "# imaginary freq." of the thermochemistry
	linear  bool
	errored bool
	done    bool
	temp    float64
	haveT   bool
}

func (p *parser) line(b []byte) {
	t := qm.TrimSpace(b)
	switch p.sec {
	case secOrbitals:
		if p.orbLine(t) {
			return
		}
		p.endOrbitals()
	case secFinal:
		if p.finalLine(t) {
			return
		}
		p.endFinal()
	case secCharges:
		if p.chargeLine(t) {
			return
		}
		p.endCharges()
	case secIR:
		if p.irLine(t) {
			return
		}
		p.sec = secNone
	case secThermoT:
		if len(t) == 0 || t[0] == '-' {
			if len(t) == 0 || p.haveT {
				p.sec = secNone
			}
			return
		}
		fs := qm.Fields(t, p.fields)
		p.fields = fs
		if len(fs) >= 5 {
			if v, ok := qm.ParseFloat(fs[0]); ok {
				p.temp, p.haveT = v, true
				return
			}
		}
		p.sec = secNone
	case secDipole:
		if bytes.HasPrefix(t, []byte("full:")) {
			p.dipole(t)
			p.sec = secNone
			return
		}
		if len(t) == 0 || bytes.HasPrefix(t, []byte("molecular quadrupole")) {
			p.sec = secNone
		}
		return
	case secDipole1:
		// "X Y Z" header, then "-0.0000 0.0000 -1.1172  total (Debye):    2.840".
		if i := bytes.Index(t, []byte("total (Debye):")); i >= 0 {
			p.dipole1(t[:i], t[i+len("total (Debye):"):])
			p.sec = secNone
			return
		}
		if len(t) == 0 || t[0] != 'X' {
			p.sec = secNone
		}
		return
	case secCharges1:
		if p.charge1Line(t) {
			return
		}
		p.endCharges()
	case secFFGeom:
		if p.ffGeomLine(t) {
			return
		}
		p.endFFGeom()
	case secWall:
		if bytes.HasPrefix(t, []byte("* wall-time:")) {
			if s, ok := dhms(t[len("* wall-time:"):]); ok {
				p.c.WallTime = qm.Float(s)
			}
		} else if bytes.HasPrefix(t, []byte("*  cpu-time:")) {
			if s, ok := dhms(t[len("*  cpu-time:"):]); ok {
				p.c.CPUTime = qm.Float(s)
			}
			p.sec = secNone
		}
		return
	}
	if len(t) == 0 {
		return
	}
	c := p.c

	// Boxes ":: TITLE ::" and their "::  key  value unit ::" rows.
	if bytes.HasPrefix(t, []byte("::")) {
		p.boxLine(t)
		return
	}
	if t[0] == ':' {
		p.setupLine(t)
		return
	}
	// Banners are dispatched on their first byte, then tested in the
	// order xtb prints them: xtb prints "*** … ***" results, "| … |" boxes
	// and "…… CYCLE n ……" rules (xtb's source); a search per marker on
	// every line was a third of the parse, and a chain of prefix tests
	// per line a third of what was left.
	switch t[0] {
	case '*':
		switch {
		case bytes.HasPrefix(t, []byte("* xtb version")):
			if fs := qm.Fields(t, p.fields); len(fs) >= 4 && c.ProgramVersion == "" {
				c.ProgramVersion = string(fs[3])
			}
		case bytes.HasPrefix(t, []byte("*** convergence criteria satisfied after")):
			p.scfConv = true
			if v, ok := qm.FloatAfter(t, "after"); ok {
				p.scfIters = int(v)
			}
		case bytes.Contains(t, []byte("convergence criteria cannot be satisfied")):
			p.scfConv = false
			if v, ok := qm.FloatAfter(t, "within"); ok && v >= 0 && v < 1e9 {
				p.scfIters = int(v)
			}
			c.Warn("SCC did not converge")
		case bytes.HasPrefix(t, []byte("* total energy")) && p.inOpt:
			if v, ok := qm.FloatAfter(t, ":"); ok {
				p.cycleEnergy(v)
			}
		case bytes.Contains(t, []byte("GEOMETRY OPTIMIZATION CONVERGED")):
			p.optConv, p.optDone = true, true
		case bytes.Contains(t, []byte("FAILED TO CONVERGE GEOMETRY OPTIMIZATION")):
			p.optDone = true
			c.Warn("geometry optimization did not converge")
		case bytes.HasPrefix(t, []byte("* finished run")):
			p.done = true
		case bytes.HasPrefix(t, []byte("* Solvation model:")):
			if fs := qm.Fields(t[len("* Solvation model:"):], p.fields); len(fs) == 1 {
				c.SolventModel = string(fs[0]) // ALPB, GBSA
			}
		default:
			p.errorLine(t)
		}
	case 'p':
		switch {
		case bytes.HasPrefix(t, []byte("program call")):
			p.programCall(t)
		case bytes.HasPrefix(t, []byte("projected vibrational frequencies")):
			p.freqs = p.freqs[:0]
			c.AddJob(qm.JobFrequency)
		default:
			p.errorLine(t)
		}
	case 'v':
		// Linear molecules: "vibrational frequencies (cm⁻¹)", not projected.
		switch {
		case bytes.HasPrefix(t, []byte("vibrational frequencies")):
			p.freqs = p.freqs[:0]
			c.AddJob(qm.JobFrequency)
		default:
			p.errorLine(t)
		}
	case 'i':
		if bytes.HasPrefix(t, []byte("iter")) && bytes.Contains(t, []byte("RMSdq")) {
			p.scfPending, p.scfConv, p.scfIters = true, false, 0
		} else {
			p.errorLine(t)
		}
	case '#':
		switch {
		case bytes.HasPrefix(t, []byte("#    Occupation")) && bytes.Contains(t, []byte("Energy/Eh")):
			p.sec = secOrbitals
			p.orbNo, p.orbE, p.orbHOMO, p.orbOK = p.orbNo[:0], p.orbE[:0], -1, true
		case bytes.HasPrefix(t, []byte("#   Z")) && bytes.Contains(t, []byte("covCN")) && bytes.Contains(t, []byte(" q ")):
			p.sec = secCharges
			p.charges, p.zs = p.charges[:0], p.zs[:0]
		default:
			p.errorLine(t)
		}
	case '|':
		switch {
		case bytes.Contains(t, []byte("A N C O P T")):
			p.inOpt = true
			c.AddJob(qm.JobOptimization)
		case bytes.Contains(t, []byte("Final Singlepoint")):
			p.finalSP = true
		case bytes.Contains(t, []byte("G F N - F F")):
			// GFN-FF prints no "Hamiltonian" setup row, only this banner.
			p.ff = true
			if c.Method == "" {
				c.Method = "GFN-FF"
			}
		case bytes.HasPrefix(t, []byte("| TOTAL ENERGY")):
			// The run's closing box: the final energy xtb reports. After
			// a Hessian with implicit solvent (--ohess --alpb) it is the
			// Hessian's reference evaluation, a few 1e-9 Eh from the last
			// SCC summary, and TOTAL ENTHALPY and FREE ENERGY add to it:
			// the last SCF's energy becomes it (the same geometry).
			if v, ok := qm.FloatAfter(t, "ENERGY"); ok && len(c.SCF) > 0 {
				if last := c.SCF[len(c.SCF)-1].Energy; last != nil && math.Abs(*last-v) < 1e-6 {
					c.SCF[len(c.SCF)-1].Energy = qm.Float(v)
				}
			}
		case bytes.HasPrefix(t, []byte("| TOTAL ENTHALPY")):
			if v, ok := qm.FloatAfter(t, "ENTHALPY"); ok {
				c.Thermo.Enthalpy = qm.Float(v)
			}
		case bytes.HasPrefix(t, []byte("| TOTAL FREE ENERGY")):
			if v, ok := qm.FloatAfter(t, "ENERGY"); ok {
				c.Thermo.Gibbs = qm.Float(v)
			}
		default:
			p.errorLine(t)
		}
	case '.':
		if bytes.Contains(t, []byte(" CYCLE ")) {
			p.cycle++
		} else {
			p.errorLine(t)
		}
	case 'f':
		if bytes.HasPrefix(t, []byte("final structure:")) {
			p.sec = secFinal
			p.geom, p.geomN, p.geomRows, p.geomBohr = nil, -1, 0, false
		} else {
			p.errorLine(t)
		}
	case 'e':
		if bytes.HasPrefix(t, []byte("eigval :")) {
			for _, f := range qm.Fields(t[len("eigval :"):], p.fields) {
				if v, ok := qm.ParseFloat(f); ok && len(p.freqs) < maxModes {
					p.freqs = append(p.freqs, v)
				}
			}
		} else {
			p.errorLine(t)
		}
	case 'I':
		if bytes.HasPrefix(t, []byte("IR intensities")) {
			p.sec = secIR
			p.irs = p.irs[:0]
		} else {
			p.errorLine(t)
		}
	case 'T':
		if bytes.HasPrefix(t, []byte("T/K")) {
			p.sec = secThermoT
			p.haveT = false
		} else {
			p.errorLine(t)
		}
	case 'm':
		if bytes.HasPrefix(t, []byte("molecular dipole:")) {
			p.sec = secDipole
		} else {
			p.errorLine(t)
		}
	case 'r':
		if bytes.HasPrefix(t, []byte("rotational constants/cm")) {
			if i := bytes.IndexByte(t, ':'); i > 0 {
				rc := qm.Floats(qm.Fields(t[i+1:], p.fields), nil)
				if len(rc) == 3 {
					for k := range rc {
						rc[k] *= qm.WavenumberToGHz
					}
					c.RotationalConstants = rc
				}
			}
		} else {
			p.errorLine(t)
		}
	case 'd':
		if bytes.HasPrefix(t, []byte("dipole moment from electron density (au)")) {
			p.sec = secDipole1
		} else {
			p.errorLine(t)
		}
	case 'a':
		if bytes.HasPrefix(t, []byte("atom   neighbors")) && bytes.HasSuffix(t, []byte("coordinates")) && len(p.c.Geometries) == 0 {
			p.sec = secFFGeom
			p.geom = nil
		} else {
			p.errorLine(t)
		}
	case 'M':
		if bytes.HasPrefix(t, []byte("Mulliken/CM5 charges")) {
			p.sec = secCharges1
			p.charges, p.zs = p.charges[:0], p.zs[:0]
		} else {
			p.errorLine(t)
		}
	case 't':
		if bytes.Equal(t, []byte("total:")) {
			p.sec = secWall
		} else {
			p.errorLine(t)
		}
	default:
		p.errorLine(t)
	}
}

// errorLine reads a line that is no banner: an "[ERROR]" line or one that
// reports an abnormal termination.
func (p *parser) errorLine(t []byte) {
	if bytes.HasPrefix(t, []byte("[ERROR]")) || bytes.Contains(t, []byte("abnormal termination")) {
		p.errored = true
		p.c.Warn(string(t))
	}
}

// boxLine reads the rows of the ":: … ::" summary boxes.
func (p *parser) boxLine(t []byte) {
	inner := qm.TrimSpace(bytes.Trim(t, ":."))
	if len(inner) == 0 {
		return
	}
	fs := qm.Fields(inner, p.fields)
	p.fields = fs
	if len(fs) == 1 {
		p.box = string(fs[0]) // SUMMARY, THERMODYNAMIC
		return
	}
	c := p.c
	switch {
	case p.box == "SUMMARY" && bytes.HasPrefix(inner, []byte("total energy")) && len(fs) >= 3:
		if v, ok := qm.ParseFloat(fs[2]); ok {
			p.summaryEnergy(v)
		}
	case p.box == "SUMMARY" && bytes.HasPrefix(inner, []byte("total charge")) && len(fs) >= 3:
		if v, ok := qm.ParseFloat(fs[2]); ok && math.Abs(v) < 1e6 {
			c.Charge = qm.Int(int(math.Round(v)))
		}
	case p.box == "THERMODYNAMIC" && bytes.HasPrefix(inner, []byte("zero point energy")) && len(fs) >= 4:
		if v, ok := qm.ParseFloat(fs[3]); ok {
			c.Thermo.ZPE = qm.Float(v)
		}
	}
}

// setupLine reads the ": key value :" rows of the SETUP boxes.
func (p *parser) setupLine(t []byte) {
	inner := qm.TrimSpace(bytes.Trim(t, ":"))
	switch {
	case bytes.HasPrefix(inner, []byte("Hamiltonian")):
		if fs := qm.Fields(inner, p.fields); len(fs) == 2 {
			p.c.Method = string(fs[1])
		}
	case bytes.HasPrefix(inner, []byte("# electrons")):
		if fs := qm.Fields(inner, p.fields); len(fs) == 3 {
			if v, ok := qm.ParseInt(fs[2]); ok {
				p.electrons, p.haveElec = v, true
			}
		}
	case bytes.HasPrefix(inner, []byte("# frequencies")):
		if fs := qm.Fields(inner, p.fields); len(fs) == 3 {
			if v, ok := qm.ParseInt(fs[2]); ok {
				p.nvib = v
			}
		}
	case bytes.HasPrefix(inner, []byte("# imaginary freq.")):
		if fs := qm.Fields(inner, p.fields); len(fs) == 4 {
			if v, ok := qm.ParseInt(fs[3]); ok {
				p.nimag = v
			}
		}
	case bytes.HasPrefix(inner, []byte("linear")):
		// "linear?  false" (ANCOPT, Hessian), "linear (good luck)  true".
		p.linear = bytes.HasSuffix(inner, []byte("true"))
	}
}

func (p *parser) programCall(t []byte) {
	i := bytes.IndexByte(t, ':')
	if i < 0 {
		return
	}
	args := strings.Fields(string(t[i+1:]))
	for k := 0; k+1 < len(args); k++ {
		if args[k] == "--uhf" || args[k] == "-u" {
			if v, ok := qm.ParseInt([]byte(args[k+1])); ok && v >= 0 && v < 1000 {
				p.uhf, p.uhfGiven = v, true
			}
		}
	}
}

// summaryEnergy records the total energy of a single-point summary.
func (p *parser) summaryEnergy(v float64) {
	c := p.c
	if p.finalSP && p.lastFromCyc && len(c.SCF) > 0 {
		// The final single point re-evaluates the last cycle's geometry:
		// keep its full-precision energy in place of the rounded one.
		c.SCF[len(c.SCF)-1].Energy = qm.Float(v)
		c.SCF[len(c.SCF)-1].Converged = p.scfConv || p.ff
		p.finalSP, p.lastFromCyc, p.scfPending = false, false, false
		return
	}
	if len(c.SCF) < maxKept {
		c.SCF = append(c.SCF, qm.SCF{Energy: qm.Float(v), Converged: p.scfConv || p.ff, Iterations: p.scfIters})
	}
	p.scfPending, p.lastFromCyc, p.finalSP = false, false, false
}

// cycleEnergy records the energy of an optimisation cycle.
func (p *parser) cycleEnergy(v float64) {
	c := p.c
	p.scfPending = false
	if p.cycle == 1 && len(c.SCF) > 0 {
		return // the starting geometry, already evaluated
	}
	if len(c.SCF) < maxKept {
		c.SCF = append(c.SCF, qm.SCF{Energy: qm.Float(v), Converged: true})
		p.lastFromCyc = true
	}
}

// orbLine reads "n  occ  E/Eh  E/eV [(HOMO)|(LUMO)]" rows (occupation
// omitted for empty orbitals; "..." rows mark left-out orbitals).
func (p *parser) orbLine(t []byte) bool {
	if len(t) > 0 && t[0] == '-' {
		return len(p.orbE) == 0
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) >= 1 && bytes.Equal(fs[0], []byte("...")) {
		return true
	}
	if len(fs) < 3 {
		return false
	}
	n, ok := qm.ParseInt(fs[0])
	if !ok {
		return false
	}
	marker := ""
	if last := fs[len(fs)-1]; len(last) > 0 && last[0] == '(' {
		marker = string(last)
		fs = fs[:len(fs)-1]
	}
	// The hartree column is the second-to-last number: occupation (optional), Eh, eV.
	if len(fs) < 3 {
		return false
	}
	e, ok := qm.ParseFloat(fs[len(fs)-2])
	if !ok || n < 1 || len(p.orbE) >= maxOrbitals {
		p.orbOK = false
		return true
	}
	p.orbNo = append(p.orbNo, n)
	p.orbE = append(p.orbE, e)
	if marker == "(HOMO)" {
		p.orbHOMO = n - 1
	}
	return true
}

func (p *parser) endOrbitals() {
	p.sec = secNone
	if !p.orbOK || len(p.orbE) == 0 {
		return
	}
	// Larger molecules: "1 …", "...", a window around the frontier
	// orbitals, "...", the highest orbital. Keep the contiguous run that
	// holds the HOMO (the longest one if no HOMO is marked).
	bestLo, bestHi := 0, 0
	for lo := 0; lo < len(p.orbNo); {
		hi := lo + 1
		for hi < len(p.orbNo) && p.orbNo[hi] == p.orbNo[hi-1]+1 {
			hi++
		}
		first, last := p.orbNo[lo]-1, p.orbNo[hi-1]-1
		if p.orbHOMO >= first && p.orbHOMO <= last {
			bestLo, bestHi = lo, hi
			break
		}
		if hi-lo > bestHi-bestLo {
			bestLo, bestHi = lo, hi
		}
		lo = hi
	}
	o := &qm.Orbitals{First: p.orbNo[bestLo] - 1, Energies: [][]float64{append([]float64(nil), p.orbE[bestLo:bestHi]...)}, HOMO: []int{p.orbHOMO}}
	p.c.Orbitals = o
}

// finalLine reads the final structure: "n", a comment, then n atoms (xyz,
// Å), or a Turbomole "$coord" block (bohr, symbol last) ending at "$end".
func (p *parser) finalLine(t []byte) bool {
	if p.geomN < 0 && p.geomRows == 0 {
		if bytes.HasPrefix(t, []byte("$coord")) {
			p.geomBohr = true
			p.geomN = 0
			p.geomRows = 1
			return true
		}
		if v, ok := qm.ParseInt(t); ok && v > 0 && v <= maxAtoms {
			p.geomN = v
			p.geomRows = 1 // the comment line comes next
			return true
		}
		return len(t) == 0 || t[0] == '='
	}
	if p.geomBohr {
		if bytes.HasPrefix(t, []byte("$")) {
			return false
		}
		fs := qm.Fields(t, p.fields)
		p.fields = fs
		if len(fs) < 4 {
			return false
		}
		return p.atom(fs[3], fs[0], fs[1], fs[2], qm.BohrToAngstrom)
	}
	if p.geomRows == 1 { // comment line
		p.geomRows = 2
		return true
	}
	if len(p.geom) >= p.geomN {
		return false
	}
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 4 {
		return false
	}
	return p.atom(fs[0], fs[1], fs[2], fs[3], 1)
}

func (p *parser) atom(sym, xs, ys, zs []byte, scale float64) bool {
	z, ok := qm.AtomicNumber(string(sym))
	x, ok1 := qm.ParseFloat(xs)
	y, ok2 := qm.ParseFloat(ys)
	zc, ok3 := qm.ParseFloat(zs)
	if !ok || !ok1 || !ok2 || !ok3 || len(p.geom) >= maxAtoms {
		return false
	}
	p.geom = append(p.geom, qm.Atom{AtomicNumber: z, X: x * scale, Y: y * scale, Z: zc * scale})
	return true
}

// ffGeomLine reads a row of GFN-FF's topology table: "1  O  2  1.92  0.00
// 3  0  0  -0.571   0.000000  0.000000  0.221665" (coordinates in bohr last).
func (p *parser) ffGeomLine(t []byte) bool {
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) != 12 {
		return false
	}
	if _, ok := qm.ParseInt(fs[0]); !ok {
		return false
	}
	return p.atom(fs[1], fs[9], fs[10], fs[11], qm.BohrToAngstrom)
}

// endFFGeom keeps GFN-FF's input geometry as the first geometry.
func (p *parser) endFFGeom() {
	p.sec = secNone
	if len(p.geom) > 0 && len(p.c.Geometries) == 0 {
		p.c.Geometries = append(p.c.Geometries, p.geom)
	}
	p.geom = nil
}

func (p *parser) endFinal() {
	p.sec = secNone
	if len(p.geom) > 0 && (p.geomBohr || len(p.geom) == p.geomN) && len(p.c.Geometries) < maxKept {
		p.c.Geometries = append(p.c.Geometries, p.geom)
	}
	p.geom = nil
}

// chargeLine reads "1   8 O   1.611  -0.565  24.358  6.661" rows (q is the 5th field).
func (p *parser) chargeLine(t []byte) bool {
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 5 {
		return false
	}
	if _, ok := qm.ParseInt(fs[0]); !ok {
		return false
	}
	q, ok := qm.ParseFloat(fs[4])
	if !ok || len(p.charges) >= maxAtoms {
		return false
	}
	p.charges = append(p.charges, q)
	// "#  Z  covCN  q": the atomic number, then the symbol; both must agree.
	z, _ := qm.ParseInt(fs[1])
	if zs, ok := qm.AtomicNumber(string(fs[2])); !ok || zs != z {
		z = 0
	}
	p.zs = append(p.zs, z)
	return true
}

// charge1Line reads GFN1's "1O    -0.66893 -1.00497   1.692  4.976  0.000"
// rows: index and symbol run together, then the Mulliken and CM5 charges.
func (p *parser) charge1Line(t []byte) bool {
	fs := qm.Fields(t, p.fields)
	p.fields = fs
	if len(fs) < 3 || len(fs[0]) < 2 || fs[0][0] < '0' || fs[0][0] > '9' {
		return false
	}
	q, ok := qm.ParseFloat(fs[1])
	if !ok || len(p.charges) >= maxAtoms {
		return false
	}
	p.charges = append(p.charges, q)
	// The symbol follows the index digits: "12Cl".
	sym := bytes.TrimLeft(fs[0], "0123456789")
	z, ok := qm.AtomicNumber(string(sym))
	if !ok {
		z = 0
	}
	p.zs = append(p.zs, z)
	return true
}

func (p *parser) endCharges() {
	p.sec = secNone
	if len(p.charges) > 0 {
		p.c.MullikenCharges = append([]float64(nil), p.charges...)
		// The table names every atom: kept as the atom list for a run that
		// prints no coordinates (single points, Hessians), only if every
		// row named a known element.
		p.c.AtomicNumbers = nil
		if !slices.Contains(p.zs, 0) && len(p.zs) == len(p.charges) {
			p.c.AtomicNumbers = append([]int(nil), p.zs...)
		}
	}
}

// irLine reads "1: 99.33   2:  4.48 … 4:154.97" rows.
func (p *parser) irLine(t []byte) bool {
	if len(t) == 0 || t[0] < '0' || t[0] > '9' || bytes.IndexByte(t, ':') < 0 {
		return false
	}
	fs := qm.Fields(bytes.ReplaceAll(t, []byte(":"), []byte(" ")), p.fields)
	p.fields = fs
	for k := 1; k < len(fs); k += 2 {
		if v, ok := qm.ParseFloat(fs[k]); ok && len(p.irs) < maxModes {
			p.irs = append(p.irs, v)
		}
	}
	return true
}

func (p *parser) dipole(t []byte) {
	fs := qm.Fields(t[len("full:"):], p.fields)
	p.fields = fs
	v := qm.Floats(fs, nil)
	if len(v) < 3 {
		return
	}
	d := &qm.Dipole{X: v[0] * qm.AtomicUnitDipoleToDebye, Y: v[1] * qm.AtomicUnitDipoleToDebye, Z: v[2] * qm.AtomicUnitDipoleToDebye}
	if len(v) >= 4 {
		d.Total = v[3]
	} else {
		d.Total = math.Sqrt(d.X*d.X + d.Y*d.Y + d.Z*d.Z)
	}
	p.c.Dipole = d
}

// dipole1 reads GFN1's dipole: components in atomic units, total in debye.
func (p *parser) dipole1(comp, total []byte) {
	v := qm.Floats(qm.Fields(comp, p.fields), nil)
	tot, ok := qm.ParseFloat(qm.TrimSpace(total))
	if len(v) != 3 || !ok {
		return
	}
	p.c.Dipole = &qm.Dipole{X: v[0] * qm.AtomicUnitDipoleToDebye, Y: v[1] * qm.AtomicUnitDipoleToDebye,
		Z: v[2] * qm.AtomicUnitDipoleToDebye, Total: tot}
}

func (p *parser) finish() {
	c := p.c
	switch p.sec {
	case secOrbitals:
		p.endOrbitals()
	case secFinal:
		p.endFinal()
	case secCharges, secCharges1:
		p.endCharges()
	case secFFGeom:
		p.endFFGeom()
	}
	if p.scfPending {
		c.SCF = append(c.SCF, qm.SCF{Converged: false, Iterations: p.scfIters})
	}
	if len(c.Geometries) > 0 {
		c.AtomicNumbers = nil // the geometry names the atoms
	}
	if c.Charge == nil && len(c.SCF) > 0 {
		c.Charge = qm.Int(0)
	}
	switch {
	case p.uhfGiven:
		c.Multiplicity = qm.Int(p.uhf + 1)
	case p.haveElec:
		c.Multiplicity = qm.Int(p.electrons%2 + 1)
	case c.Charge != nil && (len(c.Geometries) > 0 || len(c.AtomicNumbers) > 0):
		// GFN-FF prints no electron count: xtb's default from the atoms.
		n := -*c.Charge
		for _, a := range c.FinalGeometry() {
			n += a.AtomicNumber
		}
		for _, z := range c.AtomicNumbers {
			n += z
		}
		if n >= 0 {
			c.Multiplicity = qm.Int(n%2 + 1)
		}
	}
	if p.inOpt {
		c.Optimization = &qm.Optimization{Converged: p.optConv, Steps: p.cycle}
	}
	p.frequencies()
	if p.haveT && (c.Thermo.ZPE != nil || c.Thermo.Enthalpy != nil) {
		c.Thermo.Temperature = qm.Float(p.temp)
	}
	if len(c.JobTypes) == 0 && len(c.SCF) > 0 {
		c.AddJob(qm.JobEnergy)
	}
	c.NormalTermination = p.done && !p.errored
}

// frequencies drops the translations and rotations from the 3N modes.
func (p *parser) frequencies() {
	f := p.freqs
	if len(f) == 0 {
		return
	}
	c := p.c
	// "# frequencies" counts the real vibrations only: an imaginary mode
	// (a saddle point) is one of the 3N−6 and is kept.
	drop := len(f) - p.nvib - p.nimag
	if p.nvib == 0 || drop < 0 {
		// No thermochemistry (a run stopped after the Hessian): xtb
		// prints the projected translations and rotations as 0.00.
		zeros := 0
		for _, v := range f {
			if math.Abs(v) < 0.005 {
				zeros++
			}
		}
		switch {
		case zeros == 5 || zeros == 6:
			drop = zeros
		case p.linear:
			drop = 5
		default:
			drop = 6
		}
	}
	ir := p.irs
	if len(ir) != len(f) {
		ir = nil
	}
	if drop > len(f) {
		drop = len(f)
	}
	idx := make([]int, len(f))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return math.Abs(f[idx[a]]) < math.Abs(f[idx[b]]) })
	dropped := make(map[int]bool, drop)
	for _, i := range idx[:drop] {
		dropped[i] = true
	}
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

// dhms reads "0 d,  0 h,  0 min,  0.018 sec".
func dhms(b []byte) (float64, bool) {
	var tmp [8][]byte
	fs := qm.Fields(bytes.ReplaceAll(b, []byte(","), []byte(" ")), tmp[:0])
	if len(fs) != 8 {
		return 0, false
	}
	total := 0.0
	for i, m := range []float64{86400, 3600, 60, 1} {
		v, ok := qm.ParseFloat(fs[2*i])
		if !ok {
			return 0, false
		}
		total += v * m
	}
	return total, true
}
