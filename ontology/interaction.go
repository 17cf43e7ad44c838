package ontology

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/cayleygraph/quad"
)

// Terms of pose interactions (TBox "Docking": mg:Residue and the
// mg:interactsWith family). A pose states one triple per (residue,
// interaction type) of its fingerprint (docking/interact):
//
//	<pose> mg:hydrogenBondWith <receptor>#res-A-318 .
//	<receptor>#res-A-318 a mg:Residue ; mg:residueName "MET" ; mg:residueNumber 318 ; mg:chain "A" .
//
// The residue nodes are written into the results graph of the poses that
// mention them (the receptor's own graph is not rewritten by a job).
// Atom-level details (atoms, distances, angles) are in the pose SDF's
// "interactions" tag, not in the graph: a results graph holds up to 32
// ligands x 20 modes, and one node per atom pair would exceed a commit.
const (
	ResidueClass          = quad.IRI(MG + "Residue")
	MGInteractsWith       = quad.IRI(MG + "interactsWith")
	MGResidueName         = quad.IRI(MG + "residueName")
	MGResidueNumber       = quad.IRI(MG + "residueNumber")
	MGChain               = quad.IRI(MG + "chain")
	MGInsertionCode       = quad.IRI(MG + "insertionCode")
	MGHydrogenBondWith    = quad.IRI(MG + "hydrogenBondWith")
	MGSaltBridgeWith      = quad.IRI(MG + "saltBridgeWith")
	MGPiStackingWith      = quad.IRI(MG + "piStackingWith")
	MGPiCationWith        = quad.IRI(MG + "piCationWith")
	MGHydrophobicWith     = quad.IRI(MG + "hydrophobicContactWith")
	MGHalogenBondWith     = quad.IRI(MG + "halogenBondWith")
	MGMetalContactWith    = quad.IRI(MG + "metalContactWith")
	interactionTypeDomain = "docking/interact types"
)

// IsInteractionPredicate says whether p is one of InteractionPredicates.
func IsInteractionPredicate(p quad.Value) bool {
	for _, v := range InteractionPredicates {
		if p == v {
			return true
		}
	}
	return false
}

// InteractionPredicates maps the interaction types of docking/interact
// (hbond, salt_bridge, ...) to their predicates.
var InteractionPredicates = map[string]quad.IRI{
	"hbond": MGHydrogenBondWith, "salt_bridge": MGSaltBridgeWith, "pi_stacking": MGPiStackingWith,
	"pi_cation": MGPiCationWith, "hydrophobic": MGHydrophobicWith, "halogen_bond": MGHalogenBondWith,
	"metal": MGMetalContactWith,
}

// PoseResidue is a receptor residue a pose interacts with.
type PoseResidue struct {
	Chain  string
	Number int
	ICode  string
	Name   string
}

// PoseInteraction is one fingerprint entry of a pose: an interaction type
// with a residue.
type PoseInteraction struct {
	Type    string // a key of InteractionPredicates
	Residue PoseResidue
}

// ResidueIRI mints <receptor>#res-<chain>-<number><icode> (chain "_" when
// blank; characters other than letters and digits percent-encoded).
func ResidueIRI(receptor quad.IRI, r PoseResidue) quad.IRI {
	ch := r.Chain
	if ch == "" {
		ch = "_"
	}
	return SubIRI(receptor, "res-"+fragmentSafe(ch)+"-"+strconv.Itoa(r.Number)+fragmentSafe(r.ICode))
}

func fragmentSafe(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' {
			out = append(out, c)
		} else {
			out = fmt.Appendf(out, "%%%02X", c)
		}
	}
	return string(out)
}

// interactionQuads are a pose's fingerprint triples and the residue nodes
// they point to (receptor is the receptor IRI). Errors wrap
// ErrInvalidDockingRecord.
func interactionQuads(pose, receptor quad.IRI, in []PoseInteraction, seen map[quad.IRI]bool) ([]quad.Quad, error) {
	var out []quad.Quad
	for _, it := range in {
		p, ok := InteractionPredicates[it.Type]
		if !ok || receptor == "" || it.Residue.Name == "" {
			return nil, fmt.Errorf("ontology: pose interactions: %w: %q with %+v (%s)", ErrInvalidDockingRecord, it.Type, it.Residue, interactionTypeDomain)
		}
		res := ResidueIRI(receptor, it.Residue)
		out = append(out, quad.Quad{Subject: pose, Predicate: p, Object: res})
		if seen[res] {
			continue
		}
		seen[res] = true
		out = append(out,
			quad.Quad{Subject: res, Predicate: RDFType, Object: ResidueClass},
			quad.Quad{Subject: res, Predicate: MGResidueName, Object: String(it.Residue.Name)},
			quad.Quad{Subject: res, Predicate: MGResidueNumber, Object: Integer(int64(it.Residue.Number))},
			quad.Quad{Subject: res, Predicate: MGChain, Object: String(it.Residue.Chain)})
		if it.Residue.ICode != "" {
			out = append(out, quad.Quad{Subject: res, Predicate: MGInsertionCode, Object: String(it.Residue.ICode)})
		}
	}
	return out, nil
}

// poseInteractions reads a pose's fingerprint back: its mg:interactsWith
// family triples (in poseQuads) and the residue nodes (in byRes), sorted
// by chain, number, insertion code and type order.
func poseInteractions(poseQuads []quad.Quad, byRes map[quad.Value][]quad.Quad) []PoseInteraction {
	var out []PoseInteraction
	for _, q := range poseQuads {
		typ := ""
		for k, p := range InteractionPredicates {
			if q.Predicate == p {
				typ = k
			}
		}
		if typ == "" {
			continue
		}
		var r PoseResidue
		for _, rq := range byRes[q.Object] {
			switch rq.Predicate {
			case MGResidueName:
				r.Name, _ = dkString(rq.Object)
			case MGResidueNumber:
				r.Number, _ = intOf(rq.Object)
			case MGChain:
				r.Chain, _ = dkString(rq.Object)
			case MGInsertionCode:
				r.ICode, _ = dkString(rq.Object)
			}
		}
		out = append(out, PoseInteraction{Type: typ, Residue: r})
	}
	order := []string{"hbond", "salt_bridge", "pi_stacking", "pi_cation", "hydrophobic", "halogen_bond", "metal"}
	slices.SortFunc(out, func(a, b PoseInteraction) int {
		switch {
		case a.Residue.Chain != b.Residue.Chain:
			return cmpStr(a.Residue.Chain, b.Residue.Chain)
		case a.Residue.Number != b.Residue.Number:
			return a.Residue.Number - b.Residue.Number
		case a.Residue.ICode != b.Residue.ICode:
			return cmpStr(a.Residue.ICode, b.Residue.ICode)
		}
		return slices.Index(order, a.Type) - slices.Index(order, b.Type)
	})
	return slices.Compact(out)
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
