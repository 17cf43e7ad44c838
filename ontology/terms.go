package ontology

import (
	"strings"

	"github.com/cayleygraph/quad"
)

// Terms shared by several mappings: the blob node of a stored file and the
// PROV-O terms of activities and agents.
const (
	mgFile      = quad.IRI(MG + "File")
	mgFileName  = quad.IRI(MG + "fileName")
	mgByteSize  = quad.IRI(MG + "byteSize")
	mgSHA256    = quad.IRI(MG + "sha256")
	mgMediaType = quad.IRI(MG + "mediaType")
	mgFormula   = quad.IRI(MG + "formula")

	provUsed              = quad.IRI(PROV + "used")
	provWasGeneratedBy    = quad.IRI(PROV + "wasGeneratedBy")
	provWasAssociatedWith = quad.IRI(PROV + "wasAssociatedWith")
	provSoftwareAgent     = quad.IRI(PROV + "SoftwareAgent")
)

// BlobIRI mints the IRI <base>blob/sha256-<hex> of a stored file; base must
// end with "/" (a missing slash is added).
func BlobIRI(base, sha256hex string) quad.IRI {
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return quad.IRI(base + "blob/sha256-" + sha256hex)
}
