package skilltrust_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/skilltrust"
)

var at = evidence.MustDate("2026-01-01")

// randomRecords returns n varied records about PostgreSQL skills: a few
// operators and actors, shared memories and contexts, every ownership,
// outcome and observation type, ages up to three years.
func randomRecords(rng *rand.Rand, n int) []evidence.Record {
	skills := []string{"PostgreSQL", "PostgreSQL indexing", "PG replication", "Postgres tuning", "SQLite"}
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain}
	recs := make([]evidence.Record, 0, n)
	for i := range n {
		actor := rng.IntN(12)
		r := evidence.Record{
			ID: fmt.Sprintf("ev_%d", i), Type: evidence.TypeOutcome, Outcome: outcomes[rng.IntN(len(outcomes))],
			Skill: skills[rng.IntN(len(skills))], Quality: evidence.QualityObservedReuse,
			Reporter: fmt.Sprintf("act_%d", actor), Operator: fmt.Sprintf("op_%d", actor%5), Ownership: evidence.OwnershipDistinct,
			Lineage: &evidence.Lineage{Memory: fmt.Sprintf("mem_%d", rng.IntN(n/3+1))},
			Context: evidence.Context{Workload: []string{"", "oltp", "batch"}[rng.IntN(3)], Version: []string{"", "16", "17"}[rng.IntN(3)]},
			Date:    at.AddDays(-rng.IntN(3 * 365)),
		}
		switch actor {
		case 10:
			r.Ownership, r.Operator = evidence.OwnershipUnknown, ""
		case 11:
			r.Ownership = evidence.OwnershipShared
		}
		switch rng.IntN(10) {
		case 0:
			r.Type, r.Outcome = evidence.TypeCorroboration, ""
		case 1:
			r.Type, r.Outcome = evidence.TypeContradiction, ""
		}
		recs = append(recs, r)
	}
	return recs
}

func mustAssess(t testing.TB, recs []evidence.Record, task skilltrust.Task) *skilltrust.Assessment {
	t.Helper()
	set, err := evidence.NewSet(recs, false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := skilltrust.Assess(set, task, at)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var tasks = []skilltrust.Task{
	{Skill: "PostgreSQL"},
	{Skill: "PostgreSQL indexing", Context: evidence.Context{Workload: "oltp"}},
	{Skill: "PostgreSQL replication", Context: evidence.Context{Version: "17", Workload: "batch"}},
}

// TestOrderInvariance: the assessment, to the last bit, does not depend on
// the order of the records; in particular order cannot favour successes.
func TestOrderInvariance(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 1))
		recs := randomRecords(rng, 60+rng.IntN(200))
		for _, task := range tasks {
			want := mustJSON(t, mustAssess(t, recs, task))
			shuffled := append([]evidence.Record(nil), recs...)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if got := mustJSON(t, mustAssess(t, shuffled, task)); got != want {
				t.Fatalf("seed %d, %s: the assessment depends on record order", seed, task.Skill)
			}
		}
	}
}

// summary is what must not change when pseudonyms are renamed.
func summary(a *skilltrust.Assessment) string {
	e := a.Effective
	return fmt.Sprintf("%s %s %s %t %t %s %s %.12f %.12f %.12f %d %d %d %v",
		a.State, a.Assessment, a.EvidenceLevel, a.Contested, a.Stale, a.Visibility, a.Calibration.Status,
		e.Observations, e.Binary, e.Successes, e.Operators, e.Validators, e.Contexts, a.Estimate)
}

// TestRelabelInvariance: renaming every record, actor, operator and memory
// consistently changes no figure or label.
func TestRelabelInvariance(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 2))
		recs := randomRecords(rng, 50+rng.IntN(150))
		renamed := make([]evidence.Record, len(recs))
		for i, r := range recs {
			l := *r.Lineage
			r.ID = "ev_x" + strings.TrimPrefix(r.ID, "ev_") + "z"
			r.Reporter = "act_q" + strings.TrimPrefix(r.Reporter, "act_")
			if r.Operator != "" {
				r.Operator = "op_w" + strings.TrimPrefix(r.Operator, "op_")
			}
			l.Memory = "mem_k" + strings.TrimPrefix(l.Memory, "mem_")
			r.Lineage = &l
			renamed[i] = r
		}
		for _, task := range tasks {
			if a, b := summary(mustAssess(t, recs, task)), summary(mustAssess(t, renamed, task)); a != b {
				t.Fatalf("seed %d, %s: renaming changed the assessment:\n%s\n%s", seed, task.Skill, a, b)
			}
		}
	}
}

// TestRelabelCannotBypassCaps: however the context labels are rewritten,
// no operator, actor or lineage ends above its cap, and the unknown pool
// stays within one unit.
func TestRelabelCannotBypassCaps(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 3))
		recs := randomRecords(rng, 150)
		for i := range recs {
			recs[i].Context = evidence.Context{Domain: fmt.Sprintf("fresh-%d", i)} // a new context for every record
		}
		a := mustAssess(t, recs, skilltrust.Task{Skill: "PostgreSQL"})
		op, actor, lineage, unknown := map[string]float64{}, map[string]float64{}, map[string]float64{}, 0.0
		for _, s := range a.Sources {
			actor[s.Reporter] += s.Weight
			lineage[s.Lineage] += s.Weight
			if s.Ownership == evidence.OwnershipUnknown {
				unknown += s.Weight
			}
		}
		for _, r := range recs {
			for _, s := range a.Sources {
				if s.ID == r.ID && r.Operator != "" {
					op[r.Operator] += s.Weight
				}
			}
		}
		check := func(kind string, m map[string]float64, limit float64) {
			for k, v := range m {
				if v > limit+1e-9 {
					t.Errorf("seed %d: %s %s holds %.6f, above its cap %g", seed, kind, k, v, limit)
				}
			}
		}
		check("operator", op, skilltrust.CapOperator)
		check("actor", actor, skilltrust.CapActor)
		check("lineage", lineage, skilltrust.CapLineage)
		check("unknown", map[string]float64{"pool": unknown}, skilltrust.CapUnknownOperator)
	}
}

// TestCapsNeverRaise: a final weight never exceeds its initial weight, and
// every group ends within its cap.
func TestCapsNeverRaise(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 4))
		recs := randomRecords(rng, 40+rng.IntN(300))
		for _, task := range tasks {
			a := mustAssess(t, recs, task)
			for _, s := range a.Sources {
				if s.Weight > s.InitialWeight || s.Weight < 0 {
					t.Fatalf("seed %d: %s weight %g against initial %g", seed, s.ID, s.Weight, s.InitialWeight)
				}
			}
			for _, g := range a.Groups {
				if g.Mass > g.Cap+1e-9 || g.Factor > 1 || g.Mass > g.InitialMass+1e-12 {
					t.Fatalf("seed %d: group %s/%s: mass %g, cap %g, factor %g", seed, g.Kind, g.Key, g.Mass, g.Cap, g.Factor)
				}
			}
		}
	}
}

// TestExhaustedGroupsStayVisible: groups whose mass is capped away or was
// zero from the start (self, shared ownership) keep their members listed,
// with zero weight where nothing counts.
func TestExhaustedGroupsStayVisible(t *testing.T) {
	var recs []evidence.Record
	for i := range 20 {
		recs = append(recs, evidence.Record{ID: fmt.Sprintf("ev_%d", i), Type: evidence.TypeOutcome, Outcome: evidence.OutcomeSuccess,
			Skill: "PostgreSQL", Quality: evidence.QualityObservedReuse, Reporter: fmt.Sprintf("act_%d", i%2), Operator: "op_1",
			Ownership: []evidence.Ownership{evidence.OwnershipShared, evidence.OwnershipDistinct}[i%2], Date: at})
	}
	a := mustAssess(t, recs, skilltrust.Task{Skill: "PostgreSQL"})
	if len(a.Sources) != len(recs) {
		t.Fatalf("%d sources listed for %d records", len(a.Sources), len(recs))
	}
	members := map[string]bool{}
	for _, g := range a.Groups {
		for _, m := range g.Members {
			members[m] = true
		}
		if g.Kind == skilltrust.GroupActor && g.Key == "act_0" && (g.InitialMass != 0 || g.Mass != 0 || len(g.Members) != 10) {
			t.Errorf("the shared-ownership actor's group: %+v", g)
		}
	}
	for _, s := range a.Sources {
		if !members[s.ID] {
			t.Errorf("%s is in no group", s.ID)
		}
		if s.Ownership == evidence.OwnershipShared && s.Weight != 0 {
			t.Errorf("%s: shared ownership weighs %g", s.ID, s.Weight)
		}
	}
	// The distinct actor's ten records in one operator and context keep one
	// unit between them: exhausted but listed.
	if got := a.Effective.Observations; math.Abs(got-1) > 1e-12 {
		t.Errorf("observations %g, want 1", got)
	}
}

// TestLaterEvidenceChangesNothing pins SPEC.md §4.2: an assessment as of a
// day is the same whether or not records dated later are in the set, apart
// from counting them (laterRecords and the later_records_ignored
// limitation). Later records get lineage links to earlier memories, so that
// they would join earlier clusters if they took part.
func TestLaterEvidenceChangesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 200 {
		recs := randomRecords(rng, 10+rng.IntN(40))
		var earlier []evidence.Record
		later := 0
		for i := range recs {
			if rng.IntN(4) == 0 {
				recs[i].Date = at.AddDays(1 + rng.IntN(30))
				recs[i].Lineage = &evidence.Lineage{Memory: fmt.Sprintf("mem_later%d", i),
					DerivedFrom: []string{fmt.Sprintf("mem_%d", rng.IntN(5)), fmt.Sprintf("mem_%d", rng.IntN(5))}}
				later++
				continue
			}
			earlier = append(earlier, recs[i])
		}
		for _, task := range tasks {
			all, only := mustAssess(t, recs, task), mustAssess(t, earlier, task)
			if all.Counts.LaterRecords != later {
				t.Fatalf("trial %d: %d later records counted, want %d", trial, all.Counts.LaterRecords, later)
			}
			all.Counts.LaterRecords = 0
			all.Limitations = slices.DeleteFunc(all.Limitations, func(l skilltrust.Limitation) bool { return l == skilltrust.LimitLaterRecords })
			if a, b := mustJSON(t, all), mustJSON(t, only); a != b {
				t.Fatalf("trial %d, task %q: later records changed the assessment:\n%s\n%s", trial, task.Skill, a, b)
			}
		}
	}
}
