package chem

/*
#cgo LDFLAGS: -lRDKitMolDraw2D -lRDKitDepictor -lRDKitSubstructMatch -lRDKitSmilesParse
#include <stdlib.h>
#include "mg_depict.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Bounds of a depiction (Pool.Depict).
const (
	// DefaultDepictSize is the width and height of a depiction when none is
	// asked for, in pixels.
	DefaultDepictSize = 300
	// MinDepictSize and MaxDepictSize bound the width and height: below 50
	// pixels nothing is legible; 2,000 pixels is a poster, and the SVG's
	// size grows with the canvas only through its numbers, but a browser
	// rasterizing a larger one for a grid of hits is what the bound spares.
	MinDepictSize = 50
	MaxDepictSize = 2000
	// MaxDepictSMILESBytes bounds the SMILES of a depiction. A molecule of
	// DefaultMax2DHeavyAtoms atoms is written in far fewer bytes (a
	// 300-atom peptide in about 750); the bound refuses a hostile input
	// before anything counts its atoms.
	MaxDepictSMILESBytes = 4096
	// MaxHighlightBytes bounds the highlight SMARTS.
	MaxHighlightBytes = 1024
	// DefaultHighlightMatchSteps bounds the atom comparisons of the
	// highlight match (RDKit's substructure search is exponential in the
	// worst case and cannot be stopped from outside): a million take about
	// 0.1 s (TestDepictHostile), far more than a real query on a molecule
	// within the 2D limit needs.
	DefaultHighlightMatchSteps = 1_000_000
)

// ErrDepictInput is wrapped by every *DepictInputError.
var ErrDepictInput = errors.New("invalid depiction request")

// DepictInputError is a depiction input out of its bounds, or a highlight
// SMARTS that does not parse or whose match runs out of steps. Field names
// the input: "smiles", "width", "height" or "highlight".
type DepictInputError struct {
	Field, Reason string
}

func (e *DepictInputError) Error() string { return fmt.Sprintf("depict: %s: %s", e.Field, e.Reason) }

// Unwrap makes errors.Is(err, ErrDepictInput) true.
func (e *DepictInputError) Unwrap() error { return ErrDepictInput }

// DepictOptions are the options of one depiction.
type DepictOptions struct {
	// Width and Height in pixels (0: DefaultDepictSize), within
	// MinDepictSize..MaxDepictSize.
	Width, Height int
	// Highlight is a SMARTS (at most MaxHighlightBytes); the atoms and bonds
	// of its first match are highlighted. No match highlights nothing.
	Highlight string
	// MatchSteps bounds the highlight match (0: DefaultHighlightMatchSteps).
	MatchSteps int
}

// Depiction is a 2D drawing of a molecule.
type Depiction struct {
	// SVG is the document RDKit's MolDraw2DSVG wrote (text drawn as paths).
	// Atom i of the SMILES is drawn with the class "atom-i", bond k with
	// "bond-k".
	SVG string
	// Atoms are the highlighted atoms, as indexes in the SMILES in the
	// order of the query's atoms (RDKit's GetSubstructMatch); Bonds the
	// highlighted bonds (those the query's bonds match).
	Atoms, Bonds []int
	// HeavyAtoms of the molecule.
	HeavyAtoms int
}

// check validates o and fills its defaults.
func (o *DepictOptions) check() error {
	for _, f := range []struct {
		name string
		v    *int
	}{{"width", &o.Width}, {"height", &o.Height}} {
		if *f.v == 0 {
			*f.v = DefaultDepictSize
		}
		if *f.v < MinDepictSize || *f.v > MaxDepictSize {
			return &DepictInputError{Field: f.name, Reason: fmt.Sprintf("%d pixels, not within %d..%d", *f.v, MinDepictSize, MaxDepictSize)}
		}
	}
	if len(o.Highlight) > MaxHighlightBytes {
		return &DepictInputError{Field: "highlight", Reason: fmt.Sprintf("SMARTS of %d bytes, more than %d", len(o.Highlight), MaxHighlightBytes)}
	}
	if o.MatchSteps <= 0 {
		o.MatchSteps = DefaultHighlightMatchSteps
	}
	return nil
}

// Depict draws the molecule of a SMILES as SVG, as parsed (sanitized, not
// normalized, so that atom i is the SMILES's i-th atom), with 2D
// coordinates from RDKit's depictor (canonical orientation). It runs on a
// worker thread of the pool. Errors: *DepictInputError (errors.Is
// ErrDepictInput) for an option or a SMILES out of bounds and for a bad
// highlight; ErrTooLargeFor2D (Check2D) before any RDKit work for a SMILES
// with too many heavy atoms; *MoleculeError for a SMILES that is not a
// molecule; ctx's error while waiting for a worker.
func (p *Pool) Depict(ctx context.Context, smiles string, o DepictOptions) (*Depiction, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if len(smiles) > MaxDepictSMILESBytes {
		return nil, &DepictInputError{Field: "smiles", Reason: fmt.Sprintf("%d bytes, more than %d", len(smiles), MaxDepictSMILESBytes)}
	}
	if strings.TrimSpace(smiles) == "" {
		return nil, &DepictInputError{Field: "smiles", Reason: "empty"}
	}
	if err := p.Check2D(smilesHeavyAtoms(smiles)); err != nil {
		return nil, err
	}
	params := C.mg_depict_params{width: C.int(o.Width), height: C.int(o.Height),
		max_heavy_atoms: C.int(p.max2D), match_steps: C.long(o.MatchSteps)}
	// The result is copied into Go memory and freed on the worker's
	// thread: Depict may have returned (ctx ended) when it ends.
	var rc C.int
	var msg, svg, atoms, bonds string
	var heavy int
	err := p.call(ctx, func() {
		var res C.mg_depict_result
		s, n := borrow(smiles)
		q, qn := borrow(o.Highlight)
		rc = C.mg_depict(s, n, q, qn, &params, &res)
		msg, svg, atoms, bonds = printable(gostr(res.error)), gostr(res.svg), gostr(res.atoms), gostr(res.bonds)
		heavy = int(res.heavy_atoms)
		C.mg_depict_result_free(&res)
	})
	if err != nil {
		return nil, err
	}
	switch rc {
	case C.MG_DEPICT_OK:
	case C.MG_DEPICT_BAD_MOLECULE:
		return nil, &MoleculeError{Format: FormatSMILES, Reason: msg}
	case C.MG_DEPICT_BAD_SMARTS, C.MG_DEPICT_MATCH_BUDGET:
		return nil, &DepictInputError{Field: "highlight", Reason: msg}
	case C.MG_DEPICT_TOO_LARGE:
		return nil, p.Check2D(heavy)
	default:
		return nil, fmt.Errorf("chem: depict: %s", msg)
	}
	d := &Depiction{SVG: utf8SVG(svg), HeavyAtoms: heavy}
	if d.Atoms, err = ints(atoms); err == nil {
		d.Bonds, err = ints(bonds)
	}
	if err != nil {
		return nil, fmt.Errorf("chem: depict: %w", err)
	}
	return d, nil
}

// utf8SVG re-encodes an SVG that RDKit declares ISO-8859-1 as UTF-8 (its
// text is drawn as paths, so it is ASCII but for what a SMILES's atom
// labels could bring), so that every XML reader and the HTTP charset
// agree.
func utf8SVG(svg string) string {
	const latin1 = "<?xml version='1.0' encoding='iso-8859-1'?>"
	rest, ok := strings.CutPrefix(svg, latin1)
	if !ok {
		return svg
	}
	var b strings.Builder
	b.Grow(len(svg) + 8)
	b.WriteString("<?xml version='1.0' encoding='UTF-8'?>")
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c < 0x80 {
			b.WriteByte(c)
		} else {
			b.WriteRune(rune(c)) // Latin-1 bytes are the first 256 code points
		}
	}
	return b.String()
}

func ints(s string) ([]int, error) {
	var out []int
	for _, w := range strings.Fields(s) {
		v, err := strconv.Atoi(w)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// call runs fn on a worker thread of the pool and waits for it. ctx bounds
// the wait for a free worker and for fn; fn itself cannot be stopped and
// runs to its end even when call has returned.
func (p *Pool) call(ctx context.Context, fn func()) error {
	done := make(chan struct{})
	j := job{call: func() { defer close(done); fn() }}
	if err := p.send(ctx, j); err == ErrPoolClosed {
		return err
	} else if err != nil {
		return fmt.Errorf("chem: %w", err)
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("chem: %w", ctx.Err())
	}
}
