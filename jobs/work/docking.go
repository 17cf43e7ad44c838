package work

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/docking/interact"
	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// KindDock is the kind of a docking unit.
const KindDock = "dock"

// DockJob is what the units of one docking job share.
type DockJob struct {
	JobID      string    `json:"job_id"`      // the job's id (pose file tags and names)
	ReceptorID string    `json:"receptor_id"` // the receptor's id (pose file tags)
	Box        dk.Box    `json:"box"`
	Params     dk.Params `json:"params"`
	// LigandPH is the pH ligands are protonated at before docking
	// (chem.Protonate); nil: docked as registered.
	LigandPH *float64 `json:"ligand_ph,omitempty"`
}

// DockUnit is one ligand of a docking job: the molecule id, its position
// in the job's ligand order, the input its 3D structure is built from
// (the stored conformer's molfile, else the SMILES) and its registered
// canonical SMILES, whose stereoisomers are docked (see PrepareIsomers).
//
// The unit is the ligand, not the isomer: a ligand's isomers are docked
// one after the other by the executor that took it and the best is its
// one outcome. The commit keeps exactly one outcome per ligand (the
// queue's key, the resume set and the duplicate check are ligand ids),
// and choosing the best isomer needs all of them at once; isomer units
// would make the committer hold partial ligands (lost at a restart, or
// stored as a new kind of state). A screen has many ligands to spread
// over the slots, and a lone ligand gets all the cores (Batch's CPU
// policy).
type DockUnit struct {
	Job    string     `json:"job"` // the job IRI
	Ligand string     `json:"ligand"`
	Index  int        `json:"index"`
	Input  chem.Input `json:"input"`
	SMILES string     `json:"smiles,omitempty"`
}

// Pose is one docked mode with its reassembled SDF and its checks
// (chem.Pool.CheckPoses; none when they could not be run, CheckError says
// why).
type Pose struct {
	Mode     int     `json:"mode"`
	Affinity float64 `json:"affinity"`
	RMSDLB   float64 `json:"rmsd_lb"`
	RMSDUB   float64 `json:"rmsd_ub"`
	SDF      []byte  `json:"sdf"`
	// Interactions with the receptor (docking/interact) and the pose's
	// fingerprint; absent when the receptor's atoms or the ligand's
	// chemistry could not be read for them (the pose is kept).
	Interactions []interact.Interaction `json:"interactions,omitempty"`
	Fingerprint  []string               `json:"fingerprint,omitempty"`
	// Checks are the pose checks (chem.Pool.CheckPoses); CheckError says
	// why there are none.
	Checks     []chem.PoseCheck `json:"checks,omitempty"`
	CheckError string           `json:"check_error,omitempty"`
}

// checkPoses runs the pose checks on the poses of one ligand (structure s,
// the molecule docked; ref its energy reference, nil: built by the
// checks) against the receptor's heavy atoms and stores them in the
// poses. A ligand the checks refuse (too large) or cannot read keeps its
// poses, with CheckError set; only the end of ctx is an error. It returns
// the CPU the checks reported (seconds; 0 when they did not run).
func checkPoses(ctx context.Context, pool *chem.Pool, s *chem.Structure, receptor []chem.ReceptorAtom, poses []Pose, ref *chem.PoseReference) (float64, error) {
	var sdf []byte
	for _, p := range poses {
		sdf = append(sdf, p.SDF...)
	}
	r, err := pool.CheckPoses(ctx, s.SMILES, sdf, receptor, ref)
	if err == nil && len(r.Poses) != len(poses) {
		err = fmt.Errorf("chem: pose checks: %d reports for %d poses", len(r.Poses), len(poses))
	}
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		for i := range poses {
			poses[i].CheckError = err.Error()
		}
		return 0, nil
	}
	for i := range poses {
		poses[i].Checks = r.Poses[i]
	}
	return (r.SetupMicros + r.EnsembleMicros + r.PosesMicros) / 1e6, nil
}

// StageStats count where a Docker's time goes, summed over the ligands
// it docked (a job's /metrics, printed by make bench-docking): the wall
// time of ligand preparation (reading the input, stereoisomers,
// protonation, embedding, PDBQT), which a vina slot spends before its
// vina run; of the vina runs (and their CPU); of the post-processing (pose reassembly,
// interactions, checks), which runs beside the next vina run; and the
// CPU the pose checks report. The zero value is ready to use.
type StageStats struct {
	prep, vina, post atomic.Int64 // nanoseconds
	vinaCPU          atomic.Int64 // nanoseconds
	checkMicros      atomic.Int64
	runs             atomic.Int64
}

// Stages is a snapshot of StageStats.
type Stages struct {
	PrepSeconds, VinaSeconds, VinaCPUSeconds, PostSeconds, CheckCPUSeconds float64
	VinaRuns                                                               int64
}

// Snapshot reads the counters.
func (st *StageStats) Snapshot() Stages {
	return Stages{PrepSeconds: float64(st.prep.Load()) / 1e9, VinaSeconds: float64(st.vina.Load()) / 1e9, VinaCPUSeconds: float64(st.vinaCPU.Load()) / 1e9,
		PostSeconds: float64(st.post.Load()) / 1e9, CheckCPUSeconds: float64(st.checkMicros.Load()) / 1e6, VinaRuns: st.runs.Load()}
}

// Isomer is one stereoisomer of a ligand, docked as its own vina run:
// the canonical isomeric SMILES and standard InChIKey of the form docked
// (in the protonation state of the job's pH when it has one), and the
// affinity of its best mode or the reason it failed.
type Isomer struct {
	SMILES   string   `json:"smiles"`
	InChIKey string   `json:"inchi_key,omitempty"`
	Affinity *float64 `json:"affinity,omitempty"`
	Failure  string   `json:"failure,omitempty"`
}

// DockOutcome is the outcome of one docking unit: its poses, or the
// reason it failed (a failure of the ligand: vina error, timeout, a
// molecule RDKit refuses). Worker and Host say where it ran, Vina with
// which engine version. Isomers are the stereoisomers docked (one for a
// ligand whose stereo is specified), Isomer the 1-based position in
// Isomers of the one whose poses these are, StereoTotal the ligand's
// stereoisomers before the cap (chem.MaxStereoisomers).
type DockOutcome struct {
	Job         string   `json:"job"`
	Ligand      string   `json:"ligand"`
	Index       int      `json:"index"`
	Poses       []Pose   `json:"poses,omitempty"`
	Isomers     []Isomer `json:"isomers,omitempty"`
	Isomer      int      `json:"isomer,omitempty"`
	StereoTotal int      `json:"stereo_total,omitempty"`
	Failure     string   `json:"failure,omitempty"`
	Worker      string   `json:"worker,omitempty"`
	Host        string   `json:"host,omitempty"`
	Vina        string   `json:"vina,omitempty"`
}

// Docker is the pure docking executor: ligand inputs in, poses out. It
// never reads or writes the graph.
type Docker struct {
	Vina *dk.Vina
	Pool *chem.Pool
	// Worker and Host are copied into every outcome.
	Worker, Host string
	// Stages, when not nil, counts where the time goes.
	Stages *StageStats
}

// PrepareLigand builds a ligand's 3D structure from in (an ETKDG+MMFF
// embedding for a SMILES, the coordinates of a molfile) and its
// docking-ready PDBQT (docking.PrepareLigand).
func PrepareLigand(ctx context.Context, pool *chem.Pool, id string, in chem.Input) (*chem.Structure, []byte, error) {
	s, err := pool.Structure(ctx, in)
	if err != nil {
		return nil, nil, fmt.Errorf("ligand %s: %w", id, err)
	}
	data, err := dk.PrepareLigand(s, dk.LigandOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("ligand %s: %w", id, err)
	}
	return s, data, nil
}

// Poses reassembles every mode of a vina result of ligand id (structure s)
// into a Pose with its SDF and, when rec is not nil, its interactions with
// the receptor (also written to the SDF as the "interactions" tag, JSON).
func Poses(job DockJob, id string, s *chem.Structure, r *dk.Result, rec *interact.Receptor) ([]Pose, error) {
	if r == nil || len(r.Modes) == 0 {
		return nil, fmt.Errorf("ligand %s: %w: no modes", id, dk.ErrVinaFailed)
	}
	var first *pdbqt.Molecule
	if ls := r.Modes[0].Model.Ligands(); len(ls) > 0 {
		first = ls[0]
	}
	if first == nil {
		return nil, fmt.Errorf("ligand %s: %w: empty model", id, dk.ErrMapping)
	}
	pm, err := dk.NewPoseMap(first)
	if err != nil {
		return nil, err
	}
	ps, err := pm.Poses(r.Modes)
	if err != nil {
		return nil, err
	}
	var feats *chem.InteractionFeatures
	if rec != nil {
		feats, _ = chem.Features(s) // no features: poses without interactions
	}
	out := make([]Pose, 0, len(ps))
	for k, pose := range ps {
		m := r.Modes[k]
		if math.IsNaN(m.Affinity) {
			return nil, fmt.Errorf("ligand %s: %w: affinity", id, dk.ErrVinaFailed)
		}
		tags := dk.PoseTags(m, job.ReceptorID, job.JobID)
		var found *interact.Result
		if feats != nil {
			found = poseInteractions(rec, s, feats, pose)
		}
		if found != nil {
			js, err := json.Marshal(found.Interactions)
			if err != nil {
				return nil, err
			}
			tags = append(tags, dk.Tag{Name: "interactions", Value: string(js)})
		}
		sdf, err := dk.PoseSDF(s, pose, id, tags)
		if err != nil {
			return nil, err
		}
		p := Pose{Mode: k + 1, Affinity: m.Affinity, RMSDLB: m.RMSDLowerBound, RMSDUB: m.RMSDUpperBound, SDF: sdf}
		if found != nil {
			p.Interactions, p.Fingerprint = found.Interactions, found.Fingerprint
		}
		out = append(out, p)
	}
	return out, nil
}

// poseInteractions finds the interactions of one docked pose (nil when
// the pose cannot be placed on the structure).
func poseInteractions(rec *interact.Receptor, s *chem.Structure, f *chem.InteractionFeatures, pose *dk.Pose) *interact.Result {
	pos, placed, err := interact.PosePositions(s, pose)
	if err != nil {
		return nil
	}
	l, err := interact.NewLigand(s, f, pos, placed)
	if err != nil {
		return nil
	}
	res := interact.Find(rec, l)
	return &res
}

// interactionReceptor indexes a receptor PDBQT for interactions (nil when
// it cannot be read: docking goes on without interactions).
func interactionReceptor(receptor []byte) *interact.Receptor {
	m, err := dk.CheckReceptorPDBQT(receptor)
	if err != nil {
		return nil
	}
	rec, err := interact.NewReceptor(m.Atoms)
	if err != nil {
		return nil
	}
	return rec
}

// PreparedIsomers are the stereoisomers of one ligand ready to dock:
// Isomers in enumeration order, and for those whose preparation worked
// their structure and PDBQT (Structs[k] nil when Isomers[k].Failure is
// set). Total is the number of stereoisomers before the cap.
type PreparedIsomers struct {
	Isomers []Isomer
	Structs []*chem.Structure
	PDBQT   [][]byte
	Total   int
}

// PrepareIsomers prepares the stereoisomers of ligand id to dock: smiles
// is its registered canonical SMILES (empty: in's content when in is a
// SMILES), in the input of its stored structure. A ligand whose stereo is
// fully specified is itself, built from in (a stored conformer is
// reused). Otherwise each of its stereoisomers (chem.Stereoisomers,
// capped at chem.MaxStereoisomers) is embedded from its isomeric SMILES,
// so the round-trip check of chem.Structure compares the 3D structure with
// that isomer; the stored conformer is reused for the isomer it is.
//
// With ph (not nil) each isomer is docked in its protonation state at that
// pH (chem.Protonate on the isomer's SMILES, after the enumeration, so a
// protonated amine adds no isomers): an isomer the model changes is
// embedded from its protonated SMILES (NoNormalize, which would neutralize
// it again), one it leaves alone is prepared as without ph. Isomers[k]
// names the form docked. An isomer that cannot be prepared is recorded as
// failed; the error is returned only when none could be.
func PrepareIsomers(ctx context.Context, pool *chem.Pool, id, smiles string, in chem.Input, ph *float64) (*PreparedIsomers, error) {
	if smiles == "" && in.Format == chem.FormatSMILES {
		smiles = in.Content
	}
	var isos []string
	total := 1
	if smiles != "" {
		var err error
		if isos, total, err = chem.Stereoisomers(smiles, chem.MaxStereoisomers); err != nil {
			return nil, fmt.Errorf("ligand %s: %w", id, err)
		}
	}
	p := &PreparedIsomers{Total: total}
	add := func(s *chem.Structure, data []byte, smiles string, err error) {
		iso := Isomer{SMILES: smiles}
		if err != nil {
			iso.Failure = err.Error()
			s, data = nil, nil
		} else {
			iso.SMILES, iso.InChIKey = s.SMILES, s.InChIKey
		}
		p.Isomers, p.Structs, p.PDBQT = append(p.Isomers, iso), append(p.Structs, s), append(p.PDBQT, data)
	}
	// protonated is the form of isomer iso docked at ph ("" when it is the
	// isomer itself).
	protonated := func(iso string) (string, error) {
		if ph == nil || iso == "" {
			return "", nil
		}
		pr, err := chem.Protonate(iso, *ph)
		if err != nil || len(pr.Sites) == 0 {
			return "", err
		}
		return pr.SMILES, nil
	}
	// embed builds and prepares the protonated form prot of an isomer.
	embed := func(prot string) (*chem.Structure, []byte, error) {
		s, err := pool.Structure(ctx, chem.Input{Format: chem.FormatSMILES, Content: prot, NoNormalize: true})
		if err == nil && s.SMILES != prot {
			err = fmt.Errorf("%w: the structure of %s is %s", chem.ErrNo3D, prot, s.SMILES)
		}
		if err != nil {
			return nil, nil, err
		}
		data, err := dk.PrepareLigand(s, dk.LigandOptions{})
		return s, data, err
	}
	if len(isos) <= 1 { // nothing unspecified: the ligand itself
		prot, err := protonated(smiles)
		if err != nil {
			return nil, fmt.Errorf("ligand %s: %w", id, err)
		}
		var s *chem.Structure
		var data []byte
		if prot == "" {
			s, data, err = PrepareLigand(ctx, pool, id, in)
		} else if s, data, err = embed(prot); err != nil {
			err = fmt.Errorf("ligand %s: protonated at pH %v: %w", id, *ph, err)
		}
		if err != nil {
			return nil, err
		}
		add(s, data, "", nil)
		return p, nil
	}
	// The stored conformer is one isomer (embedding and 3D perception
	// assign every stereo element).
	var stored *chem.Structure
	if in.Format == chem.FormatMolfile {
		if s, err := pool.Structure(ctx, in); err == nil && s.Reused {
			stored = s
		}
	}
	var firstErr error
	for _, iso := range isos {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var s *chem.Structure
		var data []byte
		prot, err := protonated(iso)
		switch {
		case err != nil:
		case prot != "":
			s, data, err = embed(prot)
		case stored != nil && stored.SMILES == iso:
			s = stored
		default:
			s, err = pool.Structure(ctx, chem.Input{Format: chem.FormatSMILES, Content: iso, NoNormalize: true})
			if err == nil && s.SMILES != iso {
				err = fmt.Errorf("%w: the structure of stereoisomer %s is %s", chem.ErrNo3D, iso, s.SMILES)
			}
		}
		if err == nil && data == nil {
			data, err = dk.PrepareLigand(s, dk.LigandOptions{})
		}
		if err != nil {
			err = fmt.Errorf("ligand %s: stereoisomer %s: %w", id, iso, err)
			if firstErr == nil {
				firstErr = err
			}
		}
		add(s, data, iso, err)
	}
	for _, s := range p.Structs {
		if s != nil {
			return p, nil
		}
	}
	return nil, firstErr
}

// DockEach docks the ligands named by ids into receptor (a rigid receptor
// PDBQT), slots vina processes at a time (docking.Batch, with its CPU
// policy), preparing ligand i's stereoisomers (PrepareIsomers) from
// load(ctx, &units[i]) (which fills in Input and SMILES; nil: the units
// carry them) just before docking them one after the other. emit receives
// one outcome per ligand that ended (calls are serialised): the poses of
// its best isomer, or its failure when no isomer docked; a ligand stopped
// because ctx ended gets none (it is not a failure of the ligand). The
// error is for the whole call (bad receptor, box, parameters, temporary
// files). The poses of every docked ligand are checked (CheckPoses) before
// its outcome is emitted, and DockEach returns after the last check.
func (d *Docker) DockEach(ctx context.Context, job DockJob, receptor []byte, units []DockUnit, load func(ctx context.Context, u *DockUnit) error, slots int, emit func(DockOutcome)) error {
	b := &dk.Batch{Vina: d.Vina, Receptor: receptor, Box: job.Box, Params: job.Params, Workers: slots}
	names := make([]string, len(units))
	for i, u := range units {
		names[i] = u.Ligand
	}
	// prepared[i] and members[i] (the isomer of each docked ligand) are
	// written by the worker preparing unit i and read by its Finished or
	// Failed event, delivered after.
	prepared := make([]*PreparedIsomers, len(units))
	members := make([][]int, len(units))
	// refs[i] is the energy reference of the pose checks of unit i when
	// it docks one form: built while it docks, so that the checks after
	// its vina run are the poses' own (~0.1 s) and not the conformer
	// ensemble's (~1 s), which would otherwise lengthen the job past its
	// last vina run. One at a time (a pool worker stays free for the
	// preparations and checks the slots wait for); a ligand docked as
	// several stereoisomers gets its reference from the checks, for the
	// isomer that wins only.
	refs := make([]*poseRef, len(units))
	refSlot := make(chan struct{}, 1)
	// The receptor side of the pose checks, once per call; a receptor the
	// batch accepts always has it (Batch checks the same PDBQT).
	recAtoms, recErr := dk.ReceptorCheckAtoms(receptor)
	// Poses are reassembled and checked on a goroutine per docked ligand
	// (the checks on the chem pool's threads), so a vina slot starts its
	// next ligand at once and the event lock is not held meanwhile;
	// DockEach returns after the last.
	var checks sync.WaitGroup
	defer checks.Wait()
	var emitMu sync.Mutex
	emitLocked := func(o DockOutcome) {
		emitMu.Lock()
		defer emitMu.Unlock()
		emit(o)
	}
	var irec *interact.Receptor
	var irecOnce sync.Once // built by the first finished ligand
	outcome := func(i int) DockOutcome {
		u := units[i]
		return DockOutcome{Job: u.Job, Ligand: u.Ligand, Index: u.Index, Worker: d.Worker, Host: d.Host, Vina: d.Vina.Version()}
	}
	_, err := b.RunGroups(ctx, names, func(ctx context.Context, i int) ([]dk.Ligand, error) {
		u := &units[i]
		if d.Stages != nil {
			defer func(start time.Time) { d.Stages.prep.Add(int64(time.Since(start))) }(time.Now())
		}
		if load != nil {
			if err := load(ctx, u); err != nil {
				return nil, err
			}
		}
		p, err := PrepareIsomers(ctx, d.Pool, u.Ligand, u.SMILES, u.Input, job.LigandPH)
		if err != nil {
			return nil, err
		}
		var ligs []dk.Ligand
		for k, s := range p.Structs {
			if s == nil {
				continue
			}
			name := u.Ligand
			if len(p.Isomers) > 1 {
				name = fmt.Sprintf("%s (stereoisomer %s)", u.Ligand, p.Isomers[k].SMILES)
			}
			ligs = append(ligs, dk.Ligand{Name: name, PDBQT: p.PDBQT[k]})
			members[i] = append(members[i], k)
		}
		prepared[i] = p
		if len(ligs) == 1 {
			refs[i] = startPoseRef(ctx, d.Pool, p.Structs[members[i][0]], refSlot, &checks)
		}
		return ligs, nil
	}, func(ev dk.Event) {
		if ev.Kind != dk.Finished && ev.Kind != dk.Failed {
			return
		}
		p, ks, ref := prepared[ev.Index], members[ev.Index], refs[ev.Index]
		prepared[ev.Index], members[ev.Index], refs[ev.Index] = nil, nil, nil
		if d.Stages != nil {
			for _, mo := range ev.Members {
				d.Stages.runs.Add(1)
				if mo.Result != nil {
					d.Stages.vina.Add(int64(mo.Result.Elapsed))
					d.Stages.vinaCPU.Add(int64(mo.Result.CPU))
				}
			}
		}
		if ev.Kind == dk.Failed && (ctx.Err() != nil || errors.Is(ev.Err, context.Canceled)) {
			return // not a failure of the ligand: it is run again
		}
		o := outcome(ev.Index)
		if ev.Kind == dk.Failed {
			o.Failure = ev.Err.Error()
			emitLocked(o)
			return
		}
		best := -1
		for m, mo := range ev.Members {
			iso := &p.Isomers[ks[m]]
			if mo.Err != nil {
				iso.Failure = mo.Err.Error()
				continue
			}
			a := mo.Result.Best().Affinity
			iso.Affinity = &a
			if mo.Result == ev.Result {
				best = ks[m]
			}
		}
		if best < 0 {
			o.Failure = fmt.Sprintf("ligand %s: %v: the best run is not one of the isomers", o.Ligand, dk.ErrVinaFailed)
			emitLocked(o)
			return
		}
		o.Isomers, o.StereoTotal = p.Isomers, p.Total
		irecOnce.Do(func() { irec = interactionReceptor(receptor) })
		s, res, rec := p.Structs[best], ev.Result, irec
		checks.Add(1)
		go func() {
			defer checks.Done()
			if d.Stages != nil {
				defer func(start time.Time) { d.Stages.post.Add(int64(time.Since(start))) }(time.Now())
			}
			poses, err := Poses(job, o.Ligand, s, res, rec)
			if err != nil {
				o.Failure, o.Isomers, o.StereoTotal = err.Error(), nil, 0
			} else {
				if recErr != nil {
					for i := range poses {
						poses[i].CheckError = recErr.Error()
					}
				} else if cpu, err := checkPoses(ctx, d.Pool, s, recAtoms, poses, ref.wait(ctx)); err != nil {
					return // ctx ended: the ligand is docked again
				} else if d.Stages != nil {
					d.Stages.checkMicros.Add(int64((cpu + ref.cpu()) * 1e6))
				}
				o.Poses, o.Isomer = poses, best+1
			}
			emitLocked(o)
		}()
	})
	return err
}

// poseRef is an energy reference of the pose checks being built
// (startPoseRef). A nil *poseRef is one never started.
type poseRef struct {
	done chan struct{}
	ref  *chem.PoseReference // nil when it failed: the checks build it
}

// startPoseRef builds the energy reference of s's pose checks on the pool
// (one at a time through slot) on a goroutine counted by wg.
func startPoseRef(ctx context.Context, pool *chem.Pool, s *chem.Structure, slot chan struct{}, wg *sync.WaitGroup) *poseRef {
	r := &poseRef{done: make(chan struct{})}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(r.done)
		select {
		case slot <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-slot }()
		sdf, err := s.Molblock("", nil)
		if err != nil {
			return
		}
		r.ref, _ = pool.PoseReference(ctx, sdf) // an error: the checks meet it again and say so
	}()
	return r
}

// wait returns the reference once built (nil when it was never started,
// failed, or ctx ended first).
func (r *poseRef) wait(ctx context.Context) *chem.PoseReference {
	if r == nil {
		return nil
	}
	select {
	case <-r.done:
		return r.ref
	case <-ctx.Done():
		return nil
	}
}

// cpu is the CPU seconds the reference took (0 when there is none).
func (r *poseRef) cpu() float64 {
	if r == nil {
		return 0
	}
	select {
	case <-r.done:
	default:
		return 0 // still being built (wait gave up when ctx ended)
	}
	if r.ref == nil {
		return 0
	}
	return r.ref.Micros() / 1e6
}

// Hostname is os.Hostname, "" when unknown.
func Hostname() string {
	h, _ := os.Hostname()
	return h
}
