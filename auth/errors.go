package auth

import (
	"errors"
	"fmt"
)

// Errors returned by this package, wrapped with the operation.
var (
	// ErrUnauthenticated: no usable key was presented. ErrUnknownKey,
	// ErrExpired and ErrRevoked all match it with errors.Is.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrUnknownKey: the token matches no stored key.
	ErrUnknownKey = fmt.Errorf("invalid api key: %w", ErrUnauthenticated)
	// ErrExpired: the key's expiry has passed.
	ErrExpired = fmt.Errorf("api key expired: %w", ErrUnauthenticated)
	// ErrRevoked: the key was revoked.
	ErrRevoked = fmt.Errorf("api key revoked: %w", ErrUnauthenticated)
	// ErrForbidden: the key is valid but lacks the scope (see ScopeError).
	ErrForbidden = errors.New("insufficient scope")
	// ErrNotFound: no key has that id.
	ErrNotFound = errors.New("key not found")
	// ErrInvalid: a name, scope list, expiry or supplied token is not acceptable.
	ErrInvalid = errors.New("invalid key request")
	// ErrCorrupt: the keys file cannot be parsed.
	ErrCorrupt = errors.New("corrupt keys file")
)

// ScopeError is returned by Key.Require when the key lacks a scope. It
// matches ErrForbidden with errors.Is.
type ScopeError struct {
	// Need is the scope the operation requires.
	Need Scope
	// Have are the scopes the key holds.
	Have []Scope
}

// Error describes the missing scope.
func (e *ScopeError) Error() string {
	return fmt.Sprintf("%v: this operation needs scope %q, the key has %v", ErrForbidden, e.Need, e.Have)
}

// Unwrap returns ErrForbidden.
func (e *ScopeError) Unwrap() error { return ErrForbidden }
