package auth

import (
	"fmt"
	"testing"
)

// BenchmarkAuthenticate measures one lookup (fstat of keys.json, SHA-256,
// constant-time comparison with every hash) among 100 keys.
func BenchmarkAuthenticate(b *testing.B) {
	k, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	var tok string
	for i := range 100 {
		_, t, err := k.Create(NewKey{Name: fmt.Sprint(i), Scopes: []Scope{ScopeRead}})
		if err != nil {
			b.Fatal(err)
		}
		tok = t
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := k.Authenticate(tok); err != nil {
			b.Fatal(err)
		}
	}
}
