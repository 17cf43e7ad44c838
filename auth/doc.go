// Package auth manages molgraph's API keys: random bearer tokens, shown once
// at creation, of which only the SHA-256 is kept.
//
// # Tokens
//
// A token is "mgk_" followed by 32 random bytes (256 bits) in unpadded
// base64url, 47 characters in all. Keys are identified by a separate public
// id ("key-" + 16 base32 characters) that is safe to log and list. A
// presented token is hashed and compared against every stored hash with
// crypto/subtle, so the time taken does not depend on which key (if any)
// matched or on how many leading bytes agreed.
//
// # Scopes
//
// Three scopes form a chain: admin ⊇ write ⊇ read. A key holding "write"
// may do everything a "read" key may; "admin" may do everything. Routes
// declare the least scope they need (Scope.Includes).
//
// # Storage
//
// Keys live in <data dir>/keys.json (mode 0600), never in the RDF graph. The
// file holds, per key: id, name, scopes, the hex SHA-256 of the token,
// created_at, and optional expires_at and revoked_at. Writers take an
// exclusive flock on <data dir>/keys.json.lock, re-read the file, and replace
// it atomically (temp file, fsync, rename, fsync of the directory), so the
// CLI ("molgraph keys create") can run while the server runs. Readers never
// lock: every lookup fstat()s the file and reloads it when its inode, size
// or mtime changed, so a key created or revoked by the CLI takes effect on
// the server's next request.
//
// Revoked keys stay in the file (with revoked_at) so that listings keep an
// audit trail; revocation is permanent.
//
// # Bootstrap
//
// On a first start (keys.json absent or empty) Keyring.Bootstrap creates an
// admin key named "bootstrap". If the operator supplied a token
// (MOLGRAPH_API_KEY) that token becomes the key and nothing is written
// besides its hash; otherwise a token is generated, returned once, and
// written to <data dir>/bootstrap-key (mode 0600).
package auth
