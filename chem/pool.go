package chem

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// Pool runs molecules through RDKit on a fixed set of OS threads. Each
// worker goroutine is locked to its thread and owns that thread's C++
// standardizers and SMARTS patterns, which are not safe to share. A Pool is
// safe for concurrent use.
type Pool struct {
	// jobs carries the chemistry of requests, background that of batch
	// jobs (Background): a free worker takes a request's job first, so a
	// POST waits for at most the molecules in the workers' hands, never
	// behind the queue of a batch upload.
	jobs       chan job
	background chan job
	waiting    [2]atomic.Int64 // senders blocked in send: requests, background
	// 3D embedding: its own slots (see embed.go).
	embedOpts  EmbedOptions
	embedder   embedder
	embedCount embedCounters
	max2D      int
	quit       chan struct{}
	wg         sync.WaitGroup
	once       sync.Once
	workers    int
	flags      int // added to every job's flags (tests: flagNoShortcuts)
}

type job struct {
	format int
	text   string
	lig    *pdbqtLigand
	flags  int
	reply  chan raw
	// call, when set, runs on the worker's thread instead of the pipeline
	// (other per-thread RDKit work: depictions).
	call func()
}

// Options configure a Pool.
type Options struct {
	// Workers is the number of registration worker threads
	// (runtime.GOMAXPROCS(0) if <= 0).
	Workers int
	// Embed bounds 3D embedding, which runs on slots of its own.
	Embed EmbedOptions
	// Max2DHeavyAtoms bounds the molecules whose 2D depiction a read may
	// compute (Check2D; DefaultMax2DHeavyAtoms if <= 0).
	Max2DHeavyAtoms int
	// Nice is the nice value of the worker threads (0: the process's).
	// Registration chemistry keeps every core busy during a batch; a
	// positive value lets the threads that serve reads run first.
	Nice int
}

// DefaultMax2DHeavyAtoms: a 2D depiction costs the parse and RDKit's
// compute2DCoords, both superlinear on long chains: 0.11 s of CPU for a
// 300-carbon chain, 3.7 s for 999 carbons (parse 1.7 s, coordinates 2.0 s).
const DefaultMax2DHeavyAtoms = 300

// ErrTooLargeFor2D: a 2D depiction was refused by Check2D.
var ErrTooLargeFor2D = errors.New("too large for a 2D depiction")

// Check2D refuses (ErrTooLargeFor2D) a 2D depiction of a molecule with
// more heavy atoms than Options.Max2DHeavyAtoms, before any work.
func (p *Pool) Check2D(heavyAtoms int) error {
	if heavyAtoms > p.max2D {
		return fmt.Errorf("%w: %d heavy atoms, more than the %d a molecule may have for 2D coordinates computed on request",
			ErrTooLargeFor2D, heavyAtoms, p.max2D)
	}
	return nil
}

// Max2DHeavyAtoms returns the limit of Check2D.
func (p *Pool) Max2DHeavyAtoms() int { return p.max2D }

// NewPool starts a pool of n workers (n <= 0 means runtime.GOMAXPROCS(0))
// with the default 3D limits.
func NewPool(n int) (*Pool, error) { return New(Options{Workers: n}) }

// New starts a pool.
func New(o Options) (*Pool, error) {
	n := o.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	initRDKit()
	p := &Pool{jobs: make(chan job), background: make(chan job), quit: make(chan struct{}), workers: n, embedOpts: o.Embed.withDefaults(), max2D: o.Max2DHeavyAtoms}
	if p.max2D <= 0 {
		p.max2D = DefaultMax2DHeavyAtoms
	}
	// The first worker starts alone and warms RDKit's lazily built tables
	// (periodic table, Crippen and MMFF parameters, ...) before the others.
	for i := 0; i < n; i++ {
		ready := make(chan error, 1)
		p.wg.Add(1)
		go p.run(ready, i == 0, o.Nice)
		if err := <-ready; err != nil {
			p.Close()
			return nil, fmt.Errorf("chem: new pool: %w", err)
		}
	}
	if eo := p.embedOpts; eo.Helper != nil {
		p.embedder = newProcEmbedder(eo.Workers, eo.Helper, eo.HelperMemoryBytes, &p.embedCount.running)
	} else {
		p.embedder = newThreadEmbedder(eo.Workers, &p.embedCount.running)
	}
	return p, nil
}

// Workers reports the number of worker threads.
func (p *Pool) Workers() int { return p.workers }

func (p *Pool) run(ready chan<- error, warm bool, nice int) {
	defer p.wg.Done()
	// Never unlocked: when this goroutine ends, its thread ends with it.
	runtime.LockOSThread()
	if nice != 0 {
		if err := niceThread(nice); err != nil {
			ready <- fmt.Errorf("nice %d: %w", nice, err)
			return
		}
	}
	w, err := newWorker()
	if err != nil {
		ready <- err
		return
	}
	defer w.free()
	if warm {
		r := w.process(cSMILES, "CC(=O)Oc1ccccc1C(=O)O", nil, flagCoords2D)
		if r.err != "" {
			ready <- fmt.Errorf("warm-up: %s", r.err)
			return
		}
		// ETKDG's torsion tables and MMFF94's parameters are built on first
		// use: once here, before any embedding thread starts.
		if e := embed(r.smiles, embedParams{MaxAttempts: 1, MMFFMaxIters: 10, Seed: embedSeed}, stopFlag{}); e.Status != embedOK {
			ready <- fmt.Errorf("warm-up: embed: %d %s", e.Status, e.Error)
			return
		}
		w.process(cInChI, "InChI=1S/C3H7NO2/c1-2(4)3(5)6/h2H,4H2,1H3,(H,5,6)/t2-/m0/s1", nil, flagCoords2D)
		w.process(cMolBlock, "\n\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n", nil, 0)
	}
	ready <- nil
	for {
		var j job
		// A request's job first (Go's select picks at random among
		// ready cases, so the preference needs its own select).
		select {
		case j = <-p.jobs:
		default:
			select {
			case j = <-p.jobs:
			case j = <-p.background:
			case <-p.quit:
				return
			}
		}
		if j.call != nil {
			j.call()
			continue
		}
		j.reply <- w.process(j.format, j.text, j.lig, j.flags)
	}
}

// backgroundKey marks a context of background chemistry.
type backgroundKey struct{}

// Background returns a context whose chemistry (Process and the calls it
// makes) waits until no request's chemistry does: for batch jobs, whose
// thousands of molecules would otherwise queue in front of an interactive
// POST /v1/molecules.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// send hands j to a free worker through the channel of ctx's priority:
// ErrPoolClosed, or ctx's error when it ends first. waiting counts the
// senders of each priority blocked here (requests, background).
func (p *Pool) send(ctx context.Context, j job) error {
	select {
	case <-p.quit:
		return ErrPoolClosed
	default:
	}
	q, w := p.jobs, &p.waiting[0]
	if bg, _ := ctx.Value(backgroundKey{}).(bool); bg {
		q, w = p.background, &p.waiting[1]
	}
	w.Add(1)
	defer w.Add(-1)
	select {
	case q <- j:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-p.quit:
		return ErrPoolClosed
	}
}

// Close stops the workers and frees their C++ state. Calls of Process in
// flight finish; later ones return ErrPoolClosed.
func (p *Pool) Close() error {
	p.once.Do(func() { close(p.quit) })
	p.wg.Wait()
	if p.embedder != nil {
		p.embedder.close()
	}
	return nil
}

// Process parses in, normalizes it and computes identity, properties,
// QED, validation and (if asked) coordinates. Content that is not a
// molecule yields a *MoleculeError (errors.Is ErrInvalidMolecule); a
// molecule that parses but breaks a validation rule is returned with
// Validated false. ctx bounds the wait for a free worker and for the
// result (RDKit itself cannot be interrupted).
//
// With Generate3D the molecule is then embedded (see embed.go), unless it
// is over the 3D budget: a *TooLargeFor3DError, after the registration
// chemistry but before any 3D work. An embedding stopped at its time limit
// is ErrEmbedTimeout; one stopped because ctx ended gives ctx's error. An
// embedding that finds no coordinates is not an error: the Result has 2D
// coordinates and an "embed_failed" warning.
func (p *Pool) Process(ctx context.Context, in Input) (*Result, error) {
	gen3D := in.Generate3D
	in.Generate3D = false
	res, err := p.process(ctx, in)
	if err != nil || !gen3D {
		return res, err
	}
	if err := p.Check3D(res.HeavyAtoms, res.RotatableBonds); err != nil {
		return nil, fmt.Errorf("chem: %s: %w", res.SMILES, err)
	}
	t0 := time.Now()
	e, err := p.embed3D(ctx, res.SMILES)
	if err != nil {
		return nil, err
	}
	res.Timing.Coordinates += time.Since(t0)
	if e.Status == embedOK {
		res.Has3D, res.Molfile, res.XYZ = true, e.Molblock, e.XYZ
		if !e.MMFF {
			res.Validation = append(res.Validation, Issue{Level: LevelWarning, Code: "no_mmff",
				Message: "no MMFF94 parameters: 3D coordinates not optimised"})
		}
		return res, nil
	}
	res.Validation = append(res.Validation, Issue{Level: LevelWarning, Code: "embed_failed",
		Message: "3D embedding failed; 2D coordinates given"})
	if !in.Coordinates2D {
		d, err := p.process(ctx, Input{Format: FormatSMILES, Content: res.SMILES, NoNormalize: true, Coordinates2D: true})
		if err != nil {
			return nil, err
		}
		res.Molfile = d.Molfile
	}
	return res, nil
}

// process runs in through one registration worker (no 3D).
func (p *Pool) process(ctx context.Context, in Input) (*Result, error) {
	j, err := prepare(in)
	if err != nil {
		return nil, err
	}
	j.flags |= p.flags
	j.reply = make(chan raw, 1)
	if err := p.send(ctx, j); err == ErrPoolClosed {
		return nil, err
	} else if err != nil {
		return nil, fmt.Errorf("chem: process: %w", err)
	}
	var r raw
	select {
	case r = <-j.reply:
	case <-ctx.Done():
		return nil, fmt.Errorf("chem: process: %w", ctx.Err())
	}
	if r.err != "" {
		reason := printable(r.err)
		if in.Format == FormatSMILES && strings.HasPrefix(reason, "SMILES syntax error") {
			if h := smilesHint(in.Content); h != "" {
				reason += ": " + h
			}
		}
		return nil, &MoleculeError{Format: in.Format, Reason: reason}
	}
	return newResult(r), nil
}

func prepare(in Input) (job, error) {
	j := job{text: in.Content}
	if len(in.Content) > MaxContentBytes {
		return j, &MoleculeError{Format: in.Format, Reason: fmt.Sprintf("content larger than %d bytes", MaxContentBytes)}
	}
	if in.Coordinates2D {
		j.flags |= flagCoords2D
	}
	if in.NoNormalize {
		j.flags |= flagNoNormalize
	}
	if in.Fingerprints {
		j.flags |= flagFingerprint
	}
	switch in.Format {
	case FormatSMILES:
		j.format = cSMILES
	case FormatInChI:
		text, err := checkInChI(in.Content)
		if err != nil {
			return j, &MoleculeError{Format: in.Format, Reason: err.Error()}
		}
		j.format, j.text = cInChI, text
	case FormatMolfile:
		j.format = cMolBlock
	case FormatPDBQT:
		lig, err := parsePDBQTLigand(in.Content)
		if err != nil {
			return j, &MoleculeError{Format: in.Format, Reason: err.Error()}
		}
		if lig.template == "" {
			lig.template = in.TemplateSMILES
			lig.haveIdx = false
		}
		j.format, j.lig, j.text = cAtoms, lig, ""
	default:
		return j, fmt.Errorf("chem: process: format %q: %w", in.Format, ErrUnsupportedFormat)
	}
	heavy := heavyAtomBound(in.Format, j.text)
	if j.lig != nil {
		for _, a := range j.lig.atoms {
			if a.atomicNum > 1 {
				heavy++
			}
		}
		heavy = max(heavy, smilesHeavyAtoms(j.lig.template))
	}
	if heavy > MaxHeavyAtoms {
		return j, &MoleculeError{Format: in.Format, Reason: fmt.Sprintf(
			"%d heavy atoms, more than the %d a molecule may have", heavy, MaxHeavyAtoms)}
	}
	return j, nil
}

// printable replaces what is not printable text in an RDKit message with
// "?": RDKit 2022.09 quotes the input's bytes in some messages, once a
// byte past the end of a short molfile line (MolFileParser.cpp, "atom-list
// query modifier": text[14]).
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != '\n' && r != '\t' {
			return '?'
		}
		return r
	}, s)
}
