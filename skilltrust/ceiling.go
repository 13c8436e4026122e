package skilltrust

import (
	"math"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// Ceiling is the most any task context can make of one skill's evidence:
// no context gives the skill a higher evidence level than Level and, when
// a context gives it that level, no estimate whose lower bound is above
// Lower. A registry ranking agents for a task in context can walk them by
// their ceilings and stop once no ceiling left can reach its page.
//
// A context is not simply a discount. It multiplies each observation's
// initial weight by 1, 0.5 or 0.2, so every initial weight falls or stays,
// but figures after the caps can rise: a failure in a mismatched context
// weighs less, so the lower bound of the estimate can climb; a capped
// group holding a discounted member leaves more room to the others; the
// record that holds a position can change, and with it the position's
// operator and context. The ceiling bounds every such effect (SPEC.md §17).
type Ceiling struct {
	// Skill is the normalised skill.
	Skill string
	// Level is the highest evidence level any task context can give.
	Level passport.EvidenceLevel
	// Lower bounds from above the lower bound of the estimate any task
	// context can show; nil when no context can show an estimate.
	Lower *float64
}

// ceilingSlack loosens every threshold the ceiling tests by far more than
// the rounding of the sums it compares with the assessment's own: a
// ceiling may only err upwards.
const ceilingSlack = 1e-6

// Ceilings returns the ceiling of each skill from set as of at, in the
// order given, reading the evidence once as AssessSkills does.
func Ceilings(set *evidence.Set, skills []string, at evidence.Date) ([]Ceiling, error) {
	tasks := make([]Task, len(skills))
	for i, sk := range skills {
		tasks[i] = Task{Skill: sk}
	}
	out := make([]Ceiling, 0, len(skills))
	err := eachScope(set, tasks, at, func(task Task, sc *scope) error {
		st, err := begin(set, task, at, sc)
		if err != nil {
			return err
		}
		out = append(out, st.ceiling())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ceiling bounds the figures of every task context from the context-free
// positions of st (begun with no task context, so every initial weight is
// its largest).
//
// Under a context a position keeps its class (classes do not depend on
// context) and is held by its heaviest record of that class, so its
// initial weight is at most the context-free one; and every final weight
// is within its initial weight and within its actor's and its lineage's
// caps. Hence the observations O, binary outcomes N and successes S of any
// context are at most, each, the smaller of two sums: over actors of
// min(8, the actor's context-free initial mass) and over lineage clusters
// of min(3, the cluster's). The distinct operators, validators and
// contexts of any context are among those of the eligible records that
// could hold a position. Finally the Wilson lower bound rises with S and
// falls with the failures F, so it is at most that of S successes and no
// failure: S/(S+z²).
func (st *state) ceiling() Ceiling {
	c := Ceiling{Skill: st.a.Skill, Level: passport.LevelVeryLow}
	type masses struct{ all, binary, success float64 }
	actors, lineages := map[int32]*masses{}, map[int32]*masses{}
	byKey := make(map[int64]*position, len(st.pos))
	add := func(m map[int32]*masses, k int32, p *position) {
		g := m[k]
		if g == nil {
			g = &masses{}
			m[k] = g
		}
		g.all += p.w0
		switch p.rep.class {
		case classSuccess:
			g.binary += p.w0
			g.success += p.w0
		case classFailure:
			g.binary += p.w0
		}
	}
	for _, p := range st.pos {
		k := p.rep.keys
		byKey[pair(k.Reporter, k.Cluster)] = p
		add(actors, k.Reporter, p)
		add(lineages, k.Cluster, p)
	}
	capped := func(m map[int32]*masses, limit float64, f func(*masses) float64) float64 {
		t := 0.0
		for _, g := range m {
			t += math.Min(limit, f(g))
		}
		return t
	}
	bound := func(f func(*masses) float64) float64 {
		return math.Min(capped(actors, CapActor, f), capped(lineages, CapLineage, f))
	}
	o := bound(func(g *masses) float64 { return g.all })
	n := bound(func(g *masses) float64 { return g.binary })
	s := bound(func(g *masses) float64 { return g.success })

	ops, vals, ctxs := map[int32]bool{}, map[int32]bool{}, map[int32]bool{}
	bops, bvals := map[int32]bool{}, map[int32]bool{}
	for i := range st.items {
		it := &st.items[i]
		if !it.rec.Type.Observation() || it.src.Eligibility <= 0 {
			continue
		}
		p := byKey[pair(it.keys.Reporter, it.keys.Cluster)]
		if it.class != p.rep.class {
			continue // a record of another class never holds this position
		}
		ctxs[it.keys.Context] = true
		if it.rec.Ownership != evidence.OwnershipDistinct {
			continue
		}
		ops[it.keys.Operator], vals[it.keys.Reporter] = true, true
		if it.class == classSuccess || it.class == classFailure {
			bops[it.keys.Operator], bvals[it.keys.Reporter] = true, true
		}
	}
	truncated := st.set.Truncated()
	meets := func(t levelThreshold) bool {
		return o >= t.Observations-ceilingSlack && len(ops) >= t.Operators && len(vals) >= t.Validators && len(ctxs) >= t.Contexts
	}
	switch {
	case meets(strongLevel) && !truncated:
		c.Level = passport.LevelStrong
	case meets(moderateLevel) && !truncated:
		c.Level = passport.LevelModerate
	case meets(lowLevel):
		c.Level = passport.LevelLow
	}
	if !truncated && n >= MinBinary-ceilingSlack && len(bops) >= MinOperators && len(bvals) >= MinValidators {
		lower := 0.0
		if s > 0 {
			lower = Wilson(s, s).Lower
		}
		lower = math.Min(1, lower+ceilingSlack)
		c.Lower = &lower
	}
	return c
}
