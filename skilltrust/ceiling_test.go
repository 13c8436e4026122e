package skilltrust_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// levelRank orders the evidence levels.
func levelRank(l passport.EvidenceLevel) int {
	switch l {
	case passport.LevelStrong:
		return 3
	case passport.LevelModerate:
		return 2
	case passport.LevelLow:
		return 1
	}
	return 0
}

// above reports whether the ceiling c is below what a shows, in the order
// a registry ranks by: level, then the estimate's lower bound (none last).
func above(a *skilltrust.Assessment, c skilltrust.Ceiling) error {
	la, lc := levelRank(a.EvidenceLevel), levelRank(c.Level)
	switch {
	case la > lc:
		return fmt.Errorf("level %s above the ceiling %s", a.EvidenceLevel, c.Level)
	case la < lc || a.Estimate == nil:
		return nil
	case c.Lower == nil:
		return fmt.Errorf("an estimate (lower %g) where the ceiling allows none", a.Estimate.Lower)
	case a.Estimate.Lower > *c.Lower:
		return fmt.Errorf("lower bound %.9f above the ceiling's %.9f", a.Estimate.Lower, *c.Lower)
	}
	return nil
}

// ceilingBelow reports whether a is a tighter ceiling than b.
func ceilingBelow(a, b skilltrust.Ceiling) bool {
	switch la, lb := levelRank(a.Level), levelRank(b.Level); {
	case la != lb:
		return la < lb
	case a.Lower == nil || b.Lower == nil:
		return a.Lower == nil && b.Lower != nil
	}
	return *a.Lower < *b.Lower
}

// contexts are task contexts that match, miss and contradict the labels
// randomRecords writes.
var contexts = []evidence.Context{
	{},
	{Workload: "oltp"},
	{Workload: "batch"},
	{Version: "17"},
	{Version: "16", Workload: "oltp"},
	{Protocol: "postgres"},
	{Workload: "analytics", Version: "17"},
	{Domain: "fintech", Environment: "k8s", Protocol: "postgres", Version: "16", Workload: "batch", Constraints: "low-latency"},
}

// TestCeilingBoundsEveryContext: for random evidence, no task context
// gives a skill a higher level than its ceiling, nor at that level a higher
// lower bound.
func TestCeilingBoundsEveryContext(t *testing.T) {
	skills := []string{"PostgreSQL", "PostgreSQL indexing", "PostgreSQL replication", "PostgreSQL query optimization", "SQLite"}
	reached := map[passport.EvidenceLevel]int{}
	tighter := map[bool]int{}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 17))
		recs := randomRecords(rng, 20+rng.IntN(300))
		set, err := evidence.NewSet(recs, seed%29 == 0)
		if err != nil {
			t.Fatal(err)
		}
		ceilings, err := skilltrust.Ceilings(set, skills, at)
		if err != nil {
			t.Fatal(err)
		}
		for i, sk := range skills {
			c := ceilings[i]
			if c.Skill != skilltrust.Skills1().Normalize(sk).Name {
				t.Fatalf("ceilings of %q name %q", sk, c.Skill)
			}
			reached[c.Any.Level]++
			for _, ctx := range contexts {
				a, err := skilltrust.Assess(set, skilltrust.Task{Skill: sk, Context: ctx}, at)
				if err != nil {
					t.Fatal(err)
				}
				if err := above(a, c.Any); err != nil {
					t.Fatalf("seed %d, %s in %+v, any context: %v", seed, sk, ctx, err)
				}
				// Every dimension the context states bounds it, and the
				// ceiling For names.
				_, _, stated := skilltrust.ContextDimension(ctx)
				for d, l := range ctx.Normalized().Values() {
					if l == "" {
						continue
					}
					dcs := []skilltrust.DimensionCeilings{c.Dimensions[d]}
					if stated == 1 {
						dcs = append(dcs, c.Alone[d])
					}
					for _, dc := range dcs {
						ceiling, ok := dc.Labels[l]
						if !ok {
							ceiling = dc.Other
						}
						if err := above(a, ceiling); err != nil {
							t.Fatalf("seed %d, %s in %+v, by %s: %v", seed, sk, ctx, evidence.Dimensions[d], err)
						}
						tighter[ceilingBelow(ceiling, c.Any)]++
					}
				}
				if err := above(a, c.For(ctx)); err != nil {
					t.Fatalf("seed %d, %s in %+v, the ceiling For names: %v", seed, sk, ctx, err)
				}
			}
		}
	}
	// The property is not vacuous: the random evidence reaches every level,
	// and the ceilings by dimension are often tighter than Any.
	if tighter[true] == 0 {
		t.Error("no ceiling by dimension is ever below the ceiling of any context")
	}
	for _, l := range []passport.EvidenceLevel{passport.LevelVeryLow, passport.LevelLow, passport.LevelModerate, passport.LevelStrong} {
		if reached[l] == 0 {
			t.Errorf("no ceiling at %s: the random evidence is too narrow to test the bound", l)
		}
	}
}

// TestContextCanRaiseFigures shows why a context-free ranking is no bound
// for a contextual one: failures reported in another workload weigh less
// in this one, so the lower bound of the estimate rises above the
// context-free one (yet stays within the ceiling).
func TestContextCanRaiseFigures(t *testing.T) {
	var recs []evidence.Record
	for i := range 10 {
		r := evidence.Record{ID: fmt.Sprintf("ev_%02d", i), Type: evidence.TypeOutcome, Outcome: evidence.OutcomeSuccess,
			Skill: "PostgreSQL", Quality: evidence.QualityObservedReuse, Reporter: fmt.Sprintf("act_%d", i),
			Operator: fmt.Sprintf("op_%d", i), Ownership: evidence.OwnershipDistinct, Date: at,
			Lineage: &evidence.Lineage{Memory: fmt.Sprintf("mem_%d", i)}, Context: evidence.Context{Workload: "oltp"}}
		if i >= 6 {
			r.Outcome, r.Context = evidence.OutcomeFailure, evidence.Context{Workload: "batch"}
		}
		recs = append(recs, r)
	}
	set := mustSet(t, recs)
	free, err := skilltrust.Assess(set, skilltrust.Task{Skill: "PostgreSQL"}, at)
	if err != nil {
		t.Fatal(err)
	}
	oltp, err := skilltrust.Assess(set, skilltrust.Task{Skill: "PostgreSQL", Context: evidence.Context{Workload: "oltp"}}, at)
	if err != nil {
		t.Fatal(err)
	}
	if free.Estimate == nil || oltp.Estimate == nil || !(oltp.Estimate.Lower > free.Estimate.Lower) {
		t.Fatalf("context-free estimate %+v, in oltp %+v: the context should raise the lower bound", free.Estimate, oltp.Estimate)
	}
	c, err := skilltrust.Ceilings(set, []string{"PostgreSQL"}, at)
	if err != nil {
		t.Fatal(err)
	}
	for _, ceiling := range []skilltrust.Ceiling{c[0].Any, c[0].For(evidence.Context{Workload: "OLTP"})} {
		if err := above(oltp, ceiling); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWilsonLowerMonotone pins what the ceiling relies on: the lower bound
// rises with successes and falls with failures.
func TestWilsonLowerMonotone(t *testing.T) {
	lower := func(s, f float64) float64 {
		if s+f == 0 {
			return 0
		}
		return skilltrust.Wilson(s, s+f).Lower
	}
	for s := 0.0; s <= 60; s += 0.37 {
		for f := 0.0; f <= 60; f += 0.41 {
			l := lower(s, f)
			if more := lower(s+0.05, f); more < l-1e-15 {
				t.Fatalf("S %g → %g, F %g: lower %g → %g", s, s+0.05, f, l, more)
			}
			if more := lower(s, f+0.05); more > l+1e-15 {
				t.Fatalf("S %g, F %g → %g: lower %g → %g", s, f, f+0.05, l, more)
			}
		}
	}
}
