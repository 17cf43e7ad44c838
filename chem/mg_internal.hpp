// mg_internal.hpp: C++ declarations shared by the chem/*.cpp files.
#ifndef MOLGRAPH_CHEM_MG_INTERNAL_HPP
#define MOLGRAPH_CHEM_MG_INTERNAL_HPP

#include <GraphMol/RWMol.h>
#include <GraphMol/ROMol.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mg {

// InvalidMolecule is thrown for input a chemist must fix; its message is
// shown to the user as is.
struct InvalidMolecule : public std::runtime_error {
  explicit InvalidMolecule(const std::string &m) : std::runtime_error(m) {}
};

// InchiResult is the standard InChI of a molecule.
struct InchiResult {
  std::string inchi, key, message;  // message: InChI warning or error text
};

// molToInchi computes the standard InChI and key from 0D stereo parities.
// It takes the global libinchi mutex. On failure inchi is empty and message
// says why.
InchiResult molToInchi(const RDKit::ROMol &mol);

// inchiToMol builds a sanitized molecule from an InChI string (through
// GetStructFromStdINCHI). Throws InvalidMolecule.
RDKit::RWMol *inchiToMol(const std::string &inchi, std::string &warning);

// sanitizeMessage turns an RDKit sanitization exception into a message.
std::string sanitizeMessage(const std::exception &e, const RDKit::ROMol *mol);

// QED holds the per-thread SMARTS patterns of Bickerton's QED.
class QED {
 public:
  QED();
  // compute returns QED (weighted mean) given the Crippen logP already
  // computed for mol (a molecule without explicit hydrogens).
  double compute(const RDKit::ROMol &mol, double logp) const;

 private:
  std::vector<std::unique_ptr<RDKit::ROMol>> acceptors_, alerts_;
  std::unique_ptr<RDKit::ROMol> aliphaticRings_;
};

}  // namespace mg

#endif
