package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// TokenPrefix starts every generated token.
const TokenPrefix = "mgk_"

// MinTokenLen is the shortest operator-supplied token (MOLGRAPH_API_KEY)
// accepted. Generated tokens are 47 characters long.
const MinTokenLen = 32

// MaxNameLen bounds a key's name, in characters.
const MaxNameLen = 200

// Key is the public description of an API key. It never contains the token
// or its hash.
type Key struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Scopes    []Scope    `json:"scopes"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// Key status values reported by Key.Status.
const (
	StatusActive  = "active"
	StatusExpired = "expired"
	StatusRevoked = "revoked"
)

// Status is "revoked", "expired" or "active" at time now.
func (k Key) Status(now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return StatusRevoked
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return StatusExpired
	}
	return StatusActive
}

// Scope is the strongest scope the key holds.
func (k Key) Scope() Scope { return strongest(k.Scopes) }

// Require returns nil if the key's scopes include need, else a *ScopeError.
func (k Key) Require(need Scope) error {
	if k.Scope().Includes(need) {
		return nil
	}
	return &ScopeError{Need: need, Have: k.Scopes}
}

// NewKey describes a key to create.
type NewKey struct {
	// Name is a human label (required, at most MaxNameLen characters, no
	// control characters).
	Name string
	// Scopes are the key's scopes (at least one).
	Scopes []Scope
	// ExpiresAt is when the key stops working; zero means never.
	ExpiresAt time.Time
	// Token, if set, is used instead of a generated one (for
	// MOLGRAPH_API_KEY); it must be at least MinTokenLen characters of the
	// RFC 6750 token68 alphabet.
	Token string
}

// GenerateToken returns a new random token: TokenPrefix + 32 random bytes
// in unpadded base64url.
func GenerateToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// newID returns a new public key id.
func newID() (string, error) {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate key id: %w", err)
	}
	return "key-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])), nil
}

// hashToken returns the SHA-256 of a token.
func hashToken(token string) [sha256.Size]byte { return sha256.Sum256([]byte(token)) }

// CheckToken reports whether token is acceptable as an operator-supplied
// key: at least MinTokenLen characters of the token68 alphabet
// (A-Z a-z 0-9 - . _ ~ + /, then optional trailing '=').
func CheckToken(token string) error {
	if len(token) < MinTokenLen {
		return fmt.Errorf("check token: %w: at least %d characters required, got %d", ErrInvalid, MinTokenLen, len(token))
	}
	body := strings.TrimRight(token, "=")
	if body == "" {
		return fmt.Errorf("check token: %w: token is only padding", ErrInvalid)
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
		if !ok {
			return fmt.Errorf("check token: %w: character at offset %d is outside the token68 alphabet", ErrInvalid, i)
		}
	}
	return nil
}

// checkName validates a key name.
func checkName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("name: %w: a non-empty name is required", ErrInvalid)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("name: %w: not valid UTF-8", ErrInvalid)
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLen {
		return fmt.Errorf("name: %w: %d characters, at most %d allowed", ErrInvalid, n, MaxNameLen)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fmt.Errorf("name: %w: control characters are not allowed", ErrInvalid)
		}
	}
	return nil
}
