package auth

import (
	"fmt"
	"slices"
	"strings"
)

// Scope is a permission level of a key. The zero value, ScopeNone, is the
// "scope" of public routes that need no key.
type Scope string

// The scopes, from weakest to strongest; each includes the ones before it.
const (
	// ScopeNone marks a public route (only /healthz, /readyz and the static
	// query page with its assets).
	ScopeNone Scope = ""
	// ScopeRead allows every GET, SPARQL and GraphQL query, and /metrics.
	ScopeRead Scope = "read"
	// ScopeWrite allows creating resources and cancelling jobs.
	ScopeWrite Scope = "write"
	// ScopeAdmin allows key management and full dumps.
	ScopeAdmin Scope = "admin"
)

// Scopes lists the valid scopes from weakest to strongest.
func Scopes() []Scope { return []Scope{ScopeRead, ScopeWrite, ScopeAdmin} }

func (s Scope) rank() int {
	switch s {
	case ScopeRead:
		return 1
	case ScopeWrite:
		return 2
	case ScopeAdmin:
		return 3
	}
	return 0
}

// Valid reports whether s is read, write or admin.
func (s Scope) Valid() bool { return s.rank() > 0 }

// Includes reports whether a key holding s may use a route that requires
// need (admin ⊇ write ⊇ read; everything includes ScopeNone).
func (s Scope) Includes(need Scope) bool {
	if need == ScopeNone {
		return true
	}
	return s.Valid() && s.rank() >= need.rank()
}

// ParseScope parses one scope name (case-insensitive, surrounding space
// ignored).
func ParseScope(text string) (Scope, error) {
	s := Scope(strings.ToLower(strings.TrimSpace(text)))
	if !s.Valid() {
		return ScopeNone, fmt.Errorf("parse scope %q: %w: want read, write or admin", text, ErrInvalid)
	}
	return s, nil
}

// ParseScopes parses a comma-separated list such as "read,write". The
// result is sorted weakest first without duplicates; an empty list is an
// error.
func ParseScopes(csv string) ([]Scope, error) {
	var out []Scope
	for part := range strings.SplitSeq(csv, ",") {
		s, err := ParseScope(part)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return normalizeScopes(out)
}

// normalizeScopes validates, sorts and de-duplicates scopes.
func normalizeScopes(in []Scope) ([]Scope, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("scopes: %w: at least one of read, write, admin is required", ErrInvalid)
	}
	out := make([]Scope, 0, len(in))
	for _, s := range in {
		if !s.Valid() {
			return nil, fmt.Errorf("scope %q: %w: want read, write or admin", string(s), ErrInvalid)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Scope) int { return a.rank() - b.rank() })
	return out, nil
}

// strongest returns the highest of scopes (ScopeNone for none).
func strongest(scopes []Scope) Scope {
	best := ScopeNone
	for _, s := range scopes {
		if s.rank() > best.rank() {
			best = s
		}
	}
	return best
}
