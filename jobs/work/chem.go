package work

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/ontology"
)

// KindChem is the kind of a batch chemistry unit: a run of records of one
// item block of a batch upload.
const KindChem = "chem"

// ChemInput is one record of a batch upload, as its spool holds it.
type ChemInput struct {
	Format     chem.Format `json:"f"`
	Content    string      `json:"c"`
	Name       string      `json:"n,omitempty"`
	Generate3D bool        `json:"g,omitempty"`
	// NoFingerprints: structure search is off (molgraph serve
	// --structure-search=false), so chem computes no fingerprints and no
	// pickle for the record. Set by the registry when it makes a unit, not
	// stored in the spool.
	NoFingerprints bool `json:"nofp,omitempty"`
}

// ChemTask is the body of a chemistry unit: the records First,
// First+1, ... of a batch job.
type ChemTask struct {
	First   int         `json:"first"`
	Records []ChemInput `json:"records"`
}

// Molecule is a molecule after chemistry, before storage: what the
// single writer needs to plan and write it, and nothing from the graph,
// so that it travels from a worker as it is (ChemOutcome).
type Molecule struct {
	// Rec has everything but CreatedAt and Structure.
	Rec ontology.MoleculeRecord `json:"rec"`
	// SDF is the 3D conformer as an SD record, nil without one.
	SDF []byte `json:"sdf,omitempty"`
	// CPU is the CPU time chem spent on the molecule.
	CPU time.Duration `json:"cpu"`
	// Fingerprints are the structure-search fingerprints of the same chem
	// call; nil if RDKit could not read the canonical SMILES back, or
	// without them (ChemInput.NoFingerprints).
	Fingerprints *chem.Fingerprints `json:"fp,omitempty"`
}

// ChemResult is the chemistry of one record: a molecule, or the message
// of the record's failure (an invalid structure).
type ChemResult struct {
	Molecule *Molecule `json:"mol,omitempty"`
	Error    string    `json:"err,omitempty"`
}

// ChemOutcome is the outcome body of a chemistry unit: one result per
// record of the task, in order.
type ChemOutcome struct {
	First   int          `json:"first"`
	Results []ChemResult `json:"results"`
}

// PrepareMolecule runs in through chem and builds its record. Content
// that is not a molecule is a *chem.MoleculeError wrapping
// chem.ErrInvalidMolecule. A molecule libinchi refuses has no InChI and is
// not validated (chem's "inchi" error), but is registered like any other
// (spec/API.md: a structure that parses but breaks a validation rule is
// stored with validated false).
func PrepareMolecule(ctx context.Context, pool *chem.Pool, in ChemInput) (*Molecule, error) {
	// The structure-search fingerprints come from the same chem call (one
	// parse, one cgo call: chem.Input.Fingerprints), unless search is off.
	res, err := pool.Process(ctx, chem.Input{Format: in.Format, Content: in.Content, Generate3D: in.Generate3D, Fingerprints: !in.NoFingerprints})
	if err != nil {
		return nil, err
	}
	m := moleculeOf(in, res)
	tm := res.Timing
	m.CPU = tm.Parse + tm.Normalize + tm.SMILES + tm.InChI + tm.Properties + tm.QED + tm.Coordinates + tm.Fingerprints
	m.Fingerprints = res.Fingerprints
	return m, nil
}

func moleculeOf(in ChemInput, res *chem.Result) *Molecule {
	rec := ontology.MoleculeRecord{
		ID:             ontology.MoleculeID(res.SMILES),
		SMILES:         res.SMILES,
		InChI:          res.InChI,
		InChIKey:       res.InChIKey,
		Formula:        res.Formula,
		MW:             res.MW,
		ExactMass:      res.ExactMass,
		LogP:           res.LogP,
		QED:            res.QED,
		TPSA:           res.TPSA,
		HBD:            res.HBD,
		HBA:            res.HBA,
		RotatableBonds: res.RotatableBonds,
		HeavyAtoms:     res.HeavyAtoms,
		AromaticRings:  res.AromaticRings,
		Validated:      res.Validated,
		Validation:     []ontology.MoleculeIssue{},
		Normalization:  append([]string{}, res.Normalization...),
		InputFormat:    string(in.Format),
		Name:           strings.TrimSpace(in.Name),
	}
	for _, is := range res.Validation {
		rec.Validation = append(rec.Validation, ontology.MoleculeIssue{Level: string(is.Level), Code: is.Code, Message: is.Message})
	}
	if rec.InChI == "" || rec.InChIKey == "" {
		// chem reports a refused InChI as an error issue; an InChI without
		// its key (libinchi failed on the key alone) is treated the same:
		// both identifiers or neither.
		if rec.InChI != "" {
			rec.Validation = append(rec.Validation, ontology.MoleculeIssue{Level: "error", Code: "inchi", Message: "no InChIKey could be computed"})
		}
		rec.InChI, rec.InChIKey, rec.Validated = "", "", false
	}
	ontology.SortMoleculeIssues(rec.Validation)
	ontology.SortNormalization(rec.Normalization)
	m := &Molecule{Rec: rec}
	if res.Has3D && res.Molfile != "" {
		m.SDF = sdRecord(rec.ID, res.Molfile)
		m.Rec.Has3D = true
	}
	return m
}

// sdRecord makes an SD record of a molfile, titled with the id.
func sdRecord(id, molfile string) []byte {
	_, rest, _ := strings.Cut(molfile, "\n")
	var b strings.Builder
	b.WriteString(id + "\n" + rest)
	if !strings.HasSuffix(rest, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("$$$$\n")
	return []byte(b.String())
}

// NotRecordsFault reports an error of chemistry that is not the record's
// fault (the pool closed, the run stopped): the record must be done again,
// never stored as failed.
func NotRecordsFault(err error) bool {
	return errors.Is(err, chem.ErrPoolClosed) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Chemistry runs the records of a task through pool, parallel at a time,
// and returns one result per record. An error that is not a record's
// fault (NotRecordsFault) ends it with that error.
func Chemistry(ctx context.Context, pool *chem.Pool, parallel int, t ChemTask) (ChemOutcome, error) {
	out := ChemOutcome{First: t.First, Results: make([]ChemResult, len(t.Records))}
	errs := make([]error, len(t.Records))
	sem := make(chan struct{}, max(1, parallel))
	var wg sync.WaitGroup
	for i := range t.Records {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			m, err := PrepareMolecule(ctx, pool, t.Records[i])
			out.Results[i].Molecule = m
			if err != nil {
				out.Results[i].Error, errs[i] = err.Error(), err
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && NotRecordsFault(err) {
			return ChemOutcome{}, err
		}
	}
	return out, ctx.Err()
}

// MaxChemBody bounds the encoded body of a chemistry outcome: it travels
// in one NATS message (8 MiB at most).
const MaxChemBody = 6 << 20

// EncodeChemOutcome is the wire form of o: JSON, s2-compressed (the
// fingerprints and conformers of a hundred molecules compress ~3x;
// klauspost/compress is already a dependency of Badger and NATS).
func EncodeChemOutcome(o ChemOutcome) ([]byte, error) {
	var b bytes.Buffer
	w := s2.NewWriter(&b)
	if err := json.NewEncoder(w).Encode(o); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if b.Len() > MaxChemBody {
		return nil, fmt.Errorf("chemistry outcome of records %d..%d: %d bytes encoded, over %d", o.First, o.First+len(o.Results)-1, b.Len(), MaxChemBody)
	}
	return b.Bytes(), nil
}

// DecodeChemOutcome reads the wire form of a chemistry outcome, reading
// at most 64 MiB of JSON (a forged body cannot exhaust the writer).
func DecodeChemOutcome(body []byte) (ChemOutcome, error) {
	var o ChemOutcome
	r := io.LimitReader(s2.NewReader(bytes.NewReader(body)), 64<<20)
	if err := json.NewDecoder(r).Decode(&o); err != nil {
		return ChemOutcome{}, fmt.Errorf("chemistry outcome: %w", err)
	}
	return o, nil
}

// ChemEngine is the fingerprint of a chemistry executor: the molgraph
// build and the RDKit version the process runs (Debian's librdkit can be
// upgraded under a built binary), as one subject-safe token. Molecule ids
// come from RDKit's canonical SMILES, so a worker of another build or
// another RDKit never receives a unit.
func ChemEngine(build, rdkitVersion string) string {
	return engineToken("mg" + build + "-rdkit" + rdkitVersion + "-chem")
}

// ChemExecutor runs chemistry units from a queue through pool, parallel
// records at a time. A record's own failure is in the outcome; an error
// means the unit is to be run again (the pool closed, ctx ended).
func ChemExecutor(pool *chem.Pool, parallel int) queue.Executor {
	return func(ctx context.Context, u queue.Unit, runs int) ([]byte, error) {
		var t ChemTask
		if err := json.Unmarshal(u.Body, &t); err != nil {
			return nil, fmt.Errorf("%w: invalid chemistry unit %s: %v", queue.ErrFault, u.Key, err)
		}
		o, err := Chemistry(ctx, pool, parallel, t)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", queue.ErrFault, err)
		}
		return EncodeChemOutcome(o)
	}
}
