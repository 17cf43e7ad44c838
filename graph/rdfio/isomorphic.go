package rdfio

import (
	"hash/fnv"
	"sort"
	"strconv"

	"github.com/cayleygraph/quad"
)

// Isomorphic reports whether a and b are the same RDF dataset up to a
// renaming of blank nodes (RDF 1.1 Concepts, 3.6 and 4.3), comparing the
// quads as sets (duplicates count once) including their graph labels.
// Literals compare by lexical form and datatype, language tags
// case-insensitively, and "x"^^xsd:string equals "x".
//
// The algorithm refines blank node colours by their neighbourhoods (as
// in canonicalisation algorithms) and then searches for a bijection by
// backtracking among equally coloured nodes; highly symmetric graphs can
// make that search exponential.
func Isomorphic(a, b []quad.Quad) bool {
	ga, gb := newIsoGraph(a), newIsoGraph(b)
	if len(ga.ground) != len(gb.ground) || len(ga.blank) != len(gb.blank) ||
		len(ga.nodes) != len(gb.nodes) {
		return false
	}
	for k := range ga.ground {
		if _, ok := gb.ground[k]; !ok {
			return false
		}
	}
	if len(ga.nodes) == 0 {
		return true
	}
	// Colour refinement, run in lockstep on both graphs.
	ca := make(map[string]uint64, len(ga.nodes))
	cb := make(map[string]uint64, len(gb.nodes))
	for n := range ga.nodes {
		ca[n] = 1
	}
	for n := range gb.nodes {
		cb[n] = 1
	}
	distinct := 1
	for round := 0; round <= len(ga.nodes); round++ {
		ca, cb = ga.refine(ca), gb.refine(cb)
		ha, hb := histogram(ca), histogram(cb)
		if len(ha) != len(hb) {
			return false
		}
		for c, n := range ha {
			if hb[c] != n {
				return false
			}
		}
		if len(ha) == distinct {
			break
		}
		distinct = len(ha)
	}
	// Backtracking over colour classes, smallest first.
	classB := map[uint64][]string{}
	for n, c := range cb {
		classB[c] = append(classB[c], n)
	}
	order := make([]string, 0, len(ca))
	for n := range ca {
		order = append(order, n)
	}
	sort.Slice(order, func(i, j int) bool {
		si, sj := len(classB[ca[order[i]]]), len(classB[ca[order[j]]])
		if si != sj {
			return si < sj
		}
		return order[i] < order[j]
	})
	m := &isoMatch{a: ga, b: gb, ca: ca, classB: classB, order: order,
		fwd: map[string]string{}, used: map[string]bool{}}
	return m.search(0)
}

type isoKey [4]string

type isoQuad struct {
	t     isoKey
	blank [4]bool
}

type isoGraph struct {
	ground map[isoKey]struct{}
	blank  map[isoKey]isoQuad
	nodes  map[string][]isoQuad // blank node -> quads mentioning it
}

func newIsoGraph(qs []quad.Quad) *isoGraph {
	g := &isoGraph{ground: map[isoKey]struct{}{}, blank: map[isoKey]isoQuad{}, nodes: map[string][]isoQuad{}}
	for _, q := range qs {
		var iq isoQuad
		any := false
		for d, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
			if bn, ok := v.(quad.BNode); ok {
				iq.t[d], iq.blank[d], any = string(bn), true, true
			} else {
				iq.t[d] = termKey(v)
			}
		}
		if !any {
			g.ground[iq.t] = struct{}{}
			continue
		}
		if _, dup := g.blank[iq.t]; dup {
			continue
		}
		g.blank[iq.t] = iq
		seen := map[string]bool{}
		for d := 0; d < 4; d++ {
			if iq.blank[d] && !seen[iq.t[d]] {
				seen[iq.t[d]] = true
				g.nodes[iq.t[d]] = append(g.nodes[iq.t[d]], iq)
			}
		}
	}
	return g
}

// refine computes new colours from each node's colour and the multiset of
// its quads, with blank nodes replaced by their colours.
func (g *isoGraph) refine(c map[string]uint64) map[string]uint64 {
	out := make(map[string]uint64, len(c))
	sigs := make([]string, 0, 8)
	for n, qs := range g.nodes {
		sigs = sigs[:0]
		for _, q := range qs {
			var s []byte
			for d := 0; d < 4; d++ {
				switch {
				case !q.blank[d]:
					s = append(s, q.t[d]...)
				case q.t[d] == n:
					s = append(s, "@self"...)
				default:
					s = append(s, "@b"...)
					s = strconv.AppendUint(s, c[q.t[d]], 16)
				}
				s = append(s, 0xff) // not valid UTF-8: cannot occur in keys
			}
			sigs = append(sigs, string(s))
		}
		sort.Strings(sigs)
		h := fnv.New64a()
		h.Write(strconv.AppendUint(nil, c[n], 16))
		for _, s := range sigs {
			h.Write([]byte{0xfe})
			h.Write([]byte(s))
		}
		out[n] = h.Sum64()
	}
	return out
}

func histogram(c map[string]uint64) map[uint64]int {
	h := map[uint64]int{}
	for _, v := range c {
		h[v]++
	}
	return h
}

type isoMatch struct {
	a, b   *isoGraph
	ca     map[string]uint64
	classB map[uint64][]string
	order  []string
	fwd    map[string]string
	used   map[string]bool
}

func (m *isoMatch) search(i int) bool {
	if i == len(m.order) {
		return true
	}
	n := m.order[i]
	for _, cand := range m.classB[m.ca[n]] {
		if m.used[cand] {
			continue
		}
		m.fwd[n], m.used[cand] = cand, true
		if m.consistent(n) && m.search(i+1) {
			return true
		}
		delete(m.fwd, n)
		delete(m.used, cand)
	}
	return false
}

// consistent checks every quad of n whose blank nodes are all mapped.
func (m *isoMatch) consistent(n string) bool {
	for _, q := range m.a.nodes[n] {
		k := q.t
		complete := true
		for d := 0; d < 4; d++ {
			if q.blank[d] {
				t, ok := m.fwd[q.t[d]]
				if !ok {
					complete = false
					break
				}
				k[d] = t
			}
		}
		if !complete {
			continue
		}
		bq, ok := m.b.blank[k]
		if !ok || bq.blank != q.blank {
			return false
		}
	}
	return true
}
