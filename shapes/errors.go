package shapes

import "errors"

// Errors returned by this package, wrapped with the operation that failed.
var (
	// ErrShapesGraph means the shapes graph is not well-formed SHACL (a
	// malformed path or list, a parameter with a value of the wrong kind).
	ErrShapesGraph = errors.New("ill-formed shapes graph")
	// ErrEmbedded means one of the embedded shapes files could not be read.
	ErrEmbedded = errors.New("embedded shapes unreadable")
)
