package qm

import "errors"

// Sentinel errors. Parsers and Table wrap them with the operation and the
// details (fmt.Errorf("qm: detect: %w", ErrUnsupportedLog)); test with errors.Is.
var (
	// ErrUnsupportedLog: the input is text but not a log of a program with a
	// parser in the Table (or of no known program at all), or the caller named
	// a program other than the one whose banner the log carries.
	ErrUnsupportedLog = errors.New("unsupported log")
	// ErrEmptyLog: the input has no content (or only white space).
	ErrEmptyLog = errors.New("empty log")
	// ErrBinaryInput: the input is not text (NUL bytes or invalid encoding at the start).
	ErrBinaryInput = errors.New("binary input, not a text log")
	// ErrUnknownProgram: a program name given by the caller is not one this package knows.
	ErrUnknownProgram = errors.New("unknown program")
	// ErrNoResults: the log is of the right program but holds no parsable
	// result at all (no geometry, no energy), e.g. only the banner.
	ErrNoResults = errors.New("no results in log")
)
