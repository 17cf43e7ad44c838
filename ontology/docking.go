package ontology

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// ErrInvalidDockingRecord: a docking job or pose record, or its quads, hold
// a value the mapping cannot write or read back.
var ErrInvalidDockingRecord = errors.New("invalid docking record")

// Terms of docking jobs and poses (TBox "Jobs"; shapes docking-job.ttl and
// pose.ttl).
const (
	DockingJobClass    = quad.IRI(MG + "DockingJob")
	DockingPoseClass   = quad.IRI(MG + "DockingPose")
	MGReceptor         = quad.IRI(MG + "receptor")
	MGLigand           = quad.IRI(MG + "ligand")
	MGPocketMethod     = quad.IRI(MG + "pocketMethod")
	MGExhaustiveness   = quad.IRI(MG + "exhaustiveness")
	MGNumModes         = quad.IRI(MG + "numModes")
	MGEnergyRange      = quad.IRI(MG + "energyRange")
	MGSeed             = quad.IRI(MG + "seed")
	MGTotalLigands     = quad.IRI(MG + "totalLigands")
	MGFinishedLigands  = quad.IRI(MG + "finishedLigands")
	MGFailedLigands    = quad.IRI(MG + "failedLigands")
	MGBestAffinity     = quad.IRI(MG + "bestAffinity")
	MGMode             = quad.IRI(MG + "mode")
	MGBindingAffinity  = quad.IRI(MG + "bindingAffinity")
	MGRMSDLowerBound   = quad.IRI(MG + "rmsdLowerBound")
	MGRMSDUpperBound   = quad.IRI(MG + "rmsdUpperBound")
	MGPoseFile         = quad.IRI(MG + "poseFile")
	MGErrorMessage     = quad.IRI(MG + "errorMessage")
	ProvUsed           = provUsed
	ProvWasGeneratedBy = provWasGeneratedBy
	ProvAssociatedWith = provWasAssociatedWith
	ProvSoftwareAgent  = provSoftwareAgent
	mgStatusTerm       = quad.IRI(MG + "status")
	mgCreatedAtTerm    = quad.IRI(MG + "createdAt")
	provStartedTerm    = quad.IRI(PROV + "startedAtTime")
	provEndedTerm      = quad.IRI(PROV + "endedAtTime")
)

// Terms of the stereoisomers a docking job docked (DockingIsomerQuads).
const (
	DockedStereoisomerClass = quad.IRI(MG + "DockedStereoisomer")
	MGStereoisomer          = quad.IRI(MG + "stereoisomer")
	MGIsomerIndex           = quad.IRI(MG + "isomerIndex")
	MGIsomericSmiles        = quad.IRI(MG + "isomericSmiles")
	MGIsomerInChIKey        = quad.IRI(MG + "isomerInChIKey")
	MGIsomerAffinity        = quad.IRI(MG + "isomerAffinity")
	MGStereoisomerCount     = quad.IRI(MG + "stereoisomerCount")
	// MGScoringFunction is a docking job's Vina scoring function.
	MGScoringFunction = quad.IRI(MG + "scoringFunction")
	// MGPH on a docking job is the pH its ligands were protonated at (the
	// receptor preparation's mg:pH); a job without it docked them as
	// registered.
	MGPH = quad.IRI(MG + "pH")
)

// MediaTypeSDF is the media type of pose files.
const MediaTypeSDF = "chemical/x-mdl-sdfile"

// DockingSettings are the parameters of a docking job as its node states
// them: the pocket (method and box) and Vina's search settings.
type DockingSettings struct {
	PocketMethod   string     `json:"-"` // "auto", "pN" or "box"
	Center         [3]float64 `json:"-"`
	Size           [3]float64 `json:"-"`
	Exhaustiveness int        `json:"exhaustiveness"`
	NumModes       int        `json:"num_modes"`
	EnergyRange    float64    `json:"energy_range"`
	Seed           int64      `json:"seed"`
	// Scoring is Vina's scoring function, vina or vinardo ("" in jobs
	// made before it was recorded: vina).
	Scoring string `json:"scoring,omitempty"`
	// LigandPH is the pH ligands are protonated at before docking
	// (chem.Protonate); nil: docked as registered (and in jobs made before
	// ligands were protonated).
	LigandPH *float64 `json:"ligand_ph"`
}

// DockingProgress are the counters of a docking job; BestAffinity is nil
// until a ligand has been docked.
type DockingProgress struct {
	Total, Finished, Failed int
	BestAffinity            *float64
}

// DockingStatements returns the statements (predicate, object) about a
// docking job node for its settings and progress, in a fixed order; the job
// runner stores them as the job's properties. The error wraps
// ErrInvalidDockingRecord for values the shape forbids.
func DockingStatements(s DockingSettings, p DockingProgress) ([][2]quad.Value, error) {
	bad := func(format string, args ...any) ([][2]quad.Value, error) {
		return nil, fmt.Errorf("ontology: docking statements: "+format+": %w", append(args, ErrInvalidDockingRecord)...)
	}
	if s.PocketMethod != "auto" && s.PocketMethod != "box" && !pocketIDRE.MatchString(s.PocketMethod) {
		return bad("pocket method %q", s.PocketMethod)
	}
	for i := range 3 {
		if !finite(s.Center[i]) || !finite(s.Size[i]) || s.Size[i] <= 0 {
			return bad("box %v %v", s.Center, s.Size)
		}
	}
	if s.Exhaustiveness < 1 || s.Exhaustiveness > 64 || s.NumModes < 1 || s.NumModes > 20 ||
		!(s.EnergyRange > 0 && s.EnergyRange <= 10) {
		return bad("parameters out of bounds")
	}
	if s.Scoring != "" && s.Scoring != "vina" && s.Scoring != "vinardo" {
		return bad("scoring %q", s.Scoring)
	}
	if s.LigandPH != nil && !(*s.LigandPH >= 0 && *s.LigandPH <= 14) {
		return bad("ligand pH %v", *s.LigandPH)
	}
	if p.Total < 1 || p.Finished < 0 || p.Failed < 0 || p.Finished > p.Total || p.Failed > p.Total {
		return bad("counters %d/%d/%d", p.Finished, p.Failed, p.Total)
	}
	out := [][2]quad.Value{
		{MGPocketMethod, String(s.PocketMethod)},
		{MGExhaustiveness, Integer(int64(s.Exhaustiveness))},
		{MGNumModes, Integer(int64(s.NumModes))},
		{MGEnergyRange, Double(s.EnergyRange)},
		{MGSeed, Integer(s.Seed)},
	}
	if s.Scoring != "" {
		out = append(out, [2]quad.Value{MGScoringFunction, String(s.Scoring)})
	}
	if s.LigandPH != nil {
		out = append(out, [2]quad.Value{MGPH, Double(*s.LigandPH)})
	}
	for i := range 3 {
		out = append(out, [2]quad.Value{mgCenter[i], Double(s.Center[i])}, [2]quad.Value{mgSize[i], Double(s.Size[i])})
	}
	out = append(out,
		[2]quad.Value{MGTotalLigands, Integer(int64(p.Total))},
		[2]quad.Value{MGFinishedLigands, Integer(int64(p.Finished))},
		[2]quad.Value{MGFailedLigands, Integer(int64(p.Failed))})
	if p.BestAffinity != nil {
		if !finite(*p.BestAffinity) {
			return bad("best affinity %v", *p.BestAffinity)
		}
		out = append(out, [2]quad.Value{MGBestAffinity, Double(*p.BestAffinity)})
	}
	return out, nil
}

// DockingInputsQuads are the statements of a job's inputs graph: the
// receptor and ligands it uses (mg:receptor, mg:ligand, each also
// prov:used) and the engine it is associated with (a prov:SoftwareAgent
// with label and version, node agent).
func DockingInputsQuads(job, receptor quad.IRI, ligands []quad.IRI, agent quad.IRI, engine, version string) []quad.Quad {
	out := make([]quad.Quad, 0, 6+2*len(ligands))
	add := func(s, p quad.IRI, o quad.Value) { out = append(out, quad.Quad{Subject: s, Predicate: p, Object: o}) }
	add(job, MGReceptor, receptor)
	add(job, ProvUsed, receptor)
	for _, l := range ligands {
		add(job, MGLigand, l)
		add(job, ProvUsed, l)
	}
	add(job, ProvAssociatedWith, agent)
	add(agent, RDFType, ProvSoftwareAgent)
	add(agent, rdfsLabel, String(engine))
	add(agent, mgVersion, String(version))
	return out
}

// DockingJobRecord is a docking job projected from its quads (the job graph
// and its inputs graph).
type DockingJobRecord struct {
	IRI       quad.IRI
	Status    string
	CreatedAt time.Time
	StartedAt *time.Time
	EndedAt   *time.Time
	Error     string
	Receptor  quad.IRI
	Ligands   []quad.IRI // in IRI order
	Settings  DockingSettings
	Progress  DockingProgress
	Engine    string
	Version   string
}

// DockingJobFromQuads reads a docking job back from the quads of its graphs.
// Errors wrap ErrInvalidDockingRecord.
func DockingJobFromQuads(qs []quad.Quad) (DockingJobRecord, error) {
	var r DockingJobRecord
	bad := func(format string, args ...any) (DockingJobRecord, error) {
		return DockingJobRecord{}, fmt.Errorf("ontology: docking job from quads: "+format+": %w", append(args, ErrInvalidDockingRecord)...)
	}
	for _, q := range qs {
		if q.Predicate == RDFType && q.Object == DockingJobClass {
			s, ok := q.Subject.(quad.IRI)
			if !ok || (r.IRI != "" && r.IRI != s) {
				return bad("job node %v", q.Subject)
			}
			r.IRI = s
		}
	}
	if r.IRI == "" {
		return bad("no mg:DockingJob node")
	}
	var agent quad.IRI
	for _, q := range qs {
		if q.Subject != r.IRI {
			continue
		}
		var err error
		switch q.Predicate {
		case mgStatusTerm:
			r.Status, err = dkString(q.Object)
		case mgCreatedAtTerm:
			r.CreatedAt, err = timeOf(q.Object)
		case provStartedTerm, provEndedTerm:
			var t time.Time
			if t, err = timeOf(q.Object); err == nil {
				if q.Predicate == provStartedTerm {
					r.StartedAt = &t
				} else {
					r.EndedAt = &t
				}
			}
		case MGErrorMessage:
			r.Error, err = dkString(q.Object)
		case MGReceptor:
			r.Receptor, err = iriOf(q.Object)
		case MGLigand:
			var l quad.IRI
			if l, err = iriOf(q.Object); err == nil {
				r.Ligands = append(r.Ligands, l)
			}
		case ProvAssociatedWith:
			agent, err = iriOf(q.Object)
		case MGPocketMethod:
			r.Settings.PocketMethod, err = dkString(q.Object)
		case MGExhaustiveness:
			r.Settings.Exhaustiveness, err = intOf(q.Object)
		case MGNumModes:
			r.Settings.NumModes, err = intOf(q.Object)
		case MGEnergyRange:
			r.Settings.EnergyRange, err = doubleOf(q.Object)
		case MGSeed:
			var n int
			n, err = intOf(q.Object)
			r.Settings.Seed = int64(n)
		case MGScoringFunction:
			r.Settings.Scoring, err = dkString(q.Object)
		case MGPH:
			var f float64
			if f, err = doubleOf(q.Object); err == nil {
				r.Settings.LigandPH = &f
			}
		case MGTotalLigands:
			r.Progress.Total, err = intOf(q.Object)
		case MGFinishedLigands:
			r.Progress.Finished, err = intOf(q.Object)
		case MGFailedLigands:
			r.Progress.Failed, err = intOf(q.Object)
		case MGBestAffinity:
			var f float64
			if f, err = doubleOf(q.Object); err == nil {
				r.Progress.BestAffinity = &f
			}
		default:
			for i := range 3 {
				switch q.Predicate {
				case mgCenter[i]:
					r.Settings.Center[i], err = doubleOf(q.Object)
				case mgSize[i]:
					r.Settings.Size[i], err = doubleOf(q.Object)
				}
			}
		}
		if err != nil {
			return bad("%v %v: %v", q.Predicate, q.Object, err)
		}
	}
	for _, q := range qs {
		if agent != "" && q.Subject == agent {
			switch q.Predicate {
			case rdfsLabel:
				r.Engine, _ = dkString(q.Object)
			case mgVersion:
				r.Version, _ = dkString(q.Object)
			}
		}
	}
	slices.Sort(r.Ligands)
	r.Ligands = slices.Compact(r.Ligands)
	if r.Status == "" {
		return bad("no status")
	}
	return r, nil
}

// DockingPoseRecord is one binding mode of one ligand.
type DockingPoseRecord struct {
	Ligand   quad.IRI
	Mode     int
	Affinity float64 // kcal/mol
	RMSDLB   float64
	RMSDUB   float64
	// File is the pose SDF in the blob store (FileIRI its node).
	File    ReceptorFile
	FileIRI quad.IRI
	// Receptor is the receptor IRI its Interactions' residues belong to;
	// Interactions is the pose's fingerprint (docking/interact), one entry
	// per (residue, type).
	Receptor     quad.IRI
	Interactions []PoseInteraction
	// Isomer is the DockingIsomer.Index of the stereoisomer docked (the
	// SDF is that isomer); 0 when not recorded.
	Isomer int
	// Valid is the verdict of the pose checks, nil when the pose was not
	// checked (a job from before the checks, a ligand too large for
	// them); Checks their outcomes.
	Valid  *bool
	Checks []PoseCheck
	// CheckError says why the pose was not checked ("" when it was).
	CheckError string
}

// DockingIsomer is one stereoisomer of a ligand that a docking job docked
// as its own Vina run (the ligand itself when its stereo is specified):
// node <result>#isomer-<Index>.
type DockingIsomer struct {
	Ligand   quad.IRI
	Index    int // 1-based, in enumeration order (chem.Stereoisomers)
	SMILES   string
	InChIKey string
	Affinity *float64 // its best mode, kcal/mol; nil when it failed
	Error    string
	// Total is the ligand's number of stereoisomers before the cap.
	Total int
}

// IsomerIRI mints the IRI of stereoisomer k of a ligand's result node r.
func IsomerIRI(r quad.IRI, k int) quad.IRI { return SubIRI(r, "isomer-"+strconv.Itoa(k)) }

// DockingIsomerQuads maps the stereoisomers docked for one ligand (result
// node r) to quads: <r>#isomer-K a mg:DockedStereoisomer ; mg:ligand ;
// mg:isomerIndex K ; mg:isomericSmiles ; mg:isomerInChIKey ;
// mg:stereoisomerCount ; mg:isomerAffinity or mg:errorMessage ;
// prov:wasGeneratedBy job. Errors wrap ErrInvalidDockingRecord.
func DockingIsomerQuads(r, job quad.IRI, isomers []DockingIsomer) ([]quad.Quad, error) {
	var out []quad.Quad
	add := func(s, p quad.IRI, o quad.Value) { out = append(out, quad.Quad{Subject: s, Predicate: p, Object: o}) }
	for _, iso := range isomers {
		if iso.Ligand == "" || iso.Index < 1 || iso.SMILES == "" || iso.Total < 1 ||
			(iso.Affinity == nil) == (iso.Error == "") || (iso.Affinity != nil && !finite(*iso.Affinity)) {
			return nil, fmt.Errorf("ontology: docking isomer quads: %w: isomer %+v", ErrInvalidDockingRecord, iso)
		}
		n := IsomerIRI(r, iso.Index)
		add(n, RDFType, DockedStereoisomerClass)
		add(n, MGLigand, iso.Ligand)
		add(n, MGIsomerIndex, Integer(int64(iso.Index)))
		add(n, MGIsomericSmiles, String(iso.SMILES))
		if iso.InChIKey != "" {
			add(n, MGIsomerInChIKey, String(iso.InChIKey))
		}
		add(n, MGStereoisomerCount, Integer(int64(iso.Total)))
		if iso.Affinity != nil {
			add(n, MGIsomerAffinity, Double(*iso.Affinity))
		} else {
			add(n, MGErrorMessage, String(iso.Error))
		}
		add(n, ProvWasGeneratedBy, job)
	}
	return out, nil
}

// DockingIsomersFromQuads reads the stereoisomers of one ligand's result
// quads, by index. Errors wrap ErrInvalidDockingRecord.
func DockingIsomersFromQuads(qs []quad.Quad) ([]DockingIsomer, error) {
	byNode := map[quad.Value]*DockingIsomer{}
	for _, q := range qs {
		if q.Predicate == RDFType && q.Object == DockedStereoisomerClass {
			byNode[q.Subject] = &DockingIsomer{}
		}
	}
	if len(byNode) == 0 {
		return nil, nil
	}
	for _, q := range qs {
		iso := byNode[q.Subject]
		if iso == nil {
			continue
		}
		var err error
		switch q.Predicate {
		case MGLigand:
			iso.Ligand, err = iriOf(q.Object)
		case MGIsomerIndex:
			iso.Index, err = intOf(q.Object)
		case MGIsomericSmiles:
			iso.SMILES, err = dkString(q.Object)
		case MGIsomerInChIKey:
			iso.InChIKey, err = dkString(q.Object)
		case MGStereoisomerCount:
			iso.Total, err = intOf(q.Object)
		case MGIsomerAffinity:
			var f float64
			if f, err = doubleOf(q.Object); err == nil {
				iso.Affinity = &f
			}
		case MGErrorMessage:
			iso.Error, err = dkString(q.Object)
		}
		if err != nil {
			return nil, fmt.Errorf("ontology: docking isomers from quads: %w: %v %v", ErrInvalidDockingRecord, q.Predicate, q.Object)
		}
	}
	out := make([]DockingIsomer, 0, len(byNode))
	for n, iso := range byNode {
		if iso.Index < 1 || iso.SMILES == "" {
			return nil, fmt.Errorf("ontology: docking isomers from quads: %w: incomplete isomer %v", ErrInvalidDockingRecord, n)
		}
		out = append(out, *iso)
	}
	slices.SortFunc(out, func(a, b DockingIsomer) int { return a.Index - b.Index })
	return out, nil
}

// PoseCheck is the outcome of one validity check of a pose (the checks of
// chem.PoseCheckSpecs): Pass and Value nil when not computed (Value also
// for a check without a number).
type PoseCheck struct {
	Name  string
	Pass  *bool
	Value *float64
}

// PoseCheckNames are the checks the graph has terms for, in report order
// (the names of chem.PoseCheckSpecs; a test keeps both equal).
func PoseCheckNames() []string {
	return []string{"bond_lengths", "bond_angles", "internal_clash", "aromatic_ring_flatness",
		"double_bond_flatness", "stereo_inchikey", "protein_clash", "energy_ratio"}
}

// PoseCheckTerms returns the predicates of check name on a pose:
// mg:<name in camel case>Passed (xsd:boolean) and mg:<...>Value
// (xsd:double), e.g. mg:bondLengthsPassed and mg:bondLengthsValue.
// Direct predicates rather than a node per check keep a pose's checks at
// 17 quads (a results graph of 32 ligands x 20 modes must stay within one
// commit).
func PoseCheckTerms(name string) (passed, value quad.IRI) {
	var b strings.Builder
	up := false
	for _, r := range name {
		switch {
		case r == '_':
			up = true
		case up:
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return quad.IRI(MG + b.String() + "Passed"), quad.IRI(MG + b.String() + "Value")
}

// MGPoseValid is the overall verdict of a pose's checks (xsd:boolean):
// true when every check was computed and passed.
const MGPoseValid = quad.IRI(MG + "poseValid")

// MGPoseCheckError says why a pose was not checked (xsd:string).
const MGPoseCheckError = quad.IRI(MG + "poseCheckError")

// DockingFailure is a ligand a job could not dock, with the reason.
type DockingFailure struct {
	Ligand quad.IRI
	Error  string
}

// PoseIRI mints the IRI of mode n of a ligand's result node r (the IRI of
// the ligand's result graph).
func PoseIRI(r quad.IRI, mode int) quad.IRI { return SubIRI(r, "mode-"+strconv.Itoa(mode)) }

// DockingResultQuads maps one ligand's outcome to the quads of its result
// graph r: each pose is <r>#mode-N a mg:DockingPose ; mg:ligand ; mg:mode ;
// mg:rank (= mode) ; mg:bindingAffinity ; mg:rmsdLowerBound ;
// mg:rmsdUpperBound ; mg:poseFile F ; prov:wasGeneratedBy job, and F a
// mg:File. A failure is <r>#failure mg:ligand ; mg:errorMessage ;
// prov:wasGeneratedBy job. Errors wrap ErrInvalidDockingRecord.
func DockingResultQuads(r, job quad.IRI, poses []DockingPoseRecord, failure *DockingFailure) ([]quad.Quad, error) {
	var out []quad.Quad
	add := func(s, p quad.IRI, o quad.Value) { out = append(out, quad.Quad{Subject: s, Predicate: p, Object: o}) }
	if failure != nil {
		if len(poses) > 0 || failure.Ligand == "" {
			return nil, fmt.Errorf("ontology: docking result quads: %w: a failure has a ligand and no poses", ErrInvalidDockingRecord)
		}
		f := SubIRI(r, "failure")
		add(f, MGLigand, failure.Ligand)
		add(f, MGErrorMessage, String(failure.Error))
		add(f, ProvWasGeneratedBy, job)
		return out, nil
	}
	residues := map[quad.IRI]bool{}
	for _, p := range poses {
		if p.Ligand == "" || p.Mode < 1 || !finite(p.Affinity) || !finite(p.RMSDLB) || !finite(p.RMSDUB) ||
			p.RMSDLB < 0 || p.RMSDLB > p.RMSDUB || p.FileIRI == "" || len(p.File.SHA256) != 64 {
			return nil, fmt.Errorf("ontology: docking result quads: %w: pose %+v", ErrInvalidDockingRecord, p)
		}
		n := PoseIRI(r, p.Mode)
		add(n, RDFType, DockingPoseClass)
		add(n, MGLigand, p.Ligand)
		add(n, MGMode, Integer(int64(p.Mode)))
		add(n, mgRank, Integer(int64(p.Mode)))
		add(n, MGBindingAffinity, Double(p.Affinity))
		add(n, MGRMSDLowerBound, Double(p.RMSDLB))
		add(n, MGRMSDUpperBound, Double(p.RMSDUB))
		add(n, MGPoseFile, p.FileIRI)
		if p.Isomer > 0 {
			add(n, MGStereoisomer, IsomerIRI(r, p.Isomer))
		}
		add(n, ProvWasGeneratedBy, job)
		add(p.FileIRI, RDFType, mgFile)
		add(p.FileIRI, mgSHA256, String(p.File.SHA256))
		add(p.FileIRI, mgByteSize, Integer(p.File.Bytes))
		add(p.FileIRI, mgMediaType, String(p.File.MediaType))
		if p.File.Filename != "" {
			add(p.FileIRI, mgFileName, String(p.File.Filename))
		}
		iq, err := interactionQuads(n, p.Receptor, p.Interactions, residues)
		if err != nil {
			return nil, err
		}
		out = append(out, iq...)
		if p.Valid != nil {
			add(n, MGPoseValid, Boolean(*p.Valid))
		}
		if p.CheckError != "" {
			add(n, MGPoseCheckError, String(p.CheckError))
		}
		for _, c := range p.Checks {
			if !slices.Contains(PoseCheckNames(), c.Name) || (c.Value != nil && !finite(*c.Value)) {
				return nil, fmt.Errorf("ontology: docking result quads: %w: pose check %q", ErrInvalidDockingRecord, c.Name)
			}
			passed, value := PoseCheckTerms(c.Name)
			if c.Pass != nil {
				add(n, passed, Boolean(*c.Pass))
			}
			if c.Value != nil {
				add(n, value, Double(*c.Value))
			}
		}
	}
	return out, nil
}

// DockingResultFromQuads reads the poses (by mode) or the failure of one
// ligand's result graph. Errors wrap ErrInvalidDockingRecord.
func DockingResultFromQuads(qs []quad.Quad) ([]DockingPoseRecord, *DockingFailure, error) {
	bySubj := map[quad.Value][]quad.Quad{}
	var poseNodes []quad.Value
	var failure *DockingFailure
	isomer := map[quad.Value]bool{} // a failed isomer's error is not the ligand's
	for _, q := range qs {
		if q.Predicate == RDFType && q.Object == DockedStereoisomerClass {
			isomer[q.Subject] = true
		}
	}
	for _, q := range qs {
		bySubj[q.Subject] = append(bySubj[q.Subject], q)
		if q.Predicate == RDFType && q.Object == DockingPoseClass {
			poseNodes = append(poseNodes, q.Subject)
		}
		if q.Predicate == MGErrorMessage && !isomer[q.Subject] {
			if failure == nil {
				failure = &DockingFailure{}
			}
			failure.Error, _ = dkString(q.Object)
			for _, q2 := range qs {
				if q2.Subject == q.Subject && q2.Predicate == MGLigand {
					failure.Ligand, _ = iriOf(q2.Object)
				}
			}
		}
	}
	checkOf := map[quad.Value]struct {
		name  string
		value bool
	}{}
	for _, name := range PoseCheckNames() {
		passed, value := PoseCheckTerms(name)
		checkOf[passed] = struct {
			name  string
			value bool
		}{name, false}
		checkOf[value] = struct {
			name  string
			value bool
		}{name, true}
	}
	var poses []DockingPoseRecord
	for _, n := range poseNodes {
		var p DockingPoseRecord
		var err error
		checks := map[string]*PoseCheck{}
		for _, q := range bySubj[n] {
			if c, ok := checkOf[q.Predicate]; ok {
				pc := checks[c.name]
				if pc == nil {
					pc = &PoseCheck{Name: c.name}
					checks[c.name] = pc
				}
				if c.value {
					var f float64
					if f, err = doubleOf(q.Object); err == nil {
						pc.Value = &f
					}
				} else {
					var b bool
					if b, err = boolOf(q.Object); err == nil {
						pc.Pass = &b
					}
				}
				if err != nil {
					return nil, nil, fmt.Errorf("ontology: docking result from quads: %w: %v %v", ErrInvalidDockingRecord, q.Predicate, q.Object)
				}
				continue
			}
			switch q.Predicate {
			case MGPoseCheckError:
				p.CheckError, err = dkString(q.Object)
			case MGPoseValid:
				var b bool
				if b, err = boolOf(q.Object); err == nil {
					p.Valid = &b
				}
			case MGLigand:
				p.Ligand, err = iriOf(q.Object)
			case MGMode:
				p.Mode, err = intOf(q.Object)
			case MGBindingAffinity:
				p.Affinity, err = doubleOf(q.Object)
			case MGRMSDLowerBound:
				p.RMSDLB, err = doubleOf(q.Object)
			case MGRMSDUpperBound:
				p.RMSDUB, err = doubleOf(q.Object)
			case MGPoseFile:
				p.FileIRI, err = iriOf(q.Object)
			case MGStereoisomer:
				var iso quad.IRI
				if iso, err = iriOf(q.Object); err == nil {
					_, k, _ := strings.Cut(string(iso), "#isomer-")
					p.Isomer, err = strconv.Atoi(k)
				}
			}
			if err != nil {
				return nil, nil, fmt.Errorf("ontology: docking result from quads: %w: %v %v", ErrInvalidDockingRecord, q.Predicate, q.Object)
			}
		}
		for _, q := range bySubj[p.FileIRI] {
			switch q.Predicate {
			case mgSHA256:
				p.File.SHA256, _ = dkString(q.Object)
			case mgByteSize:
				n, _ := intOf(q.Object)
				p.File.Bytes = int64(n)
			case mgMediaType:
				p.File.MediaType, _ = dkString(q.Object)
			case mgFileName:
				p.File.Filename, _ = dkString(q.Object)
			}
		}
		for _, name := range PoseCheckNames() {
			if c := checks[name]; c != nil {
				p.Checks = append(p.Checks, *c)
			}
		}
		if p.Mode < 1 || p.File.SHA256 == "" {
			return nil, nil, fmt.Errorf("ontology: docking result from quads: %w: incomplete pose %v", ErrInvalidDockingRecord, n)
		}
		p.Interactions = poseInteractions(bySubj[n], bySubj)
		poses = append(poses, p)
	}
	slices.SortFunc(poses, func(a, b DockingPoseRecord) int { return a.Mode - b.Mode })
	return poses, failure, nil
}

func dkString(v quad.Value) (string, error) {
	if s, ok := v.(quad.String); ok {
		return string(s), nil
	}
	return "", errors.New("not an xsd:string")
}

func boolOf(v quad.Value) (bool, error) {
	s, err := typed(v, XSDBoolean)
	if err != nil {
		return false, err
	}
	return strconv.ParseBool(s)
}

func iriOf(v quad.Value) (quad.IRI, error) {
	if s, ok := v.(quad.IRI); ok {
		return s, nil
	}
	return "", errors.New("not an IRI")
}

func typed(v quad.Value, t quad.IRI) (string, error) {
	ts, ok := v.(quad.TypedString)
	if !ok || ts.Type != t {
		return "", fmt.Errorf("not a %s literal", t)
	}
	return strings.TrimSpace(string(ts.Value)), nil
}

func intOf(v quad.Value) (int, error) {
	s, err := typed(v, XSDInteger)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(s)
}

func doubleOf(v quad.Value) (float64, error) {
	s, err := typed(v, XSDDouble)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, fmt.Errorf("bad double %q", s)
	}
	return f, nil
}

func timeOf(v quad.Value) (time.Time, error) {
	s, err := typed(v, XSDDateTime)
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339Nano, s)
}
