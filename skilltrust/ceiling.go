package skilltrust

import (
	"math"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// Ceiling bounds what task contexts can make of one skill's evidence: none
// of the contexts it covers gives the skill a higher evidence level than
// Level and, when one gives it that level, no estimate whose lower bound is
// above Lower. A registry ranking agents for a task in context can walk
// them by their ceilings and stop once no ceiling left can reach its page.
//
// A context is not simply a discount. It multiplies each observation's
// initial weight by 1, 0.5 or 0.2, so no initial weight rises, but figures
// after the caps can: a failure in a mismatched context weighs less, so the
// lower bound of the estimate can climb; a capped group holding a
// discounted member leaves more room to the others; the record that holds
// a position can change, and with it the position's operator and context.
// A ceiling bounds every such effect (SPEC.md §17.4).
type Ceiling struct {
	// Level is the highest evidence level a covered context can give.
	Level passport.EvidenceLevel
	// Lower bounds from above the lower bound of the estimate a covered
	// context can show; nil when none can show an estimate.
	Lower *float64
}

// ContextCeilings are the ceilings of one skill's evidence. Any covers
// every task context. Dimensions hold, in the order of evidence.Dimensions,
// tighter ceilings for the task contexts that state a label on that
// dimension: Labels for each label a relevant observation of non-zero
// eligibility carries there (normalised), Other for any label none of them
// carries; a task context stating labels on several dimensions is covered
// by the ceiling of each. Alone holds tighter ones still for the task
// contexts that state a label on that dimension and on no other.
type ContextCeilings struct {
	// Skill is the normalised skill.
	Skill      string
	Any        Ceiling
	Dimensions [6]DimensionCeilings
	Alone      [6]DimensionCeilings
}

// DimensionCeilings are the ceilings of the task contexts that state a
// label on one dimension.
type DimensionCeilings struct {
	Labels map[string]Ceiling
	Other  Ceiling
}

// For states which ceiling covers a task context: for a context that
// states one dimension, the Alone ceiling of that dimension by the label it
// states; for one that states several, that of the first it states; Any for
// one that states none.
func (c *ContextCeilings) For(task evidence.Context) Ceiling {
	dim, label, stated := ContextDimension(task)
	switch {
	case stated == 0:
		return c.Any
	case stated == 1:
		return c.Alone[dim].label(label)
	}
	return c.Dimensions[dim].label(label)
}

func (d DimensionCeilings) label(l string) Ceiling {
	if lc, ok := d.Labels[l]; ok {
		return lc
	}
	return d.Other
}

// ContextDimension returns the index in evidence.Dimensions of the first
// dimension task states, the normalised label it states there, and how
// many dimensions it states.
func ContextDimension(task evidence.Context) (dim int, label string, stated int) {
	dim = -1
	for i, l := range task.Normalized().Values() {
		if l == "" {
			continue
		}
		if stated++; dim < 0 {
			dim, label = i, l
		}
	}
	return dim, label, stated
}

// ceilingSlack loosens every threshold the ceiling tests by far more than
// the rounding of the sums it compares with the assessment's own: a
// ceiling may only err upwards.
const ceilingSlack = 1e-6

// Ceilings returns the ceilings of each skill from set as of at, in the
// order given, reading the evidence once as AssessSkills does.
func Ceilings(set *evidence.Set, skills []string, at evidence.Date) ([]ContextCeilings, error) {
	tasks := make([]Task, len(skills))
	for i, sk := range skills {
		tasks[i] = Task{Skill: sk}
	}
	out := make([]ContextCeilings, 0, len(skills))
	err := eachScope(set, tasks, at, func(task Task, sc *scope) error {
		st, err := begin(set, task, at, sc)
		if err != nil {
			return err
		}
		out = append(out, newCeilings(st).all())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ceilings bounds the figures of task contexts from the context-free
// positions of an assessment begun with no task context, where every
// initial weight is the largest any context allows.
//
// Under a context every position keeps its class (classes do not depend
// on context) and is held by its heaviest record of that class, so its
// initial weight is at most the largest, over its records of that class,
// of the record's context-free initial weight times the most the context
// lets that record's match be (its factor). Every final weight is within
// its initial weight and within its actor's and its lineage's caps. Hence
// the observations O, binary outcomes N and successes S are at most, each,
// the smaller of two sums: over actors of min(8, the actor's bounded
// mass) and over lineage clusters of min(3, the cluster's). The distinct
// operators, validators and contexts are among those of the eligible
// records that can hold a position. And the Wilson lower bound rises with
// S and falls with the failures F, so it is at most that of S successes
// and the least F any covered context leaves (failureFloor).
type ceilings struct {
	st *state
	// holders lists, per position, its records of the position's class
	// with non-zero eligibility: those that can hold it.
	holders [][]*item
	labels  [6]map[string]bool
	// The distinct counts of the records that can hold a position.
	ops, vals, ctxs, bops, bvals int
}

func newCeilings(st *state) *ceilings {
	c := &ceilings{st: st, holders: make([][]*item, len(st.pos))}
	index := make(map[int64]int, len(st.pos))
	for i, p := range st.pos {
		index[pair(p.rep.keys.Reporter, p.rep.keys.Cluster)] = i
	}
	for d := range c.labels {
		c.labels[d] = map[string]bool{}
	}
	ops, vals, ctxs := map[int32]bool{}, map[int32]bool{}, map[int32]bool{}
	bops, bvals := map[int32]bool{}, map[int32]bool{}
	for i := range st.items {
		it := &st.items[i]
		if !it.rec.Type.Observation() || it.src.Eligibility <= 0 {
			continue
		}
		for d, l := range st.set.NormalizedContext(it.keys.Context).Values() {
			if l != "" {
				c.labels[d][l] = true
			}
		}
		p := index[pair(it.keys.Reporter, it.keys.Cluster)]
		if it.class != st.pos[p].rep.class {
			continue // a record of another class never holds this position
		}
		c.holders[p] = append(c.holders[p], it)
		ctxs[it.keys.Context] = true
		if it.rec.Ownership != evidence.OwnershipDistinct {
			continue
		}
		ops[it.keys.Operator], vals[it.keys.Reporter] = true, true
		if it.class == classSuccess || it.class == classFailure {
			bops[it.keys.Operator], bvals[it.keys.Reporter] = true, true
		}
	}
	c.ops, c.vals, c.ctxs, c.bops, c.bvals = len(ops), len(vals), len(ctxs), len(bops), len(bvals)
	return c
}

// all computes every ceiling of the skill.
func (c *ceilings) all() ContextCeilings {
	out := ContextCeilings{Skill: c.st.a.Skill, Any: c.bound(func(*item) float64 { return 1 }, false)}
	for d := range out.Dimensions {
		label := func(it *item) string { return c.st.set.NormalizedContext(it.keys.Context).Values()[d] }
		// A task stating a label no record carries: records without the
		// dimension are missing it, the others mismatch.
		other := func(it *item) float64 {
			if label(it) == "" {
				return ContextMissingCap
			}
			return ContextMismatchCap
		}
		of := func(l string) func(*item) float64 {
			return func(it *item) float64 {
				switch label(it) {
				case l:
					return 1
				case "":
					return ContextMissingCap
				}
				return ContextMismatchCap
			}
		}
		for i, alone := range []bool{false, true} {
			dc := DimensionCeilings{Labels: make(map[string]Ceiling, len(c.labels[d])), Other: c.bound(other, alone)}
			for l := range c.labels[d] {
				dc.Labels[l] = c.bound(of(l), alone)
			}
			if i == 0 {
				out.Dimensions[d] = dc
			} else {
				out.Alone[d] = dc
			}
		}
	}
	return out
}

// bound is the ceiling of the task contexts under which no record's
// context match exceeds factor(record). With exact, the contexts are
// those under which every record's match is factor(record) (a context
// stating one dimension); otherwise it may be as low as the mismatch cap.
func (c *ceilings) bound(factor func(*item) float64, exact bool) Ceiling {
	out := Ceiling{Level: passport.LevelVeryLow}
	type masses struct{ all, binary, success float64 }
	actors, lineages := map[int32]*masses{}, map[int32]*masses{}
	add := func(m map[int32]*masses, k int32, p *position, w float64) {
		g := m[k]
		if g == nil {
			g = &masses{}
			m[k] = g
		}
		g.all += w
		switch p.rep.class {
		case classSuccess:
			g.binary += w
			g.success += w
		case classFailure:
			g.binary += w
		}
	}
	// w[i] bounds position i's initial weight from above, low[i] from
	// below: no context's match is below the mismatch cap.
	w, low := make([]float64, len(c.st.pos)), make([]float64, len(c.st.pos))
	for i, p := range c.st.pos {
		for _, it := range c.holders[i] {
			f := factor(it)
			w[i] = math.Max(w[i], it.src.InitialWeight*f)
			if !exact {
				f = ContextMismatchCap
			}
			low[i] = math.Max(low[i], it.src.InitialWeight*f)
		}
		add(actors, p.rep.keys.Reporter, p, w[i])
		add(lineages, p.rep.keys.Cluster, p, w[i])
	}
	capped := func(m map[int32]*masses, limit float64, f func(*masses) float64) float64 {
		t := 0.0
		for _, g := range m {
			t += math.Min(limit, f(g))
		}
		return t
	}
	sum := func(f func(*masses) float64) float64 {
		return math.Min(capped(actors, CapActor, f), capped(lineages, CapLineage, f))
	}
	o := sum(func(g *masses) float64 { return g.all })
	n := sum(func(g *masses) float64 { return g.binary })
	s := sum(func(g *masses) float64 { return g.success })

	truncated := c.st.set.Truncated()
	meets := func(t levelThreshold) bool {
		return o >= t.Observations-ceilingSlack && c.ops >= t.Operators && c.vals >= t.Validators && c.ctxs >= t.Contexts
	}
	switch {
	case meets(strongLevel) && !truncated:
		out.Level = passport.LevelStrong
	case meets(moderateLevel) && !truncated:
		out.Level = passport.LevelModerate
	case meets(lowLevel):
		out.Level = passport.LevelLow
	}
	if !truncated && n >= MinBinary-ceilingSlack && c.bops >= MinOperators && c.bvals >= MinValidators {
		lower := 0.0
		if s > 0 {
			lower = Wilson(s, s+c.failureFloor(w, low)).Lower
		}
		lower = math.Min(1, lower+ceilingSlack)
		out.Lower = &lower
	}
	return out
}

// failureFloor bounds from below the final mass of failures under every
// covered context, given each position's initial weight bounds: each
// failure position's initial weight is at least low, and every group it
// can belong to scales it by at least min(1, cap / the most mass the group
// can hold). A position belongs to its actor and its lineage whatever the
// context; to an operator group (or the unknown pool) and an operator and
// context group by the record that holds it, so by any of its holders'.
func (c *ceilings) failureFloor(w, low []float64) float64 {
	type group struct {
		kind int
		key  int64
	}
	const (
		actor = iota
		lineage
		operator
		unknown
		operatorContext
	)
	groupsOf := func(i int) []group {
		p := c.st.pos[i]
		gs := []group{{actor, int64(p.rep.keys.Reporter)}, {lineage, int64(p.rep.keys.Cluster)}}
		for _, it := range c.holders[i] {
			// As the caps group them (state.caps).
			if it.rec.Ownership == evidence.OwnershipUnknown {
				gs = append(gs, group{unknown, 0})
			} else {
				gs = append(gs, group{operator, int64(it.keys.Operator)})
			}
			gs = append(gs, group{operatorContext, pair(it.keys.Operator, it.keys.Context)})
		}
		return gs
	}
	caps := map[int]float64{actor: CapActor, lineage: CapLineage, operator: CapOperator, unknown: CapUnknownOperator, operatorContext: CapOperatorContext}
	most := map[group]float64{}
	for i := range c.st.pos {
		seen := map[group]bool{}
		for _, g := range groupsOf(i) {
			if !seen[g] {
				seen[g] = true
				most[g] += w[i]
			}
		}
	}
	floor := 0.0
	for i, p := range c.st.pos {
		if p.rep.class != classFailure || low[i] == 0 {
			continue
		}
		f := 1.0
		for _, g := range groupsOf(i) {
			if m := most[g]; m > caps[g.kind] {
				f = math.Min(f, caps[g.kind]/m)
			}
		}
		floor += low[i] * f
	}
	// Rounding only ever lowers a floor.
	return math.Max(0, floor*(1-1e-9)-ceilingSlack)
}
