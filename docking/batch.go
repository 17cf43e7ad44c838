package docking

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// EventKind says what happened to a ligand of a Batch.
type EventKind int

const (
	// Started: a vina process was started for the ligand.
	Started EventKind = iota
	// Progress: the running ligand's progress bar advanced (Fraction).
	Progress
	// Finished: the ligand was docked (Result set).
	Finished
	// Failed: the ligand could not be docked (Err set); the batch goes on.
	Failed
)

func (k EventKind) String() string {
	switch k {
	case Started:
		return "started"
	case Progress:
		return "progress"
	case Finished:
		return "finished"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event reports batch progress. Events are delivered one at a time (never
// concurrently), so a handler needs no locking of its own.
type Event struct {
	Kind     EventKind
	Index    int    // position of the ligand in the Run argument
	Ligand   string // Ligand.Name
	Fraction float64
	Result   *Result // Finished (of a group: its best member's, see RunGroups)
	Err      error   // Failed
	// Members are the outcomes of a group's ligands, in order (RunGroups;
	// Finished and Failed).
	Members []Outcome
	// Counters after this event.
	Done, Failed, Total int
}

// Outcome is the final state of one ligand of a Batch.
type Outcome struct {
	Ligand string
	Result *Result // nil when Err is set or the ligand was not run (cancelled)
	Err    error
	// Members are the outcomes of a group's ligands (RunGroups).
	Members []Outcome
}

// Batch docks many ligands into one receptor and box, one vina process per
// ligand, Workers processes at a time.
//
// CPU policy (Params.CPU == 0): with at least as many ligands as workers,
// each process gets --cpu max(1, NumCPU/Workers); a batch smaller than that
// spreads the cores over its ligands (one ligand on 2 cores: --cpu 2). With
// a fixed seed Vina's output does not depend on --cpu (measured: identical
// files for --cpu 1 and 2), so the policy changes speed only.
type Batch struct {
	Vina     *Vina
	Receptor []byte // rigid receptor PDBQT
	Box      Box
	Params   Params
	// Workers is the number of concurrent vina processes; 0 means
	// runtime.NumCPU().
	Workers int
}

// Run docks the ligands and returns one Outcome per ligand (same order).
// A ligand that fails (vina error, timeout, bad PDBQT) is reported in its
// Outcome and an Event and the batch continues. When ctx is cancelled the
// running vina process groups are killed, no new ligand starts, the
// ligands not finished get ctx.Err(), and Run returns after every process
// has exited. The returned error is only for problems of the whole batch
// (invalid parameters, box or receptor, temporary files).
func (b *Batch) Run(ctx context.Context, ligands []Ligand, onEvent func(Event)) ([]Outcome, error) {
	names := make([]string, len(ligands))
	for i, l := range ligands {
		names[i] = l.Name
	}
	return b.RunEach(ctx, names, func(_ context.Context, i int) (Ligand, error) { return ligands[i], nil }, onEvent)
}

// RunEach is Run for ligands prepared on demand: the worker that takes
// ligand i calls prepare(ctx, i) just before docking it, so preparation
// runs in parallel with other ligands' docking and no worker waits for a
// whole group of ligands to be prepared (or docked) before starting the
// next. names[i] names ligand i in events and outcomes. A prepare error is
// that ligand's failure (a Failed event), like a vina error.
func (b *Batch) RunEach(ctx context.Context, names []string, prepare func(ctx context.Context, i int) (Ligand, error), onEvent func(Event)) ([]Outcome, error) {
	return b.RunGroups(ctx, names, func(ctx context.Context, i int) ([]Ligand, error) {
		l, err := prepare(ctx, i)
		if err != nil {
			return nil, err
		}
		return []Ligand{l}, nil
	}, onEvent)
}

// RunGroups is RunEach for items that are groups of ligands (the
// stereoisomers of one molecule): the worker that takes item i calls
// prepare(ctx, i) and docks the group's ligands one after the other, each
// its own vina run with its own timeout. The item is Finished when at
// least one ligand docked (Result: the member whose best mode is the most
// favourable, the first of equals), Failed when prepare failed or every
// ligand did (Err: the first ligand's error); Members hold every ligand's
// outcome. Progress is the fraction of the group's runs.
func (b *Batch) RunGroups(ctx context.Context, names []string, prepare func(ctx context.Context, i int) ([]Ligand, error), onEvent func(Event)) ([]Outcome, error) {
	p := b.Params.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := b.Box.Validate(); err != nil {
		return nil, err
	}
	if _, err := CheckReceptorPDBQT(b.Receptor); err != nil {
		return nil, fmt.Errorf("docking: batch: %w", err)
	}
	if b.Vina == nil {
		return nil, fmt.Errorf("docking: batch: %w: no Vina", ErrEngine)
	}
	dir, err := b.Vina.TempDirs().Make("batch")
	if err != nil {
		return nil, fmt.Errorf("docking: batch: %w", err)
	}
	defer os.RemoveAll(dir)
	recPath := filepath.Join(dir, "receptor.pdbqt")
	if err := os.WriteFile(recPath, b.Receptor, 0o600); err != nil {
		return nil, fmt.Errorf("docking: batch: write receptor: %w", err)
	}

	workers := b.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if workers > len(names) {
		workers = len(names)
	}
	if p.CPU == 0 && workers > 0 {
		p.CPU = max(1, runtime.NumCPU()/workers)
	}

	outcomes := make([]Outcome, len(names))
	for i, n := range names {
		outcomes[i] = Outcome{Ligand: n}
	}
	var mu sync.Mutex // serialises events and counters
	done, failed := 0, 0
	emit := func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case Finished:
			done++
		case Failed:
			failed++
		}
		e.Done, e.Failed, e.Total = done, failed, len(names)
		if onEvent != nil {
			onEvent(e)
		}
	}

	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				name := names[i]
				if ctx.Err() != nil {
					outcomes[i].Err = ctx.Err()
					continue // cancelled: prepare nothing more
				}
				ligs, err := prepare(ctx, i)
				if err == nil && len(ligs) == 0 {
					err = fmt.Errorf("docking: %w: %s: no ligand to dock", ErrInvalidLigand, name)
				}
				if ctx.Err() != nil {
					outcomes[i].Err = ctx.Err()
					continue // cancelled: not a ligand failure
				}
				if err != nil {
					outcomes[i].Err = err
					emit(Event{Kind: Failed, Index: i, Ligand: name, Err: err})
					continue
				}
				emit(Event{Kind: Started, Index: i, Ligand: name})
				members := make([]Outcome, len(ligs))
				var best *Result
				cancelled := false
				for k, lig := range ligs {
					res, err := b.Vina.Dock(ctx, recPath, lig, b.Box, p, func(f float64) {
						emit(Event{Kind: Progress, Index: i, Ligand: name, Fraction: (float64(k) + f) / float64(len(ligs))})
					})
					if err == nil && len(res.Modes) == 0 {
						res, err = nil, fmt.Errorf("docking: ligand %s: %w: no modes", lig.Name, ErrVinaFailed)
					}
					members[k] = Outcome{Ligand: lig.Name, Result: res, Err: err}
					if ctx.Err() != nil && err != nil {
						cancelled = true
						break
					}
					if err == nil && (best == nil || res.Best().Affinity < best.Best().Affinity) {
						best = res
					}
				}
				if cancelled {
					outcomes[i].Err = ctx.Err()
					continue // cancelled: not a ligand failure
				}
				outcomes[i].Result, outcomes[i].Members = best, members
				if best == nil {
					outcomes[i].Err = members[0].Err
					emit(Event{Kind: Failed, Index: i, Ligand: name, Err: members[0].Err, Members: members})
				} else {
					emit(Event{Kind: Finished, Index: i, Ligand: name, Result: best, Members: members, Fraction: 1})
				}
			}
		}()
	}
feed:
	for i := range names {
		select {
		case jobs <- i:
		case <-ctx.Done():
			for k := i; k < len(names); k++ {
				outcomes[k].Err = ctx.Err()
			}
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return outcomes, nil
}
