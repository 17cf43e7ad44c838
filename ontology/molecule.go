package ontology

import (
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Errors of the molecule mapping.
var (
	// ErrInvalidMoleculeRecord: a MoleculeRecord cannot be mapped (bad id,
	// missing identity, bad blob hash), or the quads of a molecule hold a
	// term that does not decode (a number that is not a number).
	ErrInvalidMoleculeRecord = errors.New("invalid molecule record")
	// ErrNoMolecule: the quads hold no mg:Molecule node (or more than one).
	ErrNoMolecule = errors.New("no molecule in quads")
)

// MoleculeIDPrefix starts every molecule id.
const MoleculeIDPrefix = "mol-"

// MoleculeRecord is a registered molecule as the graph stores it and as
// GET /v1/molecules/{id} returns it (spec/API.md, "Molecules"), without its
// links (the HTTP layer adds them). MoleculeQuads maps a record to the quads
// of its named graph and MoleculeFromQuads reads it back losslessly, up to
// order: Validation comes back sorted (errors first, then by code and
// message) and Normalization in pipeline order (sanitize, cleanup, largest
// organic fragment, neutralize; other steps after them, sorted), because RDF
// keeps no order.
type MoleculeRecord struct {
	// ID is "mol-" followed by 26 base32 digits of the SHA-256 of the
	// canonical isomeric SMILES (MoleculeID); IRI is set by
	// MoleculeFromQuads and ignored by MoleculeQuads.
	ID  string `json:"id"`
	IRI string `json:"iri"`

	SMILES   string `json:"smiles_canonical"`
	InChI    string `json:"inchi"`
	InChIKey string `json:"inchi_key"`
	Formula  string `json:"formula"`

	MW             float64 `json:"mw"`
	ExactMass      float64 `json:"exact_mass"`
	LogP           float64 `json:"logp"`
	QED            float64 `json:"qed"`
	TPSA           float64 `json:"tpsa"`
	HBD            int     `json:"hbd"`
	HBA            int     `json:"hba"`
	RotatableBonds int     `json:"rotatable_bonds"`
	HeavyAtoms     int     `json:"heavy_atoms"`
	AromaticRings  int     `json:"aromatic_rings"`

	Validated     bool            `json:"validated"`
	Validation    []MoleculeIssue `json:"validation"`
	Normalization []string        `json:"normalization"`

	Has3D       bool   `json:"has_3d"`
	InputFormat string `json:"input_format,omitempty"`
	Name        string `json:"name,omitempty"`
	// CreatedAt is when the molecule was first stored (UTC).
	CreatedAt time.Time `json:"created_at"`
	// Structure is the stored structure file (the 3D conformer as SDF), nil
	// when the molecule has none.
	Structure *MoleculeFile `json:"structure_file,omitempty"`
}

// MoleculeIssue is one validation finding (level "error" or "warning").
type MoleculeIssue struct {
	Level   string `json:"level"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// MoleculeFile is a structure file in the blob store.
type MoleculeFile struct {
	SHA256    string `json:"sha256"` // lower-case hex
	Bytes     int64  `json:"bytes"`
	MediaType string `json:"media_type,omitempty"`
	Filename  string `json:"filename,omitempty"`
}

// MoleculeID returns the content-addressed id of the molecule whose
// normalized structure has the canonical isomeric SMILES smiles: "mol-" and
// the first 130 bits of its SHA-256 in lower-case base32 (RFC 4648). The
// standard InChIKey is not used because it merges tautomers, which molgraph
// keeps apart.
func MoleculeID(smiles string) string {
	sum := sha256.Sum256([]byte(smiles))
	enc := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:])
	return MoleculeIDPrefix + strings.ToLower(enc[:26])
}

// Terms of the molecule mapping.
const (
	osSpecies           = quad.IRI(OS + "Species")
	mgInchi             = quad.IRI(MG + "inchi")
	mgMolecularWeight   = quad.IRI(MG + "molecularWeight")
	mgExactMass         = quad.IRI(MG + "exactMass")
	mgLogP              = quad.IRI(MG + "logP")
	mgQED               = quad.IRI(MG + "qed")
	mgTPSA              = quad.IRI(MG + "tpsa")
	mgHBD               = quad.IRI(MG + "hbd")
	mgHBA               = quad.IRI(MG + "hba")
	mgRotatableBonds    = quad.IRI(MG + "rotatableBonds")
	mgHeavyAtoms        = quad.IRI(MG + "heavyAtoms")
	mgAromaticRings     = quad.IRI(MG + "aromaticRings")
	mgValidated         = quad.IRI(MG + "validated")
	mgValidationMessage = quad.IRI(MG + "validationMessage")
	mgNormalization     = quad.IRI(MG + "normalization")
	mgHas3D             = quad.IRI(MG + "has3D")
	mgInputFormat       = quad.IRI(MG + "inputFormat")
	mgStructureFile     = quad.IRI(MG + "structureFile")
	rdfsLabel           = quad.IRI(RDFS + "label")
	sioHasAttribute     = quad.IRI(SIO + "SIO_000008")
	sioHasValue         = quad.IRI(SIO + "SIO_000300")
	sioHasUnit          = quad.IRI(SIO + "SIO_000221")
	unitDalton          = quad.IRI(UNIT + "DA")
)

// The molecule class and the shortcut properties that lookups use.
const (
	MoleculeClass           = quad.IRI(MG + "Molecule")
	MoleculeInChIKey        = quad.IRI(MG + "inchiKey")
	MoleculeCanonicalSMILES = quad.IRI(MG + "canonicalSmiles")
)

// moleculeDescriptor is one PubChem-style descriptor node: its fragment
// under the molecule IRI, its class and unit.
type moleculeDescriptor struct {
	fragment string
	class    quad.IRI
	unit     quad.IRI
}

// MoleculeQuads maps a molecule record to the quads of its named graph
// <base>id/molecule/<rec.ID> (spec/GRAPH.md, "Molecules"): shortcut
// properties on the molecule node, PubChem-RDF descriptor nodes as hash IRIs
// under it, provenance, and the structure file. M is the molecule IRI, B the
// blob of the structure file:
//
// A molecule without a standard InChI (libinchi refused it; then it is
// not validated) has no mg:inchi, mg:inchiKey, M#inchi or M#inchikey.
//
//	M a mg:Molecule, os:Species ;
//	  mg:canonicalSmiles, mg:inchi, mg:inchiKey, mg:formula, mg:molecularWeight,
//	  mg:exactMass, mg:logP, mg:qed, mg:tpsa, mg:hbd, mg:hba, mg:rotatableBonds,
//	  mg:heavyAtoms, mg:aromaticRings, mg:validated, mg:validationMessage
//	  ("level: code: message"), mg:normalization, mg:has3D, mg:inputFormat,
//	  rdfs:label (the name), prov:generatedAtTime, mg:structureFile B ;
//	  sio:SIO_000008 M#mw, M#exact-mass, M#formula, M#smiles, M#inchi, M#inchikey,
//	      M#heavy-atoms, M#tpsa, M#hbd, M#hba, M#rotatable-bonds, M#logp, M#qed,
//	      M#aromatic-rings .
//	M#mw a sio:CHEMINF_000334 ; sio:SIO_000300 "180.159"^^xsd:double ; sio:SIO_000221 unit:DA .
//	B a mg:File ; mg:sha256 ; mg:byteSize ; mg:mediaType ; mg:fileName .
//
// rec.IRI is ignored. The error wraps ErrInvalidMoleculeRecord.
func MoleculeQuads(base string, rec *MoleculeRecord) ([]quad.Quad, error) {
	if rec == nil {
		return nil, fmt.Errorf("ontology: molecule quads: nil record: %w", ErrInvalidMoleculeRecord)
	}
	if !strings.HasPrefix(rec.ID, MoleculeIDPrefix) || !moleculeSegment(rec.ID) {
		return nil, fmt.Errorf("ontology: molecule quads: id %q: %w", rec.ID, ErrInvalidMoleculeRecord)
	}
	if rec.SMILES == "" || rec.Formula == "" {
		return nil, fmt.Errorf("ontology: molecule quads: %s: SMILES and formula are required: %w",
			rec.ID, ErrInvalidMoleculeRecord)
	}
	// A molecule libinchi refuses is stored without InChI, not validated
	// (spec/API.md): both identifiers or neither.
	if (rec.InChI == "") != (rec.InChIKey == "") {
		return nil, fmt.Errorf("ontology: molecule quads: %s: an InChI needs its InChIKey and vice versa: %w",
			rec.ID, ErrInvalidMoleculeRecord)
	}
	if rec.InChI == "" && rec.Validated {
		return nil, fmt.Errorf("ontology: molecule quads: %s: a molecule without InChI cannot be validated: %w",
			rec.ID, ErrInvalidMoleculeRecord)
	}
	for _, f := range []float64{rec.MW, rec.ExactMass, rec.LogP, rec.QED, rec.TPSA} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("ontology: molecule quads: %s: a descriptor is not finite: %w", rec.ID, ErrInvalidMoleculeRecord)
		}
	}
	for _, is := range rec.Validation {
		if is.Level == "" || strings.Contains(is.Level, ":") || is.Code == "" || strings.Contains(is.Code, ": ") {
			return nil, fmt.Errorf("ontology: molecule quads: %s: validation issue %+v: %w", rec.ID, is, ErrInvalidMoleculeRecord)
		}
	}
	if rec.Structure != nil && !validHex64(rec.Structure.SHA256) {
		return nil, fmt.Errorf("ontology: molecule quads: %s: structure file hash %q: %w", rec.ID, rec.Structure.SHA256, ErrInvalidMoleculeRecord)
	}

	m := ResourceIRI(base, KindMolecule, rec.ID)
	out := make([]quad.Quad, 0, 80)
	add := func(s, p quad.IRI, o quad.Value) {
		out = append(out, quad.Quad{Subject: s, Predicate: p, Object: o, Label: m})
	}
	add(m, RDFType, MoleculeClass)
	add(m, RDFType, osSpecies)
	add(m, MoleculeCanonicalSMILES, String(rec.SMILES))
	if rec.InChI != "" {
		add(m, mgInchi, String(rec.InChI))
		add(m, MoleculeInChIKey, String(rec.InChIKey))
	}
	add(m, mgFormula, String(rec.Formula))
	add(m, mgMolecularWeight, Double(rec.MW))
	add(m, mgExactMass, Double(rec.ExactMass))
	add(m, mgLogP, Double(rec.LogP))
	add(m, mgQED, Double(rec.QED))
	add(m, mgTPSA, Double(rec.TPSA))
	add(m, mgHBD, Integer(int64(rec.HBD)))
	add(m, mgHBA, Integer(int64(rec.HBA)))
	add(m, mgRotatableBonds, Integer(int64(rec.RotatableBonds)))
	add(m, mgHeavyAtoms, Integer(int64(rec.HeavyAtoms)))
	add(m, mgAromaticRings, Integer(int64(rec.AromaticRings)))
	add(m, mgValidated, Boolean(rec.Validated))
	for _, is := range rec.Validation {
		add(m, mgValidationMessage, String(is.Level+": "+is.Code+": "+is.Message))
	}
	for _, st := range rec.Normalization {
		add(m, mgNormalization, String(st))
	}
	add(m, mgHas3D, Boolean(rec.Has3D))
	if rec.InputFormat != "" {
		add(m, mgInputFormat, String(rec.InputFormat))
	}
	if rec.Name != "" {
		add(m, rdfsLabel, String(rec.Name))
	}
	add(m, provGeneratedAtTime, DateTime(rec.CreatedAt))

	type descValue struct {
		d moleculeDescriptor
		v quad.Value
	}
	descs := []descValue{
		{moleculeDescriptor{"mw", quad.IRI(SIO + "CHEMINF_000334"), unitDalton}, Double(rec.MW)},
		{moleculeDescriptor{"exact-mass", quad.IRI(SIO + "CHEMINF_000338"), unitDalton}, Double(rec.ExactMass)},
		{moleculeDescriptor{"formula", quad.IRI(SIO + "CHEMINF_000335"), ""}, String(rec.Formula)},
		{moleculeDescriptor{"smiles", quad.IRI(SIO + "CHEMINF_000376"), ""}, String(rec.SMILES)},
		{moleculeDescriptor{"inchi", quad.IRI(SIO + "CHEMINF_000396"), ""}, String(rec.InChI)},
		{moleculeDescriptor{"inchikey", quad.IRI(SIO + "CHEMINF_000399"), ""}, String(rec.InChIKey)},
		{moleculeDescriptor{"heavy-atoms", quad.IRI(SIO + "CHEMINF_000373"), ""}, Integer(int64(rec.HeavyAtoms))},
		{moleculeDescriptor{"tpsa", quad.IRI(SIO + "CHEMINF_000392"), ""}, Double(rec.TPSA)},
		{moleculeDescriptor{"hbd", quad.IRI(SIO + "CHEMINF_000387"), ""}, Integer(int64(rec.HBD))},
		{moleculeDescriptor{"hba", quad.IRI(SIO + "CHEMINF_000388"), ""}, Integer(int64(rec.HBA))},
		{moleculeDescriptor{"rotatable-bonds", quad.IRI(SIO + "CHEMINF_000389"), ""}, Integer(int64(rec.RotatableBonds))},
		{moleculeDescriptor{"logp", quad.IRI(MG + "CrippenLogP"), ""}, Double(rec.LogP)},
		{moleculeDescriptor{"qed", quad.IRI(MG + "QEDDescriptor"), ""}, Double(rec.QED)},
		{moleculeDescriptor{"aromatic-rings", quad.IRI(MG + "AromaticRingCount"), ""}, Integer(int64(rec.AromaticRings))},
	}
	if rec.InChI == "" {
		// no InChI: no InChI and InChIKey descriptors either
		descs = slices.DeleteFunc(descs, func(d descValue) bool {
			return d.d.fragment == "inchi" || d.d.fragment == "inchikey"
		})
	}
	for _, d := range descs {
		add(m, sioHasAttribute, SubIRI(m, d.d.fragment))
	}
	var b quad.IRI
	if f := rec.Structure; f != nil {
		b = BlobIRI(base, f.SHA256)
		add(m, mgStructureFile, b)
	}
	for _, d := range descs {
		n := SubIRI(m, d.d.fragment)
		add(n, RDFType, d.d.class)
		add(n, sioHasValue, d.v)
		if d.d.unit != "" {
			add(n, sioHasUnit, d.d.unit)
		}
	}
	if f := rec.Structure; f != nil {
		add(b, RDFType, mgFile)
		add(b, mgSHA256, String(f.SHA256))
		add(b, mgByteSize, Integer(f.Bytes))
		if f.MediaType != "" {
			add(b, mgMediaType, String(f.MediaType))
		}
		if f.Filename != "" {
			add(b, mgFileName, String(f.Filename))
		}
	}
	return out, nil
}

// MoleculeFromQuads reads a molecule record back from the quads of its named
// graph (as MoleculeQuads wrote them; graph labels are ignored). The values
// come from the shortcut properties. Errors wrap ErrNoMolecule (none or
// several mg:Molecule nodes) or ErrInvalidMoleculeRecord (a value of the
// wrong type or form, a missing identity).
func MoleculeFromQuads(qs []quad.Quad) (MoleculeRecord, error) {
	var rec MoleculeRecord
	sp := map[quad.Value]map[quad.IRI][]quad.Value{}
	var mols []quad.IRI
	for _, q := range qs {
		p, ok := q.Predicate.(quad.IRI)
		if !ok || q.Subject == nil || q.Object == nil {
			continue
		}
		m := sp[q.Subject]
		if m == nil {
			m = map[quad.IRI][]quad.Value{}
			sp[q.Subject] = m
		}
		m[p] = append(m[p], q.Object)
		if s, ok := q.Subject.(quad.IRI); ok && p == RDFType && q.Object == MoleculeClass {
			mols = append(mols, s)
		}
	}
	switch len(mols) {
	case 0:
		return rec, fmt.Errorf("ontology: molecule from quads: %w", ErrNoMolecule)
	case 1:
	default:
		return rec, fmt.Errorf("ontology: molecule from quads: %d molecule nodes: %w", len(mols), ErrNoMolecule)
	}
	m := mols[0]
	r := &molReader{props: sp[m], node: m}
	rec.IRI = string(m)
	rec.ID = string(m)[strings.LastIndexByte(string(m), '/')+1:]
	rec.SMILES = r.str(MoleculeCanonicalSMILES, true)
	rec.InChI = r.str(mgInchi, false) // absent when libinchi refused the molecule
	rec.InChIKey = r.str(MoleculeInChIKey, false)
	rec.Formula = r.str(mgFormula, true)
	rec.MW = r.double(mgMolecularWeight)
	rec.ExactMass = r.double(mgExactMass)
	rec.LogP = r.double(mgLogP)
	rec.QED = r.double(mgQED)
	rec.TPSA = r.double(mgTPSA)
	rec.HBD = r.integer(mgHBD)
	rec.HBA = r.integer(mgHBA)
	rec.RotatableBonds = r.integer(mgRotatableBonds)
	rec.HeavyAtoms = r.integer(mgHeavyAtoms)
	rec.AromaticRings = r.integer(mgAromaticRings)
	rec.Validated = r.boolean(mgValidated)
	rec.Has3D = r.boolean(mgHas3D)
	rec.InputFormat = r.str(mgInputFormat, false)
	rec.Name = r.str(rdfsLabel, false)
	rec.Validation = []MoleculeIssue{}
	for _, o := range r.props[mgValidationMessage] {
		s, ok := stringOf(o)
		level, rest, ok2 := strings.Cut(s, ": ")
		code, msg, ok3 := strings.Cut(rest, ": ")
		if !ok || !ok2 || !ok3 {
			r.fail(mgValidationMessage, o)
			continue
		}
		rec.Validation = append(rec.Validation, MoleculeIssue{Level: level, Code: code, Message: msg})
	}
	SortMoleculeIssues(rec.Validation)
	rec.Normalization = []string{}
	for _, o := range r.props[mgNormalization] {
		s, ok := stringOf(o)
		if !ok {
			r.fail(mgNormalization, o)
			continue
		}
		rec.Normalization = append(rec.Normalization, s)
	}
	SortNormalization(rec.Normalization)
	if o := r.one(provGeneratedAtTime); o != nil {
		ts, ok := o.(quad.TypedString)
		t, err := time.Parse(time.RFC3339Nano, string(ts.Value))
		if !ok || ts.Type != XSDDateTime || err != nil {
			r.fail(provGeneratedAtTime, o)
		}
		rec.CreatedAt = t.UTC()
	}
	if o := r.one(mgStructureFile); o != nil {
		b, ok := o.(quad.IRI)
		if !ok {
			r.fail(mgStructureFile, o)
		} else {
			br := &molReader{props: sp[b], node: b}
			f := &MoleculeFile{
				SHA256:    br.str(mgSHA256, true),
				Bytes:     int64(br.integer(mgByteSize)),
				MediaType: br.str(mgMediaType, false),
				Filename:  br.str(mgFileName, false),
			}
			if br.err == nil && !validHex64(f.SHA256) {
				br.fail(mgSHA256, String(f.SHA256))
			}
			if br.err != nil && r.err == nil {
				r.err = br.err
			}
			rec.Structure = f
		}
	}
	if r.err != nil {
		return rec, fmt.Errorf("ontology: molecule from quads: %w", r.err)
	}
	return rec, nil
}

// SortMoleculeIssues puts validation issues in the order MoleculeFromQuads
// returns them: errors first, then by code and message.
func SortMoleculeIssues(is []MoleculeIssue) {
	slices.SortStableFunc(is, func(a, b MoleculeIssue) int {
		if c := levelRank(a.Level) - levelRank(b.Level); c != 0 {
			return c
		}
		if c := strings.Compare(a.Code, b.Code); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

func levelRank(l string) int {
	if l == "error" {
		return 0
	}
	return 1
}

// SortNormalization puts normalization steps in the order MoleculeFromQuads
// returns them: chem's pipeline order (sanitize, cleanup, largest organic
// fragment, neutralize), then any other step, sorted.
func SortNormalization(steps []string) {
	slices.SortStableFunc(steps, func(a, b string) int {
		if c := stepRank(a) - stepRank(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

func stepRank(s string) int {
	for i, p := range []string{"sanitize", "cleanup", "largest organic fragment", "neutralize"} {
		if s == p || strings.HasPrefix(s, p+":") {
			return i
		}
	}
	return 4
}

// molReader decodes the literals of one node, remembering the first error.
type molReader struct {
	props map[quad.IRI][]quad.Value
	node  quad.IRI
	err   error
}

func (r *molReader) fail(p quad.IRI, o quad.Value) {
	if r.err == nil {
		r.err = fmt.Errorf("%v %v: unexpected value %v: %w", r.node, p, o, ErrInvalidMoleculeRecord)
	}
}

// one returns the single object of p (nil if none; several is an error).
func (r *molReader) one(p quad.IRI) quad.Value {
	os := r.props[p]
	if len(os) > 1 {
		r.fail(p, os[1])
	}
	if len(os) == 0 {
		return nil
	}
	return os[0]
}

func (r *molReader) str(p quad.IRI, required bool) string {
	o := r.one(p)
	if o == nil {
		if required && r.err == nil {
			r.err = fmt.Errorf("%v: missing %v: %w", r.node, p, ErrInvalidMoleculeRecord)
		}
		return ""
	}
	s, ok := stringOf(o)
	if !ok {
		r.fail(p, o)
	}
	return s
}

func (r *molReader) double(p quad.IRI) float64 {
	o := r.one(p)
	if o == nil {
		return 0
	}
	ts, ok := o.(quad.TypedString)
	if ok && (ts.Type == XSDDouble || ts.Type == XSDDecimal || ts.Type == XSDInteger) {
		if v, err := strconv.ParseFloat(string(ts.Value), 64); err == nil && !math.IsInf(v, 0) {
			return v
		}
	}
	r.fail(p, o)
	return 0
}

func (r *molReader) integer(p quad.IRI) int {
	o := r.one(p)
	if o == nil {
		return 0
	}
	if ts, ok := o.(quad.TypedString); ok && ts.Type == XSDInteger {
		if v, err := strconv.Atoi(string(ts.Value)); err == nil {
			return v
		}
	}
	r.fail(p, o)
	return 0
}

func (r *molReader) boolean(p quad.IRI) bool {
	o := r.one(p)
	if o == nil {
		return false
	}
	if ts, ok := o.(quad.TypedString); ok && ts.Type == XSDBoolean {
		switch ts.Value {
		case "true", "1":
			return true
		case "false", "0":
			return false
		}
	}
	r.fail(p, o)
	return false
}

// moleculeSegment reports whether id can be the last segment of a molecule
// IRI (ASCII letters, digits and "-_.~").
func moleculeSegment(id string) bool {
	if id == "" || id == "." || id == ".." {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~') {
			return false
		}
	}
	return true
}
