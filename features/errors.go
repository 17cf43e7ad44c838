package features

import "errors"

// Sentinel errors, wrapped with the operation; test with errors.Is.
var (
	// ErrUnknownFormat: a table format name other than csv or jsonl.
	ErrUnknownFormat = errors.New("unknown feature table format")
	// ErrVectorLength: a Vector whose length is not len(Names()).
	ErrVectorLength = errors.New("feature vector of wrong length")
	// ErrClosed: a write after Close.
	ErrClosed = errors.New("feature writer closed")
)
