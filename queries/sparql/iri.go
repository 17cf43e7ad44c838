package sparql

import "github.com/molgraph/molgraph/graph/rdfio"

// resolveIRI resolves reference ref against base with rdfio.ResolveIRI
// (RFC 3986 section 5.2, on strings so non-ASCII characters stay as they
// are). Two differences are kept from the resolver this package used to
// have: a ref with a scheme is returned exactly as written (no dot-segment
// removal), and a base without a scheme yields a result starting with ":".
func resolveIRI(base, ref string) string {
	if base == "" || rdfio.HasScheme(ref) {
		return ref
	}
	if !rdfio.HasScheme(base) {
		return ":" + rdfio.ResolveIRI(base, ref)
	}
	return rdfio.ResolveIRI(base, ref)
}
