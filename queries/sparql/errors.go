package sparql

import "errors"

// Errors returned by the package, wrapped with the operation.
var (
	// ErrSyntax: the query text is not valid SPARQL 1.1; the error is a
	// *SyntaxError carrying the line and column.
	ErrSyntax = errors.New("syntax error")
	// ErrTimeout: the query ran past its deadline (Options.Timeout or the
	// context's deadline).
	ErrTimeout = errors.New("query timeout")
	// ErrRowLimit: the query produced more solutions than Options.MaxRows.
	ErrRowLimit = errors.New("row limit exceeded")
	// ErrMemoryLimit: the query's tables (ORDER BY, GROUP BY, DISTINCT,
	// materialized sub-patterns, CONSTRUCT/DESCRIBE results, property-path
	// visited sets) grew past Options.MaxMemory.
	ErrMemoryLimit = errors.New("query memory budget exceeded")
	// ErrUnsupported: the query uses a feature the engine does not implement
	// (SERVICE), or a result format does not fit the query form.
	ErrUnsupported = errors.New("unsupported")
	// ErrSource: the data source returned an error.
	ErrSource = errors.New("source error")
)

// errEval is an expression evaluation (type) error: FILTER treats it as
// false, BIND leaves the variable unbound. It never leaves the package.
var errEval = errors.New("sparql: expression error")

// errNaN marks a comparison with NaN (not comparable, but not an error for
// ordering).
var errNaN = errors.New("sparql: NaN comparison")

// errStop ends a streaming evaluation early (LIMIT, ASK).
var errStop = errors.New("sparql: stop")
