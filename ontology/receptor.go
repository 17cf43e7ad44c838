package ontology

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Errors of the receptor mapping.
var (
	// ErrInvalidReceptorRecord: a receptor record or its quads hold a value
	// of the wrong type or form.
	ErrInvalidReceptorRecord = errors.New("invalid receptor record")
	// ErrNoReceptor: the quads hold no (or more than one) mg:Receptor node.
	ErrNoReceptor = errors.New("no receptor in quads")
)

// ReceptorRecord is the JSON record of a receptor (spec/API.md, Docking):
// a projection of its named graph. Links are added by the HTTP layer.
type ReceptorRecord struct {
	// ID is the receptor's id ("rec-…") and IRI its resource IRI; both are
	// ignored by ReceptorQuads (the id is an argument) and set by
	// ReceptorFromQuads.
	ID   string `json:"id"`
	IRI  string `json:"iri"`
	Name string `json:"name,omitempty"`
	// Format is the uploaded format: "pdb" (prepared here) or "pdbqt"
	// (used as uploaded). Stored as the source file's mg:mediaType.
	Format   string `json:"format"`
	Atoms    int    `json:"atoms"`    // atoms of the prepared PDBQT (heavy + polar H)
	Residues int    `json:"residues"` // distinct (chain, number, insertion code)
	Chains   int    `json:"chains"`
	// Pockets are the detected pockets, best first (p1, p2, ...).
	Pockets []ReceptorPocket `json:"pockets"`
	// Source is the uploaded file, Prepared the docking-ready PDBQT (the
	// same blob as Source for a PDBQT upload).
	Source   ReceptorFile `json:"source"`
	Prepared ReceptorFile `json:"prepared"`
	// Preparation is how a PDB upload became the PDBQT: the route, the
	// pH and each program run (nil for a PDBQT upload, used as is).
	Preparation *ReceptorPreparation `json:"preparation,omitempty"`
	// Warnings about the preparation (removed residues, missing polar H),
	// sorted and without duplicates.
	Warnings  []string  `json:"warnings,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// ReceptorPocket is one detected binding site: a box in Å and its score.
type ReceptorPocket struct {
	ID     string     `json:"id"` // "p1" is the best ranked
	Rank   int        `json:"rank"`
	Center [3]float64 `json:"center"`
	Size   [3]float64 `json:"size"`
	Score  float64    `json:"score"`
}

// ReceptorFile describes a blob of a receptor.
type ReceptorFile struct {
	Filename  string `json:"filename,omitempty"`
	SHA256    string `json:"sha256"` // lower-case hex
	Bytes     int64  `json:"bytes"`
	MediaType string `json:"media_type"`
}

// ReceptorPreparation is the provenance of a prepared receptor.
type ReceptorPreparation struct {
	// Route is the route taken: "pdb2pqr" (PDB2PQR with PROPKA at PH, then
	// Open Babel without adding hydrogens) or "obabel" (Open Babel adds
	// the hydrogens; PH not applied).
	Route string `json:"route"`
	// PH is the pH the upload asked for.
	PH float64 `json:"ph"`
	// Fallback says why the pdb2pqr route was asked for and not taken.
	Fallback string `json:"fallback,omitempty"`
	// Steps are the program runs, in order.
	Steps []ReceptorStep `json:"steps"`
}

// ReceptorStep is one program run of a preparation.
type ReceptorStep struct {
	Tool    string `json:"tool"`              // e.g. "PDB2PQR", "Open Babel"
	Version string `json:"version,omitempty"` // e.g. "3.5.2 (PROPKA 3.5.0)", "3.1.1"
	// Arguments is the command line as run, the program name first (file
	// names relative to the run's private directory).
	Arguments []string `json:"arguments"`
}

// Media types of receptor files; the source file's type says which format
// was uploaded.
const (
	MediaTypePDB   = "chemical/x-pdb"
	MediaTypePDBQT = "chemical/x-pdbqt"
)

// Terms of the receptor mapping (declared in the TBox, "Receptors and
// pockets"; prov: terms are PROV-O).
var (
	mgReceptor     = quad.IRI(MG + "Receptor")
	mgPocket       = quad.IRI(MG + "Pocket")
	mgSourceFile   = quad.IRI(MG + "sourceFile")
	mgPreparedFile = quad.IRI(MG + "preparedFile")
	mgResidueCount = quad.IRI(MG + "residueCount")
	mgChainCount   = quad.IRI(MG + "chainCount")
	mgPocketProp   = quad.IRI(MG + "pocket")
	mgPocketID     = quad.IRI(MG + "pocketId")
	mgRank         = quad.IRI(MG + "rank")
	mgScore        = quad.IRI(MG + "score")
	mgCenter       = [3]quad.IRI{quad.IRI(MG + "centerX"), quad.IRI(MG + "centerY"), quad.IRI(MG + "centerZ")}
	mgSize         = [3]quad.IRI{quad.IRI(MG + "sizeX"), quad.IRI(MG + "sizeY"), quad.IRI(MG + "sizeZ")}
	mgVersion      = quad.IRI(MG + "version")
	rdfsComment    = quad.IRI(RDFS + "comment")
	provActivity   = quad.IRI(PROV + "Activity")
	mgRoute        = quad.IRI(MG + "preparationRoute")
	mgPH           = quad.IRI(MG + "pH")
	mgFallback     = quad.IRI(MG + "fallbackReason")
	mgPrepStep     = quad.IRI(MG + "preparationStep")
	mgStepPosition = quad.IRI(MG + "stepPosition")
	mgArguments    = quad.IRI(MG + "commandArguments")
	rdfSeq         = quad.IRI(RDF + "Seq")
)

// rdfMember is rdf:_n, the n-th member (1-based) of an rdf:Seq.
func rdfMember(n int) quad.IRI { return quad.IRI(RDF + "_" + strconv.Itoa(n)) }

// Bounds of a preparation record.
const (
	maxPrepSteps = 8
	maxPrepArgs  = 64
)

var pocketIDRE = regexp.MustCompile(`^p[1-9][0-9]*$`)

// ReceptorQuads maps a receptor record to quads in the named graph of the
// receptor R = <base>id/receptor/<id>. The layout (S the uploaded file's
// blob, P the prepared PDBQT's blob; S = P for a PDBQT upload):
//
//	R a mg:Receptor ; rdfs:label name ; mg:atomCount ; mg:residueCount ; mg:chainCount ;
//	  mg:sourceFile S ; mg:preparedFile P ; mg:pocket R#pocket-p1, R#pocket-p2 … ;
//	  prov:wasDerivedFrom S ; prov:generatedAtTime t ; prov:wasGeneratedBy R#preparation .
//	R#preparation a prov:Activity ; prov:used S ; rdfs:comment "warning" … ;
//	  mg:preparationRoute "pdb2pqr" ; mg:pH 7.4 ; mg:fallbackReason "…" ;
//	  mg:preparationStep R#preparation-step-1 … ;
//	  prov:wasAssociatedWith R#preparation-tool-1 … .
//	R#preparation-step-N a prov:Activity ; mg:stepPosition N ;
//	  prov:wasAssociatedWith R#preparation-tool-N ; mg:commandArguments R#preparation-step-N-args .
//	R#preparation-step-N-args a rdf:Seq ; rdf:_1 "pdb2pqr30" ; rdf:_2 "--ff=PARSE" … .
//	R#preparation-tool-N a prov:SoftwareAgent ; rdfs:label "PDB2PQR" ; mg:version "3.5.2 (PROPKA 3.5.0)" .
//	R#pocket-pN a mg:Pocket ; mg:pocketId "pN" ; mg:rank N ; mg:score ;
//	  mg:centerX/Y/Z ; mg:sizeX/Y/Z (Å).
//	S, P a mg:File ; mg:fileName ; mg:byteSize ; mg:sha256 ; mg:mediaType .
//
// The error wraps ErrInvalidReceptorRecord.
func ReceptorQuads(base, id string, rec *ReceptorRecord) ([]quad.Quad, error) {
	fail := func(format string, args ...any) ([]quad.Quad, error) {
		return nil, fmt.Errorf("ontology: receptor quads: "+format+": %w", append(args, ErrInvalidReceptorRecord)...)
	}
	switch {
	case rec == nil:
		return fail("nil record")
	case !validSegment(id):
		return fail("id %q", id)
	case rec.Atoms < 1 || rec.Residues < 1 || rec.Chains < 1:
		return fail("counts atoms %d, residues %d, chains %d must be >= 1", rec.Atoms, rec.Residues, rec.Chains)
	case !validHex64(rec.Source.SHA256):
		return fail("source sha256 %q", rec.Source.SHA256)
	case !validHex64(rec.Prepared.SHA256):
		return fail("prepared sha256 %q", rec.Prepared.SHA256)
	case rec.Source.Bytes < 0 || rec.Prepared.Bytes < 0:
		return fail("negative file size")
	case rec.CreatedAt.IsZero():
		return fail("no creation time")
	}
	if rec.Source.SHA256 == rec.Prepared.SHA256 && rec.Source != rec.Prepared {
		return fail("source and prepared files share a sha256 but differ")
	}
	if p := rec.Preparation; p != nil {
		switch {
		case p.Route != "pdb2pqr" && p.Route != "obabel":
			return fail("preparation route %q", p.Route)
		case !finite(p.PH) || p.PH < 0 || p.PH > 14:
			return fail("preparation pH %v", p.PH)
		case len(p.Steps) == 0 || len(p.Steps) > maxPrepSteps:
			return fail("%d preparation steps", len(p.Steps))
		}
		for i, st := range p.Steps {
			if st.Tool == "" || len(st.Arguments) == 0 || len(st.Arguments) > maxPrepArgs {
				return fail("preparation step %d: tool %q, %d arguments", i+1, st.Tool, len(st.Arguments))
			}
		}
	}
	for i, p := range rec.Pockets {
		if !pocketIDRE.MatchString(p.ID) || p.Rank < 1 {
			return fail("pocket %d: id %q, rank %d", i+1, p.ID, p.Rank)
		}
		for k := 0; k < 3; k++ {
			if !finite(p.Center[k]) || !finite(p.Size[k]) || p.Size[k] <= 0 {
				return fail("pocket %s: centre %v, size %v", p.ID, p.Center, p.Size)
			}
		}
		if !finite(p.Score) {
			return fail("pocket %s: score %v", p.ID, p.Score)
		}
		for _, q := range rec.Pockets[:i] {
			if q.ID == p.ID {
				return fail("pocket id %s twice", p.ID)
			}
		}
	}

	r := ResourceIRI(base, KindReceptor, id)
	m := &mapper{graph: r}
	m.add(r, RDFType, mgReceptor)
	if rec.Name != "" {
		m.add(r, rdfsLabel, String(rec.Name))
	}
	m.add(r, mgAtomCount, Integer(int64(rec.Atoms)))
	m.add(r, mgResidueCount, Integer(int64(rec.Residues)))
	m.add(r, mgChainCount, Integer(int64(rec.Chains)))
	src := BlobIRI(base, rec.Source.SHA256)
	prep := BlobIRI(base, rec.Prepared.SHA256)
	m.add(r, mgSourceFile, src)
	m.add(r, mgPreparedFile, prep)
	m.add(r, provWasDerivedFrom, src)
	m.add(r, provGeneratedAtTime, DateTime(rec.CreatedAt))
	act := SubIRI(r, "preparation")
	m.add(r, provWasGeneratedBy, act)
	pockets := slices.Clone(rec.Pockets)
	sort.SliceStable(pockets, func(i, j int) bool { return pockets[i].Rank < pockets[j].Rank })
	for _, p := range pockets {
		m.add(r, mgPocketProp, SubIRI(r, "pocket-"+p.ID))
	}

	m.add(act, RDFType, provActivity)
	m.add(act, provUsed, src)
	for _, w := range normalizedWarnings(rec.Warnings) {
		m.add(act, rdfsComment, String(w))
	}
	if p := rec.Preparation; p != nil {
		m.add(act, mgRoute, String(p.Route))
		m.add(act, mgPH, Double(p.PH))
		if p.Fallback != "" {
			m.add(act, mgFallback, String(p.Fallback))
		}
		for i, st := range p.Steps {
			n := strconv.Itoa(i + 1)
			step, agent, args := SubIRI(r, "preparation-step-"+n), SubIRI(r, "preparation-tool-"+n), SubIRI(r, "preparation-step-"+n+"-args")
			m.add(act, mgPrepStep, step)
			m.add(act, provWasAssociatedWith, agent)
			m.add(step, RDFType, provActivity)
			m.add(step, mgStepPosition, Integer(int64(i+1)))
			m.add(step, provWasAssociatedWith, agent)
			m.add(step, mgArguments, args)
			m.add(args, RDFType, rdfSeq)
			for k, a := range st.Arguments {
				m.add(args, rdfMember(k+1), String(a))
			}
			m.add(agent, RDFType, provSoftwareAgent)
			m.add(agent, rdfsLabel, String(st.Tool))
			if st.Version != "" {
				m.add(agent, mgVersion, String(st.Version))
			}
		}
	}

	for _, p := range pockets {
		n := SubIRI(r, "pocket-"+p.ID)
		m.add(n, RDFType, mgPocket)
		m.add(n, mgPocketID, String(p.ID))
		m.add(n, mgRank, Integer(int64(p.Rank)))
		m.add(n, mgScore, Double(p.Score))
		for k := 0; k < 3; k++ {
			m.add(n, mgCenter[k], Double(p.Center[k]))
		}
		for k := 0; k < 3; k++ {
			m.add(n, mgSize[k], Double(p.Size[k]))
		}
	}

	type blob struct {
		iri  quad.IRI
		file ReceptorFile
	}
	blobs := []blob{{src, rec.Source}}
	if prep != src {
		blobs = append(blobs, blob{prep, rec.Prepared})
	}
	for _, f := range blobs {
		m.add(f.iri, RDFType, mgFile)
		if f.file.Filename != "" {
			m.add(f.iri, mgFileName, String(f.file.Filename))
		}
		m.add(f.iri, mgByteSize, Integer(f.file.Bytes))
		m.add(f.iri, mgSHA256, String(f.file.SHA256))
		if f.file.MediaType != "" {
			m.add(f.iri, mgMediaType, String(f.file.MediaType))
		}
	}
	return m.grouped(), nil
}

// normalizedWarnings sorts and de-duplicates warnings (a graph is a set).
func normalizedWarnings(ws []string) []string {
	out := slices.Clone(ws)
	slices.Sort(out)
	return slices.Compact(out)
}

func finite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }

// ReceptorFromQuads reads a receptor record back from the quads of its named
// graph (as ReceptorQuads wrote them; graph labels are ignored). The
// receptor node is the one subject typed mg:Receptor; its id is the last
// path segment of its IRI. Errors wrap ErrNoReceptor or
// ErrInvalidReceptorRecord.
func ReceptorFromQuads(qs []quad.Quad) (ReceptorRecord, error) {
	var rec ReceptorRecord
	fail := func(format string, args ...any) (ReceptorRecord, error) {
		return ReceptorRecord{}, fmt.Errorf("ontology: receptor from quads: "+format+": %w", append(args, ErrInvalidReceptorRecord)...)
	}
	g := indexQuads(qs)
	var nodes []quad.IRI
	for _, s := range g.order {
		if iri, ok := s.(quad.IRI); ok && slices.Contains(g.objects(s, RDFType), quad.Value(mgReceptor)) {
			nodes = append(nodes, iri)
		}
	}
	if len(nodes) != 1 {
		return rec, fmt.Errorf("ontology: receptor from quads: %d receptor nodes: %w", len(nodes), ErrNoReceptor)
	}
	r := nodes[0]
	rd := reader{g: g}
	rec.IRI = string(r)
	rec.ID = string(r)[strings.LastIndexByte(string(r), '/')+1:]
	rec.Name = rd.str(r, rdfsLabel)
	count := func(p quad.IRI) int {
		v, ok := rd.integer(r, p)
		if !ok && rd.err == nil {
			rd.err = fmt.Errorf("%v: missing", p)
		}
		return int(v)
	}
	rec.Atoms, rec.Residues, rec.Chains = count(mgAtomCount), count(mgResidueCount), count(mgChainCount)
	if o, ok := g.object(r, provGeneratedAtTime).(quad.TypedString); ok && o.Type == XSDDateTime {
		t, err := time.Parse(time.RFC3339Nano, string(o.Value))
		if err != nil {
			return fail("generatedAtTime %q", o.Value)
		}
		rec.CreatedAt = t.UTC()
	} else {
		return fail("generatedAtTime missing or not an xsd:dateTime")
	}
	file := func(p quad.IRI) (ReceptorFile, error) {
		b, ok := g.object(r, p).(quad.IRI)
		if !ok {
			return ReceptorFile{}, fmt.Errorf("%v: missing", p)
		}
		n, _ := rd.integer(b, mgByteSize)
		return ReceptorFile{Filename: rd.str(b, mgFileName), SHA256: rd.str(b, mgSHA256), Bytes: n, MediaType: rd.str(b, mgMediaType)}, nil
	}
	var err error
	if rec.Source, err = file(mgSourceFile); err != nil {
		return fail("%v", err)
	}
	if rec.Prepared, err = file(mgPreparedFile); err != nil {
		return fail("%v", err)
	}
	switch rec.Source.MediaType {
	case MediaTypePDB:
		rec.Format = "pdb"
	case MediaTypePDBQT:
		rec.Format = "pdbqt"
	}

	if act, ok := g.object(r, provWasGeneratedBy).(quad.IRI); ok {
		for _, o := range g.objects(act, rdfsComment) {
			s, ok := stringOf(o)
			if !ok {
				return fail("warning %v", o)
			}
			rec.Warnings = append(rec.Warnings, s)
		}
		rec.Warnings = normalizedWarnings(rec.Warnings)
		if len(rec.Warnings) == 0 {
			rec.Warnings = nil
		}
		if route := rd.str(act, mgRoute); route != "" {
			if rec.Preparation, err = readPreparation(g, &rd, act, route); err != nil {
				return fail("%v", err)
			}
		} else if agent, ok := g.object(act, provWasAssociatedWith).(quad.IRI); ok {
			// A graph written before preparation routes (one Open Babel
			// agent with its command line as a comment).
			rec.Preparation = &ReceptorPreparation{Route: "obabel", PH: 7.4, Steps: []ReceptorStep{{
				Tool: rd.str(agent, rdfsLabel), Version: rd.str(agent, mgVersion), Arguments: strings.Fields(rd.str(agent, rdfsComment))}}}
		}
	}

	rec.Pockets = []ReceptorPocket{}
	for _, o := range g.objects(r, mgPocketProp) {
		n, ok := o.(quad.IRI)
		if !ok {
			return fail("pocket %v is not an IRI", o)
		}
		p := ReceptorPocket{ID: rd.str(n, mgPocketID)}
		rank, _ := rd.integer(n, mgRank)
		p.Rank = int(rank)
		p.Score, _ = rd.double(n, mgScore)
		for k := 0; k < 3; k++ {
			p.Center[k], _ = rd.double(n, mgCenter[k])
			p.Size[k], _ = rd.double(n, mgSize[k])
		}
		rec.Pockets = append(rec.Pockets, p)
	}
	sort.SliceStable(rec.Pockets, func(i, j int) bool {
		a, b := rec.Pockets[i], rec.Pockets[j]
		if a.Rank != b.Rank {
			return a.Rank < b.Rank
		}
		return pocketNumber(a.ID) < pocketNumber(b.ID)
	})
	if rd.err != nil {
		return fail("%v", rd.err)
	}
	return rec, nil
}

// readPreparation reads the route, pH, fallback and steps of the
// preparation activity act.
func readPreparation(g *quadIndex, rd *reader, act quad.IRI, route string) (*ReceptorPreparation, error) {
	p := &ReceptorPreparation{Route: route, Fallback: rd.str(act, mgFallback), Steps: []ReceptorStep{}}
	ph, ok := rd.double(act, mgPH)
	if !ok {
		return nil, fmt.Errorf("preparation without mg:pH")
	}
	p.PH = ph
	type step struct {
		pos int64
		st  ReceptorStep
	}
	var steps []step
	for _, o := range g.objects(act, mgPrepStep) {
		n, ok := o.(quad.IRI)
		if !ok || len(steps) >= maxPrepSteps {
			return nil, fmt.Errorf("preparation step %v", o)
		}
		pos, _ := rd.integer(n, mgStepPosition)
		agent, _ := g.object(n, provWasAssociatedWith).(quad.IRI)
		args, _ := g.object(n, mgArguments).(quad.IRI)
		st := ReceptorStep{Tool: rd.str(agent, rdfsLabel), Version: rd.str(agent, mgVersion), Arguments: []string{}}
		for k := 1; k <= maxPrepArgs; k++ {
			v := g.object(args, rdfMember(k))
			if v == nil {
				break
			}
			a, ok := stringOf(v)
			if !ok {
				return nil, fmt.Errorf("argument %d of step %d: %v", k, pos, v)
			}
			st.Arguments = append(st.Arguments, a)
		}
		steps = append(steps, step{pos, st})
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i].pos < steps[j].pos })
	for _, s := range steps {
		p.Steps = append(p.Steps, s.st)
	}
	return p, nil
}

// pocketNumber is N of "pN" (0 when malformed).
func pocketNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "p"))
	return n
}
