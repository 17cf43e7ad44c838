package qm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Parser parses the log of one program. Parse reads r once, line by line,
// with bounded memory; it returns what it could read even for truncated or
// failed runs (NormalTermination false), ErrNoResults if nothing at all
// could be read, and never panics.
type Parser interface {
	Program() Program
	Parse(r io.Reader) (*Calculation, error)
}

// Table dispatches a log to the parser of its program. Build it where the
// program is wired (main), e.g. qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}}.
type Table []Parser

// Lookup returns the parser for p.
func (t Table) Lookup(p Program) (Parser, bool) {
	for _, x := range t {
		if x.Program() == p {
			return x, true
		}
	}
	return nil, false
}

// Parse detects the program of the log in r (or uses program, if not empty:
// a name accepted by ProgramByName) and runs its parser.
// Errors: ErrEmptyLog, ErrBinaryInput, ErrUnsupportedLog (a program without
// parser in t, or no known program), ErrUnknownProgram, ErrNoResults, and
// read errors from r.
func (t Table) Parse(r io.Reader, program string) (*Calculation, error) {
	br := bufio.NewReaderSize(r, DetectSize)
	head, err := br.Peek(DetectSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("qm: parse: read: %w", err)
	}
	detected, derr := Detect(head)
	p := detected
	if program != "" {
		if p, err = ProgramByName(program); err != nil {
			return nil, fmt.Errorf("qm: parse: %w", err)
		}
		// An explicit program names a log whose banner was not recognised;
		// it does not override the checks for empty and binary input, nor
		// a banner of another program, nor xtb's g98.out.
		if derr != nil && (!errors.Is(derr, ErrUnsupportedLog) || errors.Is(derr, errXTBG98)) {
			return nil, fmt.Errorf("qm: parse: %w", derr)
		}
		if derr == nil && detected != p {
			return nil, fmt.Errorf("qm: parse: the log is a %s log, not %s: %w", detected, p, ErrUnsupportedLog)
		}
	} else if derr != nil {
		return nil, fmt.Errorf("qm: parse: %w", derr)
	}
	parser, ok := t.Lookup(p)
	if !ok {
		return nil, fmt.Errorf("qm: parse: %s logs: %w", p, ErrUnsupportedLog)
	}
	return parser.Parse(br)
}
