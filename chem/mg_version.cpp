// The RDKit version this process runs (not the headers it was built
// with: Debian's librdkit can be upgraded under a built binary).

#include <RDGeneral/versions.h>

extern "C" const char *mg_rdkit_version(void) { return RDKit::rdkitVersion; }
