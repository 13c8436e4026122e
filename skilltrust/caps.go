package skilltrust

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/remnant/passportkit/evidence"
)

// pair packs two keys into one map key.
func pair(a, b int32) int64 { return int64(a)<<32 | int64(uint32(b)) }

// positions gives each actor one conservative position per lineage cluster:
// the most conservative class among its observations there wins (an
// unresolved contradiction, then a failure, partial, uncertain outcome,
// success, resolved contradiction, corroboration), held by the heaviest
// record of that class; the actor's other records there are merged into it.
func (st *state) positions() {
	byKey := make(map[int64]*position, len(st.items))
	block := make([]position, 0, len(st.items)) // never reallocated: pos points into it
	for i := range st.items {
		it := &st.items[i]
		if !it.rec.Type.Observation() {
			continue
		}
		k := pair(it.keys.Reporter, it.keys.Cluster)
		p, ok := byKey[k]
		if !ok {
			block = append(block, position{rep: it})
			p = &block[len(block)-1]
			byKey[k] = p
			st.pos = append(st.pos, p)
			continue
		}
		if better(it, p.rep) {
			p.rep = it
		}
	}
	for _, p := range st.pos {
		p.w0 = p.rep.src.InitialWeight
	}
	for i := range st.items {
		it := &st.items[i]
		if !it.rec.Type.Observation() {
			continue
		}
		if p := byKey[pair(it.keys.Reporter, it.keys.Cluster)]; p.rep != it {
			it.src.Role = RoleMerged
			it.src.MergedInto = p.rep.rec.ID
			st.note(LimitMerged)
		}
	}
	st.a.Counts.Positions = len(st.pos)
	lineages, contexts := map[int32]bool{}, map[int32]bool{}
	for _, p := range st.pos {
		lineages[p.rep.keys.Cluster] = true
	}
	for i := range st.items {
		if it := &st.items[i]; it.rec.Type.Observation() {
			st.a.Counts.Observations++
			contexts[it.keys.Context] = true
		}
	}
	st.a.Counts.Lineages, st.a.Counts.Contexts = len(lineages), len(contexts)
}

// better reports whether a should hold the position instead of b: a more
// conservative class, then a heavier initial weight, then (for a stable
// choice that changes no figure) the smaller id.
func better(a, b *item) bool {
	if a.class != b.class {
		return a.class < b.class
	}
	if a.src.InitialWeight != b.src.InitialWeight {
		return a.src.InitialWeight > b.src.InitialWeight
	}
	return a.rec.ID < b.rec.ID
}

// caps scales every position by the smallest factor min(1, cap/initial
// mass) among its groups. Using initial masses makes the result independent
// of order, keeps every group within its cap, never raises a weight, and
// keeps each group's mix of successes and failures.
func (st *state) caps() {
	const (
		actor = iota
		operator
		unknown
		lineage
		operatorContext
	)
	// Actor, operator and lineage groups are indexed by their set keys;
	// the unknown pool is one group; operator contexts are looked up by
	// the pair of keys.
	sizes := st.set.KeySizes()
	byKey := [...][]*capGroup{
		actor:    make([]*capGroup, sizes.Reporter),
		operator: make([]*capGroup, sizes.Operator),
		unknown:  make([]*capGroup, 1),
		lineage:  make([]*capGroup, st.clusters.Len()),
	}
	opContext := map[int64]*capGroup{}
	var order []*capGroup
	add := func(p *position, slot **capGroup, g Group) {
		if *slot == nil {
			*slot = &capGroup{g: g}
			order = append(order, *slot)
		}
		cg := *slot
		cg.count++
		cg.g.InitialMass += p.w0 // in position order
		p.groups[p.ngroups] = cg
		p.ngroups++
	}
	join := func(p *position, kind int, key int64, g Group) {
		if kind == operatorContext {
			cg := opContext[key]
			add(p, &cg, g)
			opContext[key] = cg
			return
		}
		add(p, &byKey[kind][key], g)
	}
	ordinal := st.contextOrdinals()
	for _, p := range st.pos {
		r, k := p.rep.rec, p.rep.keys
		join(p, actor, int64(k.Reporter), Group{Kind: GroupActor, Key: r.Reporter, Cap: CapActor})
		join(p, lineage, int64(k.Cluster), Group{Kind: GroupLineage, Key: p.rep.src.Lineage, Cap: CapLineage})
		op := r.Operator
		switch r.Ownership {
		case evidence.OwnershipUnknown:
			join(p, unknown, 0, Group{Kind: GroupUnknownOperators, Key: "unknown", Cap: CapUnknownOperator})
			op = "unknown"
		case evidence.OwnershipSelf:
			continue // the subject has no operator group; its weight is zero
		default:
			join(p, operator, int64(k.Operator), Group{Kind: GroupOperator, Key: op, Cap: CapOperator})
		}
		if _, ok := opContext[pair(k.Operator, k.Context)]; !ok {
			op = fmt.Sprintf("%s#%d", op, ordinal[k.Context])
		}
		join(p, operatorContext, pair(k.Operator, k.Context), Group{Kind: GroupOperatorContext, Key: op, Cap: CapOperatorContext})
	}
	for _, g := range order {
		g.g.Factor = 1
		// A group is over its cap only beyond the tolerance (SPEC.md
		// §4.6): twenty weights of 0.05 sum to 1.0000000000000002 and
		// are not scaled.
		if g.g.InitialMass > g.g.Cap+tolerance {
			g.g.Factor = g.g.Cap / g.g.InitialMass
		}
		g.g.Members = make([]string, 0, g.count)
	}
	for _, p := range st.pos {
		f := 1.0
		for _, g := range p.groups[:p.ngroups] {
			f = math.Min(f, g.g.Factor)
		}
		if f < 1 && p.w0 > 0 {
			st.note(LimitCapsApplied)
		}
		p.w = p.w0 * f
		p.rep.src.Weight = p.w
		for _, g := range p.groups[:p.ngroups] {
			g.g.Mass += p.w
			g.g.Members = append(g.g.Members, p.rep.rec.ID)
		}
	}
	slices.SortFunc(order, func(a, b *capGroup) int {
		if c := strings.Compare(a.g.Kind, b.g.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.g.Key, b.g.Key)
	})
	st.a.Groups = make([]Group, len(order))
	for i, g := range order {
		st.a.Groups[i] = g.g
	}
}

// contextOrdinals numbers the distinct contexts of the positions from 1,
// in the order of their labels, so groups can be named without label
// values.
func (st *state) contextOrdinals() map[int32]int {
	seen := map[int32]int{}
	var keys []int32
	for _, p := range st.pos {
		if _, ok := seen[p.rep.keys.Context]; !ok {
			seen[p.rep.keys.Context] = 0
			keys = append(keys, p.rep.keys.Context)
		}
	}
	slices.SortFunc(keys, func(a, b int32) int {
		av, bv := st.set.NormalizedContext(a).Values(), st.set.NormalizedContext(b).Values()
		return slices.Compare(av[:], bv[:])
	})
	for i, k := range keys {
		seen[k] = i + 1
	}
	return seen
}
