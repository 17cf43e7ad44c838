package pdbqt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// vinaRemarks are the prefixes (after "REMARK ") of the per-model energy
// remarks Vina 1.2.3 writes; they belong to the Model, not to a Molecule.
var vinaRemarks = [...]string{
	"VINA RESULT:", "INTER + INTRA:", "INTER:", "INTRA:", "UNBOUND:", "CONF_INDEPENDENT:",
}

func isVinaRemark(text string) bool {
	for _, p := range vinaRemarks {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// parser holds the state of one Parse call.
type parser struct {
	models      []*Model
	model       *Model // current model (open MODEL or implicit)
	open        bool   // inside MODEL ... ENDMDL
	mol         *Molecule
	done        bool    // mol is complete (TORSDOF / END_RES seen): the next record starts a new one
	stack       []*Body // open ROOT / BRANCH bodies
	brs         []*Branch
	serial      map[int]bool // serials of the current molecule
	natoms      int
	remarkBytes int // bytes of REMARK text kept
	line        int
}

func (p *parser) fail(err error, format string, args ...any) error {
	return &ParseError{Line: p.line, Msg: fmt.Sprintf(format, args...), Err: err}
}

// Parse reads a PDBQT file and returns its models: one per MODEL record, or
// a single model (Number 0) when there are none. Every model has at least
// one molecule with at least one atom.
func Parse(r io.Reader) ([]*Model, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), MaxLineLength)
	p := &parser{}
	for sc.Scan() {
		p.line++
		if err := p.record(sc.Bytes()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ParseError{Line: p.line + 1, Msg: "line longer than the limit", Err: ErrTooLarge}
		}
		return nil, fmt.Errorf("pdbqt: read: %w", err)
	}
	p.line++
	if p.open {
		return nil, p.fail(ErrTree, "MODEL %d without ENDMDL", p.model.Number)
	}
	if err := p.closeModel(); err != nil {
		return nil, err
	}
	if len(p.models) == 0 {
		return nil, fmt.Errorf("pdbqt: parse: %w", ErrNoAtoms)
	}
	return p.models, nil
}

// ParseBytes is Parse on a byte slice.
func ParseBytes(b []byte) ([]*Model, error) { return Parse(bytes.NewReader(b)) }

// ParseMolecule reads a file holding exactly one molecule and no MODEL
// records beyond one (a ligand or a rigid receptor).
func ParseMolecule(r io.Reader) (*Molecule, error) {
	ms, err := Parse(r)
	if err != nil {
		return nil, err
	}
	if len(ms) != 1 || len(ms[0].Molecules) != 1 {
		n := 0
		for _, m := range ms {
			n += len(m.Molecules)
		}
		return nil, fmt.Errorf("pdbqt: parse molecule: %w: %d models, %d molecules, want one",
			ErrSyntax, len(ms), n)
	}
	return ms[0].Molecules[0], nil
}

func (p *parser) record(raw []byte) error {
	if !isText(raw) {
		return p.fail(ErrSyntax, "binary data")
	}
	line := strings.TrimRight(string(raw), " \t\r")
	if line == "" {
		return nil
	}
	rec := line
	if len(rec) > 6 {
		rec = rec[:6]
	}
	rec = strings.TrimRight(rec, " ")
	switch {
	case rec == "ATOM" || rec == "HETATM":
		return p.atom(line, rec == "HETATM")
	case rec == "REMARK":
		return p.remark(line)
	case rec == "ROOT":
		return p.root()
	case rec == "ENDROO":
		return p.endRoot()
	case rec == "BRANCH":
		return p.branch(line)
	case rec == "ENDBRA":
		return p.endBranch(line)
	case rec == "TORSDO":
		return p.torsdof(line)
	case rec == "BEGIN_":
		return p.beginRes(line)
	case rec == "END_RE":
		return p.endRes()
	case rec == "TER":
		if p.mol != nil && len(p.mol.Atoms) > 0 {
			p.mol.Atoms[len(p.mol.Atoms)-1].TER = true
		}
		return nil
	case rec == "MODEL":
		return p.beginModel(line)
	case rec == "ENDMDL":
		return p.endModel()
	}
	// Other PDB records (END, CONECT, CRYST1, HEADER, USER, ...) carry
	// nothing for docking and are skipped, as Vina does.
	return nil
}

func isText(b []byte) bool {
	for _, c := range b {
		if c == 0 || (c < 0x20 && c != '\t' && c != '\r') {
			return false
		}
	}
	return true
}

func (p *parser) curModel() *Model {
	if p.model == nil {
		p.model = &Model{}
	}
	return p.model
}

// curMol returns the molecule new records belong to, starting one when needed.
func (p *parser) curMol() *Molecule {
	if p.mol == nil || p.done {
		p.startMol()
	}
	return p.mol
}

func (p *parser) startMol() {
	md := p.curModel()
	p.mol = &Molecule{TorsDOF: -1}
	p.done = false
	p.serial = map[int]bool{}
	md.Molecules = append(md.Molecules, p.mol)
}

func (p *parser) beginModel(line string) error {
	if p.open {
		return p.fail(ErrTree, "MODEL inside MODEL %d", p.model.Number)
	}
	if err := p.closeModel(); err != nil {
		return err
	}
	n := 0
	if f := strings.Fields(line); len(f) > 1 {
		v, err := strconv.Atoi(f[1])
		if err != nil {
			return p.fail(ErrSyntax, "bad MODEL number %q", f[1])
		}
		n = v
	}
	p.model = &Model{Number: n}
	p.open = true
	return nil
}

func (p *parser) endModel() error {
	if !p.open {
		return p.fail(ErrTree, "ENDMDL without MODEL")
	}
	p.open = false
	return p.closeModel()
}

// closeModel finishes the current model and checks it.
func (p *parser) closeModel() error {
	if len(p.stack) > 0 {
		return p.fail(ErrTree, "ROOT or BRANCH not closed")
	}
	md := p.model
	p.model, p.mol, p.done = nil, nil, false
	if md == nil {
		return nil
	}
	var kept []*Molecule
	for _, m := range md.Molecules {
		if len(m.Atoms) == 0 {
			if m.Root != nil || m.Residue != "" {
				return p.fail(ErrNoAtoms, "torsion tree without atoms")
			}
			continue // remarks only (e.g. a trailing comment block)
		}
		if err := checkMapping(m); err != nil {
			return p.fail(ErrMapping, "%v", err)
		}
		kept = append(kept, m)
	}
	if len(kept) == 0 {
		if md.Number != 0 || len(p.models) == 0 && md.Result != nil {
			return p.fail(ErrNoAtoms, "model %d has no atoms", md.Number)
		}
		return nil
	}
	md.Molecules = kept
	p.models = append(p.models, md)
	return nil
}

func (p *parser) atom(line string, het bool) error {
	a, err := parseAtom(line, het)
	if err != nil {
		return p.fail(ErrSyntax, "%v", err)
	}
	p.natoms++
	if p.natoms > MaxAtoms {
		return p.fail(ErrTooLarge, "more than %d atoms", MaxAtoms)
	}
	m := p.curMol()
	if m.Root != nil && len(p.stack) == 0 {
		return p.fail(ErrTree, "atom %d outside ROOT/BRANCH", a.Serial)
	}
	// Serials identify atoms of a torsion tree (BRANCH, SMILES IDX); a rigid
	// receptor may repeat them (Open Babel -xr restarts at 1 for every
	// disconnected fragment, and Vina accepts that).
	if p.serial[a.Serial] && (m.Root != nil || m.Residue != "") {
		return p.fail(ErrSyntax, "duplicate atom serial %d", a.Serial)
	}
	p.serial[a.Serial] = true
	m.Atoms = append(m.Atoms, a)
	if n := len(p.stack); n > 0 {
		top := p.stack[n-1]
		top.Items = append(top.Items, Item{Atom: len(m.Atoms) - 1})
	}
	return nil
}

// parseAtom reads the fixed columns of an ATOM/HETATM record. Coordinates
// (columns 31-54) are required; charge and type are read when present.
func parseAtom(line string, het bool) (Atom, error) {
	if len(line) < 54 {
		return Atom{}, fmt.Errorf("atom record shorter than 54 columns")
	}
	a := Atom{Hetero: het}
	col := func(from, to int) string { // 1-based inclusive columns
		if from > len(line) {
			return ""
		}
		if to > len(line) {
			to = len(line)
		}
		return line[from-1 : to]
	}
	var err error
	if a.Serial, err = strconv.Atoi(strings.TrimSpace(col(7, 11))); err != nil {
		return a, fmt.Errorf("bad atom serial %q", col(7, 11))
	}
	a.Name = strings.TrimSpace(col(13, 16))
	a.AltLoc = strings.TrimSpace(col(17, 17))
	a.ResName = strings.TrimSpace(col(18, 20))
	a.Chain = strings.TrimSpace(col(22, 22))
	if s := strings.TrimSpace(col(23, 26)); s != "" {
		if a.ResSeq, err = strconv.Atoi(s); err != nil {
			return a, fmt.Errorf("bad residue number %q", s)
		}
	}
	a.ICode = strings.TrimSpace(col(27, 27))
	for i, dst := range []*float64{&a.X, &a.Y, &a.Z} {
		s := strings.TrimSpace(col(31+8*i, 38+8*i))
		if *dst, err = parseFloat(s); err != nil {
			return a, fmt.Errorf("bad coordinate %q", s)
		}
	}
	if s := strings.TrimSpace(col(55, 60)); s != "" {
		if a.Occupancy, err = parseFloat(s); err != nil {
			return a, fmt.Errorf("bad occupancy %q", s)
		}
	}
	if s := strings.TrimSpace(col(61, 66)); s != "" {
		if a.BFactor, err = parseFloat(s); err != nil {
			return a, fmt.Errorf("bad b-factor %q", s)
		}
	}
	if s := strings.TrimSpace(col(67, 76)); s != "" {
		if a.Charge, err = parseFloat(s); err != nil {
			return a, fmt.Errorf("bad partial charge %q", s)
		}
	}
	if f := strings.Fields(col(77, len(line))); len(f) > 0 {
		a.Type = f[0]
	}
	if a.Type == "" {
		return a, fmt.Errorf("atom %d has no AutoDock type (column 78)", a.Serial)
	}
	return a, nil
}

// parseFloat accepts finite decimal numbers only (no NaN/Inf, no hex).
func parseFloat(s string) (float64, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return 0, fmt.Errorf("not a number")
		}
	}
	return strconv.ParseFloat(s, 64)
}

func (p *parser) remark(line string) error {
	text := strings.TrimPrefix(line[6:], " ")
	p.remarkBytes += len(text)
	if p.remarkBytes > MaxRemarkBytes {
		return p.fail(ErrTooLarge, "more than %d bytes of REMARK text", MaxRemarkBytes)
	}
	if isVinaRemark(text) {
		md := p.curModel()
		md.Remarks = append(md.Remarks, text)
		if md.Result == nil {
			md.Result = &VinaResult{}
		}
		return p.vinaRemark(md.Result, text)
	}
	// A remark after a finished molecule (TORSDOF, END_RES) opens the next
	// one: Vina writes each ligand's remarks before its ROOT.
	if p.mol == nil || p.done {
		p.startMol()
	}
	p.mol.Remarks = append(p.mol.Remarks, text)
	return p.smilesRemark(p.mol, text)
}

func (p *parser) vinaRemark(r *VinaResult, text string) error {
	k := strings.Index(text, ":")
	key, vals := text[:k], strings.Fields(text[k+1:])
	var nums []float64
	for _, v := range vals {
		f, err := parseFloat(v)
		if err != nil {
			return p.fail(ErrSyntax, "bad number %q in REMARK %s", v, key)
		}
		nums = append(nums, f)
	}
	need := 1
	if key == "VINA RESULT" {
		need = 3
	}
	if len(nums) < need {
		return p.fail(ErrSyntax, "REMARK %s needs %d numbers", key, need)
	}
	switch key {
	case "VINA RESULT":
		r.Affinity, r.RMSDLowerBound, r.RMSDUpperBound = nums[0], nums[1], nums[2]
	case "INTER + INTRA":
		r.InterIntra = nums[0]
	case "INTER":
		r.Inter = nums[0]
	case "INTRA":
		r.Intra = nums[0]
	case "UNBOUND":
		r.Unbound = nums[0]
	}
	return nil
}

// smilesRemark reads Meeko's mapping remarks into the molecule.
func (p *parser) smilesRemark(m *Molecule, text string) error {
	pairs := func(prefix string) ([]IndexPair, error) {
		f := strings.Fields(text[len(prefix):])
		if len(f)%2 != 0 {
			return nil, p.fail(ErrMapping, "REMARK %s has an odd number of values", prefix)
		}
		out := make([]IndexPair, 0, len(f)/2)
		for i := 0; i < len(f); i += 2 {
			a, err1 := strconv.Atoi(f[i])
			b, err2 := strconv.Atoi(f[i+1])
			if err1 != nil || err2 != nil || a < 1 || b < 1 {
				return nil, p.fail(ErrMapping, "REMARK %s: bad pair %q %q", prefix, f[i], f[i+1])
			}
			out = append(out, IndexPair{SMILES: a, Serial: b})
		}
		return out, nil
	}
	switch {
	case strings.HasPrefix(text, "SMILES IDX"):
		ps, err := pairs("SMILES IDX")
		if err != nil {
			return err
		}
		m.SMILESIdx = append(m.SMILESIdx, ps...)
	case strings.HasPrefix(text, "H PARENT"):
		ps, err := pairs("H PARENT")
		if err != nil {
			return err
		}
		m.HParent = append(m.HParent, ps...)
	case strings.HasPrefix(text, "SMILES "):
		s := strings.TrimSpace(text[len("SMILES "):])
		if m.SMILES != "" && m.SMILES != s {
			return p.fail(ErrMapping, "two different REMARK SMILES in one molecule")
		}
		m.SMILES = s
	}
	return nil
}

// checkMapping validates the SMILES mapping of a complete molecule: every
// serial exists, no serial or SMILES index is mapped twice, H PARENT names
// hydrogens.
func checkMapping(m *Molecule) error {
	if len(m.SMILESIdx) == 0 && len(m.HParent) == 0 {
		return nil
	}
	if m.SMILES == "" {
		return fmt.Errorf("SMILES IDX or H PARENT without REMARK SMILES")
	}
	idx := make(map[int]int, len(m.Atoms))
	for i, a := range m.Atoms {
		idx[a.Serial] = i
	}
	seenSerial := map[int]bool{}
	seenSmiles := map[int]bool{}
	for _, pr := range m.SMILESIdx {
		if _, ok := idx[pr.Serial]; !ok {
			return fmt.Errorf("SMILES IDX names serial %d, not an atom of the molecule", pr.Serial)
		}
		if seenSerial[pr.Serial] || seenSmiles[pr.SMILES] {
			return fmt.Errorf("SMILES IDX maps serial %d or index %d twice", pr.Serial, pr.SMILES)
		}
		seenSerial[pr.Serial], seenSmiles[pr.SMILES] = true, true
	}
	for _, pr := range m.HParent {
		i, ok := idx[pr.Serial]
		if !ok {
			return fmt.Errorf("H PARENT names serial %d, not an atom of the molecule", pr.Serial)
		}
		if !m.Atoms[i].IsHydrogen() {
			return fmt.Errorf("H PARENT names serial %d of type %s, not a hydrogen", pr.Serial, m.Atoms[i].Type)
		}
		if seenSerial[pr.Serial] {
			return fmt.Errorf("H PARENT maps serial %d twice", pr.Serial)
		}
		seenSerial[pr.Serial] = true
	}
	return nil
}

func (p *parser) root() error {
	if p.mol == nil || p.done || p.mol.Root != nil {
		p.startMol()
	}
	if len(p.mol.Atoms) > 0 {
		return p.fail(ErrTree, "ROOT after atoms of a rigid molecule")
	}
	p.mol.Root = &Body{}
	p.stack = append(p.stack, p.mol.Root)
	p.brs = append(p.brs, nil)
	return nil
}

func (p *parser) endRoot() error {
	n := len(p.stack)
	if n != 1 || p.brs[0] != nil {
		return p.fail(ErrTree, "ENDROOT without ROOT")
	}
	if len(p.stack[0].Atoms()) == 0 {
		return p.fail(ErrTree, "empty ROOT")
	}
	p.stack, p.brs = p.stack[:0], p.brs[:0]
	return nil
}

func twoInts(line string) (int, int, bool) {
	f := strings.Fields(line)
	if len(f) != 3 {
		return 0, 0, false
	}
	a, err1 := strconv.Atoi(f[1])
	b, err2 := strconv.Atoi(f[2])
	return a, b, err1 == nil && err2 == nil
}

func (p *parser) branch(line string) error {
	a, b, ok := twoInts(line)
	if !ok {
		return p.fail(ErrSyntax, "bad BRANCH record %q", line)
	}
	m := p.mol
	if m == nil || p.done || m.Root == nil {
		return p.fail(ErrTree, "BRANCH outside a torsion tree")
	}
	if !p.serial[a] {
		return p.fail(ErrTree, "BRANCH %d %d: parent atom %d not seen before", a, b, a)
	}
	parent := m.Root
	if n := len(p.stack); n > 0 {
		parent = p.stack[n-1]
		if p.brs[n-1] == nil {
			return p.fail(ErrTree, "BRANCH inside ROOT")
		}
	}
	if len(p.stack) >= MaxBranchDepth { // the open branches (ROOT is closed by now)
		return p.fail(ErrTooLarge, "BRANCH nested deeper than %d", MaxBranchDepth)
	}
	br := &Branch{From: a, To: b}
	parent.Items = append(parent.Items, Item{Atom: -1, Branch: br})
	p.stack = append(p.stack, &br.Body)
	p.brs = append(p.brs, br)
	return nil
}

func (p *parser) endBranch(line string) error {
	a, b, ok := twoInts(line)
	if !ok {
		return p.fail(ErrSyntax, "bad ENDBRANCH record %q", line)
	}
	n := len(p.stack)
	if n == 0 || p.brs[n-1] == nil {
		return p.fail(ErrTree, "ENDBRANCH %d %d without BRANCH", a, b)
	}
	br := p.brs[n-1]
	if br.From != a || br.To != b {
		return p.fail(ErrTree, "ENDBRANCH %d %d closes BRANCH %d %d", a, b, br.From, br.To)
	}
	// Meeko writes the moving atom first; Open Babel may not. Vina only
	// needs it to be one of the branch's own atoms.
	found := false
	for _, i := range br.Atoms() {
		found = found || p.mol.Atoms[i].Serial == b
	}
	if !found {
		return p.fail(ErrTree, "BRANCH %d %d: atom %d is not in the branch", a, b, b)
	}
	p.stack, p.brs = p.stack[:n-1], p.brs[:n-1]
	return nil
}

func (p *parser) torsdof(line string) error {
	f := strings.Fields(line)
	if len(f) < 2 {
		return p.fail(ErrSyntax, "TORSDOF without a value")
	}
	v, err := strconv.Atoi(f[1])
	if err != nil || v < 0 {
		return p.fail(ErrSyntax, "bad TORSDOF %q", f[1])
	}
	if p.mol == nil || p.mol.Root == nil || len(p.stack) > 0 {
		return p.fail(ErrTree, "TORSDOF outside a closed torsion tree")
	}
	p.mol.TorsDOF = v
	if p.mol.Residue == "" {
		p.done = true
	}
	return nil
}

func (p *parser) beginRes(line string) error {
	if len(p.stack) > 0 {
		return p.fail(ErrTree, "BEGIN_RES inside a torsion tree")
	}
	p.startMol()
	p.mol.Residue = strings.Join(strings.Fields(line)[1:], " ")
	if p.mol.Residue == "" {
		p.mol.Residue = "?"
	}
	return nil
}

func (p *parser) endRes() error {
	if p.mol == nil || p.mol.Residue == "" || len(p.stack) > 0 {
		return p.fail(ErrTree, "END_RES without BEGIN_RES or with an open tree")
	}
	p.done = true
	return nil
}
