package sparql

// Join over UNION. A group such as
//
//	?m mg:molecularWeight ?mw .
//	{ ?m mg:tpsa ?t FILTER(?t > 140) BIND("polar" AS ?r) }
//	UNION
//	{ ?m mg:logP ?l FILTER(?l > 6.5) BIND("lipophilic" AS ?r) }
//
// is Join(BGP, Union(A, B)) in the algebra: evaluated as written, every
// solution of the BGP (every molecule) runs both branches. Join
// distributes over UNION (Join(P, Union(A, B)) = Union(Join(P, A),
// Join(P, B)) on multisets of solutions), and where a branch is a BGP
// under FILTERs and BINDs that read only the branch's own certain
// variables, Join(P, Filter(F, Extend(Q, ?v, e))) = Filter(F, Extend(Join(P,
// Q), ?v, e)) and Join(P, Q) of two BGPs is their union: so the parser
// rewrites the group into Union(Filter(F1, Extend(P ∪ A, ...)), ...), one
// BGP per branch that the planner orders as a whole (here the filtered
// descriptor first, the weight looked up per passing molecule, in id
// batches: star.go). The rewrite keeps the solutions (not their order,
// which no query without ORDER BY may rely on); it applies only where
// each step above holds (a BIND's variable not bound by P, no EXISTS in
// the conditions, every variable they read certain in the branch) and to
// at most distributeMaxBranches branches, each repeating P's patterns
// (counted against MaxPatterns). One difference remains: a join of groups
// compares its shared variables with sameTerm, a BGP looks the terms up
// as stored, so on data holding both "a" and "a"^^xsd:string (one term
// in RDF 1.1), or "a"@en and "a"@EN, the rewritten join finds the exact
// form only, as every join inside a BGP already does.

// distributeMaxBranches bounds the branches a BGP is distributed over.
const distributeMaxBranches = 8

// distribute returns the join of the BGP b with the union u rewritten as
// above, or nil when the rewrite does not apply.
func (p *parser) distribute(at token, b *nBGP, u *nUnion) node {
	bvars := varSet{}
	allVars(b, bvars)
	branches, ok := distributable(u, bvars)
	if !ok || branches > distributeMaxBranches {
		return nil
	}
	return p.mergeBGP(at, b, u)
}

// distributable reports whether the BGP whose variables are bvars can be
// merged into every branch of n, and the number of BGPs it would be
// merged into.
func distributable(n node, bvars varSet) (int, bool) {
	switch x := n.(type) {
	case *nBGP:
		return 1, len(x.pats) > 0
	case *nUnion:
		l, ok := distributable(x.l, bvars)
		if !ok {
			return 0, false
		}
		r, ok := distributable(x.r, bvars)
		return l + r, ok
	case *nFilter:
		cert := varSet{}
		certainVars(x.p, cert)
		for _, c := range x.conds {
			if !readsOnly(c, cert) {
				return 0, false
			}
		}
		return distributable(x.p, bvars)
	case *nExtend:
		cert := varSet{}
		certainVars(x.p, cert)
		if bvars[x.slot] || !readsOnly(x.e, cert) {
			return 0, false
		}
		return distributable(x.p, bvars)
	}
	return 0, false
}

// readsOnly reports whether e reads only variables of cert and has no
// EXISTS (which would see the merged BGP's bindings).
func readsOnly(e expr, cert varSet) bool {
	if hasExists(e) {
		return false
	}
	vs := varSet{}
	exprVars(e, vs)
	for v := range vs {
		if !cert[v] {
			return false
		}
	}
	return true
}

// mergeBGP builds n with the patterns of b added to each of its BGPs
// (distributable must hold).
func (p *parser) mergeBGP(at token, b *nBGP, n node) node {
	switch x := n.(type) {
	case *nBGP:
		m := &nBGP{pats: append(append(make([]triplePat, 0, len(b.pats)+len(x.pats)), b.pats...), x.pats...)}
		p.counted(at, len(b.pats))
		if d := max(p.treeDepth(b), p.treeDepth(x)); d > 1 {
			p.setDepth(at, m, d)
		}
		return m
	case *nUnion:
		m := &nUnion{l: p.mergeBGP(at, b, x.l), r: p.mergeBGP(at, b, x.r)}
		p.built(at, m, m.l, m.r)
		return m
	case *nFilter:
		m := &nFilter{conds: x.conds, p: p.mergeBGP(at, b, x.p)}
		kids := []any{m.p}
		for _, c := range m.conds {
			kids = append(kids, c)
		}
		p.built(at, m, kids...)
		return m
	case *nExtend:
		m := &nExtend{p: p.mergeBGP(at, b, x.p), slot: x.slot, e: x.e}
		p.built(at, m, m.p, m.e)
		return m
	}
	return n // not reached: distributable holds
}
